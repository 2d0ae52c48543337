#!/bin/sh
# NVMe interrupt benchmark (not a test; 'make bench' reads the "bench:"
# lines).  For each layout and mode: fio 4k random reads, libaio, direct,
# one job per vCPU (each pinned to its own vCPU), fixed iodepth and time,
# while a busy loop (the "victim") is pinned to the CPU that the first I/O
# queue's interrupt is delivered to.  Modes are switched at run time through
# /proc/irq/<N>/<action>/threaded; the thread placement (stock: the
# effective CPU; IRQF_IRQ_AFFINITY: the whole mask) through the bench-only
# nvme parameter bench_irq_affinity and a controller reset.
#   bench: nvme,LAYOUT,MODE,ROUND,IOPS,CLAT_MEAN_US,CLAT_P99_US,CTXSW_PER_IO,IRQS_PER_IO,VICTIM_PCT,GUEST_IDLE_PCT,SWITCHES_PER_MIN
# GUEST_IDLE_PCT: idle share of all vCPUs during the run (/proc/stat); high
# idle with low IOPS means the emulated device, not the guest, is the limit.
# Mode auto: tools/irq/irq-autothread watches every I/O queue
# (IRQF_IRQ_AFFINITY placement),
# with the thresholds on the command line (vm.conf); SWITCHES_PER_MIN counts
# its automatic switches during the run (0 for the other modes).
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

RUNTIME=${BENCH_RUNTIME:-10}
ROUNDS=${BENCH_ROUNDS:-2}
IODEPTH=${BENCH_IODEPTH:-16}
for a in $(cat /proc/cmdline); do
	case $a in
	irqbench.runtime=*) RUNTIME=${a#*=} ;;
	irqbench.rounds=*) ROUNDS=${a#*=} ;;
	esac
done
ncpu=$(grep -c ^processor /proc/cpuinfo)
diag "bench: runtime ${RUNTIME}s, $ROUNDS rounds, iodepth $IODEPTH"
param=/sys/module/nvme/parameters/bench_irq_affinity
if [ ! -w $param ]; then
	fail "bench kernel has $param (bench-patches/ applied)"
	exit 0
fi

# placement 0|1: request the I/O queue interrupts again with (1) or without
# (0) IRQF_IRQ_AFFINITY.
placement() {
	read -r cur <$param
	case "$cur$1" in Y1 | N0) return 0 ;; esac
	if [ "$1" = 1 ]; then echo Y >$param; else echo N >$param; fi
	nvme_reset "$ctrl"
}

# set_auto: irq-autothread watches every I/O queue of $ctrl, with the
# thresholds scaled to TCG as in selftests/nvme-auto (emulated interrupts
# are expensive and the device slow: no CPU reaches the default 50% here).
set_auto() {
	/kselftests/irq/irq-autothread -H 15 -L 5 -h 2000 $(nvme_ioqs "$ctrl") \
		>>/tmp/autothread.log 2>&1 &
	auto_pid=$!
	sleep 0.3
	kill -0 $auto_pid 2>/dev/null
}
unset_auto() { kill $auto_pid 2>/dev/null; wait $auto_pid 2>/dev/null; }
auto_switches() { grep -cE "\\(${ctrl}q[0-9]+\\): (threaded,|hard irq again)" /tmp/autothread.log 2>/dev/null; }

# run LAYOUT MODE ROUND
run() {
	victim_start "$vcpu"
	sleep 0.2
	a0=$(auto_switches)
	c0=$(ctxt) i0=$(nvme_irqs "$ctrl") v0=$(victim_ticks) t0=$(uptime_ticks) s0=$(cpu_ticks)
	fio --name=bench --filename="/dev/${ctrl}n1" --rw=randread --bs=4k \
		--ioengine=libaio --direct=1 --iodepth="$IODEPTH" --numjobs="$ncpu" \
		--cpus_allowed="0-$((ncpu - 1))" --cpus_allowed_policy=split \
		--runtime="$RUNTIME" --time_based --group_reporting --minimal \
		>/tmp/fio.out 2>/tmp/fio.err
	rc=$?
	c1=$(ctxt) i1=$(nvme_irqs "$ctrl") v1=$(victim_ticks) t1=$(uptime_ticks) s1=$(cpu_ticks)
	a1=$(auto_switches)
	victim_stop
	if [ $rc != 0 ]; then
		fail "$1 $2 round $3: fio exit $rc"; diag "$(cat /tmp/fio.err)"
		return
	fi
	idle=$(echo "$s0 $s1" | awk '{ split($1, a, ":"); split($2, b, ":"); t = b[2] - a[2]; printf "%.1f", (t > 0 ? 100 * (b[1] - a[1]) / t : 0) }')
	line=$(awk -F';' -v c=$((c1 - c0)) -v i=$((i1 - i0)) -v v=$((v1 - v0)) -v t=$((t1 - t0)) '
		{ ios = $6 / 4; p99 = 0
		  for (f = 18; f <= 37; f++) if ($f ~ /^99\.000000%=/) { split($f, a, "="); p99 = a[2] }
		  if (ios < 1) ios = 1
		  printf "%d,%.1f,%d,%.3f,%.3f,%.1f", $8, $16, p99, c / ios, i / ios, 100 * v / (t > 0 ? t : 1) }' /tmp/fio.out)
	spm=$(awk -v n=$((a1 - a0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", (t > 0 ? n * 6000 / t : 0) }')
	diag "bench: nvme,$1,$2,$3,$line,$idle,$spm"
	pass "$1 $2 round $3: fio ran ${RUNTIME}s"
}

for layout in percpu swamp; do
	case $layout in percpu) serial=benchq4 ;; swamp) serial=benchq1 ;; esac
	ctrl=$(nvme_ctrl $serial)
	if [ -z "$ctrl" ]; then fail "$layout: controller $serial present"; continue; fi
	q1=$(nvme_ioqs "$ctrl" | head -n1)
	vcpu=$(cat "/proc/irq/$(irq_of "$q1")/effective_affinity_list")
	diag "$layout: $ctrl, $(nvme_ioqs "$ctrl" | wc -l) I/O queues, victim on CPU $vcpu ($q1)"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		placement 1 && nvme_set_mode "$ctrl" 0 || fail "$layout: hard mode"
		run $layout hard $r
		set_auto || fail "$layout: auto mode"
		run $layout auto $r
		unset_auto
		nvme_set_mode "$ctrl" 0
		diag "$layout auto: $(grep -E "\\(${ctrl}q[0-9]+\\): " /tmp/autothread.log | tail -2)"
		nvme_set_mode "$ctrl" 1 || fail "$layout: threaded mode"
		run $layout threaded-affinity $r
		placement 0 && nvme_set_mode "$ctrl" 1 || fail "$layout: threaded mode, stock placement"
		q1=$(nvme_ioqs "$ctrl" | head -n1)
		pid=$(irq_thread_pid "$(irq_of "$q1")" "$q1")
		[ -n "$pid" ] && diag "$layout stock: $q1 thread Cpus_allowed $(cpus_allowed "$pid")"
		run $layout threaded-stock $r
		r=$((r + 1))
	done
	placement 1
done
