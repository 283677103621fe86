test_that("tune_oob grows the winner's forest byte for byte and reports every candidate", {
  d <- sporf::make_trunk(600, 30, random_state = 0)
  tuned <- sporf(d$x, d$y, n_estimators = 40, tune_oob = TRUE, random_state = 3, oob_score = TRUE)
  expect_identical(names(tuned$best_params), c("max_features", "feature_combinations"))
  expect_identical(nrow(tuned$tuning), 6L)
  expect_identical(sort(tuned$tuning$n_trees), c(5, 5, 5, 10, 20, 40))
  again <- do.call(sporf, c(list(d$x, d$y, n_estimators = 40, random_state = 3), tuned$best_params))
  expect_identical(again$model, tuned$model)
  winner <- tuned$tuning[which.max(tuned$tuning$n_trees), ]
  expect_equal(winner$oob_error, tuned$oob_error, tolerance = 1e-12)
  two <- sporf(d$x, d$y, n_estimators = 40, tune_oob = TRUE, random_state = 3, n_jobs = 2)
  expect_identical(two$model, tuned$model)
  # the object describes the forest it holds: the winner's values, as a loaded copy does
  expect_identical(tuned$params$max_features, tuned$best_params$max_features)
  expect_identical(tuned$max_features_resolved, again$max_features_resolved)
  expect_output(print(tuned), "chosen by out-of-bag error among 6 candidates")
})

test_that("tune_oob on a regression forest and a MORF forest", {
  set.seed(1)
  x <- matrix(rnorm(300 * 10), ncol = 10)
  y <- x[, 1] - 2 * x[, 2] + rnorm(300, sd = 0.3)
  reg <- sporf(x, y, n_estimators = 16, tune_oob = TRUE, random_state = 2)
  expect_identical(reg$task, "regression")
  expect_true(all(is.finite(reg$tuning$oob_error)))
  img <- matrix(rnorm(200 * 64), ncol = 64)
  cls <- factor(rowSums(img[, c(10, 11, 18, 19)]) > 0)
  m <- morf(img, cls, data_dims = c(8, 8), n_estimators = 12, tune_oob = TRUE, random_state = 1)
  expect_true(all(c("max_features", "max_patch_dims") %in% names(m$tuning)))
  expect_setequal(unique(m$tuning$max_patch_dims), c("NULL", "6, 6"))
})

test_that("bad tune_oob values are refused with the words Python uses", {
  d <- sporf::make_trunk(100, 5, random_state = 0)
  expect_error(sporf(d$x, d$y, n_estimators = 4, tune_oob = "yes"), "tune_oob must be TRUE, FALSE or \"structure\"")
  expect_error(sporf(d$x, d$y, n_estimators = 4, tune_oob = TRUE, bootstrap = FALSE),
               "tune_oob needs rows left out of each tree (bootstrap on, or max_samples", fixed = TRUE)
})

test_that("tune_oob = \"structure\" chooses among structurally different forests", {
  d <- sporf::make_trunk(500, 20, random_state = 2)
  tuned <- sporf(d$x, d$y, n_estimators = 32, tune_oob = "structure", random_state = 4, splitter = "best")
  expect_identical(nrow(tuned$tuning), 8L)
  expect_identical(tuned$tuning$projection, c("sparse", "sparse", "axis", "axis", "sparse", "sparse", "sparse", "sparse"))
  expect_identical(tuned$tuning$splitter, c("best", "random", "best", "random", "best", "best", "best", "random"))
  args <- list(d$x, d$y, n_estimators = 32, random_state = 4, splitter = "best")
  args[names(tuned$best_params)] <- tuned$best_params
  again <- do.call(sporf, args)
  expect_identical(again$model, tuned$model)
})
