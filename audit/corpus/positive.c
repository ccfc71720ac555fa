// SPDX-License-Identifier: GPL-2.0
/*
 * Next-node prefetches of pointer-chasing loops: list_prefetch.cocci
 * must report every line marked "list-walk", and nothing else here.
 */
#include <linux/list.h>
#include <linux/prefetch.h>
#include <linux/skbuff.h>

struct item {
	struct item *next;
	struct list_head list;
	struct hlist_node node;
	struct item *rq_next;
	int payload;
};

/* The pre-2011 list_for_each(): the next node, straight off the link. */
void walk_list(struct list_head *head)
{
	struct list_head *pos;

	for (pos = head->next; pos != head; pos = pos->next)
		prefetch(pos->next); /* list-walk */
}

/* Backwards, and through the embedded list_head of an entry. */
int walk_entries_reverse(struct list_head *head)
{
	struct item *it;
	int sum = 0;

	for (it = list_last_entry(head, struct item, list);
	     &it->list != head;
	     it = list_prev_entry(it, list)) {
		prefetch(it->list.prev); /* list-walk */
		sum += it->payload;
	}
	return sum;
}

/* An hlist chain. */
void walk_hlist(struct hlist_head *head)
{
	struct hlist_node *pos;

	for (pos = head->first; pos; pos = pos->next)
		prefetchw(pos->next); /* list-walk */
}

/* A singly linked chain with its own link name, as blk-mq's rq_next. */
int walk_rq_chain(struct item *rq)
{
	int n = 0;

	while (rq) {
		prefetch(rq->rq_next); /* list-walk */
		n += rq->payload;
		rq = rq->rq_next;
	}
	return n;
}

/* A "next" local that the loop then follows, as __release_sock(). */
void walk_skbs(struct sk_buff *skb, void (*rcv)(struct sk_buff *))
{
	struct sk_buff *next;

	do {
		next = skb->next;
		prefetch(next); /* list-walk */
		skb_mark_not_on_list(skb);
		rcv(skb);
		skb = next;
	} while (skb);
}

/* The same with READ_ONCE(), as a lockless list. */
void walk_lockless(struct item *list, void (*fn)(struct item *))
{
	struct item *next;

	while (list) {
		next = READ_ONCE(list->next);
		prefetchw(next); /* list-walk */
		fn(list);
		list = next;
	}
}

/* The local declared with the next node, as tiny RCU's callback list. */
void walk_callbacks(struct item *list, void (*fn)(struct item *))
{
	while (list) {
		struct item *next = list->next;

		prefetch(next); /* list-walk */
		fn(list);
		list = next;
	}
}

/* An RCU-protected chain. */
int walk_rcu(struct item *p)
{
	int n = 0;

	while (p) {
		prefetch(rcu_dereference(p->next)); /* list-walk */
		n += p->payload;
		p = rcu_dereference(p->next);
	}
	return n;
}

/* The neighbour entry, through the list helpers. */
void walk_entries(struct list_head *head, void (*fn)(struct item *))
{
	struct item *it, *next;

	list_for_each_entry(it, head, list) {
		next = list_next_entry(it, list);
		prefetchw(&next->payload); /* list-walk */
		fn(it);
	}
}

/* The walk steps in its for header; the body loads and prefetches the next. */
void walk_for_header(struct item *first, void (*fn)(struct item *))
{
	struct item *e, *nx;

	for (e = first; e; e = nx) {
		nx = e->next;
		prefetch(nx); /* list-walk */
		fn(e);
	}
}

/* In the loop condition, as the pre-2011 iterators and skge's ring walk. */
int walk_in_condition(struct list_head *head)
{
	struct list_head *pos;
	int n = 0;

	for (pos = head->next; prefetch(pos->next), pos != head; pos = pos->next) /* list-walk */
		n++;
	return n;
}

/* A macro body, as vmscan's prefetchw_prev_lru_folio(). */
#define prefetchw_prev_item(_item, _base, _field)		\
	do {							\
		if ((_item)->list.prev != (_base)) {		\
			struct item *prev;			\
								\
			prev = list_prev_entry(_item, list);	\
			prefetchw(&prev->_field); /* list-walk */ \
		}						\
	} while (0)

/* A do-while loop that moves in its condition. */
void walk_do_while(struct item *e, void (*fn)(struct item *))
{
	do {
		prefetch(e->next); /* list-walk */
		fn(e);
	} while ((e = e->next));
}

/* The neighbour entry itself, in an iterator. */
void walk_next_entry(struct list_head *head, void (*fn)(struct item *))
{
	struct item *pos;

	list_for_each_entry(pos, head, list) {
		prefetch(list_next_entry(pos, list)); /* list-walk */
		fn(pos);
	}
}

/* A chain read with rcu_dereference_raw(). */
int walk_rcu_raw(struct item *p)
{
	int n = 0;

	while (p) {
		prefetch(rcu_dereference_raw(p->next)); /* list-walk */
		n += p->payload;
		p = rcu_dereference_raw(p->next);
	}
	return n;
}
