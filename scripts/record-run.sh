#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# record-run.sh - run a command and keep what it printed as a result:
# results/NAME.txt, stamped with the project's commit, the date, the
# host, the command and whether the cache was empty, and ending with the
# command's exit status and wall time. This is how the README's timings
# of make check and make check-all are taken (scripts/lib/tiers.py sums
# them up); no figure is typed in by hand.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 NAME COMMAND [ARG...]   e.g. $0 check-cold make check" >&2
	exit 2
}

# cache_state: how full the cache is when the command starts.
cache_state() {
	if [ ! -d "$BUILD_ROOT" ] || [ -z "$(ls -A "$BUILD_ROOT" 2>/dev/null)" ]; then
		echo "empty (no builds in $BUILD_ROOT)"
	else
		echo "warm ($(find "$BUILD_ROOT" -maxdepth 2 -name .lp-build | wc -l) finished builds)"
	fi
}

main() {
	[ $# -ge 2 ] || usage
	local name=$1 out status=0 t0
	shift
	mkdir -p "$RESULTS_DIR"
	out=$(mktemp "$RESULTS_DIR/$name.txt.XXXXXX")
	{
		echo "\$ $*"
		echo "# project $(project_commit), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "# host: $(host_description)"
		echo "# cache: $(cache_state)"
	} | tee "$out"
	t0=$SECONDS
	"$@" 2>&1 | tee -a "$out" || status=${PIPESTATUS[0]}
	echo "# exit $status after $((SECONDS - t0))s" | tee -a "$out"
	mv -f "$out" "$RESULTS_DIR/$name.txt"
	return "$status"
}

main "$@"; exit
