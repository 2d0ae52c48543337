#!/bin/bash
# The series' KUnit suites the way genirq's maintainers run KUnit:
#   tools/testing/kunit/kunit.py run --arch=x86_64
# with the kunitconfig in kconfig-fragments/kunitconfig, in QEMU with 4
# CPUs (some cases need 2 or 3), build directory $BUILD/kunit.  Not part of
# 'make test': it builds a kernel of its own.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -x "$KTREE/tools/testing/kunit/kunit.py" ] || die "no kunit.py in $KTREE: run 'make tree'"
mkdir -p "$BUILD/kunit"
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
cc=(); command -v ccache >/dev/null && cc=(--make_options "CC=ccache gcc")
# kunit.py asks QEMU for "-accel kvm -accel hvf -accel tcg", and QEMU takes
# the first that starts.  /dev/kvm served by kvm_pvm starts, and a stock
# kernel then hangs after the option ROM: put a qemu-system-x86_64 first in
# PATH that drops the kvm accelerator there (as ci/vm.sh uses TCG).
if [ -d /sys/module/kvm_pvm ]; then
	wrap=$BUILD/kunit/qemu-tcg
	mkdir -p "$wrap"
	real=$(command -v qemu-system-x86_64) || die "no qemu-system-x86_64: run 'make deps'"
	cat >"$wrap/qemu-system-x86_64" <<EOF2
#!/bin/sh
# Written by ci/kunit.sh: kunit.py's QEMU without the kvm accelerator.
n=\$#
while [ \$n -gt 0 ]; do
	a=\$1; shift; n=\$((n - 1))
	if [ "\$a" = -accel ] && [ "\$1" = kvm ]; then shift; n=\$((n - 1)); continue; fi
	set -- "\$@" "\$a"
done
exec $real "\$@"
EOF2
	chmod +x "$wrap/qemu-system-x86_64"
	export PATH=$wrap:$PATH
	note "/dev/kvm is kvm_pvm (PVM guests only): kunit.py's QEMU runs with TCG"
fi
# tsc=reliable: a KUnit case floods one vCPU with hard interrupts, and
# under TCG the clocksource watchdog then finds the TSC unstable and
# switches the clocksource in the middle of the timed cases.
note "kunit.py run --arch=x86_64 (4 CPUs, tsc=reliable) in $BUILD/kunit"
cd "$KTREE"
exec ./tools/testing/kunit/kunit.py run --arch=x86_64 --build_dir="$BUILD/kunit" \
	--jobs="$JOBS" "${cc[@]}" --qemu_args='-smp 4' \
	--kernel_args=tsc=reliable \
	--kunitconfig="$TOP/kconfig-fragments/kunitconfig" --timeout=900
