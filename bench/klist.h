/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's list_head and hlist, in the shape include/linux/list.h
 * gives them, so that the benchmark walks what the kernel walks: an
 * embedded node, container_of() back to the entry, a circular list that
 * ends at its head and a hash chain that ends in NULL.
 */
#ifndef KLIST_H
#define KLIST_H

#include <stddef.h>

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline void list_add_tail(struct list_head *entry, struct list_head *head)
{
	struct list_head *prev = head->prev;

	entry->next = head;
	entry->prev = prev;
	prev->next = entry;
	head->prev = entry;
}

/* Appends after *tail (NULL: the chain is empty); returns the new tail. */
static inline struct hlist_node *hlist_append(struct hlist_head *head,
					      struct hlist_node *tail,
					      struct hlist_node *node)
{
	node->next = NULL;
	if (tail) {
		tail->next = node;
		node->pprev = &tail->next;
	} else {
		head->first = node;
		node->pprev = &head->first;
	}
	return node;
}

/* As the kernel's hash tables insert: at the head of the chain. */
static inline void hlist_add_head(struct hlist_node *node, struct hlist_head *head)
{
	struct hlist_node *first = head->first;

	node->next = first;
	if (first)
		first->pprev = &node->next;
	head->first = node;
	node->pprev = &head->first;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)

#endif /* KLIST_H */
