// SPDX-License-Identifier: GPL-2.0
/*
 * umlbench - the kernel's own list iterators, timed on the host CPU.
 *
 * Built into a User-Mode Linux kernel (scripts/uml-tree.sh copies it
 * into lib/ of the UML trees, vanilla and series alike). UML is an
 * ordinary host process: these loads and prefetches are the host CPU's,
 * at native speed. It runs at boot when umlbench.sets= or a swept
 * path's sets are given, prints one line per sample, and powers the
 * kernel off.
 *
 * The iterators' walks are the kernel's own, compiled by its build in
 * both forms (umlbench_walks_off.c and umlbench_walks_on.c: the option
 * unset and set), and each sample times both back to back over the same
 * nodes: a boot's memory placement, which moves a walk by more than the
 * prefetch does, is then the same for both; and each set is allocated
 * anew umlbench.placements= times, its samples timed over each, so one
 * boot's figure is not one placement's. Walks, over nodes allocated
 * as the kernel allocates them (one slab object each, linked in a random
 * order so each step is a pointer chase across the whole set):
 *   list    list_for_each_entry over dentry-sized objects;
 *   list_copy  the same code at another address: the A/A control;
 *   lookup  hash lookups with hlist_for_each_entry in a table at load
 *           factor 1, half the keys present, each key waiting for a word
 *           of the last lookup's last line (a path walk's shape);
 *   rcu     list_for_each_entry_rcu under rcu_read_lock();
 *   skb     skb_queue_walk over real sk_buffs (alloc_skb()), queued in
 *           allocation order, reading len and truesize;
 *   skb_shuffled  the same over as many more queued in a random order;
 *   skb_links     the allocation-order queue's links alone: with
 *           skb_shuffled, what tells why skb gains where list does not.
 *
 * And, with their sets given, the four open-coded walks the series
 * sweeps, each driven through the kernel's own code path (the walks at
 * the sites are the ones the build compiled: the prefetch is there in
 * vanilla and with CONFIG_LIST_PREFETCH=y, gone with the default), cold:
 * the nodes built, then aged by reading umlbench.age_kib of other
 * memory, then one timed region of at least 1000 clock steps per sample:
 *   tiny_rcu   (cold_sets: KiB of its objects) Tiny RCU's
 *              rcu_process_callbacks() invoking call_rcu() callbacks
 *              that free their dentry-sized slab objects, allocated
 *              anew and queued in a random order for every sample,
 *              timed from the first callback to the last (the grace
 *              period is not the walk);
 *   blk_batch  (batch_sets: KiB of one batch's requests) polled reads of
 *              a built-in null_blk disk, real bios with a page each,
 *              gathered into batches by null_blk's poll, then, aged,
 *              blk_mq_end_request_batch() ending them (bio_endio() into
 *              an end_io that counts and puts them): a region completes
 *              as many batches as the poll queue holds.
 *   tcp_backlog (backlog_sets: KiB of one backlog's sk_buffs, 256 bytes
 *              each) TCP over loopback: each server socket held owned
 *              while its client sends, tcp_v4_rcv() backlogging every
 *              segment; aged; then release_sock(): __release_sock()
 *              walks the backlog into tcp_v4_do_rcv(), which queues the
 *              data and ACKs it. A region releases as many connections
 *              as make 4096 skbs; every byte is read back after it.
 *   lru_reclaim (reclaim_sets: KiB read per region) buffered reads of
 *              nullb0 past what mem= holds: each folio read is one
 *              reclaimed, by kswapd and directly, shrink_inactive_list()
 *              -> isolate_lru_folios() walking the file LRU's cold tail;
 *              the steps are the folios reclaimed (pgsteal).
 *
 * In a kernel built with CONFIG_UML_LIST_PREFETCH_SWITCH (lab/um/0003:
 * every list prefetch tests a flag first), each sample of a swept path
 * is timed three times over fresh nodes, the flag set for each: form=on,
 * form=off and form=on_again, in an order that goes through all six
 * permutations sample by sample. on / off is the prefetch's effect
 * within one boot, the same code at the same addresses; on_again / on is
 * the A/A control: the same state walked twice. The flag switches every
 * list prefetch in the kernel: the site's, and any its path's real work
 * runs (CONFIG_LIST_PREFETCH=y against =n, for this path).
 *
 * UML's clock advances in steps of up to 256 ns here, so a sample walks
 * until at least min_sample_ms have passed and is timed as a whole.
 */
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <linux/pagemap.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <linux/dcache.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "umlbench.h"

#define UMLBENCH_MAX_SETS	8

static unsigned int sets[UMLBENCH_MAX_SETS];
static int nr_sets;
module_param_array(sets, uint, &nr_sets, 0444);
MODULE_PARM_DESC(sets, "working sets to walk, in KiB (none: do not run)");

static unsigned int samples = 11;
module_param(samples, uint, 0444);
MODULE_PARM_DESC(samples, "timed samples per walk and set");

static unsigned int placements = 1;
module_param(placements, uint, 0444);
MODULE_PARM_DESC(placements, "times each set is allocated anew, samples timed over each");

static unsigned int min_sample_ms = 10;
module_param(min_sample_ms, uint, 0444);
MODULE_PARM_DESC(min_sample_ms, "each sample walks at least this long");

static unsigned int cold_sets[UMLBENCH_MAX_SETS];
static int nr_cold_sets;
module_param_array(cold_sets, uint, &nr_cold_sets, 0444);
MODULE_PARM_DESC(cold_sets, "sets of the swept paths driven cold, through their real work, in KiB");

static unsigned int batch_sets[UMLBENCH_MAX_SETS];
static int nr_batch_sets;
module_param_array(batch_sets, uint, &nr_batch_sets, 0444);
MODULE_PARM_DESC(batch_sets, "blk_batch's batches, in KiB of one batch's requests (cold, real bios)");

static unsigned int backlog_sets[UMLBENCH_MAX_SETS];
static int nr_backlog_sets;
module_param_array(backlog_sets, uint, &nr_backlog_sets, 0444);
MODULE_PARM_DESC(backlog_sets, "KiB of one TCP backlog's sk_buffs (256 bytes each)");

static unsigned int reclaim_sets[UMLBENCH_MAX_SETS];
static int nr_reclaim_sets;
module_param_array(reclaim_sets, uint, &nr_reclaim_sets, 0444);
MODULE_PARM_DESC(reclaim_sets, "KiB of page cache read (and reclaimed) per region, under pressure");

static unsigned int path_budget_ms;
module_param(path_budget_ms, uint, 0444);
MODULE_PARM_DESC(path_budget_ms, "a swept path's samples go on past samples= while this lasts, per set and placement");
/* The most samples a budget takes: enter_state() counts them per placement. */
#define PATH_SAMPLES_MAX	60

static unsigned int age_kib;
module_param(age_kib, uint, 0444);
MODULE_PARM_DESC(age_kib, "KiB of other memory read between building a cold path's nodes and walking them (twice the host's LLC)");

static bool settle = true;
module_param(settle, bool, 0444);
MODULE_PARM_DESC(settle, "one untimed walk before each sample, walks in random order");

static bool power_off = true;
module_param(power_off, bool, 0444);
MODULE_PARM_DESC(power_off, "power the kernel off when done");

enum umlbench_walk {
	WALK_LIST, WALK_LIST_COPY, WALK_LOOKUP, WALK_RCU, WALK_SKB, WALK_SKB_SHUFFLED,
	WALK_SKB_LINKS, NR_WALKS
};

static const char * const walk_names[NR_WALKS] = {
	"list", "list_copy", "lookup", "rcu", "skb", "skb_shuffled", "skb_links",
};

/*
 * Both forms of the walks, where the option exists (the series, with
 * lab/um/ on UML); vanilla runs only the swept paths.
 */
static const struct umlbench_walks *const forms[] = {
#ifdef CONFIG_ARCH_HAS_LIST_PREFETCH
	&umlbench_walks_off,
	&umlbench_walks_on,
#endif
};

u64 umlbench_zero;

static void shuffle(void **items, unsigned int nr)
{
	unsigned int i, j;

	for (i = nr - 1; i > 0; i--) {
		/* Drawn once: swap() evaluates its arguments twice. */
		j = get_random_u32_below(i + 1);
		swap(items[i], items[j]);
	}
}

static void free_set(struct umlbench_set *s)
{
	unsigned int i;

	skb_queue_purge(&s->skbs);
	skb_queue_purge(&s->skbs_shuffled);
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
	struct sk_buff **skbs;

	memset(s, 0, sizeof(*s));
	skb_queue_head_init(&s->skbs);
	skb_queue_head_init(&s->skbs_shuffled);
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
	shuffle((void **)s->nodes, s->nr);
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
	/* As many again, allocated after them, queued in a random order. */
	skbs = kvcalloc(s->nr_skbs, sizeof(*skbs), GFP_KERNEL);
	if (!skbs)
		return -ENOMEM;
	for (i = 0; i < s->nr_skbs; i++) {
		skbs[i] = alloc_skb(0, GFP_KERNEL);
		if (!skbs[i])
			break;
	}
	if (i == s->nr_skbs)
		shuffle((void **)skbs, s->nr_skbs);
	while (i--)
		__skb_queue_tail(&s->skbs_shuffled, skbs[i]);
	kvfree(skbs);
	return skb_queue_len(&s->skbs_shuffled) == s->nr_skbs ? 0 : -ENOMEM;
}

/* What one walk of @kind must return, for the check. */
static u64 expected_sum(struct umlbench_set *s, enum umlbench_walk kind)
{
	if (kind == WALK_SKB || kind == WALK_SKB_SHUFFLED)
		return (u64)s->nr_skbs * skb_peek(&s->skbs)->truesize;
	if (kind == WALK_SKB_LINKS)
		return s->nr_skbs;
	/* Lookups: checked against the hit share in time_sample(). */
	return (u64)s->nr * (s->nr - 1) / 2;
}

/* One sample: walks until @ms have passed (once, if 0); ns per node visited. */
static int time_sample(struct umlbench_set *s, const struct umlbench_walks *w,
		       enum umlbench_walk kind, u64 *state, unsigned int ms,
		       u64 *ns_per_node_x1000)
{
	u64 t0 = ktime_get_ns(), budget = (u64)ms * NSEC_PER_MSEC;
	u64 visited = 0, elapsed, sum;
	u64 want = expected_sum(s, kind);

	do {
		switch (kind) {
		case WALK_LIST:
			sum = w->list(s);
			visited += s->nr;
			break;
		case WALK_LIST_COPY:
			sum = w->list_copy(s);
			visited += s->nr;
			break;
		case WALK_RCU:
			sum = w->rcu(s);
			visited += s->nr;
			break;
		case WALK_SKB:
			sum = w->skb(s);
			visited += s->nr_skbs;
			break;
		case WALK_SKB_SHUFFLED:
			sum = w->skb_shuffled(s);
			visited += s->nr_skbs;
			break;
		case WALK_SKB_LINKS:
			sum = w->skb_links(s);
			visited += s->nr_skbs;
			break;
		case WALK_LOOKUP:
		default:
			/* Half the keys are present: a quarter to three quarters hit. */
			sum = w->lookups(s, 1024, state, &visited);
			want = clamp_t(u64, sum, 1024 / 4, 3 * 1024 / 4);
			break;
		}
		if (sum != want) {
			pr_err("umlbench: %s walk (form %s) summed %llu, want %llu\n",
			       walk_names[kind], w->form, sum, want);
			return -EINVAL;
		}
		elapsed = ktime_get_ns() - t0;
	} while (elapsed < budget);
	*ns_per_node_x1000 = div64_u64(elapsed * 1000, visited ? visited : 1);
	return 0;
}

/*
 * Every walk of a set, each sample timing both forms back to back over
 * the same nodes, in an order that alternates (off on, on off, ...), the
 * walks themselves in a fresh random order every sample. Each timed
 * region starts from the walk's own steady state: one untimed pass of
 * the same walk and form first. Without both, a walk's figure at sets
 * around the LLC size was set by the walk before it (the list walk
 * followed the sk_buff walk, which evicted the nodes; the RCU walk
 * followed the lookups, which had just read them): list and RCU, the
 * same code, differed by up to half.
 */
static int bench_placement(unsigned int kib, unsigned int placement)
{
	unsigned int order[NR_WALKS];
	struct umlbench_set s;
	unsigned int i, f, k;
	u64 state = 0x9e3779b97f4a7c15ull ^ kib, x;
	int ret;

	ret = build_set(&s, kib);
	if (ret) {
		pr_err("umlbench: set=%u KiB: no memory (raise mem=)\n", kib);
		free_set(&s);
		return ret;
	}
	for (k = 0; k < NR_WALKS; k++)
		order[k] = k;
	for (i = 0; i < samples && !ret; i++) {
		for (k = NR_WALKS - 1; settle && k > 0; k--) {
			/* Drawn once: swap() evaluates its arguments twice. */
			unsigned int j = get_random_u32_below(k + 1);

			swap(order[k], order[j]);
		}
		for (k = 0; k < NR_WALKS && !ret; k++) {
			enum umlbench_walk kind = order[k];

			for (f = 0; f < ARRAY_SIZE(forms) && !ret; f++) {
				const struct umlbench_walks *w =
					forms[i & 1 ? ARRAY_SIZE(forms) - 1 - f : f];

				/* The untimed pass: one walk, however short. */
				if (settle)
					ret = time_sample(&s, w, kind, &state, 0, &x);
				if (!ret)
					ret = time_sample(&s, w, kind, &state, min_sample_ms, &x);
				if (!ret)
					pr_info("umlbench: walk=%s form=%s set_kib=%u nodes=%u placement=%u sample=%u ns_per_node=%llu.%03llu\n",
						walk_names[kind], w->form, kib,
						kind >= WALK_SKB ? s.nr_skbs : s.nr, placement, i,
						x / 1000, x % 1000);
				cond_resched();
			}
		}
	}
	free_set(&s);
	return ret;
}

/*
 * Where a set's nodes land moves its walks by more than the prefetch
 * does, and differs from one allocation to the next: a set is allocated
 * anew for each placement, and its samples are told apart by placement.
 */
static int bench_set(unsigned int kib)
{
	unsigned int p;
	int ret = 0;

	if (!ARRAY_SIZE(forms)) {
		pr_err("umlbench: the iterators need the series (CONFIG_ARCH_HAS_LIST_PREFETCH)\n");
		return -EINVAL;
	}
	for (p = 0; p < placements && !ret; p++)
		ret = bench_placement(kib, p);
	return ret;
}

/*
 * The swept paths. Each has a setup that sizes it from its set, a
 * prepare that builds its nodes (untimed; none for reclaim, whose nodes
 * are the page cache its region reads), a region that, once they are
 * aged, runs the path's real work over them and says how long it took
 * and how many steps it made, and a teardown. A region's result is
 * checked: every node reached the path's handler exactly once.
 */
struct umlbench_path {
	const char *name;
	int (*setup)(void **ctx, unsigned int kib, unsigned int *nr);
	int (*prepare)(void *ctx);
	int (*region)(void *ctx, u64 *ns, u64 *steps);
	void (*teardown)(void *ctx);
	/* Its sets, in KiB: cold_sets, batch_sets, backlog_sets or reclaim_sets. */
	const unsigned int *sets;
	const int *nr_sets;
};

/*
 * UML's clock advances by up to 256 ns a step: a cold path's timed
 * region lasts at least 1000 steps, or it is not timed (never summed).
 */
#define MIN_REGION_NS	(1000ULL * 256)

/* Memory of the host's LLC twice over, read to evict a path's nodes. */
static u64 *age_buf;

static int age_init(void)
{
	size_t i, words = (size_t)age_kib * 1024 / sizeof(u64);

	if (!age_kib || age_buf)
		return 0;
	age_buf = vmalloc(array_size(words, sizeof(u64)));
	if (!age_buf)
		return -ENOMEM;
	for (i = 0; i < words; i++)
		age_buf[i] = i;
	return 0;
}

/*
 * Age the nodes a path just wrote, as the sites see theirs: a callback
 * queued, an skb backlogged long before it is handled. A word of every
 * cache line of age_kib KiB is read, so the nodes, written last, are
 * evicted by the time the region walks them.
 */
static void age_nodes(void)
{
	size_t i, words = (size_t)age_kib * 1024 / sizeof(u64);

	/* READ_ONCE(): loads the compiler must make, though none is used. */
	for (i = 0; i < words; i += L1_CACHE_BYTES / sizeof(u64))
		(void)READ_ONCE(age_buf[i]);
}

/*
 * What the handlers the paths call saw in this round: they get only
 * their node (an rcu_head, an sk_buff), so the count lives here.
 */
static struct {
	unsigned int expect, done, errors;
	u64 sum, first_ns, last_ns;
	struct kmem_cache *cache;	/* what the tiny_rcu callbacks free into */
} path_round;

static void path_round_start(unsigned int expect)
{
	memset(&path_round, 0, sizeof(path_round));
	path_round.expect = expect;
}

/* Every one of @nr nodes, valued 0 .. @nr - 1, handled once? */
static int path_round_check(const char *name, unsigned int nr)
{
	if (path_round.done == nr && path_round.sum == (u64)nr * (nr - 1) / 2)
		return 0;
	pr_err("umlbench: %s: %u of %u nodes handled, sum %llu\n", name, path_round.done, nr,
	       path_round.sum);
	return -EINVAL;
}

/*
 * Tiny RCU: a callback per object, which frees it, as d_free() and the
 * kfree_rcu()s of the kernel do. The objects are dentry-sized slab
 * objects allocated anew for every region, queued by call_rcu() in a
 * random order, then aged; the region is rcu_process_callbacks()'s
 * walk of them, from the first callback to the last.
 */
struct umlbench_cb {
	struct rcu_head rcu;
	u64 payload;
	char pad[sizeof(struct dentry) - sizeof(struct rcu_head) - sizeof(u64)];
};

struct tiny_rcu_path {
	struct kmem_cache *cache;
	struct umlbench_cb **objs;	/* in call order: a random one */
	unsigned int nr;
	bool queued;
};

static void tiny_rcu_cb(struct rcu_head *head)
{
	struct umlbench_cb *cb = container_of(head, struct umlbench_cb, rcu);

	if (!path_round.done)
		path_round.first_ns = ktime_get_ns();
	path_round.sum += cb->payload;
	kmem_cache_free(path_round.cache, cb);
	if (++path_round.done == path_round.expect)
		path_round.last_ns = ktime_get_ns();
}

static void tiny_rcu_teardown(void *ctx)
{
	struct tiny_rcu_path *p = ctx;

	/* Queued objects are freed by their callbacks, whatever happened. */
	if (p->queued)
		rcu_barrier();
	kvfree(p->objs);
	kmem_cache_destroy(p->cache);
	kfree(p);
}

static int tiny_rcu_setup(void **ctx, unsigned int kib, unsigned int *nr)
{
	struct tiny_rcu_path *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	*ctx = p;
	if (!IS_ENABLED(CONFIG_TINY_RCU)) {
		pr_err("umlbench: tiny_rcu: this kernel has no Tiny RCU (it needs !SMP)\n");
		return -EINVAL;
	}
	p->nr = max_t(unsigned int, 2, (u64)kib * 1024 / sizeof(struct umlbench_cb));
	/* Not merged with another cache: destroying it warns of an object not freed. */
	p->cache = kmem_cache_create("umlbench_cb", sizeof(struct umlbench_cb), 0,
				     SLAB_NO_MERGE, NULL);
	p->objs = kvcalloc(p->nr, sizeof(*p->objs), GFP_KERNEL);
	if (!p->cache || !p->objs)
		return -ENOMEM;
	*nr = p->nr;
	return 0;
}

/* The objects, allocated and queued: nothing runs them before a QS. */
static int tiny_rcu_prepare(void *ctx)
{
	struct tiny_rcu_path *p = ctx;
	unsigned int i;

	for (i = 0; i < p->nr; i++) {
		p->objs[i] = kmem_cache_alloc(p->cache, GFP_KERNEL);
		if (!p->objs[i]) {
			while (i--)
				kmem_cache_free(p->cache, p->objs[i]);
			return -ENOMEM;
		}
		p->objs[i]->payload = i;
	}
	shuffle((void **)p->objs, p->nr);
	path_round_start(p->nr);
	path_round.cache = p->cache;
	/*
	 * PREEMPT_NONE and no schedule() until the region: the grace
	 * period cannot end, so the callbacks wait, aging.
	 */
	for (i = 0; i < p->nr; i++)
		call_rcu(&p->objs[i]->rcu, tiny_rcu_cb);
	p->queued = true;
	return 0;
}

static int tiny_rcu_region(void *ctx, u64 *ns, u64 *steps)
{
	struct tiny_rcu_path *p = ctx;

	/* Callbacks run in order, ours before the barrier's own. */
	rcu_barrier();
	p->queued = false;
	*ns = path_round.last_ns - path_round.first_ns;
	*steps = p->nr - 1;
	return path_round_check("tiny_rcu", p->nr);
}

/*
 * __release_sock(): a TCP socket's backlog, built by the kernel's own
 * receive path. Connections over loopback, each a client and the
 * server's accepted socket; the server's socket held owned
 * (lock_sock()) while its client sends a segment at a time, so
 * tcp_v4_rcv() queues each one to the backlog (tcp_add_backlog()); then
 * aged, and the region releases every server socket: __release_sock()
 * walks each backlog into tcp_v4_do_rcv(), which queues the data and
 * sends the ACKs (whose receipt by the client runs too: loopback).
 *
 * tcp_add_backlog() coalesces a segment into the backlog's tail when
 * their headers match (options included): a burst from one sender in
 * one millisecond (one timestamp) would leave one skb per 17 segments.
 * The client alternates its TOS (DSCP 0 and CS1) segment by segment, as
 * two flows of different class sharing a socket would look, so every
 * segment stays an skb of its own. The client's congestion window is
 * grown first (slow start, one backlog at a time) past the backlog, so
 * every segment leaves at once.
 */
#define BACKLOG_PAYLOAD		64	/* bytes a segment carries */
#define BACKLOG_REGION_SKBS	4096	/* skbs a region walks, at least */
#define BACKLOG_TOS_ALT		0x20	/* CS1: ECN bits clear */

struct backlog_conn {
	struct socket *client, *server;
};

struct backlog_path {
	struct socket *listener;
	struct backlog_conn *conns;
	unsigned int nr_conns;
	unsigned int nr;		/* skbs in each backlog */
	bool owned;			/* the servers held, their backlogs built */
	u8 saved_ssai;			/* net.ipv4.tcp_slow_start_after_idle */
};

static int backlog_sockopt(struct socket *sock, int optname, int val)
{
	return sk_setsockopt(sock->sk, SOL_SOCKET, optname, KERNEL_SOCKPTR(&val), sizeof(val));
}

/* lo up (it is down until user space raises it): 127.0.0.1 comes with it. */
static int backlog_loopback_up(void)
{
	struct net_device *lo = init_net.loopback_dev;
	int ret = 0;

	rtnl_lock();
	if (!(lo->flags & IFF_UP))
		ret = dev_change_flags(lo, lo->flags | IFF_UP, NULL);
	rtnl_unlock();
	return ret;
}

/* One segment of @bytes from @c's client, its TOS set for segment @i. */
static int backlog_send(struct backlog_conn *c, unsigned int i)
{
	static const char payload[BACKLOG_PAYLOAD];
	struct kvec vec = { .iov_base = (void *)payload, .iov_len = sizeof(payload) };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	int ret;

	ip_sock_set_tos(c->client->sk, i & 1 ? BACKLOG_TOS_ALT : 0);
	ret = kernel_sendmsg(c->client, &msg, &vec, 1, sizeof(payload));
	return ret == sizeof(payload) ? 0 : ret < 0 ? ret : -EAGAIN;
}

/* Every byte the server received, read: the bytes, or an error. */
static long backlog_drain(struct backlog_conn *c)
{
	static char buf[16384];
	struct kvec vec = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { };
	long total = 0;
	int ret;

	while ((ret = kernel_recvmsg(c->server, &msg, &vec, 1, sizeof(buf), MSG_DONTWAIT)) > 0)
		total += ret;
	return ret == -EAGAIN ? total : ret;
}

static unsigned int backlog_count(struct sock *sk)
{
	struct sk_buff *skb;
	unsigned int n = 0;

	spin_lock_bh(&sk->sk_lock.slock);
	for (skb = sk->sk_backlog.head; skb; skb = skb->next)
		n++;
	spin_unlock_bh(&sk->sk_lock.slock);
	return n;
}

/*
 * Hold every server, let each client send @nr segments (into the
 * backlogs), and check that each backlog holds @nr skbs and each client
 * sent them all (none waiting on its window).
 */
static int backlog_build(struct backlog_path *p, unsigned int nr)
{
	unsigned int c, i, n;
	int ret;

	for (c = 0; c < p->nr_conns; c++)
		lock_sock(p->conns[c].server->sk);
	p->owned = true;
	for (c = 0; c < p->nr_conns; c++) {
		struct backlog_conn *conn = &p->conns[c];
		struct tcp_sock *tp = tcp_sk(conn->client->sk);

		for (i = 0; i < nr; i++) {
			ret = backlog_send(conn, i);
			if (ret) {
				pr_err("umlbench: backlog: connection %u: segment %u not sent (%d)\n",
				       c, i, ret);
				return ret;
			}
		}
		n = backlog_count(conn->server->sk);
		if (n != nr || READ_ONCE(tp->snd_nxt) != READ_ONCE(tp->write_seq)) {
			pr_err("umlbench: backlog: connection %u: %u of %u segments backlogged, %u bytes unsent (cwnd %u)\n",
			       c, n, nr, READ_ONCE(tp->write_seq) - READ_ONCE(tp->snd_nxt),
			       tcp_snd_cwnd(tp));
			return -EINVAL;
		}
	}
	return 0;
}

/* Release every server (their backlogs walked), read what they received. */
static int backlog_release(struct backlog_path *p, unsigned int nr, u64 *ns)
{
	unsigned int c;
	long got;
	u64 t0;

	t0 = ktime_get_ns();
	for (c = 0; c < p->nr_conns; c++)
		release_sock(p->conns[c].server->sk);
	if (ns)
		*ns = ktime_get_ns() - t0;
	p->owned = false;
	/* tcp_v4_do_rcv() queued every segment's bytes: the backlog's real work. */
	for (c = 0; c < p->nr_conns; c++) {
		got = backlog_drain(&p->conns[c]);
		if (got != (long)nr * BACKLOG_PAYLOAD) {
			pr_err("umlbench: backlog: connection %u: %ld of %u bytes received\n",
			       c, got, nr * BACKLOG_PAYLOAD);
			return got < 0 ? got : -EINVAL;
		}
	}
	return 0;
}

static void backlog_teardown(void *ctx)
{
	struct backlog_path *p = ctx;
	unsigned int c;

	for (c = 0; p->owned && c < p->nr_conns; c++)
		release_sock(p->conns[c].server->sk);
	for (c = 0; p->conns && c < p->nr_conns; c++) {
		if (p->conns[c].client)
			sock_release(p->conns[c].client);
		if (p->conns[c].server)
			sock_release(p->conns[c].server);
	}
	kvfree(p->conns);
	if (p->listener)
		sock_release(p->listener);
	init_net.ipv4.sysctl_tcp_slow_start_after_idle = p->saved_ssai;
	kfree(p);
}

static int backlog_connect(struct backlog_path *p, struct backlog_conn *c,
			   struct sockaddr_in *addr)
{
	int ret;

	ret = sock_create_kern(&init_net, PF_INET, SOCK_STREAM, IPPROTO_TCP, &c->client);
	if (ret) {
		c->client = NULL;
		return ret;
	}
	/* The client's retransmit queue holds a whole backlog, unacked. */
	ret = backlog_sockopt(c->client, SO_SNDBUFFORCE, 64 << 20);
	if (!ret)
		ret = kernel_connect(c->client, (struct sockaddr *)addr, sizeof(*addr), 0);
	if (!ret)
		ret = kernel_accept(p->listener, &c->server, 0);
	if (ret) {
		c->server = NULL;
		return ret;
	}
	/* A segment per send, none held back for a fuller one. */
	tcp_sock_set_nodelay(c->client->sk);
	return 0;
}

/* Slow start, a backlog at a time, until the client's window holds @nr. */
static int backlog_grow_cwnd(struct backlog_path *p, unsigned int nr)
{
	unsigned int c, round;
	int ret;

	for (round = 0; round < 32; round++) {
		unsigned int cwnd = UINT_MAX;

		for (c = 0; c < p->nr_conns; c++)
			cwnd = min(cwnd, tcp_snd_cwnd(tcp_sk(p->conns[c].client->sk)));
		if (cwnd > nr)
			return 0;
		ret = backlog_build(p, cwnd);
		if (!ret)
			ret = backlog_release(p, cwnd, NULL);
		if (ret)
			return ret;
	}
	pr_err("umlbench: backlog: the clients' windows did not grow to %u segments\n", nr);
	return -EINVAL;
}

static int backlog_setup(void **ctx, unsigned int kib, unsigned int *nr)
{
	struct backlog_path *p = kzalloc(sizeof(*p), GFP_KERNEL);
	size_t skb_bytes = round_up(sizeof(struct sk_buff), cache_line_size());
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned int c;
	int ret;

	if (!p)
		return -ENOMEM;
	*ctx = p;
	/* Restored at teardown: a round's pause is no idle restart. */
	p->saved_ssai = init_net.ipv4.sysctl_tcp_slow_start_after_idle;
	init_net.ipv4.sysctl_tcp_slow_start_after_idle = 0;
	p->nr = max_t(unsigned int, 2, (u64)kib * 1024 / skb_bytes);
	p->nr_conns = DIV_ROUND_UP(BACKLOG_REGION_SKBS, p->nr);
	p->conns = kvcalloc(p->nr_conns, sizeof(*p->conns), GFP_KERNEL);
	if (!p->conns)
		return -ENOMEM;
	ret = backlog_loopback_up();
	if (!ret)
		ret = sock_create_kern(&init_net, PF_INET, SOCK_STREAM, IPPROTO_TCP, &p->listener);
	if (ret) {
		p->listener = NULL;
		pr_err("umlbench: backlog: no TCP listener on loopback (%d)\n", ret);
		return ret;
	}
	/* Inherited by the accepted sockets: room for a whole backlog. */
	ret = backlog_sockopt(p->listener, SO_RCVBUFFORCE, 32 << 20);
	if (!ret)
		ret = kernel_bind(p->listener, (struct sockaddr *)&addr, sizeof(addr));
	if (!ret)
		ret = kernel_listen(p->listener, p->nr_conns);
	if (!ret && kernel_getsockname(p->listener, (struct sockaddr *)&addr) < 0)
		ret = -EINVAL;
	for (c = 0; c < p->nr_conns && !ret; c++)
		ret = backlog_connect(p, &p->conns[c], &addr);
	if (ret) {
		pr_err("umlbench: backlog: connection %u of %u over loopback failed (%d)\n", c,
		       p->nr_conns, ret);
		return ret;
	}
	ret = backlog_grow_cwnd(p, p->nr);
	if (ret)
		return ret;
	*nr = p->nr;
	return 0;
}

static int backlog_prepare(void *ctx)
{
	struct backlog_path *p = ctx;

	return backlog_build(p, p->nr);
}

static int backlog_region(void *ctx, u64 *ns, u64 *steps)
{
	struct backlog_path *p = ctx;

	*steps = (u64)p->nr * p->nr_conns;
	return backlog_release(p, p->nr, ns);
}

/*
 * The built-in null_blk disk both block paths read, opened for reading;
 * with a @holder, exclusively. @who names the path in the error.
 */
static struct file *nullb0_open(const char *who, void *holder)
{
	struct device *dev = class_find_device_by_name(&block_class, "nullb0");
	dev_t devt;

	if (!dev) {
		pr_err("umlbench: %s: no nullb0 (CONFIG_BLK_DEV_NULL_BLK=y, null_blk.nr_devices=1)\n",
		       who);
		return ERR_PTR(-ENODEV);
	}
	devt = dev->devt;
	put_device(dev);
	return bdev_file_open_by_dev(devt, BLK_OPEN_READ, holder, NULL);
}

/*
 * blk_mq_end_request_batch(): polled reads of a null_blk disk (built in,
 * its poll queue, no scheduler), each a real bio with a page, completed
 * in the batches null_blk's poll forms (blk_mq_add_to_batch()), each
 * request's bio ended by bio_endio() into this end_io, which counts and
 * puts it. A region completes as many batches as the tag set holds.
 */
struct blk_batch_path {
	struct file *bdev_file;
	struct page **pages;		/* one per request in flight */
	struct io_comp_batch *iobs;	/* the batches of one region */
	unsigned int batch;		/* requests per batch */
	unsigned int nr_batches;
};

static void blk_batch_end_io(struct bio *bio)
{
	if (!path_round.done)
		path_round.first_ns = ktime_get_ns();
	path_round.sum += (uintptr_t)bio->bi_private;
	if (bio->bi_status)
		path_round.errors++;
	bio_put(bio);
	if (++path_round.done == path_round.expect)
		path_round.last_ns = ktime_get_ns();
}

static void blk_batch_teardown(void *ctx)
{
	struct blk_batch_path *p = ctx;
	unsigned int i;

	/* A region that failed half way: its batches still hold requests. */
	for (i = 0; p->iobs && i < p->nr_batches; i++)
		if (p->iobs[i].complete)
			p->iobs[i].complete(&p->iobs[i]);
	for (i = 0; p->pages && i < p->batch * p->nr_batches; i++)
		if (p->pages[i])
			__free_page(p->pages[i]);
	kvfree(p->pages);
	kvfree(p->iobs);
	if (!IS_ERR_OR_NULL(p->bdev_file))
		fput(p->bdev_file);
	kfree(p);
}

static int blk_batch_setup(void **ctx, unsigned int kib, unsigned int *nr)
{
	struct blk_batch_path *p = kzalloc(sizeof(*p), GFP_KERNEL);
	size_t rq_bytes = round_up(sizeof(struct request), cache_line_size());
	struct request_queue *q;
	unsigned int i, depth;

	if (!p)
		return -ENOMEM;
	*ctx = p;
	p->bdev_file = nullb0_open("blk_batch", p);
	if (IS_ERR(p->bdev_file))
		return PTR_ERR(p->bdev_file);
	q = bdev_get_queue(file_bdev(p->bdev_file));
	if (!(q->limits.features & BLK_FEAT_POLL) || !q->tag_set) {
		pr_err("umlbench: blk_batch: nullb0 has no poll queue (null_blk.poll_queues=1)\n");
		return -EINVAL;
	}
	depth = min(q->tag_set->queue_depth, BLK_MQ_MAX_DEPTH);
	p->batch = max_t(unsigned int, 2, (u64)kib * 1024 / rq_bytes);
	if (p->batch > depth) {
		pr_err("umlbench: blk_batch: a batch of %u requests: the poll queue holds %u (null_blk.hw_queue_depth=)\n",
		       p->batch, depth);
		return -E2BIG;
	}
	p->nr_batches = depth / p->batch;
	p->pages = kvcalloc(p->batch * p->nr_batches, sizeof(*p->pages), GFP_KERNEL);
	p->iobs = kvcalloc(p->nr_batches, sizeof(*p->iobs), GFP_KERNEL);
	if (!p->pages || !p->iobs)
		return -ENOMEM;
	for (i = 0; i < p->batch * p->nr_batches; i++) {
		p->pages[i] = alloc_page(GFP_KERNEL);
		if (!p->pages[i])
			return -ENOMEM;
	}
	*nr = p->batch;
	return 0;
}

/*
 * Every batch: its reads submitted, polled (null_blk completes what its
 * poll queue holds into the batch), none yet ended.
 */
static int blk_batch_prepare(void *ctx)
{
	struct blk_batch_path *p = ctx;
	struct block_device *bdev = file_bdev(p->bdev_file);
	unsigned int b, i, n = 0;

	path_round_start(p->batch * p->nr_batches);
	for (b = 0; b < p->nr_batches; b++) {
		struct bio *first = NULL;

		memset(&p->iobs[b], 0, sizeof(p->iobs[b]));
		for (i = 0; i < p->batch; i++, n++) {
			struct bio *bio = bio_alloc(bdev, 1, REQ_OP_READ | REQ_POLLED | REQ_NOWAIT,
						    GFP_KERNEL);

			bio->bi_iter.bi_sector = (sector_t)n * (PAGE_SIZE >> SECTOR_SHIFT);
			__bio_add_page(bio, p->pages[n], PAGE_SIZE, 0);
			bio->bi_end_io = blk_batch_end_io;
			bio->bi_private = (void *)(uintptr_t)n;
			/* Held: the batch's poll goes by the first bio's cookie. */
			if (!first) {
				first = bio;
				bio_get(bio);
			}
			submit_bio(bio);
		}
		for (i = 0; i < 1000 && bio_poll(first, &p->iobs[b], 0) <= 0; i++)
			cond_resched();
		bio_put(first);
		if (path_round.done || rq_list_empty(&p->iobs[b].req_list)) {
			pr_err("umlbench: blk_batch: batch %u: %u requests ended outside the batch\n",
			       b, path_round.done);
			return -EINVAL;
		}
	}
	return 0;
}

static int blk_batch_region(void *ctx, u64 *ns, u64 *steps)
{
	struct blk_batch_path *p = ctx;
	unsigned int b;
	u64 t0;

	t0 = ktime_get_ns();
	for (b = 0; b < p->nr_batches; b++) {
		p->iobs[b].complete(&p->iobs[b]);
		p->iobs[b].complete = NULL;
	}
	*ns = ktime_get_ns() - t0;
	*steps = (u64)p->batch * p->nr_batches;
	if (path_round.errors) {
		pr_err("umlbench: blk_batch: %u reads failed\n", path_round.errors);
		return -EIO;
	}
	return path_round_check("blk_batch", p->batch * p->nr_batches);
}

/*
 * Reclaim under real memory pressure: buffered reads of nullb0 through
 * its block device's page cache, more than mem= holds. Once memory is
 * full, every folio read costs one reclaimed: the allocator wakes
 * kswapd and reclaims directly, and both run shrink_inactive_list(),
 * whose isolate_lru_folios() walks the inactive file LRU from its tail,
 * the folios read longest ago (cold: a page cache of mem= read since).
 * A region reads reclaim_sets KiB more; the steps are the folios
 * reclaimed meanwhile (the vm events pgsteal_kswapd + pgsteal_direct),
 * and a region that reclaimed under half of what it read fails the
 * boot: it was not under pressure.
 */
#define RECLAIM_CHUNK	(1024 * 1024)	/* bytes a read asks for */

struct reclaim_path {
	struct file *bdev_file;
	void *buf;
	loff_t pos, size;
	unsigned int kib;		/* page cache read per region */
};

static unsigned long reclaim_events[NR_VM_EVENT_ITEMS];

/* Folios reclaimed so far, by kswapd and directly. */
static unsigned long reclaim_stolen(void)
{
	all_vm_events(reclaim_events);
	return reclaim_events[PGSTEAL_KSWAPD] + reclaim_events[PGSTEAL_DIRECT];
}

/* Read @bytes more of the disk through its page cache, wrapping at its end. */
static int reclaim_read(struct reclaim_path *p, u64 bytes)
{
	ssize_t got;

	while (bytes) {
		if (p->pos + RECLAIM_CHUNK > p->size)
			p->pos = 0;
		got = kernel_read(p->bdev_file, p->buf, RECLAIM_CHUNK, &p->pos);
		if (got != RECLAIM_CHUNK) {
			pr_err("umlbench: reclaim: a read of nullb0 at %lld gave %zd\n",
			       p->pos, got);
			return got < 0 ? got : -EIO;
		}
		bytes -= min_t(u64, bytes, RECLAIM_CHUNK);
		cond_resched();
	}
	return 0;
}

static void reclaim_teardown(void *ctx)
{
	struct reclaim_path *p = ctx;

	if (!IS_ERR_OR_NULL(p->bdev_file))
		fput(p->bdev_file);
	vfree(p->buf);
	kfree(p);
}

static int reclaim_setup(void **ctx, unsigned int kib, unsigned int *nr)
{
	struct reclaim_path *p = kzalloc(sizeof(*p), GFP_KERNEL);
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT, read = 0;
	unsigned long stolen;
	int ret;

	if (!p)
		return -ENOMEM;
	*ctx = p;
	if (IS_ENABLED(CONFIG_LRU_GEN)) {
		/* Multi-gen LRU scans in scan_folios(), not isolate_lru_folios(). */
		pr_err("umlbench: reclaim: this kernel has CONFIG_LRU_GEN\n");
		return -EINVAL;
	}
	/*
	 * No holder: not exclusive, so blk_batch's open of the same disk,
	 * whose fput() a kernel thread's context defers, does not refuse it.
	 */
	p->bdev_file = nullb0_open("reclaim", NULL);
	if (IS_ERR(p->bdev_file))
		return PTR_ERR(p->bdev_file);
	p->size = bdev_nr_bytes(file_bdev(p->bdev_file));
	p->buf = vmalloc(RECLAIM_CHUNK);
	if (!p->buf)
		return -ENOMEM;
	if (p->size < 2 * ram) {
		pr_err("umlbench: reclaim: nullb0 holds %lld bytes, under twice mem= (null_blk.gb=)\n",
		       p->size);
		return -E2BIG;
	}
	p->kib = kib;
	/* Fill memory until reclaim runs steadily: a quarter of it reclaimed. */
	stolen = reclaim_stolen();
	while (reclaim_stolen() - stolen < totalram_pages() / 4) {
		if (read > 4 * ram) {
			pr_err("umlbench: reclaim: %llu MiB read and nothing reclaimed: no pressure\n",
			       read >> 20);
			return -EINVAL;
		}
		ret = reclaim_read(p, 64 * RECLAIM_CHUNK);
		if (ret)
			return ret;
		read += 64 * RECLAIM_CHUNK;
	}
	*nr = (u64)kib * 1024 / PAGE_SIZE;
	return 0;
}

static int reclaim_region(void *ctx, u64 *ns, u64 *steps)
{
	struct reclaim_path *p = ctx;
	unsigned long stolen = reclaim_stolen(), pages = (u64)p->kib * 1024 / PAGE_SIZE;
	u64 t0;
	int ret;

	t0 = ktime_get_ns();
	ret = reclaim_read(p, (u64)p->kib * 1024);
	*ns = ktime_get_ns() - t0;
	if (ret)
		return ret;
	*steps = reclaim_stolen() - stolen;
	if (*steps < pages / 2) {
		pr_err("umlbench: reclaim: %llu folios reclaimed while %lu were read: not under pressure\n",
		       *steps, pages);
		return -EINVAL;
	}
	return 0;
}

static const struct umlbench_path paths[] = {
	{ .name = "tiny_rcu", .setup = tiny_rcu_setup, .prepare = tiny_rcu_prepare,
	  .region = tiny_rcu_region, .teardown = tiny_rcu_teardown,
	  .sets = cold_sets, .nr_sets = &nr_cold_sets },
	{ .name = "tcp_backlog", .setup = backlog_setup, .prepare = backlog_prepare,
	  .region = backlog_region, .teardown = backlog_teardown,
	  .sets = backlog_sets, .nr_sets = &nr_backlog_sets },
	{ .name = "blk_batch", .setup = blk_batch_setup, .prepare = blk_batch_prepare,
	  .region = blk_batch_region, .teardown = blk_batch_teardown,
	  .sets = batch_sets, .nr_sets = &nr_batch_sets },
	{ .name = "lru_reclaim", .setup = reclaim_setup,
	  .region = reclaim_region, .teardown = reclaim_teardown,
	  .sets = reclaim_sets, .nr_sets = &nr_reclaim_sets },
};

#ifdef CONFIG_UML_LIST_PREFETCH_SWITCH
/*
 * The flag's states a sample times in a switch kernel: on and on_again
 * alike, the A/A control.
 */
enum path_state { STATE_ON, STATE_OFF, STATE_ON_AGAIN, NR_STATES };

/* As printed after the path's name: as the iterators print their forms. */
static const char * const state_names[NR_STATES] = {
	" form=on", " form=off", " form=on_again"
};

/* Every order of the three states, a sample's order taken in turn. */
static const u8 state_orders[6][NR_STATES] = {
	{ 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 }, { 1, 0, 2 }, { 0, 2, 1 },
};

static unsigned int nr_states(void)
{
	return NR_STATES;
}

/*
 * Set the flag for the @k-th timing of sample @i (counted over the
 * cell's placements); the form, to print.
 */
static const char *enter_state(unsigned int i, unsigned int k)
{
	enum path_state state = state_orders[i % ARRAY_SIZE(state_orders)][k];

	WRITE_ONCE(um_list_prefetch_enabled, state != STATE_OFF);
	return state_names[state];
}

/* The rest of the kernel runs as the build has it: prefetching. */
static void leave_states(void)
{
	WRITE_ONCE(um_list_prefetch_enabled, true);
}
#else
/* One timing a sample, no form: the build alone decides the prefetches. */
static unsigned int nr_states(void)
{
	return 1;
}

static const char *enter_state(unsigned int i, unsigned int k)
{
	return "";
}

static void leave_states(void)
{
}
#endif

/*
 * Samples of a cold path: each builds the nodes, ages them (age_kib of
 * other memory read), then times one region of the path's real work. A
 * region under MIN_REGION_NS is reported and the cell left untimed:
 * UML's clock cannot time it, and summing short regions would add their
 * rounding, not measure the walk. In a switch kernel, each state of the
 * flag gets its own nodes, built, aged and walked in turn.
 */
static int bench_regions(const struct umlbench_path *path, void *ctx, unsigned int kib,
			 unsigned int nr, unsigned int placement)
{
	u64 start = ktime_get_ns(), budget = (u64)path_budget_ms * NSEC_PER_MSEC;
	unsigned int i, k;
	int ret = 0;

	/*
	 * samples of them at least; while the budget lasts, more (a cheap
	 * path's interval narrows, a costly one's boot does not grow).
	 */
	for (i = 0; !ret && (i < samples || (i < PATH_SAMPLES_MAX &&
					     ktime_get_ns() - start < budget)); i++) {
		for (k = 0; k < nr_states() && !ret; k++) {
			const char *form = enter_state(placement * PATH_SAMPLES_MAX + i, k);
			u64 ns = 0, steps = 0, x;

			ret = path->prepare ? path->prepare(ctx) : 0;
			if (ret)
				break;
			age_nodes();
			ret = path->region(ctx, &ns, &steps);
			if (ret)
				break;
			if (ns < MIN_REGION_NS) {
				pr_info("umlbench: walk=%s%s set_kib=%u nodes=%u placement=%u sample=%u region_ns=%llu too_short\n",
					path->name, form, kib, nr, placement, i, ns);
				leave_states();
				return 0;
			}
			x = div64_u64(ns * 1000, steps ? steps : 1);
			pr_info("umlbench: walk=%s%s set_kib=%u nodes=%u placement=%u sample=%u ns_per_node=%llu.%03llu regions=1 region_ns=%llu aged_kib=%u\n",
				path->name, form, kib, nr, placement, i, x / 1000, x % 1000, ns,
				age_kib);
			cond_resched();
		}
	}
	leave_states();
	return ret;
}

static int bench_path_placement(const struct umlbench_path *path, unsigned int kib,
				unsigned int placement)
{
	unsigned int nr = 0;
	void *ctx = NULL;
	int ret;

	ret = path->setup(&ctx, kib, &nr);
	if (ret)
		pr_err("umlbench: %s: set=%u KiB: setup failed (%d)\n", path->name, kib, ret);
	else
		ret = bench_regions(path, ctx, kib, nr, placement);
	if (ctx)
		path->teardown(ctx);
	return ret;
}

/* A path's nodes are set up anew for each placement, as the iterators' are. */
static int bench_path(const struct umlbench_path *path, unsigned int kib)
{
	unsigned int p;
	int ret = 0;

	for (p = 0; p < placements && !ret; p++)
		ret = bench_path_placement(path, kib, p);
	return ret;
}

static int __init umlbench_init(void)
{
	unsigned int j;
	int i, ret = 0;

	if (!nr_sets && !nr_cold_sets && !nr_batch_sets && !nr_backlog_sets && !nr_reclaim_sets)
		return 0;
	pr_info("umlbench: start CONFIG_LIST_PREFETCH=%s switch=%d node_bytes=%zu skb_truesize=%zu placements=%u samples=%u path_budget_ms=%u min_sample_ms=%u settle=%d age_kib=%u\n",
		IS_ENABLED(CONFIG_LIST_PREFETCH) ? "y" : "n",
		IS_ENABLED(CONFIG_UML_LIST_PREFETCH_SWITCH), sizeof(struct umlbench_node),
		(size_t)SKB_TRUESIZE(0), placements, samples, path_budget_ms, min_sample_ms, settle,
		age_kib);
	for (i = 0; i < nr_sets && !ret; i++)
		ret = bench_set(sets[i]);
	if ((nr_cold_sets || nr_batch_sets || nr_backlog_sets || nr_reclaim_sets) && !ret) {
		ret = age_init();
		if (ret)
			pr_err("umlbench: age_kib=%u: no memory (raise mem=)\n", age_kib);
	}
	for (j = 0; j < ARRAY_SIZE(paths) && !ret; j++)
		for (i = 0; i < *paths[j].nr_sets && !ret; i++)
			ret = bench_path(&paths[j], paths[j].sets[i]);
	vfree(age_buf);
	pr_info("umlbench: %s\n", ret ? "failed" : "done");
	if (power_off)
		kernel_power_off();
	return 0;
}
late_initcall(umlbench_init);
