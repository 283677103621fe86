/* criterion.c -- see criterion.h. */
#include "criterion.h"

double sporf_impurity(int32_t criterion, const double *counts, int32_t n_classes, double w)
{
    if (w <= 0.0)
        return 0.0;
    double s = 0.0;
    if (criterion == 0) {
        for (int32_t k = 0; k < n_classes; k++)
            s += counts[k] * counts[k];
        double g = 1.0 - s / (w * w);
        return g > 0.0 ? g : 0.0;
    }
    for (int32_t k = 0; k < n_classes; k++)
        if (counts[k] > 0.0) {
            double q = counts[k] / w;
            s -= q * log2(q);
        }
    return s > 0.0 ? s : 0.0;
}
