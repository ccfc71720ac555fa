#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# parse.sh - judge one boot from its console log: KTAP through the
# tree's own tools/testing/kunit/kunit.py parse, a scan for splats
# (oops, BUG, WARNING, panic, list corruption, sanitizer reports), and
# the guest's own markers. Writes <build>/result.json, and when the boot
# passed copies it to results/boot-<target>-<config>-<variant>.json.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

# Lines that mean the kernel went wrong, whatever the tests said.
# Lockdep and DEBUG_OBJECTS reports start with WARNING: or ODEBUG:, KASAN's
# with BUG: KASAN:, a hung task with INFO: task.
# SLUB's own reports read "BUG kmalloc-64 (Not tainted): ...", RCU's
# expedited stalls "detected expedited stalls", arm64's backtraces
# "Call trace:".
SPLAT_PATTERN='Oops|BUG:|BUG [A-Za-z0-9_.:-]+ \(|kernel BUG at|WARNING:|Kernel panic|general protection fault|list_(add|del) corruption|UBSAN:|KASAN:|KCSAN:|ODEBUG:|INFO: task .* blocked|detected (expedited )?stalls?|possible circular locking|suspicious RCU usage|Call [Tt]race:'
# What the guest's programs and modules report (kept in the result).
GUEST_OUTPUT_PATTERN='(stress|listbench|workload|rcutorture): '

usage() {
	echo "usage: $0 TARGET VARIANT [CONFIG_SET]   (after boot.sh)" >&2
	exit 2
}

# set_aside_known_races BDIR: KCSAN reports of BDIR/splats.txt whose
# title configs/kcsan-known-races.txt lists (races in code the series
# does not touch) move to BDIR/known-races.txt, named, not judged. A
# race of unknown origin is titled by its one function with the offset,
# "f+0x9c/0xcb", which differs from build to build: titles are compared
# without offsets, and the list names functions only.
set_aside_known_races() {
	local bdir=$1 known=$PROJECT_DIR/configs/kcsan-known-races.txt
	awk -v known="$known" -v aside="$bdir/known-races.txt" -v kept="$bdir/splats.txt.new" '
		BEGIN {
			while ((getline line <known) > 0)
				if (line !~ /^#/ && line ~ /[^[:space:]]/)
					listed["BUG: KCSAN: data-race in " line] = 1
			printf "" >aside
			printf "" >kept
		}
		{
			title = $0
			gsub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", title)
			print >(title in listed ? aside : kept)
		}' "$bdir/splats.txt"
	mv "$bdir/splats.txt.new" "$bdir/splats.txt"
	[ ! -s "$bdir/known-races.txt" ] ||
		sed 's/^/  known race, outside the series (configs\/kcsan-known-races.txt): /' "$bdir/known-races.txt" >&2
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case $# in 2 | 3) ;; *) usage ;; esac
	local consolelog result
	select_build "$@"
	local out=$BUILD_OUT src=$BUILD_SRC
	local bdir
	bdir=$(boot_dir "$out")
	consolelog=$bdir/console.log
	result=$RESULTS_DIR/boot-$TARGET-$CONFIG_SET-$VARIANT${BOOT_TAG:+-$BOOT_TAG}.json
	[ -f "$consolelog" ] || die "no console log at $consolelog" "run 'scripts/boot.sh $TARGET $VARIANT $CONFIG_SET'"

	stage_start "parse $TARGET-$CONFIG_SET-$VARIANT"
	local -a problems=()
	# Nothing of an earlier parse may be taken for this one's.
	rm -f "$bdir/kunit.json" "$bdir/kunit.txt" "$bdir/splats.txt" "$bdir/guest-output.txt" "$bdir/result.json"
	run python3 "$src/tools/testing/kunit/kunit.py" parse --json="$bdir/kunit.json" \
		"$consolelog" >"$bdir/kunit.txt" || true
	tail -n 3 "$bdir/kunit.txt" | sed 's/^/  kunit.py: /' >&2
	console_text "$consolelog" | grep -aE "$SPLAT_PATTERN" >"$bdir/splats.txt" || true
	set_aside_known_races "$bdir"
	console_text "$consolelog" | grep -aE "$GUEST_OUTPUT_PATTERN" >"$bdir/guest-output.txt" || true
	grep -aq 'list-prefetch: guest init reached' "$consolelog" ||
		problems+=(--problem "the guest never reached init")
	grep -aq 'list-prefetch: guest done, status 0' "$consolelog" ||
		problems+=(--problem "the guest's workloads did not finish with status 0")
	[ "$(cat "$bdir/boot.status" 2>/dev/null)" = ok ] ||
		problems+=(--problem "QEMU did not exit cleanly: $(cat "$bdir/boot.status" 2>/dev/null || echo 'not booted')")

	mkdir -p "$RESULTS_DIR"
	# shellcheck disable=SC2046 # one suite per word
	if ! python3 "$PROJECT_DIR/scripts/lib/boot_result.py" \
		--kunit-json "$bdir/kunit.json" --required $(required_suites) \
		--splats "$bdir/splats.txt" --guest-output "$bdir/guest-output.txt" "${problems[@]}" \
		--field "target=$TARGET" --field "config=$CONFIG_SET" --field "variant=$VARIANT" \
		--field "project=$(project_commit)" \
		--field "kernel=$(tree_version "$src")" \
		--field "list_prefetch=$(config_value LIST_PREFETCH "$out/.config")" \
		--field "cpu_prefetch_features=$(sed -n 's/.*list-prefetch: cpu prefetch features: //p' "$consolelog" | tr -d '\r' | head -n 1)" \
		--field "boot_seconds=$(cat "$bdir/boot.seconds" 2>/dev/null || echo 0)" \
		--field "accel=$(cat "$bdir/boot.accel" 2>/dev/null || echo tcg)" \
		--field "console_log=$consolelog" \
		--field "build_stamp=$(cat "$out/.lp-build" 2>/dev/null || echo none)" \
		--field "boot_stamp=$(cat "$bdir/boot.stamp" 2>/dev/null || echo none)" \
		--field "run_id=${LIST_PREFETCH_RUN_ID:-standalone}" \
		--output "$bdir/result.json"; then
		die "boot of $TARGET-$CONFIG_SET-$VARIANT failed (see FAIL lines above); console log: $consolelog" \
			"a failed case names its suite and test; a splat (oops, panic, WARNING, KASAN, lockdep) is quoted by its first line: read its Call Trace in the console log"
	fi
	# Published only when the boot passed: a failed one leaves the last
	# good result in place (its run_id says which run it is from).
	cp "$bdir/result.json" "$result.tmp.$$"
	mv -f "$result.tmp.$$" "$result"
	log "parse: $TARGET-$CONFIG_SET-$VARIANT passed; $result"
	stage_end
}

main "$@"; exit
