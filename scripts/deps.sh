#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh - install the Debian packages the project needs, only those
# missing (apt-get update first, as CI starts from a fresh machine).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	linux-source-6.12	# the kernel tree
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils
	ccache			# cheap rebuilds of each O= directory
	python3			# kunit.py parse
	qemu-system-x86		# qemu-system-x86_64, qemu-system-i386
	busybox-static		# the guest's init
	shellcheck		# make check lints the scripts
	gnuplot-nox		# make bench plots
)

missing_packages() {
	local pkg
	for pkg in "${PACKAGES[@]}"; do
		dpkg-query -W -f '${Status}\n' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
			echo "$pkg"
	done
}

main() {
	stage_start deps
	local -a missing
	mapfile -t missing < <(missing_packages)
	if [ ${#missing[@]} -eq 0 ]; then
		log "deps: all ${#PACKAGES[@]} packages installed"
	else
		[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]}" \
			"run 'sudo apt-get install ${missing[*]}'"
		run apt-get update -q
		run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${missing[@]}"
	fi
	stage_end
}

main "$@"; exit
