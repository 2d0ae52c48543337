#!/bin/bash
# Boot the guest kernel in QEMU once per scenario and judge the run.
#
#   ci/vm.sh SCENARIO...        (scenarios are the selftests/*/vm.conf dirs)
#
# Each boot gets 4 vCPUs (or the scenario's SMP), an NVMe device backed by a
# sparse file and an e1000e NIC on QEMU user networking (restrict=on: the
# guest reaches nothing outside QEMU).  The guest writes TAP to its second
# serial port; the kernel console goes to the first.  A boot fails when a
# test fails, when the guest does not power itself off in time, or when the
# console shows a kernel splat, whatever the tests printed.
#
# ACCEL=auto (default) tries KVM first and falls back to TCG when KVM shows
# no kernel output within KVM_PROBE_SECS; ACCEL=kvm or ACCEL=tcg forces one.
#
# A scenario with GUEST_ARCH=arm64 in its vm.conf boots KERNEL_ARM64 (the
# Image of 'KARCH=arm64 ci/kernel.sh') with INITRD_ARM64 in
# qemu-system-aarch64's virt machine: GICv3 with an ITS, cortex-a72 vCPUs,
# always TCG; the console is the PL011, TAP goes to a virtio console.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

KERNEL=${KERNEL:-$KOUT/arch/x86/boot/bzImage}
INITRD=${INITRD:-$BUILD/initramfs.cpio}
ACCEL=${ACCEL:-auto}
KVM_PROBE_SECS=${KVM_PROBE_SECS:-20}
BOOT_STALL_SECS=${BOOT_STALL_SECS:-120}
LOGDIR=${LOGDIR:-$BUILD/vm}
COUNTS=${COUNTS:-$BUILD/results/vmtest.counts}
QEMU=${QEMU:-qemu-system-x86_64}

# Kernel splats: any of these in the console fails the boot.
# (Not the bare word lockdep: a lockdep kernel says "RCU lockdep checking
# is enabled" at boot.)
SPLAT='BUG:|WARNING:|Oops|Kernel panic|general protection fault|Call Trace:|'\
'possible recursive locking|possible circular locking|inconsistent lock state|'\
'lockdep is turned off|DEBUG_LOCKS_WARN_ON|suspicious RCU usage|ODEBUG:|'\
'soft lockup|hard LOCKUP|rcu: INFO|rcu_.* detected stalls|self-detected stall|'\
'blocked for more than|UBSAN:|KASAN:|kmemleak:.*new suspected|list_add corruption|'\
'list_del corruption|Poison overwritten|nvme.*timeout|nvme.*resetting controller|'\
'nobody cared|Disabling IRQ #'

[ $# -gt 0 ] || die "usage: ci/vm.sh SCENARIO... (one of: $(cd "$TOP/selftests" && ls -d */vm.conf | sed 's|/vm.conf||' | tr '\n' ' '))"
KERNEL_ARM64=${KERNEL_ARM64:-$BUILD/arm64/obj/arch/arm64/boot/Image}
INITRD_ARM64=${INITRD_ARM64:-$BUILD/initramfs-arm64.cpio}
for s in "$@"; do
	[ -f "$TOP/selftests/$s/vm.conf" ] || die "no scenario '$s' (selftests/$s/vm.conf)"
	if grep -q '^GUEST_ARCH=arm64' "$TOP/selftests/$s/vm.conf"; then
		[ -f "$KERNEL_ARM64" ] || die "no arm64 kernel at $KERNEL_ARM64: run 'make kernel-arm64'"
		[ -f "$INITRD_ARM64" ] || die "no arm64 initramfs at $INITRD_ARM64: run 'make initramfs-arm64'"
		command -v qemu-system-aarch64 >/dev/null || die "qemu-system-aarch64 missing: run 'ci/deps.sh arm64'"
	else
		[ -f "$KERNEL" ] || die "no kernel at $KERNEL: run 'make kernel'"
		[ -f "$INITRD" ] || die "no initramfs at $INITRD: run 'make initramfs'"
		command -v "$QEMU" >/dev/null || die "$QEMU missing: run 'make deps'"
	fi
done

total_pass=0 total_fail=0 total_skip=0
chosen_accel=

# run_qemu ACCEL DIR: boots once; returns qemu's (or timeout's) exit code.
# For ACCEL=kvm under auto, gives up after KVM_PROBE_SECS without console
# output and returns 200.
run_qemu() {
	local accel=$1 dir=$2 pid rc waited=0 t0=$SECONDS
	: >"$dir/console.log"; : >"$dir/tap.log"
	local cmd
	if [ "$GUEST_ARCH" = arm64 ]; then
		cmd=(timeout -k 10 "$TIMEOUT" qemu-system-aarch64 -machine virt,gic-version=3,its=on
			-cpu cortex-a72 -accel tcg
			-smp "$SMP" -m "$MEM" -display none -monitor none -no-reboot
			-serial "file:$dir/console.log"
			-device virtio-serial-device -chardev "file,id=tap,path=$dir/tap.log"
			-device virtconsole,chardev=tap
			-kernel "$KERNEL_ARM64" -initrd "$INITRD_ARM64"
			-append "console=ttyAMA0 panic=-1 irqtest.tap=/dev/hvc0 irqtest.scenario=${SCRIPTS:-$scenario} kunit.enable=$KUNIT $KARGS${KARGS_EXTRA:+ $KARGS_EXTRA}")
	else
		cmd=(timeout -k 10 "$TIMEOUT" "$QEMU" -machine q35 -accel "$accel"
			-smp "$SMP" -m "$MEM" -display none -monitor none -no-reboot
			-serial "file:$dir/console.log" -serial "file:$dir/tap.log"
			-kernel "$KERNEL" -initrd "$INITRD"
			-append "console=ttyS0 panic=-1 irqtest.scenario=${SCRIPTS:-$scenario} kunit.enable=$KUNIT $KARGS${KARGS_EXTRA:+ $KARGS_EXTRA}")
	fi
	cmd+=(
		-drive "file=$dir/nvme.img,if=none,id=nvm,format=raw"
		-device "nvme,serial=irqtest0,drive=nvm,max_ioqpairs=$NVME_QUEUES"
		-netdev "user,id=n0,restrict=on$NETDEV_EXTRA" -device e1000e,netdev=n0,romfile=
		$QEMU_EXTRA)
	echo "${cmd[*]}" >"$dir/qemu.cmd"
	"${cmd[@]}" >"$dir/qemu.out" 2>&1 &
	pid=$!
	if [ "$accel" = kvm ] && [ "$ACCEL" = auto ]; then
		while kill -0 $pid 2>/dev/null && [ $waited -lt "$KVM_PROBE_SECS" ]; do
			grep -q 'Linux version' "$dir/console.log" && break
			sleep 1; waited=$((waited + 1))
		done
		if ! grep -q 'Linux version' "$dir/console.log"; then
			kill $pid 2>/dev/null; wait $pid 2>/dev/null
			return 200
		fi
	fi
	# Under TCG a boot has been seen to stop for good in early boot (at
	# the switch to the tsc-early clocksource), long before anything of
	# the series runs: no console line for BOOT_STALL_SECS before /init
	# ends this attempt with 201, and the caller boots once more.
	local size=0 last_change=$SECONDS
	while kill -0 $pid 2>/dev/null; do
		sleep 1
		grep -q 'Run /init as init process' "$dir/console.log" && break
		local now_size
		now_size=$(stat -c %s "$dir/console.log")
		if [ "$now_size" != "$size" ]; then size=$now_size last_change=$SECONDS
		elif [ $((SECONDS - last_change)) -ge "$BOOT_STALL_SECS" ]; then
			kill $pid 2>/dev/null; wait $pid 2>/dev/null
			return 201
		fi
	done
	# A long boot (the stress runs take up to 40 min) says every minute
	# how far the guest got: its last TAP line.
	local beat=$SECONDS
	while kill -0 $pid 2>/dev/null; do
		sleep 1
		[ $((SECONDS - beat)) -ge 60 ] || continue
		beat=$SECONDS
		echo "  ... $scenario: $(((SECONDS - t0) / 60)) min: $(tr -d '\r' <"$dir/tap.log" | grep -v '^#kunit| ' | tail -n 1 | cut -c1-110)"
	done
	wait $pid; rc=$?
	tr -d '\r' <"$dir/tap.log" | grep -v '^#kunit| ' | sed 's/^/  /'
	return $rc
}

for scenario in "$@"; do
	SMP=4 MEM=2G NVME_QUEUES=4 NVME_SIZE=256M KARGS= TIMEOUT=600 QEMU_EXTRA= NETDEV_EXTRA= KUNIT=0 KUNIT_SUITES= KUNIT_NO_SKIP=0 KUNIT_MUST_RUN= BENCH=0 SCRIPTS=
	SPLAT_EXPECTED=
	GUEST_ARCH=x86_64
	HOST_FWD=0
	dir=$LOGDIR/$scenario
	rm -rf "$dir"; mkdir -p "$dir"
	# HOST_FWD=1 in vm.conf: a free loopback port forwarded to the guest's
	# port 5001 ($HOST_PORT), and selftests/<scenario>/host (not *.sh, which
	# the guest runs), which runs
	# on the host as "host prepare" before the boot (its output is added
	# to the kernel command line) and as "host run" in the background
	# while the guest runs (stopped when it powers off; HOST_TIMEOUT is the
	# boot's timeout).
	HOST_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	export HOST_PORT HOST_DIR=$dir
	. "$TOP/selftests/$scenario/vm.conf"
	# SPLAT_EXPECTED: the splat lines a benchmark boot is expected to
	# produce (the swamp model's lockup reports); only BENCH=1 may set it.
	[ -z "$SPLAT_EXPECTED" ] || [ "$BENCH" = 1 ] || die "$scenario: SPLAT_EXPECTED is only for BENCH=1 scenarios"
	host_sh=$TOP/selftests/$scenario/host
	if [ "$HOST_FWD" = 1 ]; then
		[ -x "$host_sh" ] || die "$scenario: HOST_FWD=1 needs an executable $host_sh"
		NETDEV_EXTRA+=",hostfwd=tcp:127.0.0.1:$HOST_PORT-:5001"
		KARGS+=" $("$host_sh" prepare)" || die "$scenario: host prepare failed"
	fi
	truncate -s "$NVME_SIZE" "$dir/nvme.img"
	start=$(date +%s)

	accel=$chosen_accel
	if [ -z "$accel" ]; then
		case "$ACCEL" in
		kvm | tcg) accel=$ACCEL ;;
		auto)
			# /dev/kvm served by kvm_pvm runs only guests built for
			# PVM: a stock kernel hangs after the option ROM, so do not
			# spend a probe on it (nor on KVM once it failed here).
			if [ -d /sys/module/kvm_pvm ] || [ -n "${KVM_FAILED:-}" ] || [ ! -w /dev/kvm ]; then
				[ ! -d /sys/module/kvm_pvm ] || echo "    accel: /dev/kvm is kvm_pvm (PVM guests only): tcg"
				accel=tcg
			else
				accel=kvm
			fi ;;
		*) die "ACCEL must be auto, kvm or tcg (got '$ACCEL')" ;;
		esac
	fi
	echo "=== $scenario: booting ($accel, $SMP vCPUs, $NVME_QUEUES nvme I/O queues, timeout ${TIMEOUT}s)"
	host_pid=
	if [ "$HOST_FWD" = 1 ]; then HOST_TIMEOUT=$TIMEOUT "$host_sh" run >"$dir/host.log" 2>&1 & host_pid=$!; fi
	run_qemu "$accel" "$dir"; rc=$?
	if [ $rc = 200 ]; then
		echo "    accel: kvm showed no kernel output in ${KVM_PROBE_SECS}s; falling back to tcg"
		KVM_FAILED=1
		accel=tcg
		run_qemu tcg "$dir"; rc=$?
	fi
	if [ $rc = 201 ]; then
		echo "    boot stalled before /init: no console line for ${BOOT_STALL_SECS}s after"
		tail -n 2 "$dir/console.log" | tr -d '\r' | sed 's/^/    | /'
		cp "$dir/console.log" "$dir/console.stalled.log"
		echo "    booting once more (a second stall fails the scenario)"
		run_qemu "$accel" "$dir"; rc=$?
	fi
	if [ -n "$host_pid" ]; then
		kill "$host_pid" 2>/dev/null; wait "$host_pid" 2>/dev/null
		sed 's/^/  host: /' "$dir/host.log" | tail -5
	fi
	chosen_accel=$accel
	secs=$(($(date +%s) - start))

	tr -d '\r' <"$dir/tap.log" >"$dir/tap.txt"
	p=$(grep -E '^ok [0-9]+' "$dir/tap.txt" | grep -vc '# SKIP')
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$dir/tap.txt")
	f=$(grep -cE '^not ok [0-9]+' "$dir/tap.txt")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$dir/tap.txt" | tail -1)
	# Host-side checks of the boot itself count as results too.
	host_fail=()
	if [ $rc = 201 ]; then host_fail+=("boot stalled before /init twice (no console line for ${BOOT_STALL_SECS}s)")
	elif [ $rc = 124 ] || [ $rc = 137 ]; then host_fail+=("guest did not power off within ${TIMEOUT}s")
	elif ! grep -q '^# guest done' "$dir/tap.txt"; then host_fail+=("guest did not finish its tests (qemu exit $rc)")
	fi
	[ -n "$plan" ] && [ "$plan" = $((p + s + f)) ] || host_fail+=("TAP plan '${plan:-none}' does not match $((p + s + f)) results")
	[ "$KUNIT" = 1 ] || [ $((p + s + f)) -gt 0 ] || host_fail+=("no test ran")
	# The irq_test KUnit cases that check that a storm on a threaded
	# line is still disabled print "irq_test: irq N: expecting a spurious
	# interrupt report" first: that one report of irq N ("irq N: nobody
	# cared" to "Disabling IRQ #N") is theirs.  Any other report, or a
	# second one of the same irq, is still a splat.
	awk '
		{ l = $0; sub(/\r$/, "", l) }
		match(l, /irq_test: irq [0-9]+: expecting a spurious interrupt report/) {
			n = substr(l, RSTART + 14); sub(/:.*/, "", n); want[n] = 1 }
		!skip && match(l, /irq [0-9]+: nobody cared/) {
			n = substr(l, RSTART + 4); sub(/:.*/, "", n)
			if (n in want) { skip = n; delete want[n]; reports++ } }
		skip { if (l ~ ("Disabling IRQ #" skip "$")) skip = 0; next }
		# selftests/nvme-reset/20-timeout.sh injects one I/O timeout:
		# its nvme timeout and reset lines, between its two markers.
		index(l, "irqtest: expecting an nvme I/O timeout and reset") { inj = 1; next }
		index(l, "irqtest: nvme I/O timeout injection over") { inj = 0; next }
		inj && l ~ /nvme.*(timeout|resetting controller)/ { injected++; next }
		{ print }
		END { if (reports) print "#vm.sh: " reports " expected spurious interrupt reports (irq_test) left out" > "/dev/stderr"
		      if (injected) print "#vm.sh: " injected " nvme timeout lines of an injected timeout (nvme-reset) left out" > "/dev/stderr" }
	' "$dir/console.log" >"$dir/console.judged" 2>"$dir/console.judged.note"
	[ ! -s "$dir/console.judged.note" ] || echo "  host: $scenario: $(sed 's/^#vm.sh: //' "$dir/console.judged.note")"
	if [ -n "$SPLAT_EXPECTED" ]; then
		expected=$(grep -aE "$SPLAT" "$dir/console.judged" | grep -acE "$SPLAT_EXPECTED")
		[ "$expected" = 0 ] || echo "  host: $scenario: $expected expected splat lines (BENCH, SPLAT_EXPECTED): $(grep -aE "$SPLAT_EXPECTED" "$dir/console.log" | grep -aE "$SPLAT" | tr -d '\r' | sed 's/^\[[ 0-9.]*\] //' | sort | uniq -c | sort -rn | head -3 | tr -s ' ' | paste -sd';')"
		splats=$(grep -aE "$SPLAT" "$dir/console.judged" | grep -avE "$SPLAT_EXPECTED" | head -20)
	else
		splats=$(grep -aE "$SPLAT" "$dir/console.judged" | head -20)
	fi
	[ -z "$splats" ] || host_fail+=("kernel splat in the console log")

	# KUnit runs at boot.  The guest copies each suite's results from
	# debugfs to the TAP port ("#kunit| " lines): the console copy can be
	# split by another CPU's message, and once lost a suite's last line.
	# The test cases (the indented result lines) count as results of this
	# boot, and each suite the scenario names must have reported as a whole.
	if [ "$KUNIT" = 1 ]; then
		sed -n 's/^#kunit| //p' "$dir/tap.txt" >"$dir/kunit.ktap"
		grep -E '^ {4,}(not )?ok [0-9]+ ' "$dir/kunit.ktap" >"$dir/kunit.txt"
		kp=$(grep -E '^ +ok ' "$dir/kunit.txt" | grep -vc '# SKIP')
		ks=$(grep -cE '^ +ok .*# SKIP' "$dir/kunit.txt")
		kf=$(grep -cE '^ +not ok ' "$dir/kunit.txt")
		echo "  KUnit ($((kp + ks + kf)) cases):"
		# Each case's result, and under a failed one what it printed
		# (its expectations): CI shows only this summary.
		awk '/^    +(not )?ok [0-9]+ / {
			line = $0; sub(/^ +/, "", line); print "    " line
			if ($0 ~ /^ +not ok /)
				for (i = 1; i <= n && i <= 25; i++) print "      | " buf[i]
			n = 0; next
		}
		/^ *(KTAP version|# Subtest:|1\.\.[0-9]+$|# module:)/ { next }
		/^(not )?ok [0-9]+ / { n = 0; next }
		{ l = $0; sub(/^ +/, "", l); buf[++n] = l }' "$dir/kunit.ktap"
		p=$((p + kp)) s=$((s + ks)) f=$((f + kf))
		[ $((kp + ks + kf)) -gt 0 ] || { f=$((f + 1)); echo "  not ok host: $scenario: no KUnit results in the guest's debugfs (CONFIG_KUNIT_DEBUGFS)"; }
		# A boot made for certain cases (KUNIT_NO_SKIP=1) fails when they skip.
		[ "$KUNIT_NO_SKIP" != 1 ] || [ "$ks" = 0 ] || { f=$((f + 1)); echo "  not ok host: $scenario: $ks KUnit cases skipped in a boot made to run them"; }
		# ... or when the cases it names (KUNIT_MUST_RUN, an ERE on the
		# case name) skip or are missing.
		if [ -n "$KUNIT_MUST_RUN" ]; then
			mr=$(grep -cE "^ +ok [0-9]+ ($KUNIT_MUST_RUN)" "$dir/kunit.txt" | tr -d ' ')
			ms=$(grep -cE "^ +ok [0-9]+ ($KUNIT_MUST_RUN).*# SKIP" "$dir/kunit.txt" | tr -d ' ')
			if [ "$mr" -gt 0 ] && [ "$ms" = 0 ]; then p=$((p + 1)); echo "  ok host: $scenario: the $mr KUnit cases matching '$KUNIT_MUST_RUN' ran"
			else f=$((f + 1)); echo "  not ok host: $scenario: of the KUnit cases matching '$KUNIT_MUST_RUN', $mr passed, $ms of them skipped"; fi
		fi
		# A skip must say why (kunit_skip()'s reason): a bare SKIP fails.
		bare=$(grep -cE '^ +ok [0-9]+ .*# SKIP *$' "$dir/kunit.txt")
		[ "$bare" = 0 ] || { f=$((f + 1)); echo "  not ok host: $scenario: $bare KUnit cases skipped without a reason"; }
		for suite in $KUNIT_SUITES; do
			if grep -qE "^(not )?ok [0-9]+ $suite( |\$)" "$dir/kunit.ktap"; then
				p=$((p + 1)); echo "  ok host: KUnit suite $suite ran"
			else
				f=$((f + 1)); echo "  not ok host: KUnit suite $suite did not report"
			fi
		done
	fi

	if [ ${#host_fail[@]} = 0 ]; then p=$((p + 1)); echo "  ok host: $scenario booted, tests finished, no splat"
	else
		f=$((f + 1))
		for m in "${host_fail[@]}"; do echo "  not ok host: $scenario: $m"; done
		[ -z "$splats" ] || { echo "  --- splat lines:"; echo "$splats" | sed 's/^/  | /'; }
		echo "  --- last console lines ($dir/console.log):"
		tail -n 25 "$dir/console.log" | tr -d '\r' | sed 's/^/  | /'
	fi
	echo "=== $scenario: $p passed, $f failed, $s skipped (${secs}s, $accel)"
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
done

mkdir -p "$(dirname "$COUNTS")"
echo "$total_pass $total_fail $total_skip" >"$COUNTS"
echo "vmtest: $total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail = 0 ]
