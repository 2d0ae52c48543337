#!/bin/sh
# e1000e's rx vector switched at run time: TCP transfers of a known payload
# from the host (host) arrive intact while the rx vector's threaded file is
# toggled at least 200 times; in hard mode the rx work runs in NET_RX
# softirq after each interrupt, in threaded mode the irq thread runs for
# each interrupt; with the device's own NAPI threads
# (/sys/class/net/eth0/threaded) the NAPI kthread polls in either mode.
#
# On the 7.3 base the series has no e1000e patch: e1000e's rx handler is
# switched like any hard handler (forced-threading style) and schedules
# NAPI from its thread.  Driving mainline's threaded NAPI from the
# vector's mode is the work of the net issue.
. /selftests/guest/lib.sh

TOGGLES=${TOGGLES:-200}
md5= bytes=
for a in $(cat /proc/cmdline); do
	case $a in
	irqtest.payload_md5=*) md5=${a#*=} ;;
	irqtest.payload_bytes=*) bytes=${a#*=} ;;
	esac
done
if [ -z "$md5" ]; then fail "the host passed the payload's md5 (irqtest.payload_md5=)"; exit 0; fi

ip link set lo up
ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0
i=0
while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect_eq "eth0 has carrier" "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" 1
rxq=eth0-rx-0
irq=$(irq_of $rxq)
f=/proc/irq/$irq/$rxq/threaded
if [ -z "$irq" ] || [ ! -w "$f" ]; then
	fail "e1000e uses MSI-X and $rxq has a threaded file"
	diag "$(grep eth0 /proc/interrupts)"
	exit 0
fi
pass "$rxq is irq $irq with $f"

printf '#!/bin/sh\nprintf R\ncat >/tmp/rx.bin\nprintf D\n' >/tmp/recv.sh
chmod +x /tmp/recv.sh
# receive: one transfer from the host; true when it arrived intact.
receive() {
	rm -f /tmp/rx.bin
	timeout 120 nc -l -p 5001 -e /tmp/recv.sh >/dev/null 2>&1
	got=$(md5sum /tmp/rx.bin 2>/dev/null | cut -d' ' -f1)
	[ "$got" = "$md5" ]
}
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

# 2. Where the rx work runs: NET_RX softirqs per rx interrupt.
for mode in 0 1; do
	echo $mode >"$f"
	s0=$(net_rx) i0=$(rx_irqs)
	pid=
	if [ $mode = 1 ]; then
		pid=$(irq_thread_pid "$irq" "$rxq")
		w0=$(wakeups "$pid")
		diag "threaded: irq thread $pid ($(cat "/proc/$pid/comm" 2>/dev/null)), $w0 wakeups so far"
	fi
	receive; r=$?
	s1=$(net_rx) i1=$(rx_irqs)
	ds=$((s1 - s0)) di=$((i1 - i0))
	diag "mode $mode: $di rx interrupts, $ds NET_RX softirqs"
	if [ $mode = 0 ]; then
		check "hard: transfer intact" [ $r = 0 ]
		check "hard: rx work in NET_RX softirq ($ds softirqs for $di interrupts)" [ $((4 * ds)) -ge "$di" -a "$di" -gt 0 ]
	else
		check "threaded: transfer intact" [ $r = 0 ]
		w1=$(wakeups "$pid")
		check "threaded: the irq thread ran ($((w1 - w0)) wakeups)" [ $((w1 - w0)) -gt 0 ]
		check "threaded: the rx vector took interrupts ($di)" [ "$di" -gt 0 ]
		diag "threaded: NAPI scheduled from the irq thread runs NET_RX there ($ds softirqs)"
	fi
done

# 3. Threaded rx vector and the device's own NAPI threads: they poll.
if echo 1 >/sys/class/net/eth0/threaded 2>/dev/null; then
	npid=
	for c in /proc/[0-9]*/comm; do
		case "$(cat "$c" 2>/dev/null)" in napi/eth0-*) npid=${c#/proc/}; npid=${npid%/comm} ;; esac
	done
	w0=$(wakeups "$npid") s0=$(net_rx)
	receive; r=$?
	w1=$(wakeups "$npid") s1=$(net_rx)
	check "dev threaded + rx threaded: transfer intact" [ $r = 0 ]
	check "dev threaded + rx threaded: the NAPI kthread polls ($((w1 - w0)) wakeups)" [ -n "$npid" -a $((w1 - w0)) -gt 0 ]
	diag "dev threaded: $((s1 - s0)) NET_RX softirqs"
	echo 0 >/sys/class/net/eth0/threaded
else
	fail "echo 1 >/sys/class/net/eth0/threaded"
fi
echo 0 >"$f"
receive
check "hard again: transfer intact" [ $? = 0 ]
expect_eq "eth0 has carrier at the end" "$(cat /sys/class/net/eth0/carrier)" 1
