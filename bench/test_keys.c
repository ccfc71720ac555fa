// SPDX-License-Identifier: GPL-2.0
/*
 * Fresh keys: no two samples of a cell share more than 1 % of their
 * keys, within a build or across builds, so that no lookup sample finds
 * the lines of an earlier one in the cache. Drawn exactly as listbench
 * draws them: sample_seed(cell, build, sample index) into
 * node_set_draw_keys(). Two seeds that were neighbouring states of one
 * generator gave the same keys a few places apart (v3: 294 of 300).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodes.h"

#define SAMPLES 64
#define KEYS 300
#define BUILDS 3

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Keys two sorted samples have in common. */
static size_t shared(const uint64_t *a, const uint64_t *b, size_t n)
{
	size_t i = 0, j = 0, common = 0;

	while (i < n && j < n) {
		if (a[i] < b[j]) {
			i++;
		} else if (a[i] > b[j]) {
			j++;
		} else {
			common++;
			i++;
			j++;
		}
	}
	return common;
}

/* Every pair of the cell's samples, over every build: the most shared. */
static size_t most_shared(const struct node_set *set, const struct key_draw *draw,
			  uint64_t cell)
{
	static uint64_t keys[BUILDS * SAMPLES][KEYS];
	size_t i, j, worst = 0;
	unsigned int build;

	for (build = 1; build <= BUILDS; build++) {
		for (i = 0; i < SAMPLES; i++) {
			uint64_t *k = keys[(build - 1) * SAMPLES + i];

			node_set_draw_keys(set, draw, k, KEYS, sample_seed(cell, build, i));
			qsort(k, KEYS, sizeof(*k), compare_u64);
		}
	}
	for (i = 0; i < BUILDS * SAMPLES; i++) {
		for (j = i + 1; j < BUILDS * SAMPLES; j++) {
			size_t s = shared(keys[i], keys[j], KEYS);

			worst = s > worst ? s : worst;
		}
	}
	return worst;
}

int main(void)
{
	/* Only the node count matters to the draw: a set of 2^20 nodes, 64 MiB. */
	struct node_set set = { .nr_nodes = (size_t)1 << 20 };
	static const double hit_shares[] = { 0.0, 0.5, 1.0 };
	int failed = 0, passed = 0;
	size_t h, worst;
	uint64_t cell;

	for (cell = 1; cell <= 4; cell++) {
		for (h = 0; h < 3; h++) {
			struct key_draw draw = { .hits = hit_shares[h] };

			worst = most_shared(&set, &draw, cell * 0x9e3779b97f4a7c15ull);
			if (worst * 100 > KEYS) {
				printf("FAIL cell %" PRIu64 ", hits %.1f: two of its %d samples share "
				       "%zu of %d keys (more than 1 %%)\n", cell, hit_shares[h],
				       BUILDS * SAMPLES, worst, KEYS);
				failed++;
			} else {
				passed++;
			}
		}
	}
	/* And the draw is a draw: different samples, different keys. */
	{
		uint64_t a[KEYS], b[KEYS];
		struct key_draw draw = { .hits = 1.0 };

		node_set_draw_keys(&set, &draw, a, KEYS, sample_seed(7, 1, 0));
		node_set_draw_keys(&set, &draw, b, KEYS, sample_seed(7, 1, 0));
		if (memcmp(a, b, sizeof(a))) {
			printf("FAIL the same seed drew other keys\n");
			failed++;
		} else {
			passed++;
		}
	}
	printf("test_keys: %d passed, %d failed (%d samples x %d keys per cell, %d builds)\n",
	       passed, failed, BUILDS * SAMPLES, KEYS, BUILDS);
	return failed ? 1 : 0;
}
