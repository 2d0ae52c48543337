#!/bin/sh
# The swamp model (not a test; 'make bench' reads the "bench:" lines).  One
# shared completion queue, a submitter kthread on every vCPU, the queue's
# interrupt delivered to one CPU, a fixed amount of work per completion in
# the handler (kernel/irq/swamp_bench.c of bench-patches/).  A busy loop,
# the victim, is pinned to the interrupt's CPU.  Per mode and round:
#   bench: swamp,MODE,ROUND,COMPL_PER_S,VICTIM_PCT,IRQCPU_HARDIRQ_PCT,THREAD_ON_IRQCPU_PCT,THREAD_CPUS,IRQS_PER_COMPL,HARD_COMPL_PCT,MAX_HARD_MS,MAX_THREAD_MS,SOFTLOCKUPS,RCU_STALLS,AUTO_SWITCHES,SPURIOUS_DISABLED
# and once:
#   bench: calib,IRQ_CPU,ENTRY_NS,ROUND_TRIP_NS,COMPL_NS,WORK_LOOPS,SUBMIT_LOOPS,QD,SUBMITTERS
# Modes, switched at run time through /proc/irq/<N>/swampq1/threaded:
# hard, threaded-stock (thread bound to the interrupt's effective CPU),
# threaded-affinity (IRQF_IRQ_AFFINITY as in the series: the whole mask),
# threaded-aff-skip (IRQF_IRQ_AFFINITY with bench-patches/0003: the mask
# without the interrupt's CPU), auto (as in the series).  The placement
# changes by requesting the interrupt again (debugfs affinity), which
# creates a new thread, after setting irq_thread_skip_effective.
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

RUNTIME=8
ROUNDS=2
for a in $(cat /proc/cmdline); do
	case $a in
	irqbench.runtime=*) RUNTIME=${a#*=} ;;
	irqbench.rounds=*) ROUNDS=${a#*=} ;;
	esac
done
D=/sys/kernel/debug/irq_swamp
if [ ! -w $D/run ]; then
	fail "bench kernel has $D (CONFIG_IRQ_SWAMP_BENCH, bench-patches/)"
	exit 0
fi
irq=$(cat $D/irq)
proc=/proc/irq/$irq/swampq1/threaded
xcpu=$(cat "/proc/irq/$irq/effective_affinity_list")
ncpu=$(grep -c ^processor /proc/cpuinfo)
# This script and its helpers stay off the interrupt's CPU: in hard mode
# that CPU does nothing but the handler for as long as a run lasts.
ctl=0; [ "$xcpu" != 0 ] || ctl=1
taskset -p -c "$ctl" $$ >/dev/null
diag "swamp: irq $irq, mask $(cat /proc/irq/$irq/smp_affinity_list), effective CPU $xcpu, $ncpu vCPUs, ${RUNTIME}s per run, $ROUNDS rounds, control on CPU $ctl"

if echo 1 >$D/calibrate; then
	c=$(sed -n 's/^calib: //p' $D/stats)
	diag "calib: $c"
	val() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	p=/sys/module/swamp_bench/parameters
	diag "bench: calib,$xcpu,$(val entry_ns "$c"),$(val round_trip_ns "$c"),$(val compl_ns "$c"),$(cat $p/work_loops),$(cat $p/submit_loops),$(cat $p/qd),$ncpu"
	pass "calibration: entry and completion costs measured on CPU $xcpu"
else
	fail "calibration (an interrupt raised on CPU $xcpu was not handled)"
	exit 0
fi

# set_mode MODE: placement first (requesting again resets to hard), then
# the mode through the proc file.
skipfile=/sys/module/kernel/parameters/irq_thread_skip_effective
set_mode() {
	if [ -w $skipfile ]; then
		case $1 in threaded-aff-skip) echo Y ;; *) echo N ;; esac >$skipfile || return 1
	elif [ "$1" = threaded-aff-skip ]; then
		return 1
	fi
	case $1 in
	threaded-stock) echo 0 >$D/affinity ;;
	*) echo 1 >$D/affinity ;;
	esac || return 1
	case $1 in
	hard) want=0 ;;
	threaded-*) want=1 ;;
	auto) want=auto ;;
	esac
	echo $want >$proc || return 1
	read -r cur <$proc
	case "$want:$cur" in 0:0 | 1:1 | auto:*auto) return 0 ;; esac
	return 1
}
lockups() { dmesg | grep -c 'soft lockup\|hard LOCKUP'; }
stalls() { dmesg | grep -cE 'rcu: INFO: .*(detected stalls|self-detected stall)'; }
autos() { dmesg | grep -c '(swampq1): auto:'; }
# The spurious interrupt detector disabling the line ("nobody cared").
spurious() { dmesg | grep -c "irq $irq: nobody cared"; }

# xcpu_ticks: "USER:TOTAL" ticks of the interrupt's CPU (/proc/stat).  The
# victim is the only user task there.  Its own times (/proc/PID/stat) are
# no good here: a hard handler that runs for seconds is accounted as irq
# time only when it returns, and until then the scheduler charges it to
# the task it interrupted.
xcpu_ticks() {
	awk -v c="cpu$xcpu" '$1 == c { t = 0; for (i = 2; i <= 9; i++) t += $i; print $2 + $3 ":" t }' /proc/stat
}

# run MODE ROUND
run() {
	if ! set_mode "$1"; then
		fail "$1 round $2: mode set"
		return
	fi
	pid=$(irq_thread_pid "$irq" swampq1)
	[ -z "$pid" ] || diag "$1: thread $pid Cpus_allowed $(cpus_allowed "$pid") policy/rt_priority $(awk '{ print $41 "/" $40 }' "/proc/$pid/stat")"
	victim_start "$xcpu"
	sleep 0.2
	l0=$(lockups) s0=$(stalls) a0=$(autos) n0=$(spurious)
	x0=$(xcpu_ticks)
	if ! echo "$RUNTIME" >$D/run; then
		victim_stop
		fail "$1 round $2: run (every request completed in time)"
		diag "$(cat $D/stats)"
		diag "$(dmesg | grep -E "irq $irq: nobody cared|Disabling IRQ #$irq" | tail -2)"
		return
	fi
	x1=$(xcpu_ticks)
	victim_stop
	# The detectors report once the CPU gets out of the handler.
	sleep 2
	l1=$(lockups) s1=$(stalls) a1=$(autos) n1=$(spurious)
	[ -z "$pid" ] || diag "$1: thread $pid after the run: policy/rt_priority $(awk '{ print $41 "/" $40 }' "/proc/$pid/stat" 2>/dev/null), $(grep -h ctxt_switches "/proc/$pid/status" 2>/dev/null | tr -s '\t\n' '  ')"
	st=$(cat $D/stats)
	diag "$1 round $2: $(echo "$st" | sed -n 's/^counts: //p')"
	line=$(echo "$st" | awk -v x="$xcpu" -v v=$((${x1%:*} - ${x0%:*})) -v t=$((${x1#*:} - ${x0#*:})) \
		-v l=$((l1 - l0)) -v s=$((s1 - s0)) -v a=$((a1 - a0)) -v sp=$((n1 - n0)) '
		$1 != "percpu:" { for (i = 2; i <= NF; i++) { split($i, e, "="); kv[$1 e[1]] = e[2] } }
		$1 == "percpu:" { for (i = 2; i <= NF; i++) { split($i, e, "="); cpu = substr(e[1], 4)
				split(e[2], g, ","); split(g[1], h, ":"); split(g[2], k, ":")
				irqns[cpu] = h[2]; tc[cpu] = k[2] } }
		END {
			ns = kv["run:ns"]; c = kv["counts:completed"]; irqs = kv["counts:irqs"]; ch = kv["counts:compl_hard"]
			ct = kv["counts:compl_thread"]; mh = kv["counts:max_hard_ns"]; mt = kv["counts:max_thread_ns"]
			secs = ns / 1e9; if (secs <= 0) secs = 1
			where = ""; for (cpu in tc) if (ct > 0 && tc[cpu] * 100 >= ct) where = where (where == "" ? "" : "/") cpu ":" int(tc[cpu] * 100 / ct + 0.5)
			if (where == "") where = "-"
			printf "%.0f,%.1f,%.1f,%.1f,%s,%.3f,%.1f,%.1f,%.1f,%d,%d,%d,%d",
				c / secs, 100 * v / (t > 0 ? t : 1), irqns[x] / ns * 100,
				(ct > 0 ? 100 * tc[x] / ct : 0), where, (c > 0 ? irqs / c : 0),
				(c > 0 ? 100 * ch / c : 0), mh / 1e6, mt / 1e6, l, s, a, sp }')
	diag "bench: swamp,$1,$2,$line"
	pass "$1 round $2: ran ${RUNTIME}s"
	# A hard handler that ran for seconds leaves the CPU's task clock
	# frozen afterwards while its irq time is paid back (the scheduler's
	# clock was updated during it, the irq time counted only at its end),
	# and meanwhile the fair server outranks a real-time thread there.
	# Let it pass before the next mode.
	mh=$(echo "$line" | awk -F, '{ printf "%d", $8 / 1000 }')
	[ "$mh" = 0 ] || { diag "$1 round $2: handler ran ${mh}s at a time: settling $((mh + 2))s"; sleep $((mh + 2)); }
}

# Each round starts one mode further, so that no mode always follows the
# same one.
MODES="hard threaded-stock threaded-affinity threaded-aff-skip auto"
r=1
while [ $r -le "$ROUNDS" ]; do
	order=$(echo $MODES $MODES | awk -v r=$r '{ for (i = 0; i < 5; i++) printf "%s ", $(1 + (r - 1 + i) % 5) }')
	diag "round $r: $order"
	for m in $order; do
		run $m $r
	done
	r=$((r + 1))
done
set_mode hard || fail "back to hard mode"
