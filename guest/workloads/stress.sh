#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# The debug guest's workload: the list-heavy stress (guest/stress.c),
# then each module in /guest/modules loaded and removed a few times
# (module list, kallsyms, sysfs), with the module's own list walks kept
# small: KASAN under TCG is slow.
set -e
/guest/bin/stress "${STRESS_SECONDS:-10}"
for ko in /guest/modules/*.ko; do
	[ -f "$ko" ] || continue
	name=$(basename "$ko" .ko)
	for round in 1 2 3; do
		insmod "$ko" nodes=64,1024 reps=3
		grep -q "^$name " /proc/modules ||
			{ echo "stress: $name not in /proc/modules after insmod"; exit 1; }
		rmmod "$name"
		if grep -q "^$name " /proc/modules; then
			echo "stress: $name still loaded after rmmod"
			exit 1
		fi
	done
	echo "stress: module $name loaded and removed $round times, ok"
done
