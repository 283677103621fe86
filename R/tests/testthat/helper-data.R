# Shared simulations for the tests (the SPORF paper's trunk and a rotated
# boundary that oblique splits capture better than axis-aligned ones).
make_trunk <- function(n, p, seed) {
  set.seed(seed)
  y <- rep(0:1, length.out = n)
  mu <- 1 / sqrt(seq_len(p))
  x <- matrix(rnorm(n * p), n, p) + outer(ifelse(y == 1, 1, -1), mu)
  list(x = x, y = factor(y))
}

make_rotated <- function(n, seed) {
  set.seed(seed)
  x <- matrix(runif(n * 4, -1, 1), n, 4)
  y <- factor(ifelse(x[, 1] + x[, 2] > 0, "pos", "neg"))
  list(x = x, y = y)
}

# A model's bytes without the binding note a formula fit adds (its formula):
# the trees and parameters, to compare a formula fit with a matrix fit.
model_without_note <- function(fit) {
  handle <- .Call(sporf:::C_sporf_r_load, fit$model)
  .Call(sporf:::C_sporf_r_set_note, handle, raw(0))
  .Call(sporf:::C_sporf_r_save, handle)
}
