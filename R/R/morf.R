# morf(): manifold-aware patch forests (MORF) for images, signals and grids.

morf <- function(x, ...) UseMethod("morf")

# morf.default() is generated (api_gen.R, from spec/params.toml).
.fit_morf <- function(env, call) {
  .no_unknown_args(eval(quote(list(...)), env))
  if (eval(quote(missing(y)), env)) stop("y is missing: use morf(x, y, data_dims = ...)", call. = FALSE)
  grid <- .grid_input(env$x, env$data_dims, "x")
  args <- .forest_args("morf", env)
  args$data_dims <- grid$dims
  obj <- .fit(grid$x, env$y, args, env$sample_weight, "morf", grid$dims)
  obj$data_dims <- grid$dims
  obj$call <- .generic_call(call, "morf")
  class(obj) <- c("morf", class(obj))
  obj
}

# Samples as rows of a feature matrix whose columns follow the row-major (C)
# order of data_dims -- the order Python uses -- from a matrix (already in
# that order) or an array of dim c(n, d1, ..., dk). Only types are checked
# here: the core checks that the grid fits the columns, in one message.
# list(args, dims): the fit's arguments with the grid of a patch forest
# (urerf(), isolation_forest()) resolved against X, and that grid (NULL
# without one); a grid given with another projection goes to the core, which
# refuses it.
.with_patch_grid <- function(args, X) {
  if (identical(args$projection, "patch") || !is.null(args$data_dims))
    args$data_dims <- .grid_input(X, args$data_dims, "x")$dims
  list(args = args, dims = args$data_dims)
}

.grid_input <- function(x, data_dims, what) {
  d <- dim(x)
  if (is.array(x) && length(d) > 2L) {
    if (!is.numeric(x) && !is.logical(x)) stop(sprintf("%s must be numeric", what), call. = FALSE)
    dims <- d[-1L]
    if (!is.null(data_dims) && !identical(as.numeric(data_dims), as.numeric(dims)))
      stop(sprintf("data_dims (%s) do not match the array's sample shape (%s)", paste(data_dims, collapse = " x "),
                   paste(dims, collapse = " x ")), call. = FALSE)
    k <- length(dims)
    m <- matrix(aperm(x, c(1L, (k + 1L):2L)), nrow = d[1L])
    return(list(x = .as_feature_matrix(m, what), dims = as.numeric(dims)))
  }
  m <- .as_feature_matrix(x, what)
  if (is.null(data_dims)) data_dims <- ncol(m)
  if (!is.numeric(data_dims) || length(data_dims) < 1L || length(data_dims) > .SPEC_MAX_DIMS ||
      anyNA(data_dims) || any(data_dims < 1) || any(data_dims != round(data_dims)))
    .bad_param("data_dims", .SPEC_PARAMS$data_dims$expect, data_dims)
  list(x = m, dims = as.numeric(data_dims))
}

# A MORF forest's rows from x: shaped samples flattened on its grid.
.morf_rows <- function(object, x, what) .grid_input(x, object[["data_dims"]], what)$x

predict.morf <- function(object, newdata, type = NULL, n_jobs = NULL, ...) {
  if (!missing(newdata) && !is.null(newdata) && is.array(newdata) && length(dim(newdata)) > 2L)
    newdata <- .grid_input(newdata, object[["data_dims"]], "newdata")$x
  NextMethod()
}

importance_map <- function(object, kind = c("impurity", "usage", "permutation")) {
  if (!inherits(object, "sporf")) stop("importance_map() needs a sporf or morf forest", call. = FALSE)
  kind <- match.arg(kind)
  dims <- if (is.null(object[["data_dims"]])) object[["n_features"]] else object[["data_dims"]]
  v <- as.vector(importance(object, kind = kind))
  names(v) <- names(importance(object, kind = kind))
  if (length(dims) == 1L) return(v)
  # v is in row-major order of dims: fill an array of reversed dims, then flip back.
  aperm(array(unname(v), dim = rev(dims)), rev(seq_along(dims)))
}

# Python's sporf.plot_importance: a heat map (2-D grids) or bars (1-D); for a
# forest without a grid, the `top` most important features as a dot chart
# (randomForest's varImpPlot), with +- one standard deviation over trees for
# the permutation importance.
plot_importance <- function(object, kind = c("impurity", "usage", "permutation"), data_dims = NULL, main = NULL,
                            top = 20L, ...) {
  kind <- match.arg(kind)
  if (is.null(main)) main <- sprintf("%s importance", kind)
  if (is.null(data_dims) && is.null(object[["data_dims"]])) {
    v <- importance(object, kind = kind)
    o <- utils::head(order(v, decreasing = TRUE), top)
    o <- rev(o) # dotchart draws its first value at the bottom
    sd <- attr(v, "sd")
    lo <- if (is.null(sd)) v[o] else v[o] - sd[o]
    hi <- if (is.null(sd)) v[o] else v[o] + sd[o]
    graphics::dotchart(unname(v[o]), labels = names(v)[o], main = main, xlab = "importance",
                       xlim = range(c(0, lo, hi)), ...)
    if (!is.null(sd)) graphics::segments(lo, seq_along(o), hi, seq_along(o))
    return(invisible(v))
  }
  if (!is.null(data_dims)) object$data_dims <- data_dims
  m <- importance_map(object, kind)
  d <- if (is.null(object[["data_dims"]])) object[["n_features"]] else object[["data_dims"]]
  if (length(d) == 1L) {
    graphics::plot(seq_along(m), m, type = "h", xlab = "feature", ylab = "importance", main = main, ...)
  } else if (length(d) == 2L) {
    # image() draws rows of its matrix along x: transpose and flip so the map
    # reads like the image (row 1 at the top).
    graphics::image(t(m)[, nrow(m):1, drop = FALSE], axes = FALSE, main = main,
                    col = grDevices::hcl.colors(64, "viridis"), ...)
  } else {
    stop("plot_importance() draws 1-D and 2-D grids; use importance_map() for this one", call. = FALSE)
  }
  invisible(m)
}

plot.morf <- function(x, kind = c("impurity", "usage", "permutation"), main = NULL, ...) {
  plot_importance(x, kind = kind, main = main, ...)
}
