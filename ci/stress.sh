#!/bin/bash
# make stress: build the debug kernel (the guest fragments plus
# kconfig-fragments/debug/*.config: lockdep, KASAN, kmemleak, ...) in its
# own output directory and boot the stress scenario on it (counts that fit
# the debug kernel), then the same scenario with the full counts (10,000
# toggles) on the test kernel ($KOUT; STRESS_FULL_SCENARIO= skips it).
#
#   ci/stress.sh            build if needed, boot, print the counts
#   ci/stress.sh kernel     only build the debug kernel
#   ci/stress.sh inject     the same run on the series plus the bugs in
#                           stress-inject/*.patch (a git worktree in
#                           $BUILD/inject/linux): passes when the stress run
#                           FAILS, and prints what caught the bug
#   ci/stress.sh inject-kernel   only build that kernel
#   ci/stress.sh rt         the PREEMPT_RT kernel (kconfig-fragments/rt/, in
#                           $BUILD/rt/obj) and the rt scenario on it: nothing
#                           switches, I/O raises no splat ('make stress'
#                           runs it after the two stress boots)
#   ci/stress.sh rt-kernel  only build the RT kernel
#   ci/stress.sh arm64      the arm64 kernel and initramfs and the arm64-its
#                           scenario ('make stress' runs it last;
#                           STRESS_ARM64=0 leaves it out)
#   ci/stress.sh lockdep    the debug kernel and only the lockdep-threadirqs
#                           scenario on it: threadirqs, the serial port's
#                           action switched to hard mode carries 200 lines
#                           under PROVE_LOCKING ('make stress' runs it after
#                           the debug boot)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SCENARIO=${STRESS_SCENARIO:-stress}
mode=${1:-run}
case $mode in run | kernel | inject | inject-kernel | rt | rt-kernel | arm64 | lockdep) ;;
*) die "usage: ci/stress.sh [kernel|inject|inject-kernel|rt|rt-kernel|arm64|lockdep]" ;; esac
start=$(date +%s)

# rt_boot: build the PREEMPT_RT kernel and boot selftests/rt on it.
rt_boot() {
	local rkout=$BUILD/rt/obj r=0
	KOUT=$rkout EXTRA_FRAGMENTS="$(ls "$TOP"/kconfig-fragments/rt/*.config | tr '\n' ' ')" \
		"$TOP/ci/kernel.sh" || return 1
	note "PREEMPT_RT kernel ready after $(($(date +%s) - start)) s"
	[ "$mode" = rt-kernel ] && return 0
	KERNEL=$rkout/arch/x86/boot/bzImage LOGDIR=$BUILD/vm-rt \
		COUNTS=$BUILD/results-stress/rt.counts "$TOP/ci/vm.sh" rt 2>&1 | tee "$BUILD/vm-rt.log" || r=1
	return $r
}
# arm64_boot: the arm64 guest (GICv3 ITS) as 'make test-arm64' runs it.
arm64_boot() {
	local r=0
	"$TOP/ci/deps.sh" arm64 || return 1
	KARCH=arm64 KOUT=$BUILD/arm64/obj "$TOP/ci/kernel.sh" || return 1
	KARCH=arm64 "$TOP/ci/initramfs.sh" || return 1
	note "arm64 kernel and initramfs ready after $(($(date +%s) - start)) s"
	LOGDIR=$BUILD/vm-arm64 COUNTS=$BUILD/results-stress/arm64.counts \
		"$TOP/ci/vm.sh" arm64-its 2>&1 | tee "$BUILD/vm-arm64.log" || r=1
	return $r
}
if [ "$mode" = arm64 ]; then
	rc=0; arm64_boot || rc=1
	echo "=== make stress (arm64): $([ $rc = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
	exit $rc
fi
if [ "${mode%-kernel}" = rt ]; then
	rc=0; rt_boot || rc=1
	echo "=== make stress ($mode): $([ $rc = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
	exit $rc
fi

if [ "${mode%-kernel}" = inject ]; then
	# Laid out like $BUILD/linux and $BUILD/debug/obj, so that ccache
	# (CCACHE_BASEDIR) reuses the debug build's objects.
	wt=$BUILD/inject/linux
	head=$(git -C "$KTREE" rev-parse HEAD)
	mkdir -p "$BUILD/inject"
	if [ ! -e "$wt/.git" ]; then
		rm -rf "$wt"
		git -C "$KTREE" worktree prune
		git -C "$KTREE" worktree add -q --detach "$wt" "$head"
	fi
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q --detach "$head"
	n=0
	for p in "$TOP"/stress-inject/*.patch; do
		[ -f "$p" ] || continue
		GIT_COMMITTER_NAME=$PROJECT_NAME GIT_COMMITTER_EMAIL=$PROJECT_EMAIL \
			git -C "$wt" am -q --keep-cr "$p" || die "$(basename "$p") does not apply on the series"
		note "injected: $(basename "$p")"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || die "no stress-inject/*.patch to inject"
	export KTREE=$wt
	DEBUG_KOUT=$BUILD/inject/debug/obj
	LOGDIR=$BUILD/vm-inject
	# The same counts as the debug boot of 'make stress' (which passes
	# without the bug), unless STRESS_INJECT_KARGS overrides them.
	export KARGS_EXTRA=${STRESS_INJECT_KARGS:-}
else
	DEBUG_KOUT=${DEBUG_KOUT:-$BUILD/debug/obj}
	LOGDIR=$BUILD/vm-stress
fi

KOUT=$DEBUG_KOUT EXTRA_FRAGMENTS="$(ls "$TOP"/kconfig-fragments/debug/*.config | tr '\n' ' ')" \
	"$TOP/ci/kernel.sh"
note "debug kernel ready after $(($(date +%s) - start)) s"
case $mode in *kernel) exit 0 ;; esac

# counts TAPFILE: the counts the guest printed at its end.
counts() {
	sed -n 's/^# stress counts: //p' "$1" | tr ' ' '\n' | grep . | sed 's/^/    /' ||
		echo "    none: the guest did not get to the end (see above)"
}
# lockdep_boot: threadirqs on the debug kernel, the serial port switched
# to hard mode under PROVE_LOCKING (selftests/lockdep-threadirqs).
lockdep_boot() {
	KERNEL=$DEBUG_KOUT/arch/x86/boot/bzImage LOGDIR=$LOGDIR \
		"$TOP/ci/vm.sh" lockdep-threadirqs 2>&1 | tee "$LOGDIR-lockdep.log"
}
rc=0
if [ "$mode" = lockdep ]; then
	lockdep_boot || rc=1
	echo "=== make stress (lockdep): $([ $rc = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
	exit $rc
fi
KERNEL=$DEBUG_KOUT/arch/x86/boot/bzImage LOGDIR=$LOGDIR \
	COUNTS=$BUILD/results-stress/$mode.counts "$TOP/ci/vm.sh" "$SCENARIO" 2>&1 | tee "$LOGDIR.log" || rc=1
echo "=== stress counts, debug kernel ($SCENARIO):"
counts "$LOGDIR/$SCENARIO/tap.txt"
if [ "$mode" = run ]; then
	lockdep_boot || rc=1
fi
# The full counts on the test kernel (a second boot; not for inject).
if [ "$mode" = run ] && [ -n "${STRESS_FULL_SCENARIO-stress-10k}" ]; then
	full=${STRESS_FULL_SCENARIO:-stress-10k}
	[ -f "$KOUT/arch/x86/boot/bzImage" ] || die "no test kernel at $KOUT: run 'make kernel'"
	LOGDIR=$LOGDIR COUNTS=$BUILD/results-stress/full.counts "$TOP/ci/vm.sh" "$full" 2>&1 |
		tee "$LOGDIR-full.log" || rc=1
	echo "=== stress counts, test kernel ($full):"
	counts "$LOGDIR/$full/tap.txt"
fi
# The PREEMPT_RT boot (not for inject).
if [ "$mode" = run ] && [ "${STRESS_RT:-1}" = 1 ]; then
	rt_boot || rc=1
fi
# The arm64 boot (not for inject).
if [ "$mode" = run ] && [ "${STRESS_ARM64:-1}" = 1 ]; then
	arm64_boot || rc=1
fi
secs=$(($(date +%s) - start))
if [ "${mode%-kernel}" = inject ]; then
	if [ $rc = 0 ]; then
		echo "=== make stress-inject: FAILED: the stress run passed with the injected bug (${secs} s)"
		exit 1
	fi
	echo "=== make stress-inject: passed: the stress run caught the injected bug (${secs} s); what failed:"
	grep -E '^ +not ok|^  \| ' "$LOGDIR.log" | head -40 || true
	grep -h -A5 'EXPECTATION FAILED' "$LOGDIR"/*/console.log 2>/dev/null | head -20 || true
	exit 0
fi
echo "=== make stress: $([ $rc = 0 ] && echo passed || echo FAILED) in ${secs} s"
exit $rc
