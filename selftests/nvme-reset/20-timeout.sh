#!/bin/sh
# A queue's mode survives a controller reset that a timeout triggers, the
# error recovery an overloaded queue meets.  QEMU's NVMe device does not
# lose commands, so the block layer's fault injection does it
# (CONFIG_FAIL_IO_TIMEOUT): it drops the completion of one read, the read
# times out (io_timeout cut to 2 s), nvme_timeout() polls the queue and
# finds nothing, aborts the command (QEMU cannot abort it), and at the
# second timeout resets the controller, which frees every queue's
# interrupt and requests it again.  The read is retried after the reset.
# nvme0q1 is threaded and nvme0q2 hard before; both must come back so,
# and fio must read back verified data.  Runs after 10-reset.sh, which
# wrote the verify pattern.
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

ctrl=$(nvme_ctrl irqtest0)
dev=/dev/${ctrl}n1
blk=/sys/block/${ctrl}n1
fi=/sys/kernel/debug/fail_io_timeout
if [ ! -w "$blk/io-timeout-fail" ] || [ ! -w $fi/times ]; then
	fail "fault injection for I/O timeouts ($blk/io-timeout-fail, $fi)"
	exit 0
fi
q1=${ctrl}q1 q2=${ctrl}q2
file_of() { echo "/proc/irq/$(irq_of "$1")/$1/threaded"; }
mode_of() { read -r m <"$(file_of "$1")" && echo "$m"; }
echo 1 >"$(file_of "$q1")"
echo 0 >"$(file_of "$q2")"
expect_eq "$q1 threaded, $q2 hard" "$(mode_of "$q1")$(mode_of "$q2")" 10

read -r old_timeout <"$blk/queue/io_timeout"
echo 2000 >"$blk/queue/io_timeout"
resets0=$(dmesg | grep -c "timeout, reset controller")
# One completion, the next one, is forgotten; quietly (verbose 2 would
# print a stack trace, which fails the boot).
echo 0 >$fi/verbose
echo 1 >$fi/interval
echo 100 >$fi/probability
echo 1 >$fi/times
echo 0 >$fi/space
# The host's splat gate (ci/vm.sh) lets nvme timeout and reset lines pass
# between these two lines of the kernel log, and only there.
echo "irqtest: expecting an nvme I/O timeout and reset" >/dev/kmsg
echo 1 >"$blk/io-timeout-fail"
t0=$(date +%s)
dd if="$dev" of=/dev/null bs=4k count=1 skip=7 iflag=direct 2>/tmp/dd.err
rc=$?
t1=$(date +%s)
echo 0 >"$blk/io-timeout-fail"
echo "$old_timeout" >"$blk/queue/io_timeout"
check "the read whose completion was dropped succeeded after recovery (dd exit $rc, $((t1 - t0)) s)" [ $rc = 0 ]
[ $rc = 0 ] || diag "$(cat /tmp/dd.err)"
i=0
while [ $i -lt 300 ]; do
	read -r st <"/sys/class/nvme/$ctrl/state"
	[ "$st" = live ] && [ -n "$(nvme_ioqs "$ctrl")" ] && break
	sleep 0.1; i=$((i + 1))
done
resets=$(($(dmesg | grep -c "timeout, reset controller") - resets0))
echo "irqtest: nvme I/O timeout injection over" >/dev/kmsg
diag "$(dmesg | grep -E "$ctrl: (I/O tag|Abort|queue [12]:)" | tail -6)"
check "a timeout reset the controller ($resets), and it is live again" [ "$resets" -ge 1 -a "$st" = live ]
expect_eq "after the timeout reset: $q1 still threaded, $q2 still hard" "$(mode_of "$q1")$(mode_of "$q2")" 10
ncpu=$(grep -c ^processor /proc/cpuinfo)
fio --name=verify --filename="$dev" --rw=randread --bs=4k --size=32M \
	--ioengine=libaio --direct=1 --iodepth=16 --numjobs="$ncpu" \
	--verify=crc32c --verify_fatal=1 --loops=1000 --runtime=5 \
	--group_reporting >/tmp/verify.log 2>&1
rc=$?
errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/verify.log | sort -u | tr '\n' ' ')
check "after the timeout reset: fio randread --verify=crc32c, exit 0, no errors" [ $rc = 0 -a "$errs" = "0 " ]
