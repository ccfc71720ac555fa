#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# The debug guest's workload: the list-heavy stress (guest/stress.c),
# then the listbench module loaded and removed a few times (module list,
# kallsyms, sysfs), with its own list walks kept small: KASAN under TCG
# is slow.
set -e
# A boot of the in-guest A/B (lp_bench= given) measures; it does not stress.
if grep -q 'lp_bench=' /proc/cmdline; then
	echo "stress: skipped, this boot runs the A/B's workloads"
	exit 0
fi
/guest/bin/stress "${STRESS_SECONDS:-10}"
for round in 1 2 3; do
	insmod /guest/modules/listbench.ko nodes=64,1024 reps=3
	grep -q '^listbench ' /proc/modules ||
		{ echo "stress: listbench not in /proc/modules after insmod"; exit 1; }
	rmmod listbench
	if grep -q '^listbench ' /proc/modules; then
		echo "stress: listbench still loaded after rmmod"
		exit 1
	fi
done
echo "stress: module listbench loaded and removed $round times, ok"
