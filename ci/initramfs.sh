#!/bin/bash
# Build the guest initramfs: Debian's busybox-static and fio (with the shared
# libraries it links), the guest init and the test scenarios from selftests/.
# Uncompressed cpio: unpacking is faster than decompressing under TCG.
#
#   KARCH=arm64 ci/initramfs.sh   the arm64 guest's ($BUILD/initramfs-arm64.cpio):
#       Debian's arm64 busybox-static and fio with the packages of the
#       libraries fio links (ci/deps.sh arm64 downloads them, apt-get
#       download + dpkg-deb -x into $DEPS/arm64-root, nothing installed),
#       and the guest tools and kselftests cross-built statically.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
karch_env

if [ "$KARCH" = x86_64 ]; then OUT=${1:-$BUILD/initramfs.cpio}
else OUT=${1:-$BUILD/initramfs-$KARCH.cpio}; fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

# Where the guest's userland comes from: the host itself, or the unpacked
# packages of the other architecture.
if [ "$KARCH" = x86_64 ]; then
	src=
	READELF=readelf
else
	src=$DEPS/$KARCH-root
	READELF=${CROSS_COMPILE}readelf
	[ -f "$src/.complete" ] || die "no $KARCH userland in $src: run 'ci/deps.sh $KARCH'"
fi
for b in /bin/busybox /usr/bin/fio; do
	[ -x "$src$b" ] || die "$src$b missing: run 'make deps'"
done
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root,selftests}
cp "$src/bin/busybox" "$root/bin/busybox"
# lib_dirs: where the loader looks, in $src.
lib_dirs=(/lib/$(${CROSS_COMPILE}gcc -print-multiarch) /usr/lib/$(${CROSS_COMPILE}gcc -print-multiarch) /lib /usr/lib)
# Every binary we copy brings the libraries it needs (DT_NEEDED, followed
# through the libraries themselves), from the same root.
copy_with_libs() {
	local bin=$1 lib d found dirs
	[ -e "$root$bin" ] && return 0
	mkdir -p "$root$(dirname "$bin")"
	cp -L "$src$bin" "$root$bin"
	# its RUNPATH first (librados finds libceph-common in .../ceph)
	dirs=($($READELF -d "$src$bin" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' |
		sed "s|\$ORIGIN|$(dirname "$bin")|g" | tr ':' ' ') "${lib_dirs[@]}")
	for lib in $($READELF -d "$src$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		found=
		for d in "${dirs[@]}"; do
			if [ -e "$src$d/$lib" ]; then copy_with_libs "$d/$lib"; found=1; break; fi
		done
		[ -n "$found" ] || die "$bin needs $lib, which is not in $src${lib_dirs[*]}"
	done
}
copy_with_libs /usr/bin/fio
# The dynamic loader must also be where the ELF interpreter path says.
interp=$($READELF -l "$src/usr/bin/fio" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
[ -n "$interp" ] || die "no ELF interpreter in $src/usr/bin/fio"
mkdir -p "$root$(dirname "$interp")"
[ -e "$root$interp" ] || cp -L "$src$interp" "$root$interp"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

cp -r "$TOP"/selftests/. "$root/selftests/"
# Small guest tools (selftests/guest/*.c), static.
for c in "$TOP"/selftests/guest/*.c; do
	[ -e "$c" ] || continue
	"${CROSS_COMPILE}gcc" -static -O2 -Wall -Werror -o "$root/usr/bin/$(basename "$c" .c)" "$c" ||
		die "building guest tool $c failed"
done

# The series' kselftests, built statically from the kernel tree: the irq
# tests.  (The net fix's test is a Python one, below.)
KSFT_TARGETS=${KSFT_TARGETS:-irq}
for t in $KSFT_TARGETS; do
	ksrc=$KTREE/tools/testing/selftests/$t
	if [ ! -d "$ksrc" ]; then
		note "kselftest $t: not in $KTREE (series not applied?), left out"
		continue
	fi
	out=$BUILD/kselftest/$t${CROSS_COMPILE:+-$KARCH}
	mkdir -p "$out"
	make -s -C "$ksrc" OUTPUT="$out" LDFLAGS=-static ${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE ARCH=$KARCH} >"$out.log" 2>&1 ||
		{ cat "$out.log" >&2; die "building kselftest $t failed"; }
	mkdir -p "$root/kselftests/$t"
	find "$out" -maxdepth 1 -type f -executable -exec cp {} "$root/kselftests/$t/" \;
	# Shell tests (TEST_PROGS) and the KTAP helpers they source
	find "$ksrc" -maxdepth 1 -type f -name '*.sh' -perm -u+x -exec cp {} "$root/kselftests/$t/" \;
	mkdir -p "$root/kselftests/kselftest"
	cp "$KTREE/tools/testing/selftests/kselftest/ktap_helpers.sh" "$root/kselftests/kselftest/"
	[ -f "$ksrc/settings" ] && cp "$ksrc/settings" "$root/kselftests/$t/"
done
# The netdev Python kselftests (tools/testing/selftests/net/lib/py), x86
# only: Debian's python3 with its standard library (less its tests, GUI
# and build files), PyYAML (the YNL library reads its specs with it),
# iproute2's ip in /usr/sbin (lib/py parses 'ip -j'; busybox's ip stays
# first in PATH for the other scripts), and the tests with lib/py, the YNL
# library and the netlink specs in the kernel tree's layout under /ksrc,
# where lib/py finds them.  The guest has no udev: its udevadm, which
# NetdevSimDev calls to settle, has nothing to wait for.
PY_TESTS=${PY_TESTS:-net/napi_threaded_down.py}
if [ "$KARCH" = x86_64 ]; then
	py=$(readlink -f /usr/bin/python3)
	pylib=/usr/lib/$(basename "$py")
	[ -d "$pylib" ] && [ -d /usr/lib/python3/dist-packages/yaml ] && [ -x /usr/sbin/ip ] ||
		die "python3, python3-yaml or iproute2 missing: run 'make deps'"
	copy_with_libs "$py"
	ln -s "$(basename "$py")" "$root/usr/bin/python3"
	# the tests' "#!/usr/bin/env python3" (busybox installs its applets in /bin)
	ln -s /bin/busybox "$root/usr/bin/env"
	for so in "$pylib"/lib-dynload/*.so; do copy_with_libs "$so"; done
	tar -C / --exclude=__pycache__ --exclude="${pylib#/}"/{test,idlelib,tkinter,turtledemo,ensurepip,lib2to3,pydoc_data,distutils,site-packages,dist-packages,lib-dynload} \
		--exclude="${pylib#/}/config-*" -cf - "${pylib#/}" | tar -C "$root" -xf -
	mkdir -p "$root/usr/lib/python3/dist-packages"
	cp -r /usr/lib/python3/dist-packages/yaml "$root/usr/lib/python3/dist-packages/"
	copy_with_libs /usr/sbin/ip
	printf '#!/bin/sh\n# No udev in the test guest: nothing to settle.\nexit 0\n' >"$root/usr/sbin/udevadm"
	chmod 755 "$root/usr/sbin/udevadm"
	ks=$root/ksrc/tools/testing/selftests
	mkdir -p "$ks/net" "$root/ksrc/tools/net/ynl" "$root/ksrc/Documentation/netlink"
	cp -r "$KTREE/tools/testing/selftests/net/lib" "$ks/net/"
	cp -r "$KTREE/tools/net/ynl/pyynl" "$root/ksrc/tools/net/ynl/"
	cp -r "$KTREE/Documentation/netlink/specs" "$root/ksrc/Documentation/netlink/"
	for t in $PY_TESTS; do
		if [ -f "$KTREE/tools/testing/selftests/$t" ]; then
			install -m 755 "$KTREE/tools/testing/selftests/$t" "$ks/$t"
		else
			note "Python kselftest $t: not in $KTREE (series not applied?), left out"
		fi
	done
	find "$root/ksrc" -name __pycache__ -prune -exec rm -rf {} +
fi
install -m 755 "$TOP/selftests/guest/init" "$root/init"

mkdir -p "$(dirname "$OUT")"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
note "initramfs: $OUT ($(du -h "$OUT" | cut -f1))"
