#!/bin/sh
# The NVMe I/O queue's interrupt on arm64 GICv3: an LPI through the ITS,
# whose effective affinity is one CPU while its mask spans all of them.
# Switched to threaded at run time, the admin queue's thread runs on the
# one CPU its interrupt is delivered to, the I/O queue's may run on the
# mask (IRQF_IRQ_AFFINITY, patch 27), and both switch back.
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
diag "$(grep -E 'CPU0|nvme0q1$' /proc/interrupts | sed 's/  */ /g')"
check "nvme0q1 is an MSI-X LPI of the GICv3 ITS" grep -qE "^ *$q1:.*ITS.*nvme0q1\$" /proc/interrupts
check "the GIC is a GICv3 with an ITS (kernel log)" sh -c "dmesg | grep -q 'ITS@'"

for q in "$q0 nvme0q0" "$q1 nvme0q1"; do
	set -- $q
	echo 1 >/proc/irq/$1/$2/threaded
	read -r m </proc/irq/$1/$2/threaded
	expect_eq "$2 switched to threaded mode" "$m" 1
done
# Wake both threads (a thread applies its affinity when it runs).
fio --name=fill --filename=$dev --rw=write --bs=4k --size=32M \
	--ioengine=libaio --direct=1 --iodepth=32 --verify=crc32c --do_verify=0 \
	>/tmp/fill.log 2>&1
check "fio wrote the verify pattern (32 MiB)" [ $? -eq 0 ]
check_queue_threads "$q0" "$q1"
for q in "$q0 nvme0q0" "$q1 nvme0q1"; do
	set -- $q
	echo 0 >/proc/irq/$1/$2/threaded
done
read -r m0 </proc/irq/$q0/nvme0q0/threaded
read -r m1 </proc/irq/$q1/nvme0q1/threaded
expect_eq "both queues back in hard irq mode" "$m0$m1" 00
