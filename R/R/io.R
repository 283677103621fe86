# Model files: the same bytes as Python's save()/sporf.load().

sporf_save <- function(object, file) {
  if (!inherits(object, "sporf")) stop("sporf_save() needs a sporf forest", call. = FALSE)
  if (!is.character(file) || length(file) != 1L || is.na(file))
    stop("file must be a single path", call. = FALSE)
  # Write next to the target and rename, so a failed write never leaves a
  # truncated model where a good one was.
  unstored <- .unstorable_terms(object)
  if (length(unstored))
    warning(sprintf(paste0("the model file does not store this forest's formula: %s %s not a variable name or an ",
                           "interaction of names (stored formulas must not run code when loaded); the loaded ",
                           "model predicts from the design matrix"),
                    paste(unstored, collapse = ", "), if (length(unstored) > 1L) "are" else "is"), call. = FALSE)
  if (!dir.exists(dirname(file)))
    stop(sprintf("cannot write %s: its folder %s does not exist", file, dirname(file)), call. = FALSE)
  tmp <- paste0(file, ".tmp-", Sys.getpid())
  ok <- FALSE
  on.exit(if (!ok) unlink(tmp), add = TRUE)
  # errors name the path the user gave, not the temporary file beside it
  cannot <- function(e) stop(sprintf("cannot write %s: %s", file, gsub(tmp, file, conditionMessage(e), fixed = TRUE)),
                             call. = FALSE)
  con <- tryCatch(file(tmp, "wb"), error = cannot, warning = cannot)
  tryCatch(writeBin(object[["model"]], con), error = cannot, finally = close(con))
  if (!file.rename(tmp, file)) stop(sprintf("could not write %s", file), call. = FALSE)
  ok <- TRUE
  invisible(file)
}

sporf_load <- function(file) {
  # a bad file's error says what is wrong with it, not which internal function found it
  from_bytes <- function(bytes, what) {
    tryCatch(.sporf_from_bytes(bytes),
             error = function(e) stop(sprintf("%s%s", what, conditionMessage(e)), call. = FALSE))
  }
  # the model's bytes themselves (fit$model, readBin), as Python's load() takes them
  if (is.raw(file)) return(from_bytes(file, ""))
  if (!is.character(file) || length(file) != 1L || is.na(file))
    stop("file must be a single path or the model's bytes (a raw vector)", call. = FALSE)
  if (!file.exists(file)) stop(sprintf("no such file: %s", file), call. = FALSE)
  size <- file.info(file)$size
  bytes <- readBin(file, "raw", n = size)
  from_bytes(bytes, sprintf("%s: ", file))
}

# A sporf object from model bytes written by either language.
.sporf_from_bytes <- function(bytes) {
  handle <- .Call(C_sporf_r_load, bytes)
  # Keep the bytes of the current model format (an older file is re-encoded),
  # as Python's to_bytes() does, so both languages hold the same bytes.
  bytes <- .Call(C_sporf_r_save, handle)
  info <- .Call(C_sporf_r_info, handle)
  cls <- .Call(C_sporf_r_get_strings, handle, .STR_CLASSES)
  fn <- .Call(C_sporf_r_get_strings, handle, .STR_FEATURE_NAMES)
  task <- c("classification", "regression", "unsupervised", "survival", "isolation")[info$task + 1]
  levels <- if (task != "classification") NULL
            else if (length(cls[[2L]])) .decode_labels(cls[[1L]], cls[[2L]])
            else as.character(seq_len(info$n_classes) - 1L)
  cp <- .Call(C_sporf_r_params, handle)
  est <- if (task == "unsupervised") "urerf" else if (task == "isolation") "isolation_forest" else if (cp$projection == match("patch", .SPEC_PARAMS$projection$values) - 1)
           "morf" else "sporf"
  cw <- .Call(C_sporf_r_class_weights, handle)
  if (!is.null(cw)) names(cw) <- levels
  args <- .params_from_core(cp, est, cw)
  args$oob_score <- FALSE
  args$verbose <- 0
  args$n_jobs <- NULL
  seed <- args$random_state
  obj <- .new_sporf(handle, bytes, levels = levels, label_kind = cls[[1L]],
             feature_names = if (length(fn[[2L]])) fn[[2L]] else NULL,
             n_features = info$n_features, n_samples = NA_integer_, args = args, seed = seed,
             max_features_resolved = .Call(C_sporf_r_check_params, cp, as.numeric(info$n_features)), task = task)
  obj$feature_levels <- .read_levels(handle, info$n_features)
  if (info$n_outputs > 1) { # the outputs' names are not in the file: y1, y2, ...
    widths <- .Call(C_sporf_r_outputs, handle)
    classes <- if (task == "classification") unname(split(levels, rep(seq_along(widths), widths)))
    obj <- .with_outputs(obj, paste0("y", seq_along(widths)), classes)
  }
  note <- .Call(C_sporf_r_get_note, handle)
  formula <- .formula_from_note(note)
  obj$formula_unstored <- .unstored_formula_labels(note)
  if (!is.null(formula)) {
    obj$terms <- formula$terms
    obj$xlevels <- formula$xlevels
    obj$contrasts <- formula$contrasts
  }
  if (task == "survival") obj <- .survival_fields(obj)
  if (est == "urerf") {
    class(obj) <- c("urerf", class(obj))
  } else if (est == "isolation_forest") {
    if (identical(cp$projection, match("patch", .SPEC_PARAMS$projection$values) - 1)) obj$data_dims <- args$data_dims
    obj <- .isolation_fields(obj, handle)
  } else if (est == "morf") {
    obj$data_dims <- args$data_dims
    class(obj) <- c("morf", class(obj))
  }
  obj
}
