# Export the benchmark suite's real data sets that come with Debian's r-cran-*
# packages as CSV files (numeric features, target in the last column "target").
#
#   Rscript benchmarks/suite_data.R OUTDIR
#
# Factors become indicator columns (model.matrix, first level dropped),
# ordered factors their integer codes; rows with a missing value are dropped
# (missing values are measured by missing.py). Data sets reserved for
# independent evaluation are never used, under any name or from any package.
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[[1]] else "/tmp/sporf_suite"
dir.create(out, showWarnings = FALSE, recursive = TRUE)

raw <- function(name, pkg) { e <- new.env(); data(list = name, package = pkg, envir = e); e[[name]] }
get <- function(name, pkg) as.data.frame(raw(name, pkg))

numeric_frame <- function(d) {
  for (j in names(d)) {
    if (is.ordered(d[[j]])) d[[j]] <- as.integer(d[[j]])
    else if (is.logical(d[[j]])) d[[j]] <- as.integer(d[[j]])
    else if (is.character(d[[j]])) d[[j]] <- factor(d[[j]])
    if (is.factor(d[[j]]) && nlevels(droplevels(d[[j]])) < 2) d[[j]] <- NULL
  }
  m <- model.matrix(~ . - 1, data = d)
  # model.matrix keeps every level of the first factor: drop one for the rest alike
  as.data.frame(m)
}

save <- function(name, task, d, target, drop = character(0), transform = identity) {
  d <- d[, setdiff(names(d), drop), drop = FALSE]
  d <- d[stats::complete.cases(d), , drop = FALSE]
  y <- d[[target]]
  d[[target]] <- NULL
  if (task == "clf") y <- as.integer(factor(y)) - 1L else y <- transform(as.numeric(y))
  x <- numeric_frame(d)
  names(x) <- make.names(names(x), unique = TRUE)
  x$target <- y
  utils::write.csv(x, file.path(out, sprintf("%s__%s.csv", task, name)), row.names = FALSE)
  cat(sprintf("%-28s %s %5d x %4d\n", name, task, nrow(x), ncol(x) - 1L))
}

# ---- classification
crabs <- get("crabs", "MASS"); crabs$kind <- paste(crabs$sp, crabs$sex)
save("crabs", "clf", crabs, "kind", drop = c("sp", "sex", "index"))
save("synth", "clf", rbind(get("synth.tr", "MASS"), get("synth.te", "MASS")), "yc")
save("spam", "clf", get("spam", "kernlab"), "type")
save("musk", "clf", get("musk", "kernlab"), "Class")
save("penguins", "clf", get("penguins", "palmerpenguins"), "species")
save("ad_data", "clf", get("ad_data", "modeldata"), "Class")
save("cells", "clf", get("cells", "modeldata"), "class", drop = "case")
save("hpc_data", "clf", get("hpc_data", "modeldata"), "class")
save("mlc_churn", "clf", get("mlc_churn", "modeldata"), "churn", drop = c("state", "area_code"))
save("oils", "clf", get("oils", "modeldata"), "class")
save("two_class_dat", "clf", get("two_class_dat", "modeldata"), "Class")
save("pd_speech", "clf", get("pd_speech", "modeldata"), "class")
save("scat", "clf", get("scat", "modeldata"), "Species")
tge <- raw("tissue_gene_expression", "dslabs")
save("tissue_gene_expression", "clf", data.frame(tge$x, tissue = tge$y), "tissue")
save("olive", "clf", get("olive", "dslabs"), "region", drop = "area")
save("swiss_labor", "clf", get("SwissLabor", "AER"), "participation")
save("hmda", "clf", get("HMDA", "AER"), "deny")
save("credit_card", "clf", get("CreditCard", "AER"), "card", drop = c("share", "expenditure"))
save("wells", "clf", get("Wells", "carData"), "switch")
save("cowles", "clf", get("Cowles", "carData"), "volunteer")

# ---- regression
save("cpus", "reg", get("cpus", "MASS"), "perf", drop = c("name", "estperf"), transform = log)
save("uscrime", "reg", get("UScrime", "MASS"), "y")
save("concrete", "reg", get("concrete", "modeldata"), "compressive_strength")
save("ames", "reg", get("ames", "modeldata"), "Sale_Price", transform = log10)
meats <- get("meats", "modeldata")
save("meats_water", "reg", meats, "water", drop = c("fat", "protein"))
save("sacramento", "reg", get("Sacramento", "modeldata"), "price", drop = c("city", "zip"), transform = log10)
save("car_prices", "reg", get("car_prices", "modeldata"), "Price", transform = log10)
save("biomass", "reg", get("biomass", "modeldata"), "HHV", drop = c("sample", "dataset"))
save("cps1985", "reg", get("CPS1985", "AER"), "wage", transform = log)
save("caschools", "reg", get("CASchools", "AER"), "read", drop = c("district", "school", "county", "math"))
save("teaching_ratings", "reg", get("TeachingRatings", "AER"), "eval", drop = "prof")
save("prestige", "reg", get("Prestige", "carData"), "prestige")
save("salaries", "reg", get("Salaries", "carData"), "salary", transform = log)
