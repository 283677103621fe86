# randomForest's habits: its out-of-bag field names, the confusion matrix in
# print(), getTree() and varImpPlot(), and `$` that gives NULL as a list does
# but names where randomForest's fields are.

test_that("a classification forest with OOB results has randomForest's fields", {
  fit <- sporf(Species ~ ., data = iris, n_estimators = 50, random_state = 1, oob_score = TRUE)
  expect_identical(fit$predicted, fit$oob_predictions)
  expect_identical(fit$votes, fit$oob_decision_function)
  cm <- fit$confusion
  expect_identical(dim(cm), c(3L, 4L))
  expect_identical(colnames(cm), c(levels(iris$Species), "class.error"))
  expect_equal(sum(cm[, 1:3]), sum(!is.na(fit$predicted)))
  expect_equal(unname(cm[, "class.error"]),
               unname(1 - diag(cm[, 1:3]) / rowSums(cm[, 1:3])))
  expect_identical(colnames(fit$err.rate), c("OOB", levels(iris$Species)))
  expect_equal(unname(fit$err.rate[50, "OOB"]), fit$oob_error)
  # each class's column: the share of its out-of-bag rows misclassified
  for (k in levels(iris$Species)) {
    seen <- iris$Species == k & !is.na(fit$predicted)
    expect_equal(unname(fit$err.rate[50, k]), mean(fit$predicted[seen] != k), info = k)
  }
  expect_identical(fit$err.rate[, -1L], fit$oob_error_curve_by_class)
  # how many trees left each row out
  expect_type(fit$oob.times, "integer")
  expect_length(fit$oob.times, 150L)
  expect_true(all(fit$oob.times > 5 & fit$oob.times < 35))
  expect_output(print(fit), "confusion matrix")
})

test_that("a regression forest with OOB results has mse and rsq", {
  fit <- sporf(mpg ~ ., data = mtcars, n_estimators = 60, random_state = 2, oob_score = TRUE)
  expect_length(fit$mse, 60)
  expect_equal(fit$mse[60], fit$oob_error)
  n <- nrow(mtcars)
  expect_equal(fit$rsq, 1 - fit$mse / (var(mtcars$mpg) * (n - 1) / n))
  expect_identical(fit$predicted, fit$oob_predictions)
})

test_that("$ gives NULL as a list does, and says where randomForest's fields are", {
  fit <- sporf(Species ~ ., data = iris, n_estimators = 5, random_state = 1)
  expect_null(fit$confusion) # a known field, absent without oob_score
  expect_error(fit$ntree, "randomForest's \"ntree\" is params$n_estimators", fixed = TRUE)
  expect_error(fit$forest, "get_tree(fit, k)", fixed = TRUE)
  expect_warning(expect_null(fit$oob_socre), "did you mean \"oob_score\"?", fixed = TRUE)
  expect_identical(fit$feature_n, fit[["feature_names"]]) # a unique prefix, as a list's `$`
  expect_null(fit$nonsense_field) # as a list: code that asks for na.action or weights keeps working
  expect_null(fit$na.action)
  expect_identical(fit[["nonsense_field"]], NULL)
})

test_that("getTree() and varImpPlot() take a sporf forest, and leave randomForest's to randomForest", {
  fit <- sporf(Species ~ ., data = iris, n_estimators = 6, random_state = 3)
  expect_identical(getTree(fit, 2), get_tree(fit, 2))
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(varImpPlot(fit), plot_importance(fit))
  skip_if_not_installed("randomForest")
  rf <- randomForest::randomForest(Species ~ ., data = iris, ntree = 5)
  expect_identical(getTree(rf, 1), randomForest::getTree(rf, 1))
  expect_silent(varImpPlot(rf))
})

test_that("get_tree() and predict.all give each tree's nodes and predictions", {
  fit <- sporf(Species ~ ., data = iris, n_estimators = 6, random_state = 3)
  p <- predict(fit, iris, predict.all = TRUE)
  expect_identical(p$aggregate, predict(fit, iris))
  expect_identical(dim(p$individual), c(150L, 6L))
  expect_true(all(p$individual %in% levels(iris$Species)))
  tr <- get_tree(fit, 2)
  leaves <- predict(fit, iris, type = "leaf")[, 2] + 1L
  expect_true(all(tr$status[leaves] == -1L))
  expect_identical(unname(p$individual[, 2]), unname(tr$prediction[leaves]))
  expect_true(all(tr$left[tr$status == 1L] == tr$node[tr$status == 1L] + 1L))
  expect_error(get_tree(fit, 7), "k must be a whole number in \\[1, 6\\]")
  reg <- sporf(mpg ~ ., data = mtcars, n_estimators = 5, random_state = 2)
  pr <- predict(reg, mtcars, predict.all = TRUE)
  expect_equal(rowMeans(pr$individual), pr$aggregate)
})

test_that("partial dependence follows the signal, and partialPlot draws it", {
  set.seed(3)
  x <- data.frame(a = runif(400), b = runif(400))
  y <- factor(ifelse(x$a > 0.5, "hi", "lo"))
  fit <- sporf(x, y, n_estimators = 30, random_state = 1)
  pd <- partial_dependence(fit, x, "a", which.class = "hi", n = 11)
  expect_identical(nrow(pd), 11L)
  expect_true(pd$y[11] - pd$y[1] > 0.8)            # the probability of "hi" rises with a
  flat <- partial_dependence(fit, x, 2, which.class = "hi", n = 11)
  expect_true(diff(range(flat$y)) < 0.2)           # and barely moves with b
  reg <- sporf(x, x$a * 10, n_estimators = 20, random_state = 1)
  expect_true(diff(range(partial_dependence(reg, x, "a", n = 5)$y)) > 5)
  expect_error(partial_dependence(fit, x, "c"), "var must name a column")
  expect_error(partial_dependence(fit, x, "a", which.class = "mid"), "which.class must be one of")
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(partial_plot(fit, x, "a", which.class = "hi", n = 11), pd)
  skip_if_not_installed("randomForest")
  expect_identical(randomForest::partialPlot(fit, x, "a", which.class = "hi", n.pt = 11), pd)
  expect_identical(randomForest::partialPlot(fit, x, a, "hi", n.pt = 11), pd)  # randomForest's unquoted form
  column <- "a"
  expect_identical(randomForest::partialPlot(fit, x, column, "hi", n.pt = 11), pd)
})

test_that("predict ignores columns the forest was not trained on, factors included", {
  fit <- sporf(iris[, 1:4], iris$Species, n_estimators = 5, random_state = 1)
  expect_identical(predict(fit, iris), predict(fit, iris[, 1:4]))
  expect_identical(predict(fit, iris[, c(5, 4, 3, 2, 1)]), predict(fit, iris[, 1:4]))
})
