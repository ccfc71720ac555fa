/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NODES_H
#define NODES_H

#include <stddef.h>
#include <stdint.h>

#include "walkers.h"

enum node_layout {
	LAYOUT_SEQUENTIAL,	/* walk order is address order: prefetchers win */
	LAYOUT_SHUFFLED,	/* walk order is a random permutation: a pointer chase */
	NR_LAYOUTS
};

/* Nodes per hash chain: hash tables are sized for short chains. */
#define HLIST_CHAIN_LEN 2

/*
 * One array of nodes linked twice in the same walk order: as a list
 * behind @head, and as hash chains of HLIST_CHAIN_LEN behind @table.
 * Node i in walk order is nodes[order[i]], whose id is order[i].
 */
struct node_set {
	struct bench_node *nodes;
	size_t *order;
	size_t nr_nodes;
	struct list_head head;
	struct hlist_head *table;
	size_t nr_buckets;
};

int node_set_init(struct node_set *set, size_t nr_nodes,
		  enum node_layout layout, uint64_t seed);
void node_set_free(struct node_set *set);

/* The checksum every walker with an empty body must return. */
uint64_t node_set_checksum(const struct node_set *set);

const char *node_layout_name(enum node_layout layout);

#endif /* NODES_H */
