/* SPDX-License-Identifier: GPL-2.0 */
/*
 * List walks and hash lookups in every prefetch variant the benchmark
 * measures. They live in walkers.c, compiled with the kernel's
 * code-generation flags; everything else is ordinary user space.
 */
#ifndef WALKERS_H
#define WALKERS_H

#include <stddef.h>
#include <stdint.h>
#include "klist.h"

#define NODE_PAYLOAD_WORDS 3

/* One cache line on x86_64: list and hash linkage, a key, a payload. */
struct bench_node {
	struct list_head list;
	struct hlist_node hnode;
	uint64_t key;
	uint64_t payload[NODE_PAYLOAD_WORDS];
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

list_walker_fn list_walker(enum prefetch_variant variant, enum loop_body body);
lookup_walker_fn lookup_walker(enum prefetch_variant variant,
			       enum lookup_dependence dependence);
struct lookup_census lookup_census(const struct hash_table *table,
				   const uint64_t *keys, size_t nr_lookups);
/* body_work() as the walkers compile it, for calibration. */
uint64_t body_work_steps(uint64_t x, unsigned int steps);

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

/* One step of the key generator every lookup walker uses. */
static inline uint64_t next_key_state(uint64_t state)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* An index in [0, range) from the generator's state (range < 2^32). */
static inline uint64_t key_from_state(uint64_t state, uint64_t range)
{
	return ((state >> 32) * range) >> 32;
}

/*
 * Key number i as stored: a bijection (splitmix64's finalizer), so keys
 * are distinct and look random to the hash, and chain lengths come out
 * Poisson as in a real table; consecutive numbers would hash perfectly.
 */
static inline uint64_t key_of(uint64_t i)
{
	i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
	i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
	return i ^ (i >> 31);
}

const char *prefetch_variant_name(enum prefetch_variant variant);
const char *loop_body_name(enum loop_body body);
const char *lookup_dependence_name(enum lookup_dependence dependence);

#endif /* WALKERS_H */
