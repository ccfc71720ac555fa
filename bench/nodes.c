// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nodes.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define GOLDEN 0x9e3779b97f4a7c15ull

void shuffle_indices(size_t *order, size_t n, uint64_t seed)
{
	size_t i, j, tmp;

	for (i = n; i > 1; i--) {
		j = (size_t)key_from_state(mix64(seed + i * GOLDEN), i);
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

size_t anon_huge_bytes(void)
{
	char line[256];
	size_t kib = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %zu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib * 1024;
}

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* Huge mappings are whole 2 MiB pages; so is what bench_unmap() unmaps. */
static size_t mapped_bytes(size_t bytes)
{
	return bytes >= HUGE_PAGE ? round_up(bytes, HUGE_PAGE) : (bytes ? bytes : 1);
}

static void *map_hugetlb(size_t bytes)
{
	void *p;

	if (bytes < HUGE_PAGE)
		return NULL;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* A 2 MiB-aligned mapping of @bytes (a multiple of 2 MiB), madvise()d. */
static void *map_aligned(size_t bytes, int advice)
{
	char *p = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *start;
	size_t head;

	if (p == MAP_FAILED)
		return NULL;
	start = (char *)round_up((size_t)p, HUGE_PAGE);
	head = (size_t)(start - p);
	if (head)
		munmap(p, head);
	munmap(start + bytes, HUGE_PAGE - head);
	/* Either way on purpose: the system's THP default must not decide. */
	madvise(start, bytes, advice);
	return start;
}

void *bench_map(size_t bytes, enum page_kind want, enum page_kind *got)
{
	size_t size = mapped_bytes(bytes), before;
	void *p;

	*got = PAGES_4K;
	if (want == PAGES_HUGETLB) {
		p = map_hugetlb(size);
		if (p) {
			*got = PAGES_HUGETLB;
			return p;
		}
		want = PAGES_THP;
	}
	if (size < HUGE_PAGE) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	before = anon_huge_bytes();
	p = map_aligned(size, want == PAGES_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (!p || want != PAGES_THP)
		return p;
	/* Fault it in now, and count what the kernel gave. */
	memset(p, 0, size);
	if (anon_huge_bytes() >= before + size / 2)
		*got = PAGES_THP;
	return p;
}

void bench_unmap(void *p, size_t bytes)
{
	if (p)
		munmap(p, mapped_bytes(bytes));
}

static unsigned int floor_log2(size_t n)
{
	unsigned int bits = 0;

	while (n >>= 1)
		bits++;
	return bits;
}

static struct list_head *node_list(const struct node_set *set, size_t i)
{
	return (struct list_head *)(node_at(set, i) + set->desc->list_offset);
}

static struct hlist_node *node_hnode(const struct node_set *set, size_t i)
{
	return (struct hlist_node *)(node_at(set, i) + set->desc->hnode_offset);
}

int node_set_relink(struct node_set *set, size_t list_len)
{
	size_t i;

	if (list_len < 1 || list_len > LIST_MAX_LEN)
		return -1;
	free(set->heads);
	set->list_len = set->nr_nodes < list_len ? set->nr_nodes : list_len;
	set->nr_lists = set->list_len ?
		(set->nr_nodes + set->list_len - 1) / set->list_len : 1;
	set->heads = calloc(set->nr_lists, sizeof(*set->heads));
	if (!set->heads)
		return -1;
	for (i = 0; i < set->nr_lists; i++)
		INIT_LIST_HEAD(&set->heads[i]);
	for (i = 0; i < set->nr_nodes; i++)
		list_add_tail(node_list(set, set->order[i]), &set->heads[i / set->list_len]);
	return 0;
}

static size_t table_bytes(const struct hash_table *table)
{
	return ((size_t)1 << table->bits) * sizeof(*table->buckets);
}

static int link_hash_table(struct node_set *set, unsigned int load)
{
	struct hash_table *table = &set->table;
	size_t i, buckets = set->nr_nodes / (load ? load : 1);
	enum page_kind got;

	bench_unmap(table->buckets, table_bytes(table));
	set->load = load;
	table->zero = 0;
	table->bits = buckets ? floor_log2(buckets) : 0;
	/* Backed as the nodes are. */
	table->buckets = bench_map(table_bytes(table), set->pages, &got);
	if (!table->buckets)
		return -1;
	if (!set->desc->lookups)
		return 0;
	for (i = 0; i < set->nr_nodes; i++) {
		size_t p = set->order[i];

		hlist_add_head(node_hnode(set, p),
			       &table->buckets[hash_bucket(node_key(set, p), table->bits)]);
	}
	return 0;
}

int node_set_init(struct node_set *set, size_t nr_nodes, enum node_shape shape,
		  enum node_layout layout, enum page_kind pages, uint64_t seed)
{
	size_t i, w;

	memset(set, 0, sizeof(*set));
	set->shape = shape;
	set->desc = shape_desc(shape);
	set->nr_nodes = nr_nodes;
	set->layout = layout;
	set->bytes = nr_nodes * set->desc->size;
	/* Aligned to a page, so to a line, as slab objects of these sizes are. */
	set->mem = bench_map(set->bytes, pages, &set->pages);
	set->order = calloc(nr_nodes ? nr_nodes : 1, sizeof(*set->order));
	if (!set->mem || !set->order)
		goto fail;
	for (i = 0; i < nr_nodes; i++) {
		char *node = node_at(set, i);

		*(uint64_t *)(node + set->desc->key_offset) = key_of(2 * (uint64_t)i);
		for (w = 0; w < NODE_PAYLOAD_WORDS; w++)
			((uint64_t *)(node + set->desc->payload_offset))[w] =
				(2 * (uint64_t)i + 1) * 2654435761u + w;
		set->order[i] = i;
	}
	if (layout == LAYOUT_SHUFFLED)
		shuffle_indices(set->order, nr_nodes, seed);
	if (node_set_relink(set, LIST_MAX_LEN) || link_hash_table(set, 1))
		goto fail;
	return 0;
fail:
	node_set_free(set);
	return -1;
}

int node_set_rehash(struct node_set *set, unsigned int load)
{
	if (load == set->load)
		return 0;
	return link_hash_table(set, load);
}

size_t *node_set_chain_heads(const struct node_set *set, size_t *n)
{
	size_t buckets = (size_t)1 << set->table.bits, i;
	size_t *heads = malloc((buckets ? buckets : 1) * sizeof(*heads));

	*n = 0;
	if (!heads)
		return NULL;
	for (i = 0; i < buckets; i++) {
		const struct hlist_node *first = set->table.buckets[i].first;

		if (first)
			heads[(*n)++] = (size_t)((const char *)first - set->desc->hnode_offset -
						 set->mem) / set->desc->size;
	}
	return heads;
}

void node_set_draw_keys(const struct node_set *set, const struct key_draw *draw,
			uint64_t *keys, size_t n, uint64_t seed)
{
	uint64_t threshold = (uint64_t)(draw->hits * 4294967296.0);
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t r = mix64(seed + (i + 1) * GOLDEN);
		bool hit = (r & 0xffffffffu) < threshold;

		if (!set->nr_nodes) {
			keys[i] = key_of(1);
			continue;
		}
		/* The low half decides hit or miss, the high half which key. */
		if (hit && draw->heads && draw->nr_heads)
			keys[i] = key_of(2 * draw->heads[key_from_state(r, draw->nr_heads)]);
		else if (hit)
			keys[i] = key_of(2 * key_from_state(r, set->nr_nodes));
		else
			keys[i] = key_of(2 * key_from_state(r, set->nr_nodes) + 1);
	}
}

uint64_t sample_seed(uint64_t cell_id, unsigned int build, uint64_t index)
{
	return mix64(mix64(cell_id ^ ((uint64_t)build << 56)) + index * GOLDEN);
}

void node_set_free(struct node_set *set)
{
	bench_unmap(set->mem, set->bytes);
	free(set->order);
	free(set->heads);
	if (set->table.buckets)
		bench_unmap(set->table.buckets, table_bytes(&set->table));
	memset(set, 0, sizeof(*set));
}

uint64_t node_set_list_checksum(const struct node_set *set, size_t i)
{
	size_t first = i * set->list_len, end = first + set->list_len, k;
	uint64_t h = 0;

	if (end > set->nr_nodes)
		end = set->nr_nodes;
	for (k = first; k < end; k++)
		h = h * 31 + node_key(set, set->order[k]);
	return h;
}

const char *node_layout_name(enum node_layout layout)
{
	return layout == LAYOUT_ALLOC_ORDER ? "alloc-order" : "shuffled";
}

const char *match_position_name(enum match_position position)
{
	return position == MATCH_HEAD ? "head" : "uniform";
}

const char *page_kind_name(enum page_kind pages)
{
	static const char *const names[NR_PAGE_KINDS] = {
		[PAGES_4K] = "4k", [PAGES_THP] = "2M-thp", [PAGES_HUGETLB] = "2M-hugetlb",
	};

	return names[pages];
}
