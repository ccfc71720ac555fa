# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Static checks: the cache can be made from nothing, the runner itself,
# shell lint, the data files, the series (applies, checkpatch), the
# guest programs, the coccinelle rule on its corpus. No kernel build.
# shellcheck disable=SC2317 # functions called by name

# The tree and the series worktree are made before the first cacheable
# test: the pass cache's key covers both trees, and a pass stored before
# a cold run had made the series worktree would sit under a key that no
# later run computes (a warm run after a cold one ran them all again).

plan_static() {
	cat <<'PLAN'
check 120 test_fresh_cache_is_created
check 300 test_tree_unpacked
check 600 test_series_applies_to_pristine
check 120 test_runner_fails_a_failing_middle_command
check:cache 30 test_write_atomic_keeps_the_last_good_file
check 60 test_untracked_files_count_as_changes
check:cache 30 test_failure_gallery_is_this_runs
check 120 test_runner_caches_only_passes
check 120 test_runner_cache_key_covers_tools_and_environment
check 120 test_runner_stops_on_a_failing_plan
check 120 test_runner_holds_the_plan_to_its_manifest
check 120 test_runner_stops_at_a_signal
check 60 test_runner_speaks_ktap
check 60 test_runner_counts_reused_boots
check 60 test_cache_lock_names_its_holder
check:cache 120 test_shellcheck
check 30 test_data_files_load
check 30 test_misspelt_data_file_key_is_named
check:cache 30 test_lab_runs_debians_python
check:cache 30 test_trees_are_made_before_the_first_cacheable_test
check 30 test_boot_targets_name_targets
check 30 test_data_file_keys_documented
check:cache 30 test_make_help_names_every_target
check 60 test_quoted_results_are_current
check 30 test_series_code_is_what_builds_read
check 30 test_readme_keeps_newer_quoted_results
check 60 test_summary_shows_only_current_results
check:cache 30 test_status_claims_only_what_current_results_say
check 30 test_tiers_time_the_whole_run
check 30 test_series_file_complete
check 300 test_export_reproduces_the_series
check:cache 30 test_series_cites_the_quoted_results
check:cache 30 test_sweep_patches_are_where_the_uml_run_puts_them
check:cache 30 test_cover_letter_is_short_and_cites_committed_runs
check 60 test_mail_series_signs_as_the_sender
check:cache 120 test_checkpatch_strict
check:cache 120 test_guest_programs
check:cache 120 test_cocci_corpus
check:cache 30 test_cocci_comparison_names_other_sites
all 1800 test_audit
PLAN
}

# A producer that fails half way publishes nothing: write_atomic leaves
# the last good file (and no temp file) and passes the failure on; one
# that succeeds replaces it.
test_write_atomic_keeps_the_last_good_file() {
	local dir status=0
	dir=$(mktemp -d)
	echo good >"$dir/result.txt"
	write_atomic "$dir/result.txt" sh -c 'echo partial; exit 3' 2>"$dir/err" || status=$?
	[ "$status" -eq 3 ] || { echo "write_atomic returned $status for a producer that failed with 3"; return 1; }
	[ "$(cat "$dir/result.txt")" = good ] || { echo "a failed producer's output was published"; return 1; }
	grep -q 'left as it was' "$dir/err" || { echo "write_atomic did not say it kept the file"; return 1; }
	[ "$(find "$dir" -name 'result.txt.tmp.*' | wc -l)" -eq 0 ] || { echo "a temp file was left"; return 1; }
	write_atomic "$dir/result.txt" echo new
	[ "$(cat "$dir/result.txt")" = new ] || { echo "a good producer's output was not published"; return 1; }
	# A shell function whose middle command fails, called plainly (not
	# on the left of '||', where bash would ignore errexit in it too).
	set +e
	write_atomic "$dir/result.txt" producer_failing_half_way 2>/dev/null
	status=$?
	set -e
	[ "$status" -ne 0 ] || { echo "write_atomic passed a function that failed half way"; return 1; }
	[ "$(cat "$dir/result.txt")" = new ] || { echo "a function's partial output was published"; return 1; }
	rm -rf "$dir"
}

producer_failing_half_way() {
	echo partial
	false
	echo "after the failure"
}

# A result's stamp says +changes when the checkout has a file git does
# not track (it ran as much as a committed one), not only a modified one.
test_untracked_files_count_as_changes() {
	local clone
	clone=$(mktemp -d)
	git clone -q "$PROJECT_DIR" "$clone/p"
	[ "$(PROJECT_DIR=$clone/p project_commit)" = "$(git -C "$clone/p" rev-parse --short HEAD)" ] ||
		{ echo "a clean clone is stamped $(PROJECT_DIR=$clone/p project_commit)"; return 1; }
	echo 'echo new' >"$clone/p/scripts/new-stage.sh"
	[ "$(PROJECT_DIR=$clone/p project_commit)" = "$(git -C "$clone/p" rev-parse --short HEAD)+changes" ] ||
		{ echo "an untracked script is not counted: $(PROJECT_DIR=$clone/p project_commit)"; return 1; }
	rm "$clone/p/scripts/new-stage.sh"
	mkdir -p "$clone/p/results"
	echo made >"$clone/p/results/sizes.txt"
	[ "$(PROJECT_DIR=$clone/p project_commit)" = "$(git -C "$clone/p" rev-parse --short HEAD)" ] ||
		{ echo "a file under results/ counted as a change"; return 1; }
	rm -rf "$clone"
}

# The failure gallery comes from this run's logs only, and only when
# this run ran every fault test: an older run's log lying in the log
# directory, or a run of some tests, leaves the last gallery alone.
test_failure_gallery_is_this_runs() {
	local dir name
	dir=$(mktemp -d)
	mkdir -p "$dir/logs" "$dir/run"
	for name in $(plan_faults | awk '$3 ~ /^test_/ { print $3 }'); do
		printf 'error: %s provoked\nfix: none\nresults/ intact\n' "$name" >"$dir/logs/$name.log"
		echo "$name.log" >>"$dir/run/logs"
	done
	echo 'the last gallery' >"$dir/failures.txt"
	# One fault test did not run in this run: its log is an older run's.
	sed -i '$d' "$dir/run/logs"
	CHECK_LOG_DIR=$dir/logs CHECK_RUN_DIR=$dir/run RESULTS_DIR=$dir after_run
	[ "$(cat "$dir/failures.txt")" = 'the last gallery' ] ||
		{ echo "a run without every fault test rewrote the gallery"; return 1; }
	plan_faults | awk '$3 ~ /^test_/ { print $3 ".log" }' >"$dir/run/logs"
	CHECK_LOG_DIR=$dir/logs CHECK_RUN_DIR=$dir/run RESULTS_DIR=$dir after_run
	grep -q '^  error: test_parse_fails_on_oops provoked$' "$dir/failures.txt" ||
		{ echo "a whole run's gallery lacks a fault test's error"; return 1; }
	rm -rf "$dir"
}

# The cover letter's in-kernel section and the measured block of each
# patch that sweeps a path (the four of patches/held/) are what scripts/lib/series_figures.py
# makes of the UML run the README quotes, and so are the cover's quotes
# of codegen, sizes, include graph, KCSAN and bisect (each as its file in
# results/examples/ holds it; of another configuration's bisect record,
# the tally): a result remade and the series left citing the old one (or
# a figure edited by hand) fails here.
test_series_cites_the_quoted_results() {
	local scratch
	scratch=$(mktemp -d)
	mkdir "$scratch/held"
	cp "$PROJECT_DIR"/patches/*.patch "$scratch/"
	cp "$PROJECT_DIR"/patches/held/*.patch "$scratch/held/"
	python3 "$PROJECT_DIR/scripts/lib/series_figures.py" "$PROJECT_DIR/results/examples/uml-bench.txt" \
		--apply "$scratch"
	local patch name status=0 cited=0
	for patch in "$scratch"/*.patch "$scratch"/held/*.patch; do
		name=${patch#"$scratch"/}
		if ! cmp -s "$patch" "$PROJECT_DIR/patches/$name"; then
			diff -u "$PROJECT_DIR/patches/$name" "$patch" | head -n 20
			echo "patches/$name does not cite results/examples/ as they are"
			status=1
		fi
		! grep -q '^Measured on the real CPU, under User-Mode Linux:\|^The kernel.s own code on the real CPU:' "$patch" || cited=$((cited + 1))
	done
	local quoted
	quoted=$(grep -c '^  (results/examples/[^,]*, project [0-9a-f]*, ' "$PROJECT_DIR/patches/0000-cover-letter.patch")
	echo "$cited patches cite the UML run; the cover letter quotes $quoted results"
	[ "$quoted" -ge 5 ] ||
		{ echo "want the cover letter to quote at least 5 results with their source lines"; status=1; }
	[ "$cited" -eq 5 ] || { echo "want the cover and the four sweep patches (patches/held/) to cite it"; status=1; }
	[ "$status" -eq 0 ] ||
		echo "fix: scripts/lib/series_figures.py results/examples/uml-bench.txt --apply patches"
	rm -rf "$scratch"
	return "$status"
}

# The cover letter is read by maintainers: at most 150 lines of at most
# 75 columns (checkpatch's width for a message), its tables left in the
# lab's files. Its figures come from committed runs: a quoted result
# stamped '+changes' (made from an uncommitted tree) is refused, seen
# with a copy of the quoted codegen result so stamped, and so is one
# update-readme.py --check calls stale, seen with the KCSAN result
# stamped with the project's first commit.
test_cover_letter_is_short_and_cites_committed_runs() {
	local cover=$PROJECT_DIR/patches/0000-cover-letter.patch scratch lines wide root
	lines=$(wc -l <"$cover")
	wide=$(awk 'length > 75' "$cover" | wc -l)
	echo "the cover letter: $lines lines, $wide over 75 columns"
	[ "$lines" -le 150 ] && [ "$wide" -eq 0 ] || return 1
	scratch=$(mktemp -d)
	mkdir "$scratch/patches" "$scratch/examples"
	cp -r "$PROJECT_DIR/patches/." "$scratch/patches/"
	cp "$PROJECT_DIR"/results/examples/*.txt "$scratch/examples/"
	sed -i '1s/^# project \([0-9a-f]*\),/# project \1+changes,/' "$scratch/examples/codegen-x86_64.txt"
	quote_is_refused "$scratch" 'codegen-x86_64.txt was made from uncommitted changes' \
		"a codegen result made from uncommitted changes" || return 1
	# A committed result that the lab's code has moved past since: the
	# README withdraws it, so the cover letter must not quote it either.
	cp "$PROJECT_DIR/results/examples/codegen-x86_64.txt" "$scratch/examples/"
	root=$(git -C "$PROJECT_DIR" rev-list --max-parents=0 HEAD | cut -c1-7)
	sed -i "1s/^# project [0-9a-f]*,/# project $root,/" "$scratch/examples/kcsan.txt"
	quote_is_refused "$scratch" "kcsan.txt is stale: made at $root" \
		"a KCSAN result made at the project's first commit ($root)" || return 1
	rm -rf "$scratch"
}

# quote_is_refused SCRATCH MESSAGE WHAT: series_figures.py, quoting the
# results in SCRATCH/examples into the series in SCRATCH/patches, fails
# with MESSAGE (WHAT names the doctored result).
quote_is_refused() {
	if python3 "$PROJECT_DIR/scripts/lib/series_figures.py" "$1/examples/uml-bench.txt" \
		--apply "$1/patches" 2>"$1/err"; then
		echo "$3 was quoted"
		return 1
	fi
	grep -qF -- "$2" "$1/err" || { cat "$1/err"; return 1; }
}

# Each sweep patch is where the quoted UML run's decision puts it: in
# the series if its removal stands, else held back (patches/held/). A
# series that takes a patch the run did not clear fails, seen with one
# held patch moved into a copy of the series.
test_sweep_patches_are_where_the_uml_run_puts_them() {
	local result=$PROJECT_DIR/results/examples/uml-bench.txt scratch victim
	python3 "$PROJECT_DIR/scripts/lib/series_figures.py" "$result" --placement "$PROJECT_DIR/patches"
	scratch=$(mktemp -d)
	cp -r "$PROJECT_DIR/patches" "$scratch/"
	victim=$(find "$scratch/patches/held" -name '0*.patch' | sort | tail -n 1)
	mv "$victim" "$scratch/patches/"
	if python3 "$PROJECT_DIR/scripts/lib/series_figures.py" "$result" --placement "$scratch/patches" \
		>"$scratch/out"; then
		echo "a series holding ${victim##*/}, which the run did not clear, passed"
		return 1
	fi
	grep -q 'yet it is in the series' "$scratch/out" || { cat "$scratch/out"; return 1; }
	echo "$(grep -c . "$PROJECT_DIR/patches/held/series") held back as the run decides; a held patch moved into the series is refused"
	rm -rf "$scratch"
}

# The sendable copy of the series is the sender's: From: and every
# Signed-off-by: carry git's user.name and user.email, the subjects the
# version, and no placeholder is left anywhere in it (shortlog and
# copyright lines included); each patch has To: and Cc: lines from
# get_maintainer.pl (the KUnit suites Cc kunit-dev; the architectures'
# lists only a swept site, and the series as decided has none), the
# cover letter all of them
# and the pristine tree's base-commit:; without an identity it refuses,
# naming the fix, and writes nothing.
test_mail_series_signs_as_the_sender() {
	local scratch out patch nr=0
	scratch=$(mktemp -d)
	printf '[user]\n\tname = Ada Sender\n\temail = ada@example.org\n' >"$scratch/gitconfig"
	GIT_CONFIG_GLOBAL=$scratch/gitconfig GIT_CONFIG_NOSYSTEM=1 \
		"$PROJECT_DIR/scripts/mail-series.sh" "$scratch/out"
	# The version is the cover letter's newest changelog.
	local version
	version=$(sed -n 's/^Changes in v\([0-9]*\):$/\1/p' "$PROJECT_DIR/patches/0000-cover-letter.patch" |
		sort -n | tail -n 1)
	[ -n "$version" ] || { echo "the cover letter has no changelog"; return 1; }
	for patch in "$scratch"/out/*.patch; do
		nr=$((nr + 1))
		[ "$(grep -m1 '^From: ' "$patch")" = "From: Ada Sender <ada@example.org>" ] ||
			{ echo "${patch##*/}: $(grep -m1 '^From: ' "$patch")"; return 1; }
		grep -q "^Subject: \[PATCH v$version [0-9][0-9]/[0-9][0-9]\]" "$patch" ||
			{ echo "${patch##*/}: no v$version subject tag"; return 1; }
		! grep -q 'list-prefetch@localhost' "$patch" || { echo "${patch##*/}: the placeholder is left"; return 1; }
	done
	[ "$nr" -eq "$(($(grep -vc '^#' "$PROJECT_DIR/patches/series") + 1))" ] ||
		{ echo "$nr patches written, want the series and its cover"; return 1; }
	grep -q '^Signed-off-by: Ada Sender <ada@example.org>$' "$scratch"/out/0001-*.patch ||
		{ echo "patch 1 is not signed off by the sender"; return 1; }
	if grep -rEn 'list-prefetch developers|list-prefetch lab <|@localhost' "$scratch/out"; then
		echo "the placeholder identity is left in the output (above)"
		return 1
	fi
	for patch in "$scratch"/out/*.patch; do
		grep -q '^To: .*@' "$patch" || { echo "${patch##*/}: no To: line"; return 1; }
	done
	grep -q '^Cc: netdev@vger.kernel.org' "$scratch"/out/0005-*.patch ||
		{ echo "patch 05 does not Cc netdev (get_maintainer.pl's list for include/linux/skbuff.h)"; return 1; }
	local suites=0
	for patch in "$scratch"/out/*.patch; do
		case "${patch##*/}" in *-list-test-* | *-KUnit-*) ;; *) continue ;; esac
		suites=$((suites + 1))
		grep -q '^Cc: kunit-dev@googlegroups.com' "$patch" ||
			{ echo "${patch##*/}: a KUnit suite that does not Cc kunit-dev"; return 1; }
	done
	[ "$suites" -eq 3 ] || { echo "$suites KUnit patches found in the output, want 3"; return 1; }
	# The architectures' lists go with a swept site only.
	if grep -l '^Cc: linux-mips@vger.kernel.org' "$scratch"/out/0*.patch; then
		echo "Cc the architectures' lists, though the series sweeps no site (patches/held/ has the sweep)"
		return 1
	fi
	local cover=$scratch/out/0000-cover-letter.patch base
	base=$(git -C "$TREE_DIR" rev-parse 'pristine^{commit}')
	grep -qx "base-commit: $base" "$cover" ||
		{ echo "the cover letter has no base-commit: $base"; return 1; }
	if ! { grep -q '^To: Andrew Morton <akpm@linux-foundation.org>' "$cover" &&
		grep -q '^Cc: kunit-dev@googlegroups.com' "$cover"; }; then
		echo "the cover letter does not go to every patch's recipients"
		return 1
	fi
	: >"$scratch/empty"
	if out=$(GIT_CONFIG_GLOBAL=$scratch/empty GIT_CONFIG_NOSYSTEM=1 HOME=$scratch \
		"$PROJECT_DIR/scripts/mail-series.sh" "$scratch/none" 2>&1); then
		echo "a series was written without a sender identity"
		return 1
	fi
	grep -q 'no sender identity' <<<"$out" || { echo "the refusal does not say why: $out"; return 1; }
	[ ! -e "$scratch/none" ] || { echo "the refusal left $scratch/none behind"; return 1; }
	echo "$nr patches signed by the sender, $(grep -c '^To: ' "$cover") To: and $(grep -c '^Cc: ' "$cover") Cc: on the cover; refused without an identity"
	rm -rf "$scratch"
}

# A new machine: scripts/deps.sh and scripts/tree.sh against a cache
# directory that does not exist yet. deps.sh unpacks the foreign
# busyboxes there; tree.sh gets a stand-in tarball of the same layout
# (a Makefile that says 6.12.118), since the real one takes a minute to
# unpack and every cold run unpacks it anyway.
test_fresh_cache_is_created() {
	local scratch cache tarball
	scratch=$(mktemp -d)
	cache=$scratch/does/not/exist
	mkdir -p "$scratch/src/linux-source-$KERNEL_SERIES"
	printf 'kernelversion:\n\t@echo %s.118\n' "$KERNEL_SERIES" \
		>"$scratch/src/linux-source-$KERNEL_SERIES/Makefile"
	tarball=$scratch/linux-source-$KERNEL_SERIES.tar.xz
	tar -C "$scratch/src" -cJf "$tarball" "linux-source-$KERNEL_SERIES"
	LIST_PREFETCH_CACHE=$cache "$PROJECT_DIR/scripts/deps.sh"
	LIST_PREFETCH_CACHE=$cache LINUX_SOURCE_TARBALL=$tarball "$PROJECT_DIR/scripts/tree.sh"
	local arch
	for arch in arm64 i386; do
		[ -x "$cache/tools/busybox-$arch/bin/busybox" ] ||
			{ echo "no busybox for $arch in the new cache"; return 1; }
	done
	[ "$(git -C "$cache/tree/pristine" describe --tags)" = pristine ] ||
		{ echo "the new cache's tree has no pristine tag"; return 1; }
	# A background 'git gc --auto' repacks the kernel for minutes with
	# the lock's descriptor, holding the cache after tree.sh has ended.
	[ "$(git -C "$cache/tree/pristine" config gc.auto)" = 0 ] ||
		{ echo "the new tree lets git gc --auto run in the background"; return 1; }
	flock -n "$cache/lock" true ||
		{ echo "something tree.sh started still holds the cache lock"; return 1; }
	echo "deps.sh and tree.sh made $(find "$cache" -maxdepth 2 | wc -l) entries in a new cache"
	rm -rf "$scratch"
}

# The real cache's tree: unpacked from Debian's tarball, or reused.
test_tree_unpacked() {
	"$PROJECT_DIR/scripts/tree.sh"
}

# probe_runner TESTS: run check.sh on a scratch tests directory holding
# one stage of the given test functions (the plan is their names), with
# scratch results; prints its output, then its exit status.
probe_runner() {
	local scratch=$1 plan=$2 body=$3
	mkdir -p "$scratch/tests" "$scratch/results"
	{
		echo "plan_probe() { cat <<'PLAN'"
		echo "$plan"
		echo "PLAN"
		echo "}"
		echo "$body"
	} >"$scratch/tests/10-probe.sh"
	probe_stages "$scratch"
}

# The runner's own test: a test whose middle command fails must fail,
# even though its last command succeeds (bash ignores errexit in a
# subshell on the left of '||', which is how this once passed); a test
# over its timeout fails; a skip is a skip, but only through skip(): a
# command exiting 77 fails its test; a run of skips alone is not green;
# the tally is right.
test_runner_fails_a_failing_middle_command() {
	local scratch out
	scratch=$(mktemp -d)
	# shellcheck disable=SC2016 # the probes' code, expanded when they run
	out=$(probe_runner "$scratch" \
		"check 30 test_probe_middle_fails
check 30 test_probe_passes
check 30 test_probe_skips
check 2 test_probe_hangs
check 30 test_probe_subst_fails
check 30 test_probe_exits_77" '
test_probe_middle_fails() { echo before; false; echo after; true; }
test_probe_exits_77() { echo half way; sh -c "exit 77"; echo not reached; }
test_probe_subst_fails() { local x; x=$(false; echo hi); echo "$x"; }
test_probe_passes() { true; }
test_probe_skips() { skip "no such thing here"; }
test_probe_hangs() { sleep 60; }')
	echo "$out"
	local want
	for want in '^  \| not ok 1 test_probe_middle_fails$' '^  \| ok 2 test_probe_passes$' \
		'^  \| ok 3 test_probe_skips # SKIP no such thing here$' '^  \| not ok 4 test_probe_hangs$' \
		'^  \| # timed out after 2s ' '^  \| not ok 5 test_probe_subst_fails$' \
		'^  \| not ok 6 test_probe_exits_77$' '^  \| # exited 77, a skip.s status, but not through skip' \
		'^  \| 1 passed, 4 failed, 1 skipped$' '^exit status 1$'; do
		grep -qE -- "$want" <<<"$out" || { echo "missing: /$want/"; return 1; }
	done
	! grep -q '^  | # after$' <<<"$out" || { echo "the failing middle command did not stop its test"; return 1; }
	# The run (its plans, its tests, the one that hung) left no
	# temporary file or directory behind.
	local left
	left=$(find "$scratch/tmp" -mindepth 1 -maxdepth 1 -printf '%f ')
	[ -z "$left" ] || { echo "left in TMPDIR: $left"; return 1; }
	# A run of skips alone checked nothing: not green.
	out=$(probe_runner "$scratch/skips" "check 30 test_probe_skips" 'test_probe_skips() { skip "nothing here"; }')
	echo "$out"
	grep -q '^exit status 1$' <<<"$out" || { echo "a run whose every test skipped was green"; return 1; }
	rm -rf "$scratch"
}

# probe_stages SCRATCH: run check.sh on SCRATCH/tests as they are;
# prints its output, then its exit status. The probes' runner remembers
# passes whatever the caller's CHECK_CACHE (CHECK_CACHE=0 make check runs
# every test, these self-tests of the cache among them).
probe_stages() {
	local scratch=$1 status=0
	mkdir -p "$scratch/results" "$scratch/tmp"
	TMPDIR=$scratch/tmp CHECK_CACHE=1 CHECK_TESTS_DIR=$scratch/tests RESULTS_DIR=$scratch/results \
		LIST_PREFETCH_CACHE=$scratch/cache "$PROJECT_DIR/scripts/check.sh" >"$scratch/out" 2>&1 || status=$?
	sed 's/^/  | /' "$scratch/out"
	echo "exit status $status"
}

# A plan function that fails half way (a grep on a missing file) stops
# the run before any test, naming its stage: it would otherwise drop its
# own later tests and every later stage's, and pass on what is left.
test_runner_stops_on_a_failing_plan() {
	local scratch out
	scratch=$(mktemp -d)
	mkdir -p "$scratch/tests"
	cat >"$scratch/tests/10-probe.sh" <<'STAGE'
plan_probe() {
	echo "check 30 test_probe_passes"
	grep -h "a plan's data" /no/such/file
	echo "check 30 test_probe_later"
}
test_probe_passes() { true; }
test_probe_later() { true; }
STAGE
	cat >"$scratch/tests/20-after.sh" <<'STAGE'
plan_after() { echo "check 30 test_probe_after"; }
test_probe_after() { true; }
STAGE
	out=$(probe_stages "$scratch")
	echo "$out"
	grep -q 'the plan of .*10-probe.sh failed' <<<"$out" || { echo "the failing plan is not named"; return 1; }
	! grep -q '^exit status 0$' <<<"$out" || { echo "the run passed on a broken plan"; return 1; }
	! grep -q 'passed, ' <<<"$out" || { echo "tests ran on a broken plan"; return 1; }
	rm -rf "$scratch"
}

# With a manifest, a test added or removed without it stops the run,
# naming the test; the manifest updated, the run goes on.
test_runner_holds_the_plan_to_its_manifest() {
	local scratch out
	scratch=$(mktemp -d)
	mkdir -p "$scratch/tests"
	cat >"$scratch/tests/10-probe.sh" <<'STAGE'
plan_probe() { printf '%s\n' "check 30 test_probe_passes" "check 30 test_probe_new"; }
test_probe_passes() { true; }
test_probe_new() { true; }
STAGE
	echo test_probe_passes >"$scratch/tests/manifest-check.txt"
	out=$(probe_stages "$scratch")
	echo "$out"
	grep -q 'planned, not in the manifest: test_probe_new' <<<"$out" ||
		{ echo "the unlisted test is not named"; return 1; }
	! grep -q '^exit status 0$' <<<"$out" || { echo "the run passed with a plan off its manifest"; return 1; }
	printf '%s\n' test_probe_passes test_probe_new >"$scratch/tests/manifest-check.txt"
	out=$(probe_stages "$scratch")
	grep -q '^  | 2 passed, 0 failed$' <<<"$out" || { echo "the updated manifest did not let the run go on"; echo "$out"; return 1; }
	rm -rf "$scratch"
}

# HUP, INT or TERM during a test stops that test's whole process group
# at once (not after it ends), and what it started under a 'timeout' of
# its own (a group apart, as QEMU under boot.sh's was); runs no later
# test, ends the run non-zero saying "interrupted", and frees the cache
# lock. The runner is started with SIGINT at its default (a background
# job of this shell would ignore it).
test_runner_stops_at_a_signal() {
	local scratch pid status sleeper sig
	for sig in INT HUP TERM; do
		scratch=$(mktemp -d)
		mkdir -p "$scratch/tests" "$scratch/results"
		cat >"$scratch/tests/10-probe.sh" <<STAGE
plan_probe() { printf '%s\\n' "check 120 test_probe_sleeps" "check 30 test_probe_after"; }
test_probe_sleeps() { timeout 100 sleep 107 & echo \$! >"$scratch/sleeper"; wait; }
test_probe_after() { touch "$scratch/after-ran"; }
STAGE
		CHECK_TESTS_DIR=$scratch/tests RESULTS_DIR=$scratch/results LIST_PREFETCH_CACHE=$scratch/cache \
			python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
			"$PROJECT_DIR/scripts/check.sh" >"$scratch/out" 2>&1 &
		pid=$!
		for _ in $(seq 50); do [ -s "$scratch/sleeper" ] && break; sleep 0.2; done
		sleeper=$(cat "$scratch/sleeper")
		sleep 0.5
		status=0
		kill -"$sig" "$pid"
		wait "$pid" || status=$?
		echo "SIG$sig:"
		sed 's/^/  | /' "$scratch/out"
		echo "exit status $status"
		[ "$status" -ne 0 ] || { echo "the run interrupted by SIG$sig exited 0"; return 1; }
		grep -q '^interrupted$' "$scratch/out" || { echo "SIG$sig: the run did not say it was interrupted"; return 1; }
		[ ! -e "$scratch/after-ran" ] || { echo "SIG$sig: a test ran after the signal"; return 1; }
		sleep 1
		if kill -0 "$sleeper" 2>/dev/null || pgrep -xf 'sleep 107' >/dev/null; then
			echo "SIG$sig: the test's timeout $sleeper (or its sleep) outlived the run"
			pkill -xf 'sleep 107' || true
			kill "$sleeper" 2>/dev/null || true
			return 1
		fi
		flock -n "$scratch/cache/lock" true || { echo "SIG$sig: the cache lock is still held"; return 1; }
		rm -rf "$scratch"
	done
}

# A test whose boots were reused (scripts/boot.sh appends them to
# BOOT_REUSED_LOG) is marked so on its TAP line, like a cached pass, and
# the run counts them before its tally; a test that boots nothing is not.
test_runner_counts_reused_boots() {
	local scratch out
	scratch=$(mktemp -d)
	# shellcheck disable=SC2016 # the probe's code, expanded when it runs
	out=$(probe_runner "$scratch" "check 30 test_probe_reuses
check 30 test_probe_boots_nothing" '
test_probe_reuses() { echo "x86_64-qemu-default 2026-01-01T00:00Z" >>"$BOOT_REUSED_LOG"; }
test_probe_boots_nothing() { true; }')
	echo "$out"
	grep -q '^  | ok 1 test_probe_reuses # reused boot: x86_64-qemu-default of 2026-01-01T00:00Z$' <<<"$out" ||
		{ echo "the reused boot is not marked"; return 1; }
	grep -q '^  | ok 2 test_probe_boots_nothing$' <<<"$out" || { echo "a test without boots is marked"; return 1; }
	grep -q '^  | # reused: 1 boots' <<<"$out" || { echo "the reused boots are not counted"; return 1; }
	rm -rf "$scratch"
}

# Cacheable tests (':cache' in the plan): a pass is reported as cached
# when the inputs are the same, a failure is never remembered, and a
# changed input runs the test again.
test_runner_caches_only_passes() {
	local scratch out plan body
	scratch=$(mktemp -d)
	plan="check:cache 30 test_probe_passes
check:cache 30 test_probe_fails"
	body='
test_probe_passes() { echo ran; }
test_probe_fails() { false; }'
	probe_runner "$scratch" "$plan" "$body" >/dev/null
	out=$(probe_runner "$scratch" "$plan" "$body")
	echo "second run:"
	echo "$out"
	grep -q '^  | ok 1 test_probe_passes # cached: ' <<<"$out" || { echo "the pass was not cached"; return 1; }
	grep -q '^  | not ok 2 test_probe_fails$' <<<"$out" || { echo "the failure was not run again"; return 1; }
	out=$(probe_runner "$scratch" "$plan" "$body
# an input changed")
	echo "after a change of the tests:"
	echo "$out"
	grep -q '^  | ok 1 test_probe_passes$' <<<"$out" || { echo "a changed input did not run the test again"; return 1; }
	rm -rf "$scratch"
}

# The key of remembered passes covers the tools and the environment: a
# shim of objdump first in PATH, a steering variable set (ACCEL), or
# kbuild's KCFLAGS runs a cacheable test again; the same inputs again
# report it cached, and the run says how many passes were cached; it
# hashes every file a test may read, results/examples/ and lab/ too.
test_runner_cache_key_covers_tools_and_environment() {
	local scratch out plan body shims want
	scratch=$(mktemp -d)
	shims=$scratch/shims
	mkdir -p "$shims"
	printf '#!/bin/sh\nexit 1\n' >"$shims/objdump"
	chmod +x "$shims/objdump"
	plan="check:cache 30 test_probe_passes"
	body='test_probe_passes() { echo ran; }'
	probe_runner "$scratch" "$plan" "$body" >/dev/null
	out=$(probe_runner "$scratch" "$plan" "$body")
	grep -q '^  | ok 1 test_probe_passes # cached: ' <<<"$out" || { echo "the same inputs did not hit"; echo "$out"; return 1; }
	grep -q '^  | # cached: 1 of the 1 passes' <<<"$out" || { echo "the cached passes are not counted"; echo "$out"; return 1; }
	out=$(KCFLAGS=-DLIST_PREFETCH_PROBE probe_runner "$scratch" "$plan" "$body")
	echo "with KCFLAGS set:"
	echo "$out"
	grep -q '^  | ok 1 test_probe_passes$' <<<"$out" || { echo "KCFLAGS (kbuild's) did not run the test again"; return 1; }
	# The files it hashes: every one a test may read, the quoted results
	# (results/examples/) and lab/ among them, not this run's results.
	local files
	files=$("$PROJECT_DIR/scripts/check.sh" --key-files)
	for want in results/examples/uml-bench.txt lab/um/0001-um-offer-list-prefetches.patch README.md; do
		grep -qxF "$want" <<<"$files" || { echo "the key does not cover $want"; return 1; }
	done
	! grep -q '^results/[^e]' <<<"$files" || { echo "the key covers this run's results"; return 1; }
	out=$(PATH=$shims:$PATH probe_runner "$scratch" "$plan" "$body")
	echo "with a shim first in PATH:"
	echo "$out"
	grep -q '^  | ok 1 test_probe_passes$' <<<"$out" || { echo "a shim on PATH did not run the test again"; return 1; }
	# Another value than the caller's (ACCEL=kvm make check sets it).
	local other=kvm
	[ "${ACCEL:-}" != kvm ] || other=tcg
	out=$(ACCEL=$other probe_runner "$scratch" "$plan" "$body")
	echo "with ACCEL=$other:"
	echo "$out"
	grep -q '^  | ok 1 test_probe_passes$' <<<"$out" || { echo "a steering variable did not run the test again"; return 1; }
	rm -rf "$scratch"
}

# The runner's output is KTAP the kernel's own parser reads: kunit.py
# parse finds the plan and every result, with the skip as a skip.
test_runner_speaks_ktap() {
	require_tree
	local scratch
	scratch=$(mktemp -d)
	probe_runner "$scratch" "check 30 test_probe_passes
check 30 test_probe_fails
check 30 test_probe_skips" '
test_probe_passes() { true; }
test_probe_fails() { false; }
test_probe_skips() { skip "nothing to do"; }' >/dev/null
	# kunit.py parse reads KTAP; our last line is CI's tally, not KTAP.
	python3 "$TREE_DIR/tools/testing/kunit/kunit.py" parse --json="$scratch/parsed.json" \
		"$scratch/out" >"$scratch/parsed.txt" || true
	cat "$scratch/parsed.txt"
	python3 - "$scratch/parsed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cases = {c["name"]: c["status"] for c in r["test_cases"] for c in [c]} if "test_cases" in r else {}
if not cases:
    # kunit.py's JSON: tests -> test_cases
    cases = {c["name"]: c["status"] for t in r.get("tests", []) for c in t.get("test_cases", [])}
print("kunit.py parse found:", cases)
want = {"test_probe_passes": "PASS", "test_probe_fails": "FAIL", "test_probe_skips": "SKIP"}
sys.exit(0 if cases == want else 1)
PY
	rm -rf "$scratch"
}

# One command at a time on a cache: a second one refuses (or waits),
# naming the command that holds it.
test_cache_lock_names_its_holder() {
	local scratch holder status=0
	scratch=$(mktemp -d)
	mkdir -p "$scratch/cache"
	echo "'make report' (pid 1, since 00:00:00Z)" >"$scratch/cache/lock.holder"
	flock "$scratch/cache/lock" sleep 30 &
	holder=$!
	while flock -n "$scratch/cache/lock" true; do sleep 0.1; done
	(
		unset LIST_PREFETCH_LOCKED
		export LIST_PREFETCH_CACHE=$scratch/cache LIST_PREFETCH_LOCK_WAIT=0
		expect_failure "$scratch/out" "in use by 'make report'" "wait for it to finish" \
			"$PROJECT_DIR/scripts/tree.sh"
	) || status=1
	kill "$holder" 2>/dev/null || true
	wait "$holder" 2>/dev/null || true
	rm -rf "$scratch"
	return "$status"
}

test_shellcheck() {
	need_cmd shellcheck shellcheck
	cd "$PROJECT_DIR" || return 1
	run shellcheck -x scripts/*.sh scripts/lib/*.sh tests/*.sh .ci/run
	run shellcheck -s sh guest/init guest/workloads/*.sh scripts/lib/bin/python3
	# bash's echo writes a line at a time, so 'echo "$out" | grep -q' can
	# find its line and exit while echo still writes: echo dies of
	# SIGPIPE and, under pipefail, a match reads as a failure (1 in 2000
	# runs idle, more under load). grep -q PATTERN <<<"$out" reads no pipe.
	local piped
	piped=$(grep -nE '(^|[^[:alnum:]_])(echo|printf)[[:space:]][^|]*\|[[:space:]]*grep[[:space:]]+-[[:alpha:]]*q' \
		scripts/*.sh scripts/lib/*.sh tests/*.sh .ci/run | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#') || true
	[ -z "$piped" ] || { echo "echo piped into grep -q (use grep -q ... <<<\"\$var\"):"; echo "$piped"; return 1; }
	# 'if a | b | grep .' is false whenever a fails under pipefail: a
	# diff that found differences hid them that way (test_cocci_corpus).
	local hidden
	hidden=$(grep -nE '^[[:space:]]*(if|elif|while)[[:space:]]+(!?[[:space:]]*)(diff|cmp)[[:space:]][^#]*\|' \
		scripts/*.sh scripts/lib/*.sh tests/*.sh .ci/run) || true
	[ -z "$hidden" ] || { echo "a condition on a pipeline from diff/cmp (its status hides theirs):"; echo "$hidden"; return 1; }
	# In a plan function errexit does not hold where bash ignores it:
	# 'local x=$(...)' and 'for x in $(...)' would drop tests silently.
	local plans
	plans=$(awk '/^plan_[a-z_]*\(\) *\{/ && !/\} *$/ { inplan = 1 } inplan && /(local [A-Za-z_]+=\$\(|for [A-Za-z_]+ in [^;]*\$\()/ { print FILENAME ":" FNR ": " $0 } inplan && /^}/ { inplan = 0 }' tests/*.sh)
	[ -z "$plans" ] || { echo "a plan function hides a failing command:"; echo "$plans"; return 1; }
}

test_data_files_load() {
	local f
	for f in "$PROJECT_DIR"/configs/targets/*.conf "$PROJECT_DIR"/configs/sets/*.conf; do
		(load_conf "$f")
		echo "loads: ${f#"$PROJECT_DIR"/}"
	done
}

# A config set whose BOOT_TARGETS names no target (x86-64 for x86_64)
# is an error naming the set, the name and the targets there are: it
# would otherwise drop that set's boots from the plan.
test_boot_targets_name_targets() {
	local dir out
	out=$(mktemp)
	dir=$(mktemp -d)
	mkdir -p "$dir/configs/sets" "$dir/configs/targets"
	cp "$PROJECT_DIR/configs/targets/x86_64.conf" "$dir/configs/targets/"
	printf 'BASE=tinyconfig\nBOOT_TARGETS="x86-64"\n' >"$dir/configs/sets/typo.conf"
	# shellcheck disable=SC2016 # expanded by the inner bash
	expect_failure "$out" "typo.conf: BOOT_TARGETS names 'x86-64', which is no target" "name one of: x86_64" \
		bash -c '. "$1/scripts/lib/lab.sh"; PROJECT_DIR=$2; set_targets typo' _ "$PROJECT_DIR" "$dir" || return 1
	printf 'BASE=tinyconfig\nBOOT_TARGETS="x86_64"\n' >"$dir/configs/sets/typo.conf"
	# shellcheck disable=SC2016 # expanded by the inner bash
	[ "$(bash -c '. "$1/scripts/lib/lab.sh"; PROJECT_DIR=$2; set_targets typo' _ "$PROJECT_DIR" "$dir")" = x86_64 ] ||
		{ echo "the set spelt right does not load"; return 1; }
	rm -rf "$dir" "$out"
}

# In every tier the kernel tree and the series worktree are made before
# the first cacheable test (see the top of this file): the key covers
# both trees, and a pass stored under a key taken before the series
# existed is never found again.
test_trees_are_made_before_the_first_cacheable_test() {
	local tier plan first tree series
	for tier in check all; do
		plan=$("$PROJECT_DIR/scripts/check.sh" --tier "$tier" --list)
		first=$(echo "$plan" | grep -n '^[a-z]*:cache ' | head -n 1 | cut -d: -f1)
		tree=$(echo "$plan" | grep -n ' test_tree_unpacked$' | cut -d: -f1)
		series=$(echo "$plan" | grep -n ' test_series_applies_to_pristine$' | cut -d: -f1)
		echo "$tier: tree at $tree, series at $series, first cacheable test at $first"
		if [ -z "$first" ] || [ -z "$tree" ] || [ -z "$series" ]; then
			echo "$tier: the plan lacks one of them"
			return 1
		fi
		if [ "$tree" -gt "$first" ] || [ "$series" -gt "$first" ]; then
			echo "$tier: a cacheable test runs before the trees are made"
			return 1
		fi
	done
}

# The lab's Python is Debian's even behind a version manager's shim
# (pyenv's, first on PATH here: its interpreter is outside the cache key,
# and each start costs a bash script); lab.sh adds its directory once.
test_lab_runs_debians_python() {
	local scratch got user_path
	scratch=$(mktemp -d)
	printf '#!/bin/sh\necho shim >&2; exit 1\n' >"$scratch/python3"
	chmod +x "$scratch/python3"
	# The PATH of a user's shell: the shim first, no lab directory yet.
	user_path=$scratch:$(echo "$PATH" | tr : '\n' | grep -vx "$PROJECT_DIR/scripts/lib/bin" | paste -sd:)
	got=$(PATH=$user_path bash -c '. "$1/scripts/lib/lab.sh"; . "$1/scripts/lib/lab.sh"
		python3 -c "import sys; print(sys.executable)"
		echo ":$PATH:" | grep -o ":$1/scripts/lib/bin:" | wc -l' _ "$PROJECT_DIR")
	rm -rf "$scratch"
	echo "with a failing python3 shim first on PATH, lab.sh's python3 is: $got"
	[ "$(echo "$got" | sed -n 1p)" = /usr/bin/python3 ] ||
		{ echo "the lab's python3 is not Debian's /usr/bin/python3"; return 1; }
	[ "$(echo "$got" | sed -n 2p)" = 1 ] ||
		{ echo "lab.sh, sourced twice, put its bin directory on PATH other than once"; return 1; }
}

# A misspelt key (GUEST_WORKLOAD for GUEST_WORKLOADS) and a missing
# required one (BASE) are errors naming the file, the key and the fix;
# the same file spelt right loads.
test_misspelt_data_file_key_is_named() {
	local dir out status=0
	out=$(mktemp)
	dir=$(mktemp -d)
	mkdir -p "$dir/configs/sets"
	printf 'BASE=tinyconfig\nGUEST_WORKLOAD="stress"\n' >"$dir/configs/sets/typo.conf"
	# shellcheck disable=SC2016 # expanded by the inner bash
	expect_failure "$out" "typo.conf: unknown key GUEST_WORKLOAD" "the keys are: .*GUEST_WORKLOADS" \
		bash -c '. "$1/scripts/lib/lab.sh"; load_conf "$2"' _ "$PROJECT_DIR" "$dir/configs/sets/typo.conf" ||
		status=1
	printf 'GUEST_WORKLOADS="stress"\n' >"$dir/configs/sets/typo.conf"
	# shellcheck disable=SC2016 # expanded by the inner bash
	expect_failure "$out" "typo.conf: the required key BASE is missing" "add a BASE= line" \
		bash -c '. "$1/scripts/lib/lab.sh"; load_conf "$2"' _ "$PROJECT_DIR" "$dir/configs/sets/typo.conf" ||
		status=1
	printf 'BASE=tinyconfig\nGUEST_WORKLOADS="stress"\n' >"$dir/configs/sets/typo.conf"
	(load_conf "$dir/configs/sets/typo.conf" && [ "$GUEST_WORKLOADS" = stress ] &&
		[ "$USE_TARGET_FRAGMENT" = y ]) || { echo "a correct file did not load with its defaults"; status=1; }
	rm -rf "$dir" "$out"
	return "$status"
}

# docs/pipeline.md lists every key of both schemas (and no other).
test_data_file_keys_documented() {
	local entry key status=0
	for entry in "${TARGET_SCHEMA[@]}" "${SET_SCHEMA[@]}"; do
		key=${entry%%=*}
		if grep -q "^| \`$key\` " "$PROJECT_DIR/docs/pipeline.md"; then
			echo "documented: $key"
		else
			echo "NOT in docs/pipeline.md: $key"
			status=1
		fi
	done
	return "$status"
}

# README.md and docs/ quote each result file as it is, and a stale one
# (older than the last change to the series or to its producer) only as
# a notice saying so: no figure from code that no longer exists.
test_quoted_results_are_current() {
	python3 "$PROJECT_DIR/scripts/update-readme.py" --check
}

# What outdates a measured figure is the series' code: a patch's
# message, its comments and the files no build reads (MAINTAINERS,
# Documentation/, the coccinelle rule but for make audit's result) do
# not; a line of code in any other file does, but a KUnit test file's
# only for results of kernels that build KUnit.
test_series_code_is_what_builds_read() {
	python3 - "$PROJECT_DIR/scripts/update-readme.py" <<'PY'
import importlib.util, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
spec = importlib.util.spec_from_file_location("update_readme", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
def diff(path, line):
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1,2 @@\n {line}\n+{line}\n"
base = diff("lib/list.c", "int a;")
cases = [("MAINTAINERS", "F:\tlib/x.c", False), ("Documentation/core-api/x.rst", "text", False),
         ("lib/list.c", "/* a comment */", False), ("lib/list.c", "int b;", True),
         ("MAINTAINERS.c", "int c;", True), ("scripts/coccinelle/misc/x.cocci", "@r@", False),
         ("lib/Kconfig.debug", "\t  This builds the suite.", False),
         ("lib/Kconfig.debug", "\tdepends on KUNIT", True)]
bad = 0
for path, line, counts in cases:
    changed = m.code_lines(base + diff(path, line)) != m.code_lines(base + diff(path, "// none"))
    print(f"{path}: {line!r} {'counts' if changed else 'does not count'}")
    bad += changed != counts
if m.code_lines(base + diff("MAINTAINERS", "S:\tMaintained")) != m.code_lines(base):
    print("a MAINTAINERS hunk counts as a file of code")
    bad += 1
# make audit runs the rule: for its result the rule is code.
rule = diff("scripts/coccinelle/misc/x.cocci", "@r@")
if m.code_lines(base + rule, True) == m.code_lines(base, True):
    print("the coccinelle rule is not code for make audit's result")
    bad += 1
# A KUnit test file is code, but not for a kernel built without KUnit
# (the series as "patches:kernel": defconfig sizes, the UML bench).
for test in ("lib/list_prefetch_kunit.c", "lib/list-test.c", "net/netlabel/netlabel_addrlist_test.c"):
    t = diff(test, "KUNIT_EXPECT_EQ(test, 1, 1);")
    if m.code_lines(base + t) == m.code_lines(base):
        print(f"{test} is not code for a kernel with KUnit")
        bad += 1
    if m.code_lines(base + t, False, False) != m.code_lines(base, False, False):
        print(f"{test} counts for a kernel without KUnit")
        bad += 1
if m.code_lines(base + diff("lib/list_prefetch.c", "int d;"), False, False) == m.code_lines(base, False, False):
    print("a file that is not a KUnit test does not count for a kernel without KUnit")
    bad += 1
for name, (paths, _) in m.PRODUCERS.items():
    if "patches:kernel" in paths and "defconfig" not in name and "uml-bench" not in name:
        print(f"{name} ignores the KUnit files: its kernels build them")
        bad += 1
sys.exit(bad)
PY
}

# make readme copies this checkout's results over the quoted ones, but
# never an older result over a newer quoted one (committed since, from
# another run): it keeps the quoted one and says so.
test_readme_keeps_newer_quoted_results() {
	local dir
	dir=$(mktemp -d)
	mkdir -p "$dir/examples"
	printf '# project aaaaaaa, 2026-12-01T10:00:00Z; host: h\nold\n' >"$dir/old.txt"
	printf '# project bbbbbbb, 2026-12-02T10:00:00Z; host: h\nnew\n' >"$dir/examples/old.txt"
	printf '# project ccccccc, 2026-12-03T10:00:00Z; host: h\nnewer\n' >"$dir/newer.txt"
	printf '# project bbbbbbb, 2026-12-02T10:00:00Z; host: h\nquoted\n' >"$dir/examples/newer.txt"
	python3 - "$PROJECT_DIR/scripts/update-readme.py" "$dir" <<'PY'
import importlib.util, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
spec = importlib.util.spec_from_file_location("update_readme", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
d = sys.argv[2]
for name in ("old.txt", "newer.txt"):
    m.adopt(os.path.join(d, name), os.path.join(d, "examples", name))
PY
	grep -qx new "$dir/examples/old.txt" || { echo "an older result replaced the newer quoted one"; return 1; }
	grep -qx newer "$dir/examples/newer.txt" || { echo "a newer result did not replace the quoted one"; return 1; }
	rm -rf "$dir"
}

# The README's results in brief: a boot or benchmark made at HEAD is
# shown, one made before the code that makes it changed is named as not
# current (the project's first commit predates every producer).
test_summary_shows_only_current_results() {
	local dir head first out
	dir=$(mktemp -d)
	head=$(git -C "$PROJECT_DIR" rev-parse --short HEAD)
	first=$(git -C "$PROJECT_DIR" rev-list --max-parents=0 --abbrev-commit HEAD | tail -n 1)
	fake_boot "$dir" default "$head"
	fake_boot "$dir" on "$first"
	echo "# project $head, 2026-01-01T00:00:00Z; host: Test CPU, 2 CPUs; command: scripts/bench.sh" >"$dir/bench.txt"
	printf '%s\n' 'walk,layout,body,work,lookups,bytes,run,regime,headline,variant,ratio,verdict' \
		'hash-lookup,hashed,compare,0,dependent,1073741824,all,DRAM,1,none,1.00000,baseline' \
		'hash-lookup,hashed,compare,0,dependent,1073741824,all,DRAM,1,prefetch,1.23456,slower' \
		'hash-lookup,hashed,compare,0,dependent,1073741824,1,DRAM,1,prefetch,1.3,slower' >"$dir/bench.csv"
	out=$(python3 "$PROJECT_DIR/scripts/lib/summary.py" "$dir")
	rm -rf "$dir"
	echo "$out"
	grep -Eq '^  qemu +x86_64 +default +LIST_PREFETCH=n pass' <<<"$out" || { echo "the current boot is not shown"; return 1; }
	! grep -Eq 'x86_64 +on ' <<<"$out" || { echo "the stale boot is shown"; return 1; }
	grep -q 'no current result: results/boot-x86_64-qemu-on.json' <<<"$out" || { echo "the stale boot is not named"; return 1; }
	grep -q 'lookups, dependent    DRAM      -        1.235 slower' <<<"$out" || { echo "the benchmark headline is not shown"; return 1; }
	grep -q 'no current result: results/sizes-qemu.json' <<<"$out" || { echo "missing sizes are not named"; return 1; }
}

# The README's Status: each line read from its result, and shown only
# while that result is current (update-readme.py passes status.py the
# current ones): the KCSAN line comes and goes with kcsan.txt; a bisect
# with a failed step says FAIL; the make check record is quoted with its
# commit and tally.
test_status_claims_only_what_current_results_say() {
	local dir with without
	dir=$(mktemp -d)
	cat >"$dir/kcsan.txt" <<'RESULT'
# project abc1234, 2026-01-01T00:00:00Z; command: scripts/report.sh --table kcsan
  x86_64     default LIST_PREFETCH=n pass  splats 0  KUnit passed/failed: hlist 18/0
  x86_64     on   LIST_PREFETCH=y FAIL  splats 1  KUnit passed/failed: hlist 18/0
RESULT
	printf '%s
' '# project abc1234, 2026-01-01T00:00:00Z' 'ok        1  default n  10s  x  a' \
		'FAIL      2  default n  10s  x  b' >"$dir/bisect-x86_64.txt"
	printf '%s
' '$ bash .ci/run' '# project abc1234, 2026-01-01T00:00:00Z' '90 passed, 0 failed' \
		'# exit 0 after 359s' >"$dir/check-warm.txt"
	printf '%s\n' '$ make uml-bench' '# project abc1234, 2026-01-01T00:00:00Z' \
		'A/A controls: 12 of 12 read 1.000' '# exit 0 after 4000s' >"$dir/uml-bench-cold.txt"
	printf '%s\n' '# project abc1234, 2026-01-01T00:00:00Z' 'A/A controls: 12 of 12 read 1.000' \
		"patch 'rcu: tiny': the prefetch pays at 4 MiB: keep it (drop the patch)" >"$dir/uml-bench.txt"
	with=$(python3 "$PROJECT_DIR/scripts/lib/status.py" "$dir" kcsan.txt bisect-x86_64.txt check-warm.txt \
		uml-bench-cold.txt uml-bench.txt)
	without=$(python3 "$PROJECT_DIR/scripts/lib/status.py" "$dir" bisect-x86_64.txt)
	rm -rf "$dir"
	echo "$with"
	grep -Fxq -- '- KCSAN kernels (stress, rcutorture): 1 of 2 boots FAIL' <<<"$with" ||
		{ echo "status.py: want the failed KCSAN boot said"; return 1; }
	grep -Fxq -- '- x86_64: 1 of 2 bisect builds FAIL' <<<"$with" ||
		{ echo "status.py: want the failed bisect step said"; return 1; }
	grep -Fxq -- '- make check, warm at abc1234: 90 passed, 0 failed in 5 min 59 s' <<<"$with" ||
		{ echo "status.py: want the make check record with its commit"; return 1; }
	grep -Fxq -- '- make uml-bench, cold (empty cache) at abc1234: A/A controls 12/12 pass in 66 min 40 s' <<<"$with" ||
		{ echo "status.py: want the cold make uml-bench record with its time"; return 1; }
	grep -Fxq -- "- make uml-bench: patch 'rcu: tiny': the prefetch pays at 4 MiB: keep it (drop the patch)" <<<"$with" ||
		{ echo "status.py: want the UML run's decision of each sweep patch"; return 1; }
	if grep -q 'KCSAN\|make check' <<<"$without"; then
		echo "status.py: a claim of a result not passed as current is shown: $without"
		return 1
	fi
}

# A make report-all record holds its make check-all's run (with its own
# "# exit" line) before its own end: the tiers table takes the last one,
# the whole run's time, and counts the cached passes; make report's
# tally is its failed steps, make uml-bench's its A/A controls.
test_tiers_time_the_whole_run() {
	local dir out
	dir=$(mktemp -d)
	cat >"$dir/report-all-run.txt" <<'RECORD'
$ make report-all
# project abc1234, 2026-01-01T00:00:00Z
# host: Test CPU, 2 CPUs
# cache: warm (9 finished builds)
# cached: 24 of the 74 passes were remembered from a run with the same inputs
74 passed, 0 failed
# exit 0 after 1432s
# exit 0 after 3015s
RECORD
	# make report runs steps, not tests: its tally names the failed ones.
	cat >"$dir/report-cold.txt" <<'RECORD'
$ make report
# project abc1234, 2026-01-01T00:00:00Z
# host: Test CPU, 2 CPUs
# cache: empty
list-prefetch report (make report), 2026-01-01T00:45:00Z, run report-1
report: failed steps: uml-bench boot x86_64 on (their errors are above); the summary shows what exists
# exit 1 after 2687s
RECORD
	# make uml-bench decides a run: its tally is its two A/A controls.
	cat >"$dir/uml-bench-cold.txt" <<'RECORD'
$ make uml-bench
# project abc1234, 2026-01-01T00:00:00Z
# host: Test CPU, 2 CPUs
# cache: empty
A/A controls: 12 of 12 read 1.000 within their limit (or their sign test does not reject 1)
A/A controls (swept paths): 11 of 11 read 1.000 within 1 % (or their sign test does not reject 1)
# exit 0 after 4000s
RECORD
	out=$(python3 "$PROJECT_DIR/scripts/lib/tiers.py" "$dir" report-all-run report-cold uml-bench-cold)
	rm -rf "$dir"
	echo "$out"
	grep -q 'make uml-bench .* 66m40s .*A/A controls 12/12, 11/11 pass' <<<"$out" ||
		{ echo "want make uml-bench's 66m40s and its controls"; return 1; }
	grep -q 'make report-all .* 50m15s .*74 passed (24 cached), 0 failed' <<<"$out" ||
		{ echo "want the last exit line's 50m15s and the cached count"; return 1; }
	grep -q 'make report .* 44m47s .*failed steps: uml-bench boot x86_64 on ' <<<"$out" ||
		{ echo "want make report's 44m47s and its failed steps"; return 1; }
}

# fake_boot DIR VARIANT PROJECT: a passing x86_64 qemu boot's result.
fake_boot() {
	cat >"$1/boot-x86_64-qemu-$2.json" <<EOF
{"config": "qemu", "target": "x86_64", "variant": "$2", "list_prefetch": "$([ "$2" = on ] && echo y || echo n)",
 "status": "pass", "splats": [], "suites": {"list_prefetch": {"passed": 15, "failed": 0}}, "project": "$3"}
EOF
}

# Every patch file is in the series (patches/series, or the held
# patches' patches/held/series), and every entry exists.
test_series_file_complete() {
	local dir listed on_disk status=0
	for dir in patches patches/held; do
		listed=$(grep -v '^#' "$PROJECT_DIR/$dir/series" | sort)
		on_disk=$(cd "$PROJECT_DIR/$dir" &&
			find . -maxdepth 1 -name '0*.patch' ! -name '0000-*' -printf '%f\n' | sort)
		diff <(echo "$listed") <(echo "$on_disk") || status=1
		echo "$dir: $(echo "$listed" | wc -l) patches listed"
	done
	return "$status"
}

# The series applies in order to the pristine tree (apply.sh's own
# check, git apply on a scratch index, before it touches a worktree),
# and the cache's series worktree is exactly pristine plus the series.
test_series_applies_to_pristine() {
	"$PROJECT_DIR/scripts/apply.sh"
	local want got
	want=$(series_tree_id)
	got=$(git -C "$SERIES_DIR" rev-parse 'HEAD^{tree}')
	echo "pristine + $(series_files | wc -l) patches: tree $want; $SERIES_DIR: tree $got"
	[ "$want" = "$got" ]
	[ -z "$(git -C "$SERIES_DIR" status --porcelain --untracked-files=no)" ] ||
		{ echo "$SERIES_DIR has local changes"; return 1; }
}

# patches/ and patches/held/ -> git am -> scripts/export-series.sh give
# them back: every message, every changelog below '---' ('git am' drops
# them; the export keeps them by subject) and the cover letter's text.
# Only the cover's From: and Date: are the exporter's own.
test_export_reproduces_the_series() {
	require_tree
	local scratch name differs=0
	local -a held
	mapfile -t held < <(held_files)
	lab_tree held "$SERIES_DIR" "${held[@]}"
	scratch=$(mktemp -d)
	cp -r "$PROJECT_DIR/scripts" "$PROJECT_DIR/patches" "$PROJECT_DIR/configs" "$scratch/"
	"$scratch/scripts/export-series.sh" "$(lab_tree_dir held)" \
		"$(git -C "$SERIES_DIR" rev-parse HEAD)"
	for name in series held/series $(cd "$PROJECT_DIR/patches" && ls ./*.patch held/*.patch); do
		if ! diff -u -I '^Date: ' "$PROJECT_DIR/patches/$name" "$scratch/patches/$name" \
			>"$scratch/diff"; then
			echo "${name#./}: the export differs"
			head -n 20 "$scratch/diff"
			differs=1
		fi
	done
	echo "$(grep -c 'patch$' "$scratch/patches/series") patches and the cover exported, $(grep -c 'patch$' "$scratch/patches/held/series") held; $(grep -l '^Changes in v' "$scratch"/patches/0*.patch "$scratch"/patches/held/0*.patch | wc -l) with a changelog"
	rm -rf "$scratch"
	return "$differs"
}

# checkpatch --strict from outside any git repository, as a reviewer
# without the tree's history runs it: 0 errors, 0 warnings, 0 checks;
# the held patches too (they would go out as an RFC).
test_checkpatch_strict() {
	require_tree
	local patch out failed=0 patches checked=0
	patches="$(series_files) $(held_files)"
	for patch in $patches; do
		checked=$((checked + 1))
		out=$(checkpatch_outside_git "$patch" 2>&1) || true
		echo "${patch##*/}: $(echo "$out" | grep '^total:')"
		if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out"; then
			echo "$out" | grep -E '^(ERROR|WARNING|CHECK)' -A3
			failed=1
		fi
	done
	# An empty or missing series would pass on nothing.
	echo "$checked patches checked"
	[ "$checked" -gt 0 ] || { echo "no patch in patches/series: nothing was checked"; return 1; }
	return "$failed"
}

# The guest's C programs build warning-free and work: run on the host
# (plain userspace), briefly; a bad argument is refused. The module is
# kernel code: checkpatch --strict, like the series.
test_guest_programs() {
	require_tree
	local bin prog
	bin=$(mktemp -d)
	for prog in stress metabench; do
		# shellcheck disable=SC2086 # a list of flags
		run gcc $GUEST_CFLAGS -o "$bin/$prog" "$PROJECT_DIR/guest/$prog.c"
	done
	"$bin/metabench" 50 3 "$bin"
	"$bin/stress" 1
	if "$bin/metabench" 0 2>/dev/null; then echo "metabench took 0 files"; return 1; fi
	rm -rf "$bin"
	local module out
	for module in listbench/listbench.c umlbench/umlbench.c; do
		out=$(checkpatch_outside_git "$PROJECT_DIR/guest/$module" --no-tree -f) || true
		echo "$out"
		grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out" ||
			{ echo "checkpatch: guest/$module"; return 1; }
	done
	# A new file under arch/um/ is covered by MAINTAINERS' UML entry.
	out=$(checkpatch_outside_git "$PROJECT_DIR"/lab/um/*.patch --ignore FILE_PATH_CHANGES) || true
	echo "$out"
	grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out" || { echo "checkpatch: lab/um/"; return 1; }
}

# The series' semantic patch on the snippet corpus: report mode must name
# exactly the lines marked "list-walk" (no false negative, no false
# positive); patch mode must rewrite exactly those lines and no other,
# context mode flag them; and the kernel's own driver (make coccicheck)
# must say the same in report and patch mode.
test_cocci_corpus() {
	need_cmd spatch coccinelle
	"$PROJECT_DIR/scripts/apply.sh" >/dev/null
	local rule=scripts/coccinelle/misc/list_prefetch.cocci corpus=$PROJECT_DIR/audit/corpus
	local expected n out
	[ -f "$SERIES_DIR/$rule" ] || { echo "no rule at $SERIES_DIR/$rule"; return 1; }
	expected=$(cd "$corpus" && grep -n 'list-walk \*/' ./*.c | cut -d: -f1,2 | sed 's|^\./||' | sort)
	n=$(echo "$expected" | grep -c .)
	[ "$n" -gt 0 ] || { echo "the corpus in $corpus marks no list-walk site"; return 1; }
	echo "the corpus marks $n list-walk sites"
	cocci_modes_agree "$expected" "$n" spatch \
		"cd '$corpus' && spatch --very-quiet -D @MODE@ --no-includes --include-headers --sp-file '$SERIES_DIR/$rule' ./*.c"
	cocci_modes_agree "$expected" "$n" coccicheck \
		"make -s -C '$SERIES_DIR' coccicheck COCCI=$rule MODE=@MODE@ M='$corpus' 2>&1"
}

# cocci_modes_agree fails on a report of other sites than expected (a
# stand-in spatch reporting b.c:99 where a.c:3 is wanted), naming both:
# its comparison once went through a pipeline whose status hid diff's.
test_cocci_comparison_names_other_sites() {
	local out status=0
	out=$(cocci_modes_agree "a.c:3" 1 stand-in "echo './b.c:99:1-5: WARNING: a stand-in report'") || status=$?
	echo "$out"
	[ "$status" -ne 0 ] || { echo "a report of b.c:99 passed for a.c:3"; return 1; }
	if ! grep -q 'missed (false negative): a.c:3' <<<"$out" ||
		! grep -q 'reported (false positive): b.c:99' <<<"$out"; then
		echo "the comparison did not name the missed and the false sites"
		return 1
	fi
}

# cocci_modes_agree EXPECTED N NAME COMMAND: COMMAND (@MODE@ replaced by
# report, patch, context) reports, rewrites and flags exactly EXPECTED.
cocci_modes_agree() {
	local expected=$1 n=$2 name=$3 cmd=$4 out found
	out=$(bash -c "${cmd//@MODE@/report}")
	found=$(echo "$out" | sed -n 's|^\(.*/\)\{0,1\}\([a-z]*\.c\):\([0-9]*\):.*WARNING.*|\2:\3|p' | sort -u)
	echo "$name report: $(echo "$found" | grep -c .) sites"
	# Compared as strings: a pipeline's status would hide diff's.
	if [ "$expected" != "$found" ]; then
		diff <(echo "$expected") <(echo "$found") |
			sed -n 's/^< /missed (false negative): /p; s/^> /reported (false positive): /p' || true
		return 1
	fi
	out=$(bash -c "${cmd//@MODE@/patch}" | grep -v '^\(---\|+++\) ')
	local removed marked added
	removed=$(echo "$out" | grep -c '^-' || true)
	marked=$(echo "$out" | grep -c '^-.*list-walk \*/' || true)
	# (spatch may break a rewritten for header over two lines)
	added=$(echo "$out" | grep -c '^+.*list_prefetchw\{0,1\}(' || true)
	echo "$name patch: $removed lines removed, $marked of them marked, $added rewritten to list_prefetch[w]()"
	if [ "$removed" -ne "$n" ] || [ "$marked" -ne "$n" ] || [ "$added" -ne "$n" ]; then
		echo "$out" | grep '^[-+]' | sed 's/^/  | /'
		return 1
	fi
	if [ "$name" = spatch ]; then
		# Context mode prints the flagged lines as a diff's removed ones.
		out=$(bash -c "${cmd//@MODE@/context}" | grep -v '^--- ' | grep -c '^-.*list-walk \*/' || true)
		echo "$name context: $out marked lines flagged"
		[ "$out" -eq "$n" ]
	fi
}

test_audit() { "$PROJECT_DIR/scripts/audit.sh"; }

# make help is the list of what the lab does: every target of the
# Makefile's .PHONY line is in it (help itself aside).
test_make_help_names_every_target() {
	local help target missing=() nr=0
	local -a targets
	help=$(make -s -C "$PROJECT_DIR" help)
	read -ra targets < <(sed -n 's/^\.PHONY: *//p' "$PROJECT_DIR/Makefile")
	for target in "${targets[@]}"; do
		[ "$target" != help ] || continue
		nr=$((nr + 1))
		grep -Eq "(^|[ |])make( [a-z|-]+ [|])* $target( |$)" <<<"$help" || missing+=("$target")
	done
	[ "$nr" -gt 10 ] || { echo "only $nr targets on the .PHONY line"; return 1; }
	[ ${#missing[@]} -eq 0 ] || { echo "make help does not name: ${missing[*]}"; return 1; }
	echo "make help names all $nr targets"
}

