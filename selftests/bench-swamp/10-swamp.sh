#!/bin/sh
# The swamp model (not a test; 'make bench' reads the "bench:" lines and
# ci/bench-swamp.py makes the table).  A completion queue whose interrupt
# handling, not an emulated device, is the bottleneck
# (kernel/irq/swamp_bench.c of bench-patches/): submitter kthreads, a
# "device" that completes a request DEVICE_NS after its submission and
# raises the queue's interrupt on one CPU (an MSI-X-like chip that latches
# while masked), a fixed amount of work per completion, and a victim on
# the interrupt's CPU that counts the work it gets done.
#
# Swept in one boot, every combination once per round, each round's
# combinations in a new random order:
#   layout   L1: submitters only on the interrupt's CPU, the other CPU
#                idle (John Garry's case: the interrupt's CPU saturated,
#                its mask-mates idle); a SCHED_IDLE victim there;
#            L1hog: L1 with the victim SCHED_NORMAL (a hog that the
#                interrupt's CPU shares with the submitter);
#            L2: a submitter on every CPU (fio on every CPU), SCHED_IDLE
#                victim on the interrupt's CPU;
#            L3: as L2 with one request in flight per submitter (latency);
#   C/E      completion work against the interrupt entry cost, both
#            measured here (RATIOS; HOG_RATIOS for L1hog, L3_RATIOS for
#            L3); a submission costs half what a completion costs
#            (the gain in L1 can be at most what the interrupt's CPU keeps:
#            X/X_hard <= (S + C + E*i) / max(S + E*i', C), S = C/2);
#   device   a request completes DEVICE_NS after its submission: 20 E
#            (about 10-20 us on hardware, where E is 0.5-1 us; under TCG
#            E is 10-15 us), or swamp.device_ns=NS;
#   mode     hard; pinned (the stock threaded handler: every completion in
#            the thread, bound to the interrupt's CPU); hyb-pin (patches
#            15 and 16: up to 64 completions in hard irq context, on
#            overflow the vector masked and the thread, on the
#            interrupt's CPU, drains); hyb-move (hyb-pin with
#            IRQF_IRQ_AFFINITY, series patches 24-25: the thread may run
#            on the mask, and the scheduler wakes it on an idle CPU of
#            the cache rather than preempt the task where it ran last;
#            the tables so far measured v4's genirq-side placement);
#            fifo-skip (hyb-pin with the thread bound to the mask without
#            the interrupt's CPU: always away); fair (hyb-pin with a
#            SCHED_NORMAL nice -20 thread on the whole mask, placed by the
#            fair class at each wakeup).  swamp.modes=M1,M2,... runs fewer.
#   A/A      the reference mode the ratios are taken against (hard;
#            swamp.aa=MODE, swamp.aa=none for none) runs a second time per
#            round as the label MODE-aa, shuffled in with the rest: the
#            same code under two labels, so ci/bench-swamp.py can check
#            that the paired intervals include 1 where nothing differs
#            (a layout whose A/A interval excludes 1 is unresolved).
# Run time: ROUNDS x (modes + the A/A label) x 15 points = 10 x 7 x 15 =
# 1050 runs of RUNTIME (1 s), each with ~0.26 s of mode switch and
# bookkeeping, and 2 + (s + 1) s more after a run whose longest hard irq
# run lasted s >= 1 whole seconds (only hard at L2 C/E 5 and 15: 9 and 14
# of its 20 runs there in the two boots of 2026-12-06).  The 900-run boot
# took 1174 s with calibration (36 s of it such sleeps): the 150 hard-aa
# runs add ~190 s and 36-80 s of sleeps, ~23.5-24 min; if all 40 hard
# and hard-aa runs at L2 C/E 5/15 were long, ~25 min.  TIMEOUT: 40 min.
# The thread drains until no completion is due, as nvme_irq() does.
# Lines:
#   bench: swampcal,IRQ_CPU,NCPU,E_NS,C_NS_PER_KLOOP,W_PINNED_NS,W_REMOTE_NS,DEVICE_NS
#   bench: swamppt,RATIO,LOOPS,C_NS
#   bench: swamprun,LAYOUT,RATIO,MODE,ROUND,LOOPS,COMPL_PER_S,IRQS_PER_COMPL,
#          HANDOFFS_PER_COMPL,THREAD_ON_IRQCPU_PCT,HARD_PCT,VICTIM_PER_CPU,
#          IRQCPU_HARDIRQ_PCT,MAX_HARD_MS,LAT_P50_US,LAT_P99_US,LOCKUPS,
#          STALLS,SPURIOUS          (MODE: a mode or the A/A label MODE-aa)
. /selftests/guest/lib.sh

RUNTIME=1
ROUNDS=10
RATIOS="0.5 1 2 5 15"
HOG_RATIOS="1 5 15"
L3_RATIOS="1 5"
LAYOUTS="L1 L1hog L2 L3"
DEVICE_NS=
MODES="hard pinned hyb-pin hyb-move fifo-skip fair"
AA=hard
for a in $(cat /proc/cmdline); do
	case $a in
	swamp.runtime=*) RUNTIME=${a#*=} ;;
	swamp.rounds=*) ROUNDS=${a#*=} ;;
	swamp.ratios=*) RATIOS=$(echo "${a#*=}" | tr , ' ') ;;
	swamp.hog_ratios=*) HOG_RATIOS=$(echo "${a#*=}" | tr , ' ') ;;
	swamp.l3_ratios=*) L3_RATIOS=$(echo "${a#*=}" | tr , ' ') ;;
	swamp.layouts=*) LAYOUTS=$(echo "${a#*=}" | tr , ' ') ;;
	swamp.modes=*) MODES=$(echo "${a#*=}" | tr , ' ') ;;
	swamp.device_ns=*) DEVICE_NS=${a#*=} ;;
	swamp.aa=*) AA=${a#*=} ;;
	esac
done
# The A/A label: the reference mode again, only if that mode runs.
case " $MODES " in
*" $AA "*) LABELS="$MODES $AA-aa" ;;
*) LABELS=$MODES; AA=none ;;
esac
D=/sys/kernel/debug/irq_swamp
P=/sys/module/swamp_bench/parameters
if [ ! -w $D/run ] || [ ! -w $D/mode ]; then
	fail "bench kernel has $D with mode (CONFIG_IRQ_SWAMP_BENCH, bench-patches/)"
	exit 0
fi
irq=$(cat $D/irq)
irq=${irq%% *}
xcpu=$(cat "/proc/irq/$irq/effective_affinity_list")
ncpu=$(grep -c ^processor /proc/cpuinfo)
tfile=/proc/irq/$irq/swampq1/threaded
# This script stays off the interrupt's CPU; it sleeps while a run runs.
ctl=0; [ "$xcpu" != 0 ] || ctl=1
taskset -p -c "$ctl" $$ >/dev/null
xbit=$((1 << xcpu))
diag "swamp: irq $irq mask $(cat /proc/irq/$irq/smp_affinity_list) effective CPU $xcpu"

# set_mode MODE: request again (hard irq mode, a new thread at the next
# switch), the mode through the proc file, then the thread's placement.
set_mode() {
	echo "$1" >$D/mode || return 1
	case $1 in hard) want=0 ;; *) want=1 ;; esac
	echo $want >"$tfile" || return 1
	read -r cur <"$tfile"
	[ "$cur" = "$want" ] || return 1
	case $1 in fifo-skip | fair) echo 1 >$D/place || return 1 ;; esac
}
val() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
calib() {
	echo 1 >$D/calibrate || return 1
	sed -n 's/^calib: //p' $D/stats
}

# Calibration: E (hard irq time of an entry) and C per 1000 loops in hard
# mode; W, the wakeup latency of the pinned thread, and W_r, of a thread on
# the other CPU (fifo-skip), from the handlers' own timestamps.
echo 2000 >$P/work_loops
set_mode hard && c=$(calib) || { fail "calibration in hard mode"; exit 0; }
E=$(val entry_ns "$c"); ck=$(($(val compl_ns "$c") / 2))
set_mode pinned && c=$(calib) || { fail "calibration in pinned mode"; exit 0; }
W=$(val wake_ns "$c")
diag "swamp: pinned calibration: $c"
set_mode fifo-skip && c=$(calib) || { fail "calibration in fifo-skip mode"; exit 0; }
Wr=$(val wake_ns "$c")
diag "swamp: fifo-skip calibration: $c"
[ -n "$DEVICE_NS" ] || DEVICE_NS=$((20 * E))
echo "$DEVICE_NS" >$P/device_ns
diag "swamp: $ncpu vCPUs, ${RUNTIME}s per run, $ROUNDS rounds, layouts $LAYOUTS, C/E $RATIOS (L1hog $HOG_RATIOS, L3 $L3_RATIOS), device ${DEVICE_NS} ns, control on CPU $ctl, A/A arm $AA"
diag "bench: swampcal,$xcpu,$ncpu,$E,$ck,$W,$Wr,$DEVICE_NS"
pass "calibration: E ${E} ns, C ${ck} ns per 1000 loops, thread wakeup W ${W} ns (pinned), W_r ${Wr} ns (other CPU)"

# Loops per sweep point, and each point's C measured with them.
set_mode hard
LOOPS=
for r in $(echo $RATIOS $HOG_RATIOS $L3_RATIOS | tr ' ' '\n' | sort -un); do
	l=$(awk -v r="$r" -v e="$E" -v k="$ck" 'BEGIN { l = int(r * e * 1000 / k + 0.5); print (l < 1 ? 1 : l) }')
	echo "$l" >$P/work_loops
	c=$(calib) || { fail "calibration at C/E $r"; exit 0; }
	diag "bench: swamppt,$r,$l,$(val compl_ns "$c")"
	LOOPS="$LOOPS $r:$l"
done
loops_of() { for x in $LOOPS; do [ "${x%:*}" != "$1" ] || echo "${x#*:}"; done; }

lockups() { dmesg | grep -c 'soft lockup\|hard LOCKUP'; }
stalls() { dmesg | grep -cE 'rcu: INFO: .*(detected stalls|self-detected stall)'; }
spurious() { dmesg | grep -c "irq $irq: nobody cared"; }

# run LAYOUT RATIO LABEL ROUND (LABEL: a mode, or MODE-aa for the A/A
# arm, which runs MODE and reports under its own label)
run() {
	case $1 in
	L1) echo $xbit >$P/submit_cpus; echo 128 >$P/qd; echo 1 >$P/victim_policy ;;
	L1hog) echo $xbit >$P/submit_cpus; echo 128 >$P/qd; echo 2 >$P/victim_policy ;;
	L2) echo 0 >$P/submit_cpus; echo 64 >$P/qd; echo 1 >$P/victim_policy ;;
	L3) echo 0 >$P/submit_cpus; echo 1 >$P/qd; echo 1 >$P/victim_policy ;;
	esac
	echo $xbit >$P/victim_cpus
	l=$(loops_of "$2")
	echo "$l" >$P/work_loops
	echo $(((l + 1) / 2)) >$P/submit_loops
	if ! set_mode "${3%-aa}"; then
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
		$1 == "queue0:" { irqs = kv($0, "irqs"); ct = kv($0, "compl_thread"); ch = kv($0, "compl_hard")
			ho = kv($0, "handoffs"); onirq = kv($0, "thread_on_irq_cpu"); xc = kv($0, "irq_cpu")
			mh = kv($0, "max_hard_ns"); p50 = kv($0, "lat_p50_ns"); p99 = kv($0, "lat_p99_ns") }
		$1 == "percpu:" { for (i = 2; i <= NF; i++) { split($i, e, "="); cpu = substr(e[1], 4); n = split(e[2], g, ",")
				for (j = 1; j <= n; j++) { split(g[j], h, ":"); pc[cpu, h[1]] = h[2] }
				cpus[++ncpu] = cpu } }
		END {
			secs = ns / 1e9; if (secs <= 0) secs = 1
			vs = ""
			for (k = 1; k <= ncpu; k++) { cpu = cpus[k]; v = pc[cpu, "victim_work"]
				vs = vs (k > 1 ? "/" : "") (v < 0 ? "-" : sprintf("%.0f", v / secs)) }
			hi = pc[xc, "irq_ns"] / ns * 100
			printf "%.0f,%.3f,%.4f,%.1f,%.1f,%s,%.1f,%.2f,%.1f,%.1f,%d,%d,%d",
				c / secs, (c > 0 ? irqs / c : 0), (c > 0 ? ho / c : 0), (ct > 0 ? 100 * onirq / ct : 0),
				(c > 0 ? 100 * ch / c : 0), vs, hi, mh / 1e6, p50 / 1000, p99 / 1000, l, s, sp }')
	diag "bench: swamprun,$1,$2,$3,$4,$l,$line"
	pass "$1 C/E $2 $3 round $4: ran ${RUNTIME}s"
	[ "$mh" = 0 ] || sleep $((mh + 1))
}

combos() {
	for m in $LABELS; do
		for lay in $LAYOUTS; do
			case $lay in
			L1hog) rs=$HOG_RATIOS ;;
			L3) rs=$L3_RATIOS ;;
			*) rs=$RATIOS ;;
			esac
			for r in $rs; do echo "$lay $r $m"; done
		done
	done
}
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
diag "swamp: shuffle seed $seed"
round=1
while [ $round -le "$ROUNDS" ]; do
	combos | awk -v s=$((seed + round)) 'BEGIN { srand(s) } { print rand() "\t" $0 }' | sort -n | cut -f2- >/tmp/order
	diag "round $round: $(wc -l </tmp/order) runs"
	while read -r ly ra mo; do
		run "$ly" "$ra" "$mo" "$round"
	done </tmp/order
	round=$((round + 1))
done
set_mode hard || fail "back to hard mode"
