#!/bin/sh
# Switch every NVMe I/O queue's action between hard irq and threaded mode,
# at least TOGGLES times in all, while fio reads verified data from all
# queues.  No I/O error, no verify error, no nvme timeout or reset.
. /selftests/guest/lib.sh

TOGGLES=${TOGGLES:-1000}
dev=/dev/nvme0n1
files=
for q in $(awk '$NF ~ /^nvme0q[1-9][0-9]*$/ { print $NF }' /proc/interrupts); do
	files="$files /proc/irq/$(irq_of "$q")/$q/threaded"
done
nq=$(echo $files | wc -w)
if [ "$nq" -lt 1 ] || [ ! -b "$dev" ]; then
	fail "nvme0 I/O queues with a threaded file"
	exit 0
fi
missing=0
for f in $files; do [ -e "$f" ] || { missing=$((missing + 1)); diag "no $f"; }; done
expect_eq "$nq nvme0 I/O queues (their driver opts in): none without a threaded file" $missing 0
# Only actions that can switch have the file: without threadirqs those
# whose driver opted in, not the admin queue nor the serial port; with
# threadirqs also every force threaded action.
exec 5>/dev/ttyS0
aq=/proc/irq/$(irq_of nvme0q0)/nvme0q0
sirq=$(awk '$NF == "ttyS0" { sub(":", "", $1); print $1; exit }' /proc/interrupts)
sd=/proc/irq/$sirq/ttyS0
if grep -qw threadirqs /proc/cmdline; then
	check "threadirqs: the admin queue, force threaded, has a threaded file" [ -e $aq/threaded ]
	check "threadirqs: ttyS0, force threaded, has a threaded file" [ -n "$sirq" -a -e $sd/threaded ]
else
	check "the admin queue (not opted in) has $aq/, without a threaded file" [ -d $aq -a ! -e $aq/threaded ]
	check "ttyS0 (its driver does not opt in) has ${sd:-its directory}, without a threaded file" \
		[ -n "$sirq" -a -d "$sd" -a ! -e "$sd/threaded" ]
fi
exec 5>&-
# threadirqs force threads the queues at request time; they switch all the
# same, from threaded to hard and back.
start=0
grep -qw threadirqs /proc/cmdline && start=1
for f in $files; do
	read -r cur <"$f"
	[ "$cur" = $start ] || { fail "$f starts in mode $start"; exit 0; }
done

fio --name=fill --filename=$dev --rw=write --bs=4k --size=32M \
	--ioengine=libaio --direct=1 --iodepth=32 --verify=crc32c --do_verify=0 \
	>/tmp/fill.log 2>&1
check "fio wrote the verify pattern (32 MiB)" [ $? -eq 0 ]

ncpu=$(grep -c ^processor /proc/cpuinfo)

# Threaded mode completes in nvme_irq_primary() up to its budget; a queue
# that overflows it is masked and drained by its irq thread (nvme-swamp
# checks that).

# The toggler runs in the background until TOGGLES switches are done (or
# 240 s passed); fio passes over the verified area, one job per CPU, run
# back to back for as long as it toggles.
(
	done_n=0 bad=0 end=$(($(date +%s) + 240))
	while [ $done_n -lt "$TOGGLES" ] && [ "$(date +%s)" -lt $end ]; do
		for f in $files; do
			# Shell builtins only: no fork per toggle.
			read -r cur <"$f"
			if [ "$cur" = 0 ]; then want=1; else want=0; fi
			echo $want >"$f" || bad=$((bad + 1))
			read -r cur <"$f"
			[ "$cur" = $want ] || bad=$((bad + 1))
			done_n=$((done_n + 1))
		done
	done
	echo "$done_n $bad" >/tmp/toggle.result
) &
toggler=$!

passes=0 failed=0
while kill -0 $toggler 2>/dev/null && [ $passes -lt 200 ]; do
	fio --name=verify --filename=$dev --rw=randread --bs=4k --size=32M \
		--ioengine=libaio --direct=1 --iodepth=16 --numjobs="$ncpu" \
		--verify=crc32c --verify_fatal=1 --group_reporting \
		>/tmp/verify.log 2>&1
	rc=$?
	errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/verify.log | sort -u | tr '\n' ' ')
	if [ $rc != 0 ] || [ "$errs" != "0 " ]; then
		failed=$((failed + 1))
		[ $failed = 1 ] && diag "$(tail -5 /tmp/verify.log)"
	fi
	passes=$((passes + 1))
done
wait $toggler
read -r done_n bad </tmp/toggle.result
for f in $files; do echo $start >"$f"; done

diag "toggles: $done_n over $nq queues, during $passes verified fio passes of 4x32 MiB"
diag "$(grep -E 'read: IOPS' /tmp/verify.log | head -1)"
check "at least $TOGGLES toggles done ($done_n)" [ "$done_n" -ge "$TOGGLES" ]
expect_eq "every toggle took and read back" "$bad" 0
check "fio ran during the toggling ($passes passes)" [ "$passes" -ge 2 ]
expect_eq "no fio pass had an I/O or verify error" "$failed" 0
nerr=$(dmesg | grep -cE 'nvme.*(timeout|reset|I/O error|abort)')
expect_eq "no nvme timeouts, resets or I/O errors in the kernel log" "$nerr" 0
