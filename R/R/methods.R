# print() and summary() of a sporf forest.

# Patch sizes per axis as the core resolves them (params.c,
# sporf_patch_bounds): the smallest 1 by default, the largest
# ceiling(sqrt(axis length)) (within the axis, at least the smallest).
.patch_sizes <- function(p) {
  D <- p$data_dims
  lo <- if (is.null(p$min_patch_dims)) rep(1, length(D)) else rep_len(p$min_patch_dims, length(D))
  hi <- if (is.null(p$max_patch_dims)) pmax(lo, pmin(D, ceiling(sqrt(D)))) else rep_len(p$max_patch_dims, length(D))
  list(lo = lo, hi = hi)
}

.describe_projection <- function(p) {
  if (!is.null(p$data_dims)) {
    s <- .patch_sizes(p)
    sprintf("patches of a %s grid (sizes %s to %s, boundary %s)", paste(p$data_dims, collapse = " x "),
            paste(s$lo, collapse = " x "), paste(s$hi, collapse = " x "), paste(p$boundary, collapse = "/"))
  }
  else if (identical(p$projection, "axis")) "axis-aligned splits (random forest)"
  else sprintf("%s oblique projections, feature_combinations = %g", p$projection, p$feature_combinations)
}

.describe_max_features <- function(mf) {
  if (is.null(mf)) "NULL (all)" else if (is.character(mf)) sprintf("\"%s\"", mf) else format(mf)
}

print.sporf <- function(x, ...) {
  info <- .Call(C_sporf_r_info, .native(x))
  p <- x[["params"]]
  kind <- if (inherits(x, "urerf")) "urerf" else if (inherits(x, "morf")) "morf" else "sporf"
  cat(sprintf("%s %s forest%s\n", kind, x[["task"]],
              if (isTRUE(p$honest_fraction > 0)) sprintf(" (honest, fraction %g)", p$honest_fraction) else ""))
  cat(sprintf("  %d trees, %s\n", as.integer(info$n_trees), .describe_projection(p)))
  d <- as.integer(x[["max_features_resolved"]])
  cat(sprintf("  max_features = %s (%d candidate projection%s per node), criterion = %s\n",
              .describe_max_features(p$max_features), d, if (d == 1L) "" else "s", p$criterion))
  if (!is.null(x[["tuning"]]))
    cat(sprintf("  chosen by out-of-bag error among %d candidates (see $tuning)\n", nrow(x[["tuning"]])))
  if (identical(x[["task"]], "unsupervised")) {
    cat(sprintf("  %d features, no response; proximity() and kneighbors() give each row's neighbours\n",
                x[["n_features"]]))
  } else if (isTRUE(x[["n_outputs"]] > 1L)) {
    cat(sprintf("  %d features, %d outputs: %s\n", x[["n_features"]], x[["n_outputs"]],
                paste(x[["outputs"]], collapse = ", ")))
    if (!is.null(x[["oob_score"]]))
      cat(sprintf("  out-of-bag %s averaged over the outputs: %.4f\n",
                  if (identical(x[["task"]], "regression")) "R^2" else "accuracy", x[["oob_score"]]))
  } else if (identical(x[["task"]], "survival")) {
    cat(sprintf("  %d features, right-censored times: %d distinct, %d of them with events\n", x[["n_features"]],
                length(x[["unique_times"]]), length(x[["event_times"]])))
    if (!is.null(x[["oob_score"]]))
      cat(sprintf("  out-of-bag Harrell's C: %.4f\n", x[["oob_score"]]))
  } else if (identical(x[["task"]], "regression")) {
    cat(sprintf("  %d features, numeric response\n", x[["n_features"]]))
    if (!is.null(x[["oob_error"]]))
      cat(sprintf("  out-of-bag mean squared error: %.4g, R^2: %.4f\n", x[["oob_error"]], x[["oob_score"]]))
  } else {
    shown <- if (length(x[["classes"]]) > 6L) c(x[["classes"]][1:6], "...") else x[["classes"]]
    cat(sprintf("  %d features, %d classes: %s\n", x[["n_features"]], length(x[["classes"]]), paste(shown, collapse = ", ")))
    if (!is.null(x[["oob_error"]])) cat(sprintf("  out-of-bag error: %.2f%%\n", 100 * x[["oob_error"]]))
    if (!is.null(x[["confusion"]]) && length(x[["classes"]]) <= 10L) {
      cat("  out-of-bag confusion matrix (rows: observed, columns: predicted):\n")
      print(round(x[["confusion"]], 4))
    }
  }
  invisible(x)
}

summary.sporf <- function(object, ...) {
  info <- .Call(C_sporf_r_info, .native(object))
  imp <- importance(object)
  structure(list(
    n_trees = info$n_trees, n_nodes = info$n_nodes, n_leaves = info$n_leaves,
    mean_leaves = info$n_leaves / info$n_trees, max_depth = info$max_depth_seen,
    n_features = object[["n_features"]], classes = object[["classes"]], n_samples = object[["n_samples"]], task = object[["task"]],
    params = object[["params"]], max_features_resolved = object[["max_features_resolved"]],
    oob_error = object[["oob_error"]], oob_score = object[["oob_score"]], importance = sort(imp, decreasing = TRUE),
    model_bytes = length(object[["model"]]), event_times = object[["event_times"]],
    unique_times = object[["unique_times"]]), class = "summary.sporf")
}

print.summary.sporf <- function(x, ...) {
  cat(sprintf("sporf %s forest\n\n", x[["task"]]))
  p <- x[["params"]]
  cat(sprintf("Projections:       %s\n", .describe_projection(p)))
  cat(sprintf("Trees:             %d (%.1f leaves each on average, deepest leaf at depth %d)\n",
              as.integer(x[["n_trees"]]), x[["mean_leaves"]], as.integer(x[["max_depth"]])))
  cat(sprintf("Candidates/node:   %d (max_features = %s)\n", as.integer(x[["max_features_resolved"]]),
              .describe_max_features(p$max_features)))
  if (!is.na(x[["n_samples"]])) cat(sprintf("Training samples:  %d\n", as.integer(x[["n_samples"]])))
  cat(sprintf("Features:          %d\n", x[["n_features"]]))
  if (is.list(x[["classes"]])) {
    cat(sprintf("Outputs:           %d (classes: %s)\n", length(x[["classes"]]),
                paste(lengths(x[["classes"]]), collapse = ", ")))
  } else if (identical(x[["task"]], "classification")) {
    cat(sprintf("Classes:           %d\n", length(x[["classes"]])))
  }
  cat(sprintf("Model size:        %s bytes\n", format(x[["model_bytes"]], big.mark = ",")))
  if (identical(x[["task"]], "survival") && !is.null(x[["unique_times"]])) {
    ut <- x[["unique_times"]]
    cat(sprintf("Times:             %d distinct in [%s, %s], %d of them with an event\n", length(ut),
                format(min(ut)), format(max(ut)), length(x[["event_times"]])))
  }
  if (identical(x[["task"]], "survival") && !is.null(x[["oob_score"]]))
    cat(sprintf("Out-of-bag C:      %.4f\n", x[["oob_score"]]))
  if (!is.null(x[["oob_error"]]))
    cat(sprintf("Out-of-bag %s  %.4f\n", if (identical(x[["task"]], "regression")) "MSE:   " else "error: ", x[["oob_error"]]))
  cat("\nParameters:\n")
  shown <- vapply(p, function(v) if (is.null(v)) "NULL" else paste(format(v), collapse = ","), character(1))
  print(data.frame(value = shown, stringsAsFactors = FALSE), right = FALSE)
  top <- utils::head(x[["importance"]], 10L)
  cat(sprintf("\nTop %d features by impurity importance:\n", length(top)))
  print(round(top, 4))
  invisible(x)
}

# plot(fit): the out-of-bag error against the number of trees, as
# randomForest's plot() draws it (a MORF forest plots its importance map:
# plot.morf).
plot.sporf <- function(x, ...) {
  if (identical(x[["task"]], "survival")) return(.plot_survival(x, ...))
  curve <- x[["oob_error_curve"]]
  if (is.null(curve))
    stop("plot() draws the out-of-bag error against the number of trees: fit with oob_score = TRUE",
         call. = FALSE)
  regression <- identical(x[["task"]], "regression")
  graphics::plot(seq_along(curve), curve, type = "l", xlab = "trees",
                 ylab = if (regression) "out-of-bag mean squared error" else "out-of-bag error", ...)
  invisible(curve)
}

# Every field a sporf object may hold (a fit's, morf's, urerf's, the formula
# interface's): `$` on any other name is an error that names the right one,
# where a list would silently give NULL (randomForest's field names included).
# What a fit that chose its leaf size out of bag reports (the size, every
# size's score), and the fitting call of trees added to it (grow()): pruned to
# the size it chose, unscored.
.LEAF_CHOICE_FIELDS <- c("min_samples_leaf", "leaf_scores")
.with_chosen_leaf_size <- function(call, object) {
  if (identical(object[["params"]][["min_samples_leaf"]], "auto") && !is.null(object[["min_samples_leaf"]]))
    call$min_samples_leaf <- structure(object[["min_samples_leaf"]], class = "sporf_chosen_leaf_size")
  # and the other choices the forest made (a choice parameter's codes past its values: the
  # spec's chosen_as; splitter = "auto": the kinds of trees kept, numbered on from its last)
  cp <- .Call(C_sporf_r_params, .native(object))
  for (row in .SPEC_PARAMS) {
    if (identical(row$kind, "choice") && length(row$chosen_as) && cp[[row$name]] >= length(row$values))
      call[[row$name]] <- structure(cp[[row$name]], class = "sporf_chosen_code")
  }
  call
}
# What a fit with splitter = "auto" reports: the trees it kept ("mixed",
# "best" or "random") and each choice's out-of-bag score.
.KIND_CHOICE_FIELDS <- c("splitter", "splitter_scores")

.SPORF_FIELDS <- c("model", "task", "classes", "label_kind", "feature_names", "n_features", "n_samples", "params",
                   "n_jobs", "oob_score_requested", "max_features_resolved", ".cache", "oob_score", "oob_error",
                   "oob_predictions", "oob_decision_function", "oob_error_curve", "oob_error_curve_by_class", "tuning",
                   "best_params",
                   "permutation_importance", "permutation_importance_sd", "predicted", "votes", "confusion",
                   "err.rate", "mse", "rsq", "oob.times", "data_dims", "x", "n_neighbors", "terms", "call", "xlevels",
                   "contrasts", "formula", "formula_unstored", "feature_levels", "n_outputs", "outputs",
                   "unique_times", "is_event_time", "event_times", "interval_scores", "interval_weights", "interval_calibration",
                   "offset", "fit_fingerprint",
                   .LEAF_CHOICE_FIELDS, .KIND_CHOICE_FIELDS)
# randomForest's fields where sporf keeps them (its parameters' names, such as
# ntree and mtry, map through the spec's peer names)
.RANDOMFOREST_NAMES <- c(importance = "importance(fit)", importanceSD = "importance(fit, type = \"permutation\")",
                         type = "task", y = "the response you fitted on", forest = "model (the model file's bytes; a tree's nodes: get_tree(fit, k))",
                         proximity = "proximity(fit, ...)")

`$.sporf` <- function(x, name) {
  fields <- c(.SPORF_FIELDS, .TREES_HELD_FIELD) # params.R names the latter (collated after this file)
  if (name %in% fields) return(.subset2(x, name))
  # a list's `$` completes a unique prefix of a field it holds: so does this
  held <- names(x)[startsWith(names(x), name)]
  if (length(held) == 1L) return(.subset2(x, held))
  # randomForest's names for what sporf keeps elsewhere: an error that says where
  if (name %in% names(.SPEC_PEER_NAMES))
    stop(sprintf("a sporf forest has no field \"%s\"; randomForest's \"%s\" is params$%s here", name, name,
                 .SPEC_PEER_NAMES[[name]]), call. = FALSE)
  if (name %in% names(.RANDOMFOREST_NAMES))
    stop(sprintf("a sporf forest has no field \"%s\"; randomForest's \"%s\" is %s here", name, name,
                 .RANDOMFOREST_NAMES[[name]]), call. = FALSE)
  # any other name gives NULL, as a list does (code that asks a model for
  # fields it may lack, such as na.action or weights, keeps working); a near
  # miss of a field says which
  d <- utils::adist(name, fields)[1L, ]
  if (min(d) <= max(2, nchar(name) %/% 3))
    warning(sprintf("a sporf forest has no field \"%s\" (NULL); did you mean \"%s\"?", name,
                    fields[which.min(d)]), call. = FALSE)
  NULL
}
