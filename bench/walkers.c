// SPDX-License-Identifier: GPL-2.0
/*
 * The walkers, generated for every (prefetch variant, loop body) pair from
 * one definition each of list_for_each_entry() and hlist_for_each_entry()
 * in the kernel's pre-2011 form: the prefetch of the next node sits in the
 * loop condition, and the hlist one prefetches NULL on its last step.
 *
 * Built with the kernel's flags (see Makefile: -O2, -fno-strict-aliasing,
 * no vectorization, no SSE on x86), so the loops compile as in vmlinux.
 */
#include "walkers.h"

#define PREFETCH_NONE(x)	((void)(x))
#define PREFETCH_READ(x)	__builtin_prefetch((x), 0, 3)
/* Tells the cost of prefetching NULL (every hash chain's last step). */
#define PREFETCH_NONNULL(x)	\
	({ const void *__p = (x); if (__p) __builtin_prefetch(__p, 0, 3); })
#define PREFETCH_NTA(x)		__builtin_prefetch((x), 0, 0)
#define PREFETCH_WRITE(x)	__builtin_prefetch((x), 1, 3)

#define list_for_each_entry_pf(pos, head, member, pf)			\
	for (pos = list_entry((head)->next, typeof(*pos), member);	\
	     pf(pos->member.next), &pos->member != (head);		\
	     pos = list_entry(pos->member.next, typeof(*pos), member))

#define hlist_entry_safe(ptr, type, member) \
	({ typeof(ptr) ____ptr = (ptr); \
	   ____ptr ? container_of(____ptr, type, member) : NULL; })

#define hlist_for_each_entry_pf(pos, head, member, pf)			\
	for (pos = hlist_entry_safe((head)->first, typeof(*(pos)), member); \
	     pos && ({ pf(pos->member.next); 1; });			\
	     pos = hlist_entry_safe((pos)->member.next, typeof(*(pos)), member))

/*
 * The loop bodies. The ALU body is a few dependent integer operations on
 * a register; the touch body reads one payload word of the current node,
 * a load that depends on the pointer chase.
 */
#define BODY_EMPTY_STMT(pos, h)	do { } while (0)
#define BODY_ALU_STMT(pos, h)	do { (h) ^= (h) >> 7; (h) += 0x9e37; (h) *= 5; } while (0)
#define BODY_TOUCH_STMT(pos, h)	do { (h) += (pos)->payload[0]; } while (0)

#define DEFINE_WALKERS(pfname, pf, bodyname, body)			\
static uint64_t list_walk_##pfname##_##bodyname(const struct list_head *head) \
{									\
	const struct bench_node *pos;					\
	uint64_t h = 0;							\
									\
	list_for_each_entry_pf(pos, head, list, pf) {			\
		h = h * 31 + pos->id;					\
		body(pos, h);						\
	}								\
	return h;							\
}									\
									\
static uint64_t hlist_walk_##pfname##_##bodyname(const struct hlist_head *table, \
						 size_t nr_buckets)	\
{									\
	const struct bench_node *pos;					\
	uint64_t h = 0;							\
	size_t bucket;							\
									\
	for (bucket = 0; bucket < nr_buckets; bucket++) {		\
		hlist_for_each_entry_pf(pos, &table[bucket], hnode, pf) { \
			h = h * 31 + pos->id;				\
			body(pos, h);					\
		}							\
	}								\
	return h;							\
}

#define DEFINE_VARIANT(pfname, pf)					\
	DEFINE_WALKERS(pfname, pf, empty, BODY_EMPTY_STMT)		\
	DEFINE_WALKERS(pfname, pf, alu, BODY_ALU_STMT)			\
	DEFINE_WALKERS(pfname, pf, touch, BODY_TOUCH_STMT)

DEFINE_VARIANT(none, PREFETCH_NONE)
DEFINE_VARIANT(read, PREFETCH_READ)
DEFINE_VARIANT(nonnull, PREFETCH_NONNULL)
DEFINE_VARIANT(nta, PREFETCH_NTA)
DEFINE_VARIANT(write, PREFETCH_WRITE)

#define WALKER_ROW(prefix, pfname) \
	{ prefix##_##pfname##_empty, prefix##_##pfname##_alu, prefix##_##pfname##_touch }

static const list_walker_fn list_walkers[NR_PF_VARIANTS][NR_BODIES] = {
	[PF_NONE] = WALKER_ROW(list_walk, none),
	[PF_READ] = WALKER_ROW(list_walk, read),
	[PF_READ_NONNULL] = WALKER_ROW(list_walk, nonnull),
	[PF_NTA] = WALKER_ROW(list_walk, nta),
	[PF_WRITE] = WALKER_ROW(list_walk, write),
};

static const hlist_walker_fn hlist_walkers[NR_PF_VARIANTS][NR_BODIES] = {
	[PF_NONE] = WALKER_ROW(hlist_walk, none),
	[PF_READ] = WALKER_ROW(hlist_walk, read),
	[PF_READ_NONNULL] = WALKER_ROW(hlist_walk, nonnull),
	[PF_NTA] = WALKER_ROW(hlist_walk, nta),
	[PF_WRITE] = WALKER_ROW(hlist_walk, write),
};

list_walker_fn list_walker(enum prefetch_variant variant, enum loop_body body)
{
	return list_walkers[variant][body];
}

hlist_walker_fn hlist_walker(enum prefetch_variant variant, enum loop_body body)
{
	return hlist_walkers[variant][body];
}

const char *prefetch_variant_name(enum prefetch_variant variant)
{
	static const char *const names[NR_PF_VARIANTS] = {
		[PF_NONE] = "none", [PF_READ] = "prefetch",
		[PF_READ_NONNULL] = "prefetch-nonnull",
		[PF_NTA] = "prefetchnta", [PF_WRITE] = "prefetchw",
	};

	return names[variant];
}

const char *loop_body_name(enum loop_body body)
{
	static const char *const names[NR_BODIES] = {
		[BODY_EMPTY] = "empty", [BODY_ALU] = "alu", [BODY_TOUCH] = "touch",
	};

	return names[body];
}
