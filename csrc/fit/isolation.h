/*
 * isolation.h -- the isolation forest's path-length correction (Liu, Ting
 * and Zhou, 2008), which the isolation task's leaves count (task_isolation.c).
 */
#ifndef SPORF_ISOLATION_H
#define SPORF_ISOLATION_H

/* c(n): the mean depth at which a random binary tree on n rows isolates a
 * row (the mean path length of an unsuccessful search in a binary search
 * tree), 2 H(n - 1) - 2 (n - 1) / n with H the harmonic number; 0 for
 * n <= 1, 1 for n = 2. n may be a total weight: H is the digamma form
 * (H(x) = psi(x + 1) + Euler's gamma), exact at whole numbers to rounding
 * and smooth between them. Thread-safe. */
double sporf_isolation_c(double n);

#endif
