// SPDX-License-Identifier: GPL-2.0
/*
 * listbench - time the kernel's own list iterators inside a guest.
 *
 * Built out of tree against one variant's build directory, so the
 * iterators it expands are that kernel's: with CONFIG_LIST_PREFETCH=y
 * they prefetch the next node, with =n they do not. At load time it
 * builds lists of the requested sizes, linked in address order
 * ("sequential", which the hardware prefetcher follows) or in a random
 * order ("shuffled", which it cannot), walks each with list, hlist and
 * RCU list iterators, and prints the median cycles per node over
 * 'reps' walks. The load then succeeds and the module can be removed;
 * it keeps nothing.
 *
 * Under TCG the cycle counter is emulated and no cache is modelled:
 * such figures show that the walks ran, nothing about prefetching.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timex.h>
#include <linux/vmalloc.h>

#define MAX_REPS	101

static unsigned int nodes[8] = { 64, 1024, 16384, 262144 };
static int nr_nodes = 4;
module_param_array(nodes, uint, &nr_nodes, 0444);
MODULE_PARM_DESC(nodes, "list sizes to walk (up to 8)");

static unsigned int reps = 15;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "timed walks per list, the median is reported (max 101)");

/* One node per cache line, so that every step of a walk is a new line. */
struct bench_node {
	struct list_head list;
	struct hlist_node hlist;
	u64 payload;
} ____cacheline_aligned;

struct bench_list {
	struct bench_node *nodes;
	unsigned int nr;
	struct list_head head;
	struct hlist_head hhead;
};

enum walk_kind { WALK_LIST, WALK_HLIST, WALK_RCU, NR_WALKS };

static const char * const walk_names[NR_WALKS] = { "list", "hlist", "rcu" };

/* Each walk reads every node's payload, so no walk can be optimised out. */
static noinline u64 walk(struct bench_list *bl, enum walk_kind kind)
{
	struct bench_node *pos;
	u64 sum = 0;

	switch (kind) {
	case WALK_LIST:
		list_for_each_entry(pos, &bl->head, list)
			sum += pos->payload;
		break;
	case WALK_HLIST:
		hlist_for_each_entry(pos, &bl->hhead, hlist)
			sum += pos->payload;
		break;
	case WALK_RCU:
		rcu_read_lock();
		list_for_each_entry_rcu(pos, &bl->head, list)
			sum += pos->payload;
		rcu_read_unlock();
		break;
	case NR_WALKS:
		break;
	}
	return sum;
}

/* Links bl's nodes in the order of order[] (a permutation of 0..nr-1). */
static void link_nodes(struct bench_list *bl, const u32 *order)
{
	struct hlist_node *prev = NULL;
	unsigned int i;

	INIT_LIST_HEAD(&bl->head);
	INIT_HLIST_HEAD(&bl->hhead);
	for (i = 0; i < bl->nr; i++) {
		struct bench_node *node = &bl->nodes[order[i]];

		node->payload = order[i];
		list_add_tail(&node->list, &bl->head);
		if (prev)
			hlist_add_behind(&node->hlist, prev);
		else
			hlist_add_head(&node->hlist, &bl->hhead);
		prev = &node->hlist;
	}
}

static void make_order(u32 *order, unsigned int nr, bool shuffled)
{
	unsigned int i, j;

	for (i = 0; i < nr; i++)
		order[i] = i;
	if (!shuffled)
		return;
	for (i = nr - 1; i > 0; i--) {
		j = get_random_u32_below(i + 1);
		swap(order[i], order[j]);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Times reps walks and prints the median in hundredths of a cycle per node. */
static void time_walks(struct bench_list *bl, const char *layout,
		       enum walk_kind kind, u64 *samples)
{
	u64 expect = (u64)bl->nr * (bl->nr - 1) / 2, sum, median;
	cycles_t t0;
	unsigned int r;

	/* One untimed walk, so that every timed one starts alike. */
	sum = walk(bl, kind);
	for (r = 0; r < reps; r++) {
		t0 = get_cycles();
		sum = walk(bl, kind);
		samples[r] = get_cycles() - t0;
		if (sum != expect)
			break;
		cond_resched();
	}
	if (sum != expect) {
		pr_err("listbench: %s %s nodes=%u: walk summed %llu, want %llu\n",
		       walk_names[kind], layout, bl->nr, sum, expect);
		return;
	}
	sort(samples, reps, sizeof(*samples), cmp_u64, NULL);
	median = samples[reps / 2] * 100 / bl->nr;
	pr_info("listbench: walk=%s layout=%s nodes=%u reps=%u cycles_per_node=%llu.%02llu min=%llu max=%llu\n",
		walk_names[kind], layout, bl->nr, reps, median / 100,
		median % 100, samples[0], samples[reps - 1]);
}

static int bench_size(unsigned int nr, u64 *samples)
{
	static const char * const layouts[] = { "sequential", "shuffled" };
	struct bench_list bl = { .nr = nr };
	unsigned int l, kind;
	u32 *order;

	bl.nodes = kvcalloc(nr, sizeof(*bl.nodes), GFP_KERNEL);
	order = kvmalloc_array(nr, sizeof(*order), GFP_KERNEL);
	if (!bl.nodes || !order) {
		pr_err("listbench: no memory for %u nodes\n", nr);
		kvfree(bl.nodes);
		kvfree(order);
		return -ENOMEM;
	}
	for (l = 0; l < ARRAY_SIZE(layouts); l++) {
		make_order(order, nr, l == 1);
		link_nodes(&bl, order);
		for (kind = 0; kind < NR_WALKS; kind++)
			time_walks(&bl, layouts[l], kind, samples);
	}
	kvfree(order);
	kvfree(bl.nodes);
	return 0;
}

static int __init listbench_init(void)
{
	u64 *samples;
	int i, ret = 0;

	if (reps < 1 || reps > MAX_REPS) {
		pr_err("listbench: reps=%u, want 1..%d\n", reps, MAX_REPS);
		return -EINVAL;
	}
	samples = kmalloc_array(reps, sizeof(*samples), GFP_KERNEL);
	if (!samples)
		return -ENOMEM;
	pr_info("listbench: start CONFIG_LIST_PREFETCH=%s node_bytes=%zu\n",
		IS_ENABLED(CONFIG_LIST_PREFETCH) ? "y" : "n",
		sizeof(struct bench_node));
	for (i = 0; i < nr_nodes && !ret; i++) {
		if (nodes[i] < 2) {
			pr_err("listbench: nodes=%u, want at least 2\n", nodes[i]);
			ret = -EINVAL;
			break;
		}
		ret = bench_size(nodes[i], samples);
	}
	kfree(samples);
	if (!ret)
		pr_info("listbench: done\n");
	return ret;
}

static void __exit listbench_exit(void)
{
}

module_init(listbench_init);
module_exit(listbench_exit);

MODULE_DESCRIPTION("Time the kernel's list iterators with and without list_prefetch()");
MODULE_LICENSE("GPL");
