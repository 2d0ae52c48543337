# Threadable, migratable interrupt handling: the patch series and the
# machinery that builds, checks and boot-tests it.  See README.md.
#
#   make            set up, build the patched kernel, boot it, show the demo
#   make test       everything CI runs; ends in "N passed, N failed"
#
# Every target is a script in ci/ that can also be run by hand.

SHELL := /bin/bash
TOP := $(CURDIR)

# Where everything generated lives (ignored by git).
BUILD ?= $(TOP)/build
# KERNEL_SRC=~/linux applies the series on a new branch of your own tree.
KERNEL_SRC ?=
KOUT ?= $(BUILD)/obj
# The committer of the generated tree, and for make send the sender when
# set to something else than this placeholder (else git's user.name and
# user.email): the sender signs off every mail, and make send SEND=1
# refuses to mail as the placeholder.  See README.md, "Mailing".
PROJECT_NAME ?= Threadable IRQ Project
PROJECT_EMAIL ?= threadable-irq@example.org
# ccache outside the build dir, so a fresh clone on the same machine reuses it.
CCACHE_DIR ?= $(HOME)/.cache/irq-series-ccache
ACCEL ?= auto
# Every VM scenario except the benchmarks, the full stress run (BENCH=1,
# STRESS=1 in vm.conf) and the arm64 guest (GUEST_ARCH=arm64: make
# test-arm64, make stress).
SCENARIOS ?= $(patsubst selftests/%/vm.conf,%,$(shell grep -LE '^(BENCH|STRESS)=1|^GUEST_ARCH=arm64' selftests/*/vm.conf))
DEMO_SCENARIO ?= nvme-switch

export BUILD KERNEL_SRC KOUT PROJECT_NAME PROJECT_EMAIL CCACHE_DIR ACCEL

.PHONY: all demo deps tree export config kernel initramfs vmtest check test \
	bench bench-kernel stress stress-kernel stress-rt stress-lockdep stress-inject send cocci kunit vmtest-base clean distclean help \
	kernel-arm64 initramfs-arm64 test-arm64

all: demo

help:
	@sed -n 's/^#   //p' Makefile
	@echo "targets: deps tree export config kernel initramfs vmtest check test bench stress stress-lockdep send cocci kunit vmtest-base test-arm64 clean distclean"

# What make uses; make check, test-arm64, bench and send install their
# own on top (ci/deps.sh check|arm64|bench|send).
deps:
	ci/deps.sh

tree: deps
	ci/tree.sh

# Patches are edited as commits in the tree; this writes patches/ and series.
export:
	ci/export.sh

config: tree
	CONFIG_ONLY=1 ci/kernel.sh

kernel: tree
	ci/kernel.sh

initramfs: deps
	ci/initramfs.sh

# The demo: boot the patched kernel and show where the irq threads may run.
demo: kernel initramfs
	@rm -f $(BUILD)/results/vmtest.counts
	ci/vm.sh $(DEMO_SCENARIO)

vmtest: kernel initramfs
	@rm -f $(BUILD)/results/vmtest.counts
	ci/vm.sh $(SCENARIOS)

# The arm64 guest: QEMU virt with GICv3 and its ITS, under TCG.  Its kernel
# (cross-built, kconfig-fragments/arch/arm64.config) in $(BUILD)/arm64/obj,
# its initramfs from Debian's arm64 packages, and the arm64-its scenario.
# Not in make test (time); make stress boots it too.
kernel-arm64: tree
	ci/deps.sh arm64
	KARCH=arm64 KOUT=$(BUILD)/arm64/obj ci/kernel.sh

initramfs-arm64: deps
	ci/deps.sh arm64
	KARCH=arm64 ci/initramfs.sh

test-arm64: kernel-arm64 initramfs-arm64
	COUNTS=$(BUILD)/results-arm64/vmtest.counts LOGDIR=$(BUILD)/vm-arm64 ci/vm.sh arm64-its

# The mail set in build/mail, with a dry run; SEND=1 really sends.
send: tree
	ci/send.sh

# The KUnit suites with tools/testing/kunit/kunit.py run --arch=x86_64
# (a kernel of its own in build/kunit; not part of make test).
kunit: tree
	ci/kunit.sh

# Coccinelle alone (also a column of make check; ~2.5 min).
cocci:
	ci/cocci.sh

# Benchmarks: tables, not tests (build/bench/*.csv, *.svg).  The NVMe
# bench boots a kernel with bench-patches/ on top of the series.
bench: kernel bench-kernel initramfs
	ci/bench.sh

bench-kernel: tree
	ci/bench-kernel.sh

# The debug kernel (kconfig-fragments/debug/) in $(BUILD)/debug/obj, and the
# full stress scenario on it: 10,000 toggles under verified I/O, CPU
# hotplug, unbind/bind, e1000e under traffic, fuzz, kmemleak; then the
# PREEMPT_RT boot (STRESS_RT=0 leaves it out).
stress: kernel initramfs
	ci/stress.sh

stress-kernel: tree
	ci/stress.sh kernel

# The PREEMPT_RT kernel (kconfig-fragments/rt/) in $(BUILD)/rt/obj and the
# rt scenario on it (also the last boot of make stress).
stress-rt: tree initramfs
	ci/stress.sh rt

# The debug kernel booted with threadirqs: the serial port's action
# switched to hard mode carries 200 lines under PROVE_LOCKING (also a boot
# of make stress).
stress-lockdep: tree initramfs
	ci/stress.sh lockdep

# The stress run on the series plus the bug in stress-inject/: passes when
# the stress run catches it.
stress-inject: tree initramfs
	ci/stress.sh inject

check: config
	@rm -f $(BUILD)/results/check.counts $(BUILD)/results/check-selftest.counts
	@rc=0; . ci/lib.sh; \
	timed "make check: the series' checks (ci/check.sh)" ci/check.sh || rc=1; \
	timed "make check: checks of the checks (ci/test-checks.sh)" ci/test-checks.sh || rc=1; \
	exit $$rc

# Everything CI runs.  Each stage records its counts; the last line adds
# them up.  A failing stage does not hide the others' results.
test:
	@rm -rf $(BUILD)/results; mkdir -p $(BUILD)/results
	@rc=0; . ci/lib.sh; \
	timed "deps, tree, configuration" $(MAKE) --no-print-directory config || rc=1; \
	$(MAKE) --no-print-directory check || rc=1; \
	timed "kernel and initramfs" $(MAKE) --no-print-directory kernel initramfs || rc=1; \
	timed "make vmtest" $(MAKE) --no-print-directory vmtest || rc=1; \
	ci/summary.sh || rc=1; \
	exit $$rc

# The same VM scenario on the unpatched base: shows the test catches the
# missing feature (expected to fail).
vmtest-base: deps initramfs
	ci/base-kernel.sh
	KERNEL=$(BUILD)/obj-base/arch/x86/boot/bzImage COUNTS=$(BUILD)/results-base/vmtest.counts \
		LOGDIR=$(BUILD)/vm-base ci/vm.sh $(DEMO_SCENARIO)

clean:
	rm -rf $(KOUT) $(BUILD)/kunit $(BUILD)/obj-base $(BUILD)/debug $(BUILD)/rt $(BUILD)/vm-rt $(BUILD)/inject $(BUILD)/vm $(BUILD)/vm-base $(BUILD)/vm-stress $(BUILD)/vm-inject \
		$(BUILD)/results $(BUILD)/results-stress \
		$(BUILD)/initramfs.cpio

# Also removes the kernel tree: commits not exported with 'make export' are lost.
distclean:
	rm -rf $(BUILD)
