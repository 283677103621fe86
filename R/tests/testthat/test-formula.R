
test_that("a formula without data takes its variables from the formula's environment, as lm() does", {
  d <- sporf::make_trunk(120, 3, random_state = 1)
  y <- factor(d$y)
  a <- d$x[, 1]; b <- d$x[, 2]; cc <- d$x[, 3]
  fit <- sporf(y ~ a + b + cc, n_estimators = 5, random_state = 2)
  ref <- sporf(y ~ a + b + cc, data = data.frame(y = y, a = a, b = b, cc = cc), n_estimators = 5, random_state = 2)
  expect_identical(fit$model, ref$model)
})
