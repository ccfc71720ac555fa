// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>

#include "stats.h"

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* log P(X = i) for X ~ binomial(n, 1/2). */
static double log_binomial_half_pmf(size_t n, size_t i)
{
	return lgamma((double)n + 1) - lgamma((double)i + 1) -
	       lgamma((double)(n - i) + 1) - (double)n * M_LN2;
}

double binomial_half_cdf(size_t n, size_t k)
{
	double sum = 0.0;
	size_t i;

	if (k >= n)
		return 1.0;
	for (i = 0; i <= k; i++)
		sum += exp(log_binomial_half_pmf(n, i));
	return sum > 1.0 ? 1.0 : sum;
}

struct estimate estimate_median(double *samples, size_t n)
{
	struct estimate e = { 0.0, 0.0, 0.0 };
	double below = 0.0;	/* P(X <= k - 1), accumulated */
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
	below = exp(log_binomial_half_pmf(n, 0));
	while (k + 1 <= (n + 1) / 2) {
		double next = below + exp(log_binomial_half_pmf(n, k));

		if (2.0 * next > 0.05)
			break;
		below = next;
		k++;
	}
	e.lo = samples[k - 1];
	e.hi = samples[n - k];
	return e;
}

static void count_around(const double *x, size_t n, double center,
			 size_t *above, size_t *below)
{
	size_t i;

	*above = *below = 0;
	for (i = 0; i < n; i++) {
		if (x[i] > center)
			(*above)++;
		else if (x[i] < center)
			(*below)++;
	}
}

double sign_test_p(const double *x, size_t n, double center)
{
	size_t above, below, fewer;
	double p;

	count_around(x, n, center, &above, &below);
	if (above + below == 0)
		return 1.0;
	fewer = above < below ? above : below;
	p = 2.0 * binomial_half_cdf(above + below, fewer);
	return p > 1.0 ? 1.0 : p;
}

double sign_test_p_above(const double *x, size_t n, double center)
{
	size_t above, below;

	count_around(x, n, center, &above, &below);
	if (above == 0)
		return 1.0;
	/* P(X >= above) = P(X <= below) by symmetry. */
	return binomial_half_cdf(above + below, below);
}

double equivalence_p(const double *x, size_t n, double lo, double hi)
{
	size_t above, below;
	double p_lo, p_hi;

	p_lo = sign_test_p_above(x, n, lo);
	/* "The median is at least hi", tested by how many lie below it. */
	count_around(x, n, hi, &above, &below);
	p_hi = below ? binomial_half_cdf(above + below, above) : 1.0;
	return p_lo > p_hi ? p_lo : p_hi;
}

struct indexed_p {
	double p;
	size_t index;
};

static int compare_indexed_p(const void *a, const void *b)
{
	const struct indexed_p *x = a, *y = b;

	return (x->p > y->p) - (x->p < y->p);
}

size_t benjamini_hochberg(const double *p, size_t m, double q, bool *reject)
{
	struct indexed_p *sorted;
	size_t i, last = 0;

	for (i = 0; i < m; i++)
		reject[i] = false;
	if (m == 0)
		return 0;
	sorted = malloc(m * sizeof(*sorted));
	if (!sorted)
		abort();
	for (i = 0; i < m; i++)
		sorted[i] = (struct indexed_p){ p[i], i };
	qsort(sorted, m, sizeof(*sorted), compare_indexed_p);
	/* The largest rank k with p(k) <= k q / m; reject ranks 1..k. */
	for (i = 0; i < m; i++)
		if (sorted[i].p <= (double)(i + 1) * q / (double)m)
			last = i + 1;
	for (i = 0; i < last; i++)
		reject[sorted[i].index] = true;
	free(sorted);
	return last;
}
