#!/bin/sh
# Switch every NVMe I/O queue's action between hard irq and threaded mode,
# at least TOGGLES times in all, while fio reads verified data from all
# queues.  No I/O error, no verify error, no nvme timeout or reset.
. /selftests/guest/lib.sh

TOGGLES=${TOGGLES:-1000}
dev=/dev/nvme0n1
files=
for q in $(awk '$NF ~ /^nvme0q[1-9][0-9]*$/ { print $NF }' /proc/interrupts); do
	files="$files /proc/irq/$(irq_of "$q")/$q/threaded"
done
n=$(echo $files | wc -w)
if [ "$n" -lt 1 ] || [ ! -b "$dev" ]; then
	fail "nvme0 I/O queues with a threaded file"
	exit 0
fi
pass "$n nvme0 I/O queues have a threaded file"
for f in $files; do
	[ "$(cat "$f")" = 0 ] || { fail "$f starts in hard irq mode"; exit 0; }
done

fio --name=fill --filename=$dev --rw=write --bs=4k --size=32M \
	--ioengine=libaio --direct=1 --iodepth=32 --verify=crc32c --do_verify=0 \
	>/tmp/fill.log 2>&1
check "fio wrote the verify pattern (32 MiB)" [ $? -eq 0 ]

ncpu=$(grep -c ^processor /proc/cpuinfo)
fio --name=verify --filename=$dev --rw=randread --bs=4k --size=32M \
	--ioengine=libaio --direct=1 --iodepth=16 --numjobs="$ncpu" \
	--verify=crc32c --verify_fatal=1 --runtime=300 --time_based \
	--group_reporting >/tmp/verify.log 2>&1 &
fio_pid=$!
sleep 2

# Toggle until TOGGLES switches are done (bounded by time too).
done_n=0 bad=0 end=$(($(date +%s) + 240))
while [ $done_n -lt "$TOGGLES" ] && [ "$(date +%s)" -lt $end ] && kill -0 $fio_pid 2>/dev/null; do
	for f in $files; do
		if [ "$(cat "$f")" = 0 ]; then want=1; else want=0; fi
		echo $want >"$f" || bad=$((bad + 1))
		[ "$(cat "$f")" = $want ] || bad=$((bad + 1))
		done_n=$((done_n + 1))
	done
done
alive=0; kill -0 $fio_pid 2>/dev/null && alive=1
kill -INT $fio_pid 2>/dev/null
wait $fio_pid
rc=$?
for f in $files; do echo 0 >"$f"; done
diag "toggles: $done_n over $n queues"
diag "$(grep -E 'read: IOPS|err=' /tmp/verify.log | head -3)"
check "at least $TOGGLES toggles done ($done_n)" [ "$done_n" -ge "$TOGGLES" ]
expect_eq "every toggle took and read back" "$bad" 0
check "fio was still running when toggling ended" [ $alive -eq 1 ]
check "fio randread --verify under toggling: exit 0" [ $rc -eq 0 ]
errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/verify.log | sort -u | tr '\n' ' ')
expect_eq "fio reported no I/O or verify errors" "$errs" "0 "
n=$(dmesg | grep -cE 'nvme.*(timeout|reset|I/O error|abort)')
expect_eq "no nvme timeouts, resets or I/O errors in the kernel log" "$n" 0
