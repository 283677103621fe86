# isolation_forest(): anomaly scores from isolation trees of sparse oblique,
# axis or patch projections. Documented in man/isolation_forest.Rd; the same
# forest and scores as Python's SPORFIsolation / MORFIsolation.

isolation_forest <- function(x, ...) UseMethod("isolation_forest")

# contamination: "auto" or a share in (0, 0.5], as Python takes it.
.check_contamination <- function(value) {
  if (identical(value, "auto")) return(value)
  if (is.numeric(value) && length(value) == 1L && !is.na(value) && value > 0 && value <= 0.5)
    return(as.double(value))
  stop(sprintf("contamination must be \"auto\" or a number in (0, 0.5], got %s",
               paste(deparse(value), collapse = " ")), call. = FALSE)
}

# isolation_forest.default() is generated (api_gen.R, from spec/params.toml).
.fit_isolation_forest <- function(env, call) {
  .no_unknown_args(eval(quote(list(...)), env))
  args <- .forest_args("isolation_forest", env)
  contamination <- .check_contamination(args$contamination)
  # factor columns and categorical_features: level codes, in the levels' own order (no response)
  split <- .split_levels_of(env$x, args)
  X <- .as_feature_matrix(split$x, "x")
  if (nrow(X) < 2L) stop(sprintf("isolation_forest() needs at least 2 rows; x has %d", nrow(X)), call. = FALSE)
  grid <- .with_patch_grid(args, X)
  args <- grid$args
  params <- .build_params(args, ncol(X), "isolation_forest", "isolation", grid$dims)
  sw <- .check_sample_weight(env$sample_weight, nrow(X))
  by_feature <- NULL
  if (!is.null(split$levels)) {
    tp <- .to_positions(X, split$levels, list(codes = NULL, K = 0L), sw)
    X <- tp$X
    by_feature <- tp$by_feature
  }
  res <- .Call(C_sporf_r_fit_unsupervised, X, params, sw, as.integer(args$verbose))
  if (isTRUE(res[[2L]])) .stop_fit_interrupted()
  handle <- res[[1L]]
  # the anomaly score above which a row is an outlier: the paper's 0.5, or the training rows' score
  # above which a `contamination` share of them lies (their quantile, R's type 7, computed in the core
  # as Python's is)
  if (identical(contamination, "auto")) {
    .Call(C_sporf_r_set_score_threshold, handle, 0.5)
  } else {
    .Call(C_sporf_r_set_outlier_share, handle,
          .Call(C_sporf_r_predict_proba, handle, X, .resolve_n_jobs(args$n_jobs)), contamination)
  }
  threshold <- .Call(C_sporf_r_score_threshold, handle)
  if (!is.null(by_feature)) .store_levels(handle, by_feature)
  if (!is.null(colnames(X)))
    .Call(C_sporf_r_set_strings, handle, .STR_FEATURE_NAMES, .KIND_TEXT, as.character(colnames(X)))
  obj <- .new_sporf(handle, .Call(C_sporf_r_save, handle), levels = NULL, label_kind = NA_integer_,
                    feature_names = colnames(X), n_features = ncol(X), n_samples = nrow(X),
                    args = args, seed = params$random_state,
                    max_features_resolved = attr(params, "max_features_resolved"), task = "isolation")
  obj$feature_levels <- by_feature
  obj$offset <- threshold
  obj$call <- .generic_call(call, "isolation_forest")
  class(obj) <- c("sporf_isolation", class(obj))
  obj
}

# grow() of an isolation forest: the merged forest's outlier threshold from
# its own scores of the training rows X (as the fit sets it, and Python's
# warm start), the fitted object's fields the model file does not hold.
.isolation_grown <- function(merged, object, X) {
  contamination <- object[["params"]][["contamination"]]
  handle <- .native(merged)
  if (!is.null(contamination) && !identical(contamination, "auto")) {
    .Call(C_sporf_r_set_outlier_share, handle, .Call(C_sporf_r_predict_proba, handle, X,
                                                     .resolve_n_jobs(merged[["n_jobs"]])), contamination)
    merged$model <- .Call(C_sporf_r_save, handle)
  }
  merged$offset <- .Call(C_sporf_r_score_threshold, handle)
  merged$params$contamination <- contamination
  merged
}

# The fields of an isolation forest loaded from a model file (io.R).
.isolation_fields <- function(obj, handle) {
  obj$offset <- .Call(C_sporf_r_score_threshold, handle)
  class(obj) <- c("sporf_isolation", class(obj))
  obj
}

predict.sporf_isolation <- function(object, newdata, type = c("score", "outlier", "decision"), n_jobs = NULL, ...) {
  if (length(list(...)))
    stop(sprintf("unknown argument%s to predict(): %s", if (length(list(...)) > 1L) "s" else "",
                 paste(names(list(...)), collapse = ", ")), call. = FALSE)
  if (!is.character(type) || !length(type) || !all(type %in% c("score", "outlier", "decision", "leaf")))
    stop("type must be one of \"score\", \"outlier\", \"decision\" (or \"leaf\") for an isolation forest",
         call. = FALSE)
  type <- type[1L]
  if (missing(newdata) || is.null(newdata))
    stop("newdata is required: an isolation forest scores the rows it is given (the training rows too)",
         call. = FALSE)
  if (type == "leaf") return(NextMethod())
  X <- .newdata_matrix(object, newdata)
  threads <- .resolve_n_jobs(if (is.null(n_jobs)) object[["n_jobs"]] else n_jobs)
  score <- .Call(C_sporf_r_predict_proba, .native(object), X, threads)
  names(score) <- rownames(X)
  switch(type,
         score = score,
         outlier = score > object[["offset"]],
         decision = object[["offset"]] - score)
}

print.sporf_isolation <- function(x, ...) {
  p <- x[["params"]]
  cat(sprintf("sporf isolation forest: %d trees, %s projections\n", x[[.TREES_HELD_FIELD]], p[["projection"]]))
  cat(sprintf("  %d features; outlier threshold (score) %.4g%s\n", x[["n_features"]], x[["offset"]],
              if (identical(p[["contamination"]], "auto") || is.null(p[["contamination"]])) " (the paper's 0.5)"
              else sprintf(" (contamination %g)", p[["contamination"]])))
  invisible(x)
}

summary.sporf_isolation <- function(object, ...) {
  structure(list(n_trees = object[[.TREES_HELD_FIELD]], n_features = object[["n_features"]],
                 n_samples = object[["n_samples"]], offset = object[["offset"]],
                 params = object[["params"]]), class = "summary.sporf_isolation")
}

print.summary.sporf_isolation <- function(x, ...) {
  cat("sporf isolation forest\n\n")
  cat(sprintf("  trees:              %d\n", x$n_trees))
  cat(sprintf("  features:           %d\n", x$n_features))
  if (!is.na(x$n_samples)) cat(sprintf("  training rows:      %d\n", x$n_samples))
  cat(sprintf("  projection:         %s\n", x$params$projection))
  cat(sprintf("  outlier threshold:  %.4g (anomaly score)\n", x$offset))
  invisible(x)
}
