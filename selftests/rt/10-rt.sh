#!/bin/sh
# PREEMPT_RT: nothing can switch, so no action has a threaded file (the
# NVMe I/O queues opt in, and are refused); fio verifies data on both
# NVMe I/O queues; 200 lines go out through the serial port whose handler
# a write of 0 once moved into hard interrupt context (the review issue:
# "BUG: Invalid wait context" in serial8250_interrupt(), then a panic).
# The host's splat gate fails the boot on any splat.
. /selftests/guest/lib.sh

# Mainline has no /sys/kernel/realtime; the version string says PREEMPT_RT.
case "$(uname -v)" in
*PREEMPT_RT*) pass "the kernel is PREEMPT_RT ($(uname -v))" ;;
*) fail "the kernel is PREEMPT_RT (uname -v: $(uname -v))"; exit 0 ;;
esac

# No action can switch on RT, so none has a threaded file: not the NVMe
# I/O queues, whose driver opts in, nor the force threaded serial port.
n=0
for f in /proc/irq/*/*/threaded; do
	[ -e "$f" ] || continue
	n=$((n + 1)); diag "$f exists on PREEMPT_RT"
done
expect_eq "no threaded file on PREEMPT_RT" $n 0
q=$(awk '$NF ~ /^nvme0q1$/ { print $NF }' /proc/interrupts)
check "$q has its action directory, without a threaded file" \
	[ -d "/proc/irq/$(irq_of "$q")/$q" -a ! -e "/proc/irq/$(irq_of "$q")/$q/threaded" ]

# I/O through the NVMe handlers, verified.
dev=/dev/nvme0n1
fio --name=rt --filename=$dev --rw=randwrite --bs=4k --size=32M --numjobs=4 \
	--offset_increment=32M --ioengine=libaio --direct=1 --iodepth=16 \
	--verify=crc32c --verify_fatal=1 --group_reporting >/tmp/fio.log 2>&1
rc=$?
diag "$(grep -E 'IOPS=|err=' /tmp/fio.log | head -3)"
check "fio wrote and verified 4x32 MiB on the RT kernel" [ $rc -eq 0 ]

# The serial port: its handler stays threaded; 200 lines through it.
sirq=$(awk '$NF == "ttyS0" || $NF == "serial" { sub(":", "", $1); print $1; exit }' /proc/interrupts)
if [ -n "$sirq" ]; then
	exec 5>/dev/ttyS0
	i=0
	while [ $i -lt 200 ]; do
		echo "rt serial line $i: the quick brown fox jumps over the lazy dog" >&5
		i=$((i + 1))
	done
	exec 5>&-
	pass "200 lines through the serial port (irq $sirq)"
else
	skip "serial port lines" "no ttyS0 interrupt in /proc/interrupts"
fi
