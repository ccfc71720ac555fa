/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NODES_H
#define NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "walkers.h"

enum node_layout {
	LAYOUT_SEQUENTIAL,	/* list order is address order: prefetchers win */
	LAYOUT_SHUFFLED,	/* list order is a random permutation: a pointer chase */
	NR_LAYOUTS
};

/* Lists are at most this long; a bigger set is many such lists. */
#define LIST_MAX_LEN 1024

/*
 * One array of nodes, linked twice: into lists of at most LIST_MAX_LEN
 * nodes (list i holds nodes order[i * list_len ...] in that order, so
 * a shuffled list's nodes are spread over the whole array), and into a
 * hash table of nr_nodes / load buckets (rounded down to a power of two,
 * so the mean chain is load to 2 * load nodes; exactly load for a
 * power-of-two count) by keys key_of(0, 2, 4, ...): node p holds
 * key_of(2p), at the head of its chain in the order of order[], as a
 * table fills over time. Odd key numbers are absent.
 */
struct node_set {
	struct bench_node *nodes;
	size_t *order;
	size_t nr_nodes;
	size_t bytes;		/* of nodes, as mapped */
	enum node_layout layout;
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
 * Memory in pages of 4 KiB (@huge false) or, where the kernel has
 * transparent huge pages, 2 MiB ones; zeroed, or NULL.
 */
void *bench_map(size_t bytes, bool huge);
void bench_unmap(void *p, size_t bytes);

int node_set_init(struct node_set *set, size_t nr_nodes,
		  enum node_layout layout, uint64_t seed);
/* Links the nodes into a table of load factor @load (>= 1) instead. */
int node_set_rehash(struct node_set *set, unsigned int load);

/*
 * The indices of the nodes at the head of a non-empty chain (malloc'ed;
 * NULL on ENOMEM), their number in *@n.
 */
size_t *node_set_chain_heads(const struct node_set *set, size_t *n);

/*
 * Fills @keys with @n keys from @seed as @draw says: a share draw->hits
 * of present keys (uniform, or among draw->heads), the rest absent ones.
 */
void node_set_draw_keys(const struct node_set *set, const struct key_draw *draw,
			uint64_t *keys, size_t n, uint64_t seed);
void node_set_free(struct node_set *set);

/* The checksum an empty-body walk of list @i must return. */
uint64_t node_set_list_checksum(const struct node_set *set, size_t i);

const char *node_layout_name(enum node_layout layout);
const char *match_position_name(enum match_position position);

/* A Fisher-Yates shuffle of @n indices by a xorshift generator. */
void shuffle_indices(size_t *order, size_t n, uint64_t seed);

#endif /* NODES_H */
