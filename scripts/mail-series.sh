#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# mail-series.sh - a sendable copy of the series: patches/ with the
# sender's identity. The committed patches carry a placeholder identity
# (list-prefetch developers <list-prefetch@localhost>); the Developer's
# Certificate of Origin needs the real one of whoever sends them, so this
# copy takes From: and Signed-off-by: from the sender's git configuration
# (user.name, user.email) and refuses to write a series without one. It
# also tags each subject with the series' version ([PATCH vN NN/MM]), and
# names the sender as the maintainer of the entry the series adds to
# MAINTAINERS (one line for one, in added and context lines and
# in hunk headers alike: the hunks stay valid).
#
# Each patch gets To: and Cc: lines from the kernel's own
# scripts/get_maintainer.pl, run in the series worktree (whose
# MAINTAINERS holds the series' entry): maintainers and supporters To:,
# reviewers and lists Cc:. On top, a patch to a KUnit test file Cc's the
# KUnit framework's maintainers and lists, and a patch that sweeps a
# site (takes a prefetch() out of a .c file: none in the series as the
# lab decided it, see docs/series.md), whose prefetch every architecture
# with its own prefetch() runs, Cc's linux-arch and those architectures' lists. The cover letter goes to
# all of them, and ends with the base-commit: of the pristine tree
# (scripts/tree.sh: Debian's source package as one commit, dated by its
# changelog, so the same on every machine).
#
#   mail-series.sh OUTDIR     then: git send-email OUTDIR/*.patch
#   SERIES_VERSION=N          the version in the subjects (default: the
#                             newest 'Changes in vN:' of the cover letter)
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

PLACEHOLDER_RE='^list-prefetch (developers|lab) <list-prefetch@localhost>$'

usage() {
	echo "usage: $0 OUTDIR   (a directory that does not exist yet)" >&2
	exit 2
}

# sender: "Name <email>" from git's configuration, or a fatal error.
sender() {
	local name email
	name=$(git -C "$PROJECT_DIR" config user.name || true)
	email=$(git -C "$PROJECT_DIR" config user.email || true)
	if [ -z "$name" ] || [ -z "$email" ] || [[ "$name <$email>" =~ $PLACEHOLDER_RE ]] ||
		[[ "$email" != *@*.* ]]; then
		die "no sender identity: git config user.name='$name' user.email='$email'" \
			"set yours: git config --global user.name 'Your Name'; git config --global user.email you@example.org"
	fi
	echo "$name <$email>"
}

# stamp PATCH WHO VERSION: PATCH with WHO as author and signer, its subject tagged.
stamp() {
	local who=$1 version=$2
	awk -v who="$who" -v version="$version" '
		!done_from && /^From: / { print "From: " who; done_from = 1; next }
		/^Subject: \[PATCH / && !done_subject { sub(/^Subject: \[PATCH /, "Subject: [PATCH v" version " "); done_subject = 1 }
		/^Signed-off-by: list-prefetch (developers|lab) <list-prefetch@localhost>$/ { print "Signed-off-by: " who; next }
		/^[ +-]M:\tlist-prefetch (developers|lab) <list-prefetch@localhost>$/ { print substr($0, 1, 1) "M:\t" who; next }
		/^@@ .* @@ M:\tlist-prefetch (developers|lab) <list-prefetch@localhost>$/ { sub(/M:\t.*/, "M:\t" who) }
		# The shortlog of the cover letter, and copyright lines.
		/^list-prefetch (developers|lab) \([0-9]+\):$/ { name = who; sub(/ <.*/, "", name); sub(/^list-prefetch (developers|lab)/, name) }
		/^\+.*Copyright.* list-prefetch (developers|lab)$/ { name = who; sub(/ <.*/, "", name); sub(/list-prefetch (developers|lab)$/, name) }
		{ print }
	'
}

# get_maintainer ARGS...: the kernel's get_maintainer.pl in the series
# worktree, one "address (role)" per line; keywords off (a message that
# mentions an architecture is not that architecture's patch).
get_maintainer() {
	(cd "$SERIES_DIR" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-keywords --rolestats "$@")
}

# addresses_of KIND: from get_maintainer lines on stdin, "to ADDRESS"
# (maintainers, supporters) and "cc ADDRESS" (reviewers, lists) lines;
# KIND cc makes every line a Cc. The placeholder maintainer of the
# series' own entry is the sender, who needs no copy.
addresses_of() {
	awk -v kind="$1" '
		/list-prefetch@localhost/ { next }
		{
			role = $0; sub(/^[^(]*\(/, "", role)
			addr = $0; sub(/ \(.*$/, "", addr)
			if (addr == "") next
			print ((kind == "to" && role ~ /^(maintainer|supporter)/) ? "to" : "cc") " " addr
		}'
}

# prefetch_arches: the architectures whose asm headers define their own
# prefetch() (ARCH_HAS_PREFETCH or ARCH_HAS_PREFETCHW): one of their
# headers each, for get_maintainer -f.
prefetch_arches() {
	(cd "$SERIES_DIR" && grep -lE '^#define ARCH_HAS_PREFETCHW?\b' arch/*/include/asm/*.h |
		awk -F/ '!seen[$2]++')
}

# An awk function: the key of an address line ("to|cc ADDRESS"), its
# email in lower case (a name can repeat; an email is one recipient).
AWK_ADDRESS_KEY='
	function address_key(line,    a) {
		a = substr(line, 4)
		if (match(a, /<[^>]*>/))
			a = substr(a, RSTART + 1, RLENGTH - 2)
		return tolower(a)
	}'

# unique_addresses: address lines on stdin, each email once, in order.
unique_addresses() {
	awk "$AWK_ADDRESS_KEY"' !seen[address_key($0)]++'
}

# recipients PATCH EXTRA_DIR: its "to ADDRESS" and "cc ADDRESS" lines,
# unique, with EXTRA_DIR/kunit or EXTRA_DIR/arches where PATCH is a
# KUnit suite or a swept site.
recipients() {
	local patch=$1 extra=$2
	{
		get_maintainer "$patch" | addresses_of to
		! adds_kunit_tests "$patch" || cat "$extra/kunit"
		! sweeps_a_site "$patch" || cat "$extra/arches"
	} | unique_addresses
}

# adds_kunit_tests PATCH: whether PATCH changes a KUnit test file
# (KUNIT_TEST_FILES).
adds_kunit_tests() {
	local file pattern
	while read -r file; do
		for pattern in "${KUNIT_TEST_FILES[@]}"; do
			# shellcheck disable=SC2053 # a glob, as git's pathspec reads it
			[[ $file != $pattern ]] || return 0
		done
	done < <(sed -n 's|^+++ b/||p' "$1")
	return 1
}

# sweeps_a_site PATCH: whether PATCH takes a prefetch out of C code
# (a swept site: 'list_prefetch' in its place), not a header's iterator.
sweeps_a_site() {
	awk '/^\+\+\+ b\// { c = ($2 ~ /\.c$/) } c && /^-.*[^a-z_]prefetchw?\(/ { found = 1 } END { exit !found }' "$1"
}

# extra_recipients DIR: DIR/kunit, the KUnit framework's maintainers and
# lists; DIR/arches, linux-arch and the lists of every architecture with
# a prefetch() of its own. Once for the whole series.
extra_recipients() {
	local dir=$1 header
	get_maintainer -f include/kunit/test.h | addresses_of cc >"$dir/kunit"
	{
		echo "cc linux-arch@vger.kernel.org"
		while read -r header; do
			get_maintainer --no-m --no-r -f "$header" | addresses_of cc
		done < <(prefetch_arches)
	} >"$dir/arches"
	grep -q 'kunit-dev@' "$dir/kunit" ||
		die "get_maintainer.pl names no KUnit list for include/kunit/test.h" \
			"check the KUNIT entry of $SERIES_DIR/MAINTAINERS"
	[ "$(wc -l <"$dir/arches")" -gt 2 ] ||
		die "no architecture's list found for the swept sites" \
			"check prefetch_arches: grep -l ARCH_HAS_PREFETCH $SERIES_DIR/arch/*/include/asm/*.h"
}

# address_lines RECIPIENTS: the To: and Cc: header lines, an address
# in To: not repeated in Cc:. A patch whose files no maintainer holds
# but the series' own entry (the new header, list.h) goes To: its lists.
address_lines() {
	awk "$AWK_ADDRESS_KEY"'
		$1 == "to" { to[++nt] = substr($0, 4); is_to[address_key($0)] = 1 }
		$1 == "cc" { cc[++nc] = substr($0, 4); key[nc] = address_key($0) }
		END {
			if (!nt) {
				for (i = 1; i <= nc; i++) print "To: " cc[i]
				exit
			}
			for (i = 1; i <= nt; i++) print "To: " to[i]
			for (i = 1; i <= nc; i++) if (!(key[i] in is_to)) print "Cc: " cc[i]
		}' "$1"
}

# with_headers PATCH LINES [BASE]: PATCH with LINES after its Date:
# header, and, given BASE, a base-commit: line before its signature.
with_headers() {
	awk -v lines="$2" '
		{ print }
		/^Date: / && !done { while ((getline line < lines) > 0) print line; done = 1 }
	' "$1" | if [ -n "${3:-}" ]; then
		# Before the signature, as format-patch --base puts it; at the
		# end of a letter without one.
		awk -v base="$3" '
			/^-- $/ && !done { print "base-commit: " base; print ""; done = 1 }
			{ print }
			END { if (!done) { print ""; print "base-commit: " base } }'
	else
		cat
	fi
}

# cover_version: the newest version the cover letter's changelog names.
cover_version() {
	local version
	version=$(sed -n 's/^Changes in v\([0-9][0-9]*\):$/\1/p' \
		"$PROJECT_DIR/patches/0000-cover-letter.patch" | sort -n | tail -n 1)
	[ -n "$version" ] || die "the cover letter has no 'Changes in vN:' changelog" \
		"set SERIES_VERSION=N, or add the changelog to patches/0000-cover-letter.patch"
	echo "$version"
}

main() {
	[ $# -eq 1 ] || usage
	local outdir=$1 who version patch base
	version=${SERIES_VERSION:-$(cover_version)}
	[ ! -e "$outdir" ] || die "$outdir exists" "name a directory that does not exist yet"
	who=$(sender)
	# get_maintainer.pl reads the series' MAINTAINERS: its worktree.
	"$PROJECT_DIR/scripts/apply.sh" >&2
	base=$(git -C "$TREE_DIR" rev-parse 'pristine^{commit}')
	# Global: the EXIT trap runs after main has returned.
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' EXIT
	local -a patches
	mapfile -t patches < <(grep -v '^#' "$PROJECT_DIR/patches/series")
	extra_recipients "$scratch"
	for patch in "${patches[@]}"; do
		recipients "$PROJECT_DIR/patches/$patch" "$scratch" >"$scratch/$patch.rcpt"
		[ -s "$scratch/$patch.rcpt" ] ||
			die "get_maintainer.pl named no one for $patch" "run it by hand in $SERIES_DIR: perl scripts/get_maintainer.pl $PROJECT_DIR/patches/$patch"
	done
	cat "$scratch"/*.rcpt | unique_addresses >"$scratch/cover.all"
	mkdir -p "$outdir"
	for patch in 0000-cover-letter.patch "${patches[@]}"; do
		if [ "$patch" = 0000-cover-letter.patch ]; then
			address_lines "$scratch/cover.all" >"$scratch/lines"
			with_headers "$PROJECT_DIR/patches/$patch" "$scratch/lines" "$base"
		else
			address_lines "$scratch/$patch.rcpt" >"$scratch/lines"
			with_headers "$PROJECT_DIR/patches/$patch" "$scratch/lines"
		fi | stamp "$who" "$version" >"$outdir/$patch"
		if grep -Eq '@localhost|list-prefetch developers|list-prefetch lab <' "$outdir/$patch"; then
			grep -En '@localhost|list-prefetch developers|list-prefetch lab <' "$outdir/$patch" >&2
			die "$outdir/$patch still carries the placeholder identity (above)" \
				"check the From:, Signed-off-by:, shortlog, copyright and MAINTAINERS lines of patches/$patch"
		fi
	done
	log "mail: $(find "$outdir" -name '*.patch' | wc -l) patches in $outdir, from and signed off by $who, v$version, to $(grep -c '^To: ' "$outdir/0000-cover-letter.patch") and Cc $(grep -c '^Cc: ' "$outdir/0000-cover-letter.patch") on the cover letter; base-commit $base"
}

main "$@"; exit
