// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "caches.h"
#include "latency.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)

static size_t parse_cache_size(const char *text)
{
	char *end;
	size_t value = strtoul(text, &end, 10);

	if (*end == 'K')
		value *= KIB;
	else if (*end == 'M')
		value *= MIB;
	return value;
}

/* Reads one word of cpu0's cache/index<index>/<name>; "" if absent. */
static void read_cache_attr(int index, const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, " \n")] = '\0';
	fclose(f);
}

/* Sets the level's size; the LLC is the highest level seen. */
static void set_level(struct cache_info *c, unsigned int level, size_t size,
		      unsigned int *llc_level)
{
	if (level == 1)
		c->l1d = size;
	else if (level == 2)
		c->l2 = size;
	if (level >= 2 && level >= *llc_level) {
		c->llc = size;
		*llc_level = level;
	}
}

/* Every level known, and ordered as caches are. */
static int complete(const struct cache_info *c)
{
	return c->l1d && c->l2 && c->llc && c->l1d < c->l2 && c->l2 <= c->llc ? 0 : -1;
}

int caches_from_sysfs(struct cache_info *c)
{
	char level[16], type[32], size[32];
	unsigned int llc_level = 0;
	int index;

	memset(c, 0, sizeof(*c));
	c->source = CACHE_SYSFS;
	for (index = 0; index < 8; index++) {
		read_cache_attr(index, "level", level, sizeof(level));
		if (!level[0])
			break;
		read_cache_attr(index, "type", type, sizeof(type));
		read_cache_attr(index, "size", size, sizeof(size));
		if (!strcmp(type, "Instruction") || !size[0])
			continue;
		set_level(c, (unsigned int)atoi(level), parse_cache_size(size), &llc_level);
	}
	return complete(c);
}

#if defined(__x86_64__) || defined(__i386__)
/* The deterministic cache parameters of leaf 4 and 0x8000001D: same layout. */
static int caches_from_leaf(struct cache_info *c, unsigned int leaf)
{
	unsigned int eax, ebx, ecx, edx, sub, llc_level = 0;

	for (sub = 0; sub < 16; sub++) {
		unsigned int type, level;
		size_t ways, partitions, line, sets;

		__cpuid_count(leaf, sub, eax, ebx, ecx, edx);
		type = eax & 0x1f;
		if (type == 0)
			break;
		if (type == 2)	/* instruction */
			continue;
		level = (eax >> 5) & 7;
		ways = ((ebx >> 22) & 0x3ff) + 1;
		partitions = ((ebx >> 12) & 0x3ff) + 1;
		line = (ebx & 0xfff) + 1;
		sets = (size_t)ecx + 1;
		set_level(c, level, ways * partitions * line * sets, &llc_level);
	}
	return complete(c);
}

/* Older AMD: L1d in 0x80000005 ECX, L2 in 0x80000006 ECX, L3 in its EDX. */
static int caches_from_amd_legacy(struct cache_info *c, unsigned int max_ext)
{
	unsigned int eax, ebx, ecx, edx;

	if (max_ext < 0x80000006)
		return -1;
	__cpuid(0x80000005, eax, ebx, ecx, edx);
	c->l1d = (size_t)(ecx >> 24) * KIB;
	__cpuid(0x80000006, eax, ebx, ecx, edx);
	c->l2 = (size_t)(ecx >> 16) * KIB;
	c->llc = (edx >> 18) ? (size_t)(edx >> 18) * 512 * KIB : c->l2;
	return complete(c);
}

int caches_from_cpuid(struct cache_info *c)
{
	unsigned int eax, ebx, ecx, edx, max_leaf, max_ext;
	char vendor[13];

	memset(c, 0, sizeof(*c));
	c->source = CACHE_CPUID;
	if (!__get_cpuid(0, &max_leaf, &ebx, &ecx, &edx))
		return -1;
	memcpy(vendor, &ebx, 4);
	memcpy(vendor + 4, &edx, 4);
	memcpy(vendor + 8, &ecx, 4);
	vendor[12] = '\0';
	max_ext = __get_cpuid_max(0x80000000, NULL);
	if (!strcmp(vendor, "GenuineIntel"))
		return max_leaf >= 4 ? caches_from_leaf(c, 4) : -1;
	if (strcmp(vendor, "AuthenticAMD") && strcmp(vendor, "HygonGenuine"))
		return -1;
	/* 0x8000001D exists where CPUID 0x80000001 ECX says TOPOEXT (bit 22). */
	if (max_ext >= 0x8000001d) {
		__cpuid(0x80000001, eax, ebx, ecx, edx);
		if ((ecx & (1u << 22)) && !caches_from_leaf(c, 0x8000001d))
			return 0;
		memset(c, 0, sizeof(*c));
		c->source = CACHE_CPUID;
	}
	return caches_from_amd_legacy(c, max_ext);
}
#else
int caches_from_cpuid(struct cache_info *c)
{
	memset(c, 0, sizeof(*c));
	c->source = CACHE_CPUID;
	return -1;
}
#endif

/*
 * A dependent-load chase over sizes 4 KiB to 512 MiB, doubling, in 2 MiB
 * pages from 4 MiB up where granted (translation would blur the steps).
 * Latency cannot fall as the set grows, so each point takes the lowest
 * latency at its size or above (a burst of noise is not a level). A
 * level's plateau starts where the last one ended; its capacity is the
 * first size at which the latency leaves the plateau by more than 50 %
 * (a set the size of a cache already misses in it: conflicts, the page
 * colouring of 4 KiB pages). The first three such steps are L1d, L2 and
 * the LLC.
 */
int caches_measured(struct cache_info *c)
{
	size_t sizes[18], bounds[3], nr_bounds = 0, i, n = 0, bytes;
	bool huge = huge_pages_available();
	double ns[18], plateau;

	memset(c, 0, sizeof(*c));
	c->source = CACHE_MEASURED;
	for (bytes = 4 * KIB; bytes <= 512 * MIB && n < 18; bytes *= 2) {
		sizes[n] = bytes;
		ns[n] = huge && bytes >= 4 * MIB ? chase_latency(bytes, true, 11 + n) : 0;
		if (ns[n] <= 0)
			ns[n] = chase_latency(bytes, false, 11 + n);
		if (ns[n] < 0)
			return -1;
		n++;
	}
	for (i = n - 1; i > 0; i--)
		if (ns[i - 1] > ns[i])
			ns[i - 1] = ns[i];
	plateau = ns[0];
	for (i = 1; i < n && nr_bounds < 3; i++) {
		if (ns[i] > 1.5 * plateau) {
			bounds[nr_bounds++] = sizes[i];
			plateau = ns[i];
		}
	}
	if (nr_bounds < 3)
		return -1;
	c->l1d = bounds[0];
	c->l2 = bounds[1];
	c->llc = bounds[2];
	return complete(c);
}

int caches_detect(struct cache_info *c, enum cache_source first)
{
	if (first <= CACHE_SYSFS && !caches_from_sysfs(c))
		return 0;
	if (first <= CACHE_CPUID && !caches_from_cpuid(c))
		return 0;
	return caches_measured(c);
}

const char *cache_source_name(enum cache_source source)
{
	static const char *const names[NR_CACHE_SOURCES] = {
		[CACHE_SYSFS] = "sysfs", [CACHE_CPUID] = "cpuid", [CACHE_MEASURED] = "measured",
	};

	return names[source];
}

int parse_cache_source(const char *name, enum cache_source *source)
{
	int s;

	for (s = 0; s < NR_CACHE_SOURCES; s++) {
		if (!strcmp(name, cache_source_name(s))) {
			*source = s;
			return 0;
		}
	}
	return -1;
}
