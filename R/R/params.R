# Forest parameters <-> the list the C glue turns into the core's sporf_params,
# driven by the generated table of spec/params.toml (spec_gen.R): one converter per
# kind of parameter, none per parameter. A bad value stops with
# "<name> must be <what the spec allows>; got <value>", the wording Python uses.

.bad_param <- function(name, expected, value, note = NULL) {
  shown <- if (is.null(value)) "NULL" else paste(utils::capture.output(dput(value)), collapse = "")
  stop(sprintf("%s must be %s; got %s%s", name, expected, shown, if (is.null(note)) "" else paste0(" ", note)),
       call. = FALSE)
}

.is_number <- function(x) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x)
}

.is_whole <- function(x) .is_number(x) && x == round(x) && !inherits(x, "sporf_fraction")

.is_flag <- function(x) is.logical(x) && length(x) == 1L && !is.na(x)

.in_range <- function(v, lo, hi = NULL, lo_open = FALSE, hi_open = FALSE) {
  !(if (isTRUE(lo_open)) v <= lo else v < lo) && (is.null(hi) || !(if (isTRUE(hi_open)) v >= hi else v > hi))
}

# fraction(x): a number meant as a share of a total (of p for max_features, of n for
# min_samples_split, min_samples_leaf and max_samples), whole or not: a whole
# number alone is a count. What a loaded model's $params hold for a whole fraction.
fraction <- function(x) {
  if (!.is_number(x) || x <= 0) .bad_param("fraction(x)", "a finite number > 0", x)
  structure(as.numeric(x), class = "sporf_fraction")
}

format.sporf_fraction <- function(x, ...) sprintf("fraction(%s)", format(unclass(x), ...))

print.sporf_fraction <- function(x, ...) {
  cat(format(x, ...), "\n", sep = "")
  invisible(x)
}

# The core's count of cores, asked once a session (the question costs 6 us,
# which one-row predictions would pay), as Python does.
.cores <- new.env(parent = emptyenv())
.num_cores <- function() {
  if (is.null(.cores$n)) .cores$n <- .Call(C_sporf_r_num_cores)
  .cores$n
}

# n_jobs follows joblib's convention, as in Python: NULL -> 1, -1 -> all cores,
# -2 -> all but one, ...
.resolve_n_jobs <- function(n_jobs) {
  if (is.null(n_jobs)) return(1L)
  if (!.is_whole(n_jobs) || n_jobs == 0) .bad_param("n_jobs", .SPEC_PARAMS$n_jobs$expect, n_jobs)
  if (n_jobs < 0) return(as.integer(max(1, .num_cores() + 1 + n_jobs)))
  as.integer(n_jobs)
}

# A whole-number random_state is the core's master seed as is (Python does the
# same); NULL draws one from R's generator, so set.seed() makes a fit repeatable.
.resolve_seed <- function(random_state) {
  if (is.null(random_state))
    return(floor(stats::runif(1L) * 2147483647))
  if (!.is_whole(random_state) || random_state < 0 || random_state > 2^53)
    .bad_param("random_state", .SPEC_PARAMS$random_state$expect, random_state)
  as.numeric(random_state)
}

# ---- one converter per kind: (spec row, value, expect) -> what the C glue reads ----
.conv_int <- function(row, v, expect) {
  if (!is.null(row$none) && is.null(v)) return(row$none)
  if (!.is_whole(v) || !.in_range(v, row$min, row$max)) .bad_param(row$name, expect, v)
  as.numeric(v)
}

.conv_real <- function(row, v, expect) {
  if (!.is_number(v) || inherits(v, "sporf_fraction") ||
      !.in_range(v, row$min, row$max, row$min_open, row$max_open)) .bad_param(row$name, expect, v)
  as.numeric(v)
}

.conv_flag <- function(row, v, expect) {
  if (!.is_flag(v)) .bad_param(row$name, expect, v)
  as.numeric(v)
}

.conv_choice <- function(row, v, expect, allowed, note = NULL) {
  allowed <- c(allowed, names(row$aliases)[unlist(row$aliases) %in% allowed])
  if (!is.character(v) || length(v) != 1L || is.na(v) || !(v %in% allowed)) .bad_param(row$name, expect, v, note)
  if (!is.null(row$aliases[[v]])) v <- row$aliases[[v]]
  match(v, row$values) - 1
}

.conv_amount <- function(row, v, expect) {
  forms <- row$forms
  fraction_ok <- function(x) "fraction" %in% forms && .is_number(x) &&
    .in_range(x, row$fraction_min, row$fraction_max, row$fraction_min_open, row$fraction_max_open)
  # "auto" with the size a fit of the same forest chose (grow()'s new trees):
  # grown to leaves of one row and pruned to it, unscored
  if (inherits(v, "sporf_chosen_leaf_size") && "auto" %in% forms) return(c(.SPEC_FORMS[["auto"]], unclass(v)))
  if (is.null(v) && "all" %in% forms) return(c(.SPEC_FORMS[["all"]], 0))
  if (is.character(v) && length(v) == 1L && !is.na(v) && v %in% intersect(forms, c("sqrt", "log2", "auto")))
    return(c(.SPEC_FORMS[[v]], 0))
  if (inherits(v, "sporf_fraction")) {
    if (fraction_ok(unclass(v))) return(c(.SPEC_FORMS[["fraction"]], unclass(v)))
  } else if (.is_whole(v)) {
    if ("count" %in% forms && .in_range(v, row$count_min, row$count_max)) return(c(.SPEC_FORMS[["count"]], v))
  } else if (fraction_ok(v)) {
    return(c(.SPEC_FORMS[["fraction"]], v))
  }
  .bad_param(row$name, expect, v)
}

# A per-axis parameter: NULL, one value for every axis, or one per axis; as
# SPORF_MAX_DIMS numbers (0 past the grid's axes).
.conv_axes <- function(row, v, expect, n_dims) {
  vals <- if (is.null(v)) rep(list(NULL), n_dims) else if (length(v) == 1L) rep(list(v), n_dims) else as.list(v)
  if (length(vals) != n_dims) .bad_param(row$name, expect, v)
  one <- function(x) {
    if (row$of == "int") {
      if (is.null(x)) return(0)
      if (.is_whole(x) && .in_range(x, row$min, row$max)) return(as.numeric(x))
    } else if (row$of == "flag") {
      if (is.null(x)) return(1)
      if (.is_flag(x)) return(as.numeric(x))
    } else if (is.character(x) && !is.na(x) && x %in% row$values) {
      return(match(x, row$values) - 1)
    }
    .bad_param(row$name, expect, v)
  }
  out <- vapply(vals, one, numeric(1))
  c(out, rep(0, .SPEC_MAX_DIMS - n_dims))
}

.conv_class_weight <- function(row, v, expect) {
  if (is.null(v)) return(match("none", row$values) - 1)
  if (is.character(v) && length(v) == 1L && v %in% c("balanced", "balanced_subsample"))
    return(match(v, row$values) - 1)
  if (is.numeric(v) && !is.null(names(v))) return(match("custom", row$values) - 1)
  .bad_param(row$name, expect, v)
}

# The core's parameter list for estimator `est` ("sporf", "morf", "urerf") and
# task ("classification", "regression", "unsupervised") on p features, from
# `args` (the fitting function's arguments). data_dims: the resolved grid, or
# NULL for a forest that is not a patch forest. Sizes given as fractions or
# "sqrt" stay so: the core resolves them.
.build_params <- function(args, p, est, task, data_dims = NULL) {
  espec <- .SPEC_ESTIMATORS[[est]]
  tspec <- espec$tasks[[task]]
  given <- args[intersect(names(args), espec$params)]
  for (nm in names(espec$fixed)) given[nm] <- list(espec$fixed[[nm]])
  out <- list()
  for (row in .SPEC_PARAMS) {
    if (row$kind %in% c("option")) next
    name <- row$name
    expect <- if (!is.null(tspec$expect[[name]])) tspec$expect[[name]] else row$expect
    has <- name %in% names(given)
    v <- given[[name]]
    out[[name]] <- switch(row$kind,
      int = if (has) .conv_int(row, v, expect) else .core_default(row),
      real = if (has) .conv_real(row, v, expect) else row$default,
      flag = if (has) .conv_flag(row, v, expect) else as.numeric(row$default),
      choice = if (has && inherits(v, "sporf_chosen_code")) {
        # a choice a fit of the same forest made (splitter "auto": the kinds it kept), for grow()'s trees
        unclass(v)
      } else if (has) {
        allowed <- if (!is.null(tspec$choices[[name]])) tspec$choices[[name]] else row$values
        # sporf() and morf() take the task from y: NULL is the task's criterion
        note <- if (name == "criterion" && length(espec$tasks) > 1L)
          sprintf("(NULL is the task's default; y is %s)", if (task == "regression")
            "numeric: a regression forest" else "not numeric: a classification forest")
        .conv_choice(row, if (is.null(v) && name == "criterion") tspec$choices$criterion[1L] else v, expect,
                     allowed, note)
      } else match(row$default, row$values) - 1,
      amount = if (has) .conv_amount(row, v, expect) else .conv_amount(row, .default_value(row), ""),
      seed = .resolve_seed(v),
      threads = .resolve_n_jobs(v),
      class_weight = if (has) .conv_class_weight(row, v, expect) else 0,
      grid = if (is.null(data_dims)) numeric(0) else as.numeric(data_dims),
      axes = if (is.null(data_dims)) rep(0, .SPEC_MAX_DIMS)
             else .conv_axes(row, if (has) v else .default_value(row), expect, length(data_dims)))
  }
  # switches of the binding (oob_score, tune_oob): the core never sees them
  for (name in intersect(names(given), names(.SPEC_PARAMS))) {
    row <- .SPEC_PARAMS[[name]]
    if (row$kind == "option" && is.logical(row$default)) {
      also <- unlist(row$also) # values besides TRUE and FALSE (the spec's)
      v <- given[[name]]
      if (!(.is_flag(v) || (is.character(v) && length(v) == 1L && v %in% also))) {
        words <- c("TRUE", "FALSE", sprintf("\"%s\"", also))
        .bad_param(name, paste(paste(words[-length(words)], collapse = ", "), "or", words[length(words)]), v)
      }
    }
    if (row$kind == "option" && identical(row$of, "int")) {
      v <- given[[name]]
      if (!is.null(v) && !(.is_flag(v) || .is_whole(v))) .bad_param(name, row$expect, v)
    }
    if (row$kind == "option" && !is.null(row$values)) {
      v <- given[[name]]
      if (!(is.character(v) && length(v) == 1L && v %in% unlist(row$values))) .bad_param(name, row$expect, v)
    }
  }
  for (rule in .SPEC_RULES) { # the spec's checks across parameters
    holds <- vapply(names(rule$when), function(name) .rule_matches(given[[name]], rule$when[[name]]), logical(1))
    if (all(holds)) stop(rule$message, call. = FALSE)
  }
  # The core checks everything again (and what relates parameters to each
  # other and to the data), and resolves max_features to a count.
  attr(out, "max_features_resolved") <- .Call(C_sporf_r_check_params, out, as.numeric(p))
  # a shard (first_tree given) leaves the "auto" leaf size to merge_forests()
  attr(out, "shard") <- !is.null(given[["first_tree"]])
  out
}

# A given value against a rule's: a flag's TRUE matches any true value,
# "none" matches NULL.
.rule_matches <- function(value, want) {
  if (is.logical(want)) return(isTRUE(as.logical(value)[1]) == want && !is.null(value))
  if (identical(want, "none")) is.null(value) else identical(value, want)
}

.default_value <- function(row) if (identical(row$default, "none")) NULL else row$default

.core_default <- function(row) if (identical(row$default, "none")) row$none else row$default

# The core's parameter list back as the fitting function's arguments, in the
# forms the user gave (a fraction of 1 is fraction(1), NULL stays NULL), so
# refitting with them grows the same forest. class_weights: the custom
# weights named by class, or NULL.
.params_from_core <- function(cp, est, class_weights = NULL) {
  espec <- .SPEC_ESTIMATORS[[est]]
  out <- list()
  nd <- length(cp$data_dims)
  for (name in espec$params) {
    row <- .SPEC_PARAMS[[name]]
    v <- cp[[name]]
    value <- switch(row$kind,
      int = if (!is.null(row$none) && v == row$none) NULL else v,
      real = v,
      flag = v != 0,
      choice = c(row$values, unlist(row$chosen_as))[v + 1], # a choice made shows as the value that asked for it
      amount = {
        form <- names(.SPEC_FORMS)[match(v[1L], .SPEC_FORMS)]
        if (form == "all") NULL
        else if (form == "count") v[2L]
        else if (form == "fraction") { if (v[2L] == round(v[2L])) fraction(v[2L]) else v[2L] }
        else form
      },
      seed = v,
      class_weight = {
        code <- row$values[v + 1]
        if (code == "none") NULL else if (code == "custom") class_weights else code
      },
      grid = if (nd) v else NULL,
      axes = if (!nd) NULL else {
        a <- v[seq_len(nd)]
        if (row$of == "int") { if (all(a == 0)) NULL else a }
        else if (row$of == "flag") a != 0
        else row$values[a + 1]
      },
      NULL)
    out[name] <- list(value)
  }
  # options (oob_score, verbose, tune_oob, ...) and n_jobs are not part of the model
  out[!vapply(names(out), function(nm) .SPEC_PARAMS[[nm]]$kind %in% c("option", "threads"), logical(1))]
}

# A fitting call rewritten to grow trees first .. first + count - 1 of the
# forest whose parameters are `params` (grow()): the tree range and the
# resolved seed, no out-of-bag pass, silent. With params NULL, only the
# number of trees changes (the call a grown forest reports).
.next_trees_call <- function(call, params, first, count) {
  call$n_estimators <- count
  if (is.null(params)) return(call)
  call$first_tree <- (if (is.null(params$first_tree)) 0 else params$first_tree) + first
  call$random_state <- params$random_state
  # the out-of-bag results are the grown forest's (grow.R); forests without a response have none
  if (sub("^sporf::", "", paste(deparse(call[[1L]]), collapse = "")) %in% c("sporf", "morf"))
    call$oob_score <- FALSE
  call$verbose <- 0
  call
}

# The trees the forest's fit grew: its call's count (a forest that kept one
# kind of trees holds fewer), or, without a number there, the fit's parameter.
.n_grown <- function(object, n_old) {
  asked <- object[["call"]][["n_estimators"]]
  if (is.numeric(asked)) return(asked)
  if (is.numeric(object[["params"]][["n_estimators"]])) object[["params"]][["n_estimators"]] else n_old
}

# The first tree of the seed's forest a fitting call grows (0 unless given).
.first_tree_of_call <- function(call) {
  if (is.numeric(call[["first_tree"]])) call[["first_tree"]] else 0
}

# The field of a fitted forest that counts the trees it holds: the trees grown
# (params$n_estimators), or one kind's among them when splitter = "auto" kept
# one kind (Python's n_estimators_); a list to splice into the object's fields.
.TREES_HELD_FIELD <- "n_estimators"
.trees_held <- function(handle) {
  stats::setNames(list(as.integer(.Call(C_sporf_r_info, handle)$n_trees)), .TREES_HELD_FIELD)
}
