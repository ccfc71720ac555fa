# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# User-Mode Linux: the series' default and forced-on kernels as host
# processes, their in-kernel walks (guest/umlbench) run and checked.
# shellcheck disable=SC2317 # functions called by name

plan_uml() {
	cat <<'PLAN'
all 3600 test_uml_quick
all 3600 test_uml_kunit
check 120 test_uml_bench_pairs_and_decides
check:cache 30 test_kunit_diff_names_every_difference
all 3600 test_uml_kunit_alltests
PLAN
}

# Both UML kernels (default, and switch: on behind a run-time flag) build
# from the trees of scripts/uml-tree.sh, report the CONFIG_LIST_PREFETCH
# of their variant, and run every walk and swept path of umlbench with
# its result checked (the kernel says "done" only then); the switch
# kernel times each path in the flag's three states.
test_uml_quick() {
	"$PROJECT_DIR/scripts/uml-bench.sh" --quick
	local variant log walk form obj disasm
	for variant in default switch; do
		log=$RESULTS_DIR/uml-quick/boot-$variant.log
		for walk in list lookup rcu skb skb_shuffled skb_links tiny_rcu tcp_backlog blk_batch lru_reclaim; do
			grep -q "umlbench: walk=$walk " "$log" ||
				{ echo "$variant: no $walk walk in $log"; return 1; }
		done
		# The cold paths: their nodes aged, one region of >= 1000 clock
		# steps (umlbench says too_short and times nothing otherwise).
		for walk in tiny_rcu tcp_backlog blk_batch lru_reclaim; do
			grep -Eq "umlbench: walk=$walk .* regions=1 region_ns=[0-9]+ aged_kib=[1-9]" "$log" ||
				{ echo "$variant: no cold $walk region timed in $log"; return 1; }
		done
		# Their real work done: every tiny_rcu callback freed its object
		# (else destroying the cache warns), every bio ended and every
		# backlogged byte received (counted in the boot: a stand-in for
		# tcp_v4_do_rcv() fails it), and nothing warned.
		if grep -E 'WARNING:|BUG:|still has objects|umlbench: .*(failed|outside)' "$log"; then
			echo "$variant: the boot warned (above): $log"
			return 1
		fi
		echo "$variant: $(grep -c 'umlbench: walk=' "$log") walks and paths checked"
	done
	# The switch kernel's sites test the flag before they prefetch (a
	# site without the test would time the same code in every state).
	obj=$(build_dir um uml switch)/kernel/rcu/tiny.o
	disasm=$(objdump -dr "$obj")
	if ! grep -q 'um_list_prefetch_enabled' <<<"$disasm" || ! grep -Eq '\sprefetch' <<<"$disasm"; then
		echo "switch: Tiny RCU's walk in $obj does not prefetch behind the flag"
		return 1
	fi
	log=$RESULTS_DIR/uml-quick/boot-switch.log
	for walk in tiny_rcu tcp_backlog blk_batch lru_reclaim; do
		for form in on off on_again; do
			grep -q "umlbench: walk=$walk form=$form " "$log" ||
				{ echo "switch: $walk not timed with the flag $form in $log"; return 1; }
		done
	done
	# The two forms are what they say: the on form prefetches, the off
	# form does not (prefetcht0 is __builtin_prefetch on the x86_64 host).
	local count
	for variant in default switch; do
		for form in off on; do
			obj=$(build_dir um uml "$variant")/lib/umlbench_walks_$form.o
			count=$(objdump -d "$obj" | grep -Ec '\sprefetch' || true)
			echo "$variant kernel, form $form: $count prefetches"
			if [ "$form" = on ] && [ "$count" -eq 0 ] || [ "$form" = off ] && [ "$count" -ne 0 ]; then
				echo "the $form form of the walks in the $variant kernel has $count prefetches"
				return 1
			fi
		done
	done
}

# kunit.py --arch=um runs the list suites and the series' suite in both
# variants, every case passing (kunit.py fails the run otherwise), and
# the suites are there: a run of no test would pass vacuously.
test_uml_kunit() {
	"$PROJECT_DIR/scripts/uml-kunit.sh" default on | tee "$RESULTS_DIR/uml-kunit.txt"
	local variant suite
	for variant in default on; do
		for suite in list-kunit-test hlist klist list_prefetch; do
			grep -Eq "^uml $variant: .*\b$suite [1-9][0-9]*/0/" "$RESULTS_DIR/uml-kunit.txt" ||
				{ echo "uml $variant: suite $suite did not run and pass"; return 1; }
		done
	done
}

# uml_bench.py takes each boot's medians and decides with the host
# benchmark's statistics, on eight doctored rounds of boots: for the
# iterators (both forms in every boot), the on form 10 % faster in every
# boot is 'faster', no difference beyond 0.1 % 'equivalent', and a form
# that is faster in one kernel's boots and slower in the other's
# 'unstable'; for the swept paths (the switch kernel's boots, each sample
# timed on, off and on again), a cold path whose prefetch pays keeps it,
# one equivalent lets its removal stand, and v1's backlog (kept runs
# name it so: hot nodes, a stub handler) decides nothing. The A/A controls
# (list_copy and rcu against list; a path's on_again against its on)
# read 1.000 and pass; with a copy 5 % slower in every boot, the run is
# refused, the control named; with on_again scattered +-12 % boot to
# boot, a 10 % gain is within the A/A floor and not decided.
test_uml_bench_pairs_and_decides() {
	local dir pair variant sample fast flat form
	dir=$(mktemp -d)
	for pair in 1 2 3 4 5 6 7 8; do
		for variant in default moved on switch; do
			for sample in 0 1 2 3 4 5 6 7 8 9; do
				if [ "$variant" = switch ]; then
					for form in on off on_again; do
						fast=$(awk -v f="$form" -v s="$sample" -v p="$pair" 'BEGIN { printf "%.3f", (f == "off" ? 100 + (p % 3 - 1) / 100 : 90) + s / 100 }')
						flat=$(awk -v s="$sample" -v p="$pair" 'BEGIN { printf "%.3f", 50 + (s % 3 - 1) / 100 + p / 1000 }')
						echo "umlbench: walk=tiny_rcu form=$form set_kib=256 nodes=1365 placement=0 sample=$sample ns_per_node=$fast regions=1"
						echo "umlbench: walk=blk_batch form=$form set_kib=256 nodes=1024 placement=0 sample=$sample ns_per_node=$flat regions=1"
						echo "umlbench: walk=lru_reclaim form=$form set_kib=256 nodes=64 placement=0 sample=$sample ns_per_node=$flat regions=1"
						echo "umlbench: walk=backlog form=$form set_kib=256 nodes=455 placement=0 sample=$sample ns_per_node=$fast regions=40"
					done
					[ "$sample" != 0 ] ||
						echo "umlbench: walk=tiny_rcu form=on set_kib=16 nodes=85 placement=0 sample=0 region_ns=$((40000 + pair)) too_short"
					continue
				fi
				for form in off on; do
					awk -v f="$form" -v s="$sample" -v p="$pair" -v v="$variant" 'BEGIN {
						printf "umlbench: walk=list form=%s set_kib=65536 nodes=349525 sample=%d ns_per_node=%.3f\n", f, s, (f == "on" ? 90 : 100) + p + s / 100
						printf "umlbench: walk=list_copy form=%s set_kib=65536 nodes=349525 sample=%d ns_per_node=%.3f\n", f, s, (f == "on" ? 90 : 100) + p + s / 100
						printf "umlbench: walk=rcu form=%s set_kib=65536 nodes=349525 sample=%d ns_per_node=%.3f\n", f, s, 100 + p + s / 100 + (f == "on" ? (s % 3 - 1) / 100 : 0)
						printf "umlbench: walk=skb form=%s set_kib=65536 nodes=349525 sample=%d ns_per_node=%.3f\n", f, s, ((f == "on") == (v == "on") ? 40 : 44) + p
						printf "umlbench: walk=lookup form=%s set_kib=65536 nodes=349525 placement=0 sample=%d ns_per_node=%.3f\n", f, s, (f == "on" ? 90 : 100)
						printf "umlbench: walk=lookup form=%s set_kib=65536 nodes=349525 placement=1 sample=%d ns_per_node=200\n", f, s
					}'
				done
			done >>"$dir/boot-$pair-$variant.log"
		done
	done
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir" | tee "$dir/out.txt"
	grep -Eq '^A/A controls: 3 of 3 read 1.000 within their limit' "$dir/out.txt" ||
		{ echo "uml_bench.py: want the 3 A/A controls passed"; return 1; }
	mkdir "$dir/skewed"
	for log in "$dir"/boot-*.log; do
		awk '/walk=list_copy/ { split($NF, a, "="); sub(/ns_per_node=.*/, sprintf("ns_per_node=%.3f", a[2] * 1.05)) } { print }' \
			"$log" >"$dir/skewed/$(basename "$log")"
	done
	if python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/skewed" >"$dir/skewed/out.txt" 2>"$dir/skewed/err.txt" ||
		! grep -q 'refused: the A/A controls .* failed: list_copy-off / list-off at 64 MiB: 1.050' "$dir/skewed/err.txt"; then
		cat "$dir/skewed/err.txt"
		echo "uml_bench.py: a list copy 5 % slower than the list in every boot was not refused, named"
		return 1
	fi
	# The standing check (rcu / list, another function) fails beyond 5 %,
	# not at 2.5 %: where its loop sits moves it that much in L1.
	local skew
	for skew in 1.025 1.10; do
		mkdir "$dir/rcu-$skew"
		for log in "$dir"/boot-*.log; do
			awk -v f="$skew" '/walk=rcu form=off/ { split($NF, a, "="); sub(/ns_per_node=.*/, sprintf("ns_per_node=%.3f", a[2] * f)) } { print }' \
				"$log" >"$dir/rcu-$skew/$(basename "$log")"
		done
	done
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/rcu-1.025" >"$dir/rcu-1.025/out.txt" ||
		{ echo "uml_bench.py: the standing check 2.5 % off refused the run"; return 1; }
	if python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/rcu-1.10" >"$dir/rcu-1.10/out.txt" 2>"$dir/rcu-1.10/err.txt" ||
		! grep -q 'failed: rcu-off / list-off at 64 MiB: 1.100' "$dir/rcu-1.10/err.txt"; then
		cat "$dir/rcu-1.10/err.txt"
		echo "uml_bench.py: the standing check 10 % off did not refuse the run, named"
		return 1
	fi
	if ! { grep -Eq '^list +64 MiB +24 .* faster' "$dir/out.txt" &&
		grep -Eq '^rcu +64 MiB +24 .* equivalent' "$dir/out.txt" &&
		grep -Eq '^skb +64 MiB +24 .* unstable' "$dir/out.txt"; }; then
		echo "uml_bench.py: want list faster, rcu equivalent and skb unstable, over 24 boots (3 kernels)"
		return 1
	fi
	# A headline cell wider than +-1 % says by how much, and how many boots
	# would narrow it (an interval narrows as the square root of its boots).
	grep -Fq 'within +-1 %; wider: skb 64 MiB (15.1 % over 24 boots; +-1 % would take ~5504 boots)' "$dir/out.txt" ||
		{ echo "uml_bench.py: want skb's headline interval named, 15.1 % wide, ~5504 boots to +-1 %"; return 1; }
	# Placements: 10 % faster over one allocation, even over the other; a
	# boot's ratio is over both (sqrt(0.9)), not the last one's alone.
	grep -Eq '^lookup +64 MiB +24 .* 0\.949 \[0\.949,0\.949\] +faster' "$dir/out.txt" ||
		{ echo "uml_bench.py: want lookup 0.949 (both placements), faster"; return 1; }
	if ! { grep -Eq '^tiny_rcu +256 KiB +8 .* 0\.900 \[[0-9.]+,[0-9.]+\] \[[0-9.]+,[0-9.]+\] +faster +1\.000 ' "$dir/out.txt" &&
		grep -Eq "^patch 'rcu: tiny': the prefetch pays at 256 KiB: keep it" "$dir/out.txt" &&
		grep -Eq "^patch 'blk-mq': the prefetch pays nowhere \(256 KiB equivalent\): the removal stands" "$dir/out.txt" &&
		grep -Eq "^patch 'mm: vmscan': the prefetch pays nowhere \(256 KiB equivalent\): the removal stands" "$dir/out.txt" &&
		grep -Eq '^A/A controls \(swept paths\): 3 of 3 read 1.000' "$dir/out.txt" &&
		! grep -Eq "^(backlog|patch 'net: sock')" "$dir/out.txt"; }; then
		echo "uml_bench.py: want tiny_rcu's prefetch kept, blk_batch's removal standing, lru_reclaim's removal standing, v1's backlog deciding nothing, the paths' controls passed"
		return 1
	fi
	grep -Fq 'not timed: tiny_rcu 16 KiB: its region lasted 40 us, under 1000 of' "$dir/out.txt" ||
		{ echo "uml_bench.py: want the region too short to time named, not summed"; return 1; }
	# Without the on_again timings no path is decided.
	mkdir "$dir/no-control"
	cp "$dir"/boot-*.log "$dir/no-control/"
	sed -i '/form=on_again/d' "$dir"/no-control/boot-*-switch.log
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/no-control" >"$dir/no-control/out.txt"
	grep -Fq "patch 'rcu: tiny': not decided (256 KiB undecided (no A/A control in these boots)): not sent as measured" "$dir/no-control/out.txt" ||
		{ echo "uml_bench.py: without the A/A control, tiny_rcu's 0.900 was decided"; return 1; }
	# on_again 12 % off either way, boot by boot (4 boots each): the
	# control passes (median 1.005, its sign test silent), but its floor
	# covers the 10 % gain, which is then not decided.
	mkdir "$dir/scattered"
	cp "$dir"/boot-*.log "$dir/scattered/"
	for log in "$dir"/boot-*-switch.log; do
		awk -v f="$(case $(basename "$log") in boot-[1357]-*) echo 1.12 ;; *) echo 0.89 ;; esac)" \
			'/walk=tiny_rcu form=on_again/ { split($(NF - 1), a, "="); sub(/ns_per_node=[0-9.]+/, sprintf("ns_per_node=%.3f", a[2] * f)) } { print }' \
			"$log" >"$dir/scattered/$(basename "$log")"
	done
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/scattered" >"$dir/scattered/out.txt"
	if ! grep -Eq "^patch 'rcu: tiny': not decided \(256 KiB undecided \(faster, within the A/A floor \(1[12]\.[0-9] %\)\)\)" "$dir/scattered/out.txt"; then
		grep -E "^(tiny_rcu|patch 'rcu: tiny')" "$dir/scattered/out.txt"
		echo "uml_bench.py: with on_again scattered +-12 %, tiny_rcu's 10 % gain was decided"
		return 1
	fi
	# on_again 5 % slower in every boot: refused, the control named.
	mkdir "$dir/slow-again"
	cp "$dir"/boot-*.log "$dir/slow-again/"
	for log in "$dir"/boot-*-switch.log; do
		awk '/walk=blk_batch form=on_again/ { split($(NF - 1), a, "="); sub(/ns_per_node=[0-9.]+/, sprintf("ns_per_node=%.3f", a[2] * 1.05)) } { print }' \
			"$log" >"$dir/slow-again/$(basename "$log")"
	done
	if python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/slow-again" >"$dir/slow-again/out.txt" 2>"$dir/slow-again/err.txt" ||
		! grep -q 'refused: the A/A controls .* failed: blk_batch on_again / on at 256 KiB: 1.050' "$dir/slow-again/err.txt"; then
		cat "$dir/slow-again/err.txt"
		echo "uml_bench.py: a path's on_again 5 % slower than its on in every boot was not refused, named"
		return 1
	fi
	# The samples kept in results/ decide as the consoles they came from.
	mkdir "$dir/kept"
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" --extract "$dir" >"$dir/kept/samples.csv"
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/kept" >"$dir/kept/out.txt"
	diff -u "$dir/out.txt" "$dir/kept/out.txt" ||
		{ echo "uml_bench.py: the extracted samples decide otherwise than the consoles"; return 1; }
	# Runs of the same kernels add up (twice the boots); of others, not.
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/kept,$dir/kept" >"$dir/twice.txt"
	grep -Eq '^list +64 MiB +48 .* faster' "$dir/twice.txt" ||
		{ echo "uml_bench.py: two runs of the same kernels do not add up to 48 boots"; return 1; }
	mkdir "$dir/other"
	sed '1s/.*/# kernel 6.12.118-gother/' "$dir/kept/samples.csv" >"$dir/other/samples.csv"
	if python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/kept,$dir/other" >/dev/null 2>"$dir/refused.txt" ||
		! grep -q 'runs add up only with the same kernels' "$dir/refused.txt"; then
		echo "uml_bench.py: runs of other kernels were added up"
		return 1
	fi
	# make report's short run boots no switch kernel: its iterator cells
	# are decided (no 'unstable': one build), the swept paths are said
	# not timed, and boots that timed no iterator are an error.
	mkdir "$dir/short"
	cp "$dir"/boot-*-default.log "$dir/short/"
	python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/short" >"$dir/short/out.txt"
	if ! { grep -Eq '^skb +64 MiB +8 .* slower +[0-9.]+/-/- ' "$dir/short/out.txt" &&
		grep -Fq 'one build only' "$dir/short/out.txt" &&
		grep -Fq 'The swept paths: not timed within one boot' "$dir/short/out.txt"; }; then
		echo "uml_bench.py: the default kernel's 8 boots alone: want skb slower over one build, the paths not timed"
		return 1
	fi
	mkdir "$dir/none"
	grep -h 'walk=lru_reclaim' "$dir"/boot-1-switch.log >"$dir/none/boot-1-switch.log"
	if python3 "$PROJECT_DIR/scripts/lib/uml_bench.py" "$dir/none" >/dev/null 2>"$dir/none/err.txt" ||
		! grep -q 'no boot timed the iterators' "$dir/none/err.txt"; then
		echo "uml_bench.py: boots that timed no iterator were not refused"
		return 1
	fi
	rm -rf "$dir"
}

# kunit_diff.py, on two doctored kunit.py JSON files: a case that passed
# and fails, one only the second run has, one failing in both; the
# verdict names the one regression; a file of no case is an error.
test_kunit_diff_names_every_difference() {
	local dir
	dir=$(mktemp -d)
	cat >"$dir/base.json" <<'JSON'
{"name": "KUnit Test Group", "sub_groups": [{"name": "list-kunit-test", "test_cases": [
 {"name": "list_test_list_init", "status": "PASS"}, {"name": "old_bug", "status": "FAIL"},
 {"name": "list_test_list_add", "status": "PASS"}]}], "test_cases": []}
JSON
	cat >"$dir/changed.json" <<'JSON'
{"name": "KUnit Test Group", "sub_groups": [{"name": "list-kunit-test", "test_cases": [
 {"name": "list_test_list_init", "status": "PASS"}, {"name": "old_bug", "status": "FAIL"},
 {"name": "list_test_list_add", "status": "FAIL"}]},
 {"name": "list_prefetch", "test_cases": [{"name": "new_case", "status": "PASS"}]}], "test_cases": []}
JSON
	echo '{"name": "KUnit Test Group", "sub_groups": [], "test_cases": []}' >"$dir/empty.json"
	python3 "$PROJECT_DIR/scripts/lib/kunit_diff.py" "$dir/base.json" "$dir/changed.json" | tee "$dir/out"
	local want
	for want in 'status differs: 1' '  list-kunit-test/list_test_list_add: PASS -> FAIL' \
		'only in changed: 1' '  list_prefetch/new_case: PASS' 'failing in both: 1' \
		'  list-kunit-test/old_bug' 'verdict: regressions: 1'; do
		grep -qxF -- "$want" "$dir/out" || { echo "kunit_diff.py did not print: $want"; return 1; }
	done
	if python3 "$PROJECT_DIR/scripts/lib/kunit_diff.py" "$dir/base.json" "$dir/empty.json"; then
		echo "kunit_diff.py compared against a run of no case"
		return 1
	fi
	rm -rf "$dir"
}

# The tree's whole KUnit corpus under UML, vanilla against the series
# forced on (scripts/uml-kunit.sh --all): no case that passes on vanilla
# may fail or go missing with the series; cases failing on both are
# listed in results/uml-kunit-all.txt. Long: two allyes-for-tests builds.
test_uml_kunit_alltests() {
	"$PROJECT_DIR/scripts/uml-kunit.sh" --all
	local base
	base=$(sed -n 's/^base: *\([0-9]*\) cases.*/\1/p' "$RESULTS_DIR/uml-kunit-all.txt")
	[ "${base:-0}" -ge 500 ] || { echo "only ${base:-0} cases ran on vanilla: not the whole corpus"; return 1; }
	grep -qx 'verdict: no case passes in base and not in changed' "$RESULTS_DIR/uml-kunit-all.txt"
}
