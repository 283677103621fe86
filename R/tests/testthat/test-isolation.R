# isolation_forest(): anomaly scores, outlier labels, the threshold, files,
# shards, grow(), patches, missing values, factors and bad input.

planted <- function(n = 300, p = 5, k = 10, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), ncol = p)
  x[seq_len(k), ] <- x[seq_len(k), ] + 6
  list(x = x, y = c(rep(1, k), rep(0, n - k)))
}

auroc <- function(y, s) {
  r <- rank(s)
  (sum(r[y == 1]) - sum(y == 1) * (sum(y == 1) + 1) / 2) / (sum(y == 1) * sum(y == 0))
}

test_that("planted anomalies score highest for every projection", {
  d <- planted()
  for (proj in c("sparse", "axis", "gaussian", "frc", "poisson")) {
    f <- isolation_forest(d$x, n_estimators = 80, projection = proj, random_state = 2)
    expect_s3_class(f, "sporf_isolation")
    s <- predict(f, d$x)
    expect_true(all(s > 0 & s <= 1))
    expect_gt(auroc(d$y, s), 0.97)
  }
})

test_that("two rows score one half exactly; constant columns give equal scores", {
  f <- isolation_forest(matrix(c(0, 1, 1, 3), 2), n_estimators = 4, random_state = 1)
  expect_identical(unname(predict(f, matrix(c(0, 1, 1, 3), 2))), c(0.5, 0.5))
  g <- isolation_forest(matrix(1, 40, 3), n_estimators = 4, random_state = 1)
  s <- predict(g, matrix(1, 40, 3))
  expect_true(all(s == 0.5))
  expect_false(any(predict(g, matrix(1, 40, 3), type = "outlier")))
})

test_that("contamination sets the threshold, and outlier and decision follow it", {
  d <- planted()
  f <- isolation_forest(d$x, n_estimators = 50, contamination = 0.05, random_state = 3)
  s <- predict(f, d$x)
  expect_equal(f$offset, unname(stats::quantile(s, 0.95, type = 7)), tolerance = 1e-12)
  out <- predict(f, d$x, type = "outlier")
  expect_true(is.logical(out))
  expect_equal(mean(out), 0.05, tolerance = 0.01)
  expect_identical(predict(f, d$x, type = "decision"), f$offset - s)
  expect_equal(isolation_forest(d$x, n_estimators = 5, random_state = 3)$offset, 0.5)
  for (bad in list(0, 0.7, "high", NA, c(0.1, 0.2)))
    expect_error(isolation_forest(d$x, contamination = bad), "contamination")
})

test_that("the same bytes for any thread count; files keep scores and the threshold", {
  d <- planted()
  a <- isolation_forest(d$x, n_estimators = 20, contamination = 0.1, random_state = 4, n_jobs = 1)
  b <- isolation_forest(d$x, n_estimators = 20, contamination = 0.1, random_state = 4, n_jobs = 2)
  expect_identical(a$model, b$model)
  path <- tempfile(fileext = ".sporf")
  sporf_save(a, path)
  g <- sporf_load(path)
  expect_s3_class(g, "sporf_isolation")
  expect_identical(g$offset, a$offset)
  expect_identical(predict(g, d$x, type = "outlier"), predict(a, d$x, type = "outlier"))
  r <- readRDS({p <- tempfile(); saveRDS(a, p); p})
  expect_identical(predict(r, d$x), predict(a, d$x))
})

test_that("shards merge into one fit, and grow() adds the fit's next trees", {
  d <- planted()
  whole <- isolation_forest(d$x, n_estimators = 30, random_state = 5)
  a <- isolation_forest(d$x, n_estimators = 10, first_tree = 0, random_state = 5)
  b <- isolation_forest(d$x, n_estimators = 20, first_tree = 10, random_state = 5)
  expect_identical(merge_forests(a, b)$model, whole$model)
  first <- isolation_forest(d$x, n_estimators = 10, random_state = 5)
  expect_identical(grow(first, 20)$model, whole$model)
})

test_that("rows with missing values are scored; factors are categorical features", {
  d <- planted()
  x <- d$x
  x[seq(1, 300, 7), 2] <- NA
  f <- isolation_forest(x, n_estimators = 50, random_state = 6)
  s <- predict(f, x)
  expect_true(all(is.finite(s)))
  expect_gt(auroc(d$y, s), 0.95)
  set.seed(2)
  df <- data.frame(v = rnorm(300), level = factor(sample(c("a", "b", "c"), 300, TRUE), levels = c("a", "b", "c", "rare")))
  df$level[1:6] <- "rare"
  g <- isolation_forest(df, n_estimators = 80, projection = "axis", random_state = 1)
  expect_false(is.null(g$feature_levels[[2L]]))
  expect_gt(auroc(c(rep(1, 6), rep(0, 294)), predict(g, df)), 0.9)
})

test_that("patches isolate images whose band moved", {
  set.seed(3)
  x <- matrix(rnorm(150 * 64, sd = 0.2), 150)
  band <- rep(0, 64)
  band[9:24] <- 1 # rows 2-3 of an 8 x 8 image (row-major)
  moved <- rep(0, 64)
  moved[41:56] <- 1
  x <- x + matrix(band, 150, 64, byrow = TRUE)
  x[1:5, ] <- x[1:5, ] - matrix(band, 5, 64, byrow = TRUE) + matrix(moved, 5, 64, byrow = TRUE)
  f <- isolation_forest(x, n_estimators = 80, projection = "patch", data_dims = c(8, 8), random_state = 1)
  expect_identical(f$params$patch_weights, "haar")
  expect_gt(auroc(c(rep(1, 5), rep(0, 145)), predict(f, x)), 0.95)
})

test_that("print and summary describe the forest", {
  f <- isolation_forest(planted()$x, n_estimators = 5, random_state = 1)
  expect_output(print(f), "isolation forest: 5 trees")
  expect_output(print(summary(f)), "outlier threshold")
})

test_that("bad input gets a clear error", {
  d <- planted()
  expect_error(isolation_forest(d$x[1, , drop = FALSE]), "at least 2 rows")
  x <- d$x
  x[2, 3] <- Inf
  expect_error(isolation_forest(x), "infinite")
  f <- isolation_forest(d$x, n_estimators = 3, random_state = 1)
  expect_error(predict(f, d$x[, 1:3]), "features|columns")
  expect_error(predict(f, d$x, type = "prob"), "type must be one of")
  expect_error(predict(f), "newdata is required")
  expect_error(isolation_forest(d$x, max_samples = 1), "at least 2 rows")
  expect_error(isolation_forest(d$x, min_samples_leaf = 2), "min_samples_leaf")
})
