# urerf(): unsupervised randomer forests, and the metric of their neighbours
# (geodesic_precision_recall). Documented in man/urerf.Rd; the proximity every
# forest offers is in proximity.R.

urerf <- function(x, ...) UseMethod("urerf")

# urerf.default() is generated (api_gen.R, from spec/params.toml).
.fit_urerf <- function(env, call) {
  .no_unknown_args(eval(quote(list(...)), env))
  X <- .as_feature_matrix(env$x, "x")
  if (nrow(X) < 2L) stop(sprintf("urerf() needs at least 2 rows; x has %d", nrow(X)), call. = FALSE)
  n_neighbors <- env$n_neighbors
  .check_n_neighbors(n_neighbors, Inf, FALSE)
  args <- .forest_args("urerf", env)
  args$n_neighbors <- NULL
  grid <- .with_patch_grid(args, X)
  args <- grid$args
  params <- .build_params(args, ncol(X), "urerf", "unsupervised", grid$dims)
  res <- .Call(C_sporf_r_fit_unsupervised, X, params, NULL, as.integer(args$verbose))
  if (isTRUE(res[[2L]])) .stop_fit_interrupted()
  handle <- res[[1L]]
  if (!is.null(colnames(X)))
    .Call(C_sporf_r_set_strings, handle, .STR_FEATURE_NAMES, .KIND_TEXT, as.character(colnames(X)))
  obj <- .new_sporf(handle, .Call(C_sporf_r_save, handle), levels = NULL, label_kind = NA_integer_,
                    feature_names = colnames(X), n_features = ncol(X), n_samples = nrow(X),
                    args = args, seed = params$random_state,
                    max_features_resolved = attr(params, "max_features_resolved"), task = "unsupervised")
  obj$x <- X
  obj$n_neighbors <- n_neighbors
  obj$call <- .generic_call(call, "urerf")
  class(obj) <- c("urerf", class(obj))
  obj
}

predict.urerf <- function(object, newdata, type = NULL, n_jobs = NULL, ...) {
  if (!identical(type, "leaf"))
    stop(paste("an unsupervised forest (urerf) predicts no response; use proximity() or kneighbors(),",
               "or type = \"leaf\" for the leaf each row reaches in each tree"), call. = FALSE)
  NextMethod()
}

geodesic_precision_recall <- function(truth, similarity, k) {
  n <- if (is.matrix(truth)) nrow(truth) else length(truth)
  if (is.matrix(truth) && ncol(truth) != n)
    stop(sprintf("truth must be an n x n distance matrix or n labels; got %d x %d", nrow(truth), ncol(truth)),
         call. = FALSE)
  if (!identical(as.integer(dim(similarity)), as.integer(c(n, n))))
    stop(sprintf("similarity must be %d x %d like truth", n, n), call. = FALSE)
  if (!.is_whole(k) || k < 1 || k >= n) .bad_param("k", sprintf("a whole number in [1, n - 1] = [1, %d]", n - 1), k)
  if (is.matrix(truth) && any(!is.finite(truth))) stop("truth contains NA, NaN or infinite values", call. = FALSE)
  S <- as.matrix(similarity) # absent sparse entries are 0
  if (any(!is.finite(S))) stop("similarity contains NA, NaN or infinite values", call. = FALSE)
  # k most similar other columns of a row: by value, ties by index.
  top <- function(values, i, k) {
    o <- order(-values, seq_len(n))
    o[o != i][seq_len(k)]
  }
  precision <- recall <- 0
  for (i in seq_len(n)) {
    retrieved <- top(S[i, ], i, k)
    relevant <- if (is.matrix(truth)) top(-truth[i, ], i, k) else setdiff(which(truth == truth[i]), i)
    hits <- length(intersect(relevant, retrieved))
    precision <- precision + hits / k
    recall <- recall + if (length(relevant)) hits / length(relevant) else 0
  }
  c(precision = precision / n, recall = recall / n)
}
