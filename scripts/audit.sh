#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# audit.sh - the tree sweep as a tool: every prefetch call site of the
# pristine 6.12 tree and of the patched one, by directory, and the
# list-walk prefetches among them as the series' semantic patch
# (scripts/coccinelle/misc/list_prefetch.cocci) reports them, in report
# mode. Writes results/audit.{txt,json}; fails if a list-walk prefetch
# remains in core (non-driver, non-arch) code after the series and the
# patches held back from it (patches/held/: sites the lab measured and
# did not send; the report names the ones they account for).
#
# Coccinelle cannot parse a macro that is a bare 'for (...)' header (an
# iterator); prefetches in such macros are listed from a grep, apart.
# shellcheck disable=SC2317 # the report's functions run through write_atomic
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

COCCI=scripts/coccinelle/misc/list_prefetch.cocci
# A call of one of the prefetch helpers, not its definition.
CALL_PATTERN='\b(prefetchw?|prefetch_range|list_prefetchw?)[[:space:]]*\('

# call_sites TREE: 'file:line:text' of every prefetch call in C code.
call_sites() {
	git -C "$1" grep -n -E "$CALL_PATTERN" -- '*.c' '*.h' ':!tools/' ':!Documentation/' |
		grep -v -E '#[[:space:]]*define[[:space:]]+(prefetchw?|list_prefetchw?)\b|(void|int)[[:space:]]+(prefetchw?|prefetch_range)[[:space:]]*\(' || true
}

# by_directory: count call sites per top directory (two levels for
# drivers/, where most of them are).
by_directory() {
	awk -F: '{ n = split($1, p, "/"); d = (p[1] == "drivers" && n > 2) ? p[1] "/" p[2] : p[1]; c[d]++ }
		END { for (d in c) printf "%5d  %s\n", c[d], d }' | sort -k1,1nr -k2
}

# list_walks TREE: the semantic patch's reports, as 'file:line' lines.
# spatch takes minutes; its report is kept in the cache under a key of
# its inputs (the tree's git tree, the rule, spatch's version), so a run
# over an unchanged tree and rule reuses it.
list_walks() {
	local tree=$1 cocci=$SERIES_DIR/$COCCI key cached tmp
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$tree has local changes" "run 'make apply' to restore it"
	key=$( (git -C "$tree" rev-parse 'HEAD^{tree}'; cat "$cocci"; spatch --version | head -n 1) |
		inputs_hash /dev/stdin)
	cached=$LIST_PREFETCH_CACHE/audit/walks-$key
	if [ -f "$cached" ]; then
		log "audit: spatch's report for $(basename "$tree") with this rule is cached ($cached)"
		cat "$cached"
		return 0
	fi
	mkdir -p "$(dirname "$cached")"
	tmp=$(mktemp "$cached.XXXXXX")
	# spatch parses only the files that can match: those calling prefetch.
	git -C "$tree" grep -l -E '\bprefetchw?[[:space:]]*\(' -- '*.c' '*.h' ':!tools/' |
		(cd "$tree" && xargs spatch --very-quiet -D report --no-includes --include-headers \
			--sp-file "$cocci") 2>"$tmp.err" |
		sed -n 's/^\([^:]*\):\([0-9]*\):[0-9-]*: WARNING: .*/\1:\2/p' | sort -t: -k1,1 -k2,2n -u >"$tmp"
	rm -f "$tmp.err"
	mv -f "$tmp" "$cached"
	cat "$cached"
}

# iterator_macros TREE: prefetches inside a multi-line macro that is a
# bare for header (the prefetch on the for line or just under it), which
# coccinelle cannot parse.
# shellcheck disable=SC2016 # an awk program
iterator_macros() {
	local tree=$1
	git -C "$tree" grep -l -E '\bprefetchw?[[:space:]]*\(' -- '*.c' '*.h' ':!tools/' |
		(cd "$tree" && xargs awk '
			FNR == 1 { prev1 = prev2 = "" }
			/(^|[^a-z_])prefetchw?[[:space:]]*\(.*\\$/ && (prev2 prev1 $0) ~ /for[[:space:]]*\(/ {
				print FILENAME ":" FNR
			}
			{ prev2 = prev1; prev1 = $0 }')
}

# macro_verdict FILE: how audit/iterator-macros.txt classifies the
# iterator macro prefetch in FILE (list-walk, array, ...).
macro_verdict() {
	awk -v file="$1" '$1 == file { print $2; found = 1 } END { if (!found) print "unclassified" }' \
		"$PROJECT_DIR/audit/iterator-macros.txt"
}

# unclassified_macros TREE: iterator macro prefetches nobody classified.
unclassified_macros() {
	local site
	iterator_macros "$1" | while read -r site; do
		[ "$(macro_verdict "${site%%:*}")" != unclassified ] || echo "$site"
	done
}

# area FILE: core, drivers or arch.
area() {
	case "$1" in
	drivers/* | sound/*) echo drivers ;;
	arch/*) echo arch ;;
	*) echo core ;;
	esac
}

# describe_walks TREE: one line per list-walk prefetch, with its area and code.
describe_walks() {
	local tree=$1 site file line
	{
		list_walks "$tree" | sed 's/$/ coccinelle/'
		iterator_macros "$tree" | while read -r site; do
			[ "$(macro_verdict "${site%%:*}")" != list-walk ] || echo "$site iterator-macro"
		done
	} | sort -u | while read -r site how; do
		file=${site%%:*}
		line=${site##*:}
		printf '%-8s %-15s %s  %s\n' "$(area "$file")" "$how" "$site" \
			"$(sed -n "${line}p" "$tree/$file" | sed 's/^[[:space:]]*//; s/[[:space:]]*\\$//' | cut -c1-60)"
	done
}

report() {
	local vanilla_sites=$1 series_sites=$2 vanilla_walks=$3 series_walks=$4 held_walks=$5
	echo "Prefetch audit: Linux $(tree_version "$TREE_DIR"), pristine and with the series"
	echo "(rule: $COCCI from the series, spatch $(spatch --version | sed -n '1s/spatch version \([^ ]*\).*/\1/p'))"
	echo
	echo "Prefetch call sites (prefetch, prefetchw, prefetch_range, list_prefetch[w]):"
	echo "  pristine: $(grep -c . "$vanilla_sites")   with the series: $(grep -c . "$series_sites")"
	echo "  by directory, pristine:"
	by_directory <"$vanilla_sites" | sed 's/^/    /'
	echo
	echo "List-walk prefetches, pristine ($(grep -c . "$vanilla_walks")):"
	sed 's/^/  /' "$vanilla_walks"
	echo
	echo "List-walk prefetches left with the series ($(grep -c . "$series_walks")):"
	sed 's/^/  /' "$series_walks"
	echo
	echo "Left in core code with the series: $(core_sites "$series_walks" | grep -c .)"
	echo "  of them, converted by the patches held back from it (patches/held/):"
	core_sites "$series_walks" | comm -23 - <(core_sites "$held_walks") | sed 's/^/    /'
	echo "Left in core code with the series and the held patches: $(core_sites "$held_walks" | grep -c .)"
	echo
	echo "Iterator macros coccinelle cannot parse, classified in audit/iterator-macros.txt:"
	sed -n 's/^\([^#][^ ]*\) \([^ ]*\) \(.*\)/  \2: \1 (\3)/p' "$PROJECT_DIR/audit/iterator-macros.txt"
	local unclassified
	unclassified=$(unclassified_macros "$TREE_DIR")
	[ -z "$unclassified" ] || echo "  UNCLASSIFIED (read them, then add them there): $unclassified"
}

# core_sites WALKS: the sites in core code of a describe_walks list, sorted.
core_sites() {
	awk '$1 == "core" { print $3 }' "$1" | sort
}

write_json() {
	python3 - "$@" <<'PY'
import json, os, sys
vanilla_sites, series_sites, vanilla_walks, series_walks, held_walks, out = sys.argv[1:]
def walks(path):
    rows = []
    for line in open(path):
        area, how, site = line.split()[:3]
        rows.append({"area": area, "found_by": how, "site": site})
    return rows
def count(path):
    return sum(1 for line in open(path) if line.strip())
result = {"call_sites": {"pristine": count(vanilla_sites), "series": count(series_sites)},
          "list_walks": {"pristine": walks(vanilla_walks), "series": walks(series_walks)}}
result["list_walks"]["series_and_held"] = walks(held_walks)
result["core_left"] = sum(1 for w in result["list_walks"]["series"] if w["area"] == "core")
result["core_left_with_held"] = sum(1 for w in result["list_walks"]["series_and_held"]
                                    if w["area"] == "core")
with open(out + f".tmp.{os.getpid()}", "w") as f:
    json.dump(result, f, indent=2)
    f.write("\n")
os.replace(out + f".tmp.{os.getpid()}", out)
PY
}

# stamped_report FILE...: report FILE... under the result's stamp.
stamped_report() {
	result_stamp
	report "$@"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -eq 0 ] || { echo "usage: $0   (after 'make apply')" >&2; exit 2; }
	require_tree
	need_cmd spatch coccinelle
	[ -f "$SERIES_DIR/$COCCI" ] || die "no $COCCI in $SERIES_DIR" "run 'make apply'"
	stage_start audit
	local work
	work=$(mktemp -d)
	log "audit: call sites"
	call_sites "$TREE_DIR" >"$work/vanilla-sites"
	call_sites "$SERIES_DIR" >"$work/series-sites"
	log "audit: spatch over the pristine tree's $(git -C "$TREE_DIR" grep -l -E '\bprefetchw?[[:space:]]*\(' -- '*.c' '*.h' ':!tools/' | wc -l) files that call prefetch"
	describe_walks "$TREE_DIR" >"$work/vanilla-walks"
	log "audit: spatch over the patched tree"
	describe_walks "$SERIES_DIR" >"$work/series-walks"
	local -a held
	mapfile -t held < <(held_files)
	lab_tree held "$SERIES_DIR" "${held[@]}"
	log "audit: spatch over the patched tree with the held patches"
	describe_walks "$(lab_tree_dir held)" >"$work/held-walks"
	mkdir -p "$RESULTS_DIR"
	write_atomic "$RESULTS_DIR/audit.txt" stamped_report "$work/vanilla-sites" "$work/series-sites" \
		"$work/vanilla-walks" "$work/series-walks" "$work/held-walks"
	write_json "$work/vanilla-sites" "$work/series-sites" "$work/vanilla-walks" "$work/series-walks" \
		"$work/held-walks" "$RESULTS_DIR/audit.json"
	cat "$RESULTS_DIR/audit.txt"
	local left
	left=$(core_sites "$work/held-walks" | grep -c . || true)
	rm -rf "$work"
	[ "$left" -eq 0 ] || die "$left list-walk prefetch(es) left in core code that neither the series nor patches/held/ converts (results/audit.txt)" \
		"route them through list_prefetch(): spatch -D patch --sp-file $COCCI FILE, in the series or as a held patch"
	stage_end
}

main "$@"; exit
