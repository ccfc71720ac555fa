#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh - the host benchmark: build bench/, run its unit tests, run
# listbench (the full matrix, or --quick) pinned to one CPU, and write
# results/bench[-quick].{txt,csv,png}. A full run is also kept under
# results/cpus/<cpu>/, stamped, one directory per CPU model this project
# has met, and results/bench-cpus.txt sets their headlines side by side.
# Real-CPU timing: QEMU/TCG models no caches, so this is the only place
# cache effects are measured.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 [--quick] [--seconds N]" >&2
	exit 2
}

build_bench() {
	need_cmd gcc build-essential
	run make -s -C "$PROJECT_DIR/bench" BUILD="$BENCH_BUILD" >&2
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

# cpu_field KEY: the first value of KEY in /proc/cpuinfo.
cpu_field() {
	awk -F'\t*: ' -v key="$1" '$1 == key { print $2; exit }' /proc/cpuinfo
}

# cpu_slug: one directory name per CPU model, e.g. amd-epyc-f25m1s1.
cpu_slug() {
	local name
	name=$(cpu_field 'model name' | tr '[:upper:]' '[:lower:]' | sed 's/([^)]*)//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
	echo "${name:-cpu}-f$(cpu_field 'cpu family')m$(cpu_field model)s$(cpu_field stepping)"
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
	cpu_stamp | write_atomic "$dir/cpu.txt"
	{
		result_stamp
		python3 "$PROJECT_DIR/scripts/bench_cpus.py" "$RESULTS_DIR/cpus"
	} | write_atomic "$RESULTS_DIR/bench-cpus.txt"
	log "bench: kept under results/${dir#"$RESULTS_DIR"/}; every CPU side by side: results/bench-cpus.txt"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	local mode=full name=bench
	local -a listbench_args=()
	while [ $# -gt 0 ]; do
		case "$1" in
		--quick) mode=quick name=bench-quick; listbench_args+=(--quick) ;;
		--seconds) [ $# -ge 2 ] || usage; listbench_args+=(--seconds "$2"); shift ;;
		*) usage ;;
		esac
		shift
	done
	BENCH_BUILD=$LIST_PREFETCH_CACHE/bench
	mkdir -p "$RESULTS_DIR"

	stage_start "bench ($mode)"
	build_bench
	run "$BENCH_BUILD/test_walkers" >&2 ||
		die "the walkers' unit tests failed: a walker visits the wrong nodes" \
			"fix bench/walkers.c or bench/nodes.c before trusting any timing"
	run "$BENCH_BUILD/test_stats" >&2 ||
		die "the statistics' unit tests failed: verdicts cannot be trusted" \
			"fix bench/stats.c"
	warn_if_busy
	# Temp names of this run's own: two runs never write the same file.
	local csv_tmp txt_tmp
	csv_tmp=$(mktemp "$RESULTS_DIR/$name.csv.tmp.XXXXXX")
	txt_tmp=$(mktemp "$RESULTS_DIR/$name.txt.tmp.XXXXXX")
	result_stamp >"$txt_tmp"
	run "$BENCH_BUILD/listbench" --csv "$csv_tmp" "${listbench_args[@]}" | tee -a "$txt_tmp"
	mv -f "$csv_tmp" "$RESULTS_DIR/$name.csv"
	mv -f "$txt_tmp" "$RESULTS_DIR/$name.txt"
	plot "$RESULTS_DIR/$name.csv" "$RESULTS_DIR/$name.png"
	log "bench: results/$name.txt, results/$name.csv, results/$name.png"
	[ "$mode" = quick ] || keep_cpu_results
	stage_end
}

main "$@"; exit
