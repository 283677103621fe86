# Quantile regression forests: predict(type = "quantiles") and its
# out-of-bag form; the same numbers as Python's (test_cross_language.py).

heteroscedastic <- function(n, seed) {
  set.seed(seed)
  x <- matrix(runif(n * 4, -3, 3), n)
  list(x = x, y = x[, 1] + (1 + abs(x[, 1])) * rnorm(n))
}

test_that("the 10-90% interval covers about 80% of new rows, wider where the noise is", {
  tr <- heteroscedastic(2000, 1)
  te <- heteroscedastic(4000, 2)
  fit <- sporf(tr$x, tr$y, n_estimators = 100, min_samples_leaf = 5, quantiles = TRUE, random_state = 1)
  q <- predict(fit, te$x, type = "quantiles", quantiles = c(0.1, 0.9))
  expect_identical(colnames(q), c("quantile= 0.1", "quantile= 0.9"))
  coverage <- mean(te$y >= q[, 1] & te$y <= q[, 2])
  expect_gte(coverage, 0.76)
  expect_lte(coverage, 0.84)
  width <- q[, 2] - q[, 1]
  expect_gt(mean(width[abs(te$x[, 1]) > 2]), 2 * mean(width[abs(te$x[, 1]) < 0.5]))
  oob <- predict(fit, tr$x, type = "quantiles", quantiles = c(0.1, 0.9), oob = TRUE)
  expect_gte(mean(tr$y >= oob[, 1] & tr$y <= oob[, 2]), 0.76)
})

test_that("quantiles are ordered training responses, and survive save and load", {
  d <- heteroscedastic(400, 3)
  fit <- sporf(d$x, d$y, n_estimators = 20, quantiles = TRUE, random_state = 2)
  q <- predict(fit, d$x[1:30, ], type = "quantiles")
  expect_identical(dim(q), c(30L, 3L))
  expect_true(all(q[, 1] <= q[, 2] & q[, 2] <= q[, 3]))
  expect_true(all(q %in% d$y))
  f <- tempfile(fileext = ".sporf")
  sporf_save(fit, f)
  expect_identical(predict(sporf_load(f), d$x[1:30, ], type = "quantiles"), q)
  # morf regressors keep them too
  m <- morf(d$x, d$y, data_dims = c(2, 2), n_estimators = 5, quantiles = TRUE, random_state = 2)
  expect_identical(dim(predict(m, d$x[1:4, ], type = "quantiles", quantiles = 0.5)), c(4L, 1L))
})

test_that("quantile requests that cannot be answered are refused with a reason", {
  d <- heteroscedastic(200, 4)
  plain <- sporf(d$x, d$y, n_estimators = 3, random_state = 1)
  expect_error(predict(plain, d$x, type = "quantiles"), "quantiles = TRUE")
  fit <- sporf(d$x, d$y, n_estimators = 3, quantiles = TRUE, random_state = 1)
  expect_error(predict(fit, d$x, type = "quantiles", quantiles = 1.5), "quantiles")
  expect_error(predict(fit, d$x, type = "quantiles", quantiles = NA_real_), "quantiles")
  expect_error(predict(fit, type = "quantiles"), "needs newdata")
  expect_error(predict(fit, d$x, oob = TRUE), "type = \"quantiles\"")
  expect_error(predict(fit, d$x[1:50, ], type = "quantiles", oob = TRUE), "training data")
  expect_error(sporf(d$x, factor(d$y > 0), n_estimators = 2, quantiles = TRUE), "regression")
})

test_that("quantiles given without a type ask for them, and are refused where they do not apply", {
  tr <- heteroscedastic(300, 3)
  fit <- sporf(tr$x, tr$y, n_estimators = 10, quantiles = TRUE, random_state = 1)
  expect_identical(predict(fit, tr$x, quantiles = c(0.1, 0.9)),
                   predict(fit, tr$x, type = "quantiles", quantiles = c(0.1, 0.9)))
  expect_error(predict(fit, tr$x, type = "response", quantiles = c(0.1, 0.9)),
               "quantiles are for type = \"quantiles\", not type = \"response\"", fixed = TRUE)
  clf <- sporf(iris[, 1:4], iris$Species, n_estimators = 5, random_state = 1)
  expect_error(predict(clf, iris[, 1:4], quantiles = 0.5), "quantiles are for regression forests", fixed = TRUE)
})
