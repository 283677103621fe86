# urerf(): unsupervised randomer forests, and the forest proximity every
# sporf forest offers (proximity(), kneighbors()). Documented in man/urerf.Rd
# and man/proximity.Rd.

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
  # A grid given with another projection goes to the core, which refuses it.
  dims <- NULL
  if (identical(args$projection, "patch") || !is.null(args$data_dims)) {
    dims <- .grid_input(X, args$data_dims, "x")$dims
    args$data_dims <- dims
  }
  params <- .build_params(args, ncol(X), "urerf", "unsupervised", dims)
  res <- .Call(C_sporf_r_fit_unsupervised, X, params, as.integer(args$verbose))
  if (isTRUE(res[[2L]])) {
    cond <- structure(class = c("sporf_interrupt", "interrupt", "error", "condition"),
                      list(message = "sporf: the fit was interrupted (Ctrl-C); no forest was returned",
                           call = NULL))
    stop(cond)
  }
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

.check_n_neighbors <- function(k, n_reference, self_excluded) {
  top <- if (self_excluded) n_reference - 1 else n_reference
  if (!.is_whole(k) || k < 1) .bad_param("n_neighbors", "a whole number >= 1", k)
  if (k > top)
    stop(sprintf("n_neighbors = %d, but there are only %d reference rows%s", as.integer(k), as.integer(top),
                 if (self_excluded) " other than the row itself" else ""), call. = FALSE)
  as.numeric(k)
}

# The reference rows of a forest: urerf() keeps its training rows, other
# forests (and forests read from a model file) keep none.
.reference_rows <- function(object) object[["x"]]

# Rows to compare, as predict() reads newdata: through the formula of a
# formula fit, columns matched by name, a MORF grid flattened.
.query_matrix <- function(object, x, what) {
  if (inherits(object, "morf")) .grid_input(x, object[["data_dims"]], what)$x
  else .newdata_matrix(object, x, what)
}

proximity <- function(object, ...) UseMethod("proximity")

proximity.sporf <- function(object, x = NULL, reference = NULL, dense = FALSE, n_neighbors = NULL, ...) {
  .no_unknown_args(list(...))
  if (is.null(reference)) {
    reference <- .reference_rows(object)
    if (is.null(reference)) {
      if (is.null(x))
        stop(if (inherits(object, "urerf"))
               "this urerf forest was read from a model file, which holds the trees but not the training rows: pass them as reference"
             else "this forest does not keep its training rows: pass the rows to compare as x", call. = FALSE)
      reference <- x
      x <- NULL
    }
  }
  reference <- .query_matrix(object, reference, "reference")
  query <- if (is.null(x)) NULL else .query_matrix(object, x, "x")
  n_jobs <- .resolve_n_jobs(object[["n_jobs"]])
  n_query <- if (is.null(query)) nrow(reference) else nrow(query)
  if (!.is_flag(dense)) .bad_param("dense", "TRUE or FALSE", dense)
  if (dense) {
    # The core's result and R's copy of it coexist for a moment.
    need <- 2 * 8 * n_query * nrow(reference)
    have <- .Call(C_sporf_r_physical_memory)
    if (have > 0 && need > 0.5 * have)
      stop(sprintf(paste0("a dense %d x %d proximity matrix needs %.1f GB, more than half of this machine's ",
                          "%.1f GB; use the sparse neighbour graph (dense = FALSE) instead"),
                   n_query, nrow(reference), need / 1e9, have / 1e9), call. = FALSE)
    return(.Call(C_sporf_r_proximity_dense, .native(object), reference, query, n_jobs))
  }
  if (is.null(n_neighbors)) n_neighbors <- if (is.null(object[["n_neighbors"]])) 10 else object[["n_neighbors"]]
  k <- .check_n_neighbors(n_neighbors, nrow(reference), is.null(query))
  nb <- .Call(C_sporf_r_neighbors, .native(object), reference, query, k, n_jobs)
  i <- rep(seq_len(n_query), times = k)
  j <- as.vector(nb[[1L]])
  s <- as.vector(nb[[2L]])
  if (is.null(query)) { # the training proximity also stores S(i, i) = 1
    i <- c(seq_len(n_query), i)
    j <- c(seq_len(n_query), j)
    s <- c(rep(1, n_query), s)
  }
  keep <- s > 0 # rows completed with unrelated (similarity 0) rows
  Matrix::sparseMatrix(i = i[keep], j = j[keep], x = s[keep], dims = c(n_query, nrow(reference)))
}

kneighbors <- function(object, ...) UseMethod("kneighbors")

kneighbors.urerf <- function(object, x = NULL, n_neighbors = NULL, ...) {
  .no_unknown_args(list(...))
  reference <- .reference_rows(object)
  if (is.null(reference))
    stop("this urerf forest was read from a model file, which holds the trees but not the training rows: fit again, or use proximity(object, x, reference = ...)", call. = FALSE)
  query <- if (is.null(x)) NULL else .as_feature_matrix(x, "x")
  if (is.null(n_neighbors)) n_neighbors <- object[["n_neighbors"]]
  k <- .check_n_neighbors(n_neighbors, nrow(reference), is.null(query))
  nb <- .Call(C_sporf_r_neighbors, .native(object), reference, query, k, .resolve_n_jobs(object[["n_jobs"]]))
  list(index = nb[[1L]], similarity = nb[[2L]])
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
