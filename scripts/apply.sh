#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# apply.sh - apply patches/series with 'git am' to a worktree of the
# pristine tree (default: the cache's series worktree).
#
# Reuses the worktree when it already holds exactly this series, so
# that kbuild does not see every header touched again.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	cat >&2 <<USAGE
usage: $0 [WORKTREE]
  Apply the series in patches/ to WORKTREE (default $SERIES_DIR),
  a git worktree of the 'pristine' tag, created when missing.
USAGE
	exit 2
}

# The series is applied in a scratch worktree first; the target worktree
# then checks the result out, so git rewrites only the files that differ
# from what it held and kbuild recompiles no more than it must (a new
# commit message, say, rewrites nothing).
SCRATCH_DIR=$LIST_PREFETCH_CACHE/tree/am-scratch

reset_to_pristine() {
	local wt=$1
	if [ -e "$wt/.git" ]; then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		run git -C "$wt" checkout -q -f --detach pristine
		run git -C "$wt" clean -q -f -d -x
	else
		rm -rf "$wt"
		run git -C "$TREE_DIR" worktree prune
		run git -C "$TREE_DIR" worktree add -q --detach "$wt" pristine
	fi
}

# failed_patch WORKTREE: the series entry that 'git am' stopped at.
failed_patch() {
	local apply_dir next
	apply_dir=$(git -C "$1" rev-parse --git-path rebase-apply)
	case "$apply_dir" in /*) ;; *) apply_dir=$1/$apply_dir ;; esac
	next=$(cat "$apply_dir/next" 2>/dev/null || echo 0)
	series_files | sed -n "${next}p" | xargs -r basename
}

# apply_series WORKTREE: git am the series onto pristine in WORKTREE.
apply_series() {
	local wt=$1 failed
	local -a patches
	mapfile -t patches < <(series_files)
	reset_to_pristine "$wt"
	printf '$ git -C %s am %s\n' "$wt" "patches/{$(IFS=,; echo "${patches[*]##*/}")}" >&2
	if ! git -C "$wt" am -q "${patches[@]}" >"$wt.am.log" 2>&1; then
		failed=$(failed_patch "$wt")
		sed 's/^/  git am: /' "$wt.am.log" >&2
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		die "patch '$failed' does not apply to Linux $(tree_version "$TREE_DIR") at $wt" \
			"rebase it: 'git am -3' it onto the 'pristine' tag in a scratch worktree, fix the conflict, and regenerate patches/ with scripts/export-series.sh"
	fi
	rm -f "$wt.am.log"
}

# check_out WORKTREE COMMIT: WORKTREE at COMMIT, touching only what differs.
check_out() {
	local wt=$1 commit=$2
	if [ -e "$wt/.git" ]; then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		run git -C "$wt" checkout -q -f --detach "$commit"
		run git -C "$wt" clean -q -f -d -x
	else
		rm -rf "$wt"
		run git -C "$TREE_DIR" worktree prune
		run git -C "$TREE_DIR" worktree add -q --detach "$wt" "$commit"
	fi
}

# check_series_applies WORKTREE: fail before touching any worktree if a
# patch does not apply to pristine (a scratch index, no checkout).
check_series_applies() {
	local failed errors
	errors=$(mktemp)
	if ! failed=$(series_tree_id "$TREE_DIR" 2>"$errors"); then
		sed 's/^/  git apply: /' "$errors" >&2
		rm -f "$errors"
		die "patch '$failed' does not apply to Linux $(tree_version "$TREE_DIR") at $1" \
			"rebase it: 'git am -3' it onto the 'pristine' tag in a scratch worktree, fix the conflict, and regenerate patches/ with scripts/export-series.sh"
	fi
	rm -f "$errors"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -le 1 ] || usage
	case "${1:-}" in -h | --help) usage ;; esac
	local wt=${1:-$SERIES_DIR} stamp
	local -a inputs
	require_tree
	[ -f "$PROJECT_DIR/patches/series" ] || die "patches/series is missing" "restore it from git"
	stage_start "apply ($(basename "$wt"))"
	mapfile -t inputs < <(series_files)
	stamp=$(inputs_hash "$PROJECT_DIR/patches/series" "${inputs[@]}")
	if [ -f "$wt/.lp-series" ] && [ "$(cat "$wt/.lp-series")" = "$stamp" ] &&
		[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ]; then
		log "apply: $wt already holds this series ($stamp)"
	else
		check_series_applies "$wt"
		if [ "$wt" = "$SERIES_DIR" ] && [ -e "$wt/.git" ]; then
			apply_series "$SCRATCH_DIR"
			check_out "$wt" "$(git -C "$SCRATCH_DIR" rev-parse HEAD)"
		else
			apply_series "$wt"
		fi
		echo "$stamp" >"$wt/.lp-series"
		log "apply: $(git -C "$wt" rev-list --count pristine..HEAD) patches applied to $wt"
	fi
	stage_end
}

main "$@"; exit
