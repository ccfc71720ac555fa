#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kvm-probe.sh - does KVM really work here? Prints "kvm" or "tcg" on
# stdout and the reason on stderr. /dev/kvm is not enough: on some
# machines it exists but a KVM guest hangs at "Booting from ROM". So
# boot a finished build (if none is named: x86_64's qemu default kernel) under KVM, in a scratch directory, and wait at most
# KVM_PROBE_TIMEOUT seconds (default 30) for its init to finish.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 [TARGET VARIANT CONFIG_SET]   (a finished build to boot)" >&2
	exit 2
}

tcg() {
	log "kvm-probe: TCG: $1"
	echo tcg
	exit 0
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case $# in 0 | 3) ;; *) usage ;; esac
	select_build "${1:-x86_64}" "${2:-default}" "${3:-qemu}"
	local out=$BUILD_OUT timeout=${KVM_PROBE_TIMEOUT:-30} scratch status=0
	[ "$(uname -m)" = "$ARCH" ] ||
		tcg "the guest ($ARCH) is not the host's architecture ($(uname -m))"
	[ -c /dev/kvm ] || tcg "no /dev/kvm"
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		tcg "/dev/kvm is not read-writable for $(id -un)"
	fi
	[ -f "$out/.lp-build" ] || die "no finished build to probe KVM with in $out" \
		"build it first: 'scripts/build.sh $TARGET $VARIANT $CONFIG_SET'"
	need_cmd "$QEMU" "$PACKAGES"
	local initrd accel
	accel=$(ACCEL=kvm accel_args)
	initrd=$("$PROJECT_DIR/scripts/initramfs.sh" "$TARGET" "$VARIANT" "$CONFIG_SET")
	scratch=$(mktemp -d)
	# shellcheck disable=SC2046,SC2086 # lists of arguments; KVM's replace the target's
	# In a subshell whose stderr is kept: a QEMU that aborts is reported there.
	(timeout --foreground --kill-after=5 "$timeout" "$QEMU" $(qemu_args $GUEST_QEMU_ARGS $accel) \
		-kernel "$out/$IMAGE" -initrd "$initrd" \
		-append "console=$CONSOLE panic=-1" -display none -monitor none \
		-serial "file:$scratch/console.log" -no-reboot </dev/null || exit $?) 2>"$scratch/qemu.err" || status=$?
	if grep -aq 'list-prefetch: guest done' "$scratch/console.log" 2>/dev/null; then
		rm -rf "$scratch"
		log "kvm-probe: KVM works (a guest booted and finished in under ${timeout}s)"
		echo kvm
		return 0
	fi
	local why
	case $status in
	124 | 137) why="a KVM guest did not finish within ${timeout}s ($(wc -c <"$scratch/console.log" 2>/dev/null || echo 0) bytes of console output)" ;;
	*) why="QEMU with -enable-kvm exited with status $status: $(grep -m 1 . "$scratch/qemu.err")" ;;
	esac
	rm -rf "$scratch"
	tcg "$why"
}

main "$@"; exit
