// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>

#include "stats.h"

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* P(X <= k) for X ~ binomial(n, 1/2). */
static double binomial_half_cdf(size_t n, size_t k)
{
	double term = pow(0.5, (double)n), sum = 0.0;
	size_t i;

	for (i = 0; i <= k; i++) {
		sum += term;
		term = term * (double)(n - i) / (double)(i + 1);
	}
	return sum;
}

struct estimate estimate_median(double *samples, size_t n)
{
	struct estimate e = { 0.0, 0.0, 0.0 };
	size_t k = 1;

	if (n == 0)
		return e;
	qsort(samples, n, sizeof(*samples), compare_doubles);
	e.median = n % 2 ? samples[n / 2] :
		(samples[n / 2 - 1] + samples[n / 2]) / 2.0;
	/*
	 * With 1-based order statistics, [x(k), x(n+1-k)] covers the
	 * median with probability 1 - 2 P(X <= k-1): take the largest k
	 * that keeps this at or above 95 %.
	 */
	while (k + 1 <= (n + 1) / 2 && 2.0 * binomial_half_cdf(n, k) <= 0.05)
		k++;
	e.lo = samples[k - 1];
	e.hi = samples[n - k];
	return e;
}

int estimate_compare(const struct estimate *e, double value)
{
	if (e->hi < value)
		return -1;
	if (e->lo > value)
		return 1;
	return 0;
}
