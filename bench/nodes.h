/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NODES_H
#define NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "walkers.h"

enum node_layout {
	LAYOUT_ALLOC_ORDER,	/* list order is allocation (address) order */
	LAYOUT_SHUFFLED,	/* list order is a random permutation: a pointer chase */
	NR_LAYOUTS
};

/* What backs a node set: the kernel's objects live in the direct map's 2 MiB pages. */
enum page_kind {
	PAGES_4K,
	PAGES_THP,	/* transparent huge pages, madvise()d and counted */
	PAGES_HUGETLB,	/* MAP_HUGETLB, where the machine has huge pages reserved */
	NR_PAGE_KINDS
};

/* Lists are at most this long; a bigger set is many such lists. */
#define LIST_MAX_LEN 1024

/*
 * One array of nodes of one shape, linked twice: into lists of
 * list_len nodes (list i holds nodes order[i * list_len ...] in that
 * order, so a shuffled list's nodes are spread over the whole array),
 * and into a hash table of nr_nodes / load buckets (rounded down to a
 * power of two, so the mean chain is load to 2 * load nodes; exactly
 * load for a power-of-two count) by keys key_of(0, 2, 4, ...): node p
 * holds key_of(2p), at the head of its chain in the order of order[],
 * as a table fills over time. Odd key numbers are absent.
 */
struct node_set {
	char *mem;
	enum node_shape shape;
	const struct shape_desc *desc;
	size_t *order;
	size_t nr_nodes;
	size_t bytes;		/* of nodes, as mapped */
	enum node_layout layout;
	enum page_kind pages;	/* what backs the nodes */
	struct list_head *heads;
	size_t nr_lists;
	size_t list_len;
	struct hash_table table;
	unsigned int load;	/* the table's nominal load factor */
};

/* Which keys a run of lookups asks for. */
enum match_position {
	MATCH_UNIFORM,	/* any present key: the match anywhere in its chain */
	MATCH_HEAD,	/* only keys at the head of their chain */
	NR_POSITIONS
};

struct key_draw {
	double hits;		/* the share of present keys, 0 to 1 */
	const size_t *heads;	/* MATCH_HEAD: nodes at a chain's head; else NULL */
	size_t nr_heads;
};

/*
 * Zeroed memory backed as @want asks (PAGES_HUGETLB falls back to THP
 * where no huge page is reserved), or NULL; *@got says what backs it: a
 * THP mapping less than half backed by huge pages is PAGES_4K.
 */
void *bench_map(size_t bytes, enum page_kind want, enum page_kind *got);
void bench_unmap(void *p, size_t bytes);
/* Anonymous memory of this process in transparent huge pages. */
size_t anon_huge_bytes(void);

int node_set_init(struct node_set *set, size_t nr_nodes, enum node_shape shape,
		  enum node_layout layout, enum page_kind pages, uint64_t seed);
/* Links the nodes into lists of @list_len (1 to LIST_MAX_LEN) instead. */
int node_set_relink(struct node_set *set, size_t list_len);
/* Links the nodes into a table of load factor @load (>= 1) instead. */
int node_set_rehash(struct node_set *set, unsigned int load);

static inline char *node_at(const struct node_set *set, size_t i)
{
	return set->mem + i * set->desc->size;
}

static inline uint64_t node_key(const struct node_set *set, size_t i)
{
	return *(const uint64_t *)(node_at(set, i) + set->desc->key_offset);
}

static inline uint64_t node_payload(const struct node_set *set, size_t i)
{
	return *(const uint64_t *)(node_at(set, i) + set->desc->payload_offset);
}

/*
 * The indices of the nodes at the head of a non-empty chain (malloc'ed;
 * NULL on ENOMEM), their number in *@n.
 */
size_t *node_set_chain_heads(const struct node_set *set, size_t *n);

/*
 * Fills @keys with @n keys from @seed as @draw says: a share draw->hits
 * of present keys (uniform, or among draw->heads), the rest absent ones.
 * Key i comes from mix64(seed + i * golden ratio), a counter-based
 * draw: two seeds give unrelated keys however close the seeds are.
 */
void node_set_draw_keys(const struct node_set *set, const struct key_draw *draw,
			uint64_t *keys, size_t n, uint64_t seed);
void node_set_free(struct node_set *set);

/*
 * The seed of sample @index of the cell @cell_id in build @build: a hash
 * of the three, never a neighbouring state of one generator, so no two
 * samples share keys or lists beyond chance.
 */
uint64_t sample_seed(uint64_t cell_id, unsigned int build, uint64_t index);

/* The checksum an empty-body walk of list @i must return. */
uint64_t node_set_list_checksum(const struct node_set *set, size_t i);

const char *node_layout_name(enum node_layout layout);
const char *match_position_name(enum match_position position);
const char *page_kind_name(enum page_kind pages);

/* A Fisher-Yates shuffle of @n indices from @seed. */
void shuffle_indices(size_t *order, size_t n, uint64_t seed);

#endif /* NODES_H */
