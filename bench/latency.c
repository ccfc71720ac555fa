// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latency.h"
#include "nodes.h"

#define LINE 64
#define CHASE_TRIALS 5

struct line {
	struct line *next;
	char pad[LINE - sizeof(struct line *)];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Follows @hops links from @p; returns where it ended (a dependency). */
static struct line *chase(struct line *p, size_t hops)
{
	while (hops--)
		p = p->next;
	return p;
}

/* Anonymous memory of this process in huge pages, from smaps_rollup. */
static size_t anon_huge_bytes(void)
{
	char line[256];
	size_t kib = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %zu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib * 1024;
}

double chase_latency(size_t bytes, bool huge, unsigned long seed)
{
	size_t lines = bytes / LINE, i, hops, warm;
	struct line *mem, *volatile end;
	size_t *order;
	double best = -1.0;
	int trial;

	if (lines < 2)
		return -1.0;
	mem = bench_map(bytes, huge);
	order = malloc(lines * sizeof(*order));
	if (!mem || !order) {
		bench_unmap(mem, bytes);
		free(order);
		return -1.0;
	}
	for (i = 0; i < lines; i++)
		order[i] = i;
	shuffle_indices(order, lines, seed);
	/* One cycle through every line, in random order. */
	for (i = 0; i < lines; i++)
		mem[order[i]].next = &mem[order[(i + 1) % lines]];
	free(order);
	/* Below half in huge pages, a "huge" figure would be a 4 KiB one. */
	if (huge && bytes >= ((size_t)4 << 20) && anon_huge_bytes() < bytes / 2) {
		bench_unmap(mem, bytes);
		return 0.0;
	}

	warm = lines < ((size_t)1 << 22) ? lines : (size_t)1 << 22;
	hops = 2 * lines;
	if (hops < ((size_t)1 << 18))
		hops = (size_t)1 << 18;
	if (hops > ((size_t)1 << 20))
		hops = (size_t)1 << 20;
	end = chase(mem, warm);
	for (trial = 0; trial < CHASE_TRIALS; trial++) {
		uint64_t t0 = now_ns();
		double ns;

		end = chase(end, hops);
		ns = (double)(now_ns() - t0) / (double)hops;
		if (best < 0 || ns < best)
			best = ns;
	}
	bench_unmap(mem, bytes);
	return best;
}

bool huge_pages_available(void)
{
	char text[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return false;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return strstr(text, "[never]") == NULL && text[0] != '\0';
}

/*
 * The plateaus are measured, not assumed: the smallest set's latency is
 * L1's, a set of half the L2 gives L2's, sets far beyond the LLC give
 * memory's (the fastest of them: the largest also pay for translation).
 * A size is in the fastest level whose latency it stays within 1.5x of,
 * memory once it is at 60 % of memory latency or more, the LLC between;
 * past L2, 4 KiB pages costing 25 % over 2 MiB ones make it TLB-bound.
 */
static void classify(struct latency_point *points, size_t n, double l1_ns,
		     double l2_ns, double dram_ns, bool huge)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct latency_point *p = &points[i];
		double ns = huge && p->ns_huge > 0 ? p->ns_huge : p->ns_small;

		if (ns <= 1.5 * l1_ns)
			p->regime = REGIME_L1;
		else if (ns <= 1.5 * l2_ns)
			p->regime = REGIME_L2;
		else if (ns >= 0.6 * dram_ns)
			p->regime = REGIME_DRAM;
		else
			p->regime = REGIME_LLC;
		if (huge && p->ns_huge > 0 && p->regime >= REGIME_LLC &&
		    p->ns_small >= 1.25 * p->ns_huge)
			p->regime = REGIME_TLB;
	}
}

/* Memory latency: the fastest set of 4x the LLC or more, or the largest. */
static double memory_latency(const struct latency_point *points, size_t n,
			     size_t llc_bytes, bool huge)
{
	double best = points[n - 1].ns_small;
	size_t i;

	for (i = 0; i < n; i++) {
		double ns = huge && points[i].ns_huge > 0 ? points[i].ns_huge : points[i].ns_small;

		if (points[i].bytes >= 4 * llc_bytes && ns < best)
			best = ns;
	}
	return best;
}

double latency_sweep(struct latency_point *points, size_t n, size_t l2_bytes,
		     size_t llc_bytes, bool verbose)
{
	bool huge = huge_pages_available();
	double l2_ns, l2_ns_huge;
	size_t i;

	if (n == 0)
		return -1.0;
	for (i = 0; i < n; i++) {
		points[i].ns_small = chase_latency(points[i].bytes, false, 7 + i);
		points[i].ns_huge = huge ?
			chase_latency(points[i].bytes, true, 7 + i) : points[i].ns_small;
		if (points[i].ns_small < 0 || points[i].ns_huge < 0)
			return -1.0;
		if (verbose)
			fprintf(stderr, "listbench: latency %zu KiB: %.1f / %.1f ns\n",
				points[i].bytes >> 10, points[i].ns_small, points[i].ns_huge);
	}
	l2_ns = chase_latency(l2_bytes / 2, false, 3);
	l2_ns_huge = huge ? chase_latency(l2_bytes / 2, true, 3) : l2_ns;
	if (l2_ns < 0 || l2_ns_huge < 0)
		return -1.0;
	classify(points, n, huge ? points[0].ns_huge : points[0].ns_small,
		 huge ? l2_ns_huge : l2_ns, memory_latency(points, n, llc_bytes, huge), huge);
	return l2_ns;
}

const char *regime_name(enum regime regime)
{
	static const char *const names[NR_REGIMES] = {
		[REGIME_L1] = "L1", [REGIME_L2] = "L2", [REGIME_LLC] = "LLC",
		[REGIME_DRAM] = "DRAM", [REGIME_TLB] = "TLB",
	};

	return names[regime];
}
