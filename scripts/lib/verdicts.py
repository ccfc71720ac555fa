# SPDX-License-Identifier: GPL-2.0
"""The benchmark's statistics for Python callers (bench/stats.c's twins).

Paired ratios: a median with a distribution-free 95 % interval from order
statistics, sign tests for a difference and for equivalence within a
margin, Benjamini-Hochberg over every test of a run, and the same four
verdict words listbench prints: faster, slower, equivalent, undecided.
"""
import math

EQUIV_MARGIN = 0.02
FDR = 0.05


def binomial_half_cdf(n, k):
    """P(X <= k) for X ~ binomial(n, 1/2), exact."""
    if k >= n:
        return 1.0
    return min(1.0, sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def median_interval(samples):
    """(median, low, high): the 95 % order-statistic interval (or the range)."""
    x = sorted(samples)
    n = len(x)
    median = x[n // 2] if n % 2 else (x[n // 2 - 1] + x[n // 2]) / 2
    k = 1
    while k + 1 <= (n + 1) // 2 and 2 * binomial_half_cdf(n, k) <= 0.05:
        k += 1
    return median, x[k - 1], x[n - k]


def sign_test_p(x, center=0.0):
    above = sum(v > center for v in x)
    below = sum(v < center for v in x)
    if above + below == 0:
        return 1.0
    return min(1.0, 2 * binomial_half_cdf(above + below, min(above, below)))


def equivalence_p(x, lo, hi):
    """Small when the median is inside (lo, hi): two one-sided sign tests."""
    above_lo = sum(v > lo for v in x)
    below_lo = sum(v < lo for v in x)
    above_hi = sum(v > hi for v in x)
    below_hi = sum(v < hi for v in x)
    p_lo = binomial_half_cdf(above_lo + below_lo, below_lo) if above_lo else 1.0
    p_hi = binomial_half_cdf(above_hi + below_hi, above_hi) if below_hi else 1.0
    return max(p_lo, p_hi)


def benjamini_hochberg(pvalues, q=FDR):
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    last = 0
    for rank, i in enumerate(order, 1):
        if pvalues[i] <= rank * q / len(pvalues):
            last = rank
    rejected = [False] * len(pvalues)
    for i in order[:last]:
        rejected[i] = True
    return rejected


def paired_ratio(pairs):
    """pairs of (variant, baseline) -> dict with ratio, ci_low, ci_high, p values."""
    logs = [math.log(v / b) for v, b in pairs if v > 0 and b > 0]
    if not logs:
        return None
    median, lo, hi = median_interval(logs)
    return {"ratio": math.exp(median), "ci_low": math.exp(lo), "ci_high": math.exp(hi),
            "n": len(logs), "p_diff": sign_test_p(logs),
            "p_equiv": equivalence_p(logs, math.log(1 - EQUIV_MARGIN),
                                     math.log(1 + EQUIV_MARGIN))}


def decide(results):
    """Sets results[i]['verdict'] over all of them at once (FDR held at 5 %)."""
    diff = benjamini_hochberg([r["p_diff"] for r in results])
    equiv = benjamini_hochberg([r["p_equiv"] for r in results])
    for r, d, e in zip(results, diff, equiv):
        if e:
            r["verdict"] = "equivalent"
        elif d:
            r["verdict"] = "faster" if r["ratio"] < 1 else "slower"
        else:
            r["verdict"] = "undecided"
    return results
