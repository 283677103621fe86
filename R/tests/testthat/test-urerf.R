# urerf(): unsupervised forests, proximity, neighbours and the geodesic metric.

two_blobs <- function(n = 60, p = 5, seed = 1) {
  set.seed(seed)
  rbind(matrix(rnorm(n / 2 * p), ncol = p), matrix(rnorm(n / 2 * p, mean = 6), ncol = p))
}

test_that("neighbours stay within their cluster, best first, never the row itself", {
  x <- two_blobs()
  f <- urerf(x, n_estimators = 40, random_state = 3)
  expect_s3_class(f, "urerf")
  expect_identical(f$task, "unsupervised")
  nb <- kneighbors(f, n_neighbors = 5)
  expect_equal(dim(nb$index), c(60L, 5L))
  same <- (nb$index <= 30) == (seq_len(60) <= 30)
  expect_gt(mean(same), 0.95)
  expect_false(any(nb$index == seq_len(60)))
  expect_true(all(apply(nb$similarity, 1, function(s) all(diff(s) <= 0))))
})

test_that("the sparse graph, the dense matrix and the neighbours agree", {
  x <- two_blobs(40)
  f <- urerf(x, n_estimators = 20, n_neighbors = 4, random_state = 2)
  D <- proximity(f, dense = TRUE)
  expect_equal(D, t(D))
  expect_true(all(diag(D) == 1))
  S <- proximity(f)
  expect_s4_class(S, "dgCMatrix")
  nz <- Matrix::which(S != 0, arr.ind = TRUE)
  expect_equal(S[nz], D[nz])
  nb <- kneighbors(f)
  expect_equal(ncol(nb$index), 4L)
  expect_equal(D[cbind(rep(1:40, 4), as.vector(nb$index))], as.vector(nb$similarity))
  # new rows against the training rows: a training row finds itself
  P <- proximity(f, x[1:3, ])
  expect_equal(dim(P), c(3L, 40L))
  expect_equal(diag(as.matrix(P[, 1:3])), rep(1, 3))
})

test_that("same seed, same forest for any thread count; the model survives a file", {
  x <- two_blobs(50)
  a <- urerf(x, n_estimators = 12, random_state = 9, n_jobs = 1)
  b <- urerf(x, n_estimators = 12, random_state = 9, n_jobs = 2)
  expect_identical(a$model, b$model)
  file <- tempfile(fileext = ".sporf")
  sporf_save(a, file)
  g <- sporf_load(file)
  expect_s3_class(g, "urerf")
  expect_identical(g$model, a$model)
  expect_error(kneighbors(g), "training rows")
  expect_equal(proximity(g, reference = x, dense = TRUE), proximity(a, dense = TRUE))
})

test_that("Fast-BIC cuts between two separated 1-D clusters", {
  set.seed(4)
  z <- c(rnorm(60, 0, 1), rnorm(40, 20, 3))
  for (criterion in c("fastbic", "twomeans")) {
    f <- urerf(matrix(z), n_estimators = 1, criterion = criterion, max_depth = 1, bootstrap = FALSE,
               projection = "axis", max_features = 1, min_samples_split = 2, random_state = 0)
    leaf <- predict(f, matrix(z), type = "leaf")[, 1]
    expect_true(all(leaf[1:60] == leaf[1]) && all(leaf[61:100] != leaf[1]))
  }
})

test_that("patch projections and supervised forests' proximity", {
  set.seed(5)
  x <- matrix(rnorm(80 * 16), 80)
  x[1:40, 6:7] <- x[1:40, 6:7] + 4
  f <- urerf(x, n_estimators = 20, projection = "patch", data_dims = c(4, 4), random_state = 1)
  nb <- kneighbors(f, n_neighbors = 5)
  expect_gt(mean((nb$index <= 40) == (seq_len(80) <= 40)), 0.9)
  s <- suppressWarnings(sporf(x, rep(0:1, each = 40), n_estimators = 10, random_state = 1)) # a regression forest
  P <- proximity(s, x, n_neighbors = 3)
  expect_equal(dim(P), c(80L, 80L))
  expect_error(proximity(s), "does not keep its training rows")
  expect_error(kneighbors(s), "no applicable method")
})

test_that("geodesic precision and recall", {
  t <- seq(0, 1, length.out = 40)
  D <- abs(outer(t, t, "-"))
  expect_equal(geodesic_precision_recall(D, -D, 5), c(precision = 1, recall = 1))
  labels <- rep(1:2, each = 20)
  same <- outer(labels, labels, "==") * 1
  pr <- geodesic_precision_recall(labels, Matrix::Matrix(same, sparse = TRUE), 5)
  expect_equal(unname(pr), c(1, 5 / 19))
  expect_error(geodesic_precision_recall(D, -D, 40), "k")
  expect_error(geodesic_precision_recall(D, -D[, -1], 4), "similarity")
})

test_that("bad input gives clear errors", {
  x <- two_blobs(30)
  f <- urerf(x, n_estimators = 5, random_state = 1)
  expect_error(kneighbors(f, n_neighbors = 30), "n_neighbors")
  expect_error(kneighbors(f, n_neighbors = 0), "n_neighbors")
  expect_error(proximity(f, x[, 1:2]), "columns")
  bad <- x
  bad[2, 2] <- Inf
  expect_error(urerf(bad), "infinite values \\(in column 2\\)")
  bad[2, 2] <- NA # a missing value: learned (test-missing.R)
  expect_s3_class(urerf(bad, n_estimators = 2), "urerf")
  expect_error(urerf(x, criterion = "gini"), "criterion")
  expect_error(urerf(x, honest_fraction = 0.5), "unknown parameter")
  expect_error(urerf(x, data_dims = c(1, 5)), "apply to projection \"patch\" only")
  expect_error(urerf(x, min_samples_split = "cube"), "min_samples_split")
  expect_error(urerf(x[1, , drop = FALSE]), "at least 2 rows")
  expect_error(predict(f, x), "predicts no response")
})

test_that("proximity on fewer rows than neighbours keeps the rows there are; kneighbors refuses", {
  set.seed(1)
  x <- matrix(rnorm(240), 60)
  fit <- sporf(x, factor(x[, 1] > 0), n_estimators = 5, random_state = 0)
  S <- proximity(fit, x[1:5, ])
  expect_equal(dim(S), c(5L, 5L))
  expect_equal(unname(as.matrix(S)), unname(proximity(fit, x[1:5, ], dense = TRUE)))
  f <- urerf(x[1:6, ], n_estimators = 5, n_neighbors = 10, random_state = 0)
  expect_equal(unname(as.matrix(proximity(f))), unname(proximity(f, dense = TRUE)))
  expect_error(kneighbors(f), "n_neighbors = 10, but there are only 5 reference rows", fixed = TRUE)
})
