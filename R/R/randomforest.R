# randomForest's getTree() and varImpPlot() for sporf forests, under their
# names, so code written for randomForest runs; any other object goes to
# randomForest's own functions (when that package is installed), so
# attaching sporf after randomForest changes nothing for randomForest's
# forests. Documented in man/randomforest_aliases.Rd.

getTree <- function(rfobj, k = 1, ...) {
  if (inherits(rfobj, "sporf")) {
    if (length(list(...)))
      stop("getTree() of a sporf forest takes the forest and k: its nodes come from get_tree(fit, k)", call. = FALSE)
    return(get_tree(rfobj, k))
  }
  .randomforest_function("getTree")(rfobj, k, ...)
}

varImpPlot <- function(x, ...) {
  if (inherits(x, "sporf")) return(plot_importance(x, ...))
  .randomforest_function("varImpPlot")(x, ...)
}

.randomforest_function <- function(name) {
  if (!requireNamespace("randomForest", quietly = TRUE))
    stop(sprintf("%s() is randomForest's for its forests, and randomForest is not installed; for a sporf forest it is %s",
                 name, if (name == "getTree") "get_tree(fit, k)" else "plot_importance(fit)"), call. = FALSE)
  getExportedValue("randomForest", name)
}
