# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the list-prefetch scripts. Sourced, never run.
#
# Every script prints the external commands it runs ("$ cmd") and its
# elapsed time, sends errors to stderr naming the cause and the fix, and
# writes results through a temp file renamed into place.

PROJECT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The one variable that moves everything this project caches.
LIST_PREFETCH_CACHE=${LIST_PREFETCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/list-prefetch}
TREE_DIR=$LIST_PREFETCH_CACHE/tree/pristine
BUILD_ROOT=$LIST_PREFETCH_CACHE/build
RESULTS_DIR=${RESULTS_DIR:-$PROJECT_DIR/results}
KERNEL_SERIES=6.12
# The command line that ran the script sourcing us, as a result's stamp
# names it: taken here, before any script's main shifts its arguments.
INVOCATION=$(realpath -s "$0" 2>/dev/null || echo "$0")
INVOCATION=${INVOCATION#"$PROJECT_DIR"/}${*:+ $*}
export CCACHE_DIR=${CCACHE_DIR:-$LIST_PREFETCH_CACHE/ccache}
# Builds of the same source in different O= directories (bisect steps, a
# re-made build directory, the scratch caches of the tests) share ccache
# entries only if the absolute paths in the compiler's arguments do not
# count: ccache rewrites every absolute path (base directory /) relative
# to the working directory, and leaves that directory out of the hash.
# Every O= directory sits at the same depth under its BUILD_ROOT.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-time_macros,include_file_mtime,include_file_ctime}
# Debian's python3 before any other on PATH (scripts/lib/bin/python3 says
# why); once only, so that a shim a test puts in front stays in front.
case ":$PATH:" in
*":$PROJECT_DIR/scripts/lib/bin:"*) ;;
*) export PATH=$PROJECT_DIR/scripts/lib/bin:$PATH ;;
esac
# shellcheck source=scripts/lib/distcc.sh
. "$PROJECT_DIR/scripts/lib/distcc.sh"

log() { printf '%s\n' "$*" >&2; }

# die CAUSE FIX: one line for what went wrong, one for what to do.
die() {
	printf 'error: %s\n' "$1" >&2
	[ $# -lt 2 ] || printf '  fix: %s\n' "$2" >&2
	exit 1
}

# run CMD...: print the command like a shell transcript, then run it.
run() {
	printf '$ %s\n' "$*" >&2
	"$@"
}

# apt_update: refresh Debian's package lists. A mirror caught mid-sync
# fails one index ("File has unexpected size ... Mirror sync in
# progress?") for a minute or two, so wait and try again; if every try
# fails, say so and go on with the lists there are: the install or
# download that follows names the package it cannot find.
# APT_UPDATE_TRIES and APT_RETRY_SECONDS (the first wait; it doubles).
apt_update() {
	local try tries=${APT_UPDATE_TRIES:-3} wait=${APT_RETRY_SECONDS:-20}
	for ((try = 1; try <= tries; try++)); do
		run apt-get update -q -o Acquire::Retries=3 && return 0
		[ "$try" -lt "$tries" ] || break
		log "apt-get update failed (try $try of $tries; a mirror mid-sync?): again in ${wait}s"
		sleep "$wait"
		wait=$((wait * 2))
	done
	log "warning: apt-get update failed $tries times; going on with the package lists there are"
}

# stage_start NAME / stage_end: elapsed time of a stage, kunit.py style.
stage_start() {
	STAGE_NAME=$1
	STAGE_T0=$(date +%s.%N)
	log "==> $STAGE_NAME"
}

# STAGE_NOTE, if set, is recorded with the time (e.g. ccache's hits).
stage_end() {
	local elapsed
	elapsed=$(echo "$(date +%s.%N) - $STAGE_T0" | bc)
	printf '==> %s: done in %.1fs\n' "$STAGE_NAME" "$elapsed" >&2
	if [ -n "${STAGE_TIMES_FILE:-}" ]; then
		printf '%s\t%.1f\t%s\n' "$STAGE_NAME" "$elapsed" "${STAGE_NOTE:-}" >>"$STAGE_TIMES_FILE"
	fi
	STAGE_NOTE=
}

# write_atomic FILE [COMMAND [ARG...]]: FILE from what COMMAND prints,
# through a temp file, replaced only when COMMAND exits 0: a producer that
# fails half way leaves the previous FILE, and says so. Without COMMAND,
# stdin is copied (an interruption leaves nothing half written, but a
# failing producer on the left of a pipe cannot be seen: use COMMAND).
# COMMAND runs in a subshell with errexit on, not on the left of '||'
# (where bash would ignore errexit in it): a shell function that fails
# half way fails here too.
write_atomic() {
	local dest=$1 tmp status errexit=
	shift
	mkdir -p "$(dirname "$dest")"
	tmp=$(mktemp "$dest.tmp.XXXXXX")
	case $- in *e*) errexit=1 ;; esac
	set +e
	if [ $# -eq 0 ]; then
		cat >"$tmp"
	else
		(set -e; "$@") >"$tmp"
	fi
	status=$?
	[ -z "$errexit" ] || set -e
	if [ "$status" -ne 0 ]; then
		rm -f "$tmp"
		echo "write_atomic: $* failed (exit $status): $dest left as it was" >&2
		return "$status"
	fi
	mv -f "$tmp" "$dest"
}

# compile_like_list_sort OUT ARG...: compile C source from stdin with
# the command the build in OUT compiled lib/list_sort.c with (kbuild's,
# from its .cmd file, without ccache, its dependency file and its
# output), plus ARG...; run in OUT, its diagnostics on stdout. Returns 2
# when OUT has no such command (its objects were not built).
compile_like_list_sort() {
	local out=$1 cmd
	shift
	[ -f "$out/lib/.list_sort.o.cmd" ] || return 2
	cmd=$(list_sort_command "$out")
	(cd "$out" && eval "$cmd $* -x c -" 2>&1)
}

# list_sort_command OUT: kbuild's command line for lib/list_sort.o in the
# build in OUT (compiler first), without ccache, the dependency file,
# the input and the output: to run on other code, relative to OUT.
list_sort_command() {
	sed -n 's/^savedcmd_lib\/list_sort\.o := //p' "$1/lib/.list_sort.o.cmd" |
		sed 's/^ccache //; s/-Wp,-MMD,[^ ]* //; s/ -c -o .*//'
}

# builtin_prefetch_emitted OUT: whether the compiler and flags of the
# build in OUT make an instruction of __builtin_prefetch(), which is what
# prefetch() is on x86_64 (<linux/prefetch.h>). clang drops it under the
# kernel's -mno-sse; gcc does not. Returns 1 if not, 2 if OUT has no
# compile command to ask.
builtin_prefetch_emitted() {
	local out=$1 obj diagnostics status=0
	obj=$(mktemp --suffix=.o)
	diagnostics=$(printf '%s\n' 'void probe(const void *p);' \
		'void probe(const void *p) { __builtin_prefetch(p); }' |
		compile_like_list_sort "$out" -c -o "$obj") || status=2
	if [ "$status" -ne 0 ]; then
		echo "builtin_prefetch_emitted: no probe compiled like $out/lib/list_sort.o: $diagnostics" >&2
	elif ! "${CROSS_COMPILE:-}objdump" -d "$obj" | grep -q 'prefetch'; then
		status=1
	fi
	rm -f "$obj"
	return "$status"
}

# compiler_version: the first line of the target compiler's --version.
compiler_version() {
	"$(target_compiler)" --version | head -n 1
}

# sizes_name CONFIG_SET: the name of make sizes' results for the loaded
# TARGET: the config for x86_64 built with gcc, else CONFIG-TARGET
# (qemu-x86_64-llvm: the same config built with clang).
sizes_name() {
	if [ "$TARGET" = x86_64 ]; then echo "$1"; else echo "$1-$TARGET"; fi
}

# KUNIT_TEST_FILES: the kernel tree's names for KUnit test files, as git
# pathspecs: a test file the series extends differs everywhere (the line
# numbers its assertions record), which codegen and sizes count apart.
# shellcheck disable=SC2034 # read by codegen.sh and tests/60-sizes.sh
KUNIT_TEST_FILES=('*-test.c' '*_test.c' '*_kunit.c')

# objects_built OUT WHAT OBJECT...: of OBJECT..., those the build in OUT
# compiled (its .config builds them); WHAT names the others as left out.
objects_built() {
	local out=$1 what=$2 object
	shift 2
	for object in "$@"; do
		if [ -f "$out/$object" ]; then
			echo "$object"
		else
			log "$what: $object is not built by the config of $(basename "$out"); left out"
		fi
	done
}

need_cmd() {
	local cmd=$1 pkg=$2
	command -v "$cmd" >/dev/null 2>&1 ||
		die "'$cmd' not found" "run 'make deps' (or: apt-get install $pkg)"
}

tree_version() {
	make -s -C "$1" kernelversion 2>/dev/null
}

# require_tree: the pristine tree must exist and be Linux $KERNEL_SERIES.x.
# require_series_tree: the series' worktree (scripts/apply.sh) exists.
require_series_tree() {
	[ -e "$SERIES_DIR/.git" ] ||
		die "no series worktree at $SERIES_DIR" "run 'scripts/apply.sh' (or 'make apply')"
}

# console_text LOG: a console log as text: no carriage returns, no
# printk timestamps.
console_text() {
	tr -d '\r' <"$1" | sed 's/^\[ *[0-9.]*\] //'
}

require_tree() {
	[ -d "$TREE_DIR/.git" ] ||
		die "no kernel tree at $TREE_DIR" "run 'scripts/tree.sh' (or 'make tree')"
	local version
	version=$(tree_version "$TREE_DIR")
	case "$version" in
	"$KERNEL_SERIES" | "$KERNEL_SERIES".*) ;;
	*) die "tree at $TREE_DIR is Linux '$version', the series is for $KERNEL_SERIES.x" \
		"remove $TREE_DIR and run 'scripts/tree.sh', or point LIST_PREFETCH_CACHE elsewhere" ;;
	esac
}

# The data files' schema: every key a file of configs/targets/ or
# configs/sets/ may hold, with its default; '!' marks a required key.
# docs/pipeline.md lists the same keys (test_data_file_keys_documented).
# shellcheck disable=SC2034 # read through a nameref in load_conf
TARGET_SCHEMA=(
	'ARCH=!' 'CROSS_COMPILE=' 'LIST_PREFETCH_DEFAULT=!' 'FRAGMENT=!' 'IMAGE=!'
	'QEMU=!' 'QEMU_ARGS=' 'CONSOLE=!' 'BUSYBOX_ARCH=!' 'PACKAGES='
	'BOOT_VARIANTS=default on' 'CHECK_VARIANTS=default' 'UNAVAILABLE_SUITES=' 'KIND=qemu'
)
# shellcheck disable=SC2034 # read through a nameref in load_conf
SET_SCHEMA=(
	'BASE=!' 'FRAGMENTS=' 'USE_TARGET_FRAGMENT=y' 'REQUIRED_SUITES=' 'BUILD_GOALS='
	'KEEP_DEFAULT=' 'GUEST_QEMU_ARGS=' 'GUEST_WORKLOADS=' 'GUEST_PROGRAMS='
	'GUEST_MODULES=' 'GUEST_TREE_MODULES=' 'BOOT_TARGETS=' 'GUEST_HOST_BINARIES='
)

# schema_of FILE: the name of the schema array for a data file.
schema_of() {
	case "$1" in
	*/configs/targets/*.conf) echo TARGET_SCHEMA ;;
	*/configs/sets/*.conf) echo SET_SCHEMA ;;
	*) die "$1: not a data file of configs/targets/ or configs/sets/" \
		"data files live in those two directories" ;;
	esac
}

# load_conf FILE: read a NAME=value data file into the environment:
# every key of its schema set to the file's value or to the default, an
# unknown key (a misspelling) or a missing required one an error.
load_conf() {
	local file=$1 entry key value known schema_name
	[ -f "$file" ] || die "no such file: $file" "see configs/ for the names that exist"
	# shellcheck disable=SC2016 # the $ and ` are literal
	if grep -Evq '^[[:space:]]*(#.*)?$|^[A-Z_][A-Z0-9_]*=("[^"`$]*"|[^"`$ ]*)$' "$file"; then
		die "$file: only NAME=value lines and comments are allowed" \
			"fix the lines 'grep -Ev' shows in $file"
	fi
	schema_name=$(schema_of "$file")
	local -n schema=$schema_name
	while read -r key; do
		known=n
		for entry in "${schema[@]}"; do
			[ "${entry%%=*}" != "$key" ] || known=y
		done
		[ "$known" = y ] || die "$file: unknown key $key" \
			"the keys are: $(printf '%s ' "${schema[@]%%=*}")(docs/pipeline.md); fix its spelling"
	done < <(sed -n 's/^\([A-Z_][A-Z0-9_]*\)=.*/\1/p' "$file")
	for entry in "${schema[@]}"; do
		value=${entry#*=}
		[ "$value" != '!' ] || value=""
		printf -v "${entry%%=*}" '%s' "$value"
	done
	# shellcheck disable=SC1090
	. "$file"
	for entry in "${schema[@]}"; do
		key=${entry%%=*}
		[ "${entry#*=}" != '!' ] || [ -n "${!key}" ] ||
			die "$file: the required key $key is missing or empty" \
				"add a $key= line (docs/pipeline.md says what it holds)"
	done
}

load_target() {
	local name=$1
	case ${TOOLCHAIN:-gnu} in
	gnu) ;;
	llvm) [[ $name == *-llvm ]] || name=$name-llvm ;;
	*) die "TOOLCHAIN=$TOOLCHAIN: no such toolchain" "TOOLCHAIN is gnu (gcc, the default) or llvm (clang and lld: LLVM=1)" ;;
	esac
	# TARGET-llvm: the target built with clang (LLVM=1), its builds and
	# results apart from gcc's; its data file is the target's own.
	TARGET=$name
	TARGET_LLVM=
	if [[ $name == *-llvm ]]; then TARGET_LLVM=1; fi
	load_conf "$PROJECT_DIR/configs/targets/${name%-llvm}.conf"
	export ARCH CROSS_COMPILE
	# shellcheck disable=SC2034 # read by initramfs.sh
	BUSYBOX=$(busybox_path "$BUSYBOX_ARCH")
}

# config_value NAME CONFIG: the value of CONFIG_NAME in a .config, n if unset.
config_value() {
	local name=$1 config=$2
	sed -n "s/^CONFIG_$name=//p" "$config" | grep . || echo n
}

# required_suites: the KUnit suites a boot of the loaded target and
# config set must run: the set's REQUIRED_SUITES but those the target
# cannot build (its UNAVAILABLE_SUITES).
required_suites() {
	local suite
	for suite in $REQUIRED_SUITES; do
		case " $UNAVAILABLE_SUITES " in
		*" $suite "*) ;;
		*) echo "$suite" ;;
		esac
	done
}

# all_targets: the names of the targets under configs/targets/ that boot
# under QEMU (KIND=qemu, the default), not those that run as a host
# process (KIND=uml), where the lab times, not boots.
all_targets() {
	local f
	for f in "$PROJECT_DIR"/configs/targets/*.conf; do
		! grep -qx 'KIND=uml' "$f" || continue
		f=${f##*/}
		echo "${f%.conf}"
	done
}

# expected_list_prefetch VARIANT: the CONFIG_LIST_PREFETCH a kernel of the
# loaded target must have: y forced on, else the architecture's default.
expected_list_prefetch() {
	case "$1" in
	on | switch) echo y ;;
	*) echo "$LIST_PREFETCH_DEFAULT" ;;
	esac
}

# boot_variants TARGET: the variants make check-all and make report boot.
boot_variants() {
	(load_target "$1" && echo "$BOOT_VARIANTS")
}

# check_variants TARGET: the variants make check boots (fewer).
check_variants() {
	(load_target "$1" && echo "$CHECK_VARIANTS")
}

# busybox_path DEBIAN_ARCH: the static busybox that is the guest's init.
# The host's own architecture uses the installed busybox-static; any
# other is unpacked from its .deb into the cache by scripts/deps.sh.
busybox_path() {
	if [ "$1" = "$(dpkg --print-architecture)" ]; then
		echo /bin/busybox
	else
		echo "$LIST_PREFETCH_CACHE/tools/busybox-$1/bin/busybox"
	fi
}

load_config_set() {
	CONFIG_SET=$1
	load_conf "$PROJECT_DIR/configs/sets/$CONFIG_SET.conf"
}

# The series is applied in its own worktree; vanilla is the pristine one.
SERIES_DIR=$LIST_PREFETCH_CACHE/tree/series

# User-Mode Linux builds have trees of their own (scripts/uml-tree.sh).
source_dir() {
	case "${ARCH:-}:$1" in
	um:vanilla) echo "$LIST_PREFETCH_CACHE/tree/um-vanilla" ;;
	um:*) echo "$LIST_PREFETCH_CACHE/tree/um-series" ;;
	*:vanilla) echo "$TREE_DIR" ;;
	*:planted) echo "$LIST_PREFETCH_CACHE/tree/planted" ;;
	*) echo "$SERIES_DIR" ;;
	esac
}

# lab_tree NAME BASE_REPO [PATCH...]: $LIST_PREFETCH_CACHE/tree/NAME, a
# worktree of BASE_REPO's HEAD with the lab's own PATCHes applied (lab/:
# changes the series does not propose). Remade only when the base or a
# patch changed (its stamp keeps the name it had when only the UML trees
# were made this way: .lp-um-base).
lab_tree() {
	local name=$1 base_repo=$2 dir stamp
	shift 2
	dir=$(lab_tree_dir "$name")
	stamp=$({ git -C "$base_repo" rev-parse 'HEAD^{tree}'; [ $# -eq 0 ] || cat "$@"; } |
		inputs_hash /dev/stdin)
	if [ -f "$dir/.lp-um-base" ] && [ "$(cat "$dir/.lp-um-base")" = "$stamp" ]; then
		log "lab tree: $name is up to date ($(git -C "$dir" log -1 --format=%h HEAD))"
		return 0
	fi
	log "lab tree: making $name from $(git -C "$base_repo" log -1 --format='%h %s' HEAD)"
	if [ -d "$dir" ]; then
		git -C "$base_repo" worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
		git -C "$base_repo" worktree prune
	fi
	run git -C "$base_repo" worktree add --quiet --force --detach "$dir" HEAD >&2
	git -C "$dir" config user.name "list-prefetch lab"
	git -C "$dir" config user.email "list-prefetch@localhost"
	[ $# -eq 0 ] || git -C "$dir" am -q "$@" ||
		die "a lab patch no longer applies to $(basename "$base_repo") (${1%/*}/)" \
			"rebase it: git am it in a worktree of $base_repo, fix, format-patch it back into ${1%/*}/"
	echo "$stamp" >"$dir/.lp-um-base"
}

# lab_tree_dir NAME: where lab_tree NAME makes its tree.
lab_tree_dir() {
	echo "$LIST_PREFETCH_CACHE/tree/$1"
}

build_dir() {
	local target=$1 config=$2 variant=$3
	echo "$BUILD_ROOT/$target-$config-$variant"
}

valid_variant() {
	case "$1" in
	vanilla | default | on) ;;
	# The series with lab/kcsan/ applied (scripts/kcsan-planted.sh).
	planted) ;;
	# The default with its code moved (UML only, lab/um/0002): the A/A
	# control across boots of scripts/uml-bench.sh.
	moved) ;;
	# The series forced on, each list prefetch behind a run-time flag
	# (UML only, lab/um/0003): the swept sites timed both ways in a boot.
	switch) ;;
	*) die "unknown variant '$1'" "use one of: vanilla default on (moved, switch: UML only)" ;;
	esac
}

# inputs_hash FILE...: one hash over the contents of the given files.
inputs_hash() {
	cat "$@" | sha256sum | cut -c1-16
}

# series_files [DIR]: the patches of DIR (patches/: the series), in the
# order of its series file.
series_files() {
	local dir=${1:-$PROJECT_DIR/patches} name
	while read -r name; do
		case "$name" in '' | '#'*) continue ;; esac
		echo "$dir/$name"
	done <"$dir/series"
}

# held_files: the patches held back from the series (patches/held/: the
# swept sites the lab measured and did not send), in order. They apply
# on top of the series; the UML bench kernels and the audit take them.
held_files() {
	series_files "$PROJECT_DIR/patches/held"
}

# series_tree_id [TREE]: the git tree of pristine with the series applied
# in order, made with 'git apply --cached' on a scratch index: no
# worktree is touched, so it is quick. On a patch that does not apply,
# prints git's message and that patch's name, and fails.
series_tree_id() {
	local repo=${1:-$TREE_DIR} index patch
	index=$(mktemp -u "${TMPDIR:-/tmp}/list-prefetch-index.XXXXXX")
	GIT_INDEX_FILE=$index git -C "$repo" read-tree pristine
	for patch in $(series_files); do
		if ! GIT_INDEX_FILE=$index git -C "$repo" apply --cached "$patch" >&2; then
			rm -f "$index"
			echo "${patch##*/}"
			return 1
		fi
	done
	GIT_INDEX_FILE=$index git -C "$repo" write-tree
	rm -f "$index"
}

# target_compiler: the compiler of the loaded target's kernels: its gcc,
# or clang for a TARGET-llvm (one clang for every architecture: kbuild
# gives it --target from CROSS_COMPILE).
target_compiler() {
	if [ -n "${TARGET_LLVM:-}" ]; then echo clang; else echo "${CROSS_COMPILE:-}gcc"; fi
}

# compiler_command: the target's compiler, through ccache when there is
# one (and then distcc behind it: distcc_env), else through distcc when
# DISTCC_HOSTS is set.
compiler_command() {
	local cc
	cc=$(target_compiler)
	if [ -n "${TARGET_LLVM:-}" ]; then
		need_cmd "$cc" "clang, lld and llvm (TOOLCHAIN=llvm; 'scripts/deps.sh' installs them)"
	else
		need_cmd "$cc" "gcc for $ARCH (see configs/targets/$TARGET.conf)"
	fi
	if command -v ccache >/dev/null 2>&1; then
		echo "ccache $cc"
	elif distcc_wanted; then
		echo "distcc $cc"
	else
		echo "$cc"
	fi
}

# host_compiler_command: gcc for kbuild's host programs (fixdep, objtool,
# kconfig), through ccache too: every O= directory builds them again.
host_compiler_command() {
	local hostcc=gcc
	if [ -n "${TARGET_LLVM:-}" ]; then hostcc=clang; fi
	if ! command -v ccache >/dev/null 2>&1; then
		echo "$hostcc"
	elif distcc_wanted; then
		# Host programs stay here: they are few, and objtool's -Werror
		# fails on the preprocessed source distcc sends.
		echo "env -u CCACHE_PREFIX ccache $hostcc"
	else
		echo "ccache $hostcc"
	fi
}

# kbuild_args: KBUILD_ARGS, the make variables of every make of a kernel
# tree for the loaded target (configuring it as well as building it:
# Kconfig asks the compiler what it is): its ARCH and cross prefix, LLVM=1
# for a TARGET-llvm, its compilers through ccache.
kbuild_args() {
	KBUILD_ARGS=(ARCH="$ARCH" CROSS_COMPILE="$CROSS_COMPILE")
	if [ -n "${TARGET_LLVM:-}" ]; then KBUILD_ARGS+=(LLVM=1); fi
	KBUILD_ARGS+=(CC="$(compiler_command)" HOSTCC="$(host_compiler_command)")
}

# kbuild LOG SRC OUT [GOAL...]: make GOAL... of the kernel tree SRC in
# O=OUT for the loaded target, compiles and host programs through
# ccache (and the compiles through distcc with DISTCC_HOSTS: its log in
# OUT/distcc.log), its output in LOG with progress shown. ccache's
# counters are taken first, for compile_summary.
kbuild() {
	local logfile=$1 src=$2 out=$3
	shift 3
	kbuild_args
	build_env "$out"
	mkdir -p "$CCACHE_DIR"
	CCACHE_BEFORE=$(ccache_counts)
	run_logged "$logfile" env "${BUILD_ENV[@]}" make -C "$src" O="$out" "${KBUILD_ARGS[@]}" \
		-j"$(make_jobs)" "$@"
}

# build_env OUT: BUILD_ENV, the environment of a build in OUT beyond
# ours: with DISTCC_HOSTS, distcc's (its helpers probed first, its log
# OUT/distcc.log started anew); else nothing.
build_env() {
	BUILD_ENV=()
	DISTCC_BUILD_LOG=
	distcc_wanted || return 0
	distcc_check_hosts "$(target_compiler)"
	mkdir -p "$1" "$(distcc_state_dir)"
	DISTCC_BUILD_LOG=$1/distcc.log
	: >"$DISTCC_BUILD_LOG"
	mapfile -t BUILD_ENV < <(distcc_env "$DISTCC_BUILD_LOG")
}

# compile_summary: how many of the compiles since CCACHE_BEFORE was
# taken ccache served ("ccache: 412 of 948 compiles hit"), and with
# distcc where the others ran, printed and kept as the stage's note;
# ccache's counters are read before and after, so only this build's
# compiles count (one build at a time: the cache lock).
compile_summary() {
	[ -n "${CCACHE_BEFORE:-}" ] || return 0
	local after
	after=$(ccache_counts)
	STAGE_NOTE=$(python3 - "$CCACHE_BEFORE" "$after" <<'PY'

import sys
before, after = (dict(kv.split("=") for kv in s.split()) for s in sys.argv[1:3])
delta = {k: int(after.get(k, 0)) - int(before.get(k, 0)) for k in after}
hits = delta.get("direct_cache_hit", 0) + delta.get("preprocessed_cache_hit", 0)
misses = delta.get("cache_miss", 0)
print(f"ccache: {hits} of {hits + misses} compiles hit")
PY
)
	if [ -n "${DISTCC_BUILD_LOG:-}" ]; then
		STAGE_NOTE="$STAGE_NOTE; $(distcc_summary "$DISTCC_BUILD_LOG")"
	fi
	log "$STAGE_NOTE"
}

# ccache_counts: ccache's hit and miss counters as NAME=value words.
ccache_counts() {
	command -v ccache >/dev/null 2>&1 || return 0
	ccache --print-stats 2>/dev/null |
		awk -F'\t' '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$/ { printf "%s=%s ", $1, $2 }'
}

# make_jobs: make's -j: JOBS, else the job slots of distcc's hosts with
# DISTCC_HOSTS, else this machine's CPUs.
make_jobs() {
	if [ -n "${JOBS:-}" ]; then
		echo "$JOBS"
	elif distcc_wanted; then
		distcc_jobs
	else
		nproc
	fi
}

# run_logged LOG CMD...: run CMD with its output in LOG, printing the
# command first and then, every PROGRESS_SECONDS, how far it got (the
# number of lines and the last one), so that long builds show progress.
run_logged() {
	local logfile=$1 pid t0 status=0
	shift
	printf '$ %s > %s\n' "$*" "$logfile" >&2
	t0=$(date +%s)
	"$@" >"$logfile" 2>&1 &
	pid=$!
	# Forward an interruption to the job, so it does not outlive us.
	trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; exit 130' HUP INT TERM
	local next=$((t0 + ${PROGRESS_SECONDS:-30}))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if [ "$(date +%s)" -ge "$next" ]; then
			printf '  ... %ss, %s lines, last: %s\n' "$(( $(date +%s) - t0 ))" \
				"$(wc -l <"$logfile")" "$(tail -n 1 "$logfile" | cut -c1-70)" >&2
			next=$((next + ${PROGRESS_SECONDS:-30}))
		fi
	done
	wait "$pid" || status=$?
	trap - HUP INT TERM
	return "$status"
}

# cpu_field KEY: the first value of KEY in /proc/cpuinfo.
cpu_field() {
	awk -F'\t*: ' -v key="$1" '$1 == key { print $2; exit }' /proc/cpuinfo
}

# cpu_slug: one directory name per CPU model, e.g. amd-epyc-f25m1s1.
cpu_slug() {
	local name
	name=$(cpu_field 'model name' | tr '[:upper:]' '[:lower:]' | sed 's/([^)]*)//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
	echo "${name:-cpu}-f$(cpu_field 'cpu family')m$(cpu_field model)s$(cpu_field stepping)"
}

# host_description: CPU model and count, for every result header.
host_description() {
	echo "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, $(. /etc/os-release && echo "$PRETTY_NAME")"
}

# result_stamp [COMMAND]: the provenance line a result file starts with:
# the project's commit (+changes if the checkout differs), the date, the
# host and the command that produced it (default: the script's own
# invocation, INVOCATION).
# shellcheck disable=SC2120 # callers rely on the default
result_stamp() {
	echo "# project $(project_commit), $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(host_description); command: ${1:-$INVOCATION}"
}

# stamped CMD...: what CMD prints, under the provenance stamp (a result
# file's first line): write_atomic FILE stamped CMD...
stamped() {
	result_stamp
	"$@"
}

# project_commit: the checkout's commit, +changes if its code differs
# from it (results/ does not count: results are what is being made).
# What a JSON result records as its "project".
project_commit() {
	local commit
	commit=$(git -C "$PROJECT_DIR" rev-parse --short HEAD 2>/dev/null || echo '?')
	# Changed or new files alike (an untracked script runs as much as a
	# committed one); results/ and what git ignores do not count.
	if ! git -C "$PROJECT_DIR" diff --quiet HEAD -- . ':!results' 2>/dev/null ||
		[ -n "$(git -C "$PROJECT_DIR" ls-files --others --exclude-standard -- . ':!results' 2>/dev/null)" ]; then
		commit+=+changes
	fi
	echo "$commit"
}

# set_targets CONFIG_SET: the targets a config set boots: its BOOT_TARGETS,
# or every target when it names none.
set_targets() {
	local targets target
	targets=$(load_config_set "$1" && echo "${BOOT_TARGETS:-}")
	for target in $targets; do
		[ -f "$PROJECT_DIR/configs/targets/$target.conf" ] ||
			die "configs/sets/$1.conf: BOOT_TARGETS names '$target', which is no target (no configs/targets/$target.conf)" \
				"name one of: $(all_targets | tr '\n' ' ')"
	done
	if [ -n "$targets" ]; then echo "$targets" | tr ' ' '\n'; else all_targets; fi
}

# boot_variant TARGET VARIANT [CONFIG_SET]: configure, build, boot and
# judge one variant (default: of the qemu set): the chain behind make
# check and make report.
boot_variant() {
	local target=$1 variant=$2 set=${3:-qemu}
	"$PROJECT_DIR/scripts/configure.sh" "$target" "$variant" "$set" &&
		"$PROJECT_DIR/scripts/build.sh" "$target" "$variant" "$set" &&
		"$PROJECT_DIR/scripts/boot.sh" "$target" "$variant" "$set" &&
		"$PROJECT_DIR/scripts/parse.sh" "$target" "$variant" "$set"
}

# boot_dir OUT: where a boot of the build in OUT keeps its console log,
# status and judgement: OUT itself, or OUT/boots/TAG for a boot tagged
# BOOT_TAG (the A/B's boots, which must not replace the build's own).
boot_dir() {
	if [ -n "${BOOT_TAG:-}" ]; then echo "$1/boots/$BOOT_TAG"; else echo "$1"; fi
}

# select_build TARGET VARIANT [CONFIG_SET]: the build a stage script works
# on. Loads the target and the config set (default qemu) and sets VARIANT,
# BUILD_SRC (its source tree) and BUILD_OUT (its O= directory).
select_build() {
	valid_variant "$2"
	load_target "$1"
	load_config_set "${3:-qemu}"
	VARIANT=$2
	# shellcheck disable=SC2034 # read by the stage scripts
	BUILD_SRC=$(source_dir "$VARIANT")
	# shellcheck disable=SC2034 # read by the stage scripts
	BUILD_OUT=$(build_dir "$TARGET" "$CONFIG_SET" "$VARIANT")
}

# config_fragments VARIANT: the fragment files of one build of the loaded
# config set and target, in merge order (later ones win).
config_fragments() {
	local f
	for f in $FRAGMENTS; do echo "$PROJECT_DIR/$f"; done
	[ "$USE_TARGET_FRAGMENT" != y ] || echo "$PROJECT_DIR/$FRAGMENT"
	echo "$PROJECT_DIR/configs/variants/$1.config"
}

# write_config SRC OUT VARIANT: OUT/.config of the loaded target and
# config set: the set's base (tinyconfig, defconfig) without its answers
# for KEEP_DEFAULT, the fragments, then olddefconfig. configure.sh and
# bisect-build.sh both write theirs here, so that a step of the bisect
# is configured as the lab's build of the same tree is (the K7's
# default LIST_PREFETCH=y included).
write_config() {
	local src=$1 out=$2 variant=$3 symbol
	local -a frags
	mapfile -t frags < <(config_fragments "$variant")
	kbuild_args
	run make -s -C "$src" O="$out" "${KBUILD_ARGS[@]}" "$BASE" >/dev/null
	# tinyconfig answers every visible prompt 'n'; without its answer a
	# symbol takes its Kconfig default (the one a defconfig build gets)
	# unless a fragment sets it.
	for symbol in ${KEEP_DEFAULT:-}; do
		sed -i -e "/^$symbol=/d" -e "/^# $symbol is not set\$/d" "$out/.config"
	done
	run "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	run make -s -C "$src" O="$out" "${KBUILD_ARGS[@]}" olddefconfig >/dev/null
}

# qemu_args ARGS...: the target's QEMU_ARGS, then the given ones; an
# option given again replaces the target's ("-smp 2" its "-smp 1"),
# since QEMU itself would not take the later of the two.
qemu_args() {
	local -a own=() later=("$@") merged=()
	local i j replaced
	read -ra own <<<"$QEMU_ARGS"
	for ((i = 0; i < ${#own[@]}; i++)); do
		replaced=n
		for ((j = 0; j < ${#later[@]}; j++)); do
			[ "${later[j]}" = "${own[i]}" ] && replaced=y
		done
		if [ $((i + 1)) -lt ${#own[@]} ] && [ "${own[i + 1]#-}" = "${own[i + 1]}" ]; then
			[ $replaced = y ] || merged+=("${own[i]}" "${own[i + 1]}")
			i=$((i + 1))
		else
			[ $replaced = y ] || merged+=("${own[i]}")
		fi
	done
	echo "${merged[@]}" "${later[@]}"
}

# accel_args: QEMU's arguments for ACCEL (tcg or kvm); the host CPU under KVM.
accel_args() {
	case "${ACCEL:-tcg}" in
	tcg) ;;
	kvm) echo "-enable-kvm -cpu host" ;;
	*) die "unknown ACCEL '$ACCEL'" "use ACCEL=tcg or ACCEL=kvm" ;;
	esac
}

# The guest's C programs (guest/*.c): static, so no libc in the initramfs.
# shellcheck disable=SC2034 # read by initramfs.sh and check.sh
GUEST_CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -static -pthread"

# size_row VMLINUX NAME: one row of the seed's 'size' table.
size_row() {
	"${CROSS_COMPILE:-}size" "$1" | tail -n 1 |
		awk -v name="$2" '{ printf "%9s %9s %9s %9s %9s %s\n", $1, $2, $3, $4, $5, name }'
}

# hold_cache_lock COMMAND: one make at a time on a cache. Takes an
# exclusive flock on $LIST_PREFETCH_CACHE/lock for the rest of this
# process (and its children, which see LIST_PREFETCH_LOCKED and do not
# take it again); if another command holds it, says which and waits,
# or with LIST_PREFETCH_LOCK_WAIT=0 refuses.
hold_cache_lock() {
	local what=$1 lockfile holder
	[ "${LIST_PREFETCH_LOCKED:-}" != "$LIST_PREFETCH_CACHE" ] || return 0
	mkdir -p "$LIST_PREFETCH_CACHE"
	lockfile=$LIST_PREFETCH_CACHE/lock
	exec {CACHE_LOCK_FD}>>"$lockfile"
	if ! flock -n "$CACHE_LOCK_FD"; then
		holder=$(cat "$lockfile.holder" 2>/dev/null || echo 'an unknown command')
		[ "${LIST_PREFETCH_LOCK_WAIT:-1}" != 0 ] ||
			die "the cache $LIST_PREFETCH_CACHE is in use by $holder" \
				"wait for it to finish, or point LIST_PREFETCH_CACHE at another directory"
		log "waiting for the cache $LIST_PREFETCH_CACHE: in use by $holder"
		flock "$CACHE_LOCK_FD"
	fi
	echo "'$what' (pid $$, since $(date -u +%H:%M:%SZ))" >"$lockfile.holder"
	export LIST_PREFETCH_LOCKED=$LIST_PREFETCH_CACHE
}
