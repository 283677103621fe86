# Validation of forest parameters and their conversion into the list the C
# glue turns into the core's sporf_params. Codes mirror csrc/include/sporf.h.
# Messages name the parameter and the value received, as in Python.

.PROJECTIONS <- c(axis = 0L, sparse = 1L, frc = 3L, gaussian = 4L, poisson = 5L)
.PROJECTION_NAMES <- c("axis", "sparse", "patch", "frc", "gaussian", "poisson") # by core code + 1
.BOUNDARIES <- c(inside = 0L, pad = 1L, wrap = 2L)
.PATCH_WEIGHTS <- c(uniform = 0L, gaussian = 1L)
.MAX_DIMS <- 8L
.CRITERIA <- c(gini = 0L, entropy = 1L, log_loss = 1L, squared_error = 2L, fastbic = 3L, twomeans = 4L)
.CRITERION_NAMES <- c("gini", "entropy", "squared_error", "fastbic", "twomeans") # by core code + 1
.HONEST_PRIORS <- c(empirical = 0L, uniform = 1L, ignore = 2L)
.MAXF <- c(sqrt = 0L, log2 = 1L, int = 2L, fraction = 3L, all = 4L)
.CW <- c(none = 0L, balanced = 1L, balanced_subsample = 2L, custom = 3L)

.bad_param <- function(name, expected, value) {
  shown <- if (is.null(value)) "NULL" else paste(utils::capture.output(dput(value)), collapse = "")
  stop(sprintf("the '%s' parameter must be %s; got %s", name, expected, shown), call. = FALSE)
}

.is_number <- function(x) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x)
}

.is_whole <- function(x) .is_number(x) && x == round(x)

.is_flag <- function(x) is.logical(x) && length(x) == 1L && !is.na(x)

# n_jobs follows joblib's convention, as in Python: NULL -> 1, -1 -> all cores,
# -2 -> all but one, ...
.resolve_n_jobs <- function(n_jobs) {
  if (is.null(n_jobs)) return(1L)
  if (!.is_whole(n_jobs) || n_jobs == 0)
    .bad_param("n_jobs", "NULL or a non-zero whole number", n_jobs)
  if (n_jobs < 0) return(as.integer(max(1, .Call(C_sporf_r_num_cores) + 1 + n_jobs)))
  as.integer(n_jobs)
}

# A whole-number random_state is the core's master seed as is (Python does the
# same); NULL draws one from R's generator, so set.seed() makes a fit repeatable.
.resolve_seed <- function(random_state) {
  if (is.null(random_state))
    return(floor(stats::runif(1L) * 2147483647))
  if (!.is_whole(random_state) || random_state < 0 || random_state > 2^53)
    .bad_param("random_state", "NULL or a whole number in [0, 2^53]", random_state)
  as.numeric(random_state)
}

# Patch fields of the core's list: zeros unless data_dims is given (MORF).
.patch_params <- function(args, p) {
  zeros <- rep(0, .MAX_DIMS)
  out <- list(n_dims = 0, patch_weights = 0, data_dims = zeros, min_patch_dims = zeros,
              max_patch_dims = zeros, boundary = zeros, dim_contiguous = zeros)
  dims <- args$data_dims
  if (is.null(dims)) return(out)
  nd <- length(dims)
  per_axis <- function(value, name, default, ok, expected) {
    if (is.null(value)) value <- default
    if (length(value) == 1L) value <- rep(value, nd)
    if (length(value) != nd || !all(vapply(as.list(value), ok, logical(1))))
      .bad_param(name, sprintf("%s, or one per axis of data_dims (%d)", expected, nd), value)
    value
  }
  whole1 <- function(v) .is_whole(v) && v >= 1
  lo <- per_axis(args$min_patch_dims, "min_patch_dims", 1, whole1, "a whole number >= 1")
  hi <- per_axis(args$max_patch_dims, "max_patch_dims", pmax(lo, pmin(dims, ceiling(sqrt(dims)))), whole1,
                 "a whole number >= 1")
  bd <- per_axis(args$boundary, "boundary", "pad", function(v) is.character(v) && v %in% names(.BOUNDARIES),
                 "one of \"inside\", \"pad\", \"wrap\"")
  dc <- per_axis(args$dim_contiguous, "dim_contiguous", TRUE, .is_flag, "TRUE or FALSE")
  pw <- args$patch_weights
  if (!is.character(pw) || length(pw) != 1L || !(pw %in% names(.PATCH_WEIGHTS)))
    .bad_param("patch_weights", "one of \"uniform\", \"gaussian\"", pw)
  fill <- function(v) c(as.numeric(v), rep(0, .MAX_DIMS - nd))
  out$n_dims <- nd
  out$patch_weights <- .PATCH_WEIGHTS[[pw]]
  out$data_dims <- fill(dims)
  out$min_patch_dims <- fill(lo)
  out$max_patch_dims <- fill(hi)
  out$boundary <- fill(.BOUNDARIES[bd])
  out$dim_contiguous <- fill(as.numeric(dc))
  out
}

# A parameter the fitting function may not have (urerf() has no honesty,
# out-of-bag score or class weights): its value, or the core's default.
.arg_or <- function(args, name, default) if (name %in% names(args)) args[[name]] else default

# All forest parameters as the core's list, for n rows and p features.
.build_params <- function(args, n, p, regression = FALSE, unsupervised = FALSE) {
  out <- list()
  ne <- args$n_estimators
  if (!.is_whole(ne) || ne < 1) .bad_param("n_estimators", "a whole number >= 1", ne)
  out$n_estimators <- ne

  if (is.null(args$data_dims)) {
    proj <- args$projection
    if (!is.character(proj) || length(proj) != 1L || !(proj %in% names(.PROJECTIONS)))
      .bad_param("projection", "one of \"sparse\", \"axis\", \"frc\", \"gaussian\", \"poisson\"", proj)
    out$projection <- .PROJECTIONS[[proj]]
    fc <- args$feature_combinations
    if (!.is_number(fc) || fc <= 0) .bad_param("feature_combinations", "a finite number > 0", fc)
    out$feature_combinations <- fc
  } else {
    out$projection <- 2 # SPORF_PROJ_PATCH
    out$feature_combinations <- 1.5 # the core's default; unused by patches
  }

  mf <- args$max_features
  mf_expected <- "\"sqrt\", \"log2\", NULL, a whole number >= 1 (a count) or a number in (0, 1) or above 1 that is not whole (a fraction of p)"
  out$max_features_value <- 0
  if (is.null(mf)) {
    out$max_features_mode <- .MAXF[["all"]]
  } else if (is.character(mf)) {
    if (length(mf) != 1L || !(mf %in% c("sqrt", "log2"))) .bad_param("max_features", mf_expected, mf)
    out$max_features_mode <- .MAXF[[mf]]
  } else if (.is_whole(mf)) {
    if (mf < 1) .bad_param("max_features", mf_expected, mf)
    out$max_features_mode <- .MAXF[["int"]]
    out$max_features_value <- mf
  } else if (.is_number(mf) && mf > 0) {
    out$max_features_mode <- .MAXF[["fraction"]]
    out$max_features_value <- mf
  } else {
    .bad_param("max_features", mf_expected, mf)
  }

  # NULL: the task's criterion ("gini" for classes, "squared_error" for a
  # numeric response), the defaults of Python's classifier and regressor.
  crit <- args$criterion
  allowed <- if (unsupervised) c("fastbic", "twomeans")
             else if (regression) "squared_error" else c("gini", "entropy", "log_loss")
  if (is.null(crit)) crit <- allowed[1L]
  if (!is.character(crit) || length(crit) != 1L || !(crit %in% allowed))
    .bad_param("criterion", sprintf("NULL or one of %s%s", paste0("\"", allowed, "\"", collapse = ", "),
                                    if (regression) " (y is numeric: a regression forest)" else ""), crit)
  out$criterion <- .CRITERIA[[crit]]

  hf <- .arg_or(args, "honest_fraction", 0)
  if (!.is_number(hf) || hf < 0 || hf >= 1) .bad_param("honest_fraction", "a number in [0, 1)", hf)
  out$honest_fraction <- hf
  hp <- .arg_or(args, "honest_prior", "empirical")
  priors <- if (regression) c("empirical", "ignore") else names(.HONEST_PRIORS)
  if (!is.character(hp) || length(hp) != 1L || !(hp %in% priors))
    .bad_param("honest_prior", sprintf("one of %s", paste0("\"", priors, "\"", collapse = ", ")), hp)
  out$honest_prior <- .HONEST_PRIORS[[hp]]

  md <- args$max_depth
  if (is.null(md)) {
    out$max_depth <- 0
  } else {
    if (!.is_whole(md) || md < 1) .bad_param("max_depth", "NULL or a whole number >= 1", md)
    out$max_depth <- md
  }

  mss <- args$min_samples_split
  if (identical(mss, "sqrt")) {
    out$min_samples_split <- max(2, ceiling(sqrt(n)))
  } else if (.is_whole(mss) && mss >= 2) {
    out$min_samples_split <- mss
  } else if (.is_number(mss) && mss > 0 && mss < 1) {
    out$min_samples_split <- max(2, ceiling(mss * n))
  } else {
    .bad_param("min_samples_split", "a whole number >= 2, a fraction in (0, 1) or \"sqrt\"", mss)
  }

  msl <- args$min_samples_leaf
  if (.is_whole(msl) && msl >= 1) {
    out$min_samples_leaf <- msl
  } else if (.is_number(msl) && msl > 0 && msl < 1) {
    out$min_samples_leaf <- max(1, ceiling(msl * n))
  } else {
    .bad_param("min_samples_leaf", "a whole number >= 1 or a fraction in (0, 1)", msl)
  }

  mid <- args$min_impurity_decrease
  if (!.is_number(mid) || mid < 0) .bad_param("min_impurity_decrease", "a number >= 0", mid)
  out$min_impurity_decrease <- mid

  mwf <- args$min_weight_fraction_leaf
  if (!.is_number(mwf) || mwf < 0 || mwf > 0.5)
    .bad_param("min_weight_fraction_leaf", "a number in [0, 0.5]", mwf)
  out$min_weight_fraction_leaf <- mwf

  if (!.is_flag(args$bootstrap)) .bad_param("bootstrap", "TRUE or FALSE", args$bootstrap)
  out$bootstrap <- as.numeric(args$bootstrap)

  ms <- args$max_samples
  out$max_samples_count <- 0
  out$max_samples_fraction <- 0
  if (!is.null(ms)) {
    if (!args$bootstrap)
      stop("max_samples cannot be set if bootstrap = FALSE; either use bootstrap = TRUE or max_samples = NULL",
           call. = FALSE)
    # As in Python, a count or a fraction; 1 means the whole sample (fraction 1).
    if (.is_number(ms) && ms > 0 && ms <= 1) {
      out$max_samples_fraction <- ms
    } else if (.is_whole(ms) && ms > 1 && ms <= n) {
      out$max_samples_count <- ms
    } else {
      .bad_param("max_samples", sprintf("NULL, a whole number in [2, n = %d] or a fraction in (0, 1]", n), ms)
    }
  }

  oob <- .arg_or(args, "oob_score", FALSE)
  if (!.is_flag(oob)) .bad_param("oob_score", "TRUE or FALSE", oob)
  if (oob && !args$bootstrap)
    stop("out-of-bag estimation is only available if bootstrap = TRUE", call. = FALSE)

  cw <- args$class_weight
  if (is.null(cw)) {
    out$class_weight_mode <- .CW[["none"]]
  } else if (is.character(cw) && length(cw) == 1L && cw %in% c("balanced", "balanced_subsample")) {
    out$class_weight_mode <- .CW[[cw]]
  } else if (is.numeric(cw) && !is.null(names(cw))) {
    out$class_weight_mode <- .CW[["custom"]]
  } else {
    .bad_param("class_weight", "NULL, \"balanced\", \"balanced_subsample\" or a named numeric vector", cw)
  }

  v <- args$verbose
  if (!(.is_flag(v) || .is_whole(v))) .bad_param("verbose", "a whole number or TRUE/FALSE", v)

  out$n_jobs <- .resolve_n_jobs(args$n_jobs)
  out$random_state <- .resolve_seed(args$random_state)
  ft <- .arg_or(args, "first_tree", 0)
  if (!.is_whole(ft) || ft < 0 || ft > 2^53) .bad_param("first_tree", "a whole number in [0, 2^53]", ft)
  out$first_tree <- ft
  out <- c(lapply(out, as.numeric), .patch_params(args, p))
  # The core checks everything again and resolves max_features to a count.
  attr(out, "max_features_resolved") <- .Call(C_sporf_r_check_params, out, as.numeric(p))
  out
}

# The core's params list back as R arguments (for loaded models).
.params_from_core <- function(cp) {
  mode <- cp$max_features_mode
  mf <- switch(as.character(mode),
               "0" = "sqrt", "1" = "log2", "2" = cp$max_features_value,
               "3" = cp$max_features_value, "4" = NULL)
  cw <- switch(as.character(cp$class_weight_mode), "1" = "balanced", "2" = "balanced_subsample", NULL)
  patch <- NULL
  if (cp$projection == 2) {
    nd <- cp$n_dims
    patch <- list(data_dims = cp$data_dims[seq_len(nd)], min_patch_dims = cp$min_patch_dims[seq_len(nd)],
                  max_patch_dims = cp$max_patch_dims[seq_len(nd)],
                  boundary = names(.BOUNDARIES)[cp$boundary[seq_len(nd)] + 1],
                  dim_contiguous = cp$dim_contiguous[seq_len(nd)] != 0,
                  patch_weights = names(.PATCH_WEIGHTS)[cp$patch_weights + 1])
  }
  c(patch, list(
    n_estimators = cp$n_estimators,
    criterion = .CRITERION_NAMES[cp$criterion + 1],
    max_depth = if (cp$max_depth > 0) cp$max_depth else NULL,
    min_samples_split = cp$min_samples_split,
    min_samples_leaf = cp$min_samples_leaf,
    min_weight_fraction_leaf = cp$min_weight_fraction_leaf,
    min_impurity_decrease = cp$min_impurity_decrease,
    max_features = mf,
    feature_combinations = cp$feature_combinations,
    projection = .PROJECTION_NAMES[cp$projection + 1],
    bootstrap = cp$bootstrap != 0,
    max_samples = if (cp$max_samples_count > 0) cp$max_samples_count
                  else if (cp$max_samples_fraction > 0) cp$max_samples_fraction else NULL,
    honest_fraction = cp$honest_fraction,
    honest_prior = names(.HONEST_PRIORS)[cp$honest_prior + 1],
    class_weight = cw,
    random_state = cp$random_state,
    first_tree = cp$first_tree
  ))
}
