#!/bin/bash
# Benchmarks, printed as tables and written as CSV (and SVG plots) under
# build/bench/.  Not tests: numbers from one boot, compared side by side as
# ratios, because these machines are noisy.
#
#   ci/bench.sh [irq] [nvme] [udp] [swamp]     (default: all four)
#   irq    KUnit case bench_round_trip on the fake chip: round trip of an
#          interrupt raised on another CPU, hard vs threaded (series kernel)
#   nvme   selftests/bench-nvme on the bench kernel (series + bench-patches/,
#          ci/bench-kernel.sh): fio 4k randread per layout (percpu, swamp) and
#          mode (hard, threaded-stock, threaded-affinity)
#   udp    selftests/bench-udp on the series kernel: UDP receive rate on
#          e1000e, receiver pinned to the rx interrupt's CPU, rx work in
#          softirq, or in the NAPI kthread switched through the rx
#          vector's proc file or through sysfs (the same model)
#   swamp  selftests/bench-swamp on the bench kernel: the swamp model of
#          bench-patches/ (a fake shared queue whose completion work in the
#          handler is the bottleneck), per mode (hard, threaded-stock,
#          threaded-affinity, auto), against the model's limit
#   BENCH_KARGS="irqbench.runtime=10 irqbench.rounds=2"  (the defaults;
#          swamp: 8 s per run; SWAMP_KARGS adds e.g. swamp_bench.work_loops=N)
#   BENCH_REUSE=1   tables from the last boot's results, no new boot
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/bench
mkdir -p "$out"
want=("$@"); [ ${#want[@]} -gt 0 ] || want=(irq nvme udp swamp)
for w in "${want[@]}"; do case $w in irq | nvme | udp | swamp) ;; *) die "unknown benchmark '$w' (irq, nvme, udp, swamp)" ;; esac; done
accel_of() { sed -n 's/.*(\([0-9]*s\), \([a-z]*\))$/\2/p' "$1" | tail -1; }

bench_irq() {
	LOGDIR=$BUILD/vm-bench COUNTS=$out/.counts "$TOP/ci/vm.sh" bench-irq >"$out/bench-irq.log" 2>&1 ||
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

# The swamp model: its boot, then the table against the model's limit.
# limit: completions/s the mode could reach at best from the calibration
# (E: hard irq time of one interrupt entry, C: one completion's work, both
# measured on the interrupt's CPU) and the run's interrupts per completion
# i: hard and threaded-stock do both on one CPU, 1e9 / (C + E * i);
# threaded-affinity has the entries on that CPU and the completions on
# another, 1e9 / max(C, E * i); auto is judged as the mode most of its
# completions ran in.
bench_swamp() {
	local k=$BUILD/benchk/obj/arch/x86/boot/bzImage tap=$BUILD/vm-bench/bench-swamp/tap.txt
	[ -f "$k" ] || die "no bench kernel at $k: run 'make bench-kernel'"
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -f "$tap" ]; then
		note "BENCH_REUSE=1: tables from the last bench-swamp boot"
	else
		note "swamp model: one boot, 5 modes x 2 rounds of 8 s, ~4 min under TCG (log: $out/bench-swamp.log)"
		KERNEL=$k KARGS_EXTRA="${BENCH_KARGS:-}${SWAMP_KARGS:+ $SWAMP_KARGS}" LOGDIR=$BUILD/vm-bench COUNTS=$out/.counts \
			"$TOP/ci/vm.sh" bench-swamp 2>&1 | tee "$out/bench-swamp.log" | grep --line-buffered -E '^(===|  \.\.\. |  host: )' ||
			true
		grep -q '^=== bench-swamp: .* 0 failed' "$out/bench-swamp.log" ||
			{ tail -40 "$out/bench-swamp.log"; die "the bench-swamp boot failed (log: $out/bench-swamp.log)"; }
	fi
	local calib
	calib=$(sed -n 's/^# bench: calib,//p' "$tap" | tail -1)
	[ -n "$calib" ] || die "no calibration line in $tap"
	echo "irq_cpu,entry_ns,round_trip_ns,compl_ns,work_loops,submit_loops,qd,submitters" >"$out/swamp-calib.csv"
	echo "$calib" >>"$out/swamp-calib.csv"
	{
		echo "mode,round,compl_per_s,victim_pct,irqcpu_hardirq_pct,thread_on_irqcpu_pct,thread_cpus,irqs_per_compl,hard_compl_pct,max_hard_ms,max_thread_ms,softlockups,rcu_stalls,auto_switches,spurious_disabled,limit_per_s,of_limit"
		sed -n 's/^# bench: swamp,//p' "$tap" | awk -F, -v OFS=, -v calib="$calib" '
			BEGIN { split(calib, c, ","); E = c[2]; C = c[4] }
			{ i = $8; one = 1e9 / (C + E * i); two = 1e9 / (C > E * i ? C : E * i)
			  lim = ($1 == "hard" || $1 == "threaded-stock" || ($1 == "auto" && $9 >= 50) || ($1 ~ /^threaded-aff/ && $6 >= 50)) ? one : two
			  printf "%s,%.0f,%.2f\n", $0, lim, (lim > 0 ? $3 / lim : 0) }'
	} >"$out/swamp-runs.csv"
	[ "$(wc -l <"$out/swamp-runs.csv")" -ge 5 ] || die "too few swamp lines in $tap"
	awk -F, 'NR > 1 { k = $1; if (!(k in n)) order[++m] = k; n[k]++
			for (f = 3; f <= 17; f++) if (f != 7) s[k, f] += $f
			cpus[k] = cpus[k] (n[k] > 1 ? " " : "") $7
			if (n[k] == 1 || $3 < lo[k]) lo[k] = $3
			if (n[k] == 1 || $3 > hi[k]) hi[k] = $3 }
		END { print "mode,runs,compl_per_s,spread_pct,ratio_to_hard,victim_pct,irqcpu_hardirq_pct,thread_on_irqcpu_pct,thread_cpus,irqs_per_compl,hard_compl_pct,max_hard_ms,max_thread_ms,softlockups,rcu_stalls,auto_switches,spurious_disabled,limit_per_s,of_limit,min_compl_per_s,max_compl_per_s"
			h = (n["hard"] ? s["hard", 3] / n["hard"] : 0)
			for (j = 1; j <= m; j++) { k = order[j]; r = n[k]; mean = s[k, 3] / r
				printf "%s,%d,%.0f,%.1f,%.2f,%.1f,%.1f,%.1f,%s,%.3f,%.1f,%.1f,%.1f,%d,%d,%d,%d,%.0f,%.2f,%.0f,%.0f\n", k, r, mean,
					(mean > 0 ? (hi[k] - lo[k]) * 100 / mean : 0), (h > 0 ? mean / h : 0),
					s[k, 4] / r, s[k, 5] / r, s[k, 6] / r, cpus[k], s[k, 8] / r, s[k, 9] / r, s[k, 10] / r, s[k, 11] / r,
					s[k, 12], s[k, 13], s[k, 14], s[k, 15], s[k, 16] / r, s[k, 17] / r, lo[k], hi[k] } }' \
		"$out/swamp-runs.csv" >"$out/swamp.csv"
	local acc rounds secs
	acc=$(accel_of "$out/bench-swamp.log")
	rounds=$(awk -F, 'NR == 2 { print $2 }' "$out/swamp.csv")
	secs=$(sed -n 's/.* \([0-9]*\)s per run.*/\1/p' "$tap" | head -1)
	echo "Swamp model (bench-patches/: one completion queue shared by a submitter kthread on each of the"
	echo "4 vCPUs, its interrupt on one CPU, fixed work per completion in the handler), ${acc:-?};"
	echo "$calib" | awk -F, '{ printf "calibration on CPU %d: interrupt entry %d ns (hard irq time), completion %d ns (%d loops), qd %d per submitter\n", $1, $2, $4, $5, $7 }'
	echo "each row the mean of $rounds runs of ${secs:-?} s, modes interleaved in one boot; victim = busy loop pinned to the"
	echo "interrupt's CPU; irqcpu = that CPU's hard irq share; thread@irq = share of the thread's completions run there;"
	echo "threaded-affinity = IRQF_IRQ_AFFINITY as in the series (whole mask), threaded-aff-skip = with bench-patches/0003"
	echo "(the mask without the interrupt's CPU);"
	echo "lockups/stalls = soft lockup and RCU stall reports during the mode's runs; disabled = the spurious interrupt"
	echo "detector disabled the line (\"nobody cared\"); of_limit = measured / model limit:"
	awk -F, 'NR == 1 { printf "  %-17s %8s %7s %6s %7s %7s %11s %-11s %7s %9s %7s %6s %7s %8s %8s %8s\n", "mode", "compl/s", "spread%",
			"/hard", "victim%", "irqcpu%", "thread@irq%", "thread_cpus", "irqs/c", "max_hard", "lockups", "stalls", "auto_sw", "disabled", "limit/s", "of_limit"; next }
		{ printf "  %-17s %8d %7.1f %6.2f %7.1f %7.1f %11.1f %-11s %7.3f %7.0fms %7d %6d %7d %8d %8d %8.2f\n", $1, $3, $4, $5, $6, $7, $8,
			substr($9, 1, 11), $10, $12, $14, $15, $16, $17, $18, $19 }' "$out/swamp.csv"
	# What issue 16 asks the model to show, read off the table (not tests).
	awk -F, 'NR > 1 { for (f = 1; f <= NF; f++) v[$1, f] = $f }
		END {
			p = v["threaded-stock", 3]
			for (j = 1; j <= 2; j++) { m = (j == 1 ? "threaded-affinity" : "threaded-aff-skip"); a = v[m, 3]
				if (a == "") continue
				printf "%s / threaded-stock: %.2fx (runs %d-%d against %d-%d; spreads %.1f%% and %.1f%%): %s\n", m,
					(p > 0 ? a / p : 0), v[m, 20], v[m, 21], v["threaded-stock", 20], v["threaded-stock", 21],
					v[m, 4], v["threaded-stock", 4],
					(v[m, 20] > v["threaded-stock", 21] && p > 0 && (a / p - 1) * 100 > v[m, 4] + v["threaded-stock", 4] ? "ahead, outside the spread" : "NOT clearly ahead")
				printf "victim in %s: %.1f%% of its CPU (%s 50%%); thread ran on the interrupt'"'"'s CPU for %.0f%% of its completions\n",
					m, v[m, 6], (v[m, 6] >= 50 ? ">=" : "below"), v[m, 8] }
			printf "victim in hard: %.1f%%, threaded-stock: %.1f%%\n", v["hard", 6], v["threaded-stock", 6]
			printf "hard mode swamp: %d soft lockup and %d RCU stall reports, longest handler run %.0f ms: %s\n",
				v["hard", 14], v["hard", 15], v["hard", 12], (v["hard", 14] + v["hard", 15] > 0 ? "the detectors fired" : "NO detector fired")
		}' "$out/swamp.csv" >"$out/swamp-verdict.txt"
	# Placement can differ from run to run: each run's victim share.
	awk -F, 'NR > 1 && $1 ~ /^threaded-aff/ { r[$1] = r[$1] sprintf(" round %d: %.1f%% (thread on %s)", $2, $4, $7) }
		END { for (m in r) printf "victim per run, %s:%s\n", m, r[m] }' "$out/swamp-runs.csv" | sort >>"$out/swamp-verdict.txt"
	cat "$out/swamp-verdict.txt"
	echo "CSV: $out/swamp.csv (means), $out/swamp-runs.csv (every run), $out/swamp-calib.csv"
	if command -v gnuplot >/dev/null; then
		awk -F, 'NR > 1 { print $1, $5, $6, $19 }' "$out/swamp.csv" >"$out/swamp.dat"
		gnuplot <<-GP && echo "plot: $out/swamp.svg" || note "gnuplot failed: no plot"
			set terminal svg size 900,800 dynamic font "sans,11"
			set output "$out/swamp.svg"
			set multiplot layout 3,1 title "Swamp model, 4 vCPUs (${acc:-?}): one shared queue, interrupt on one CPU"
			set style data histograms
			set style fill solid 0.8 border -1
			set boxwidth 0.8
			set grid ytics
			set key off
			set ylabel "completions/s / hard irq"
			set yrange [0:*]
			plot "$out/swamp.dat" using 2:xtic(1) lc rgb "#4472c4"
			set ylabel "victim CPU share (%)"
			set yrange [0:100]
			plot "$out/swamp.dat" using 3:xtic(1) lc rgb "#c55a11"
			set ylabel "measured / model limit"
			set yrange [0:1.2]
			plot "$out/swamp.dat" using 4:xtic(1) lc rgb "#70ad47"
			unset multiplot
		GP
	else
		note "gnuplot missing (make deps installs gnuplot-nox): no plot"
	fi
}

for w in "${want[@]}"; do "bench_$w"; done
