test_that("caret::train tunes a classification forest with sporf_caret and refits its winner", {
  # caret (loading, and timing each fit) asks R for the time zone, which warns
  # where the system cannot tell: give it one
  if (!nzchar(Sys.getenv("TZ"))) withr::local_envvar(TZ = "UTC")
  skip_if_not_installed("caret")
  d <- sporf::make_trunk(500, 10, random_state = 0)
  test <- sporf::make_trunk(500, 10, random_state = 1)
  colnames(d$x) <- colnames(test$x) <- paste0("f", 1:10) # caret asks for named columns
  set.seed(1)
  ctrl <- caret::trainControl(method = "cv", number = 3, classProbs = TRUE)
  y <- factor(ifelse(d$y == levels(d$y)[1], "a", "b"))
  tuned <- caret::train(d$x, y, method = sporf_caret, trControl = ctrl, tuneLength = 2,
                        n_estimators = 30, random_state = 1)
  # the grid: caret's max_features sequence x the two densities, leaves chosen out of bag
  expect_identical(nrow(tuned$results), 4L)
  expect_setequal(unique(tuned$results$feature_combinations), c(1.5, 3))
  expect_identical(unique(as.character(tuned$results$min_samples_leaf)), "auto")
  expect_true(all(tuned$results$Accuracy > 0.8))
  # the final model is the forest sporf() grows with the winning values
  best <- tuned$bestTune
  again <- sporf(d$x, y, n_estimators = 30, random_state = 1, max_features = best$max_features,
                 feature_combinations = best$feature_combinations, min_samples_leaf = "auto")
  expect_identical(tuned$finalModel$model, again$model)
  truth <- factor(ifelse(test$y == levels(d$y)[1], "a", "b"))
  expect_gt(mean(predict(tuned, test$x) == truth), 0.85)
  prob <- predict(tuned, test$x, type = "prob")
  expect_identical(colnames(prob), c("a", "b"))
  expect_equal(rowSums(prob), rep(1, 500), tolerance = 1e-12)
  imp <- caret::varImp(tuned, scale = FALSE)$importance
  expect_identical(nrow(imp), 10L)
  expect_gt(imp$Overall[1], stats::median(imp$Overall)) # the trunk's first features carry its signal
})

test_that("caret::train tunes a regression forest, by random search and with case weights", {
  if (!nzchar(Sys.getenv("TZ"))) withr::local_envvar(TZ = "UTC")
  skip_if_not_installed("caret")
  set.seed(2)
  x <- matrix(rnorm(300 * 5), ncol = 5, dimnames = list(NULL, paste0("v", 1:5)))
  y <- x[, 1] - 2 * x[, 2] + rnorm(300, sd = 0.3)
  ctrl <- caret::trainControl(method = "cv", number = 3, search = "random")
  tuned <- caret::train(x, y, method = sporf_caret, trControl = ctrl, tuneLength = 3,
                        n_estimators = 20, random_state = 2, weights = rep(c(1, 2), 150))
  expect_identical(nrow(tuned$results), 3L)
  expect_true(all(tuned$results$max_features >= 1 & tuned$results$max_features <= 10))
  expect_true(all(tuned$results$Rsquared > 0.7))
  leaf <- as.character(tuned$bestTune$min_samples_leaf)
  again <- sporf(x, y, n_estimators = 20, random_state = 2, max_features = tuned$bestTune$max_features,
                 feature_combinations = tuned$bestTune$feature_combinations,
                 min_samples_leaf = if (leaf == "auto") "auto" else as.numeric(leaf),
                 sample_weight = rep(c(1, 2), 150))
  expect_identical(tuned$finalModel$model, again$model)
  expect_identical(caret::predictors(tuned), paste0("v", 1:5))
})

test_that("sporf_caret's max_features grid follows caret's rule for its forests (var_seq)", {
  if (!nzchar(Sys.getenv("TZ"))) withr::local_envvar(TZ = "UTC")
  skip_if_not_installed("caret")
  for (p in c(1, 3, 10, 64, 600)) for (len in 1:4) for (cls in c(TRUE, FALSE)) {
    utils::capture.output(want <- caret::var_seq(p, cls, len)) # it prints a note when values repeat
    expect_equal(sporf:::.caret_candidates(p, cls, len), unique(want), info = paste(p, len, cls))
  }
})

test_that("sporf_caret lists caret's elements", {
  expect_true(all(c("parameters", "grid", "fit", "predict", "prob", "sort", "levels") %in% names(sporf_caret)))
  g <- sporf_caret$grid(matrix(0, 10, 16), factor(rep(0:1, 5)), len = 1)
  expect_identical(names(g), c("max_features", "feature_combinations", "min_samples_leaf"))
  expect_identical(nrow(g), 1L)
  expect_identical(g$min_samples_leaf, "auto")
  expect_identical(g$max_features, 4) # sqrt(16), the classification forests' usual count
})
