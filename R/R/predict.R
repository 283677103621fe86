# Prediction, leaves, importances and out-of-bag results of a sporf forest.

predict.sporf <- function(object, newdata, type = c("class", "prob", "leaf"), n_jobs = NULL, ...) {
  type <- match.arg(type)
  if (length(list(...)))
    stop(sprintf("unknown argument%s to predict(): %s", if (length(list(...)) > 1L) "s" else "",
                 paste(names(list(...)), collapse = ", ")), call. = FALSE)
  if (missing(newdata) || is.null(newdata)) {
    if (is.null(object$oob_decision_function))
      stop("newdata is required: this forest has no out-of-bag predictions (fit with oob_score = TRUE)",
           call. = FALSE)
    if (type == "leaf") stop("type = \"leaf\" needs newdata", call. = FALSE)
    return(if (type == "prob") object$oob_decision_function else object$oob_predictions)
  }
  X <- .newdata_matrix(object, newdata)
  threads <- .resolve_n_jobs(if (is.null(n_jobs)) object$n_jobs else n_jobs)
  handle <- .native(object)
  if (type == "leaf") {
    leaves <- .Call(C_sporf_r_apply, handle, X, threads)
    rownames(leaves) <- rownames(X)
    return(leaves)
  }
  K <- length(object$classes)
  proba <- matrix(.Call(C_sporf_r_predict_proba, handle, X, threads), nrow = nrow(X), ncol = K, byrow = TRUE,
                  dimnames = list(rownames(X), object$classes))
  if (type == "prob") return(proba)
  factor(object$classes[max.col(proba, ties.method = "first")], levels = object$classes)
}

# newdata as the double matrix the forest was trained on: through the
# formula's terms when fitted with a formula; columns matched by name when the
# forest knows its feature names; checked for shape and values.
.newdata_matrix <- function(object, newdata) {
  if (!is.null(object$terms)) {
    if (!is.data.frame(newdata)) newdata <- as.data.frame(newdata)
    tt <- stats::delete.response(object$terms)
    missing_vars <- setdiff(all.vars(tt), names(newdata))
    if (length(missing_vars))
      stop(sprintf("newdata lacks variable%s used by the formula: %s", if (length(missing_vars) > 1L) "s" else "",
                   paste(missing_vars, collapse = ", ")), call. = FALSE)
    mf <- stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = object$xlevels)
    X <- stats::model.matrix(tt, mf, contrasts.arg = object$contrasts)
    X <- X[, colnames(X) != "(Intercept)", drop = FALSE]
    attr(X, "assign") <- NULL
    attr(X, "contrasts") <- NULL
    return(.as_feature_matrix(X, "newdata"))
  }
  X <- .as_feature_matrix(newdata, "newdata")
  names_fit <- object$feature_names
  if (!is.null(names_fit) && !is.null(colnames(X))) {
    absent <- setdiff(names_fit, colnames(X))
    if (length(absent))
      stop(sprintf("newdata lacks column%s the forest was trained on: %s", if (length(absent) > 1L) "s" else "",
                   paste(utils::head(absent, 10L), collapse = ", ")), call. = FALSE)
    if (!identical(colnames(X), names_fit)) X <- X[, names_fit, drop = FALSE]
  } else if (ncol(X) != object$n_features) {
    stop(sprintf("newdata has %d columns but the forest was trained on %d features", ncol(X), object$n_features),
         call. = FALSE)
  }
  X
}

importance <- function(x, ...) UseMethod("importance")

importance.sporf <- function(x, kind = c("impurity", "usage"), ...) {
  kind <- match.arg(kind)
  imp <- .Call(if (kind == "impurity") C_sporf_r_importances else C_sporf_r_usage, .native(x))
  names(imp) <- if (is.null(x$feature_names)) paste0("x", seq_along(imp)) else x$feature_names
  imp
}

oob_error <- function(object) {
  if (!inherits(object, "sporf")) stop("oob_error() needs a sporf forest", call. = FALSE)
  if (is.null(object$oob_error))
    stop("this forest has no out-of-bag estimate (fit with oob_score = TRUE)", call. = FALSE)
  object$oob_error
}
