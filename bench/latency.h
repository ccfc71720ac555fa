/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory regime of a working-set size, by measurement: a random
 * pointer chase (one load per cache line, each depending on the last)
 * timed in 4 KiB pages and in 2 MiB pages tells what a load costs at
 * each size and whether address translation adds to it.
 */
#ifndef LATENCY_H
#define LATENCY_H

#include <stdbool.h>
#include <stddef.h>

enum regime {
	REGIME_L1,	/* as fast as the smallest set */
	REGIME_L2,	/* as fast as a set of half the L2 */
	REGIME_LLC,	/* slower than that, well below memory latency */
	REGIME_DRAM,	/* near memory latency */
	NR_REGIMES
};

/* 4 KiB pages costing more than this over 2 MiB ones: translation-bound. */
#define TLB_BOUND 1.10

struct latency_point {
	size_t bytes;
	double ns_small;	/* ns per load, 4 KiB pages */
	double ns_huge;		/* ns per load, 2 MiB pages; 0: not granted */
	enum regime regime;	/* the memory level, judged in 2 MiB pages */
	bool translation_bound;	/* 4 KiB pages cost > TLB_BOUND x 2 MiB ones */
};

/*
 * Minimum over a few timed chases of ns per dependent load; 0 when huge
 * pages were asked for and fewer than half of the set got them.
 */
double chase_latency(size_t bytes, bool huge, unsigned long seed);

/*
 * Measures @points (bytes set by the caller, ascending) plus an anchor
 * at @l2_bytes / 2, and classifies each point; memory latency is the
 * fastest of the points at 4x @llc_bytes or more (or the largest).
 * Returns the anchor's small-page latency (the L2 plateau), or a
 * negative value on failure.
 */
double latency_sweep(struct latency_point *points, size_t n, size_t l2_bytes,
		     size_t llc_bytes, bool verbose);

/* Whether transparent huge pages can be had by madvise(). */
bool huge_pages_available(void);

const char *regime_name(enum regime regime);
/* The level, as "TLB+<level>" for 4 KiB pages where they are translation-bound. */
const char *regime_label(const struct latency_point *p, bool huge_pages);

#endif /* LATENCY_H */
