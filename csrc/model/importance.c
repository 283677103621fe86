/* importance.c -- impurity importances and usage counts of the features,
 * read from the trees' stored nodes. (Per-projection importances:
 * projection_importance.c.) */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sporf_forest_feature_importances(const sporf_forest *f, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !out)
        return sporf_set_error(err, SPORF_E_ARG, "feature_importances: forest and out are required");
    const int64_t p = f->n_features;
    double *tree_imp = calloc((size_t)p, sizeof *tree_imp);
    if (!tree_imp)
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory");
    for (int64_t j = 0; j < p; j++) out[j] = 0.0;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        memset(tree_imp, 0, (size_t)p * sizeof *tree_imp);
        double total = 0.0;
        for (int32_t i = 0; i < tr->n_nodes; i++) {
            const sporf_node *nd = &tr->nodes[i];
            if (nd->left < 0 || nd->gain <= 0.0) continue;
            double norm = 0.0;
            for (int32_t k = 0; k < nd->proj_len; k++)
                norm += fabs(tr->proj_weight[nd->proj_start + k]);
            if (norm <= 0.0) continue;
            for (int32_t k = 0; k < nd->proj_len; k++)
                tree_imp[tr->proj_feature[nd->proj_start + k]] +=
                    nd->gain * fabs(tr->proj_weight[nd->proj_start + k]) / norm;
            total += nd->gain;
        }
        if (total > 0.0)
            for (int64_t j = 0; j < p; j++) out[j] += tree_imp[j] / total;
    }
    free(tree_imp);
    double s = 0.0;
    for (int64_t j = 0; j < p; j++) s += out[j];
    if (s > 0.0)
        for (int64_t j = 0; j < p; j++) out[j] /= s;
    return SPORF_OK;
}

int sporf_forest_feature_usage(const sporf_forest *f, double *out, sporf_error *err)
{
    sporf_clear_error(err);
    if (!f || !out)
        return sporf_set_error(err, SPORF_E_ARG, "feature_usage: forest and out are required");
    const int64_t p = f->n_features;
    for (int64_t j = 0; j < p; j++) out[j] = 0.0;
    double total = 0.0;
    for (int64_t t = 0; t < f->n_trees; t++) {
        const sporf_tree *tr = &f->trees[t];
        for (int32_t i = 0; i < tr->n_nodes; i++) {
            const sporf_node *nd = &tr->nodes[i];
            if (nd->left < 0) continue;
            for (int32_t k = 0; k < nd->proj_len; k++)
                out[tr->proj_feature[nd->proj_start + k]] += 1.0;
            total += nd->proj_len;
        }
    }
    if (total > 0.0)
        for (int64_t j = 0; j < p; j++) out[j] /= total;
    return SPORF_OK;
}
