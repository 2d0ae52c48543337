#!/bin/sh
# UDP receive rate on e1000e, in the spirit of Paolo Abeni's numbers in the
# 2016 threadable irq thread: one receiver pinned to the CPU the rx
# interrupt is delivered to, while the rx work runs
#   softirq        rx vector in hard mode, NAPI in NET_RX softirq (and
#                  ksoftirqd) there
#   proc-threaded  rx vector switched to threaded mode through its proc
#                  file: e1000e moves NAPI to its kthread (patch 19),
#                  kept on the vector's affinity
#   napi-kthread   rx vector in hard mode, /sys/class/net/eth0/threaded=1
#                  (mainline's threaded NAPI switched for the device)
# The last two are the same polling model reached through two interfaces.
# for 1 and 4 flows of 64 and 1400 byte datagrams; modes interleaved, each
# combination irqbench.rounds times.  Lines "# bench: udp,..." for
# ci/bench.sh; the few checks only say whether the bench could run.
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

SECS=5 ROUNDS=2
for a in $(cat /proc/cmdline); do
	case $a in
	irqbench.udp_secs=*) SECS=${a#*=} ;;
	irqbench.rounds=*) ROUNDS=${a#*=} ;;
	esac
done
ip link set lo up
ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0
i=0
while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
rxq=eth0-rx-0
irq=$(irq_of $rxq)
f=/proc/irq/$irq/$rxq/threaded
if [ -z "$irq" ] || [ ! -w "$f" ] || [ ! -x /usr/bin/udp_sink ] || [ ! -x /usr/bin/napi_nl ]; then
	fail "e1000e rx vector with a threaded file, udp_sink and napi_nl"
	exit 0
fi
pass "$rxq is irq $irq"
cpu=$(cat "/proc/irq/$irq/effective_affinity_list")
diag "bench: receiver pinned to CPU $cpu (effective affinity of $rxq); $SECS s per run, $ROUNDS rounds"
diag "bench columns: mode,size,flows,round,sent,received,pps,loss_pct,rcvbuf_errors,netrx_per_irq,worker_cpu_pct,worker_last_cpu"

# The NAPI kthread's pid as netlink reports it (0: none); e1000e switches
# NAPI for the proc file from a work item, so wait for it (at most 5 s).
napi_pid() { napi_nl get eth0 | sed -n 's/.* pid=\([0-9]*\) .*/\1/p' | head -n1; }
wait_napi_pid() {
	i=0
	while [ $i -lt 50 ]; do
		p=$(napi_pid)
		if [ "$1" = 0 ]; then [ "$p" = 0 ] && return; else [ "${p:-0}" != 0 ] && return; fi
		usleep 100000; i=$((i + 1))
	done
	diag "NAPI kthread: pid '$p' after 5 s, wanted $([ "$1" = 0 ] && echo none || echo one)"
}
set_mode() {
	case $1 in
	softirq) echo 0 >"$f"; echo 0 >/sys/class/net/eth0/threaded; wait_napi_pid 0 ;;
	proc-threaded) echo 0 >/sys/class/net/eth0/threaded; wait_napi_pid 0; echo 1 >"$f"; wait_napi_pid 1 ;;
	napi-kthread) echo 0 >"$f"; wait_napi_pid 0; echo 1 >/sys/class/net/eth0/threaded; wait_napi_pid 1 ;;
	esac
}
# The task doing the rx work in a mode (none for softirq).
worker_pid() {
	case $1 in
	softirq) ;;
	*) p=$(napi_pid); [ "${p:-0}" != 0 ] && echo "$p" ;;
	esac
}
udp_errs() { awk '$1 == "Udp:" && $2 ~ /^[0-9]/ { print $6 }' /proc/net/snmp; }
net_rx() { awk '$1 == "NET_RX:" { for (i = 2; i <= NF; i++) s += $i } END { print s + 0 }' /proc/softirqs; }
rx_irqs() { awk -v q=$rxq '$NF == q { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) s += $i } END { print s + 0 }' /proc/interrupts; }
ticks() { [ -n "$1" ] && awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

runs=0 bad=0
r=1
while [ $r -le "$ROUNDS" ]; do
	for size in 64 1400; do
		for flows in 1 4; do
			for mode in softirq proc-threaded napi-kthread; do
				set_mode $mode
				taskset -c "$cpu" udp_sink 5002 $flows $((SECS + 30)) 1000 >/tmp/sink.out &
				sink=$!
				printf '#!/bin/sh\necho "%s %s %s"\nread -r w n\necho "$n" >/tmp/sent\n' \
					$size $flows "$SECS" >/tmp/ctl.sh
				chmod +x /tmp/ctl.sh
				rm -f /tmp/sent
				wp=$(worker_pid $mode)
				e0=$(udp_errs) s0=$(net_rx) i0=$(rx_irqs) w0=$(ticks "$wp") t0=$(uptime_ticks)
				timeout 90 nc -l -p 5001 -e /tmp/ctl.sh >/dev/null 2>&1
				wait $sink
				e1=$(udp_errs) s1=$(net_rx) i1=$(rx_irqs) w1=$(ticks "$wp") t1=$(uptime_ticks)
				read -r pk by secs </tmp/sink.out
				sent=$(cat /tmp/sent 2>/dev/null)
				if [ -z "$sent" ] || [ -z "$pk" ] || [ "$pk" = 0 ]; then
					bad=$((bad + 1))
					diag "$mode $size B x $flows: no traffic (sent '${sent}', sink '$(cat /tmp/sink.out)')"
					continue
				fi
				wl=
				[ -n "$wp" ] && wl=$(last_cpu "$wp")
				awk -v m=$mode -v s=$size -v fl=$flows -v r=$r -v sent="$sent" -v pk="$pk" -v secs="$secs" \
					-v e=$((e1 - e0)) -v ds=$((s1 - s0)) -v di=$((i1 - i0)) -v w=$((w1 - w0)) -v t=$((t1 - t0)) -v wl="$wl" \
					'BEGIN { printf "bench: udp,%s,%d,%d,%d,%d,%d,%.0f,%.1f,%d,%.2f,%.1f,%s\n", m, s, fl, r, sent, pk,
						(secs > 0 ? pk / secs : 0), (sent > 0 ? 100 * (sent - pk) / sent : 0), e,
						(di > 0 ? ds / di : 0), (t > 0 ? 100 * w / t : 0), wl }' | sed 's/^/# /' >&"$TAP_FD"
				runs=$((runs + 1))
			done
		done
	done
	r=$((r + 1))
done
set_mode softirq
printf '#!/bin/sh\necho END\n' >/tmp/ctl.sh
timeout 20 nc -l -p 5001 -e /tmp/ctl.sh >/dev/null 2>&1
check "$runs bench runs with traffic" [ $runs -gt 0 ]
expect_eq "no run without traffic" $bad 0
