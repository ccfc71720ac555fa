/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

/* A median with its 95 % confidence interval. */
struct estimate {
	double median;
	double lo;
	double hi;
};

/*
 * The sample median and a distribution-free 95 % confidence interval for
 * it, from order statistics (the ranks come from the binomial(n, 1/2)
 * distribution, so no normality is assumed). Sorts @samples in place.
 * With fewer than 6 samples no such interval exists at 95 %: it is then
 * the whole sample range.
 */
struct estimate estimate_median(double *samples, size_t n);

/* Where @e stands relative to @value: -1 below, +1 above, 0 contains it. */
int estimate_compare(const struct estimate *e, double value);

#endif /* STATS_H */
