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
		{ print }
	'
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
	local outdir=$1 who version patch
	version=${SERIES_VERSION:-$(cover_version)}
	[ ! -e "$outdir" ] || die "$outdir exists" "name a directory that does not exist yet"
	who=$(sender)
	mkdir -p "$outdir"
	for patch in 0000-cover-letter.patch $(grep -v '^#' "$PROJECT_DIR/patches/series"); do
		stamp "$who" "$version" <"$PROJECT_DIR/patches/$patch" >"$outdir/$patch"
		if grep -q 'list-prefetch@localhost' "$outdir/$patch"; then
			die "$outdir/$patch still carries the placeholder identity" \
				"check the From:, Signed-off-by: and MAINTAINERS lines of patches/$patch"
		fi
	done
	log "mail: $(find "$outdir" -name '*.patch' | wc -l) patches in $outdir, from and signed off by $who, v$version"
}

main "$@"; exit
