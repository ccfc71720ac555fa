#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# export-series.sh - regenerate patches/ from a development branch.
#
# For developers of the series: commit on a branch of a worktree of the
# pristine tree, then export it here. The cover letter's subject and
# text are kept from the current patches/0000-cover-letter.patch; the
# shortlog and diffstat under them are regenerated.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 WORKTREE   (its HEAD is the last patch; pristine is the base)" >&2
	exit 2
}

# keep_cover OLD NEW: NEW with OLD's subject and text above the shortlog.
keep_cover() {
	local old=$1 new=$2
	awk -v old="$old" '
		BEGIN {
			while ((getline line < old) > 0) {
				if (line ~ /^Subject: /) subject = line
				else if (subject != "" && line ~ /^[^ ].* \([0-9]+\):$/) break
				else if (subject != "") text = text line "\n"
			}
		}
		/^Subject: / { print subject; in_text = 1; next }
		in_text && /^[^ ].* \([0-9]+\):$/ { printf "%s", text; in_text = 0 }
		in_text { next }
		{ print }
	' "$new"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -eq 1 ] || usage
	local wt=$1 out
	out=$(mktemp -d)
	run git -C "$wt" format-patch -q --cover-letter --no-signature --zero-commit \
		-o "$out" pristine..HEAD
	if [ -f "$PROJECT_DIR/patches/0000-cover-letter.patch" ]; then
		keep_cover "$PROJECT_DIR/patches/0000-cover-letter.patch" \
			"$out/0000-cover-letter.patch" >"$out/cover"
		mv "$out/cover" "$out/0000-cover-letter.patch"
	fi
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
