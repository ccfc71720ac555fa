#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# uml-tree.sh - the source trees of the User-Mode Linux builds: worktrees
# of the pristine tree (um-vanilla) and of the series (um-series), each
# with guest/umlbench/umlbench.c built into lib/, and the series one
# with the patches held back from it (patches/held/: the swept sites the
# bench times, so it can time them again) and the lab's own patches for
# UML (lab/um/*.patch: ARCH_HAS_LIST_PREFETCH on UML, which the series
# does not propose). Remade only when one of those inputs changed. Run
# after scripts/apply.sh.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

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

# make_um_tree NAME BASE_REPO [PATCH...]: lab_tree, then umlbench brought
# up to date.
make_um_tree() {
	lab_tree "$@"
	add_umlbench "$LIST_PREFETCH_CACHE/tree/$1"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	require_series_tree
	stage_start "uml trees"
	make_um_tree um-vanilla "$TREE_DIR"
	local -a held
	mapfile -t held < <(held_files)
	make_um_tree um-series "$SERIES_DIR" "${held[@]}" "$PROJECT_DIR"/lab/um/*.patch
	stage_end
}

main "$@"; exit
