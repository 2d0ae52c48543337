#!/bin/sh
# Everything at once, bounded in counts and time: verified fio writes on
# NVMe, every NVMe queue's threaded file toggled, vCPUs taken offline and
# online (each queue thread's CPUs are asserted after each step: the CPU its
# interrupt is delivered to),
# the NVMe device unbound and bound again while its proc files are in use,
# and the e1000e rx vector toggled under TCP traffic.  Afterwards the
# kselftest's refused-input list, a fuzz loop on the proc files and a
# kmemleak scan.  The counts come from the kernel command line
# (stress.toggles= and so on, see below); the host fails the boot on any
# splat.
. /selftests/guest/lib.sh
. /selftests/guest/nvme.sh

TOGGLES=10000 HOTPLUG=20 REBINDS=3 NET_TOGGLES=1000 FUZZ=2000 SECS=1200
FIO_MB=16 md5=
for a in $(cat /proc/cmdline); do
	case $a in
	stress.toggles=*) TOGGLES=${a#*=} ;;
	stress.hotplug=*) HOTPLUG=${a#*=} ;;
	stress.rebinds=*) REBINDS=${a#*=} ;;
	stress.net_toggles=*) NET_TOGGLES=${a#*=} ;;
	stress.fuzz=*) FUZZ=${a#*=} ;;
	stress.secs=*) SECS=${a#*=} ;;
	stress.fio_mb=*) FIO_MB=${a#*=} ;;
	irqtest.payload_md5=*) md5=${a#*=} ;;
	esac
done
ncpu=$(grep -c ^processor /proc/cpuinfo)
deadline=$(($(date +%s) + SECS))
past_deadline() { [ "$(date +%s)" -ge $deadline ]; }
diag "stress: toggles=$TOGGLES hotplug=$HOTPLUG rebinds=$REBINDS net_toggles=$NET_TOGGLES fuzz=$FUZZ secs=$SECS, $ncpu CPUs"

ctrl=$(nvme_ctrl irqtest0)
if [ -z "$ctrl" ] || [ -z "$(nvme_ioqs "$ctrl")" ]; then
	fail "NVMe controller irqtest0 with I/O queues"
	exit 0
fi
pci=$(basename "$(readlink -f "/sys/class/nvme/$ctrl/device")")
pass "NVMe $ctrl ($pci) with $(nvme_ioqs "$ctrl" | wc -l) I/O queues"
# Files of the NVMe I/O queues right now (the controller may be rebinding).
qfiles() {
	c=$(nvme_ctrl irqtest0) || return 0
	for q in $(nvme_ioqs "$c"); do echo "/proc/irq/$(irq_of "$q")/$q/threaded"; done
}
kml=/sys/kernel/debug/kmemleak
if [ -w $kml ]; then echo scan >$kml; echo clear >$kml; fi
rm -rf /tmp/st; mkdir -p /tmp/st
echo 0 >/tmp/st/gen

# The toggler pauses while /tmp/st/hold exists (it says so in held), so
# that the hotplug check can look at a stable mode.
toggler_pause() {
	touch /tmp/st/hold
	while [ ! -e /tmp/st/held ] && [ ! -e /tmp/st/toggler.done ]; do usleep 20000; done
}
toggler_resume() { rm -f /tmp/st/hold /tmp/st/held; }
# One of the rebind and the hotplug check at a time.
dev_lock() { until mkdir /tmp/st/dev.lock 2>/dev/null; do usleep 50000; done; }
dev_unlock() { rmdir /tmp/st/dev.lock; }

# 1. Toggler: every NVMe queue's threaded file, in turn.  A failed write
# counts as bad, unless the device is being unbound (files go away).
(
	n=0 bad=0 gone=0 files= gen=x
	while [ $n -lt "$TOGGLES" ]; do
		[ $((n % 64)) = 0 ] && past_deadline && break
		if [ -e /tmp/st/hold ]; then
			touch /tmp/st/held
			while [ -e /tmp/st/hold ]; do usleep 20000; done
		fi
		# The list of files changes only with a rebind (gen counts them).
		read -r g </tmp/st/gen
		if [ "$g" != "$gen" ] || [ -z "$files" ]; then files=$(qfiles); gen=$g; fi
		[ -n "$files" ] || usleep 50000
		for f in $files; do
			# 0 -> 1 -> 0
			want=
			if { read -r cur <"$f"; } 2>/dev/null; then
				case "$cur" in
				0) want=1 ;;
				*) want=0 ;;
				esac
				if { echo $want >"$f" && read -r cur <"$f"; } 2>/dev/null &&
					[ "$cur" = "$want" ]; then
					n=$((n + 1))
					[ $((n % 100)) = 0 ] && echo $n >/tmp/st/toggle.count
					continue
				fi
			fi
			# Failed: fine if the device is being (or was just) rebound.
			read -r g </tmp/st/gen
			if [ -e /tmp/st/rebinding ] || [ "$g" != "$gen" ]; then
				gone=$((gone + 1)) files=
				break
			else
				bad=$((bad + 1))
				[ $bad -le 3 ] && echo "# toggle of $f to $want failed (read back '$cur')" >>/tmp/st/diag
			fi
		done
	done
	echo "$n $bad $gone" >/tmp/st/toggle.result
	touch /tmp/st/toggler.done
) &
toggler=$!

# 2. Hotplug: offline and online again one vCPU per cycle (CPU 0 stays);
# every fourth cycle all CPUs of one queue's mask at once, so that its
# managed interrupt shuts down and starts up again.  After each step, with
# the toggler paused and every queue threaded, the thread of every queue
# whose mask has an online CPU must be allowed its interrupt's effective
# CPU and the affinity mask (IRQF_IRQ_AFFINITY, thread_cpus_ok).
online_list() { cat /sys/devices/system/cpu/online; }
set_cpu() { echo "$2" >"/sys/devices/system/cpu/cpu$1/online"; }
# in_list CPU LIST: CPU is in a cpulist like 0-1,3.
in_list() {
	for r in $(echo "$2" | tr ',' ' '); do
		lo=${r%-*} hi=${r#*-}
		[ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ] && return 0
	done
	return 1
}
# check_masks STEP: prints the mismatches, returns 1 when there is one.
check_masks() {
	dev_lock
	toggler_pause
	c=$(nvme_ctrl irqtest0)
	rc=0
	for q in $(nvme_ioqs "$c"); do
		irq=$(irq_of "$q")
		echo 1 >"/proc/irq/$irq/$q/threaded" || { echo "# $1: $q: switch to threaded failed"; rc=1; }
	done
	on=$(online_list)
	for q in $(nvme_ioqs "$c"); do
		irq=$(irq_of "$q")
		aff=$(cat "/proc/irq/$irq/smp_affinity_list")
		cpus=
		for cpu in $(cpus_of "$aff"); do in_list "$cpu" "$on" && cpus="$cpus $cpu"; done
		[ -n "$cpus" ] || continue
		# The thread picks up a new effective CPU when it runs: make it
		# run with a few reads from every online CPU of the mask.
		i=0 got= eff=
		pid=$(irq_thread_pid "$irq" "$q")
		while [ $i -lt 20 ]; do
			for cpu in $cpus; do
				taskset -c "$cpu" dd if="/dev/${c}n1" of=/dev/null bs=4k count=8 \
					skip=$((i * 8)) iflag=direct 2>/dev/null
			done
			[ -n "$pid" ] || pid=$(irq_thread_pid "$irq" "$q")
			got=$(cpus_allowed "$pid" 2>/dev/null)
			eff=$(cat "/proc/irq/$irq/effective_affinity_list")
			# An IRQF_IRQ_AFFINITY thread (nvme's I/O queues)
			# is allowed the affinity mask and that CPU.
			[ -n "$pid" ] && thread_cpus_ok "$got" "$eff" "$aff" && break
			usleep 100000; i=$((i + 1))
		done
		echo "$1 $q $eff $got" >>/tmp/st/maskchecks
		if ! thread_cpus_ok "$got" "$eff" "$aff"; then
			echo "# $1: $q (irq $irq, mask $aff, effective $eff, online $on): thread ${pid:-missing} allowed '$got'"
			rc=1
		fi
	done
	toggler_resume
	dev_unlock
	return $rc
}
(
	cycles=0 bad=0 steps=0
	while [ $cycles -lt "$HOTPLUG" ] && ! past_deadline; do
		if [ $((cycles % 4)) = 3 ]; then
			# The mask of the last queue, if it leaves CPU 0 out.
			c=$(nvme_ctrl irqtest0)
			q=$(nvme_ioqs "$c" | tail -1)
			down=$(cpus_of "$(cat "/proc/irq/$(irq_of "$q")/smp_affinity_list")" | grep -vx 0)
		else
			down=$((1 + cycles % (ncpu - 1)))
		fi
		for cpu in $down; do set_cpu $cpu 0 || echo "# offline cpu$cpu failed" >>/tmp/st/diag; done
		check_masks "cycle $cycles, cpu $(echo $down) offline" >>/tmp/st/diag || bad=$((bad + 1))
		for cpu in $down; do set_cpu $cpu 1 || echo "# online cpu$cpu failed" >>/tmp/st/diag; done
		check_masks "cycle $cycles, cpu $(echo $down) online again" >>/tmp/st/diag || bad=$((bad + 1))
		steps=$((steps + 2)) cycles=$((cycles + 1))
		echo $cycles >/tmp/st/hotplug.count
	done
	echo "$cycles $bad $steps" >/tmp/st/hotplug.result
) &
hotplugger=$!

# 3. e1000e: toggle the rx vector while the host sends its payload.
net_ok=0 net_bad=0
if [ -n "$md5" ]; then
	ip link set lo up
	ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0
	rxq=eth0-rx-0
	rxf=/proc/irq/$(irq_of $rxq)/$rxq/threaded
	printf '#!/bin/sh\nprintf R\ncat >/tmp/st/rx.bin\nprintf D\n' >/tmp/st/recv.sh
	chmod +x /tmp/st/recv.sh
	(
		n=0 bad=0
		while [ $n -lt "$NET_TOGGLES" ] && ! past_deadline; do
			read -r cur <"$rxf"
			if [ "$cur" = 0 ]; then want=1; else want=0; fi
			echo $want >"$rxf" && read -r cur <"$rxf" && [ "$cur" = $want ] || bad=$((bad + 1))
			n=$((n + 1))
			usleep 10000
		done
		echo "$n $bad" >/tmp/st/net.result
	) &
	(
		ok=0 bad=0
		while [ ! -e /tmp/st/net.result ] && ! past_deadline; do
			rm -f /tmp/st/rx.bin
			timeout 120 nc -l -p 5001 -e /tmp/st/recv.sh >/dev/null 2>&1
			got=$(md5sum /tmp/st/rx.bin 2>/dev/null | cut -d' ' -f1)
			if [ "$got" = "$md5" ]; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
		done
		echo "$ok $bad" >/tmp/st/rx.result
	) &
	receiver=$!
fi

# Progress, once a minute, for whoever watches the boot.
(
	while sleep 60; do
		diag "progress: toggles $(cat /tmp/st/toggle.count 2>/dev/null || echo 0)," \
			"hotplug cycles $(cat /tmp/st/hotplug.count 2>/dev/null || echo 0)," \
			"fio passes and rebinds $(cat /tmp/st/fio.count 2>/dev/null || echo '0 0')"
	done
) &
monitor=$!

# 4. Verified fio writes over the whole device in passes, one job per CPU
# with its own region; between passes, now and then, unbind and bind.
passes=0 fio_bad=0 rebinds=0 rebind_bad=0 bytes=0
every=2
while ! past_deadline; do
	busy=0
	kill -0 $toggler 2>/dev/null && busy=1
	kill -0 $hotplugger 2>/dev/null && busy=1
	[ $rebinds -lt "$REBINDS" ] && busy=1
	[ -n "$md5" ] && [ ! -e /tmp/st/net.result ] && busy=1
	[ $busy = 1 ] || break
	if [ $rebinds -lt "$REBINDS" ] && [ $((passes % every)) = $((every - 1)) ]; then
		dev_lock
		touch /tmp/st/rebinding
		echo "$pci" >/sys/bus/pci/drivers/nvme/unbind || rebind_bad=$((rebind_bad + 1))
		echo "$pci" >/sys/bus/pci/drivers/nvme/bind || rebind_bad=$((rebind_bad + 1))
		i=0
		while [ $i -lt 300 ]; do
			c=$(nvme_ctrl irqtest0) && [ "$(cat "/sys/class/nvme/$c/state")" = live ] &&
				[ -n "$(nvme_ioqs "$c")" ] && [ -b "/dev/${c}n1" ] && break
			usleep 100000; i=$((i + 1))
		done
		[ $i -lt 300 ] || { rebind_bad=$((rebind_bad + 1)); echo "# rebind $rebinds: not live in 30 s" >>/tmp/st/diag; }
		rebinds=$((rebinds + 1))
		echo $rebinds >/tmp/st/gen
		rm -f /tmp/st/rebinding
		dev_unlock
	fi
	c=$(nvme_ctrl irqtest0)
	fio --name=stress --filename="/dev/${c}n1" --rw=randwrite --bs=4k --size=${FIO_MB}M \
		--offset_increment=${FIO_MB}M --numjobs="$ncpu" --ioengine=libaio --direct=1 \
		--iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
		>/tmp/st/fio.log 2>&1
	rc=$?
	errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/st/fio.log | sort -u | tr '\n' ' ')
	if [ $rc != 0 ] || [ "$errs" != "0 " ]; then
		fio_bad=$((fio_bad + 1))
		[ $fio_bad -le 2 ] && diag "fio pass $passes: $(tail -5 /tmp/st/fio.log)"
	else
		bytes=$((bytes + ncpu * FIO_MB * 1048576))
	fi
	passes=$((passes + 1))
	echo "$passes $rebinds" >/tmp/st/fio.count
done
kill $monitor 2>/dev/null
# Past the deadline: tell the others to stop where they are.
wait $toggler $hotplugger
[ -n "$md5" ] && { wait $receiver; pkill -f 'nc -l -p 5001'; }
for cpu in $(seq 1 $((ncpu - 1))); do set_cpu $cpu 1 2>/dev/null; done
[ -s /tmp/st/diag ] && diag "$(head -20 /tmp/st/diag)"

read -r toggles tbad tgone </tmp/st/toggle.result
read -r cycles hbad steps </tmp/st/hotplug.result
check "$toggles toggles of the NVMe queues (at least $TOGGLES)" [ "$toggles" -ge "$TOGGLES" ]
expect_eq "every toggle took effect (outside unbind)" "$tbad" 0
check "$cycles CPU hotplug cycles (at least $HOTPLUG)" [ "$cycles" -ge "$HOTPLUG" ]
nchecks=$(cat /tmp/st/maskchecks 2>/dev/null | wc -l)
diag "mask checks: $(tail -2 /tmp/st/maskchecks 2>/dev/null | tr '\n' ';')"
expect_eq "queue threads on their interrupts' effective CPUs (and a placed one) after each of $steps hotplug steps ($nchecks checks)" "$hbad" 0
check "the thread masks were checked ($nchecks times)" [ "$nchecks" -ge "$steps" ]
check "$rebinds unbind/bind of $pci (at least $REBINDS)" [ $rebinds -ge "$REBINDS" ]
expect_eq "every rebind came back live" "$rebind_bad" 0
check "$passes verified fio passes" [ $passes -ge 1 ]
expect_eq "no fio pass had an I/O or verify error" "$fio_bad" 0
expect_eq "all CPUs online at the end" "$(online_list)" "0-$((ncpu - 1))"
nerr=$(dmesg | grep -cE 'nvme.*(timeout|reset|I/O error|abort)')
expect_eq "no nvme timeouts, resets or I/O errors in the kernel log" "$nerr" 0
net_toggles=0
if [ -n "$md5" ]; then
	read -r net_toggles nbad </tmp/st/net.result
	read -r net_ok net_bad </tmp/st/rx.result
	check "$net_toggles toggles of $rxq (at least $NET_TOGGLES)" [ "$net_toggles" -ge "$NET_TOGGLES" ]
	expect_eq "every $rxq toggle took effect" "$nbad" 0
	check "$net_ok TCP transfers arrived intact meanwhile" [ "$net_ok" -ge 1 ]
	expect_eq "no transfer arrived corrupted or short" "$net_bad" 0
	expect_eq "eth0 has carrier" "$(cat /sys/class/net/eth0/carrier)" 1
else
	skip "e1000e under traffic" "no payload from the host (HOST_FWD=1)"
fi

# 5. The kselftest (its refused-input list among them) on the stressed system.
run_kselftest irq/threaded_test

# 6. Fuzz: random bytes of random length, one write() each, to every queue's
# file; a refused write must change nothing, and at the end each file
# reads the mode of its last accepted write.  The files start in a fixed
# mode.
fuzz_n=0 fuzz_bad=0 fuzz_ok=0
files=$(qfiles)
[ -n "$md5" ] && files="$files $rxf"
for f in $files; do echo 0 >"$f" || fail "echo 0 >$f before the fuzz"; done
set -- $files
nf=$#
i=0
while [ $i -lt "$FUZZ" ]; do
	r=$(od -An -tu2 -N4 /dev/urandom)
	set -- $r
	len=$(($1 % 64)) k=$(($2 % nf + 1))
	f=$(echo $files | cut -d' ' -f$k)
	# Mostly short input, sometimes longer than a page.
	[ $((i % 50)) = 49 ] && len=$((4096 + $1 % 256))
	head -c $len /dev/urandom >/tmp/st/fuzz
	read -r before <"$f"
	if dd if=/tmp/st/fuzz of="$f" bs=$((len + 1)) count=1 2>/dev/null; then
		read -r after <"$f"
		fuzz_ok=$((fuzz_ok + 1))
		eval "last_$k=\"\$after\""
	else
		read -r after <"$f"
		[ "$after" = "$before" ] || { fuzz_bad=$((fuzz_bad + 1)); diag "refused write changed $f: $before -> $after"; }
	fi
	i=$((i + 1))
done
k=1 end_bad=0
for f in $files; do
	eval "want=\${last_$k:-}"
	read -r cur <"$f"
	[ -z "$want" ] || [ "$cur" = "$want" ] || { end_bad=$((end_bad + 1)); diag "$f reads $cur, last accepted write set $want"; }
	k=$((k + 1))
done
diag "fuzz: $i writes to $nf files, $fuzz_ok accepted"
expect_eq "fuzz: no refused write changed a mode ($i writes)" "$fuzz_bad" 0
expect_eq "fuzz: every file reads the mode of its last accepted write" "$end_bad" 0

# 7. kmemleak: new suspects whose allocation went through the code this
# series touches fail; others are listed.
if [ -w $kml ]; then
	echo scan >$kml; sleep 5; echo scan >$kml
	cat $kml >/tmp/st/kmemleak
	all=$(grep -c '^unreferenced object' /tmp/st/kmemleak)
	ours=$(awk '/^unreferenced object/ { if (hit) n++; hit = 0 }
		/irq|nvme|e1000|napi|pci_/ { hit = 1 } END { if (hit) n++; print n + 0 }' /tmp/st/kmemleak)
	[ "$all" = 0 ] || diag "$(head -60 /tmp/st/kmemleak)"
	expect_eq "kmemleak: no suspect from irq, nvme, e1000e or NAPI code ($all suspects in all)" "$ours" 0
else
	skip "kmemleak scan" "no $kml (kernel without CONFIG_DEBUG_KMEMLEAK)"
fi
diag "stress counts: toggles=$toggles hotplug_cycles=$cycles hotplug_steps=$steps rebinds=$rebinds" \
	"fio_passes=$passes bytes_verified=$bytes net_toggles=$net_toggles transfers=$net_ok fuzz_writes=$i"
