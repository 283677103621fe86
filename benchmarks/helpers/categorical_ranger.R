# ranger on a data set with one factor column for benchmarks/peers/categorical.py:
# fit on train.csv (column f a factor, last column the response), predict
# test.csv, write the predictions.
#   Rscript benchmarks/helpers/categorical_ranger.R DIR N_TREES THREADS TASK
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
n_trees <- as.integer(args[2])
threads <- as.integer(args[3])
classification <- args[4] != "regression"
suppressPackageStartupMessages(library(ranger))
train <- read.csv(file.path(dir, "train.csv"), stringsAsFactors = FALSE)
test <- read.csv(file.path(dir, "test.csv"), stringsAsFactors = FALSE)
lv <- sort(unique(c(train$f, test$f)))
train$f <- factor(train$f, levels = lv)
test$f <- factor(test$f, levels = lv)
if (classification) train$y <- factor(train$y)
fit <- ranger(y ~ ., data = train, num.trees = n_trees, respect.unordered.factors = "order",
              num.threads = threads, seed = 0)
pred <- predict(fit, test, num.threads = threads)$predictions
write.csv(data.frame(p = if (classification) as.character(pred) else pred), file.path(dir, "pred.csv"),
          row.names = FALSE)
