// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "nodes.h"

static uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static void shuffle(size_t *order, size_t n, uint64_t seed)
{
	uint64_t state = seed | 1;
	size_t i, j, tmp;

	for (i = n; i > 1; i--) {
		j = xorshift64(&state) % i;
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

int node_set_init(struct node_set *set, size_t nr_nodes,
		  enum node_layout layout, uint64_t seed)
{
	struct hlist_node *tail = NULL;
	size_t i, bucket;

	memset(set, 0, sizeof(*set));
	set->nr_nodes = nr_nodes;
	set->nr_buckets = nr_nodes / HLIST_CHAIN_LEN + 1;
	/* Cache-line aligned, as slab objects of this size are. */
	if (posix_memalign((void **)&set->nodes, 64,
			   (nr_nodes ? nr_nodes : 1) * sizeof(*set->nodes)))
		set->nodes = NULL;
	set->order = calloc(nr_nodes ? nr_nodes : 1, sizeof(*set->order));
	set->table = calloc(set->nr_buckets, sizeof(*set->table));
	if (!set->nodes || !set->order || !set->table) {
		node_set_free(set);
		return -1;
	}

	for (i = 0; i < nr_nodes; i++)
		set->order[i] = i;
	if (layout == LAYOUT_SHUFFLED)
		shuffle(set->order, nr_nodes, seed);

	INIT_LIST_HEAD(&set->head);
	for (i = 0; i < nr_nodes; i++) {
		struct bench_node *node = &set->nodes[set->order[i]];

		node->id = set->order[i];
		for (size_t w = 0; w < NODE_PAYLOAD_WORDS - 2; w++)
			node->payload[w] = (node->id + 1) * 2654435761u + w;
		list_add_tail(&node->list, &set->head);

		bucket = i / HLIST_CHAIN_LEN;
		if (i % HLIST_CHAIN_LEN == 0)
			tail = NULL;
		tail = hlist_append(&set->table[bucket], tail, &node->hnode);
	}
	return 0;
}

void node_set_free(struct node_set *set)
{
	free(set->nodes);
	free(set->order);
	free(set->table);
	memset(set, 0, sizeof(*set));
}

uint64_t node_set_checksum(const struct node_set *set)
{
	uint64_t h = 0;
	size_t i;

	for (i = 0; i < set->nr_nodes; i++)
		h = h * 31 + set->order[i];
	return h;
}

const char *node_layout_name(enum node_layout layout)
{
	return layout == LAYOUT_SEQUENTIAL ? "sequential" : "shuffled";
}
