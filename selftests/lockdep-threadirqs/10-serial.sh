#!/bin/sh
# threadirqs + PROVE_LOCKING: switch the serial port's force threaded
# action to hard irq mode, send 200 lines through the port, and switch it
# back.  The host's splat gate fails the boot on any splat ("Invalid wait
# context", "lockdep is turned off"); here lockdep must still be on at the
# end, and the port's interrupt must have fired in hard mode.
. /selftests/guest/lib.sh

# debug_locks: 1 while lockdep runs; 0 once it turned itself off
debug_locks() { awk '$1 == "debug_locks:" { print $2 }' /proc/lockdep_stats 2>/dev/null; }
# irq_count IRQ: the interrupt's count summed over CPUs
irq_count() {
	awk -v irq="$1:" '$1 == irq { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts
}
# lines N TAG: N lines through the serial port's tty (interrupt driven)
lines() {
	i=0
	exec 5>/dev/ttyS0
	while [ $i -lt "$1" ]; do
		echo "$2 serial line $i: the quick brown fox jumps over the lazy dog" >&5
		i=$((i + 1))
	done
	exec 5>&-
}

check "booted with threadirqs" grep -qw threadirqs /proc/cmdline
expect_eq "lockdep runs (debug_locks in /proc/lockdep_stats)" "$(debug_locks)" 1
sirq=$(awk '$NF == "ttyS0" { sub(":", "", $1); print $1; exit }' /proc/interrupts)
f=/proc/irq/$sirq/ttyS0/threaded
if [ -z "$sirq" ] || [ ! -e "$f" ]; then
	fail "the serial port's action has a threaded file (irq '${sirq}')"
	exit 0
fi
read -r m <"$f"
expect_eq "ttyS0 (irq $sirq) starts force threaded" "$m" 1

check "ttyS0: the write of 0 is accepted" sh -c "echo 0 >$f"
read -r m <"$f"
expect_eq "$f reads 0" "$m" 0
before=$(irq_count "$sirq")
lines 200 hard
after=$(irq_count "$sirq")
diag "irq $sirq fired $((after - before)) times for 200 lines in hard mode"
check "the port's interrupt fired in hard mode" [ "$after" -gt "$before" ]
expect_eq "lockdep still runs after 200 lines in hard mode" "$(debug_locks)" 1

echo 1 >"$f"
read -r m <"$f"
expect_eq "ttyS0 switched back to threaded (reads 1)" "$m" 1
lines 20 threaded
expect_eq "lockdep still runs at the end" "$(debug_locks)" 1
