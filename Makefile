# SPDX-License-Identifier: GPL-2.0
# list-prefetch: the series and the lab that measures it.
#
#   make report   the main job: host bench, UML walks, K7 and x86_64 boots, the option's size
#   make report-all   make check-all, then every measurement (hours cold)
#   make check    the test suite, quick tier (CI runs it through .ci/run)
#   make check-all   every test: all targets, debug kernels, sizes, A/B, audit
#   make bench    the host benchmark: does a next-node prefetch pay on this CPU?
#   make bench-quick   the same in three working sets, about a minute
#   make bench-full    every lookup axis at every working set, about 1.5 hours
#   make verdict  the verdict in words again: the last make bench of this CPU, the current sizes
#   make sizes CONFIG=qemu|defconfig   size vmlinux, bloat-o-meter, prefetch counts (TOOLCHAIN=llvm: clang)
#   make audit    every prefetch call site, and the list-walk ones (coccinelle)
#   make codegen  objects compiled vanilla/default/on, compared function by function
#   make toolchains   sizes and codegen with gcc and with clang (LLVM=1), side by side
#   make sparse   sparse (C=2) over the series' files: nothing new against vanilla
#   make kcsan-planted   KCSAN catches a plain load of ->next planted in an RCU walk
#   make kcsan | make debug | make targets   one table of make report-all, its boots alone (results/NAME.txt)
#   make distcc-loopback   a small kernel through a distccd of its own on 127.0.0.1, and here alone
#   make guest-bench   in-guest A/B: listbench module, hackbench, perf bench, tmpfs
#   make uml-bench     the kernel's own iterators and swept paths on the real CPU (User-Mode Linux)
#   make uml-kunit     KUnit under UML: the list suites, and the whole corpus vanilla against on
#   make bisect   every step of the series builds, default and on (TARGET=, BISECT_VARIANTS=, long)
#   make bisect-all   the same for x86_64, i386-mk7 and arm64, and x86_64 with clang (hours)
#   make mail-series OUTDIR=DIR   the series signed by you (git config user.*), to mail
#   make readme   quote the current results in README.md and docs/
#   make deps | tree | apply | build | boot   one stage of the pipeline
#
# Every target chains scripts in scripts/, each of which runs alone too.
# LIST_PREFETCH_CACHE (default ~/.cache/list-prefetch) holds the kernel
# tree, the build directories and ccache.

TARGET ?= x86_64
CONFIG ?= qemu
VARIANTS ?= default on

.PHONY: help deps tree apply build boot check check-all report report-all bench bench-quick bench-full verdict guest-bench uml-bench uml-kunit bisect bisect-all sizes audit codegen toolchains sparse kcsan-planted kcsan debug targets distcc-loopback mail-series readme

help:
	@sed -n 's/^#   make /  make /p' Makefile

deps:
	scripts/deps.sh

tree: deps
	scripts/tree.sh

apply: tree
	scripts/apply.sh

build: apply
	for v in $(VARIANTS); do \
		scripts/configure.sh $(TARGET) $$v qemu && \
		scripts/build.sh $(TARGET) $$v qemu || exit 1; \
	done

boot: build
	for v in $(VARIANTS); do \
		scripts/boot.sh $(TARGET) $$v qemu && \
		scripts/parse.sh $(TARGET) $$v qemu || exit 1; \
	done

check: deps
	scripts/check.sh --tier check

check-all: deps
	scripts/check.sh --tier all

report: deps
	scripts/report.sh

report-all: deps
	scripts/report.sh --all

# RUNS builds of the benchmark, code placed differently (default 3).
bench: deps
	scripts/bench.sh $(if $(QUICK),--quick) $(if $(RUNS_BENCH),--runs $(RUNS_BENCH))

bench-quick: deps
	scripts/bench.sh --quick

bench-full: deps
	scripts/bench.sh --full

verdict:
	scripts/bench.sh --verdict

# RUNS boots per variant (default 5); under TCG, functional only.
RUNS ?= 5
guest-bench: apply
	scripts/guest-bench.sh --runs $(RUNS)

# UML kernels default and on, booted A B B A on the host CPU.
uml-bench: apply
	scripts/uml-bench.sh

# Long: two builds of kunit.py's --alltests config, per variant.
uml-kunit: apply
	scripts/uml-kunit.sh default on
	scripts/uml-kunit.sh --all

# Long: builds every step of the series, in the default and the forced-on
# variant. bisect-all: every configuration the record covers (hours cold).
BISECT_VARIANTS ?= default on
bisect: deps
	scripts/bisect-build.sh $(TARGET) $(BISECT_VARIANTS)

bisect-all: deps
	scripts/bisect-build.sh x86_64 default on
	scripts/bisect-build.sh i386-mk7 default
	scripts/bisect-build.sh arm64 default
	TOOLCHAIN=llvm scripts/bisect-build.sh x86_64 default

sizes: tree
	scripts/sizes.sh $(CONFIG) $(TARGET)

audit: apply
	scripts/audit.sh

codegen: apply
	scripts/codegen.sh $(TARGET)

toolchains: apply
	scripts/toolchains.sh $(TARGET)

sparse: apply
	scripts/sparse.sh $(TARGET)

kcsan-planted: apply
	scripts/kcsan-planted.sh $(TARGET)

# The KCSAN, debug or every target's boots, as make check-all runs them,
# and their table: results/kcsan.txt, debug.txt, targets.txt.
kcsan debug targets: apply
	scripts/report.sh --table $@

distcc-loopback: tree
	scripts/distcc-loopback.sh

# The series as its sender mails it: From:/Signed-off-by: from git config.
OUTDIR ?= mail
mail-series:
	scripts/mail-series.sh $(OUTDIR)

# After make report: copy the results the README quotes into
# results/examples/, paste them into README.md and docs/, and write the
# series' quotes of them (scripts/lib/series_figures.py, from update-readme.py).
readme:
	scripts/update-readme.py
