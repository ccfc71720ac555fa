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

double chase_latency(size_t bytes, bool huge, unsigned long seed)
{
	size_t lines = bytes / LINE, i, hops, warm;
	struct line *mem, *volatile end;
	enum page_kind got;
	size_t *order;
	double best = -1.0;
	int trial;

	if (lines < 2)
		return -1.0;
	mem = bench_map(bytes, huge ? PAGES_THP : PAGES_4K, &got);
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
	if (huge && bytes >= ((size_t)4 << 20) && got != PAGES_THP) {
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
 * memory once it is at 60 % of memory latency or more, the LLC between,
 * all judged in 2 MiB pages where the kernel grants them (the memory
 * level without the cost of translation). Past L2, 4 KiB pages costing
 * more than 10 % over 2 MiB ones make the set translation-bound: its
 * 4 KiB cells are labelled TLB+<level>.
 */
static void classify(struct latency_point *points, size_t n, double l1_ns,
		     double l2_ns, double dram_ns)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct latency_point *p = &points[i];
		double ns = p->ns_huge > 0 ? p->ns_huge : p->ns_small;

		if (ns <= 1.5 * l1_ns)
			p->regime = REGIME_L1;
		else if (ns <= 1.5 * l2_ns)
			p->regime = REGIME_L2;
		else if (ns >= 0.6 * dram_ns)
			p->regime = REGIME_DRAM;
		else
			p->regime = REGIME_LLC;
		p->translation_bound = p->ns_huge > 0 && p->regime >= REGIME_LLC &&
			p->ns_small > TLB_BOUND * p->ns_huge;
	}
}

/* Memory latency: the fastest set of 4x the LLC or more, or the largest. */
static double memory_latency(const struct latency_point *points, size_t n,
			     size_t llc_bytes)
{
	double best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		double ns = points[i].ns_huge > 0 ? points[i].ns_huge : points[i].ns_small;

		if ((points[i].bytes >= 4 * llc_bytes || i == n - 1) && (best < 0 || ns < best))
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
		points[i].ns_huge = huge ? chase_latency(points[i].bytes, true, 7 + i) : 0;
		if (points[i].ns_small < 0 || points[i].ns_huge < 0)
			return -1.0;
		if (verbose)
			fprintf(stderr, "listbench: latency %zu KiB: %.1f / %.1f ns\n",
				points[i].bytes >> 10, points[i].ns_small, points[i].ns_huge);
	}
	l2_ns = chase_latency(l2_bytes / 2, false, 3);
	l2_ns_huge = huge ? chase_latency(l2_bytes / 2, true, 3) : 0;
	if (l2_ns < 0 || l2_ns_huge < 0)
		return -1.0;
	classify(points, n, points[0].ns_huge > 0 ? points[0].ns_huge : points[0].ns_small,
		 l2_ns_huge > 0 ? l2_ns_huge : l2_ns, memory_latency(points, n, llc_bytes));
	return l2_ns;
}

const char *regime_name(enum regime regime)
{
	static const char *const names[NR_REGIMES] = {
		[REGIME_L1] = "L1", [REGIME_L2] = "L2", [REGIME_LLC] = "LLC",
		[REGIME_DRAM] = "DRAM",
	};

	return names[regime];
}

const char *regime_label(const struct latency_point *p, bool huge_pages)
{
	static const char *const tlb[NR_REGIMES] = {
		[REGIME_L1] = "L1", [REGIME_L2] = "L2",
		[REGIME_LLC] = "TLB+LLC", [REGIME_DRAM] = "TLB+DRAM",
	};

	return p->translation_bound && !huge_pages ? tlb[p->regime] : regime_name(p->regime);
}
