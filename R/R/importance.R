# Feature importances of a fitted forest: impurity, usage and out-of-bag
# permutation (importance()), randomForest's matrix, and the importance of
# each learned projection. Documented in man/importance.Rd and
# man/projection_importances.Rd.

importance <- function(x, ...) UseMethod("importance")

# kind, or type: "impurity", "usage", or "permutation" -- the out-of-bag
# permutation importance of a forest fitted with importance = "permutation",
# with its standard deviation over trees as attribute "sd" (Python's
# permutation_importances_ and _std_). randomForest's numeric type (1: the
# permutation importance, 2: the impurity importance) returns its one-column
# matrix instead, type 1 divided by its standard error when scale is TRUE.
importance.sporf <- function(x, kind = c("impurity", "usage", "permutation"), type = NULL, scale = TRUE, ...) {
  if (!is.null(type)) {
    kinds <- c("1" = "permutation", "2" = "impurity", permutation = "permutation", impurity = "impurity",
               usage = "usage")
    if (length(type) != 1L || is.na(kinds[as.character(type)]))
      .bad_param("type", "1 or 2 (randomForest's), \"permutation\", \"impurity\" or \"usage\"", type)
    if (is.numeric(type)) return(.randomforest_importance(x, kinds[[as.character(type)]], scale))
    kind <- kinds[[as.character(type)]]
  }
  kind <- match.arg(kind)
  if (kind == "permutation") {
    if (is.null(x[["permutation_importance"]]))
      stop("this forest has no permutation importance: fit it with importance = \"permutation\"", call. = FALSE)
    return(structure(x[["permutation_importance"]], sd = x[["permutation_importance_sd"]]))
  }
  imp <- .Call(if (kind == "impurity") C_sporf_r_importances else C_sporf_r_usage, .native(x))
  names(imp) <- if (is.null(x[["feature_names"]])) paste0("x", seq_along(imp)) else x[["feature_names"]]
  imp
}

# randomForest's importance matrix: one column, named as randomForest names it
# for classification (MeanDecreaseAccuracy, MeanDecreaseGini); for regression
# the permutation column is the R^2 lost (MeanDecreaseRsq: not %IncMSE's
# unit) and the impurity one IncNodePurity (shares that sum to 1).
.randomforest_importance <- function(x, kind, scale) {
  regression <- identical(x[["task"]], "regression")
  v <- importance(x, kind = kind)
  if (kind == "permutation" && isTRUE(scale)) {
    se <- attr(v, "sd") / sqrt(.Call(C_sporf_r_info, .native(x))$n_trees)
    v <- ifelse(se > 0, v / se, 0)
  }
  column <- if (kind == "permutation") (if (regression) "MeanDecreaseRsq" else "MeanDecreaseAccuracy")
            else (if (regression) "IncNodePurity" else "MeanDecreaseGini")
  matrix(as.vector(v), ncol = 1L, dimnames = list(names(importance(x, kind = kind)), column))
}

# Impurity decrease per distinct split projection (SPORF paper, section 4.5),
# as Python's projection_importances(): most important first; features are
# column numbers (1-based), weights have the first one positive.
projection_importances <- function(object, top = NULL) {
  if (!inherits(object, "sporf")) stop("projection_importances() needs a sporf or morf forest", call. = FALSE)
  if (!is.null(top) && (!.is_whole(top) || top < 1)) .bad_param("top", "NULL or a whole number >= 1", top)
  r <- .Call(C_sporf_r_projection_importances, .native(object))
  n <- length(r[[4L]])
  m <- if (is.null(top)) n else min(n, top)
  idx <- seq_len(m)
  spans <- lapply(idx, function(i) if (r[[1L]][i + 1L] > r[[1L]][i]) seq(r[[1L]][i] + 1, r[[1L]][i + 1L]) else integer(0))
  out <- data.frame(importance = r[[4L]][idx])
  out$features <- lapply(spans, function(s) r[[2L]][s] + 1L)
  out$weights <- lapply(spans, function(s) r[[3L]][s])
  nm <- object[["feature_names"]]
  out$names <- vapply(out$features, function(f) paste(if (is.null(nm)) paste0("x", f) else nm[f], collapse = " + "),
                      character(1))
  out[, c("features", "weights", "importance", "names")]
}
