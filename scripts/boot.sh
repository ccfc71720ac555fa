#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh - boot one built variant in QEMU (TCG) with its initramfs
# (initramfs.sh), console to <build>/console.log, under a hard timeout.
# The guest runs the built-in KUnit suites, then its init, then exits
# QEMU with 'reboot -f'. Checking the log is parse.sh's job.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	cat >&2 <<USAGE
usage: $0 TARGET VARIANT [CONFIG_SET]
  BOOT_TIMEOUT=seconds  give up on the guest after this long (default 300)
  ACCEL=tcg|kvm         tcg (default) emulates; kvm only where scripts/kvm-probe.sh says it works
  BOOT_APPEND=...       more kernel command line (e.g. lp_bench=quick)
USAGE
	exit 2
}

main() {
	case $# in 2 | 3) ;; *) usage ;; esac
	local initrd consolelog t0 status=0
	select_build "$@"
	local out=$BUILD_OUT
	[ -f "$out/.lp-build" ] || die "$out has no finished build" \
		"run 'scripts/build.sh $TARGET $VARIANT $CONFIG_SET'"
	need_cmd "$QEMU" "$PACKAGES"
	initrd=$("$PROJECT_DIR/scripts/initramfs.sh" "$TARGET" "$VARIANT" "$CONFIG_SET")
	consolelog=$out/console.log
	local timeout=${BOOT_TIMEOUT:-300} accel
	accel=$(accel_args)

	stage_start "boot $TARGET-$CONFIG_SET-$VARIANT"
	rm -f "$out/boot.status" "$out/boot.seconds"
	echo "${ACCEL:-tcg}" >"$out/boot.accel"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2046,SC2086 # lists of arguments; the set's and KVM's replace the target's
	run timeout --kill-after=10 "$timeout" "$QEMU" $(qemu_args $GUEST_QEMU_ARGS $accel) \
		-kernel "$out/$IMAGE" -initrd "$initrd" \
		-append "console=$CONSOLE panic=-1 oops=panic ${BOOT_APPEND:-}" \
		-display none -monitor none -serial "file:$consolelog" \
		-no-reboot </dev/null || status=$?
	echo "$(date +%s.%N) - $t0" | bc >"$out/boot.seconds"
	case $status in
	0) echo ok >"$out/boot.status" ;;
	124 | 137)
		echo timeout >"$out/boot.status"
		tail -n 15 "$consolelog" | sed 's/^/  console: /' >&2
		die "QEMU did not exit within ${timeout}s (guest hung); console log: $consolelog" \
			"read the log's last lines above; if the guest was only slow, raise BOOT_TIMEOUT"
		;;
	*)
		echo "qemu-exit-$status" >"$out/boot.status"
		die "QEMU exited with status $status; console log: $consolelog" \
			"run the QEMU command above by hand to see its error"
		;;
	esac
	if [ "${ACCEL:-tcg}" = tcg ]; then
		log "boot: guest exited after $(cat "$out/boot.seconds")s (TCG: functional timing only)"
	else
		log "boot: guest exited after $(cat "$out/boot.seconds")s (KVM)"
	fi
	stage_end
}

main "$@"; exit
