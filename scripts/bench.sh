#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh - the host benchmark: build bench/, run its unit tests, run
# listbench (the full matrix, or --quick) pinned to one CPU, and write
# results/bench[-quick].{txt,csv,png}. Real-CPU timing: QEMU/TCG models
# no caches, so this is the only place cache effects are measured.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 [--quick]" >&2
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
	run gnuplot -e "csv='$csv'; out='$png.tmp.$$'; body='touch'" "$PROJECT_DIR/bench/plot.gp"
	mv -f "$png.tmp.$$" "$png"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	local mode=full name=bench
	case "${1:-}" in
	"") ;;
	--quick) mode=quick name=bench-quick ;;
	*) usage ;;
	esac
	BENCH_BUILD=$LIST_PREFETCH_CACHE/bench
	mkdir -p "$RESULTS_DIR"

	stage_start "bench ($mode)"
	build_bench
	run "$BENCH_BUILD/test_walkers" >&2 ||
		die "the walkers' unit tests failed: a walker visits the wrong nodes" \
			"fix bench/walkers.c or bench/nodes.c before trusting any timing"
	warn_if_busy
	# Temp names of this run's own: two runs never write the same file.
	local csv_tmp txt_tmp
	csv_tmp=$(mktemp "$RESULTS_DIR/$name.csv.tmp.XXXXXX")
	txt_tmp=$(mktemp "$RESULTS_DIR/$name.txt.tmp.XXXXXX")
	local -a args=(--csv "$csv_tmp")
	[ "$mode" = full ] || args+=(--quick)
	run "$BENCH_BUILD/listbench" "${args[@]}" | tee "$txt_tmp"
	mv -f "$csv_tmp" "$RESULTS_DIR/$name.csv"
	mv -f "$txt_tmp" "$RESULTS_DIR/$name.txt"
	plot "$RESULTS_DIR/$name.csv" "$RESULTS_DIR/$name.png"
	log "bench: results/$name.txt, results/$name.csv, results/$name.png"
	stage_end
}

main "$@"; exit
