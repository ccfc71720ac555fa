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

/*
 * The touch body reads one payload word, a load that depends on the
 * chase, and feeds it to the node's work: a serial chain through h, so
 * the work of one node cannot overlap the next node's (only the loads
 * of the walk itself can run ahead, as far as the core's window goes).
 */
#define BODY_EMPTY_STMT(pos, h, work)	do { (void)(work); } while (0)
#define BODY_TOUCH_STMT(pos, h, work)	\
	do { (h) = body_work((h) + (pos)->payload[0], (work)); } while (0)

#define DEFINE_LIST_WALKER(pfname, pf, bodyname, body)			\
static uint64_t list_walk_##pfname##_##bodyname(const struct list_head *head, \
						unsigned int work)	\
{									\
	const struct bench_node *pos;					\
	uint64_t h = 0;							\
									\
	list_for_each_entry_pf(pos, head, list, pf) {			\
		h = h * 31 + pos->key;					\
		body(pos, h, work);					\
	}								\
	return h;							\
}

/*
 * A lookup as the kernel's hash tables do it (d_lookup, find_pid_ns,
 * __inet_lookup_established): hash the key to one bucket, walk its
 * NULL-terminated chain comparing keys, stop at the match or at NULL.
 *
 * Every lookup ends by reading a word of the last line it fetched: the
 * match's payload, the last node's next pointer (a miss), or the bucket
 * head (an empty chain). The read is volatile, so the compiler cannot
 * know its value (it knows that a chain's last next is NULL), and the
 * dependent walker adds (word & zero) to the next key: the next bucket's
 * address then waits for this lookup's last miss, a data dependency the
 * core cannot speculate past. The independent walker makes the same read
 * and ignores it.
 */
#define DEFINE_LOOKUP_WALKER(pfname, pf, depname, dependent)		\
static struct lookup_result lookup_##pfname##_##depname(		\
		const struct hash_table *table, const uint64_t *keys,	\
		size_t nr_lookups)					\
{									\
	struct lookup_result r = { 0, 0, 0 };				\
	uint64_t zero = *(const volatile uint64_t *)&table->zero;	\
	uint64_t carry = 0;						\
	size_t i;							\
									\
	for (i = 0; i < nr_lookups; i++) {				\
		const struct bench_node *pos, *last = NULL;		\
		const struct hlist_head *bucket;			\
		const volatile uint64_t *tail;				\
		uint64_t key = keys[i];					\
									\
		if (dependent)						\
			key += carry & zero;				\
		bucket = &table->buckets[hash_bucket(key, table->bits)]; \
		hlist_for_each_entry_pf(pos, bucket, hnode, pf) {	\
			r.nodes_visited++;				\
			last = pos;					\
			if (pos->key == key)				\
				break;					\
		}							\
		if (pos) {						\
			r.hits++;					\
			r.checksum = r.checksum * 31 + pos->payload[0];	\
			tail = &pos->payload[0];			\
		} else {						\
			r.checksum = r.checksum * 31 + 1;		\
			tail = last ? (const volatile uint64_t *)&last->hnode.next : \
				(const volatile uint64_t *)&bucket->first; \
		}							\
		carry = *tail;						\
	}								\
	return r;							\
}

#define DEFINE_VARIANT(pfname, pf)					\
	DEFINE_LIST_WALKER(pfname, pf, empty, BODY_EMPTY_STMT)		\
	DEFINE_LIST_WALKER(pfname, pf, touch, BODY_TOUCH_STMT)		\
	DEFINE_LOOKUP_WALKER(pfname, pf, dependent, 1)			\
	DEFINE_LOOKUP_WALKER(pfname, pf, independent, 0)

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

#define LOOKUP_ROW(pfname) { lookup_##pfname##_dependent, lookup_##pfname##_independent }

static const lookup_walker_fn lookup_walkers[NR_PF_VARIANTS][NR_DEPENDENCES] = {
	[PF_NONE] = LOOKUP_ROW(none),
	[PF_READ] = LOOKUP_ROW(read),
	[PF_READ_NONNULL] = LOOKUP_ROW(nonnull),
	[PF_NTA] = LOOKUP_ROW(nta),
	[PF_WRITE] = LOOKUP_ROW(write),
};

list_walker_fn list_walker(enum prefetch_variant variant, enum loop_body body)
{
	return list_walkers[variant][body];
}

lookup_walker_fn lookup_walker(enum prefetch_variant variant,
			       enum lookup_dependence dependence)
{
	return lookup_walkers[variant][dependence];
}

uint64_t body_work_steps(uint64_t x, unsigned int steps)
{
	return body_work(x, steps);
}

struct lookup_census lookup_census(const struct hash_table *table,
				   const uint64_t *keys, size_t nr_lookups)
{
	struct lookup_census c = { { 0, 0, 0 }, 0, 0 };
	size_t i;

	for (i = 0; i < nr_lookups; i++) {
		const struct hlist_node *n =
			table->buckets[hash_bucket(keys[i], table->bits)].first;
		const struct bench_node *found = NULL;

		for (; n; n = n->next) {
			const struct bench_node *node =
				container_of(n, struct bench_node, hnode);

			c.result.nodes_visited++;
			if (node->key == keys[i]) {
				found = node;
				break;
			}
		}
		if (found) {
			c.result.hits++;
			c.result.checksum = c.result.checksum * 31 + found->payload[0];
			if (found->hnode.next)
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

const char *lookup_dependence_name(enum lookup_dependence dependence)
{
	static const char *const names[NR_DEPENDENCES] = {
		[LOOKUP_DEPENDENT] = "dependent",
		[LOOKUP_INDEPENDENT] = "independent",
	};

	return names[dependence];
}
