#!/bin/sh
# A queue's mode survives controller resets.  Booted by nvme-reset (hard
# irq, the default) and nvme-threaded-param (nvme.use_threaded_interrupts=1,
# where the I/O queues start threaded).  nvme0q1 is switched to threaded
# mode and nvme0q2 to hard mode through their proc files, then the
# controller is reset twice (echo 1 > /sys/class/nvme/nvme0/reset_controller
# frees every queue's interrupt and requests it again, perhaps with another
# number): each queue must come back in its mode, with an irq thread only
# when threaded, and fio must read back verified data.  Then both queues
# switch both ways under verified fio.
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

ncpu=$(grep -c ^processor /proc/cpuinfo)
param=0
grep -qw 'nvme.use_threaded_interrupts=1' /proc/cmdline && param=1
ctrl=$(nvme_ctrl irqtest0)
dev=/dev/${ctrl}n1
if [ -z "$ctrl" ] || [ "$(nvme_ioqs "$ctrl" | wc -w)" != 2 ] || [ ! -b "$dev" ]; then
	fail "one nvme controller with two I/O queues and $dev"
	diag "$(grep nvme /proc/interrupts)"
	exit 0
fi
q1=${ctrl}q1 q2=${ctrl}q2
pass "$ctrl with I/O queues $q1 and $q2, use_threaded_interrupts=$param"

file_of() { echo "/proc/irq/$(irq_of "$1")/$1/threaded"; }
mode_of() { read -r m <"$(file_of "$1")" && echo "$m"; }
set_mode() { echo "$2" >"$(file_of "$1")"; }
# thread_of Q: 1 when Q's irq thread exists, else 0
thread_of() { if irq_thread_pid "$(irq_of "$1")" "$1" >/dev/null; then echo 1; else echo 0; fi; }
verify() {
	fio --name=verify --filename="$dev" --rw=randread --bs=4k --size=32M \
		--ioengine=libaio --direct=1 --iodepth=16 --numjobs="$ncpu" \
		--verify=crc32c --verify_fatal=1 --loops=1000 --runtime="$2" \
		--group_reporting >/tmp/verify.log 2>&1
	rc=$?
	errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/verify.log | sort -u | tr '\n' ' ')
	ok=1; [ $rc -eq 0 ] && [ "$errs" = "0 " ] && ok=0
	check "$1: fio 4k randread --verify=crc32c, $ncpu jobs, $2 s: exit 0, no errors" [ $ok = 0 ]
	[ $ok = 0 ] || diag "$(tail -5 /tmp/verify.log)"
}

expect_eq "both I/O queues start in mode $param" "$(mode_of "$q1")$(mode_of "$q2")" "$param$param"
q0=$(irq_of "${ctrl}q0")
if [ "$param" = 1 ]; then
	if echo 0 2>/dev/null >"/proc/irq/$q0/${ctrl}q0/threaded"; then
		fail "the admin queue (its own irq thread) refuses to switch"
	else
		pass "the admin queue (its own irq thread) refuses to switch"
	fi
fi

fio --name=fill --filename="$dev" --rw=write --bs=4k --size=32M \
	--ioengine=libaio --direct=1 --iodepth=32 --verify=crc32c --do_verify=0 \
	>/tmp/fill.log 2>&1
check "fio wrote the verify pattern (32 MiB)" [ $? -eq 0 ]

set_mode "$q1" 1
set_mode "$q2" 0
expect_eq "$q1 threaded, $q2 hard" "$(mode_of "$q1")$(mode_of "$q2")" 10
for r in 1 2; do
	before="$(irq_of "$q1") $(irq_of "$q2")"
	check "reset $r: $ctrl live again" nvme_reset "$ctrl"
	diag "reset $r: irqs of $q1 $q2 before: $before, after: $(irq_of "$q1") $(irq_of "$q2")"
	expect_eq "reset $r: $q1 still threaded, $q2 still hard" "$(mode_of "$q1")$(mode_of "$q2")" 10
	expect_eq "reset $r: an irq thread for $q1 only" "$(thread_of "$q1")$(thread_of "$q2")" 10
	verify "reset $r" 5
done
kept=$(dmesg | grep -c "$ctrl: queue [12]: .* mode kept")
diag "$(dmesg | grep "$ctrl: queue [12]: " | tail -4)"
check "the log says which queue kept its mode ($kept lines)" [ "$kept" -ge 2 ]

# Both ways under verified fio.
fio --name=verify --filename="$dev" --rw=randread --bs=4k --size=32M \
	--ioengine=libaio --direct=1 --iodepth=16 --numjobs="$ncpu" \
	--verify=crc32c --verify_fatal=1 --loops=1000 --runtime=10 \
	--group_reporting >/tmp/toggle.log 2>&1 &
fiopid=$!
bad=0 n=0
while [ $n -lt 20 ]; do
	m=$((n % 2))
	set_mode "$q1" $m || bad=$((bad + 1))
	set_mode "$q2" $((1 - m)) || bad=$((bad + 1))
	[ "$(mode_of "$q1")$(mode_of "$q2")" = "$m$((1 - m))" ] || bad=$((bad + 1))
	n=$((n + 1))
	usleep 200000
done
wait "$fiopid"
rc=$?
expect_eq "$n switches of each queue both ways took effect" "$bad" 0
errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/toggle.log | sort -u | tr '\n' ' ')
ok=1; [ $rc -eq 0 ] && [ "$errs" = "0 " ] && ok=0
check "fio under the switches: exit 0, no errors" [ $ok = 0 ]
nerr=$(dmesg | grep -cE 'nvme.*(timeout|I/O error|abort)')
expect_eq "no nvme timeouts or I/O errors in the kernel log" "$nerr" 0
