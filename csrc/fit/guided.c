/* guided.c -- see guided.h. */
#include "fit/guided.h"

#include <math.h>
#include <string.h>

void sporf_rank_clear(sporf_feature_rank *r, int32_t cap)
{
    r->cap = cap < SPORF_GUIDED_MAX ? cap : SPORF_GUIDED_MAX;
    r->n = 0;
}

void sporf_rank_offer(sporf_feature_rank *r, int32_t feature, double sign, double threshold, int missing_left,
                      double proxy)
{
    if (r->cap <= 0)
        return;
    int32_t k;
    for (k = 0; k < r->n; k++)
        if (r->item[k].feature == feature)
            break;
    if (k < r->n) {
        if (!(proxy > r->item[k].proxy))
            return;
    } else if (r->n < r->cap) {
        k = r->n++;
    } else if (proxy > r->item[r->n - 1].proxy) {
        k = r->n - 1;
    } else {
        return;
    }
    sporf_ranked_feature it = {feature, sign, threshold, missing_left, proxy};
    /* move up past every strictly worse entry (earlier offers win ties) */
    while (k > 0 && r->item[k - 1].proxy < proxy) {
        r->item[k] = r->item[k - 1];
        k--;
    }
    r->item[k] = it;
}

/* A feature enters a guided projection only when its marginal fit is worth
 * a parameter by BIC: n r^2 >= log n, as -n log(1 - r^2) ~ n r^2 is the fit's
 * gain in log-likelihood per row count. Without it the slopes of the ranking's
 * noise features are fitted to noise and the projection still wins the split
 * search in-sample: on 784 features with 15 useful, guided projections then
 * raised the test error from 0.098 to 0.121 (the speed table's 10,000 x 784 cell). */
static double min_r2(int64_t n)
{
    const double nn = n > 3 ? (double)n : 3.0;
    return log(nn) / nn;
}

/* The slope of the centred target t on feature f over the rows of
 * idx[start..end) that have f (the data has missing values), with the
 * rank's test on those rows: the target is re-centred on them, as the rows
 * without f say nothing about the feature's fit. */
static double slope_present(const sporf_rows *rows, int64_t start, int64_t end, int32_t f, const double *t)
{
    const int32_t *idx = rows->idx;
    const double *wt = rows->w;
    const sporf_columns *X = &rows->X;
    double x0 = 0.0;
    int64_t i0 = start;
    while (i0 < end && sporf_is_missing(sporf_columns_at(X, f, idx[i0])))
        i0++;
    if (i0 < end)
        x0 = sporf_columns_at(X, f, idx[i0]);
    int64_t n = 0;
    double W = 0.0, sx = 0.0, sxx = 0.0, sxt = 0.0, st = 0.0, stt = 0.0;
    for (int64_t i = i0; i < end; i++) {
        const double x = sporf_columns_at(X, f, idx[i]);
        if (sporf_is_missing(x))
            continue;
        const double ww = wt[idx[i]], dx = x - x0, dt = t[i - start];
        n++;
        W += ww;
        sx += ww * dx;
        sxx += ww * dx * dx;
        st += ww * dt;
        stt += ww * dt * dt;
        sxt += ww * dx * dt;
    }
    if (!(W > 0.0))
        return 0.0;
    sxx -= sx * sx / W;
    sxt -= sx * st / W;
    stt -= st * st / W;
    const double s = sxx > 0.0 ? sxt / sxx : 0.0;
    const double r2 = sxx > 0.0 && stt > 0.0 ? sxt * sxt / (sxx * stt) : 0.0;
    return isfinite(s) && r2 >= min_r2(n) ? s : 0.0;
}

/* The weighted sums of dx, dx^2 and dx * t over m rows (dx = x - x0; row k's
 * weight wn[k] and target t[k]), x read in node order from col[k] (or
 * colf[k] for float data), or through rows: col[rows[k]] (colf[rows[k]]).
 * One loop per layout, each in the same arithmetic. */
static void shifted_sums(const double *col, const float *colf, const int32_t *rows, const double *wn, const double *t,
                         int64_t m, double x0, double sums[3])
{
    double sx = 0.0, sxx = 0.0, sxt = 0.0;
    if (colf && !rows) {
        for (int64_t k = 0; k < m; k++) {
            const double ww = wn[k], dx = (double)colf[k] - x0;
            sx += ww * dx;
            sxx += ww * dx * dx;
            sxt += ww * dx * t[k];
        }
    } else if (colf) {
        for (int64_t k = 0; k < m; k++) {
            const double ww = wn[k], dx = (double)colf[rows[k]] - x0;
            sx += ww * dx;
            sxx += ww * dx * dx;
            sxt += ww * dx * t[k];
        }
    } else if (rows) {
        for (int64_t k = 0; k < m; k++) {
            const double ww = wn[k], dx = col[rows[k]] - x0;
            sx += ww * dx;
            sxx += ww * dx * dx;
            sxt += ww * dx * t[k];
        }
    } else {
        for (int64_t k = 0; k < m; k++) {
            const double ww = wn[k], dx = col[k] - x0;
            sx += ww * dx;
            sxx += ww * dx * dx;
            sxt += ww * dx * t[k];
        }
    }
    sums[0] = sx;
    sums[1] = sxx;
    sums[2] = sxt;
}

void sporf_guided_slopes(const sporf_task *task, sporf_task_state *ts, const sporf_rows *rows, double *t, double *wn,
                         int64_t start, int64_t end, const sporf_feature_rank *r, int32_t m, double *w)
{
    const sporf_ranked_feature *top = &r->item[0];
    task->guide_target(ts, rows, start, end, top->feature, top->sign, top->threshold, top->missing_left, t);
    const int32_t *idx = rows->idx;
    const double *wt = rows->w;
    /* the rows' weights by position, gathered once for the m slopes (in
     * order from the node-ordered copy when it has them) */
    const double *wc, *yc;
    const int in_order = sporf_rows_wy(rows, start, &wc, &yc);
    double W = 0.0, T = 0.0;
    for (int64_t i = start; i < end; i++) {
        wn[i - start] = in_order ? wc[i - start] : wt[idx[i]];
        W += wn[i - start];
        T += wn[i - start] * t[i - start];
    }
    const double tbar = W > 0.0 ? T / W : 0.0;
    double stt = 0.0;
    for (int64_t i = start; i < end; i++) {
        const double dt = t[i - start] - tbar;
        t[i - start] = dt; /* centred from here on */
        stt += wn[i - start] * dt * dt;
    }
    if (rows->has_missing) {
        for (int32_t j = 0; j < m; j++)
            w[j] = slope_present(rows, start, end, r->item[j].feature, t);
        return;
    }
    const double r2_min = min_r2(end - start);
    for (int32_t j = 0; j < m; j++) {
        /* One pass with the sums shifted by the first row's value (exact
         * enough: the shift removes the cancellation a large mean causes). */
        const int32_t f = r->item[j].feature;
        const double x0 = sporf_rows_x(rows, f, start);
        double sums[3] = {0.0, 0.0, 0.0};
        if (rows->node_compact && rows->xnode32)
            shifted_sums(NULL, rows->xnode32 + (int64_t)f * rows->xnode_rows + start, NULL, wn, t, end - start, x0, sums);
        else if (rows->node_compact)
            shifted_sums(rows->xnode + (int64_t)f * rows->xnode_rows + start, NULL, NULL, wn, t, end - start, x0, sums);
        else if (rows->X.f32)
            shifted_sums(NULL, rows->X.f32 + (int64_t)f * rows->n, idx + start, wn, t, end - start, x0, sums);
        else
            shifted_sums(rows->X.f64 + (int64_t)f * rows->n, NULL, idx + start, wn, t, end - start, x0, sums);
        const double sx = sums[0];
        double sxx = sums[1];
        const double sxt = sums[2];
        if (W > 0.0)
            sxx -= sx * sx / W; /* sum of t's centred values is 0, so sxt needs no correction */
        const double s = sxx > 0.0 ? sxt / sxx : 0.0;
        const double r2 = sxx > 0.0 && stt > 0.0 ? sxt * sxt / (sxx * stt) : 0.0;
        w[j] = isfinite(s) && r2 >= r2_min ? s : 0.0;
    }
}
