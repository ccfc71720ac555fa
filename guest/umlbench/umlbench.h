/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umlbench.h - what umlbench.c shares with the walks it times, which
 * umlbench_walks.c holds and umlbench_walks_off.c and umlbench_walks_on.c
 * compile twice: once with CONFIG_LIST_PREFETCH unset and once set, by
 * the kernel's own build, from the kernel's own iterators. One boot can
 * then time both forms over the same nodes, sample by sample.
 */
#ifndef _UMLBENCH_H
#define _UMLBENCH_H

#include <linux/dcache.h>
#include <linux/list.h>
#include <linux/skbuff.h>
#include <linux/types.h>

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
	struct sk_buff_head skbs;	/* in allocation order */
	struct sk_buff_head skbs_shuffled;	/* as many more, in a random order */
	unsigned int nr_skbs;
};

/* The walks of one form: how CONFIG_LIST_PREFETCH compiled them. */
struct umlbench_walks {
	const char *form;		/* "off" or "on" */
	u64 (*list)(struct umlbench_set *s);
	u64 (*list_copy)(struct umlbench_set *s);	/* list's code again: the A/A */
	u64 (*rcu)(struct umlbench_set *s);
	u64 (*skb)(struct umlbench_set *s);
	u64 (*skb_shuffled)(struct umlbench_set *s);
	u64 (*skb_links)(struct umlbench_set *s);	/* the links alone */
	unsigned int (*lookups)(struct umlbench_set *s, unsigned int n, u64 *state,
				u64 *visited);
};

extern const struct umlbench_walks umlbench_walks_off;
extern const struct umlbench_walks umlbench_walks_on;

/* Always 0, read at run time: see the lookups' data dependency. */
extern u64 umlbench_zero;

/* Key number i as stored (splitmix64's finalizer: distinct, random-looking). */
static inline u64 umlbench_key(u64 i)
{
	i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
	i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
	return i ^ (i >> 31);
}

#endif /* _UMLBENCH_H */
