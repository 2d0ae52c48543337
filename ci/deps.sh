#!/bin/bash
# Install the Debian packages a target needs; skip what is present.
#
#   ci/deps.sh          what 'make' (the demo) and 'make vmtest' use: the
#                       compiler and kernel build tools, QEMU for x86_64,
#                       busybox, fio, python3 with PyYAML and iproute2 for
#                       the guest, and the kernel base
#   ci/deps.sh check    also the checkers and the cross columns of 'make
#                       check': sparse (built from sid's source, below),
#                       Coccinelle, pahole, python3-ply and python3-git
#                       (checkpatch's spdxcheck.py), and the arm64 and
#                       powerpc cross compilers
#   ci/deps.sh arm64    also the arm64 guest ('make test-arm64', 'make
#                       stress'): the arm64 cross compiler, qemu-system-arm,
#                       and its userland (below)
#   ci/deps.sh bench    also gnuplot for the benchmark plots
#   ci/deps.sh send     also git send-email and b4
#
# Every target's script asks for its group itself, so a script run by hand
# installs what it needs too.
#
# The kernel base is Debian's linux-source-7.3 from trixie-backports.  It is
# fetched with a side apt configuration ($DEPS/apt: its own sources list,
# package lists and cache) and unpacked with dpkg-deb -x into $DEPS: nothing
# of the system's apt sources changes and no other package is upgraded.
# Sparse: 7.3's scripts/checker-valid.sh refuses Debian 12's sparse 0.6.4
# ("sparse is not available or not up to date", and C=1 then checks
# nothing), so sid's 0.6.5~rc1 source package is built into $DEPS/sparse.
#
# The arm64 userland: Debian 12's arm64 busybox-static and fio, and the
# packages of the libraries fio links, fetched with a side apt
# configuration for arm64 and unpacked with dpkg-deb -x into
# $DEPS/arm64-root (nothing is installed)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

group=${1:-base}
PKGS=(build-essential gcc make git perl python3 xz-utils binutils
	flex bison bc libelf-dev libssl-dev cpio rsync ccache kmod dpkg-dev
	qemu-system-x86 busybox-static fio python3-yaml iproute2)
case $group in
base) ;;
check) PKGS+=(dwarves coccinelle python3-ply python3-git libxml2-dev pkg-config
	gcc-aarch64-linux-gnu gcc-powerpc64-linux-gnu) ;;
arm64) PKGS+=(gcc-aarch64-linux-gnu qemu-system-arm) ;;
bench) PKGS+=(gnuplot-nox) ;;
send) PKGS+=(git-email b4) ;;
*) die "usage: ci/deps.sh [check|arm64|bench|send]" ;;
esac
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
if [ ${#missing[@]} = 0 ]; then
	note "deps ($group): all ${#PKGS[@]} packages present"
else
	note "deps ($group): installing ${missing[*]}"
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

# The side apt configuration: trixie-backports for the kernel source, sid's
# sources for sparse.  Only 'download' and 'source --download-only' use it.
APT=$DEPS/apt
side_apt() {
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
	cat >"$APT/sources.list" <<-EOF
	deb http://deb.debian.org/debian trixie-backports main
	deb-src http://deb.debian.org/debian sid main
	EOF
	APT_OPTS=(-o Dir::Etc::SourceList="$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache"
		-o Dir::State::status=/var/lib/dpkg/status -o Debug::NoLocking=1
		-o APT::Sandbox::User=root)
	if [ ! -f "$APT/updated" ]; then
		note "deps: apt-get update of the side sources (trixie-backports, sid deb-src)"
		apt-get "${APT_OPTS[@]}" update -q >"$APT/update.log" 2>&1 ||
			{ cat "$APT/update.log" >&2; die "apt-get update of the side sources failed"; }
		touch "$APT/updated"
	fi
}

if [ ! -f "$BASE_TARBALL" ]; then
	side_apt
	mkdir -p "$DEPS/deb"
	note "deps: downloading $BASE_PKG=$BASE_VERSION from trixie-backports"
	(cd "$DEPS/deb" && apt-get "${APT_OPTS[@]}" download -q "$BASE_PKG=$BASE_VERSION") ||
		die "could not download $BASE_PKG=$BASE_VERSION (see 'apt-cache policy $BASE_PKG' with the side sources in $APT)"
	rm -rf "$DEPS/deb/x"
	dpkg-deb -x "$DEPS/deb/${BASE_PKG}_${BASE_VERSION}_all.deb" "$DEPS/deb/x"
	mv "$DEPS/deb/x/usr/src/$BASE_PKG.tar.xz" "$BASE_TARBALL.tmp"
	echo "$BASE_VERSION" >"$BASE_TARBALL.version"
	mv "$BASE_TARBALL.tmp" "$BASE_TARBALL"
	rm -rf "$DEPS/deb"
fi
note "deps: base $BASE_TARBALL ($(cat "$BASE_TARBALL.version"))"

[ "$group" = check ] || [ "$group" = arm64 ] || exit 0
if [ "$group" = check ] && ! "$SPARSE" --version >/dev/null 2>&1; then
	side_apt
	rm -rf "$DEPS/sparse-src"
	mkdir -p "$DEPS/sparse-src"
	note "deps: building sparse $SPARSE_VERSION from sid's source package"
	(cd "$DEPS/sparse-src" && apt-get "${APT_OPTS[@]}" source -q --download-only "sparse=$SPARSE_VERSION" >/dev/null &&
		dpkg-source -x --no-check ./*.dsc src >/dev/null &&
		make -s -C src -j"$JOBS" CC=gcc sparse >build.log 2>&1) ||
		die "could not build sparse $SPARSE_VERSION (log: $DEPS/sparse-src/build.log)"
	mkdir -p "$(dirname "$SPARSE")"
	cp "$DEPS/sparse-src/src/sparse" "$SPARSE"
	rm -rf "$DEPS/sparse-src"
fi
[ "$group" = check ] &&
	note "deps: sparse $SPARSE_VERSION from sid's source ($SPARSE; it reports $("$SPARSE" --version))"

[ "$group" = arm64 ] || exit 0
# The arm64 userland, once per machine.
aroot=$DEPS/arm64-root
if [ ! -f "$aroot/.complete" ]; then
	A=$DEPS/apt-arm64
	mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/deb"
	echo "deb [arch=arm64] http://deb.debian.org/debian bookworm main" >"$A/sources.list"
	AOPTS=(-o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$A/lists" -o Dir::Cache="$A/cache" -o Dir::State::status=/dev/null
		-o Debug::NoLocking=1 -o APT::Architecture=arm64 -o APT::Architectures::=arm64
		-o APT::Sandbox::User=root)
	note "deps: apt-get update of bookworm's arm64 package lists (side configuration)"
	apt-get "${AOPTS[@]}" update -q >"$A/update.log" 2>&1 ||
		{ cat "$A/update.log" >&2; die "apt-get update for arm64 failed"; }
	# fio, busybox-static and the library packages of their dependency
	# closure (not perl, python or PAM: fio links none of them).
	mapfile -t apkgs < <(apt-cache "${AOPTS[@]}" depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances fio busybox-static 2>/dev/null |
		grep -E '^(lib[a-z0-9].*|zlib1g|fio|busybox-static)$' | grep -vE '^lib(perl|python|pam)' | sort -u)
	note "deps: downloading ${#apkgs[@]} arm64 packages (fio, busybox-static, libraries)"
	(cd "$A/deb" && apt-get "${AOPTS[@]}" download -q "${apkgs[@]}" >"$A/download.log" 2>&1) ||
		{ tail -20 "$A/download.log" >&2; die "apt-get download of the arm64 packages failed"; }
	rm -rf "$aroot.tmp"; mkdir -p "$aroot.tmp"
	for d in "$A"/deb/*.deb; do dpkg-deb -x "$d" "$aroot.tmp"; done
	ls "$A"/deb/*.deb | sed 's|.*/||' >"$aroot.tmp/.packages"
	touch "$aroot.tmp/.complete"
	rm -rf "$aroot" "$A/deb"; mv "$aroot.tmp" "$aroot"
fi
note "deps: arm64 userland in $aroot ($(wc -l <"$aroot/.packages") packages: $(grep -E '^(fio|busybox-static)_' "$aroot/.packages" | tr '\n' ' '))"
