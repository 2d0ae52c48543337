#!/bin/bash
# Install the Debian packages the project needs; skip what is present.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(linux-source-6.12 build-essential gcc make git perl python3 xz-utils
	flex bison bc libelf-dev libssl-dev cpio rsync ccache kmod
	qemu-system-x86 busybox-static fio sparse coccinelle b4 python3-ply git-email gnuplot-nox)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	note "deps: all ${#PKGS[@]} packages present"
	exit 0
fi
note "deps: installing ${missing[*]}"
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
