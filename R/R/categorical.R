# Categorical features: factor columns of a data frame, and the columns
# categorical_features names, reach the core as their levels' positions in
# an order the core learns from the response (sporf_order_levels: ranger's
# respect.unordered.factors = "order"). As Python's _categorical.py, so an R
# factor and a pandas category column with the same levels give the same
# forest.

# A numeric level's name: the text Python writes too ("%.17g").
.number_names <- function(v) sprintf("%.17g", v)

# The categorical columns of x (indices): a data frame's factors and the
# columns categorical_features names (1-based indices or names). Character
# columns are refused, naming them.
.categorical_columns <- function(x, categorical_features) {
  found <- integer(0)
  nm <- colnames(x)
  if (is.data.frame(x)) {
    text <- vapply(x, is.character, logical(1))
    if (any(text))
      stop(sprintf("column%s %s hold%s text: a categorical feature must be a factor (x$%s <- factor(x$%s)) or named in categorical_features as level codes",
                   if (sum(text) > 1L) "s" else "", paste(names(x)[text], collapse = ", "),
                   if (sum(text) > 1L) "" else "s", names(x)[text][1L], names(x)[text][1L]), call. = FALSE)
    found <- which(vapply(x, is.factor, logical(1)))
  }
  if (!is.null(categorical_features)) {
    cf <- categorical_features
    if (is.character(cf)) {
      unknown <- setdiff(cf, nm)
      if (length(unknown))
        stop(sprintf("categorical_features names %s, not a column of x%s", paste(unknown, collapse = ", "),
                     if (is.null(nm)) " (x has no column names)" else ""), call. = FALSE)
      found <- c(found, match(cf, nm))
    } else if (is.numeric(cf) && all(!is.na(cf)) && all(cf == round(cf)) && all(cf >= 1 & cf <= ncol(x))) {
      found <- c(found, as.integer(cf))
    } else {
      .bad_param("categorical_features", sprintf("column indices in [1, %d] or column names", ncol(x)), cf)
    }
  }
  sort(unique(as.integer(found)))
}

# list(x: x with each categorical column as its 0-based level codes (NA
# missing), levels: the level names by column (NULL when none is categorical)).
# .split_levels of x and the fit's arguments' categorical_features.
.split_levels_of <- function(x, args) .split_levels(x, args$categorical_features)

.split_levels <- function(x, categorical_features) {
  if (!is.data.frame(x) && is.null(categorical_features)) return(list(x = x, levels = NULL))
  cols <- .categorical_columns(x, categorical_features)
  if (!length(cols)) return(list(x = x, levels = NULL))
  if (!is.data.frame(x)) {  # a matrix stays one (a data frame would invent column names)
    x <- as.matrix(x)
    storage.mode(x) <- "double"
  }
  levels <- vector("list", ncol(x))
  for (j in cols) {
    col <- if (is.data.frame(x)) x[[j]] else x[, j]
    if (is.factor(col)) {
      levels[[j]] <- levels(col)
      x[[j]] <- as.double(as.integer(col) - 1L) # a factor: only in a data frame
    } else {
      v <- as.double(col)
      if (any(is.infinite(v))) stop("a categorical feature's level codes must be finite (NA: missing)", call. = FALSE)
      u <- sort(unique(v[!is.na(v)]))
      levels[[j]] <- .number_names(u)
      if (is.data.frame(x)) x[[j]] <- as.double(match(v, u) - 1L) else x[, j] <- as.double(match(v, u) - 1L)
    }
  }
  list(x = x, levels = levels)
}

# X (the fit's double matrix) with each categorical column's codes replaced
# by its levels' positions, and the level names by feature in position order
# (NULL for a numeric feature): list(X, by_feature).
.to_positions <- function(X, levels, y, sw) {
  by_feature <- vector("list", ncol(X))
  for (j in which(!vapply(levels, is.null, logical(1)))) {
    codes <- X[, j]
    codes[is.na(codes)] <- NaN
    pos <- .Call(C_sporf_r_order_levels, as.double(codes), length(levels[[j]]), y$codes, y$K, sw)
    X[, j] <- pos[codes + 1]
    seen <- !is.na(pos)
    names_in_order <- character(sum(seen))
    names_in_order[pos[seen] + 1] <- levels[[j]][seen]
    by_feature[j] <- list(names_in_order)
  }
  list(X = X, by_feature = by_feature)
}

.store_levels <- function(handle, by_feature) {
  counts <- vapply(by_feature, function(v) if (is.null(v)) 0L else length(v), integer(1))
  .Call(C_sporf_r_set_levels, handle, counts, as.character(unlist(by_feature)))
}

# The level names by feature a model keeps (NULL: no categorical feature).
.read_levels <- function(handle, n_features) {
  got <- .Call(C_sporf_r_get_levels, handle)
  if (is.null(got)) return(NULL)
  out <- vector("list", n_features)
  ends <- cumsum(got[[1L]])
  for (j in which(got[[1L]] > 0L)) out[j] <- list(got[[2L]][(ends[j] - got[[1L]][j] + 1L):ends[j]])
  out
}

# newdata with each categorical feature as its levels' positions, matched by
# name (a level the training data did not have is NA: missing).
.encode_for_predict <- function(newdata, by_feature, feature_names) {
  frame <- is.data.frame(newdata)
  if (!frame && !is.matrix(newdata)) return(newdata)
  for (j in which(!vapply(by_feature, is.null, logical(1)))) {
    key <- if (!is.null(feature_names) && (frame || !is.null(colnames(newdata)))) feature_names[j] else j
    if (is.character(key) && !(key %in% colnames(newdata))) next # the shape check names it
    if (is.numeric(key) && key > ncol(newdata)) next
    col <- if (frame) newdata[[key]] else newdata[, key]
    text <- if (is.factor(col) || is.character(col)) as.character(col) else .number_names(as.double(col))
    pos <- match(text, by_feature[[j]]) - 1
    pos[is.na(col)] <- NA
    if (frame) newdata[[key]] <- as.double(pos) else newdata[, key] <- as.double(pos)
  }
  newdata
}
