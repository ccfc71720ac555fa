#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# export-series.sh - regenerate patches/ from a development branch.
#
# For developers of the series: commit on a branch of a worktree of the
# pristine tree, then export it here. The cover letter's subject and
# text (and its sender) are kept from the current patches/0000-cover-letter.patch; the
# shortlog and diffstat under them are regenerated. So are each patch's
# notes below its '---' (its changelog, which 'git am' drops), matched by
# subject.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 WORKTREE   (its HEAD is the last patch; pristine is the base)" >&2
	exit 2
}

# keep_cover OLD NEW: NEW with OLD's sender, subject and text above the
# shortlog.
keep_cover() {
	local old=$1 new=$2
	awk -v old="$old" '
		BEGIN {
			while ((getline line < old) > 0) {
				if (line ~ /^From: / && from == "") from = line
				else if (line ~ /^Subject: /) subject = line
				else if (subject != "" && line ~ /^[^ ].* \([0-9]+\):$/) break
				else if (subject != "") text = text line "\n"
			}
		}
		/^From: / && !from_done { print from; from_done = 1; next }
		/^Subject: / { print subject; in_text = 1; next }
		in_text && /^[^ ].* \([0-9]+\):$/ { printf "%s", text; in_text = 0 }
		in_text { next }
		{ print }
	' "$new"
}

# subject_of PATCH: its subject without the [PATCH NN/MM] tag.
subject_of() {
	sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$1" | head -n 1
}

# notes_of PATCH: the lines between its '---' and its diffstat.
notes_of() {
	awk '/^---$/ { on = 1; next }
		on && (/^ [^ ].* \| +[0-9]+/ || /^ [0-9]+ files? changed/) { exit }
		on { print }' "$1"
}

# keep_notes OLD NEW: NEW with OLD's notes below its '---'.
keep_notes() {
	local notes
	notes=$(notes_of "$1")
	[ -n "$notes" ] || { cat "$2"; return; }
	awk -v notes="$notes" '!done && /^---$/ { print; print notes; print ""; done = 1; next } { print }' "$2"
}

# keep_all_notes DIR: every patch in DIR keeps the notes of the patch of
# the same subject in patches/.
keep_all_notes() {
	local new old subject
	for new in "$1"/0*.patch; do
		case "${new##*/}" in 0000-*) continue ;; esac
		subject=$(subject_of "$new")
		for old in "$PROJECT_DIR"/patches/0*.patch; do
			[ "$(subject_of "$old")" = "$subject" ] || continue
			keep_notes "$old" "$new" >"$new.notes"
			mv "$new.notes" "$new"
			break
		done
	done
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -eq 1 ] || usage
	local wt=$1 out
	out=$(mktemp -d)
	# A fixed abbreviation (the kernel's 12): git's default scales with
	# the objects of the repository, so a tree just unpacked would export
	# other blob ids than one that has been packed.
	run git -C "$wt" format-patch -q --abbrev=12 --cover-letter --no-signature --zero-commit \
		-o "$out" pristine..HEAD
	if [ -f "$PROJECT_DIR/patches/0000-cover-letter.patch" ]; then
		keep_cover "$PROJECT_DIR/patches/0000-cover-letter.patch" \
			"$out/0000-cover-letter.patch" >"$out/cover"
		mv "$out/cover" "$out/0000-cover-letter.patch"
	fi
	keep_all_notes "$out"
	local patch
	for patch in "$out"/0*.patch; do
		case "${patch##*/}" in 0000-*) ;; *) echo "${patch##*/}" ;; esac
	done >"$out/series"
	rm -f "$PROJECT_DIR"/patches/*.patch
	mv "$out"/* "$PROJECT_DIR/patches/"
	rmdir "$out"
	log "export: $(wc -l <"$PROJECT_DIR/patches/series") patches in patches/"
}

main "$@"; exit
