/* sort.c -- see sort.h. */
#include "sort.h"

static inline void swap2(double *v, int32_t *ids, int64_t i, int64_t j)
{
    double tv = v[i]; v[i] = v[j]; v[j] = tv;
    int32_t ti = ids[i]; ids[i] = ids[j]; ids[j] = ti;
}

static void insertion_sort(double *v, int32_t *ids, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        double x = v[i];
        int32_t id = ids[i];
        int64_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            ids[j] = ids[j - 1];
            j--;
        }
        v[j] = x;
        ids[j] = id;
    }
}

static inline double median3(const double *v, int64_t n)
{
    double a = v[0], b = v[n / 2], c = v[n - 1];
    if (a < b) {
        if (b < c) return b;
        return a < c ? c : a;
    }
    if (a < c) return a;
    return b < c ? c : b;
}

static void sift_down(double *v, int32_t *ids, int64_t start, int64_t end)
{
    int64_t root = start;
    for (;;) {
        int64_t child = root * 2 + 1, maxi = root;
        if (child < end && v[maxi] < v[child]) maxi = child;
        if (child + 1 < end && v[maxi] < v[child + 1]) maxi = child + 1;
        if (maxi == root) return;
        swap2(v, ids, root, maxi);
        root = maxi;
    }
}

static void heapsort2(double *v, int32_t *ids, int64_t n)
{
    for (int64_t start = (n - 2) / 2; start >= 0; start--)
        sift_down(v, ids, start, n);
    for (int64_t end = n - 1; end > 0; end--) {
        swap2(v, ids, 0, end);
        sift_down(v, ids, 0, end);
    }
}

static void introsort(double *v, int32_t *ids, int64_t n, int depth_limit)
{
    while (n > 16) {
        if (depth_limit-- <= 0) {
            heapsort2(v, ids, n);
            return;
        }
        double pivot = median3(v, n);
        /* Three-way partition: [0,l) < pivot, [l,r) == pivot, [r,n) > pivot. */
        int64_t i = 0, l = 0, r = n;
        while (i < r) {
            if (v[i] < pivot) {
                swap2(v, ids, i++, l++);
            } else if (v[i] > pivot) {
                swap2(v, ids, i, --r);
            } else {
                i++;
            }
        }
        /* Recurse on the smaller side, loop on the larger: O(log n) stack. */
        if (l < n - r) {
            introsort(v, ids, l, depth_limit);
            v += r; ids += r; n -= r;
        } else {
            introsort(v + r, ids + r, n - r, depth_limit);
            n = l;
        }
    }
    insertion_sort(v, ids, n);
}

void sporf_sort_values(double *v, int32_t *ids, int64_t n)
{
    if (n < 2)
        return;
    int depth = 0;
    for (int64_t m = n; m > 1; m >>= 1)
        depth++;
    introsort(v, ids, n, 2 * depth);
}
