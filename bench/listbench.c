// SPDX-License-Identifier: GPL-2.0
/*
 * listbench - does a next-node prefetch pay on this CPU?
 *
 * Walks kernel-shaped lists and hash chains (see walkers.c) of working
 * sets from L1-sized to beyond the last-level cache, in address order and
 * shuffled, with three loop bodies, in five prefetch variants. Pinned to
 * one CPU; the variants are interleaved within every repetition (in a
 * rotating order) so that drift hits them all alike; each sample is long
 * enough for the clock. Reports ns per node as a median with a 95 %
 * confidence interval, and each prefetch variant's ratio to no prefetch
 * (paired per repetition) with its interval.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nodes.h"
#include "stats.h"
#include "walkers.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
#define MAX_REPS 64

enum structure { STRUCT_LIST, STRUCT_HLIST, NR_STRUCTURES };

struct cache_sizes {
	size_t l1d;
	size_t l2;
	size_t llc;
};

struct options {
	bool quick;
	const char *csv_path;
	unsigned int reps;	/* 0: by working-set size */
	int cpu;		/* -1: the last CPU we may run on */
};

/* One measured cell of the matrix: every variant, one configuration. */
struct cell {
	enum structure structure;
	enum node_layout layout;
	enum loop_body body;
	size_t bytes;
	size_t nodes;
	unsigned int reps;
	struct estimate ns[NR_PF_VARIANTS];
	struct estimate ratio[NR_PF_VARIANTS];
};

static const char *structure_name(enum structure s)
{
	return s == STRUCT_LIST ? "list" : "hlist";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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

/* Reads the data/unified cache sizes of CPU 0 from sysfs. */
static struct cache_sizes read_cache_sizes(void)
{
	struct cache_sizes sizes = { 32 * KIB, 512 * KIB, 8 * MIB };
	char level[16], type[32], size[32];
	int index;

	for (index = 0; index < 8; index++) {
		read_cache_attr(index, "level", level, sizeof(level));
		if (!level[0])
			break;
		read_cache_attr(index, "type", type, sizeof(type));
		read_cache_attr(index, "size", size, sizeof(size));
		if (!strcmp(type, "Instruction") || !size[0])
			continue;
		if (!strcmp(level, "1"))
			sizes.l1d = parse_cache_size(size);
		else if (!strcmp(level, "2"))
			sizes.l2 = parse_cache_size(size);
		else
			sizes.llc = parse_cache_size(size);
	}
	return sizes;
}

static void print_cpu_model(FILE *out)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			fprintf(out, "cpu: %s", strchr(line, ':') + 2);
			break;
		}
	}
	if (f)
		fclose(f);
}

static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		if (sched_getaffinity(0, sizeof(set), &set))
			return -1;
		for (cpu = CPU_SETSIZE - 1; cpu >= 0 && !CPU_ISSET(cpu, &set); cpu--)
			;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return cpu;
}

static uint64_t walk(const struct node_set *set, enum structure structure,
		     enum prefetch_variant variant, enum loop_body body)
{
	if (structure == STRUCT_LIST)
		return list_walker(variant, body)(&set->head);
	return hlist_walker(variant, body)(set->table, set->nr_buckets);
}

/* Nanoseconds for @passes walks; dies if a walk visits the wrong nodes. */
static double time_walks(const struct node_set *set, const struct cell *cell,
			 enum prefetch_variant variant, unsigned int passes,
			 uint64_t expected)
{
	uint64_t t0, t1, sum = 0;
	unsigned int pass;

	t0 = now_ns();
	for (pass = 0; pass < passes; pass++)
		sum += walk(set, cell->structure, variant, cell->body);
	t1 = now_ns();
	if (sum != expected * passes) {
		fprintf(stderr, "listbench: %s %s walk returned a wrong checksum\n",
			structure_name(cell->structure),
			prefetch_variant_name(variant));
		exit(1);
	}
	return (double)(t1 - t0);
}

static void measure_cell(const struct node_set *set, struct cell *cell,
			 uint64_t min_sample_ns)
{
	static double samples[NR_PF_VARIANTS][MAX_REPS];
	static double ratios[NR_PF_VARIANTS][MAX_REPS];
	uint64_t expected = walk(set, cell->structure, PF_NONE, cell->body);
	double one_walk_ns;
	unsigned int passes, rep, k;
	int v;

	/* Warm up every variant, and size a sample to min_sample_ns. */
	for (v = 0; v < NR_PF_VARIANTS; v++)
		time_walks(set, cell, v, 1, expected);
	one_walk_ns = time_walks(set, cell, PF_NONE, 1, expected);
	passes = one_walk_ns >= (double)min_sample_ns ? 1 :
		(unsigned int)((double)min_sample_ns / (one_walk_ns + 1.0)) + 1;

	for (rep = 0; rep < cell->reps; rep++) {
		for (k = 0; k < NR_PF_VARIANTS; k++) {
			v = (int)((rep + k) % NR_PF_VARIANTS);
			samples[v][rep] = time_walks(set, cell, v, passes, expected) /
				((double)passes * (double)(cell->nodes ? cell->nodes : 1));
		}
		for (v = 0; v < NR_PF_VARIANTS; v++)
			ratios[v][rep] = samples[v][rep] / samples[PF_NONE][rep];
	}
	for (v = 0; v < NR_PF_VARIANTS; v++) {
		cell->ns[v] = estimate_median(samples[v], cell->reps);
		cell->ratio[v] = estimate_median(ratios[v], cell->reps);
	}
}

static const char *verdict(const struct estimate *ratio)
{
	switch (estimate_compare(ratio, 1.0)) {
	case -1:
		return "faster";
	case 1:
		return "slower";
	default:
		return "no significant difference";
	}
}

static void print_size(FILE *out, size_t bytes)
{
	if (bytes >= MIB)
		fprintf(out, "%5zu MiB", bytes / MIB);
	else
		fprintf(out, "%5zu KiB", bytes / KIB);
}

static void print_table_header(FILE *out)
{
	int v;

	fprintf(out, "%-5s %-10s %-5s %9s %7s %-20s", "walk", "layout", "body",
		"set", "nodes", "none ns/node [95% CI]");
	for (v = PF_READ; v < NR_PF_VARIANTS; v++)
		fprintf(out, " %-23s", prefetch_variant_name(v));
	fprintf(out, "\n");
}

/* Ratios to no prefetch; '=' marks no significant difference. */
static void print_table_row(FILE *out, const struct cell *cell)
{
	char text[64];
	int v;

	fprintf(out, "%-5s %-10s %-5s ", structure_name(cell->structure),
		node_layout_name(cell->layout), loop_body_name(cell->body));
	print_size(out, cell->bytes);
	snprintf(text, sizeof(text), "%.2f [%.2f,%.2f]", cell->ns[PF_NONE].median,
		 cell->ns[PF_NONE].lo, cell->ns[PF_NONE].hi);
	fprintf(out, " %7zu %-20s", cell->nodes, text);
	for (v = PF_READ; v < NR_PF_VARIANTS; v++) {
		int cmp = estimate_compare(&cell->ratio[v], 1.0);

		snprintf(text, sizeof(text), "%.3f [%.3f,%.3f] %s",
			 cell->ratio[v].median, cell->ratio[v].lo, cell->ratio[v].hi,
			 cmp < 0 ? "-" : cmp > 0 ? "+" : "=");
		fprintf(out, " %-23s", text);
	}
	fprintf(out, "\n");
	fflush(out);
}

static void write_csv_header(FILE *csv)
{
	fprintf(csv, "structure,layout,body,bytes,nodes,reps,variant,"
		"ns_per_node,ns_lo,ns_hi,ratio,ratio_lo,ratio_hi,verdict\n");
}

static void write_csv_rows(FILE *csv, const struct cell *cell)
{
	int v;

	for (v = 0; v < NR_PF_VARIANTS; v++)
		fprintf(csv, "%s,%s,%s,%zu,%zu,%u,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n",
			structure_name(cell->structure),
			node_layout_name(cell->layout), loop_body_name(cell->body),
			cell->bytes, cell->nodes, cell->reps,
			prefetch_variant_name(v), cell->ns[v].median, cell->ns[v].lo,
			cell->ns[v].hi, cell->ratio[v].median, cell->ratio[v].lo,
			cell->ratio[v].hi, v == PF_NONE ? "baseline" : verdict(&cell->ratio[v]));
}

/* Working sets: 4 KiB up by 4x, ending at no less than 4x the LLC. */
static size_t working_sets(const struct options *opt,
			   const struct cache_sizes *caches, size_t *sets,
			   size_t max_sets)
{
	size_t n = 0, bytes;

	if (opt->quick) {
		sets[n++] = caches->l1d / 2;
		sets[n++] = caches->l2 * 2;
		sets[n++] = caches->llc / 2;
		return n;
	}
	for (bytes = 4 * KIB; bytes < 4 * caches->llc && n + 1 < max_sets; bytes *= 4)
		sets[n++] = bytes;
	sets[n++] = 4 * caches->llc;
	return n;
}

static unsigned int reps_for(const struct options *opt,
			     const struct cache_sizes *caches, size_t bytes)
{
	if (opt->reps)
		return opt->reps;
	if (opt->quick)
		return 7;
	return bytes > caches->llc ? 9 : 15;
}

/* How often each variant was faster/slower/no different, per region. */
struct verdict_tally {
	unsigned int faster[NR_PF_VARIANTS];
	unsigned int slower[NR_PF_VARIANTS];
	unsigned int same[NR_PF_VARIANTS];
};

static void tally(struct verdict_tally *t, const struct cell *cell)
{
	int v;

	for (v = PF_READ; v < NR_PF_VARIANTS; v++) {
		int cmp = estimate_compare(&cell->ratio[v], 1.0);

		if (cmp < 0)
			t->faster[v]++;
		else if (cmp > 0)
			t->slower[v]++;
		else
			t->same[v]++;
	}
}

static void print_tally(const char *title, const struct verdict_tally *t)
{
	int v;

	printf("%s\n", title);
	for (v = PF_READ; v < NR_PF_VARIANTS; v++)
		printf("  %-16s faster in %3u, slower in %3u, no significant difference in %3u cells\n",
		       prefetch_variant_name(v), t->faster[v], t->slower[v], t->same[v]);
}

static int run_matrix(const struct options *opt, const struct cache_sizes *caches,
		      FILE *csv)
{
	struct verdict_tally in_cache = { { 0 }, { 0 }, { 0 } };
	struct verdict_tally beyond_llc = { { 0 }, { 0 }, { 0 } };
	size_t sets[32], nr_sets, i;
	uint64_t min_sample_ns = opt->quick ? 500000 : 2000000;
	struct cell floor_cell = { 0 };
	struct node_set set;
	int layout, structure, body;

	nr_sets = working_sets(opt, caches, sets, 32);
	print_table_header(stdout);
	for (layout = 0; layout < NR_LAYOUTS; layout++) {
		for (i = 0; i < nr_sets; i++) {
			size_t nodes = sets[i] / sizeof(struct bench_node);

			if (node_set_init(&set, nodes, layout, 0x5eed + i)) {
				fprintf(stderr, "listbench: cannot allocate %zu nodes\n", nodes);
				return -1;
			}
			for (structure = 0; structure < NR_STRUCTURES; structure++) {
				for (body = 0; body < NR_BODIES; body++) {
					struct cell cell = {
						.structure = structure, .layout = layout,
						.body = body, .bytes = sets[i], .nodes = nodes,
						.reps = reps_for(opt, caches, sets[i]),
					};

					measure_cell(&set, &cell, min_sample_ns);
					print_table_row(stdout, &cell);
					tally(sets[i] > caches->llc ? &beyond_llc : &in_cache, &cell);
					if (csv)
						write_csv_rows(csv, &cell);
					if (structure == STRUCT_LIST && layout == LAYOUT_SHUFFLED &&
					    body == BODY_EMPTY)
						floor_cell = cell;
				}
			}
			node_set_free(&set);
		}
	}
	printf("\n");
	print_tally("working sets within the LLC:", &in_cache);
	print_tally("working sets beyond the LLC:", &beyond_llc);
	printf("\nrandom pointer chase at ");
	print_size(stdout, floor_cell.bytes);
	printf(" (%s the %zu MiB LLC): %.1f ns per node [%.1f, %.1f]%s\n",
	       floor_cell.bytes >= 4 * caches->llc ? ">= 4x" : "< 4x",
	       caches->llc / MIB, floor_cell.ns[PF_NONE].median,
	       floor_cell.ns[PF_NONE].lo, floor_cell.ns[PF_NONE].hi,
	       floor_cell.bytes >= 4 * caches->llc ? ": the memory-latency floor" : "");
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--quick] [--csv FILE] [--reps N] [--cpu N]\n"
		"  --quick     three working sets, 7 repetitions (for make check)\n"
		"  --csv FILE  write every cell and variant as CSV\n"
		"  --reps N    repetitions per cell (default 15, 9 beyond the LLC)\n"
		"  --cpu N     the CPU to pin to (default: the last allowed)\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "csv", required_argument, NULL, 'c' },
		{ "reps", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .quick = false, .csv_path = NULL, .reps = 0, .cpu = -1 };
	struct cache_sizes caches = read_cache_sizes();
	FILE *csv = NULL;
	int c, cpu, status;

	while ((c = getopt_long(argc, argv, "qc:r:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			opt.quick = true;
			break;
		case 'c':
			opt.csv_path = optarg;
			break;
		case 'r':
			opt.reps = (unsigned int)strtoul(optarg, NULL, 10);
			if (opt.reps < 1 || opt.reps > MAX_REPS) {
				fprintf(stderr, "listbench: --reps must be 1..%d\n", MAX_REPS);
				return 2;
			}
			break;
		case 'p':
			opt.cpu = atoi(optarg);
			break;
		default:
			usage(argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}

	cpu = pin_to_cpu(opt.cpu);
	if (cpu < 0) {
		fprintf(stderr, "listbench: cannot pin to a CPU: %s\n", strerror(errno));
		return 1;
	}
	print_cpu_model(stdout);
	printf("caches: L1d %zu KiB, L2 %zu KiB, LLC %zu MiB; pinned to CPU %d; %zu-byte nodes, "
	       "hash chains of %d\n", caches.l1d / KIB, caches.l2 / KIB, caches.llc / MIB,
	       cpu, sizeof(struct bench_node), HLIST_CHAIN_LEN);
	printf("ratios are variant/none per repetition, median [95%% CI]; "
	       "'-' faster, '+' slower, '=' no significant difference\n\n");

	if (opt.csv_path) {
		csv = fopen(opt.csv_path, "w");
		if (!csv) {
			fprintf(stderr, "listbench: %s: %s\n", opt.csv_path, strerror(errno));
			return 1;
		}
		write_csv_header(csv);
	}
	status = run_matrix(&opt, &caches, csv);
	if (csv && fclose(csv)) {
		fprintf(stderr, "listbench: %s: %s\n", opt.csv_path, strerror(errno));
		status = -1;
	}
	return status ? 1 : 0;
}
