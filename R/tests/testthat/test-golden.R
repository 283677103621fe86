# Golden model files committed under the repository's tests/golden (see its
# README). The Makefile points SPORF_GOLDEN_DIR there; outside the repository
# (e.g. a check of the tarball elsewhere) the files are not available.
golden_dir <- function() {
  d <- Sys.getenv("SPORF_GOLDEN_DIR")
  if (!nzchar(d) || !dir.exists(d)) {
    if (nzchar(Sys.getenv("CI"))) stop("SPORF_GOLDEN_DIR must point to tests/golden in CI")
    skip("SPORF_GOLDEN_DIR is not set")
  }
  d
}

read_f64 <- function(f, p) {
  v <- readBin(f, "double", n = file.info(f)$size / 8, size = 8, endian = "little")
  matrix(v, ncol = p, byrow = TRUE)
}

test_that("a model written by Python predicts exactly its stored probabilities", {
  d <- golden_dir()
  m <- sporf_load(file.path(d, "python_model.sporf"))
  xt <- read_f64(file.path(d, "test_x.f64"), 7)
  want <- read_f64(file.path(d, "python_proba.f64"), 3)
  got <- predict(m, xt, type = "prob")
  expect_identical(unname(got), want)
  expect_identical(m$classes, c("high", "low", "mid"))
  expect_identical(m$params$random_state, 20261122)
})

test_that("R refits the Python golden model byte for byte", {
  d <- golden_dir()
  x <- read_f64(file.path(d, "train_x.f64"), 7)
  y <- readLines(file.path(d, "train_y.txt"))
  m <- sporf(x, y, n_estimators = 12, max_features = 4, feature_combinations = 2, max_depth = 8,
             min_samples_leaf = 2, axis_features = 0, guided_features = 0, max_bins = 0,
             random_state = 20261122)
  want <- readBin(file.path(d, "python_model.sporf"), "raw", file.info(file.path(d, "python_model.sporf"))$size)
  expect_identical(m$model, want)
})

test_that("the R golden model still loads, predicts and refits identically", {
  d <- golden_dir()
  x <- read_f64(file.path(d, "train_x.f64"), 7)
  y <- readLines(file.path(d, "train_y.txt"))
  xt <- read_f64(file.path(d, "test_x.f64"), 7)
  f <- file.path(d, "r_model.sporf")
  m <- sporf_load(f)
  expect_identical(unname(predict(m, xt, type = "prob")), read_f64(file.path(d, "r_proba.f64"), 3))
  refit <- sporf(x, y, n_estimators = 12, max_features = 4, projection = "axis", max_depth = 8,
                 min_samples_leaf = 2, axis_features = 0, guided_features = 0, max_bins = 0,
                 random_state = 4242, n_jobs = 2)
  expect_identical(refit$model, readBin(f, "raw", file.info(f)$size))
})

test_that("format 8 and 9 models (before max_bins, before quantiles) load, predict as before and re-save as the current files", {
  d <- golden_dir()
  xt <- read_f64(file.path(d, "test_x.f64"), 7)
  for (old_file in sprintf("%s_model_v%d.sporf", rep(c("python", "r"), 2), rep(8:9, each = 2))) {
    lang <- sub("_model.*", "", old_file)
    old <- sporf_load(file.path(d, old_file))
    expect_identical(unname(predict(old, xt, type = "prob")),
                     read_f64(file.path(d, sprintf("%s_proba.f64", lang)), 3))
    expect_equal(old$params$max_bins, 0)
    expect_false(old$params$quantiles)
    f <- file.path(d, sprintf("%s_model.sporf", lang))
    expect_identical(old$model, readBin(f, "raw", file.info(f)$size))
  }
})

test_that("format 3 to 7 models (before compact trees, tree ranges, the parameter spec, axis and guided search, missing values) load, predict as before and re-save as one current-format file", {
  d <- golden_dir()
  xt <- read_f64(file.path(d, "test_x.f64"), 7)
  for (old_file in sprintf("%s_model_v%d.sporf", rep(c("python", "r"), 5), rep(3:7, each = 2))) {
    lang <- sub("_model.*", "", old_file)
    old <- sporf_load(file.path(d, old_file))
    expect_identical(unname(predict(old, xt, type = "prob")),
                     read_f64(file.path(d, sprintf("%s_proba.f64", lang)), 3))
    # the current golden file's trees without the missing-value directions
    # older formats did not store: such a model refuses rows with NA
    v7 <- sporf_load(file.path(d, sprintf("%s_model_v7.sporf", lang)))
    expect_identical(old$model, v7$model)
    f <- file.path(d, sprintf("%s_model.sporf", lang))
    expect_identical(length(old$model), as.integer(file.info(f)$size))
    xna <- xt[1:2, ]
    xna[2, 3] <- NA
    expect_error(predict(old, xna), "NaN \\(row 1, column 2\\).*format 7 or earlier")
  }
})

test_that("the Python golden quantile forest loads and predicts the same quantiles in R", {
  d <- golden_dir()
  xt <- read_f64(file.path(d, "test_x.f64"), 7)
  m <- sporf_load(file.path(d, "python_quantile_model.sporf"))
  q <- predict(m, xt, type = "quantiles", quantiles = c(0.1, 0.5, 0.9))
  expect_identical(unname(q), read_f64(file.path(d, "python_quantiles.f64"), 3))
  expect_true(all(q[, 1] <= q[, 2] & q[, 2] <= q[, 3]))
})

test_that("the Python golden survival forest predicts the same risks and curves in R", {
  d <- golden_dir()
  xt <- read_f64(file.path(d, "test_x.f64"), 7)
  m <- sporf_load(file.path(d, "python_survival_model.sporf"))
  expected <- read_f64(file.path(d, "python_survival.f64"), 6)
  expect_identical(m$task, "survival")
  expect_identical(unname(predict(m, xt)), expected[, 1])
  expect_identical(unname(predict(m, xt, type = "survival", times = c(0.2, 0.5, 1, 2, 4))), expected[, -1])
})

test_that("a format 12 survival forest (before min_events_split) loads and predicts as it did", {
  d <- golden_dir()
  xt <- read_f64(file.path(d, "test_x.f64"), 7)
  m <- sporf_load(file.path(d, "python_survival_model_v12.sporf"))
  expected <- read_f64(file.path(d, "python_survival_v12.f64"), 6)
  expect_identical(m$params$min_events_split, 0)
  expect_identical(unname(predict(m, xt)), expected[, 1])
  expect_identical(unname(predict(m, xt, type = "survival", times = c(0.2, 0.5, 1, 2, 4))), expected[, -1])
})

test_that("the Python golden categorical forest predicts the same probabilities from an R factor", {
  d <- golden_dir()
  xt <- read_f64(file.path(d, "test_x.f64"), 7)
  # tools/make_golden.py's categorical_frame: column 1 cut into six named levels
  lv <- c("north", "east", "south", "west", "centre", "island")
  code <- findInterval(xt[, 1], c(-1.0, -0.4, 0.0, 0.4, 1.0))
  frame <- data.frame(region = factor(lv[c(3, 0, 5, 1, 4, 2)[code + 1] + 1], levels = lv), xt[, 2:7])
  names(frame) <- c("region", paste0("x", 1:6))
  m <- sporf_load(file.path(d, "python_categorical_model.sporf"))
  expect_identical(unname(predict(m, frame, type = "prob")), read_f64(file.path(d, "python_categorical_proba.f64"), 3))
  expect_length(m$feature_levels[[1]], 6L)
})

test_that("the Python golden isolation forest scores the same in R, and R refits it to the byte", {
  d <- golden_dir()
  m <- sporf_load(file.path(d, "python_isolation_model.sporf"))
  expect_s3_class(m, "sporf_isolation")
  rows <- function(x) { x[seq(1, nrow(x), 9), 3] <- NA; x } # tools/make_golden.py isolation_rows
  xt <- rows(read_f64(file.path(d, "test_x.f64"), 7))
  expect_identical(unname(predict(m, xt)), as.vector(read_f64(file.path(d, "python_isolation_scores.f64"), 1)))
  x <- rows(read_f64(file.path(d, "train_x.f64"), 7))
  refit <- isolation_forest(x, n_estimators = 10, max_samples = 64, contamination = 0.1, random_state = 20261129)
  bytes <- readBin(file.path(d, "python_isolation_model.sporf"), "raw", n = 1e6)
  expect_identical(refit$model, bytes)
  expect_identical(refit$offset, m$offset)
})
