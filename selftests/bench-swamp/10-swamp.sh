#!/bin/sh
# The swamp model (not a test; 'make bench' reads the "bench:" lines and
# ci/bench-swamp.py makes the table).  Completion queues whose interrupt
# handling, not an emulated device, is the bottleneck
# (kernel/irq/swamp_bench.c of bench-patches/): a submitter kthread on
# every vCPU, each queue's interrupt delivered to one CPU of its mask, a
# fixed amount of work per completion in the handler, and a victim on every
# CPU that counts the work it gets done.
#
# Swept in one boot, every combination once per round, the rounds'
# combinations in a random order:
#   C/E      completion work against the interrupt entry cost, both
#            measured here (RATIOS);
#   regime   idle: submitters sleep while their depth is full, victims are
#            SCHED_IDLE (the mask has idle capacity);
#            busy: submitters keep working while their depth is full,
#            victims are SCHED_NORMAL (no CPU has idle capacity);
#            qd1: one request in flight per submitter (latency);
#   mode     hard; pinned (stock threaded: the thread bound to the
#            interrupt's CPU); fifo-mask (v2's IRQF_IRQ_AFFINITY, bench-patches/0001:
#            SCHED_FIFO, the whole mask); fifo-skip (bench-patches/0006: the
#            mask without the interrupt's CPU); fair-mask (the whole mask,
#            the thread SCHED_NORMAL nice -20, so that the fair scheduler
#            picks an idle CPU of the mask at each wakeup); fifo-idle
#            (bench-patches/0007: SCHED_FIFO, the whole mask, and an
#            interrupt that wakes the thread on its own busy CPU sends it
#            to an idle or SCHED_IDLE-only CPU of the mask if there is one);
#            hybN (the series' hard budget, as nvme.irq_hard_budget: the
#            pinned thread, and a primary handler that takes up to N
#            completions in hard irq context per interrupt before it wakes
#            the thread).
#            swamp.modes=M1,M2,... on the kernel command line runs fewer.
# Then regime long: the highest C/E, as idle, runs of LONG seconds (8),
# longer than the RCU stall timeout (3 s, vm.conf), LONG_ROUNDS (3) rounds
# of hard, pinned and the hybN modes in a random order: a handler that
# never returns in hard irq context shows up as RCU stall reports there.
# swamp.long=0 leaves it out.
# Lines:
#   bench: swampcal,IRQ_CPU,NCPU,NQ,E_NS,C_NS_PER_KLOOP,RT_HARD_NS,RT_PINNED_NS,RT_SKIP_NS
#   bench: swamppt,RATIO,LOOPS,C_NS,E_NS
#   bench: swamprun,REGIME,RATIO,MODE,ROUND,LOOPS,COMPL_PER_S,IRQS_PER_COMPL,
#          WAKEUPS_PER_COMPL,THREAD_ON_IRQCPU_PCT,VICTIM_PER_S,VICTIM_PER_CPU,
#          SPIN_PER_S,IRQCPU_HARDIRQ_PCT,MAX_HARD_MS,LAT_P50_US,LAT_P99_US,
#          LOCKUPS,STALLS,SPURIOUS
. /selftests/guest/lib.sh

RUNTIME=2
ROUNDS=5
LONG=8
LONG_ROUNDS=3
RATIOS="0.5 1.5 5 15 50"
QD1_RATIO=1.5
QD=32
MODES="hard pinned hyb8 hyb64 fifo-mask fifo-skip fair-mask fifo-idle"
for a in $(cat /proc/cmdline); do
	case $a in
	swamp.runtime=*) RUNTIME=${a#*=} ;;
	swamp.rounds=*) ROUNDS=${a#*=} ;;
	swamp.ratios=*) RATIOS=$(echo "${a#*=}" | tr , ' ') ;;
	swamp.modes=*) MODES=$(echo "${a#*=}" | tr , ' ') ;;
	swamp.long=*) LONG=${a#*=} ;;
	esac
done
case " $RATIOS " in *" $QD1_RATIO "*) ;; *) QD1_RATIO=${RATIOS%% *} ;; esac
D=/sys/kernel/debug/irq_swamp
P=/sys/module/swamp_bench/parameters
if [ ! -w $D/run ]; then
	fail "bench kernel has $D (CONFIG_IRQ_SWAMP_BENCH, bench-patches/)"
	exit 0
fi
irqs=$(cat $D/irq)
nq=$(echo $irqs | wc -w)
irq0=${irqs%% *}
xcpu=$(cat "/proc/irq/$irq0/effective_affinity_list")
ncpu=$(grep -c ^processor /proc/cpuinfo)
# This script stays off queue 1's interrupt CPU.
ctl=0; [ "$xcpu" != 0 ] || ctl=1
taskset -p -c "$ctl" $$ >/dev/null
for i in $irqs; do
	diag "swamp: irq $i mask $(cat /proc/irq/$i/smp_affinity_list) effective CPU $(cat /proc/irq/$i/effective_affinity_list)"
done
diag "swamp: $ncpu vCPUs, $nq queues, ${RUNTIME}s per run, $ROUNDS rounds, C/E $RATIOS, qd $QD, control on CPU $ctl"
echo $QD >$P/qd

skipfile=/sys/module/kernel/parameters/irq_thread_skip_effective
idlefile=/sys/module/kernel/parameters/sched_rt_wake_idle
# set_mode MODE: placement first (requesting again resets to hard and
# creates a new thread), then the mode through each queue's proc file.
set_mode() {
	[ -w $skipfile ] || return 1
	case $1 in fifo-skip) echo Y ;; *) echo N ;; esac >$skipfile || return 1
	[ -w $idlefile ] || return 1
	case $1 in fifo-idle) echo Y ;; *) echo N ;; esac >$idlefile || return 1
	case $1 in pinned | hyb*) echo 0 ;; *) echo 1 ;; esac >$D/affinity || return 1
	case $1 in hyb*) echo "${1#hyb}" ;; *) echo 0 ;; esac >$P/hard_budget || return 1
	case $1 in hard) want=0 ;; *) want=1 ;; esac
	q=1
	for i in $irqs; do
		f=/proc/irq/$i/swampq$q/threaded
		echo $want >"$f" || return 1
		read -r cur <"$f"
		[ "$cur" = "$want" ] || return 1
		q=$((q + 1))
	done
	[ "$1" != fair-mask ] || echo 1 >$D/thread_fair || return 1
}
val() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
calib() {
	echo 1 >$D/calibrate || return 1
	sed -n 's/^calib: //p' $D/stats
}

# Calibration: E (entry, hard irq time) and C per loop in hard mode; the
# round trip of a raised interrupt in hard, pinned and fifo-skip mode
# (W = pinned - hard: a wakeup and switches on one CPU; W_r = fifo-skip -
# hard: across CPUs).
echo 2000 >$P/work_loops
set_mode hard && c=$(calib) || { fail "calibration in hard mode"; exit 0; }
E=$(val entry_ns "$c"); rth=$(val round_trip_ns "$c"); ck=$(($(val compl_ns "$c") / 2))
set_mode pinned && c=$(calib) || { fail "calibration in pinned mode"; exit 0; }
rtp=$(val round_trip_ns "$c")
set_mode fifo-skip && c=$(calib) || { fail "calibration in fifo-skip mode"; exit 0; }
rts=$(val round_trip_ns "$c")
diag "bench: swampcal,$xcpu,$ncpu,$nq,$E,$ck,$rth,$rtp,$rts"
pass "calibration: E ${E} ns, C ${ck} ns per 1000 loops, round trip hard/pinned/skip $rth/$rtp/$rts ns"

# Loops per sweep point from the calibration, and each point's C and E
# measured again with those loops.
set_mode hard
LOOPS=
for r in $RATIOS; do
	l=$(awk -v r="$r" -v e="$E" -v k="$ck" 'BEGIN { l = int(r * e * 1000 / k + 0.5); print (l < 1 ? 1 : l) }')
	echo "$l" >$P/work_loops
	c=$(calib) || { fail "calibration at C/E $r"; exit 0; }
	diag "bench: swamppt,$r,$l,$(val compl_ns "$c"),$(val entry_ns "$c")"
	LOOPS="$LOOPS $r:$l"
done
loops_of() { for x in $LOOPS; do [ "${x%:*}" != "$1" ] || echo "${x#*:}"; done; }

lockups() { dmesg | grep -c 'soft lockup\|hard LOCKUP'; }
stalls() { dmesg | grep -cE 'rcu: INFO: .*(detected stalls|self-detected stall)'; }
spurious() { n=0; for i in $irqs; do n=$((n + $(dmesg | grep -c "irq $i: nobody cared"))); done; echo $n; }

# run REGIME RATIO MODE ROUND
run() {
	case $1 in
	idle | long) echo $QD >$P/qd; echo N >$P/submit_spin; echo 1 >$P/victim_policy ;;
	busy) echo $QD >$P/qd; echo Y >$P/submit_spin; echo 2 >$P/victim_policy ;;
	qd1) echo 1 >$P/qd; echo N >$P/submit_spin; echo 1 >$P/victim_policy ;;
	esac
	echo "$(loops_of "$2")" >$P/work_loops
	if ! set_mode "$3"; then
		fail "$1 $2 $3 round $4: mode set"
		return
	fi
	l0=$(lockups) s0=$(stalls) n0=$(spurious)
	if ! echo "$RUNTIME" >$D/run; then
		fail "$1 $2 $3 round $4: run (every request completed in time)"
		diag "$(cat $D/stats)"
		return
	fi
	st=$(cat $D/stats)
	# The detectors report once the CPU gets out of the handler.
	mh=$(echo "$st" | awk '/^queue/ { for (i = 2; i <= NF; i++) if ($i ~ /^max_hard_ns=/) { split($i, e, "="); if (e[2] > m) m = e[2] } } END { printf "%d", m / 1e9 }')
	[ "$mh" = 0 ] || sleep 2
	l1=$(lockups) s1=$(stalls) n1=$(spurious)
	line=$(echo "$st" | awk -v l=$((l1 - l0)) -v s=$((s1 - s0)) -v sp=$((n1 - n0)) '
		function kv(str, key,   i, e) { for (i = 2; i <= NF; i++) { split($i, e, "="); if (e[1] == key) return e[2] } return 0 }
		$1 == "run:" { ns = kv($0, "ns") }
		$1 == "counts:" { c = kv($0, "completed") }
		$1 ~ /^queue/ { nq++; irqs += kv($0, "irqs"); ct += kv($0, "compl_thread"); calls += kv($0, "calls_thread")
			onirq += kv($0, "thread_on_irq_cpu"); xc[kv($0, "irq_cpu")] = 1
			mh = (kv($0, "max_hard_ns") > mh ? kv($0, "max_hard_ns") : mh)
			if (nq == 1) p50 = kv($0, "lat_p50_ns")
			p99 = (kv($0, "lat_p99_ns") > p99 ? kv($0, "lat_p99_ns") : p99) }
		$1 == "percpu:" { for (i = 2; i <= NF; i++) { split($i, e, "="); cpu = substr(e[1], 4); n = split(e[2], g, ",")
				for (j = 1; j <= n; j++) { split(g[j], h, ":"); pc[cpu, h[1]] = h[2] }
				cpus[++ncpu] = cpu } }
		END {
			secs = ns / 1e9; if (secs <= 0) secs = 1
			vs = ""; vt = 0; sp_w = 0; hi = 0; nx = 0
			for (k = 1; k <= ncpu; k++) { cpu = cpus[k]; v = pc[cpu, "victim_work"] / secs; vt += v
				vs = vs (k > 1 ? "/" : "") sprintf("%.0f", v); sp_w += pc[cpu, "spin_work"] / secs
				if (cpu in xc) { hi += pc[cpu, "irq_ns"] / ns * 100; nx++ } }
			printf "%.0f,%.3f,%.3f,%.1f,%.0f,%s,%.0f,%.1f,%.1f,%.1f,%.1f,%d,%d,%d",
				c / secs, (c > 0 ? irqs / c : 0), (c > 0 ? calls / c : 0), (ct > 0 ? 100 * onirq / ct : 0),
				vt, vs, sp_w, (nx ? hi / nx : 0), mh / 1e6, p50 / 1000, p99 / 1000, l, s, sp }')
	diag "bench: swamprun,$1,$2,$3,$4,$(loops_of "$2"),$line"
	pass "$1 C/E $2 $3 round $4: ran ${RUNTIME}s"
	# A hard handler that ran for seconds leaves the CPU's task clock
	# frozen afterwards while its irq time is paid back.  Let it pass.
	[ "$mh" = 0 ] || sleep $((mh + 1))
}

combos() {
	for m in $MODES; do
		for r in $RATIOS; do
			echo "idle $r $m"
			echo "busy $r $m"
		done
		echo "qd1 $QD1_RATIO $m"
	done
}
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
diag "swamp: shuffle seed $seed"
round=1
while [ $round -le "$ROUNDS" ]; do
	combos | awk -v s=$((seed + round)) 'BEGIN { srand(s) } { print rand() "\t" $0 }' | sort -n | cut -f2- >/tmp/order
	diag "round $round: $(wc -l </tmp/order) runs"
	while read -r rg ra mo; do
		run "$rg" "$ra" "$mo" "$round"
	done </tmp/order
	round=$((round + 1))
done

lmodes=
for m in $MODES; do case $m in hard | pinned | hyb*) lmodes="$lmodes $m" ;; esac; done
lratio=
for r in $RATIOS; do lratio=$r; done
if [ "$LONG" -gt 0 ] && [ -n "$lmodes" ]; then
	short=$RUNTIME
	RUNTIME=$LONG
	round=1
	while [ $round -le $LONG_ROUNDS ]; do
		for m in $lmodes; do echo "$m"; done |
			awk -v s=$((seed + 100 + round)) 'BEGIN { srand(s) } { print rand() "\t" $0 }' | sort -n | cut -f2- >/tmp/order
		diag "long round $round: C/E $lratio, ${LONG}s:$(tr '\n' ' ' </tmp/order)"
		while read -r mo; do
			run long "$lratio" "$mo" "$round"
		done </tmp/order
		round=$((round + 1))
	done
	RUNTIME=$short
fi
set_mode hard || fail "back to hard mode"
