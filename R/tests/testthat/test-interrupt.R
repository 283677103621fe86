test_that("Ctrl-C cancels a fit and the session stays usable", {
  skip_on_cran()
  skip_on_os("windows")
  dir <- tempfile("sporf-int")
  dir.create(dir)
  script <- file.path(dir, "fit.R")
  pidfile <- file.path(dir, "pid")
  out <- file.path(dir, "out")
  writeLines(c(
    sprintf(".libPaths(c(%s, .libPaths()))", paste(deparse(.libPaths()), collapse = "")),
    "library(sporf)",
    "set.seed(1); x <- matrix(rnorm(20000 * 20), ncol = 20); y <- factor(x[, 1] > 0)",
    sprintf("writeLines(as.character(Sys.getpid()), %s)", deparse(pidfile)),
    "t0 <- Sys.time()",
    "r <- tryCatch(sporf(x, y, n_estimators = 100000, max_depth = 8, n_jobs = 1), interrupt = function(e) 'INTERRUPTED')",
    "cat(r, as.numeric(Sys.time() - t0, units = 'secs'), '\\n')",
    "m <- sporf(x[1:100, ], y[1:100], n_estimators = 3, random_state = 1)",
    "cat('SESSION OK', length(predict(m, x[1:4, ])), '\\n')"), script)
  rscript <- file.path(R.home("bin"), "Rscript")
  system2(rscript, script, stdout = out, stderr = out, wait = FALSE)
  for (i in 1:100) { if (file.exists(pidfile)) break; Sys.sleep(0.1) }
  expect_true(file.exists(pidfile))
  Sys.sleep(1.5)
  tools::pskill(as.integer(readLines(pidfile)), tools::SIGINT)
  for (i in 1:150) { if (any(grepl("SESSION OK", readLines(out, warn = FALSE)))) break; Sys.sleep(0.1) }
  text <- readLines(out, warn = FALSE)
  expect_true(any(grepl("^INTERRUPTED", text)), info = paste(text, collapse = "\n"))
  expect_true(any(grepl("SESSION OK 4", text)), info = paste(text, collapse = "\n"))
  unlink(dir, recursive = TRUE)
})
