# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The host benchmark (bench/): its unit tests and its quick matrix.
# shellcheck disable=SC2317 # functions called by name

plan_bench() {
	cat <<'PLAN'
check 300 test_bench_walkers_unit_tests
check 300 test_bench_stats_unit_tests
check 120 test_bench_keys_are_fresh
check 120 test_bench_cache_sources_agree
check 120 test_verdicts_py_known_cases
check:cache 300 test_bench_quick
check 60 test_bench_runs_decide_over_builds
check 60 test_bench_refuses_failed_controls
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

# No two lookup samples of a cell, in any build, share more than 1 % of
# their keys (bench/test_keys.c draws them as listbench does).
test_bench_keys_are_fresh() {
	local out
	build_bench
	out=$("$LIST_PREFETCH_CACHE/bench/test_keys") || { echo "$out"; return 1; }
	echo "$out"
	grep -q '^test_keys: [1-9][0-9]* passed, 0 failed' <<<"$out" || { echo "test_keys ran no case"; return 1; }
}

# The cache sizes have a source, and the sources agree: CPUID gives what
# sysfs gives where both answer, and the measured sweep finds three
# levels in order. The probe file names its source.
test_bench_cache_sources_agree() {
	local bin=$LIST_PREFETCH_CACHE/bench/listbench sysfs cpuid measured
	build_bench
	sysfs=$("$bin" --caches sysfs) || sysfs=
	cpuid=$("$bin" --caches cpuid) || cpuid=
	measured=$("$bin" --caches measured) || { echo "the latency sweep found no three cache levels: $measured"; return 1; }
	printf '%s\n' "$sysfs" "$cpuid" "$measured"
	if [ -n "$sysfs" ] && [ -n "$cpuid" ] && [ "${sysfs#caches (sysfs)}" != "${cpuid#caches (cpuid)}" ]; then
		echo "CPUID and sysfs disagree on the caches"
		return 1
	fi
	if [ -z "$sysfs$cpuid" ] && grep -Eq '^flags.* (hypervisor)' /proc/cpuinfo; then
		echo "# neither sysfs nor CPUID describe the caches here: the benchmark measures them"
	fi
	python3 - "$measured" <<'PY'
import re, sys
m = re.match(r"caches \(measured\): L1d (\d+) KiB, L2 (\d+) KiB, LLC (\d+) KiB", sys.argv[1])
sys.exit(0 if m and int(m[1]) < int(m[2]) < int(m[3]) else 1)
PY
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
# this run's CSV keeps its contract: the columns the docs name (v3's and
# the control's, shape, layout, list length and pages); every cell with
# all six forms in every build and in the aggregate; 'none' as its own
# baseline; an A/A control in every row, and the run not refused; spreads
# around the aggregate ratio inside the hull of the builds' intervals;
# verdicts that agree with their ratios and lie beyond the control;
# 'unstable' only where builds disagree; both lookup dependences, three
# loads and three hit shares; every node shape, both layouts, short lists
# and 2 MiB pages; a headline per walk; walkers placed at other addresses
# in each build, the control at its original's page offset. Cacheable:
# what it checks follows from bench/, the scripts and the tools, all in
# the key, and nothing later reads its results/bench-quick.*.
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
import csv, glob, os, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ("walk,layout,body,work,lookups,load,hits,bytes,variant,ratio,ci_low,ci_high,"
        "spread_low,spread_high,verdict,run,position,regime,headline,control_ratio,"
        "control_ci_low,control_ci_high,shape,list_len,pages").split(",")
bad = [f"no column {c}" for c in want if c not in (rows[0] if rows else {})]
keys = "walk shape layout list_len pages body work lookups load hits position bytes".split()
cell = lambda r: tuple(r[c] for c in keys)
col = {c: i for i, c in enumerate(keys)}
variants, per_run, headline = {}, {}, set()
for r in rows if not bad else []:
    key = cell(r)
    c, lo_c, hi_c = float(r["control_ratio"]), float(r["control_ci_low"]), float(r["control_ci_high"])
    if not (lo_c <= c <= hi_c) or not 0.5 < c < 2:
        bad.append(f"bad control {c} [{lo_c}, {hi_c}]: {key}")
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
    if (r["verdict"] == "faster" and (s_hi >= 1 or s_hi >= hi_c)) or \
            (r["verdict"] == "slower" and (s_lo <= 1 or s_lo <= lo_c)) \
            or (r["verdict"] == "equivalent" and not (0.98 <= s_lo and s_hi <= 1.02)):
        bad.append(f"verdict {r['verdict']} for builds' ratios {s_lo}..{s_hi}, control [{lo_c}, {hi_c}]: {key}")
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
forms = {"none", "prefetch", "prefetch-nonnull", "prefetch-cmov", "prefetchnta", "prefetchw"}
bad += [f"cell {k} has forms {sorted(v)}" for k, v in variants.items() if v != forms]
lookups = [k for k in variants if k[0] == "hash-lookup"]
lists = [k for k in variants if k[0] == "list"]
for what, cells, axis, values in (("lookup", lookups, "lookups", {"dependent", "independent"}),
                                  ("lookup", lookups, "load", {"1", "2", "4"}),
                                  ("lookup", lookups, "hits", {"0.00", "0.50", "1.00"}),
                                  ("lookup", lookups, "position", {"uniform", "head"}),
                                  ("list", lists, "shape", {"line", "dentry", "skb"}),
                                  ("list", lists, "layout", {"shuffled", "alloc-order"}),
                                  ("list", lists, "list_len", {"8", "1024"}),
                                  ("list", lists, "pages", {"4k", "2M"}),
                                  ("list", lists, "work", {"0", "400"})):
    got = {k[col[axis]] for k in cells}
    if got != values:
        bad.append(f"{what} {axis}s {sorted(got)}, want {sorted(values)}")
if headline != {"list", "hash-lookup"}:
    bad.append(f"headline walks {sorted(headline)}, want list and hash-lookup")
if len(variants) != 29:
    bad.append(f"{len(variants)} cells, want 3 sets x (2 list + 2 lookup) + 10 lookup sweeps "
               "+ 5 list axes + 2 lookups in 2 MiB pages")
placements = [open(p).read().split("\n", 1)[1] for p in sorted(glob.glob(os.path.join(sys.argv[2], "build-*.txt")))]
if len(placements) != 3 or len(set(placements)) != 3 or not all(placements):
    bad.append(f"{len(placements)} builds' placements in {sys.argv[2]}, want 3 that differ")
probe = open(os.path.join(sys.argv[2], "probe.txt")).read()
if not re.search(r"^caches \d+ \d+ \d+ (sysfs|cpuid|measured)$", probe, re.M):
    bad.append("the probe does not say where the cache sizes came from")
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
	TESTS_DIR=$PROJECT_DIR/tests python3 - "$dir" <<'PY'
import csv, os, sys
d = sys.argv[1]
sys.path.insert(0, os.environ["TESTS_DIR"])
from bench_fixture import write_runs
# list work 0: faster in every build; work 400: builds disagree; 20: a
# difference inside the control's interval; dependent lookups slower,
# independent ones faster (a gain counts as a loss does).
write_runs(d, {("list", "-", 0): (0.9, 0.9, 0.9), ("list", "-", 400): (0.9, 0.9, 1.1),
               ("list", "-", 20): (0.995, 0.995, 0.995),
               ("hash-lookup", "dependent", 0): (1.1, 1.1, 1.1),
               ("hash-lookup", "independent", 0): (0.9, 0.9, 0.9)},
           control=(1.0, 0.99, 1.01))
PY
	PYTHONPATH=$PROJECT_DIR/scripts/lib python3 "$PROJECT_DIR/scripts/lib/bench_runs.py" "$dir/all.csv" \
		"$dir"/run-{1,2,3}.csv >"$dir/all.txt"
	sed -i '1i cpu: Test CPU (family 0); kernel x' "$dir/all.txt"
	python3 - "$dir/all.csv" <<'PY'
import csv, sys
agg = {(r["walk"], r["work"], r["lookups"], r["variant"]): r["verdict"]
       for r in csv.DictReader(open(sys.argv[1])) if r["run"] == "all"}
want = {("list", "0", "-", "prefetch"): "faster", ("list", "400", "-", "prefetch"): "unstable",
        ("list", "20", "-", "prefetch"): "undecided",
        ("hash-lookup", "0", "dependent", "prefetch"): "slower",
        ("hash-lookup", "0", "independent", "prefetch"): "faster"}
bad = [f"{k}: {agg.get(k)}, want {v}" for k, v in want.items() if agg.get(k) != v]
print("\n".join(bad) or "bench_runs.py: faster, unstable and slower as the builds say")
sys.exit(1 if bad else 0)
PY
	python3 "$PROJECT_DIR/scripts/lib/verdict.py" --uml none "$dir/all.csv" \
		"$PROJECT_DIR/results/examples/sizes-defconfig.txt" >"$dir/verdict.txt"
	cat "$dir/verdict.txt"
	tr '\n' ' ' <"$dir/verdict.txt" >"$dir/words.txt"
	if ! { grep -q "On Test CPU" "$dir/words.txt" && grep -q "at 0 ns of work per node: prefetch is faster in DRAM" "$dir/words.txt" &&
		grep -q "path walk): prefetch is slower in DRAM" "$dir/words.txt" &&
		grep -q "Where an iterator's prefetch pays on this CPU: list walks at 0 ns of work per node in DRAM; independent lookups in DRAM" "$dir/words.txt" &&
		grep -q "Where it costs: dependent lookups in DRAM" "$dir/words.txt" &&
		grep -q "pays in some regimes and costs in others" "$dir/words.txt"; }; then
		echo "the verdict in words does not follow the doctored figures"
		return 1
	fi
	# With the in-kernel result beside it: the answer first, from both
	# sources; the kernel's regimes; a disagreement named unexplained; and
	# what of the series to send, drop and hold, from the UML decisions.
	cat >"$dir/uml.txt" <<'UML_RESULT'
UML (ARCH=um) on Test CPU (family 0, model 0), host kernel 6.0, inside a KVM VM, pinned to CPU 1;
UP, HZ=100; boots: results/cpus/test/uml-runs/abc1234-20260101T000000Z
list           16 KiB   30     2.28     2.05  0.900 [0.880,0.910]    faster      0.9/0.9/0.9
skb            16 KiB   30     3.00     3.15  1.050 [1.040,1.070]    slower      1.0/1.0/1.0
list           64 MiB   30   210.00   210.00  1.000 [0.995,1.005]    equivalent  1.0/1.0/1.0
tiny_rcu       4 MiB   10   217.25   165.75  0.737 [0.708,0.782] [0.697,0.794]        faster
in-kernel and user-space ratios disagree beyond both intervals: list 16 KiB: in-kernel 0.900, user space 1.000
patch 'rcu: tiny': the prefetch pays at 4 MiB: keep it (drop the patch)
patch 'blk-mq': not decided (16 KiB undecided (2.9 %, ~85 boots for +-1 %)): not sent as measured (the RFC list, docs/series.md)
UML_RESULT
	python3 "$PROJECT_DIR/scripts/lib/verdict.py" --uml "$dir/uml.txt" "$dir/all.csv" \
		"$PROJECT_DIR/results/examples/sizes-defconfig.txt" | tr '\n' ' ' >"$dir/words.txt"
	local want
	for want in "The answer on Test CPU (family 0): keep CONFIG_LIST_PREFETCH off" \
		"on Test CPU (family 0, model 0) inside a KVM VM" "pays in list 16 KiB (-10.0 %)" \
		"it costs in skb 16 KiB (+5.0 %)" "it does not matter in list 64 MiB (+0.0 %)" \
		"list 16 KiB: in-kernel 0.900, user space 1.000 (unexplained)" \
		"Send: the series, $(grep -vc '^#' "$PROJECT_DIR/patches/series") patches" \
		"Drop: 'rcu: tiny' (its prefetch pays at 4 MiB)" "Hold for an RFC: 'blk-mq' (undecided"; do
		grep -qF "$want" "$dir/words.txt" ||
			{ cat "$dir/words.txt"; echo; echo "the two-source verdict lacks: $want"; return 1; }
	done
	! grep -q "tiny_rcu" "$dir/words.txt" || { echo "a swept path taken for an iterator cell"; return 1; }
	# No current sizes result: the size cost is said to be unknown, not
	# taken from a result that is not.
	python3 "$PROJECT_DIR/scripts/lib/verdict.py" --uml none "$dir/all.csv" "$dir/no-such-sizes.txt" |
		tr '\n' ' ' >"$dir/words.txt"
	grep -q "Its size cost is not stated" "$dir/words.txt" ||
		{ echo "a verdict without a sizes result claims a size cost"; return 1; }
	rm -rf "$dir"
}

# A run whose A/A controls (the same code against itself, the median of
# the builds') are off by more than 1 % in more than 5 % of its cells is
# refused, with the cells named; one build's control off in one cell is
# not.
test_bench_refuses_failed_controls() {
	local dir out rc
	dir=$(mktemp -d)
	TESTS_DIR=$PROJECT_DIR/tests python3 - "$dir" <<'PY'
import os, sys
sys.path.insert(0, os.environ["TESTS_DIR"])
from bench_fixture import write_runs
cells = {("list", "-", w): (0.9, 0.9, 0.9) for w in range(0, 100, 10)}
write_runs(os.path.join(sys.argv[1], "bad"), cells, control=(1.0, 0.99, 1.01),
           off={("list", "-", 10): (1.05, 1.03, 1.07), ("list", "-", 20): (0.95, 0.93, 0.97)})
write_runs(os.path.join(sys.argv[1], "good"), cells, control=(1.0, 0.99, 1.01),
           off={("list", "-", 10): (1.05, 1.03, 1.07)}, off_runs=("2",))
PY
	rc=0
	out=$(PYTHONPATH=$PROJECT_DIR/scripts/lib python3 "$PROJECT_DIR/scripts/lib/bench_runs.py" \
		"$dir/bad.csv" "$dir"/bad/run-{1,2,3}.csv --refuse 2>&1 >/dev/null) || rc=$?
	echo "$out"
	if [ "$rc" -ne 3 ] || ! grep -q "refused: the A/A control .* in 2 of 10 cells" <<<"$out" ||
		! grep -q "list line shuffled len 1024 4k work 10, 1 GiB (1.050; builds 1.050, 1.050, 1.050)" <<<"$out"; then
		echo "controls off in 2 of 10 cells: want exit 3 naming them, got $rc"
		rm -rf "$dir"
		return 1
	fi
	PYTHONPATH=$PROJECT_DIR/scripts/lib python3 "$PROJECT_DIR/scripts/lib/bench_runs.py" \
		"$dir/good.csv" "$dir"/good/run-{1,2,3}.csv --refuse >/dev/null ||
		{ echo "one build's control off in one cell refused the run"; rm -rf "$dir"; return 1; }
	rm -rf "$dir"
}
