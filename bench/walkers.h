/* SPDX-License-Identifier: GPL-2.0 */
/*
 * List and hash-chain walkers in every prefetch variant and loop body the
 * benchmark measures. They live in walkers.c, compiled with the kernel's
 * code-generation flags; everything else is ordinary user space.
 */
#ifndef WALKERS_H
#define WALKERS_H

#include <stdint.h>
#include "klist.h"

#define NODE_PAYLOAD_WORDS 5

/* One cache line on x86_64: the list node plus a small payload. */
struct bench_node {
	struct list_head list;
	struct hlist_node hnode;
	uint64_t id;
	uint64_t payload[NODE_PAYLOAD_WORDS - 2];
};

enum prefetch_variant {
	PF_NONE,	/* the kernel since 2011 */
	PF_READ,	/* the seed's prefetch(): read, locality 3 */
	PF_READ_NONNULL, /* the same, skipped when the next pointer is NULL */
	PF_NTA,		/* non-temporal, what i386 prefetch() becomes with SSE */
	PF_WRITE,	/* prefetchw() */
	NR_PF_VARIANTS
};

enum loop_body {
	BODY_EMPTY,	/* only the walk itself */
	BODY_ALU,	/* a few ALU operations, no memory */
	BODY_TOUCH,	/* one dependent read of the node's payload */
	NR_BODIES
};

/*
 * Every walker returns an order-sensitive checksum of the ids it visited
 * (h = h * 31 + id, plus what its body computed), so that two walkers
 * that visit the same nodes in the same order and run the same body
 * return the same value.
 */
typedef uint64_t (*list_walker_fn)(const struct list_head *head);
typedef uint64_t (*hlist_walker_fn)(const struct hlist_head *table,
				    size_t nr_buckets);

list_walker_fn list_walker(enum prefetch_variant variant, enum loop_body body);
hlist_walker_fn hlist_walker(enum prefetch_variant variant, enum loop_body body);

const char *prefetch_variant_name(enum prefetch_variant variant);
const char *loop_body_name(enum loop_body body);

#endif /* WALKERS_H */
