/* projection_importance.c -- impurity decrease per distinct projection
 * (SPORF paper, section 4.5): which learned features matter, not only which
 * input features. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* One split node's projection in canonical form: features ascending, first
 * weight positive (a projection and its negation split the same way). */
typedef struct proj_rec {
    int32_t len;
    const int32_t *feature;
    const double *weight;
    double gain;
} proj_rec;

static int cmp_key(const proj_rec *a, const proj_rec *b)
{
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    for (int32_t k = 0; k < a->len; k++)
        if (a->feature[k] != b->feature[k]) return a->feature[k] < b->feature[k] ? -1 : 1;
    for (int32_t k = 0; k < a->len; k++)
        if (a->weight[k] != b->weight[k]) return a->weight[k] < b->weight[k] ? -1 : 1;
    return 0;
}

static int cmp_by_key(const void *x, const void *y) { return cmp_key(x, y); }

static int cmp_by_importance(const void *x, const void *y)
{
    const proj_rec *a = x, *b = y;
    if (a->gain != b->gain) return a->gain > b->gain ? -1 : 1;
    return cmp_key(a, b);
}

/* Insertion sort of one projection's (feature, weight) pairs: projections are short. */
static void canonicalize(int32_t *f, double *w, int32_t len)
{
    for (int32_t i = 1; i < len; i++) {
        int32_t fi = f[i];
        double wi = w[i];
        int32_t j = i - 1;
        while (j >= 0 && f[j] > fi) {
            f[j + 1] = f[j];
            w[j + 1] = w[j];
            j--;
        }
        f[j + 1] = fi;
        w[j + 1] = wi;
    }
    if (len > 0 && w[0] < 0.0)
        for (int32_t k = 0; k < len; k++) w[k] = -w[k];
}

int sporf_forest_projection_importances(const sporf_forest *f, int64_t *n_out, int64_t *nnz_out,
                                        int64_t *start, int32_t *feature, double *weight,
                                        double *importance, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !n_out || !nnz_out)
        return sporf_set_error(err, SPORF_E_ARG, "projection_importances: forest, n_out and nnz_out are required");
    int64_t n_split = 0, nnz = 0;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        for (int32_t i = 0; i < tr->n_nodes; i++)
            if (tr->nodes[i].left >= 0) {
                n_split++;
                nnz += tr->nodes[i].proj_len;
            }
    }
    proj_rec *rec = malloc((size_t)(n_split > 0 ? n_split : 1) * sizeof *rec);
    int32_t *fb = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *fb);
    double *wb = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *wb);
    if (!rec || !fb || !wb) {
        free(rec);
        free(fb);
        free(wb);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory computing projection importances");
    }
    int64_t r = 0, at = 0;
    double total = 0.0;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        for (int32_t i = 0; i < tr->n_nodes; i++) {
            const sporf_node *nd = &tr->nodes[i];
            if (nd->left < 0) continue;
            memcpy(fb + at, tr->proj_feature + nd->proj_start, (size_t)nd->proj_len * sizeof *fb);
            memcpy(wb + at, tr->proj_weight + nd->proj_start, (size_t)nd->proj_len * sizeof *wb);
            canonicalize(fb + at, wb + at, nd->proj_len);
            rec[r].len = nd->proj_len;
            rec[r].feature = fb + at;
            rec[r].weight = wb + at;
            rec[r].gain = nd->gain;
            total += nd->gain;
            r++;
            at += nd->proj_len;
        }
    }
    /* Merge equal projections, then rank them. */
    int64_t m = 0, m_nnz = 0;
    if (n_split > 0) {
        qsort(rec, (size_t)n_split, sizeof *rec, cmp_by_key);
        for (int64_t i = 0; i < n_split; i++) {
            if (m > 0 && cmp_key(&rec[m - 1], &rec[i]) == 0) {
                rec[m - 1].gain += rec[i].gain;
                continue;
            }
            rec[m++] = rec[i];
            m_nnz += rec[i].len;
        }
        qsort(rec, (size_t)m, sizeof *rec, cmp_by_importance);
    }
    *n_out = m;
    *nnz_out = m_nnz;
    if (start && feature && weight && importance) {
        int64_t pos = 0;
        for (int64_t i = 0; i < m; i++) {
            start[i] = pos;
            memcpy(feature + pos, rec[i].feature, (size_t)rec[i].len * sizeof *feature);
            memcpy(weight + pos, rec[i].weight, (size_t)rec[i].len * sizeof *weight);
            importance[i] = total > 0.0 ? rec[i].gain / total : 0.0;
            pos += rec[i].len;
        }
        start[m] = pos;
    }
    free(rec);
    free(fb);
    free(wb);
    return SPORF_OK;
}
