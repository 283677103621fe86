# Prediction of a sporf forest: classes, probabilities, votes, leaves, each
# tree's predictions and one tree's nodes; newdata as the training matrix.

predict.sporf <- function(object, newdata, type = NULL, n_jobs = NULL, predict.all = FALSE,
                          quantiles = c(0.1, 0.5, 0.9), oob = FALSE, times = NULL, coverage = 0.9,
                          calibrated = TRUE, ...) {
  if (identical(object[["task"]], "survival")) {
    if (length(list(...)) || isTRUE(predict.all) || !missing(quantiles))
      stop("a survival forest's predict() takes newdata, type, times, oob, coverage, calibrated and n_jobs",
           call. = FALSE)
    # coverage or calibrated given without a type asks for the interval, as for quantile forests
    interval_given <- !missing(coverage) || !missing(calibrated)
    if (is.null(type) && interval_given) type <- "interval"
    if (interval_given && !identical(type, "interval"))
      stop(sprintf("coverage and calibrated are for type = \"interval\", not type = \"%s\"", type), call. = FALSE)
    return(.predict_survival(object, newdata, type, times, n_jobs, oob, coverage = coverage, calibrated = calibrated))
  }
  if (!is.null(times)) stop("times are for survival forests", call. = FALSE)
  regression <- identical(object[["task"]], "regression")
  # type: "class" (the default; "response" is randomForest's name for it) /
  # "prob" / "vote" / "leaf" for classification; "response" (the default) /
  # "quantiles" / "interval" / "leaf" for regression.
  types <- if (identical(object[["task"]], "unsupervised")) "leaf"
           else if (regression) c("response", "quantiles", "interval", "leaf") else c("class", "response", "prob", "vote", "leaf")
  # quantiles given without a type asks for them, as Python's predict(X, quantiles=...) does
  quantiles_given <- !missing(quantiles)
  interval_given <- !missing(coverage) || !missing(calibrated)
  if (is.null(type))
    type <- if (quantiles_given && regression) "quantiles" else if (interval_given && regression) "interval" else types[1L]
  if (!is.character(type) || length(type) != 1L || !(type %in% types))
    stop(sprintf("type must be one of %s for a %s forest", paste0("\"", types, "\"", collapse = ", "),
                 object[["task"]]), call. = FALSE)
  if (!regression && type == "response") type <- "class"
  if (length(list(...)))
    stop(sprintf("unknown argument%s to predict(): %s", if (length(list(...)) > 1L) "s" else "",
                 paste(names(list(...)), collapse = ", ")), call. = FALSE)
  if (quantiles_given && type != "quantiles")
    stop(if (regression) sprintf("quantiles are for type = \"quantiles\", not type = \"%s\"", type)
         else "quantiles are for regression forests grown with quantiles = TRUE", call. = FALSE)
  if (interval_given && type != "interval")
    stop(if (regression) sprintf("coverage and calibrated are for type = \"interval\", not type = \"%s\"", type)
         else "coverage and calibrated are for regression forests grown with quantiles = TRUE", call. = FALSE)
  if (!is.logical(oob) || length(oob) != 1L || is.na(oob))
    .bad_param("oob", "TRUE or FALSE", oob)
  if (type == "interval") {
    if (!isTRUE(object[["params"]][["quantiles"]]))
      stop("type = \"interval\" needs a forest that keeps quantiles: grow it with quantiles = TRUE", call. = FALSE)
    if (missing(newdata) || is.null(newdata))
      stop("type = \"interval\" needs newdata", call. = FALSE)
    if (oob) stop("oob = TRUE is for type = \"quantiles\"", call. = FALSE)
  } else if (type == "quantiles") {
    if (!is.numeric(quantiles) || length(quantiles) < 1L || anyNA(quantiles) || any(quantiles < 0 | quantiles > 1))
      .bad_param("quantiles", "probabilities in [0, 1]", quantiles)
    if (!isTRUE(object[["params"]][["quantiles"]]))
      stop("this forest keeps no quantiles: grow it with quantiles = TRUE", call. = FALSE)
    if (missing(newdata) || is.null(newdata))
      stop("type = \"quantiles\" needs newdata (with oob = TRUE, the training data)", call. = FALSE)
  } else if (oob) {
    stop("oob = TRUE is for type = \"quantiles\"; predict(fit) without newdata gives the out-of-bag predictions",
         call. = FALSE)
  }
  multi <- isTRUE(object[["n_outputs"]] > 1L)
  if (multi && (type %in% c("vote", "quantiles", "interval") || isTRUE(predict.all)))
    .refuse_outputs(object, if (isTRUE(predict.all)) "predict.all" else sprintf("type = \"%s\"", type))
  if (missing(newdata) || is.null(newdata)) {
    if (is.null(object[["oob_predictions"]]))
      stop("newdata is required: this forest has no out-of-bag predictions (fit with oob_score = TRUE)",
           call. = FALSE)
    if (type %in% c("leaf", "vote")) stop(sprintf("type = \"%s\" needs newdata", type), call. = FALSE)
    return(if (type == "prob") object[["oob_decision_function"]] else object[["oob_predictions"]])
  }
  X <- .newdata_matrix(object, newdata)
  threads <- .resolve_n_jobs(if (is.null(n_jobs)) object[["n_jobs"]] else n_jobs)
  handle <- .native(object)
  if (isTRUE(predict.all)) {
    # randomForest's list: the forest's prediction and each tree's (n x n_trees)
    aggregate <- predict.sporf(object, X, type = type, n_jobs = n_jobs)
    return(list(aggregate = aggregate, individual = .tree_predictions(object, X, threads)))
  }
  if (type == "quantiles") {
    if (oob) .check_oob_rows(object, X)
    out <- .Call(C_sporf_r_quantiles, handle, X, as.double(quantiles), threads, oob)
    dimnames(out) <- list(rownames(X), paste("quantile=", quantiles))
    return(out)
  }
  if (type == "interval") return(.predict_interval(object, X, coverage, calibrated, threads))
  if (type == "leaf") {
    leaves <- .Call(C_sporf_r_apply, handle, X, threads)
    rownames(leaves) <- rownames(X)
    return(leaves)
  }
  if (type == "vote") {
    votes <- .Call(C_sporf_r_votes, handle, X, threads)
    dimnames(votes) <- list(rownames(X), object[["classes"]])
    return(votes)
  }
  values <- .Call(C_sporf_r_predict_proba, handle, X, threads)
  if (multi) return(.output_values(object, values, nrow(X), rownames(X), prob = type == "prob"))
  if (regression) {
    names(values) <- rownames(X)
    return(values)
  }
  K <- length(object[["classes"]])
  proba <- matrix(values, nrow = nrow(X), ncol = K, byrow = TRUE, dimnames = list(rownames(X), object[["classes"]]))
  if (type == "prob") return(proba)
  factor(object[["classes"]][.first_max_col(proba)], levels = object[["classes"]])
}

# oob = TRUE answers for the training rows in their order: refuse newdata of
# another count or fingerprint (a forest read from a model file knows neither:
# its rows are then taken as given), saying what oob = TRUE means.
.check_oob_rows <- function(object, X) {
  n <- object[["n_samples"]]
  if (!is.null(n) && !is.na(n) && nrow(X) != n)
    stop(sprintf("oob = TRUE is for the training data: the forest was grown on %d rows, newdata has %d",
                 as.integer(n), nrow(X)), call. = FALSE)
  kept <- object[["fit_fingerprint"]]
  if (!is.null(kept) && !identical(.Call(C_sporf_r_fingerprint, X), kept))
    stop(paste("oob = TRUE is for the training data, the rows the forest was grown on in their order: each row",
               "is then predicted by the trees that did not draw it. newdata has as many rows, but other values",
               "or another order; for new rows, predict without oob"), call. = FALSE)
}

# max.col(p, ties.method = "first") for a matrix of probabilities without
# missing values: the column of each row's first largest value. Without
# max.col's checks, which cost more than the prediction of one row.
.first_max_col <- function(p) {
  if (anyNA(p)) return(max.col(p, ties.method = "first"))
  if (nrow(p) == 1L) return(which.max(p))
  col <- rep.int(1L, nrow(p))
  best <- p[, 1L]
  for (k in seq_len(ncol(p))[-1L]) {
    larger <- p[, k] > best
    col[larger] <- k
    best[larger] <- p[larger, k]
  }
  col
}

# Each tree's prediction for each row of X: the class its leaf gives the most
# weight (the first on a tie) or the leaf's mean; an honest tree whose leaf
# received no estimation row gives its prior.
.tree_predictions <- function(object, X, threads) {
  handle <- .native(object)
  leaves <- .Call(C_sporf_r_apply, handle, X, threads)
  K <- as.integer(.Call(C_sporf_r_info, handle)$n_classes)
  out <- vapply(seq_len(ncol(leaves)), function(t) {
    value <- matrix(.Call(C_sporf_r_get_tree, handle, t - 1)$value, ncol = K, byrow = TRUE)
    v <- value[leaves[, t] + 1L, , drop = FALSE]
    if (identical(object[["task"]], "regression")) v[, 1L] else max.col(v, ties.method = "first")
  }, if (identical(object[["task"]], "regression")) numeric(nrow(X)) else integer(nrow(X)))
  out <- matrix(out, nrow = nrow(X))
  if (!identical(object[["task"]], "regression"))
    out <- matrix(object[["classes"]][out], nrow = nrow(X))
  dimnames(out) <- list(rownames(X), NULL)
  out
}

# One tree of a forest as a data frame, a row per node (randomForest's
# getTree, for oblique splits): see ?get_tree.
get_tree <- function(object, k = 1) {
  if (!inherits(object, "sporf")) stop("get_tree() needs a sporf or morf forest", call. = FALSE)
  n_trees <- .Call(C_sporf_r_info, .native(object))$n_trees
  if (!.is_whole(k) || k < 1 || k > n_trees) .bad_param("k", sprintf("a whole number in [1, %d]", n_trees), k)
  a <- .Call(C_sporf_r_get_tree, .native(object), k - 1)
  n <- length(a$left)
  leaf <- a$left < 0
  span <- function(i) if (a$proj_len[i] > 0) seq(a$proj_start[i] + 1, a$proj_start[i] + a$proj_len[i]) else integer(0)
  features <- lapply(seq_len(n), function(i) a$proj_feature[span(i)] + 1L)
  weights <- lapply(seq_len(n), function(i) a$proj_weight[span(i)])
  nm <- object[["feature_names"]]
  if (is.null(nm)) nm <- paste0("x", seq_len(object[["n_features"]]))
  split <- vapply(seq_len(n), function(i) {
    if (leaf[i]) return(NA_character_)
    w <- weights[[i]]
    terms <- paste0(ifelse(abs(w) == 1, "", paste0(format(abs(w), digits = 4), " * ")), nm[features[[i]]])
    sub("^\\+ ", "", paste0(ifelse(w < 0, "- ", "+ "), terms, collapse = " "))
  }, character(1))
  K <- as.integer(.Call(C_sporf_r_info, .native(object))$n_classes)
  value <- matrix(a$value, ncol = K, byrow = TRUE)
  prediction <- if (isTRUE(object[["n_outputs"]] > 1L)) .leaf_outputs(object, value, leaf)
                else if (!identical(object[["task"]], "classification")) value[, 1L]
                else ifelse(leaf, object[["classes"]][max.col(value, ties.method = "first")], NA)
  out <- data.frame(node = seq_len(n), left = ifelse(leaf, 0L, a$left + 1L), right = ifelse(leaf, 0L, a$right + 1L),
                    split = split, threshold = ifelse(leaf, NA, a$threshold),
                    missing = ifelse(leaf, NA, c("right", "left", "impute")[a$missing + 1L]),
                    gain = a$gain, status = ifelse(leaf, -1L, 1L), stringsAsFactors = FALSE)
  out$features <- features
  out$weights <- weights
  out$prediction <- prediction
  out
}

# newdata as the double matrix the forest was trained on: through the
# formula's terms when fitted with a formula; columns matched by name when the
# forest knows its feature names; checked for shape and values.
.newdata_matrix <- function(object, newdata, what = "newdata") {
  # A double matrix with the fitted columns and no infinite value, the common
  # case, is used as it is after a few tests (one-row calls are dominated by
  # R's per-call work); anything else takes the checks below.
  if (is.matrix(newdata) && is.double(newdata) && is.null(object[["terms"]]) &&
      is.null(object[["feature_levels"]]) && nrow(newdata) > 0L && ncol(newdata) == object[["n_features"]] &&
      identical(dimnames(newdata)[[2L]], object[["feature_names"]]) && is.null(attr(newdata, "contrasts")) &&
      !any(is.infinite(newdata)))
    return(newdata)
  if (!is.null(object[["terms"]])) {
    if (!is.data.frame(newdata)) newdata <- as.data.frame(newdata)
    tt <- stats::delete.response(object[["terms"]])
    missing_vars <- setdiff(all.vars(tt), names(newdata))
    if (length(missing_vars))
      stop(sprintf("%s lacks variable%s used by the formula: %s", what, if (length(missing_vars) > 1L) "s" else "",
                   paste(missing_vars, collapse = ", ")), call. = FALSE)
    if (!is.null(object[["feature_levels"]])) {
      # the formula's variables as they are, factors matched by level name
      # (a level the fit did not see is a missing value)
      frame <- stats::model.frame(tt, newdata, na.action = stats::na.pass)[attr(tt, "term.labels")]
      return(.as_feature_matrix(.encode_for_predict(frame, object[["feature_levels"]], object[["feature_names"]]),
                                what))
    }
    mf <- stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = object[["xlevels"]])
    op <- options(na.action = "na.pass") # keep rows with NA: they are predicted
    on.exit(options(op))
    X <- stats::model.matrix(tt, mf, contrasts.arg = object[["contrasts"]])
    X <- X[, colnames(X) != "(Intercept)", drop = FALSE]
    attr(X, "assign") <- NULL
    attr(X, "contrasts") <- NULL
    return(.as_feature_matrix(X, what))
  }
  unstored <- object[["formula_unstored"]]
  if (!is.null(unstored) && is.data.frame(newdata) && !all(object[["feature_names"]] %in% names(newdata)))
    stop(sprintf(paste0("this model was fitted with a formula its file could not store (terms: %s); give %s as ",
                        "the design matrix, with the columns %s"), paste(unstored, collapse = ", "), what,
                 paste(utils::head(object[["feature_names"]], 10L), collapse = ", ")), call. = FALSE)
  names_fit <- object[["feature_names"]]
  # columns the forest was not trained on (the response, say) are ignored, whatever their type, as
  # randomForest and Python's predict do
  if (is.data.frame(newdata) && !is.null(names_fit) && all(names_fit %in% names(newdata)) &&
      !identical(names(newdata), names_fit))
    newdata <- newdata[names_fit]
  if (!is.null(object[["feature_levels"]]))
    newdata <- .encode_for_predict(newdata, object[["feature_levels"]], object[["feature_names"]])
  X <- .as_feature_matrix(newdata, what)
  if (!is.null(names_fit) && !is.null(colnames(X))) {
    absent <- setdiff(names_fit, colnames(X))
    if (length(absent))
      stop(sprintf("%s lacks column%s the forest was trained on: %s", what, if (length(absent) > 1L) "s" else "",
                   paste(utils::head(absent, 10L), collapse = ", ")), call. = FALSE)
    if (!identical(colnames(X), names_fit)) X <- X[, names_fit, drop = FALSE]
  } else if (ncol(X) != object[["n_features"]]) {
    stop(sprintf("%s has %d columns but the forest was trained on %d features", what, ncol(X), object[["n_features"]]),
         call. = FALSE)
  } else if (!is.null(names_fit)) {
    # the rule Python follows too: no names, so by position -- say so
    warning(sprintf("%s has no column names but the forest was fitted with feature names: its columns are taken in the training order",
                    what), call. = FALSE)
  }
  X
}
