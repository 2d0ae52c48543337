#!/bin/sh
# Threaded NAPI on e1000e for a user who never writes the rx vector's
# threaded file: what mainline does, and the same checks on the series'
# kernel and on the unpatched base (make vmtest-base
# DEMO_SCENARIO=e1000e-napi-mainline).  Only sysfs, netlink reads and
# /proc; the threaded file, where there is one, is only read.
#  1. The NAPI kthread is made with the affinity of any unbound kthread,
#     not its interrupt's: the rx vector's smp_affinity_list is one CPU
#     (not the default mask) before /sys/class/net/eth0/threaded is set.
#  2. A user's taskset of the kthread stays while the rx vector's
#     smp_affinity_list is rewritten to another CPU and a transfer runs.
#  3. Down and up: the same kthread (PID), with the user's taskset, and
#     the device's threaded setting, through sysfs and netlink.
#  4. threaded=0, down and up: still 0 and no kthread.
# Where the file exists (the series), it reads what sysfs set.
. /selftests/guest/lib.sh
. /selftests/guest/e1000e.sh

e1000e_payload || exit 0
e1000e_up
carrier() { e1000e_carrier "$1"; }
carrier "up"
rxq=eth0-rx-0
irq=$(irq_of $rxq)
if [ -z "$irq" ]; then fail "e1000e uses MSI-X ($rxq)"; diag "$(grep eth0 /proc/interrupts)"; exit 0; fi
f=/proc/irq/$irq/$rxq/threaded
ncpu=$(grep -c ^processor /proc/cpuinfo)
all=0-$((ncpu - 1))
if [ "$ncpu" -lt 3 ]; then fail "at least 3 CPUs ($ncpu)"; exit 0; fi
irq_cpu=$((ncpu - 1)) pin=1 other=2

# The rx queue's NAPI instance as netlink reports it: "pid threaded"
napi_get() { e1000e_napi pid threaded; }
# The NAPI kthreads of eth0, by name (napi/eth0-<id>)
napi_kthreads() {
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in napi/eth0-*) printf '%s ' "${p#/proc/}" ;; esac
	done
}
file_reads() {
	if [ -e "$f" ]; then expect_eq "$1: the threaded file reads $2" "$(cat "$f")" "$2"
	else skip "$1: the threaded file reads $2" "no $f on this kernel"; fi
}

# 1. Made while the vector's mask is one CPU.
echo $irq_cpu >/proc/irq/$irq/smp_affinity_list
expect_eq "irq $irq's smp_affinity_list is $irq_cpu" "$(cat /proc/irq/$irq/smp_affinity_list)" $irq_cpu
echo 1 >/sys/class/net/eth0/threaded
set -- $(napi_get)
kpid=$1
check "sysfs 1: a NAPI kthread (netlink pid $kpid)" [ "${kpid:-0}" -gt 0 ]
expect_eq "sysfs 1: netlink reads threaded=1" "$2" 1
expect_eq "sysfs 1: the kthread is eth0's only NAPI kthread" "$(napi_kthreads)" "$kpid "
expect_eq "sysfs 1: kthread $kpid may run on every CPU ($all), not only irq $irq's ($irq_cpu)" "$(cpus_allowed "$kpid")" "$all"
file_reads "sysfs 1" 1

# 2. The user's taskset against a change of the vector's mask.
taskset -p -c $pin "$kpid" >/dev/null
expect_eq "taskset -c $pin: kthread $kpid may run on $pin" "$(cpus_allowed "$kpid")" $pin
echo $other >/proc/irq/$irq/smp_affinity_list
receive; r=$?
check "smp_affinity_list=$other: a transfer arrived intact" [ $r = 0 ]
usleep 500000
expect_eq "smp_affinity_list=$other, after a transfer: kthread $kpid still may run on $pin only" "$(cpus_allowed "$kpid")" $pin
expect_eq "smp_affinity_list=$other, after a transfer: kthread $kpid last ran on $pin" "$(last_cpu "$kpid")" $pin

# 3. Down and up.
ip link set eth0 down
expect_eq "down: kthread $kpid is still there" "$(napi_kthreads)" "$kpid "
expect_eq "down: sysfs reads 1" "$(cat /sys/class/net/eth0/threaded)" 1
ip link set eth0 up
carrier "up again"
set -- $(napi_get)
expect_eq "up again: the same NAPI kthread (netlink pid)" "$1" "$kpid"
expect_eq "up again: netlink reads threaded=1" "$2" 1
expect_eq "up again: sysfs reads 1" "$(cat /sys/class/net/eth0/threaded)" 1
expect_eq "up again: kthread $kpid keeps the user's taskset ($pin)" "$(cpus_allowed "$kpid")" $pin
file_reads "up again" 1
receive; r=$?
check "up again: a transfer arrived intact" [ $r = 0 ]

# 4. Off, down and up.
echo 0 >/sys/class/net/eth0/threaded
set -- $(napi_get)
expect_eq "sysfs 0: no NAPI kthread (netlink pid)" "$1" 0
expect_eq "sysfs 0: no napi/eth0-* kthread" "$(napi_kthreads)" ""
file_reads "sysfs 0" 0
ip link set eth0 down
ip link set eth0 up
carrier "sysfs 0, down, up"
set -- $(napi_get)
expect_eq "sysfs 0, down, up: netlink reads threaded=0" "$2" 0
expect_eq "sysfs 0, down, up: sysfs reads 0" "$(cat /sys/class/net/eth0/threaded)" 0
expect_eq "sysfs 0, down, up: no napi/eth0-* kthread" "$(napi_kthreads)" ""
receive; r=$?
check "sysfs 0, down, up: a transfer arrived intact" [ $r = 0 ]
