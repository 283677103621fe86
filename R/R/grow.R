# grow(): add trees to a fitted forest -- R's warm_start. Documented in
# man/grow.Rd.

grow <- function(object, n_more, ...) {
  if (!inherits(object, "sporf")) stop("grow() needs a sporf forest", call. = FALSE)
  if (!.is_number(n_more) || n_more < 1 || n_more != round(n_more))
    .bad_param("n_more", "a whole number >= 1", n_more)
  call <- object[["call"]]
  fitted_by <- if (is.call(call)) sub("^sporf::", "", paste(deparse(call[[1L]]), collapse = "")) else ""
  if (!(fitted_by %in% c("sporf", "morf", "urerf", "isolation_forest")))
    stop(paste0("grow() refits through the forest's fitting call, and this forest has none (it was read from a ",
                "model file or merged): grow its next trees as a shard with the same seed and join them with ",
                "merge_forests()"), call. = FALSE)
  if (!is.null(object[["tuning"]]))
    stop("grow() cannot add trees to a forest tuned by out-of-bag error: refit with its best_params, untuned",
         call. = FALSE)
  n_old <- .Call(C_sporf_r_info, .native(object))$n_trees
  n_grown <- .n_grown(object, n_old)
  # Trees n_grown .. n_grown + n_more - 1 of the forest the first fit's seed
  # began (the seed as resolved, so a fit seeded by set.seed() grows on), on
  # the data of the call unless the user passes it again in `...`; a forest
  # that kept one kind of its trees (splitter = "auto") holds that kind's
  # trees among them, numbered in it, as Python's warm start counts.
  n_add <- .Call(C_sporf_r_trees_to_add, .native(object), .first_tree_of_call(call), n_grown + n_more)
  if (n_add < 1L) { # the next tree grown is of the kind not kept
    object$call <- .next_trees_call(call, NULL, 0, n_grown + n_more)
    return(object)
  }
  more_call <- .next_trees_call(call, object[["params"]], n_old, n_add)
  more_call <- .with_chosen_leaf_size(more_call, object)
  extra <- list(...)
  if (length(extra) && (is.null(names(extra)) || any(names(extra) == "")))
    stop("grow() takes the data again by name (x = , y = , data = ...), as the first fit's call names it",
         call. = FALSE)
  for (nm in names(extra)) more_call[[nm]] <- extra[[nm]]
  more <- eval(more_call, parent.frame())
  merged <- tryCatch(merge_forests(object, more), error = function(e)
    stop(sprintf("grow(): the new trees do not join the forest (%s); give the same data", conditionMessage(e)),
         call. = FALSE))
  # what the model file does not hold: the formula, the data's shape
  for (k in c("terms", "xlevels", "contrasts", "n_samples", "x", "n_neighbors", "n_jobs", .LEAF_CHOICE_FIELDS))
    if (!is.null(object[[k]])) merged[[k]] <- object[[k]]
  merged$call <- .next_trees_call(call, NULL, 0, n_grown + n_more)
  # out-of-bag results of the grown forest, from the trees' regenerated draws:
  # its scores and, for a quantile forest, the interval calibration (as a fit
  # computes them; Python's warm start does the same)
  if (inherits(merged, "sporf_isolation")) # the outlier threshold of the grown forest's scores
    return(.isolation_grown(merged, object, .grow_training_data(merged, call, extra, parent.frame())$X))
  wants_oob <- !is.null(object[["oob_score"]]) && !inherits(object, "urerf")
  wants_scores <- isTRUE(merged[["params"]][["quantiles"]]) || identical(merged[["task"]], "survival")
  if (wants_oob || wants_scores) {
    data <- .grow_training_data(merged, call, extra, parent.frame())
    if (!is.null(data) && wants_oob) merged <- .grown_oob(merged, data$X, data$y)
    if (!is.null(data) && wants_scores) merged <- .attach_interval_scores(merged, data$X, data$y)
  }
  merged
}

# The training data of the first fit's call (or the data given to grow()
# again): list(X, the rows as the forest reads them, y); NULL when the call
# chose rows by `subset` or took a formula's variables from outside a data
# frame, which grow() does not rebuild.
.grow_training_data <- function(merged, call, extra, env) {
  arg <- function(nm) if (!is.null(extra[[nm]])) extra[[nm]] else eval(call[[nm]], env)
  if (!is.null(call[["subset"]])) return(NULL)
  if (!is.null(call[["formula"]])) {
    data <- arg("data")
    if (is.null(data)) return(NULL)
    mf <- stats::model.frame(eval(call[["formula"]], env), data = data, na.action = stats::na.pass)
    y <- stats::model.response(mf)
    x <- data
  } else {
    x <- arg("x")
    y <- arg("y")
  }
  list(X = .newdata_matrix(merged, x, "x"), y = y)
}

# The grown forest with its out-of-bag results on its training rows X, y.
.grown_oob <- function(merged, X, y) {
  handle <- .native(merged)
  res <- .Call(C_sporf_r_oob_predict, handle, X, .resolve_n_jobs(merged[["n_jobs"]]))
  merged$oob_score_requested <- TRUE
  if (isTRUE(merged[["n_outputs"]] > 1L)) return(.attach_oob_outputs(merged, .output_columns(y), res[[1L]], res[[2L]]))
  enc <- if (identical(merged[["task"]], "regression")) list(codes = as.double(y))
         else list(codes = match(as.character(y), as.character(merged[["classes"]])) - 1L,
                   levels = merged[["classes"]])
  .attach_oob(merged, handle, X, if (is.null(enc$levels)) as.double(y) else y, enc, res[[1L]], res[[2L]])
}
