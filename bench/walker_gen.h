/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walkers' one definition, generated per node shape and prefetch
 * variant by walkers.c (every variant) and walkers_control.c (a second
 * copy of the no-prefetch ones, placed elsewhere: the A/A control).
 * list_for_each_entry() and hlist_for_each_entry() in the kernel's
 * pre-2011 form: the prefetch of the next node sits in the loop
 * condition, and the hlist one prefetches NULL on a chain's last step.
 */
#ifndef WALKER_GEN_H
#define WALKER_GEN_H

#include "walkers.h"

/*
 * Where this build's walkers sit: the object's code starts on a page,
 * then PAD_BYTES of int3, then the walkers in source order
 * (-fno-toplevel-reorder). The builds of scripts/bench.sh differ in
 * PAD_BYTES (multiples of 16, the functions' alignment, that differ mod
 * 64 and mod 4096), so each build's loops fall differently on cache
 * lines, 32-byte fetch blocks and pages; walkers.c and its A/A copy
 * walkers_control.c take the same pad and define the no-prefetch walkers
 * first in the same order, so within one build the copy's loops fall on
 * lines, fetch blocks and page offsets exactly as the original's do: the
 * two differ by whole pages, the address alone.
 */
#ifndef PAD_BYTES
#define PAD_BYTES 0
#endif
#define WALKER_STRINGIFY(x) #x
#define WALKER_PAD(n) __asm__(".text\n.balign 4096, 0xcc\n.skip " WALKER_STRINGIFY(n) ", 0xcc\n")
#if PAD_BYTES > 0
#define WALKERS_PLACE() WALKER_PAD(PAD_BYTES)
#else
#define WALKERS_PLACE() __asm__(".text\n.balign 4096, 0xcc\n")
#endif

#define PREFETCH_NONE(x)	((void)(x))
#define PREFETCH_READ(x)	__builtin_prefetch((x), 0, 3)
/* Tells the cost of prefetching NULL (every hash chain's last step). */
#define PREFETCH_NONNULL(x)	\
	({ const void *__p = (x); if (__p) __builtin_prefetch(__p, 0, 3); })
#define PREFETCH_NTA(x)		__builtin_prefetch((x), 0, 0)
#define PREFETCH_WRITE(x)	__builtin_prefetch((x), 1, 3)

/*
 * The NULL test without a branch: NULL becomes the address of a line the
 * walk keeps cached, by a conditional move, so a chain's end costs no
 * misprediction (the branching form above mispredicts at every chain end
 * whose length the predictor cannot learn).
 */
extern const char prefetch_dummy_line[64];
#if defined(__x86_64__)
#define PREFETCH_CMOV(x)						\
	({ const void *__p = (x);					\
	   __asm__("test %0, %0\n\tcmovz %1, %0"			\
		   : "+r"(__p) : "r"((const void *)prefetch_dummy_line) : "cc"); \
	   __builtin_prefetch(__p, 0, 3); })
#else
#define PREFETCH_CMOV(x)						\
	({ const void *__p = (x);					\
	   __builtin_prefetch(__p ? __p : (const void *)prefetch_dummy_line, 0, 3); })
#endif

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

#define DEFINE_LIST_WALKER(prefix, shape, bodyname, pf, body)		\
static uint64_t prefix##_list_##shape##_##bodyname(const struct list_head *head, \
						   unsigned int work)	\
{									\
	const struct node_##shape *pos;					\
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
#define DEFINE_LOOKUP_WALKER(prefix, shape, depname, dependent, pf)	\
static struct lookup_result prefix##_lookup_##shape##_##depname(	\
		const struct hash_table *table, const uint64_t *keys,	\
		size_t nr_lookups)					\
{									\
	struct lookup_result r = { 0, 0, 0 };				\
	uint64_t zero = *(const volatile uint64_t *)&table->zero;	\
	uint64_t carry = 0;						\
	size_t i;							\
									\
	for (i = 0; i < nr_lookups; i++) {				\
		const struct node_##shape *pos, *last = NULL;		\
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

/* Every walker of one shape and prefetch form, named prefix_*_shape_*. */
#define DEFINE_SHAPE_LISTS(prefix, shape, pf)				\
	DEFINE_LIST_WALKER(prefix, shape, empty, pf, BODY_EMPTY_STMT)	\
	DEFINE_LIST_WALKER(prefix, shape, touch, pf, BODY_TOUCH_STMT)

#define DEFINE_SHAPE_LOOKUPS(prefix, shape, pf)				\
	DEFINE_LOOKUP_WALKER(prefix, shape, dependent, 1, pf)		\
	DEFINE_LOOKUP_WALKER(prefix, shape, independent, 0, pf)

#define DEFINE_VARIANT(prefix, pf)					\
	DEFINE_SHAPE_LISTS(prefix, line, pf)				\
	DEFINE_SHAPE_LISTS(prefix, dentry, pf)				\
	DEFINE_SHAPE_LISTS(prefix, skb, pf)				\
	DEFINE_SHAPE_LOOKUPS(prefix, line, pf)				\
	DEFINE_SHAPE_LOOKUPS(prefix, dentry, pf)

#define LIST_ROW(prefix, shape)						\
	{ prefix##_list_##shape##_empty, prefix##_list_##shape##_touch }
#define LIST_TABLE(prefix)						\
	{ [SHAPE_LINE] = LIST_ROW(prefix, line),			\
	  [SHAPE_DENTRY] = LIST_ROW(prefix, dentry),			\
	  [SHAPE_SKB] = LIST_ROW(prefix, skb) }

#define LOOKUP_ROW(prefix, shape)					\
	{ prefix##_lookup_##shape##_dependent, prefix##_lookup_##shape##_independent }
#define LOOKUP_TABLE(prefix)						\
	{ [SHAPE_LINE] = LOOKUP_ROW(prefix, line),			\
	  [SHAPE_DENTRY] = LOOKUP_ROW(prefix, dentry),			\
	  [SHAPE_SKB] = { NULL, NULL } }

#endif /* WALKER_GEN_H */
