#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# The KCSAN guest's RCU torture test: rcutorture (the RCU maintainers'
# own, kernel/rcu/rcutorture.c) loaded for RCUTORTURE_SECONDS with its
# readers and writers on both CPUs, then unloaded, which prints its
# verdict; the workload fails unless that verdict is SUCCESS.
set -e
seconds=${RCUTORTURE_SECONDS:-60}
insmod /guest/modules/torture.ko
insmod /guest/modules/rcutorture.ko torture_type=rcu stat_interval=15 \
	nreaders=2 nfakewriters=2 onoff_interval=0 shuffle_interval=0
echo "rcutorture: running for $seconds s"
sleep "$seconds"
rmmod rcutorture
rmmod torture
if dmesg | grep -q 'End of test: SUCCESS'; then
	echo "rcutorture: End of test: SUCCESS after $seconds s"
else
	echo "rcutorture: no SUCCESS verdict"
	dmesg | grep 'rcu-torture' | tail -n 5
	exit 1
fi
