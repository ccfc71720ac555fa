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
#include <stdlib.h>
#include <time.h>

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
	static const unsigned int works[] = { 0, 7 };
	enum node_shape shape = set->shape;
	size_t i, k;
	int v, b;

	for (i = 0; i < set->nr_lists; i++) {
		for (k = 0; k < 2; k++) {
			uint64_t want[NR_BODIES];

			want[BODY_EMPTY] = node_set_list_checksum(set, i);
			want[BODY_TOUCH] = list_walker(shape, PF_NONE, BODY_TOUCH)(&set->heads[i],
										 works[k]);
			/* A body that does nothing would make the checks vacuous. */
			expect(counts, set->nr_nodes == 0 || want[BODY_TOUCH] != want[BODY_EMPTY],
			       "%zu nodes: the %s body does not change the checksum",
			       set->nr_nodes, "touch");
			expect(counts, set->nr_nodes == 0 || works[k] == 0 ||
			       want[BODY_TOUCH] != list_walker(shape, PF_NONE, BODY_TOUCH)(&set->heads[i],
											     0),
			       "%zu nodes: the %s does not change the checksum", set->nr_nodes,
			       "body's work");
			for (v = 0; v < NR_PF_VARIANTS; v++)
				for (b = 0; b < NR_BODIES; b++)
					expect(counts, list_walker(shape, v, b)(&set->heads[i],
										works[k]) ==
					       want[b], "%zu nodes: list walk %s visits other nodes",
					       set->nr_nodes, prefetch_variant_name(v));
		}
	}
}

/*
 * What the lookups must find, by a plain search of every node, and how
 * many of them walk a non-empty chain (each such walk ends in exactly
 * one prefetch that is not used: of NULL, or of a node past the match).
 */
static struct lookup_result reference_lookups(const struct node_set *set,
					      const uint64_t *keys, size_t nr_lookups,
					      size_t *walked)
{
	struct lookup_result r = { 0, 0, 0 };
	size_t i, k;

	*walked = 0;
	for (i = 0; i < nr_lookups; i++) {
		size_t found = set->nr_nodes;

		for (k = 0; k < set->nr_nodes; k++)
			if (node_key(set, k) == keys[i])
				found = k;
		if (found < set->nr_nodes) {
			r.hits++;
			r.checksum = r.checksum * 31 + node_payload(set, found);
		} else {
			r.checksum = r.checksum * 31 + 1;
		}
		*walked += set->table.buckets[hash_bucket(keys[i], set->table.bits)].first != NULL;
	}
	return r;
}

static void test_lookups(struct test_counts *counts, struct node_set *set, unsigned int load)
{
	size_t lookups = set->nr_nodes < 2000 ? 500 : 20, walked, nr_heads = 0;
	uint64_t keys[500];
	struct key_draw draw = { .hits = 0.5 };
	struct lookup_result want;
	struct lookup_census census;
	size_t *heads;
	int v, d;

	if (node_set_rehash(set, load)) {
		counts->failed++;
		return;
	}
	node_set_draw_keys(set, &draw, keys, lookups, 77);
	want = reference_lookups(set, keys, lookups, &walked);
	census = lookup_census(set->shape, &set->table, keys, lookups);
	expect(counts, census.result.checksum == want.checksum && census.result.hits == want.hits,
	       "%zu nodes: the %s finds other nodes", set->nr_nodes, "census");
	expect(counts, census.unused_prefetches + census.null_prefetches == walked,
	       "%zu nodes: the %s of unused and NULL prefetches is off", set->nr_nodes,
	       "count");
	for (v = 0; v < NR_PF_VARIANTS; v++) {
		for (d = 0; d < NR_DEPENDENCES; d++) {
			struct lookup_result got =
				lookup_walker(set->shape, v, d)(&set->table, keys, lookups);

			expect(counts, got.checksum == want.checksum && got.hits == want.hits &&
			       got.nodes_visited == census.result.nodes_visited,
			       "%zu nodes: lookup %s finds other nodes", set->nr_nodes,
			       prefetch_variant_name(v));
		}
	}
	if (set->nr_nodes < 100)
		return;
	/* The draw keeps its shares: about half, none, all present. */
	expect(counts, want.hits > lookups / 4 && want.hits < 3 * lookups / 4,
	       "%zu nodes: %s", set->nr_nodes, "hit ratio far from one half");
	draw.hits = 0.0;
	node_set_draw_keys(set, &draw, keys, lookups, 78);
	expect(counts, lookup_census(set->shape, &set->table, keys, lookups).result.hits == 0,
	       "%zu nodes: %s", set->nr_nodes, "hits drawn at a hit share of 0");
	draw.hits = 1.0;
	node_set_draw_keys(set, &draw, keys, lookups, 79);
	expect(counts, lookup_census(set->shape, &set->table, keys, lookups).result.hits ==
	       lookups,
	       "%zu nodes: %s", set->nr_nodes, "misses drawn at a hit share of 1");
	/* Matches at the head: one node visited per lookup. */
	heads = node_set_chain_heads(set, &nr_heads);
	draw = (struct key_draw){ .hits = 1.0, .heads = heads, .nr_heads = nr_heads };
	node_set_draw_keys(set, &draw, keys, lookups, 80);
	census = lookup_census(set->shape, &set->table, keys, lookups);
	expect(counts, heads && census.result.hits == lookups &&
	       census.result.nodes_visited == lookups,
	       "%zu nodes: %s", set->nr_nodes, "head matches visit more than the head");
	free(heads);
}

/* Load factor 1: every node in a chain, and chains of Poisson lengths. */
static void test_table_shape(struct test_counts *counts)
{
	struct node_set set;
	size_t histogram[8] = { 0 }, i, linked = 0, buckets;

	if (node_set_init(&set, 1 << 16, SHAPE_LINE, LAYOUT_SHUFFLED, PAGES_4K, 5)) {
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ns per lookup of @walker over fresh keys: the fastest of five runs. */
static double time_lookups(const struct node_set *set, lookup_walker_fn walker,
			   uint64_t *keys, size_t n)
{
	struct key_draw draw = { .hits = 1.0 };
	double best = -1.0;
	int trial;

	for (trial = 0; trial < 5; trial++) {
		volatile uint64_t sink;
		uint64_t t0;
		double ns;

		node_set_draw_keys(set, &draw, keys, n, 1000 + trial);
		t0 = now_ns();
		sink = walker(&set->table, keys, n).checksum;
		(void)sink;
		ns = (double)(now_ns() - t0) / (double)n;
		if (best < 0 || ns < best)
			best = ns;
	}
	return best;
}

/*
 * The dependence is real, and only where it is meant: far past any
 * cache, a dependent lookup waits for the last one's miss, independent
 * ones overlap theirs. Computing the same results cannot tell the two
 * apart, so time them: a dependent walker that lost its dependency, or
 * an independent one that gained one, runs at the other's speed.
 */
static void test_dependence(struct test_counts *counts)
{
	const size_t bytes = (size_t)256 << 20, lookups = 4000;
	uint64_t *keys = malloc(lookups * sizeof(*keys));
	struct node_set set;
	double dependent, independent;

	if (!keys || node_set_init(&set, bytes / sizeof(struct node_line), SHAPE_LINE,
				   LAYOUT_SHUFFLED, PAGES_4K, 9)) {
		counts->failed++;
		free(keys);
		return;
	}
	dependent = time_lookups(&set, lookup_walker(SHAPE_LINE, PF_NONE, LOOKUP_DEPENDENT),
				 keys, lookups);
	independent = time_lookups(&set, lookup_walker(SHAPE_LINE, PF_NONE, LOOKUP_INDEPENDENT),
				   keys, lookups);
	printf("256 MiB, every key present: dependent %.1f ns, independent %.1f ns per lookup\n",
	       dependent, independent);
	expect(counts, dependent >= 2 * independent,
	       "%zu MiB: %s", bytes >> 20,
	       "dependent lookups are not twice as slow as independent ones: one of them "
	       "does not (or does) wait for the last lookup");
	node_set_free(&set);
	free(keys);
}

/* Lists of 8 and 64: every node in one list, each walked from its head. */
static void test_short_lists(struct test_counts *counts, struct node_set *set)
{
	static const size_t lens[] = { 8, 64 };
	size_t k, i, seen;

	for (k = 0; k < 2; k++) {
		if (node_set_relink(set, lens[k])) {
			counts->failed++;
			return;
		}
		test_lists(counts, set);
		for (i = 0, seen = 0; i < set->nr_lists; i++) {
			const struct list_head *p;
			size_t len = 0;

			for (p = set->heads[i].next; p != &set->heads[i]; p = p->next)
				len++;
			seen += len;
			expect(counts, len <= lens[k], "%zu nodes: a list longer than %s",
			       set->nr_nodes, "asked");
		}
		expect(counts, seen == set->nr_nodes, "%zu nodes: %s", set->nr_nodes,
		       "short lists lose nodes");
	}
	node_set_relink(set, LIST_MAX_LEN);
}

/*
 * The shapes are the kernel's: sizes, and which lines hold the link and
 * what the body reads (dentry: link in the third line, fields in the
 * first; skb: link in the first, key and payload in the second and
 * fourth).
 */
static void test_shapes(struct test_counts *counts)
{
	const struct shape_desc *line = shape_desc(SHAPE_LINE);
	const struct shape_desc *dentry = shape_desc(SHAPE_DENTRY);
	const struct shape_desc *skb = shape_desc(SHAPE_SKB);

	expect(counts, line->size == 64 && line->list_offset / 64 == line->key_offset / 64 &&
	       line->payload_offset / 64 == 0, "%zu: %s", line->size, "line is not one line");
	expect(counts, dentry->size == 192 && dentry->list_offset / 64 == 2 &&
	       dentry->key_offset / 64 == 0 && dentry->payload_offset / 64 == 0 &&
	       dentry->hnode_offset / 64 == 0, "%zu: %s", dentry->size,
	       "dentry's link and fields are not where struct dentry has them");
	expect(counts, skb->size == 256 && skb->list_offset == 0 && skb->key_offset / 64 == 1 &&
	       skb->payload_offset / 64 == 3 && !skb->lookups, "%zu: %s", skb->size,
	       "skb's link and fields are not where struct sk_buff has them");
}

/* List order really is the layout: address order, or not. */
static void test_layouts(struct test_counts *counts)
{
	struct node_set seq, shuf;
	size_t i, in_place = 0;

	if (node_set_init(&seq, 1000, SHAPE_LINE, LAYOUT_ALLOC_ORDER, PAGES_4K, 1) ||
	    node_set_init(&shuf, 1000, SHAPE_LINE, LAYOUT_SHUFFLED, PAGES_4K, 1)) {
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
	int layout, shape;

	for (shape = 0; shape < NR_SHAPES; shape++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			for (layout = 0; layout < NR_LAYOUTS; layout++) {
				struct node_set set;

				if (node_set_init(&set, sizes[i], shape, layout, PAGES_4K, 42)) {
					counts.failed++;
					printf("FAIL: cannot allocate %zu nodes\n", sizes[i]);
					continue;
				}
				test_lists(&counts, &set);
				test_short_lists(&counts, &set);
				if (shape_desc(shape)->lookups) {
					test_lookups(&counts, &set, 1);
					test_lookups(&counts, &set, 4);
				}
				node_set_free(&set);
			}
		}
	}
	test_shapes(&counts);
	test_table_shape(&counts);
	test_layouts(&counts);
	test_dependence(&counts);
	printf("test_walkers: %d passed, %d failed\n", counts.passed, counts.failed);
	return counts.failed ? 1 : 0;
}
