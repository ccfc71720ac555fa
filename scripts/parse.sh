#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# parse.sh - judge one boot from its console log: KTAP through the
# tree's own tools/testing/kunit/kunit.py parse, a scan for splats
# (oops, BUG, WARNING, panic, list corruption, sanitizer reports), and
# the guest's own markers. Writes results/boot-<target>-<config>-<variant>.json.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# Lines that mean the kernel went wrong, whatever the tests said.
# Lockdep and DEBUG_OBJECTS reports start with WARNING: or ODEBUG:, KASAN's
# with BUG: KASAN:, a hung task with INFO: task.
SPLAT_PATTERN='Oops|BUG:|kernel BUG at|WARNING:|Kernel panic|general protection fault|list_(add|del) corruption|UBSAN:|KASAN:|KCSAN:|ODEBUG:|INFO: task .* blocked|detected stalls?|possible circular locking|suspicious RCU usage|Call Trace:'
# What the guest's programs and modules report (kept in the result).
GUEST_OUTPUT_PATTERN='(stress|listbench|workload): '

usage() {
	echo "usage: $0 TARGET VARIANT [CONFIG_SET]   (after boot.sh)" >&2
	exit 2
}

config_value() {
	local name=$1 config=$2
	sed -n "s/^CONFIG_$name=//p" "$config" | grep . || echo n
}

main() {
	case $# in 2 | 3) ;; *) usage ;; esac
	local consolelog result
	select_build "$@"
	local out=$BUILD_OUT src=$BUILD_SRC
	consolelog=$out/console.log
	result=$RESULTS_DIR/boot-$TARGET-$CONFIG_SET-$VARIANT.json
	[ -f "$consolelog" ] || die "no console log at $consolelog" "run 'scripts/boot.sh $TARGET $VARIANT $CONFIG_SET'"

	stage_start "parse $TARGET-$CONFIG_SET-$VARIANT"
	local -a problems=()
	run python3 "$src/tools/testing/kunit/kunit.py" parse --json="$out/kunit.json" \
		"$consolelog" >"$out/kunit.txt" || true
	tail -n 3 "$out/kunit.txt" | sed 's/^/  kunit.py: /' >&2
	grep -aE "$SPLAT_PATTERN" "$consolelog" | sed 's/^\[ *[0-9.]*\] //' >"$out/splats.txt" || true
	grep -aE "$GUEST_OUTPUT_PATTERN" "$consolelog" | sed 's/^\[ *[0-9.]*\] //' | tr -d '\r' >"$out/guest-output.txt" || true
	grep -aq 'list-prefetch: guest init reached' "$consolelog" ||
		problems+=(--problem "the guest never reached init")
	grep -aq 'list-prefetch: guest done, status 0' "$consolelog" ||
		problems+=(--problem "the guest's workloads did not finish with status 0")
	[ "$(cat "$out/boot.status" 2>/dev/null)" = ok ] ||
		problems+=(--problem "QEMU did not exit cleanly: $(cat "$out/boot.status" 2>/dev/null || echo 'not booted')")

	mkdir -p "$RESULTS_DIR"
	# shellcheck disable=SC2086 # REQUIRED_SUITES is a list
	if ! python3 "$PROJECT_DIR/scripts/boot_result.py" \
		--kunit-json "$out/kunit.json" --required $REQUIRED_SUITES \
		--splats "$out/splats.txt" --guest-output "$out/guest-output.txt" "${problems[@]}" \
		--field "target=$TARGET" --field "config=$CONFIG_SET" --field "variant=$VARIANT" \
		--field "kernel=$(tree_version "$src")" \
		--field "list_prefetch=$(config_value LIST_PREFETCH "$out/.config")" \
		--field "cpu_prefetch_features=$(sed -n 's/.*list-prefetch: cpu prefetch features: //p' "$consolelog" | tr -d '\r' | head -n 1)" \
		--field "boot_seconds=$(cat "$out/boot.seconds" 2>/dev/null || echo 0)" \
		--field "accel=$(cat "$out/boot.accel" 2>/dev/null || echo tcg)" \
		--field "console_log=$consolelog" \
		--output "$result"; then
		die "boot of $TARGET-$CONFIG_SET-$VARIANT failed (see FAIL lines above); console log: $consolelog" \
			"a failed case names its suite and test; a splat (oops, panic, WARNING, KASAN, lockdep) is quoted by its first line: read its Call Trace in the console log"
	fi
	log "parse: $TARGET-$CONFIG_SET-$VARIANT passed; $result"
	stage_end
}

main "$@"; exit
