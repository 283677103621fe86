# Multi-output y: a matrix or data frame of responses, one column per output
# (formula: cbind(y1, y2) ~ .), as scikit-learn's forests take a 2-D y. The
# core grows one tree for all outputs and keeps each output's class
# distribution or mean side by side in a leaf; the same bytes as Python's
# fit on the same columns.

# y's columns as a list, with their names (y1, y2, ... when it has none).
.output_columns <- function(y) {
  cols <- if (is.data.frame(y)) as.list(y) else lapply(seq_len(ncol(y)), function(j) y[, j])
  nm <- colnames(y)
  if (is.null(nm) || anyNA(nm) || any(nm == "")) nm <- paste0("y", seq_along(cols))
  names(cols) <- nm
  cols
}

# grid: a patch forest's data dimensions (or NULL); tune: the tuning grid's code.
.fit_outputs <- function(X, y, args, sample_weight, est, grid, levels, tune) {
  n <- nrow(X)
  if (nrow(y) != n) stop(sprintf("y has %d rows but x has %d", nrow(y), n), call. = FALSE)
  cols <- .output_columns(y)
  m <- length(cols)
  for (j in seq_len(m))
    if (anyNA(cols[[j]]))
      stop(sprintf("y contains %d missing value(s) (NA) in output %s", sum(is.na(cols[[j]])), names(cols)[j]),
           call. = FALSE)
  numeric <- vapply(cols, .is_regression, logical(1))
  if (any(numeric) && !all(numeric))
    stop("the outputs of a multi-output y must all be numeric (a regression forest) or all classes ",
         "(factor, character, integer coded as factor, or logical columns)", call. = FALSE)
  regression <- all(numeric)
  .refuse_survival_pair(cols)
  if (identical(args$importance, "permutation")) .refuse("outputs_permutation", m)
  if (regression) {
    if (any(!vapply(cols, function(v) all(is.finite(v)), logical(1))))
      stop("y contains infinite values", call. = FALSE)
    encs <- NULL
    target <- as.double(t(matrix(unlist(cols, use.names = FALSE), nrow = n))) # row by row, as the core reads it
    n_classes <- NULL
  } else {
    encs <- lapply(cols, .encode_response)
    target <- as.integer(t(matrix(unlist(lapply(encs, `[[`, "codes"), use.names = FALSE), nrow = n)))
    n_classes <- vapply(encs, function(e) length(e$levels), integer(1))
  }
  params <- .build_params(args, ncol(X), est, if (regression) "regression" else "classification", grid)
  sw <- .check_sample_weight(sample_weight, n)
  by_feature <- NULL
  if (!is.null(levels)) { # categorical columns: ordered by the first output
    first <- if (regression) list(codes = as.double(cols[[1L]]), K = 1L) else list(codes = encs[[1L]]$codes,
                                                                                    K = n_classes[1L])
    tp <- .to_positions(X, levels, first, sw)
    X <- tp$X
    by_feature <- tp$by_feature
  }
  res <- .Call(C_sporf_r_fit, X, target, m, n_classes, params, sw, NULL, args$oob_score, as.integer(args$verbose),
               tune)
  # every output's labels in order, under one kind (text when the outputs' kinds differ)
  labels <- if (!regression) {
    kinds <- vapply(encs, `[[`, integer(1), "kind")
    list(kind = if (all(kinds == kinds[1L])) kinds[1L] else .KIND_TEXT,
         labels = unlist(lapply(encs, `[[`, "labels")))
  }
  obj <- .fitted(res, X, args, params, est, labels, by_feature, if (regression) "regression" else "classification")
  obj <- .with_outputs(obj, names(cols), if (!regression) lapply(encs, `[[`, "levels"))
  if (isTRUE(args$oob_score)) {
    if (any(res[[3L]] == 0))
      warning("some samples have no out-of-bag predictions (too few trees for reliable OOB estimates)",
              call. = FALSE)
    obj <- .attach_oob_outputs(obj, cols, res[[2L]], res[[3L]])
  }
  obj
}

# A multi-output forest's outputs: their names and, for classification, each
# one's classes (a named list).
.with_outputs <- function(obj, names, classes) {
  obj$n_outputs <- length(names)
  obj$outputs <- names
  if (!is.null(classes)) obj$classes <- stats::setNames(classes, names)
  obj
}

# values (n x K, row-major) as the forest's prediction: a matrix of responses
# (regression), or a data frame of factors, one per output, and with prob the
# list of each output's probability matrix.
.output_values <- function(obj, values, n, rows = NULL, prob = FALSE) {
  m <- obj[["n_outputs"]]
  if (identical(obj[["task"]], "regression"))
    return(matrix(values, nrow = n, ncol = m, byrow = TRUE, dimnames = list(rows, obj[["outputs"]])))
  widths <- vapply(obj[["classes"]], length, integer(1))
  all <- matrix(values, nrow = n, ncol = sum(widths), byrow = TRUE)
  ends <- cumsum(widths)
  probs <- lapply(seq_len(m), function(j) {
    lev <- obj[["classes"]][[j]]
    matrix(all[, (ends[j] - widths[j] + 1L):ends[j], drop = FALSE], nrow = n, dimnames = list(rows, lev))
  })
  names(probs) <- obj[["outputs"]]
  if (prob) return(probs)
  out <- lapply(seq_len(m), function(j) {
    lev <- obj[["classes"]][[j]]
    factor(lev[max.col(probs[[j]], ties.method = "first")], levels = lev)
  })
  out <- as.data.frame(stats::setNames(out, obj[["outputs"]]), stringsAsFactors = FALSE)
  if (!is.null(rows)) rownames(out) <- rows
  out
}

# Out-of-bag results of a multi-output fit: predictions (NA where a row was in
# every tree's bag), each output's score (accuracy or R^2, as Python's
# oob_score_ averages them) and error.
.attach_oob_outputs <- function(obj, cols, values, counts) {
  n <- length(cols[[1L]])
  pred <- .output_values(obj, values, n)
  if (identical(obj[["task"]], "regression")) {
    y <- matrix(unlist(cols, use.names = FALSE), nrow = n)
    r2 <- vapply(seq_along(cols), function(j) 1 - sum((y[, j] - pred[, j])^2) / sum((y[, j] - mean(y[, j]))^2),
                 numeric(1))
    obj$oob_score <- mean(r2)
    obj$oob_error <- mean((y - pred)^2)
    pred[counts == 0, ] <- NA
  } else {
    obj$oob_decision_function <- .output_values(obj, values, n, prob = TRUE)
    acc <- vapply(seq_along(cols), function(j) mean(as.character(pred[[j]]) == as.character(cols[[j]])),
                  numeric(1))
    obj$oob_score <- mean(acc)
    obj$oob_error <- 1 - obj$oob_score
    pred[counts == 0, ] <- NA
  }
  obj$oob_predictions <- pred
  obj$predicted <- pred
  obj
}

# A refusal in the spec's words (.SPEC_REFUSALS), {n} the count n.
.refuse <- function(name, n) stop(sub("{n}", n, .SPEC_REFUSALS[[name]], fixed = TRUE), call. = FALSE)

# What a multi-output forest does not do, refused by name.
.refuse_outputs <- function(object, what) {
  if (isTRUE(object[["n_outputs"]] > 1L))
    stop(sprintf("%s is for single-output forests (this one was fitted on %d outputs)", what,
                 object[["n_outputs"]]), call. = FALSE)
}

# get_tree()'s prediction column for a multi-output forest: at each leaf, the
# outputs' means or most probable classes (a named vector); NA elsewhere.
.leaf_outputs <- function(object, value, leaf) {
  regression <- identical(object[["task"]], "regression")
  widths <- if (regression) rep(1L, object[["n_outputs"]]) else lengths(object[["classes"]])
  ends <- cumsum(widths)
  lapply(seq_len(nrow(value)), function(i) {
    if (!leaf[i]) return(NA)
    out <- vapply(seq_along(widths), function(j) {
      v <- value[i, (ends[j] - widths[j] + 1L):ends[j]]
      if (regression) as.character(v) else object[["classes"]][[j]][which.max(v)]
    }, character(1))
    stats::setNames(if (regression) as.numeric(out) else out, object[["outputs"]])
  })
}

# Two numeric columns that read as a survival response -- a time and an event
# flag of 0/1 (or 1/2) by their names -- are what survival users give before
# they reach for Surv(); a two-output regression of them would fit without a
# word. Refused with the form to use (other names fit two outputs as asked).
.refuse_survival_pair <- function(cols) {
  if (length(cols) != 2L || is.null(names(cols))) return(invisible())
  nm <- tolower(names(cols))
  time <- grepl("time|days|months|years|futime|stop", nm)
  event <- grepl("status|event|dead|death|died|censor|fail|delta", nm)
  if (!(time[1L] && event[2L]) && !(time[2L] && event[1L])) return(invisible())
  flag <- cols[[if (event[2L]) 2L else 1L]]
  codes <- sort(unique(flag))
  if (!is.numeric(flag) || !(all(codes %in% c(0, 1)) || all(codes %in% c(1, 2)))) return(invisible())
  tn <- names(cols)[if (event[2L]) 1L else 2L]
  en <- names(cols)[if (event[2L]) 2L else 1L]
  stop(sprintf(paste0("y's columns %s and %s read as a survival time and its event flag: for a survival forest ",
                      "give survival::Surv(%s, %s)%s (as a two-output regression, name the columns otherwise)"),
               tn, en, tn, en, if (all(codes %in% c(1, 2))) " (status 1/2: Surv() reads 2 as the event)" else ""),
       call. = FALSE)
}
