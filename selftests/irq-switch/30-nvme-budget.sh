#!/bin/sh
# nvme.irq_hard_budget: an I/O queue in threaded mode handles up to that
# many completions per interrupt in hard irq context (nvme_irq_primary())
# and leaves the rest to its irq thread.  The same verified fio load, per
# budget: 0 -> the threads run for most interrupts; larger than a queue
# -> they (almost) never run; 1 -> both share the queues, and fio verifies
# clean.  Thread runs are counted as the irq threads' voluntary context
# switches (each run ends asleep in irq_wait_for_interrupt()).
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

P=/sys/module/nvme/parameters/irq_hard_budget
ctrl=nvme0
qs=$(nvme_ioqs $ctrl)
ncpu=$(grep -c ^processor /proc/cpuinfo)
if [ ! -w $P ] || [ -z "$qs" ]; then
	fail "$P is writable and $ctrl has I/O queues"
	exit 0
fi
read -r old <$P
check "$P starts at 0 (everything in the thread, as before)" [ "$old" = 0 ]
echo -1 >$P 2>/dev/null
read -r cur <$P
expect_eq "a negative budget is refused and changes nothing" "$cur" 0
check "$ctrl's I/O queues switch to threaded mode" nvme_set_mode $ctrl 1

thread_runs() {
	s=0
	for q in $qs; do
		pid=$(irq_thread_pid "$(irq_of "$q")" "$q") || { echo -1; return; }
		v=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/status")
		s=$((s + v))
	done
	echo $s
}

# run BUDGET: verified random writes from every CPU; sets irqs, runs
run() {
	echo "$1" >$P || return 1
	i0=$(nvme_irqs $ctrl) w0=$(thread_runs)
	fio --name=budget --filename=/dev/${ctrl}n1 --rw=randwrite --bs=4k \
		--size=4M --offset_increment=4M --numjobs="$ncpu" \
		--ioengine=libaio --direct=1 --iodepth=16 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
		>/tmp/budget.log 2>&1
	rc=$?
	irqs=$(($(nvme_irqs $ctrl) - i0)) runs=$(($(thread_runs) - w0))
	if [ $rc = 0 ] && ! grep -qE 'verify failed|bad magic|bad header|err= *[1-9]' /tmp/budget.log; then
		pass "budget $1: fio wrote and verified $ncpu x 4 MiB"
	else
		fail "budget $1: fio wrote and verified $ncpu x 4 MiB (exit $rc)"
		diag "$(tail -5 /tmp/budget.log)"
	fi
	diag "budget $1: $irqs interrupts, $runs thread runs"
	[ "$w0" -ge 0 ] && [ "$irqs" -gt 100 ]
}

if run 0; then
	check "budget 0: the threads run for at least 30% of the interrupts ($runs of $irqs)" \
		[ $((runs * 10)) -ge $((irqs * 3)) ]
else
	fail "budget 0: the queues took interrupts and have irq threads"
fi
if run 65535; then
	check "budget 65535: the threads run for at most 5% of the interrupts ($runs of $irqs)" \
		[ $((runs * 20)) -le "$irqs" ]
else
	fail "budget 65535: the queues took interrupts and have irq threads"
fi
if run 1; then
	check "budget 1: the threads run ($runs of $irqs interrupts)" [ "$runs" -gt 0 ]
else
	fail "budget 1: the queues took interrupts and have irq threads"
fi
echo 0 >$P
check "$ctrl's I/O queues switch back to hard mode" nvme_set_mode $ctrl 0
