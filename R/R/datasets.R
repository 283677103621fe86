# The papers' simulated problems, with the same names, arguments and
# distributions as Python's sporf.datasets (the draws differ: R and numpy have
# different generators). Each returns list(x = features, y = classes): a factor of
# the class codes 0, 1, ... (Python returns ints; a factor of whole numbers is
# stored as integer labels, so fits on the same codes give the same model bytes,
# and an integer y would grow a regression forest, as in randomForest).

.classes <- function(y) factor(y, levels = sort(unique(y)))

# Evaluate expr with R's generator seeded by random_state (whole number), or
# with the current stream (NULL); the caller's stream is restored afterwards.
.with_seed <- function(random_state, expr) {
  if (is.null(random_state)) return(expr)
  if (!.is_whole(random_state) || random_state < 0)
    .bad_param("random_state", "NULL or a whole number >= 0", random_state)
  had <- exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  if (had) old <- get(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (had) assign(".Random.seed", old, envir = globalenv())
          else rm(".Random.seed", envir = globalenv()))
  set.seed(random_state %% 2147483647)
  expr
}

.check_n <- function(n_samples) {
  if (!.is_whole(n_samples) || n_samples < 1) .bad_param("n_samples", "a whole number >= 1", n_samples)
}

make_sparse_parity <- function(n_samples, n_features = 20, n_relevant = 3, random_state = NULL) {
  .check_n(n_samples)
  if (n_relevant > n_features)
    stop(sprintf("n_relevant (%d) cannot exceed n_features (%d)", n_relevant, n_features), call. = FALSE)
  .with_seed(random_state, {
    x <- matrix(stats::runif(n_samples * n_features, -1, 1), n_samples, n_features)
    y <- as.integer(rowSums(x[, seq_len(n_relevant), drop = FALSE] > 0) %% 2L)
    list(x = x, y = .classes(y))
  })
}

make_orthant <- function(n_samples, n_features = 6, random_state = NULL) {
  .check_n(n_samples)
  .with_seed(random_state, {
    x <- matrix(stats::runif(n_samples * n_features, -1, 1), n_samples, n_features)
    y <- as.integer(drop((x > 0) %*% 2^(seq_len(n_features) - 1)))
    list(x = x, y = .classes(y))
  })
}

make_trunk <- function(n_samples, n_features = 10, random_state = NULL) {
  .check_n(n_samples)
  .with_seed(random_state, {
    y <- sample(c(rep(1L, n_samples %/% 2), rep(0L, n_samples - n_samples %/% 2)))
    mu <- 1 / sqrt(seq_len(n_features))
    x <- matrix(stats::rnorm(n_samples * n_features), n_samples, n_features) + outer(ifelse(y == 1L, 1, -1), mu)
    list(x = x, y = .classes(y))
  })
}

make_circle_segments <- function(n_samples, n_features = 100, random_state = NULL) {
  .check_n(n_samples)
  if (n_features < 14) stop("n_features must be >= 14 to hold two separated segments", call. = FALSE)
  .with_seed(random_state, {
    y <- sample(0:1, n_samples, replace = TRUE)
    x <- matrix(0, n_samples, n_features)
    for (i in seq_len(n_samples)) {
      lengths <- if (y[i] == 0L) c(5, 5) else sample(c(4, 6))
      a <- sample.int(n_features, 1) - 1
      # the second segment starts at least one empty cell after the first and
      # ends at least one empty cell before it (they neither overlap nor touch)
      gap_room <- n_features - lengths[1] - lengths[2] - 2
      b <- (a + lengths[1] + 1 + sample.int(gap_room + 1, 1) - 1) %% n_features
      x[i, (a + seq_len(lengths[1]) - 1) %% n_features + 1] <- 1
      x[i, (b + seq_len(lengths[2]) - 1) %% n_features + 1] <- 1
    }
    list(x = x, y = .classes(y))
  })
}

make_bars <- function(n_samples, size = 28, mean_bars = 10, random_state = NULL) {
  .check_n(n_samples)
  .with_seed(random_state, {
    y <- sample(0:1, n_samples, replace = TRUE)
    x <- array(0, c(n_samples, size, size))
    for (i in seq_len(n_samples)) {
      img <- matrix(0, size, size)
      for (b in seq_len(max(1, stats::rpois(1, mean_bars)))) {
        thick <- sample.int(3, 1)
        len <- sample(3:size, 1)
        r <- sample.int(size - thick + 1, 1)
        c <- sample.int(size - len + 1, 1)
        img[r:(r + thick - 1), c:(c + len - 1)] <- 1
      }
      x[i, , ] <- if (y[i] == 1L) t(img) else img
    }
    list(x = x, y = .classes(y))
  })
}

make_impulse <- function(n_samples, n_steps = 100, onset = 20, decay = 10, random_state = NULL) {
  .check_n(n_samples)
  .with_seed(random_state, {
    y <- sample(0:1, n_samples, replace = TRUE)
    t <- seq_len(n_steps) - 1
    signal <- ifelse(t >= onset, exp(-(t - onset) / decay), 0)
    x <- matrix(stats::rnorm(n_samples * n_steps), n_samples, n_steps) + outer(y, signal)
    list(x = x, y = .classes(y))
  })
}

# The URerF paper's four manifolds, as Python's sporf.datasets.make_manifold:
# the signal (and the geodesic distances) of "linear", "helix" and "sphere" are
# deterministic grids and equal Python's exactly; the noise and the mixture are
# drawn from R's generator.
make_manifold <- function(kind, n_samples = 1000, n_noise = 0, noise_scale = 1, random_state = NULL) {
  .check_n(n_samples)
  if (!is.character(kind) || length(kind) != 1L || !(kind %in% c("linear", "helix", "sphere", "gmm")))
    stop("kind must be \"linear\", \"helix\", \"sphere\" or \"gmm\"", call. = FALSE)
  n <- n_samples
  .with_seed(random_state, {
    labels <- rep(0L, n)
    if (kind == "linear") {
      t <- (seq_len(n) - 0.5) / n
      s <- cbind(4 * t, 6 * t, 9 * t)
      arc <- t * sqrt(16 + 36 + 81)
      D <- abs(outer(arc, arc, "-"))
    } else if (kind == "helix") {
      t <- 2 * pi + 7 * pi * (seq_len(n) - 0.5) / n
      s <- cbind(t * cos(t), t * sin(t), t)
      r <- sqrt(t^2 + 2) # |dp/dt|; the arc length from 0 is t/2 r + log(t + r)
      arc <- t / 2 * r + log(t + r)
      D <- abs(outer(arc, arc, "-"))
    } else if (kind == "sphere") {
      n_u <- ceiling(sqrt(2 * n))
      n_v <- ceiling(n / n_u)
      u <- 2 * pi * (seq_len(n_u) - 0.5) / n_u
      v <- pi * (seq_len(n_v) - 0.5) / n_v
      uu <- rep(u, times = n_v)[seq_len(n)] # numpy's meshgrid order: u varies fastest
      vv <- rep(v, each = n_u)[seq_len(n)]
      s <- 9 * cbind(cos(uu) * sin(vv), sin(uu) * sin(vv), cos(vv))
      D <- 9 * acos(pmin(pmax(tcrossprod(s) / 81, -1), 1))
    } else {
      labels <- sample(0:2, n, replace = TRUE, prob = c(0.3, 0.3, 0.4))
      s <- 3 * (labels - 1) + matrix(stats::rnorm(n * 3), n, 3)
      D <- as.matrix(stats::dist(s))
    }
    diag(D) <- 0
    x <- cbind(s, matrix(noise_scale * stats::rnorm(n * n_noise), n, n_noise))
    list(x = unname(x), geodesic = unname(D), labels = labels)
  })
}
