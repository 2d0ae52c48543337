#!/bin/bash
# scripts/kernel-doc -none -Wall on the C files and headers a patch touches,
# as they are after the patch (in the tree at the patch's commit); fails on
# a warning that was not there before the patch (kernel-doc reports per
# comment; line numbers are dropped for the comparison).
#   ci/kerneldoc.sh N...     patch numbers (default: all)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
mapfile -t commits < <(git -C "$KTREE" rev-list --reverse "$BASE_REF..HEAD")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
want=("$@") bad=0 n=0
: >"$BUILD/check/kerneldoc.result" 2>/dev/null || { mkdir -p "$BUILD/check"; : >"$BUILD/check/kerneldoc.result"; }

kdoc_at() { # kdoc_at COMMIT FILE DIR -> warnings, line numbers dropped
	local c=$1 f=$2 d=$tmp/$3
	mkdir -p "$d"
	git -C "$KTREE" show "$c:$f" >"$d/$(basename "$f")" 2>/dev/null || return 0
	# 7.3's kernel-doc is Python ("Warning: file.c:123 ..."), older ones
	# Perl ("file.c:123: warning: ..."): drop the line number of both.
	(cd "$d" && "$KTREE/scripts/kernel-doc" -none -Wall "$(basename "$f")" 2>&1) |
		sed -E 's/:[0-9]+:/:/; s/^(Warning: [^ :]+):[0-9]+ /\1 /' | sort -u
}

for c in "${commits[@]}"; do
	n=$((n + 1))
	[ ${#want[@]} = 0 ] || [[ " ${want[*]} " == *" $n "* ]] || continue
	new=
	for f in $(git -C "$KTREE" show --format= --name-only "$c" | grep -E '\.[ch]$' | grep -v '^tools/'); do
		added=$(comm -13 <(kdoc_at "$c^" "$f" before) <(kdoc_at "$c" "$f" after))
		[ -z "$added" ] || new+="$added"$'\n'
	done
	if [ -n "$new" ]; then
		patch_result "$BUILD/check/kerneldoc.result" $n "$c" FAIL "$new"; bad=$((bad + 1))
	else
		patch_result "$BUILD/check/kerneldoc.result" $n "$c" ok
	fi
done
echo "kernel-doc -Wall: $bad patches add warnings"
[ $bad = 0 ]
