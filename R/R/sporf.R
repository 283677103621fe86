# sporf(): fit a forest from a matrix/data frame and a response, or from a
# formula. Documented in man/sporf.Rd.

sporf <- function(x, ...) UseMethod("sporf")

# sporf.default() is generated (api_gen.R, from spec/params.toml): its arguments
# are the parameters in the spec's order; it hands its environment here.
.fit_sporf <- function(env, call) {
  .no_unknown_args(eval(quote(list(...)), env))
  if (eval(quote(missing(y)), env))
    stop("y is missing: use sporf(x, y, ...) or sporf(formula, data, ...)", call. = FALSE)
  args <- .forest_args("sporf", env)
  # factor columns and categorical_features: level codes, ordered in .fit (categorical.R)
  split <- .split_levels_of(env$x, args)
  X <- .as_feature_matrix(split$x, "x")
  obj <- .fit(X, env$y, args, env$sample_weight, "sporf", levels = split$levels)
  obj$call <- .generic_call(call, "sporf")
  obj
}

sporf.formula <- function(formula, data = NULL, ..., subset, na.action = stats::na.fail) {
  # Without data the variables come from the formula's environment, as in lm().
  mf <- match.call(expand.dots = FALSE)
  keep <- match(c("formula", "data", "subset"), names(mf), 0L)
  mf <- mf[c(1L, keep)]
  # Always this function's na.action (na.fail unless the user says otherwise,
  # as in randomForest), never getOption("na.action"), which would drop rows
  # silently. na.pass hands NA in the predictors to the forest, which learns
  # where missing values go; NA in the response is an error in .fit.
  mf$na.action <- na.action
  mf$drop.unused.levels <- TRUE
  mf[[1L]] <- quote(stats::model.frame)
  mf <- eval(mf, parent.frame())
  terms <- attr(mf, "terms")
  if (attr(terms, "response") == 0L) stop("the formula has no response (left-hand side)", call. = FALSE)
  y <- stats::model.response(mf)
  y <- .cbind_classes(formula, data, mf, y)
  # Terms that are the model frame's own columns (variables, or transformed
  # ones such as log(x)) with a factor among them: the factors are categorical
  # features (categorical.R); interactions and the like go through model.matrix().
  labels <- attr(terms, "term.labels")
  # a text column: as the x/y form (and Python) refuse it, rather than
  # model.matrix()'s dummies -- one rule for categorical features everywhere
  .categorical_columns(mf[-1L], NULL)
  native <- length(labels) > 0L && all(labels %in% names(mf)) && any(vapply(mf[labels], is.factor, logical(1)))
  X <- if (native) mf[labels] else .formula_matrix(terms, mf)
  obj <- sporf.default(X, y, ...)
  obj$terms <- terms
  obj$xlevels <- stats::.getXlevels(terms, mf)
  obj$contrasts <- attr(X, "contrasts")
  # the formula travels with the model file (formula_note.R)
  note <- .formula_note(terms, obj[["xlevels"]], obj[["contrasts"]])
  if (is.null(note)) note <- .unstored_formula_note(terms)
  .Call(C_sporf_r_set_note, .native(obj), note)
  obj$model <- .Call(C_sporf_r_save, .native(obj))
  obj$call <- .generic_call(match.call(), "sporf")
  obj
}

# cbind(a, b) ~ ... makes a matrix of its columns, which turns factors into
# their integer codes: a response of classes would grow a regression forest.
# When any of the columns holds classes (factor, character, logical), the
# response is their data frame instead, the rows of the model frame (as the
# x/y form's data-frame y), so the outputs keep their classes.
.cbind_classes <- function(formula, data, mf, y) {
  lhs <- formula[[2L]]
  if (length(formula) != 3L || !is.call(lhs) || !identical(lhs[[1L]], as.name("cbind")) || !is.matrix(y))
    return(y)
  env <- environment(formula)
  cols <- lapply(as.list(lhs)[-1L], function(e) eval(e, if (is.null(data)) env else data, env))
  classes <- vapply(cols, function(v) is.factor(v) || is.character(v) || is.logical(v), logical(1))
  if (!any(classes)) return(y)
  rows <- if (is.null(data)) as.integer(rownames(mf)) else match(rownames(mf), rownames(data))
  if (anyNA(rows) || any(lengths(cols) != lengths(cols)[1L]) || max(rows) > lengths(cols)[1L])
    stop("cbind() in the response turns classes into numbers: give the outputs as a data frame, ",
         "sporf(x, data.frame(y1, y2))", call. = FALSE)
  out <- as.data.frame(lapply(cols, function(v) v[rows]), stringsAsFactors = TRUE)
  names(out) <- colnames(y)
  rownames(out) <- rownames(mf)
  out
}

# The call as the user could have typed it: the exported generic, not the
# unexported S3 method match.call() names, so update() and eval(fit$call)
# refit (as for lm and randomForest).
.generic_call <- function(call, generic) {
  call[[1L]] <- as.name(generic)
  call
}

# Design matrix of a model frame without the intercept: numeric columns as
# they are, factors expanded by their contrasts (treatment coding by default).
.formula_matrix <- function(terms, mf) {
  # model.matrix() rebuilds the frame with getOption("na.action"): keep the
  # rows with NA (a factor's NA becomes NA in each of its columns).
  op <- options(na.action = "na.pass")
  on.exit(options(op))
  X <- stats::model.matrix(terms, mf)
  keep <- colnames(X) != "(Intercept)"
  out <- X[, keep, drop = FALSE]
  attr(out, "contrasts") <- attr(X, "contrasts")
  attr(out, "assign") <- NULL
  out
}

# The forest parameters a fitting function was called with (every argument
# the spec lists for it but the sample weights), as a named list for .fit.
.forest_args <- function(est, env) {
  mget(setdiff(.SPEC_ESTIMATORS[[est]]$params, "sample_weight"), envir = env)
}

.no_unknown_args <- function(dots) {
  if (length(dots) == 0L) return(invisible())
  nm <- names(dots)
  if (is.null(nm) || any(nm == "")) stop("sporf() takes its parameters by name; got unnamed extra arguments",
                                         call. = FALSE)
  stop(sprintf("unknown parameter%s: %s", if (length(nm) > 1L) "s" else "",
               paste(vapply(nm, .unknown_parameter_hint, ""), collapse = ", ")),
       call. = FALSE)
}

# An unknown parameter with the sporf name to use: another library's name
# (the spec's peer_names), else the closest sporf parameter.
.unknown_parameter_hint <- function(name) {
  known <- names(.SPEC_PARAMS)
  hint <- .SPEC_PEER_NAMES[[name]]
  if (is.null(hint)) {
    d <- utils::adist(name, known, ignore.case = TRUE)[1L, ]
    if (min(d) <= max(2, nchar(name) %/% 3)) hint <- known[which.min(d)]
  }
  if (is.null(hint)) name else sprintf("%s (did you mean %s?)", name, hint)
}

# A double matrix of features from a matrix or data frame, with clear errors
# for what the forest cannot take.
.as_feature_matrix <- function(x, what = "x") {
  if (is.data.frame(x)) {
    ok <- vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (!all(ok))
      stop(sprintf("%s has non-numeric column%s: %s; this forest needs numeric features (sporf() reads factors as categorical features; otherwise encode them, e.g. with model.matrix())",
                   what, if (sum(!ok) > 1L) "s" else "", paste(names(x)[!ok], collapse = ", ")), call. = FALSE)
    X <- matrix(as.numeric(unlist(x, use.names = FALSE)), nrow = nrow(x), ncol = ncol(x),
                dimnames = list(NULL, names(x)))
  } else if (inherits(x, "sparseMatrix")) {
    # a Matrix package sparse matrix: made dense once, column-major -- the
    # copy the core reads in place (as Python densifies scipy matrices)
    X <- as.matrix(x)
    if (!is.double(X)) storage.mode(X) <- "double"
  } else if (is.matrix(x) && (is.numeric(x) || is.logical(x))) {
    X <- x
    if (!is.double(X)) storage.mode(X) <- "double"
    attr(X, "contrasts") <- NULL
  } else if (is.numeric(x) && is.null(dim(x))) {
    stop(sprintf("%s must be a matrix or a data frame (one row per sample); got a vector -- use matrix(%s, ncol = 1) for a single feature",
                 what, what), call. = FALSE)
  } else {
    stop(sprintf("%s must be a numeric matrix or a data frame; got an object of class '%s'",
                 what, paste(class(x), collapse = "/")), call. = FALSE)
  }
  if (nrow(X) == 0L) stop(sprintf("%s has no rows", what), call. = FALSE)
  if (ncol(X) == 0L) stop(sprintf("%s has no columns", what), call. = FALSE)
  # NA and NaN are missing values, which the forest learns to route; an
  # infinite value has no place on a split's axis.
  if (any(is.infinite(X))) {
    bad <- which(colSums(is.infinite(X)) > 0)
    stop(sprintf("%s contains infinite values (in column%s %s)", what, if (length(bad) > 1L) "s" else "",
                 .col_list(X, bad)), call. = FALSE)
  }
  X
}

.col_list <- function(X, idx) {
  nm <- colnames(X)
  shown <- if (is.null(nm)) as.character(idx) else nm[idx]
  if (length(shown) > 5L) shown <- c(shown[1:5], "...")
  paste(shown, collapse = ", ")
}

# A numeric y -- double or integer, what read.csv gives a numeric target --
# grows a regression forest; a factor, character or logical y a
# classification forest (as randomForest and ranger decide); a survival::Surv
# y a survival forest (survival.R).
.is_regression <- function(y) is.numeric(y) && !is.factor(y)

.fit <- function(X, y, args, sample_weight, est, data_dims = NULL, levels = NULL) {
  n <- nrow(X)
  if (.is_survival(y)) # survival::Surv (survival.R), by sporf() or morf()
    return(.fit_survival(X, y, args, sample_weight, est, levels, data_dims))
  if (is.matrix(y) || is.data.frame(y)) {
    # one column per output (multioutput.R); a single column is a vector
    if (ncol(y) > 1L) {
      if (!is.null(args$class_weight)) .refuse("outputs_class_weight", ncol(y))
      return(.fit_outputs(X, y, args, sample_weight, est, data_dims, levels, .tune_grid(args$tune_oob)))
    }
    if (ncol(y) == 0L) stop("y has no columns", call. = FALSE)
    y <- if (is.data.frame(y)) y[[1L]] else y[, 1L]
  }
  if (length(y) != n)
    stop(sprintf("y has %d values but x has %d rows", length(y), n), call. = FALSE)
  if (anyNA(y)) stop(sprintf("y contains %d missing value(s) (NA)", sum(is.na(y))), call. = FALSE)
  regression <- .is_regression(y)
  if (regression) {
    if (any(!is.finite(y))) stop("y contains infinite values", call. = FALSE)
    # randomForest's warning: class labels coded as numbers grow a regression forest
    if (length(unique(y)) <= 5L)
      warning("The response has five or fewer unique values. Are you sure you want to do regression? ",
              "(A factor y grows a classification forest.)", call. = FALSE)
    enc <- list(codes = as.double(y), levels = NULL, kind = NA_integer_)
    K <- 1L
  } else {
    enc <- .encode_response(y)
    K <- length(enc$levels) # one class fits: every tree a leaf predicting it (as scikit-learn's forests)
  }
  params <- .build_params(args, ncol(X), est, if (regression) "regression" else "classification", data_dims)

  sw <- .check_sample_weight(sample_weight, n)
  # Custom weights by class name; the core checks their values (and refuses
  # any class_weight for regression), in the words Python shows too.
  cw <- NULL
  if (!regression && is.numeric(args$class_weight)) {
    cwv <- args$class_weight
    unknown <- setdiff(names(cwv), enc$levels)
    if (length(unknown))
      stop(sprintf("class_weight names classes that are not in y: %s", paste(unknown, collapse = ", ")),
           call. = FALSE)
    cw <- rep(1, K)
    cw[match(names(cwv), enc$levels)] <- as.double(cwv)
  }

  by_feature <- NULL
  if (!is.null(levels)) { # categorical columns: their levels' positions, ordered by the response
    tp <- .to_positions(X, levels, list(codes = enc$codes, K = K), sw)
    X <- tp$X
    by_feature <- tp$by_feature
  }
  res <- .Call(C_sporf_r_fit, X, enc$codes, 1L, if (!regression) as.integer(K), params, sw, cw, args$oob_score,
               as.integer(args$verbose), .tune_grid(args$tune_oob))
  obj <- .fitted(res, X, args, params, est, if (!regression) enc, by_feature,
                 if (regression) "regression" else "classification")
  handle <- res[[1L]]
  feature_names <- colnames(X)
  if (isTRUE(args$oob_score))
    obj <- .attach_oob(obj, handle, X, y, enc, res[[2L]], res[[3L]])
  if (identical(args$importance, "permutation")) {
    # each tree's out-of-bag error with each feature permuted (importance(fit, type = "permutation"))
    pim <- .Call(C_sporf_r_permutation_importance, handle, X, if (regression) as.double(y) else enc$codes,
                 .resolve_n_jobs(args$n_jobs), as.integer(args$verbose))
    if (isTRUE(pim[[3L]]))
      stop(structure(class = c("sporf_interrupt", "interrupt", "error", "condition"),
                     list(message = "sporf: the permutation importance was interrupted (Ctrl-C); no forest was returned",
                          call = NULL)))
    nm <- if (is.null(feature_names)) paste0("x", seq_len(ncol(X))) else feature_names
    obj$permutation_importance <- stats::setNames(pim[[1L]], nm)
    obj$permutation_importance_sd <- stats::setNames(pim[[2L]], nm)
  }
  if (regression) obj <- .attach_interval_scores(obj, X, y)
  obj
}

# The sporf object of a fit: res is the C glue's result (handle, out-of-bag
# values and counts, interrupted, tuning report); enc the classes' encoding
# (levels, kind and labels; NULL for regression), stored in the model with
# the categorical features' levels and the feature names before its bytes are
# taken; a tuned fit reports its grid and takes the winner's parameters.
.fitted <- function(res, X, args, params, est, enc, by_feature, task) {
  if (isTRUE(res[[4L]])) .stop_fit_interrupted()
  handle <- res[[1L]]
  if (!is.null(enc)) .Call(C_sporf_r_set_strings, handle, .STR_CLASSES, enc$kind, enc$labels)
  if (!is.null(by_feature)) .store_levels(handle, by_feature)
  feature_names <- colnames(X)
  if (!is.null(feature_names))
    .Call(C_sporf_r_set_strings, handle, .STR_FEATURE_NAMES, .KIND_TEXT, as.character(feature_names))
  args$criterion <- .SPEC_PARAMS$criterion$values[params$criterion + 1]
  resolved <- attr(params, "max_features_resolved")
  tuned <- if (!is.null(res[[5L]])) .tuning_report(res[[5L]], est)
  if (!is.null(tuned)) {
    # the forest holds the winner's values (as its model file does)
    args[names(tuned[["best"]])] <- tuned[["best"]]
    resolved <- .Call(C_sporf_r_check_params, res[[5L]]$candidates[[res[[5L]]$best]], as.numeric(ncol(X)))
  }
  obj <- .new_sporf(handle, .Call(C_sporf_r_save, handle), levels = enc$levels,
                    label_kind = if (is.null(enc)) NA_integer_ else enc$kind, feature_names = feature_names,
                    n_features = ncol(X), n_samples = nrow(X), args = args, seed = params$random_state,
                    max_features_resolved = resolved, task = task)
  obj$feature_levels <- by_feature
  obj$fit_fingerprint <- .Call(C_sporf_r_fingerprint, X) # what oob = TRUE checks newdata against
  leaf <- .Call(C_sporf_r_leaf_choice, handle)
  if (!is.null(leaf)) { # min_samples_leaf = "auto": the size chosen out of bag, every size's score
    obj[.LEAF_CHOICE_FIELDS] <- leaf
  }
  kinds <- .Call(C_sporf_r_kind_choice, handle)
  if (!is.null(kinds)) obj[.KIND_CHOICE_FIELDS] <- kinds # splitter = "auto": the trees kept, each choice's score
  if (!is.null(tuned)) {
    obj$tuning <- tuned[["table"]]
    obj$best_params <- tuned[["best"]]
  }
  obj
}

.check_sample_weight <- function(sample_weight, n) {
  if (is.null(sample_weight)) return(NULL)
  if (!is.numeric(sample_weight) || length(sample_weight) != n)
    stop(sprintf("sample_weight must be a numeric vector of length %d (one per row)", n), call. = FALSE)
  if (anyNA(sample_weight) || any(!is.finite(sample_weight)) || any(sample_weight < 0))
    stop("sample_weight must be finite and non-negative", call. = FALSE)
  as.double(sample_weight)
}

# Ctrl-C during a fit: an interrupt condition (tryCatch(interrupt = ) sees it),
# no forest returned.
.stop_fit_interrupted <- function() {
  stop(structure(class = c("sporf_interrupt", "interrupt", "error", "condition"),
                 list(message = "sporf: the fit was interrupted (Ctrl-C); no forest was returned", call = NULL)))
}

# A sporf object: everything needed lives in `model` (the model file's bytes);
# the native forest is a cache in an environment, rebuilt after readRDS.
.new_sporf <- function(handle, model, levels, label_kind, feature_names, n_features, n_samples, args,
                       seed, max_features_resolved,
                       task = if (is.null(levels)) "regression" else "classification") {
  cache <- new.env(parent = emptyenv())
  cache$handle <- handle
  args$random_state <- seed
  structure(c(list(model = model,
                   task = task,
                   classes = levels,
                   label_kind = label_kind,
                   feature_names = feature_names,
                   n_features = as.integer(n_features),
                   n_samples = n_samples),
              .trees_held(handle),
              list(params = args[setdiff(names(args), c("oob_score", "verbose", "n_jobs"))],
                   n_jobs = args$n_jobs,
                   oob_score_requested = isTRUE(args$oob_score),
                   max_features_resolved = max_features_resolved,
                   .cache = cache)),
            class = "sporf")
}

# The native forest of a sporf object, rebuilt from its bytes when the object
# came back from saveRDS/readRDS (external pointers do not survive that).
.native <- function(object) {
  cache <- object[[".cache"]]
  if (!is.environment(cache) || is.null(cache$handle) || !.Call(C_sporf_r_is_valid, cache$handle)) {
    handle <- .Call(C_sporf_r_load, object[["model"]])
    if (is.environment(cache)) cache$handle <- handle
    return(handle)
  }
  cache$handle
}

# tune_oob as the C glue takes it: 0 no tuning, 1 d and lambda (TRUE), 2 the
# structure grid ("structure").
.tune_grid <- function(tune_oob) {
  if (identical(tune_oob, "structure")) 2L else if (isTRUE(tune_oob)) 1L else 0L
}

# tune_oob's report: the parameters the grid varies (as sporf() takes them),
# each candidate's out-of-bag error and trees, and the winner's parameters.
.tuning_report <- function(rep, est) {
  cands <- lapply(rep$candidates, .params_from_core, est = est)
  varied <- Filter(function(nm) !all(vapply(cands, function(c) identical(c[[nm]], cands[[1L]][[nm]]), logical(1))),
                   names(cands[[1L]]))
  show <- function(v) if (is.null(v)) "NULL" else paste(format(v), collapse = ", ")
  cols <- lapply(varied, function(nm) vapply(cands, function(c) show(c[[nm]]), ""))
  names(cols) <- varied
  table <- data.frame(cols, oob_error = rep$oob_error, n_trees = rep$n_trees, stringsAsFactors = FALSE)
  list(table = table, best = cands[[rep$best]][varied])
}

# randomForest's names for the out-of-bag results, so its users' habits work:
# predicted, votes, confusion (with class.error) and err.rate (its "OOB"
# column: the per-class curves are not computed) for classification; mse and
# rsq (as randomForest computes them, with var(y) * (n - 1) / n) for regression.
# The out-of-bag results of a forest on its training rows X and response y
# (enc: the response's encoding): the score, predictions, error, error
# curve and randomForest's fields. values (n x K row-major) and counts come
# from the fit or from sporf_forest_oob_predict (grow()).
.attach_oob <- function(obj, handle, X, y, enc, values, counts) {
  n <- nrow(X)
  regression <- identical(obj[["task"]], "regression")
  if (any(counts == 0))
    warning("some samples have no out-of-bag predictions (too few trees for reliable OOB estimates)",
            call. = FALSE)
  obj$oob.times <- as.integer(counts) # randomForest's: how many trees left each row out
  if (regression) {
    pred <- values
    # As Python's oob_score_: R^2 of the out-of-bag predictions over all samples.
    obj$oob_score <- 1 - sum((y - pred)^2) / sum((y - mean(y))^2)
    pred[counts == 0] <- NA
    obj$oob_predictions <- pred
    obj$oob_error <- mean((y - values)^2)
  } else {
    K <- length(enc$levels)
    dec <- matrix(values, nrow = n, ncol = K, byrow = TRUE, dimnames = list(NULL, enc$levels))
    predicted <- factor(enc$levels[max.col(dec, ties.method = "first")], levels = enc$levels)
    predicted[counts == 0] <- NA
    obj$oob_decision_function <- dec
    obj$oob_predictions <- predicted
    # As Python's oob_score_: accuracy of the argmax over all samples.
    obj$oob_score <- mean(enc$codes == max.col(dec, ties.method = "first") - 1L)
    obj$oob_error <- 1 - obj[["oob_score"]]
  }
  # the error as trees are added, which plot() draws (randomForest's err.rate)
  curves <- .Call(C_sporf_r_oob_curve, handle, X, if (regression) as.double(y) else enc$codes)
  obj$oob_error_curve <- curves[, 1L]
  if (!regression) obj$oob_error_curve_by_class <- `colnames<-`(curves[, -1L, drop = FALSE], obj[["classes"]])
  .randomforest_fields(obj, y, regression)
}

.randomforest_fields <- function(obj, y, regression) {
  obj$predicted <- obj[["oob_predictions"]]
  curve <- obj[["oob_error_curve"]]
  if (regression) {
    obj$mse <- curve
    obj$rsq <- 1 - curve / (stats::var(y) * (length(y) - 1) / length(y))
    return(obj)
  }
  obj$votes <- obj[["oob_decision_function"]]
  lev <- obj[["classes"]]
  observed <- factor(as.character(y), levels = lev)
  tab <- table(observed, factor(as.character(obj[["predicted"]]), levels = lev), dnn = NULL)
  confusion <- matrix(as.numeric(tab), length(lev), dimnames = list(lev, lev))
  obj$confusion <- cbind(confusion, class.error = 1 - diag(confusion) / pmax(rowSums(confusion), 1))
  # randomForest's layout: the whole error, then each class's
  obj$err.rate <- cbind(OOB = curve, obj[["oob_error_curve_by_class"]])
  obj
}
