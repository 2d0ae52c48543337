#!/bin/bash
# Build the guest initramfs: Debian's busybox-static and fio (with the shared
# libraries it links), the guest init and the test scenarios from selftests/.
# Uncompressed cpio: unpacking is faster than decompressing under TCG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=${1:-$BUILD/initramfs.cpio}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

for b in /bin/busybox /usr/bin/fio; do
	[ -x "$b" ] || die "$b missing: run 'make deps'"
done
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root,selftests}
cp /bin/busybox "$root/bin/busybox"
# Every binary we copy brings the libraries ldd says it needs.
copy_with_libs() {
	local bin=$1 lib
	cp -L "$bin" "$root$bin"
	for lib in $(ldd "$bin" | awk '/=>/ { print $3 } /^\t\/.*ld-linux/ { print $1 }'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
copy_with_libs /usr/bin/fio
# The dynamic loader must also be where the ELF interpreter path says.
interp=$(readelf -l /usr/bin/fio | sed -n 's/.*interpreter: \(.*\)]/\1/p')
mkdir -p "$root$(dirname "$interp")"
[ -e "$root$interp" ] || cp -L "$interp" "$root$interp"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

cp -r "$TOP"/selftests/. "$root/selftests/"
# Small guest tools (selftests/guest/*.c), static.
for c in "$TOP"/selftests/guest/*.c; do
	[ -e "$c" ] || continue
	gcc -static -O2 -Wall -Werror -o "$root/usr/bin/$(basename "$c" .c)" "$c" ||
		die "building guest tool $c failed"
done

# The series' kselftests, built statically from the kernel tree.
KSFT_TARGETS=${KSFT_TARGETS:-irq}
for t in $KSFT_TARGETS; do
	src=$KTREE/tools/testing/selftests/$t
	if [ ! -d "$src" ]; then
		note "kselftest $t: not in $KTREE (series not applied?), left out"
		continue
	fi
	out=$BUILD/kselftest/$t
	mkdir -p "$out"
	make -s -C "$src" OUTPUT="$out" LDFLAGS=-static >"$out.log" 2>&1 ||
		{ cat "$out.log" >&2; die "building kselftest $t failed"; }
	mkdir -p "$root/kselftests/$t"
	find "$out" -maxdepth 1 -type f -executable -exec cp {} "$root/kselftests/$t/" \;
	[ -f "$src/settings" ] && cp "$src/settings" "$root/kselftests/$t/"
done
install -m 755 "$TOP/selftests/guest/init" "$root/init"

mkdir -p "$(dirname "$OUT")"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
note "initramfs: $OUT ($(du -h "$OUT" | cut -f1))"
