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

static size_t table_bytes(const struct hash_table *table)
{
	return ((size_t)1 << table->bits) * sizeof(*table->buckets);
}

static int link_hash_table(struct node_set *set, unsigned int load)
{
	struct hash_table *table = &set->table;
	size_t i, buckets = set->nr_nodes / (load ? load : 1);

	bench_unmap(table->buckets, table_bytes(table));
	set->load = load;
	table->zero = 0;
	table->bits = buckets ? floor_log2(buckets) : 0;
	/* Mapped as the nodes are: every table of a run in 4 KiB pages. */
	table->buckets = bench_map(table_bytes(table), false);
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
	set->layout = layout;
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
	if (link_lists(set) || link_hash_table(set, 1))
		goto fail;
	return 0;
fail:
	node_set_free(set);
	return -1;
}

int node_set_rehash(struct node_set *set, unsigned int load)
{
	if (load == set->load)
		return 0;
	return link_hash_table(set, load);
}

size_t *node_set_chain_heads(const struct node_set *set, size_t *n)
{
	size_t buckets = (size_t)1 << set->table.bits, i;
	size_t *heads = malloc((buckets ? buckets : 1) * sizeof(*heads));

	*n = 0;
	if (!heads)
		return NULL;
	for (i = 0; i < buckets; i++) {
		const struct hlist_node *first = set->table.buckets[i].first;

		if (first)
			heads[(*n)++] = (size_t)(container_of(first, struct bench_node, hnode) -
						set->nodes);
	}
	return heads;
}

void node_set_draw_keys(const struct node_set *set, const struct key_draw *draw,
			uint64_t *keys, size_t n, uint64_t seed)
{
	uint64_t state = seed | 1, threshold = (uint64_t)(draw->hits * 4294967296.0);
	size_t i;

	for (i = 0; i < n; i++) {
		state = next_key_state(state);
		if (!set->nr_nodes) {
			keys[i] = key_of(1);
			continue;
		}
		/* The low half decides hit or miss, the high half which key. */
		if ((state & 0xffffffffu) < threshold && draw->heads && draw->nr_heads)
			keys[i] = key_of(2 * draw->heads[key_from_state(state, draw->nr_heads)]);
		else if ((state & 0xffffffffu) < threshold)
			keys[i] = key_of(2 * key_from_state(state, set->nr_nodes));
		else
			keys[i] = key_of(2 * key_from_state(state, set->nr_nodes) + 1);
	}
}

void node_set_free(struct node_set *set)
{
	bench_unmap(set->nodes, set->bytes);
	free(set->order);
	free(set->heads);
	if (set->table.buckets)
		bench_unmap(set->table.buckets, table_bytes(&set->table));
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

const char *match_position_name(enum match_position position)
{
	return position == MATCH_HEAD ? "head" : "uniform";
}
