#!/bin/sh
# irq-autothread on e1000e's rx vector, whose threaded mode is its NAPI
# instance's: a UDP flood makes the vector's CPU spend its time in NET_RX
# softirq, beside a CPU-bound task pinned there.  The tool, which counts
# softirq time with hard irq time and measures the NAPI kthread in threaded
# mode, must switch the vector to threaded NAPI during the flood and back
# to hard irq once it ended.  Diagnostics: the task's loop iterations a
# second and the received datagrams a second before and after the switch
# (one run: not a benchmark).
. /selftests/guest/lib.sh
. /selftests/guest/e1000e.sh

TOOL=/kselftests/irq/irq-autothread
SECS=20
e1000e_up
e1000e_carrier
e1000e_rx_vector
if [ -z "$irq" ] || [ ! -w "$f" ] || [ ! -x $TOOL ] || [ ! -x /usr/bin/udp_sink ]; then
	fail "e1000e rx vector with a threaded file, irq-autothread and udp_sink"
	exit 0
fi
pass "$rxq is irq $irq"
cpu=1
e1000e_pin_rx $cpu
echo 0 >"$f"

# The CPU-bound task: loop iterations, counted in /tmp/spin every 1000
taskset -c $cpu sh -c 'n=0; while :; do n=$((n + 1)); [ $((n % 1000)) = 0 ] && echo $n >/tmp/spin; done' &
spin=$!
spun() { cat /tmp/spin 2>/dev/null || echo 0; }

$TOOL -H 50 -L 20 -S 50 -r 1000 -h 2000 -p 100 "$irq/$rxq" >/tmp/tool.log 2>&1 &
tool=$!

taskset -c 0 udp_sink 5002 1 $((SECS + 60)) 3000 >/tmp/sink.out &
sink=$!
printf '#!/bin/sh\necho "64 1 %s"\nread -r w n\necho "$n" >/tmp/sent\n' "$SECS" >/tmp/ctl.sh
chmod +x /tmp/ctl.sh
rm -f /tmp/sent
timeout 120 nc -l -p 5001 -e /tmp/ctl.sh >/dev/null 2>&1 &
ctl=$!

# Sample every 0.5 s until the flood is over: the mode, the task's count,
# the datagrams received (udp_sink reports only at its end: use the UDP
# InDatagrams counter).
rcvd() { awk '$1 == "Udp:" && $2 ~ /^[0-9]/ { print $2 }' /proc/net/snmp; }
net_rx() { awk -v c=$((cpu + 2)) '$1 == "NET_RX:" { print $c }' /proc/softirqs; }
t=0
: >/tmp/samples
while kill -0 $ctl 2>/dev/null && [ $t -lt 200 ]; do
	# the NAPI kthread's last CPU (- when there is none)
	kp=$(napi_nl get eth0 | sed -n 's/.* pid=\([1-9][0-9]*\) .*/\1/p' | head -n1)
	echo "$t $(cat "$f") $(spun) $(rcvd) $(net_rx) ${kp:+$(last_cpu "$kp")}" >>/tmp/samples
	usleep 500000; t=$((t + 1))
done
wait $sink
# After the flood: back to hard within hold_ms (2 s) and a margin
i=0
while [ "$(cat "$f")" != 0 ] && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
mode_after=$(cat "$f")
kill $tool $spin 2>/dev/null
wait $tool 2>/dev/null

printf '#!/bin/sh\necho END\n' >/tmp/ctl.sh
timeout 20 nc -l -p 5001 -e /tmp/ctl.sh >/dev/null 2>&1

sent=$(cat /tmp/sent 2>/dev/null)
read -r pk by secs </tmp/sink.out
diag "flood: sent ${sent:-?}, received ${pk:-0} datagrams in ${secs:-?} s"
diag "tool: $(tr '\n' '|' </tmp/tool.log)"
check "the flood arrived (${pk:-0} datagrams)" [ "${pk:-0}" -gt 1000 ]
nthr=$(grep -c "(eth0-rx-0): threaded, CPU $cpu spent [0-9]*% in hard irq and softirq" /tmp/tool.log)
nhard=$(grep -c "(eth0-rx-0): hard irq again" /tmp/tool.log)
expect_eq "the tool switched the vector to threaded NAPI once during the flood" "$nthr" 1
check "... the vector read threaded in the samples of the flood" grep -q '^[0-9]* 1 ' /tmp/samples
expect_eq "the tool switched it back to hard irq once after the flood" "$nhard" 1
expect_eq "... and the vector reads hard irq at the end" "$mode_after" 0
# Work, receive rate and NET_RX softirqs on the vector's CPU per 0.5 s
# sample in each mode, over the samples that datagrams came in and that
# began and ended in that mode.  One run, not a benchmark (for that:
# make bench, ci/bench.sh autothread).
awk '{ if (NR > 1 && $4 > r && $2 == pm) { m = $2; w[m] += $3 - s; d[m] += $4 - r; x[m] += $5 - q; n[m]++ }
	s = $3; r = $4; q = $5; pm = $2 }
	END { for (m = 0; m <= 1; m++) if (n[m]) printf "mode %d: %d samples, task %d iterations/s, received %d datagrams/s, NET_RX %d/s on CPU '$cpu'\n",
		m, n[m], 2 * w[m] / n[m], 2 * d[m] / n[m], 2 * x[m] / n[m] }' /tmp/samples >/tmp/rates
while read -r line; do diag "$line"; done </tmp/rates
# The switch took effect during the flood: NAPI left the vector's CPU's
# NET_RX softirq for its kthread ("net: hand a NAPI instance that softirq
# keeps polling to its kthread"; a NAPI instance that keeps using its
# whole budget is not scheduled again while the flood lasts).
hard_rx=$(awk '$2 == "0:" { sub("/s", "", $12); print $12 }' /tmp/rates)
thr_rx=$(awk '$2 == "1:" { sub("/s", "", $12); print $12 }' /tmp/rates)
# Measured with the take-over: 0/s and 83/s against 788/s and 639/s;
# without it 920-998/s against 835-875/s.  The bound is a half: what
# brings NET_RX back on CPU 1 at times in threaded mode is not traced.
fewer_net_rx() { [ -n "$thr_rx" ] && [ "${hard_rx:-0}" -gt 0 ] && [ $((thr_rx * 2)) -le "$hard_rx" ]; }
check "threaded: NET_RX ran on CPU $cpu at most half as often as in hard mode (${thr_rx:-?}/s, ${hard_rx:-?}/s)" fewer_net_rx
# per sample: mode, NET_RX on CPU 1 since the last sample, the NAPI
# kthread's last CPU
diag "samples (mode, NET_RX on CPU $cpu, kthread's CPU): $(awk 'NR > 1 { printf "%s:%d:%s ", $2, $5 - q, ($6 == "" ? "-" : $6) } { q = $5 }' /tmp/samples)"
