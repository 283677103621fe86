# Survival forests: sporf(x, y) with y a right-censored survival::Surv
# object (or sporf(Surv(time, status) ~ ., data)); risk, survival and
# cumulative hazard predictions, the restricted mean, Harrell's C. The
# survival package is only needed to build the Surv object: its class and
# columns are read here as they are.

.is_survival <- function(y) inherits(y, "Surv")

# (time, status) of a Surv object: right-censored only, status 0/1 (Surv()
# has already mapped 1/2 and logical status to it), no NA.
.survival_response <- function(y, n) {
  type <- attr(y, "type")
  if (!identical(type, "right"))
    stop(sprintf("a survival forest takes right-censored times: Surv(time, status); got a Surv object of type \"%s\"",
                 paste(type, collapse = "")), call. = FALSE)
  if (nrow(y) != n) stop(sprintf("y has %d rows but x has %d", nrow(y), n), call. = FALSE)
  time <- as.double(y[, 1L])
  status <- y[, 2L]
  if (anyNA(time) || anyNA(status))
    stop(sprintf("y contains %d missing value(s) (NA)%s", sum(is.na(time) | is.na(status)),
                 if (anyNA(status) && !all(is.na(status)))
                   paste0(" in its status: Surv() reads a status of 0/1, 1/2 (2: the event) or TRUE/FALSE, and",
                          " turns other codes into NA -- a status of 0/1/2 (pbc's: censored, transplant, death)",
                          " among them; choose the event, e.g. Surv(time, status == 2)") else ""),
         call. = FALSE)
  list(time = time, status = as.integer(status))
}

# Each row's martingale residual under one Nelson-Aalen hazard for all rows:
# what orders a categorical feature's levels (as Python's null_residuals).
.null_residuals <- function(time, status) {
  uniq <- sort(unique(time))
  at_risk <- vapply(uniq, function(t) sum(time >= t), numeric(1))
  deaths <- vapply(uniq, function(t) sum(status[time == t]), numeric(1))
  status - cumsum(deaths / at_risk)[match(time, uniq)]
}

# grid: a patch forest's grid (morf()), or NULL.
.fit_survival <- function(X, y, args, sample_weight, est, levels, grid = NULL) {
  n <- nrow(X)
  resp <- .survival_response(y, n)
  params <- .build_params(args, ncol(X), est, "survival", grid)
  sw <- .check_sample_weight(sample_weight, n)
  by_feature <- NULL
  if (!is.null(levels)) {
    tp <- .to_positions(X, levels, list(codes = .null_residuals(resp$time, resp$status), K = 1L), sw)
    X <- tp$X
    by_feature <- tp$by_feature
  }
  target <- list(resp$time, resp$status)
  res <- .Call(C_sporf_r_fit, X, target, 1L, NULL, params, sw, NULL, args$oob_score, as.integer(args$verbose), 0L)
  obj <- .fitted(res, X, args, params, est, NULL, by_feature, "survival")
  obj <- .survival_fields(obj)
  handle <- res[[1L]]
  if (isTRUE(args$oob_score)) {
    counts <- res[[3L]]
    if (any(counts == 0))
      warning("some samples have no out-of-bag predictions (too few trees for reliable OOB estimates)",
              call. = FALSE)
    risk <- res[[2L]]
    obj$oob_score <- .Call(C_sporf_r_concordance, resp$time, resp$status, risk)
    risk[counts == 0] <- NA
    obj$oob_predictions <- risk
    obj$predicted <- risk
    # 1 - Harrell's C of the first 1, 2, ... trees' out-of-bag risks, which plot(fit) draws
    obj$oob_error_curve <- .Call(C_sporf_r_oob_curve, handle, X,
                                 list(as.double(resp$time), as.integer(resp$status)))[, 1L]
  }
  if (identical(args$importance, "permutation")) {
    pim <- .Call(C_sporf_r_permutation_importance, handle, X, target, .resolve_n_jobs(args$n_jobs),
                 as.integer(args$verbose))
    if (isTRUE(pim[[3L]]))
      stop(structure(class = c("sporf_interrupt", "interrupt", "error", "condition"),
                     list(message = "sporf: the permutation importance was interrupted (Ctrl-C); no forest was returned",
                          call = NULL)))
    nm <- if (is.null(colnames(X))) paste0("x", seq_len(ncol(X))) else colnames(X)
    obj$permutation_importance <- stats::setNames(pim[[1L]], nm)
    obj$permutation_importance_sd <- stats::setNames(pim[[2L]], nm)
  }
  .attach_interval_scores(obj, X, resp)
}

# The training times a survival forest keeps: unique_times (ascending),
# is_event_time and event_times, as Python's unique_times_ and the rest.
.survival_fields <- function(obj) {
  ut <- .Call(C_sporf_r_unique_times, .native(obj))
  obj$unique_times <- ut[[1L]]
  obj$is_event_time <- ut[[2L]]
  obj$event_times <- ut[[1L]][ut[[2L]]]
  obj
}

# predict() of a survival forest: type "risk" (the default), "survival",
# "chf" (n x times matrices) or "leaf"; oob = TRUE on the training data.
.predict_survival <- function(object, newdata, type, times, n_jobs, oob, types = c("risk", "survival", "chf", "leaf", "interval"),
                              coverage = 0.9, calibrated = TRUE) {
  if (is.null(type)) type <- "risk"
  if (identical(type, "response")) type <- "risk"
  if (!is.character(type) || length(type) != 1L || !(type %in% types))
    stop(sprintf("type must be one of %s for a survival forest", paste0("\"", types, "\"", collapse = ", ")),
         call. = FALSE)
  if (!is.logical(oob) || length(oob) != 1L || is.na(oob)) .bad_param("oob", "TRUE or FALSE", oob)
  if (!is.null(times) && !(type %in% c("survival", "chf", "rmst")))
    stop("times are for type = \"survival\" or \"chf\"", call. = FALSE)
  if (missing(newdata) || is.null(newdata)) {
    if (type != "risk" || is.null(object[["oob_predictions"]]))
      stop(sprintf("newdata is required%s", if (type == "risk") " (or fit with oob_score = TRUE)" else
                     " (with oob = TRUE, the training data)"), call. = FALSE)
    return(object[["oob_predictions"]])
  }
  X <- .newdata_matrix(object, newdata)
  threads <- .resolve_n_jobs(if (is.null(n_jobs)) object[["n_jobs"]] else n_jobs)
  handle <- .native(object)
  if (oob) .check_oob_rows(object, X)
  if (type == "interval") {
    if (oob) stop("oob = TRUE is for types \"risk\", \"survival\" and \"chf\"", call. = FALSE)
    return(.predict_interval(object, X, coverage, calibrated, threads))
  }
  if (type == "leaf") {
    if (oob) stop("oob = TRUE is for types \"risk\", \"survival\" and \"chf\"", call. = FALSE)
    leaves <- .Call(C_sporf_r_apply, handle, X, threads)
    rownames(leaves) <- rownames(X)
    return(leaves)
  }
  if (type == "risk") {
    values <- if (oob) {
      .Call(C_sporf_r_oob_predict, handle, X, threads)[[1L]]
    } else {
      .Call(C_sporf_r_predict_proba, handle, X, threads)
    }
    names(values) <- rownames(X)
    return(values)
  }
  if (is.null(times)) times <- object[["unique_times"]]
  if (!is.numeric(times) || length(times) < 1L || anyNA(times) || any(!is.finite(times)))
    .bad_param("times", "finite numbers", times)
  out <- .Call(C_sporf_r_survival, handle, X, as.double(times), match(type, c("survival", "chf", "rmst")) - 1L,
               threads, oob)
  dimnames(out) <- list(rownames(X), format(times, trim = TRUE))
  out
}

# Restricted mean survival time: the area under each row's survival curve
# from 0 to horizon (Python's predict_restricted_mean).
restricted_mean <- function(object, newdata, horizon, oob = FALSE, n_jobs = NULL) {
  if (!inherits(object, "sporf") || !identical(object[["task"]], "survival"))
    stop("restricted_mean() needs a survival forest: sporf(x, Surv(time, status))", call. = FALSE)
  if (!is.numeric(horizon) || length(horizon) != 1L || !is.finite(horizon) || horizon <= 0)
    .bad_param("horizon", "a finite time > 0", horizon)
  out <- .predict_survival(object, newdata, "rmst", horizon, n_jobs, oob, types = "rmst")
  stats::setNames(out[, 1L], rownames(out))
}

# Harrell's C of risk scores against right-censored times (Python's
# sporf.concordance_index): y a Surv object, or time with status.
concordance_index <- function(y, risk, status = NULL) {
  if (.is_survival(y)) {
    resp <- .survival_response(y, nrow(y))
  } else {
    if (is.null(status)) stop("give y as Surv(time, status), or the times with status =", call. = FALSE)
    if (!is.numeric(y) || length(status) != length(y))
      stop("the times must be numbers, one per status", call. = FALSE)
    resp <- list(time = as.double(y), status = as.integer(status))
  }
  if (!is.numeric(risk) || length(risk) != length(resp$time))
    stop(sprintf("risk must be %d numbers, one per row", length(resp$time)), call. = FALSE)
  if (anyNA(resp$status) || any(!(resp$status %in% c(0L, 1L))))
    stop("status must be 0/1 (or TRUE/FALSE): 1 where the event was observed", call. = FALSE)
  .Call(C_sporf_r_concordance, resp$time, resp$status, as.double(risk))
}

# plot() of a survival forest: the survival curves of newdata's rows.
.plot_survival <- function(x, newdata, times = NULL, ...) {
  if (missing(newdata) || is.null(newdata)) {
    # randomForestSRC's plot(fit): the out-of-bag error as trees are added
    curve <- x[["oob_error_curve"]]
    if (is.null(curve))
      stop("plot() of a survival forest draws its out-of-bag error (1 - Harrell's C) against the number of ",
           "trees, for a forest fitted with oob_score = TRUE, or the survival curves of newdata's rows: ",
           "plot(fit, newdata)", call. = FALSE)
    graphics::plot(seq_along(curve), curve, type = "l", xlab = "trees",
                   ylab = "out-of-bag error (1 - Harrell's C)", ...)
    return(invisible(curve))
  }
  if (is.null(times)) times <- x[["unique_times"]]
  S <- .predict_survival(x, newdata, "survival", times, NULL, FALSE)
  graphics::matplot(times, t(S), type = "s", lty = 1, col = seq_len(nrow(S)), ylim = c(0, 1), xlab = "time",
                    ylab = "survival", main = "Survival curves", ...)
  # which curve is which row: newdata's row names, else its row numbers (at most 12 in the legend)
  rows <- if (!is.null(rownames(S))) rownames(S) else as.character(seq_len(nrow(S)))
  shown <- seq_len(min(nrow(S), 12L))
  graphics::legend("topright", legend = c(rows[shown], if (nrow(S) > 12L) sprintf("... (%d rows)", nrow(S))),
                   col = c(shown, if (nrow(S) > 12L) NA), lty = c(rep(1, length(shown)), if (nrow(S) > 12L) NA),
                   bty = "n", cex = 0.8, title = "row")
  invisible(S)
}
