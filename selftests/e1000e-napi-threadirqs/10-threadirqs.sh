#!/bin/sh
# e1000e's rx vector in a threadirqs boot.  Its action is force threaded at
# request time; net core owns its threaded file as in every other boot:
#  1. the vector has its forced irq thread, and the threaded file;
#  2. after each write through sysfs, the file reads what sysfs set, and
#     netlink agrees; after each write through the file, netlink reads it
#     and a NAPI kthread exists exactly in threaded mode;
#  3. the forced irq thread stays through all of it, and a transfer
#     arrives intact in each mode;
#  4. down and up: the file goes with the vector, comes back with the new
#     forced action, owned again, with the setting kept.
. /selftests/guest/lib.sh
. /selftests/guest/e1000e.sh

e1000e_payload || exit 0
expect_eq "booted with threadirqs" "$(grep -c threadirqs /proc/cmdline)" 1

e1000e_up
e1000e_carrier
rxq=eth0-rx-0
irq=$(irq_of $rxq)
f=/proc/irq/$irq/$rxq/threaded
if [ -z "$irq" ] || [ ! -w "$f" ]; then
	fail "e1000e uses MSI-X and $rxq has a threaded file"
	diag "$(grep eth0 /proc/interrupts)"
	exit 0
fi
pass "$rxq is irq $irq with $f"
ithread=$(irq_thread_pid "$irq" "$rxq")
check "$rxq has its forced irq thread (pid ${ithread:-none})" [ -n "$ithread" ]

# The rx queue's NAPI instance as netlink reports it: "pid threaded"
napi_get() { e1000e_napi pid threaded; }
# agree HOW WANT: after a write through HOW, the file and netlink read
# WANT, a NAPI kthread exists exactly when WANT is 1, the forced irq
# thread is still there, and a transfer arrives intact.
agree() {
	set -- "$1" "$2" $(napi_get)
	expect_eq "$1: the threaded file reads $2" "$(cat "$f")" "$2"
	expect_eq "$1: netlink reads threaded=$2" "$4" "$2"
	if [ "$2" = 0 ]; then expect_eq "$1: no NAPI kthread (netlink pid)" "$3" 0
	else check "$1: a NAPI kthread (netlink pid $3)" [ "${3:-0}" -gt 0 ]; fi
	expect_eq "$1: the forced irq thread stays" "$(irq_thread_pid "$irq" "$rxq")" "$ithread"
	receive; r=$?
	check "$1: a transfer arrived intact" [ $r = 0 ]
}
agree "at boot" 0
echo 1 >/sys/class/net/eth0/threaded
agree "sysfs 1" 1
expect_eq "sysfs 1: sysfs reads 1" "$(cat /sys/class/net/eth0/threaded)" 1
echo 0 >/sys/class/net/eth0/threaded
agree "sysfs 0" 0
echo 1 >"$f"
agree "file 1" 1
echo 0 >"$f"
agree "file 0" 0
echo 1 >"$f"
echo 0 >/sys/class/net/eth0/threaded
agree "file 1, then sysfs 0" 0

# 4. Down and up: net core gives the forced action its own file back
#    (irq_clear_switchable()) before e1000e frees it, and takes the new
#    action's file again once it is requested.
echo 1 >"$f"
ip link set eth0 down
check "down: the rx vector and its file are gone" [ ! -e "$f" ]
ip link set eth0 up
e1000e_carrier "up again"
irq=$(irq_of $rxq)
f=/proc/irq/$irq/$rxq/threaded
check "up again: $rxq (irq $irq) has its threaded file" [ -w "$f" ]
ithread=$(irq_thread_pid "$irq" "$rxq")
check "up again: $rxq has a forced irq thread (pid ${ithread:-none})" [ -n "$ithread" ]
agree "up again, the setting kept" 1
echo 0 >"$f"
agree "up again, file 0" 0
