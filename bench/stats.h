/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distribution-free statistics for paired timings: the median with its
 * order-statistic interval, sign tests for a difference and for
 * equivalence, and the Benjamini-Hochberg false-discovery-rate control.
 * No normality is assumed anywhere: timings on a shared machine are
 * skewed and have outliers.
 */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stddef.h>

/* A median with its 95 % confidence interval. */
struct estimate {
	double median;
	double lo;
	double hi;
};

/* P(X <= k) for X ~ binomial(n, 1/2); exact, in log space (any n). */
double binomial_half_cdf(size_t n, size_t k);

/*
 * The sample median and a distribution-free 95 % confidence interval for
 * it from order statistics. Sorts @samples in place. With fewer than 6
 * samples no such interval exists at 95 %: it is the sample range.
 */
struct estimate estimate_median(double *samples, size_t n);

/* Two-sided sign test of "the median is @center"; ties are dropped. */
double sign_test_p(const double *x, size_t n, double center);

/* One-sided sign test of "the median is at most @center" (H1: above). */
double sign_test_p_above(const double *x, size_t n, double center);

/*
 * Two one-sided sign tests: the p-value of "the median lies outside
 * (@lo, @hi)". Small means equivalent within the margins.
 */
double equivalence_p(const double *x, size_t n, double lo, double hi);

/*
 * Benjamini-Hochberg at false-discovery rate @q over @m p-values: sets
 * reject[i] and returns how many hypotheses are rejected.
 */
size_t benjamini_hochberg(const double *p, size_t m, double q, bool *reject);

#endif /* STATS_H */
