/*
 * params.h -- parameters inside the core: the generated per-field code
 * (params_gen.c, from spec/params.toml) and the hand-written rest (params.c):
 * checks that relate fields, the resolution of a user's forms (fractions,
 * "sqrt", defaults per axis) against the data, and the parameter layout of
 * model formats 1-5.
 */
#ifndef SPORF_PARAMS_H
#define SPORF_PARAMS_H

#include "util/bytes.h"
#include "model/model.h"

/* ---- generated (params_gen.c) ---- */

/* Each field on its own: its range, its choice codes, its amount forms.
 * SPORF_E_ARG with "<name> must be <what the spec allows>; got <value>". */
int sporf_params_check_fields(const sporf_params *p, sporf_error *err);
/* The parameters of a model of format version (>= 10), in the spec's order:
 * those of its version and older. */
void sporf_params_write(const sporf_params *p, sporf_writer *w, uint32_t version);
/* Read what sporf_params_write wrote for a model of this version (>= 6);
 * parameters newer than the version keep their defaults. The caller checks
 * r->bad and then the values (sporf_params_check). */
void sporf_params_read(sporf_params *p, sporf_reader *r, uint32_t version);
/* The name of the first parameter shards must agree on (spec: shards =
 * "agree") that differs between a and b, or NULL. */
const char *sporf_params_differing(const sporf_params *a, const sporf_params *b);
/* The model format version of the spec (format_version). */
extern const uint32_t sporf_params_format_version;

/* ---- hand-written (params.c; the wording of a bad parameter,
 * sporf_param_error, is in util/error.h) ---- */

/* The number of single features searched at an oblique node besides its
 * oblique candidates (axis_features, at most p; 0 for projection "axis"). */
int64_t sporf_params_resolve_axis_features(const sporf_params *p, int64_t n_features);

/* Out-of-bag tuning (api/tune.c). The candidates around base for p
 * features into out (at most SPORF_TUNE_MAX_CANDIDATES; the grid sporf.h
 * describes), returning their number; base comes first, keeping its forms. */
int32_t sporf_params_tune_grid(const sporf_params *base, int64_t p, sporf_params *out);
/* The structure grid of SPORF_TUNE_STRUCTURE (sporf.h), the same way. */
int32_t sporf_params_tune_structure_grid(const sporf_params *base, int64_t p, sporf_params *out);
/* Trees [from, to) of p's forest as a forest of their own (a shard). */
sporf_params sporf_params_shard(const sporf_params *p, int64_t from, int64_t to);
/* The trees a candidate has `halvings` rounds before the end: ceil(T / 2^halvings). */
int64_t sporf_params_tune_trees(const sporf_params *p, int32_t halvings);
/* Does p's forest take its leaf size out of bag (min_samples_leaf "auto",
 * fit/leaf_choice.h)? */
int sporf_params_leaf_auto(const sporf_params *p);
/* With "auto": the size already chosen (the value a fit that chose records
 * in its forest's parameters, so that trees added later -- warm start, the
 * rounds of tune_oob, shards after the first -- are pruned alike), or 0
 * while it is still to be chosen. 0 for any other form. */
int64_t sporf_params_leaf_chosen(const sporf_params *p);
/* The leaves "auto" grows its trees to before choosing, on n rows: one row
 * up to SPORF_LEAF_GROWN_ONE_MAX rows, two above. On the suite's small sets
 * growing to leaves of 2 instead of 1 lost kappa (0.6093 -> 0.6075 over 72
 * sets of at most 1,000 rows) while it saved nothing there; on 10,000 x 784
 * the last level cost 14% of the fit (leaves of 1: 4.49 s, of 2: 3.94 s,
 * 100 trees, two threads), and the suite, which subsamples to 5,000 rows,
 * has no set where leaves of 2 could lose. */
enum { SPORF_LEAF_GROWN_ONE_MAX = 5000 };
int64_t sporf_params_leaf_auto_grown(int64_t n);
/* Record k as the size "auto" chose (p's form is "auto"). */
void sporf_params_set_leaf_chosen(sporf_params *p, int64_t k);
/* The one refusal of a leaf size chosen out of bag where it cannot be:
 * SPORF_E_ARG with a message that names the parameter and `why`. */
int sporf_params_leaf_auto_error(sporf_error *err, const char *why);

/* The refusals about the rows a forest's trees draw, in one wording: `what`
 * (a fit's or query's name) needs rows left out of the trees, which p's
 * forest has not; draws rows per tree are more than the n_total there are. */
int sporf_params_no_rows_out_error(sporf_error *err, const char *what);
int sporf_params_draws_error(sporf_error *err, int64_t draws, int64_t n_total);

/* SPORF_OK when p can be tuned by out-of-bag error (its trees sample rows). */
int sporf_params_check_tunable(const sporf_params *p, sporf_error *err);

/* Sizes resolved against n training rows: min_samples_split (>= 2),
 * min_samples_leaf (>= 1) and the rows drawn per tree (n without bootstrap). */
/* The tree range a fit grows: trees first .. first + count - 1 of the forest
 * its seed begins (shards, warm starts). Tree t of the fit draws from stream
 * sporf_params_tree_stream(p, t). */
int64_t sporf_params_n_trees(const sporf_params *p);
int64_t sporf_params_first_tree(const sporf_params *p);
uint64_t sporf_params_tree_stream(const sporf_params *p, int64_t t);
/* The share of the rows the best-cut trees draw that a "mixed" forest's
 * random-cut trees draw, without replacement. */
#define SPORF_MIXED_RANDOM_SHARE 0.8
/* Splitter "auto" once the forest chose (fit/leaf_choice.h): the trees it
 * grew alternate as "mixed"'s, and it kept the best-cut trees (the even trees
 * of the seed's forest), the random-cut trees (the odd ones) or both. A
 * forest that kept one kind numbers its trees in that kind: its tree t is
 * tree 2 t (best cuts) or 2 t + 1 (random cuts) of the seed's forest
 * (sporf_params_tree_stream), so its out-of-bag rows and the trees a warm
 * start adds follow. Bindings show these codes as "auto" (the spec's
 * chosen_as). */
#define SPORF_SPLITTER_CHOSE_BEST (SPORF_SPLITTER_AUTO + 1)
#define SPORF_SPLITTER_CHOSE_RANDOM (SPORF_SPLITTER_AUTO + 2)
#define SPORF_SPLITTER_CHOSE_BOTH (SPORF_SPLITTER_AUTO + 3)
/* Does p grow both kinds of trees, alternating ("mixed", "auto" before its
 * choice and once it kept both)? */
int sporf_params_two_kinds(const sporf_params *p);
/* Does p choose among its kinds of trees ("auto", not yet chosen)? */
int sporf_params_chooses_kinds(const sporf_params *p);
/* The kinds a forest of p's ("auto") kept -- 0 both, 1 the best-cut trees,
 * 2 the random-cut trees -- recorded: n_trees trees left, the first of them
 * tree first of the forest before (its local number). */
void sporf_params_keep_kinds(sporf_params *p, int kept, int64_t n_trees, int64_t first);
/* The kinds an "auto" forest kept (0 both, 1 best cuts, 2 random cuts), or
 * -1 (not chosen, or another splitter). */
int sporf_params_kinds_kept(const sporf_params *p);
/* splitter "auto" chooses its kinds of trees on up to this many training
 * rows, and grows best cuts on more. A kind kept alone keeps half the trees
 * grown: on large data, where best cuts win, that costs more than the choice
 * gains (make_classification 30,000 x 30: test error 0.0237 against 0.0227 for
 * best cuts on all 100 trees; 10,000 x 784: 0.1104 against 0.1068), and the
 * random-cut trees, grown deeper on 0.8 of the rows, cost more there than they
 * save (benchmarks/notes/defaults.md). */
enum { SPORF_KINDS_AUTO_MAX_ROWS = 5000 };
/* p as a fit on n training rows grows it: splitter "auto" where the fit
 * does not choose its kinds of trees -- it does not choose its leaf size out
 * of bag (a size given, or no rows out of bag), or has more than
 * SPORF_KINDS_AUTO_MAX_ROWS rows -- is best cuts, as splitter "best" grows
 * them; any other p is itself. The fit and every listing of a tree's draws
 * (sporf_tree_draws) resolve it alike. */
sporf_params sporf_params_for_rows(const sporf_params *p, int64_t n);
/* SPORF_E_ARG: a forest that grows best cuts only was asked for other kinds of
 * trees, and why. */
int sporf_params_kinds_error(sporf_error *err, const char *why);
/* Does tree t of the fit's range (stream sporf_params_tree_stream(p, t))
 * cut at random: every tree of splitter "random", the odd trees of the seed's
 * forest for "mixed"? */
int sporf_params_tree_random(const sporf_params *p, int64_t t);
/* The parameters tree t of the fit's range grows with: p itself, except a
 * "mixed" forest's random-cut trees, which cut at random (splitter "random")
 * on a subsample without replacement of SPORF_MIXED_RANDOM_SHARE of the rows
 * the best-cut trees draw (max_samples: that share of a fraction or count,
 * 0.8 of all rows by default). Every step that draws a tree's rows reads
 * them from here, so the fit, the out-of-bag passes and the cluster's
 * gathered rows agree. */
sporf_params sporf_params_of_tree(const sporf_params *p, int64_t t);
/* A merged forest's parameters: its shards' with the joined tree count. */
void sporf_params_set_n_trees(sporf_params *p, int64_t count);

int64_t sporf_resolve_min_samples_split(const sporf_params *p, int64_t n);
int64_t sporf_resolve_min_samples_leaf(const sporf_params *p, int64_t n);
/* The rows drawn per tree: max_samples resolved against n (n by default),
 * with the bootstrap or without (a subsample); n when p samples no rows. */
int64_t sporf_resolve_draws(const sporf_params *p, int64_t n);
/* Does a tree of p grow on a sample of the rows -- bootstrap draws, or a
 * subsample without replacement (bootstrap off, max_samples set) -- leaving
 * rows out of bag? Without either, every tree grows on every row. */
int sporf_params_samples_rows(const sporf_params *p);

/* Axis k's patch sizes, defaults resolved: [min_patch_dims[k] or 1,
 * max_patch_dims[k] or max(lo, min(D, ceil(sqrt(D))))]. */
void sporf_patch_bounds(const sporf_params *p, int32_t k, int64_t *lo, int64_t *hi);

/* The parameter block of model formats 1-5 (a fixed layout, frozen). */
void sporf_params_read_legacy(sporf_params *p, sporf_reader *r, uint32_t version);

#endif
