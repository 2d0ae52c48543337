# e1000e helpers for the guest-side scripts (busybox sh); source after
# lib.sh.  The NIC is QEMU's e1000e on user networking (ci/vm.sh).
# shellcheck shell=sh

# e1000e_payload: the md5 (and size) of the payload the host sends
# (irqtest.payload_md5=, irqtest.payload_bytes=) in $md5 and $bytes;
# fails when the host passed no md5.
e1000e_payload() {
	md5= bytes=
	for a in $(cat /proc/cmdline); do
		case $a in
		irqtest.payload_md5=*) md5=${a#*=} ;;
		irqtest.payload_bytes=*) bytes=${a#*=} ;;
		esac
	done
	[ -n "$md5" ] && return 0
	fail "the host passed the payload's md5 (irqtest.payload_md5=)"
	return 1
}
# e1000e_up: lo and eth0 up, eth0 with user networking's guest address.
e1000e_up() {
	ip link set lo up
	ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0
}
# e1000e_carrier [WHAT]: waits up to 10 s for eth0's carrier, and checks
# it ("WHAT: eth0 has carrier").
e1000e_carrier() {
	i=0
	while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $i -lt 100 ]; do
		usleep 100000
		i=$((i + 1))
	done
	expect_eq "${1:+$1: }eth0 has carrier" "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" 1
}
# receive: one transfer from the host (it connects to port 5001 and sends
# the payload after an "R"); true when it arrived intact ($md5).
printf '#!/bin/sh\nprintf R\ncat >/tmp/rx.bin\nprintf D\n' >/tmp/recv.sh
chmod +x /tmp/recv.sh
receive() {
	rm -f /tmp/rx.bin
	timeout 120 nc -l -p 5001 -e /tmp/recv.sh >/dev/null 2>&1
	[ "$(md5sum /tmp/rx.bin 2>/dev/null | cut -d' ' -f1)" = "$md5" ]
}
# e1000e_napi FIELD...: the fields (id, irq, pid, threaded) of eth0's NAPI
# instance on interrupt $irq, as netlink reports them, on one line.
e1000e_napi() {
	napi_nl get eth0 | awk -v irq="$irq" -v fields="$*" '
		{ delete v; for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		  if (v["irq"] != irq) next
		  n = split(fields, f, " "); s = ""
		  for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") v[f[i]]
		  print s }'
}
# e1000e_rx_vector: sets rxq, irq and f to eth0's rx vector (MSI-X), its
# interrupt and its threaded file (the numbers change when the vector is
# requested again).
e1000e_rx_vector() {
	rxq=eth0-rx-0
	irq=$(irq_of $rxq)
	f=/proc/irq/$irq/$rxq/threaded
}
# e1000e_pin_rx CPU: the rx vector delivered to CPU only, checked
e1000e_pin_rx() {
	echo "$1" >/proc/irq/$irq/smp_affinity_list
	expect_eq "$rxq is delivered to CPU $1" "$(cat /proc/irq/$irq/effective_affinity_list)" "$1"
}
