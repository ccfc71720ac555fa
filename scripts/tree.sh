#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tree.sh - make sure Debian's linux-source-6.12 is unpacked into the cache
# as a git repository whose 'pristine' tag is the untouched tree.
#
# Re-running reuses what is there. LIST_PREFETCH_CACHE moves the cache.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

# LINUX_SOURCE_TARBALL: another tarball of the same layout (for tests).
TARBALL=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-$KERNEL_SERIES.tar.xz}
PACKAGE=linux-source-$KERNEL_SERIES

install_source_package() {
	[ -f "$TARBALL" ] && return 0
	[ "$(id -u)" = 0 ] ||
		die "$TARBALL is missing and installing it needs root" \
			"run 'sudo apt-get install $PACKAGE', then re-run"
	apt_update
	run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$PACKAGE" ||
		die "apt-get could not install $PACKAGE" \
			"if 'apt-get update' failed above, wait for the mirror and re-run"
	[ -f "$TARBALL" ] ||
		die "$PACKAGE installed but $TARBALL is not there" \
			"check 'dpkg -L $PACKAGE' for where Debian put the tarball"
}

unpack_tree() {
	local parent tmp
	parent=$(dirname "$TREE_DIR")
	mkdir -p "$parent"
	tmp=$(mktemp -d "$parent/unpack.XXXXXX")
	# Unpack beside the final place and rename, so an interrupted
	# unpack never looks like a finished tree.
	run tar -xf "$TARBALL" -C "$tmp"
	rm -rf "$TREE_DIR"
	mv "$tmp/linux-source-$KERNEL_SERIES" "$TREE_DIR"
	rmdir "$tmp"
}

# commit_baseline VERSION: the unpacked tree as one commit, tagged
# pristine. Dated by the package's changelog, so the same package makes
# the same commit on every machine: the series' base-commit: line
# (mail-series.sh) names one commit whoever sends it.
commit_baseline() {
	local version=$1 date
	date=$(package_date)
	cd "$TREE_DIR"
	run git init -q
	git config user.name "list-prefetch baseline"
	git config user.email "list-prefetch@localhost"
	no_background_gc
	# Debian's top-level .gitignore ignores everything ("/*"): force.
	run git add -f .
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		run git commit -q -m "Linux $version ($PACKAGE $(package_version))"
	run git tag pristine
}

# package_date: the date of the installed package's newest changelog
# entry (RFC 2822), else the tarball's modification time.
package_date() {
	local changelog=/usr/share/doc/$PACKAGE/changelog.Debian.gz line
	line=$(zcat "$changelog" 2>/dev/null | grep -m1 '^ -- ' || true)
	if [[ "$line" =~ \>\ \ (.+)$ ]]; then
		echo "${BASH_REMATCH[1]}"
	else
		date -R -r "$TARBALL"
	fi
}

# The baseline commit leaves some 85,000 loose objects, so the next git
# command would start 'git gc --auto' in the background: a detached
# repack of the whole kernel, minutes long, that inherits the cache
# lock's descriptor and so holds the cache after this script has ended.
# The tree is a scratch repository: it never needs packing.
no_background_gc() {
	git -C "$TREE_DIR" config gc.auto 0
	git -C "$TREE_DIR" config gc.autoDetach false
}

package_version() {
	dpkg-query -W -f '${Version}' "$PACKAGE" 2>/dev/null || echo unknown
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	stage_start tree
	if [ -d "$TREE_DIR/.git" ] && git -C "$TREE_DIR" rev-parse -q --verify pristine >/dev/null; then
		log "tree: reusing $TREE_DIR"
		no_background_gc
	else
		install_source_package
		unpack_tree
		commit_baseline "$(tree_version "$TREE_DIR")"
	fi
	require_tree
	log "tree: Linux $(tree_version "$TREE_DIR") from $PACKAGE $(package_version) at $TREE_DIR"
	stage_end
}

main "$@"; exit
