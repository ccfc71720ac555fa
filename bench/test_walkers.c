// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the walkers: every prefetch variant, with every loop
 * body, visits the same nodes in the same order as the node set's own
 * order, on empty, one-node and long lists; every lookup variant finds
 * exactly what a plain search of the nodes finds, on tables of every
 * shape, with chains of the Poisson lengths load factor 1 gives.
 */
#include <inttypes.h>
#include <stdio.h>

#include "nodes.h"
#include "walkers.h"

struct test_counts {
	int passed;
	int failed;
};

static void expect(struct test_counts *counts, int ok, const char *fmt, size_t n,
		   const char *what)
{
	if (ok) {
		counts->passed++;
		return;
	}
	counts->failed++;
	printf("FAIL ");
	printf(fmt, n, what);
	printf("\n");
}

static void test_lists(struct test_counts *counts, const struct node_set *set)
{
	size_t i;
	int v, b;

	for (i = 0; i < set->nr_lists; i++) {
		uint64_t want[NR_BODIES];

		want[BODY_EMPTY] = node_set_list_checksum(set, i);
		want[BODY_TOUCH] = list_walker(PF_NONE, BODY_TOUCH)(&set->heads[i]);
		/* A body that does nothing would make the checks vacuous. */
		expect(counts, set->nr_nodes == 0 || want[BODY_TOUCH] != want[BODY_EMPTY],
		       "%zu nodes: the %s body does not change the checksum",
		       set->nr_nodes, "touch");
		for (v = 0; v < NR_PF_VARIANTS; v++)
			for (b = 0; b < NR_BODIES; b++)
				expect(counts, list_walker(v, b)(&set->heads[i]) == want[b],
				       "%zu nodes: list walk %s visits other nodes",
				       set->nr_nodes, prefetch_variant_name(v));
	}
}

/* What the lookups must find, by a plain search of every node. */
static struct lookup_result reference_lookups(const struct node_set *set,
					      uint64_t seed, size_t nr_lookups)
{
	struct lookup_result r = { 0, 0, 0 };
	uint64_t state = seed | 1;
	size_t i, k;

	for (i = 0; i < nr_lookups; i++) {
		const struct bench_node *found = NULL;
		uint64_t key;

		state = next_key_state(state);
		key = key_of(key_from_state(state, set->table.key_range));
		for (k = 0; k < set->nr_nodes; k++)
			if (set->nodes[k].key == key)
				found = &set->nodes[k];
		if (found) {
			r.hits++;
			r.checksum = r.checksum * 31 + found->payload[0];
		} else {
			r.checksum = r.checksum * 31 + 1;
		}
		state += found != NULL;
	}
	return r;
}

static void test_lookups(struct test_counts *counts, const struct node_set *set)
{
	size_t lookups = set->nr_nodes < 2000 ? 500 : 20;
	struct lookup_result want = reference_lookups(set, 77, lookups);
	int v;

	for (v = 0; v < NR_PF_VARIANTS; v++) {
		struct lookup_result got = lookup_walker(v)(&set->table, 77, lookups);

		expect(counts, got.checksum == want.checksum && got.hits == want.hits,
		       "%zu nodes: lookup %s finds other nodes", set->nr_nodes,
		       prefetch_variant_name(v));
	}
	/* Half the key space is present: about half the lookups hit. */
	if (set->nr_nodes >= 100)
		expect(counts, want.hits > lookups / 4 && want.hits < 3 * lookups / 4,
		       "%zu nodes: %s", set->nr_nodes, "hit ratio far from one half");
}

/* Load factor 1: every node in a chain, and chains of Poisson lengths. */
static void test_table_shape(struct test_counts *counts)
{
	struct node_set set;
	size_t histogram[8] = { 0 }, i, linked = 0, buckets;

	if (node_set_init(&set, 1 << 16, LAYOUT_SHUFFLED, 5)) {
		counts->failed++;
		return;
	}
	buckets = (size_t)1 << set.table.bits;
	for (i = 0; i < buckets; i++) {
		size_t len = 0;
		const struct hlist_node *n;

		for (n = set.table.buckets[i].first; n; n = n->next)
			len++;
		linked += len;
		histogram[len < 7 ? len : 7]++;
	}
	expect(counts, buckets == set.nr_nodes && linked == set.nr_nodes,
	       "%zu nodes: %s", set.nr_nodes, "not all linked at load factor 1");
	/* Poisson(1): P(0) = P(1) = 0.368, P(2) = 0.184, P(3) = 0.061. */
	expect(counts, histogram[0] > buckets * 33 / 100 && histogram[0] < buckets * 40 / 100 &&
	       histogram[2] > buckets * 16 / 100 && histogram[3] > buckets * 4 / 100,
	       "%zu nodes: %s", set.nr_nodes, "chain lengths are not Poisson(1)");
	node_set_free(&set);
}

/* List order really is the layout: address order, or not. */
static void test_layouts(struct test_counts *counts)
{
	struct node_set seq, shuf;
	size_t i, in_place = 0;

	if (node_set_init(&seq, 1000, LAYOUT_SEQUENTIAL, 1) ||
	    node_set_init(&shuf, 1000, LAYOUT_SHUFFLED, 1)) {
		counts->failed++;
		return;
	}
	for (i = 0; i < 1000; i++)
		in_place += shuf.order[i] == i;
	expect(counts, seq.order[999] == 999 && in_place < 50,
	       "%zu nodes: %s", (size_t)1000, "the shuffled layout is not shuffled");
	node_set_free(&seq);
	node_set_free(&shuf);
}

int main(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 1000, 1024, 1025, 100001 };
	struct test_counts counts = { 0, 0 };
	size_t i;
	int layout;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (layout = 0; layout < NR_LAYOUTS; layout++) {
			struct node_set set;

			if (node_set_init(&set, sizes[i], layout, 42)) {
				counts.failed++;
				printf("FAIL: cannot allocate %zu nodes\n", sizes[i]);
				continue;
			}
			test_lists(&counts, &set);
			test_lookups(&counts, &set);
			node_set_free(&set);
		}
	}
	test_table_shape(&counts);
	test_layouts(&counts);
	printf("test_walkers: %d passed, %d failed\n", counts.passed, counts.failed);
	return counts.failed ? 1 : 0;
}
