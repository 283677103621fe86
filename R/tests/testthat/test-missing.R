# Missing values: NA in the predictors is learned (each split learns where
# rows missing its projection go) and predicted; NA in the response is an
# error; the formula interface fails on NA unless na.action = na.pass.

make_missing <- function(n, seed) {
  set.seed(seed)
  x <- matrix(runif(n * 4), n, 4, dimnames = list(NULL, paste0("x", 1:4)))
  y <- factor(ifelse(runif(n) < 0.3, "gone", "here"))
  x[y == "gone", 1] <- NA # only the missingness of x1 tells the classes apart
  list(x = x, y = y)
}

test_that("the matrix interface learns from NA and predicts rows with NA", {
  d <- make_missing(600, 1)
  t <- make_missing(400, 2)
  for (projection in c("sparse", "axis")) {
    fit <- sporf(d$x, d$y, n_estimators = 40, projection = projection, random_state = 1)
    expect_gt(mean(predict(fit, t$x) == t$y), 0.97)
  }
  # regression, and a row with every value missing
  yr <- ifelse(is.na(d$x[, 1]), 5, 0)
  expect_warning(reg <- sporf(d$x, yr, n_estimators = 40, random_state = 1), "five or fewer unique values")
  expect_lt(mean(abs(predict(reg, t$x) - ifelse(is.na(t$x[, 1]), 5, 0))), 0.3)
  expect_true(all(is.finite(predict(reg, matrix(NA_real_, 2, 4, dimnames = list(NULL, colnames(d$x)))))))
})

test_that("NA and NaN are the same missing value", {
  d <- make_missing(300, 3)
  x_nan <- d$x
  x_nan[is.na(x_nan)] <- NaN
  a <- sporf(d$x, d$y, n_estimators = 5, random_state = 2)
  b <- sporf(x_nan, d$y, n_estimators = 5, random_state = 2)
  expect_identical(a$model, b$model)
})

test_that("the formula interface fails on NA by default and passes it with na.pass", {
  d <- make_missing(300, 4)
  df <- data.frame(d$x, y = d$y)
  expect_error(sporf(y ~ ., df, n_estimators = 5), "missing values")
  # getOption("na.action") does not apply: no rows are dropped silently
  op <- options(na.action = "na.omit")
  on.exit(options(op))
  expect_error(sporf(y ~ ., df, n_estimators = 5), "missing values")
  fit <- sporf(y ~ ., df, n_estimators = 5, random_state = 3, na.action = na.pass)
  expect_identical(model_without_note(fit), sporf(d$x, d$y, n_estimators = 5, random_state = 3)$model)
  expect_length(predict(fit, df), 300)
  # a factor predictor's NA reaches the forest as NA in each of its columns
  df$f <- factor(sample(c("u", "v", "w"), 300, TRUE))
  df$f[1:20] <- NA
  fit2 <- sporf(y ~ ., df, n_estimators = 5, random_state = 3, na.action = na.pass)
  expect_length(predict(fit2, df), 300)
  # NA in the response stays an error
  df$y[5] <- NA
  expect_error(sporf(y ~ ., df, n_estimators = 5, na.action = na.pass), "y contains 1 missing value")
})

test_that("urerf and morf take NA", {
  d <- make_missing(300, 5)
  u <- urerf(d$x, n_estimators = 10, random_state = 1)
  expect_equal(dim(predict(u, d$x, type = "leaf")), c(300L, 10L))
  set.seed(6)
  img <- matrix(runif(300 * 16), 300, 16)
  img[sample(length(img), 300)] <- NA
  m <- morf(img, d$y, data_dims = c(4, 4), n_estimators = 10, random_state = 1)
  expect_length(predict(m, img), 300)
})
