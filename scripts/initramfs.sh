#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh - pack the guest's initramfs for one target: its static
# busybox as /bin/busybox, guest/init as /init, guest/run.d/ as
# /guest/run.d/. Uses the kernel's own usr/gen_init_cpio, which needs no
# root to create /dev/console.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 TARGET   (prints the path of the packed initramfs)" >&2
	exit 2
}

gen_init_cpio() {
	local tool=$LIST_PREFETCH_CACHE/tools/gen_init_cpio
	if [ ! -x "$tool" ] || [ "$TREE_DIR/usr/gen_init_cpio.c" -nt "$tool" ]; then
		mkdir -p "$(dirname "$tool")"
		run gcc -O2 -o "$tool" "$TREE_DIR/usr/gen_init_cpio.c" >&2
	fi
	echo "$tool"
}

# cpio_list: gen_init_cpio's description of the initramfs.
cpio_list() {
	local f
	cat <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/null 0666 0 0 c 1 3
dir /bin 0755 0 0
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 1777 0 0
dir /guest 0755 0 0
dir /guest/run.d 0755 0 0
file /bin/busybox $BUSYBOX 0755 0 0
file /init $PROJECT_DIR/guest/init 0755 0 0
LIST
	for f in "$PROJECT_DIR"/guest/run.d/*; do
		[ -f "$f" ] || continue
		echo "file /guest/run.d/${f##*/} $f 0755 0 0"
	done
}

main() {
	[ $# -eq 1 ] || usage
	load_target "$1"
	require_tree
	[ -x "$BUSYBOX" ] || die "no static busybox for $TARGET at $BUSYBOX" \
		"run 'make deps' (installs busybox-static for $BUSYBOX_ARCH), or fix BUSYBOX_ARCH in configs/targets/$TARGET.conf"
	local out=$LIST_PREFETCH_CACHE/initramfs/$TARGET.cpio.gz tool
	tool=$(gen_init_cpio)
	mkdir -p "$(dirname "$out")"
	cpio_list >"$out.list"
	"$tool" "$out.list" | gzip -9 | write_atomic "$out"
	log "initramfs: $out ($(stat -c %s "$out") bytes)"
	echo "$out"
}

main "$@"; exit
