#!/bin/bash
# Benchmarks, printed as tables and written as CSV (and SVG plots) under
# build/bench/.  Not tests: numbers from one boot, compared side by side as
# ratios, because these machines are noisy.
#
#   ci/bench.sh [irq] [nvme] [udp] [swamp] [autothread]   (default: all)
#   irq    KUnit case bench_round_trip on the fake chip: round trip of an
#          interrupt raised on another CPU, hard vs threaded (bench kernel: a
#          bench patch adds the case)
#   nvme   selftests/bench-nvme on the bench kernel (series + bench-patches/,
#          ci/bench-kernel.sh): fio 4k randread per layout (percpu, swamp) and
#          mode (hard, threaded-stock, threaded-affinity)
#   udp    selftests/bench-udp on the series kernel: UDP receive rate on
#          e1000e, receiver pinned to the rx interrupt's CPU, rx work in
#          softirq, or in the NAPI kthread switched through the rx
#          vector's proc file or through sysfs (the same model)
#   swamp  selftests/bench-swamp on the bench kernel: the swamp model of
#          bench-patches/ (a fake queue whose completion work in the handler
#          is the bottleneck): hard irq, the stock thread, the masked
#          hybrid pinned and moving (IRQF_IRQ_AFFINITY) and two other
#          placements side by side, over layouts L1 (submitters on the
#          interrupt's CPU only), L1hog, L2 (on every CPU), L3 (qd 1) and
#          a sweep of completion cost against entry cost; ratios paired by
#          round, with bootstrap intervals
#   autothread  selftests/bench-autothread on the series kernel: a UDP
#          flood on e1000e's rx vector, whose CPU also runs a CPU-bound
#          task; the vector hard irq, threaded NAPI (its file), or left to
#          irq-autothread; the task's work and the receive rate paired
#          against hard irq by round, with bootstrap intervals
#   BENCH_KARGS="irqbench.runtime=10 irqbench.rounds=2"  (the defaults;
#          swamp: SWAMP_KARGS="swamp.runtime=1 swamp.rounds=10
#          swamp.ratios=0.5,1,2,5,15 swamp.hog_ratios=1,5,15
#          swamp.l3_ratios=1,5 swamp.layouts=L1,L1hog,L2,L3")
#   BENCH_REUSE=1   tables from the last boot's results, no new boot
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_deps bench || exit 1

out=$BUILD/bench
mkdir -p "$out"
want=("$@"); [ ${#want[@]} -gt 0 ] || want=(irq nvme udp swamp autothread)
for w in "${want[@]}"; do case $w in irq | nvme | udp | swamp | autothread) ;; *) die "unknown benchmark '$w' (irq, nvme, udp, swamp, autothread)" ;; esac; done
accel_of() { sed -n 's/.*(\([0-9]*s\), \([a-z]*\))$/\2/p' "$1" | tail -1; }

bench_irq() {
	# The case is a bench patch's (bench-patches/), not the KUnit suite's
	local k=$BUILD/benchk/obj/arch/x86/boot/bzImage
	[ -f "$k" ] || die "no bench kernel at $k: run 'make bench-kernel'"
	KERNEL=$k LOGDIR=$BUILD/vm-bench COUNTS=$out/.counts "$TOP/ci/vm.sh" bench-irq >"$out/bench-irq.log" 2>&1 ||
		{ tail -30 "$out/bench-irq.log"; die "the bench-irq boot failed (log: $out/bench-irq.log)"; }
	sed -n 's/.*# bench_round_trip: bench: //p' "$BUILD/vm-bench/bench-irq/console.log" | tr -d '\r' >"$out/irq-round-trip.csv"
	[ "$(wc -l <"$out/irq-round-trip.csv")" -ge 3 ] || die "no benchmark lines in $BUILD/vm-bench/bench-irq/console.log"
	echo "Interrupt round trip on the fake chip (raised on another CPU until handled), one boot, $(accel_of "$out/bench-irq.log"):"
	awk -F, '{ printf "  %-10s %-11s %-11s %s\n", $1, $2, $3, $4 }' "$out/irq-round-trip.csv"
	echo "CSV: $out/irq-round-trip.csv"
}

bench_nvme() {
	local k=$BUILD/benchk/obj/arch/x86/boot/bzImage
	[ -f "$k" ] || die "no bench kernel at $k: run 'make bench-kernel'"
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -f "$BUILD/vm-bench/bench-nvme/tap.txt" ]; then
		note "BENCH_REUSE=1: tables from the last bench-nvme boot"
	else
		KERNEL=$k KARGS_EXTRA=${BENCH_KARGS:-} LOGDIR=$BUILD/vm-bench COUNTS=$out/.counts \
			"$TOP/ci/vm.sh" bench-nvme >"$out/bench-nvme.log" 2>&1 ||
			{ tail -40 "$out/bench-nvme.log"; die "the bench-nvme boot failed (log: $out/bench-nvme.log)"; }
	fi
	{
		echo "layout,mode,round,iops,clat_mean_us,clat_p99_us,ctxsw_per_io,irqs_per_io,victim_pct,guest_idle_pct,auto_switches_per_min"
		sed -n 's/^# bench: nvme,//p' "$BUILD/vm-bench/bench-nvme/tap.txt"
	} >"$out/nvme-runs.csv"
	[ "$(wc -l <"$out/nvme-runs.csv")" -ge 7 ] || die "too few bench lines in $BUILD/vm-bench/bench-nvme/tap.txt"
	# Mean over the rounds; ratios to hard irq in the same layout.
	awk -F, 'NR > 1 { k = $1 "," $2; if (!(k in n)) order[++m] = k; n[k]++
			for (f = 4; f <= 11; f++) s[k, f] += $f }
		END { print "layout,mode,runs,iops,clat_mean_us,clat_p99_us,ctxsw_per_io,irqs_per_io,victim_pct,guest_idle_pct,iops_ratio_to_hard,victim_ratio_to_hard,auto_switches_per_min"
			for (i = 1; i <= m; i++) { k = order[i]; split(k, a, ",")
				h = a[1] ",hard"
				hi = s[h, 4] / n[h]; hv = s[h, 9] / n[h]
				printf "%s,%d,%d,%.1f,%d,%.3f,%.3f,%.1f,%.1f,%.2f,%.2f,%.1f\n", k, n[k], s[k, 4] / n[k], s[k, 5] / n[k],
					s[k, 6] / n[k], s[k, 7] / n[k], s[k, 8] / n[k], s[k, 9] / n[k], s[k, 10] / n[k],
					(hi > 0 ? s[k, 4] / n[k] / hi : 0), (hv > 0 ? s[k, 9] / n[k] / hv : 0), s[k, 11] / n[k] } }' \
		"$out/nvme-runs.csv" >"$out/nvme.csv"
	local acc rt rounds
	acc=$(accel_of "$out/bench-nvme.log")
	rounds=$(awk -F, 'NR == 2 { print $3 }' "$out/nvme.csv")
	rt=$(sed -n 's/.*bench: runtime \([0-9]*\)s.*/\1/p' "$BUILD/vm-bench/bench-nvme/tap.txt" | head -1)
	echo "NVMe fio 4k randread, libaio, direct, 1 job per vCPU, 4 vCPUs, QEMU null-co backend, ${acc:-?};"
	echo "each row the mean of $rounds runs of ${rt:-?} s, modes interleaved in one boot; victim = busy loop pinned"
	echo "to the CPU of the first I/O queue's interrupt; sw/min = automatic mode switches per minute (auto):"
	awk -F, 'NR == 1 { printf "  %-7s %-18s %7s %8s %7s %6s %7s %7s %5s %9s %11s %7s\n", "layout", "mode", "IOPS", "clat_us", "p99_us",
			"cs/IO", "irqs/IO", "victim%", "idle%", "IOPS/hard", "victim/hard", "sw/min"; next }
		{ printf "  %-7s %-18s %7d %8.0f %7d %6.3f %7.3f %7.1f %5.1f %9.2f %11.2f %7.1f\n", $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' \
		"$out/nvme.csv"
	echo "CSV: $out/nvme.csv (means), $out/nvme-runs.csv (every run)"
	if command -v gnuplot >/dev/null; then
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ print $1 "/" $2, $c["iops_ratio_to_hard"], $c["victim_pct"] }' "$out/nvme.csv" >"$out/nvme.dat"
		gnuplot <<-GP && echo "plot: $out/nvme.svg" || note "gnuplot failed: no plot"
			set terminal svg size 900,600 dynamic font "sans,11"
			set output "$out/nvme.svg"
			set multiplot layout 2,1 title "NVMe 4k randread, 4 vCPUs (${acc:-?}): per-vCPU queues vs one shared queue"
			set style data histograms
			set style fill solid 0.8 border -1
			set boxwidth 0.8
			set xtics rotate by -20 font "sans,9"
			set grid ytics
			set key off
			set ylabel "IOPS / hard irq IOPS"
			set yrange [0:*]
			plot "$out/nvme.dat" using 2:xtic(1) lc rgb "#4472c4"
			set ylabel "victim CPU share (%)"
			set yrange [0:100]
			plot "$out/nvme.dat" using 3:xtic(1) lc rgb "#c55a11"
			unset multiplot
		GP
	else
		note "gnuplot missing (make deps installs gnuplot-nox): no plot"
	fi
}

bench_udp() {
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -f "$BUILD/vm-bench/bench-udp/tap.txt" ]; then
		note "BENCH_REUSE=1: tables from the last bench-udp boot"
	else
		KARGS_EXTRA=${BENCH_KARGS:-} LOGDIR=$BUILD/vm-bench COUNTS=$out/.counts \
			"$TOP/ci/vm.sh" bench-udp >"$out/bench-udp.log" 2>&1 ||
			{ tail -40 "$out/bench-udp.log"; die "the bench-udp boot failed (log: $out/bench-udp.log)"; }
	fi
	{
		echo "mode,size,flows,round,sent,received,pps,loss_pct,rcvbuf_errors,netrx_per_irq,worker_cpu_pct,worker_last_cpu"
		sed -n 's/^# bench: udp,//p' "$BUILD/vm-bench/bench-udp/tap.txt"
	} >"$out/udp-runs.csv"
	[ "$(wc -l <"$out/udp-runs.csv")" -ge 13 ] || die "too few bench lines in $BUILD/vm-bench/bench-udp/tap.txt"
	# Mean over the rounds; pps ratio to softirq for the same size and flows.
	awk -F, 'NR > 1 { k = $2 "," $3 "," $1; if (!(k in n)) order[++m] = k; n[k]++
			for (f = 5; f <= 11; f++) s[k, f] += $f
			if (n[k] == 1 || $7 < lo[k]) lo[k] = $7
			if (n[k] == 1 || $7 > hi[k]) hi[k] = $7 }
		END { print "size,flows,mode,runs,sent,received,pps,loss_pct,rcvbuf_errors,netrx_per_irq,worker_cpu_pct,pps_ratio_to_softirq,pps_ratio_to_napi_kthread,pps_spread_pct"
			for (i = 1; i <= m; i++) { k = order[i]; split(k, a, ",")
				b = a[1] "," a[2] ",softirq"; bp = (n[b] ? s[b, 7] / n[b] : 0)
				c = a[1] "," a[2] ",napi-kthread"; cp = (n[c] ? s[c, 7] / n[c] : 0)
				mp = s[k, 7] / n[k]
				printf "%s,%d,%d,%d,%d,%.1f,%d,%.2f,%.1f,%.2f,%.2f,%.0f\n", k, n[k], s[k, 5] / n[k], s[k, 6] / n[k],
					mp, s[k, 8] / n[k], s[k, 9] / n[k], s[k, 10] / n[k], s[k, 11] / n[k],
					(bp > 0 ? mp / bp : 0), (cp > 0 ? mp / cp : 0), (mp > 0 ? (hi[k] - lo[k]) * 100 / mp : 0) } }' "$out/udp-runs.csv" >"$out/udp.csv"
	local acc rounds secs cpu
	acc=$(accel_of "$out/bench-udp.log")
	rounds=$(awk -F, 'NR == 2 { print $4 }' "$out/udp.csv")
	secs=$(sed -n 's/.*; \([0-9]*\) s per run.*/\1/p' "$BUILD/vm-bench/bench-udp/tap.txt" | head -1)
	cpu=$(sed -n 's/.*receiver pinned to CPU \([0-9]*\).*/\1/p' "$BUILD/vm-bench/bench-udp/tap.txt" | head -1)
	echo "UDP receive on e1000e (QEMU user networking, host sender on loopback), 4 vCPUs, ${acc:-?};"
	echo "one receiver pinned to CPU ${cpu:-?} (the rx interrupt's); each row the mean of $rounds runs of ${secs:-?} s,"
	echo "modes interleaved in one boot; worker = the NAPI kthread (proc-threaded: through the rx vector's proc file, napi-kthread: through sysfs);"
	echo "spread = (max - min) / mean of the runs' pps: ratios inside it are noise:"
	awk -F, 'NR == 1 { printf "  %5s %5s %-13s %9s %9s %7s %7s %6s %8s %10s %8s %8s %8s\n", "size", "flows", "mode", "sent", "received",
			"pps", "spread%", "loss%", "rcvbuf", "NET_RX/irq", "worker%", "pps/soft", "pps/napi"; next }
		{ printf "  %5d %5d %-13s %9d %9d %7d %7d %6.1f %8d %10.2f %8.1f %8.2f %8.2f\n", $1, $2, $3, $5, $6, $7, $14, $8, $9, $10, $11, $12, $13 }' \
		"$out/udp.csv"
	echo "CSV: $out/udp.csv (means), $out/udp-runs.csv (every run)"
}

# The swamp model: one boot (2 vCPUs, see selftests/bench-swamp/), then the
# table with intervals and the model limit (ci/bench-swamp.py).
bench_swamp() {
	local k=$BUILD/benchk/obj/arch/x86/boot/bzImage tap=$BUILD/vm-bench/bench-swamp/tap.txt
	[ -f "$k" ] || die "no bench kernel at $k: run 'make bench-kernel'"
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -f "$tap" ]; then
		note "BENCH_REUSE=1: tables from the last bench-swamp boot"
	else
		note "swamp model: one boot, 6 modes x 15 layout and C/E points x 10 rounds of 1 s, ~22 min under TCG (log: $out/bench-swamp.log)"
		KERNEL=$k KARGS_EXTRA="${BENCH_KARGS:-}${SWAMP_KARGS:+ $SWAMP_KARGS}" LOGDIR=$BUILD/vm-bench COUNTS=$out/.counts \
			"$TOP/ci/vm.sh" bench-swamp 2>&1 | tee "$out/bench-swamp.log" | grep --line-buffered -E '^(===|  \.\.\. |  host: )' ||
			true
		grep -q '^=== bench-swamp: .* 0 failed' "$out/bench-swamp.log" ||
			{ tail -40 "$out/bench-swamp.log"; die "the bench-swamp boot failed (log: $out/bench-swamp.log)"; }
	fi
	echo "Swamp model (bench-patches/), $(accel_of "$out/bench-swamp.log"); QEMU's vCPU threads not pinned, placed by the host scheduler:"
	python3 "$TOP/ci/bench-swamp.py" "$tap" "$out" || die "no swamp table from $tap"
	echo "CSV: $out/swamp.csv (rows), $out/swamp-runs.csv (every run), verdict: $out/swamp-verdict.txt"
}

bench_autothread() {
	local tap=$BUILD/vm-bench/bench-autothread/tap.txt
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -f "$tap" ]; then
		note "BENCH_REUSE=1: tables from the last bench-autothread boot"
	else
		note "autothread: one boot, 3 modes x 10 rounds of 8 s floods, ~10 min under TCG (log: $out/bench-autothread.log)"
		KARGS_EXTRA="${AUTOTHREAD_KARGS:-}" LOGDIR=$BUILD/vm-bench COUNTS=$out/.counts \
			"$TOP/ci/vm.sh" bench-autothread >"$out/bench-autothread.log" 2>&1 ||
			{ tail -40 "$out/bench-autothread.log"; die "the bench-autothread boot failed (log: $out/bench-autothread.log)"; }
	fi
	echo "irq-autothread on e1000e's rx vector, $(accel_of "$out/bench-autothread.log"); task and rx vector on CPU 1, receiver on CPU 0:"
	python3 "$TOP/ci/bench-autothread.py" "$tap" "$out" || die "no autothread table from $tap"
	echo "CSV: $out/autothread.csv (rows), $out/autothread-runs.csv (every run)"
}

for w in "${want[@]}"; do "bench_$w"; done
