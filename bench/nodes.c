// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nodes.h"

void shuffle_indices(size_t *order, size_t n, uint64_t seed)
{
	uint64_t state = seed | 1;
	size_t i, j, tmp;

	for (i = n; i > 1; i--) {
		state = next_key_state(state);
		j = state % i;
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

void *bench_map(size_t bytes, bool huge)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Either way on purpose: the system's THP default must not decide. */
	madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return p;
}

void bench_unmap(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes ? bytes : 1);
}

static unsigned int floor_log2(size_t n)
{
	unsigned int bits = 0;

	while (n >>= 1)
		bits++;
	return bits;
}

static int link_lists(struct node_set *set)
{
	size_t i;

	set->list_len = set->nr_nodes < LIST_MAX_LEN ? set->nr_nodes : LIST_MAX_LEN;
	set->nr_lists = set->list_len ?
		(set->nr_nodes + set->list_len - 1) / set->list_len : 1;
	set->heads = calloc(set->nr_lists, sizeof(*set->heads));
	if (!set->heads)
		return -1;
	for (i = 0; i < set->nr_lists; i++)
		INIT_LIST_HEAD(&set->heads[i]);
	for (i = 0; i < set->nr_nodes; i++)
		list_add_tail(&set->nodes[set->order[i]].list,
			      &set->heads[i / set->list_len]);
	return 0;
}

static int link_hash_table(struct node_set *set)
{
	struct hash_table *table = &set->table;
	size_t i;

	table->bits = set->nr_nodes ? floor_log2(set->nr_nodes) : 0;
	table->key_range = set->nr_nodes ? 2 * (uint64_t)set->nr_nodes : 2;
	table->buckets = calloc((size_t)1 << table->bits, sizeof(*table->buckets));
	if (!table->buckets)
		return -1;
	for (i = 0; i < set->nr_nodes; i++) {
		struct bench_node *node = &set->nodes[set->order[i]];

		hlist_add_head(&node->hnode,
			       &table->buckets[hash_bucket(node->key, table->bits)]);
	}
	return 0;
}

int node_set_init(struct node_set *set, size_t nr_nodes,
		  enum node_layout layout, uint64_t seed)
{
	size_t i, w;

	memset(set, 0, sizeof(*set));
	set->nr_nodes = nr_nodes;
	set->bytes = nr_nodes * sizeof(*set->nodes);
	/* Page-aligned, so cache-line aligned as slab objects of this size are. */
	set->nodes = bench_map(set->bytes, false);
	set->order = calloc(nr_nodes ? nr_nodes : 1, sizeof(*set->order));
	if (!set->nodes || !set->order)
		goto fail;
	for (i = 0; i < nr_nodes; i++) {
		struct bench_node *node = &set->nodes[i];

		node->key = key_of(2 * (uint64_t)i);
		for (w = 0; w < NODE_PAYLOAD_WORDS; w++)
			node->payload[w] = (2 * (uint64_t)i + 1) * 2654435761u + w;
		set->order[i] = i;
	}
	if (layout == LAYOUT_SHUFFLED)
		shuffle_indices(set->order, nr_nodes, seed);
	if (link_lists(set) || link_hash_table(set))
		goto fail;
	return 0;
fail:
	node_set_free(set);
	return -1;
}

void node_set_free(struct node_set *set)
{
	bench_unmap(set->nodes, set->bytes);
	free(set->order);
	free(set->heads);
	free(set->table.buckets);
	memset(set, 0, sizeof(*set));
}

uint64_t node_set_list_checksum(const struct node_set *set, size_t i)
{
	size_t first = i * set->list_len, end = first + set->list_len, k;
	uint64_t h = 0;

	if (end > set->nr_nodes)
		end = set->nr_nodes;
	for (k = first; k < end; k++)
		h = h * 31 + set->nodes[set->order[k]].key;
	return h;
}

const char *node_layout_name(enum node_layout layout)
{
	return layout == LAYOUT_SEQUENTIAL ? "sequential" : "shuffled";
}
