# NVMe helpers for the guest-side scripts (busybox sh); source after lib.sh.
# shellcheck shell=sh

# nvme_ctrl SERIAL: the controller (nvmeN) whose serial number is SERIAL.
nvme_ctrl() {
	for c in /sys/class/nvme/nvme*; do
		read -r s <"$c/serial" 2>/dev/null || continue
		[ "$s" = "$1" ] && { basename "$c"; return 0; }
	done
	return 1
}
# nvme_ioqs CTRL: the names of its I/O queue actions (nvmeNq1...).
nvme_ioqs() {
	awk -v c="$1" '$NF ~ "^" c "q[1-9][0-9]*$" { print $NF }' /proc/interrupts
}
# nvme_set_mode CTRL 0|1: every I/O queue hard (0) or threaded (1); fails
# when a queue did not switch.
nvme_set_mode() {
	for q in $(nvme_ioqs "$1"); do
		f=/proc/irq/$(irq_of "$q")/$q/threaded
		echo "$2" >"$f" || return 1
		read -r cur <"$f"
		[ "$cur" = "$2" ] || return 1
	done
}
# nvme_irqs CTRL: interrupts of its I/O queues so far, all CPUs.
nvme_irqs() {
	awk -v c="$1" '$NF ~ "^" c "q[1-9][0-9]*$" { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) s += $i }
		END { print s + 0 }' /proc/interrupts
}
# nvme_reset CTRL: reset the controller (its interrupts are freed and
# requested again) and wait until it is live again (30 s at most).
nvme_reset() {
	echo 1 >"/sys/class/nvme/$1/reset_controller" || return 1
	i=0
	while [ $i -lt 300 ]; do
		read -r st <"/sys/class/nvme/$1/state"
		[ "$st" = live ] && [ -n "$(nvme_ioqs "$1")" ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
# victim_start CPU: a busy loop pinned to CPU (the task that competes with
# the interrupt's work on its CPU); its pid in $victim_pid.
victim_start() {
	taskset -c "$1" sh -c 'while :; do :; done' &
	victim_pid=$!
}
victim_stop() { kill "$victim_pid" 2>/dev/null; wait "$victim_pid" 2>/dev/null; }
# victim_ticks: CPU time of the victim so far, in clock ticks (USER_HZ).
victim_ticks() { awk '{ print $14 + $15 }' "/proc/$victim_pid/stat"; }
# uptime_ticks: time since boot in USER_HZ (100) ticks.
uptime_ticks() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
# cpu_ticks: "IDLE:TOTAL" ticks of all CPUs so far (/proc/stat cpu line).
cpu_ticks() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6 ":" t }' /proc/stat; }
