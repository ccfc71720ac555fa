// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the walkers: every prefetch variant, with every loop
 * body, visits the same nodes in the same order as the node set's own
 * walk order, for lists and hash chains, empty, one node and long.
 */
#include <inttypes.h>
#include <stdio.h>

#include "nodes.h"
#include "walkers.h"

struct test_counts {
	int passed;
	int failed;
};

static void expect_eq(struct test_counts *counts, uint64_t got, uint64_t want,
		      const char *what, size_t n, enum node_layout layout,
		      enum prefetch_variant variant, enum loop_body body)
{
	if (got == want) {
		counts->passed++;
		return;
	}
	counts->failed++;
	printf("FAIL %s: %zu nodes, %s, %s, body %s: got %#" PRIx64 ", want %#" PRIx64 "\n",
	       what, n, node_layout_name(layout), prefetch_variant_name(variant),
	       loop_body_name(body), got, want);
}

static void test_node_set(struct test_counts *counts, size_t n,
			  enum node_layout layout)
{
	struct node_set set;
	uint64_t want[NR_BODIES];
	int v, b;

	if (node_set_init(&set, n, layout, 42)) {
		counts->failed++;
		printf("FAIL: cannot allocate %zu nodes\n", n);
		return;
	}
	/* The empty body's checksum is the walk order itself. */
	want[BODY_EMPTY] = node_set_checksum(&set);
	/* The other bodies: what the plain list walk returns. */
	for (b = BODY_ALU; b < NR_BODIES; b++)
		want[b] = list_walker(PF_NONE, b)(&set.head);

	for (v = 0; v < NR_PF_VARIANTS; v++) {
		for (b = 0; b < NR_BODIES; b++) {
			expect_eq(counts, list_walker(v, b)(&set.head), want[b],
				  "list", n, layout, v, b);
			expect_eq(counts,
				  hlist_walker(v, b)(set.table, set.nr_buckets),
				  want[b], "hlist", n, layout, v, b);
		}
	}
	/* A body that does nothing would make the checks above vacuous. */
	if (n > 0 && (want[BODY_TOUCH] == want[BODY_EMPTY] ||
		      want[BODY_ALU] == want[BODY_EMPTY])) {
		counts->failed++;
		printf("FAIL: %zu nodes: a loop body does not change the checksum\n", n);
	} else {
		counts->passed++;
	}
	node_set_free(&set);
}

/* Walk order really is the layout: address order, or not. */
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
	if (seq.order[999] == 999 && in_place < 50) {
		counts->passed++;
	} else {
		counts->failed++;
		printf("FAIL: layouts: %zu of 1000 shuffled nodes in place\n", in_place);
	}
	node_set_free(&seq);
	node_set_free(&shuf);
}

int main(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 1000, 100001 };
	struct test_counts counts = { 0, 0 };
	size_t i;
	int layout;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (layout = 0; layout < NR_LAYOUTS; layout++)
			test_node_set(&counts, sizes[i], layout);
	test_layouts(&counts);
	printf("test_walkers: %d passed, %d failed\n", counts.passed, counts.failed);
	return counts.failed ? 1 : 0;
}
