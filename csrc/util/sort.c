/* sort.c -- see sort.h. */
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

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

int sporf_sort_scratch_init(sporf_sort_scratch *s, int64_t n)
{
    memset(s, 0, sizeof *s);
    if (n < 1) n = 1;
    s->pairs = malloc((size_t)(2 * n) * sizeof *s->pairs);
    s->v = malloc((size_t)n * sizeof *s->v);
    s->ids = malloc((size_t)n * sizeof *s->ids);
    s->cap = n;
    return s->pairs && s->v && s->ids;
}

void sporf_sort_scratch_free(sporf_sort_scratch *s)
{
    free(s->pairs);
    free(s->v);
    free(s->ids);
    memset(s, 0, sizeof *s);
}

/* Order-preserving map of a float's bits to an unsigned key. */
static inline uint32_t float_key(double x)
{
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* Sizes measured on the benchmark machine (ns per element, random values):
 * below QUICK_MIN the introsort is fastest (7-9; building and applying
 * records costs more than it saves); from QUICK_MIN the record quicksort
 * (13-24, against the introsort's 29-57: no mispredicted branches); from
 * RADIX_MIN four radix passes over 256-entry histograms (about 20). */
#define QUICK_MIN 64
#define RADIX_MIN 384

static void insertion_u64(uint64_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        const uint64_t x = a[i];
        int64_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static inline void order2(uint64_t *a, uint64_t *b)
{
    const uint64_t x = *a < *b ? *a : *b, y = *a < *b ? *b : *a;
    *a = x;
    *b = y;
}

/* Quicksort of distinct records (the position makes every record unique)
 * with a branch-free Lomuto partition: a data-dependent branch per element
 * would be mispredicted half the time on projected values. Median-of-three
 * pivots; inputs are below RADIX_MIN long, so even a bad split stays cheap. */
static void quicksort_u64(uint64_t *a, int64_t n)
{
    while (n > 16) {
        const int64_t m = n / 2;
        order2(&a[0], &a[m]);
        order2(&a[m], &a[n - 1]);
        order2(&a[0], &a[m]);
        const uint64_t pivot = a[m];
        a[m] = a[n - 1];
        a[n - 1] = pivot;
        int64_t j = 0;
        for (int64_t i = 0; i < n - 1; i++) {
            const uint64_t t = a[i];
            const int64_t less = t < pivot;
            a[i] = a[j];
            a[j] = t;
            j += less;
        }
        a[n - 1] = a[j];
        a[j] = pivot;
        /* Recurse on the smaller side, loop on the larger: O(log n) stack. */
        if (j < n - 1 - j) {
            quicksort_u64(a, j);
            a += j + 1;
            n -= j + 1;
        } else {
            quicksort_u64(a + j + 1, n - j - 1);
            n = j;
        }
    }
    insertion_u64(a, n);
}

void sporf_sort_u64_distinct(uint64_t *a, int64_t n)
{
    quicksort_u64(a, n);
}

/* Apply the order of the sorted records a to v and ids, then fix the order
 * within runs of equal float keys (exact doubles): the input is nearly
 * sorted, so insertion sort is linear here. Ties keep their input order. */
static void apply_order(double *v, int32_t *ids, const uint64_t *a, int64_t n, sporf_sort_scratch *s)
{
    memcpy(s->v, v, (size_t)n * sizeof *v);
    memcpy(s->ids, ids, (size_t)n * sizeof *ids);
    for (int64_t i = 0; i < n; i++) {
        const uint32_t from = (uint32_t)a[i];
        v[i] = s->v[from];
        ids[i] = s->ids[from];
    }
    insertion_sort(v, ids, n);
}

/* Values of a few distinct doubles -- projections of a few binary or coded
 * columns, frequent in one-hot data -- are ordered by a counting pass: each
 * value's bucket (its bits), the buckets in the order of the records below
 * (float key, then value: -0 before +0), rows in input order within one.
 * The same order as the record sorts, which keep ties in input order.
 * Returns 0, having changed nothing, at the (FEW_VALUES + 1)-th distinct
 * value: on continuous values within the first few elements. */
#define FEW_VALUES 8
static int sort_few_values(double *v, int32_t *ids, int64_t n, sporf_sort_scratch *s)
{
    uint64_t bits[FEW_VALUES];
    double value[FEW_VALUES];
    int k = 0;
    uint8_t *bucket = (uint8_t *)s->pairs; /* n bytes of the 2n records' room */
    for (int64_t i = 0; i < n; i++) {
        uint64_t b;
        memcpy(&b, &v[i], sizeof b);
        int j = 0;
        while (j < k && bits[j] != b)
            j++;
        if (j == k) {
            if (k == FEW_VALUES)
                return 0;
            bits[k] = b;
            value[k++] = v[i];
        }
        bucket[i] = (uint8_t)j;
    }
    int order[FEW_VALUES], rank[FEW_VALUES];
    for (int j = 0; j < k; j++) {
        int at = j;
        while (at > 0) {
            const double a = value[order[at - 1]], b = value[j];
            const uint32_t ka = float_key(a), kb = float_key(b);
            if (!(ka > kb || (ka == kb && a > b)))
                break;
            order[at] = order[at - 1];
            at--;
        }
        order[at] = j;
    }
    int64_t start[FEW_VALUES + 1] = {0};
    for (int r = 0; r < k; r++)
        rank[order[r]] = r;
    for (int64_t i = 0; i < n; i++)
        start[rank[bucket[i]] + 1]++;
    for (int r = 0; r < k; r++)
        start[r + 1] += start[r];
    memcpy(s->v, v, (size_t)n * sizeof *v);
    memcpy(s->ids, ids, (size_t)n * sizeof *ids);
    for (int64_t i = 0; i < n; i++) {
        const int64_t to = start[rank[bucket[i]]]++;
        v[to] = s->v[i];
        ids[to] = s->ids[i];
    }
    return 1;
}

void sporf_sort_values_radix(double *v, int32_t *ids, int64_t n, sporf_sort_scratch *s)
{
    if (n < QUICK_MIN || n > s->cap || n > INT32_MAX) {
        sporf_sort_values(v, ids, n);
        return;
    }
    if (sort_few_values(v, ids, n, s))
        return;
    uint64_t *a = s->pairs, *b = s->pairs + n;
    if (n < RADIX_MIN) {
        for (int64_t i = 0; i < n; i++)
            a[i] = ((uint64_t)float_key(v[i]) << 32) | (uint64_t)i;
        quicksort_u64(a, n);
        apply_order(v, ids, a, n, s);
        return;
    }
    uint32_t hist[4][256];
    memset(hist, 0, sizeof hist);
    for (int64_t i = 0; i < n; i++) {
        uint32_t k = float_key(v[i]);
        a[i] = ((uint64_t)k << 32) | (uint64_t)i;
        hist[0][k & 255]++;
        hist[1][(k >> 8) & 255]++;
        hist[2][(k >> 16) & 255]++;
        hist[3][k >> 24]++;
    }
    for (int pass = 0; pass < 4; pass++) {
        uint32_t *h = hist[pass];
        int shift = 32 + 8 * pass;
        /* A digit shared by every key leaves the order unchanged: skip. */
        if (h[(a[0] >> shift) & 255] == (uint32_t)n)
            continue;
        uint32_t sum = 0;
        for (int d = 0; d < 256; d++) {
            uint32_t c = h[d];
            h[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++)
            b[h[(a[i] >> shift) & 255]++] = a[i];
        uint64_t *t = a; a = b; b = t;
    }
    apply_order(v, ids, a, n, s);
}

typedef struct keyed_row {
    double key;
    int64_t row;
} keyed_row;

static int by_key_then_row(const void *a, const void *b)
{
    const keyed_row *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

int sporf_order_rows_by_key(const double *key, int64_t *rows, int64_t n)
{
    keyed_row *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    if (!k)
        return 0;
    for (int64_t i = 0; i < n; i++) k[i] = (keyed_row){key[rows[i]], rows[i]};
    qsort(k, (size_t)n, sizeof *k, by_key_then_row);
    for (int64_t i = 0; i < n; i++) rows[i] = k[i].row;
    free(k);
    return 1;
}
