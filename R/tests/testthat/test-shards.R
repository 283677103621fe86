# sporf forests take a fixed leaf size in the first tests; with the default
# "auto" shards leave the choice to merge_forests(), which chooses for every
# shard's trees (the tests after them; test-fit.R tests how grow() keeps it).
# Shards of one forest (first_tree) and merge_forests(): every kind of forest
# merges into the single fit's exact bytes; anything that is not a shard of
# the same forest is refused with a message.

shard_data <- function() {
  set.seed(11)
  x <- matrix(rnorm(300 * 6), 300, 6)
  list(x = x, y = factor(ifelse(x[, 1] + x[, 2] > 0, "a", "b")), yr = x[, 1]^2 + x[, 3])
}

test_that("shards of every kind merge into the single fit, in any order", {
  d <- shard_data()
  grids <- array(rnorm(120 * 4 * 5), c(120, 4, 5))
  ygrid <- factor(grids[, 2, 3] > 0)
  fits <- list(
    classifier = function(n, first) sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = n, first_tree = first, random_state = 5,
                                          max_depth = 6),
    honest = function(n, first) sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = n, first_tree = first, random_state = 5,
                                      projection = "axis", honest_fraction = 0.4, honest_prior = "ignore"),
    regression = function(n, first) sporf(d$x, d$yr, min_samples_leaf = 3, n_estimators = n, first_tree = first, random_state = 5),
    morf = function(n, first) morf(grids, ygrid, n_estimators = n, first_tree = first, random_state = 5,
                                   max_patch_dims = 2),
    urerf = function(n, first) urerf(d$x, n_estimators = n, first_tree = first, random_state = 5, max_depth = 6)
  )
  for (kind in names(fits)) {
    f <- fits[[kind]]
    whole <- f(11, 0)
    merged <- merge_forests(f(5, 6), f(2, 0), f(4, 2))
    expect_identical(merged$model, whole$model, info = kind)
    expect_identical(class(merged), class(whole), info = kind)
    expect_equal(merged$params$n_estimators, 11, info = kind)
    expect_null(merged$params$first_tree, info = kind) # the whole forest
  }
  # a merged urerf keeps the shared training rows: neighbours work at once
  u <- merge_forests(list(fits$urerf(3, 0), fits$urerf(3, 3)))
  expect_identical(kneighbors(u, n_neighbors = 3)$index, kneighbors(fits$urerf(6, 0), n_neighbors = 3)$index)
})

test_that("a shard is those trees of the full fit", {
  d <- shard_data()
  whole <- sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 8, random_state = 2)
  part <- sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 3, first_tree = 4, random_state = 2)
  expect_identical(predict(part, d$x[1:40, ], type = "leaf"), predict(whole, d$x[1:40, ], type = "leaf")[, 5:7])
})

test_that("shards grown in parallel R processes merge into the single fit", {
  skip_on_os("windows")
  d <- shard_data()
  shards <- parallel::mclapply(c(0, 4, 8), function(first)
    sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 4, first_tree = first, random_state = 9), mc.cores = 2L)
  expect_identical(merge_forests(shards)$model, sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 12, random_state = 9)$model)
})

test_that("with min_samples_leaf \"auto\" the merge chooses for the whole forest: the single fit's bytes", {
  set.seed(0)
  x <- matrix(rnorm(2000 * 10), 2000, 10)
  y <- factor(x[, 1] * x[, 2] > 0)
  whole <- sporf(x, y, n_estimators = 40, random_state = 5)
  a <- sporf(x, y, n_estimators = 10, first_tree = 0, random_state = 5)
  b <- sporf(x, y, n_estimators = 30, first_tree = 10, random_state = 5)
  expect_null(a$min_samples_leaf) # a shard has not chosen: it keeps its sums for the merge
  merged <- merge_forests(b, a)
  expect_identical(merged$model, whole$model)
  expect_equal(merged$min_samples_leaf, whole$min_samples_leaf)
  expect_equal(merged$leaf_scores, whole$leaf_scores)
  # the first 10 trees alone choose otherwise, so the test can fail
  expect_false(sporf(x, y, n_estimators = 10, random_state = 5)$min_samples_leaf == whole$min_samples_leaf)
  # through files, and on noisy responses, where large leaves win
  fa <- tempfile(fileext = ".sporf")
  sporf_save(a, fa)
  expect_identical(merge_forests(sporf_load(fa), b)$model, whole$model)
  yr <- x[, 1] + rnorm(2000, sd = 2)
  rwhole <- sporf(x, yr, n_estimators = 20, random_state = 3)
  expect_gt(rwhole$min_samples_leaf, 1)
  shards <- parallel::mclapply(c(0, 5, 10, 15), function(first)
    sporf(x, yr, n_estimators = 5, first_tree = first, random_state = 3), mc.cores = 2L)
  expect_identical(merge_forests(shards)$model, rwhole$model)
  # a forest that chose from its own trees does not join a shard that did not
  expect_error(merge_forests(sporf(x, y, n_estimators = 10, random_state = 5), b), "one forest chose its leaf size")
})

test_that("merging refuses what is not one forest", {
  d <- shard_data()
  a <- sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 3, random_state = 1)
  shard <- function(first = 3, ...) sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 3, first_tree = first, ...)
  expect_error(merge_forests(a, a), "both hold trees 0-2")
  expect_error(merge_forests(a, shard(2, random_state = 1)), "both hold trees 2-2")
  expect_error(merge_forests(a, shard(5, random_state = 1)), "no forest holds trees 3-4")
  expect_error(merge_forests(a, shard(random_state = 2)), "different random_state")
  expect_error(merge_forests(a, shard(random_state = 1, max_features = 3)), "different max_features")
  expect_error(merge_forests(a, sporf(d$x[, 1:5], d$y, min_samples_leaf = 3, n_estimators = 3, first_tree = 3, random_state = 1)),
               "different numbers of features")
  expect_error(merge_forests(a, sporf(d$x, factor(d$y, labels = c("p", "q")), min_samples_leaf = 3, n_estimators = 3,
                                      first_tree = 3, random_state = 1)), "different classes")
  expect_error(merge_forests(a, urerf(d$x, n_estimators = 3, first_tree = 3, random_state = 1)), "of one kind")
  expect_error(merge_forests(a, "forest"), "takes sporf forests")
  expect_error(merge_forests(), "at least one")
  for (bad in list(-1, 1.5, "0", NA, 2^60))
    expect_error(sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 2, first_tree = bad), "first_tree")
})

test_that("a forest reloaded from saveRDS merges (its handle is rebuilt)", {
  d <- shard_data()
  a <- sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 3, random_state = 1)
  f <- tempfile(fileext = ".rds")
  saveRDS(a, f)
  a2 <- readRDS(f)
  unlink(f)
  b <- sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 3, first_tree = 3, random_state = 1)
  expect_identical(merge_forests(a2, b)$model, sporf(d$x, d$y, min_samples_leaf = 3, n_estimators = 6, random_state = 1)$model)
})

test_that("a forest of both kinds of trees (splitter = 'mixed') is the same forest from shards and threads", {
  # even trees cut at their best on bootstrap samples, odd trees at random on
  # subsamples of 0.8 of the rows: a shard grows its trees' kinds, and
  # merge_forests() chooses the leaf size for them all
  d <- shard_data()
  f <- function(n, first, ...) sporf(d$x, d$y, splitter = "mixed", n_estimators = n, first_tree = first,
                                     random_state = 8, ...)
  whole <- sporf(d$x, d$y, splitter = "mixed", n_estimators = 13, random_state = 8)
  expect_identical(whole$model, sporf(d$x, d$y, splitter = "mixed", n_estimators = 13, random_state = 8,
                                      n_jobs = 2)$model)
  expect_identical(merge_forests(f(5, 8), f(3, 0), f(5, 3))$model, whole$model)
  expect_equal(merge_forests(f(5, 8), f(3, 0), f(5, 3))$min_samples_leaf, whole$min_samples_leaf)
  # the odd trees are splitter "random"'s on that subsample: the same leaves
  rnd <- sporf(d$x, d$y, splitter = "random", bootstrap = FALSE, max_samples = 0.8, n_estimators = 4,
               min_samples_leaf = 1, random_state = 8)
  mixed <- sporf(d$x, d$y, splitter = "mixed", n_estimators = 4, min_samples_leaf = 1, random_state = 8)
  for (k in c(2, 4)) expect_identical(get_tree(mixed, k), get_tree(rnd, k))
  expect_false(identical(get_tree(mixed, 1), get_tree(rnd, 1)))
  expect_gt(mean(predict(whole, d$x[1:100, ]) == d$y[1:100]), 0.9)
  expect_error(sporf(d$x, d$y, splitter = "mix"), "splitter")
})

test_that("splitter = 'auto' keeps the trees that score best out of bag, wherever they grew", {
  # both kinds grow as "mixed" grows them; the out-of-bag sums choose all the
  # trees or one kind's half, with the leaf size: shards leave the choice to
  # merge_forests(), and grow() adds trees of the kinds kept
  d <- shard_data()
  whole <- sporf(d$x, d$y, splitter = "auto", n_estimators = 24, random_state = 3)
  expect_true(whole$splitter %in% c("mixed", "best", "random"))
  expect_identical(names(whole$splitter_scores), c("mixed", "best", "random"))
  expect_equal(unname(whole$splitter_scores[whole$splitter]), min(whole$splitter_scores))
  expect_identical(whole$params$splitter, "auto")
  f <- function(n, first) sporf(d$x, d$y, splitter = "auto", n_estimators = n, first_tree = first, random_state = 3)
  merged <- merge_forests(f(9, 15), f(15, 0))
  expect_identical(merged$model, whole$model)
  expect_identical(merged$splitter, whole$splitter)
  grown <- grow(whole, 4, x = d$x, y = d$y)
  expect_identical(grown$splitter, whole$splitter)
  # grow() counts the trees grown, as Python's warm start does: a forest that
  # kept one kind of its 24 trees holds 12, and grown by 10 that kind's 17 of 34
  for (seed in 3:40) {
    one <- sporf(d$x, d$y, splitter = "auto", n_estimators = 24, random_state = seed)
    if (one$splitter != "mixed") break
  }
  expect_false(identical(one$splitter, "mixed"))
  expect_equal(one$n_estimators, 12L)
  more <- grow(one, 10, x = d$x, y = d$y)
  expect_equal(more$n_estimators, 17L)
  expect_equal(more$call$n_estimators, 34)
  expect_equal(grow(more, 1, x = d$x, y = d$y)$n_estimators, if (more$splitter == "best") 18L else 17L)
  # with a leaf size given it grows best cuts
  expect_identical(sporf(d$x, d$y, splitter = "auto", min_samples_leaf = 3, n_estimators = 4, random_state = 1)$model,
                   sporf(d$x, d$y, splitter = "best", min_samples_leaf = 3, n_estimators = 4, random_state = 1)$model)
})
