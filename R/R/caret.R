# sporf as a caret model: caret::train(x, y, method = sporf_caret) tunes a
# forest by caret's resampling, as method = "ranger" does. caret's custom
# model form is a list of functions (its vignette "Using your own model in
# train"); caret is not needed to build the list, only to use it, so the
# package does not depend on it. Documented in man/sporf_caret.Rd.

# The parameters users tune: the candidate projections per node (ranger's
# mtry), their density (SPORF's lambda) and the leaf size ("auto": chosen out
# of bag, the default). Anything else goes through train()'s `...` to sporf().
.caret_parameters <- data.frame(
  parameter = c("max_features", "feature_combinations", "min_samples_leaf"),
  class = c("numeric", "numeric", "character"),
  label = c("Candidate projections per node", "Non-zeros per projection", "Minimal leaf size"),
  stringsAsFactors = FALSE
)

# The candidate counts caret's grid tries for p features (the rule of its
# ranger and randomForest models): with one value, the forests' usual sqrt(p)
# for classification or p / 3 for regression; else len values from 2 to p,
# evenly spaced (by powers of two from 500 features on), without repeats.
.caret_candidates <- function(p, classification, len) {
  if (len == 1L) return(max(1, floor(if (classification) sqrt(p) else p / 3)))
  if (p <= len) return(unique(floor(seq(2, p, length.out = p))))
  unique(floor(if (p < 500) seq(2, p, length.out = len) else 2^seq(1, log2(p), length.out = len)))
}

# caret's grid of len values per parameter (search = "grid"), or len random
# candidates (search = "random"). The density grid adds the denser 3 to the
# default 1.5 once there is room; the leaf size stays "auto" on the grid (the
# forest chooses it out of bag) and is drawn with the rest at random.
.caret_grid <- function(x, y, len = NULL, search = "grid") {
  p <- ncol(x)
  classification <- is.factor(y) || is.character(y)
  if (is.null(len)) len <- 3L
  if (search == "grid")
    return(expand.grid(max_features = .caret_candidates(p, classification, len),
                       feature_combinations = if (len >= 2) c(1.5, 3) else 1.5,
                       min_samples_leaf = "auto", stringsAsFactors = FALSE))
  data.frame(max_features = sample.int(max(2L * p, 2L), len, replace = TRUE),
             feature_combinations = round(stats::runif(len, 1, 4), 2),
             min_samples_leaf = sample(c("auto", as.character(1:20)), len, replace = TRUE),
             stringsAsFactors = FALSE)
}

.caret_fit <- function(x, y, wts, param, lev, last, classProbs, ...) {
  leaf <- as.character(param$min_samples_leaf)
  sporf(x, y, max_features = param$max_features, feature_combinations = param$feature_combinations,
        min_samples_leaf = if (identical(leaf, "auto")) "auto" else as.numeric(leaf),
        sample_weight = wts, ...)
}

.caret_predict <- function(modelFit, newdata, preProc = NULL, submodels = NULL) {
  predict(modelFit, newdata)
}

.caret_prob <- function(modelFit, newdata, preProc = NULL, submodels = NULL) {
  as.data.frame(predict(modelFit, newdata, type = "prob"))
}

.caret_importance <- function(object, ...) {
  imp <- importance(object)
  data.frame(Overall = unname(imp), row.names = names(imp))
}

sporf_caret <- list(
  label = "Sparse Projection Oblique Randomer Forest",
  library = "sporf",
  type = c("Classification", "Regression"),
  parameters = .caret_parameters,
  grid = .caret_grid,
  fit = .caret_fit,
  predict = .caret_predict,
  prob = .caret_prob,
  varImp = .caret_importance,
  predictors = function(x, ...) x[["feature_names"]],
  levels = function(x) x[["classes"]],
  tags = c("Random Forest", "Ensemble Model", "Oblique Tree", "Implicit Feature Selection"),
  # simplest first: fewer candidates, sparser projections
  sort = function(x) x[order(x$max_features, x$feature_combinations), , drop = FALSE],
  loop = NULL
)
