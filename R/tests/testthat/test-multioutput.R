# Multi-output y: a data frame of factors or a matrix of responses (or
# cbind() in a formula) grows one forest for every output.

two_outputs <- function(n, seed) {
  set.seed(seed)
  x <- matrix(rnorm(n * 6), n)
  y <- data.frame(a = factor(ifelse(x[, 1] + x[, 2] > 0, "yes", "no")),
                  b = cut(x[, 3], c(-Inf, -0.5, 0.5, Inf), labels = c("lo", "mid", "hi")))
  list(x = x, y = y, r = cbind(u = 2 * x[, 1] - x[, 4], v = x[, 5]^2))
}

test_that("a data frame of factors gives each output's classes and probabilities", {
  d <- two_outputs(600, 1)
  t <- two_outputs(600, 2)
  fit <- sporf(d$x, d$y, n_estimators = 30, random_state = 1, oob_score = TRUE)
  expect_equal(fit$n_outputs, 2L)
  expect_equal(fit$outputs, c("a", "b"))
  expect_equal(fit$classes$b, c("lo", "mid", "hi"))
  pred <- predict(fit, t$x)
  expect_s3_class(pred, "data.frame")
  expect_equal(levels(pred$b), c("lo", "mid", "hi"))
  expect_gt(mean(pred$a == t$y$a), 0.9)
  expect_gt(mean(pred$b == t$y$b), 0.9)
  prob <- predict(fit, t$x[1:5, ], type = "prob")
  expect_named(prob, c("a", "b"))
  expect_equal(dim(prob$b), c(5L, 3L))
  expect_equal(unname(rowSums(prob$b)), rep(1, 5))
  # out of bag: the mean of the outputs' accuracies, predictions per output
  oob <- predict(fit)
  ok <- !is.na(oob$a)
  expect_equal(fit$oob_score, mean(c(mean(oob$a[ok] == d$y$a[ok]), mean(oob$b[ok] == d$y$b[ok]))))
  expect_output(print(fit), "2 outputs: a, b")
})

test_that("a matrix of responses and cbind() in a formula grow the same forest", {
  d <- two_outputs(300, 3)
  fit <- sporf(d$x, d$r, n_estimators = 10, random_state = 2)
  p <- predict(fit, d$x[1:4, ])
  expect_equal(dim(p), c(4L, 2L))
  expect_equal(colnames(p), c("u", "v"))
  df <- data.frame(d$x, u = d$r[, "u"], v = d$r[, "v"])
  ff <- sporf(cbind(u, v) ~ ., data = df, n_estimators = 10, random_state = 2)
  expect_equal(predict(ff, df[1:4, ]), p, ignore_attr = TRUE) # the same trees; the formula travels in the file
})

test_that("one column is the single-output forest", {
  d <- two_outputs(200, 4)
  a <- sporf(d$x, d$y["a"], n_estimators = 5, random_state = 1)
  b <- sporf(d$x, d$y$a, n_estimators = 5, random_state = 1)
  expect_identical(a$model, b$model)
  expect_equal(as.integer(a$model[9]), 10L) # format 10: single-output bytes unchanged
})

test_that("grow, save and load, and merged shards keep every output", {
  d <- two_outputs(300, 5)
  # best cuts: grow() keeps the first fit's choice of trees, made on 5 trees
  whole <- suppressWarnings(sporf(d$x, d$r, n_estimators = 12, random_state = 4, oob_score = TRUE, splitter = "best"))
  first <- suppressWarnings(sporf(d$x, d$r, n_estimators = 5, random_state = 4, oob_score = TRUE,
                                  splitter = "best")) # few trees
  grown <- grow(first, 7)
  expect_identical(grown$model, whole$model)
  expect_equal(grown$oob_score, whole$oob_score)
  expect_equal(grown$outputs, c("u", "v"))
  f <- tempfile(fileext = ".sporf")
  sporf_save(whole, f)
  back <- sporf_load(f)
  expect_equal(back$n_outputs, 2L)
  expect_equal(unname(predict(back, d$x)), unname(predict(whole, d$x)))
  cls <- sporf(d$x, d$y, n_estimators = 4, random_state = 1)
  back <- sporf_load(cls$model)
  expect_equal(unname(back$classes), unname(cls$classes))
  expect_equal(predict(back, d$x)[[2]], predict(cls, d$x)[[2]])
})

test_that("tuning, honesty and missing values work with several outputs", {
  d <- two_outputs(300, 6)
  x <- d$x
  x[sample(length(x), 100)] <- NA
  for (args in list(list(tune_oob = TRUE), list(honest_fraction = 0.5), list())) {
    fit <- do.call(sporf, c(list(x, d$y, n_estimators = 8, random_state = 1), args))
    expect_gt(mean(predict(fit, x)$b == d$y$b), 0.8)
  }
})

test_that("what several outputs do not do is refused by name", {
  d <- two_outputs(100, 7)
  fit <- sporf(d$x, d$y, n_estimators = 2, random_state = 1)
  expect_error(predict(fit, d$x, type = "vote"), "single-output")
  expect_error(predict(fit, d$x, predict.all = TRUE), "single-output")
  expect_error(sporf(d$x, d$y, class_weight = c(yes = 2)), "multi-output")
  expect_error(sporf(d$x, d$y, importance = "permutation"), "single-output")
  expect_error(sporf(d$x, d$r, quantiles = TRUE), "single-output")
  expect_error(sporf(d$x, data.frame(d$y, u = d$r[, 1])), "all be numeric")
  expect_error(sporf(d$x, d$y[1:50, ]), "rows")
  expect_error(partial_dependence(fit, d$x, 1), "single-output")
})

test_that("cbind() of factors in a formula's response grows a classifier per output, as a data-frame y", {
  f <- sporf(cbind(wool, tension) ~ breaks, data = warpbreaks, n_estimators = 10, random_state = 1)
  xy <- sporf(warpbreaks["breaks"], warpbreaks[c("wool", "tension")], n_estimators = 10, random_state = 1)
  expect_identical(f$task, "classification")
  expect_identical(f$outputs, c("wool", "tension"))
  expect_equal(predict(f, warpbreaks), predict(xy, warpbreaks), ignore_attr = "row.names")
  # rows chosen by subset stay aligned with their classes
  s <- sporf(cbind(wool, tension) ~ breaks, data = warpbreaks, subset = breaks > 25, n_estimators = 10,
             random_state = 1)
  keep <- warpbreaks[warpbreaks$breaks > 25, ]
  s_xy <- sporf(keep["breaks"], keep[c("wool", "tension")], n_estimators = 10, random_state = 1)
  expect_equal(predict(s, warpbreaks), predict(s_xy, warpbreaks), ignore_attr = "row.names")
  # numeric columns stay a multi-output regression
  expect_identical(sporf(cbind(mpg, disp) ~ ., data = mtcars, n_estimators = 5)$task, "regression")
})
