#!/bin/sh
# IRQF_IRQ_AFFINITY on nvme-pci's threaded I/O queue interrupt: the queue's
# irq thread may run on every CPU of the interrupt's affinity mask, while the
# admin queue's thread (no flag) stays on the interrupt's effective CPU.
. /selftests/guest/lib.sh

dev=/dev/nvme0n1
ncpu=$(grep -c ^processor /proc/cpuinfo)
q0=$(irq_of nvme0q0)
q1=$(irq_of nvme0q1)
if [ -z "$q0" ] || [ -z "$q1" ] || [ ! -b "$dev" ]; then
	fail "nvme0 with queues nvme0q0 and nvme0q1 and $dev present"
	diag "$(grep nvme /proc/interrupts)"
	exit 0
fi
pass "nvme0 with queues nvme0q0 (irq $q0) and nvme0q1 (irq $q1) present"

# Fill the test area with fio's verify pattern; this also wakes the queue's
# irq thread, which applies its affinity when it runs.
fio --name=fill --filename=$dev --rw=write --bs=4k --size=64M \
	--ioengine=libaio --direct=1 --iodepth=32 --verify=crc32c --do_verify=0 \
	>/tmp/fill.log 2>&1
check "fio wrote the verify pattern (64 MiB)" [ $? -eq 0 ]

check_queue_threads "$q0" "$q1" || exit 0

# Random reads over the written area, verified, with one job per CPU; watch
# where the queue's thread runs meanwhile (shown, not asserted: where the
# scheduler puts it is its business).
(
	end=$(($(date +%s) + 12))
	while [ "$(date +%s)" -lt "$end" ]; do last_cpu "$t1"; sleep 0.2; done
) >/tmp/t1cpus &
sampler=$!
fio --name=verify --filename=$dev --rw=randread --bs=4k --size=64M \
	--ioengine=libaio --direct=1 --iodepth=16 --numjobs="$ncpu" \
	--verify=crc32c --verify_fatal=1 --loops=1000 --runtime=10 \
	--group_reporting >/tmp/verify.log 2>&1
rc=$?
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
diag "$(grep -E 'read: IOPS|err=' /tmp/verify.log | head -3)"
check "fio 4k randread --verify=crc32c, $ncpu jobs, 10 s: exit 0" [ $rc -eq 0 ]
errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/verify.log | sort -u | tr '\n' ' ')
expect_eq "fio reported no I/O or verify errors" "$errs" "0 "
diag "nvme0q1 thread ran on CPUs: $(sort -un /tmp/t1cpus | tr '\n' ' ')"
nerr=$(dmesg | grep -cE 'nvme.*(timeout|reset|I/O error|abort)')
expect_eq "no nvme timeouts, resets or I/O errors in the kernel log" "$nerr" 0
