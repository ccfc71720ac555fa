// SPDX-License-Identifier: GPL-2.0
/*
 * listbench - does a next-node prefetch pay on this CPU, and where?
 *
 * Two walks in the kernel's shape (walkers.c), each in five prefetch
 * variants, along the axes that decide whether a prefetch can pay:
 *
 *  - list walks (lists of up to 1024 nodes, in address order or
 *    shuffled) whose body does 0 to ~400 ns of serial work per node:
 *    the next-node prefetch can only hide a miss the body is long enough
 *    to cover, and only once the core's own window no longer reaches the
 *    next node;
 *  - hash lookups, each walking one NULL-terminated chain to the match
 *    or to its end, either dependent (the next key waits for a value
 *    read from the last node: a path walk) or independent (keys known in
 *    advance: the core may overlap several lookups' misses), at load
 *    factors 1, 2 and 4, with 0, 50 or 100 % of the keys present, the
 *    match anywhere in its chain or at its head.
 *
 * Working sets go from L1 to at least 1 GiB and 4x the last-level
 * cache; a pointer-chase latency sweep classifies each size as L1, L2,
 * LLC, DRAM or TLB-bound by what a load costs there.
 *
 * Each repetition times one short sample (~200 us) of every variant, in
 * a fresh random order, each on fresh random lists or keys; the variant's
 * ratio to no prefetch in that repetition is one paired observation. A
 * cell's ratio is the median of its paired ratios with a distribution-
 * free 95 % interval; repetitions go on until every interval is within
 * +-1 % or the cell's share of the time budget is spent. Verdicts come
 * from sign tests (difference, and equivalence within +-2 %), with the
 * false-discovery rate over this run's cells held at 5 %
 * (Benjamini-Hochberg). One run is one binary's code placement:
 * scripts/bench.sh runs several builds and scripts/lib/bench_runs.py decides
 * over all of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "latency.h"
#include "nodes.h"
#include "stats.h"
#include "walkers.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
#define GIB (MIB * KIB)
#define MAX_SETS 16
#define MAX_CELLS 1024
#define MIN_REPS 31
#define MAX_REPS 65536
#define TARGET_HALF_WIDTH 0.01	/* the precision target: +-1 % */
#define EQUIV_MARGIN 0.02	/* "equivalent": within +-2 % */
#define FDR 0.05
#define HEADLINE_WEIGHT 3

enum walk_kind { WALK_LIST, WALK_HASH_LOOKUP, NR_WALKS };

/* Which cells a run measures (see plan_cells()). */
enum grid { GRID_QUICK, GRID_DEFAULT, GRID_FULL };

struct cache_sizes {
	size_t l1d;
	size_t l2;
	size_t llc;
};

struct options {
	enum grid grid;
	const char *csv_path;
	const char *run_label;	/* the CSV's run column */
	double seconds;		/* measuring budget over all cells */
	int cpu;		/* -1: the last CPU we may run on */
};

struct variant_result {
	struct estimate ns;	/* per node (lists) or per lookup */
	struct estimate ratio;	/* to no prefetch, paired per repetition */
	double p_diff;		/* sign test: the ratio is 1 */
	double p_equiv;		/* sign tests: the ratio is outside 1 +- 2 % */
	const char *verdict;
};

/* One measured cell: every variant, one point of the grid. */
struct cell {
	enum walk_kind walk;
	enum node_layout layout;	/* lists */
	enum loop_body body;		/* lists */
	unsigned int work_ns;		/* lists: the body's work per node, nominal */
	unsigned int work_steps;	/* lists: body_work() steps for work_ns */
	enum lookup_dependence dependence;	/* lookups */
	unsigned int load;		/* lookups: nominal load factor */
	double hits;			/* lookups: share of present keys drawn */
	enum match_position position;	/* lookups */
	size_t bytes;
	enum regime regime;
	double latency_ns;		/* a dependent load at this size, 4 KiB pages */
	bool headline;
	size_t reps;
	double seconds;
	struct lookup_census census;	/* lookups: of one sample's keys */
	size_t census_lookups;
	struct variant_result v[NR_PF_VARIANTS];
};

/* The timed repetitions of one cell, one row per variant. */
struct samples {
	double *ns[NR_PF_VARIANTS];
	double *log_ratio[NR_PF_VARIANTS];
	double *scratch;
};

/* What a sample walks: the node set, and for lookups the cell's keys. */
struct workload {
	const struct node_set *set;
	struct key_draw draw;
	uint64_t *keys;		/* one sample's worth, redrawn per sample */
	size_t nr_keys;
};

static const char *walk_name(enum walk_kind walk)
{
	return walk == WALK_LIST ? "list" : "hash-lookup";
}

static const char *layout_label(const struct cell *cell)
{
	return cell->walk == WALK_LIST ? node_layout_name(cell->layout) : "hashed";
}

static const char *body_label(const struct cell *cell)
{
	return cell->walk == WALK_LIST ? loop_body_name(cell->body) : "compare";
}

static const char *lookups_label(const struct cell *cell)
{
	return cell->walk == WALK_LIST ? "-" : lookup_dependence_name(cell->dependence);
}

static const char *position_label(const struct cell *cell)
{
	return cell->walk == WALK_LIST ? "-" : match_position_name(cell->position);
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

/* The data/unified cache sizes of CPU 0 from sysfs: where to look. */
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

/* "model name", "cpu family", "model" and "stepping" of /proc/cpuinfo. */
static void print_cpu(FILE *out)
{
	static const char *const keys[] = { "model name", "cpu family", "model", "stepping" };
	char line[256], values[4][128] = { "?", "?", "?", "?" };
	FILE *f = fopen("/proc/cpuinfo", "r");
	struct utsname uts;
	size_t k;

	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strcmp(line, "\n"))
			break;
		if (!colon)
			continue;
		for (k = 0; k < 4; k++) {
			size_t len = strlen(keys[k]);

			/* "model" must not match "model name": only blanks to the colon. */
			if (!strncmp(line, keys[k], len) &&
			    strspn(line + len, " \t") == (size_t)(colon - line) - len) {
				snprintf(values[k], sizeof(values[k]), "%s", colon + 2);
				values[k][strcspn(values[k], "\n")] = '\0';
			}
		}
	}
	if (f)
		fclose(f);
	if (uname(&uts))
		strcpy(uts.release, "?");
	fprintf(out, "cpu: %s (family %s, model %s, stepping %s); kernel %s\n",
		values[0], values[1], values[2], values[3], uts.release);
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

/*
 * One sample: @units list walks (lists picked at random) or lookups of
 * the workload's keys. Returns the walks' combined result, so that the
 * caller can check that every variant did the same work.
 */
static struct lookup_result run_units(const struct workload *w, const struct cell *cell,
				      enum prefetch_variant variant, size_t units,
				      uint64_t seed)
{
	const struct node_set *set = w->set;
	list_walker_fn walker = list_walker(variant, cell->body);
	struct lookup_result r = { 0, 0, 0 };
	uint64_t state = seed | 1;
	size_t i;

	if (cell->walk == WALK_HASH_LOOKUP)
		return lookup_walker(variant, cell->dependence)(&set->table, w->keys, units);

	for (i = 0; i < units; i++) {
		size_t list;

		state = next_key_state(state ^ (r.checksum & 1));
		if (!state)
			state = 1;
		/* The next list depends on the last walk, as a dependent lookup does. */
		list = (size_t)key_from_state(state, set->nr_lists);
		r.checksum = r.checksum * 31 + walker(&set->heads[list], cell->work_steps);
		r.nodes_visited += list == set->nr_lists - 1 ?
			set->nr_nodes - list * set->list_len : set->list_len;
	}
	return r;
}

/* Fresh keys for the next sample (untimed): lines of the last are cached. */
static void draw_keys(struct workload *w, const struct cell *cell, size_t units,
		      uint64_t seed)
{
	if (cell->walk == WALK_HASH_LOOKUP)
		node_set_draw_keys(w->set, &w->draw, w->keys,
				   units < w->nr_keys ? units : w->nr_keys, seed);
}

/* ns per node (lists) or per lookup of one timed sample. */
static double time_sample(struct workload *w, const struct cell *cell,
			  enum prefetch_variant variant, size_t units, uint64_t seed)
{
	volatile uint64_t sink;
	struct lookup_result r;
	uint64_t t0;

	draw_keys(w, cell, units, seed);
	t0 = now_ns();
	r = run_units(w, cell, variant, units, seed);
	sink = r.checksum;
	(void)sink;
	return (double)(now_ns() - t0) /
		(double)(cell->walk == WALK_LIST ? (r.nodes_visited ? r.nodes_visited : 1) :
			 units);
}

/*
 * Every variant, on the same seed, must do exactly what a plain walk
 * does: same lists, same nodes, same lookups found. A variant that did
 * not would be timing other work. Lookups are checked against the
 * census, which also counts what the prefetches fetched.
 */
static void check_variants_agree(struct workload *w, struct cell *cell, size_t units)
{
	size_t census_lookups = units > 4096 ? units : 4096;
	struct lookup_result want;
	int v;

	if (cell->walk == WALK_HASH_LOOKUP) {
		/* The counts from 4096 lookups at least; the check on the sample's. */
		census_lookups = census_lookups < w->nr_keys ? census_lookups : w->nr_keys;
		draw_keys(w, cell, census_lookups, 0x5eed);
		cell->census = lookup_census(&w->set->table, w->keys, census_lookups);
		cell->census_lookups = census_lookups;
		want = lookup_census(&w->set->table, w->keys, units).result;
	} else {
		want = run_units(w, cell, PF_NONE, units, 0x5eed);
	}
	for (v = PF_NONE; v < NR_PF_VARIANTS; v++) {
		struct lookup_result got = run_units(w, cell, v, units, 0x5eed);

		if (got.checksum != want.checksum || got.hits != want.hits ||
		    got.nodes_visited != want.nodes_visited) {
			fprintf(stderr, "listbench: %s %s %s: variant %s did other work than a plain walk\n",
				walk_name(cell->walk), body_label(cell), lookups_label(cell),
				prefetch_variant_name(v));
			exit(1);
		}
	}
}

/*
 * Units per sample so that one takes about @sample_ns. Twice: the first
 * pass also warms what the cell touches first (the TLB, a table just
 * built), which would make a first, cold measurement too short.
 */
static size_t calibrate(struct workload *w, const struct cell *cell, uint64_t sample_ns)
{
	size_t units = 1, cap = cell->walk == WALK_HASH_LOOKUP ? w->nr_keys : (size_t)1 << 30;
	uint64_t t0, spent = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		units = pass ? units / 4 + 1 : 1;
		for (;;) {
			draw_keys(w, cell, units, 0xca11b + pass);
			t0 = now_ns();
			run_units(w, cell, PF_NONE, units, 0xca11b + pass);
			spent = now_ns() - t0;
			if (spent >= sample_ns / 4 || units >= cap)
				break;
			units = 2 * units < cap ? 2 * units : cap;
		}
		units = (size_t)((double)units * (double)sample_ns /
				 (double)(spent ? spent : 1)) + 1;
		units = units < cap ? units : cap;
	}
	return units;
}

static void estimate_variants(struct cell *cell, struct samples *s)
{
	int v;

	for (v = 0; v < NR_PF_VARIANTS; v++) {
		struct variant_result *r = &cell->v[v];
		struct estimate lr;

		memcpy(s->scratch, s->ns[v], cell->reps * sizeof(double));
		r->ns = estimate_median(s->scratch, cell->reps);
		memcpy(s->scratch, s->log_ratio[v], cell->reps * sizeof(double));
		lr = estimate_median(s->scratch, cell->reps);
		r->ratio = (struct estimate){ exp(lr.median), exp(lr.lo), exp(lr.hi) };
		r->p_diff = v == PF_NONE ? 1.0 :
			sign_test_p(s->log_ratio[v], cell->reps, 0.0);
		r->p_equiv = v == PF_NONE ? 0.0 :
			equivalence_p(s->log_ratio[v], cell->reps,
				      log(1.0 - EQUIV_MARGIN), log(1.0 + EQUIV_MARGIN));
	}
}

static double half_width(const struct estimate *e)
{
	double up = e->hi - e->median, down = e->median - e->lo;

	return up > down ? up : down;
}

static bool precise(const struct cell *cell)
{
	int v;

	for (v = PF_READ; v < NR_PF_VARIANTS; v++)
		if (half_width(&cell->v[v].ratio) > TARGET_HALF_WIDTH)
			return false;
	return true;
}

static void random_order(int *order, uint64_t *state)
{
	int i, j, tmp;

	for (i = 0; i < NR_PF_VARIANTS; i++)
		order[i] = i;
	for (i = NR_PF_VARIANTS; i > 1; i--) {
		*state = next_key_state(*state);
		j = (int)(*state % (uint64_t)i);
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

static int measure_cell(struct workload *w, struct cell *cell,
			uint64_t sample_ns, double budget_s)
{
	struct samples s;
	uint64_t state = 0x9e3779b97f4a7c15ull ^ cell->bytes ^ ((uint64_t)cell->walk << 40) ^
		((uint64_t)cell->body << 44) ^ ((uint64_t)cell->layout << 48) ^
		((uint64_t)cell->work_ns << 20) ^ ((uint64_t)cell->dependence << 52) ^
		((uint64_t)cell->load << 54) ^ ((uint64_t)(cell->hits * 4) << 58) ^
		((uint64_t)cell->position << 62);
	uint64_t start = now_ns(), deadline = start + (uint64_t)(budget_s * 1e9);
	size_t units, next_check = MIN_REPS;
	int v, order[NR_PF_VARIANTS];

	for (v = 0; v < NR_PF_VARIANTS; v++) {
		s.ns[v] = malloc(MAX_REPS * sizeof(double));
		s.log_ratio[v] = malloc(MAX_REPS * sizeof(double));
		if (!s.ns[v] || !s.log_ratio[v])
			return -1;
	}
	s.scratch = malloc(MAX_REPS * sizeof(double));
	if (!s.scratch)
		return -1;

	units = calibrate(w, cell, sample_ns);
	check_variants_agree(w, cell, units);
	cell->reps = 0;
	while (cell->reps < MAX_REPS) {
		double t[NR_PF_VARIANTS];

		random_order(order, &state);
		for (v = 0; v < NR_PF_VARIANTS; v++) {
			state = next_key_state(state);
			t[order[v]] = time_sample(w, cell, order[v], units, state);
		}
		for (v = 0; v < NR_PF_VARIANTS; v++) {
			s.ns[v][cell->reps] = t[v];
			s.log_ratio[v][cell->reps] = log(t[v] / t[PF_NONE]);
		}
		cell->reps++;
		if (cell->reps < next_check)
			continue;
		/* Sorting costs: look again after a quarter more repetitions. */
		next_check = cell->reps + (cell->reps / 4 > 16 ? cell->reps / 4 : 16);
		estimate_variants(cell, &s);
		if (precise(cell) || now_ns() >= deadline)
			break;
	}
	estimate_variants(cell, &s);
	cell->seconds = (double)(now_ns() - start) / 1e9;
	for (v = 0; v < NR_PF_VARIANTS; v++) {
		free(s.ns[v]);
		free(s.log_ratio[v]);
	}
	free(s.scratch);
	return 0;
}

static void format_size(char *buf, size_t len, size_t bytes)
{
	if (bytes >= GIB && bytes % GIB == 0)
		snprintf(buf, len, "%zu GiB", bytes / GIB);
	else if (bytes >= MIB)
		snprintf(buf, len, "%zu MiB", bytes / MIB);
	else
		snprintf(buf, len, "%zu KiB", bytes / KIB);
}

static char verdict_symbol(const char *verdict)
{
	if (!strcmp(verdict, "faster"))
		return '-';
	if (!strcmp(verdict, "slower"))
		return '+';
	if (!strcmp(verdict, "equivalent"))
		return '~';
	return '?';
}

/*
 * This run's verdicts, over every (cell, variant) at once: a difference
 * and an equivalence test each, with Benjamini-Hochberg holding the
 * expected share of false discoveries at FDR in each family.
 */
struct verdict_counts {
	size_t tests;
	size_t differences;	/* rejections of "ratio = 1" */
	size_t equivalences;	/* rejections of "outside +-2 %" */
	size_t faster, slower, equivalent, undecided;
};

static struct verdict_counts decide(struct cell *cells, size_t nr_cells)
{
	struct verdict_counts c = { 0 };
	size_t m = nr_cells * (NR_PF_VARIANTS - 1), i, k = 0;
	double *p_diff = malloc(m * sizeof(double)), *p_equiv = malloc(m * sizeof(double));
	bool *diff = malloc(m * sizeof(bool)), *equiv = malloc(m * sizeof(bool));
	int v;

	if (!p_diff || !p_equiv || !diff || !equiv)
		abort();
	for (i = 0; i < nr_cells; i++) {
		for (v = PF_READ; v < NR_PF_VARIANTS; v++, k++) {
			p_diff[k] = cells[i].v[v].p_diff;
			p_equiv[k] = cells[i].v[v].p_equiv;
		}
	}
	c.tests = m;
	c.differences = benjamini_hochberg(p_diff, m, FDR, diff);
	c.equivalences = benjamini_hochberg(p_equiv, m, FDR, equiv);
	for (i = 0, k = 0; i < nr_cells; i++) {
		cells[i].v[PF_NONE].verdict = "baseline";
		for (v = PF_READ; v < NR_PF_VARIANTS; v++, k++) {
			struct variant_result *r = &cells[i].v[v];

			if (equiv[k]) {
				r->verdict = "equivalent";
				c.equivalent++;
			} else if (diff[k]) {
				r->verdict = r->ratio.median < 1.0 ? "faster" : "slower";
				if (r->ratio.median < 1.0)
					c.faster++;
				else
					c.slower++;
			} else {
				r->verdict = "undecided";
				c.undecided++;
			}
		}
	}
	free(p_diff);
	free(p_equiv);
	free(diff);
	free(equiv);
	return c;
}

static double per_lookup(const struct cell *cell, size_t count)
{
	return cell->census_lookups ? (double)count / (double)cell->census_lookups : 0.0;
}

/*
 * How many misses of a lookup run at once: one per chain node visited
 * plus the bucket head, each costing a dependent load's latency at this
 * size, over the time a lookup takes. About 1 (or less, where lines are
 * cached): one miss after the other; well above 1: lookups overlap.
 */
static double overlap_factor(const struct cell *cell)
{
	double misses = per_lookup(cell, cell->census.result.nodes_visited) + 1.0;
	double ns = cell->v[PF_NONE].ns.median;

	return cell->walk == WALK_HASH_LOOKUP && ns > 0 ? misses * cell->latency_ns / ns : 0.0;
}

/* The cell's axes in a few words, as the tables print them. */
static void format_shape(char *buf, size_t len, const struct cell *cell)
{
	if (cell->walk == WALK_LIST)
		snprintf(buf, len, "%s %s work %u", node_layout_name(cell->layout),
			 loop_body_name(cell->body), cell->work_ns);
	else
		snprintf(buf, len, "%s load %u hits %.0f%% %s",
			 lookup_dependence_name(cell->dependence), cell->load,
			 100 * cell->hits, match_position_name(cell->position));
}

static void print_table(const struct cell *cells, size_t nr_cells)
{
	char size[32], shape[64], text[80];
	size_t i;
	int v;

	printf("%-11s %-36s %8s %-4s %5s %-22s", "walk", "shape", "set", "reg", "reps",
	       "none ns [95% CI]");
	for (v = PF_READ; v < NR_PF_VARIANTS; v++)
		printf(" %-23s", prefetch_variant_name(v));
	printf("\n");
	for (i = 0; i < nr_cells; i++) {
		const struct cell *cell = &cells[i];

		format_size(size, sizeof(size), cell->bytes);
		format_shape(shape, sizeof(shape), cell);
		printf("%-11s %-36s %8s %-4s %5zu ", walk_name(cell->walk), shape, size,
		       regime_name(cell->regime), cell->reps);
		snprintf(text, sizeof(text), "%.2f [%.2f,%.2f]", cell->v[PF_NONE].ns.median,
			 cell->v[PF_NONE].ns.lo, cell->v[PF_NONE].ns.hi);
		printf("%-22s", text);
		for (v = PF_READ; v < NR_PF_VARIANTS; v++) {
			const struct variant_result *r = &cell->v[v];

			snprintf(text, sizeof(text), "%.3f [%.3f,%.3f] %c", r->ratio.median,
				 r->ratio.lo, r->ratio.hi, verdict_symbol(r->verdict));
			printf(" %-23s", text);
		}
		printf("\n");
	}
}

/* What each lookup cell asked of the prefetches, and its regime. */
static void print_lookup_shapes(const struct cell *cells, size_t nr_cells)
{
	char size[32], shape[64];
	size_t i;

	printf("%-36s %8s %-4s %8s %8s %8s %8s %8s\n", "hash lookups", "set", "reg",
	       "hits", "nodes", "unused", "NULL", "overlap");
	for (i = 0; i < nr_cells; i++) {
		const struct cell *cell = &cells[i];

		if (cell->walk != WALK_HASH_LOOKUP)
			continue;
		format_size(size, sizeof(size), cell->bytes);
		format_shape(shape, sizeof(shape), cell);
		printf("%-36s %8s %-4s %8.3f %8.3f %8.3f %8.3f %8.2f\n", shape, size,
		       regime_name(cell->regime),
		       per_lookup(cell, cell->census.result.hits),
		       per_lookup(cell, cell->census.result.nodes_visited),
		       per_lookup(cell, cell->census.unused_prefetches),
		       per_lookup(cell, cell->census.null_prefetches), overlap_factor(cell));
	}
	printf("(per lookup: hits, chain nodes visited, prefetches of real nodes never used,\n"
	       " prefetches of NULL; overlap: (nodes + 1 bucket) x chase latency / ns per lookup)\n");
}

static void write_csv(FILE *csv, const struct options *opt, const struct cell *cells,
		      size_t nr_cells)
{
	size_t i;
	int v;

	fprintf(csv, "run,walk,layout,body,work,work_steps,lookups,load,hits,position,bytes,"
		"regime,latency_ns,headline,variant,reps,ns,ns_low,ns_high,ratio,ci_low,ci_high,"
		"p_diff,p_equiv,verdict,hit_ratio,nodes_per_lookup,unused_prefetches,"
		"null_prefetches,overlap\n");
	for (i = 0; i < nr_cells; i++) {
		const struct cell *cell = &cells[i];

		for (v = 0; v < NR_PF_VARIANTS; v++) {
			const struct variant_result *r = &cell->v[v];

			fprintf(csv, "%s,%s,%s,%s,%u,%u,%s,%u,%.2f,%s,%zu,%s,%.2f,%d,%s,%zu,"
				"%.4f,%.4f,%.4f,%.5f,%.5f,%.5f,%.3g,%.3g,%s,%.4f,%.4f,%.4f,%.4f,%.3f\n",
				opt->run_label, walk_name(cell->walk), layout_label(cell),
				body_label(cell), cell->walk == WALK_LIST ? cell->work_ns : 0,
				cell->work_steps, lookups_label(cell),
				cell->walk == WALK_LIST ? 0 : cell->load,
				cell->walk == WALK_LIST ? 0.0 : cell->hits, position_label(cell),
				cell->bytes, regime_name(cell->regime), cell->latency_ns,
				cell->headline, prefetch_variant_name(v), cell->reps,
				r->ns.median, r->ns.lo, r->ns.hi, r->ratio.median, r->ratio.lo,
				r->ratio.hi, r->p_diff, r->p_equiv, r->verdict,
				per_lookup(cell, cell->census.result.hits),
				per_lookup(cell, cell->census.result.nodes_visited),
				per_lookup(cell, cell->census.unused_prefetches),
				per_lookup(cell, cell->census.null_prefetches),
				overlap_factor(cell));
		}
	}
}

static void print_latency(const struct latency_point *points, size_t n, double l2_ns,
			  const struct cache_sizes *caches)
{
	char size[32];
	size_t i;

	printf("regimes by measurement: a random pointer chase, ns per load in 4 KiB / 2 MiB pages%s;\n"
	       "L2 plateau (a chase over half the %zu KiB L2) %.1f ns\n",
	       huge_pages_available() ? "" : " (no huge pages here: TLB not told apart)",
	       caches->l2 / KIB, l2_ns);
	for (i = 0; i < n; i++) {
		format_size(size, sizeof(size), points[i].bytes);
		if (points[i].ns_huge > 0)
			printf("  %8s %7.1f / %-7.1f %s\n", size, points[i].ns_small,
			       points[i].ns_huge, regime_name(points[i].regime));
		else
			printf("  %8s %7.1f / -       %s (2 MiB pages not granted: TLB not told apart)\n",
			       size, points[i].ns_small, regime_name(points[i].regime));
	}
}

/*
 * Working sets. quick: three sizes from L1 to DRAM. default: L1, L2,
 * half the LLC, DRAM and the largest (1 GiB or 4x the LLC), each axis
 * swept at half the LLC and at the largest. full: 4 KiB up by 4x to the
 * largest, every axis swept at every size.
 */
static size_t working_sets(const struct options *opt, const struct cache_sizes *caches,
			   size_t *sets, bool *sweep)
{
	size_t n = 0, bytes, last = 4 * caches->llc > GIB ? 4 * caches->llc : GIB, i;
	size_t half_llc = caches->llc / 2 > MIB ? caches->llc / 2 : MIB;
	size_t dram = 4 * caches->llc > 64 * MIB ? 4 * caches->llc : 64 * MIB;

	switch (opt->grid) {
	case GRID_QUICK:
		sets[n] = 16 * KIB, sweep[n++] = false;
		sets[n] = 1 * MIB, sweep[n++] = false;
		sets[n] = 64 * MIB, sweep[n++] = true;
		return n;
	case GRID_DEFAULT:
		sets[n] = 16 * KIB, sweep[n++] = false;
		sets[n] = 256 * KIB, sweep[n++] = false;
		sets[n] = half_llc, sweep[n++] = true;
		if (dram < last)
			sets[n] = dram, sweep[n++] = false;
		sets[n] = last, sweep[n++] = true;
		return n;
	case GRID_FULL:
		for (bytes = 4 * KIB; bytes < last && n + 1 < MAX_SETS; bytes *= 4)
			sets[n++] = bytes;
		sets[n++] = bytes;
		for (i = 0; i < n; i++)
			sweep[i] = true;
		return n;
	}
	return 0;
}

static const unsigned int all_works[] = { 0, 20, 100, 400 };
static const unsigned int quick_works[] = { 0, 400 };

static size_t add_list_cells(const struct options *opt, struct cell *cells, size_t n,
			     const struct cell *at, double ns_per_step)
{
	const unsigned int *works = opt->grid == GRID_QUICK ? quick_works : all_works;
	size_t nr_works = opt->grid == GRID_QUICK ? 2 : 4, k;
	int layout;

	for (layout = 0; layout < NR_LAYOUTS; layout++) {
		if (layout == LAYOUT_SEQUENTIAL && opt->grid != GRID_FULL)
			continue;
		if (opt->grid == GRID_FULL) {
			cells[n] = *at;
			cells[n].walk = WALK_LIST;
			cells[n].layout = layout;
			cells[n++].body = BODY_EMPTY;
		}
		for (k = 0; k < nr_works; k++) {
			cells[n] = *at;
			cells[n].walk = WALK_LIST;
			cells[n].layout = layout;
			cells[n].body = BODY_TOUCH;
			cells[n].work_ns = works[k];
			cells[n++].work_steps = (unsigned int)lround(works[k] / ns_per_step);
		}
	}
	return n;
}

static size_t add_lookup_cell(struct cell *cells, size_t n, const struct cell *at,
			      enum lookup_dependence dependence, unsigned int load,
			      double hits, enum match_position position)
{
	cells[n] = *at;
	cells[n].walk = WALK_HASH_LOOKUP;
	cells[n].layout = LAYOUT_SHUFFLED;
	cells[n].dependence = dependence;
	cells[n].load = load;
	cells[n].hits = hits;
	cells[n].position = position;
	return n + 1;
}

/* The base shape, and where the size is swept: one axis at a time (or all). */
static size_t add_lookup_cells(const struct options *opt, struct cell *cells, size_t n,
			       const struct cell *at, bool sweep)
{
	static const unsigned int loads[] = { 1, 2, 4 };
	static const double hit_shares[] = { 0.0, 0.5, 1.0 };
	size_t l, h;
	int d;

	for (d = 0; d < NR_DEPENDENCES; d++) {
		n = add_lookup_cell(cells, n, at, d, 1, 0.5, MATCH_UNIFORM);
		if (!sweep)
			continue;
		if (opt->grid != GRID_FULL) {
			n = add_lookup_cell(cells, n, at, d, 2, 0.5, MATCH_UNIFORM);
			n = add_lookup_cell(cells, n, at, d, 4, 0.5, MATCH_UNIFORM);
			n = add_lookup_cell(cells, n, at, d, 1, 0.0, MATCH_UNIFORM);
			n = add_lookup_cell(cells, n, at, d, 1, 1.0, MATCH_UNIFORM);
			n = add_lookup_cell(cells, n, at, d, 1, 0.5, MATCH_HEAD);
			continue;
		}
		for (l = 0; l < 3; l++) {
			for (h = 0; h < 3; h++) {
				if (l || h != 1)
					n = add_lookup_cell(cells, n, at, d, loads[l],
							    hit_shares[h], MATCH_UNIFORM);
				if (hit_shares[h] > 0)
					n = add_lookup_cell(cells, n, at, d, loads[l],
							    hit_shares[h], MATCH_HEAD);
			}
		}
	}
	return n;
}

/* Whether two cells differ only in their working set. */
static bool same_shape(const struct cell *a, const struct cell *b)
{
	if (a->walk != b->walk)
		return false;
	if (a->walk == WALK_LIST)
		return a->layout == b->layout && a->body == b->body && a->work_ns == b->work_ns;
	return a->dependence == b->dependence && a->load == b->load &&
	       a->hits == b->hits && a->position == b->position;
}

/* The shapes the headline shows: shuffled lists with a body, base lookups. */
static bool headline_shape(const struct cell *cell)
{
	if (cell->walk == WALK_LIST)
		return cell->layout == LAYOUT_SHUFFLED && cell->body == BODY_TOUCH;
	return cell->load == 1 && cell->hits == 0.5 && cell->position == MATCH_UNIFORM;
}

/* The cells of the grid, in the order they are measured. */
static size_t plan_cells(const struct options *opt, const size_t *sets, const bool *sweep,
			 size_t nr_sets, const struct latency_point *points,
			 double ns_per_step, struct cell *cells)
{
	size_t n = 0, i, j;

	for (i = 0; i < nr_sets; i++) {
		struct cell at = { .bytes = sets[i], .regime = points[i].regime,
				   .latency_ns = points[i].ns_small, .load = 1 };

		n = add_list_cells(opt, cells, n, &at, ns_per_step);
		n = add_lookup_cells(opt, cells, n, &at, sweep[i]);
	}
	/* Headline: per shape and regime, the largest set of the regime. */
	for (i = 0; i < n; i++) {
		bool largest = headline_shape(&cells[i]);

		for (j = i + 1; j < n && largest; j++)
			if (same_shape(&cells[i], &cells[j]) && cells[j].regime == cells[i].regime)
				largest = false;
		cells[i].headline = largest;
	}
	return n;
}

/* ns per body_work() step: the fastest of a few timed runs. */
static double calibrate_work(void)
{
	const unsigned int steps = 1u << 22;
	double best = -1.0;
	uint64_t x = 1;
	int trial;

	for (trial = 0; trial < 5; trial++) {
		uint64_t t0 = now_ns();
		double ns;

		x = body_work_steps(x, steps);
		ns = (double)(now_ns() - t0) / steps;
		if (best < 0 || ns < best)
			best = ns;
	}
	return x ? best : best;	/* x kept: the work must not be optimised away */
}

/* Builds the node set and table a cell needs, unless it has them. */
static int prepare(struct node_set *set, struct workload *w, const struct cell *cell,
		   size_t **heads)
{
	size_t nr_heads = 0;

	free(*heads);
	*heads = NULL;
	if (cell->bytes != set->bytes || cell->layout != set->layout || !set->nodes) {
		node_set_free(set);
		if (node_set_init(set, cell->bytes / sizeof(struct bench_node), cell->layout,
				  0x5eed + cell->bytes))
			return -1;
	}
	if (cell->walk != WALK_HASH_LOOKUP)
		return 0;
	if (node_set_rehash(set, cell->load))
		return -1;
	if (cell->position == MATCH_HEAD) {
		*heads = node_set_chain_heads(set, &nr_heads);
		if (!*heads)
			return -1;
	}
	w->draw = (struct key_draw){ .hits = cell->hits, .heads = *heads, .nr_heads = nr_heads };
	return 0;
}

#define KEYS_PER_SAMPLE_MAX ((size_t)1 << 18)

static int measure_all(const struct options *opt, struct cell *cells, size_t nr_cells)
{
	uint64_t sample_ns = opt->grid == GRID_QUICK ? 100000 : 200000;
	double budget_left = opt->seconds;
	struct node_set set = { 0 };
	struct workload w = { .set = &set, .nr_keys = KEYS_PER_SAMPLE_MAX };
	size_t i, weight_left = 0, *heads = NULL;
	char size[32], shape[64];
	int status = 0;

	w.keys = malloc(w.nr_keys * sizeof(*w.keys));
	if (!w.keys)
		return -1;
	for (i = 0; i < nr_cells; i++)
		weight_left += cells[i].headline ? HEADLINE_WEIGHT : 1;
	for (i = 0; i < nr_cells && !status; i++) {
		struct cell *cell = &cells[i];
		size_t weight = cell->headline ? HEADLINE_WEIGHT : 1;
		double budget = budget_left * (double)weight / (double)weight_left, spent;
		uint64_t t0 = now_ns();

		format_size(size, sizeof(size), cell->bytes);
		if (prepare(&set, &w, cell, &heads) || measure_cell(&w, cell, sample_ns, budget)) {
			fprintf(stderr, "listbench: cannot allocate the nodes and keys of %s\n", size);
			status = -1;
			break;
		}
		spent = (double)(now_ns() - t0) / 1e9;
		budget_left = budget_left > spent ? budget_left - spent : 0;
		weight_left -= weight;
		format_shape(shape, sizeof(shape), cell);
		fprintf(stderr, "listbench: [%zu/%zu] %s %s %s (%s%s): %zu reps in %.1f s, %s\n",
			i + 1, nr_cells, walk_name(cell->walk), shape, size,
			regime_name(cell->regime), cell->headline ? ", headline" : "",
			cell->reps, cell->seconds,
			precise(cell) ? "every CI within +-1%" : "budget spent");
	}
	free(heads);
	free(w.keys);
	node_set_free(&set);
	return status;
}

static int run(const struct options *opt, const struct cache_sizes *caches, FILE *csv)
{
	static struct cell cells[MAX_CELLS];
	struct latency_point points[MAX_SETS];
	size_t sets[MAX_SETS], nr_sets, nr_cells, i;
	bool sweep[MAX_SETS];
	struct verdict_counts counts;
	double l2_ns, ns_per_step;

	nr_sets = working_sets(opt, caches, sets, sweep);
	for (i = 0; i < nr_sets; i++)
		points[i].bytes = sets[i];
	fprintf(stderr, "listbench: latency sweep over %zu sizes\n", nr_sets);
	l2_ns = latency_sweep(points, nr_sets, caches->l2, caches->llc, true);
	if (l2_ns < 0) {
		fprintf(stderr, "listbench: the latency sweep could not map its memory\n");
		return -1;
	}
	print_latency(points, nr_sets, l2_ns, caches);
	ns_per_step = calibrate_work();
	printf("body work: %.3f ns per step (a dependent multiply-add); work 20/100/400 ns = "
	       "%ld/%ld/%ld steps\n", ns_per_step, lround(20 / ns_per_step),
	       lround(100 / ns_per_step), lround(400 / ns_per_step));
	nr_cells = plan_cells(opt, sets, sweep, nr_sets, points, ns_per_step, cells);
	if (measure_all(opt, cells, nr_cells))
		return -1;

	counts = decide(cells, nr_cells);
	printf("\nthis run's verdicts over %zu cells x %d variants = %zu: faster %zu, slower %zu, "
	       "equivalent (within +-%.0f%%) %zu, undecided %zu\n", nr_cells,
	       NR_PF_VARIANTS - 1, counts.tests, counts.faster, counts.slower,
	       EQUIV_MARGIN * 100, counts.equivalent, counts.undecided);
	printf("false-discovery rate held at %.0f%% over this run (Benjamini-Hochberg, sign tests): "
	       "%zu differences, %zu equivalences\n", FDR * 100, counts.differences,
	       counts.equivalences);
	printf("\nALL CELLS: ratio [95%% CI] to no prefetch; '-' faster, '+' slower, "
	       "'~' equivalent within +-%.0f%%, '?' undecided\n", EQUIV_MARGIN * 100);
	print_table(cells, nr_cells);
	printf("\n");
	print_lookup_shapes(cells, nr_cells);
	if (csv)
		write_csv(csv, opt, cells, nr_cells);
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--grid quick|default|full] [--quick] [--csv FILE] [--run LABEL]\n"
		"          [--seconds N] [--cpu N]\n"
		"  --grid G     the cells to measure (default: default; --quick: quick)\n"
		"  --csv FILE   write every cell and variant as CSV\n"
		"  --run LABEL  the CSV's run column (default 1)\n"
		"  --seconds N  the time budget of all measurements (quick 10, default 140,\n"
		"               full 1200)\n"
		"  --cpu N      the CPU to pin to (default: the last allowed)\n",
		prog);
}

static int parse_grid(const char *name, enum grid *grid)
{
	if (!strcmp(name, "quick"))
		*grid = GRID_QUICK;
	else if (!strcmp(name, "default"))
		*grid = GRID_DEFAULT;
	else if (!strcmp(name, "full"))
		*grid = GRID_FULL;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "grid", required_argument, NULL, 'g' },
		{ "quick", no_argument, NULL, 'q' },
		{ "csv", required_argument, NULL, 'c' },
		{ "run", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "cpu", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const double default_seconds[] = {
		[GRID_QUICK] = 10, [GRID_DEFAULT] = 140, [GRID_FULL] = 1200,
	};
	static const char *const grid_names[] = {
		[GRID_QUICK] = "quick", [GRID_DEFAULT] = "default", [GRID_FULL] = "full",
	};
	struct options opt = { .grid = GRID_DEFAULT, .csv_path = NULL, .run_label = "1",
			       .seconds = -1, .cpu = -1 };
	struct cache_sizes caches = read_cache_sizes();
	FILE *csv = NULL;
	int c, cpu, status;

	while ((c = getopt_long(argc, argv, "g:qc:r:s:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (parse_grid(optarg, &opt.grid)) {
				fprintf(stderr, "listbench: --grid: quick, default or full\n");
				return 2;
			}
			break;
		case 'q':
			opt.grid = GRID_QUICK;
			break;
		case 'c':
			opt.csv_path = optarg;
			break;
		case 'r':
			opt.run_label = optarg;
			break;
		case 's':
			opt.seconds = strtod(optarg, NULL);
			if (opt.seconds <= 0) {
				fprintf(stderr, "listbench: --seconds must be positive\n");
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
	if (opt.seconds < 0)
		opt.seconds = default_seconds[opt.grid];

	cpu = pin_to_cpu(opt.cpu);
	if (cpu < 0) {
		fprintf(stderr, "listbench: cannot pin to a CPU: %s\n", strerror(errno));
		return 1;
	}
	print_cpu(stdout);
	printf("caches (sysfs): L1d %zu KiB, L2 %zu KiB, LLC %zu MiB; pinned to CPU %d; "
	       "%zu-byte nodes in 4 KiB pages; grid %s; %.0f s budget; run %s\n",
	       caches.l1d / KIB, caches.l2 / KIB, caches.llc / MIB, cpu,
	       sizeof(struct bench_node), grid_names[opt.grid], opt.seconds, opt.run_label);

	if (opt.csv_path) {
		csv = fopen(opt.csv_path, "w");
		if (!csv) {
			fprintf(stderr, "listbench: %s: %s\n", opt.csv_path, strerror(errno));
			return 1;
		}
	}
	status = run(&opt, &caches, csv);
	if (csv && fclose(csv)) {
		fprintf(stderr, "listbench: %s: %s\n", opt.csv_path, strerror(errno));
		status = -1;
	}
	return status ? 1 : 0;
}
