#!/bin/sh
# The irq-autothread NIC table (ci/bench.sh autothread); not a test.  CPU 1
# takes e1000e's rx vector and runs a CPU-bound task (a shell loop that
# counts its iterations); CPU 0 runs the UDP receiver.  Each run, the host
# floods the rx vector for SECS seconds with 64-byte datagrams, with the
# vector in one mode:
#   hard      hard irq, NAPI in NET_RX softirq on CPU 1 (the file 0)
#   threaded  threaded NAPI (the file 1), the kthread placed by the
#             scheduler
#   auto      the file 0 at the start, irq-autothread watching the vector
#             (as selftests/e1000e-autothread runs it)
# Every mode once per round, in a new random order per round, ROUNDS
# rounds.  Per run a line "# bench: autothread,MODE,ROUND,WORK_PER_S,
# RX_PER_S,TO_THREADED,TO_HARD,THREADED_PCT,NETRX_CPU1_PER_S": the task's
# iterations and the datagrams received a second of the flood, the
# switches the tool made in the run (auto: to threaded, back to hard),
# the share of 0.25 s samples of the flood in which the file read 1, and
# the NET_RX softirqs a second on CPU 1.  The checks say only whether
# the bench could run.
. /selftests/guest/lib.sh
. /selftests/guest/e1000e.sh

TOOL=/kselftests/irq/irq-autothread
SECS=8 ROUNDS=10 SEED=$$
for a in $(cat /proc/cmdline); do
	case $a in
	irqbench.autothread_secs=*) SECS=${a#*=} ;;
	irqbench.rounds=*) ROUNDS=${a#*=} ;;
	irqbench.seed=*) SEED=${a#*=} ;;
	esac
done
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
diag "bench: $SECS s floods of 64 B datagrams, $ROUNDS rounds, seed $SEED"

# The CPU-bound task: loop iterations, counted in /tmp/spin every 1000
# (renamed into place: a reader never sees it empty)
taskset -c $cpu sh -c 'n=0; while :; do n=$((n + 1)); [ $((n % 1000)) = 0 ] && echo $n >/tmp/spin.t && mv /tmp/spin.t /tmp/spin; done' &
spin=$!
net_rx() { awk -v c=$((cpu + 2)) '$1 == "NET_RX:" { print $c }' /proc/softirqs; }
# The control connection's script: the flood's parameters, and the task's
# count, NET_RX and the time (centiseconds) when it starts and ends
cat >/tmp/ctl.sh <<CTL
#!/bin/sh
net_rx() { awk -v c=$((cpu + 2)) '\$1 == "NET_RX:" { print \$c }' /proc/softirqs; }
echo "\$(cat /tmp/spin) \$(net_rx) \$(awk '{ print int(\$1 * 100) }' /proc/uptime)" >/tmp/flood.start
echo "64 1 $SECS"
read -r w n
echo "\$(cat /tmp/spin) \$(net_rx) \$(awk '{ print int(\$1 * 100) }' /proc/uptime)" >/tmp/flood.end
echo "\$n" >/tmp/sent
CTL
chmod +x /tmp/ctl.sh

# The modes of round R in a random order
order() {
	awk -v s=$((SEED + $1)) 'BEGIN { srand(s); n = split("hard threaded auto", m, " ")
		for (i = n; i > 1; i--) { j = int(rand() * i) + 1; t = m[i]; m[i] = m[j]; m[j] = t }
		for (i = 1; i <= n; i++) printf "%s ", m[i] }'
}
runs=0 bad=0
r=1
while [ $r -le "$ROUNDS" ]; do
	for mode in $(order $r); do
		tool=
		case $mode in
		hard | auto) echo 0 >"$f" ;;
		threaded) echo 1 >"$f" ;;
		esac
		if [ $mode = auto ]; then
			$TOOL -H 50 -L 20 -S 50 -r 1000 -h 2000 -p 100 "$irq/$rxq" >/tmp/tool.log 2>&1 &
			tool=$!
			sleep 1
		fi
		rm -f /tmp/sent /tmp/flood.start /tmp/flood.end
		taskset -c 0 udp_sink 5002 1 $((SECS + 60)) 2000 >/tmp/sink.out &
		sink=$!
		# the vector's mode every 0.25 s while the flood lasts
		: >/tmp/modes
		(while [ ! -e /tmp/flood.end ]; do
			[ -e /tmp/flood.start ] && cat "$f" >>/tmp/modes
			usleep 250000
		done) &
		sampler=$!
		timeout 120 nc -l -p 5001 -e /tmp/ctl.sh >/dev/null 2>&1
		wait $sink
		touch /tmp/flood.end
		wait $sampler
		thr=0 hard=0
		if [ -n "$tool" ]; then
			kill $tool
			wait $tool 2>/dev/null
			thr=$(grep -c "($rxq): threaded, CPU $cpu spent" /tmp/tool.log)
			hard=$(grep -c "($rxq): hard irq again" /tmp/tool.log)
		fi
		read -r pk by secs </tmp/sink.out
		if [ ! -s /tmp/flood.end ] || [ -z "$pk" ] || [ "$pk" = 0 ]; then
			bad=$((bad + 1))
			diag "$mode round $r: no traffic (sink '$(cat /tmp/sink.out)')"
			r=$((r + 1))
			continue 2
		fi
		read -r w0 x0 t0 </tmp/flood.start
		read -r w1 x1 t1 </tmp/flood.end
		tp=$(awk '{ n++; s += $1 } END { print n ? int(100 * s / n) : 0 }' /tmp/modes)
		awk -v m=$mode -v r=$r -v w=$((w1 - w0)) -v x=$((x1 - x0)) -v t=$((t1 - t0)) -v pk="$pk" -v secs="$secs" \
			-v thr="$thr" -v hard="$hard" -v tp="$tp" \
			'BEGIN { printf "bench: autothread,%s,%d,%.0f,%.0f,%d,%d,%d,%.0f\n", m, r, (t > 0 ? 100 * w / t : 0),
				(secs > 0 ? pk / secs : 0), thr, hard, tp, (t > 0 ? 100 * x / t : 0) }' | sed 's/^/# /' >&"$TAP_FD"
		runs=$((runs + 1))
	done
	r=$((r + 1))
done
echo 0 >"$f"
kill $spin 2>/dev/null
printf '#!/bin/sh\necho END\n' >/tmp/ctl.sh
timeout 20 nc -l -p 5001 -e /tmp/ctl.sh >/dev/null 2>&1
check "$runs bench runs with traffic" [ $runs -gt 0 ]
expect_eq "no run without traffic" $bad 0
exit 0
