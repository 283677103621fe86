# Calibrated prediction intervals: predict(type = "interval") and
# calibrate_intervals(), the conformal rule, the coverage it buys, and what
# refuses (Python's side: tests/python/test_intervals.py; both languages give
# the same intervals: test_cross_language.py).

hetero <- function(n, seed) {
  set.seed(seed)
  x <- matrix(runif(n * 4, -3, 3), n)
  list(x = x, y = x[, 1] + (1 + abs(x[, 1])) * rnorm(n))
}

test_that("the calibrated interval is the quantiles at the conformal levels", {
  tr <- hetero(800, 1)
  fit <- sporf(tr$x, tr$y, n_estimators = 40, quantiles = TRUE, random_state = 2)
  expect_identical(fit$interval_calibration, "out-of-bag")
  expect_length(fit$interval_scores, 800)
  te <- hetero(100, 2)
  s <- sort(fit$interval_scores[!is.na(fit$interval_scores)])
  q <- s[ceiling(0.9 * (length(s) + 1) - 1e-9)]
  expected <- predict(fit, te$x, type = "quantiles", quantiles = c(0.5 - q - 1e-9, 0.5 + q + 1e-9))
  got <- predict(fit, te$x, type = "interval", coverage = 0.9)
  expect_equal(unname(got), unname(expected), tolerance = 0)
  expect_identical(colnames(got), c("lower", "upper"))
  # coverage or calibrated without a type asks for the interval
  expect_identical(predict(fit, te$x, coverage = 0.9), got)
  raw <- predict(fit, te$x, calibrated = FALSE, coverage = 0.8)
  expect_equal(unname(raw), unname(predict(fit, te$x, quantiles = c(0.1, 0.9))), tolerance = 0)
})

test_that("calibration mends the under-coverage, and held-out rows calibrate too", {
  tr <- hetero(3000, 3)
  te <- hetero(10000, 4)
  hit <- function(iv) mean(iv[, 1] <= te$y & te$y <= iv[, 2])
  # Meinshausen's forest (best cuts on bootstraps) under-covers; calibrated,
  # it covers as asked. A forest that kept its random-cut trees alone (the
  # defaults, here) calibrates on rows left out of about 6 of its 30 trees,
  # whose out-of-bag intervals are noisier than the forest's: it errs on the
  # safe side (0.81-0.82 at 60 trees, 0.81 at 200)
  for (splitter in c("best", "auto")) {
    fit <- sporf(tr$x, tr$y, n_estimators = 60, quantiles = TRUE, random_state = 3, splitter = splitter)
    got <- hit(predict(fit, te$x, type = "interval", coverage = 0.8))
    if (splitter == "best") {
      expect_lt(hit(predict(fit, te$x, type = "interval", coverage = 0.8, calibrated = FALSE)), 0.79)
      expect_lt(abs(got - 0.8), 0.02)
    } else {
      expect_gt(got, 0.79)
      expect_lt(got, 0.83)
    }
  }
  cal <- hetero(301, 5)
  held <- calibrate_intervals(fit, cal$x, cal$y)
  expect_identical(held$interval_calibration, "held-out")
  iv <- predict(held, cal$x, type = "interval", coverage = 0.8)
  expect_gte(sum(iv[, 1] <= cal$y & cal$y <= iv[, 2]), ceiling(0.8 * 302))
})

test_that("forests without calibration, and bad arguments, are refused by name", {
  tr <- hetero(300, 6)
  whole <- sporf(tr$x, tr$y, n_estimators = 10, quantiles = TRUE, bootstrap = FALSE, random_state = 1)
  expect_null(whole$interval_scores)
  expect_error(predict(whole, tr$x[1:3, ], type = "interval"), "calibrate_intervals")
  expect_identical(dim(predict(whole, tr$x[1:3, ], type = "interval", calibrated = FALSE)), c(3L, 2L))
  fit <- sporf(tr$x, tr$y, n_estimators = 10, quantiles = TRUE, random_state = 1)
  path <- tempfile(fileext = ".sporf")
  sporf_save(fit, path)
  expect_error(predict(sporf_load(path), tr$x[1:3, ], type = "interval"), "read from a file")
  expect_error(predict(fit, tr$x[1:3, ], type = "interval", coverage = 1), "coverage")
  expect_error(predict(fit, tr$x[1:3, ], type = "interval", coverage = "0.9"), "coverage")
  expect_error(predict(fit, tr$x[1:3, ], type = "interval", calibrated = NA), "calibrated")
  expect_error(predict(fit, tr$x[1:3, ], type = "response", coverage = 0.8), "type = \"interval\"")
  expect_error(calibrate_intervals(fit, tr$x[1:5, ], tr$y[1:4]), "4 values")
  expect_error(calibrate_intervals(fit, tr$x[1:2, ], c(1, NA)), "finite")
  plain <- sporf(tr$x, tr$y, n_estimators = 5, random_state = 1)
  expect_error(predict(plain, tr$x[1:3, ], type = "interval"), "quantiles = TRUE")
  expect_error(calibrate_intervals(plain, tr$x[1:3, ], tr$y[1:3]), "quantiles = TRUE")
})

test_that("grow() recomputes the out-of-bag calibration, as one fit of all the trees has it", {
  tr <- hetero(400, 7)
  # best cuts: grow() keeps the first fit's choice of trees, made on 10 trees
  grown <- grow(sporf(tr$x, tr$y, n_estimators = 10, quantiles = TRUE, random_state = 2, splitter = "best"), 10)
  whole <- sporf(tr$x, tr$y, n_estimators = 20, quantiles = TRUE, random_state = 2, splitter = "best")
  expect_identical(grown$interval_scores, whole$interval_scores)
  expect_identical(predict(grown, tr$x[1:5, ], type = "interval"), predict(whole, tr$x[1:5, ], type = "interval"))
})

test_that("a survival forest's event-time intervals: out of bag, held out, grown, refused by name", {
  skip_if_not_installed("survival")
  set.seed(3)
  n <- 1600
  x <- matrix(rnorm(n * 3), n)
  event_time <- rexp(n, exp(x[, 1]))
  censor <- rexp(n, 1 / 3)
  y <- survival::Surv(pmin(event_time, censor), as.integer(event_time <= censor))
  fit <- sporf(x[1:1000, ], y[1:1000], n_estimators = 100, random_state = 4)
  expect_identical(fit$interval_calibration, "out-of-bag")
  censored <- y[1:1000, 2] == 0
  expect_true(all(is.na(fit$interval_scores[censored])) && all(fit$interval_weights[censored] == 0))
  expect_true(all(fit$interval_weights[!censored & !is.na(fit$interval_scores)] >= 1))
  iv <- predict(fit, x[1201:1600, ], type = "interval", coverage = 0.8)
  expect_identical(colnames(iv), c("lower", "upper"))
  expect_identical(iv, predict(fit, x[1201:1600, ], coverage = 0.8))  # coverage alone asks for it
  expect_true(all(iv[, "lower"] <= iv[, "upper"]))
  covered <- mean(iv[, "lower"] <= event_time[1201:1600] & event_time[1201:1600] <= iv[, "upper"])
  expect_gt(covered, 0.72)
  expect_lt(covered, 0.88)
  held <- calibrate_intervals(fit, x[1001:1200, ], y[1001:1200])
  expect_identical(held$interval_calibration, "held-out")
  expect_false(identical(predict(held, x[1201:1210, ], coverage = 0.8), iv[1:10, ]))
  grown <- grow(sporf(x[1:1000, ], y[1:1000], n_estimators = 50, random_state = 4), 50)
  expect_identical(grown$interval_scores, fit$interval_scores)
  expect_identical(grown$interval_weights, fit$interval_weights)
  expect_error(predict(fit, x[1:2, ], type = "risk", coverage = 0.8), "type = \"interval\"")
  expect_error(predict(fit, x[1:2, ], type = "interval", coverage = 1), "coverage")
  expect_error(calibrate_intervals(fit, x[1:5, ], y[1:4]), "y has 4 rows but x has 5")
  expect_error(calibrate_intervals(fit, x[1:5, ], event_time[1:5]), "Surv")
  expect_error(calibrate_intervals(fit, x[1:5, ], survival::Surv(event_time[1:5], rep(0L, 5))),
               "no calibration row has an event")
  whole <- sporf(x[1:300, ], y[1:300], n_estimators = 5, bootstrap = FALSE, random_state = 1)
  expect_null(whole$interval_scores)
  expect_error(predict(whole, x[1:2, ], type = "interval"), "calibrate_intervals")
  expect_identical(dim(predict(whole, x[1:2, ], type = "interval", calibrated = FALSE)), c(2L, 2L))
})
