#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh - the host benchmark: build bench/ as RUNS binaries whose code
# placement differs (bench/walker_gen.h's pad), run its unit tests, then
# one run over the grid (quick, default or full) pinned to one CPU:
#
#   probe      one build measures the caches (sysfs, CPUID or a sweep,
#              and says which), places the working sets from them, labels
#              each by a latency sweep and calibrates the body's work: the
#              plan every build shares (probe.txt);
#   chunks     the builds take turns, one node set's cells at a time, in
#              rounds A B C, C B A, ... so that a drift of the machine hits
#              every build alike;
#   crossover  where the grid says a prefetch starts paying between two
#              work points, each build bisects it to within 10 ns;
#   chase      bench/chase.c, a plain fresh-key chase, beside the
#              independent lookups at the DRAM sets (not in --quick);
#
# and decide over all builds (scripts/lib/bench_runs.py), refusing a run
# whose A/A controls fail: results/bench[-quick].{txt,csv,png}. Every run
# is kept, with the addresses of its walkers, under
# results/cpus/<cpu>/runs/<commit>-<time>/ (quick runs: under
# results/runs-quick/); the last default or full run's results are kept
# under results/cpus/<cpu>/ with cpu.txt (caches and their source,
# hypervisor, kernel, governor, boost, SMT, THP), results/bench-cpus.txt
# sets the CPUs side by side, and results/verdict.txt says in words what
# they mean (scripts/lib/verdict.py; --verdict writes it again from the
# last run, with the current sizes). Real-CPU timing: QEMU/TCG models no
# caches, so this and UML are the only places cache effects are measured.
# shellcheck disable=SC2317 # functions called by name (write_atomic)
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

# The code placements of the builds, as bench/Makefile's PADS: build i
# starts its walkers PADS[i] bytes into their page.
PADS=(0 1104 2336 3632)

usage() {
	echo "usage: $0 [--quick | --full] [--runs R (3..${#PADS[@]})] [--seconds N (per build)] | --verdict" >&2
	exit 2
}

build_bench() {
	local runs=$1
	need_cmd gcc build-essential
	run make -s -C "$PROJECT_DIR/bench" BUILD="$BENCH_BUILD" all placements \
		PADS="${PADS[*]:0:$runs}" >&2
}

# placement_of BINARY: where its walkers landed (nm), the proof that the
# builds' code placement differs and that the A/A copy sits as the
# original does (the same offset in its page).
placement_of() {
	echo "# $(basename "$1"): the timed functions' addresses (nm -n)"
	nm -n "$1" | awk '$3 ~ /^(none|read|nonnull|cmov|nta|write|control)_(list|lookup)_/ { print "  " $1, $3 }'
}

# check_control_placement BUILD_TXT: every control walker at its
# original's offset in the page, in another page.
check_control_placement() {
	python3 "$PROJECT_DIR/scripts/lib/bench_code.py" control-placement "$1"
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
	BENCH_BUSY=$busy
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

# sysfs_word PATH [DEFAULT]: the first line of a sysfs file, or DEFAULT.
sysfs_word() {
	if [ -r "$1" ]; then head -n1 "$1"; else echo "${2:-absent}"; fi
}

# cpu_stamp PROBE: what the results of one CPU were measured on, and how.
cpu_stamp() {
	local probe=$1 hypervisor
	echo "cpu: $(cpu_field 'model name')"
	echo "family/model/stepping: $(cpu_field 'cpu family')/$(cpu_field model)/$(cpu_field stepping)"
	echo "vendor: $(cpu_field vendor_id); microcode: $(cpu_field microcode)"
	awk '$1 == "caches" { printf "caches: L1d %d KiB, L2 %d KiB, LLC %d KiB (source: %s)\n", $2 / 1024, $3 / 1024, $4 / 1024, $5 }' "$probe"
	lscpu -C 2>/dev/null | sed 's/^/cache (lscpu): /' || true
	hypervisor=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p')
	if [ -z "$hypervisor" ] && grep -qw hypervisor /proc/cpuinfo; then hypervisor="yes (vendor not named)"; fi
	echo "hypervisor: ${hypervisor:-none (bare metal)}"
	echo "kernel: $(uname -r)"
	echo "governor: $(sysfs_word /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 'none (no cpufreq: the hypervisor or firmware sets the clock)')"
	echo "boost: $(sysfs_word /sys/devices/system/cpu/cpufreq/boost 'not exposed')"
	echo "smt: active $(sysfs_word /sys/devices/system/cpu/smt/active "?"), control $(sysfs_word /sys/devices/system/cpu/smt/control "?"); threads per core $(lscpu 2>/dev/null | sed -n 's/^Thread(s) per core: *//p')"
	echo "thp: enabled $(sysfs_word /sys/kernel/mm/transparent_hugepage/enabled), defrag $(sysfs_word /sys/kernel/mm/transparent_hugepage/defrag); hugetlb pages reserved $(sysfs_word /proc/sys/vm/nr_hugepages 0)"
	result_stamp
}

keep_cpu_results() {
	local probe=$1 dir
	dir=$RESULTS_DIR/cpus/$(cpu_slug)
	mkdir -p "$dir"
	cp "$RESULTS_DIR/bench.txt" "$RESULTS_DIR/bench.csv" "$RESULTS_DIR/bench-checks.txt" "$dir/"
	[ ! -f "$RESULTS_DIR/bench.png" ] || cp "$RESULTS_DIR/bench.png" "$dir/"
	write_atomic "$dir/cpu.txt" cpu_stamp "$probe"
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

# bench_checks BENCH_TXT: its A/A control, work and crossover, and
# cross-check sections, stamped.
bench_checks() {
	result_stamp
	sed -n '/^caches (/p; /^A\/A CONTROL/,/^$/p; /^WORK PER NODE/,/^$/p; /^CROSS-CHECK/,/^$/p' "$1"
}

# build_order ROUND RUNS: the builds' order in round ROUND, A B C then
# C B A, so that each build is as often early as late.
build_order() {
	local round=$1 runs=$2 i
	if [ $((round % 2)) -eq 0 ]; then
		for ((i = 1; i <= runs; i++)); do echo "$i"; done
	else
		for ((i = runs; i >= 1; i--)); do echo "$i"; done
	fi
}

# listbench_of BUILD: the binary of build BUILD (1-based).
listbench_of() {
	echo "$BENCH_BUILD/listbench-pad${PADS[$1 - 1]}"
}

# run_chunks RUN_DIR RUNS ARGS...: every chunk of the plan in every
# build, the builds taking turns chunk by chunk.
run_chunks() {
	local run_dir=$1 runs=$2 nr_chunks chunk build
	shift 2
	nr_chunks=$("$(listbench_of 1)" --plan "$run_dir/probe.txt" --list | awk 'END { print $2 + 1 }')
	[ "$nr_chunks" -gt 0 ] || die "listbench planned no cells from $run_dir/probe.txt" "see the probe's report: $run_dir/probe-report.txt"
	log "bench: $nr_chunks chunks (one node set each) x $runs builds, taking turns"
	for ((chunk = 0; chunk < nr_chunks; chunk++)); do
		while read -r build; do
			run "$(listbench_of "$build")" --plan "$run_dir/probe.txt" --chunk "$chunk" \
				--run "$build" --csv "$run_dir/run-$build.csv.tmp" "$@" \
				2>>"$run_dir/run-$build.log" ||
				die "build $build failed in chunk $chunk" "see $run_dir/run-$build.log"
			tail -n1 "$run_dir/run-$build.log" >&2
		done < <(build_order "$chunk" "$runs")
	done
	for ((build = 1; build <= runs; build++)); do
		mv -f "$run_dir/run-$build.csv.tmp" "$run_dir/run-$build.csv"
	done
}

# run_crossovers RUN_DIR RUNS: bisect, in every build, where the grid says
# the prefetch starts paying between two work points.
run_crossovers() {
	local run_dir=$1 runs=$2 round=0 bytes lo hi build
	local -a csvs=()
	for ((build = 1; build <= runs; build++)); do
		csvs+=("$run_dir/run-$build.csv")
		: >"$run_dir/crossover-$build.csv"
	done
	while read -r bytes lo hi; do
		log "bench: crossover at $bytes bytes: bisecting work per node in ($lo, $hi] ns"
		while read -r build; do
			run "$(listbench_of "$build")" --plan "$run_dir/probe.txt" --crossover "$bytes" \
				--between "$lo:$hi" --run "$build" --csv "$run_dir/crossover-$build.csv" \
				2>>"$run_dir/run-$build.log" ||
				die "build $build failed bisecting the crossover at $bytes bytes" "see $run_dir/run-$build.log"
		done < <(build_order "$round" "$runs")
		round=$((round + 1))
	done < <(PYTHONPATH=$PROJECT_DIR/scripts/lib python3 "$PROJECT_DIR/scripts/lib/bench_runs.py" --brackets "${csvs[@]}")
}

# run_chase RUN_DIR: the plain chase beside the independent lookups of the
# sets past the LLC, at the shapes the grid measures there.
run_chase() {
	local run_dir=$1 bytes sweep
	: >"$run_dir/chase.csv"
	local form
	while read -r bytes sweep; do
		log "bench: cross-check: bench/chase.c at $bytes bytes"
		for form in lookup hlist while; do
			run "$BENCH_BUILD/chase" --form "$form" --bytes "$bytes" --load 1 --hits 0.5 \
				--seconds 6 >>"$run_dir/chase.csv"
			[ "$sweep" = 1 ] || continue
			run "$BENCH_BUILD/chase" --form "$form" --bytes "$bytes" --load 2 --hits 0.5 \
				--seconds 6 >>"$run_dir/chase.csv"
			run "$BENCH_BUILD/chase" --form "$form" --bytes "$bytes" --load 1 --hits 1 \
				--seconds 6 >>"$run_dir/chase.csv"
		done
	done < <(awk '$1 == "caches" { llc = $4 } $1 == "set" && $2 >= 4 * llc { print $2, $7 }' "$run_dir/probe.txt")
}

# body_uops BINARY: "PER_STEP,PER_NODE" instructions of the touch body.
body_uops() {
	python3 "$PROJECT_DIR/scripts/lib/bench_code.py" uops "$1"
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
	run "$BENCH_BUILD/test_keys" >&2 ||
		die "two samples of a cell share keys: lookup samples would find each other's lines cached" \
			"fix sample_seed() or node_set_draw_keys() in bench/nodes.c"
	warn_if_busy
	local run_dir i
	if [ "$grid" = quick ]; then
		run_dir=$RESULTS_DIR/runs-quick/$(project_commit)-$(date -u +%Y%m%dT%H%M%SZ)
	else
		run_dir=$RESULTS_DIR/cpus/$(cpu_slug)/runs/$(project_commit)-$(date -u +%Y%m%dT%H%M%SZ)
	fi
	mkdir -p "$run_dir"
	for ((i = 1; i <= runs; i++)); do
		placement_of "$(listbench_of "$i")" >"$run_dir/build-$i.txt"
		check_control_placement "$run_dir/build-$i.txt" >&2 ||
			die "build $i: the A/A copy of the walkers is not at its original's page offset (above)" \
				"see bench/walker_gen.h (WALKERS_PLACE) and the -fno-toplevel-reorder in bench/Makefile"
	done
	log "bench: probe: caches, working sets, latencies, work per ns"
	{
		result_stamp
		run "$(listbench_of 1)" --probe "$run_dir/probe.txt" --grid "$grid"
	} >"$run_dir/probe-report.txt" || die "the probe failed" "see $run_dir/probe-report.txt"
	sed -n '/^caches/,$p' "$run_dir/probe-report.txt" >&2
	local t0=$SECONDS busy_before=$BENCH_BUSY
	run_chunks "$run_dir" "$runs" "${listbench_args[@]}"
	local -a extra=()
	if [ "$grid" != quick ]; then
		run_crossovers "$run_dir" "$runs"
		run_chase "$run_dir"
		extra=(--crossover "$run_dir"/crossover-*.csv --chase "$run_dir/chase.csv")
	fi
	local uops
	uops=$(body_uops "$(listbench_of 1)") || uops=
	[ -z "$uops" ] || extra+=(--uops "$uops")
	local busy_after
	busy_after=$(cpu_busy_percent)
	local -a run_csvs=()
	for ((i = 1; i <= runs; i++)); do
		run_csvs+=("$run_dir/run-$i.csv")
	done
	# Published only whole: a failed or refused aggregation leaves the last results.
	local csv_tmp txt_tmp status=0
	csv_tmp=$(mktemp "$RESULTS_DIR/$name.csv.tmp.XXXXXX")
	txt_tmp=$(mktemp "$RESULTS_DIR/$name.txt.tmp.XXXXXX")
	{
		result_stamp
		echo "grid $grid, $runs builds taking turns chunk by chunk, $((SECONDS - t0)) s; each build's log and placement: ${run_dir#"$PROJECT_DIR"/}/"
		echo "CPUs busy ${busy_before}% before the run, ${busy_after}% after it"
		grep -m1 '^cpu:' "$run_dir/probe-report.txt"
		sed -n '/^caches/,$p' "$run_dir/probe-report.txt"
		echo
		PYTHONPATH=$PROJECT_DIR/scripts/lib python3 "$PROJECT_DIR/scripts/lib/bench_runs.py" \
			"$csv_tmp" "${run_csvs[@]}" "${extra[@]}" --refuse || status=$?
	} >"$txt_tmp"
	cp "$txt_tmp" "$run_dir/$name.txt"
	if [ "$status" -ne 0 ]; then
		rm -f "$csv_tmp" "$txt_tmp"
		[ "$status" -eq 3 ] || die "deciding over the builds failed" "see $run_dir/$name.txt"
		die "the run is refused: its A/A controls (the same code timed against itself) are off by more than 1 % in too many cells (named above); CPUs were ${busy_before}% busy before and ${busy_after}% after, governor $(sysfs_word /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor none)" \
			"re-run on an idle machine (other work, or a changing clock, moves one sample against the next); the refused run is kept in ${run_dir#"$PROJECT_DIR"/}/, results/$name.* are unchanged"
	fi
	mv -f "$csv_tmp" "$RESULTS_DIR/$name.csv"
	mv -f "$txt_tmp" "$RESULTS_DIR/$name.txt"
	# The run keeps its decision too: a later run replaces results/bench.*.
	cp "$RESULTS_DIR/$name.csv" "$run_dir/"
	cat "$RESULTS_DIR/$name.txt"
	plot "$RESULTS_DIR/$name.csv" "$RESULTS_DIR/$name.png"
	log "bench: results/$name.txt, results/$name.csv, results/$name.png; runs: ${run_dir#"$PROJECT_DIR"/}"
	if [ "$grid" != quick ]; then
		# The checks of the run, for docs/bench.md: controls, crossover, cross-check.
		write_atomic "$RESULTS_DIR/bench-checks.txt" bench_checks "$RESULTS_DIR/bench.txt"
		keep_cpu_results "$run_dir/probe.txt"
		write_verdict "$RESULTS_DIR/bench.csv"
	fi
	stage_end
}

main "$@"; exit
