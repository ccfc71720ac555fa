// SPDX-License-Identifier: GPL-2.0
/*
 * listbench - does a next-node prefetch pay on this CPU, and where?
 *
 * Two walks in the kernel's shape (walker_gen.h), each in six prefetch
 * forms and an A/A control, along the axes that decide whether a
 * prefetch can pay:
 *
 *  - list walks whose body does 0 to ~400 ns of serial work per node, on
 *    nodes shaped as a cache line, a dentry or an sk_buff, linked in
 *    allocation order or shuffled, in lists of 8, 64 or 1024 nodes each
 *    walked from its head, in 4 KiB or 2 MiB pages;
 *  - hash lookups, each walking one NULL-terminated chain to the match
 *    or to its end, dependent (a path walk) or independent (keys known in
 *    advance), at load factors 1, 2 and 4, with 0, 50 or 100 % of the
 *    keys present, the match anywhere in its chain or at its head.
 *
 * One run is three steps, each its own invocation (scripts/bench.sh):
 *
 *   --probe FILE         the caches (and where their sizes came from), the
 *                        working sets placed from them, a latency sweep
 *                        that labels each set, the body's work per ns
 *   --chunk K            measure the K-th group of cells of the plan the
 *                        probe file fixes (one node set), in this build
 *   --crossover BYTES    bisect the smallest work per node at which a
 *                        prefetch is faster, between two grid points
 *
 * so that every build of the benchmark measures the same cells with the
 * same work calibration, and the builds take turns chunk by chunk.
 *
 * Each repetition times one short sample (~200 us) of every form and of
 * the control (the no-prefetch walker's second copy, walkers_control.c),
 * in a fresh random order, each on lists or keys of its own: the seed of
 * every sample is a hash of (cell, build, sample). A form's ratio to no
 * prefetch in one repetition is one paired observation; so is the
 * control's, which must read 1.000. Repetitions go on until every
 * interval, the control's included, is within +-1 % or the cell's share
 * of the time budget is spent (as much again while the control's is not).
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

#include "caches.h"
#include "latency.h"
#include "nodes.h"
#include "stats.h"
#include "walkers.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
#define GIB (MIB * KIB)
#define MAX_SETS 8
#define MAX_CELLS 256
#define MIN_REPS 31
#define MAX_REPS 65536
#define TARGET_HALF_WIDTH 0.01	/* the precision target: +-1 % */
#define CONTROL_LIMIT 0.01	/* a passed A/A control reads 1.000 +- 1 % */
#define MAX_BUDGETS 3		/* the budgets a cell whose control fails may take */
#define HEADLINE_WEIGHT 3
#define LARGEST_SET (2 * GIB)
#define KEYS_PER_SAMPLE_MAX ((size_t)1 << 18)

enum walk_kind { WALK_LIST, WALK_HASH_LOOKUP, NR_WALKS };

/* Which cells a run measures (see plan_cells()). */
enum grid { GRID_QUICK, GRID_DEFAULT, GRID_FULL, NR_GRIDS };

static const char *const grid_names[NR_GRIDS] = {
	[GRID_QUICK] = "quick", [GRID_DEFAULT] = "default", [GRID_FULL] = "full",
};

/* What --probe measured, and every later step reads back. */
struct probe {
	enum grid grid;
	struct cache_info caches;
	size_t nr_sets;
	struct latency_point points[MAX_SETS];
	const char *set_names[MAX_SETS];
	bool sweep[MAX_SETS];
	double ns_per_step;
	bool huge_pages;
};

struct variant_result {
	struct estimate ns;	/* per node (lists) or per lookup */
	struct estimate ratio;	/* to no prefetch, paired per repetition */
	double p_diff;		/* sign test: the ratio is 1 */
	double p_equiv;		/* sign tests: the ratio is outside 1 +- 2 % */
	/* prefetch-nonnull and prefetch-cmov: the same, paired against prefetch */
	struct estimate vs_read;
	double vs_p_diff;
	double vs_p_equiv;
};

/* One measured cell: every form, one point of the grid. */
struct cell {
	enum walk_kind walk;
	enum node_shape shape;
	enum node_layout layout;
	size_t list_len;		/* lists */
	enum page_kind pages;		/* asked: PAGES_4K or PAGES_HUGETLB (2 MiB) */
	enum page_kind pages_got;	/* what backed the nodes */
	enum loop_body body;		/* lists */
	unsigned int work_ns;		/* lists: the body's work per node, nominal */
	unsigned int work_steps;	/* lists: body_work() steps for work_ns */
	enum lookup_dependence dependence;	/* lookups */
	unsigned int load;		/* lookups: nominal load factor */
	double hits;			/* lookups: share of present keys drawn */
	enum match_position position;	/* lookups */
	size_t set;			/* index of the working set in the probe */
	size_t bytes;
	bool headline;
	size_t reps;
	double seconds;
	unsigned int budgets;		/* budgets spent: more than 1 where the control failed */
	struct lookup_census census;	/* lookups: of one sample's keys */
	size_t census_lookups;
	struct variant_result v[NR_PF_VARIANTS];
};

/* The timed repetitions of one cell, one row per form. */
struct samples {
	double *ns[NR_PF_VARIANTS];
	double *scratch;
};

/* What a sample walks: the node set, and for lookups the cell's keys. */
struct workload {
	struct node_set *set;
	enum page_kind set_pages;	/* what the set's cells asked for */
	struct key_draw draw;
	size_t *heads;
	uint64_t *keys;		/* one sample's worth, redrawn per sample */
	size_t nr_keys;
};

static const char *walk_name(enum walk_kind walk)
{
	return walk == WALK_LIST ? "list" : "hash-lookup";
}

static const char *pages_name(enum page_kind pages)
{
	return pages == PAGES_4K ? "4k" : "2M";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

/* A hash of the cell's axes: with the build and sample index, its seeds. */
static uint64_t cell_id(const struct cell *cell)
{
	const uint64_t axes[] = {
		cell->walk, cell->shape, cell->layout, cell->list_len, cell->pages,
		cell->body, cell->work_ns, cell->dependence, cell->load,
		(uint64_t)(cell->hits * 1000), cell->position, cell->bytes,
	};
	uint64_t h = 0x6c62272e07bb0142ull;
	size_t i;

	for (i = 0; i < sizeof(axes) / sizeof(axes[0]); i++)
		h = mix64(h ^ axes[i]);
	return h;
}

/*
 * One sample: @units list walks (lists picked at random) or lookups of
 * the workload's keys. Returns the walks' combined result, so that the
 * caller can check that every form did the same work.
 */
static struct lookup_result run_units(const struct workload *w, const struct cell *cell,
				      enum prefetch_variant variant, size_t units,
				      uint64_t seed)
{
	const struct node_set *set = w->set;
	struct lookup_result r = { 0, 0, 0 };
	list_walker_fn walker;
	uint64_t state = seed | 1;
	size_t i;

	if (cell->walk == WALK_HASH_LOOKUP)
		return lookup_walker(cell->shape, variant, cell->dependence)(&set->table,
									    w->keys, units);
	walker = list_walker(cell->shape, variant, cell->body);
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
 * Every form, on the same seed, must do exactly what a plain walk does:
 * same lists, same nodes, same lookups found. A form that did not would
 * be timing other work. Lookups are checked against the census, which
 * also counts what the prefetches fetched.
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
		cell->census = lookup_census(cell->shape, &w->set->table, w->keys, census_lookups);
		cell->census_lookups = census_lookups;
		want = lookup_census(cell->shape, &w->set->table, w->keys, units).result;
	} else {
		want = run_units(w, cell, PF_NONE, units, 0x5eed);
	}
	for (v = PF_NONE; v < NR_PF_VARIANTS; v++) {
		struct lookup_result got = run_units(w, cell, v, units, 0x5eed);

		if (got.checksum != want.checksum || got.hits != want.hits ||
		    got.nodes_visited != want.nodes_visited) {
			fprintf(stderr, "listbench: %s %s: form %s did other work than a plain walk\n",
				walk_name(cell->walk), shape_desc(cell->shape)->name,
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
	uint64_t t0, spent = 0, seed = mix64(cell_id(cell) ^ 0xca11b);
	int pass;

	for (pass = 0; pass < 2; pass++) {
		units = pass ? units / 4 + 1 : 1;
		for (;;) {
			seed = mix64(seed);
			draw_keys(w, cell, units, seed);
			t0 = now_ns();
			run_units(w, cell, PF_NONE, units, seed);
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

/* The median of log(ns[a] / ns[b]) over the repetitions, as a ratio, with its tests. */
static struct estimate paired(struct samples *s, size_t reps, int a, int b,
			      double *p_diff, double *p_equiv)
{
	struct estimate lr;
	double *logs = malloc(reps * sizeof(double));
	size_t i;

	if (!logs)
		abort();
	for (i = 0; i < reps; i++)
		logs[i] = log(s->ns[a][i] / s->ns[b][i]);
	if (p_diff)
		*p_diff = sign_test_p(logs, reps, 0.0);
	if (p_equiv)
		*p_equiv = equivalence_p(logs, reps, log(0.98), log(1.02));
	lr = estimate_median(logs, reps);
	free(logs);
	return (struct estimate){ exp(lr.median), exp(lr.lo), exp(lr.hi) };
}

static void estimate_variants(struct cell *cell, struct samples *s)
{
	int v;

	for (v = 0; v < NR_PF_VARIANTS; v++) {
		struct variant_result *r = &cell->v[v];

		memcpy(s->scratch, s->ns[v], cell->reps * sizeof(double));
		r->ns = estimate_median(s->scratch, cell->reps);
		r->ratio = paired(s, cell->reps, v, PF_NONE, &r->p_diff, &r->p_equiv);
		if (v == PF_READ_NONNULL || v == PF_READ_CMOV)
			r->vs_read = paired(s, cell->reps, v, PF_READ, &r->vs_p_diff,
					    &r->vs_p_equiv);
	}
}

static double half_width(const struct estimate *e)
{
	double up = e->hi - e->median, down = e->median - e->lo;

	return up > down ? up : down;
}

/* Every form's interval, and the control's, within the target. */
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
		*state = mix64(*state);
		j = (int)key_from_state(*state, (uint64_t)i);
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

/*
 * The A/A control passed: the no-prefetch walk's copy reads 1.000 +- 1 %,
 * or its interval holds 1 (bench_runs.py's rule).
 */
static bool control_passed(const struct cell *cell)
{
	const struct estimate *c = &cell->v[PF_CONTROL].ratio;

	return fabs(c->median - 1.0) <= CONTROL_LIMIT || (c->lo <= 1.0 && 1.0 <= c->hi);
}

static int measure_cell(struct workload *w, struct cell *cell, unsigned int build,
			uint64_t sample_ns, double budget_s)
{
	uint64_t id = cell_id(cell), order_state = mix64(id ^ build), sample = 0;
	uint64_t start = now_ns(), budget = (uint64_t)(budget_s * 1e9), deadline = start + budget;
	size_t units, next_check = MIN_REPS;
	int v, order[NR_PF_VARIANTS];
	struct samples s;

	for (v = 0; v < NR_PF_VARIANTS; v++) {
		s.ns[v] = malloc(MAX_REPS * sizeof(double));
		if (!s.ns[v])
			return -1;
	}
	s.scratch = malloc(MAX_REPS * sizeof(double));
	if (!s.scratch)
		return -1;

	units = calibrate(w, cell, sample_ns);
	check_variants_agree(w, cell, units);
	cell->reps = 0;
	cell->budgets = 1;
	while (cell->reps < MAX_REPS) {
		random_order(order, &order_state);
		for (v = 0; v < NR_PF_VARIANTS; v++)
			s.ns[order[v]][cell->reps] = time_sample(w, cell, order[v], units,
								 sample_seed(id, build, sample++));
		cell->reps++;
		if (cell->reps < next_check)
			continue;
		/* Sorting costs: look again after a quarter more repetitions. */
		next_check = cell->reps + (cell->reps / 4 > 16 ? cell->reps / 4 : 16);
		estimate_variants(cell, &s);
		if (precise(cell) && control_passed(cell))
			break;
		if (now_ns() < deadline)
			continue;
		/*
		 * The budget spent with the control failed (the same code read
		 * otherwise than itself: the cell was disturbed, or its
		 * samples are noisier than its interval says), the cell gets
		 * up to MAX_BUDGETS budgets, every sample counting: more
		 * samples, never other ones. A control still wide gets one
		 * budget more: without a control no figure of the cell counts.
		 */
		if (!control_passed(cell) && cell->budgets < MAX_BUDGETS) {
			cell->budgets++;
			deadline += budget;
			continue;
		}
		if (half_width(&cell->v[PF_CONTROL].ratio) <= TARGET_HALF_WIDTH ||
		    now_ns() >= deadline + budget)
			break;
	}
	estimate_variants(cell, &s);
	cell->seconds = (double)(now_ns() - start) / 1e9;
	for (v = 0; v < NR_PF_VARIANTS; v++)
		free(s.ns[v]);
	free(s.scratch);
	return 0;
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
static double overlap_factor(const struct cell *cell, const struct probe *probe)
{
	const struct latency_point *p = &probe->points[cell->set];
	double latency = cell->pages_got != PAGES_4K && p->ns_huge > 0 ? p->ns_huge : p->ns_small;
	double misses = per_lookup(cell, cell->census.result.nodes_visited) + 1.0;
	double ns = cell->v[PF_NONE].ns.median;

	return cell->walk == WALK_HASH_LOOKUP && ns > 0 ? misses * latency / ns : 0.0;
}

/* The cell's axes in a few words, as the progress lines print them. */
static void format_shape(char *buf, size_t len, const struct cell *cell)
{
	if (cell->walk == WALK_LIST)
		snprintf(buf, len, "%s %s len %zu %s %s work %u",
			 shape_desc(cell->shape)->name, node_layout_name(cell->layout),
			 cell->list_len, pages_name(cell->pages), loop_body_name(cell->body),
			 cell->work_ns);
	else
		snprintf(buf, len, "%s %s %s load %u hits %.0f%% %s",
			 shape_desc(cell->shape)->name, pages_name(cell->pages),
			 lookup_dependence_name(cell->dependence), cell->load, 100 * cell->hits,
			 match_position_name(cell->position));
}

static const char *regime_of(const struct cell *cell, const struct probe *probe)
{
	return regime_label(&probe->points[cell->set], cell->pages_got != PAGES_4K);
}

static double latency_of(const struct cell *cell, const struct probe *probe)
{
	const struct latency_point *p = &probe->points[cell->set];

	return cell->pages_got != PAGES_4K && p->ns_huge > 0 ? p->ns_huge : p->ns_small;
}

#define CSV_HEADER							\
	"run,walk,shape,layout,list_len,pages,pages_got,body,work,work_steps,lookups,load," \
	"hits,position,bytes,regime,latency_ns,headline,variant,reps,ns,ns_low,ns_high," \
	"ratio,ci_low,ci_high,p_diff,p_equiv,verdict,control_ratio,control_ci_low," \
	"control_ci_high,vs_prefetch,vs_ci_low,vs_ci_high,vs_p_diff,vs_p_equiv,hit_ratio," \
	"nodes_per_lookup,unused_prefetches,null_prefetches,overlap,budgets\n"

/*
 * One row per cell and form (the control is not a form: its ratio is a
 * column of every row of its cell). Verdicts are decided over every
 * build at once (scripts/lib/bench_runs.py): '-' here.
 */
static void write_csv(FILE *csv, const char *run, const struct probe *probe,
		      const struct cell *cells, size_t nr_cells)
{
	size_t i;
	int v;

	for (i = 0; i < nr_cells; i++) {
		const struct cell *cell = &cells[i];
		const struct variant_result *control = &cell->v[PF_CONTROL];
		bool list = cell->walk == WALK_LIST;

		for (v = 0; v < PF_CONTROL; v++) {
			const struct variant_result *r = &cell->v[v];
			bool vs = v == PF_READ_NONNULL || v == PF_READ_CMOV;

			fprintf(csv, "%s,%s,%s,%s,%zu,%s,%s,%s,%u,%u,%s,%u,%.2f,%s,%zu,%s,%.2f,0,%s,"
				"%zu,%.4f,%.4f,%.4f,%.5f,%.5f,%.5f,%.3g,%.3g,-,%.5f,%.5f,%.5f,",
				run, walk_name(cell->walk), shape_desc(cell->shape)->name,
				list ? node_layout_name(cell->layout) : "hashed",
				list ? cell->list_len : 0, pages_name(cell->pages),
				page_kind_name(cell->pages_got),
				list ? loop_body_name(cell->body) : "compare",
				list ? cell->work_ns : 0, cell->work_steps,
				list ? "-" : lookup_dependence_name(cell->dependence),
				list ? 0 : cell->load, list ? 0.0 : cell->hits,
				list ? "-" : match_position_name(cell->position), cell->bytes,
				regime_of(cell, probe), latency_of(cell, probe),
				prefetch_variant_name(v), cell->reps, r->ns.median, r->ns.lo,
				r->ns.hi, r->ratio.median, r->ratio.lo, r->ratio.hi,
				v == PF_NONE ? 1.0 : r->p_diff, v == PF_NONE ? 0.0 : r->p_equiv,
				control->ratio.median, control->ratio.lo, control->ratio.hi);
			if (vs)
				fprintf(csv, "%.5f,%.5f,%.5f,%.3g,%.3g,", r->vs_read.median,
					r->vs_read.lo, r->vs_read.hi, r->vs_p_diff, r->vs_p_equiv);
			else
				fprintf(csv, ",,,,,");
			fprintf(csv, "%.4f,%.4f,%.4f,%.4f,%.3f,%u\n",
				per_lookup(cell, cell->census.result.hits),
				per_lookup(cell, cell->census.result.nodes_visited),
				per_lookup(cell, cell->census.unused_prefetches),
				per_lookup(cell, cell->census.null_prefetches),
				overlap_factor(cell, probe), cell->budgets);
		}
	}
}

/* The working sets: placed from the caches, and what they are called. */
static size_t working_sets(struct probe *probe)
{
	const struct cache_info *c = &probe->caches;
	size_t n = 0, largest = 32 * c->llc < LARGEST_SET ? 32 * c->llc : LARGEST_SET;
	size_t bytes;

#define ADD_SET(b, name, sw)						\
	do {								\
		probe->points[n].bytes = (b);				\
		probe->set_names[n] = (name);				\
		probe->sweep[n++] = (sw);				\
	} while (0)
	switch (probe->grid) {
	case GRID_QUICK:
		ADD_SET(c->l1d / 2, "L1/2", false);
		ADD_SET(c->llc / 2, "LLC/2", false);
		ADD_SET(4 * c->llc, "4xLLC", true);
		break;
	case GRID_DEFAULT:
		/* A quarter of the L2: half of it sits on the edge of its plateau. */
		ADD_SET(c->l1d / 2, "L1/2", false);
		ADD_SET(c->l2 / 4, "L2/4", false);
		/* Where a VM's share of the LLC is smaller than CPUID says. */
		ADD_SET(c->llc / 8, "LLC/8", false);
		ADD_SET(c->llc / 2, "LLC/2", true);
		ADD_SET(4 * c->llc, "4xLLC", false);
		ADD_SET(largest, largest == 32 * c->llc ? "32xLLC" : "largest", true);
		break;
	case GRID_FULL:
		for (bytes = c->l1d / 2; bytes < largest && n + 1 < MAX_SETS; bytes *= 4)
			ADD_SET(bytes, "", true);
		ADD_SET(largest, "largest", true);
		break;
	default:
		break;
	}
#undef ADD_SET
	return n;
}

static const unsigned int all_works[] = { 0, 20, 100, 400 };
static const unsigned int quick_works[] = { 0, 400 };
/* Where the shape, layout, length and page axes are measured. */
static const unsigned int axis_works[] = { 20, 100 };
static const unsigned int quick_axis_works[] = { 0 };

static struct cell list_cell(const struct cell *at, const struct probe *probe,
			     enum node_shape shape, enum node_layout layout, size_t list_len,
			     enum page_kind pages, unsigned int work)
{
	struct cell c = *at;

	c.walk = WALK_LIST;
	c.shape = shape;
	c.layout = layout;
	c.list_len = list_len;
	c.pages = pages;
	c.body = BODY_TOUCH;
	c.work_ns = work;
	c.work_steps = (unsigned int)lround(work / probe->ns_per_step);
	return c;
}

static struct cell lookup_cell(const struct cell *at, enum node_shape shape,
			       enum page_kind pages, enum lookup_dependence dependence,
			       unsigned int load, double hits, enum match_position position)
{
	struct cell c = *at;

	c.walk = WALK_HASH_LOOKUP;
	c.shape = shape;
	c.layout = LAYOUT_SHUFFLED;
	c.list_len = LIST_MAX_LEN;
	c.pages = pages;
	c.dependence = dependence;
	c.load = load;
	c.hits = hits;
	c.position = position;
	return c;
}

/*
 * The cells of one working set. Every set: the base shape (line nodes,
 * shuffled, lists of 1024, 4 KiB pages) at every work per node, and both
 * lookups at the base shape (load 1, half the keys present, the match
 * anywhere). Where the set is swept, each other axis against that base,
 * one at a time: the lookup axes (load, hits, head matches) for both
 * dependences; for lists at short and medium work, the dentry and skb
 * shapes, allocation order, lists of 8 and 64, 2 MiB pages; lookups in
 * 2 MiB pages. The full grid takes every combination of lookup axes.
 */
static size_t add_set_cells(const struct probe *probe, size_t set, struct cell *cells, size_t n)
{
	static const unsigned int loads[] = { 1, 2, 4 };
	static const double hit_shares[] = { 0.0, 0.5, 1.0 };
	bool quick = probe->grid == GRID_QUICK, full = probe->grid == GRID_FULL;
	const unsigned int *works = quick ? quick_works : all_works;
	const unsigned int *aworks = quick ? quick_axis_works : axis_works;
	size_t nr_works = quick ? 2 : 4, nr_aworks = quick ? 1 : 2, k, l, h;
	struct cell at = { .set = set, .bytes = probe->points[set].bytes, .load = 1,
			   .list_len = LIST_MAX_LEN };
	int d;

	/* Grouped by node set, the chunks bench.sh hands out: base first. */
	for (k = 0; k < nr_works; k++)
		cells[n++] = list_cell(&at, probe, SHAPE_LINE, LAYOUT_SHUFFLED, LIST_MAX_LEN,
				       PAGES_4K, works[k]);
	for (d = 0; d < NR_DEPENDENCES; d++) {
		cells[n++] = lookup_cell(&at, SHAPE_LINE, PAGES_4K, d, 1, 0.5, MATCH_UNIFORM);
		if (!probe->sweep[set])
			continue;
		for (l = 0; l < 3; l++) {
			for (h = 0; h < 3; h++) {
				/* Off the base in one axis only, but in the full grid. */
				bool one_axis = (l == 0) != (h == 1);

				if ((full || one_axis) && (l || h != 1))
					cells[n++] = lookup_cell(&at, SHAPE_LINE, PAGES_4K, d,
								 loads[l], hit_shares[h],
								 MATCH_UNIFORM);
				if (hit_shares[h] > 0 && (full || (l == 0 && h == 1)))
					cells[n++] = lookup_cell(&at, SHAPE_LINE, PAGES_4K, d,
								 loads[l], hit_shares[h],
								 MATCH_HEAD);
			}
		}
	}
	if (!probe->sweep[set])
		return n;
	for (k = 0; k < nr_aworks; k++) {
		cells[n++] = list_cell(&at, probe, SHAPE_LINE, LAYOUT_SHUFFLED, 8, PAGES_4K,
				       aworks[k]);
		if (!quick)
			cells[n++] = list_cell(&at, probe, SHAPE_LINE, LAYOUT_SHUFFLED, 64,
					       PAGES_4K, aworks[k]);
	}
	for (k = 0; k < nr_aworks; k++)
		cells[n++] = list_cell(&at, probe, SHAPE_DENTRY, LAYOUT_SHUFFLED, LIST_MAX_LEN,
				       PAGES_4K, aworks[k]);
	for (k = 0; k < nr_aworks; k++)
		cells[n++] = list_cell(&at, probe, SHAPE_SKB, LAYOUT_SHUFFLED, LIST_MAX_LEN,
				       PAGES_4K, aworks[k]);
	for (k = 0; k < nr_aworks; k++)
		cells[n++] = list_cell(&at, probe, SHAPE_LINE, LAYOUT_ALLOC_ORDER, LIST_MAX_LEN,
				       PAGES_4K, aworks[k]);
	for (k = 0; k < nr_aworks; k++)
		cells[n++] = list_cell(&at, probe, SHAPE_LINE, LAYOUT_SHUFFLED, LIST_MAX_LEN,
				       PAGES_HUGETLB, aworks[k]);
	for (d = 0; d < NR_DEPENDENCES; d++)
		cells[n++] = lookup_cell(&at, SHAPE_LINE, PAGES_HUGETLB, d, 1, 0.5, MATCH_UNIFORM);
	return n;
}

static size_t plan_cells(const struct probe *probe, struct cell *cells)
{
	size_t n = 0, i;

	for (i = 0; i < probe->nr_sets; i++)
		n = add_set_cells(probe, i, cells, n);
	return n;
}

/* Cells measured on one node set: the same bytes, shape, layout and pages. */
static bool same_node_set(const struct cell *a, const struct cell *b)
{
	return a->bytes == b->bytes && a->shape == b->shape && a->layout == b->layout &&
	       a->pages == b->pages;
}

/* The chunk of each cell: runs of cells on one node set. */
static size_t plan_chunks(const struct cell *cells, size_t nr_cells, size_t *chunk_of)
{
	size_t i, chunk = 0;

	for (i = 0; i < nr_cells; i++) {
		if (i && !same_node_set(&cells[i], &cells[i - 1]))
			chunk++;
		chunk_of[i] = chunk;
	}
	return nr_cells ? chunk + 1 : 0;
}

/* ns per body_work() step: the fastest of a few timed runs. */
static double calibrate_work(void)
{
	const unsigned int steps = 1u << 22;
	double best = -1.0;
	uint64_t x = 1;
	int trial;

	for (trial = 0; trial < 7; trial++) {
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
static int prepare(struct workload *w, struct cell *cell)
{
	struct node_set *set = w->set;
	size_t nr_heads = 0;

	free(w->heads);
	w->heads = NULL;
	size_t nr_nodes = cell->bytes / shape_desc(cell->shape)->size;

	if (!set->mem || nr_nodes != set->nr_nodes || cell->shape != set->shape ||
	    cell->layout != set->layout || cell->pages != w->set_pages) {
		node_set_free(set);
		if (node_set_init(set, nr_nodes, cell->shape, cell->layout, cell->pages,
				  mix64(0x5eed + cell->bytes)))
			return -1;
		w->set_pages = cell->pages;
	}
	cell->pages_got = set->pages;
	if (cell->walk != WALK_HASH_LOOKUP)
		return set->list_len == cell->list_len ? 0 : node_set_relink(set, cell->list_len);
	if (node_set_rehash(set, cell->load))
		return -1;
	if (cell->position == MATCH_HEAD) {
		w->heads = node_set_chain_heads(set, &nr_heads);
		if (!w->heads)
			return -1;
	}
	w->draw = (struct key_draw){ .hits = cell->hits, .heads = w->heads, .nr_heads = nr_heads };
	return 0;
}

/* --probe: caches, sets, latencies and work calibration, as a file. */
static int write_probe(const char *path, const struct probe *p)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	fprintf(f, "grid %s\ncaches %zu %zu %zu %s\nns_per_step %.6f\nhuge_pages %d\nsets %zu\n",
		grid_names[p->grid], p->caches.l1d, p->caches.l2, p->caches.llc,
		cache_source_name(p->caches.source), p->ns_per_step, p->huge_pages, p->nr_sets);
	for (i = 0; i < p->nr_sets; i++)
		fprintf(f, "set %zu %.3f %.3f %d %d %d %s\n", p->points[i].bytes,
			p->points[i].ns_small, p->points[i].ns_huge, p->points[i].regime,
			p->points[i].translation_bound, p->sweep[i],
			p->set_names[i][0] ? p->set_names[i] : "-");
	return fclose(f);
}

static int read_probe(const char *path, struct probe *p)
{
	static char names[MAX_SETS][32];
	char grid[32], source[32];
	FILE *f = fopen(path, "r");
	int huge, g, ok;
	size_t i;

	memset(p, 0, sizeof(*p));
	if (!f)
		return -1;
	ok = fscanf(f, "grid %31s\ncaches %zu %zu %zu %31s\nns_per_step %lf\nhuge_pages %d\n"
		    "sets %zu\n", grid, &p->caches.l1d, &p->caches.l2, &p->caches.llc, source,
		    &p->ns_per_step, &huge, &p->nr_sets) == 8 && p->nr_sets <= MAX_SETS &&
		!parse_cache_source(source, &p->caches.source);
	for (g = 0; g < NR_GRIDS; g++)
		if (!strcmp(grid, grid_names[g]))
			p->grid = g;
	p->huge_pages = huge;
	for (i = 0; ok && i < p->nr_sets; i++) {
		int regime, bound, sweep;

		ok = fscanf(f, "set %zu %lf %lf %d %d %d %31s\n", &p->points[i].bytes,
			    &p->points[i].ns_small, &p->points[i].ns_huge, &regime, &bound,
			    &sweep, names[i]) == 7 && regime >= 0 && regime < NR_REGIMES;
		p->points[i].regime = regime;
		p->points[i].translation_bound = bound;
		p->sweep[i] = sweep;
		p->set_names[i] = strcmp(names[i], "-") ? names[i] : "";
	}
	fclose(f);
	return ok ? 0 : -1;
}

static void print_probe(const struct probe *p)
{
	char size[32];
	size_t i;

	printf("caches (%s): L1d %zu KiB, L2 %zu KiB, LLC %zu MiB\n",
	       cache_source_name(p->caches.source), p->caches.l1d / KIB, p->caches.l2 / KIB,
	       p->caches.llc / MIB);
	printf("regimes by measurement: a random pointer chase, ns per load in 4 KiB / 2 MiB pages%s\n",
	       p->huge_pages ? "" : " (no huge pages here: translation not told apart)");
	for (i = 0; i < p->nr_sets; i++) {
		format_size(size, sizeof(size), p->points[i].bytes);
		printf("  %-7s %8s %7.1f / %-7.1f %-4s %s\n", p->set_names[i], size,
		       p->points[i].ns_small, p->points[i].ns_huge,
		       regime_name(p->points[i].regime),
		       p->points[i].translation_bound ?
		       "translation-bound in 4 KiB pages (TLB+)" : "");
	}
	printf("body work: %.3f ns per step (a dependent multiply-add); work 20/100/400 ns = "
	       "%ld/%ld/%ld steps\n", p->ns_per_step, lround(20 / p->ns_per_step),
	       lround(100 / p->ns_per_step), lround(400 / p->ns_per_step));
}

static int probe_main(const char *path, enum grid grid, enum cache_source first)
{
	struct probe p = { .grid = grid };
	double l2_ns;

	if (caches_detect(&p.caches, first)) {
		fprintf(stderr, "listbench: no cache sizes: sysfs and CPUID say nothing and the "
			"latency sweep found no three levels\n");
		return 1;
	}
	p.nr_sets = working_sets(&p);
	p.huge_pages = huge_pages_available();
	fprintf(stderr, "listbench: latency sweep over %zu sets\n", p.nr_sets);
	l2_ns = latency_sweep(p.points, p.nr_sets, p.caches.l2, p.caches.llc, true);
	if (l2_ns < 0) {
		fprintf(stderr, "listbench: the latency sweep could not map its memory\n");
		return 1;
	}
	p.ns_per_step = calibrate_work();
	print_cpu(stdout);
	print_probe(&p);
	if (write_probe(path, &p)) {
		fprintf(stderr, "listbench: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static size_t cell_weight(const struct cell *c)
{
	bool base = c->shape == SHAPE_LINE && c->layout == LAYOUT_SHUFFLED &&
		c->list_len == LIST_MAX_LEN && c->pages == PAGES_4K &&
		(c->walk == WALK_LIST || (c->load == 1 && c->hits == 0.5 &&
					  c->position == MATCH_UNIFORM));

	return base ? HEADLINE_WEIGHT : 1;
}

/* The plan of the probe file, a line per cell: index, chunk, weight, shape, set. */
static int list_main(const struct probe *probe)
{
	static struct cell cells[MAX_CELLS];
	static size_t chunk_of[MAX_CELLS];
	size_t n = plan_cells(probe, cells), i;
	char size[32], shape[96];

	plan_chunks(cells, n, chunk_of);
	for (i = 0; i < n; i++) {
		format_size(size, sizeof(size), cells[i].bytes);
		format_shape(shape, sizeof(shape), &cells[i]);
		printf("%zu %zu %zu %s %s, %s\n", i, chunk_of[i], cell_weight(&cells[i]),
		       walk_name(cells[i].walk), shape, size);
	}
	return 0;
}

struct run_options {
	const char *run;	/* the build's label: the CSV's run column */
	unsigned int build;
	double seconds;		/* the budget of the whole plan in one build */
	FILE *csv;
};

/* --chunk K: the chunk's cells, with its share of the plan's budget. */
static int chunk_main(const struct probe *probe, size_t chunk, const struct run_options *o)
{
	static struct cell cells[MAX_CELLS];
	static size_t chunk_of[MAX_CELLS];
	uint64_t sample_ns = probe->grid == GRID_QUICK ? 100000 : 200000;
	size_t n = plan_cells(probe, cells), nr_chunks, i, weight_all = 0, first = n, last = 0;
	struct node_set set = { 0 };
	struct workload w = { .set = &set, .nr_keys = KEYS_PER_SAMPLE_MAX };
	char size[32], shape[96];
	int status = 0;

	nr_chunks = plan_chunks(cells, n, chunk_of);
	if (chunk >= nr_chunks) {
		fprintf(stderr, "listbench: chunk %zu: the plan has %zu\n", chunk, nr_chunks);
		return 2;
	}
	for (i = 0; i < n; i++) {
		weight_all += cell_weight(&cells[i]);
		if (chunk_of[i] == chunk) {
			first = first < i ? first : i;
			last = i;
		}
	}
	w.keys = malloc(w.nr_keys * sizeof(*w.keys));
	if (!w.keys)
		return 1;
	for (i = first; i <= last && !status; i++) {
		struct cell *cell = &cells[i];
		double budget = o->seconds * (double)cell_weight(cell) / (double)weight_all;

		format_size(size, sizeof(size), cell->bytes);
		format_shape(shape, sizeof(shape), cell);
		if (prepare(&w, cell) || measure_cell(&w, cell, o->build, sample_ns, budget)) {
			fprintf(stderr, "listbench: cannot allocate the nodes and keys of %s %s\n",
				shape, size);
			status = 1;
			break;
		}
		fprintf(stderr, "listbench: build %s [%zu/%zu] %s %s %s (%s, %s pages): %zu reps "
			"in %.1f s, %s; control %.3f%s%u\n", o->run, i + 1, n, walk_name(cell->walk),
			shape, size, regime_of(cell, probe), page_kind_name(cell->pages_got),
			cell->reps, cell->seconds,
			precise(cell) ? "every CI within +-1%" : "budget spent",
			cell->v[PF_CONTROL].ratio.median,
			cell->budgets > 1 ? " (off at its first budget), budgets " : ", budgets ",
			cell->budgets);
	}
	if (!status)
		write_csv(o->csv, o->run, probe, cells + first, last - first + 1);
	free(w.heads);
	free(w.keys);
	node_set_free(&set);
	return status;
}

/*
 * --crossover BYTES LO HI: the smallest work per node, in (LO, HI], at
 * which the prefetch is faster than none in this build, by bisection to
 * within 10 ns: at each step the list cell of that work is measured and
 * called faster when its sign test gives p < 0.01 and its ratio lies
 * below the control's interval. Prints one CSV line per step and the
 * result: crossover,BYTES,LO,HI (the final bracket).
 */
static int crossover_main(const struct probe *probe, size_t bytes, unsigned int lo,
			  unsigned int hi, const struct run_options *o)
{
	struct node_set set = { 0 };
	struct workload w = { .set = &set, .nr_keys = KEYS_PER_SAMPLE_MAX };
	size_t set_index = probe->nr_sets;
	struct cell at = { .load = 1 }, cell;
	int status = 0;
	size_t i;

	for (i = 0; i < probe->nr_sets; i++)
		if (probe->points[i].bytes == bytes)
			set_index = i;
	if (set_index == probe->nr_sets || lo >= hi) {
		fprintf(stderr, "listbench: --crossover %zu %u %u: no such set or bracket\n",
			bytes, lo, hi);
		return 2;
	}
	at.set = set_index;
	at.bytes = bytes;
	w.keys = malloc(w.nr_keys * sizeof(*w.keys));
	if (!w.keys)
		return 1;
	while (hi - lo > 20 && !status) {
		unsigned int mid = (lo + hi) / 2;
		const struct variant_result *r, *control;
		bool faster;

		cell = list_cell(&at, probe, SHAPE_LINE, LAYOUT_SHUFFLED, LIST_MAX_LEN,
				 PAGES_4K, mid);
		if (prepare(&w, &cell) || measure_cell(&w, &cell, o->build, 200000, o->seconds)) {
			status = 1;
			break;
		}
		r = &cell.v[PF_READ];
		control = &cell.v[PF_CONTROL];
		faster = r->p_diff < 0.01 && r->ratio.median < 1.0 &&
			r->ratio.median < control->ratio.lo;
		fprintf(o->csv, "step,%s,%zu,%u,%u,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%zu,%s\n",
			o->run, bytes, mid, cell.work_steps, r->ratio.median, r->ratio.lo,
			r->ratio.hi, control->ratio.median, control->ratio.lo, control->ratio.hi,
			cell.reps, faster ? "faster" : "not-faster");
		fprintf(stderr, "listbench: build %s crossover %zu B: work %u ns: prefetch %.3f, "
			"control %.3f: %s\n", o->run, bytes, mid, r->ratio.median,
			control->ratio.median, faster ? "faster" : "not faster");
		if (faster)
			hi = mid;
		else
			lo = mid;
	}
	if (!status)
		fprintf(o->csv, "crossover,%s,%zu,%u,%u,%ld\n", o->run, bytes, lo, hi,
			lround(hi / probe->ns_per_step));
	free(w.keys);
	node_set_free(&set);
	return status;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s --probe FILE [--grid quick|default|full] [--caches SOURCE]\n"
		"       %s --plan FILE --list\n"
		"       %s --plan FILE --chunk K --run LABEL [--seconds N] [--csv FILE]\n"
		"       %s --plan FILE --crossover BYTES --between LO:HI --run LABEL\n"
		"          [--seconds N] [--csv FILE]\n"
		"       %s --caches SOURCE   (the cache sizes from sysfs, cpuid or measured)\n"
		"  --probe FILE   measure caches, sets, latencies and work; write them to FILE\n"
		"  --plan FILE    a probe file: the cells and calibration every build shares\n"
		"  --chunk K      measure the K-th group of cells (one node set)\n"
		"  --run LABEL    the build's label (1, 2, ...): the CSV's run column and seeds\n"
		"  --seconds N    the whole plan's budget in one build (quick 15, default 200,\n"
		"                 full 1200); with --crossover, per step (default 2)\n"
		"  --cpu N        the CPU to pin to (default: the last allowed)\n",
		prog, prog, prog, prog, prog);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "probe", required_argument, NULL, 'P' },
		{ "plan", required_argument, NULL, 'p' },
		{ "grid", required_argument, NULL, 'g' },
		{ "caches", required_argument, NULL, 'C' },
		{ "list", no_argument, NULL, 'l' },
		{ "chunk", required_argument, NULL, 'k' },
		{ "crossover", required_argument, NULL, 'x' },
		{ "between", required_argument, NULL, 'b' },
		{ "csv", required_argument, NULL, 'c' },
		{ "run", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "cpu", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const double default_seconds[NR_GRIDS] = {
		[GRID_QUICK] = 15, [GRID_DEFAULT] = 200, [GRID_FULL] = 1200,
	};
	const char *probe_path = NULL, *plan_path = NULL, *csv_path = NULL, *caches = NULL;
	enum grid grid = GRID_DEFAULT;
	enum cache_source first = CACHE_SYSFS;
	struct run_options o = { .run = "1", .build = 1, .seconds = -1, .csv = stdout };
	long chunk = -1;
	size_t crossover = 0;
	unsigned int lo = 0, hi = 0;
	bool list = false;
	struct probe probe;
	int c, cpu = -1, status, g;

	while ((c = getopt_long(argc, argv, "P:p:g:C:lk:x:b:c:r:s:u:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'P':
			probe_path = optarg;
			break;
		case 'p':
			plan_path = optarg;
			break;
		case 'g':
			for (g = 0; g < NR_GRIDS && strcmp(optarg, grid_names[g]); g++)
				;
			if (g == NR_GRIDS) {
				fprintf(stderr, "listbench: --grid: quick, default or full\n");
				return 2;
			}
			grid = g;
			break;
		case 'C':
			caches = optarg;
			if (parse_cache_source(optarg, &first)) {
				fprintf(stderr, "listbench: --caches: sysfs, cpuid or measured\n");
				return 2;
			}
			break;
		case 'l':
			list = true;
			break;
		case 'k':
			chunk = atol(optarg);
			break;
		case 'x':
			crossover = strtoul(optarg, NULL, 10);
			break;
		case 'b':
			if (sscanf(optarg, "%u:%u", &lo, &hi) != 2) {
				fprintf(stderr, "listbench: --between LO:HI\n");
				return 2;
			}
			break;
		case 'c':
			csv_path = optarg;
			break;
		case 'r':
			o.run = optarg;
			o.build = (unsigned int)atoi(optarg);
			break;
		case 's':
			o.seconds = strtod(optarg, NULL);
			if (o.seconds <= 0) {
				fprintf(stderr, "listbench: --seconds must be positive\n");
				return 2;
			}
			break;
		case 'u':
			cpu = atoi(optarg);
			break;
		default:
			usage(argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (caches && !probe_path) {
		struct cache_info info;
		int failed = first == CACHE_SYSFS ? caches_from_sysfs(&info) :
			first == CACHE_CPUID ? caches_from_cpuid(&info) : caches_measured(&info);

		if (failed) {
			printf("caches (%s): none\n", caches);
			return 1;
		}
		printf("caches (%s): L1d %zu KiB, L2 %zu KiB, LLC %zu KiB\n", caches,
		       info.l1d / KIB, info.l2 / KIB, info.llc / KIB);
		return 0;
	}
	if (pin_to_cpu(cpu) < 0) {
		fprintf(stderr, "listbench: cannot pin to a CPU: %s\n", strerror(errno));
		return 1;
	}
	if (probe_path)
		return probe_main(probe_path, grid, first);
	if (!plan_path || read_probe(plan_path, &probe)) {
		fprintf(stderr, "listbench: %s: not a probe file (make one with --probe)\n",
			plan_path ? plan_path : "no --plan");
		usage(argv[0]);
		return 2;
	}
	if (list)
		return list_main(&probe);
	if (o.seconds < 0)
		o.seconds = crossover ? 2 : default_seconds[probe.grid];
	if (csv_path) {
		o.csv = fopen(csv_path, "a");
		if (!o.csv) {
			fprintf(stderr, "listbench: %s: %s\n", csv_path, strerror(errno));
			return 1;
		}
		if (!ftell(o.csv) && !crossover)
			fputs(CSV_HEADER, o.csv);
	} else if (!crossover) {
		fputs(CSV_HEADER, o.csv);
	}
	if (crossover)
		status = crossover_main(&probe, crossover, lo, hi, &o);
	else if (chunk >= 0)
		status = chunk_main(&probe, (size_t)chunk, &o);
	else {
		usage(argv[0]);
		status = 2;
	}
	if (o.csv != stdout && fclose(o.csv)) {
		fprintf(stderr, "listbench: %s: %s\n", csv_path, strerror(errno));
		status = 1;
	}
	return status;
}
