#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# distcc-loopback.sh - the distcc plumbing, proven and timed: a distccd
# of our own on 127.0.0.1 compiles a small kernel (x86_64 tinyconfig
# vmlinux, an empty ccache: every compile a miss, so every one reaches
# distcc); its own log must count the compiles the lab's summary puts
# on it. The same kernel is then built here alone, for the wall times
# side by side: on loopback the helper is this machine, so the figure
# proves the plumbing and shows distcc's overhead, not a speed-up
# (docs/distcc.md).
#
# Writes results/distcc-loopback.txt.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

SLOTS=3

# tiny_kernel DIR [DISTCCD_LOG]: x86_64 tinyconfig's vmlinux in
# DIR/build, with an empty ccache of its own (and what the distccd of
# DISTCCD_LOG served before the build in DIR/served-before); its wall
# time in DIR/seconds, the build's summary (ccache, distcc) in
# DIR/summary.
tiny_kernel() {
	local dir=$1 server_log=${2:-} t0
	mkdir -p "$dir"
	export CCACHE_DIR=$dir/ccache
	kbuild "$dir/config.log" "$TREE_DIR" "$dir/build" tinyconfig
	# What the helper served so far (Kconfig's probes of the compiler)
	# is not this build's.
	if [ -n "$server_log" ]; then distccd_served "$server_log" >"$dir/served-before"; fi
	t0=$(date +%s.%N)
	kbuild "$dir/build.log" "$TREE_DIR" "$dir/build" vmlinux
	awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.0f\n", t1 - t0 }' >"$dir/seconds"
	[ -f "$dir/build/vmlinux" ] || die "no vmlinux in $dir/build" "read $dir/build.log"
	compile_summary
	echo "$STAGE_NOTE" >"$dir/summary"
}

# report WORK PORT SERVED: the stamped result; SERVED, the compiles of
# the build distccd's own log counts.
# shellcheck disable=SC2317 # called through write_atomic
report() {
	local work=$1 port=$2 served=$3
	result_stamp
	echo "distcc $(distcc --version | head -n 1 | cut -d' ' -f2), x86_64 tinyconfig vmlinux, an empty ccache, $(host_description)"
	printf '%-34s %8s  %s\n' build seconds "where the compiles ran"
	printf '%-34s %8s  %s\n' "here alone (-j$(nproc))" "$(cat "$work/local/seconds")" "$(cat "$work/local/summary")"
	printf '%-34s %8s  %s\n' "distccd on 127.0.0.1:$port (-j$SLOTS)" "$(cat "$work/distcc/seconds")" "$(cat "$work/distcc/summary")"
	echo "distccd's own log: $served compiles of the build served"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
	require_tree
	load_target x86_64
	local work port served on
	work=$(mktemp -d "${TMPDIR:-/tmp}/list-prefetch-distcc-loopback.XXXXXX")
	port=$(free_port)
	start_loopback_distccd "$work" "$port" "$SLOTS"
	stage_start "tinyconfig through distccd on 127.0.0.1:$port"
	DISTCC_HOSTS="127.0.0.1:$port/$SLOTS" DISTCC_DIR=$work/state tiny_kernel "$work/distcc" "$work/distccd.log"
	stage_end
	stop_loopback_distccd
	served=$(($(distccd_served "$work/distccd.log") - $(cat "$work/distcc/served-before")))
	on=$(sed -n "s|.* \([0-9]*\) on 127\.0\.0\.1:$port/$SLOTS.*|\1|p" "$work/distcc/summary")
	if [ "${on:-0}" -eq 0 ] || [ "$on" != "$served" ]; then
		die "the lab counts ${on:-no} compiles on distccd, its log $served ($work/distcc/summary, $work/distccd.log)" \
			"compare $work/distcc/build/distcc.log with $work/distccd.log"
	fi
	stage_start "tinyconfig here alone"
	(unset DISTCC_HOSTS && tiny_kernel "$work/local")
	stage_end
	write_atomic "$RESULTS_DIR/distcc-loopback.txt" report "$work" "$port" "$served"
	cat "$RESULTS_DIR/distcc-loopback.txt"
	rm -rf "$work"
}

main "$@"; exit
