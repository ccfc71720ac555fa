# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The host benchmark (bench/): its unit tests and its quick matrix.
# shellcheck disable=SC2317 # functions called by name

plan_bench() {
	cat <<'PLAN'
check 300 test_bench_walkers_unit_tests
check 300 test_bench_stats_unit_tests
check 120 test_verdicts_py_known_cases
check 300 test_bench_quick
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

# The in-guest A/B's statistics (scripts/verdicts.py) give bench/stats.c's
# answers on the same textbook cases.
test_verdicts_py_known_cases() {
	PYTHONPATH=$PROJECT_DIR/scripts python3 - <<'PY'
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

# The quick matrix runs, within a minute, and this run's CSV keeps its
# contract: the columns the docs name, every cell with all five
# variants, 'none' as its own baseline, intervals around the ratios,
# the four verdict words and verdicts that agree with their ratios,
# hash-lookup rows with about half hits, and a headline per walk.
test_bench_quick() {
	local csv=$RESULTS_DIR/bench-quick.csv mark t0=$SECONDS
	mark=$(mktemp)
	sleep 1
	"$PROJECT_DIR/scripts/bench.sh" --quick
	[ -n "$(find "$csv" -newer "$mark")" ] || { echo "$csv was not written by this run"; return 1; }
	rm -f "$mark"
	[ $((SECONDS - t0)) -le 90 ] || { echo "make bench-quick took $((SECONDS - t0)) s, over a minute and a half"; return 1; }
	python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = "walk,layout,body,bytes,variant,ratio,ci_low,ci_high,verdict".split(",")
bad = [f"no column {c}" for c in want if c not in (rows[0] if rows else {})]
cells, headline = {}, set()
for r in rows if not bad else []:
    key = (r["walk"], r["layout"], r["body"], r["bytes"])
    cells.setdefault(key, set()).add(r["variant"])
    ratio, lo, hi = float(r["ratio"]), float(r["ci_low"]), float(r["ci_high"])
    if not lo <= ratio <= hi or ratio <= 0:
        bad.append(f"bad interval: {r}")
    if r["variant"] == "none":
        if ratio != 1 or r["verdict"] != "baseline":
            bad.append(f"bad baseline: {r}")
        continue
    if r["verdict"] not in ("faster", "slower", "equivalent", "undecided"):
        bad.append(f"verdict {r['verdict']!r}")
    if (r["verdict"] == "faster" and ratio >= 1) or (r["verdict"] == "slower" and ratio <= 1) \
            or (r["verdict"] == "equivalent" and not 0.98 <= ratio <= 1.02):
        bad.append(f"verdict {r['verdict']} for ratio {ratio}: {r}")
    if r["headline"] == "1":
        headline.add(r["walk"])
    if r["walk"] == "hash-lookup" and not 0.35 <= float(r["hit_ratio"]) <= 0.65:
        bad.append(f"hash lookups hit {r['hit_ratio']} of the time, want about half")
bad += [f"cell {k} has variants {sorted(v)}" for k, v in cells.items() if len(v) != 5]
if headline != {"list", "hash-lookup"}:
    bad.append(f"headline walks {sorted(headline)}, want list and hash-lookup")
if len(cells) != 15:
    bad.append(f"{len(cells)} cells, want 3 sets x (4 list + 1 hash-lookup)")
print(f"{len(rows)} rows, {len(cells)} cells")
print("\n".join(bad[:20]))
sys.exit(1 if bad else 0)
PY
}
