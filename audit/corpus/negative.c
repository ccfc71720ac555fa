// SPDX-License-Identifier: GPL-2.0
/*
 * Prefetches that are not of the next node of a list walk:
 * list_prefetch.cocci must report nothing in this file.
 */
#include <linux/list.h>
#include <linux/prefetch.h>
#include <linux/skbuff.h>
#include <linux/dcache.h>

struct item {
	struct item *next;
	struct list_head list;
	int payload;
	void *data;
};

/* The payload of the current node, not the next node. */
int sum_payloads(struct list_head *head)
{
	struct item *it;
	int sum = 0;

	list_for_each_entry(it, head, list) {
		prefetch(it->data);
		sum += it->payload;
	}
	return sum;
}

/* The packet data of an skb. */
void touch_skb(struct sk_buff *skb)
{
	prefetch(skb->data);
	prefetchw(&skb->len);
}

/* A range, as before a copy. */
void copy_ahead(const void *src, size_t len)
{
	prefetch_range((void *)src, len);
}

/* A strided array walk: the next element is computed, not followed. */
long sum_array(const long *a, int n)
{
	long sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		prefetch(&a[i + 8]);
		sum += a[i];
	}
	return sum;
}

/* Up a tree, as d_path's prepend_path(): a parent, not a list link. */
void walk_to_root(struct dentry *dentry, void (*fn)(struct dentry *))
{
	while (!IS_ROOT(dentry)) {
		struct dentry *parent = dentry->d_parent;

		prefetch(parent);
		fn(dentry);
		dentry = parent;
	}
}

/* The next MCS node, once, before a hand-over: nothing is walked. */
void hand_over(struct item *node)
{
	struct item *next;

	next = READ_ONCE(node->next);
	if (next)
		prefetchw(next);
}

/* The address of the link field of the current node. */
void touch_link(struct item *it)
{
	prefetchw(&it->next);
}

/* Already converted. */
void converted(struct list_head *head)
{
	struct list_head *pos;

	for (pos = head->next; pos != head; pos = pos->next)
		list_prefetch(pos->next);
}

/*
 * A field of the current entry, prefetched after its neighbour was
 * looked up: the payload at hand, not the next node. Neither reported
 * nor rewritten.
 */
void payload_after_neighbour(struct list_head *head, void (*fn)(struct item *))
{
	struct item *pos, *n;

	list_for_each_entry(pos, head, list) {
		n = list_next_entry(pos, list);
		prefetch(pos->data);
		fn(pos);
		fn(n);
	}
}

/* A one-shot prefetch of a next pointer, in no loop. */
void one_shot(struct item *node)
{
	prefetchw(node->next);
	node->payload = 0;
}

/* The neighbour entry, looked up once, in no loop. */
void one_shot_neighbour(struct item *pos, void (*fn)(struct item *))
{
	struct item *n;

	n = list_next_entry(pos, list);
	prefetch(n);
	fn(n);
}

/* A next local followed once, in no loop. */
void follow_once(struct item *cur, void (*fn)(struct item *))
{
	struct item *next;

	next = cur->next;
	prefetch(next);
	fn(cur);
	cur = next;
	fn(cur);
}

/* The same node's next, prefetched on every round of a counted loop. */
void loop_invariant(struct item *q, int n, void (*fn)(struct item *, int))
{
	int i;

	for (i = 0; i < n; i++) {
		prefetch(q->next);
		fn(q, i);
	}
}
