#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# uml-kunit.sh - the series' KUnit suites and lib/list-test.c under
# User-Mode Linux, as kernel developers run KUnit: the tree's own
# tools/testing/kunit/kunit.py, --arch=um, in the UML tree of the series
# (scripts/uml-tree.sh), once with the option at its default and once
# forced on. kunit.py parses the KTAP; its JSON is kept per variant in
# results/uml-kunit-VARIANT.json, and a summary printed. It does not
# replace the QEMU boots: it is the quick functional check.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 [VARIANT...]   (off, on; default both)" >&2
	exit 2
}

# kunit_variant VARIANT: kunit.py run in its own build directory.
kunit_variant() {
	local variant=$1 src out json
	src=$LIST_PREFETCH_CACHE/tree/um-series
	out=$BUILD_ROOT/um-kunit-$variant
	json=$RESULTS_DIR/uml-kunit-$variant.json
	local -a extra=()
	case "$variant" in
	off) ;;
	on) extra=(--kconfig_add CONFIG_EXPERT=y --kconfig_add CONFIG_LIST_PREFETCH=y) ;;
	*) usage ;;
	esac
	stage_start "kunit.py under UML, $variant"
	mkdir -p "$out"
	run_logged "$out/kunit.log" python3 "$src/tools/testing/kunit/kunit.py" run --arch=um \
		--build_dir="$out" --kunitconfig="$PROJECT_DIR/configs/uml-kunit.config" \
		--jobs="$(make_jobs)" --make_options CC="$(compiler_command)" \
		--json="$json.tmp" "${extra[@]}" ||
		die "kunit.py under UML failed for $variant; its log: $out/kunit.log" \
			"read the log's first failure (a build error, or a failing case)"
	mv -f "$json.tmp" "$json"
	if [ "$(config_value LIST_PREFETCH "$out/.config")" != "$(expected_list_prefetch "$variant")" ]; then
		die "the $variant UML KUnit kernel has another CONFIG_LIST_PREFETCH" \
			"check lab/um/ and configs/uml-kunit.config"
	fi
	stage_end
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	local variant
	local -a variants=("$@")
	# The um target: ARCH and the compiler kbuild and kunit.py use.
	load_target um
	[ $# -gt 0 ] || variants=(off on)
	"$PROJECT_DIR/scripts/uml-tree.sh"
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
