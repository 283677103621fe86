# Survival forests: sporf() on a survival::Surv y, predict() of risks and
# curves, the restricted mean, Harrell's C, persistence and refusals; the
# same numbers as Python's (test_cross_language.py).

simulate_survival <- function(n, seed) {
  set.seed(seed)
  x <- matrix(rnorm(n * 5), n, dimnames = list(NULL, paste0("x", 1:5)))
  eta <- x[, 1] + x[, 2] - 0.5 * x[, 3]
  t <- rexp(n, exp(eta))
  cens <- runif(n, 0, 4)
  list(x = x, time = pmin(t, cens), status = as.integer(t <= cens), eta = eta)
}

brute_c <- function(time, status, risk) {
  conc <- 0; comp <- 0
  for (i in which(status == 1)) {
    j <- which(time > time[i] | (time == time[i] & status == 0))
    comp <- comp + length(j)
    conc <- conc + sum(risk[i] > risk[j]) + 0.5 * sum(risk[i] == risk[j])
  }
  conc / comp
}

test_that("a survival forest learns proportional hazards, with curves that agree with its risk", {
  skip_if_not_installed("survival")
  tr <- simulate_survival(500, 1)
  te <- simulate_survival(400, 2)
  fit <- sporf(tr$x, survival::Surv(tr$time, tr$status), n_estimators = 60, oob_score = TRUE, random_state = 1)
  expect_identical(fit$task, "survival")
  risk <- predict(fit, te$x)
  truth <- concordance_index(survival::Surv(te$time, te$status), te$eta)
  expect_gt(concordance_index(survival::Surv(te$time, te$status), risk), truth - 0.05)
  expect_gt(fit$oob_score, truth - 0.07)
  expect_equal(concordance_index(te$time, risk, status = te$status), brute_c(te$time, te$status, risk))
  H <- predict(fit, te$x[1:20, ], type = "chf")
  expect_identical(dim(H), c(20L, length(fit$unique_times)))
  expect_equal(rowSums(H[, fit$is_event_time]), unname(risk[1:20]), tolerance = 1e-10)
  S <- predict(fit, te$x[1:20, ], type = "survival", times = c(0.5, 1, 2))
  expect_true(all(S >= 0 & S <= 1) && all(apply(S, 1, diff) <= 0))
  rmst <- restricted_mean(fit, te$x[1:20, ], 2)
  expect_true(all(rmst > 0 & rmst <= 2))
  expect_identical(predict(fit), fit$oob_predictions)
})

test_that("formula interface, Surv status as 1/2 or logical, and persistence", {
  skip_if_not_installed("survival")
  d <- simulate_survival(300, 3)
  df <- data.frame(d$x, time = d$time, status = d$status + 1L)  # 1 censored, 2 event (Surv's other coding)
  f1 <- sporf(survival::Surv(time, status) ~ ., data = df, n_estimators = 20, random_state = 4)
  f2 <- sporf(d$x, survival::Surv(d$time, d$status == 1), n_estimators = 20, random_state = 4)
  expect_identical(unname(predict(f1, df)), predict(f2, d$x))
  path <- tempfile(fileext = ".sporf")
  sporf_save(f2, path)
  back <- sporf_load(path)
  expect_identical(back$task, "survival")
  expect_identical(predict(back, d$x, type = "survival"), predict(f2, d$x, type = "survival"))
  expect_output(print(f2), "survival forest")
  expect_output(print(summary(f2)), "survival")
  imp <- sporf(d$x, survival::Surv(d$time, d$status), n_estimators = 40, importance = "permutation",
               random_state = 5)$permutation_importance
  expect_true(all(names(sort(imp, decreasing = TRUE))[1:2] %in% c("x1", "x2")))
})

test_that("bad survival data is refused with the reason", {
  skip_if_not_installed("survival")
  d <- simulate_survival(100, 6)
  expect_error(sporf(d$x, survival::Surv(d$time, rep(0L, 100))), "no row has an event")
  expect_error(sporf(d$x, survival::Surv(-d$time, d$status)), "time")
  expect_error(sporf(d$x[1, , drop = FALSE], survival::Surv(d$time[1], d$status[1])), "at least 2 rows")
  expect_error(sporf(d$x, survival::Surv(d$time, d$time + 1, d$status)), "right-censored")
  expect_error(sporf(d$x, survival::Surv(d$time, d$status), honest_fraction = 0.5, honest_prior = "empirical"),
               "honest_prior")
  fit <- sporf(d$x, survival::Surv(d$time, d$status), n_estimators = 5, random_state = 1)
  expect_error(predict(fit, d$x, type = "prob"), "type must be one of")
  expect_error(predict(fit, d$x, type = "risk", times = 1), "times are for")
  expect_error(restricted_mean(fit, d$x, -1), "horizon")
  expect_error(predict(fit, d$x[1:10, ], oob = TRUE), "training data")
  expect_error(predict(fit), "newdata is required")
})

test_that("min_events_split: survival defaults, a root too poor in events stays a leaf, other forests refuse it", {
  skip_if_not_installed("survival")
  d <- simulate_survival(200, 7)
  y <- survival::Surv(d$time, d$status)
  fit <- sporf(d$x, y, n_estimators = 3, random_state = 1)
  expect_identical(fit$params$min_events_split, 16)
  expect_identical(fit$params$min_samples_leaf, 3)
  bare <- sporf(d$x, y, n_estimators = 3, bootstrap = FALSE, min_events_split = sum(d$status) + 1, random_state = 1)
  expect_length(unique(predict(bare, d$x)), 1)  # every tree is its root
  split <- sporf(d$x, y, n_estimators = 3, bootstrap = FALSE, min_events_split = sum(d$status), random_state = 1)
  expect_gt(length(unique(predict(split, d$x))), 1)
  expect_error(sporf(d$x, d$eta, n_estimators = 3, min_events_split = 3), "min_events_split")
  expect_error(sporf(d$x, y, min_events_split = -1), "min_events_split")
})

test_that("plot(fit) of a survival forest draws its out-of-bag error as trees are added", {
  set.seed(6)
  x <- matrix(rnorm(300 * 4), ncol = 4)
  t <- rexp(300, exp(x[, 1] - 0.5 * x[, 2]))
  cens <- runif(300, 0, 3)
  y <- survival::Surv(pmin(t, cens), as.integer(t <= cens))
  fit <- sporf(x, y, n_estimators = 40, oob_score = TRUE, random_state = 2)
  curve <- fit$oob_error_curve
  expect_length(curve, 40)
  expect_identical(curve[40], 1 - fit$oob_score) # the whole forest's out-of-bag 1 - C, to the bit
  expect_gt(curve[2], curve[40])                  # more trees, fewer errors on a real signal
  expect_lt(curve[40], 0.4)
  grDevices::pdf(NULL)
  drawn <- plot(fit)
  grDevices::dev.off()
  expect_identical(drawn, curve)
  plain <- sporf(x, y, n_estimators = 5, random_state = 2)
  expect_null(plain$oob_error_curve)
  expect_error(plot(plain), "oob_score = TRUE.*plot\\(fit, newdata\\)")
})

test_that("plot(fit, newdata) names its curves, and summary() tells the times and events", {
  set.seed(5)
  x <- matrix(rnorm(120), 40)
  fit <- sporf(x, survival::Surv(rexp(40) + 0.1, rbinom(40, 1, 0.7)), n_estimators = 5, random_state = 1)
  grDevices::pdf(NULL)
  grDevices::dev.control("enable")
  plot(fit, x[1:3, ])
  drawn <- paste(utils::capture.output(print(grDevices::recordPlot()[[1L]])), collapse = " ")
  grDevices::dev.off()
  expect_true(grepl("\"row\"", drawn)) # the legend's title
  expect_output(print(summary(fit)), "distinct in .* with an event")
})
