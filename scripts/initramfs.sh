#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh - pack the initramfs of one build: the target's static
# busybox as /bin/busybox, guest/init as /init, and what the config set
# asks for: its GUEST_PROGRAMS (guest/NAME.c, built static for the
# target) in /guest/bin, its GUEST_MODULES (built by module.sh against
# this build) and GUEST_TREE_MODULES (the build's own .ko files) in
# /guest/modules, and its GUEST_WORKLOADS
# (guest/workloads/NAME.sh) in /guest/run.d, which init runs in order.
# Uses the kernel's own usr/gen_init_cpio, which needs no root to create
# /dev/console.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 TARGET VARIANT [CONFIG_SET]   (prints the path of the packed initramfs)" >&2
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

# guest_program NAME: guest/NAME.c built static for the target; its path.
guest_program() {
	local src=$PROJECT_DIR/guest/$1.c bin=$LIST_PREFETCH_CACHE/guest-bin/$TARGET/$1
	local cc=${CROSS_COMPILE}gcc
	[ -f "$src" ] || die "no guest program '$1': $src is missing" "fix GUEST_PROGRAMS in configs/sets/$CONFIG_SET.conf"
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		need_cmd "$cc" "gcc for $ARCH (see configs/targets/$TARGET.conf)"
		mkdir -p "$(dirname "$bin")"
		# shellcheck disable=SC2086 # a list of flags
		run "$cc" $GUEST_CFLAGS -o "$bin.tmp.$$" "$src" >&2 ||
			die "guest program $1 does not build for $TARGET" \
				"a static build needs the target's libc (libc6-dev for $BUSYBOX_ARCH); read the compiler error above"
		mv -f "$bin.tmp.$$" "$bin"
	fi
	echo "$bin"
}

# host_files: GUEST_HOST_BINARIES and the shared libraries and loader
# ldd names for them, each at its own path. Only for a guest of the
# host's own architecture.
host_files() {
	local pattern bin
	[ -n "${GUEST_HOST_BINARIES:-}" ] || return 0
	[ "$BUSYBOX_ARCH" = "$(dpkg --print-architecture)" ] ||
		die "GUEST_HOST_BINARIES are host programs; $TARGET is not the host's architecture" \
			"boot the $CONFIG_SET set on a $(dpkg --print-architecture) target only (BOOT_TARGETS in configs/sets/$CONFIG_SET.conf)"
	for pattern in $GUEST_HOST_BINARIES; do
		for bin in $pattern; do
			[ -x "$bin" ] || die "$bin (GUEST_HOST_BINARIES of the $CONFIG_SET set) is not installed" \
				"run 'make deps' (it installs rt-tests and linux-perf)"
			echo "$bin"
			ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
		done
	done | sort -u
}

# parent_dirs PATH...: every directory above the given paths, outermost first.
parent_dirs() {
	local path
	for path in "$@"; do
		path=$(dirname "$path")
		while [ "$path" != / ]; do
			echo "$path"
			path=$(dirname "$path")
		done
	done | sort -u
}

# cpio_list: gen_init_cpio's description of the initramfs.
cpio_list() {
	local name n=10 path
	cat <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/null 0666 0 0 c 1 3
dir /bin 0755 0 0
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 1777 0 0
dir /guest 0755 0 0
dir /guest/bin 0755 0 0
dir /guest/modules 0755 0 0
dir /guest/run.d 0755 0 0
file /bin/busybox $BUSYBOX 0755 0 0
file /init $PROJECT_DIR/guest/init 0755 0 0
LIST
	local listing
	local -a host
	listing=$(host_files)
	if [ -n "$listing" ]; then
		mapfile -t host <<<"$listing"
		parent_dirs "${host[@]}" | grep -vxE '/(bin|dev|proc|sys|tmp|guest)' |
			awk '{ print "dir " $1 " 0755 0 0" }'
		for path in "${host[@]}"; do
			echo "file $path $(readlink -f "$path") 0755 0 0"
		done
	fi
	for name in ${GUEST_PROGRAMS:-}; do
		path=$(guest_program "$name")
		echo "file /guest/bin/$name $path 0755 0 0"
	done
	for name in ${GUEST_MODULES:-}; do
		path=$("$PROJECT_DIR/scripts/module.sh" "$TARGET" "$VARIANT" "$CONFIG_SET" "$name")
		echo "file /guest/modules/$name.ko $path 0644 0 0"
	done
	for name in ${GUEST_TREE_MODULES:-}; do
		path=$BUILD_OUT/$name
		[ -f "$path" ] || die "no in-tree module $name in $BUILD_OUT" \
			"build it: set its option to m in a fragment of configs/sets/$CONFIG_SET.conf"
		echo "file /guest/modules/${name##*/} $path 0644 0 0"
	done
	for name in ${GUEST_WORKLOADS:-}; do
		path=$PROJECT_DIR/guest/workloads/$name.sh
		[ -f "$path" ] || die "no workload '$name': $path is missing" "fix GUEST_WORKLOADS in configs/sets/$CONFIG_SET.conf"
		echo "file /guest/run.d/$n-$name $path 0755 0 0"
		n=$((n + 1))
	done
}

# compressed_cpio TOOL LIST: the gzipped cpio archive of LIST.
# shellcheck disable=SC2317 # called through write_atomic
compressed_cpio() {
	"$1" -t 0 "$2" | gzip -9 -n
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case $# in 2 | 3) ;; *) usage ;; esac
	select_build "$@"
	require_tree
	[ -x "$BUSYBOX" ] || die "no static busybox for $TARGET at $BUSYBOX" \
		"run 'make deps' (installs busybox-static for $BUSYBOX_ARCH), or fix BUSYBOX_ARCH in configs/targets/$TARGET.conf"
	local out=$BUILD_OUT/initramfs.cpio.gz tool
	tool=$(gen_init_cpio)
	# Not in a $(...): there a failing step would not stop it.
	cpio_list >"$out.list"
	# A fixed time for every entry and none in the gzip header: the same
	# content gives the same image, which is what lets boot.sh reuse a boot.
	write_atomic "$out" compressed_cpio "$tool" "$out.list"
	log "initramfs: $out ($(stat -c %s "$out") bytes)"
	echo "$out"
}

main "$@"; exit
