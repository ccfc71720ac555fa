#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh - install the Debian packages the project needs, only those
# missing (apt-get update first, as CI starts from a fresh machine): the
# common ones below, each target's PACKAGES, and for a guest of another
# architecture its busybox-static .deb, unpacked into the cache.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

COMMON_PACKAGES=(
	linux-source-6.12	# the kernel tree
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils
	ccache			# cheap rebuilds of each O= directory
	distcc			# builds over other machines (DISTCC_HOSTS), the loopback test
	clang lld llvm		# TOOLCHAIN=llvm: the kernels built with clang (LLVM=1)
	python3			# kunit.py parse
	busybox-static		# the guest's init
	shellcheck		# make check lints the scripts
	gnuplot-nox		# make bench plots
	coccinelle		# make audit: spatch
	sparse			# make sparse: kbuild's C=2
	rt-tests linux-perf	# make guest-bench: hackbench, perf bench in the guest
)

# wanted_packages: the common packages and every target's own.
wanted_packages() {
	local target
	printf '%s\n' "${COMMON_PACKAGES[@]}"
	for target in $(all_targets); do
		# shellcheck disable=SC2086 # PACKAGES is a list
		(load_target "$target" && printf '%s\n' $PACKAGES)
	done
}

# foreign_busybox_archs: the guests' architectures other than the host's.
foreign_busybox_archs() {
	local target
	for target in $(all_targets); do
		(load_target "$target" && [ "$BUSYBOX_ARCH" = "$(dpkg --print-architecture)" ] ||
			echo "$BUSYBOX_ARCH")
	done | sort -u
}

missing_packages() {
	local pkg
	for pkg in $(wanted_packages | sort -u); do
		dpkg-query -W -f '${Status}\n' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
			echo "$pkg"
	done
}

require_root() {
	[ "$(id -u)" = 0 ] || die "$1" "run 'sudo scripts/deps.sh'"
}

install_packages() {
	local -a missing
	mapfile -t missing < <(missing_packages)
	if [ ${#missing[@]} -eq 0 ]; then
		log "deps: all $(wanted_packages | sort -u | wc -l) packages installed"
		return 0
	fi
	require_root "missing packages: ${missing[*]}"
	apt_update
	run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" ||
		die "apt-get could not install: ${missing[*]}" \
			"if 'apt-get update' failed above, wait for the mirror and re-run 'make deps'"
}

# fetch_busybox ARCH: busybox-static:ARCH unpacked under the cache. It is
# only downloaded, never installed: it would replace the host's busybox.
fetch_busybox() {
	local arch=$1 dest bin
	bin=$(busybox_path "$arch")
	dest=${bin%/bin/busybox}
	if [ -x "$bin" ]; then
		log "deps: busybox for $arch at $bin"
		return 0
	fi
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		require_root "dpkg does not know the architecture $arch"
		run dpkg --add-architecture "$arch"
		apt_update
	fi
	local scratch
	scratch=$(mktemp -d)
	# Root downloads into a root-owned scratch directory: no sandbox user.
	(cd "$scratch" && run apt-get download -q -o APT::Sandbox::User=root "busybox-static:$arch") ||
		die "could not download busybox-static:$arch" \
			"run 'apt-get update' and check that Debian's $arch archive is reachable"
	# Unpack beside the final place (which may not exist yet) under a
	# name of this run's own, then rename: never half a busybox.
	mkdir -p "$(dirname "$dest")"
	local unpacked
	unpacked=$(mktemp -d "$dest.unpack.XXXXXX")
	run dpkg-deb -x "$scratch"/busybox-static_*_"$arch".deb "$unpacked"
	rm -rf "$dest" "$scratch"
	mv "$unpacked" "$dest"
	log "deps: busybox for $arch at $bin"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	stage_start deps
	install_packages
	local arch
	for arch in $(foreign_busybox_archs); do
		fetch_busybox "$arch"
	done
	stage_end
}

main "$@"; exit
