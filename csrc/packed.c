/* packed.c -- builds the forest's packed prediction layout (packed.h). */
#include "packed.h"

#include <stdlib.h>
#include <string.h>

void sporf_packed_free(sporf_packed *p)
{
    if (!p) return;
    free(p->bin_first_tree);
    free(p->bin_offset);
    free(p->root);
    free(p->tree_bin);
    free(p->nodes);
    free(p);
}

/* Scratch for one tree: leaves below each node, depth, and new position. */
typedef struct tree_scratch {
    int32_t *weight, *depth, *pos, *stack;
} tree_scratch;

/* Place tree t's nodes: positions of the top levels come from the caller's
 * interleaving; this assigns depth-first, heavy-child-first positions to the
 * subtrees hanging below them, starting at *next. */
static void place_deep(const sporf_tree *tr, tree_scratch *s, int32_t *next)
{
    int32_t top = 0;
    /* Frontier nodes in stored (preorder) order, so the result is deterministic. */
    for (int32_t i = 0; i < tr->n_nodes; i++) {
        if (s->depth[i] != SPORF_TOP_LEVELS) continue;
        s->stack[top++] = i;
        while (top > 0) {
            const int32_t v = s->stack[--top];
            s->pos[v] = (*next)++;
            const sporf_node *nd = &tr->nodes[v];
            if (nd->left < 0) continue;
            const int heavy_left = s->weight[nd->left] >= s->weight[nd->right];
            /* Push the light child first so the heavy one is placed next. */
            s->stack[top++] = heavy_left ? nd->right : nd->left;
            s->stack[top++] = heavy_left ? nd->left : nd->right;
        }
    }
}

int sporf_forest_pack(sporf_forest *f, sporf_error *err)
{
    sporf_packed_free(f->packed);
    f->packed = NULL;
    const int64_t T = f->n_trees;
    const int32_t K = f->n_classes;
    sporf_packed *p = calloc(1, sizeof *p);
    int32_t max_nodes = 1;
    for (int64_t t = 0; t < T; t++)
        if (f->trees[t].n_nodes > max_nodes) max_nodes = f->trees[t].n_nodes;
    /* Bins: up to SPORF_BIN_TREES trees whose nodes fit 31-bit indices. */
    int64_t total = 0, n_bins = 0;
    for (int64_t t = 0, in_bin = 0, bin_nodes = 0; t < T; t++) {
        const int64_t nn = f->trees[t].n_nodes;
        if (in_bin == 0 || in_bin == SPORF_BIN_TREES || bin_nodes + nn > INT32_MAX) {
            n_bins++;
            in_bin = 0;
            bin_nodes = 0;
        }
        in_bin++;
        bin_nodes += nn;
        total += nn;
    }
    tree_scratch *s = NULL;
    if (p) {
        p->n_bins = n_bins;
        p->bin_first_tree = malloc((size_t)(n_bins + 1) * sizeof *p->bin_first_tree);
        p->bin_offset = malloc((size_t)(n_bins + 1) * sizeof *p->bin_offset);
        p->root = malloc((size_t)T * sizeof *p->root);
        p->tree_bin = malloc((size_t)T * sizeof *p->tree_bin);
        p->nodes = malloc((size_t)total * sizeof *p->nodes);
        s = calloc(SPORF_BIN_TREES, sizeof *s);
    }
    int ok = p && s && p->bin_first_tree && p->bin_offset && p->root && p->tree_bin && p->nodes;
    for (int b = 0; ok && b < SPORF_BIN_TREES; b++) {
        s[b].weight = malloc((size_t)max_nodes * sizeof(int32_t));
        s[b].depth = malloc((size_t)max_nodes * sizeof(int32_t));
        s[b].pos = malloc((size_t)max_nodes * sizeof(int32_t));
        s[b].stack = malloc((size_t)max_nodes * sizeof(int32_t));
        ok = s[b].weight && s[b].depth && s[b].pos && s[b].stack;
    }
    if (!ok) {
        if (s)
            for (int b = 0; b < SPORF_BIN_TREES; b++) {
                free(s[b].weight); free(s[b].depth); free(s[b].pos); free(s[b].stack);
            }
        free(s);
        sporf_packed_free(p);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory laying out the forest for prediction");
    }

    int64_t t0 = 0, offset = 0;
    for (int64_t b = 0; b < n_bins; b++) {
        /* The bin's trees (the same rule as the count above). */
        int64_t t1 = t0, bin_nodes = 0;
        while (t1 < T && t1 - t0 < SPORF_BIN_TREES && bin_nodes + f->trees[t1].n_nodes <= INT32_MAX)
            bin_nodes += f->trees[t1++].n_nodes;
        p->bin_first_tree[b] = t0;
        p->bin_offset[b] = offset;
        /* Per tree: leaves below each node (children follow their parent in
         * storage, so a reverse scan sees children first) and depths. */
        for (int64_t t = t0; t < t1; t++) {
            const sporf_tree *tr = &f->trees[t];
            tree_scratch *ts = &s[t - t0];
            for (int32_t i = tr->n_nodes - 1; i >= 0; i--) {
                const sporf_node *nd = &tr->nodes[i];
                ts->weight[i] = nd->left < 0 ? 1 : ts->weight[nd->left] + ts->weight[nd->right];
            }
            ts->depth[0] = 0;
            for (int32_t i = 0; i < tr->n_nodes; i++) {
                const sporf_node *nd = &tr->nodes[i];
                if (nd->left >= 0) ts->depth[nd->left] = ts->depth[nd->right] = ts->depth[i] + 1;
            }
        }
        /* Top levels, interleaved level by level across the bin's trees. */
        int32_t next = 0;
        for (int32_t d = 0; d < SPORF_TOP_LEVELS; d++)
            for (int64_t t = t0; t < t1; t++) {
                const sporf_tree *tr = &f->trees[t];
                tree_scratch *ts = &s[t - t0];
                for (int32_t i = 0; i < tr->n_nodes; i++)
                    if (ts->depth[i] == d) ts->pos[i] = next++;
            }
        for (int64_t t = t0; t < t1; t++)
            place_deep(&f->trees[t], &s[t - t0], &next);
        /* Write the nodes at their places, children remapped. */
        sporf_pnode *base = p->nodes + offset;
        for (int64_t t = t0; t < t1; t++) {
            const sporf_tree *tr = &f->trees[t];
            const tree_scratch *ts = &s[t - t0];
            p->root[t] = ts->pos[0];
            p->tree_bin[t] = b;
            for (int32_t i = 0; i < tr->n_nodes; i++) {
                sporf_pnode q;
                sporf_pnode_from_node(tr, i, &q);
                q.left = ts->pos[q.left];
                q.right = ts->pos[q.right];
                if (q.kind < 0 && f->task == SPORF_TASK_CLASSIFICATION)
                    q.u.leaf.onehot = sporf_leaf_onehot_class(tr->leaf_values + (int64_t)tr->nodes[i].right * K, K);
                base[ts->pos[i]] = q;
            }
        }
        offset += bin_nodes;
        t0 = t1;
    }
    p->bin_first_tree[n_bins] = T;
    p->bin_offset[n_bins] = offset;
    for (int b = 0; b < SPORF_BIN_TREES; b++) {
        free(s[b].weight); free(s[b].depth); free(s[b].pos); free(s[b].stack);
    }
    free(s);
    f->packed = p;
    return SPORF_OK;
}
