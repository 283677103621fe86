# One benchmark run of ranger on one dataset (see peers.py).
#   Rscript peers_worker.R DATA_DIR DATASET N_JOBS N_TREES
# Prints one JSON line, as peers_worker.py does.
suppressPackageStartupMessages(library(ranger))
args <- commandArgs(trailingOnly = TRUE)
data <- args[1]; dataset <- args[2]; n_jobs <- as.integer(args[3]); trees <- as.integer(args[4])

status_mb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(strsplit(trimws(sub(paste0(field, ":"), "", line)), "\\s+")[[1]][1]) / 1024
}
f64 <- function(part) {
  f <- file.path(data, sprintf("%s_%s.f64", dataset, part))
  readBin(f, "double", n = file.info(f)$size / 8, size = 8, endian = "little")
}
ytr <- f64("ytr"); yte <- f64("yte")
p <- length(f64("Xtr")) / length(ytr)
xtr <- matrix(f64("Xtr"), ncol = p, byrow = TRUE)
xte <- matrix(f64("Xte"), ncol = p, byrow = TRUE)
colnames(xtr) <- colnames(xte) <- sprintf("f%d", seq_len(p))
levels <- sort(unique(ytr))

before <- status_mb("VmRSS")
t <- proc.time()[["elapsed"]]
# Fully grown probability forest: min.node.size 1 (its default is 10 for
# probability forests), sqrt(p) candidates, bootstrap samples.
m <- ranger(x = xtr, y = factor(ytr, levels = levels), num.trees = trees, mtry = floor(sqrt(p)),
            min.node.size = 1, probability = TRUE, num.threads = n_jobs, seed = 1)
fit_s <- proc.time()[["elapsed"]] - t
peak <- status_mb("VmHWM")
# the test set is predicted 5 times, as in peers_worker.py: the median call
# is reported, the first kept apart
calls <- numeric(5)
for (k in seq_along(calls)) {
  t <- proc.time()[["elapsed"]]
  proba <- predict(m, data = xte, num.threads = n_jobs)$predictions
  calls[k] <- proc.time()[["elapsed"]] - t
}
predict_s <- median(calls)
first_predict_s <- calls[1]
error <- mean(levels[max.col(proba, ties.method = "first")] != yte)
lat <- numeric(300)
for (i in seq_len(300)) {
  x1 <- xte[((i - 1) %% nrow(xte)) + 1, , drop = FALSE]
  t0 <- Sys.time()
  predict(m, data = x1, num.threads = 1)
  lat[i] <- as.numeric(difftime(Sys.time(), t0, units = "secs")) * 1e3
}
lat <- lat[-(1:20)]
nodes <- sum(vapply(m$forest$child.nodeIDs, function(tr) length(tr[[1]]), numeric(1)))
size <- length(serialize(m, NULL))
cat(sprintf(paste0('{"fit_s": %.6f, "predict_s": %.6f, "first_predict_s": %.6f, "p50_ms": %.6f, "p99_ms": %.6f, ',
                   '"model_mb": %.6f, "nodes": %d, "peak_mb": %.3f, "fit_mb": %.3f, "error": %.6f}\n'),
            fit_s, predict_s, first_predict_s, quantile(lat, 0.5), quantile(lat, 0.99), size / 1e6, as.integer(nodes), peak,
            peak - before, error))
