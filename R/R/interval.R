# Calibrated prediction intervals of a quantile regression forest, and of a
# survival forest's event times: predict(fit, newdata, type = "interval",
# coverage =, calibrated =) and calibrate_intervals(). The core chooses the
# levels (sporf.h, sporf_interval_levels and its weighted form for survival);
# R keeps the calibration rows' scores (and a survival forest's censoring
# weights). Documented in man/calibrate_intervals.Rd and man/predict.sporf.Rd.

# The training rows' out-of-bag scores, which calibrate type = "interval":
# for a forest that keeps quantiles and whose trees left rows out (a forest
# whose trees drew every row scores none).
.attach_interval_scores <- function(obj, X, y) {
  obj$interval_scores <- NULL
  obj$interval_weights <- NULL
  obj$interval_calibration <- NULL
  if (identical(obj[["task"]], "survival")) return(.attach_survival_interval_scores(obj, X, y))
  if (!isTRUE(obj[["params"]][["quantiles"]])) return(obj)
  scores <- .Call(C_sporf_r_interval_scores, .native(obj), X, as.double(y), .resolve_n_jobs(obj[["n_jobs"]]), TRUE)
  if (all(is.na(scores))) return(obj)
  obj$interval_scores <- scores
  obj$interval_calibration <- "out-of-bag"
  obj
}

# A survival forest's: each event row's score with its censoring weight,
# out of bag (y: the Surv response, or its list(time, status)); none when
# the trees drew every row (the core scores them all NA).
.attach_survival_interval_scores <- function(obj, X, y) {
  resp <- if (.is_survival(y)) .survival_response(y, nrow(X)) else y
  sw <- .Call(C_sporf_r_survival_interval_scores, .native(obj), X, as.double(resp$time), as.integer(resp$status),
              .resolve_n_jobs(obj[["n_jobs"]]), TRUE)
  if (all(is.na(sw[[1L]]))) return(obj)
  obj$interval_scores <- sw[[1L]]
  obj$interval_weights <- sw[[2L]]
  obj$interval_calibration <- "out-of-bag"
  obj
}

calibrate_intervals <- function(object, x, y) {
  if (inherits(object, "sporf") && identical(object[["task"]], "survival")) {
    X <- .newdata_matrix(object, x, "x")
    if (!.is_survival(y))
      stop("calibrate_intervals(): a survival forest's y is a Surv(time, status) object", call. = FALSE)
    if (nrow(X) == 0L) stop("calibrate_intervals(): x has no rows", call. = FALSE)
    resp <- .survival_response(y, nrow(X))
    sw <- .Call(C_sporf_r_survival_interval_scores, .native(object), X, resp$time, resp$status,
                .resolve_n_jobs(object[["n_jobs"]]), FALSE)
    object$interval_scores <- sw[[1L]]
    object$interval_weights <- sw[[2L]]
    object$interval_calibration <- "held-out"
    return(object)
  }
  if (!inherits(object, "sporf") || !identical(object[["task"]], "regression"))
    stop("calibrate_intervals() needs a sporf regression or survival forest", call. = FALSE)
  if (!isTRUE(object[["params"]][["quantiles"]]))
    stop("calibrate_intervals() needs a forest that keeps quantiles: grow it with quantiles = TRUE", call. = FALSE)
  X <- .newdata_matrix(object, x, "x")
  if (!is.numeric(y) || is.factor(y) || is.matrix(y))
    stop("calibrate_intervals(): y must be a numeric vector", call. = FALSE)
  if (length(y) != nrow(X))
    stop(sprintf("calibrate_intervals(): y has %d values but x has %d rows", length(y), nrow(X)), call. = FALSE)
  if (nrow(X) == 0L) stop("calibrate_intervals(): x has no rows", call. = FALSE)
  object$interval_scores <- .Call(C_sporf_r_interval_scores, .native(object), X, as.double(y),
                                  .resolve_n_jobs(object[["n_jobs"]]), FALSE)
  object$interval_calibration <- "held-out"
  object
}

# predict(type = "interval"): n x 2 (lower, upper).
.predict_interval <- function(object, X, coverage, calibrated, threads) {
  if (!.is_number(coverage) || !(coverage > 0 && coverage < 1))
    .bad_param("coverage", "a number in (0, 1)", coverage)
  if (!is.logical(calibrated) || length(calibrated) != 1L || is.na(calibrated))
    .bad_param("calibrated", "TRUE or FALSE", calibrated)
  scores <- NULL
  if (calibrated) {
    scores <- object[["interval_scores"]]
    if (is.null(scores) || (identical(object[["task"]], "survival") && is.null(object[["interval_weights"]])))
      stop(paste0("this forest has no interval calibration: its trees drew every row (none was out of bag), ",
                  "or it was read from a file (files keep no out-of-bag results). Call ",
                  "calibrate_intervals(fit, x_held_out, y_held_out), or pass calibrated = FALSE for the ",
                  "uncalibrated interval"), call. = FALSE)
  }
  out <- if (identical(object[["task"]], "survival")) {
    .Call(C_sporf_r_predict_survival_interval, .native(object), X, as.double(coverage), scores,
          if (is.null(scores)) NULL else object[["interval_weights"]], threads)
  } else {
    .Call(C_sporf_r_predict_interval, .native(object), X, as.double(coverage), scores, threads)
  }
  dimnames(out) <- list(rownames(X), c("lower", "upper"))
  out
}
