# Categorical features: factor columns of a data frame (and of a formula's
# plain variables) and categorical_features; the same forests as Python's
# (test_cross_language.py).

thirty_levels <- function(n, seed) {
  set.seed(99)
  effect <- rnorm(30, 0, 2)
  set.seed(seed)
  level <- sample(0:29, n, replace = TRUE)
  x <- matrix(rnorm(n * 3), n)
  y <- effect[level + 1] + 0.5 * x[, 1] + rnorm(n)
  nm <- sprintf("lv%02d", 0:29)
  list(frame = data.frame(f = factor(nm[level + 1], levels = nm), a = x[, 1], b = x[, 2], c = x[, 3]),
       codes = cbind(level, x), y = y)
}

test_that("a 30-level factor beats its integer codes, and codes named in categorical_features match it", {
  tr <- thirty_levels(1500, 1)
  te <- thirty_levels(4000, 2)
  as_levels <- sporf(tr$frame, tr$y, n_estimators = 60, random_state = 0)
  as_numbers <- sporf(tr$codes, tr$y, n_estimators = 60, random_state = 0)
  expect_lt(mean((predict(as_levels, te$frame) - te$y)^2), mean((predict(as_numbers, te$codes) - te$y)^2))
  by_index <- sporf(tr$codes, tr$y, n_estimators = 60, random_state = 0, categorical_features = 1)
  expect_identical(unname(predict(by_index, te$codes)), unname(predict(as_levels, te$frame)))
  expect_length(as_levels$feature_levels[[1]], 30L)
  expect_null(as_levels$feature_levels[[2]])
})

test_that("levels are matched by name, unseen ones are missing, and the model file keeps them", {
  tr <- thirty_levels(600, 3)
  fit <- sporf(tr$frame, tr$y, n_estimators = 10, random_state = 1)
  rows <- tr$frame[1:10, ]
  expected <- predict(fit, rows)
  shuffled <- rows
  shuffled$f <- factor(as.character(rows$f), levels = rev(levels(rows$f)))
  expect_identical(predict(fit, shuffled), expected)
  odd <- rows[1:2, ]
  odd$f <- factor(c("never seen", NA))
  missing <- rows[1:2, ]
  missing$f <- factor(c(NA, NA), levels = levels(rows$f))
  expect_identical(unname(predict(fit, odd)), unname(predict(fit, missing)))
  f <- tempfile(fileext = ".sporf")
  sporf_save(fit, f)
  loaded <- sporf_load(f)
  expect_identical(loaded$feature_levels, fit$feature_levels)
  expect_identical(predict(loaded, rows), expected)
})

test_that("a formula's factor variables are categorical features", {
  d <- transform(iris, size = factor(ifelse(Sepal.Length > 5.8, "big", "small")))
  fit <- sporf(Species ~ size + Petal.Length, data = d, n_estimators = 20, random_state = 1)
  expect_identical(sort(fit$feature_levels[[1]]), c("big", "small"))
  f <- tempfile(fileext = ".sporf")
  sporf_save(fit, f)
  expect_identical(predict(sporf_load(f), d), predict(fit, d))
  # a transformed variable stays a column; an interaction goes through model.matrix
  fit2 <- sporf(Species ~ log(Petal.Length) + size, data = d, n_estimators = 5, random_state = 1)
  expect_length(fit2$feature_levels, 2L)
  expect_identical(predict(fit2, d[1:5, ]), predict(fit2, d)[1:5])
  fit3 <- sporf(Species ~ size * Petal.Length, data = d, n_estimators = 5, random_state = 1)
  expect_null(fit3$feature_levels)
})

test_that("what cannot be read as a categorical feature is refused with a reason", {
  tr <- thirty_levels(200, 4)
  text <- tr$frame
  text$f <- as.character(text$f)
  expect_error(sporf(text, tr$y, n_estimators = 2), "column f holds text.*factor")
  expect_error(sporf(tr$codes, tr$y, n_estimators = 2, categorical_features = 9), "categorical_features")
  expect_error(sporf(tr$frame, tr$y, n_estimators = 2, categorical_features = "nope"), "not a column")
})
