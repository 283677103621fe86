/* concordance.c -- Harrell's C in O(n log n) (concordance.h).
 *
 * The rows are visited by time, latest first, a group of tied times at a
 * time. Every row of a later time is already counted in a Fenwick tree over
 * the ranks of the risks; the group's censored rows are added before its
 * events are judged (an event is comparable with a censored row of the same
 * time), its events after. An event then counts, among the rows in the
 * tree, those of lower risk (concordant), of equal risk (tied) and all of
 * them (comparable). */
#include "util/concordance.h"
#include "util/error.h"
#include "util/sort.h"

#include <math.h>
#include <stdlib.h>

static void fenwick_add(int64_t *tree, int64_t size, int64_t at)
{
    for (int64_t i = at + 1; i <= size; i += i & -i) tree[i]++;
}

/* rows counted at ranks [0, at) */
static int64_t fenwick_below(const int64_t *tree, int64_t at)
{
    int64_t s = 0;
    for (int64_t i = at; i > 0; i -= i & -i) s += tree[i];
    return s;
}

void sporf_concordance_counts(const double *time, const int32_t *event, const double *risk, int64_t n,
                              int64_t *rows, int64_t *ranks, int64_t *tree, double *concordant, double *tied,
                              double *comparable)
{
    *concordant = *tied = *comparable = 0.0;
    /* the dense ranks of the risks (equal risks, one rank) */
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (!isnan(risk[i])) rows[m++] = i;
    if (!sporf_order_rows_by_key(risk, rows, m)) {
        *comparable = -1.0;
        return;
    }
    int64_t n_ranks = 0;
    for (int64_t k = 0; k < m; k++) {
        if (k > 0 && risk[rows[k]] != risk[rows[k - 1]]) n_ranks++;
        ranks[rows[k]] = n_ranks;
    }
    n_ranks++;
    if (!sporf_order_rows_by_key(time, rows, m)) {
        *comparable = -1.0;
        return;
    }
    for (int64_t i = 0; i <= n_ranks; i++) tree[i] = 0;
    int64_t in_tree = 0;
    for (int64_t hi = m; hi > 0;) {
        int64_t lo = hi - 1;
        while (lo > 0 && time[rows[lo - 1]] == time[rows[hi - 1]]) lo--;
        for (int64_t k = lo; k < hi; k++)
            if (!event[rows[k]]) {
                fenwick_add(tree, n_ranks, ranks[rows[k]]);
                in_tree++;
            }
        for (int64_t k = lo; k < hi; k++) {
            if (!event[rows[k]])
                continue;
            const int64_t r = ranks[rows[k]];
            const int64_t below = fenwick_below(tree, r), upto = fenwick_below(tree, r + 1);
            *concordant += (double)below;
            *tied += (double)(upto - below);
            *comparable += (double)in_tree;
        }
        for (int64_t k = lo; k < hi; k++)
            if (event[rows[k]]) {
                fenwick_add(tree, n_ranks, ranks[rows[k]]);
                in_tree++;
            }
        hi = lo;
    }
}

double sporf_concordance(const double *time, const int32_t *event, const double *risk, int64_t n, int *oom)
{
    int64_t *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    int64_t *ranks = malloc((size_t)(n > 0 ? n : 1) * sizeof *ranks);
    int64_t *tree = malloc((size_t)(n + 1) * sizeof *tree);
    double c = NAN, conc, tied, comp = -1.0;
    if (rows && ranks && tree) {
        sporf_concordance_counts(time, event, risk, n, rows, ranks, tree, &conc, &tied, &comp);
        if (comp > 0.0) c = (conc + 0.5 * tied) / comp;
    }
    if (comp < 0.0 && oom) *oom = 1;
    free(rows);
    free(ranks);
    free(tree);
    return c;
}

int sporf_concordance_index(const double *time, const int32_t *event, const double *risk, int64_t n, double *c_out,
                            sporf_error *err)
{
    sporf_clear_error(err);
    if (!c_out || n < 0 || (n > 0 && (!time || !event || !risk)))
        return sporf_set_error(err, SPORF_E_ARG, "concordance_index: time, event, risk and c_out are required");
    for (int64_t i = 0; i < n; i++) {
        if (!(time[i] >= 0.0 && time[i] <= 1e100))
            return sporf_set_error(err, SPORF_E_ARG, "concordance_index: time[%lld] = %g is not a time >= 0",
                                   (long long)i, time[i]);
        if (event[i] != 0 && event[i] != 1)
            return sporf_set_error(err, SPORF_E_ARG, "concordance_index: event[%lld] = %d is not 0 or 1",
                                   (long long)i, event[i]);
        if (isinf(risk[i]))
            return sporf_set_error(err, SPORF_E_ARG, "concordance_index: risk[%lld] is infinite", (long long)i);
    }
    int oom = 0;
    *c_out = sporf_concordance(time, event, risk, n, &oom);
    return oom ? sporf_set_error(err, SPORF_E_NOMEM, "out of memory") : SPORF_OK;
}
