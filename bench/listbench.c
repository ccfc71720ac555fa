// SPDX-License-Identifier: GPL-2.0
/*
 * listbench - does a next-node prefetch pay on this CPU?
 *
 * Two walks in the kernel's shape (walkers.c), each in five prefetch
 * variants: list walks (lists of up to 1024 nodes, in address order or
 * shuffled, with an empty or a touching loop body) and hash lookups (a
 * table at load factor 1, random keys, half of them absent, each lookup
 * walking one NULL-terminated chain to the match or to its end).
 *
 * Working sets go from 4 KiB to at least 1 GiB and 4x the last-level
 * cache; a pointer-chase latency sweep classifies each size as L1, L2,
 * LLC, DRAM or TLB-bound by what a load costs there, not by the nominal
 * cache sizes.
 *
 * Each repetition times one short sample (~200 us) of every variant, in
 * a fresh random order, each on fresh random lists or keys; the variant's
 * ratio to no prefetch in that repetition is one paired observation. A
 * cell's ratio is the median of its paired ratios with a distribution-
 * free 95 % interval; repetitions go on until every interval is within
 * +-1 % or the cell's share of the time budget is spent. Verdicts come
 * from sign tests (difference, and equivalence within +-2 %), with the
 * false-discovery rate over all cells held at 5 % (Benjamini-Hochberg).
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
#define MIN_REPS 31
#define MAX_REPS 65536
#define TARGET_HALF_WIDTH 0.01	/* the precision target: +-1 % */
#define EQUIV_MARGIN 0.02	/* "equivalent": within +-2 % */
#define FDR 0.05
#define HEADLINE_WEIGHT 3

enum walk_kind { WALK_LIST, WALK_HASH_LOOKUP, NR_WALKS };

struct cache_sizes {
	size_t l1d;
	size_t l2;
	size_t llc;
};

struct options {
	bool quick;
	const char *csv_path;
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

/* One measured cell of the matrix: every variant, one configuration. */
struct cell {
	enum walk_kind walk;
	enum node_layout layout;
	enum loop_body body;
	size_t bytes;
	enum regime regime;
	bool headline;
	size_t reps;
	double seconds;
	double hit_ratio;		/* hash lookups */
	double nodes_per_lookup;	/* hash lookups: chain nodes visited */
	struct variant_result v[NR_PF_VARIANTS];
};

/* The timed repetitions of one cell, one row per variant. */
struct samples {
	double *ns[NR_PF_VARIANTS];
	double *log_ratio[NR_PF_VARIANTS];
	double *scratch;
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
 * One sample: @units list walks (lists picked at random) or lookups,
 * from @seed. Returns the walks' combined result, so that the caller
 * can check that every variant did the same work.
 */
static struct lookup_result run_units(const struct node_set *set,
				      const struct cell *cell,
				      enum prefetch_variant variant,
				      size_t units, uint64_t seed)
{
	list_walker_fn walker = list_walker(variant, cell->body);
	struct lookup_result r = { 0, 0, 0 };
	uint64_t state = seed | 1;
	size_t i;

	if (cell->walk == WALK_HASH_LOOKUP)
		return lookup_walker(variant)(&set->table, seed, units);

	for (i = 0; i < units; i++) {
		size_t list;

		state = next_key_state(state ^ (r.checksum & 1));
		if (!state)
			state = 1;
		/* The next list depends on the last walk, as the lookups do. */
		list = (size_t)key_from_state(state, set->nr_lists);
		r.checksum = r.checksum * 31 + walker(&set->heads[list]);
		r.nodes_visited += list == set->nr_lists - 1 ?
			set->nr_nodes - list * set->list_len : set->list_len;
	}
	return r;
}

/* ns per node (lists) or per lookup of one timed sample. */
static double time_sample(const struct node_set *set, const struct cell *cell,
			  enum prefetch_variant variant, size_t units, uint64_t seed)
{
	volatile uint64_t sink;
	struct lookup_result r;
	uint64_t t0 = now_ns();

	r = run_units(set, cell, variant, units, seed);
	sink = r.checksum;
	(void)sink;
	return (double)(now_ns() - t0) /
		(double)(cell->walk == WALK_LIST ? (r.nodes_visited ? r.nodes_visited : 1) :
			 units);
}

/*
 * Every variant, on the same seed, must do exactly what no prefetch
 * does: same lists, same nodes, same lookups found. A variant that did
 * not would be timing other work.
 */
static void check_variants_agree(const struct node_set *set, struct cell *cell,
				 size_t units)
{
	struct lookup_result want = run_units(set, cell, PF_NONE, units, 0x5eed);
	int v;

	for (v = PF_READ; v < NR_PF_VARIANTS; v++) {
		struct lookup_result got = run_units(set, cell, v, units, 0x5eed);

		if (got.checksum != want.checksum || got.hits != want.hits ||
		    got.nodes_visited != want.nodes_visited) {
			fprintf(stderr, "listbench: %s %s: variant %s did other work than none\n",
				walk_name(cell->walk), body_label(cell),
				prefetch_variant_name(v));
			exit(1);
		}
	}
	if (cell->walk == WALK_HASH_LOOKUP && units) {
		cell->hit_ratio = (double)want.hits / (double)units;
		cell->nodes_per_lookup = (double)want.nodes_visited / (double)units;
	}
}

/* Units per sample so that one takes about @sample_ns. */
static size_t calibrate(const struct node_set *set, const struct cell *cell,
			uint64_t sample_ns)
{
	size_t units = 1;
	uint64_t t0, spent;

	for (;;) {
		t0 = now_ns();
		run_units(set, cell, PF_NONE, units, 0xca11b);
		spent = now_ns() - t0;
		if (spent >= sample_ns / 4 || units >= ((size_t)1 << 30))
			break;
		units *= 2;
	}
	units = (size_t)((double)units * (double)sample_ns / (double)(spent ? spent : 1)) + 1;
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

static int measure_cell(const struct node_set *set, struct cell *cell,
			uint64_t sample_ns, double budget_s)
{
	struct samples s;
	uint64_t state = 0x9e3779b97f4a7c15ull ^ cell->bytes ^ ((uint64_t)cell->walk << 40) ^
		((uint64_t)cell->body << 44) ^ ((uint64_t)cell->layout << 48);
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

	units = calibrate(set, cell, sample_ns);
	check_variants_agree(set, cell, units);
	cell->reps = 0;
	while (cell->reps < MAX_REPS) {
		double t[NR_PF_VARIANTS];

		random_order(order, &state);
		for (v = 0; v < NR_PF_VARIANTS; v++) {
			state = next_key_state(state);
			t[order[v]] = time_sample(set, cell, order[v], units, state);
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
 * The verdicts, over every (cell, variant) at once: a difference and an
 * equivalence test each, with Benjamini-Hochberg holding the expected
 * share of false discoveries at FDR in each family.
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

static void format_ratio(char *buf, size_t len, const struct variant_result *r,
			 bool word)
{
	if (word)
		snprintf(buf, len, "%.3f [%.3f,%.3f] %s", r->ratio.median, r->ratio.lo,
			 r->ratio.hi, r->verdict);
	else
		snprintf(buf, len, "%.3f [%.3f,%.3f] %c", r->ratio.median, r->ratio.lo,
			 r->ratio.hi, verdict_symbol(r->verdict));
}

static void print_headline(const struct cell *cells, size_t nr_cells)
{
	char size[32], text[80];
	size_t i, met = 0, total = 0;
	int regime, v;

	printf("HEADLINE: each prefetch form's time relative to no prefetch, 95%% CI, verdict;\n"
	       "per measured regime, at its largest working set (list: shuffled, touching body)\n");
	printf("%-6s %-8s %-12s", "regime", "set", "walk");
	for (v = PF_READ; v < NR_PF_VARIANTS; v++)
		printf(" %-31s", prefetch_variant_name(v));
	printf("\n");
	for (regime = 0; regime < NR_REGIMES; regime++) {
		for (i = 0; i < nr_cells; i++) {
			const struct cell *cell = &cells[i];

			if (!cell->headline || (int)cell->regime != regime)
				continue;
			format_size(size, sizeof(size), cell->bytes);
			printf("%-6s %-8s %-12s", regime_name(cell->regime), size,
			       walk_name(cell->walk));
			for (v = PF_READ; v < NR_PF_VARIANTS; v++) {
				format_ratio(text, sizeof(text), &cell->v[v], true);
				printf(" %-31s", text);
				total++;
				met += half_width(&cell->v[v].ratio) <= TARGET_HALF_WIDTH;
			}
			printf("\n");
		}
	}
	printf("precision: %zu of %zu headline ratios have a 95%% CI within +-%.0f%% (the target)\n",
	       met, total, TARGET_HALF_WIDTH * 100);
	for (i = 0; i < nr_cells; i++) {
		const struct cell *cell = &cells[i];

		if (!cell->headline)
			continue;
		for (v = PF_READ; v < NR_PF_VARIANTS; v++) {
			if (half_width(&cell->v[v].ratio) <= TARGET_HALF_WIDTH)
				continue;
			format_size(size, sizeof(size), cell->bytes);
			printf("  not met: %s %s %s: +-%.1f%% after %zu repetitions in %.0f s "
			       "(the cell's time budget)\n", walk_name(cell->walk), size,
			       prefetch_variant_name(v), 100 * half_width(&cell->v[v].ratio),
			       cell->reps, cell->seconds);
		}
	}
}

static void print_table(const struct cell *cells, size_t nr_cells)
{
	char size[32], text[80];
	size_t i;
	int v;

	printf("%-11s %-10s %-7s %8s %-4s %5s %-22s", "walk", "layout", "body", "set",
	       "reg", "reps", "none ns [95% CI]");
	for (v = PF_READ; v < NR_PF_VARIANTS; v++)
		printf(" %-23s", prefetch_variant_name(v));
	printf("\n");
	for (i = 0; i < nr_cells; i++) {
		const struct cell *cell = &cells[i];

		format_size(size, sizeof(size), cell->bytes);
		printf("%-11s %-10s %-7s %8s %-4s %5zu ", walk_name(cell->walk),
		       layout_label(cell), body_label(cell), size,
		       regime_name(cell->regime), cell->reps);
		snprintf(text, sizeof(text), "%.2f [%.2f,%.2f]", cell->v[PF_NONE].ns.median,
			 cell->v[PF_NONE].ns.lo, cell->v[PF_NONE].ns.hi);
		printf("%-22s", text);
		for (v = PF_READ; v < NR_PF_VARIANTS; v++) {
			format_ratio(text, sizeof(text), &cell->v[v], false);
			printf(" %-23s", text);
		}
		printf("\n");
	}
}

static void write_csv(FILE *csv, const struct cell *cells, size_t nr_cells)
{
	size_t i;
	int v;

	fprintf(csv, "walk,layout,body,bytes,regime,headline,variant,reps,ns,ns_low,ns_high,"
		"ratio,ci_low,ci_high,p_diff,p_equiv,verdict,hit_ratio,nodes_per_lookup\n");
	for (i = 0; i < nr_cells; i++) {
		const struct cell *cell = &cells[i];

		for (v = 0; v < NR_PF_VARIANTS; v++) {
			const struct variant_result *r = &cell->v[v];

			fprintf(csv, "%s,%s,%s,%zu,%s,%d,%s,%zu,%.4f,%.4f,%.4f,%.5f,%.5f,%.5f,"
				"%.3g,%.3g,%s,%.4f,%.4f\n", walk_name(cell->walk),
				layout_label(cell), body_label(cell), cell->bytes,
				regime_name(cell->regime), cell->headline,
				prefetch_variant_name(v), cell->reps, r->ns.median, r->ns.lo,
				r->ns.hi, r->ratio.median, r->ratio.lo, r->ratio.hi,
				r->p_diff, r->p_equiv, r->verdict, cell->hit_ratio,
				cell->nodes_per_lookup);
		}
	}
}

/* Working sets: 4 KiB up by 4x to 1 GiB and no less than 4x the LLC. */
static size_t working_sets(const struct options *opt, const struct cache_sizes *caches,
			   size_t *sets)
{
	size_t n = 0, bytes, last = 4 * caches->llc > GIB ? 4 * caches->llc : GIB;

	if (opt->quick) {
		sets[n++] = 16 * KIB;
		sets[n++] = 1 * MIB;
		sets[n++] = 64 * MIB;
		return n;
	}
	for (bytes = 4 * KIB; bytes < last && n + 1 < MAX_SETS; bytes *= 4)
		sets[n++] = bytes;
	sets[n++] = bytes;
	return n;
}

/* The cells of the matrix, in the order they are measured. */
static size_t plan_cells(const size_t *sets, size_t nr_sets,
			 const struct latency_point *points, struct cell *cells)
{
	size_t n = 0, i;
	int layout, body;

	for (i = 0; i < nr_sets; i++) {
		for (layout = 0; layout < NR_LAYOUTS; layout++) {
			for (body = 0; body < NR_BODIES; body++)
				cells[n++] = (struct cell){ .walk = WALK_LIST, .layout = layout,
					.body = body, .bytes = sets[i],
					.regime = points[i].regime };
		}
		cells[n++] = (struct cell){ .walk = WALK_HASH_LOOKUP,
			.layout = LAYOUT_SHUFFLED, .bytes = sets[i],
			.regime = points[i].regime };
	}
	/* Headline: per walk and regime, the largest set of the regime. */
	for (i = 0; i < n; i++) {
		struct cell *cell = &cells[i];
		size_t j;
		bool largest = true;

		if (cell->walk == WALK_LIST &&
		    (cell->layout != LAYOUT_SHUFFLED || cell->body != BODY_TOUCH))
			continue;
		for (j = i + 1; j < n; j++)
			if (cells[j].walk == cell->walk && cells[j].regime == cell->regime)
				largest = false;
		cell->headline = largest;
	}
	return n;
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

static int run(const struct options *opt, const struct cache_sizes *caches, FILE *csv)
{
	static struct cell cells[MAX_SETS * (NR_LAYOUTS * NR_BODIES + 1)];
	struct latency_point points[MAX_SETS];
	size_t sets[MAX_SETS], nr_sets, nr_cells, i, weight_left = 0;
	uint64_t sample_ns = opt->quick ? 100000 : 200000;
	double budget_left = opt->seconds, l2_ns;
	struct verdict_counts counts;
	struct node_set set = { 0 };
	size_t set_bytes = 0;
	int set_layout = -1;
	char size[32];

	nr_sets = working_sets(opt, caches, sets);
	for (i = 0; i < nr_sets; i++)
		points[i].bytes = sets[i];
	fprintf(stderr, "listbench: latency sweep over %zu sizes\n", nr_sets);
	l2_ns = latency_sweep(points, nr_sets, caches->l2, caches->llc, true);
	if (l2_ns < 0) {
		fprintf(stderr, "listbench: the latency sweep could not map its memory\n");
		return -1;
	}
	print_latency(points, nr_sets, l2_ns, caches);
	nr_cells = plan_cells(sets, nr_sets, points, cells);
	for (i = 0; i < nr_cells; i++)
		weight_left += cells[i].headline ? HEADLINE_WEIGHT : 1;

	for (i = 0; i < nr_cells; i++) {
		struct cell *cell = &cells[i];
		size_t weight = cell->headline ? HEADLINE_WEIGHT : 1;
		double budget = budget_left * (double)weight / (double)weight_left;
		uint64_t t0 = now_ns();
		double spent;

		if (cell->bytes != set_bytes || (int)cell->layout != set_layout) {
			node_set_free(&set);
			if (node_set_init(&set, cell->bytes / sizeof(struct bench_node),
					  cell->layout, 0x5eed + cell->bytes)) {
				fprintf(stderr, "listbench: cannot allocate %zu bytes of nodes\n",
					cell->bytes);
				return -1;
			}
			set_bytes = cell->bytes;
			set_layout = cell->layout;
		}
		if (measure_cell(&set, cell, sample_ns, budget)) {
			fprintf(stderr, "listbench: out of memory\n");
			return -1;
		}
		spent = (double)(now_ns() - t0) / 1e9;
		budget_left = budget_left > spent ? budget_left - spent : 0;
		weight_left -= weight;
		format_size(size, sizeof(size), cell->bytes);
		fprintf(stderr, "listbench: [%zu/%zu] %s %s %s %s (%s%s): %zu reps in %.1f s, %s\n",
			i + 1, nr_cells, walk_name(cell->walk), layout_label(cell),
			body_label(cell), size, regime_name(cell->regime),
			cell->headline ? ", headline" : "", cell->reps, cell->seconds,
			precise(cell) ? "every CI within +-1%" : "budget spent");
	}
	node_set_free(&set);

	counts = decide(cells, nr_cells);
	printf("\n");
	print_headline(cells, nr_cells);
	printf("\nverdicts over %zu cells x %d variants = %zu: faster %zu, slower %zu, "
	       "equivalent (within +-%.0f%%) %zu, undecided %zu\n", nr_cells,
	       NR_PF_VARIANTS - 1, counts.tests, counts.faster, counts.slower,
	       EQUIV_MARGIN * 100, counts.equivalent, counts.undecided);
	printf("false-discovery rate held at %.0f%% (Benjamini-Hochberg, sign tests): "
	       "%zu differences, at most %.1f of them false in expectation; "
	       "%zu equivalences, at most %.1f false\n", FDR * 100, counts.differences,
	       FDR * (double)counts.differences, counts.equivalences,
	       FDR * (double)counts.equivalences);
	for (i = 0; i < nr_cells; i++) {
		if (cells[i].walk == WALK_HASH_LOOKUP) {
			printf("hash lookups: %.0f%% hits, %.2f chain nodes visited per lookup "
			       "(load factor 1)\n", 100 * cells[i].hit_ratio,
			       cells[i].nodes_per_lookup);
			break;
		}
	}
	printf("\nALL CELLS: ratio [95%% CI] to no prefetch; '-' faster, '+' slower, "
	       "'~' equivalent within +-%.0f%%, '?' undecided\n", EQUIV_MARGIN * 100);
	print_table(cells, nr_cells);
	if (csv)
		write_csv(csv, cells, nr_cells);
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--quick] [--csv FILE] [--seconds N] [--cpu N]\n"
		"  --quick      three working sets, a 30 s budget (for make check)\n"
		"  --csv FILE   write every cell and variant as CSV\n"
		"  --seconds N  the time budget of all measurements (default 420)\n"
		"  --cpu N      the CPU to pin to (default: the last allowed)\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "csv", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "cpu", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .quick = false, .csv_path = NULL, .seconds = -1, .cpu = -1 };
	struct cache_sizes caches = read_cache_sizes();
	FILE *csv = NULL;
	int c, cpu, status;

	while ((c = getopt_long(argc, argv, "qc:s:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			opt.quick = true;
			break;
		case 'c':
			opt.csv_path = optarg;
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
		opt.seconds = opt.quick ? 30 : 420;

	cpu = pin_to_cpu(opt.cpu);
	if (cpu < 0) {
		fprintf(stderr, "listbench: cannot pin to a CPU: %s\n", strerror(errno));
		return 1;
	}
	print_cpu(stdout);
	printf("caches (sysfs): L1d %zu KiB, L2 %zu KiB, LLC %zu MiB; pinned to CPU %d; "
	       "%zu-byte nodes in 4 KiB pages; %.0f s budget\n", caches.l1d / KIB,
	       caches.l2 / KIB, caches.llc / MIB, cpu, sizeof(struct bench_node),
	       opt.seconds);

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
