#!/bin/sh
# e1000e's rx vector switched at run time.  Its threaded mode is the NAPI
# instance's "threaded" setting, which net core owns
# (netif_set_irq_threaded_auto(), irq_set_switchable() with set_threaded()): the hard handler
# stays and only schedules NAPI, which polls in NET_RX softirq in hard mode
# and in the NAPI instance's kthread in threaded mode.
#  1. TCP transfers of a known payload from the host arrive intact (md5)
#     while the rx vector's threaded file is toggled at least 200 times.
#  2. Where the rx work runs in each mode, counted: NET_RX softirqs per rx
#     interrupt, NAPI kthread wakeups, and no irq thread for the vector;
#     the netdev netlink family reads the instance's mode back.
#  3. No placement policy: a write of the file makes the NAPI kthread with
#     the affinity of any kthread while the vector's mask is one CPU, and a
#     user's taskset of it stays while the vector's mask is rewritten under
#     traffic (e1000e-napi-mainline checks the same without the file, and
#     on the base).
#  4. One setting, three interfaces: a write through the proc file, netlink
#     (napi-set threaded) or sysfs (/sys/class/net/eth0/threaded) reads back
#     the same through the proc file and netlink, and through sysfs after a
#     sysfs write (sysfs reads the device-wide setting it wrote).  A proc
#     write keeps netlink's threaded busy polling.
#  5. One UDP flow from the host, numbered datagrams: none arrives out of
#     order or twice while the rx vector is toggled and its affinity
#     rewritten every 100 ms (udp_seq counts at the receiver).
#  6. Down: a threaded instance's kthread stays across the close, as in
#     mainline, and up again the instance polls in it, with the setting
#     the proc file wrote.  Proc and sysfs writes while down
#     read back through the proc file, and up again through netlink.
#     Threaded NAPI turned off for a device that is down returns (net
#     fix: napi_stop_kthread() waited for a disabled instance forever),
#     also when it was turned on while the device was down; the device
#     then comes up in softirq mode and receives.
#  7. Renamed (down, rename, up): the rx vector's directory and threaded
#     file carry the new name and switch; the tx vector has no file.
. /selftests/guest/lib.sh
. /selftests/guest/e1000e.sh

TOGGLES=${TOGGLES:-200}
e1000e_payload || exit 0
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

net_rx() { awk '$1 == "NET_RX:" { for (i = 2; i <= NF; i++) s += $i } END { print s + 0 }' /proc/softirqs; }
rx_irqs() { awk -v q=$rxq '$NF == q { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) s += $i } END { print s + 0 }' /proc/interrupts; }
wakeups() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# 1. Toggle the rx vector while transfers run, until both did enough.
echo 0 >/tmp/toggle.count
rm -f /tmp/stop
(
	n=0 bad=0 end=$(($(date +%s) + 300))
	while [ ! -e /tmp/stop ] && [ "$(date +%s)" -lt $end ]; do
		read -r cur <"$f"
		if [ "$cur" = 0 ]; then want=1; else want=0; fi
		echo $want >"$f" || bad=$((bad + 1))
		read -r cur <"$f"
		[ "$cur" = $want ] || bad=$((bad + 1))
		n=$((n + 1))
		[ $((n % 10)) = 0 ] && echo $n >/tmp/toggle.count
		# Some time in each mode for packets to arrive in it
		usleep 20000
	done
	echo "$n $bad" >/tmp/toggle.result
) &
toggler=$!
ok_n=0 bad_n=0 end=$(($(date +%s) + 300))
while [ "$(date +%s)" -lt $end ] && [ $((ok_n + bad_n)) -lt 40 ]; do
	if receive; then ok_n=$((ok_n + 1)); else bad_n=$((bad_n + 1)); diag "transfer: got md5 '$got'"; fi
	read -r t </tmp/toggle.count
	[ "$t" -ge "$TOGGLES" ] && [ $ok_n -ge 3 ] && break
done
touch /tmp/stop
wait $toggler
read -r toggles tbad </tmp/toggle.result
check "$toggles toggles of $rxq during the transfers (at least $TOGGLES)" [ "$toggles" -ge "$TOGGLES" ]
expect_eq "every toggle took effect" "$tbad" 0
check "$ok_n transfers of $bytes bytes arrived intact while toggling (at least 3)" [ $ok_n -ge 3 ]
expect_eq "no transfer arrived corrupted or short" $bad_n 0
expect_eq "eth0 still has carrier" "$(cat /sys/class/net/eth0/carrier)" 1

no_irq_thread() { ! irq_thread_pid "$irq" "$rxq" >/dev/null; }
no_napi() { ! napi_nl set "$1" 1 2>/dev/null; }
# The NAPI instance of the rx queue, as netlink reports it: "id irq pid threaded"
napi_get() { e1000e_napi id irq pid threaded; }
# wait_napi T: poll until netlink reports threaded=T, at most 5 s (the
# switch is done when the write returns: this only bounds a failure);
# prints the instance's line.
wait_napi() {
	i=0
	while [ $i -lt 50 ]; do
		set -- "$1" $(napi_get)
		[ "$5" = "$1" ] && break
		usleep 100000; i=$((i + 1))
	done
	napi_get
}

# 2. Where the rx work runs.
set -- $(napi_get)
napi_id=$1
check "netlink: eth0's NAPI instance $napi_id has the rx vector's irq $irq" [ -n "$napi_id" -a "$2" = "$irq" ]
for mode in 0 1; do
	echo $mode >"$f"
	set -- $(wait_napi $mode)
	npid=$3
	expect_eq "mode $mode: netlink reads the NAPI instance's threaded attribute as $mode" "$4" $mode
	expect_eq "mode $mode: the proc file reads $mode" "$(cat "$f")" $mode
	check "mode $mode: no irq thread for $rxq (the hard handler stays)" no_irq_thread
	s0=$(net_rx) i0=$(rx_irqs)
	[ $mode = 1 ] && w0=$(wakeups "$npid")
	receive; r=$?
	s1=$(net_rx) i1=$(rx_irqs)
	ds=$((s1 - s0)) di=$((i1 - i0))
	diag "mode $mode: $di rx interrupts, $ds NET_RX softirqs"
	check "mode $mode: transfer intact" [ $r = 0 ]
	check "mode $mode: the rx vector took interrupts ($di)" [ "$di" -gt 0 ]
	if [ $mode = 0 ]; then
		expect_eq "hard: no NAPI kthread (netlink pid)" "$npid" 0
		check "hard: rx work in NET_RX softirq ($ds softirqs for $di interrupts)" [ $((4 * ds)) -ge "$di" ]
	else
		check "threaded: NAPI kthread $npid ($(cat /proc/$npid/comm 2>/dev/null))" [ "$npid" -gt 0 ] 2>/dev/null
		w1=$(wakeups "$npid")
		check "threaded: the NAPI kthread polled ($((w1 - w0)) wakeups for $di interrupts)" [ $((w1 - w0)) -gt 0 ]
		check "threaded: rx work not in NET_RX softirq ($ds softirqs for $di interrupts)" [ $((4 * ds)) -lt "$di" ]
	fi
done

# 3. No placement: the kthread a write of the file makes has the affinity
#    of any kthread, whatever the vector's; a user's taskset stays.
aff=$(cat /proc/irq/$irq/smp_affinity_list)
ncpu=$(grep -c ^processor /proc/cpuinfo)
all=0-$((ncpu - 1)) last=$((ncpu - 1))
echo 0 >"$f"
echo $last >/proc/irq/$irq/smp_affinity_list
echo 1 >"$f"
set -- $(napi_get)
npid=$3
expect_eq "smp_affinity_list=$last, then proc 1: kthread $npid may run on every CPU ($all)" "$(cpus_allowed "$npid")" "$all"
taskset -p -c 1 "$npid" >/dev/null
(usleep 300000; echo 2 >/proc/irq/$irq/smp_affinity_list) &
receive; r=$?
wait
check "taskset -c 1, smp_affinity_list=2 under traffic: the transfer arrived intact" [ $r = 0 ]
usleep 500000
expect_eq "taskset -c 1, smp_affinity_list=2 under traffic: kthread $npid still may run on 1 only" "$(cpus_allowed "$npid")" 1
echo 0 >"$f"
echo "$aff" >/proc/irq/$irq/smp_affinity_list

# 4. One setting, three interfaces.
# agree HOW WANT: the proc file and netlink read WANT after a write through HOW
agree() {
	set -- "$1" "$2" $(napi_get)
	expect_eq "$1: netlink reads threaded=$2" "$6" "$2"
	p=$2; [ "$p" = 2 ] && p=1
	expect_eq "$1: the proc file reads $p" "$(cat "$f")" "$p"
	if [ "$2" = 0 ]; then
		expect_eq "$1: no NAPI kthread (netlink pid)" "$5" 0
	else
		check "$1: a NAPI kthread (netlink pid $5)" [ "$5" -gt 0 ]
	fi
}
echo 1 >"$f"; agree "proc 1" 1
napi_nl set "$napi_id" 0 || fail "napi_nl set $napi_id 0"
agree "proc 1, then netlink 0" 0
napi_nl set "$napi_id" 1 || fail "napi_nl set $napi_id 1"
agree "netlink 1" 1
echo 0 >"$f"; agree "netlink 1, then proc 0" 0
echo 1 >/sys/class/net/eth0/threaded
agree "sysfs 1" 1
expect_eq "sysfs 1: sysfs reads 1" "$(cat /sys/class/net/eth0/threaded)" 1
echo 0 >"$f"; agree "sysfs 1, then proc 0" 0
echo 0 >/sys/class/net/eth0/threaded
agree "sysfs 0" 0
expect_eq "sysfs 0: sysfs reads 0" "$(cat /sys/class/net/eth0/threaded)" 0
napi_nl set "$napi_id" 2 || fail "napi_nl set $napi_id 2 (threaded busy polling)"
agree "netlink 2 (busy polling)" 2
echo 1 >"$f"; agree "netlink 2, then proc 1: busy polling stays" 2
echo 0 >"$f"; agree "netlink 2, then proc 0" 0
napi_nl set "$napi_id" 1 || fail "napi_nl set $napi_id 1"
receive
check "netlink-threaded NAPI: transfer intact" [ $? = 0 ]
napi_nl set "$napi_id" 0 || fail "napi_nl set $napi_id 0"
check "napi_nl refuses a NAPI id that does not exist" no_napi 999999
# 5. In order while toggled and moved.
printf '#!/bin/sh\nprintf U\nsleep 10\n' >/tmp/udp.sh
chmod +x /tmp/udp.sh
udp_seq 5002 12 >/tmp/seq.out &
seqpid=$!
timeout 20 nc -l -p 5001 -e /tmp/udp.sh >/dev/null 2>&1 &
ncpid=$!
n=0 end=$(($(date +%s) + 11))
while [ "$(date +%s)" -lt $end ]; do
	echo $((n % 2)) >"$f"
	echo $((n % ncpu)) >/proc/irq/$irq/smp_affinity_list
	n=$((n + 1))
	usleep 100000
done
wait $seqpid
wait $ncpid
read -r _ rcv _ reo _ dup _ lost _ last </tmp/seq.out
diag "udp: $(cat /tmp/seq.out) during $n toggles and affinity writes"
check "udp: the flow arrived (${rcv:-0} datagrams, at least 1000)" [ "${rcv:-0}" -ge 1000 ]
expect_eq "udp: no datagram arrived out of order while toggled and moved" "$reo" 0
expect_eq "udp: no datagram arrived twice" "$dup" 0
echo "$aff" >/proc/irq/$irq/smp_affinity_list

echo 0 >"$f"
receive
check "hard again: transfer intact" [ $? = 0 ]
expect_eq "eth0 has carrier at the end" "$(cat /sys/class/net/eth0/carrier)" 1

# 6. Last, as it takes the device down: sysfs threaded=0 while down, in
#    both orders (the kthread made before or after the instance was
#    disabled).  A write that hangs holds RTNL: the rest cannot run then.
sysfs_threaded_bounded() {
	rm -f /tmp/sysfs.done
	(echo "$1" >/sys/class/net/eth0/threaded; echo $? >/tmp/sysfs.done) &
	i=0
	while [ ! -e /tmp/sysfs.done ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
	check "$2: echo $1 >/sys/class/net/eth0/threaded returns within 5 s" [ -e /tmp/sysfs.done ]
	expect_eq "$2: ... and succeeds" "$(cat /tmp/sysfs.done 2>/dev/null)" 0
	[ -e /tmp/sysfs.done ]
}
napi_kthreads() {
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in napi/eth0-*) printf '%s ' "${p#/proc/}" ;; esac
	done
}
echo 1 >"$f"
set -- $(napi_get)
kpid=$3
check "up, proc 1: NAPI kthread $kpid" [ "$kpid" -gt 0 ]
ip link set eth0 down
expect_eq "proc 1, then down: the NAPI kthread stays, as in mainline" "$(napi_kthreads)" "$kpid "
check "proc 1, then down: the rx vector is freed, and its file with it" [ ! -e "$f" ]
ip link set eth0 up
e1000e_carrier "proc 1, down, up"
set -- $(napi_get)
expect_eq "... up again: netlink reads threaded=1" "$4" 1
expect_eq "... up again: the same NAPI kthread" "$3" "$kpid"
expect_eq "... up again: the proc file reads 1" "$(cat "$f")" 1
check "... up again: threaded transfer intact" receive
echo 0 >"$f"
# A write while down: only sysfs can (the rx vector and its file are
# freed, and netlink lists no instance of a down device).  The setting
# stays with the instance and reads back through both when up again.
ip link set eth0 down
echo 1 >/sys/class/net/eth0/threaded
ip link set eth0 up
e1000e_carrier "sysfs 1 while down, up"
agree "sysfs 1 while down, then up" 1
echo 0 >"$f"
ip link set eth0 down
napi_kthreads_down=$(napi_kthreads)
expect_eq "proc 0, then down: no NAPI kthread" "$napi_kthreads_down" ""

echo 1 >/sys/class/net/eth0/threaded
ip link set eth0 up
ip link set eth0 down
if sysfs_threaded_bounded 0 "threaded, then down"; then
	sysfs_threaded_bounded 1 "down, then threaded" &&
		sysfs_threaded_bounded 0 "down, then threaded" &&
		ip link set eth0 up && {
		e1000e_carrier "threaded off while down, up"
		expect_eq "up again: softirq mode (netlink threaded=0)" "$(napi_get | awk '{ print $4 }')" 0
		check "up again: a transfer is intact" receive
	}
else
	fail "down, then threaded: not run, RTNL is held by the hung write"
fi

# 7. A rename: the device must be down for it, which frees its interrupts;
#    up again, they are requested with the new name, and the rx vector's
#    directory and threaded file carry it.  The tx vector's driver does
#    not opt in: it has a directory and no threaded file.
ip link set eth0 down
if ip link set eth0 name ethr && ip link set ethr up; then
	nirq=$(irq_of ethr-rx-0)
	nf=/proc/irq/$nirq/ethr-rx-0/threaded
	check "renamed to ethr: ethr-rx-0 has a threaded file" [ -n "$nirq" -a -e "$nf" ]
	check "renamed to ethr: no eth0-rx-0 directory is left" sh -c '! ls -d /proc/irq/*/eth0-rx-0 2>/dev/null'
	echo 1 >"$nf"; read -r m <"$nf"
	expect_eq "renamed to ethr: ethr-rx-0 switches to threaded" "$m" 1
	echo 0 >"$nf"; read -r m <"$nf"
	expect_eq "renamed to ethr: ethr-rx-0 switches back to hard" "$m" 0
	tirq=$(irq_of ethr-tx-0)
	check "ethr-tx-0 (not opted in) has a directory, without a threaded file" \
		[ -n "$tirq" -a -d "/proc/irq/$tirq/ethr-tx-0" -a ! -e "/proc/irq/$tirq/ethr-tx-0/threaded" ]
	ip link set ethr down; ip link set ethr name eth0; ip link set eth0 up
else
	fail "ip link set eth0 name ethr, then up"
fi
