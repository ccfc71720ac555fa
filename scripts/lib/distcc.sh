# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# distcc.sh - kernel builds spread over other machines with distcc,
# sourced by scripts/lib/lab.sh. Nothing here acts unless DISTCC_HOSTS is
# set (distcc's own variable: "HOST[:PORT][/LIMIT] ...", see distcc(1)).
# Then every kbuild compiles through distcc, behind ccache where there
# is one (CCACHE_PREFIX=distcc: a hit never leaves this machine), make's
# -j follows the host list (distcc -j), each helper is probed first (it
# answers, with the very compiler this machine has), and each build says
# how many compiles went where. docs/distcc.md adds a helper.

# distcc_wanted: whether builds go through distcc.
distcc_wanted() {
	[ -n "${DISTCC_HOSTS:-}" ]
}

# distcc_state_dir: distcc's own state (its back-off marks for hosts
# that failed), kept in the cache rather than in ~/.distcc.
distcc_state_dir() {
	echo "${DISTCC_DIR:-$LIST_PREFETCH_CACHE/distcc}"
}

# distcc_env LOG: the environment of a build through distcc, one
# NAME=value per line: distcc's log of every compile (where it ran) in
# LOG, and with ccache, distcc as the compiler ccache runs on a miss.
distcc_env() {
	echo "DISTCC_LOG=$1"
	echo "DISTCC_DIR=$(distcc_state_dir)"
	if command -v ccache >/dev/null 2>&1; then
		echo "CCACHE_PREFIX=distcc"
	fi
}

# distcc_jobs: make's -j for the host list: the job slots of its hosts.
distcc_jobs() {
	distcc -j
}

# compiler_ident OBJECT: the compiler that compiled OBJECT, from the
# .comment section cc1 writes (on the helper, for a distributed compile:
# distcc preprocesses here, so __VERSION__ would name this machine's).
compiler_ident() {
	readelf -p .comment "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\] *//p' | head -n 1
}

# distcc_check_hosts CC: compile a probe on each helper of DISTCC_HOSTS
# alone. A helper that does not compile it (down, no distccd, --allow
# not covering this machine, CC not installed there) is named, and its
# share of the compiles falls back to this machine; one whose compiler
# differs from this machine's CC stops the build: objects of two
# compilers in one kernel are not the kernel this lab measures.
distcc_check_hosts() {
	local cc=$1 dir host want got
	need_cmd distcc "DISTCC_HOSTS is set; 'scripts/deps.sh' installs distcc"
	dir=$(mktemp -d "${TMPDIR:-/tmp}/list-prefetch-distcc.XXXXXX")
	mkdir -p "$dir/state" "$(distcc_state_dir)"
	echo 'int distcc_probe;' >"$dir/list-prefetch-distcc-probe.c"
	"$cc" -c "$dir/list-prefetch-distcc-probe.c" -o "$dir/here.o"
	want=$(compiler_ident "$dir/here.o")
	for host in $(distcc --show-hosts); do
		case $host in localhost*) continue ;; esac
		rm -f "$dir/probe.log" "$dir/there.o"
		# Its own state directory: no back-off left by an earlier failure.
		DISTCC_HOSTS=$host DISTCC_DIR=$dir/state DISTCC_LOG=$dir/probe.log \
			distcc "$cc" -c "$dir/list-prefetch-distcc-probe.c" -o "$dir/there.o" 2>/dev/null || true
		if ! grep -q " compile [^ ]*/list-prefetch-distcc-probe\.c on ${host%%/*}[/ ].*completed ok" "$dir/probe.log" 2>/dev/null; then
			log "distcc: $host does not compile for this build ($(distcc_probe_error "$dir/probe.log")): its share of the compiles falls back to this machine; is distccd running there, with --allow covering this machine and $cc installed? (docs/distcc.md)"
			continue
		fi
		got=$(compiler_ident "$dir/there.o")
		if [ "$got" != "$want" ]; then
			rm -rf "$dir"
			die "distcc: $host compiles with '$got', this machine's $cc is '$want'" \
				"install the same $cc on $host (docs/distcc.md), or leave $host out of DISTCC_HOSTS"
		fi
		log "distcc: $host compiles with $cc ($want)"
	done
	rm -rf "$dir"
}

# distcc_probe_error LOG: distcc's reason, from its log, for not
# compiling on the helper.
distcc_probe_error() {
	local reason
	reason=$(sed -n 's/^distcc\[[0-9]*\] ERROR: //p' "$1" 2>/dev/null | head -n 1)
	echo "${reason:-no answer}"
}

# distcc_summary LOG: where the compiles of one build ran, from distcc's
# log: "distcc: 402 on 10.0.0.2/8, 17 here (3 fell back)". Compiles that
# ccache served never reach distcc.
distcc_summary() {
	[ -s "$1" ] || {
		echo "distcc: no compile reached distcc"
		return 0
	}
	awk '
	/ compile .* on .* completed ok$/ {
		host = $(NF - 2)
		if (host == "localhost") here++; else { if (!(host in on)) order[n++] = host; on[host]++ }
	}
	/ failed to distribute / { fell++ }
	END {
		s = ""
		for (i = 0; i < n; i++) s = s sprintf("%s%d on %s", s == "" ? "" : ", ", on[order[i]], order[i])
		s = s sprintf("%s%d here (%d fell back)", s == "" ? "" : ", ", here, fell)
		print "distcc: " s
	}' "$1"
}

# free_port: a TCP port of 127.0.0.1 that nothing listens on (now).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_loopback_distccd DIR PORT SLOTS: a distccd of our own on
# 127.0.0.1:PORT, taking SLOTS jobs, its log DIR/distccd.log. It stays
# in our process group (--no-detach), so whatever kills a test's group
# kills it too, and stop_loopback_distccd runs on our exit whatever
# happens. Only 127.0.0.1 may use it (--listen, --allow).
start_loopback_distccd() {
	local dir=$1 port=$2 slots=$3 i
	need_cmd distccd "distcc ('scripts/deps.sh' installs it)"
	# Run by root, distccd becomes its own user, who writes the log.
	chmod 1777 "$dir"
	distccd --daemon --no-detach --listen 127.0.0.1 --port "$port" --allow 127.0.0.1 \
		--jobs "$slots" --log-level=info --log-file="$dir/distccd.log" --user distccd &
	LOOPBACK_DISTCCD_PID=$!
	trap stop_loopback_distccd EXIT
	for ((i = 0; i < 100; i++)); do
		if (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			log "distcc: distccd $LOOPBACK_DISTCCD_PID listens on 127.0.0.1:$port ($slots jobs)"
			return 0
		fi
		sleep 0.1
	done
	die "distccd did not listen on 127.0.0.1:$port within 10 s; its log: $dir/distccd.log" \
		"is port $port taken? is the distccd user there ('scripts/deps.sh' installs distcc)?"
}

stop_loopback_distccd() {
	[ -n "${LOOPBACK_DISTCCD_PID:-}" ] || return 0
	kill -TERM "$LOOPBACK_DISTCCD_PID" 2>/dev/null || true
	wait "$LOOPBACK_DISTCCD_PID" 2>/dev/null || true
	LOOPBACK_DISTCCD_PID=
}

# distccd_served LOG: how many compiles a distccd's log says it served,
# the helper probes (distcc_check_hosts) left out.
distccd_served() {
	grep ' COMPILE_OK ' "$1" | grep -vc '/list-prefetch-distcc-probe\.c$' || true
}
