# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The qemu guest of every target: configure, build, boot under TCG, and
# judge from this run's results: the KUnit suites, the LIST_PREFETCH
# setting, the prefetch instructions in the vmlinux. make check boots
# each target's CHECK_VARIANTS (x86_64 default: LIST_PREFETCH=n; i386 MK7:
# =y, the architecture's default), make check-all its BOOT_VARIANTS.
# shellcheck disable=SC2317 # functions called by name

plan_boot() {
	local target variant tier targets variants checked
	# Assigned first: a failure in a for loop's list (or a case's word)
	# would pass unseen.
	targets=$(targets_in_check_order)
	for target in $targets; do
		variants=$(boot_variants "$target")
		checked=$(check_variants "$target")
		for variant in $variants; do
			tier=all
			case " $checked " in *" $variant "*) tier=check ;; esac
			echo "$tier 3600 test_boot $target $variant"
			echo "$tier 60 test_list_prefetch_default $target $variant"
			echo "$tier 60 test_kunit_suites $target $variant"
			echo "$tier 300 test_iterator_prefetch_sites $target $variant"
		done
	done
	# x86_64 built with clang (TOOLCHAIN=llvm: the target x86_64-llvm),
	# each variant booted and judged as gcc's (make check-all only).
	variants=$(boot_variants x86_64)
	for variant in $variants; do
		echo "all 3600 test_boot x86_64-llvm $variant"
		echo "all 60 test_list_prefetch_default x86_64-llvm $variant"
		echo "all 60 test_kunit_suites x86_64-llvm $variant"
		echo "all 300 test_iterator_prefetch_sites x86_64-llvm $variant"
		echo "all 60 test_built_with_clang x86_64-llvm $variant"
	done
	echo "all 900 test_boot_reuse_is_said x86_64 default"
	echo "check:cache 30 test_toolchain_names_the_build"
}

# test_toolchain_names_the_build: TARGET-llvm is the target's data file
# built with clang (LLVM=1 for Kconfig and kbuild alike), in a build
# directory of its own; TOOLCHAIN=llvm makes every target its -llvm
# twin; gcc's makes carry no LLVM; an unknown toolchain is an error.
test_toolchain_names_the_build() {
	(
		# gcc's target as gcc's, whatever the caller's TOOLCHAIN=llvm.
		unset TOOLCHAIN
		load_target x86_64
		kbuild_args
		echo "x86_64: ${KBUILD_ARGS[*]}"
		[[ " ${KBUILD_ARGS[*]} " != *" LLVM=1 "* && " ${KBUILD_ARGS[*]} " == *" CC=ccache gcc "* ]] ||
			{ echo "gcc's make has LLVM=1, or another CC"; exit 1; }
		load_target x86_64-llvm
		kbuild_args
		echo "x86_64-llvm: ${KBUILD_ARGS[*]}"
		[[ " ${KBUILD_ARGS[*]} " == *" LLVM=1 "* && " ${KBUILD_ARGS[*]} " == *" CC=ccache clang HOSTCC=ccache clang "* ]] ||
			{ echo "want LLVM=1 and clang for x86_64-llvm"; exit 1; }
		local build
		build=$(build_dir x86_64-llvm qemu default)
		if [ "$ARCH" != x86_64 ] || [ "$build" != "$BUILD_ROOT/x86_64-llvm-qemu-default" ]; then
			echo "x86_64-llvm: ARCH $ARCH, build $build"
			exit 1
		fi
		TOOLCHAIN=llvm load_target i386-mk7
		if [ "${TARGET:-}" != i386-mk7-llvm ] || [ "$TARGET_LLVM" != 1 ]; then
			echo "TOOLCHAIN=llvm did not make i386-mk7 its -llvm twin: ${TARGET:-}"
			exit 1
		fi
	)
	local out
	if out=$(TOOLCHAIN=icc bash -c '. "$1/scripts/lib/lab.sh"; load_target x86_64' _ "$PROJECT_DIR" 2>&1); then
		echo "TOOLCHAIN=icc was taken"
		return 1
	fi
	grep -q 'TOOLCHAIN is gnu (gcc, the default) or llvm' <<<"$out" || { echo "TOOLCHAIN=icc: $out"; return 1; }
}

# test_built_with_clang TARGET VARIANT: the kernel this run booted was
# compiled by clang and linked by lld (its .comment names both, and no
# gcc), its .config says so.
test_built_with_clang() {
	load_target "$1"
	local out comment
	out=$(this_runs_build "$1" "$2")
	comment=$(readelf -p .comment "$out/vmlinux" | sed -n 's/^ *\[ *[0-9a-f]*\] *//p')
	echo "$1 $2: .comment of vmlinux:"
	# shellcheck disable=SC2001 # a prefix on every line
	sed 's/^/  /' <<<"$comment"
	grep -q 'clang version' <<<"$comment" || { echo "  not compiled by clang"; return 1; }
	grep -Eq '^Linker: (.* )?LLD ' <<<"$comment" || { echo "  not linked by lld"; return 1; }
	! grep -q 'GCC:' <<<"$comment" || { echo "  gcc compiled part of it"; return 1; }
	grep -qx 'CONFIG_CC_IS_CLANG=y' "$out/.config" || { echo "  its .config is not clang's"; return 1; }
}

# targets_in_check_order: x86_64 first (the fault tests borrow its
# default boot), then the others.
targets_in_check_order() {
	all_targets | grep -x x86_64 || true
	all_targets | grep -vx x86_64 || true
}

# test_boot TARGET VARIANT: configure, build, boot, judge.
test_boot() { boot_variant "$1" "$2"; }

# test_boot_reuse_is_said TARGET VARIANT: a boot of the same kernel,
# initramfs, command line and QEMU takes the last good boot's console
# log, says "reused" and is counted (BOOT_REUSED_LOG, the runner's
# "# reused:" line); another QEMU version, or BOOT_REUSE=0, boots anew.
# Its boots have a tag of their own: the build's own boot stays as it is.
test_boot_reuse_is_said() {
	local scratch count
	scratch=$(mktemp -d)
	export BOOT_TAG=reuse-probe BOOT_REUSED_LOG=$scratch/reused
	: >"$BOOT_REUSED_LOG"
	load_target "$1"
	BOOT_REUSE=0 "$PROJECT_DIR/scripts/boot.sh" "$1" "$2" >"$scratch/first" 2>&1 || { cat "$scratch/first"; return 1; }
	"$PROJECT_DIR/scripts/boot.sh" "$1" "$2" >"$scratch/second" 2>&1 || { cat "$scratch/second"; return 1; }
	grep 'boot: reused' "$scratch/second" || { echo "the same boot again did not say it was reused"; return 1; }
	count=$(wc -l <"$BOOT_REUSED_LOG")
	[ "$count" -eq 1 ] || { echo "reused boots counted: $count, want 1"; return 1; }
	# The same QEMU but for the version it reports: not the same boot.
	mkdir "$scratch/bin"
	cat >"$scratch/bin/$QEMU" <<SHIM
#!/bin/sh
[ "\$1" = --version ] && { echo "QEMU emulator version 0.0.1 (a probe's)"; exit 0; }
exec $(command -v "$QEMU") "\$@"
SHIM
	chmod +x "$scratch/bin/$QEMU"
	PATH=$scratch/bin:$PATH "$PROJECT_DIR/scripts/boot.sh" "$1" "$2" >"$scratch/third" 2>&1 ||
		{ cat "$scratch/third"; return 1; }
	! grep 'boot: reused' "$scratch/third" || { echo "another QEMU version reused the boot"; return 1; }
	BOOT_REUSE=0 "$PROJECT_DIR/scripts/boot.sh" "$1" "$2" >"$scratch/fourth" 2>&1 ||
		{ cat "$scratch/fourth"; return 1; }
	! grep 'boot: reused' "$scratch/fourth" || { echo "BOOT_REUSE=0 reused the boot"; return 1; }
	count=$(wc -l <"$BOOT_REUSED_LOG")
	[ "$count" -eq 1 ] || { echo "reused boots counted: $count, want 1"; return 1; }
	echo "reused once, booted anew for another QEMU version and for BOOT_REUSE=0"
	rm -rf "$scratch"
}

# this_runs_build TARGET VARIANT [CONFIG_SET]: the O= directory of a
# build whose boot passed in this run, checked to be the build that
# was booted (its stamp is in the result).
this_runs_build() {
	local out stamp
	out=$(build_dir "$1" "${3:-qemu}" "$2")
	stamp=$(result_field "$1" "$2" 'r.get("build_stamp", "none")' "${3:-qemu}")
	[ "$stamp" = "$(cat "$out/.lp-build" 2>/dev/null)" ] ||
		{ echo "$out was rebuilt after the boot this run judged" >&2; return 1; }
	echo "$out"
}

# test_list_prefetch_default TARGET VARIANT: the booted kernel's
# LIST_PREFETCH is the target's default in the default variant (nothing
# overridden) and y in the on variant (forced on).
test_list_prefetch_default() {
	load_target "$1"
	local value want
	want=$(expected_list_prefetch "$2")
	value=$(result_field "$1" "$2" 'r["list_prefetch"]')
	echo "$1 $2: CONFIG_LIST_PREFETCH=$value (want $want)"
	[ "$value" = "$want" ]
}

# test_kunit_suites TARGET VARIANT: every required suite ran in this
# run's boot, with all its cases passing, and none skipped where
# LIST_PREFETCH=y (the list_prefetch suite skips its prefetch-safety
# cases only where the option is off).
test_kunit_suites() {
	load_target "$1"
	load_config_set qemu
	local suite passed failed skipped status=0 value file rows
	local -a suites
	read -ra suites <<<"$(required_suites | xargs)"
	[ ${#suites[@]} -gt 0 ] || { echo "$1 $2: no required KUnit suite: nothing would be checked"; return 1; }
	file=$(result_json "$1" "$2")
	# One read of the result: LIST_PREFETCH, then each suite's passed,
	# failed and skipped.
	rows=$(python3 - "$file" "${suites[@]}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["list_prefetch"])
for name in sys.argv[2:]:
    s = r["suites"].get(name, {})
    print(name, s.get("passed", 0), s.get("failed", 0), s.get("skipped", 0))
PY
	)
	value=$(echo "$rows" | sed -n 1p)
	rows=$(echo "$rows" | sed 1d)
	[ "$(echo "$rows" | grep -c .)" -eq ${#suites[@]} ] ||
		{ echo "$1 $2: read ${#suites[@]} suites' counts, got: $rows"; return 1; }
	while read -r suite passed failed skipped; do
		echo "$1 $2: $suite passed $passed, failed $failed, skipped $skipped"
		[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ] || status=1
		# A case skips only where the option leaves it nothing to test.
		if [ "$value" = y ] && [ "$skipped" -gt 0 ]; then
			echo "  $skipped cases of $suite skipped although LIST_PREFETCH=y"
			status=1
		fi
	done <<<"$rows"
	return "$status"
}

# test_iterator_prefetch_sites TARGET VARIANT: read the vmlinux, not
# Kconfig. The series' KUnit cases that walk a list each hold a prefetch
# (in the text, or on i386 as an alternative) exactly when
# LIST_PREFETCH=y and the compiler makes an instruction of x86_64's
# prefetch(), __builtin_prefetch(): clang drops it under the kernel's
# -mno-sse (builtin_prefetch_emitted asks the build's own compiler), so
# there the cases hold none either way.
test_iterator_prefetch_sites() {
	load_target "$1"
	local out value walkers with_sites missing sites
	out=$(this_runs_build "$1" "$2")
	value=$(result_field "$1" "$2" 'r["list_prefetch"]')
	local emitted=0
	if [ "$value" = y ] && [ "$ARCH" = x86_64 ]; then
		builtin_prefetch_emitted "$out" || emitted=$?
		[ "$emitted" -ne 2 ] || return 1
	fi
	sites=$(mktemp)
	# The counter's own failure fails the test (no '|| true').
	"$PROJECT_DIR/scripts/count-prefetches.sh" --functions "$out/vmlinux" >"$sites"
	walkers=$("${CROSS_COMPILE}nm" "$out/vmlinux" |
		awk '$3 ~ /^list_prefetch_test_.*(foreach|walk)/ { print $3 }' | sort -u)
	with_sites=$(awk '$1 ~ /^list_prefetch_test_/ { print $1 }' "$sites" | sort -u)
	# Every kernel has prefetches outside the series' cases: a counter
	# that printed none counted nothing, and no case could be missing.
	[ -s "$sites" ] || { echo "  count-prefetches.sh listed no function of $out/vmlinux"; rm -f "$sites"; return 1; }
	echo "$1 $2 (LIST_PREFETCH=$value): $(echo "$walkers" | grep -c .) walking cases, $(echo "$with_sites" | grep -c .) cases with a prefetch"
	awk '$1 ~ /^list_prefetch_test_.*foreach/' "$sites" | head -n 2 | sed 's/^/  e.g. /'
	rm -f "$sites"
	[ -n "$walkers" ] || { echo "  no walking cases in $out/vmlinux"; return 1; }
	if [ "$value" = y ] && [ "$emitted" -eq 1 ]; then
		echo "  $(compiler_version) makes no instruction of __builtin_prefetch() with this build's flags: no walking case may hold one"
		missing=$(comm -12 <(echo "$walkers") <(echo "$with_sites"))
		[ -z "$missing" ] || { echo "  walking with a prefetch all the same: $missing"; return 1; }
	elif [ "$value" = y ]; then
		missing=$(comm -23 <(echo "$walkers") <(echo "$with_sites"))
		[ -z "$missing" ] || { echo "  walking without a prefetch: $missing"; return 1; }
	elif [ -n "$with_sites" ]; then
		echo "  prefetch although LIST_PREFETCH=n: $with_sites"
		return 1
	fi
}
