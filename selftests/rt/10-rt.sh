#!/bin/sh
# PREEMPT_RT: every write to every threaded file is refused with
# EOPNOTSUPP and changes nothing (0 and 1); fio verifies data on both
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

# refused FILE WORD: true when the write fails with EOPNOTSUPP (busybox's
# echo names the error; its printf fails silently)
refused() {
	echo -n "$2" >"$1" 2>/tmp/werr && return 1
	grep -q 'not supported' /tmp/werr
}
n=0 bad=0 nvme=0
for f in /proc/irq/*/*/threaded; do
	[ -e "$f" ] || continue
	read -r before <"$f"
	for w in 0 1; do
		if ! refused "$f" $w; then
			bad=$((bad + 1)); diag "$f: '$w' was not refused with EOPNOTSUPP ($(cat /tmp/werr))"
		fi
	done
	read -r after <"$f"
	[ "$after" = "$before" ] || { bad=$((bad + 1)); diag "$f: mode $before became $after"; }
	n=$((n + 1))
	case $f in */nvme0q[1-9]*) nvme=$((nvme + 1)) ;; esac
done
check "$n threaded files, among them $nvme NVMe I/O queues" [ $n -gt 0 -a $nvme -gt 0 ]
expect_eq "every write refused, no mode changed" $bad 0
q=$(awk '$NF ~ /^nvme0q1$/ { print $NF }' /proc/interrupts)
read -r m <"/proc/irq/$(irq_of "$q")/$q/threaded"
expect_eq "$q is force threaded (reads 1)" "$m" 1

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
	for sf in /proc/irq/$sirq/*/threaded; do
		[ -e "$sf" ] || continue
		check "the serial port's handler refuses hard mode ($sf)" refused "$sf" 0
	done
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
