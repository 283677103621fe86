library(testthat)
library(sporf)

test_check("sporf")
