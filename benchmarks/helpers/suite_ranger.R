# ranger on one data set of the suite (see suite.py): every fold, defaults
# except the thread count.
#   Rscript suite_ranger.R CSV FOLDS TASK N_JOBS SEED [SPLITRULE]
# SPLITRULE: ranger's splitrule (e.g. "extratrees"); its default when absent.
# FOLDS: one fold id (0..4) per row. Prints one line per fold: fold score,
# with score Cohen's kappa (clf) or R^2 (reg).
suppressPackageStartupMessages(library(ranger))
a <- commandArgs(trailingOnly = TRUE)
d <- utils::read.csv(a[1])
fold <- scan(a[2], quiet = TRUE)
task <- a[3]; n_jobs <- as.integer(a[4]); seed <- as.integer(a[5])
splitrule <- if (length(a) >= 6) a[6] else NULL
if (task == "clf") d$target <- factor(d$target)
kappa <- function(y, p) {
  lv <- union(levels(y), levels(p)); y <- factor(y, lv); p <- factor(p, lv)
  t <- table(y, p); n <- sum(t); po <- sum(diag(t)) / n
  pe <- sum(rowSums(t) * colSums(t)) / n^2
  if (pe == 1) return(1)
  (po - pe) / (1 - pe)
}
for (k in sort(unique(fold))) {
  tr <- d[fold != k, , drop = FALSE]; te <- d[fold == k, , drop = FALSE]
  m <- ranger(target ~ ., data = tr, num.threads = n_jobs, seed = seed + k, splitrule = splitrule,
              verbose = FALSE) # its progress lines would mix with the scores
  p <- predict(m, te, num.threads = n_jobs, verbose = FALSE)$predictions
  s <- if (task == "clf") kappa(te$target, p) else 1 - sum((te$target - p)^2) / sum((te$target - mean(te$target))^2)
  cat(k, s, "\n")
}
