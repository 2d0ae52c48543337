#!/bin/sh
# The demo ('make'): nvme-pci's I/O queue interrupt switched from hard to
# threaded handling and back at run time, through
# /proc/irq/<N>/nvme0q1/threaded, while fio reads verified data through the
# queue.  Threaded, the queue's irq thread runs nvme_irq(), allowed on the
# interrupt's affinity mask (IRQF_IRQ_AFFINITY, patch 27), where the
# scheduler places it; back in hard mode the thread is gone.
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
f=/proc/irq/$q1/nvme0q1/threaded

# table: one line per queue, with its mode and its thread's CPUs.
table() {
	diag "irq  action   threaded  affinity  effective  thread  Cpus_allowed"
	for q in "$q1 nvme0q1" "$q0 nvme0q0"; do
		set -- $q
		# "-": no threaded file (the admin queue's driver does not opt in)
		m=-; [ -e /proc/irq/$1/$2/threaded ] && read -r m </proc/irq/$1/$2/threaded
		p=$(irq_thread_pid "$1" "$2") || p=-
		a=-; [ "$p" = - ] || a=$(cpus_allowed "$p")
		diag "$1   $2  $m         $(cat /proc/irq/$1/smp_affinity_list)       $(cat /proc/irq/$1/effective_affinity_list)          $p  $a"
	done
}

# verify NAME: 4k random reads over the written area, verified, one job per
# CPU, 8 s.
verify() {
	fio --name=verify --filename=$dev --rw=randread --bs=4k --size=64M \
		--ioengine=libaio --direct=1 --iodepth=16 --numjobs="$ncpu" \
		--verify=crc32c --verify_fatal=1 --loops=1000 --runtime=8 \
		--group_reporting >/tmp/verify.log 2>&1
	rc=$?
	diag "$(grep -E 'read: IOPS' /tmp/verify.log | head -1)"
	errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/verify.log | sort -u | tr '\n' ' ')
	ok=1; [ $rc -eq 0 ] && [ "$errs" = "0 " ] && ok=0
	check "$1: fio 4k randread --verify=crc32c, $ncpu jobs, 8 s: exit 0, no errors" [ $ok = 0 ]
}
no_thread() { ! irq_thread_pid "$1" "$2" >/dev/null; }

fio --name=fill --filename=$dev --rw=write --bs=4k --size=64M \
	--ioengine=libaio --direct=1 --iodepth=32 --verify=crc32c --do_verify=0 \
	>/tmp/fill.log 2>&1
check "fio wrote the verify pattern (64 MiB)" [ $? -eq 0 ]

read -r m <"$f"
expect_eq "nvme0q1 starts in hard irq mode" "$m" 0
check "nvme0q1 has no irq thread in hard mode" no_thread "$q1" nvme0q1
verify hard

echo 1 >"$f"
read -r m <"$f"
expect_eq "echo 1 > $f: nvme0q1 threaded" "$m" 1
verify threaded
table
t1=$(irq_thread_pid "$q1" nvme0q1)
check "nvme0q1 has an irq thread in threaded mode" [ -n "$t1" ]
eff1=$(cat /proc/irq/$q1/effective_affinity_list)
check "nvme0q1's effective affinity is one CPU ($eff1)" is_one_cpu "$eff1"
# The queue requests its interrupt with IRQF_IRQ_AFFINITY (patch 27), so
# its thread may run on the affinity mask, where the scheduler wakes it
# on an idle CPU of the cache rather than preempt a task.
allowed1=$(cpus_allowed "$t1")
check "nvme0q1's thread may run on its interrupt's affinity mask (allowed: $allowed1)" \
	thread_cpus_ok "$allowed1" "$eff1" "$(cat /proc/irq/$q1/smp_affinity_list)"

echo 0 >"$f"
read -r m <"$f"
expect_eq "echo 0 > $f: nvme0q1 back in hard irq mode" "$m" 0
check "nvme0q1's irq thread is gone" no_thread "$q1" nvme0q1
verify "hard again"

nerr=$(dmesg | grep -cE 'nvme.*(timeout|reset|I/O error|abort)')
expect_eq "no nvme timeouts, resets or I/O errors in the kernel log" "$nerr" 0
