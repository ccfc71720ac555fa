# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Builds through distcc (DISTCC_HOSTS, scripts/lib/distcc.sh): a real
# distccd on 127.0.0.1 compiles a small kernel (make distcc-loopback),
# and a helper that does not answer leaves the build to this machine,
# saying so.
# shellcheck disable=SC2317 # functions called by name

plan_distcc() {
	cat <<'PLAN'
check:cache 60 test_distcc_summary_counts_where_compiles_ran
check:cache 60 test_distcc_names_a_helper_that_does_not_answer
all 2400 test_distcc_builds_on_the_helper
all 1200 test_distcc_falls_back_when_no_helper_answers
PLAN
}

# fallback_build DIR GOAL...: x86_64 tinyconfig, then GOAL..., built by
# the lab's kbuild in DIR/build with an empty ccache (every compile a
# miss, so every one reaches distcc); the summary in STAGE_NOTE, what
# the build printed in DIR/kbuild.out.
fallback_build() {
	local dir=$1
	shift
	require_tree
	load_target x86_64
	export CCACHE_DIR=$dir/ccache
	kbuild "$dir/config.log" "$TREE_DIR" "$dir/build" tinyconfig
	# Not through a pipe: compile_summary reads what kbuild set.
	if ! kbuild "$dir/build.log" "$TREE_DIR" "$dir/build" "$@" 2>"$dir/kbuild.out"; then
		cat "$dir/kbuild.out" >&2
		tail -n 20 "$dir/build.log" >&2
		return 1
	fi
	cat "$dir/kbuild.out" >&2
	compile_summary
}

# distcc_summary and build_env on doctored distcc logs: compiles counted
# per helper, here, and fallen back; no log, no compile; and the build's
# environment carries distcc only when DISTCC_HOSTS is set.
test_distcc_summary_counts_where_compiles_ran() {
	local dir got want
	dir=$(mktemp -d)
	cat >"$dir/distcc.log" <<'LOG'
distcc[11] compile a.c on 10.0.0.2:3632/4 completed ok
distcc[12] cpp b.c on localhost completed ok
distcc[12] compile b.c on 10.0.0.3/8 completed ok
distcc[13] compile c.c on 10.0.0.2:3632/4 completed ok
distcc[14] Warning: failed to distribute d.c to 10.0.0.3/8, running locally instead
distcc[14] compile d.c on localhost completed ok
distcc[15] compile e.S on localhost completed ok
LOG
	got=$(distcc_summary "$dir/distcc.log")
	want="distcc: 2 on 10.0.0.2:3632/4, 1 on 10.0.0.3/8, 2 here (1 fell back)"
	[ "$got" = "$want" ] || { echo "distcc_summary: got '$got', want '$want'"; return 1; }
	got=$(distcc_summary "$dir/none.log")
	[ "$got" = "distcc: no compile reached distcc" ] || { echo "distcc_summary of no log: '$got'"; return 1; }
	(
		unset DISTCC_HOSTS
		build_env "$dir/out"
		[ ${#BUILD_ENV[@]} -eq 0 ] || { echo "build_env without DISTCC_HOSTS: ${BUILD_ENV[*]}"; exit 1; }
		[ "$(JOBS='' make_jobs)" = "$(nproc)" ] || { echo "make_jobs without DISTCC_HOSTS is not nproc"; exit 1; }
	)
	echo "summary: $want"
	rm -rf "$dir"
}

# A helper where nothing listens: distcc_check_hosts names it and why,
# and goes on (the compiles fall back); make's -j is its job slots.
test_distcc_names_a_helper_that_does_not_answer() {
	local dir port out
	dir=$(mktemp -d)
	port=$(free_port)
	out=$(DISTCC_HOSTS="127.0.0.1:$port/3" DISTCC_DIR=$dir/state distcc_check_hosts gcc 2>&1)
	echo "$out"
	grep -q "distcc: 127.0.0.1:$port/3 does not compile for this build (.*refused.*): its share of the compiles falls back to this machine" <<<"$out" ||
		{ echo "distcc_check_hosts: want 127.0.0.1:$port named, refused, falling back"; return 1; }
	[ "$(DISTCC_HOSTS="127.0.0.1:$port/3" JOBS='' make_jobs)" = 3 ] ||
		{ echo "make_jobs does not follow the host list (want 3)"; return 1; }
	rm -rf "$dir"
}

# make distcc-loopback: a small kernel (x86_64 tinyconfig) through a
# real distccd on 127.0.0.1 (the script checks that distccd's own log
# counts the compiles the lab's summary puts on it), and here alone; the
# result holds both wall times and where the compiles ran.
test_distcc_builds_on_the_helper() {
	local results out port
	results=$(mktemp -d)
	if ! RESULTS_DIR=$results "$PROJECT_DIR/scripts/distcc-loopback.sh" >"$results/run.log" 2>&1; then
		cat "$results/run.log"
		return 1
	fi
	cat "$results/run.log"
	out=$results/distcc-loopback.txt
	# The probe before each build finds the helper answering, with gcc.
	if grep 'does not compile for this build' "$results/run.log"; then
		echo "the probe took the answering distccd for one that does not"
		return 1
	fi
	grep -q "distcc: 127\.0\.0\.1:[0-9]*/3 compiles with gcc (GCC: " "$results/run.log" ||
		{ echo "the probe did not name the helper's compiler"; return 1; }
	grep -Eq '^distccd on 127\.0\.0\.1:[0-9]+ \(-j3\) +[0-9]+  ccache: [0-9]+ of [0-9]+ compiles hit; distcc: [0-9]+ on 127\.0\.0\.1:[0-9]+/3, [0-9]+ here \(0 fell back\)$' "$out" ||
		{ echo "want the build through distccd: all ccache misses, compiles on it, none fallen back"; return 1; }
	grep -Eq '^here alone \(-j[0-9]+\) +[0-9]+  ccache: [0-9]+ of [0-9]+ compiles hit$' "$out" ||
		{ echo "want the build here alone, without distcc"; return 1; }
	port=$(sed -n 's/^distccd on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$out")
	! pgrep -f "distccd .*--port $port " >/dev/null ||
		{ echo "the distccd on port $port outlived the script"; return 1; }
	rm -rf "$results"
}

# A helper where nothing listens: the build names it, compiles here
# (distcc's fallback) and succeeds. Two directories of the kernel only:
# the fallback, not a kernel, is what is tested.
test_distcc_falls_back_when_no_helper_answers() {
	local dir port here
	dir=$(mktemp -d)
	port=$(free_port)
	export DISTCC_HOSTS="127.0.0.1:$port/2" DISTCC_DIR=$dir/state
	fallback_build "$dir" kernel/ lib/
	echo "$STAGE_NOTE"
	grep -q "distcc: 127.0.0.1:$port/2 does not compile for this build" "$dir/kbuild.out" ||
		{ echo "the build did not name the helper that does not answer"; return 1; }
	here=$(sed -n 's|.* \([0-9]*\) here ([0-9]* fell back).*|\1|p' <<<"$STAGE_NOTE")
	[ "${here:-0}" -gt 50 ] || { echo "want the compiles done here"; return 1; }
	! grep -q " on 127\.0\.0\.1:$port" <<<"$STAGE_NOTE" || { echo "compiles counted on a helper that is not there"; return 1; }
	ls "$dir/build/lib/"*.o >/dev/null || { echo "no objects in lib/: the build did not succeed"; return 1; }
	rm -rf "$dir"
}
