# Out-of-bag permutation importance (importance = "permutation"): it finds the
# informative features, reads as randomForest's importance(type = 1), and is
# refused where it cannot be computed.

five_of_twenty_five <- function(n = 2000, regression = FALSE) {
  set.seed(0)
  X <- matrix(rnorm(n * 25), n)
  X[, 1] <- rbinom(n, 1, 0.5)
  X[, 2] <- rbinom(n, 1, 0.5)
  s <- 1.5 * X[, 1] + 1.5 * X[, 2] + X[, 3] + X[, 4] + X[, 5]
  y <- if (regression) s + rnorm(n) else factor(as.integer(s + rlogis(n) > 1.5))
  list(x = X, y = y)
}

test_that("the top five by permutation importance are the informative features", {
  for (regression in c(FALSE, TRUE)) {
    d <- five_of_twenty_five(regression = regression)
    fit <- sporf(d$x, d$y, n_estimators = 100, random_state = 0, importance = "permutation")
    imp <- importance(fit, type = "permutation")
    expect_equal(sort(order(imp, decreasing = TRUE)[1:5]), 1:5)
    expect_identical(imp, importance(fit, kind = "permutation"))
    # randomForest's matrix: type 1 scaled by the standard error, type 2 the impurity importance
    m1 <- importance(fit, type = 1)
    expect_identical(colnames(m1), if (regression) "MeanDecreaseRsq" else "MeanDecreaseAccuracy")
    expect_equal(m1[, 1], imp / (attr(imp, "sd") / sqrt(100)), ignore_attr = TRUE)
    expect_equal(importance(fit, type = 1, scale = FALSE)[, 1], as.vector(imp), ignore_attr = TRUE)
    expect_identical(colnames(importance(fit, type = 2)), if (regression) "IncNodePurity" else "MeanDecreaseGini")
    expect_length(attr(imp, "sd"), 25)
    expect_true(all(attr(imp, "sd") >= 0))
    expect_true(max(abs(imp[6:25])) < min(imp[1:5]) / 3)
  }
})

test_that("the same for any thread count, and drawn by plot_importance", {
  d <- five_of_twenty_five(500)
  a <- sporf(d$x, d$y, n_estimators = 20, random_state = 3, importance = "permutation", n_jobs = 1)
  b <- sporf(d$x, d$y, n_estimators = 20, random_state = 3, importance = "permutation", n_jobs = 2)
  expect_identical(importance(a, type = "permutation"), importance(b, type = "permutation"))
  pdf(NULL)
  on.exit(dev.off())
  drawn <- plot_importance(a, kind = "permutation", top = 5)
  expect_identical(drawn, importance(a, type = "permutation"))
})

test_that("it needs the bootstrap, a known value and a forest fitted with it", {
  d <- five_of_twenty_five(200)
  expect_error(sporf(d$x, d$y, bootstrap = FALSE, importance = "permutation"),
               "permutes the out-of-bag rows: it needs bootstrap=TRUE, or max_samples", fixed = TRUE)
  expect_error(sporf(d$x, d$y, importance = "gini"), "importance must be one of")
  fit <- sporf(d$x, d$y, n_estimators = 5, random_state = 1)
  expect_error(importance(fit, type = "permutation"), "fit it with importance = \"permutation\"", fixed = TRUE)
  expect_error(importance(fit, type = 3), "type must be")
})
