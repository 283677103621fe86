x <- matrix(rnorm(200), 50, 4)
y <- factor(rep(c("a", "b"), 25))

test_that("bad data gives an error naming the problem", {
  # NA in x is a missing value (test-missing.R); infinity is an error
  xi <- x; xi[1, 1] <- Inf
  expect_error(sporf(xi, y), "x contains infinite values \\(in column 1\\)")
  fit0 <- sporf(x, y, n_estimators = 2, random_state = 0)
  expect_error(predict(fit0, xi), "newdata contains infinite values")
  expect_error(urerf(xi, n_estimators = 2), "infinite")
  df <- data.frame(a = rnorm(50), b = letters[rep(1:2, 25)])
  expect_error(sporf(df, y), "column b holds text: a categorical feature must be a factor")
  expect_error(urerf(data.frame(a = rnorm(50), b = factor(letters[rep(1:2, 25)]))), "non-numeric column: b")
  yn <- y; yn[4] <- NA
  expect_error(sporf(x, yn), "missing value")
  one <- sporf(x, factor(rep("a", 50)), n_estimators = 3) # one class fits, as in Python and scikit-learn
  expect_identical(as.character(predict(one, x[1:2, ])), c("a", "a"))
  expect_equal(unname(predict(one, x[1:2, ], type = "prob")[, 1]), c(1, 1))
  expect_error(sporf(x, y[1:49]), "49 values but x has 50 rows")
  expect_error(sporf(x[0, ], y[0]), "no rows")
  expect_error(sporf(x[, 0], y), "no columns")
  expect_error(suppressWarnings(sporf(x, as.numeric(y), criterion = "gini")), "regression forest")
  expect_error(sporf(as.character(x), y), "numeric matrix or a data frame")
  expect_error(sporf(x), "y is missing")
})

test_that("bad parameters give an error naming the parameter", {
  expect_error(sporf(x, y, n_estimators = 0), "n_estimators")
  expect_error(sporf(x, y, max_features = 0), "max_features")
  expect_error(sporf(x, y, max_features = "most"), "max_features")
  expect_error(sporf(x, y, feature_combinations = 0), "feature_combinations")
  expect_error(sporf(x, y, feature_combinations = -1), "feature_combinations")
  expect_error(sporf(x, y, projection = "dense"), "projection")
  expect_error(sporf(x, y, criterion = "mse"), "criterion")
  expect_error(sporf(x, y, min_samples_split = 1), "min_samples_split")
  expect_error(sporf(x, y, min_samples_leaf = 0), "min_samples_leaf")
  expect_error(sporf(x, y, max_depth = 0), "max_depth")
  expect_error(sporf(x, y, bootstrap = FALSE, max_samples = 1000), "max_samples")
  expect_error(sporf(x, y, bootstrap = FALSE, oob_score = TRUE), "bootstrap")
  expect_error(sporf(x, y, class_weight = c(zzz = 2)), "class_weight names classes that are not in y: zzz", fixed = TRUE)
  expect_error(sporf(x, y, class_weight = "heavy"), "class_weight")
  expect_error(sporf(x, y, sample_weight = rep(-1, 50)), "non-negative")
  expect_error(sporf(x, y, sample_weight = 1:3), "length 50")
  expect_error(sporf(x, y, random_state = -1), "random_state")
  expect_error(sporf(x, y, n_jobs = 0), "n_jobs")
  expect_error(sporf(x, y, n_trees = 10), "unknown parameter: n_trees")
})

test_that("predict checks newdata against the training features", {
  df <- data.frame(a = rnorm(50), b = rnorm(50), c = rnorm(50))
  m <- sporf(df, y, n_estimators = 3, random_state = 1)
  expect_error(predict(m, df[, c("a", "b")]), "lacks column the forest was trained on: c")
  # NA is a missing value now (test-missing.R): predicted, not refused
  expect_length(predict(m, data.frame(a = 1, b = 1, c = NA)), 1L)
  expect_error(predict(m, data.frame(a = 1, b = 1, c = -Inf)), "infinite values \\(in column c\\)")
  mm <- sporf(x, y, n_estimators = 3, random_state = 1)
  expect_error(predict(mm, x[, 1:3]), "3 columns but the forest was trained on 4")
  expect_error(predict(mm, x, type = "votes"), "type must be one of")
  expect_error(predict(mm), "oob_score = TRUE")
  mf <- sporf(Species ~ ., data = iris, n_estimators = 3, random_state = 1)
  expect_error(predict(mf, iris[, 1:3]), "Petal.Width")
})

test_that("corrupt model files are refused and the session goes on", {
  m <- sporf(x, y, n_estimators = 3, random_state = 1)
  f <- tempfile(fileext = ".sporf")
  writeBin(m$model[1:(length(m$model) %/% 2)], f)
  expect_error(sporf_load(f), "truncated|corrupt")
  flipped <- m$model
  flipped[length(flipped) %/% 2] <- as.raw(bitwXor(as.integer(flipped[length(flipped) %/% 2]), 4L))
  writeBin(flipped, f)
  expect_error(sporf_load(f), "checksum|corrupt")
  writeBin(charToRaw("not a model"), f)
  expect_error(sporf_load(f))
  unlink(f)
  expect_error(sporf_load(f), "no such file")
  expect_length(predict(m, x), 50L)
})

# The bad-input table: every exported function, given bad input, stops with a
# message naming the problem (sporf() parameters above; merge_forests() in
# test-shards.R; the model loader in test-persistence.R and the C fuzzers).
test_that("every exported function refuses bad input with a message", {
  d <- sporf::make_trunk(60, 4, random_state = 0)
  fit <- sporf(d$x, factor(d$y), n_estimators = 3, random_state = 0)
  reg <- sporf(d$x, d$x[, 1], n_estimators = 3, random_state = 0)
  b <- sporf::make_bars(40, size = 6, random_state = 0)
  mf <- morf(b$x, factor(b$y), n_estimators = 3, random_state = 0)
  uf <- urerf(d$x, n_estimators = 3, random_state = 0)
  huge <- d$x
  huge[60, ] <- 1e200
  table <- list(
    list(quote(sporf(huge, factor(d$y))), "too large"),
    list(quote(sporf(d$x, c(1e200, d$x[-1, 1]))), "too large"),
    list(quote(sporf(d$x, factor(d$y), sample_weight = rep(1e200, 60))), "sample_weight"),
    list(quote(sporf(d$x, factor(d$y), first_tree = -1)), "first_tree"),
    list(quote(sporf(d$x, d$x[, 1], honest_fraction = 0.5, honest_prior = "uniform")), "honest_prior"),
    list(quote(morf(d$x, factor(d$y), data_dims = c(3, 3))), "data_dims"),
    list(quote(morf(b$x, factor(b$y), boundary = "mirror")), "boundary"),
    list(quote(morf(b$x, factor(b$y), min_patch_dims = 0)), "min_patch_dims"),
    list(quote(urerf(d$x[1, , drop = FALSE])), "at least 2 rows"),
    list(quote(urerf(d$x, criterion = "gini")), "criterion"),
    list(quote(urerf(d$x, n_neighbors = 0)), "n_neighbors"),
    list(quote(urerf(d$x, n_trees = 3)), "unknown parameter"),
    list(quote(predict(fit, d$x[, 1:3])), "3 columns"),
    list(quote(predict(reg, d$x, type = "prob")), "type must be one of"),
    list(quote(predict(mf, array(0, c(2, 5, 5)))), "columns|dimensions|data_dims"),
    list(quote(predict(uf, d$x)), "predicts no response"),
    list(quote(proximity(fit)), "training rows|reference"),
    list(quote(proximity(fit, d$x, reference = d$x[, 1:3])), "3 columns"),
    list(quote(kneighbors(uf, n_neighbors = 100)), "n_neighbors"),
    list(quote(projection_importances(fit, top = 0)), "top"),
    list(quote(importance_map(mf, kind = "bad")), "should be one of|kind"),
    list(quote(plot_importance(mf, kind = "bad")), "should be one of|kind"),
    list(quote(importance(fit, kind = "bad")), "should be one of|kind"),
    list(quote(oob_error(fit)), "oob_score"),
    list(quote(sporf_save(fit, "/nonexistent/dir/x.sporf")), "cannot write /nonexistent/dir/x.sporf: its folder"),
    list(quote(sporf_save(d$x, tempfile())), "needs a sporf forest"),
    list(quote(sporf_load(c("a", "b"))), "single path"),
    list(quote(geodesic_precision_recall(matrix(0, 5, 5), matrix(0, 5, 5), 0)), "k"),
    list(quote(geodesic_precision_recall(matrix(0, 5, 5), matrix(0, 4, 4), 1)), "5 x 5"),
    list(quote(geodesic_precision_recall(matrix(NaN, 5, 5), matrix(0, 5, 5), 1)), "NA, NaN"),
    list(quote(sporf::make_sparse_parity(10, n_features = 2, n_relevant = 3)), "n_relevant"),
    list(quote(sporf::make_trunk(0)), "n_samples"),
    list(quote(sporf::make_orthant(-3)), "n_samples"),
    list(quote(sporf::make_impulse(2.5)), "n_samples"),
    list(quote(sporf::make_circle_segments(0)), "n_samples"),
    list(quote(sporf::make_bars("ten")), "n_samples"),
    list(quote(sporf::make_manifold("torus")), "kind")
  )
  for (row in table) {
    expect_error(suppressWarnings(eval(row[[1]])), row[[2]], info = deparse(row[[1]]))
  }
  # and everything still works afterwards
  expect_identical(predict(fit, d$x), predict(sporf(d$x, factor(d$y), n_estimators = 3, random_state = 0), d$x))
})

test_that("a numeric y with five or fewer values warns, as randomForest does", {
  set.seed(3)
  x <- matrix(rnorm(200), ncol = 2)
  expect_warning(sporf(x, rep(0:1, 50), n_estimators = 3), "five or fewer unique values")
  expect_no_warning(sporf(x, rnorm(100), n_estimators = 3))
  expect_no_warning(sporf(x, factor(rep(0:1, 50)), n_estimators = 3))
})

test_that("unknown parameters name the sporf parameter to use", {
  d <- sporf::make_trunk(60, 4, random_state = 0)
  expect_error(sporf(d$x, d$y, ntree = 10), "unknown parameter: ntree (did you mean n_estimators?)", fixed = TRUE)
  expect_error(sporf(d$x, d$y, n_tree = 10), "unknown parameter: n_tree (did you mean n_estimators?)", fixed = TRUE)
  expect_error(sporf(d$x, d$y, mtry = 2), "mtry (did you mean max_features?)", fixed = TRUE)
  expect_error(sporf(d$x, d$y, max_featurs = 2), "max_featurs (did you mean max_features?)", fixed = TRUE)
  expect_error(sporf(d$x, d$y, zzzzzz = 2), "unknown parameter: zzzzzz", fixed = TRUE)
})

test_that("a time and an event flag bound as two outputs are refused with Surv()", {
  set.seed(1)
  x <- matrix(rnorm(120), 40)
  time <- rexp(40)
  status <- rbinom(40, 1, 0.6)
  expect_error(sporf(x, cbind(time = time, status = status), n_estimators = 2),
               "survival::Surv\\(time, status\\)")
  expect_error(sporf(x, data.frame(futime = time, death = status + 1), n_estimators = 2),
               "status 1/2")
  # other names are two outputs, as asked
  fit <- sporf(x, cbind(a = time, b = status), n_estimators = 2, random_state = 1)
  expect_identical(fit$n_outputs, 2L)
})

test_that("oob = TRUE refuses rows that are not the training rows, in their order", {
  set.seed(2)
  x <- matrix(rnorm(400), 100)
  y <- x[, 1] + rnorm(100, sd = 0.1)
  fit <- sporf(x, y, n_estimators = 10, quantiles = TRUE, random_state = 1)
  ok <- predict(fit, x, type = "quantiles", quantiles = 0.5, oob = TRUE)
  expect_true(any(is.finite(ok)))
  for (other in list(x[100:1, ], x + 1))
    expect_error(predict(fit, other, type = "quantiles", quantiles = 0.5, oob = TRUE), "another order")
  sfit <- sporf(x, survival::Surv(abs(y) + 0.1, as.integer(y > 0)), n_estimators = 10, random_state = 1)
  expect_error(predict(sfit, x[100:1, ], oob = TRUE), "another order")
  expect_true(any(is.finite(predict(sfit, x, oob = TRUE))))
  # a forest read from a model file knows neither the count nor the rows: taken as given
  path <- tempfile()
  sporf_save(fit, path)
  expect_identical(predict(sporf_load(path), x, type = "quantiles", quantiles = 0.5, oob = TRUE), ok)
})

test_that("a 0/1/2 status that Surv() turned into NA says why", {
  set.seed(3)
  x <- matrix(rnorm(90), 30)
  status <- rep(0:2, 10)
  y <- suppressWarnings(survival::Surv(rexp(30), status))
  expect_error(sporf(x, y, n_estimators = 2), "status == 2")
})
