// SPDX-License-Identifier: GPL-2.0
/*
 * The walkers, generated for every prefetch variant from one definition
 * each of list_for_each_entry() and hlist_for_each_entry() in the
 * kernel's pre-2011 form: the prefetch of the next node sits in the loop
 * condition, and the hlist one prefetches NULL on a chain's last step.
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

/* The touch body reads one payload word: a load that depends on the chase. */
#define BODY_EMPTY_STMT(pos, h)	do { } while (0)
#define BODY_TOUCH_STMT(pos, h)	do { (h) += (pos)->payload[0]; } while (0)

#define DEFINE_LIST_WALKER(pfname, pf, bodyname, body)			\
static uint64_t list_walk_##pfname##_##bodyname(const struct list_head *head) \
{									\
	const struct bench_node *pos;					\
	uint64_t h = 0;							\
									\
	list_for_each_entry_pf(pos, head, list, pf) {			\
		h = h * 31 + pos->key;					\
		body(pos, h);						\
	}								\
	return h;							\
}

/*
 * A lookup as the kernel's hash tables do it (d_lookup, find_pid_ns,
 * __inet_lookup_established): hash the key to one bucket, walk its
 * NULL-terminated chain comparing keys, stop at the match or at NULL.
 */
#define DEFINE_LOOKUP_WALKER(pfname, pf)				\
static struct lookup_result lookup_##pfname(const struct hash_table *table, \
					    uint64_t seed, size_t nr_lookups) \
{									\
	struct lookup_result r = { 0, 0, 0 };				\
	uint64_t state = seed | 1;					\
	size_t i;							\
									\
	for (i = 0; i < nr_lookups; i++) {				\
		const struct bench_node *pos, *found = NULL;		\
		uint64_t key;						\
									\
		state = next_key_state(state);				\
		key = key_of(key_from_state(state, table->key_range));	\
		hlist_for_each_entry_pf(pos,				\
				&table->buckets[hash_bucket(key, table->bits)], \
				hnode, pf) {				\
			r.nodes_visited++;				\
			if (pos->key == key) {				\
				found = pos;				\
				break;					\
			}						\
		}							\
		if (found) {						\
			r.hits++;					\
			r.checksum = r.checksum * 31 + found->payload[0]; \
		} else {						\
			r.checksum = r.checksum * 31 + 1;		\
		}							\
		/* The next key waits for this lookup's outcome. */	\
		state += found != NULL;					\
	}								\
	return r;							\
}

#define DEFINE_VARIANT(pfname, pf)					\
	DEFINE_LIST_WALKER(pfname, pf, empty, BODY_EMPTY_STMT)		\
	DEFINE_LIST_WALKER(pfname, pf, touch, BODY_TOUCH_STMT)		\
	DEFINE_LOOKUP_WALKER(pfname, pf)

DEFINE_VARIANT(none, PREFETCH_NONE)
DEFINE_VARIANT(read, PREFETCH_READ)
DEFINE_VARIANT(nonnull, PREFETCH_NONNULL)
DEFINE_VARIANT(nta, PREFETCH_NTA)
DEFINE_VARIANT(write, PREFETCH_WRITE)

#define LIST_ROW(pfname) { list_walk_##pfname##_empty, list_walk_##pfname##_touch }

static const list_walker_fn list_walkers[NR_PF_VARIANTS][NR_BODIES] = {
	[PF_NONE] = LIST_ROW(none),
	[PF_READ] = LIST_ROW(read),
	[PF_READ_NONNULL] = LIST_ROW(nonnull),
	[PF_NTA] = LIST_ROW(nta),
	[PF_WRITE] = LIST_ROW(write),
};

static const lookup_walker_fn lookup_walkers[NR_PF_VARIANTS] = {
	[PF_NONE] = lookup_none,
	[PF_READ] = lookup_read,
	[PF_READ_NONNULL] = lookup_nonnull,
	[PF_NTA] = lookup_nta,
	[PF_WRITE] = lookup_write,
};

list_walker_fn list_walker(enum prefetch_variant variant, enum loop_body body)
{
	return list_walkers[variant][body];
}

lookup_walker_fn lookup_walker(enum prefetch_variant variant)
{
	return lookup_walkers[variant];
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
		[BODY_EMPTY] = "empty", [BODY_TOUCH] = "touch",
	};

	return names[body];
}
