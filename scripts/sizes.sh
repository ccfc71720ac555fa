#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sizes.sh - the seed's size evidence for one configuration: build
# vanilla (no series), default and on, then print the 'size vmlinux' table
# with deltas, the tree's scripts/bloat-o-meter for vanilla->default
# and default->on, and the prefetch instructions in each vmlinux. Writes
# results/sizes-<id>.{txt,json} and the full bloat-o-meter outputs, where
# <id> is the config for x86_64 built with gcc, else <config>-<target>
# (sizes-qemu-x86_64-llvm: the same config built with clang).
# With --option, only default and on: the option's own cost, without a
# vanilla build (make report's), as results/sizes-<id>-option.*.
#
# On x86_64 'size' is nearly blind here: .text ends on a 2 MiB boundary
# (_etext is aligned for huge-page mapping), so code growth mostly fills
# padding. bloat-o-meter's symbol totals are what to judge by.
# shellcheck disable=SC2317 # the report's functions run through write_atomic
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

VARIANTS=(vanilla default on)

usage() {
	echo "usage: $0 [--option] CONFIG_SET [TARGET]   e.g. $0 qemu, $0 defconfig" >&2
	exit 2
}

build_variant() {
	local variant=$1
	"$PROJECT_DIR/scripts/configure.sh" "$TARGET" "$variant" "$CONFIG_SET" &&
		"$PROJECT_DIR/scripts/build.sh" "$TARGET" "$variant" "$CONFIG_SET"
}

vmlinux_of() {
	echo "$(build_dir "$TARGET" "$CONFIG_SET" "$1")/vmlinux"
}

# size_table: the seed's table, one row per variant, plus the delta of
# each variant from the one before it.
size_table() {
	local variant i text dec
	printf '%9s %9s %9s %9s %9s %s\n' text data bss dec hex filename
	for variant in "${VARIANTS[@]}"; do
		size_row "$(vmlinux_of "$variant")" "vmlinux-$variant"
	done
	echo
	for ((i = 1; i < ${#VARIANTS[@]}; i++)); do
		read -r text _ _ dec _ < <(size "$(vmlinux_of "${VARIANTS[i - 1]}")" | tail -n 1)
		size_delta "${VARIANTS[i - 1]} -> ${VARIANTS[i]}" "$text" "$dec" "$(vmlinux_of "${VARIANTS[i]}")"
	done
}

size_delta() {
	local label=$1 text0=$2 dec0=$3 text dec
	read -r text _ _ dec _ < <(size "$4" | tail -n 1)
	awk -v l="$label" -v t0="$text0" -v t="$text" -v d0="$dec0" -v d="$dec" 'BEGIN {
		printf "%-20s text %+d B (%+.3f%%), dec %+d B (%+.3f%%)\n",
			l ":", t - t0, 100 * (t - t0) / t0, d - d0, 100 * (d - d0) / d0 }'
}

bloat() {
	local from=$1 to=$2 file=$RESULTS_DIR/bloat-$SIZES_ID-$1-$2.txt
	write_atomic "$file" "$TREE_DIR/scripts/bloat-o-meter" -t "$(vmlinux_of "$from")" "$(vmlinux_of "$to")"
	echo "bloat-o-meter -t vmlinux-$from vmlinux-$to"
	echo "(top 15; all: ${file#"$PROJECT_DIR"/})"
	if [ "$(wc -l <"$file")" -le 17 ]; then
		cat "$file"
	else
		head -n 17 "$file"
		echo "..."
		grep '^Total:' "$file"
	fi
	kunit_split "$file" "$from" "$to"
}

# kunit_symbols VARIANT: the symbols the variant's KUnit test objects
# (KUNIT_TEST_FILES, compiled into its vmlinux) define, one per line.
kunit_symbols() {
	local dir pattern
	dir=$(build_dir "$TARGET" "$CONFIG_SET" "$1")
	for pattern in "${KUNIT_TEST_FILES[@]}"; do
		find "$dir" -name "${pattern%.c}.o" ! -name '*.mod.o'
	done | sort -u | while read -r object; do
		# Built into vmlinux: in a built-in.a beside it.
		grep -qs "$(basename "$object")" "$(dirname "$object")/built-in.a" || continue
		"${CROSS_COMPILE:-}nm" --defined-only "$object" | awk '{ print $3 }'
	done
}

# kunit_split BLOAT FROM TO: bloat-o-meter's change from FROM to TO,
# split into the KUnit test code's functions and data (symbols of the
# test objects of either build) and the rest, the kernel code the
# series' cost is.
kunit_split() {
	local bloat=$1 symbols
	symbols=$(mktemp)
	{ kunit_symbols "$2"; kunit_symbols "$3"; } | sort -u >"$symbols"
	python3 - "$bloat" "$symbols" <<'PY'
import re, sys
bloat, symbols = sys.argv[1:]
kunit = {line.strip() for line in open(symbols) if line.strip()}
rows = re.findall(r"^(\S+)\s+(?:-|\d+)\s+(?:-|\d+)\s+([+-]\d+)$", open(bloat).read(), re.M)
test = [(n, int(d)) for n, d in rows if n.split(".")[0] in kunit or n in kunit]
rest = sum(int(d) for _, d in rows) - sum(d for _, d in test)
print(f"of which KUnit tests: {sum(d for _, d in test):+d} B in {len(test)} symbols; "
      f"kernel code: {rest:+d} B")
PY
	rm -f "$symbols"
}

# prefetch_table: per variant, by mnemonic, then by section. Kept within
# 75 columns, so that it can be pasted into a commit message.
prefetch_table() {
	local variant counts
	echo "(t0, t1, t2, nta: prefetcht0/1/2/nta; w: prefetchw; 3dnow: prefetch)"
	printf '%-8s %6s %6s %4s %4s %5s %4s %6s %10s\n' variant total t0 t1 t2 nta w 3dnow functions
	for variant in "${VARIANTS[@]}"; do
		counts=$RESULTS_DIR/prefetches-$SIZES_ID-$variant.txt
		"$PROJECT_DIR/scripts/count-prefetches.sh" "$(vmlinux_of "$variant")" >"$counts"
		awk -F= -v v="$variant" '{ val[$1] = $2 }
			END { printf "%-8s %6d %6d %4d %4d %5d %4d %6d %10d\n", v, val["total"], val["insn_prefetcht0"],
				val["insn_prefetcht1"], val["insn_prefetcht2"], val["insn_prefetchnta"],
				val["insn_prefetchw"], val["insn_prefetch"], val["functions"] }' "$counts"
	done
	echo "by section:"
	for variant in "${VARIANTS[@]}"; do
		awk -F= -v v="$variant" '$1 ~ /^section_/ { s = s sprintf("%s %s %s", sep, substr($1, 9), $2); sep = "," }
			END { printf "  %-8s%s\n", v ":", s }' "$RESULTS_DIR/prefetches-$SIZES_ID-$variant.txt"
	done
}

write_json() {
	PROJECT_COMMIT=$(project_commit) python3 - "$RESULTS_DIR" "$SIZES_ID" "$CONFIG_SET" "$TARGET" \
		"$(compiler_version)" "$@" <<'PY'
import json, os, re, subprocess, sys
results, name, config, target, compiler = sys.argv[1:6]
vmlinux = dict(pair.split("=", 1) for pair in sys.argv[6:])
out = {"config": config, "target": target, "compiler": compiler, "variants": {},
       "run_id": os.environ.get("LIST_PREFETCH_RUN_ID", "standalone"),
       "project": os.environ.get("PROJECT_COMMIT", "?")}
for variant, path in vmlinux.items():
    text, data, bss, dec, _hx, _name = subprocess.run(
        ["size", path], capture_output=True, text=True, check=True).stdout.splitlines()[-1].split()
    counts = dict(line.split("=", 1) for line in open(f"{results}/prefetches-{name}-{variant}.txt").read().split())
    out["variants"][variant] = {"size": {"text": int(text), "data": int(data), "bss": int(bss), "dec": int(dec)},
                                "prefetches": {k: int(v) for k, v in counts.items()}}
names = list(vmlinux)
for pair in (f"{a}-{b}" for a, b in zip(names, names[1:])):
    total = open(f"{results}/bloat-{name}-{pair}.txt").read()
    m = re.search(r"Total: Before=(\d+), After=(\d+)", total)
    funcs = re.findall(r"^(\S+)\s+(-|\d+)\s+(-|\d+)\s+([+-]\d+)$", total, re.M)
    out[f"bloat_{pair.replace('-', '_')}"] = {
        "before": int(m.group(1)), "after": int(m.group(2)),
        "functions": {name: int(delta) for name, _old, _new, delta in funcs}}
tmp = f"{results}/sizes-{name}.json.tmp.{os.getpid()}"
with open(tmp, "w") as f:
    json.dump(out, f, indent=2, sort_keys=True)
os.replace(tmp, f"{results}/sizes-{name}.json")
PY
}

print_sizes() {
	echo "Sizes: $TARGET $CONFIG_SET, Linux $(tree_version "$TREE_DIR")"
	echo "compiler: $(compiler_version)"
	echo "built on: $(host_description)"
	echo "(judge by bloat-o-meter: on x86_64 .text is padded to a 2 MiB"
	echo "boundary, so 'size' barely moves)"
	echo
	size_table
	echo
	local i
	for ((i = 1; i < ${#VARIANTS[@]}; i++)); do
		bloat "${VARIANTS[i - 1]}" "${VARIANTS[i]}"
		echo
	done
	echo "prefetch instructions (objdump -d, all executable sections)"
	prefetch_table
}

sizes_report() {
	result_stamp
	print_sizes
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	local suffix=
	if [ "${1:-}" = --option ]; then
		VARIANTS=(default on) suffix=-option
		shift
	fi
	case $# in 1 | 2) ;; *) usage ;; esac
	CONFIG_SET=$1
	load_config_set "$CONFIG_SET"
	load_target "${2:-x86_64}"
	SIZES_ID=$(sizes_name "$CONFIG_SET")$suffix
	require_tree
	"$PROJECT_DIR/scripts/apply.sh"
	local variant
	local -a vmlinuxes=()
	for variant in "${VARIANTS[@]}"; do
		build_variant "$variant" || die "the $variant build of $CONFIG_SET failed" "see its error above; re-run to resume"
	done
	stage_start "sizes $TARGET-$CONFIG_SET"
	mkdir -p "$RESULTS_DIR"
	write_atomic "$RESULTS_DIR/sizes-$SIZES_ID.txt" sizes_report
	for variant in "${VARIANTS[@]}"; do
		vmlinuxes+=("$variant=$(vmlinux_of "$variant")")
	done
	write_json "${vmlinuxes[@]}"
	cat "$RESULTS_DIR/sizes-$SIZES_ID.txt"
	stage_end
}

main "$@"; exit
