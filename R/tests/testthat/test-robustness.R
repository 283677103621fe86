# Resource limits: a forest that cannot fit in memory is refused at once, and
# running out of memory is an R error after which R goes on.

test_that("a forest that cannot fit in memory is refused at once", {
  d <- sporf::make_trunk(1000, 10, random_state = 0)
  expect_error(sporf(d$x, factor(d$y), n_estimators = 1e8), "more than this machine's")
  expect_error(sporf(d$x, d$x[, 1], n_estimators = 1e8, max_depth = 20), "max_depth")
  expect_error(urerf(d$x, n_estimators = 1e8), "more than this machine's")
})

test_that("running out of memory is an R error, and R goes on", {
  skip_on_cran()
  skip_on_os(c("windows", "mac", "solaris"))
  skip_if(nzchar(Sys.getenv("LD_PRELOAD")), "a preloaded sanitizer runtime reserves more address space than any cap")
  rscript <- file.path(R.home("bin"), "Rscript")
  lib <- dirname(find.package("sporf"))
  prologue <- c(sprintf(".libPaths(c(%s, .libPaths()))", deparse(lib)), "library(sporf)",
                "d <- make_trunk(20000, 20, random_state = 0)", "y <- factor(d$y)")
  run <- function(lines, limit_kb = NULL) {
    script <- tempfile(fileext = ".R")
    on.exit(unlink(script))
    writeLines(c(prologue, lines), script)
    cmd <- paste(if (!is.null(limit_kb)) sprintf("ulimit -v %d;", limit_kb), shQuote(rscript), shQuote(script), "2>&1")
    suppressWarnings(system2("bash", c("-c", shQuote(cmd)), stdout = TRUE))
  }
  # The address space R needs with the package and the data loaded ...
  base <- run("cat('VM', sub('[^0-9]*([0-9]+).*', '\\\\1', grep('^VmSize', readLines('/proc/self/status'), value = TRUE)), '\\n')")
  vm_kb <- as.numeric(sub("VM ", "", grep("^VM", base, value = TRUE)))
  expect_true(length(vm_kb) == 1 && vm_kb > 0)
  # ... plus 48 MB: far too little for 3000 fully grown trees on 20,000 rows.
  out <- run(c(
    "r <- tryCatch({sporf(d$x, y, n_estimators = 3000, n_jobs = 1); 'no error'}, error = conditionMessage)",
    "cat('ERR:', r, '\\n')",
    "small <- sporf(d$x[1:2000, ], y[1:2000], n_estimators = 5, n_jobs = 1, random_state = 0)",
    "cat('AFTER:', mean(predict(small, d$x[1:2000, ]) == y[1:2000]) > 0.9, '\\n')"), limit_kb = vm_kb + 48 * 1024)
  expect_true(any(grepl("ERR: (out of memory|cannot allocate)", out)), info = paste(out, collapse = "\n"))
  expect_true(any(grepl("AFTER: TRUE", out)), info = paste(out, collapse = "\n"))
})
