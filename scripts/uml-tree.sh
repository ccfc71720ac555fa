#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# uml-tree.sh - the source trees of the User-Mode Linux builds: worktrees
# of the pristine tree (um-vanilla) and of the series (um-series), each
# with guest/umlbench/umlbench.c built into lib/, and the series one
# with the lab's own patches for UML (lab/um/*.patch: ARCH_HAS_LIST_PREFETCH
# on UML, which the series does not propose). Remade only when one of
# those inputs changed. Run after scripts/apply.sh.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# um_base BASE_REPO: what a UML tree is made of but umlbench, as one hash.
um_base() {
	{
		git -C "$1" rev-parse 'HEAD^{tree}'
		[ "$1" = "$TREE_DIR" ] || cat "$PROJECT_DIR"/lab/um/*.patch
	} | inputs_hash /dev/stdin
}

# add_umlbench DIR: guest/umlbench/* into lib/, built into UML kernels
# with networking, committed (the builds' stamps read the tree's commit).
# Only a changed file is copied: make goes by modification times.
add_umlbench() {
	local dir=$1 file name
	local -a added=(lib/Makefile)
	for file in "$PROJECT_DIR"/guest/umlbench/*.[ch]; do
		name=$(basename "$file")
		cmp -s "$file" "$dir/lib/$name" || cp "$file" "$dir/lib/$name"
		added+=("lib/$name")
	done
	# Built where UML has networking (its skb walk and socket backlog):
	# not in kunit.py's minimal configs. The two forms of the walks need
	# the option to exist (the series with lab/um/).
	# shellcheck disable=SC2016 # make variables, for make
	# Every line names umlbench, so the block is found and replaced whole.
	local rules='ifdef CONFIG_NET # umlbench
obj-y += umlbench.o
obj-$(CONFIG_ARCH_HAS_LIST_PREFETCH) += umlbench_walks_off.o umlbench_walks_on.o
endif # umlbench'
	if [ "$(grep umlbench "$dir/lib/Makefile" || true)" != "$rules" ]; then
		sed -i '/umlbench/d' "$dir/lib/Makefile"
		echo "$rules" >>"$dir/lib/Makefile"
	fi
	# The ignore file of Debian's tree ignores everything: add by force.
	git -C "$dir" add -f "${added[@]}"
	git -C "$dir" diff --cached --quiet ||
		git -C "$dir" commit -q -m "lib: umlbench, the list-prefetch lab's in-kernel walks (UML only)"
}

# make_um_tree NAME BASE_REPO: $LIST_PREFETCH_CACHE/tree/NAME from BASE_REPO's
# HEAD; remade only when its base changed, else umlbench brought up to date.
make_um_tree() {
	local name=$1 base=$2 dir stamp
	dir=$LIST_PREFETCH_CACHE/tree/$name
	stamp=$(um_base "$base")
	if [ -f "$dir/.lp-um-base" ] && [ "$(cat "$dir/.lp-um-base")" = "$stamp" ]; then
		add_umlbench "$dir"
		log "uml-tree: $name is up to date ($(git -C "$dir" log -1 --format=%h HEAD))"
		return 0
	fi
	log "uml-tree: making $name from $(git -C "$base" log -1 --format='%h %s' HEAD)"
	if [ -d "$dir" ]; then
		git -C "$base" worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
		git -C "$base" worktree prune
	fi
	run git -C "$base" worktree add --quiet --force --detach "$dir" HEAD >&2
	git -C "$dir" config user.name "list-prefetch lab"
	git -C "$dir" config user.email "list-prefetch@localhost"
	if [ "$base" != "$TREE_DIR" ]; then
		git -C "$dir" am -q "$PROJECT_DIR"/lab/um/*.patch ||
			die "a lab patch for UML no longer applies to the series (lab/um/)" \
				"rebase it onto the series: git am it in a worktree of $SERIES_DIR, fix, format-patch into lab/um/"
	fi
	add_umlbench "$dir"
	echo "$stamp" >"$dir/.lp-um-base"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ -d "$SERIES_DIR/.git" ] || [ -f "$SERIES_DIR/.git" ] ||
		die "no series tree at $SERIES_DIR" "run 'make apply' first"
	stage_start "uml trees"
	make_um_tree um-vanilla "$TREE_DIR"
	make_um_tree um-series "$SERIES_DIR"
	stage_end
}

main "$@"; exit
