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
	echo "usage: $0 WORKTREE [SERIES_END]" >&2
	echo "  WORKTREE's HEAD is the last patch; pristine is the base. With" >&2
	echo "  SERIES_END (a commit of WORKTREE), pristine..SERIES_END is the series" >&2
	echo "  (patches/) and SERIES_END..HEAD the patches held back from it" >&2
	echo "  (patches/held/: measured by the lab, not sent); without it, HEAD" >&2
	echo "  ends the series and patches/held/ is kept as it is." >&2
	exit 2
}

# keep_cover OLD NEW: NEW with OLD's sender, subject (but its [PATCH
# 00/NN] tag) and text above the shortlog.
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
		# The text of the old subject, the tag (its patch count) of the new.
		/^Subject: / {
			tag = $0; sub(/\].*/, "]", tag)
			subj = subject; sub(/^Subject: \[[^]]*\]/, "", subj)
			print tag subj; in_text = 1; next
		}
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
# the same subject in patches/ or patches/held/ (a patch may move).
keep_all_notes() {
	local new old subject
	for new in "$1"/0*.patch; do
		case "${new##*/}" in 0000-*) continue ;; esac
		subject=$(subject_of "$new")
		for old in "$PROJECT_DIR"/patches/0*.patch "$PROJECT_DIR"/patches/held/0*.patch; do
			[ -f "$old" ] || continue
			[ "$(subject_of "$old")" = "$subject" ] || continue
			keep_notes "$old" "$new" >"$new.notes"
			mv "$new.notes" "$new"
			break
		done
	done
}

# list_series DIR: the patches of DIR, but its cover letter, in order
# (its series file).
list_series() {
	local patch
	for patch in "$1"/0*.patch; do
		case "${patch##*/}" in 0000-*) ;; *) echo "${patch##*/}" ;; esac
	done
}

# format_patches WORKTREE RANGE DIR [ARG...]: git format-patch of RANGE
# into DIR. A fixed abbreviation (the kernel's 12): git's default scales
# with the objects of the repository, so a tree just unpacked would
# export other blob ids than one that has been packed.
format_patches() {
	local wt=$1 range=$2 dir=$3
	shift 3
	run git -C "$wt" format-patch -q --abbrev=12 --no-signature --zero-commit \
		-o "$dir" "$@" "$range"
}

# export_held WORKTREE SERIES_END: SERIES_END..HEAD into patches/held/,
# with their notes, no cover letter (they are not sent).
export_held() {
	local wt=$1 end=$2 out
	out=$(mktemp -d)
	format_patches "$wt" "$end..HEAD" "$out"
	keep_all_notes "$out"
	list_series "$out" >"$out/series"
	mkdir -p "$PROJECT_DIR/patches/held"
	rm -f "$PROJECT_DIR"/patches/held/*.patch
	mv "$out"/* "$PROJECT_DIR/patches/held/"
	rmdir "$out"
	log "export: $(wc -l <"$PROJECT_DIR/patches/held/series") patches in patches/held/"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -eq 1 ] || [ $# -eq 2 ] || usage
	local wt=$1 end=${2:-HEAD} out
	git -C "$wt" merge-base --is-ancestor "$end" HEAD ||
		die "$end is not a commit of $wt's branch" "name the last commit of the series"
	out=$(mktemp -d)
	format_patches "$wt" "pristine..$end" "$out" --cover-letter
	if [ -f "$PROJECT_DIR/patches/0000-cover-letter.patch" ]; then
		keep_cover "$PROJECT_DIR/patches/0000-cover-letter.patch" \
			"$out/0000-cover-letter.patch" >"$out/cover"
		mv "$out/cover" "$out/0000-cover-letter.patch"
	fi
	keep_all_notes "$out"
	list_series "$out" >"$out/series"
	# The held patches' notes are read from patches/ as it was.
	[ $# -eq 1 ] || export_held "$wt" "$end"
	rm -f "$PROJECT_DIR"/patches/*.patch
	mv "$out"/* "$PROJECT_DIR/patches/"
	rmdir "$out"
	log "export: $(wc -l <"$PROJECT_DIR/patches/series") patches in patches/"
}

main "$@"; exit
