#!/usr/bin/env python3
"""The swamp model's table, from one boot's "bench:" lines (ci/bench.sh swamp).

   ci/bench-swamp.py TAP OUTDIR

Writes OUTDIR/swamp-runs.csv (every run), OUTDIR/swamp.csv (one row per
regime, C/E point and mode) and OUTDIR/swamp-verdict.txt, and prints the
table.  Per row: the median of the runs and a bootstrap 95% interval of
the median (and of the ratio of medians to the pinned thread's, resampling
both rows).  A row whose runs split by where the thread ran (on the
interrupt's CPU for more than half of its completions, or not) is printed
split as well.  The model limit of a moving thread against the pinned one:

    X_move / X_pin <= (C + E*i + W*w) / (C + W_r*w)

with C and E measured at that point, W and W_r from the round trips of the
calibration (pinned - hard, fifo-skip - hard), i and w the pinned rows'
interrupts and thread wakeups per completion.  Left out, so it is an upper
bound: the cross-CPU cache cost M, a vCPU's share of a host core (1: two
vCPUs on two cores) and the fair server's share of a CPU an RT thread
saturates.  It holds only where the consumer of the queue is the
bottleneck and the CPU the thread moves to is idle (regime idle).
"""
import csv
import random
import statistics
import sys

MODES = ["hard", "pinned", "hyb8", "hyb64", "fifo-mask", "fifo-skip", "fair-mask", "fifo-idle"]
MOVING = ["fifo-mask", "fifo-skip", "fair-mask", "fifo-idle"]
RUN_FIELDS = ["regime", "ratio", "mode", "round", "loops", "compl_per_s", "irqs_per_compl",
              "wakeups_per_compl", "thread_on_irqcpu_pct", "victim_per_s", "victim_per_cpu",
              "spin_per_s", "irqcpu_hardirq_pct", "max_hard_ms", "lat_p50_us", "lat_p99_us",
              "lockups", "stalls", "spurious"]
B = 2000


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def boot_ci(xs, rng):
    if len(xs) < 2:
        return (float("nan"), float("nan"))
    meds = sorted(median(rng.choices(xs, k=len(xs))) for _ in range(B))
    return meds[int(0.025 * B)], meds[int(0.975 * B) - 1]


def boot_ratio_ci(xs, ys, rng):
    if len(xs) < 2 or len(ys) < 2:
        return (float("nan"), float("nan"))
    r = []
    for _ in range(B):
        d = median(rng.choices(ys, k=len(ys)))
        r.append(median(rng.choices(xs, k=len(xs))) / d if d else float("nan"))
    r.sort()
    return r[int(0.025 * B)], r[int(0.975 * B) - 1]


def victim_on_irqcpu(run, irq_cpu):
    """The victim's work per s on the interrupt's CPU (victim_per_cpu is CPU 0/CPU 1/...)."""
    parts = run["victim_per_cpu"].split("/")
    i = int(irq_cpu)
    return float(parts[i]) if i < len(parts) else float("nan")


def main():
    tap, out = sys.argv[1], sys.argv[2]
    runs, cal, pts = [], None, {}
    for line in open(tap, errors="replace"):
        line = line.strip()
        if not line.startswith("# bench: swamp"):
            continue
        kind, _, rest = line[len("# bench: "):].partition(",")
        f = rest.split(",")
        if kind == "swampcal":
            cal = dict(zip(["irq_cpu", "ncpu", "nq", "E", "C_per_kloop", "rt_hard", "rt_pinned", "rt_skip"],
                           map(float, f)))
        elif kind == "swamppt":
            pts[f[0]] = {"loops": int(f[1]), "C": float(f[2]), "E": float(f[3])}
        elif kind == "swamprun" and len(f) == len(RUN_FIELDS):
            runs.append(dict(zip(RUN_FIELDS, f)))
    if not cal or not runs:
        sys.exit("bench-swamp.py: no calibration or no runs in %s" % tap)
    with open(out + "/swamp-runs.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(RUN_FIELDS)
        for r in runs:
            w.writerow([r[k] for k in RUN_FIELDS])

    W = max(cal["rt_pinned"] - cal["rt_hard"], 0.0)
    Wr = max(cal["rt_skip"] - cal["rt_hard"], 0.0)
    rng = random.Random(1)
    groups = {}
    for r in runs:
        groups.setdefault((r["regime"], r["ratio"]), {}).setdefault(r["mode"], []).append(r)

    def col(rs, k):
        return [float(r[k]) for r in rs]

    rows, verdict = [], []
    order = sorted(groups, key=lambda k: ({"idle": 0, "busy": 1, "qd1": 2, "long": 3}.get(k[0], 4), float(k[1])))
    for key in order:
        regime, ratio = key
        g = groups[key]
        pin = g.get("pinned", [])
        pt = pts.get(ratio, {})
        C, E = pt.get("C", float("nan")), pt.get("E", cal["E"])
        ip, wp = median(col(pin, "irqs_per_compl")), median(col(pin, "wakeups_per_compl"))
        for mode in MODES:
            rs = g.get(mode, [])
            if not rs:
                continue
            x = col(rs, "compl_per_s")
            v = col(rs, "victim_per_s")
            lo, hi = boot_ci(x, rng)
            rlo, rhi = boot_ratio_ci(x, col(pin, "compl_per_s"), rng) if pin else (float("nan"),) * 2
            vlo, vhi = boot_ratio_ci(v, col(pin, "victim_per_s"), rng) if pin else (float("nan"),) * 2
            ratio_med = median(x) / median(col(pin, "compl_per_s")) if pin else float("nan")
            hard = g.get("hard", [])
            hlo, hhi = boot_ratio_ci(x, col(hard, "compl_per_s"), rng) if hard else (float("nan"),) * 2
            to_hard = median(x) / median(col(hard, "compl_per_s")) if hard else float("nan")
            vratio = median(v) / median(col(pin, "victim_per_s")) if pin and median(col(pin, "victim_per_s")) else float("nan")
            lim = float("nan")
            if mode in MOVING and pin:
                wm = median(col(rs, "wakeups_per_compl"))
                lim = (C + E * ip + W * wp) / (C + Wr * wm)
            on = [r for r in rs if float(r["thread_on_irqcpu_pct"]) > 50]
            off = [r for r in rs if float(r["thread_on_irqcpu_pct"]) <= 50]
            row = {
                "regime": regime, "ratio": ratio, "mode": mode, "runs": len(rs),
                "C_ns": "%.0f" % C, "E_ns": "%.0f" % E,
                "compl_per_s": "%.0f" % median(x), "ci_lo": "%.0f" % lo, "ci_hi": "%.0f" % hi,
                "to_pinned": "%.3f" % ratio_med, "to_pinned_lo": "%.3f" % rlo, "to_pinned_hi": "%.3f" % rhi,
                "victim_per_s": "%.0f" % median(v), "victim_to_pinned": "%.3f" % vratio,
                "victim_to_pinned_lo": "%.3f" % vlo, "victim_to_pinned_hi": "%.3f" % vhi,
                "to_hard": "%.3f" % to_hard, "to_hard_lo": "%.3f" % hlo, "to_hard_hi": "%.3f" % hhi,
                "victim_per_cpu": rs[len(rs) // 2]["victim_per_cpu"],
                "victim_irqcpu_per_s": "%.0f" % median([victim_on_irqcpu(r, cal["irq_cpu"]) for r in rs]),
                "thread_on_irqcpu_pct": "%.1f" % median(col(rs, "thread_on_irqcpu_pct")),
                "runs_on_irqcpu": len(on) if mode != "hard" else 0,
                "compl_on": "%.0f" % median(col(on, "compl_per_s")) if on and off and mode != "hard" else "",
                "compl_off": "%.0f" % median(col(off, "compl_per_s")) if on and off and mode != "hard" else "",
                "irqs_per_compl": "%.3f" % median(col(rs, "irqs_per_compl")),
                "wakeups_per_compl": "%.3f" % median(col(rs, "wakeups_per_compl")),
                "irqcpu_hardirq_pct": "%.1f" % median(col(rs, "irqcpu_hardirq_pct")),
                "max_hard_ms": "%.0f" % max(col(rs, "max_hard_ms")),
                "lat_p50_us": "%.1f" % median(col(rs, "lat_p50_us")),
                "lat_p99_us": "%.1f" % median(col(rs, "lat_p99_us")),
                "lockups": "%d" % sum(col(rs, "lockups")), "stalls": "%d" % sum(col(rs, "stalls")),
                "spurious": "%d" % sum(col(rs, "spurious")),
                "limit": "%.3f" % lim, "of_limit": "%.2f" % (ratio_med / lim) if lim == lim else "nan",
            }
            rows.append(row)
    with open(out + "/swamp.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)

    print("Swamp model, %d vCPUs, %d queue(s); calibration on CPU %d: E %d ns (hard irq time of an entry),"
          % (cal["ncpu"], cal["nq"], cal["irq_cpu"], cal["E"]))
    print("round trip hard %d ns, pinned thread %d ns, thread on the other CPU %d ns: W %d ns, W_r %d ns."
          % (cal["rt_hard"], cal["rt_pinned"], cal["rt_skip"], W, Wr))
    nr = max(r["runs"] for r in rows)
    print("Per row the median of %d runs (every combination once per round, rounds shuffled) and its bootstrap"
          " 95%% interval;" % nr)
    print("/pinned = ratio of medians to the pinned thread's, with its interval; victim = work the victims got done")
    print("(SCHED_IDLE in idle/qd1, SCHED_NORMAL in busy), all CPUs, per s; @irq = share of the thread's")
    print("completions run on the interrupt's CPU (median); on = runs with the thread there for > 50%;")
    print("limit = the model's bound for a moving thread (see ci/bench-swamp.py), of_limit = /pinned / limit.")
    print("hardms = longest run of the handler in hard irq context (max of the runs); rcu = RCU stall reports.")
    hdr = "  %-5s %5s %-9s %9s %-19s %6s %-13s %8s %6s %-13s %5s %3s %7s %7s %6s %5s %6s %3s"
    print(hdr % ("reg", "C/E", "mode", "compl/s", "95% interval", "/pin", "interval", "victim/s", "v/pin",
                 "interval", "@irq%", "on", "p50us", "p99us", "limit", "of_l", "hardms", "rcu"))
    for r in rows:
        print("  %-5s %5s %-9s %9s %-19s %6s %-13s %8s %6s %-13s %5s %3s %7s %7s %6s %5s %6s %3s" % (
            r["regime"], r["ratio"], r["mode"], r["compl_per_s"], "%s-%s" % (r["ci_lo"], r["ci_hi"]),
            r["to_pinned"], "%s-%s" % (r["to_pinned_lo"], r["to_pinned_hi"]), r["victim_per_s"],
            r["victim_to_pinned"], "%s-%s" % (r["victim_to_pinned_lo"], r["victim_to_pinned_hi"]),
            r["thread_on_irqcpu_pct"], r["runs_on_irqcpu"], r["lat_p50_us"], r["lat_p99_us"],
            r["limit"] if r["limit"] != "nan" else "-", r["of_limit"] if r["of_limit"] != "nan" else "-",
            r["max_hard_ms"], r["stalls"]))
        if r["compl_on"]:
            print("  %-5s %5s %-9s   split: %s runs on the interrupt's CPU %s compl/s, the others %s" % (
                "", "", "", r["runs_on_irqcpu"], r["compl_on"], r["compl_off"]))

    # What issue 26 asks of a design, read off the table (not a test).
    by = {(r["regime"], r["ratio"], r["mode"]): r for r in rows}
    for mode in MOVING:
        if not any(m == mode for (_, _, m) in by):
            continue
        wins, kept, bkept, harm, onirq = [], [], [], [], []
        for (regime, ratio, m), r in by.items():
            if m != mode:
                continue
            lo, hi = float(r["to_pinned_lo"]), float(r["to_pinned_hi"])
            if regime == "idle":
                if lo > 1:
                    wins.append(ratio)
                if float(r["victim_to_pinned_hi"]) >= 1:
                    kept.append(ratio)
                if float(r["thread_on_irqcpu_pct"]) > 5:
                    onirq.append("%s (%s%%)" % (ratio, r["thread_on_irqcpu_pct"]))
            if regime == "busy" and float(r["victim_to_pinned_hi"]) >= 1:
                bkept.append(ratio)
            if hi < 1:
                harm.append("%s %s (%.2fx)" % (regime, ratio, float(r["to_pinned"])))
        verdict.append("%s: ahead of pinned outside the interval in regime idle at C/E %s; victims kept at %s;"
                       % (mode, " ".join(wins) or "none", " ".join(kept) or "none"))
        verdict.append("  busy victims kept at %s; below pinned outside the interval: %s;"
                       " on the interrupt's CPU > 5%% (idle): %s"
                       % (" ".join(bkept) or "none", ", ".join(harm) or "nowhere", ", ".join(onirq) or "never"))
    for mode in ("hard", "pinned", "hyb8", "hyb64"):
        for regime in ("idle", "busy", "qd1", "long"):
            hs = [r for r in rows if r["regime"] == regime and r["mode"] == mode]
            if hs:
                verdict.append("%s, %s: %s soft lockup and %s RCU stall reports, longest handler run in hard irq %s ms"
                               % (mode, regime, sum(int(r["lockups"]) for r in hs),
                                  sum(int(r["stalls"]) for r in hs), max(int(r["max_hard_ms"]) for r in hs)))
    # The hard budget against hard irq mode and the pinned thread (idle regime)
    for mode in ("hyb8", "hyb64"):
        cmp = []
        for (regime, ratio, m), r in sorted(by.items(), key=lambda kv: (kv[0][0], float(kv[0][1]))):
            h = by.get((regime, ratio, "hard"))
            if m != mode or not h:
                continue
            cmp.append("%s %s: %.2fx pinned (%s-%s), %.2fx hard (%s-%s), victim on the irq CPU %s/s (hard %s, pinned %s)" % (
                regime, ratio, float(r["to_pinned"]), r["to_pinned_lo"], r["to_pinned_hi"],
                float(r["to_hard"]), r["to_hard_lo"], r["to_hard_hi"], r["victim_irqcpu_per_s"],
                h["victim_irqcpu_per_s"], by[(regime, ratio, "pinned")]["victim_irqcpu_per_s"]
                if (regime, ratio, "pinned") in by else "-"))
        if cmp:
            verdict.append("%s:\n  %s" % (mode, "\n  ".join(cmp)))
    with open(out + "/swamp-verdict.txt", "w") as fh:
        fh.write("\n".join(verdict) + "\n")
    print("\n".join(verdict))


if __name__ == "__main__":
    main()
