#!/bin/bash
# make stress: build the debug kernel (the guest fragments plus
# kconfig-fragments/debug/*.config: lockdep, KASAN, kmemleak, ...) in its
# own output directory and boot the full stress scenario on it.
#
#   ci/stress.sh            build if needed, boot, print the counts
#   ci/stress.sh kernel     only build the debug kernel
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DEBUG_KOUT=${DEBUG_KOUT:-$BUILD/debug/obj}
SCENARIO=${STRESS_SCENARIO:-stress}

start=$(date +%s)
KOUT=$DEBUG_KOUT EXTRA_FRAGMENTS="$(ls "$TOP"/kconfig-fragments/debug/*.config | tr '\n' ' ')" \
	"$TOP/ci/kernel.sh"
note "debug kernel ready after $(($(date +%s) - start)) s"
[ "${1:-}" = kernel ] && exit 0

rc=0
KERNEL=$DEBUG_KOUT/arch/x86/boot/bzImage LOGDIR=$BUILD/vm-stress \
	COUNTS=$BUILD/results-stress/vmtest.counts "$TOP/ci/vm.sh" "$SCENARIO" || rc=1
tap=$BUILD/vm-stress/$SCENARIO/tap.txt
echo "=== stress counts (from $tap):"
sed -n 's/^# stress counts: //p' "$tap" | tr ' ' '\n' | grep . | sed 's/^/    /' ||
	echo "    none: the guest did not get to the end (see above)"
echo "=== make stress: $([ $rc = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
exit $rc
