// SPDX-License-Identifier: GPL-2.0
/*
 * The timed walkers: every node shape in every prefetch variant (see
 * walker_gen.h), built with the kernel's flags (see Makefile: -O2,
 * -fno-strict-aliasing, no vectorization, no SSE on x86), so the loops
 * compile as in vmlinux.
 */
#include "walker_gen.h"

WALKERS_PLACE();

/* The no-prefetch walkers first, as in walkers_control.c. */
DEFINE_VARIANT(none, PREFETCH_NONE)
DEFINE_VARIANT(read, PREFETCH_READ)
DEFINE_VARIANT(nonnull, PREFETCH_NONNULL)
DEFINE_VARIANT(cmov, PREFETCH_CMOV)
DEFINE_VARIANT(nta, PREFETCH_NTA)
DEFINE_VARIANT(write, PREFETCH_WRITE)

/* Where the branch-free NULL test points a chain's last prefetch. */
const char prefetch_dummy_line[64] __attribute__((aligned(64)));

static const list_walker_fn list_walkers[PF_CONTROL][NR_SHAPES][NR_BODIES] = {
	[PF_NONE] = LIST_TABLE(none),
	[PF_READ] = LIST_TABLE(read),
	[PF_READ_NONNULL] = LIST_TABLE(nonnull),
	[PF_READ_CMOV] = LIST_TABLE(cmov),
	[PF_NTA] = LIST_TABLE(nta),
	[PF_WRITE] = LIST_TABLE(write),
};

static const lookup_walker_fn lookup_walkers[PF_CONTROL][NR_SHAPES][NR_DEPENDENCES] = {
	[PF_NONE] = LOOKUP_TABLE(none),
	[PF_READ] = LOOKUP_TABLE(read),
	[PF_READ_NONNULL] = LOOKUP_TABLE(nonnull),
	[PF_READ_CMOV] = LOOKUP_TABLE(cmov),
	[PF_NTA] = LOOKUP_TABLE(nta),
	[PF_WRITE] = LOOKUP_TABLE(write),
};

list_walker_fn list_walker(enum node_shape shape, enum prefetch_variant variant,
			   enum loop_body body)
{
	if (variant == PF_CONTROL)
		return control_list_walkers[shape][body];
	return list_walkers[variant][shape][body];
}

lookup_walker_fn lookup_walker(enum node_shape shape, enum prefetch_variant variant,
			       enum lookup_dependence dependence)
{
	if (variant == PF_CONTROL)
		return control_lookup_walkers[shape][dependence];
	return lookup_walkers[variant][shape][dependence];
}

uint64_t body_work_steps(uint64_t x, unsigned int steps)
{
	return body_work(x, steps);
}

const struct shape_desc *shape_desc(enum node_shape shape)
{
#define SHAPE(s, looked_up)						\
	{ #s, sizeof(struct node_##s), offsetof(struct node_##s, list),	\
	  offsetof(struct node_##s, hnode), offsetof(struct node_##s, key), \
	  offsetof(struct node_##s, payload), looked_up }
	static const struct shape_desc shapes[NR_SHAPES] = {
		[SHAPE_LINE] = SHAPE(line, 1),
		[SHAPE_DENTRY] = SHAPE(dentry, 1),
		[SHAPE_SKB] = SHAPE(skb, 0),
	};
#undef SHAPE
	return &shapes[shape];
}

/* The fields of node @n of a shape, by its descriptor. */
static uint64_t field(const void *node, size_t offset)
{
	return *(const uint64_t *)((const char *)node + offset);
}

struct lookup_census lookup_census(enum node_shape shape, const struct hash_table *table,
				   const uint64_t *keys, size_t nr_lookups)
{
	const struct shape_desc *d = shape_desc(shape);
	struct lookup_census c = { { 0, 0, 0 }, 0, 0 };
	size_t i;

	for (i = 0; i < nr_lookups; i++) {
		const struct hlist_node *n =
			table->buckets[hash_bucket(keys[i], table->bits)].first;
		const char *found = NULL;

		for (; n; n = n->next) {
			const char *node = (const char *)n - d->hnode_offset;

			c.result.nodes_visited++;
			if (field(node, d->key_offset) == keys[i]) {
				found = node;
				break;
			}
		}
		if (found) {
			c.result.hits++;
			c.result.checksum = c.result.checksum * 31 + field(found, d->payload_offset);
			if (n->next)
				c.unused_prefetches++;
			else
				c.null_prefetches++;
		} else {
			c.result.checksum = c.result.checksum * 31 + 1;
			/* A walk that visited nodes prefetched NULL at its end. */
			if (table->buckets[hash_bucket(keys[i], table->bits)].first)
				c.null_prefetches++;
		}
	}
	return c;
}

const char *prefetch_variant_name(enum prefetch_variant variant)
{
	static const char *const names[NR_PF_VARIANTS] = {
		[PF_NONE] = "none", [PF_READ] = "prefetch",
		[PF_READ_NONNULL] = "prefetch-nonnull",
		[PF_READ_CMOV] = "prefetch-cmov",
		[PF_NTA] = "prefetchnta", [PF_WRITE] = "prefetchw",
		[PF_CONTROL] = "control",
	};

	return names[variant];
}

const char *loop_body_name(enum loop_body body)
{
	static const char *const names[NR_BODIES] = {
		[BODY_EMPTY] = "empty", [BODY_TOUCH] = "touch",
	};

	return names[body];
}

const char *lookup_dependence_name(enum lookup_dependence dependence)
{
	static const char *const names[NR_DEPENDENCES] = {
		[LOOKUP_DEPENDENT] = "dependent",
		[LOOKUP_INDEPENDENT] = "independent",
	};

	return names[dependence];
}
