/* task.c -- the tasks' tables and their state (task.h). */
#include "fit/task.h"

#include <stdlib.h>
#include <string.h>

const sporf_task *sporf_task_for(int32_t task, int32_t n_outputs)
{
    switch (task) {
    case SPORF_TASK_REGRESSION: return n_outputs > 1 ? &sporf_task_multi_regression : &sporf_task_regression;
    case SPORF_TASK_UNSUPERVISED: return &sporf_task_unsupervised;
    case SPORF_TASK_SURVIVAL: return &sporf_task_survival;
    case SPORF_TASK_ISOLATION: return &sporf_task_isolation;
    default: return n_outputs > 1 ? &sporf_task_multi_classification : &sporf_task_classification;
    }
}

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
    const size_t K = (size_t)t->n_classes;
    t->node_counts = malloc(K * sizeof(double));
    t->left_counts = malloc(K * sizeof(double));
    t->right_counts = malloc(K * sizeof(double));
    t->wsorted = malloc((size_t)n * sizeof *t->wsorted);
    const int hist_ok = sporf_histogram_init(&t->hist, bins, random, task->hist_width(t->n_classes), n,
                                             t->n_outputs);
    const int surv_ok = response->task != SPORF_TASK_SURVIVAL || sporf_surv_state_init(t, response, n);
    if (hist_ok && surv_ok && t->node_counts && t->left_counts && t->right_counts && t->wsorted)
        return 1;
    sporf_task_state_free(t);
    return 0;
}

void sporf_task_state_free(sporf_task_state *t)
{
    sporf_histogram_free(&t->hist);
    sporf_surv_state_free(t);
    free(t->node_counts);
    free(t->left_counts);
    free(t->right_counts);
    free(t->wsorted);
    memset(t, 0, sizeof *t);
}
