#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh - boot one built variant in QEMU (TCG) with its initramfs
# (initramfs.sh), console to <build>/console.log (<build>/boots/TAG/ with
# BOOT_TAG=TAG), under a hard timeout.
# The guest runs the built-in KUnit suites, then its init, then exits
# QEMU with 'reboot -f'. Checking the log is parse.sh's job.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	cat >&2 <<USAGE
usage: $0 TARGET VARIANT [CONFIG_SET]
  BOOT_TIMEOUT=seconds  give up on the guest after this long (default 300)
  ACCEL=tcg|kvm         tcg (default) emulates; kvm only where scripts/kvm-probe.sh says it works
  BOOT_APPEND=...       more kernel command line (e.g. lp_bench=quick)
  BOOT_REUSE=0          boot even if kernel, initramfs and command line are
                        those of the last good boot (default: reuse its log)
USAGE
	exit 2
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case $# in 2 | 3) ;; *) usage ;; esac
	local initrd consolelog t0 stamp status=0
	select_build "$@"
	local out=$BUILD_OUT
	[ -f "$out/.lp-build" ] || die "$out has no finished build" \
		"run 'scripts/build.sh $TARGET $VARIANT $CONFIG_SET'"
	need_cmd "$QEMU" "$PACKAGES"
	initrd=$("$PROJECT_DIR/scripts/initramfs.sh" "$TARGET" "$VARIANT" "$CONFIG_SET")
	local bdir
	bdir=$(boot_dir "$out")
	mkdir -p "$bdir"
	consolelog=$bdir/console.log
	local timeout=${BOOT_TIMEOUT:-300} accel
	accel=$(accel_args)

	stage_start "boot $TARGET-$CONFIG_SET-$VARIANT"
	local -a qemu_cmd machine
	# shellcheck disable=SC2086 # lists of arguments; the set's and KVM's replace the target's
	read -ra machine <<<"$(qemu_args $GUEST_QEMU_ARGS $accel)"
	qemu_cmd=("$QEMU" "${machine[@]}"
		-kernel "$out/$IMAGE" -initrd "$initrd"
		-append "console=$CONSOLE panic=-1 oops=panic ${BOOT_APPEND:-}"
		-display none -monitor none -serial "file:$consolelog" -no-reboot)
	# The same kernel, initramfs, command line and QEMU as the last good
	# boot: its console log is this boot's (a guest run under TCG is the
	# same run again), unless BOOT_REUSE=0 asks for another. A reused boot
	# is said so, and counted where the test runner asks (BOOT_REUSED_LOG).
	local qemu_version
	qemu_version=$("$QEMU" --version | head -n 1)
	stamp=$( (sha256sum "$out/$IMAGE" "$initrd" | cut -d' ' -f1; echo "${qemu_cmd[*]}"; echo "$qemu_version") |
		inputs_hash /dev/stdin)
	if [ "${BOOT_REUSE:-1}" != 0 ] && [ "$(cat "$bdir/boot.stamp" 2>/dev/null)" = "$stamp" ] &&
		[ "$(cat "$bdir/boot.status" 2>/dev/null)" = ok ] && [ -s "$consolelog" ]; then
		log "boot: reused: kernel, initramfs, command line and QEMU ($qemu_version) unchanged since the boot of $(date -u -r "$consolelog" +%Y-%m-%dT%H:%MZ): its console log stands (BOOT_REUSE=0 boots again)"
		[ -z "${BOOT_REUSED_LOG:-}" ] ||
			echo "$TARGET-$CONFIG_SET-$VARIANT $(date -u -r "$consolelog" +%Y-%m-%dT%H:%MZ)" >>"$BOOT_REUSED_LOG"
		stage_end
		return 0
	fi
	# Nothing of an earlier boot may be taken for this one's.
	rm -f "$bdir/boot.status" "$bdir/boot.seconds" "$bdir/boot.stamp" "$consolelog"
	echo "${ACCEL:-tcg}" >"$bdir/boot.accel"
	t0=$(date +%s.%N)
	run timeout --kill-after=10 "$timeout" "${qemu_cmd[@]}" </dev/null || status=$?
	echo "$(date +%s.%N) - $t0" | bc >"$bdir/boot.seconds"
	case $status in
	0)
		echo ok >"$bdir/boot.status"
		echo "$stamp" >"$bdir/boot.stamp"
		;;
	124 | 137)
		echo timeout >"$bdir/boot.status"
		tail -n 15 "$consolelog" | sed 's/^/  console: /' >&2
		die "QEMU did not exit within ${timeout}s (guest hung); console log: $consolelog" \
			"read the log's last lines above; if the guest was only slow, raise BOOT_TIMEOUT"
		;;
	*)
		echo "qemu-exit-$status" >"$bdir/boot.status"
		die "QEMU exited with status $status; console log: $consolelog" \
			"run the QEMU command above by hand to see its error"
		;;
	esac
	if [ "${ACCEL:-tcg}" = tcg ]; then
		log "boot: guest exited after $(cat "$bdir/boot.seconds")s (TCG: functional timing only)"
	else
		log "boot: guest exited after $(cat "$bdir/boot.seconds")s (KVM)"
	fi
	stage_end
}

main "$@"; exit
