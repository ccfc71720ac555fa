// SPDX-License-Identifier: GPL-2.0
/*
 * umlbench_walks.c - the walks umlbench times, with the kernel's own
 * iterators. Not built on its own: umlbench_walks_off.c and
 * umlbench_walks_on.c include it with CONFIG_LIST_PREFETCH unset and set
 * (before any header, so <linux/list_prefetch.h> sees it), and name the
 * result UMLBENCH_WALKS.
 */
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>

#include "umlbench.h"

/*
 * walk_list() and walk_list_copy() are the same code at two addresses:
 * the A/A control, timed against each other in every sample. no_icf
 * keeps the compiler from folding the copy into the original; both start
 * a cache line, so their loops fall on lines and fetch blocks alike and
 * differ by address alone (at 16 KiB, unaligned, the copy read 0.986).
 */
static noinline __aligned(64) __attribute__((__no_icf__))
u64 walk_list(struct umlbench_set *s)
{
	struct umlbench_node *pos;
	u64 sum = 0;

	list_for_each_entry(pos, &s->head, list)
		sum += pos->payload;
	return sum;
}

static noinline __aligned(64) __attribute__((__no_icf__))
u64 walk_list_copy(struct umlbench_set *s)
{
	struct umlbench_node *pos;
	u64 sum = 0;

	list_for_each_entry(pos, &s->head, list)
		sum += pos->payload;
	return sum;
}

/*
 * The RCU walk, the standing check against walk_list(): the same loop
 * under Tiny RCU, so it starts a cache line too. Unaligned, it read the
 * list 0.989 [0.981,0.995] at 16 KiB (run 7b1af33-20261207T154426Z,
 * refused): the loop's place in its fetch block, not RCU.
 */
static noinline __aligned(64) __attribute__((__no_icf__))
u64 walk_rcu(struct umlbench_set *s)
{
	struct umlbench_node *pos;
	u64 sum = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(pos, &s->head, list)
		sum += pos->payload;
	rcu_read_unlock();
	return sum;
}

/*
 * The sk_buff queue walk: each skb read in two lines besides its link
 * (len, truesize). Inlined into each walker, so every walker's loop is
 * its own code.
 */
static __always_inline u64 walk_skb_queue(struct sk_buff_head *queue)
{
	struct sk_buff *skb;
	u64 sum = 0;

	skb_queue_walk(queue, skb)
		sum += skb->len + skb->truesize;
	return sum;
}

/*
 * Over skbs in allocation order (the order a queue fed by one allocator
 * builds): consecutive slab objects.
 */
static noinline u64 walk_skb(struct umlbench_set *s)
{
	return walk_skb_queue(&s->skbs);
}

/*
 * What makes the skb walk gain where the list walk does not (the
 * explanation docs/uml.md tests): the same walk over skbs queued in a
 * random order (every step a jump, as the list walk's are), and a walk
 * of the allocation-order queue that reads only the links (one line of
 * each skb, as the list walk reads one line of each node).
 */
static noinline u64 walk_skb_shuffled(struct umlbench_set *s)
{
	return walk_skb_queue(&s->skbs_shuffled);
}

static noinline u64 walk_skb_links(struct umlbench_set *s)
{
	struct sk_buff *skb;
	u64 n = 0;

	skb_queue_walk(&s->skbs, skb)
		n++;
	return n;
}

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

const struct umlbench_walks UMLBENCH_WALKS = {
	.form = IS_ENABLED(CONFIG_LIST_PREFETCH) ? "on" : "off",
	.list = walk_list,
	.list_copy = walk_list_copy,
	.rcu = walk_rcu,
	.skb = walk_skb,
	.skb_shuffled = walk_skb_shuffled,
	.skb_links = walk_skb_links,
	.lookups = walk_lookups,
};
