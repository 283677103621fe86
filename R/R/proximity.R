# The forest proximity every sporf forest offers: proximity() (the sparse
# neighbour graph or the dense matrix) and kneighbors() (URerF). Documented in
# man/proximity.Rd.

# fewer_ok: more neighbours than there are rows gives the rows there are (the
# proximity graph), else is refused (kneighbors' fixed width)
.check_n_neighbors <- function(k, n_reference, self_excluded, fewer_ok = FALSE) {
  top <- if (self_excluded) n_reference - 1 else n_reference
  if (!.is_whole(k) || k < 1) .bad_param("n_neighbors", .SPEC_PARAMS$n_neighbors$expect, k)
  if (fewer_ok && top >= 1 && k > top) return(as.numeric(top))
  if (k > top)
    stop(sprintf("n_neighbors = %d, but there are only %d reference rows%s", as.integer(k), as.integer(top),
                 if (self_excluded) " other than the row itself" else ""), call. = FALSE)
  as.numeric(k)
}

# The reference rows of a forest: urerf() keeps its training rows, other
# forests (and forests read from a model file) keep none.
.reference_rows <- function(object) object[["x"]]

# Rows to compare, as predict() reads newdata: through the formula of a
# formula fit, columns matched by name, a MORF grid flattened (morf.R).
.query_matrix <- function(object, x, what) {
  if (inherits(object, "morf")) .morf_rows(object, x, what) else .newdata_matrix(object, x, what)
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
  k <- .check_n_neighbors(n_neighbors, nrow(reference), is.null(query), fewer_ok = TRUE)
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
