impulse <- function(n, seed) {
  set.seed(seed)
  signal <- ifelse(0:99 >= 20, exp(-(0:99 - 20) / 10), 0)
  y <- rep(0:1, length.out = n)
  list(x = matrix(rnorm(n * 100), n) + outer(y, signal), y = factor(y))
}

test_that("morf beats an axis-aligned forest on the impulse signal", {
  tr <- impulse(150, 1)
  te <- impulse(2000, 2)
  m <- morf(tr$x, tr$y, data_dims = 100, min_patch_dims = 5, max_patch_dims = 30, max_features = 100,
            n_estimators = 60, random_state = 1)
  rf <- sporf(tr$x, tr$y, projection = "axis", n_estimators = 60, random_state = 1)
  e_morf <- mean(predict(m, te$x) != te$y)
  expect_lt(e_morf, 0.19)
  expect_lt(e_morf, mean(predict(rf, te$x) != te$y))
})

test_that("arrays and matrices in row-major order give the same forest", {
  set.seed(3)
  n <- 120
  y <- rep(c("a", "b"), length.out = n)
  xa <- array(runif(n * 4 * 6), c(n, 4, 6))
  xa[y == "b", 2:3, 2:4] <- xa[y == "b", 2:3, 2:4] + 0.4
  xm <- matrix(aperm(xa, c(1, 3, 2)), n)  # columns: i1 * 6 + i2
  m1 <- morf(xa, y, min_patch_dims = 1, max_patch_dims = 3, n_estimators = 10, random_state = 2)
  m2 <- morf(xm, y, data_dims = c(4, 6), min_patch_dims = 1, max_patch_dims = 3, n_estimators = 10,
             random_state = 2)
  expect_identical(m1$model, m2$model)
  expect_identical(predict(m1, xa, type = "prob"), predict(m2, xm, type = "prob"))
  imap <- importance_map(m1)
  expect_equal(dim(imap), c(4L, 6L))
  expect_identical(which(imap == max(imap), arr.ind = TRUE)[1, "row"] %in% 2:3, TRUE)
  expect_equal(sum(importance_map(m1, "usage")), 1)
})

test_that("morf models save, load and plot", {
  tr <- impulse(80, 4)
  m <- morf(tr$x, tr$y, data_dims = 100, boundary = "wrap", patch_weights = "gaussian", n_estimators = 5,
            random_state = 3)
  f <- tempfile(fileext = ".sporf")
  sporf_save(m, f)
  l <- sporf_load(f)
  unlink(f)
  expect_s3_class(l, "morf")
  expect_identical(l$params$boundary, "wrap")
  expect_identical(l$params$patch_weights, "gaussian")
  expect_identical(predict(l, tr$x, type = "prob"), predict(m, tr$x, type = "prob"))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_length(plot(m, kind = "usage"), 100L)
})

test_that("bad grids give an error naming the problem", {
  tr <- impulse(40, 5)
  expect_error(morf(tr$x, tr$y, data_dims = c(3, 3)), "describe 9 features")
  expect_error(morf(tr$x, tr$y, max_patch_dims = 101), "outside the grid")
  expect_error(morf(tr$x, tr$y, min_patch_dims = 5, max_patch_dims = 3), "below min_patch_dims")
  expect_error(morf(tr$x, tr$y, data_dims = c(1, 100), boundary = "wrap"), "wrap")
  expect_error(morf(tr$x, tr$y, boundary = "mirror"), "boundary")
  expect_error(morf(tr$x, tr$y, data_dims = c(10, 10), max_patch_dims = c(2, 2, 2)), "one per axis")
  m <- morf(tr$x, tr$y, n_estimators = 2, random_state = 1)
  expect_error(predict(m, tr$x[, 1:50]), "50 columns")
})
