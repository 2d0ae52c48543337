#!/bin/sh
# tools/irq/irq-autothread on NVMe queues under a flood and under a
# moderate load (its policy is tested with loads of known strength by the
# kselftest irq/autothread_test.sh; this is the tool on a real device).
# Flood: all vCPUs write and verify through the one queue of irqtest0; the CPU its interrupt
# is delivered to spends more time in hard irq than the thresholds (scaled
# to TCG) allow, so the queue must switch to
# threaded within FLOOD_SECS of the start and back to hard within
# hold_ms + CALM_SECS of the end.  Moderate: autoq4, one queue per vCPU,
# rate-limited I/O; no queue may switch.  fio verifies all data.
#
# How far a flood can push its CPU into hard irq under TCG depends on the
# host (5-19% measured, the moderate load 1-6%), so the threshold is not
# fixed: both loads first run in hard mode, in windows of rise_ms, and
# high_pct is set half-way between the flood's lowest window and the
# moderate load's highest.  When the flood is not at least twice the
# moderate load and 4 points above it, this host cannot tell them apart with a
# margin on both sides, and the tool's checks skip (reported as skips).  The
# moderate load is measured again while the tool watches it (step 4): the
# host's noise changes within a boot.
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

FLOOD_SECS=20 CALM_SECS=8
ncpu=$(grep -c ^processor /proc/cpuinfo)
c1=$(nvme_ctrl irqtest0) c4=$(nvme_ctrl autoq4)
if [ -z "$c1" ] || [ -z "$c4" ]; then fail "controllers irqtest0 and autoq4"; exit 0; fi
q1=$(nvme_ioqs "$c1")
irq1=$(irq_of "$q1")
f1=/proc/irq/$irq1/$q1/threaded
cpu1=$(cat "/proc/irq/$irq1/effective_affinity_list")
TOOL=/kselftests/irq/irq-autothread
if [ ! -x $TOOL ]; then fail "irq-autothread in the initramfs"; exit 0; fi
# rise_ms and hold_ms of 2 s average out the noise of a host that preempts
# vCPUs (a 100 ms sample over 15% at the moderate load switched a queue in
# a CI run when the policy did not average).
SHARE=50 RISE=2000 HOLD=2000 PERIOD=100

# irq_pct CPU: hard irq and softirq share of CPU since the last call (from
# /proc/stat), what irq-autothread measures.
irq_pct() {
	set -- $(awk -v c="cpu$1" '$1 == c { t = 0; for (i = 2; i <= NF; i++) t += $i; print $7 + $8, t }' /proc/stat)
	eval "p0=\${irqp_$cpu_k:-$1} t0=\${irqt_$cpu_k:-$2}"
	awk -v p="$(($1 - p0))" -v t="$(($2 - t0))" 'BEGIN { printf "%d\n", (t > 0 ? 100 * p / t : 0) }'
	eval "irqp_$cpu_k=$1 irqt_$cpu_k=$2"
}
# The tool's log: one line a switch, "irq N (Q): threaded, ..." or
# "irq N (Q): hard irq again, ...".
switches() { cat /tmp/tool-*.log 2>/dev/null | grep -c "($1): \(threaded,\|hard irq again\)"; }
# tool NAME ACTION...: run irq-autothread on ACTIONs, log in /tmp/tool-NAME.log
tool() {
	_n=$1; shift
	$TOOL -H "$high" -L "$low" -S $SHARE -r $RISE -h $HOLD -p $PERIOD "$@" \
		>"/tmp/tool-$_n.log" 2>&1 &
	eval "tool_$_n=\$!"
}

# 0. Calibration, queues in hard mode.  The verify pattern of the moderate
# load is written first (fio's verify reads after writing are not
# rate-limited).
moderate() { # fio arguments for the moderate load, then extra ones
	fio --name=moderate --filename="/dev/${c4}n1" --rw=randread --bs=4k --size=16M \
		--numjobs="$ncpu" --cpus_allowed="0-$((ncpu - 1))" --cpus_allowed_policy=split \
		--ioengine=libaio --direct=1 --iodepth=4 --rate_iops=100 \
		--verify=crc32c --verify_fatal=1 --group_reporting --time_based "$@"
}
fio --name=fill --filename="/dev/${c4}n1" --rw=write --bs=4k --size=16M \
	--ioengine=libaio --direct=1 --iodepth=8 --verify=crc32c --do_verify=0 \
	>/tmp/fill.log 2>&1
check "moderate: fio wrote the verify pattern" [ $? = 0 ]
# The policy averages over rise_ms (vm.conf: 2000 ms), so both loads are
# measured the way it sees them: in windows of that length.  The moderate
# load's highest window on any CPU, the flood's lowest window on its CPU.
# A TCG host adds noise to hard irq time (a vCPU its host preempts in the
# middle of a handler keeps earning irq time), so one average of each is
# not enough: a fresh machine measured 5% and 1%, got high_pct 3, and a
# moderate window then reached 3%.
WIN=2
# irq_windows SECS CPU...: the hard irq share of each CPU in every WIN
# seconds for SECS seconds, one value a line.
irq_windows() {
	_secs=$1; shift
	for _c in "$@"; do cpu_k=w$_c; irq_pct "$_c" >/dev/null; done
	_n=0
	while [ $_n -lt $((_secs / WIN)) ]; do
		sleep $WIN
		for _c in "$@"; do cpu_k=w$_c; irq_pct "$_c"; done
		_n=$((_n + 1))
	done
}
moderate --runtime=12 >/tmp/cal-moderate.log 2>&1 &
sleep 1
cpus=; c=0; while [ $c -lt "$ncpu" ]; do cpus="$cpus $c"; c=$((c + 1)); done
irq_windows 10 $cpus >/tmp/cal-m.txt
wait
cal_m=$(sort -n /tmp/cal-m.txt | tail -n 1)
# The flood needs a few seconds to reach its rate: measure seconds 3-11.
fio --name=cal-flood --filename="/dev/${c1}n1" --rw=randwrite --bs=4k --size=8M \
	--offset_increment=8M --numjobs="$ncpu" --cpus_allowed="0-$((ncpu - 1))" \
	--cpus_allowed_policy=split --ioengine=libaio --direct=1 --iodepth=32 \
	--verify=crc32c --do_verify=1 --runtime=12 --time_based --group_reporting \
	>/tmp/cal-flood.log 2>&1 &
sleep 3
irq_windows 8 "$cpu1" >/tmp/cal-f.txt
wait
cal_f=$(sort -n /tmp/cal-f.txt | head -n 1)
diag "calibration, hard mode, ${WIN} s windows: moderate load (all CPUs) $(tr '\n' ' ' </tmp/cal-m.txt)%; flood (CPU $cpu1) $(tr '\n' ' ' </tmp/cal-f.txt)%"
# A wide margin on both sides: the flood's lowest window at least twice
# the moderate load's highest and 4 points above it, high_pct half-way
# (at least 2 points from each).
high=$(((cal_m + cal_f + 1) / 2)); low=$cal_m
[ "$low" -ge 1 ] || low=1
[ "$low" -lt "$high" ] || low=$((high - 1))
diag "calibration: flood at least $cal_f%, moderate load at most $cal_m%; high_pct $high, low_pct $low"
if [ "$cal_f" -lt $((2 * cal_m)) ] || [ "$cal_f" -lt $((cal_m + 4)) ]; then
	skip "irq-autothread: flood and moderate load told apart" "the flood's lowest window ($cal_f%) is not at least twice the moderate load's highest ($cal_m%) and 4 points above it on this host"
	exit 0
fi
tool flood "$q1"
sleep 1
if kill -0 "$tool_flood" 2>/dev/null; then
	pass "irq-autothread runs on $q1 (high $high% low $low% share $SHARE% rise $RISE ms hold $HOLD ms)"
else
	fail "irq-autothread runs on $q1: $(cat /tmp/tool-flood.log)"
	exit 0
fi

# 1. Calm: stays hard.
cpu_k=c; irq_pct "$cpu1" >/dev/null
sleep 3
diag "calm: CPU $cpu1 in hard irq $(irq_pct "$cpu1")%"
expect_eq "calm: $q1 stays in hard mode" "$(cat "$f1")" 0

# 2. Flood through one queue; watch the mode every 0.2 s.
cpu_k=a; irq_pct "$cpu1" >/dev/null
fio --name=flood --filename="/dev/${c1}n1" --rw=randwrite --bs=4k --size=8M \
	--offset_increment=8M --numjobs="$ncpu" --cpus_allowed="0-$((ncpu - 1))" \
	--cpus_allowed_policy=split --ioengine=libaio --direct=1 --iodepth=32 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
	--loops=4 >/tmp/flood.log 2>&1 &
fio_pid=$!
t0=$(uptime_ticks) thr_at= samples=
while kill -0 $fio_pid 2>/dev/null; do
	m=$(cat "$f1")
	[ -z "$thr_at" ] && [ "$m" = 1 ] && thr_at=$(($(uptime_ticks) - t0))
	usleep 200000
done
wait $fio_pid; rc=$?
t1=$(uptime_ticks)
flood_pct=$(irq_pct "$cpu1")
diag "flood: CPU $cpu1 in hard irq $flood_pct% over $(((t1 - t0) / 100)) s; $(grep -o 'IOPS=[^,]*' /tmp/flood.log | tr '\n' ' ')"
diag "$(tail -3 /tmp/tool-flood.log)"
check "flood: fio wrote and verified through $q1" [ $rc = 0 ]
check "flood: $q1 went threaded within $FLOOD_SECS s (after $((${thr_at:-99999} / 100)).$((${thr_at:-0} % 100)) s)" \
	[ -n "$thr_at" ] && [ "$thr_at" -le $((FLOOD_SECS * 100)) ]
# 3. Flood over: back to hard.
t0=$(uptime_ticks) hard_at=
while [ $(($(uptime_ticks) - t0)) -lt $(( (2 + CALM_SECS) * 100)) ]; do
	[ "$(cat "$f1")" = 0 ] && { hard_at=$(($(uptime_ticks) - t0)); break; }
	usleep 200000
done
check "calm again: $q1 back in hard mode within $((2 + CALM_SECS)) s (after $((${hard_at:-99999} / 100)) s)" [ -n "$hard_at" ]
n1=$(switches "$q1")
check "flood: $n1 switches of $q1 (2 to 4: there and back)" [ "$n1" -ge 2 ] && [ "$n1" -le 4 ]

# 4. Moderate load on per-vCPU queues: no switch.  Rate-limited random
# reads check the pattern written in step 0, with the tool watching.
#
# The moderate load's share of hard irq time is measured again while it
# runs, in windows of rise_ms on every CPU: a TCG host that preempts vCPUs
# in the middle of handlers can raise it long after the calibration (a CI
# run: 2-4% calibrated, 7-9% on every CPU 40 s later).  "No queue switched"
# is claimed only when every window stayed 2 points below high_pct (the
# policy's own windows are not aligned with the test's); otherwise the
# claim is skipped with the numbers, and the test checks instead that every
# switch the policy made reported its CPU at or above high_pct and the
# line at or above share_pct, which is what the policy promises.
tool moderate $(nvme_ioqs "$c4")
sleep 1
s0=0; for q in $(nvme_ioqs "$c4"); do s0=$((s0 + $(switches "$q"))); done
c=0; while [ $c -lt "$ncpu" ]; do cpu_k=m$c; irq_pct $c >/dev/null; c=$((c + 1)); done
moderate --runtime=15 >/tmp/moderate.log 2>&1 &
fio_pid=$!
irq_windows 14 $cpus >/tmp/mod-w.txt
wait $fio_pid
rc=$?
mod_m=$(sort -n /tmp/mod-w.txt | tail -n 1)
s1=0 modes=
for q in $(nvme_ioqs "$c4"); do
	s1=$((s1 + $(switches "$q")))
	modes="$modes$(cat "/proc/irq/$(irq_of "$q")/$q/threaded") "
done
pcts=; c=0; while [ $c -lt "$ncpu" ]; do cpu_k=m$c; pcts="$pcts $(irq_pct $c)%"; c=$((c + 1)); done
diag "moderate: $(grep -o 'IOPS=[^,]*' /tmp/moderate.log | tr '\n' ' '); hard irq per CPU:$pcts; ${WIN} s windows $(tr '\n' ' ' </tmp/mod-w.txt)%"
: >/tmp/mod-switches.txt
for q in $(nvme_ioqs "$c4"); do
	grep "($q): threaded," /tmp/tool-moderate.log >>/tmp/mod-switches.txt
	m=$(grep "($q): " /tmp/tool-moderate.log | tail -2)
	[ -z "$m" ] || diag "$m"
done
if [ $rc = 0 ] && ! grep -qE "verify failed|bad magic|bad header|err= *[1-9]" /tmp/moderate.log; then
	pass "moderate: fio read and verified through $(nvme_ioqs "$c4" | wc -l) queues at 100 IOPS per vCPU"
else
	fail "moderate: fio read and verified through $(nvme_ioqs "$c4" | wc -l) queues at 100 IOPS per vCPU (exit $rc)"
	diag "$(tail -15 /tmp/moderate.log)"
fi
if [ "$mod_m" -le $((high - 2)) ]; then
	expect_eq "moderate: no queue switched (windows at most $mod_m%, high_pct $high)" $((s1 - s0)) 0
	expect_eq "moderate: all queues hard" "$modes" "$(for q in $(nvme_ioqs "$c4"); do printf '0 '; done)"
else
	skip "moderate: no queue switched" "the host pushed the moderate load to $mod_m% in a ${WIN} s window, not 2 points below high_pct $high"
	skip "moderate: all queues hard" "as above"
fi
# Each "threaded" line of the tool: "CPU c spent P% in hard irq and
# softirq, S% of its interrupts were this line's".
share=$SHARE
bad=$(sed -n 's/.*spent \([0-9]*\)% in hard irq and softirq, \([0-9]*\)% of its.*/\1 \2/p' /tmp/mod-switches.txt |
	awk -v h="$high" -v s="$share" '$1 < h || $2 < s' | wc -l)
check "moderate: every switch to threaded ($(wc -l </tmp/mod-switches.txt) of them) reported hard irq and softirq >= $high% and a share >= $share% ($bad did not)" \
	[ "$bad" = 0 ]

# 5. The tool ends on SIGTERM and leaves every queue in its mode.
m1=$(cat "$f1")
kill "$tool_flood" "$tool_moderate"
t0=$(uptime_ticks) left=
while [ $(($(uptime_ticks) - t0)) -lt 200 ]; do
	left=
	for p in "$tool_flood" "$tool_moderate"; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
	[ -z "$left" ] && break
	usleep 100000
done
check "irq-autothread ends within 2 s of SIGTERM, $q1 still reads $m1" [ -z "$left" ] && [ "$(cat "$f1")" = "$m1" ]
nerr=$(dmesg | grep -cE 'nvme.*(timeout|reset|I/O error|abort)')
expect_eq "no nvme timeouts, resets or I/O errors" "$nerr" 0
