# The survival benchmark's sets from R packages (benchmarks/peers/survival.py):
# each written to DIR/<name>.csv, its features then `time` and `status` (1 =
# event). Factors stay factors (the driver one-hot encodes them).
#   Rscript benchmarks/helpers/survival_sets.R DIR
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
suppressPackageStartupMessages(library(survival))
out <- function(name, df) write.csv(df, file.path(dir, paste0(name, ".csv")), row.names = FALSE)
# lung (NCCTG advanced lung cancer): status 1 censored, 2 dead
l <- survival::lung
out("lung", data.frame(l[, setdiff(names(l), c("time", "status", "inst"))], time = l$time, status = l$status - 1L))
# pbc (Mayo primary biliary cholangitis), the 312 trial patients; the event is death
# (a transplant is censored there)
p <- survival::pbc[!is.na(survival::pbc$trt), ]
out("pbc", data.frame(p[, setdiff(names(p), c("id", "time", "status"))], time = p$time,
                      status = as.integer(p$status == 2)))
# colon (adjuvant chemotherapy for colon cancer): the death record of each patient
cl <- survival::colon[survival::colon$etype == 2, ]
out("colon", data.frame(cl[, setdiff(names(cl), c("id", "study", "time", "status", "etype"))], time = cl$time,
                        status = cl$status))
# nafld1 (non-alcoholic fatty liver disease, Olmsted county): death
n <- survival::nafld1
out("nafld1", data.frame(n[, c("age", "male", "weight", "height", "bmi", "case.id")], nafld = as.integer(!is.na(n$case.id) & n$id == n$case.id),
                         time = n$futime, status = n$status)[, -6])
# Rossi et al. (1980) recidivism, as lifelines' load_rossi holds it (carData's Rossi)
r <- carData::Rossi
out("rossi", data.frame(r[, c("fin", "age", "race", "wexp", "mar", "paro", "prio")], time = r$week, status = r$arrest))

# ---- The fifth confirmation half's survival sets (benchmarks/peers/survival.py's
# CONFIRMATION_SETS): written down on 2026-11-29, before any model ran on them,
# from the documentation and the columns' names alone; none took part in any
# choice. Packages: r-cran-survminer r-cran-pammtools r-cran-mass r-cran-relsurv (Debian's).
raw <- function(name, pkg) { e <- new.env(); data(list = name, package = pkg, envir = e); e[[name]] }
# multiple myeloma patients: survival with six genes' expression (survminer)
m <- raw("myeloma", "survminer")
out("confirm5_myeloma", data.frame(m[, setdiff(names(m), c("time", "event"))], time = m$time, status = m$event))
# surgery for tumours of the stomach area (pammtools): survival after the operation
t <- raw("tumor", "pammtools")
out("confirm5_tumor", data.frame(t[, setdiff(names(t), c("days", "status"))], time = t$days, status = t$status))
# malignant melanoma after surgery (MASS): death from melanoma; deaths from other
# causes are censored, as the documentation's status codes suggest
mel <- MASS::Melanoma
out("confirm5_melanoma", data.frame(mel[, c("sex", "age", "year", "thickness", "ulcer")], time = mel$time,
                                    status = as.integer(mel$status == 1)))
# colorectal cancer patients of the Slovene cancer registry (relsurv): death; the
# date of diagnosis as a number of days
cr <- raw("colrec", "relsurv")
out("confirm5_colrec", data.frame(sex = cr$sex, age = as.numeric(cr$age), diag = as.numeric(unclass(cr$diag)),
                                  stage = cr$stage, site = cr$site, time = cr$time, status = cr$stat))
