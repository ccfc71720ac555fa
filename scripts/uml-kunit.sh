#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# uml-kunit.sh - the series' KUnit suites and lib/list-test.c under
# User-Mode Linux, as kernel developers run KUnit: the tree's own
# tools/testing/kunit/kunit.py, --arch=um, in the UML tree of the series
# (scripts/uml-tree.sh), once with the option at its default and once
# forced on. kunit.py parses the KTAP; its JSON is kept per variant in
# results/uml-kunit-VARIANT.json, and a summary printed. It does not
# replace the QEMU boots: it is the quick functional check.
#
# With --all, the tree's whole KUnit corpus (kunit.py --alltests) on
# vanilla and on the series forced on, compared test by test
# (scripts/lib/kunit_diff.py): results/uml-kunit-all.txt.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 [VARIANT...]   (default, on; both if none)" >&2
	echo "       $0 --all          the whole KUnit corpus, vanilla against on" >&2
	exit 2
}

# kunit_variant VARIANT [all]: kunit.py run in its own build directory;
# with "all", the whole corpus (--alltests), where a failing case is a
# finding to compare, not the end of the run.
kunit_variant() {
	local variant=$1 scope=${2:-suites} src out json status=0
	src=$LIST_PREFETCH_CACHE/tree/um-series
	out=$BUILD_ROOT/um-kunit-$variant
	json=$RESULTS_DIR/uml-kunit-$variant.json
	local -a extra=(--kunitconfig="$PROJECT_DIR/configs/uml-kunit.config")
	if [ "$scope" = all ]; then
		out=$BUILD_ROOT/um-kunit-all-$variant
		json=$RESULTS_DIR/uml-kunit-all-$variant.json
		extra=(--alltests)
	fi
	case "$variant" in
	default) ;;
	on) extra+=(--kconfig_add CONFIG_EXPERT=y --kconfig_add CONFIG_LIST_PREFETCH=y) ;;
	vanilla) src=$LIST_PREFETCH_CACHE/tree/um-vanilla ;;
	*) usage ;;
	esac
	stage_start "kunit.py under UML, $variant${2:+ (all tests)}"
	mkdir -p "$out"
	build_env "$out"
	run_logged "$out/kunit.log" env "${BUILD_ENV[@]}" python3 "$src/tools/testing/kunit/kunit.py" run --arch=um \
		--build_dir="$out" --jobs="$(make_jobs)" --make_options CC="$(compiler_command)" \
		--timeout=1800 --json="$json.tmp" "${extra[@]}" || status=$?
	# kunit.py says 1 for failing cases, and writes its JSON all the same.
	if [ "$status" -ne 0 ] && { [ "$scope" != all ] || ! grep -q '"sub_groups"' "$json.tmp"; }; then
		die "kunit.py under UML failed for $variant; its log: $out/kunit.log" \
			"read the log's first failure (a build error, or a failing case)"
	fi
	mv -f "$json.tmp" "$json"
	if [ "$variant" != vanilla ] &&
		[ "$(config_value LIST_PREFETCH "$out/.config")" != "$(expected_list_prefetch "$variant")" ]; then
		die "the $variant UML KUnit kernel has another CONFIG_LIST_PREFETCH" \
			"check lab/um/ and configs/uml-kunit.config"
	fi
	stage_end
}

# all_tests_report TOOK...: the comparison, stamped.
# shellcheck disable=SC2317 # called through write_atomic
all_tests_report() {
	result_stamp
	echo "kunit.py run --alltests --arch=um (tools/testing/kunit/configs/all_tests.config),"
	echo "vanilla against the series with CONFIG_LIST_PREFETCH=y; build and run at -j$(make_jobs):" \
		"$*"
	python3 "$PROJECT_DIR/scripts/lib/kunit_diff.py" \
		"$RESULTS_DIR/uml-kunit-all-vanilla.json" "$RESULTS_DIR/uml-kunit-all-on.json"
}

# all_tests: the whole corpus on vanilla and on, compared per test.
all_tests() {
	local variant t0 took=
	for variant in vanilla on; do
		t0=$SECONDS
		kunit_variant "$variant" all
		took+="${took:+, }$variant $((SECONDS - t0)) s"
	done
	write_atomic "$RESULTS_DIR/uml-kunit-all.txt" all_tests_report "$took"
	cat "$RESULTS_DIR/uml-kunit-all.txt"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	local variant
	local -a variants=("$@")
	# The um target: ARCH and the compiler kbuild and kunit.py use.
	load_target um
	[ $# -gt 0 ] || variants=(default on)
	"$PROJECT_DIR/scripts/uml-tree.sh"
	if [ "${1:-}" = --all ]; then
		[ $# -eq 1 ] || usage
		all_tests
		return 0
	fi
	for variant in "${variants[@]}"; do
		kunit_variant "$variant"
	done
	python3 - "$RESULTS_DIR" "${variants[@]}" <<'PY'
import json, os, sys
results = sys.argv[1]
for variant in sys.argv[2:]:
    data = json.load(open(os.path.join(results, f"uml-kunit-{variant}.json")))
    suites = {}
    def walk(node):
        for sub in node.get("sub_groups", []):
            cases = sub.get("test_cases", [])
            if cases:
                suites[sub["name"]] = (sum(c["status"] == "PASS" for c in cases),
                                       sum(c["status"] == "FAIL" for c in cases),
                                       sum(c["status"] == "SKIP" for c in cases))
            walk(sub)
    walk(data)
    print(f"uml {variant}: " + " ".join(f"{n} {p}/{f}/{s}" for n, (p, f, s) in sorted(suites.items())))
PY
}

main "$@"; exit
