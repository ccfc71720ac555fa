/* SPDX-License-Identifier: GPL-2.0 */
/*
 * List walks and hash lookups in every prefetch variant the benchmark
 * measures, over nodes shaped as the kernel's objects are. They live in
 * walkers.c (and a second copy of the no-prefetch ones, the A/A
 * control, in walkers_control.c), compiled with the kernel's
 * code-generation flags; everything else is ordinary user space.
 */
#ifndef WALKERS_H
#define WALKERS_H

#include <stddef.h>
#include <stdint.h>
#include "klist.h"

#define NODE_PAYLOAD_WORDS 3

/*
 * Node shapes. A next-node prefetch fetches the line of the link; what
 * else the walk's body reads decides whether that line was all it needed.
 *
 * line: one 64-byte line holding link, key and payload (every field the
 * body reads comes with the link).
 */
struct node_line {
	struct list_head list;
	struct hlist_node hnode;
	uint64_t key;
	uint64_t payload[NODE_PAYLOAD_WORDS];
};

/*
 * dentry: 192 bytes as struct dentry on x86_64 (6.12). The hash link
 * (d_hash) sits in the first line beside what __d_lookup() compares
 * (d_name's hash, d_parent), so a lookup reads one line per node; the
 * children's link (d_sib) sits in the third line, 152 bytes in, while a
 * walk of the children reads d_flags, d_name and d_inode in the first.
 */
struct node_dentry {
	uint64_t flags;				/* 0: d_flags, d_seq */
	struct hlist_node hnode;		/* 8: d_hash */
	uint64_t parent;			/* 24: d_parent */
	uint64_t key;				/* 32: d_name.hash_len */
	uint64_t name;				/* 40: d_name.name */
	uint64_t payload[NODE_PAYLOAD_WORDS];	/* 48: d_inode, d_iname */
	char d_rest[152 - 72];			/* d_iname, d_lockref, d_op, ... */
	struct list_head list;			/* 152: d_sib */
	char d_tail[192 - 168];			/* d_children, d_u */
};

/*
 * skb: struct sk_buff (232 bytes in 6.12) in its 256-byte slab object.
 * A queue walk (skb_queue_walk) follows next in the first line and reads
 * len (second line) and head/data (fourth line): three lines per node,
 * of which a prefetch of the next node fetches one.
 */
struct node_skb {
	struct list_head list;			/* 0: next, prev */
	struct hlist_node hnode;		/* 16: sk, dev (not a hash link) */
	char s_cb[112 - 32];			/* tstamp, cb[48], ... */
	uint64_t key;				/* 112: len, data_len */
	char s_mid[200 - 120];
	uint64_t payload[NODE_PAYLOAD_WORDS];	/* 200: head, data */
	char s_tail[256 - 224];
};

enum node_shape {
	SHAPE_LINE,
	SHAPE_DENTRY,
	SHAPE_SKB,
	NR_SHAPES
};

/* Where a shape keeps what the walkers and the node sets touch. */
struct shape_desc {
	const char *name;
	size_t size;
	size_t list_offset;
	size_t hnode_offset;
	size_t key_offset;
	size_t payload_offset;
	int lookups;		/* whether the kernel looks this object up in a hash */
};

const struct shape_desc *shape_desc(enum node_shape shape);

enum prefetch_variant {
	PF_NONE,	/* the kernel since 2011 */
	PF_READ,	/* the seed's prefetch(): read, locality 3 */
	PF_READ_NONNULL, /* the same, skipped by a branch when the next pointer is NULL */
	PF_READ_CMOV,	/* the same, NULL replaced by a cached line without a branch */
	PF_NTA,		/* non-temporal, what i386 prefetch() becomes with SSE */
	PF_WRITE,	/* prefetchw() */
	PF_CONTROL,	/* no prefetch, a second copy at another address: the A/A control */
	NR_PF_VARIANTS
};

/* The variants compared with no prefetch (the control is not one of them). */
#define NR_TESTED_VARIANTS (PF_CONTROL - PF_READ)

enum loop_body {
	BODY_EMPTY,	/* only the walk itself */
	BODY_TOUCH,	/* reads the node's payload, then the node's work */
	NR_BODIES
};

/*
 * How one lookup's key relates to the lookup before it. The kernel has
 * both: a path walk cannot hash the next component before it holds the
 * dentry it found (dependent), while a batch of packets each looking up
 * its socket, or any loop over keys it already has, lets an out-of-order
 * core run several lookups' misses at once (independent).
 */
enum lookup_dependence {
	LOOKUP_DEPENDENT,	/* the key takes a value read from the last node */
	LOOKUP_INDEPENDENT,	/* keys known in advance */
	NR_DEPENDENCES
};

/* A hash table as the kernel's: 2^bits hlist heads, hash_64() of the key. */
struct hash_table {
	struct hlist_head *buckets;
	unsigned int bits;
	/*
	 * Always 0, but read at run time: a dependent lookup adds
	 * (value & zero) to its key, which leaves the key unchanged and
	 * makes its bucket's address wait for the value.
	 */
	uint64_t zero;
};

/* What a run of lookups found. */
struct lookup_result {
	uint64_t checksum;	/* order-sensitive, over found payloads and misses */
	size_t hits;
	size_t nodes_visited;
};

/*
 * What a run of lookups asks of a next-node prefetch, counted by a plain
 * walk (lookup_census()): every visited node prefetches its successor;
 * that is a real node the lookup goes on to use, a real node it never
 * uses (the match was not the chain's last), or NULL (the chain ended).
 */
struct lookup_census {
	struct lookup_result result;
	size_t unused_prefetches;
	size_t null_prefetches;
};

/*
 * A list walker returns an order-sensitive checksum of the keys it
 * visited (h = h * 31 + key, plus what its body computed), so two
 * walkers that visit the same nodes in the same order agree. @work is
 * the touch body's dependent arithmetic per node, in steps of
 * body_work(); the empty body ignores it.
 */
typedef uint64_t (*list_walker_fn)(const struct list_head *head, unsigned int work);

/* @nr_lookups lookups of @keys, in order. */
typedef struct lookup_result (*lookup_walker_fn)(const struct hash_table *table,
						 const uint64_t *keys, size_t nr_lookups);

list_walker_fn list_walker(enum node_shape shape, enum prefetch_variant variant,
			   enum loop_body body);
/* NULL for a shape the kernel does not look up in a hash (skb). */
lookup_walker_fn lookup_walker(enum node_shape shape, enum prefetch_variant variant,
			       enum lookup_dependence dependence);
struct lookup_census lookup_census(enum node_shape shape, const struct hash_table *table,
				   const uint64_t *keys, size_t nr_lookups);
/* body_work() as the walkers compile it, for calibration. */
uint64_t body_work_steps(uint64_t x, unsigned int steps);

/* The control copy's tables (walkers_control.c), indexed by shape. */
extern const list_walker_fn control_list_walkers[NR_SHAPES][NR_BODIES];
extern const lookup_walker_fn control_lookup_walkers[NR_SHAPES][NR_DEPENDENCES];

/*
 * @steps steps of serial arithmetic on @x: a multiply and an add each,
 * every step waiting for the one before, so the work takes a time the
 * out-of-order core cannot shorten (calibrated in ns by listbench).
 */
static inline uint64_t body_work(uint64_t x, unsigned int steps)
{
	while (steps--)
		x = x * 0x5851f42d4c957f2dull + 0x14057b7ef767814full;
	return x;
}

/* The bucket of @key, as include/linux/hash.h's hash_64() picks it. */
static inline size_t hash_bucket(uint64_t key, unsigned int bits)
{
	return bits ? (size_t)((key * 0x61C8864680B583EBull) >> (64 - bits)) : 0;
}

/* One step of a xorshift generator (the walks' choice of the next list). */
static inline uint64_t next_key_state(uint64_t state)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* An index in [0, range) from a random word (range < 2^32). */
static inline uint64_t key_from_state(uint64_t state, uint64_t range)
{
	return ((state >> 32) * range) >> 32;
}

/* splitmix64's finalizer: a bijection that mixes every bit into every bit. */
static inline uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * Key number i as stored: a bijection, so keys are distinct and look
 * random to the hash, and chain lengths come out Poisson as in a real
 * table; consecutive numbers would hash perfectly.
 */
static inline uint64_t key_of(uint64_t i)
{
	return mix64(i);
}

const char *prefetch_variant_name(enum prefetch_variant variant);
const char *loop_body_name(enum loop_body body);
const char *lookup_dependence_name(enum lookup_dependence dependence);

#endif /* WALKERS_H */
