# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The in-guest A/B, short: a functional check that every workload runs in
# both variants, on the debug kernels make check-all builds anyway (the
# bench set's -O2 kernels are make report's, for the measurement).
# shellcheck disable=SC2317 # functions called by name

plan_guest() {
	echo "all 5400 test_guest_bench_quick"
}

# Every metric (listbench's walks, the four workloads) has a positive
# figure from both variants of this run, and under TCG the summary
# carries the "functional only" label.
test_guest_bench_quick() {
	ACCEL=tcg "$PROJECT_DIR/scripts/guest-bench.sh" --quick --set debug
	python3 - "$RESULTS_DIR/guest-bench-quick.json" "$RESULTS_DIR/guest-bench-quick.txt" "${LIST_PREFETCH_RUN_ID:-}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
bad = list(r["problems"])
if r.get("run_id") != sys.argv[3]:
    bad.append(f"the result is from run {r.get('run_id')}, not this one")
listbench = [row for row in r["rows"] if row["metric"].startswith("listbench")]
workloads = {row["metric"] for row in r["rows"]} - {row["metric"] for row in listbench}
# quick: 2 sizes x 2 layouts x 3 walks, and the four workloads
if len(listbench) != 12:
    bad.append(f"{len(listbench)} listbench figures, want 12")
want = {"hackbench", "perf-sched-pipe", "perf-sched-messaging", "tmpfs-metadata"}
if workloads != want:
    bad.append(f"workloads {sorted(workloads)}, want {sorted(want)}")
for row in r["rows"]:
    for variant in ("default", "on"):
        median = row.get(variant, {}).get("median")
        if not median or median <= 0:
            bad.append(f"{row['metric']}: {variant} has no positive figure")
verdict_words = {"faster", "slower", "equivalent", "undecided"}
for row in r["rows"]:
    paired = row.get("paired") or {}
    if paired.get("verdict") not in verdict_words or \
            not paired["ci_low"] <= paired["ratio"] <= paired["ci_high"]:
        bad.append(f"{row['metric']}: no paired on/default ratio with interval and verdict")
if r["accel"] == "tcg" and "functional only — TCG models no caches" not in text:
    bad.append("TCG figures without the functional-only label")
print(f"accel {r['accel']}, {len(r['rows'])} metrics, boots {r['runs']}")
for b in bad:
    print("problem:", b)
sys.exit(1 if bad else 0)
PY
}
