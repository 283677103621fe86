# The installed package's help: its vignette is listed and opens.

test_that("vignette(package = \"sporf\") finds the getting-started document", {
  v <- vignette(package = "sporf")$results
  expect_true("sporf" %in% v[, "Item"])
  expect_true(nzchar(system.file("doc", "sporf.html", package = "sporf")))
})

test_that("predict's help maps ranger's $survival form to type = \"survival\"", {
  rd <- tools::Rd_db("sporf")[["predict.sporf.Rd"]]
  text <- paste(utils::capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))), collapse = " ")
  expect_true(grepl("predict(fit, d)$survival", text, fixed = TRUE))
  expect_true(grepl("type = \"survival\"", text, fixed = TRUE))
})
