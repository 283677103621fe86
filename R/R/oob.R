# The out-of-bag error of a fitted forest. Documented in man/oob_error.Rd.

oob_error <- function(object) {
  if (!inherits(object, "sporf")) stop("oob_error() needs a sporf forest", call. = FALSE)
  if (is.null(object[["oob_error"]]))
    stop("this forest has no out-of-bag estimate (fit with oob_score = TRUE)", call. = FALSE)
  object[["oob_error"]]
}
