#!/bin/bash
# Add up the results of the stages that ran (build/results/*.counts, each
# "passed failed skipped") and print the closing line.  Exit 1 on any failure
# or when no stage recorded a result.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

p=0 f=0 s=0 n=0
for c in "$BUILD"/results/*.counts; do
	[ -f "$c" ] || continue
	read -r cp cf cs <"$c"
	printf '  %-12s %3d passed, %d failed, %d skipped\n' "$(basename "$c" .counts)" "$cp" "$cf" "$cs"
	p=$((p + cp)) f=$((f + cf)) s=$((s + cs)) n=$((n + 1))
done
[ $n -gt 0 ] || { echo "0 passed, 1 failed (no stage recorded any result)"; exit 1; }
if [ -s "$BUILD/results/times" ]; then
	echo "time, minutes (stages in the order they ended):"
	awk '{ t = $1; sub(/^[0-9]+ /, ""); printf "  %5.1f  %s\n", t / 60, $0 }' "$BUILD/results/times"
fi
echo "$p passed, $f failed, $s skipped"
[ $f = 0 ]
