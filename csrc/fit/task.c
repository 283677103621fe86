/* task.c -- the state every task shares (task.h); a task adds its own through state_init. */
#include "fit/task.h"

#include <stdlib.h>
#include <string.h>

int sporf_task_state_init(sporf_task_state *t, const sporf_task *task, const sporf_params *params,
                          const sporf_response *response, int64_t n, int64_t min_leaf_rows, int32_t bins,
                          int random)
{
    memset(t, 0, sizeof *t);
    t->params = params;
    t->y = response->y;
    t->yr = response->yr;
    t->n_classes = response->n_classes;
    t->n_outputs = response->n_outputs > 1 ? response->n_outputs : 1;
    t->output_classes = response->output_classes;
    t->output_weight = response->output_weight;
    t->min_leaf_rows = min_leaf_rows;
    t->task = task;
    const size_t K = (size_t)t->n_classes;
    t->node_counts = malloc(K * sizeof(double));
    t->left_counts = malloc(K * sizeof(double));
    t->right_counts = malloc(K * sizeof(double));
    t->wsorted = malloc((size_t)n * sizeof *t->wsorted);
    const int hist_ok = sporf_histogram_init(&t->hist, bins, random, task->hist_width(t->n_classes), n,
                                             t->n_outputs);
    const int own_ok = !task->state_init || task->state_init(t, response, n);
    if (hist_ok && own_ok && t->node_counts && t->left_counts && t->right_counts && t->wsorted)
        return 1;
    sporf_task_state_free(t);
    return 0;
}

void sporf_task_state_free(sporf_task_state *t)
{
    sporf_histogram_free(&t->hist);
    if (t->task && t->task->state_free)
        t->task->state_free(t);
    free(t->node_counts);
    free(t->left_counts);
    free(t->right_counts);
    free(t->wsorted);
    memset(t, 0, sizeof *t);
}
