test_that("saveRDS/readRDS keep a working forest", {
  tr <- make_trunk(200, 6, 1)
  m <- sporf(tr$x, tr$y, n_estimators = 10, random_state = 1)
  f <- tempfile(fileext = ".rds")
  saveRDS(m, f)
  m2 <- readRDS(f)
  unlink(f)
  expect_identical(predict(m2, tr$x, type = "prob"), predict(m, tr$x, type = "prob"))
  expect_identical(importance(m2), importance(m))
})

test_that("sporf_save and sporf_load round-trip the model bytes", {
  df <- data.frame(u = rnorm(120), v = rnorm(120))
  y <- factor(ifelse(df$u > df$v, "yes", "no"))
  m <- sporf(df, y, n_estimators = 8, random_state = 2, max_features = 3, projection = "axis",
             max_depth = 6, criterion = "entropy")
  f <- tempfile(fileext = ".sporf")
  sporf_save(m, f)
  expect_identical(readBin(f, "raw", file.info(f)$size), m$model)
  l <- sporf_load(f)
  unlink(f)
  expect_identical(l$model, m$model)
  expect_identical(l$classes, m$classes)
  expect_identical(l$feature_names, c("u", "v"))
  expect_identical(l$params$max_depth, 6)
  expect_identical(l$params$criterion, "entropy")
  expect_identical(l$params$projection, "axis")
  expect_identical(l$params$random_state, 2)
  expect_identical(predict(l, df, type = "prob"), predict(m, df, type = "prob"))
})

test_that("a formula fit's model keeps its formula through save and load", {
  d <- iris
  d$big <- d$Sepal.Length > 5.8           # logical predictor
  d$kind <- factor(ifelse(d$Petal.Width > 1, "wide", "narrow"))
  fit <- sporf(Species ~ Sepal.Length + Petal.Length + big + kind + Sepal.Width:Petal.Width, d,
               n_estimators = 8, random_state = 1)
  f <- tempfile(fileext = ".sporf")
  sporf_save(fit, f)
  loaded <- sporf_load(f)
  expect_identical(predict(loaded, d), predict(fit, d))
  expect_identical(predict(loaded, d[1:5, ], type = "prob"), predict(fit, d[1:5, ], type = "prob"))
  expect_identical(loaded$model, fit$model)
  # a formula that calls functions is not stored (model.frame would run it on
  # an untrusted file's say-so): its loaded model takes the design matrix
  fit2 <- sporf(Species ~ log(Sepal.Length) + Petal.Length, iris, n_estimators = 3, random_state = 1)
  expect_warning(sporf_save(fit2, f), "does not store this forest's formula")
  expect_null(sporf_load(f)$terms)
  # a crafted note with a call in a term is ignored
  note <- charToRaw(paste("sporf-r-formula 1", "i 1", "t system(%22echo%20pwned%22)", sep = "\n"))
  expect_null(sporf:::.formula_from_note(note))
})

test_that("sporf_load() takes the model's bytes, and Matrix sparse input fits as dense", {
  fit <- sporf(Species ~ ., iris, n_estimators = 3, random_state = 1)
  expect_identical(sporf_load(fit$model)$model, fit$model)
  x <- as.matrix(iris[, 1:4])
  x[x < 2] <- 0
  sp <- Matrix::Matrix(x, sparse = TRUE)
  expect_true(inherits(sp, "sparseMatrix"))
  a <- sporf(sp, iris$Species, n_estimators = 3, random_state = 2)
  b <- sporf(x, iris$Species, n_estimators = 3, random_state = 2)
  expect_identical(a$model, b$model)
  expect_identical(predict(a, sp), predict(b, x))
})

test_that("a formula the model file cannot store warns at save, and its loaded model names the cause", {
  fit <- sporf(Species ~ log(Sepal.Length) + Petal.Width, data = iris, n_estimators = 5, random_state = 1)
  f <- tempfile(fileext = ".sporf")
  expect_warning(sporf_save(fit, f), "does not store this forest's formula: log(Sepal.Length) is not", fixed = TRUE)
  m <- sporf_load(f)
  expect_error(predict(m, iris), "fitted with a formula its file could not store (terms: log(Sepal.Length), Petal.Width)",
               fixed = TRUE)
  design <- cbind(`log(Sepal.Length)` = log(iris$Sepal.Length), Petal.Width = iris$Petal.Width)
  expect_identical(predict(m, design), predict(fit, iris))
  plain <- sporf(Species ~ Sepal.Length + Petal.Width, data = iris, n_estimators = 5, random_state = 1)
  expect_silent(sporf_save(plain, f))
})

test_that("save and load errors name the user's path, not a temporary file or an internal function", {
  fit <- sporf(iris[, 1:4], iris$Species, n_estimators = 2, max_features = 1, random_state = 1)
  expect_output(print(fit), "1 candidate projection per node")
  missing_dir <- file.path(tempdir(), "no-such-folder", "m.sporf")
  err <- tryCatch(sporf_save(fit, missing_dir), error = function(e) e)
  expect_match(conditionMessage(err), "no-such-folder/m.sporf: its folder .* does not exist")
  expect_false(grepl("tmp-", conditionMessage(err)))
  path <- tempfile(fileext = ".sporf")
  sporf_save(fit, path)
  writeBin(readBin(path, "raw", 1e6)[1:200], path)
  err <- tryCatch(sporf_load(path), error = function(e) e)
  expect_match(conditionMessage(err), "truncated")
  expect_match(conditionMessage(err), basename(path), fixed = TRUE)
  expect_null(conditionCall(err))
  err <- tryCatch(sporf_load(as.raw(1:40)), error = function(e) e)
  expect_null(conditionCall(err))
})
