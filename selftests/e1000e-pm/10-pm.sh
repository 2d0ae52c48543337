#!/bin/sh
# e1000e's rx vector across suspend-to-idle (pm_test=devices: the devices'
# suspend and resume callbacks run, the machine does not sleep).  e1000e's
# suspend path (e1000e_pm_freeze()) frees the interrupts of a device that
# stays up; resume requests them again.  For each way the NAPI instance
# can be threaded or not (never written, the file, sysfs):
#  1. suspend and resume return 0, and eth0 has carrier again;
#  2. the rx vector (its number may change) has its threaded file again,
#     which reads the mode it had, as netlink does;
#  3. a NAPI kthread exists exactly in threaded mode, the same one as
#     before;
#  4. a write through the file afterwards switches the instance (net
#     core owns the new action);
#  5. after a down and up, a transfer arrives intact in that mode.
# Then down, suspend, resume, up: the same, with the setting kept.
# Transfers right after the resume are not checked: e1000e in QEMU loses
# all received frames after some resumes, on the unpatched base as with
# the series (3 of 6 resumes each, 2026-12-07); a down and up ends it.
. /selftests/guest/lib.sh
. /selftests/guest/e1000e.sh

e1000e_payload || exit 0
if [ ! -w /sys/power/pm_test ] || ! grep -qw freeze /sys/power/state; then
	fail "the kernel has suspend-to-idle and pm_test (CONFIG_SUSPEND, CONFIG_PM_DEBUG)"
	exit 0
fi
e1000e_up
e1000e_carrier
e1000e_rx_vector
if [ -z "$irq" ] || [ ! -w "$f" ]; then
	fail "e1000e uses MSI-X and $rxq has a threaded file"
	diag "$(grep eth0 /proc/interrupts)"
	exit 0
fi
pass "$rxq is irq $irq with $f"

# suspend WHAT: suspend-to-idle with pm_test=devices; checks that it
# returned 0 and that the devices went through it (e1000e's suspend
# callback runs e1000e_pm_freeze(), which frees the rx vector).
suspend() {
	echo devices >/sys/power/pm_test
	before=$(dmesg | grep -c 'PM: suspend entry')
	echo freeze >/sys/power/state
	rc=$?
	echo none >/sys/power/pm_test
	expect_eq "$1: suspend and resume returned 0" "$rc" 0
	check "$1: the kernel went through suspend" [ "$(dmesg | grep -c 'PM: suspend entry')" -gt "$before" ]
}
# state WHAT WANT [KPID]: the rx vector's file and netlink read WANT; a
# NAPI kthread exists exactly when WANT is 1 (KPID when given).
state() {
	e1000e_rx_vector
	check "$1: $rxq (irq ${irq:-none}) has its threaded file" [ -w "$f" ]
	set -- "$1" "$2" "${3:-}" $(e1000e_napi pid threaded)
	expect_eq "$1: the threaded file reads $2" "$(cat "$f" 2>/dev/null)" "$2"
	expect_eq "$1: netlink reads threaded=$2" "$5" "$2"
	if [ "$2" = 0 ]; then
		expect_eq "$1: no NAPI kthread (netlink pid)" "$4" 0
	elif [ -n "$3" ]; then
		expect_eq "$1: the same NAPI kthread" "$4" "$3"
	else
		check "$1: a NAPI kthread (netlink pid $4)" [ "${4:-0}" -gt 0 ]
	fi
}
# agree WHAT WANT [KPID]: state, and a transfer arrives intact
agree() {
	state "$@"
	if receive; then
		pass "$1: a transfer arrived intact"
	else
		fail "$1: a transfer arrived intact"
		diag "$(grep eth0 /proc/interrupts)"
		diag "rx_packets $(cat /sys/class/net/eth0/statistics/rx_packets) tx_packets $(cat /sys/class/net/eth0/statistics/tx_packets)"
		diag "$(ping -c 2 -W 1 10.0.2.2 2>&1 | tail -2)"
		diag "rx_packets $(cat /sys/class/net/eth0/statistics/rx_packets) tx_packets $(cat /sys/class/net/eth0/statistics/tx_packets)"
		diag "$(grep eth0 /proc/interrupts)"
	fi
}
# round HOW WANT: the mode set through HOW (nothing, file, sysfs), then
# suspend and resume, and a switch through the file afterwards
round() {
	case $1 in
	file) echo "$2" >"$f" ;;
	sysfs) echo "$2" >/sys/class/net/eth0/threaded ;;
	esac
	agree "$1 $2" "$2"
	kpid=
	[ "$2" = 1 ] && kpid=$(e1000e_napi pid)
	suspend "$1 $2"
	e1000e_carrier "$1 $2, resumed"
	state "$1 $2, resumed" "$2" "$kpid"
	other=$((1 - $2))
	echo $other >"$f"
	state "$1 $2, resumed, then file $other" $other
	echo "$2" >"$f"
	ip link set eth0 down
	ip link set eth0 up
	e1000e_carrier "$1 $2, resumed, down, up"
	agree "$1 $2, resumed, down, up" "$2"
}
round never 0
round file 1
round file 0
round sysfs 1
echo 0 >/sys/class/net/eth0/threaded
round sysfs 0

# Down, suspend, resume, up: e1000e frees nothing at suspend (the device
# is down); the setting stays with the instance.
echo 1 >"$f"
kpid=$(e1000e_napi pid)
ip link set eth0 down
check "down: the rx vector and its file are gone" [ ! -e "$f" ]
suspend "down"
ip link set eth0 up
e1000e_carrier "down, suspend, resume, up"
agree "down, suspend, resume, up" 1 "$kpid"
echo 0 >"$f"
agree "down, suspend, resume, up, then file 0" 0
exit 0
