# TAP helpers for the guest-side test scripts (busybox sh).  Results of every
# script of a scenario share one numbering (the counter in $TAP_COUNTER).
# shellcheck shell=sh

: "${TAP_FD:=1}" "${TAP_COUNTER:=/tmp/tap.counter}"
[ -f "$TAP_COUNTER" ] || echo 0 >"$TAP_COUNTER"

_tap() {
	read -r _tap_n <"$TAP_COUNTER"
	_tap_n=$((_tap_n + 1))
	echo "$_tap_n" >"$TAP_COUNTER"
	echo "$1 $_tap_n $2" >&"$TAP_FD"
}
diag() { printf '%s\n' "$*" | sed 's/^/# /' >&"$TAP_FD"; }
pass() { _tap ok "$1"; }
fail() { _tap "not ok" "$1"; }
skip() { _tap ok "$1 # SKIP $2"; }
# check DESCRIPTION COMMAND...: one result from a command's exit status.
check() {
	d=$1; shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}
# expect_eq DESCRIPTION GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"
	else fail "$1"; diag "  got '$2', want '$3'"; fi
}

# irq_of NAME: the irq number of the action called NAME in /proc/interrupts.
irq_of() {
	awk -v n="$1" '{ for (i = 2; i <= NF; i++) if ($i == n) { sub(":", "", $1); print $1; exit } }' /proc/interrupts
}
# irq_thread_pid IRQ NAME: pid of the kernel thread irq/IRQ-NAME (comm is
# the full name for kthreads since 6.11, cut to 15 characters before).
irq_thread_pid() {
	full=$(printf 'irq/%s-%s' "$1" "$2")
	want=$(printf '%s' "$full" | cut -c1-15)
	# One grep over all comm files: a fork per process is slow under TCG.
	c=$(grep -lxF -e "$full" -e "$want" /proc/[0-9]*/comm 2>/dev/null | head -n1)
	[ -n "$c" ] || return 1
	c=${c#/proc/}; echo "${c%/comm}"
}
cpus_allowed() { awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$1/status"; }
# The CPU a task last ran on (field 39 of /proc/PID/stat).
last_cpu() { awk '{ print $39 }' "/proc/$1/stat"; }
# is_one_cpu LIST: true when a cpulist names exactly one CPU.
is_one_cpu() { case "$1" in '' | *[!0-9]*) return 1 ;; esac; }

# run_kselftest DIR/PROG: runs a kselftest from /kselftests (a Python one
# from /ksrc, the kernel tree's layout its lib/py needs) and reports each
# of its results as one of ours ("DIR/PROG: name").  A skipped program is
# one skipped result; a program with no result line fails.
run_kselftest() {
	bin=/kselftests/$1
	case "$1" in *.py) bin=/ksrc/tools/testing/selftests/$1 ;; esac
	if [ ! -x "$bin" ]; then
		fail "$1: built into the initramfs"
		return
	fi
	(cd "$(dirname "$bin")" && "./$(basename "$bin")") >/tmp/ksft.out 2>&1
	rc=$?
	diag "$(sed 's/^/  /' /tmp/ksft.out)"
	_ksft_n=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*"# SKIP"*)
			skip "$1: $(echo "$line" | sed 's/^ok [0-9]* //; s/ *# SKIP.*//')" \
				"$(echo "$line" | sed 's/.*# SKIP *//')"
			_ksft_n=$((_ksft_n + 1)) ;;
		"ok "*) pass "$1: $(echo "$line" | sed 's/^ok [0-9]* //')"; _ksft_n=$((_ksft_n + 1)) ;;
		"not ok "*) fail "$1: $(echo "$line" | sed 's/^not ok [0-9]* //')"; _ksft_n=$((_ksft_n + 1)) ;;
		esac
	done </tmp/ksft.out
	if [ $_ksft_n = 0 ]; then
		if [ $rc = 4 ]; then skip "$1" "$(grep -m1 SKIP /tmp/ksft.out)"
		else fail "$1: exit $rc without results"; fi
	fi
}

# check_queue_threads Q0 Q1: the table of nvme0's admin queue (nvme0q0, irq
# Q0) and I/O queue (nvme0q1, irq Q1) with their threads' CPUs, and its
# checks: the I/O queue's mask spans all CPUs, each queue's effective
# affinity is one CPU, the admin queue's thread stays on that CPU, where
# its interrupt is delivered (as every irq thread), and the I/O queue's,
# requested with IRQF_IRQ_AFFINITY (patch 27), may run on the mask
# (thread_cpus_ok).  Sets t0 and t1 (the threads'
# pids); returns 1 when a thread is missing.
# cpus_of LIST: the CPUs of a list such as 0,2-3, one a line
cpus_of() {
	echo "$1" | tr ',' '\n' | while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done
}
# isolated_cpus: the CPUs the kernel command line isolates from kthreads
# or managed interrupts (isolcpus=[flags,]LIST, nohz_full=LIST), one a line
isolated_cpus() {
	for _a in $(cat "${CMDLINE:-/proc/cmdline}"); do
		case $_a in
		isolcpus=* | nohz_full=*) _l=${_a#*=} ;;
		*) continue ;;
		esac
		# isolcpus= flags (domain, managed_irq, nohz) come before the list
		_l=$(echo "$_l" | tr ',' '\n' | grep -E '^[0-9]' | paste -sd, -)
		[ -z "$_l" ] || cpus_of "$_l"
	done | sort -nu
}
# thread_cpus_ok ALLOWED EFF MASK: an irq thread allowed on ALLOWED runs
# where its interrupt is delivered (EFF), or, the thread of an
# IRQF_IRQ_AFFINITY action (nvme's I/O queues), on the CPUs of the
# affinity mask MASK that no isolcpus= or nohz_full= isolates, and on
# EFF; the scheduler wakes it on an idle CPU of the cache there rather
# than preempt a task
thread_cpus_ok() {
	_got=$(cpus_of "$1" | sort -n | tr '\n' ,)
	cpus_of "$1" | grep -qx "$2" || return 1
	[ "$_got" = "$(cpus_of "$2" | sort -n | tr '\n' ,)" ] && return 0
	_iso=" $(isolated_cpus | tr '\n' ' ') "
	_want=$({ cpus_of "$3" | awk -v iso="$_iso" 'index(iso, " " $0 " ") == 0'
		cpus_of "$2"; } | sort -nu | tr '\n' ,)
	[ "$_got" = "$_want" ]
}
check_queue_threads() {
	t0=$(irq_thread_pid "$1" nvme0q0)
	t1=$(irq_thread_pid "$2" nvme0q1)
	check "irq threads of nvme0q0 and nvme0q1 exist" test -n "$t0" -a -n "$t1"
	[ -n "$t0" ] && [ -n "$t1" ] || return 1
	aff1=$(cat /proc/irq/$2/smp_affinity_list)
	eff1=$(cat /proc/irq/$2/effective_affinity_list)
	aff0=$(cat /proc/irq/$1/smp_affinity_list)
	eff0=$(cat /proc/irq/$1/effective_affinity_list)
	diag "irq  action    affinity  effective  thread Cpus_allowed"
	diag "$2   nvme0q1   $aff1       $eff1          $(cpus_allowed "$t1")"
	diag "$1   nvme0q0   $aff0       $eff0          $(cpus_allowed "$t0")"
	_n=$(grep -c ^processor /proc/cpuinfo)
	expect_eq "nvme0q1 affinity mask spans all $_n CPUs" "$aff1" "0-$((_n - 1))"
	check "nvme0q1 effective affinity is one CPU ($eff1)" is_one_cpu "$eff1"
	check "nvme0q1 thread may run on its interrupt's affinity mask ($(cpus_allowed "$t1"))" \
		thread_cpus_ok "$(cpus_allowed "$t1")" "$eff1" "$aff1"
	check "nvme0q0 effective affinity is one CPU ($eff0)" is_one_cpu "$eff0"
	expect_eq "nvme0q0 thread stays on the effective CPU" \
		"$(cpus_allowed "$t0")" "$eff0"
}
