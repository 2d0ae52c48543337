#!/bin/sh
# tools/testing/selftests/irq of the series, built statically on the host.
# Its busy_lines_keep_firing test needs a device under load: fio reads
# from every NVMe I/O queue (one job per CPU, one I/O at a time, so that a
# lost interrupt stalls its queue) while the kselftest runs, for 150 s at
# most.
. /selftests/guest/lib.sh

ncpu=$(grep -c ^processor /proc/cpuinfo)
fio --name=load --filename=/dev/nvme0n1 --rw=randread --bs=4k --size=32M \
	--ioengine=psync --direct=1 --numjobs="$ncpu" --cpus_allowed=0-$((ncpu - 1)) \
	--cpus_allowed_policy=split --time_based --runtime=150 \
	>/tmp/load.log 2>&1 &
load=$!
sleep 2
run_kselftest irq/threaded_test
cp /tmp/ksft.out /tmp/ksft-threaded.out
# irq-autothread's policy on replayed loads, and a parse of this /proc
run_kselftest irq/autothread_test.sh
# Here a device is under load: busy_lines_keep_firing must run, not skip.
if grep -qE '^ok [0-9]+ global\.busy_lines_keep_firing$' /tmp/ksft-threaded.out; then
	pass "busy_lines_keep_firing ran on the loaded NVMe queues"
else
	fail "busy_lines_keep_firing ran on the loaded NVMe queues: $(grep 'busy_lines_keep_firing' /tmp/ksft-threaded.out | tail -1)"
fi
# The load must have lasted: a fio that failed early leaves the test
# without busy lines (it skips) or makes it see a line stop.
if kill $load 2>/dev/null; then
	wait $load 2>/dev/null
	pass "fio load on every I/O queue lasted through the kselftest"
else
	wait $load
	fail "fio load on every I/O queue lasted through the kselftest (exit $?): $(tail -3 /tmp/load.log)"
fi
exit 0
