#!/bin/sh
# Swamp layout: 4 vCPUs write and verify through one NVMe I/O queue while
# a busy loop (the victim) is pinned to the CPU its interrupt is delivered
# to.  Once in hard irq mode and once threaded, both switched at run time.
# Threaded, the queue polls as NAPI does: nvme_irq_primary() completes up
# to its budget in hard irq context and, when the queue overflows it,
# masks the vector until the irq thread drained the queue.  A sampler
# reads the vector's masked state from /sys/kernel/debug/irq while fio
# runs: masked at times in threaded mode, never in hard mode, and
# unmasked once the load is over, with no I/O left to nvme's timeout.
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

SIZE=${SWAMP_SIZE:-16M}
ctrl=$(nvme_ctrl irqtest0)
q=$(nvme_ioqs "$ctrl")
if [ -z "$ctrl" ] || [ "$(echo "$q" | wc -w)" != 1 ]; then
	fail "one nvme controller with exactly one I/O queue (got '$ctrl': '$q')"
	exit 0
fi
pass "$ctrl has one I/O queue ($q) for $(grep -c ^processor /proc/cpuinfo) CPUs"
irq=$(irq_of "$q")
vcpu=$(cat "/proc/irq/$irq/effective_affinity_list")
mask=$(cat "/proc/irq/$irq/smp_affinity_list")
ncpu=$(grep -c ^processor /proc/cpuinfo)
diag "$q: irq $irq, affinity $mask, delivered to CPU $vcpu"
dbg=/sys/kernel/debug/irq/irqs/$irq
if [ ! -r "$dbg" ]; then
	fail "$dbg is readable (CONFIG_GENERIC_IRQ_DEBUGFS)"
	exit 0
fi
# masked: the vector's state in debugfs says IRQD_IRQ_MASKED; shell
# builtins only, so that the sampler below takes many samples
masked() {
	while IFS= read -r l; do
		case $l in *IRQD_IRQ_MASKED*) return 0 ;; esac
	done <"$dbg"
	return 1
}

# sampler_start / sampler_stop: samples, masked samples of the vector and
# the times it was seen unmasked again after a masked sample, in
# /tmp/mask.result, until stopped (or 300 s)
sampler_pid='' samples=0 msamples=0 unmasks=0
sampler_start() {
	(
		n=0 m=0 u=0 was=0 end=$(($(date +%s) + 300))
		trap 'echo "$n $m $u" >/tmp/mask.result; exit 0' TERM
		while :; do
			n=$((n + 1))
			if masked; then
				m=$((m + 1)) was=1
			elif [ $was = 1 ]; then
				u=$((u + 1)) was=0
			fi
			if [ $((n % 256)) = 0 ] && [ "$(date +%s)" -ge $end ]; then
				break
			fi
		done
		echo "$n $m $u" >/tmp/mask.result
	) &
	sampler_pid=$!
}
sampler_stop() {
	kill "$sampler_pid" 2>/dev/null
	wait "$sampler_pid" 2>/dev/null
	read -r samples msamples unmasks </tmp/mask.result
}

# fio_verified RC LOG WHAT: fio exited 0 and its log shows no verify error
fio_verified() {
	if [ "$1" = 0 ] && ! grep -qE 'verify failed|bad magic|bad header|err= *[1-9]' "$2"; then
		pass "$3"
	else
		fail "$3 (exit $1)"
		diag "$(tail -20 "$2")"
	fi
}

# timeouts: nvme's I/O timeouts in the kernel log so far.  A vector left
# masked completes nothing until nvme_timeout() polls the queue, 30 s
# later.
timeouts() { dmesg | grep -c 'nvme.*timeout'; }

# unmasked: the vector is not masked, within 2 s of the load's end
unmasked() {
	for _ in $(seq 20); do
		masked || return 0
		sleep 0.1
	done
	return 1
}

for mode in 0 1; do
	name=hard; [ $mode = 1 ] && name=threaded
	check "$name: $q switched to mode $mode" nvme_set_mode "$ctrl" $mode
	pid=
	if [ $mode = 1 ]; then
		pid=$(irq_thread_pid "$irq" "$q")
		# IRQF_IRQ_AFFINITY (patch 27): the thread may run on the mask
		check "$name: irq thread may run on its interrupt's affinity mask ($(cpus_allowed "$pid"), effective $vcpu)" \
			thread_cpus_ok "$(cpus_allowed "$pid")" "$vcpu" "$mask"
		s0=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/status")
	fi
	victim_start "$vcpu"
	sampler_start
	i0=$(nvme_irqs "$ctrl") v0=$(victim_ticks) t0=$(uptime_ticks) to0=$(timeouts)
	# One region per job; each job writes its region in random order, then
	# reads it back and checks every block.
	fio --name=swamp --filename="/dev/${ctrl}n1" --rw=randwrite --bs=4k \
		--size="$SIZE" --offset_increment="$SIZE" --numjobs="$ncpu" \
		--cpus_allowed="0-$((ncpu - 1))" --cpus_allowed_policy=split \
		--ioengine=libaio --direct=1 --iodepth=32 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
		--runtime=120 >/tmp/swamp.log 2>&1
	rc=$?
	i1=$(nvme_irqs "$ctrl") v1=$(victim_ticks) t1=$(uptime_ticks)
	victim_stop
	sampler_stop
	fio_verified "$rc" /tmp/swamp.log "$name: fio wrote and verified $ncpu x $SIZE through one queue"
	check "$name: $q took interrupts ($((i1 - i0)))" [ $((i1 - i0)) -gt 0 ]
	diag "$name: $q masked in $msamples of $samples samples"
	if [ $mode = 1 ]; then
		s1=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/status")
		check "$name: the irq thread drained overflows ($((s1 - s0)) wakeups)" [ $((s1 - s0)) -gt 0 ]
		check "$name: $q was masked while its thread drained ($msamples of $samples samples)" \
			[ "$msamples" -gt 0 ]
		# The thread unmasks the vector after each drained batch: seen
		# unmasked again after masked samples, while the load still ran.
		check "$name: $q was unmasked again during the load ($unmasks times after a masked sample)" \
			[ "$unmasks" -gt 0 ]
		expect_eq "$name: no I/O waited for nvme's timeout (the thread unmasked after each drained batch)" \
			"$(($(timeouts) - to0))" 0
	else
		expect_eq "$name: $q was never masked" "$msamples" 0
	fi
	check "$name: $q is unmasked after the load" unmasked
	diag "$name: victim on CPU $vcpu got $((100 * (v1 - v0) / (t1 - t0 > 0 ? t1 - t0 : 1)))% of it; $(grep -o 'IOPS=[^,]*' /tmp/swamp.log | tr '\n' ' ')"
done

# John Garry's layout (L1): every submitter on the interrupt's CPU, the
# other CPUs of the queue's mask idle.  The queue requests its interrupt
# with IRQF_IRQ_AFFINITY, so its thread may run on the mask, and the
# scheduler wakes it on an idle CPU of the mask that shares the cache of
# the CPU it ran on last rather than preempt the submitters there.
vol() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status"; }
check "L1: $q switched to threaded mode" nvme_set_mode "$ctrl" 1
pid=$(irq_thread_pid "$irq" "$q")
s0=$(vol "$pid") to0=$(timeouts)
fio --name=l1 --filename="/dev/${ctrl}n1" --rw=randwrite --bs=4k \
	--size="$SIZE" --offset_increment="$SIZE" --numjobs="$ncpu" \
	--cpus_allowed="$vcpu" --ioengine=libaio --direct=1 --iodepth=32 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
	--runtime=120 >/tmp/l1.log 2>&1
rc=$?
s1=$(vol "$pid")
fio_verified "$rc" /tmp/l1.log "L1: fio wrote and verified $ncpu x $SIZE from CPU $vcpu"
check "L1: the irq thread drained overflows ($((s1 - s0)) wakeups)" [ $((s1 - s0)) -gt 0 ]
where=$(cpus_allowed "$pid")
last=$(last_cpu "$pid")
diag "L1: $q's thread may run on CPU $where, last ran on CPU $last; $(grep -o 'IOPS=[^,]*' /tmp/l1.log | tr '\n' ' ')"
# Allowed on the mask; woken on an idle CPU of it, not the busy one
moved() { is_one_cpu "$last" && [ "$last" != "$vcpu" ] &&
	thread_cpus_ok "$where" "$vcpu" "$mask" && cpus_of "$where" | grep -qx "$last"; }
check "L1: $q's thread drained on an idle CPU ($last), not on the busy interrupt CPU $vcpu" moved
iso=$(isolated_cpus | paste -sd, -)
# isolcpus= boots: no isolated CPU the interrupt is not delivered to in
# the thread's allowed set (the CPUs in both lists, but the interrupt's)
off_isolated() { ! { isolated_cpus; cpus_of "$where"; } | sort -n | uniq -d | grep -qvx "$vcpu"; }
[ -z "$iso" ] || check "L1: $q's thread may not run on the isolated CPUs ($iso) its interrupt is not delivered to (allowed: $where)" off_isolated
check "L1: $q is unmasked after the load" unmasked
expect_eq "L1: no I/O waited for nvme's timeout" "$(($(timeouts) - to0))" 0

# The same load, three passes, while the controller is reset once (the
# queue's interrupt is freed and requested again, its mode kept) and then
# the queue is switched between hard and threaded every 100 ms until fio
# is done: fio verifies every block, and the queue ends threaded and
# unmasked.
fio --name=l1t --filename="/dev/${ctrl}n1" --rw=randwrite --bs=4k \
	--size="$SIZE" --offset_increment="$SIZE" --numjobs="$ncpu" \
	--cpus_allowed="$vcpu" --ioengine=libaio --direct=1 --iodepth=32 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
	--loops=3 --runtime=120 >/tmp/l1t.log 2>&1 &
fiopid=$!
to0=$(timeouts)
sleep 1
reset_under_load=0
kill -0 "$fiopid" 2>/dev/null && reset_under_load=1
check "L1 toggles: $ctrl reset while fio ran, live again" nvme_reset "$ctrl"
toggles=0 bad=0
while kill -0 "$fiopid" 2>/dev/null && [ $toggles -lt 600 ]; do
	nvme_set_mode "$ctrl" $((toggles % 2)) || bad=$((bad + 1))
	toggles=$((toggles + 1))
	usleep 100000
done
wait "$fiopid"
rc=$?
nvme_set_mode "$ctrl" 1 || bad=$((bad + 1))
fio_verified "$rc" /tmp/l1t.log "L1 toggles: fio wrote and verified $ncpu x $SIZE three times from CPU $vcpu"
expect_eq "L1 toggles: the reset came while fio ran" "$reset_under_load" 1
all_taken() { [ "$toggles" -ge 10 ] && [ "$bad" = 0 ]; }
check "L1 toggles: $q switched $toggles times under the load, every switch taken ($bad refused)" all_taken
q=$(nvme_ioqs "$ctrl") irq=$(irq_of "$q") dbg=/sys/kernel/debug/irq/irqs/$irq
expect_eq "L1 toggles: $q threaded at the end" "$(cat "/proc/irq/$irq/$q/threaded")" 1
check "L1 toggles: $q is unmasked after the load" unmasked
expect_eq "L1 toggles: no I/O waited for nvme's timeout" "$(($(timeouts) - to0))" 0
nvme_set_mode "$ctrl" 0
