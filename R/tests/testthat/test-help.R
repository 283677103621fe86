# The installed package's help: its vignette is listed and opens.

test_that("vignette(package = \"sporf\") finds the getting-started document", {
  v <- vignette(package = "sporf")$results
  expect_true("sporf" %in% v[, "Item"])
  expect_true(nzchar(system.file("doc", "sporf.html", package = "sporf")))
})
