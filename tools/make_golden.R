# Write the R golden model from the golden data (see tests/golden/README.md).
#   Rscript tools/make_golden.R [golden-dir]
args <- commandArgs(trailingOnly = TRUE)
golden <- if (length(args)) args[1] else file.path("tests", "golden")
library(sporf)
read_f64 <- function(f, p) {
  v <- readBin(f, "double", n = file.info(f)$size / 8, size = 8, endian = "little")
  matrix(v, ncol = p, byrow = TRUE)
}
x <- read_f64(file.path(golden, "train_x.f64"), 7)
y <- readLines(file.path(golden, "train_y.txt"))
xt <- read_f64(file.path(golden, "test_x.f64"), 7)
# The same parameters as tools/make_golden.py, but a different seed and the
# axis-aligned projection, so the two golden models differ.
m <- sporf(x, y, n_estimators = 12, max_features = 4, projection = "axis", max_depth = 8,
           min_samples_leaf = 2, axis_features = 0, guided_features = 0, max_bins = 0,
           random_state = 4242)
sporf_save(m, file.path(golden, "r_model.sporf"))
proba <- predict(m, xt, type = "prob")
writeBin(as.vector(t(proba)), file.path(golden, "r_proba.f64"), size = 8, endian = "little")
cat("wrote r_model.sporf and r_proba.f64\n")
