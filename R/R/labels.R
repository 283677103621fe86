# Class labels and feature names as stored in a model: UTF-8 strings plus a
# kind tag, so R and Python each restore their own types (the same tags as
# python/sporf/_labels.py).
.KIND_TEXT <- 0L
.KIND_INTEGER <- 1L
.KIND_FLOAT <- 2L
.KIND_LOGICAL <- 3L
.STR_CLASSES <- 0L
.STR_FEATURE_NAMES <- 1L

# Levels that are whole numbers written canonically ("-3", "7", "10"), in
# increasing order: what factor() makes of integer codes.
.integer_levels <- function(levels) {
  if (!length(levels) || !all(grepl("^-?[0-9]{1,9}$", levels))) return(FALSE)
  v <- as.integer(levels)
  identical(as.character(v), levels) && !is.unsorted(v, strictly = TRUE)
}

# Encode a classification response: class k is the k-th level of a factor
# (unused levels dropped), or the k-th of the sorted distinct values otherwise
# -- the order Python's numpy.unique gives, so both languages number classes
# alike. Sorting uses the C locale (code point order), as Python does.
.encode_response <- function(y) {
  if (is.factor(y)) {
    y <- droplevels(y)
    levels <- levels(y)
    # factor(y) of integer class codes (an integer y grows a regression
    # forest, as in randomForest): stored as integer labels, as Python stores
    # its int classes, so the same codes give the same model bytes in both
    # languages and load in Python as ints.
    kind <- if (.integer_levels(levels)) .KIND_INTEGER else .KIND_TEXT
    labels <- levels
    codes <- as.integer(y) - 1L
  } else if (is.logical(y)) {
    values <- sort(unique(y))
    kind <- .KIND_LOGICAL
    labels <- ifelse(values, "TRUE", "FALSE")
    codes <- match(y, values) - 1L
    levels <- labels
  } else if (is.integer(y)) {
    values <- sort(unique(y))
    kind <- .KIND_INTEGER
    labels <- as.character(values)
    codes <- match(y, values) - 1L
    levels <- labels
  } else if (is.character(y)) {
    values <- sort(unique(y), method = "radix")
    kind <- .KIND_TEXT
    labels <- values
    codes <- match(y, values) - 1L
    levels <- values
  } else if (is.numeric(y)) {
    stop("y is a numeric (double) vector: sporf() grows a classification forest, so give the classes ",
         "as a factor, a character, an integer or a logical vector (e.g. factor(y) or as.integer(y))",
         call. = FALSE)
  } else {
    stop(sprintf("y must be a factor, a character, an integer or a logical vector; got an object of class '%s'",
                 paste(class(y), collapse = "/")), call. = FALSE)
  }
  list(codes = as.integer(codes), levels = levels, labels = labels, kind = kind)
}

# The R labels of classes stored with the given kind: levels as character.
.decode_labels <- function(kind, values) {
  if (kind == .KIND_FLOAT) {
    # Python writes repr(float): "1.0", "2.5"; show them as R prints numbers.
    return(as.character(as.numeric(values)))
  }
  values
}
