#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh - the host benchmark: build bench/ as RUNS binaries whose code
# placement differs (bench/pad.c), run its unit tests, run each binary's
# listbench over the grid (quick, default or full) pinned to one CPU,
# and decide over all runs (scripts/lib/bench_runs.py): results/bench[-quick]
# .{txt,csv,png}. Every run is kept, with the addresses of its walkers,
# under results/cpus/<cpu>/runs/<commit>-<time>/ (quick runs: under
# results/runs-quick/); the last default or full run's results are kept
# under results/cpus/<cpu>/, one directory per CPU model this project has
# met, results/bench-cpus.txt sets their headlines side by side, and
# results/verdict.txt says in words what they mean (scripts/lib/verdict.py;
# --verdict writes it again from the last run, with the current sizes).
# Real-CPU timing: QEMU/TCG models no caches, so this and UML are the
# only places cache effects are measured.
# shellcheck disable=SC2317 # functions called by name (write_atomic)
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

# The code placements of the runs, as bench/Makefile's PADS: run i links
# PADS[i] bytes of code ahead of the walkers.
PADS=(0 1104 2336 3632)

usage() {
	echo "usage: $0 [--quick | --full] [--runs R (3..${#PADS[@]})] [--seconds N (per run)] | --verdict" >&2
	exit 2
}

build_bench() {
	local runs=$1
	need_cmd gcc build-essential
	run make -s -C "$PROJECT_DIR/bench" BUILD="$BENCH_BUILD" all placements \
		PADS="${PADS[*]:0:$runs}" >&2
}

# placement_of BINARY: where its walkers landed (nm), the proof that the
# runs' code placement differs.
placement_of() {
	echo "# $(basename "$1"): the timed functions' addresses (nm -n)"
	nm -n "$1" | awk '$3 ~ /^(listbench_code_pad|list_walk_|lookup_(none|read|nonnull|nta|write)_)/ { print "  " $1, $3 }'
}

# cpu_busy_percent: how busy the CPUs were over one second, from
# /proc/stat (the load average lags a finished build by minutes).
cpu_busy_percent() {
	local user nice system idle iowait irq softirq steal total1 idle1
	read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
	total1=$((user + nice + system + idle + iowait + irq + softirq + steal))
	idle1=$((idle + iowait))
	sleep 1
	read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
	total1=$((user + nice + system + idle + iowait + irq + softirq + steal - total1))
	idle1=$((idle + iowait - idle1))
	echo $((100 * (total1 - idle1) / (total1 > 0 ? total1 : 1)))
}

# The benchmark shares the machine: say how busy it was.
warn_if_busy() {
	local busy
	busy=$(cpu_busy_percent)
	log "bench: CPUs ${busy}% busy just before the run"
	if [ "$busy" -gt 10 ]; then
		log "bench: warning: the machine is busy; intervals will be wide. Re-run on an idle machine for figures to quote."
	fi
}

plot() {
	local csv=$1 png=$2
	if ! command -v gnuplot >/dev/null 2>&1; then
		log "bench: gnuplot not found, no plot ('make deps' installs gnuplot-nox)"
		return 0
	fi
	run gnuplot -e "csv='$csv'; out='$png.tmp.$$'; cpu='$(cpu_field 'model name')'" \
		"$PROJECT_DIR/bench/plot.gp"
	mv -f "$png.tmp.$$" "$png"
}

# cpu_stamp: what the results of one CPU were measured on, and how.
cpu_stamp() {
	echo "cpu: $(cpu_field 'model name')"
	echo "family/model/stepping: $(cpu_field 'cpu family')/$(cpu_field model)/$(cpu_field stepping)"
	echo "vendor: $(cpu_field vendor_id); microcode: $(cpu_field microcode)"
	lscpu -C 2>/dev/null | sed 's/^/cache: /' || true
	echo "kernel: $(uname -r)"
	result_stamp
}

keep_cpu_results() {
	local dir
	dir=$RESULTS_DIR/cpus/$(cpu_slug)
	mkdir -p "$dir"
	cp "$RESULTS_DIR/bench.txt" "$RESULTS_DIR/bench.csv" "$dir/"
	[ ! -f "$RESULTS_DIR/bench.png" ] || cp "$RESULTS_DIR/bench.png" "$dir/"
	write_atomic "$dir/cpu.txt" cpu_stamp
	write_atomic "$RESULTS_DIR/bench-cpus.txt" \
		stamped python3 "$PROJECT_DIR/scripts/lib/bench_cpus.py" "$RESULTS_DIR/cpus"
	log "bench: kept under results/${dir#"$RESULTS_DIR"/}; every CPU side by side: results/bench-cpus.txt"
}

# write_verdict [--current-bench] BENCH_CSV: results/verdict.txt, the
# benchmark's verdicts in words with the size cost of the option from
# the first current x86_64 sizes: defconfig's, else the qemu config's,
# else make report's of the option alone; each this checkout's own
# (results/) before the quoted one (results/examples/).
write_verdict() {
	write_atomic "$RESULTS_DIR/verdict.txt" verdict_text "$@"
	log "bench: the verdict in words: results/verdict.txt ('make readme' quotes it)"
}

verdict_text() {
	result_stamp
	local name
	local -a sizes=()
	for name in sizes-defconfig sizes-qemu sizes-qemu-option; do
		sizes+=("$RESULTS_DIR/$name.txt" "$PROJECT_DIR/results/examples/$name.txt")
	done
	python3 "$PROJECT_DIR/scripts/lib/verdict.py" "$@" "${sizes[@]}"
}

# verdict_only: the verdict again from this CPU's last benchmark, when
# only the sizes it cites were remade (the benchmark's code unchanged).
verdict_only() {
	local csv=$RESULTS_DIR/bench.csv
	[ -f "$csv" ] || csv=$RESULTS_DIR/cpus/$(cpu_slug)/bench.csv
	[ -f "$csv" ] || die "no benchmark of this CPU ($(cpu_slug)) in results/" "run: make bench"
	write_verdict --current-bench "$csv"
	cat "$RESULTS_DIR/verdict.txt"
}

# run_all GRID RUNS RUN_DIR ARGS...: each placement's listbench in turn.
run_all() {
	local grid=$1 runs=$2 run_dir=$3 i pad
	shift 3
	for ((i = 1; i <= runs; i++)); do
		pad=${PADS[i - 1]}
		log "bench: run $i of $runs (grid $grid, walkers moved by $pad bytes)"
		placement_of "$BENCH_BUILD/listbench-pad$pad" >"$run_dir/build-$i.txt"
		{
			result_stamp
			run "$BENCH_BUILD/listbench-pad$pad" --grid "$grid" --run "$i" \
				--csv "$run_dir/run-$i.csv.tmp" "$@"
		} >"$run_dir/run-$i.txt.tmp"
		mv -f "$run_dir/run-$i.csv.tmp" "$run_dir/run-$i.csv"
		mv -f "$run_dir/run-$i.txt.tmp" "$run_dir/run-$i.txt"
	done
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	local grid=default name=bench runs=${BENCH_RUNS:-3}
	local -a listbench_args=()
	while [ $# -gt 0 ]; do
		case "$1" in
		--verdict) verdict_only; return ;;
		--quick) grid=quick name=bench-quick ;;
		--full) grid=full ;;
		--runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
		--seconds) [ $# -ge 2 ] || usage; listbench_args+=(--seconds "$2"); shift ;;
		*) usage ;;
		esac
		shift
	done
	if ! [[ "$runs" =~ ^[0-9]+$ ]] || [ "$runs" -lt 3 ] || [ "$runs" -gt ${#PADS[@]} ]; then
		die "--runs $runs: a verdict that survives a rebuild needs 3 to ${#PADS[@]} builds" \
			"give --runs 3 (the default) or up to ${#PADS[@]}"
	fi
	BENCH_BUILD=$LIST_PREFETCH_CACHE/bench
	mkdir -p "$RESULTS_DIR"

	stage_start "bench ($grid, $runs builds)"
	build_bench "$runs"
	run "$BENCH_BUILD/test_walkers" >&2 ||
		die "the walkers' unit tests failed: a walker visits the wrong nodes, or a lookup's dependence is not what its name says" \
			"fix bench/walkers.c or bench/nodes.c before trusting any timing"
	run "$BENCH_BUILD/test_stats" >&2 ||
		die "the statistics' unit tests failed: verdicts cannot be trusted" \
			"fix bench/stats.c"
	warn_if_busy
	local run_dir
	if [ "$grid" = quick ]; then
		run_dir=$RESULTS_DIR/runs-quick/$(project_commit)-$(date -u +%Y%m%dT%H%M%SZ)
	else
		run_dir=$RESULTS_DIR/cpus/$(cpu_slug)/runs/$(project_commit)-$(date -u +%Y%m%dT%H%M%SZ)
	fi
	mkdir -p "$run_dir"
	run_all "$grid" "$runs" "$run_dir" "${listbench_args[@]}"
	local -a run_csvs=()
	local i
	for ((i = 1; i <= runs; i++)); do
		run_csvs+=("$run_dir/run-$i.csv")
	done
	# Published only whole: a failed aggregation leaves the last results.
	local csv_tmp txt_tmp
	csv_tmp=$(mktemp "$RESULTS_DIR/$name.csv.tmp.XXXXXX")
	txt_tmp=$(mktemp "$RESULTS_DIR/$name.txt.tmp.XXXXXX")
	{
		result_stamp
		echo "grid $grid, $runs builds; each run's report and placement: ${run_dir#"$PROJECT_DIR"/}/"
		grep -m1 '^cpu:' "$run_dir/run-1.txt"
		grep -m1 '^body work:' "$run_dir/run-1.txt"
		sed -n '/^regimes by measurement/,/^body work/p' "$run_dir/run-1.txt" | sed '$d'
		echo
		PYTHONPATH=$PROJECT_DIR/scripts/lib python3 "$PROJECT_DIR/scripts/lib/bench_runs.py" \
			"$csv_tmp" "${run_csvs[@]}"
	} >"$txt_tmp"
	mv -f "$csv_tmp" "$RESULTS_DIR/$name.csv"
	mv -f "$txt_tmp" "$RESULTS_DIR/$name.txt"
	# The run keeps its decision too: a later run replaces results/bench.*.
	cp "$RESULTS_DIR/$name.txt" "$RESULTS_DIR/$name.csv" "$run_dir/"
	cat "$RESULTS_DIR/$name.txt"
	plot "$RESULTS_DIR/$name.csv" "$RESULTS_DIR/$name.png"
	log "bench: results/$name.txt, results/$name.csv, results/$name.png; runs: ${run_dir#"$PROJECT_DIR"/}"
	if [ "$grid" != quick ]; then
		keep_cpu_results
		write_verdict "$RESULTS_DIR/bench.csv"
	fi
	stage_end
}

main "$@"; exit
