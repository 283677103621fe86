test_that("oblique splits beat axis-aligned ones on a rotated boundary", {
  tr <- make_rotated(600, 1)
  te <- make_rotated(4000, 2)
  err <- function(projection) {
    m <- sporf(tr$x, tr$y, n_estimators = 50, projection = projection, random_state = 0)
    mean(predict(m, te$x) != te$y)
  }
  e_sparse <- err("sparse")
  e_axis <- err("axis")
  expect_lt(e_sparse, 0.06)
  expect_lt(e_sparse, e_axis)
})

test_that("trunk error is well below chance", {
  tr <- make_trunk(500, 20, 1)
  te <- make_trunk(3000, 20, 2)
  m <- sporf(tr$x, tr$y, n_estimators = 60, random_state = 0)
  expect_lt(mean(predict(m, te$x) != te$y), 0.08)
})

test_that("the same seed gives the same model bytes for any n_jobs", {
  tr <- make_trunk(300, 10, 3)
  m1 <- sporf(tr$x, tr$y, n_estimators = 20, random_state = 11, n_jobs = 1)
  m2 <- sporf(tr$x, tr$y, n_estimators = 20, random_state = 11, n_jobs = 2)
  m3 <- sporf(tr$x, tr$y, n_estimators = 20, random_state = 12, n_jobs = 2)
  expect_identical(m1$model, m2$model)
  expect_false(identical(m1$model, m3$model))
})

test_that("random_state = NULL follows set.seed()", {
  tr <- make_trunk(200, 5, 4)
  set.seed(99); a <- sporf(tr$x, tr$y, n_estimators = 10)
  set.seed(99); b <- sporf(tr$x, tr$y, n_estimators = 10)
  set.seed(100); c <- sporf(tr$x, tr$y, n_estimators = 10)
  expect_identical(a$model, b$model)
  expect_false(identical(a$model, c$model))
})

test_that("predict returns classes, probabilities and leaves of the right shape", {
  tr <- make_rotated(300, 5)
  m <- sporf(tr$x, tr$y, n_estimators = 15, random_state = 2)
  cls <- predict(m, tr$x[1:7, ])
  prob <- predict(m, tr$x[1:7, ], type = "prob")
  leaf <- predict(m, tr$x[1:7, ], type = "leaf")
  expect_s3_class(cls, "factor")
  expect_identical(levels(cls), c("neg", "pos"))
  expect_equal(dim(prob), c(7L, 2L))
  expect_identical(colnames(prob), c("neg", "pos"))
  expect_equal(rowSums(prob), rep(1, 7))
  expect_identical(as.character(cls), colnames(prob)[max.col(prob, ties.method = "first")])
  expect_equal(dim(leaf), c(7L, 15L))
  expect_type(leaf, "integer")
})

test_that("predictions do not depend on n_jobs", {
  tr <- make_trunk(400, 8, 6)
  m <- sporf(tr$x, tr$y, n_estimators = 30, random_state = 1)
  te <- make_trunk(5000, 8, 7)
  expect_identical(predict(m, te$x, type = "prob", n_jobs = 1), predict(m, te$x, type = "prob", n_jobs = 2))
})

test_that("the formula interface matches the matrix interface and reads factors as categorical features", {
  df <- data.frame(a = rnorm(200), b = rnorm(200))
  df$y <- factor(ifelse(df$a - df$b > 0, "u", "v"))
  m1 <- sporf(y ~ a + b, data = df, n_estimators = 10, random_state = 5)
  m2 <- sporf(as.matrix(df[, c("a", "b")]), df$y, n_estimators = 10, random_state = 5)
  expect_identical(model_without_note(m1), m2$model)
  expect_identical(predict(m1, df), predict(m2, df[, c("a", "b")]))

  m3 <- sporf(Species ~ ., data = iris, n_estimators = 10, random_state = 1)
  expect_gt(mean(predict(m3, iris) == iris$Species), 0.95)
  df$g <- factor(sample(c("p", "q", "r"), 200, replace = TRUE))
  m4 <- sporf(y ~ ., data = df, n_estimators = 5, random_state = 1)
  expect_identical(m4$n_features, 3L)
  expect_setequal(m4$feature_levels[[3]], c("p", "q", "r"))
  expect_length(predict(m4, df[1:3, ]), 3L)
})

test_that("data frame columns are matched by name at predict time", {
  df <- data.frame(a = rnorm(150), b = rnorm(150), c = rnorm(150))
  y <- factor(df$a > 0)
  m <- sporf(df, y, n_estimators = 10, random_state = 3)
  expect_identical(predict(m, df[, c("c", "a", "b")], type = "prob"), predict(m, df, type = "prob"))
  # the rule Python follows too: extra columns ignored, a missing one named,
  # no names read by position with a warning
  expect_identical(predict(m, cbind(df, extra = 1), type = "prob"), predict(m, df, type = "prob"))
  expect_error(predict(m, df[, c("a", "b")]), "lacks column the forest was trained on: c")
  expect_warning(p <- predict(m, unname(as.matrix(df)), type = "prob"), "no column names")
  expect_equal(unname(p), unname(predict(m, df, type = "prob")))
})

test_that("labels of every type come back as factor levels in sorted order", {
  x <- matrix(rnorm(300), 100, 3)
  y_int <- rep(c(3L, 1L, 2L), length.out = 100)
  m <- sporf(x, factor(y_int), n_estimators = 5, random_state = 1)
  expect_identical(m$classes, c("1", "2", "3"))
  m <- sporf(x, rep(c("b", "a"), 50), n_estimators = 5, random_state = 1)
  expect_identical(m$classes, c("a", "b"))
  m <- sporf(x, rep(c(TRUE, FALSE), 50), n_estimators = 5, random_state = 1)
  expect_identical(m$classes, c("FALSE", "TRUE"))
  f <- factor(rep(c("lo", "hi"), 50), levels = c("lo", "hi", "unused"))
  m <- sporf(x, f, n_estimators = 5, random_state = 1)
  expect_identical(m$classes, c("lo", "hi"))
})

test_that("out-of-bag predictions and error are reported", {
  tr <- make_rotated(400, 8)
  m <- sporf(tr$x, tr$y, n_estimators = 40, random_state = 4, oob_score = TRUE)
  expect_equal(dim(m$oob_decision_function), c(400L, 2L))
  expect_equal(oob_error(m), 1 - m$oob_score)
  expect_lt(oob_error(m), 0.15)
  expect_identical(predict(m), m$oob_predictions)
  expect_identical(predict(m, type = "prob"), m$oob_decision_function)
  expect_error(oob_error(sporf(tr$x, tr$y, n_estimators = 5, random_state = 1)), "oob_score = TRUE")
})

test_that("a subsample without the bootstrap leaves out-of-bag rows", {
  # bootstrap = FALSE with max_samples: each tree takes that many distinct
  # rows, and the others are its out-of-bag rows (ranger's replace = FALSE)
  tr <- make_rotated(400, 8)
  m <- sporf(tr$x, tr$y, n_estimators = 40, random_state = 4, bootstrap = FALSE, max_samples = 0.632,
             splitter = "random", oob_score = TRUE, importance = "permutation")
  m2 <- sporf(tr$x, tr$y, n_estimators = 40, random_state = 4, bootstrap = FALSE, max_samples = 0.632,
              splitter = "random", oob_score = TRUE, importance = "permutation", n_jobs = 2)
  expect_identical(m$model, m2$model)
  expect_lt(oob_error(m), 0.15)
  expect_true(all(is.finite(importance(m, type = "permutation"))))
  expect_error(sporf(tr$x, tr$y, bootstrap = FALSE, oob_score = TRUE), "max_samples below all the rows")
})

test_that("min_samples_leaf = 'auto' chooses the leaf size out of bag", {
  tr <- make_rotated(400, 8)
  # best cuts: the leaf size alone (test-shards.R chooses it with the kinds of trees)
  m <- sporf(tr$x, tr$y, n_estimators = 30, random_state = 4, min_samples_leaf = "auto", splitter = "best")
  m2 <- sporf(tr$x, tr$y, n_estimators = 30, random_state = 4, min_samples_leaf = "auto", splitter = "best",
              n_jobs = 2)
  expect_identical(m$model, m2$model)
  expect_identical(names(m$leaf_scores), c("1", "2", "3", "5", "8"))
  expect_equal(m$min_samples_leaf, as.numeric(names(which.min(m$leaf_scores))))
  expect_identical(m$params$min_samples_leaf, "auto")
  set.seed(1)
  x <- matrix(runif(600 * 5), 600)
  y <- 10 * sin(pi * x[, 1] * x[, 2]) + rnorm(600, sd = 6)
  noisy <- sporf(x, y, random_state = 1, min_samples_leaf = "auto")
  expect_gte(noisy$min_samples_leaf, 5)
  expect_identical(names(noisy$leaf_scores), c("1", "2", "3", "5", "8", "13", "21"))
  expect_null(sporf(tr$x, tr$y, n_estimators = 5, random_state = 1, min_samples_leaf = 3)$leaf_scores)
  # no rows out of bag: leaves of one row, unscored
  whole <- sporf(tr$x, tr$y, n_estimators = 5, random_state = 1, min_samples_leaf = "auto", bootstrap = FALSE)
  expect_equal(whole$min_samples_leaf, 1)
  expect_true(all(is.na(whole$leaf_scores)))
  expect_equal(predict(whole, tr$x, type = "prob"),
               predict(sporf(tr$x, tr$y, n_estimators = 5, random_state = 1, min_samples_leaf = 1,
                             bootstrap = FALSE), tr$x, type = "prob"))
  # grow(): the new trees are pruned to the size the first fit chose (best cuts:
  # the kinds of trees the first fit keeps, chosen on 15 trees, stay too)
  grown <- grow(sporf(tr$x, tr$y, n_estimators = 15, random_state = 4, min_samples_leaf = "auto",
                      splitter = "best"), 15)
  expect_identical(grown$min_samples_leaf, m$min_samples_leaf)
  expect_identical(grown$leaf_scores, sporf(tr$x, tr$y, n_estimators = 15, random_state = 4,
                                             min_samples_leaf = "auto", splitter = "best")$leaf_scores)
  expect_equal(predict(grown, tr$x[1:20, ], type = "prob"),
               (predict(sporf(tr$x, tr$y, n_estimators = 15, random_state = 4, min_samples_leaf = "auto",
                             splitter = "best"), tr$x[1:20, ], type = "prob") +
                predict(sporf(tr$x, tr$y, n_estimators = 15, first_tree = 15, random_state = 4, splitter = "best",
                              min_samples_leaf = structure(grown$min_samples_leaf, class = "sporf_chosen_leaf_size")),
                        tr$x[1:20, ], type = "prob")) / 2)
})

test_that("importance sums to 1 and finds the informative features", {
  set.seed(3)
  x <- matrix(rnorm(500 * 6), 500, 6, dimnames = list(NULL, paste0("f", 1:6)))
  y <- factor(x[, 2] > 0)
  m <- sporf(x, y, n_estimators = 30, projection = "axis", random_state = 1)
  imp <- importance(m)
  expect_equal(sum(imp), 1)
  expect_identical(names(imp), paste0("f", 1:6))
  expect_identical(names(which.max(imp)), "f2")
})

test_that("sample and class weights change the forest", {
  tr <- make_rotated(300, 9)
  base <- sporf(tr$x, tr$y, n_estimators = 10, random_state = 1)
  sw <- sporf(tr$x, tr$y, n_estimators = 10, random_state = 1, sample_weight = runif(300))
  cw <- sporf(tr$x, tr$y, n_estimators = 10, random_state = 1, class_weight = c(pos = 5))
  bal <- sporf(tr$x, tr$y, n_estimators = 10, random_state = 1, class_weight = "balanced")
  expect_false(identical(base$model, sw$model))
  expect_false(identical(base$model, cw$model))
  ones <- sporf(tr$x, tr$y, n_estimators = 10, random_state = 1, sample_weight = rep(1, 300))
  expect_identical(base$model, ones$model)
  expect_s3_class(bal, "sporf")
})

test_that("print and summary describe the forest", {
  m <- sporf(Species ~ ., data = iris, n_estimators = 25, random_state = 1, oob_score = TRUE)
  expect_output(print(m), "25 trees")
  expect_output(print(m), "out-of-bag error")
  expect_output(print(summary(m)), "Top 4 features")
})

test_that("verbose shows a progress bar", {
  tr <- make_trunk(200, 5, 10)
  out <- capture.output(m <- sporf(tr$x, tr$y, n_estimators = 400, random_state = 1, verbose = 1),
                        type = "message")
  expect_true(any(grepl("400/400 trees", out)))
})

test_that("R conventions: the call refits, $ never partially matches, response is the class", {
  fit <- sporf(Species ~ ., iris, n_estimators = 5, random_state = 1)
  # the call names the exported generic, so update() and eval() refit
  expect_identical(fit$call[[1L]], as.name("sporf"))
  expect_identical(update(fit, n_estimators = 7)$params$n_estimators, 7)
  expect_identical(eval(fit$call)$model, fit$model)
  m <- sporf(as.matrix(iris[, 1:4]), iris$Species, n_estimators = 5, random_state = 1)
  expect_identical(eval(m$call)$model, m$model)
  u <- urerf(as.matrix(iris[, 1:4]), n_estimators = 3, random_state = 1)
  expect_identical(eval(u$call)$model, u$model)
  b <- make_bars(40, size = 6, random_state = 0)
  mf <- morf(b$x, factor(b$y), n_estimators = 2, random_state = 1)
  expect_identical(update(mf, n_estimators = 2)$model, mf$model)
  # a formula fit has $xlevels, which $x would partially match
  expect_equal(dim(proximity(fit, iris[1:20, ], dense = TRUE)), c(20L, 20L))
  # randomForest's type = "response" is the class
  expect_identical(predict(fit, iris, type = "response"), predict(fit, iris))
  # MORF's print shows the patch sizes it draws
  expect_output(print(mf), "sizes 1 x 1 to 3 x 3")
})

test_that("importance() works after library(randomForest) too", {
  skip_if_not_installed("randomForest")
  fit <- sporf(Species ~ ., iris, n_estimators = 3, random_state = 1)
  expect_identical(randomForest::importance(fit), importance(fit))
})

test_that("grow() adds trees of the same forest (Python's warm_start)", {
  # a fixed leaf size: with "auto" grow() prunes to the first fit's choice (tested above)
  fit <- sporf(Species ~ ., iris, n_estimators = 5, random_state = 3, min_samples_leaf = 3)
  more <- grow(fit, 7)
  expect_identical(more$model, sporf(Species ~ ., iris, n_estimators = 12, random_state = 3, min_samples_leaf = 3)$model)
  expect_identical(predict(more, iris), predict(sporf(Species ~ ., iris, n_estimators = 12, random_state = 3, min_samples_leaf = 3), iris))
  expect_identical(eval(more$call)$model, more$model)
  x <- as.matrix(iris[, 1:4])
  set.seed(9)
  m <- sporf(x, iris$Species, n_estimators = 4, min_samples_leaf = 3)
  seed <- m$params$random_state
  expect_identical(grow(m, 3)$model, sporf(x, iris$Species, n_estimators = 7, random_state = seed, min_samples_leaf = 3)$model)
  r <- sporf(x, iris$Sepal.Length * 2, n_estimators = 3, random_state = 2, min_samples_leaf = 3)
  expect_identical(grow(r, 2, x = x)$model, sporf(x, iris$Sepal.Length * 2, n_estimators = 5, random_state = 2, min_samples_leaf = 3)$model)
  expect_error(grow(fit, 0), "n_more")
  expect_error(grow(merge_forests(fit), 2), "has none")
  f <- tempfile(fileext = ".sporf")
  sporf_save(fit, f)
  expect_error(grow(sporf_load(f), 2), "has none")
})

test_that("a grown forest keeps its out-of-bag results, as one fit of all its trees has them", {
  fit <- sporf(Species ~ ., iris, n_estimators = 20, random_state = 4, oob_score = TRUE, min_samples_leaf = 3)
  grown <- grow(fit, 15)
  whole <- sporf(Species ~ ., iris, n_estimators = 35, random_state = 4, oob_score = TRUE, min_samples_leaf = 3)
  for (field in c("oob_score", "oob_error", "oob_decision_function", "oob_predictions", "oob_error_curve",
                  "confusion", "err.rate"))
    expect_identical(grown[[field]], whole[[field]], info = field)
  expect_output(print(grown), "out-of-bag error")
  x <- as.matrix(iris[, 1:4])
  r <- sporf(x, iris$Sepal.Length * 2, n_estimators = 25, random_state = 2, oob_score = TRUE, min_samples_leaf = 3)
  r_whole <- sporf(x, iris$Sepal.Length * 2, n_estimators = 32, random_state = 2, oob_score = TRUE, min_samples_leaf = 3)
  expect_identical(grow(r, 7)$rsq, r_whole$rsq)
})

test_that("plot(fit) draws the out-of-bag error against the number of trees", {
  fit <- sporf(Species ~ ., iris, n_estimators = 40, random_state = 1, oob_score = TRUE)
  n <- fit$n_estimators # 40, or one kind's 20 when splitter = "auto" kept one kind
  expect_true(n %in% c(20L, 40L))
  expect_length(fit$oob_error_curve, n)
  # the curve's error is over the rows some tree left out (oob_error's over all
  # of them, as Python's oob_score_)
  seen <- fit$oob.times > 0
  expect_equal(fit$oob_error_curve[n], mean(fit$oob_predictions[seen] != iris$Species[seen]), tolerance = 1e-12)
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(fit), fit$oob_error_curve)
  expect_error(plot(sporf(Species ~ ., iris, n_estimators = 3)), "oob_score = TRUE")
})

test_that("predict type = \"vote\" gives randomForest's vote fractions", {
  fit <- sporf(Species ~ ., iris, n_estimators = 15, max_depth = 2, random_state = 1)
  v <- predict(fit, iris, type = "vote")
  expect_equal(dim(v), c(150L, 3L))
  expect_equal(colnames(v), levels(iris$Species))
  expect_equal(unname(rowSums(v)), rep(1, 150))
  expect_equal(v * 15, round(v * 15))
  expect_error(predict(fit, type = "vote"), "newdata is required")
})
