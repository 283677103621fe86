
test_that("a formula without data takes its variables from the formula's environment, as lm() does", {
  d <- sporf::make_trunk(120, 3, random_state = 1)
  y <- factor(d$y)
  a <- d$x[, 1]; b <- d$x[, 2]; cc <- d$x[, 3]
  fit <- sporf(y ~ a + b + cc, n_estimators = 5, random_state = 2)
  ref <- sporf(y ~ a + b + cc, data = data.frame(y = y, a = a, b = b, cc = cc), n_estimators = 5, random_state = 2)
  expect_identical(fit$model, ref$model)
})

test_that("a character column is refused in a formula as in the x/y form, naming the fix", {
  d <- data.frame(a = rep(c("x", "y", "z"), 20), b = seq_len(60), y = rnorm(60), stringsAsFactors = FALSE)
  expect_error(sporf(y ~ ., data = d, n_estimators = 5), "column a holds text.*factor")
  expect_error(sporf(d[c("a", "b")], d$y, n_estimators = 5), "column a holds text.*factor")
  d$a <- factor(d$a)
  expect_identical(sporf(y ~ ., data = d, n_estimators = 5)$feature_names, c("a", "b"))
})
