# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The host benchmark (bench/): its unit tests and its quick matrix.
# shellcheck disable=SC2317 # functions called by name

plan_bench() {
	cat <<'PLAN'
check 300 test_bench_walkers_unit_tests
check 300 test_bench_stats_unit_tests
check 120 test_verdicts_py_known_cases
check:cache 300 test_bench_quick
check 60 test_bench_runs_decide_over_builds
PLAN
}

build_bench() {
	make -s -C "$PROJECT_DIR/bench" BUILD="$LIST_PREFETCH_CACHE/bench"
}

test_bench_walkers_unit_tests() {
	build_bench
	"$LIST_PREFETCH_CACHE/bench/test_walkers"
}

test_bench_stats_unit_tests() {
	build_bench
	"$LIST_PREFETCH_CACHE/bench/test_stats"
}

# The in-guest A/B's statistics (scripts/lib/verdicts.py) give bench/stats.c's
# answers on the same textbook cases.
test_verdicts_py_known_cases() {
	PYTHONPATH=$PROJECT_DIR/scripts/lib python3 - <<'PY'
import math, sys
import verdicts as v
bad = []
if abs(v.binomial_half_cdf(10, 2) - 56 / 1024) > 1e-12:
    bad.append("P(Bin(10,1/2) <= 2) != 56/1024")
if v.median_interval(list(range(20, 0, -1))) != (10.5, 6, 15):
    bad.append(f"n = 20: {v.median_interval(list(range(20, 0, -1)))}, want (10.5, 6, 15)")
if v.benjamini_hochberg([0.01, 0.02, 0.03, 0.5]) != [True, True, True, False]:
    bad.append("Benjamini-Hochberg: want 3 of 4 rejected")
faster = v.decide([v.paired_ratio([(0.9 + i * 1e-4, 1.0) for i in range(30)])])[0]
same = v.decide([v.paired_ratio([(1.0 + (i % 5 - 2) * 1e-3, 1.0) for i in range(30)])])[0]
if faster["verdict"] != "faster" or same["verdict"] != "equivalent":
    bad.append(f"verdicts {faster['verdict']}, {same['verdict']}: want faster, equivalent")
print("\n".join(bad) or "verdicts.py: all known cases")
sys.exit(1 if bad else 0)
PY
}

# The quick grid runs in three builds within a minute and a half, and
# this run's CSV keeps its contract: the columns the docs name; every
# cell with all five variants in every build and in the aggregate; 'none'
# as its own baseline; spreads around the aggregate ratio inside the
# hull of the builds' intervals; the five verdict words, 'unstable' only
# where builds disagree, and verdicts that agree with their ratios; both
# lookup dependences, three loads and three hit shares, with the hit
# ratios the cells asked for; a headline per walk; walkers placed at
# other addresses in each build. Cacheable: what it checks follows from
# bench/, the scripts and the tools, all in the key, and nothing later
# reads its results/bench-quick.*.
test_bench_quick() {
	local csv=$RESULTS_DIR/bench-quick.csv mark t0=$SECONDS run_dir
	mark=$(mktemp)
	sleep 1
	"$PROJECT_DIR/scripts/bench.sh" --quick
	[ -n "$(find "$csv" -newer "$mark")" ] || { echo "$csv was not written by this run"; return 1; }
	run_dir=$(find "$RESULTS_DIR/runs-quick" -mindepth 1 -maxdepth 1 -type d -newer "$mark" | head -1)
	rm -f "$mark"
	[ -n "$run_dir" ] || { echo "no run directory of this run under results/runs-quick/"; return 1; }
	[ $((SECONDS - t0)) -le 90 ] || { echo "make bench-quick took $((SECONDS - t0)) s, over a minute and a half"; return 1; }
	python3 - "$csv" "$run_dir" <<'PY'
import csv, glob, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ("walk,layout,body,work,lookups,load,hits,bytes,variant,ratio,ci_low,ci_high,"
        "spread_low,spread_high,verdict,run,position,regime,headline").split(",")
bad = [f"no column {c}" for c in want if c not in (rows[0] if rows else {})]
cell = lambda r: tuple(r[c] for c in "walk layout body work lookups load hits position bytes".split())
variants, per_run, headline = {}, {}, set()
for r in rows if not bad else []:
    key = cell(r)
    if r["run"] != "all":
        per_run.setdefault((key, r["variant"]), {})[r["run"]] = r["verdict"]
        continue
    variants.setdefault(key, set()).add(r["variant"])
    ratio, lo, hi = float(r["ratio"]), float(r["ci_low"]), float(r["ci_high"])
    s_lo, s_hi = float(r["spread_low"]), float(r["spread_high"])
    if not (lo <= s_lo <= ratio <= s_hi <= hi) or ratio <= 0:
        bad.append(f"bad interval or spread: {r}")
    if r["variant"] == "none":
        if ratio != 1 or r["verdict"] != "baseline":
            bad.append(f"bad baseline: {r}")
        continue
    if r["verdict"] not in ("faster", "slower", "equivalent", "undecided", "unstable"):
        bad.append(f"verdict {r['verdict']!r}")
    if (r["verdict"] == "faster" and s_hi >= 1) or (r["verdict"] == "slower" and s_lo <= 1) \
            or (r["verdict"] == "equivalent" and not (0.98 <= s_lo and s_hi <= 1.02)):
        bad.append(f"verdict {r['verdict']} for builds' ratios {s_lo}..{s_hi}: {r}")
    if r["headline"] == "1":
        headline.add(r["walk"])
    if r["walk"] == "hash-lookup" and abs(float(r["hit_ratio"]) - float(r["hits"])) > 0.15:
        bad.append(f"hash lookups hit {r['hit_ratio']} of the time, the cell asked {r['hits']}")
for r in rows:
    if r["run"] == "all" and r["variant"] != "none":
        runs = per_run.get((cell(r), r["variant"]), {})
        agree = len(set(runs.values())) == 1
        if len(runs) != 3:
            bad.append(f"cell {cell(r)} {r['variant']}: {len(runs)} builds, want 3")
        elif (r["verdict"] == "unstable") == agree:
            bad.append(f"cell {cell(r)} {r['variant']}: verdict {r['verdict']} for builds {runs}")
bad += [f"cell {k} has variants {sorted(v)}" for k, v in variants.items() if len(v) != 5]
lookups = [k for k in variants if k[0] == "hash-lookup"]
for axis, index, values in (("lookups", 4, {"dependent", "independent"}),
                            ("load", 5, {"1", "2", "4"}), ("hits", 6, {"0.00", "0.50", "1.00"}),
                            ("position", 7, {"uniform", "head"})):
    if {k[index] for k in lookups} != values:
        bad.append(f"lookup {axis}s {sorted({k[index] for k in lookups})}, want {sorted(values)}")
if {k[3] for k in variants if k[0] == "list"} != {"0", "400"}:
    bad.append("list walks without the work axis (0 and 400 ns)")
if headline != {"list", "hash-lookup"}:
    bad.append(f"headline walks {sorted(headline)}, want list and hash-lookup")
if len(variants) != 22:
    bad.append(f"{len(variants)} cells, want 3 sets x (2 list + 2 lookup) + 10 lookup sweeps")
placements = [open(p).read().split("\n", 1)[1] for p in sorted(glob.glob(os.path.join(sys.argv[2], "build-*.txt")))]
if len(placements) != 3 or len(set(placements)) != 3 or not all(placements):
    bad.append(f"{len(placements)} builds' placements in {sys.argv[2]}, want 3 that differ")
print(f"{len(rows)} rows, {len(variants)} cells")
print("\n".join(bad[:20]))
sys.exit(1 if bad else 0)
PY
}

# The decision over builds: a cell is faster only where every build says
# so with the false-discovery rate held over all builds' tests; builds
# that disagree make it unstable; the verdict in words follows the
# figures (a doctored CSV where every prefetch costs says so).
test_bench_runs_decide_over_builds() {
	local dir
	dir=$(mktemp -d)
	python3 - "$dir" <<'PY'
import csv, os, sys
d = sys.argv[1]
cols = ("run,walk,layout,body,work,work_steps,lookups,load,hits,position,bytes,regime,latency_ns,"
        "headline,variant,reps,ns,ns_low,ns_high,ratio,ci_low,ci_high,p_diff,p_equiv,verdict,"
        "hit_ratio,nodes_per_lookup,unused_prefetches,null_prefetches,overlap").split(",")
def row(run, walk, lookups, work, variant, ratio, p):
    return dict(zip(cols, [run, walk, "shuffled" if walk == "list" else "hashed",
        "touch" if walk == "list" else "compare", work, 0, lookups, 0 if walk == "list" else 1,
        "0.00" if walk == "list" else "0.50", "-" if walk == "list" else "uniform",
        1 << 30, "DRAM", 200, 1, variant, 100, 100, 99, 101, ratio, ratio * 0.99, ratio * 1.01,
        p, 1, "x", 0.5, 1.2, 0.2, 0.6, 1.0]))
for run, flip in (("1", 0.9), ("2", 0.9), ("3", 1.1)):
    with open(os.path.join(d, f"run-{run}.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, cols)
        w.writeheader()
        for walk, lookups, work, ratio in (("list", "-", 0, 0.9), ("list", "-", 400, flip),
                                           ("hash-lookup", "dependent", 0, 1.1),
                                           ("hash-lookup", "independent", 0, 1.1)):
            w.writerow(row(run, walk, lookups, work, "none", 1.0, 1))
            for v in ("prefetch", "prefetch-nonnull", "prefetchnta", "prefetchw"):
                w.writerow(row(run, walk, lookups, work, v, ratio, 1e-9))
PY
	PYTHONPATH=$PROJECT_DIR/scripts/lib python3 "$PROJECT_DIR/scripts/lib/bench_runs.py" "$dir/all.csv" \
		"$dir"/run-{1,2,3}.csv >"$dir/all.txt"
	sed -i '1i cpu: Test CPU (family 0); kernel x' "$dir/all.txt"
	python3 - "$dir/all.csv" <<'PY'
import csv, sys
agg = {(r["walk"], r["work"], r["lookups"], r["variant"]): r["verdict"]
       for r in csv.DictReader(open(sys.argv[1])) if r["run"] == "all"}
want = {("list", "0", "-", "prefetch"): "faster", ("list", "400", "-", "prefetch"): "unstable",
        ("hash-lookup", "0", "dependent", "prefetch"): "slower"}
bad = [f"{k}: {agg.get(k)}, want {v}" for k, v in want.items() if agg.get(k) != v]
print("\n".join(bad) or "bench_runs.py: faster, unstable and slower as the builds say")
sys.exit(1 if bad else 0)
PY
	python3 "$PROJECT_DIR/scripts/lib/verdict.py" "$dir/all.csv" \
		"$PROJECT_DIR/results/examples/sizes-defconfig.txt" >"$dir/verdict.txt"
	cat "$dir/verdict.txt"
	tr '\n' ' ' <"$dir/verdict.txt" >"$dir/words.txt"
	if ! { grep -q "On Test CPU" "$dir/words.txt" && grep -q "prefetch is faster (ratios [0-9.]* to [0-9.]* in DRAM)" "$dir/words.txt" &&
		grep -q "path walk): prefetch is slower in DRAM" "$dir/words.txt" &&
		grep -q "neither form is ahead" "$dir/words.txt"; }; then
		echo "the verdict in words does not follow the doctored figures"
		return 1
	fi
	# No current sizes result: the size cost is said to be unknown, not
	# taken from a result that is not.
	python3 "$PROJECT_DIR/scripts/lib/verdict.py" "$dir/all.csv" "$dir/no-such-sizes.txt" |
		tr '\n' ' ' >"$dir/words.txt"
	grep -q "Its size cost is not stated" "$dir/words.txt" ||
		{ echo "a verdict without a sizes result claims a size cost"; return 1; }
	rm -rf "$dir"
}
