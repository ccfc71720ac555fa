// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the statistics behind the verdicts: exact binomial
 * tails at any n, the order-statistic interval (known ranks, and its
 * coverage on skewed data), the sign tests and Benjamini-Hochberg on
 * textbook cases.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

static int passed, failed;

static void expect(int ok, const char *what)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s\n", what);
}

static int near(double got, double want, double tolerance)
{
	return fabs(got - want) <= tolerance;
}

static double uniform(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return ((double)(*state >> 11) + 0.5) / 9007199254740992.0;
}

static void test_binomial(void)
{
	expect(near(binomial_half_cdf(10, 2), 56.0 / 1024, 1e-12), "P(Bin(10,1/2) <= 2) = 56/1024");
	expect(near(binomial_half_cdf(4096, 2048), 0.5 + 0.5 * 0.012466, 1e-4),
	       "P(Bin(4096,1/2) <= 2048) without underflow");
	expect(binomial_half_cdf(5, 5) == 1.0, "P(X <= n) = 1");
}

static void test_median_interval(void)
{
	double x[20];
	struct estimate e;
	int i;

	for (i = 0; i < 20; i++)
		x[i] = 20 - i;	/* unsorted on purpose */
	e = estimate_median(x, 20);
	/* n = 20: the 95 % interval is [x(6), x(15)] (coverage 95.9 %). */
	expect(e.median == 10.5 && e.lo == 6 && e.hi == 15, "n = 20: median 10.5 in [x(6), x(15)]");
}

/* On exponential data (skewed), the interval covers the true median. */
static void test_median_coverage(void)
{
	uint64_t state = 12345;
	int trial, covered = 0, i;

	for (trial = 0; trial < 2000; trial++) {
		double x[51];
		struct estimate e;

		for (i = 0; i < 51; i++)
			x[i] = -log(uniform(&state));
		e = estimate_median(x, 51);
		covered += e.lo <= M_LN2 && M_LN2 <= e.hi;
	}
	expect(covered >= 1880 && covered <= 1990, "95 % interval covers 94-99.5 % of the time");
}

static void test_sign_tests(void)
{
	double up[10], mixed[100], small[200], off[200];
	int i;

	for (i = 0; i < 10; i++)
		up[i] = 0.1 + i;
	expect(near(sign_test_p(up, 10, 0.0), 2.0 / 1024, 1e-12), "10 of 10 above: p = 2/1024");
	for (i = 0; i < 100; i++)
		mixed[i] = i % 2 ? 1.0 : -1.0;
	expect(sign_test_p(mixed, 100, 0.0) == 1.0, "50 above, 50 below: p = 1");
	expect(near(sign_test_p_above(up, 10, 0.0), 1.0 / 1024, 1e-12), "one-sided: p = 1/1024");

	for (i = 0; i < 200; i++) {
		small[i] = 0.005 * ((double)(i % 21) / 10.0 - 1.0);	/* within +-0.5 % */
		off[i] = 0.03 + small[i];				/* around +3 % */
	}
	expect(equivalence_p(small, 200, log(0.98), log(1.02)) < 1e-10,
	       "all within +-0.5 %: equivalent within +-2 %");
	expect(equivalence_p(off, 200, log(0.98), log(1.02)) == 1.0,
	       "all near +3 %: not equivalent within +-2 %");
}

static void test_benjamini_hochberg(void)
{
	const double all[] = { 0.01, 0.04, 0.03, 0.005 };
	const double three[] = { 0.01, 0.02, 0.03, 0.5 };
	const double none[] = { 0.02, 0.03, 0.04, 0.5 };
	bool reject[4];

	expect(benjamini_hochberg(all, 4, 0.05, reject) == 4, "BH: 4 of 4 (p(4) = 0.04 <= 0.05)");
	expect(benjamini_hochberg(three, 4, 0.05, reject) == 3 && !reject[3] && reject[0],
	       "BH: 3 of 4, not p = 0.5");
	expect(benjamini_hochberg(none, 4, 0.05, reject) == 0,
	       "BH: none (p(1) = 0.02 > 0.0125 and so on)");
}

int main(void)
{
	test_binomial();
	test_median_interval();
	test_median_coverage();
	test_sign_tests();
	test_benjamini_hochberg();
	printf("test_stats: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
