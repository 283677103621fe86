# ranger's survival forests (log-rank and extratrees rules) and a Cox model
# for benchmarks/peers/survival.py: fit on DIR/train.csv (numeric features,
# then `time` and `status`), predict DIR/test.csv's survival at DIR/times.csv
# and a risk score, write them with the timings and model sizes.
#   Rscript benchmarks/helpers/survival_r.R DIR N_TREES THREADS
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
n_trees <- as.integer(args[2])
threads <- as.integer(args[3])
suppressPackageStartupMessages({library(ranger); library(survival)})
train <- read.csv(file.path(dir, "train.csv"))
test <- read.csv(file.path(dir, "test.csv"))
times <- read.csv(file.path(dir, "times.csv"))$time
features <- setdiff(names(train), c("time", "status"))
# A step function's values at `at`: the last value at or before each (1 before the first).
step_at <- function(x, S, at) {
  idx <- findInterval(at, x)
  out <- matrix(1, nrow(S), length(at))
  out[, idx > 0] <- S[, idx[idx > 0], drop = FALSE]
  out
}
write_model <- function(name, S, risk, fit_s, pred_s, size) {
  write.csv(S, file.path(dir, paste0(name, "_surv.csv")), row.names = FALSE)
  write.csv(data.frame(risk = risk), file.path(dir, paste0(name, "_risk.csv")), row.names = FALSE)
  writeLines(sprintf("%f %f %.0f", fit_s, pred_s, size), file.path(dir, paste0(name, "_t.txt")))
}
for (rule in c("logrank", "extratrees")) {
  fit_s <- system.time(fit <- ranger(Surv(time, status) ~ ., data = train, num.trees = n_trees,
                                     splitrule = rule, num.threads = threads, seed = 0))[["elapsed"]]
  pred_s <- system.time(p <- predict(fit, test, num.threads = threads))[["elapsed"]]
  # risk: the cumulative hazard summed over the training event times (as sporf's)
  write_model(paste0("ranger_", rule), step_at(p$unique.death.times, p$survival, times), rowSums(p$chf),
              fit_s, pred_s, length(serialize(fit, NULL)))
}
fml <- as.formula(paste("Surv(time, status) ~", paste(sprintf("`%s`", features), collapse = " + ")))
fit_s <- system.time(cox <- coxph(fml, data = train, x = FALSE, y = FALSE, model = FALSE))[["elapsed"]]
pred_s <- system.time({
  sf <- survfit(cox, newdata = test)
  S <- t(summary(sf, times = times, extend = TRUE)$surv)
  lp <- predict(cox, newdata = test, type = "lp")
})[["elapsed"]]
write_model("coxph", S, lp, fit_s, pred_s, length(serialize(cox, NULL)))
