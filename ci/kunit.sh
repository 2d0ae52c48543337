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
note "kunit.py run --arch=x86_64 (4 CPUs) in $BUILD/kunit"
cd "$KTREE"
exec ./tools/testing/kunit/kunit.py run --arch=x86_64 --build_dir="$BUILD/kunit" \
	--jobs="$JOBS" "${cc[@]}" --qemu_args='-smp 4' \
	--kunitconfig="$TOP/kconfig-fragments/kunitconfig" --timeout=900
