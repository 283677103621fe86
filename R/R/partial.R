# Partial dependence (Friedman 2001): the forest's mean prediction over the
# rows of `data` with one variable set to each value of a grid. Documented in
# man/partial_dependence.Rd; partialPlot.sporf is its plot for randomForest's
# generic.

partial_dependence <- function(object, data, var, which.class = NULL, n = 51L) {
  if (!inherits(object, "sporf") || identical(object[["task"]], "unsupervised"))
    stop("partial_dependence() needs a classification or regression forest", call. = FALSE)
  .refuse_outputs(object, "partial_dependence()")
  if (!is.data.frame(data) && !is.matrix(data)) stop("data must be a data frame or a matrix", call. = FALSE)
  columns <- colnames(data)
  if (is.numeric(var) && length(var) == 1L && var >= 1 && var <= ncol(data) && var == round(var)) {
    var <- if (is.null(columns)) as.integer(var) else columns[var]
  } else if (!(is.character(var) && length(var) == 1L && var %in% columns)) {
    stop(sprintf("var must name a column of data or give its number; got %s", deparse(var)), call. = FALSE)
  }
  if (!.is_whole(n) || n < 2) .bad_param("n", "a whole number >= 2", n)
  values <- data[, var]
  if (!is.numeric(values)) stop(sprintf("partial dependence needs a numeric variable; %s is not", var), call. = FALSE)
  u <- sort(unique(values[!is.na(values)]))
  grid <- if (length(u) <= n) u else unname(stats::quantile(values, seq(0, 1, length.out = n), na.rm = TRUE))
  classification <- identical(object[["task"]], "classification")
  if (classification) {
    if (is.null(which.class)) which.class <- object[["classes"]][1L]
    if (!(as.character(which.class) %in% object[["classes"]]))
      stop(sprintf("which.class must be one of the forest's classes: %s",
                   paste(object[["classes"]], collapse = ", ")), call. = FALSE)
  }
  mean_at <- function(v) {
    d <- data
    d[, var] <- v
    if (classification) mean(predict(object, d, type = "prob")[, as.character(which.class)])
    else mean(predict(object, d))
  }
  data.frame(x = grid, y = vapply(grid, mean_at, numeric(1)))
}

# The partial dependence drawn as a line, the data's deciles as a rug (for
# classification the probability of which.class; randomForest's partialPlot
# plots a logit of it). partialPlot.sporf serves randomForest's generic.
partial_plot <- function(object, data, var, which.class = NULL, n = 51L, plot = TRUE, add = FALSE, rug = TRUE,
                         xlab = NULL, ylab = NULL, main = NULL, ...) {
  pd <- partial_dependence(object, data, var, which.class = which.class, n = n)
  if (!plot) return(invisible(pd))
  name <- if (is.numeric(var) && !is.null(colnames(data))) colnames(data)[var] else as.character(var)
  if (is.null(xlab)) xlab <- name
  if (is.null(ylab)) ylab <- if (identical(object[["task"]], "classification")) "mean probability" else "mean prediction"
  if (is.null(main)) main <- paste("Partial dependence on", name)
  if (add) graphics::lines(pd$x, pd$y, ...)
  else graphics::plot(pd$x, pd$y, type = "l", xlab = xlab, ylab = ylab, main = main, ...)
  if (rug) graphics::rug(unique(stats::quantile(data[, var], seq(0.1, 0.9, by = 0.1), na.rm = TRUE)))
  invisible(pd)
}

partialPlot.sporf <- function(x, pred.data, x.var, which.class = NULL, ..., n.pt = 51L) {
  # randomForest's form names the column unquoted; a name that is not a
  # column is a variable holding the column's name or position
  expr <- substitute(x.var)
  var <- if (is.name(expr) && as.character(expr) %in% names(pred.data)) as.character(expr) else x.var
  partial_plot(x, pred.data, var, which.class = which.class, n = n.pt, ...)
}
