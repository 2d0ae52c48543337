#!/bin/bash
# The net fix goes to net on its own, with its netdevsim support and its
# selftest: those patches (chosen by subject) must apply to the base
# without the rest of the series, in series order, and there must be
# exactly three of them.
#   ci/net-fix-alone.sh [DIR]   DIR holds the patches and their series
#                               file (default: the project's)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

dir=${1:-$TOP}
BASE_REF=refs/irq-series/base
NET_FIX_RE='^Subject: \[PATCH[^]]*\] (net: don'"'"'t wait for a disabled NAPI|netdevsim: |selftests: net: test turning threaded NAPI)'
pdir=$dir/patches
[ -d "$pdir" ] || pdir=$dir
idx=$(mktemp); trap 'rm -f "$idx"' EXIT
GIT_INDEX_FILE=$idx git -C "$KTREE" read-tree "$BASE_REF" || die "no $BASE_REF in $KTREE"
n=0
while read -r p; do
	grep -qE "$NET_FIX_RE" "$pdir/$p" || continue
	n=$((n + 1))
	if ! GIT_INDEX_FILE=$idx git -C "$KTREE" apply --cached "$pdir/$p"; then
		echo "FAIL: $p does not apply to the base after the net patches before it"
		exit 1
	fi
	echo "applies alone: $p"
done < <(grep -v '^#' "$dir/series")
[ $n = 3 ] || { echo "FAIL: found $n of the 3 net patches (subjects: $NET_FIX_RE)"; exit 1; }
