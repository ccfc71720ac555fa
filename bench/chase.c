// SPDX-License-Identifier: GPL-2.0
/*
 * chase - the cross-check of listbench's independent lookups: a plain
 * hash-chain chase written without any of listbench's code (no klist.h,
 * no walkers, no node sets, another hash and another random generator),
 * on fresh keys in every block, timed with and without a prefetch of
 * the next node at each node visited (the pre-2011 hlist iterator's),
 * and against itself (the A/A control: the same loop on other fresh keys).
 *
 *   chase --bytes B --load L --hits H [--form hlist|lookup|while]
 *         [--seconds S] [--cpu N]
 *
 * prints one CSV line: chase,B,L,H,ratio,ci_low,ci_high,control,
 * control_low,control_high,rounds,none_ns,form. Where listbench's cell of
 * the same shape (independent lookups, 64-byte nodes, 4 KiB pages, load
 * L, share H of keys present, the match anywhere in its chain) disagrees
 * with the lookup form in sign or size, one of the two measures
 * something else.
 *
 * Three loop forms over the same nodes, because the loop's code moves
 * the figure: "hlist" is the kernel's hlist_for_each_entry() of 2010
 * written out (the entry from its embedded link by hlist_entry_safe(),
 * the next prefetched in the loop condition, then the compare);
 * "lookup" is that walk with the bookkeeping listbench's lookups do
 * around it (nodes counted, the last one kept, a word of the last line
 * read), the shape listbench times, so the one to agree with; "while"
 * is the tightest loop for the same walk, on the links themselves (the
 * prefetch before the compare). See docs/bench.md, the cross-check.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "stats.h"

/*
 * A 64-byte node with its hash link 16 bytes in, as the kernel embeds an
 * hlist_node: every form walks the same nodes; only the loop's code
 * differs.
 */
struct clink {
	struct clink *next;
	struct clink **pprev;
};

struct cnode {
	uint64_t other[2];
	struct clink link;
	uint64_t key;
	uint64_t value[3];
};

#define LINK_OFFSET 16

static inline const struct cnode *node_of(const struct clink *l)
{
	return (const struct cnode *)((const char *)l - LINK_OFFSET);
}

/* hlist_entry_safe(): the entry, or NULL for NULL. */
static inline const struct cnode *entry_safe(const struct clink *l)
{
	return l ? node_of(l) : NULL;
}

struct table {
	struct clink **buckets;
	unsigned int shift;
	struct cnode *nodes;
	uint64_t *present;	/* the keys stored, to draw hits from */
	size_t nr_nodes;
};

/* pcg32, O'Neill's: unrelated to listbench's splitmix and xorshift. */
struct pcg {
	uint64_t state;
	uint64_t inc;
};

static uint32_t pcg32(struct pcg *g)
{
	uint64_t old = g->state;
	uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
	uint32_t rot = (uint32_t)(old >> 59u);

	g->state = old * 6364136223846793005ull + g->inc;
	return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

static uint64_t pcg64(struct pcg *g)
{
	return ((uint64_t)pcg32(g) << 32) | pcg32(g);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fibonacci hashing of the key's bits: the table's bucket. */
static size_t bucket_of(const struct table *t, uint64_t key)
{
	return (size_t)((key * 11400714819323198485ull) >> t->shift);
}

static int build(struct table *t, size_t bytes, unsigned int load, struct pcg *g)
{
	size_t n = bytes / sizeof(struct cnode), nr_buckets = 1, i, *order;
	unsigned int bits = 0;

	while (nr_buckets * 2 <= n / load) {
		nr_buckets *= 2;
		bits++;
	}
	t->nr_nodes = n;
	t->shift = 64 - bits;
	t->nodes = mmap(NULL, n * sizeof(struct cnode), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t->buckets = calloc(nr_buckets, sizeof(*t->buckets));
	t->present = malloc(n * sizeof(*t->present));
	order = malloc(n * sizeof(*order));
	if (t->nodes == MAP_FAILED || !t->buckets || !t->present || !order)
		return -1;
	/* 4 KiB pages, as listbench's 4k cells. */
	madvise(t->nodes, n * sizeof(struct cnode), MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		size_t j = (size_t)(((uint64_t)pcg32(g) * i) >> 32), tmp = order[i - 1];

		order[i - 1] = order[j];
		order[j] = tmp;
	}
	/* Inserted at the head of their chains, in random order of address. */
	for (i = 0; i < n; i++) {
		struct cnode *node = &t->nodes[order[i]];
		size_t b;

		node->key = pcg64(g) | 1;	/* stored keys are odd, absent ones even */
		node->value[0] = i;
		t->present[i] = node->key;
		b = bucket_of(t, node->key);
		node->link.next = t->buckets[b];
		node->link.pprev = &t->buckets[b];
		t->buckets[b] = &node->link;
	}
	free(order);
	return 0;
}

static void draw(const struct table *t, uint64_t *keys, size_t n, double hits, struct pcg *g)
{
	uint32_t threshold = (uint32_t)(hits * 4294967295.0);
	size_t i;

	for (i = 0; i < n; i++) {
		if (hits > 0 && pcg32(g) <= threshold)
			keys[i] = t->present[((uint64_t)pcg32(g) * t->nr_nodes) >> 32];
		else
			keys[i] = pcg64(g) & ~1ull;
	}
}

#define NO_PREFETCH(p)		((void)(p))
#define NEXT_PREFETCH(p)	__builtin_prefetch(p)

/*
 * hlist: the kernel's 2010 hlist_for_each_entry(), written out: the entry
 * from the link by hlist_entry_safe(), its next prefetched (or not: pf)
 * in the loop condition, before the body's compare.
 */
#define DEFINE_HLIST(name, pf)						\
static uint64_t __attribute__((noinline)) name(const struct table *t,	\
					      const uint64_t *keys, size_t n) \
{									\
	uint64_t sum = 0;						\
	size_t i;							\
									\
	for (i = 0; i < n; i++) {					\
		const struct cnode *pos;				\
									\
		for (pos = entry_safe(t->buckets[bucket_of(t, keys[i])]); \
		     pos && ({ pf(pos->link.next); 1; });		\
		     pos = entry_safe(pos->link.next))			\
			if (pos->key == keys[i])			\
				break;					\
		sum += pos ? pos->value[0] : 1;				\
	}								\
	return sum;							\
}

/*
 * lookup: the hlist walk with the bookkeeping a lookup of listbench's
 * does around it (the nodes visited counted, the last node kept, and a
 * volatile read of a word of the last line fetched: the value, the last
 * next pointer, or the bucket), written anew: what listbench's
 * independent lookups time, without its code, keys or node sets.
 */
#define DEFINE_LOOKUP(name, pf)						\
static uint64_t __attribute__((noinline)) name(const struct table *t,	\
					      const uint64_t *keys, size_t n) \
{									\
	uint64_t sum = 0, visited = 0, tail = 0;			\
	size_t i;							\
									\
	for (i = 0; i < n; i++) {					\
		struct clink *const *bucket = &t->buckets[bucket_of(t, keys[i])]; \
		const struct cnode *pos, *last = NULL;			\
		const volatile uint64_t *word;				\
									\
		for (pos = entry_safe(*bucket);				\
		     pos && ({ pf(pos->link.next); 1; });		\
		     pos = entry_safe(pos->link.next)) {		\
			visited++;					\
			last = pos;					\
			if (pos->key == keys[i])			\
				break;					\
		}							\
		if (pos) {						\
			sum = sum * 31 + pos->value[0];			\
			word = &pos->value[0];				\
		} else {						\
			sum = sum * 31 + 1;				\
			word = last ? (const volatile uint64_t *)&last->link.next : \
				(const volatile uint64_t *)bucket;	\
		}							\
		tail += *word;						\
	}								\
	return sum + visited + (tail & 1);				\
}

/*
 * while: the tightest loop for the same walk, on the links themselves,
 * the prefetch (if any) before the compare.
 */
#define DEFINE_WHILE(name, pf)						\
static uint64_t __attribute__((noinline)) name(const struct table *t,	\
					      const uint64_t *keys, size_t n) \
{									\
	uint64_t sum = 0;						\
	size_t i;							\
									\
	for (i = 0; i < n; i++) {					\
		const struct clink *l = t->buckets[bucket_of(t, keys[i])]; \
									\
		while (l) {						\
			pf(l->next);					\
			if (node_of(l)->key == keys[i])			\
				break;					\
			l = l->next;					\
		}							\
		sum += l ? node_of(l)->value[0] : 1;			\
	}								\
	return sum;							\
}

DEFINE_HLIST(hlist_plain, NO_PREFETCH)
DEFINE_HLIST(hlist_prefetch, NEXT_PREFETCH)
DEFINE_LOOKUP(lookup_plain, NO_PREFETCH)
DEFINE_LOOKUP(lookup_prefetch, NEXT_PREFETCH)
DEFINE_WHILE(while_plain, NO_PREFETCH)
DEFINE_WHILE(while_prefetch, NEXT_PREFETCH)

enum { PLAIN, PREFETCH, CONTROL, NR_FORMS };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bytes", required_argument, NULL, 'b' },
		{ "load", required_argument, NULL, 'l' },
		{ "hits", required_argument, NULL, 'h' },
		{ "seconds", required_argument, NULL, 's' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "form", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	size_t bytes = (size_t)256 << 20, block = 2048, rounds = 0, max_rounds = 100000, i;
	double seconds = 10, hits = 0.5, *ns[NR_FORMS], *logs, *scratch;
	struct pcg g = { 0x853c49e6748fea9bull, 0xda3e39cb94b95bdbull };
	struct estimate ratio, control, none;
	uint64_t (*plain)(const struct table *, const uint64_t *, size_t) = hlist_plain;
	uint64_t (*prefetching)(const struct table *, const uint64_t *, size_t) = hlist_prefetch;
	const char *form = "hlist";
	unsigned int load = 1;
	uint64_t *keys, deadline, sink = 0;
	struct table t;
	cpu_set_t cpus;
	int c, cpu = -1, f;

	while ((c = getopt_long(argc, argv, "b:l:h:s:c:f:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			bytes = strtoull(optarg, NULL, 10);
			break;
		case 'l':
			load = (unsigned int)atoi(optarg);
			break;
		case 'h':
			hits = strtod(optarg, NULL);
			break;
		case 's':
			seconds = strtod(optarg, NULL);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'f':
			form = optarg;
			if (!strcmp(optarg, "while")) {
				plain = while_plain;
				prefetching = while_prefetch;
			} else if (!strcmp(optarg, "lookup")) {
				plain = lookup_plain;
				prefetching = lookup_prefetch;
			} else if (strcmp(optarg, "hlist")) {
				fprintf(stderr, "chase: --form hlist, lookup or while\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: %s --bytes B --load L --hits H [--form hlist|lookup|while]\n"
				"       [--seconds S] [--cpu N]\n", argv[0]);
			return 2;
		}
	}
	if (load < 1 || hits < 0 || hits > 1 || bytes < 4096) {
		fprintf(stderr, "chase: load >= 1, hits 0 to 1, bytes >= 4096\n");
		return 2;
	}
	if (!sched_getaffinity(0, sizeof(cpus), &cpus)) {
		if (cpu < 0)
			for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &cpus); cpu--)
				;
		CPU_ZERO(&cpus);
		CPU_SET(cpu, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
	}
	keys = malloc(block * sizeof(*keys));
	logs = malloc(max_rounds * sizeof(double));
	scratch = malloc(max_rounds * sizeof(double));
	for (f = 0; f < NR_FORMS; f++)
		ns[f] = malloc(max_rounds * sizeof(double));
	if (!keys || !logs || !scratch || !ns[NR_FORMS - 1] || build(&t, bytes, load, &g)) {
		fprintf(stderr, "chase: cannot allocate %zu bytes of nodes\n", bytes);
		return 1;
	}
	deadline = now_ns() + (uint64_t)(seconds * 1e9);
	while (rounds < max_rounds && (rounds < 31 || now_ns() < deadline)) {
		int order[NR_FORMS] = { PLAIN, PREFETCH, CONTROL }, k;

		/* A fresh order and fresh keys for every block. */
		for (k = NR_FORMS; k > 1; k--) {
			int j = (int)(pcg32(&g) % (uint32_t)k), tmp = order[k - 1];

			order[k - 1] = order[j];
			order[j] = tmp;
		}
		for (k = 0; k < NR_FORMS; k++) {
			uint64_t t0;

			draw(&t, keys, block, hits, &g);
			t0 = now_ns();
			sink += order[k] == PREFETCH ? prefetching(&t, keys, block) :
				plain(&t, keys, block);
			ns[order[k]][rounds] = (double)(now_ns() - t0) / (double)block;
		}
		rounds++;
	}
	for (i = 0; i < rounds; i++)
		logs[i] = log(ns[PREFETCH][i] / ns[PLAIN][i]);
	ratio = estimate_median(logs, rounds);
	for (i = 0; i < rounds; i++)
		logs[i] = log(ns[CONTROL][i] / ns[PLAIN][i]);
	control = estimate_median(logs, rounds);
	memcpy(scratch, ns[PLAIN], rounds * sizeof(double));
	none = estimate_median(scratch, rounds);
	printf("chase,%zu,%u,%.2f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%zu,%.2f,%s\n", bytes, load, hits,
	       exp(ratio.median), exp(ratio.lo), exp(ratio.hi), exp(control.median),
	       exp(control.lo), exp(control.hi), rounds, none.median, form);
	return sink == 42 ? 3 : 0;	/* sink kept: the lookups must not be optimised away */
}
