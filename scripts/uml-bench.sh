#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# uml-bench.sh - the kernel's own list iterators on the real CPU: User-Mode
# Linux kernels of the series, default (LIST_PREFETCH=n), moved (the
# default's configuration with its code 1104 bytes further on: lab/um/0002,
# the A/A control across boots), forced on, and switch (forced on, every
# list prefetch behind a flag umlbench flips: lab/um/0003), each with
# guest/umlbench built in, booted in turn as host processes pinned to one
# CPU (A B C D D C B A ...), their walks timed by the kernel's own clock:
# the iterators (default, moved, on) and the four swept paths (switch:
# each sample timed with the flag on, off and on again, within one boot).
# scripts/lib/uml_bench.py pairs the boots and decides with the host
# benchmark's statistics (scripts/lib/verdicts.py).
#
#   uml-bench.sh            PAIRS rounds of boots over the working sets
#   uml-bench.sh --quick    one small set, one boot of default and switch,
#                           the walks' and paths' results checked, no verdicts
#   uml-bench.sh --short    UML_SHORT_BOOTS rounds of boots of the default
#                           and moved kernels, the iterators only (make
#                           report's): results/uml-bench-short.txt
#   uml-bench.sh --short --unsettled   the same with umlbench.settle=0 (v1's
#                           fixed walk order, no untimed pass): the A/A
#                           controls show the artifact that made list and
#                           RCU differ, and the run is refused; its tables
#                           are kept in results/uml-bench-unsettled.txt
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

UML_TARGET=um
UML_SET=uml
# Working sets (KiB): L1, L2, LLC-sized, DRAM; mem= leaves room for them.
# 256 MiB is left out: with the untimed pass before every sample (settle)
# a boot spent 5 minutes there (1.4M nodes at 250 ns, 2 x 5 walks x 2
# forms x 15 samples), 2.5 hours a full run; past the LLC 64 MiB says
# the same, and the cold paths reach 4x the LLC.
UML_SETS=${UML_SETS:-16,256,4096,65536}
# reclaim's regions, in KiB of page cache read under pressure (each folio
# read, one reclaimed): 64 MiB, 16384 folios of the file LRU's cold tail.
UML_RECLAIM_SETS=${UML_RECLAIM_SETS:-65536}
UML_MEM=${UML_MEM:-1536M}
UML_PAIRS=${UML_PAIRS:-10}
# make report's rounds: each boot times both forms of the iterators, so
# the default kernel answers for them, and the moved one (the same code
# elsewhere: a relink, its objects from ccache) beside it gives the A/A
# control across boots, one ratio per round; 10 rounds give 10 ratios per
# control cell, past the 6 a 95 % interval needs (the sign test's), and 20
# per iterator cell, enough for some to survive the false-discovery rate.
UML_SHORT_BOOTS=${UML_SHORT_BOOTS:-10}
# and its sets: the full run's (past the LLC at 64 MiB).
UML_SHORT_SETS=${UML_SHORT_SETS:-16,256,4096,65536}
# Each boot allocates every set anew UML_PLACEMENTS times and times
# UML_SAMPLES samples over each: where a set lands moves its walks.
UML_PLACEMENTS=${UML_PLACEMENTS:-3}
UML_SAMPLES=${UML_SAMPLES:-5}
# A swept path takes more samples while this lasts (ms, per set and
# placement; 60 at most): the cheap regions (a backlog, a batch, a read
# under pressure) narrow their intervals, the costly ones (Tiny RCU at 4x
# the LLC) stay at UML_SAMPLES.
UML_PATH_BUDGET_MS=${UML_PATH_BUDGET_MS:-3000}
# umlbench.settle: one untimed pass before each sample, walks in a random
# order (1); 0 reproduces v1's fixed order (--unsettled).
UML_SETTLE=1
# The cold paths' sets (KiB; tiny_rcu: its objects), from below the host's
# LLC to 4x it, and the memory read to age their nodes (2x LLC), both
# from the LLC as the host benchmark reads it: UML_COLD_SETS and
# UML_AGE_KIB override them.
UML_COLD_SETS=${UML_COLD_SETS:-}
UML_AGE_KIB=${UML_AGE_KIB:-}
# blk_batch's batches, in KiB of one batch's requests (a request takes
# 256 bytes here): 64, 1024 and 8192 requests, each region as many
# batches as null_blk's poll queue holds (10240, blk-mq's most).
UML_BATCH_SETS=${UML_BATCH_SETS:-16,256,2048}
# backlog's backlogs, in KiB of one backlog's sk_buffs (256 bytes each):
# 16, 256 and 4096 segments of TCP over loopback, each region as many
# connections as make 4096.
UML_BACKLOG_SETS=${UML_BACKLOG_SETS:-4,64,1024}
# null_blk, built into the UML kernels: one disk with a poll queue as
# deep as blk-mq allows, no I/O scheduler (whose requests never batch).
NULL_BLK_ARGS=(null_blk.nr_devices=1 null_blk.poll_queues=1 null_blk.no_sched=1
	null_blk.hw_queue_depth=10240)

usage() {
	echo "usage: $0 [--quick | --short | --from RUN[,RUN...]]" >&2
	echo "  --from RUN   decide again over a kept run (no boot): results/cpus/CPU/uml-runs/RUN" >&2
	echo "               (its samples.csv) or results/uml/RUN (the consoles; a short run's" >&2
	echo "               -short or -short-unsettled: its own result again); runs of the" >&2
	echo "               same kernels add up (uml_bench.py refuses others)" >&2
	exit 2
}

# uml_cpu: the CPU to pin to, the host benchmark's choice (the last allowed).
uml_cpu() {
	python3 -c 'import os; print(max(os.sched_getaffinity(0)))'
}

# boot_uml VARIANT LOG ARGS...: one run of a variant's kernel, its console
# in LOG; fails, naming LOG, unless umlbench said "done".
boot_uml() {
	local variant=$1 logfile=$2 out status=0
	shift 2
	out=$(build_dir "$UML_TARGET" "$UML_SET" "$variant")
	# UML maps its memory from a file under TMPDIR: /dev/shm holds it in RAM.
	TMPDIR=/dev/shm timeout --foreground 600 taskset -c "$(uml_cpu)" "$out/linux" \
		mem="$UML_MEM" "${NULL_BLK_ARGS[@]}" "$@" </dev/null >"$logfile" 2>&1 || status=$?
	if ! grep -q 'umlbench: done' "$logfile"; then
		grep -E 'umlbench|Kernel panic|BUG|Oops' "$logfile" | tail -5 >&2 || true
		die "the UML kernel $variant did not finish its walks (exit $status); console: $logfile" \
			"read the console; 'no memory' needs a larger UML_MEM= (and as much free in /dev/shm)"
	fi
}

# host_llc: "KIB SOURCE", the host's last-level cache and where it was
# read (sysfs, cpuid or measured), by bench/'s own reader (bench/caches.c).
host_llc() {
	local bench_build=$LIST_PREFETCH_CACHE/bench source line
	need_cmd gcc build-essential
	run make -s -C "$PROJECT_DIR/bench" BUILD="$bench_build" "$bench_build/listbench" >&2
	for source in sysfs cpuid measured; do
		line=$("$bench_build/listbench" --caches "$source" 2>/dev/null) || continue
		[[ "$line" =~ LLC\ ([0-9]+)\ KiB ]] || continue
		echo "${BASH_REMATCH[1]} $source"
		return 0
	done
	die "the host's LLC size: neither sysfs, nor CPUID, nor a latency sweep gave it" \
		"give UML_COLD_SETS= and UML_AGE_KIB= (KiB) by hand"
}

# cold_plan: UML_COLD_SETS and UML_AGE_KIB from the host's LLC unless
# given: sets LLC/8, LLC/2, 2x and 4x LLC; aging reads 2x LLC.
cold_plan() {
	local llc source
	read -r llc source < <(host_llc)
	UML_LLC="$llc KiB ($source)"
	[ -n "$UML_COLD_SETS" ] || UML_COLD_SETS=$((llc / 8)),$((llc / 2)),$((2 * llc)),$((4 * llc))
	[ -n "$UML_AGE_KIB" ] || UML_AGE_KIB=$((2 * llc))
	log "uml: host LLC $UML_LLC: cold sets $UML_COLD_SETS KiB, aged by reading $UML_AGE_KIB KiB"
}

build_variants() {
	local variant
	"$PROJECT_DIR/scripts/uml-tree.sh"
	for variant in "$@"; do
		"$PROJECT_DIR/scripts/configure.sh" "$UML_TARGET" "$variant" "$UML_SET"
		"$PROJECT_DIR/scripts/build.sh" "$UML_TARGET" "$variant" "$UML_SET"
	done
}

# The quick functional run: one small set, both variants, one boot each;
# umlbench checks every walk's result itself and says "done" only if all held.
quick() {
	local dir=$RESULTS_DIR/uml-quick variant
	mkdir -p "$dir"
	for variant in default switch; do
		stage_start "uml boot $variant (quick)"
		boot_uml "$variant" "$dir/boot-$variant.log" umlbench.sets=64 umlbench.reclaim_sets=16384 \
			umlbench.cold_sets=4096 umlbench.batch_sets=256 umlbench.backlog_sets=4 \
			umlbench.age_kib="$UML_AGE_KIB" \
			umlbench.samples=1 umlbench.min_sample_ms=1
		grep -q "umlbench: start CONFIG_LIST_PREFETCH=$(load_target "$UML_TARGET" && expected_list_prefetch "$variant") " \
			"$dir/boot-$variant.log" ||
			die "the $variant UML kernel reports another CONFIG_LIST_PREFETCH than its variant" \
				"check configs/variants/$variant.config against lab/um/"
		[ "$variant" != switch ] || grep -q 'umlbench: start .* switch=1 ' "$dir/boot-$variant.log" ||
			die "the switch UML kernel has no run-time flag (umlbench says switch=0)" \
				"check that lab/um/0003 applied and configs/variants/switch.config sets CONFIG_UML_LIST_PREFETCH_SWITCH"
		log "uml: $variant: $(grep -c 'umlbench: walk=' "$dir/boot-$variant.log") walks and paths timed and checked"
		stage_end
	done
}

# boot_rounds DIR ROUNDS VARIANT...: ROUNDS rounds of boots of the
# variants into DIR. Switch walks the paths (UML_COLD_SETS, UML_BATCH_SETS,
# UML_BACKLOG_SETS, UML_RECLAIM_SETS), the others the iterators (UML_SETS);
# the order reverses every round
# (A B C C B A ...), so drift between boots hits every variant alike.
boot_rounds() {
	local dir=$1 rounds=$2 i variant
	shift 2
	local -a sets order forward=("$@") backward=()
	for ((i = $#; i > 0; i--)); do
		backward+=("${!i}")
	done
	for ((i = 1; i <= rounds; i++)); do
		if ((i % 2)); then order=("${forward[@]}"); else order=("${backward[@]}"); fi
		for variant in "${order[@]}"; do
			sets=()
			# The swept paths in the switch kernel, both ways in each
			# boot; the iterators in the others (both forms in each boot).
			if [ "$variant" = switch ]; then
				sets+=(umlbench.cold_sets="$UML_COLD_SETS" umlbench.batch_sets="$UML_BATCH_SETS"
					umlbench.backlog_sets="$UML_BACKLOG_SETS"
					umlbench.reclaim_sets="$UML_RECLAIM_SETS" umlbench.age_kib="$UML_AGE_KIB"
					umlbench.path_budget_ms="$UML_PATH_BUDGET_MS")
			else
				sets+=(umlbench.sets="$UML_SETS")
			fi
			stage_start "uml boot $i/$rounds $variant"
			boot_uml "$variant" "$dir/boot-$i-$variant.log" "${sets[@]}" \
				umlbench.placements="$UML_PLACEMENTS" umlbench.samples="$UML_SAMPLES" \
				umlbench.settle="$UML_SETTLE"
			stage_end
		done
	done
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	local mode=full dir=
	case "${1:-}" in
	--quick) mode=quick ;;
	--short)
		mode=short
		if [ "${2:-}" = --unsettled ]; then
			UML_SETTLE=0
			shift
		fi
		;;
	--from)
		[ $# -eq 2 ] || usage
		local run
		for run in ${2//,/ }; do
			[ -d "$run" ] || die "--from $run: no such run" "name directories of results/cpus/CPU/uml-runs/, separated by commas"
		done
		mode=from dir=$2
		;;
	"") ;;
	*) usage ;;
	esac
	[ $# -le 1 ] || [ "$mode" = from ] || usage
	mkdir -p "$RESULTS_DIR"
	# The cold sets' label, decided again too (the same machine's LLC).
	case $mode in quick | full | from) cold_plan ;; esac
	case $mode in
	quick) build_variants default switch ;;
	short) build_variants default moved ;;
	full) build_variants default moved on switch ;;
	esac
	case $mode in
	quick)
		quick
		return 0
		;;
	short)
		short
		return 0
		;;
	esac
	local cpu_dir run_dir
	# A short run's consoles (results/uml/*-short[-unsettled]) decide its
	# own result again, as --short wrote it.
	if [ "$mode" = from ]; then
		case "${dir%/}" in
		*-short-unsettled)
			UML_SETTLE=0
			decide_short "$dir"
			return 0
			;;
		*-short)
			decide_short "$dir"
			return 0
			;;
		esac
	fi
	cpu_dir=$RESULTS_DIR/cpus/$(cpu_slug)
	if [ "$mode" != from ]; then
		dir=$RESULTS_DIR/uml/$(project_commit)-$(date -u +%Y%m%dT%H%M%SZ)
		mkdir -p "$dir"
		boot_rounds "$dir" "$UML_PAIRS" default moved on switch
		# The consoles stay in results/uml/; their samples are kept with the CPU's results.
		run_dir=$cpu_dir/uml-runs/$(basename "$dir")
		mkdir -p "$run_dir"
		write_atomic "$run_dir/samples.csv" python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" --extract "$dir"
		dir=$run_dir
	fi
	mkdir -p "$cpu_dir"
	uml_decide "$dir" "$cpu_dir/uml-bench.txt"
	cp "$cpu_dir/uml-bench.txt" "$RESULTS_DIR/uml-bench.txt"
	cat "$RESULTS_DIR/uml-bench.txt"
	log "uml: results/uml-bench.txt and ${cpu_dir#"$PROJECT_DIR"/}/uml-bench.txt"
}

# short: make report's run, the default kernel's boots and the moved
# kernel's (the iterators' forms, and the A/A control across boots; the
# swept paths need the switch kernel), its consoles in
# results/uml/ and its table in results/uml-bench-short.txt; the kept
# runs (results/cpus/CPU/uml-runs/) and the quoted report stay.
short() {
	local dir
	dir=$RESULTS_DIR/uml/$(project_commit)-$(date -u +%Y%m%dT%H%M%SZ)-short
	[ "$UML_SETTLE" = 1 ] || dir=$dir-unsettled
	mkdir -p "$dir"
	# The swept paths need the switch kernel: the full run's.
	UML_SETS=$UML_SHORT_SETS boot_rounds "$dir" "$UML_SHORT_BOOTS" default moved
	decide_short "$dir"
	log "uml: results/uml-bench-$(short_name).txt ($UML_SHORT_BOOTS rounds of boots; the full run: make uml-bench)"
}

# short_name: the short run's result, settled or not (uml-bench-NAME.txt).
short_name() {
	if [ "$UML_SETTLE" = 1 ]; then echo short; else echo unsettled; fi
}

# decide_short DIR: a short run's boots decided into its result, printed.
decide_short() {
	local dest
	dest=$RESULTS_DIR/uml-bench-$(short_name).txt
	uml_decide "$1" "$dest"
	cat "$dest"
}

# uml_decide RUN DEST: the report of RUN's boots into DEST; kept beside
# the run (RUN/uml-bench.txt) even when refused, DEST left as it was.
uml_decide() {
	local run=$1 dest=$2 status=0
	uml_report "$run" >"$run/uml-bench.txt.tmp" || status=$?
	mv -f "$run/uml-bench.txt.tmp" "$run/uml-bench.txt"
	# The unsettled run is there to be refused: its tables are its result.
	[ "$UML_SETTLE" = 1 ] || cp "$run/uml-bench.txt" "$dest"
	if [ "$status" -eq 3 ]; then
		local kept="${dest#"$PROJECT_DIR"/} is unchanged"
		# --unsettled shows the refusal: its tables are its result.
		[ "$UML_SETTLE" = 1 ] || kept="${dest#"$PROJECT_DIR"/} holds its tables"
		die "the run is refused: its A/A controls (the same code timed against itself) failed, named above; its tables: ${run#"$PROJECT_DIR"/}/uml-bench.txt" \
			"re-run on an idle machine (another process, or a changing clock, moves one sample against the next); $kept"
	fi
	[ "$status" -eq 0 ] || die "deciding over the boots failed (exit $status)" "see ${run#"$PROJECT_DIR"/}/uml-bench.txt"
	cp "$run/uml-bench.txt" "$dest"
}

# uml_report RUN: the stamped tables and verdicts of a run's boots.
# shellcheck disable=SC2317 # called through write_atomic
uml_report() {
	result_stamp
	local hypervisor
	hypervisor=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p')
	echo "UML (ARCH=um) on $(cpu_field 'model name') (family $(cpu_field 'cpu family'), model $(cpu_field model)), host kernel $(uname -r), ${hypervisor:+inside a $hypervisor VM, }pinned to CPU $(uml_cpu); mem=$UML_MEM in /dev/shm,"
	echo "4 KiB pages; UML's clock steps by up to 256 ns, so each sample walks >= 10 ms, and a cold path's region lasts >= 1000 steps;"
	[ -z "${UML_LLC:-}" ] || echo "host LLC $UML_LLC; cold paths at ${UML_COLD_SETS//,/, } KiB (blk_batch: batches of ${UML_BATCH_SETS//,/, } KiB of requests; tcp_backlog: backlogs of ${UML_BACKLOG_SETS//,/, } KiB of sk_buffs; lru_reclaim: ${UML_RECLAIM_SETS//,/, } KiB of page cache read under pressure per region), their nodes aged by reading $UML_AGE_KIB KiB of other memory; ${UML_SAMPLES} samples per set and placement, more while ${UML_PATH_BUDGET_MS} ms last (60 at most)"
	echo "UP, HZ=$(config_value HZ "$(build_dir "$UML_TARGET" "$UML_SET" default)/.config"); boots: ${1//"$PROJECT_DIR"\//}"
	echo "the A/A across boots: the moved kernel, the default's configuration with CONFIG_UML_TEXT_PAD_BYTES=$(config_value UML_TEXT_PAD_BYTES "$(build_dir "$UML_TARGET" "$UML_SET" moved)/.config" 2>/dev/null) (its code that much further on)"
	if [ "$UML_SETTLE" = 1 ]; then
		echo "settled: one untimed pass of each walk before its sample, the walks in a random order every sample"
	else
		echo "UNSETTLED (--unsettled, umlbench.settle=0): v1's fixed walk order, no untimed pass"
	fi
	# The host benchmark of this CPU model: the one kept with its results
	# (results/cpus/CPU/, on any clone), else this machine's last run.
	local host_bench
	host_bench=$RESULTS_DIR/cpus/$(cpu_slug)/bench.csv
	[ -f "$host_bench" ] || host_bench=$RESULTS_DIR/bench.csv
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$1" "$host_bench"
}

main "$@"; exit
