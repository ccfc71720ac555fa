// SPDX-License-Identifier: GPL-2.0
/*
 * umlbench - the kernel's own list iterators, timed on the host CPU.
 *
 * Built into a User-Mode Linux kernel (scripts/uml-bench.sh copies it
 * into lib/ of the UML trees, vanilla and series alike), so the walks it
 * times are that kernel's iterators as its build compiled them: with
 * CONFIG_LIST_PREFETCH=y they prefetch the next node, otherwise not.
 * UML is an ordinary host process: these loads and prefetches are the
 * host CPU's, at native speed. It runs at boot when umlbench.sets= is
 * given, prints one line per sample, and powers the kernel off.
 *
 * Walks, over nodes allocated as the kernel allocates them (one slab
 * object each, linked in a random order so each step is a pointer chase
 * across the whole set):
 *   list    list_for_each_entry over dentry-sized objects;
 *   lookup  hash lookups with hlist_for_each_entry in a table at load
 *           factor 1, half the keys present, each key waiting for a word
 *           of the last lookup's last line (a path walk's shape);
 *   rcu     list_for_each_entry_rcu under rcu_read_lock();
 *   skb     skb_queue_walk over real sk_buffs (alloc_skb()).
 *
 * UML's clock advances in steps of up to 256 ns here, so a sample walks
 * until at least min_sample_ms have passed and is timed as a whole.
 */
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/dcache.h>

#define UMLBENCH_MAX_SETS	8

static unsigned int sets[UMLBENCH_MAX_SETS];
static int nr_sets;
module_param_array(sets, uint, &nr_sets, 0444);
MODULE_PARM_DESC(sets, "working sets to walk, in KiB (none: do not run)");

static unsigned int samples = 11;
module_param(samples, uint, 0444);
MODULE_PARM_DESC(samples, "timed samples per walk and set");

static unsigned int min_sample_ms = 10;
module_param(min_sample_ms, uint, 0444);
MODULE_PARM_DESC(min_sample_ms, "each sample walks at least this long");

static bool power_off = true;
module_param(power_off, bool, 0444);
MODULE_PARM_DESC(power_off, "power the kernel off when done");

/* A node of the size of a struct dentry: the list and hash linkage first. */
struct umlbench_node {
	struct list_head list;
	struct hlist_node hnode;
	u64 key;
	u64 payload;
	char pad[sizeof(struct dentry) - 2 * sizeof(struct list_head) - 2 * sizeof(u64)];
};

struct umlbench_set {
	struct kmem_cache *cache;
	struct umlbench_node **nodes;	/* in allocation order */
	unsigned int nr;
	struct list_head head;		/* every node, in a random order */
	struct hlist_head *buckets;
	unsigned int bits;
	struct sk_buff_head skbs;
	unsigned int nr_skbs;
};

enum umlbench_walk { WALK_LIST, WALK_LOOKUP, WALK_RCU, WALK_SKB, NR_WALKS };

static const char * const walk_names[NR_WALKS] = { "list", "lookup", "rcu", "skb" };

/* Key number i as stored (splitmix64's finalizer: distinct, random-looking). */
static u64 umlbench_key(u64 i)
{
	i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
	i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
	return i ^ (i >> 31);
}

static noinline u64 walk_list(struct umlbench_set *s)
{
	struct umlbench_node *pos;
	u64 sum = 0;

	list_for_each_entry(pos, &s->head, list)
		sum += pos->payload;
	return sum;
}

static noinline u64 walk_rcu(struct umlbench_set *s)
{
	struct umlbench_node *pos;
	u64 sum = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(pos, &s->head, list)
		sum += pos->payload;
	rcu_read_unlock();
	return sum;
}

static noinline u64 walk_skb(struct umlbench_set *s)
{
	struct sk_buff *skb;
	u64 sum = 0;

	skb_queue_walk(&s->skbs, skb)
		sum += skb->len + skb->truesize;
	return sum;
}

/* Always 0, read at run time: see walk_lookups(). */
static u64 umlbench_zero;

/*
 * @n lookups of key numbers drawn from *@state. Each lookup ends by
 * reading a word of the last line it fetched (the match's payload, the
 * last node's next pointer, or the empty bucket's head) with READ_ONCE(),
 * and the next key number takes that word masked by a run-time zero: the
 * next bucket's address waits for this lookup's last miss, a data
 * dependency, as in a path walk. Returns the hits; *@visited counts nodes.
 */
static noinline unsigned int walk_lookups(struct umlbench_set *s, unsigned int n,
					  u64 *state, u64 *visited)
{
	u64 zero = READ_ONCE(umlbench_zero), carry = 0;
	unsigned int i, hits = 0;

	for (i = 0; i < n; i++) {
		struct umlbench_node *pos, *last = NULL;
		struct hlist_head *bucket;
		const u64 *tail;
		u64 key;

		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		/* Odd key numbers are absent: half the lookups miss. */
		key = umlbench_key((*state + (carry & zero)) % (2 * (u64)s->nr));
		bucket = &s->buckets[hash_64(key, s->bits)];
		hlist_for_each_entry(pos, bucket, hnode) {
			(*visited)++;
			last = pos;
			if (pos->key == key)
				break;
		}
		if (pos) {
			hits++;
			tail = &pos->payload;
		} else {
			tail = last ? (const u64 *)&last->hnode.next : (const u64 *)&bucket->first;
		}
		carry = READ_ONCE(*tail);
	}
	return hits;
}

static void shuffle(struct umlbench_node **nodes, unsigned int nr)
{
	unsigned int i, j;

	for (i = nr - 1; i > 0; i--) {
		/* Drawn once: swap() evaluates its arguments twice. */
		j = get_random_u32_below(i + 1);
		swap(nodes[i], nodes[j]);
	}
}

static void free_set(struct umlbench_set *s)
{
	unsigned int i;

	skb_queue_purge(&s->skbs);
	for (i = 0; s->nodes && i < s->nr; i++)
		if (s->nodes[i])
			kmem_cache_free(s->cache, s->nodes[i]);
	kvfree(s->nodes);
	kvfree(s->buckets);
	kmem_cache_destroy(s->cache);
}

static int build_set(struct umlbench_set *s, unsigned int kib)
{
	unsigned int i, skb_bytes = SKB_TRUESIZE(0);

	memset(s, 0, sizeof(*s));
	skb_queue_head_init(&s->skbs);
	s->nr = max_t(unsigned int, 2, (u64)kib * 1024 / sizeof(struct umlbench_node));
	s->bits = ilog2(s->nr);
	s->cache = kmem_cache_create("umlbench_node", sizeof(struct umlbench_node), 0, 0, NULL);
	s->nodes = kvcalloc(s->nr, sizeof(*s->nodes), GFP_KERNEL);
	s->buckets = kvcalloc(1U << s->bits, sizeof(*s->buckets), GFP_KERNEL);
	if (!s->cache || !s->nodes || !s->buckets)
		return -ENOMEM;
	for (i = 0; i < s->nr; i++) {
		s->nodes[i] = kmem_cache_alloc(s->cache, GFP_KERNEL);
		if (!s->nodes[i])
			return -ENOMEM;
		s->nodes[i]->key = umlbench_key(2 * (u64)i);
		s->nodes[i]->payload = i;
		if (!(i & 1023))
			cond_resched();
	}
	shuffle(s->nodes, s->nr);
	INIT_LIST_HEAD(&s->head);
	for (i = 0; i < s->nr; i++) {
		list_add_tail(&s->nodes[i]->list, &s->head);
		hlist_add_head(&s->nodes[i]->hnode,
			       &s->buckets[hash_64(s->nodes[i]->key, s->bits)]);
	}
	/* As many sk_buffs as fit the set with their data; allocation order. */
	s->nr_skbs = max_t(unsigned int, 2, (u64)kib * 1024 / skb_bytes);
	for (i = 0; i < s->nr_skbs; i++) {
		struct sk_buff *skb = alloc_skb(0, GFP_KERNEL);

		if (!skb)
			return -ENOMEM;
		__skb_queue_tail(&s->skbs, skb);
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

/* What one walk of @kind must return, for the check. */
static u64 expected_sum(struct umlbench_set *s, enum umlbench_walk kind)
{
	if (kind == WALK_SKB)
		return (u64)s->nr_skbs * skb_peek(&s->skbs)->truesize;
	/* Lookups: checked against the hit share in time_sample(). */
	return (u64)s->nr * (s->nr - 1) / 2;
}

/* One sample: walks until min_sample_ms have passed; ns per node visited. */
static int time_sample(struct umlbench_set *s, enum umlbench_walk kind, u64 *state,
		       u64 *ns_per_node_x1000)
{
	u64 t0 = ktime_get_ns(), budget = (u64)min_sample_ms * NSEC_PER_MSEC;
	u64 visited = 0, elapsed, sum;
	u64 want = expected_sum(s, kind);

	do {
		switch (kind) {
		case WALK_LIST:
			sum = walk_list(s);
			visited += s->nr;
			break;
		case WALK_RCU:
			sum = walk_rcu(s);
			visited += s->nr;
			break;
		case WALK_SKB:
			sum = walk_skb(s);
			visited += s->nr_skbs;
			break;
		case WALK_LOOKUP:
		default:
			/* Half the keys are present: a quarter to three quarters hit. */
			sum = walk_lookups(s, 1024, state, &visited);
			want = clamp_t(u64, sum, 1024 / 4, 3 * 1024 / 4);
			break;
		}
		if (sum != want) {
			pr_err("umlbench: %s walk summed %llu, want %llu\n", walk_names[kind],
			       sum, want);
			return -EINVAL;
		}
		elapsed = ktime_get_ns() - t0;
	} while (elapsed < budget);
	*ns_per_node_x1000 = div64_u64(elapsed * 1000, visited ? visited : 1);
	return 0;
}

static int bench_set(unsigned int kib)
{
	struct umlbench_set s;
	unsigned int i, kind;
	u64 state = 0x9e3779b97f4a7c15ull ^ kib, x;
	int ret;

	ret = build_set(&s, kib);
	if (ret) {
		pr_err("umlbench: set=%u KiB: no memory (raise mem=)\n", kib);
		free_set(&s);
		return ret;
	}
	for (i = 0; i < samples && !ret; i++) {
		for (kind = 0; kind < NR_WALKS && !ret; kind++) {
			ret = time_sample(&s, kind, &state, &x);
			if (!ret)
				pr_info("umlbench: walk=%s set_kib=%u nodes=%u sample=%u ns_per_node=%llu.%03llu\n",
					walk_names[kind], kib,
					kind == WALK_SKB ? s.nr_skbs : s.nr, i, x / 1000, x % 1000);
			cond_resched();
		}
	}
	free_set(&s);
	return ret;
}

static int __init umlbench_init(void)
{
	int i, ret = 0;

	if (!nr_sets)
		return 0;
	pr_info("umlbench: start CONFIG_LIST_PREFETCH=%s node_bytes=%zu skb_truesize=%zu samples=%u min_sample_ms=%u\n",
		IS_ENABLED(CONFIG_LIST_PREFETCH) ? "y" : "n", sizeof(struct umlbench_node),
		(size_t)SKB_TRUESIZE(0), samples, min_sample_ms);
	for (i = 0; i < nr_sets && !ret; i++)
		ret = bench_set(sets[i]);
	pr_info("umlbench: %s\n", ret ? "failed" : "done");
	if (power_off)
		kernel_power_off();
	return 0;
}
late_initcall(umlbench_init);
