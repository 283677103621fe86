/* survival.c -- a survival forest's leaves (survival.h). */
#include "model/survival.h"

#include <math.h>
#include <stdlib.h>

static int ascending(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int32_t sporf_surv_grid(const double *time, const int32_t *event, int64_t n, double *grid)
{
    int64_t E = 0;
    for (int64_t i = 0; i < n; i++) E += event[i] != 0;
    if (E == 0)
        return 0;
    double *t = malloc((size_t)E * sizeof *t);
    if (!t)
        return -1;
    for (int64_t i = 0, k = 0; i < n; i++)
        if (event[i]) t[k++] = time[i];
    qsort(t, (size_t)E, sizeof *t, ascending);
    for (int32_t m = 0; m < SPORF_SURV_GRID; m++)
        grid[m] = t[(int64_t)floor((double)(m + 1) / (SPORF_SURV_GRID + 1) * (double)(E - 1))];
    free(t);
    return SPORF_SURV_GRID;
}

int64_t sporf_surv_leaf_steps(const sporf_forest *f, const int32_t *ranks, int64_t m, double *time, double *h)
{
    const double *y = f->qrf_y, *w = f->qrf_w;
    const uint8_t *ev = f->qrf_event;
    double at_risk = 0.0;
    for (int64_t k = 0; k < m; k++) at_risk += w ? w[ranks[k]] : 1.0;
    int64_t steps = 0;
    for (int64_t k = 0; k < m;) {
        /* the rows tied at this time: their events happen before their censoring */
        const double t = y[ranks[k]];
        double d = 0.0, left = 0.0;
        for (; k < m && y[ranks[k]] == t; k++) {
            const double wk = w ? w[ranks[k]] : 1.0;
            d += ev[ranks[k]] ? wk : 0.0;
            left += wk;
        }
        if (d > 0.0 && at_risk > 0.0) {
            time[steps] = t;
            h[steps] = d / at_risk > 1.0 ? 1.0 : d / at_risk;
            steps++;
        }
        at_risk -= left;
    }
    return steps;
}

int64_t sporf_surv_event_times(const sporf_forest *f, double *out)
{
    int64_t E = 0;
    for (int64_t r = 0; r < f->qrf_n; r++)
        if (f->qrf_event[r] && (E == 0 || f->qrf_y[r] != out[E - 1]))
            out[E++] = f->qrf_y[r];
    return E;
}

double sporf_surv_steps_risk(const double *time, const double *h, int64_t k, const double *event_times, int64_t E)
{
    double risk = 0.0;
    int64_t at = 0; /* the first event time >= time[s]: steps ascend, so it only moves on */
    for (int64_t s = 0; s < k; s++) {
        while (at < E && event_times[at] < time[s]) at++;
        risk += h[s] * (double)(E - at);
    }
    return risk;
}

void sporf_surv_tree_values(sporf_tree *tree, const sporf_forest *f, const double *event_times, int64_t E,
                            double all_risk, double *scratch)
{
    for (int32_t l = 0; l < tree->n_leaves; l++) {
        const int64_t m = tree->leaf_start[l + 1] - tree->leaf_start[l];
        if (m == 0) {
            /* an honest leaf without estimation rows abstains; in a tree
             * without honesty only a root whose every draw weighed 0 has no
             * rows, and it answers the risk of all the training rows, as
             * the curves answer a row no tree holds with theirs */
            tree->leaf_values[l] = tree->prior ? NAN : all_risk;
            continue;
        }
        double *time = scratch, *h = scratch + m;
        const int64_t k = sporf_surv_leaf_steps(f, tree->leaf_rank + tree->leaf_start[l], m, time, h);
        tree->leaf_values[l] = sporf_surv_steps_risk(time, h, k, event_times, E);
    }
    if (tree->prior)
        tree->prior[0] = all_risk;
}
