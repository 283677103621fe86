/* packed.c -- builds the forest's packed prediction layout (packed.h) and a
 * tree's own prediction nodes (sporf_tree_prepare). */
#include "predict/packed.h"

#include <stdlib.h>
#include <string.h>

/* Scratch for one tree: leaves below each node, depth, position, a stack. */
typedef struct tree_scratch {
    int32_t *weight, *depth, *pos, *stack;
} tree_scratch;

static int scratch_alloc(tree_scratch *s, int32_t n)
{
    s->weight = malloc((size_t)n * sizeof(int32_t));
    s->depth = malloc((size_t)n * sizeof(int32_t));
    s->pos = malloc((size_t)n * sizeof(int32_t));
    s->stack = malloc((size_t)n * sizeof(int32_t));
    return s->weight && s->depth && s->pos && s->stack;
}

static void scratch_free(tree_scratch *s)
{
    free(s->weight); free(s->depth); free(s->pos); free(s->stack);
}

/* Leaves below each node (children follow their parent in storage, so a
 * reverse scan sees children first) and depths. */
static void measure_tree(const sporf_tree *tr, tree_scratch *s)
{
    for (int32_t i = tr->n_nodes - 1; i >= 0; i--) {
        const sporf_node *nd = &tr->nodes[i];
        s->weight[i] = nd->left < 0 ? 1 : s->weight[nd->left] + s->weight[nd->right];
    }
    s->depth[0] = 0;
    for (int32_t i = 0; i < tr->n_nodes; i++) {
        const sporf_node *nd = &tr->nodes[i];
        if (nd->left >= 0) s->depth[nd->left] = s->depth[nd->right] = s->depth[i] + 1;
    }
}

/* Slots tree tr takes when its top `top` levels name their near child. */
static int64_t tree_slots(const sporf_tree *tr, const tree_scratch *s, int32_t top)
{
    int64_t n = 0;
    for (int32_t i = 0; i < tr->n_nodes; i++)
        n += sporf_pnode_slots(tr, i, s->depth[i] < top);
    return n;
}

/* Place the subtrees hanging below the top `top` levels: depth first, each
 * node's heavier child right after the node's slots, starting at *next. */
static void place_deep(const sporf_tree *tr, tree_scratch *s, int32_t top, int32_t *next)
{
    int32_t sp = 0;
    /* Frontier nodes in stored (preorder) order, so the result is deterministic. */
    for (int32_t i = 0; i < tr->n_nodes; i++) {
        if (s->depth[i] != top) continue;
        s->stack[sp++] = i;
        while (sp > 0) {
            const int32_t v = s->stack[--sp];
            s->pos[v] = *next;
            *next += sporf_pnode_slots(tr, v, 0);
            const sporf_node *nd = &tr->nodes[v];
            if (nd->left < 0) continue;
            const int heavy_left = s->weight[nd->left] >= s->weight[nd->right];
            /* Push the light child first so the heavy one is placed next. */
            s->stack[sp++] = heavy_left ? nd->right : nd->left;
            s->stack[sp++] = heavy_left ? nd->left : nd->right;
        }
    }
}

/* Write a tree's nodes at their positions in base. K: the forest's values
 * per leaf; with K == 1 the leaves hold their values (traverse.h), with 0
 * (not known) their rows of leaf_values. */
static void write_tree(const sporf_tree *tr, const tree_scratch *s, int32_t top, int32_t K, int classification,
                       sporf_pnode *base)
{
    for (int32_t i = 0; i < tr->n_nodes; i++) {
        const sporf_node *nd = &tr->nodes[i];
        int32_t onehot = -1;
        if (nd->left < 0 && classification)
            onehot = sporf_leaf_onehot_class(tr->leaf_values + (int64_t)nd->right * K, K);
        sporf_pnode_write(tr, i, s->pos, s->depth[i] < top, onehot, K == 1, base + s->pos[i]);
    }
}

int sporf_tree_prepare(sporf_tree *tree)
{
    free(tree->pnodes);
    tree->pnodes = NULL;
    tree_scratch s;
    int ok = scratch_alloc(&s, tree->n_nodes > 0 ? tree->n_nodes : 1);
    if (ok) {
        measure_tree(tree, &s);
        tree->pnodes = calloc((size_t)(tree_slots(tree, &s, 0) + SPORF_PN_PAD_SLOTS), sizeof *tree->pnodes);
        ok = tree->pnodes != NULL;
    }
    if (ok) {
        int32_t next = 0;
        place_deep(tree, &s, 0, &next);
        /* leaf values are not read from here: leaves keep their rows of
         * leaf_values (the tree's K is the forest's), without one-hot classes */
        write_tree(tree, &s, 0, 0, 0, tree->pnodes);
    }
    scratch_free(&s);
    return ok;
}

int sporf_forest_pack(sporf_forest *f, sporf_error *err)
{
    sporf_packed_free(f->packed);
    f->packed = NULL;
    const int64_t T = f->n_trees;
    const int32_t K = f->n_classes;
    int32_t max_nodes = 1;
    for (int64_t t = 0; t < T; t++) {
        if (f->trees[t].n_nodes >= SPORF_MAX_TREE_NODES)
            return sporf_set_error(err, SPORF_E_ARG, "tree %lld has %d nodes; prediction handles at most %d",
                                   (long long)t, f->trees[t].n_nodes, SPORF_MAX_TREE_NODES - 1);
        if (f->trees[t].n_nodes > max_nodes) max_nodes = f->trees[t].n_nodes;
    }
    sporf_packed *p = calloc(1, sizeof *p);
    tree_scratch *s = calloc(SPORF_BIN_TREES, sizeof *s);
    /* Slots of every tree: at most 3 per node (2 + SPORF_PN_INLINE_TERMS in trees small enough,
     * traverse.c), so each tree fits the far-child field. */
    int64_t *slots = malloc((size_t)(T > 0 ? T : 1) * sizeof *slots);
    int ok = p && s && slots;
    for (int b = 0; ok && b < SPORF_BIN_TREES; b++)
        ok = scratch_alloc(&s[b], max_nodes);
    /* Bins: up to SPORF_BIN_TREES trees whose slots fit the far-child field. */
    int64_t total = 0, n_bins = 0;
    for (int64_t t = 0, in_bin = 0, bin_slots = 0; ok && t < T; t++) {
        measure_tree(&f->trees[t], &s[0]);
        slots[t] = tree_slots(&f->trees[t], &s[0], SPORF_TOP_LEVELS);
        if (in_bin == 0 || in_bin == SPORF_BIN_TREES || bin_slots + slots[t] > (int64_t)SPORF_PN_FAR_MASK) {
            n_bins++;
            in_bin = 0;
            bin_slots = 0;
        }
        in_bin++;
        bin_slots += slots[t];
        total += slots[t];
    }
    if (ok) {
        p->n_bins = n_bins;
        p->bin_first_tree = malloc((size_t)(n_bins + 1) * sizeof *p->bin_first_tree);
        p->bin_offset = malloc((size_t)(n_bins + 1) * sizeof *p->bin_offset);
        p->root = malloc((size_t)(T > 0 ? T : 1) * sizeof *p->root);
        p->tree_bin = malloc((size_t)(T > 0 ? T : 1) * sizeof *p->tree_bin);
        p->nodes = calloc((size_t)(total + SPORF_PN_PAD_SLOTS), sizeof *p->nodes);
        ok = p->bin_first_tree && p->bin_offset && p->root && p->tree_bin && p->nodes;
    }
    if (!ok) {
        if (s)
            for (int b = 0; b < SPORF_BIN_TREES; b++) scratch_free(&s[b]);
        free(s);
        free(slots);
        sporf_packed_free(p);
        return sporf_set_error(err, SPORF_E_NOMEM, "out of memory laying out the forest for prediction");
    }

    int64_t t0 = 0, offset = 0;
    p->single_only = 1;
    for (int64_t b = 0; b < n_bins; b++) {
        /* The bin's trees (the same rule as the count above). */
        int64_t t1 = t0, bin_slots = 0;
        while (t1 < T && t1 - t0 < SPORF_BIN_TREES && bin_slots + slots[t1] <= (int64_t)SPORF_PN_FAR_MASK)
            bin_slots += slots[t1++];
        p->bin_first_tree[b] = t0;
        p->bin_offset[b] = offset;
        for (int64_t t = t0; t < t1; t++) {
            measure_tree(&f->trees[t], &s[t - t0]);
            for (int32_t i = 0; i < f->trees[t].n_nodes; i++)
                if (s[t - t0].depth[i] > p->max_depth) p->max_depth = s[t - t0].depth[i];
        }
        /* Top levels, interleaved level by level across the bin's trees. */
        int32_t next = 0;
        for (int32_t d = 0; d < SPORF_TOP_LEVELS; d++)
            for (int64_t t = t0; t < t1; t++) {
                const sporf_tree *tr = &f->trees[t];
                tree_scratch *ts = &s[t - t0];
                for (int32_t i = 0; i < tr->n_nodes; i++)
                    if (ts->depth[i] == d) {
                        ts->pos[i] = next;
                        next += sporf_pnode_slots(tr, i, 1);
                    }
            }
        for (int64_t t = t0; t < t1; t++)
            place_deep(&f->trees[t], &s[t - t0], SPORF_TOP_LEVELS, &next);
        sporf_pnode *base = p->nodes + offset;
        for (int64_t t = t0; t < t1; t++) {
            const sporf_tree *tr = &f->trees[t];
            p->root[t] = s[t - t0].pos[0];
            p->tree_bin[t] = b;
            write_tree(tr, &s[t - t0], SPORF_TOP_LEVELS, K, f->task == SPORF_TASK_CLASSIFICATION, base);
            for (int32_t i = 0; i < tr->n_nodes && p->single_only; i++) {
                const uint32_t kind = sporf_pnode_kind(&base[s[t - t0].pos[i]]);
                p->single_only = kind == SPORF_PN_LEAF || kind == SPORF_PN_SINGLE;
            }
        }
        offset += bin_slots;
        t0 = t1;
    }
    p->bin_first_tree[n_bins] = T;
    p->bin_offset[n_bins] = offset;
    for (int b = 0; b < SPORF_BIN_TREES; b++)
        scratch_free(&s[b]);
    free(s);
    free(slots);
    f->packed = p;
    return SPORF_OK;
}
