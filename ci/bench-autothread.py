#!/usr/bin/env python3
"""The irq-autothread NIC table, from one boot's "bench:" lines
(ci/bench.sh autothread, selftests/bench-autothread).

   ci/bench-autothread.py TAP OUTDIR

Writes OUTDIR/autothread-runs.csv (every run) and OUTDIR/autothread.csv
(one row per mode) and prints the table.  Every mode runs once per
round, in a new random order per round; a mode's ratio to hard irq is
taken per round (paired), as a log-ratio, and the row gives its
geometric mean over the rounds with a bootstrap 95% interval (rounds
resampled, pairs kept); a run whose count is 0 (lost) is left out of
its pairs, and the CI column says how many pairs there were.
"""
import csv
import math
import random
import statistics
import sys

MODES = ["hard", "threaded", "auto"]
FIELDS = ["mode", "round", "work_per_s", "rx_per_s", "to_threaded", "to_hard",
          "threaded_pct", "netrx_cpu1_per_s"]
B = 4000


def paired(a, b, rng):
    """Geometric mean of a/b over the rounds both have, and its 95% interval."""
    rounds = sorted(set(a) & set(b))
    lr = [math.log(a[r] / b[r]) for r in rounds if a[r] > 0 and b[r] > 0]
    if len(lr) < 2:
        return (float("nan"),) * 3 + (len(lr),)
    means = sorted(statistics.fmean(rng.choices(lr, k=len(lr))) for _ in range(B))
    return (math.exp(statistics.fmean(lr)), math.exp(means[int(0.025 * B)]),
            math.exp(means[int(0.975 * B) - 1]), len(lr))


def main():
    tap, out = sys.argv[1], sys.argv[2]
    runs = []
    for line in open(tap, errors="replace"):
        line = line.strip()
        if line.startswith("# bench: autothread,"):
            f = line[len("# bench: autothread,"):].split(",")
            if len(f) == len(FIELDS):
                runs.append(dict(zip(FIELDS, [f[0]] + [float(x) for x in f[1:]])))
    if not runs:
        sys.exit("bench-autothread.py: no runs in %s" % tap)
    with open(out + "/autothread-runs.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(FIELDS)
        for r in runs:
            w.writerow([r[k] if k == "mode" else "%g" % r[k] for k in FIELDS])
    by = {m: {int(r["round"]): r for r in runs if r["mode"] == m} for m in MODES}
    rng = random.Random(1)
    rows = []
    for m in MODES:
        if not by[m]:
            continue
        med = {k: statistics.median(r[k] for r in by[m].values()) for k in FIELDS[2:]}
        wr = paired({k: r["work_per_s"] for k, r in by[m].items()},
                    {k: r["work_per_s"] for k, r in by["hard"].items()}, rng)
        rr = paired({k: r["rx_per_s"] for k, r in by[m].items()},
                    {k: r["rx_per_s"] for k, r in by["hard"].items()}, rng)
        sw = sum(r["to_threaded"] + r["to_hard"] for r in by[m].values())
        rows.append([m, len(by[m]), med["work_per_s"], "%.3f" % wr[0],
                     "%.3f-%.3f (%d)" % (wr[1], wr[2], wr[3]),
                     med["rx_per_s"], "%.3f" % rr[0], "%.3f-%.3f (%d)" % (rr[1], rr[2], rr[3]),
                     "%d/%d" % (sum(r["to_threaded"] for r in by[m].values()),
                                sum(r["to_hard"] for r in by[m].values())) if sw else "-",
                     med["threaded_pct"], med["netrx_cpu1_per_s"]])
    head = ["mode", "runs", "task it/s", "task vs hard", "95% CI (pairs)", "rx dgram/s",
            "rx vs hard", "95% CI (pairs)", "switches thr/hard", "threaded % (median)",
            "NET_RX/s CPU1"]
    with open(out + "/autothread.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(head)
        w.writerows(rows)
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join("%.0f" % x if isinstance(x, float) else str(x) for x in r) + " |")


if __name__ == "__main__":
    main()
