#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark guest's workload, once per boot (scripts/guest-bench.sh
# boots the variants in turn and takes the medians): the listbench
# module, hackbench, perf bench sched pipe and messaging, and the tmpfs
# metadata workload. Each prints one line
#   workload: name=NAME seconds=S
# that the host parses; listbench prints its own lines to the kernel
# log. lp_bench=quick on the kernel command line runs a small version.
set -e
# Only the A/B's boots (lp_bench= given) run it; the debug kernels carry
# it for make check-all's functional check, and otherwise stress.
if ! grep -q 'lp_bench=' /proc/cmdline; then
	echo "workload: bench skipped, no lp_bench= on the command line"
	exit 0
fi
if grep -qw 'lp_bench=quick' /proc/cmdline; then
	nodes=256,4096 reps=3 groups=1 loops=10 pipe_loops=1000 files=100 rounds=3
else
	nodes=1024,16384,262144 reps=11 groups=2 loops=50 pipe_loops=10000 files=1000 rounds=5
fi

# report NAME SECONDS: the line the host parses; no number is a failure.
report() {
	case "$2" in
	[0-9]*) echo "workload: name=$1 seconds=$2" ;;
	*) echo "workload: $1 printed no time"; exit 1 ;;
	esac
}

insmod /guest/modules/listbench.ko nodes="$nodes" reps="$reps"
rmmod listbench

out=$(hackbench -g "$groups" -l "$loops")
report hackbench "$(echo "$out" | sed -n 's/^Time: *//p')"

report perf-sched-pipe "$(perf bench -f simple sched pipe -l "$pipe_loops")"
report perf-sched-messaging "$(perf bench -f simple sched messaging -g "$groups" -l "$loops")"

out=$(/guest/bin/metabench "$files" "$rounds")
report tmpfs-metadata "$(echo "$out" | sed -n 's/.*median_seconds=\([0-9.]*\).*/\1/p')"
