#!/bin/bash
# Benchmarks, printed as tables and written as CSV under build/bench/.
# Not tests: numbers from one boot, compared side by side as ratios.
#
#   irq-round-trip   KUnit case bench_round_trip on the fake chip: round trip
#                    of an interrupt raised on another CPU, hard vs threaded
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/bench
mkdir -p "$out"
LOGDIR=$BUILD/vm-bench COUNTS=$BUILD/bench/.counts "$TOP/ci/vm.sh" bench-irq >"$out/bench-irq.log" 2>&1 ||
	{ tail -30 "$out/bench-irq.log"; die "the bench-irq boot failed (log: $out/bench-irq.log)"; }
sed -n 's/.*# bench_round_trip: bench: //p' "$BUILD/vm-bench/bench-irq/console.log" | tr -d '\r' >"$out/irq-round-trip.csv"
[ "$(wc -l <"$out/irq-round-trip.csv")" -ge 3 ] || die "no benchmark lines in $BUILD/vm-bench/bench-irq/console.log"
accel=$(sed -n 's/.*(\([0-9]*s\), \([a-z]*\))$/\2/p' "$out/bench-irq.log" | tail -1)
echo "Interrupt round trip on the fake chip (raised on another CPU until handled), one boot, ${accel:-?}:"
awk -F, '{ printf "  %-10s %-11s %-11s %s\n", $1, $2, $3, $4 }' "$out/irq-round-trip.csv"
echo "CSV: $out/irq-round-trip.csv"
