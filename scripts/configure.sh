#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# configure.sh - write the .config of one build: the config set's base
# (tinyconfig, defconfig), its fragments, the target's and the variant's
# fragment, then olddefconfig; then check that every option asked for
# survived, and name the ones that did not.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 TARGET VARIANT [CONFIG_SET]   e.g. $0 x86_64 on qemu" >&2
	exit 2
}

# requested_options FRAGMENT...: the option lines of the fragments, the
# last one winning for each symbol, as merge_config.sh merges them.
requested_options() {
	cat "$@" | sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1 &/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 &/p' |
		awk '{ name = $1; sub(/^[^ ]+ /, ""); line[name] = $0; if (!(name in seen)) { seen[name] = 1; order[++n] = name } }
		     END { for (i = 1; i <= n; i++) print line[order[i]] }'
}

# missing_options CONFIG FRAGMENT...: requested lines not in CONFIG.
missing_options() {
	local config=$1 line name
	shift
	requested_options "$@" | while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF -- "$line" "$config" || echo "$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$config" || echo 'not offered'))"
			;;
		"# CONFIG_"*" is not set")
			name=${line#\# }
			name=${name%% *}
			! grep -q "^$name=" "$config" || echo "$line (got: $(grep "^$name=" "$config"))"
			;;
		esac
	done
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case $# in 2 | 3) ;; *) usage ;; esac
	local stamp missing
	select_build "$@"
	local src=$BUILD_SRC out=$BUILD_OUT
	[ -f "$src/Makefile" ] || die "no source tree at $src" "run 'make tree apply' first"
	local -a frags
	mapfile -t frags < <(config_fragments "$VARIANT")

	stage_start "configure $TARGET-$CONFIG_SET-$VARIANT"
	stamp=$(echo "$BASE $ARCH ${KEEP_DEFAULT:-} $(inputs_hash "${frags[@]}") $(git -C "$src" rev-parse 'HEAD^{tree}')" | inputs_hash /dev/stdin)
	if [ -f "$out/.config" ] && [ "$(cat "$out/.lp-config" 2>/dev/null)" = "$stamp" ]; then
		log "configure: $out/.config is up to date"
		stage_end
		return 0
	fi
	mkdir -p "$out"
	rm -f "$out/.lp-config"
	write_config "$src" "$out" "$VARIANT"
	missing=$(missing_options "$out/.config" "${frags[@]}")
	if [ -n "$missing" ]; then
		local -a lines
		mapfile -t lines <<<"$missing"
		printf '  did not survive olddefconfig: %s\n' "${lines[@]}" >&2
		die "$(echo "$missing" | wc -l) option(s) of the fragments are not in $out/.config" \
			"an option's dependencies are not met: look it up with 'make -C $src O=$out ARCH=$ARCH menuconfig' (press / and type its name), then add what it depends on to the fragment"
	fi
	echo "$stamp" >"$out/.lp-config"
	log "configure: all $(requested_options "${frags[@]}" | wc -l) requested options present in $out/.config"
	stage_end
}

main "$@"; exit
