/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU's data caches, and where the figures came from: sysfs, else
 * CPUID (leaf 4 on Intel, 0x8000001D on AMD, 0x80000005/6 on older AMD),
 * else measured by a latency sweep that finds the plateaus. Never a
 * silent fallback: every figure carries its source.
 */
#ifndef CACHES_H
#define CACHES_H

#include <stddef.h>

enum cache_source {
	CACHE_SYSFS,
	CACHE_CPUID,
	CACHE_MEASURED,
	NR_CACHE_SOURCES
};

struct cache_info {
	size_t l1d;
	size_t l2;
	size_t llc;
	enum cache_source source;
};

/* Each returns 0 and fills @c, or -1 where that source says nothing. */
int caches_from_sysfs(struct cache_info *c);
int caches_from_cpuid(struct cache_info *c);
int caches_measured(struct cache_info *c);

/*
 * From the first source that answers, starting at @first (the order
 * above); -1 only if even the measurement failed.
 */
int caches_detect(struct cache_info *c, enum cache_source first);

const char *cache_source_name(enum cache_source source);
int parse_cache_source(const char *name, enum cache_source *source);

#endif /* CACHES_H */
