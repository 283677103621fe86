# Single-row predict latency through R's API (the aim: p50 <= 0.3 ms).
#   Rscript benchmarks/speed/latency_r.R
# Uses the peers' make_classification 100,000 x 30 data when present
# (python benchmarks/peers/peers.py writes it to /tmp/sporf_bench), else its own.
suppressPackageStartupMessages(library(sporf))
data <- Sys.getenv("SPORF_BENCH_DATA", "/tmp/sporf_bench")
f <- file.path(data, "mc_100k_30_Xtr.f64")
if (file.exists(f)) {
  x <- matrix(readBin(f, "double", n = file.info(f)$size / 8), ncol = 30, byrow = TRUE)
  y <- readBin(file.path(data, "mc_100k_30_ytr.f64"), "double", n = nrow(x))
} else {
  set.seed(0); x <- matrix(rnorm(100000 * 30), ncol = 30); y <- as.numeric(x[, 1] + x[, 2] > 0)
}
for (projection in c("sparse", "axis")) {
  m <- sporf(x, factor(y), n_estimators = 100, projection = projection, min_samples_leaf = 1,
             random_state = 0, n_jobs = 2)  # fully grown, as in peers.py
  for (type in c("prob", "class")) {
    lat <- numeric(1000)
    for (i in seq_along(lat)) {
      x1 <- x[i, , drop = FALSE]
      t0 <- Sys.time()
      predict(m, x1, type = type)
      lat[i] <- as.numeric(difftime(Sys.time(), t0, units = "secs")) * 1e3
    }
    lat <- lat[-(1:50)]
    cat(sprintf("R predict(type = \"%s\"), one row, %s, 100 trees on 100,000 x 30: p50 %.3f ms, p99 %.3f ms\n",
                type, projection, quantile(lat, 0.5), quantile(lat, 0.99)))
  }
}
