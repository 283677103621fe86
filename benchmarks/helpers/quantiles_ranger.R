# ranger's quantile regression forest for benchmarks/peers/quantiles.py: fit on
# train.csv (last column the response), predict the quantiles of test.csv,
# write them and the timings.
#   Rscript benchmarks/helpers/quantiles_ranger.R DIR N_TREES THREADS [PROBS]
# PROBS: comma-separated probabilities (default 0.1,0.5,0.9).
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
n_trees <- as.integer(args[2])
threads <- as.integer(args[3])
probs <- if (length(args) >= 4) as.numeric(strsplit(args[4], ",")[[1]]) else c(0.1, 0.5, 0.9)
suppressPackageStartupMessages(library(ranger))
train <- read.csv(file.path(dir, "train.csv"))
test <- as.matrix(read.csv(file.path(dir, "test.csv")))
x <- as.matrix(train[, -ncol(train), drop = FALSE])
y <- train[[ncol(train)]]
colnames(test) <- colnames(x)
fit_s <- system.time(fit <- ranger(x = x, y = y, num.trees = n_trees, quantreg = TRUE,
                                   num.threads = threads, seed = 0))[["elapsed"]]
pred_s <- system.time(q <- predict(fit, test, type = "quantiles", quantiles = probs,
                                   num.threads = threads)$predictions)[["elapsed"]]
write.csv(q, file.path(dir, "ranger_q.csv"), row.names = FALSE)
writeLines(sprintf("%f %f %d", fit_s, pred_s, length(serialize(fit, NULL))), file.path(dir, "ranger_t.txt"))
