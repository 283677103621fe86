# merge_forests(): join forests grown as shards of one fit (first_tree).
# Documented in man/merge_forests.Rd.

merge_forests <- function(...) {
  forests <- list(...)
  # merge_forests(list_of_forests) as well as merge_forests(a, b, c)
  if (length(forests) == 1L && is.list(forests[[1L]]) && !inherits(forests[[1L]], "sporf"))
    forests <- forests[[1L]]
  if (length(forests) == 0L) stop("merge_forests() needs at least one forest", call. = FALSE)
  ok <- vapply(forests, inherits, logical(1), what = "sporf")
  if (!all(ok))
    stop(sprintf("merge_forests() takes sporf forests; item %d is a %s", which(!ok)[1L],
                 class(forests[[which(!ok)[1L]]])[1L]), call. = FALSE)
  kinds <- vapply(forests, function(f) class(f)[1L], character(1))
  if (any(kinds != kinds[1L]))
    stop(sprintf("merge_forests(): item %d is a %s forest, item 1 a %s forest; shards of one forest are of one kind",
                 which(kinds != kinds[1L])[1L], kinds[which(kinds != kinds[1L])[1L]], kinds[1L]), call. = FALSE)
  handle <- .Call(C_sporf_r_merge, lapply(forests, .native))
  merged <- .sporf_from_bytes(.Call(C_sporf_r_save, handle))
  # shards that left the leaf size to the merge: the size it chose, every size's score
  leaf <- .Call(C_sporf_r_leaf_choice, handle)
  if (!is.null(leaf) && !any(is.nan(leaf[[2L]]))) merged[.LEAF_CHOICE_FIELDS] <- leaf
  kinds <- .Call(C_sporf_r_kind_choice, handle)
  if (!is.null(kinds) && !any(is.nan(kinds[[2L]]))) merged[.KIND_CHOICE_FIELDS] <- kinds
  # the outputs' names, which the model file does not hold
  if (isTRUE(merged[["n_outputs"]] > 1L) && !is.null(forests[[1L]][["outputs"]]))
    merged <- .with_outputs(merged, forests[[1L]][["outputs"]],
                            if (is.list(merged[["classes"]])) unname(merged[["classes"]]))
  # A merged urerf keeps the training rows when every shard holds the same.
  if (inherits(merged, "urerf")) {
    x <- forests[[1L]][["x"]]
    if (!is.null(x) && all(vapply(forests, function(f) identical(f[["x"]], x), logical(1)))) {
      merged$x <- x
      merged$n_samples <- nrow(x)
      merged$n_neighbors <- forests[[1L]][["n_neighbors"]]
    }
  }
  merged$call <- match.call()
  merged
}
