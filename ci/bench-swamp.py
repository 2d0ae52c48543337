#!/usr/bin/env python3
"""The swamp model's tables, from the "bench:" lines of one or more boots.

   ci/bench-swamp.py TAP OUTDIR            one boot (as ci/bench.sh swamp calls it)
   ci/bench-swamp.py INPUT... [OUTDIR]     tables per boot, and pooled over the boots
   ci/bench-swamp.py --selftest            checks of the statistics
   options: --ref MODE (the reference, default hard)

INPUT is a boot's tap.txt, or a runs CSV: OUTDIR/swamp-runs.csv of this
script (a boot column, several boots possible) or docs/results/*-runs.csv
(older schemas: the layout column is called regime).  NAME=INPUT names the
boot.  For a runs CSV X-runs.csv the host's calibration is read from
X-boot.csv (written here), else from the header of X.txt and the E_ns column
of X.csv, where those exist.  With OUTDIR (an existing directory, the last
argument) it writes swamp-runs.csv (every run), swamp-pairs.csv (every
per-round log-ratio), swamp.csv (a row per boot, layout, C/E point and mode),
swamp-aa.csv (the A/A intervals), swamp-boot.csv (the host noise per boot),
swamp-pooled.csv (with two boots or more) and swamp-verdict.txt.

Statistics.  Every combination runs once per round, in a new random order
per round, so the runs of one round share the host's state; a ratio between
two modes is taken per round (paired) as the log-ratio of their completions
per second.  A row gives the geometric mean over the rounds and the 95%
Student t interval of the mean log-ratio (n - 1 degrees of freedom),
exponentiated.  The percentile bootstrap used before is about 18% narrower
at 10 rounds (it resamples with the plug-in sd, which divides by n, and its
quantiles are the normal's 1.96 where t(9) is 2.262): 1.96 * sqrt(9/10) /
2.262 = 0.82.

A/A.  The guest runs the reference mode a second time per round under the
label REF-aa (selftests/bench-swamp/10-swamp.sh): the same code under two
labels, whose interval should include 1.  A layout's A/A interval is the t
interval of the per-round mean, over the layout's C/E points, of the A/A
log-ratio; a point counts as resolved only where that interval includes 1
and its own point's A/A interval does too; otherwise the layout (or the
point) is 'A/A fails: unresolved'.  A boot without the arm says 'no A/A arm
in this boot'; where two of its modes run the same code (hyb-move and
hyb-pin where neither overflows: median hard_pct >= 99.5 for both and >= 95
in every run, so the thread, the only thing that differs, runs for 5% of the
completions at most and mostly not at all) that pair is printed as the
built-in A/A and gates its layout in the same way.

Verdict per cell against the reference, with the non-inferiority margin
MARGIN (0.95): 'better' if the lower bound > 1, else 'not worse' if the
lower bound >= MARGIN, else 'worse' if the upper bound < 1, else
'unresolved' (checked in that order: 0.96-0.99 is 'not worse').

No model limit: the L1 gain is bounded by what the interrupt's CPU keeps
(the submissions), see selftests/bench-swamp/.
"""
import csv
import math
import os
import random
import re
import signal
import statistics
import sys

MARGIN = 0.95           # non-inferiority margin of the verdicts, stated once
LEVEL = 0.95            # two-sided interval level
NO_OVERFLOW_HARD_PCT = 99.5  # median share of completions in hard irq: no overflow
NO_OVERFLOW_MIN_PCT = 95.0   # and in every run of a built-in A/A pair at least this
MODES = ["hard", "pinned", "hyb-pin", "hyb-move", "fifo-skip", "fair",
         "hyb8", "hyb64", "fifo-mask", "fair-mask", "fifo-idle"]
RUN_FIELDS = ["layout", "ratio", "mode", "round", "loops", "compl_per_s", "irqs_per_compl",
              "handoffs_per_compl", "thread_on_irqcpu_pct", "hard_pct", "victim_per_cpu",
              "irqcpu_hardirq_pct", "max_hard_ms", "lat_p50_us", "lat_p99_us",
              "lockups", "stalls", "spurious"]
LAYOUTS = ["L1", "L1hog", "L2", "L3", "idle", "busy", "qd1", "long"]
CAL_FIELDS = ["irq_cpu", "ncpu", "E", "C_per_kloop", "W", "Wr", "device_ns"]
NAN = float("nan")
SHORT = {"hard": "/hard", "pinned": "/pin", "hyb-pin": "/hybp"}


# ---------------------------------------------------------------- statistics
# Student's t quantile without scipy: the t CDF through the regularized
# incomplete beta function (continued fraction, Lentz), inverted by bisection.
def _betacf(a, b, x):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betai(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    bt = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return bt * _betacf(a, b, x) / a
    return 1.0 - bt * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    p = 0.5 * betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - p if t > 0 else p


_TQ = {}


def t_quantile(p, df):
    """The p quantile (p > 0.5) of Student's t with df degrees of freedom."""
    key = (p, df)
    if key not in _TQ:
        lo, hi = 0.0, 2.0
        while t_cdf(hi, df) < p:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if t_cdf(mid, df) < p:
                lo = mid
            else:
                hi = mid
        _TQ[key] = (lo + hi) / 2
    return _TQ[key]


def tint(lr):
    """Mean of log-ratios and its t interval: ratio, lo, hi (exponentiated), n, sd of the log-ratios."""
    lr = [v for v in lr if v == v]
    n = len(lr)
    if n < 2:
        m = lr[0] if lr else NAN
        return {"n": n, "mean": m, "sd": NAN, "half": NAN, "ratio": math.exp(m), "lo": NAN, "hi": NAN}
    m, sd = statistics.fmean(lr), statistics.stdev(lr)
    half = t_quantile(0.5 + LEVEL / 2, n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": m, "sd": sd, "half": half,
            "ratio": math.exp(m), "lo": math.exp(m - half), "hi": math.exp(m + half)}


def verdict(ci):
    lo, hi = ci["lo"], ci["hi"]
    if lo != lo or hi != hi:
        return "-"
    if lo > 1:
        return "better"
    if lo >= MARGIN:
        return "not worse"
    if hi < 1:
        return "worse"
    return "unresolved"


def includes_1(ci):
    return ci["lo"] == ci["lo"] and ci["lo"] <= 1 <= ci["hi"]


def logratios(a, b):
    """Per-round log(a/b) over the rounds both have: {round: value}."""
    return {r: math.log(a[r] / b[r]) for r in sorted(set(a) & set(b), key=rkey) if a[r] > 0 and b[r] > 0}


def rkey(r):
    try:
        return (0, float(r))
    except ValueError:
        return (1, r)


# ---------------------------------------------------------------- input
def fnum(x, default=NAN):
    try:
        return float(x)
    except (TypeError, ValueError):
        return default


def new_boot(name, source):
    return {"name": name, "source": source, "runs": [], "cal": {}, "pts": {}, "noise_src": "", "E_points": None}


def load_tap(path, name):
    b = new_boot(name, path)
    b["tap"] = True
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line.startswith("# bench: swamp"):
            continue
        kind, _, rest = line[len("# bench: "):].partition(",")
        f = rest.split(",")
        if kind == "swampcal":
            b["cal"] = dict(zip(CAL_FIELDS, map(float, f)))
            b["noise_src"] = "calibration in the boot"
        elif kind == "swamppt":
            b["pts"][f[0]] = {"loops": int(f[1]), "C": float(f[2])}
        elif kind == "swamprun" and len(f) == len(RUN_FIELDS):
            b["runs"].append(dict(zip(RUN_FIELDS, f)))
    return [b]


def sidecar_noise(b, path):
    """The calibration of a runs CSV's boot from the files beside it."""
    stem = path[:-len("-runs.csv")] if path.endswith("-runs.csv") else path[:-len(".csv")]
    if os.path.exists(stem + "-boot.csv"):
        rows = list(csv.DictReader(open(stem + "-boot.csv")))
        rows = [r for r in rows if r.get("boot") == b["name"]] or (rows if len(rows) == 1 else [])
        if rows:
            b["cal"] = {k: fnum(rows[0].get(k)) for k in CAL_FIELDS if fnum(rows[0].get(k)) == fnum(rows[0].get(k))}
            b["noise_src"] = os.path.basename(stem + "-boot.csv")
            return
    if os.path.exists(stem + ".txt"):
        head = " ".join(open(stem + ".txt", errors="replace").read().split("\n")[:3])
        unit = {"us": 1000.0, "ns": 1.0}
        for key, rx in (("E", r"\bE ([\d.]+) (us|ns)"), ("C_per_kloop", r"\bC ([\d.]+) (us|ns) per 1000 loops"),
                        ("W", r"\bW ([\d.]+) (us|ns)"), ("Wr", r"\bW_r ([\d.]+) (us|ns)"),
                        ("device_ns", r"\bdevice ([\d.]+) (us|ns)")):
            m = re.search(rx, head)
            if m:
                b["cal"][key] = float(m.group(1)) * unit[m.group(2)]
        m = re.search(r"(?:interrupt|calibration) on CPU (\d+)", head)
        if m:
            b["cal"]["irq_cpu"] = float(m.group(1))
        m = re.search(r"(\d+) vCPUs", head)
        if m:
            b["cal"]["ncpu"] = float(m.group(1))
        if b["cal"]:
            b["noise_src"] = os.path.basename(stem + ".txt")
    if os.path.exists(stem + ".csv"):
        rows = list(csv.DictReader(open(stem + ".csv")))
        es = sorted({fnum(r.get("E_ns")) for r in rows} - {NAN})
        es = [e for e in es if e == e]
        if es:
            b["E_points"] = (es[0], es[-1])
            b["noise_src"] += (", " if b["noise_src"] else "") + os.path.basename(stem + ".csv")
        for r in rows:
            lay = r.get("layout", r.get("regime"))
            if fnum(r.get("C_ns")) == fnum(r.get("C_ns")):
                b["pts"].setdefault(r["ratio"], {"C": fnum(r.get("C_ns"))})
                b["pts"].setdefault((lay, r["ratio"]), {"C": fnum(r.get("C_ns"))})


def load_csv(path, name):
    rows = list(csv.DictReader(open(path)))
    boots = {}
    for r in rows:
        if "layout" not in r and "regime" in r:
            r["layout"] = r["regime"]
        bn = r.get("boot") or name
        if bn not in boots:
            boots[bn] = new_boot(bn, path)
        boots[bn]["runs"].append(r)
    for b in boots.values():
        sidecar_noise(b, path)
    return list(boots.values())


def boot_name(path):
    base = os.path.basename(path)
    if base.endswith("-runs.csv"):
        return base[:-len("-runs.csv")]
    if base in ("tap.txt", "swamp-runs.csv"):
        return os.path.basename(os.path.dirname(os.path.abspath(path))) or base
    return os.path.splitext(base)[0]


def load(arg):
    name, path = None, arg
    if "=" in arg and not os.path.exists(arg):
        name, path = arg.split("=", 1)
    with open(path, errors="replace") as fh:
        first = fh.readline()
    csvin = first.startswith(("layout,", "regime,", "boot,"))
    boots = load_csv(path, name or boot_name(path)) if csvin else load_tap(path, name or boot_name(path))
    return boots


# ---------------------------------------------------------------- analysis
def order_key(k):
    return (LAYOUTS.index(k[0]) if k[0] in LAYOUTS else 99, k[0], fnum(k[1]))


def mode_key(m):
    base = m[:-3] if m.endswith("-aa") else m
    return (MODES.index(base) if base in MODES else 99, base, m.endswith("-aa"))


def median(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else NAN


def analyse(b, ref):
    """Per point and mode: the paired t intervals; per layout: the A/A and its status."""
    groups = {}
    for r in b["runs"]:
        groups.setdefault((r["layout"], r["ratio"]), {}).setdefault(r["mode"], []).append(r)
    labels = {r["mode"] for r in b["runs"]}
    aa_labels = sorted(m for m in labels if m.endswith("-aa") and m[:-3] in labels)
    arm = (ref + "-aa") if (ref + "-aa") in aa_labels else (aa_labels[0] if aa_labels else None)
    b["arm"] = arm
    b["rounds"] = len({r["round"] for r in b["runs"]})
    pts = []
    for key in sorted(groups, key=order_key):
        g = groups[key]
        x = {m: {r["round"]: fnum(r["compl_per_s"]) for r in rs} for m, rs in g.items()}

        def hpct(m):
            return median([fnum(r.get("hard_pct")) for r in g.get(m, [])])
        p = {"layout": key[0], "ratio": key[1], "g": g, "x": x, "aa": None, "builtin": None, "pairs": []}
        if arm and arm in x:
            lr = logratios(x[arm], x[arm[:-3]])
            p["aa"] = dict(tint(list(lr.values())), lr=lr, kind="arm", label="%s/%s" % (arm, arm[:-3]))
        minpct = min([fnum(r.get("hard_pct")) for r in g.get("hyb-move", []) + g.get("hyb-pin", [])] or [NAN])
        if "hyb-move" in x and "hyb-pin" in x and hpct("hyb-move") >= NO_OVERFLOW_HARD_PCT and \
                hpct("hyb-pin") >= NO_OVERFLOW_HARD_PCT and minpct >= NO_OVERFLOW_MIN_PCT:
            lr = logratios(x["hyb-move"], x["hyb-pin"])
            p["builtin"] = dict(tint(list(lr.values())), lr=lr, kind="built-in", label="hyb-move/hyb-pin",
                                min_hard_pct=minpct)
        p["cells"] = {}
        for m in sorted(x, key=mode_key):
            c = {}
            for rn, rm in (("ref", ref), ("hard", "hard"), ("pinned", "pinned"), ("hyb-pin", "hyb-pin")):
                if rm in x:
                    lr = logratios(x[m], x[rm])
                    c[rn] = dict(tint(list(lr.values())), lr=lr)
                    if m != rm:
                        for rnd, v in lr.items():
                            p["pairs"].append((m, rm, rnd, x[m][rnd], x[rm][rnd], v))
                else:
                    c[rn] = tint([])
            p["cells"][m] = c
        pts.append(p)
    b["points"] = pts
    # The layout's A/A: the arm where the boot has one, else the built-in pairs.
    b["layouts"] = {}
    for lay in sorted({p["layout"] for p in pts}, key=lambda l: order_key((l, "0"))):
        lp = [p for p in pts if p["layout"] == lay]
        kind = "arm" if arm else ("built-in" if any(p["builtin"] for p in lp) else None)
        aap = [p["aa"] if kind == "arm" else p["builtin"] for p in lp]
        aap = [a for a in aap if a]
        st = {"kind": kind, "points": aap}
        if aap:
            rounds = {}
            for a in aap:
                for rnd, v in a["lr"].items():
                    rounds.setdefault(rnd, []).append(v)
            st["ci"] = tint([statistics.fmean(v) for v in rounds.values()])
            st["ok"] = includes_1(st["ci"])
            st["status"] = ("A/A ok" if st["ok"] else "A/A fails: unresolved")
        else:
            st["ci"], st["ok"], st["status"] = tint([]), None, "no A/A arm in this boot"
        b["layouts"][lay] = st
    # Verdicts, gated by the layout's A/A and the point's own.
    for p in pts:
        st = b["layouts"][p["layout"]]
        own = p["aa"] if st["kind"] == "arm" else (p["builtin"] if st["kind"] == "built-in" else None)
        p["own_aa"] = own
        gate = None
        if st["ok"] is False:
            gate = "A/A fails: unresolved"
        elif own and own["lo"] == own["lo"] and not includes_1(own):
            gate = "A/A fails at this point: unresolved"
        p["gate"] = gate
        for m, c in p["cells"].items():
            raw = verdict(c["ref"]) if m != ref else "reference"
            if m == arm or (m.endswith("-aa") and m[:-3] in p["x"]):
                raw = "A/A"
            c["raw"] = raw
            c["verdict"] = "unresolved (A/A)" if gate and raw not in ("reference", "A/A", "-") else raw
    return b


def pool(v):
    """Boot as a block.  v: per boot (name, mean log-ratio, its squared
    standard error).  The estimate is the mean of the per-boot means; its
    variance the larger of (a) the spread of the boot means, s^2 / k, and
    (b) what the within-boot noise alone gives, sum(se^2) / k^2; a t
    interval on k - 1 df either way."""
    k = len(v)
    if k < 2:
        return tint([x[1] for x in v])
    m = statistics.fmean(x[1] for x in v)
    var_b = statistics.variance([x[1] for x in v]) / k
    var_w = sum(x[2] for x in v) / k / k
    se = math.sqrt(max(var_b, var_w))
    half = t_quantile(0.5 + LEVEL / 2, k - 1) * se
    return {"n": k, "mean": m, "sd": se * math.sqrt(k), "half": half, "ratio": math.exp(m),
            "lo": math.exp(m - half), "hi": math.exp(m + half), "floor": var_w > var_b}


def pooled(boots, ref):
    """Per cell, pooled over the boots that have it, with the boot as a block:
    the mean of the per-boot mean log-ratios (pool()).

    Why not all rounds of all boots in one t interval: that treats rounds of
    different boots as exchangeable and leaves out the boot-to-boot variance
    (the host's state, the placement of the vCPU threads), so it overstates
    what a further boot would show.  Why no mixed-model library: for a
    balanced design (every boot the same rounds, as the guest script runs
    them) the t interval on the k boot means is exactly the REML/ANOVA
    inference for the fixed effect of a random-intercept model (boot random,
    k - 1 df).  REML truncates the between-boot variance at 0; the floor in
    pool() does the same (boot means can not be trusted to agree better than
    their own noise allows), but keeps k - 1 df, to stay conservative: with
    2 boots the t quantile is 12.71 and the standard error is estimated from
    two numbers, and the interval says so.  Unequal rounds: still valid,
    a little less efficient.  At least 3 boots make the pooled table useful."""
    cells = {}
    for b in boots:
        for p in b["points"]:
            for m, c in p["cells"].items():
                ci = c["ref"]
                if ci["n"] >= 2 and m != ref:
                    cells.setdefault((p["layout"], p["ratio"], m), []).append(
                        (b["name"], ci["mean"], (ci["sd"] / math.sqrt(ci["n"])) ** 2))
    lay_aa = {}
    for b in boots:
        for lay, st in b["layouts"].items():
            ci = st["ci"]
            if ci["n"] >= 2:
                lay_aa.setdefault(lay, []).append((b["name"], ci["mean"], (ci["sd"] / math.sqrt(ci["n"])) ** 2,
                                                   st["kind"], st["ok"]))
    out_l = {}
    for lay in {k[0] for k in cells}:
        a = lay_aa.get(lay, [])
        if len(a) >= 2:
            ci = pool(a)
            ok = includes_1(ci)
            status = "A/A ok" if ok else "A/A fails: unresolved"
        elif len(a) == 1:
            ci, ok = tint([a[0][1]]), a[0][4]
            status = "A/A in one boot only (%s): %s" % (a[0][0], "ok" if ok else "fails: unresolved")
        else:
            ci, ok, status = tint([]), None, "no A/A arm in these boots"
        out_l[lay] = {"ci": ci, "ok": ok, "status": status, "boots": a}
    rows = []
    for key in sorted(cells, key=lambda k: order_key(k[:2]) + mode_key(k[2])):
        v = cells[key]
        if len(v) < 2:
            continue
        ci = pool(v)
        raw = "A/A" if key[2].endswith("-aa") else verdict(ci)
        gate = out_l[key[0]]["ok"] is False and raw not in ("A/A", "-")
        rows.append({"layout": key[0], "ratio": key[1], "mode": key[2], "boots": len(v), "ci": ci,
                     "per_boot": [(x[0], x[1]) for x in v], "raw": raw,
                     "verdict": "unresolved (A/A)" if gate else raw})
    return rows, out_l


# ---------------------------------------------------------------- output
def f3(x):
    return "%.3f" % x if x == x else "-"


def iv(c):
    return "%s-%s" % (f3(c["lo"]), f3(c["hi"])) if c["lo"] == c["lo"] else "-"


def aa_text(a):
    return "%s %s (%s), sd of log-ratio %s, n %d" % (a["label"], f3(a["ratio"]), iv(a), f3(a["sd"]), a["n"])


def victim_cpu(b):
    if "irq_cpu" in b["cal"]:
        return int(b["cal"]["irq_cpu"])
    return None


def victim(r, cpu):
    parts = (r.get("victim_per_cpu") or "").split("/")
    if cpu is None:
        nums = [p for p in parts if p not in ("", "-")]
        return fnum(nums[0]) if len(nums) == 1 else NAN
    return fnum(parts[cpu]) if cpu < len(parts) and parts[cpu] != "-" else NAN


def noise(b, ref):
    """The host noise of a boot: calibration, hard irq time as host preemption, spreads."""
    cal, parts = b["cal"], []
    for k, lab, div, fmt in (("E", "E", 1000, "%.1f us"), ("C_per_kloop", "C", 1000, "%.2f us per 1000 loops"),
                             ("W", "W", 1000, "%.1f us"), ("Wr", "W_r", 1000, "%.1f us"),
                             ("device_ns", "device", 1000, "%.0f us")):
        if k in cal:
            parts.append("%s %s" % (lab, fmt % (cal[k] / div)))
    if b.get("E_points"):
        parts.append("E at the C/E points %.0f-%.0f ns" % b["E_points"])
    line1 = "host: " + (", ".join(parts) if parts else "no calibration with this input") + \
        (" (%s)" % b["noise_src"] if b["noise_src"] else "")
    # A vCPU descheduled inside a handler counts as hard irq time (TCG has no
    # steal time): hard's longest run where its handler does a few completions.
    p0 = next((p for p in b["points"] if ref in p["g"]), None)
    mh = [fnum(r.get("max_hard_ms")) for r in p0["g"][ref]] if p0 else []
    sds = [statistics.stdev([math.log(v) for v in p["x"][ref].values() if v > 0])
           for p in b["points"] if ref in p["x"] and len(p["x"][ref]) >= 2]
    aa_all = [v for p in b["points"] if p["aa"] for v in p["aa"]["lr"].values()]
    bi_all = [v for p in b["points"] if p["builtin"] for v in p["builtin"]["lr"].values()]
    b["noise"] = {"ref_maxhard_med": median(mh), "ref_maxhard_max": max(mh) if mh else NAN,
                  "ref_sd_log_median": median(sds),
                  "aa_sd_log": statistics.stdev(aa_all) if len(aa_all) >= 2 else NAN,
                  "builtin_sd_log": statistics.stdev(bi_all) if len(bi_all) >= 2 else NAN}
    n = b["noise"]
    line2 = "host: %s's longest hard irq run at %s C/E %s (a descheduled vCPU shows here): median %.1f ms, max %.1f ms;" \
        % (ref, p0["layout"], p0["ratio"], n["ref_maxhard_med"], n["ref_maxhard_max"]) if p0 else "host: -;"
    line2 += " %s over the rounds: sd of log compl/s %s (median over points)" % (ref, f3(n["ref_sd_log_median"]))
    if b["arm"]:
        line3 = "A/A arm %s: spread (sd of the per-round log-ratio, all points) %s" % (b["arm"], f3(n["aa_sd_log"]))
    else:
        line3 = "no A/A arm in this boot"
        if bi_all:
            line3 += "; built-in A/A hyb-move/hyb-pin where neither overflows: spread (sd of log-ratio) %s" % f3(n["builtin_sd_log"])
    return [line1, line2, line3]


def print_boot(b, ref):
    nr = len(b["runs"])
    print("=== boot %s (%s): %d runs, %d rounds, ratios paired by round against %s;" % (b["name"], b["source"], nr, b["rounds"], ref))
    print("    t intervals %d%% (n-1 df), verdict margin %.2f" % (LEVEL * 100, MARGIN))
    for line in noise(b, ref):
        print(line)
    xcpu = victim_cpu(b)
    hdr = "  %5s %-9s %3s %7s %6s %-11s %-16s %6s %-11s %6s %-11s %5s %5s %7s %6s %8s %6s %3s"
    for lay, st in b["layouts"].items():
        print()
        if st["kind"]:
            print("%s: %s A/A %s: %s" % (lay, st["kind"], "%s (%s), n %d" % (f3(st["ci"]["ratio"]), iv(st["ci"]), st["ci"]["n"]),
                                         st["status"]))
        else:
            print("%s: no A/A arm in this boot (verdicts unchecked by an A/A)" % lay)
        for p in b["points"]:
            if p["layout"] == lay and p["builtin"]:
                print("    built-in A/A at C/E %s (no overflow: hard%% >= %.1f in every run): %s%s%s" % (
                    p["ratio"], p["builtin"]["min_hard_pct"], aa_text(p["builtin"]),
                    "" if includes_1(p["builtin"]) else "  EXCLUDES 1", " (not the gate: the arm is)" if b["arm"] else ""))
        print(hdr % ("C/E", "mode", "n", "compl/s", SHORT.get(ref, "/" + ref[:5]), "95% t", "verdict", "/pin", "95% t", "/hybp", "95% t",
                     "@irq", "hard%", "victim", "v/pin", "p99us", "hardms", "rcu"))
        for p in b["points"]:
            if p["layout"] != lay:
                continue
            pv = [victim(r, xcpu) for r in p["g"].get("pinned", [])]
            for m, c in p["cells"].items():
                rs = p["g"][m]
                vic = median([victim(r, xcpu) for r in rs])
                rc = sum(fnum(r.get("stalls"), 0) + fnum(r.get("lockups"), 0) for r in rs)

                def med(k, fmt):
                    v = median([fnum(r.get(k)) for r in rs])
                    return fmt % v if v == v else "-"
                mx = max(fnum(r.get("max_hard_ms")) for r in rs)
                vd = c["verdict"] if m != ref else ""
                if vd == "A/A":
                    vd = "A/A ok" if includes_1(c["ref"]) else "A/A EXCLUDES 1"
                print(hdr % (p["ratio"], m, len(rs), "%.0f" % median(list(p["x"][m].values())),
                             f3(c["ref"]["ratio"]), iv(c["ref"]) if m != ref else "-", vd,
                             f3(c["pinned"]["ratio"]), iv(c["pinned"]) if m != "pinned" else "-",
                             f3(c["hyb-pin"]["ratio"]), iv(c["hyb-pin"]) if m != "hyb-pin" else "-",
                             med("thread_on_irqcpu_pct", "%.1f"), med("hard_pct", "%.1f"),
                             "%.0f" % vic if vic == vic else "-",
                             f3(vic / median(pv)) if pv and median(pv) > 0 and vic == vic else "-",
                             med("lat_p99_us", "%.1f"), "%.1f" % mx if mx == mx else "-", "%d" % rc))
        if any(p["gate"] for p in b["points"] if p["layout"] == lay) and st["ok"] is not False:
            print("    points with their own A/A excluding 1 (unresolved): " +
                  ", ".join("C/E " + p["ratio"] for p in b["points"] if p["layout"] == lay and p["gate"]))
    print()
    counts = {}
    for p in b["points"]:
        for m, c in p["cells"].items():
            if m != ref and c["raw"] not in ("A/A", "-"):
                counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    print("verdicts against %s, %d cells: %s" % (ref, sum(counts.values()),
          ", ".join("%s %d" % (k, counts[k]) for k in ("better", "not worse", "worse", "unresolved", "unresolved (A/A)") if k in counts)))


def print_pooled(rows, lay_st, boots, ref):
    print("=== pooled over %d boots (%s): boot as a block, the mean of the per-boot mean log-ratios," % (
        len(boots), ", ".join(b["name"] for b in boots)))
    print("    its standard error the larger of the boot means' spread and the within-boot noise (*: the latter),")
    print("    t interval on boots-1 df (see pooled() for why); a cell needs 2 boots")
    for lay, st in sorted(lay_st.items(), key=lambda kv: order_key((kv[0], "0"))):
        print("%s: pooled A/A %s (%s), %d boot(s) with an A/A (%s): %s" % (
            lay, f3(st["ci"]["ratio"]), iv(st["ci"]), len(st["boots"]),
            ", ".join("%s %s %s" % (n, k, f3(math.exp(m))) for n, m, _, k, _ in st["boots"]) or "-", st["status"]))
    hdr = "  %-5s %5s %-9s %5s %6s %-14s %-16s %s"
    print(hdr % ("lay", "C/E", "mode", "boots", SHORT.get(ref, "/" + ref[:5]), "95% t", "verdict", "per boot"))
    last = None
    for r in rows:
        if last and last != r["layout"]:
            print()
        last = r["layout"]
        print(hdr % (r["layout"], r["ratio"], r["mode"], r["boots"], f3(r["ci"]["ratio"]),
                     iv(r["ci"]) + ("*" if r["ci"].get("floor") else ""), r["verdict"],
                     " ".join("%s %s" % (n, f3(math.exp(m))) for n, m in r["per_boot"])))


def issue40(b):
    """Issue 40's done-when for the moving hybrid, read off the t intervals."""
    verdict_lines = []

    def check(ok, text, gate=None):
        # A target read off an interval is not met or missed where the A/A fails.
        verdict_lines.append("%s %s" % ("unres." if gate else "met   " if ok else "MISSED", text))
    for p in b["points"]:
        lay, ratio, c = p["layout"], p["ratio"], p["cells"].get("hyb-move")
        if not c or "hard" not in p["x"]:
            continue
        rs = p["g"]["hyb-move"]
        th = c["hard"]
        note = " [%s]" % p["gate"] if p["gate"] else ""
        hard_pct = median([fnum(r.get("hard_pct")) for r in rs])
        if lay == "L1":
            if fnum(ratio) >= 1:
                check(th["ratio"] >= 1.15 and th["lo"] > 1, "L1 C/E %s: %.3fx hard (%s), wanted >= 1.15x with the lower bound above 1%s"
                      % (ratio, th["ratio"], iv(th), note), p["gate"])
            else:
                check(th["ratio"] >= 0.9, "L1 C/E %s: %.3fx hard (%s), wanted >= 0.9x" % (ratio, th["ratio"], iv(th)))
            if hard_pct >= NO_OVERFLOW_HARD_PCT:
                verdict_lines.append("n/a    L1 C/E %s: placement: the thread did no completions (%.1f%% in hard irq: no overflow)"
                                     % (ratio, hard_pct))
            else:
                on = [fnum(r.get("thread_on_irqcpu_pct")) for r in rs]
                check(max(on) <= 5, "L1 C/E %s: the thread ran %.1f%% of its completions on the interrupt's CPU (median, max %.1f%%), wanted <= 5%%"
                      % (ratio, median(on), max(on)))
        if lay in ("L2", "L3") and "hyb-pin" in p["x"]:
            best = "hard" if median(list(p["x"]["hard"].values())) >= median(list(p["x"]["hyb-pin"].values())) else "hyb-pin"
            tb = c[best]
            check(tb["hi"] >= 1, "%s C/E %s: %sx the better of hard and hyb-pin (%s, %s), wanted an interval that reaches 1%s"
                  % (lay, ratio, f3(tb["ratio"]), best, iv(tb), note), p["gate"])
        if lay == "L3":
            hp = median([fnum(r.get("lat_p99_us")) for r in p["g"]["hard"]])
            pp = median([fnum(r.get("lat_p99_us")) for r in rs])
            check(hp > 0 and pp <= 1.1 * hp, "L3 C/E %s: p99 %.0f us against hard's %.0f us (%.2fx), wanted <= 1.1x"
                  % (ratio, pp, hp, pp / hp if hp else NAN))
        st = int(sum(fnum(r.get("stalls"), 0) for r in rs))
        lk = int(sum(fnum(r.get("lockups"), 0) for r in rs))
        mh = max(fnum(r.get("max_hard_ms")) for r in rs)
        check(st + lk == 0 and mh <= 10, "%s C/E %s: %d RCU stall and %d soft lockup reports, longest hard irq run %.1f ms, wanted none and <= 10 ms"
              % (lay, ratio, st, lk, mh))
        xcpu = victim_cpu(b)
        pv = median([victim(r, xcpu) for r in p["g"].get("pinned", [])])
        v = median([victim(r, xcpu) for r in rs])
        if pv > 0 and v == v:
            check(v / pv >= 0.5, "%s C/E %s: the interrupt CPU's victim got %.3fx its work beside the pinned thread, wanted >= 0.5x"
                  % (lay, ratio, v / pv))
    if not verdict_lines:
        return []
    for mode in ("hard", "pinned", "hyb-pin"):
        rs = [r for r in b["runs"] if r["mode"] == mode]
        if rs:
            verdict_lines.append("%s: %d RCU stall and %d soft lockup reports in all layouts, longest hard irq run %.1f ms"
                                 % (mode, sum(fnum(r.get("stalls"), 0) for r in rs), sum(fnum(r.get("lockups"), 0) for r in rs),
                                    max(fnum(r.get("max_hard_ms")) for r in rs)))
    return verdict_lines


def write_csvs(out, boots, ref, prow, play):
    with open(os.path.join(out, "swamp-runs.csv"), "w", newline="") as fh:
        keys = list(RUN_FIELDS)
        for b in boots:
            for r in b["runs"]:
                keys += [k for k in r if k not in keys and k not in ("boot", "regime")]
        w = csv.writer(fh)
        w.writerow(["boot"] + keys)
        for b in boots:
            for r in b["runs"]:
                w.writerow([b["name"]] + [r.get(k, "") for k in keys])
    with open(os.path.join(out, "swamp-pairs.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["boot", "layout", "ratio", "mode", "against", "round", "compl_per_s", "against_compl_per_s", "log_ratio"])
        for b in boots:
            for p in b["points"]:
                for m, rm, rnd, a, c, v in p["pairs"]:
                    w.writerow([b["name"], p["layout"], p["ratio"], m, rm, rnd, "%.0f" % a, "%.0f" % c, "%.6f" % v])
    rows = []
    for b in boots:
        st_l = b["layouts"]
        xcpu = victim_cpu(b)
        for p in b["points"]:
            pv = median([victim(r, xcpu) for r in p["g"].get("pinned", [])])
            for m, c in p["cells"].items():
                rs = p["g"][m]

                def med(k, fmt):
                    v = median([fnum(r.get(k)) for r in rs])
                    return fmt % v if v == v else ""
                vic = median([victim(r, xcpu) for r in rs])
                cn = b["pts"].get((p["layout"], p["ratio"]), b["pts"].get(p["ratio"], {})).get("C", NAN)
                row = {"boot": b["name"], "layout": p["layout"], "ratio": p["ratio"], "mode": m, "runs": len(rs),
                       "C_ns": "%.0f" % cn if cn == cn else "",
                       "compl_per_s": "%.0f" % median(list(p["x"][m].values())), "ref": ref}
                for rn, col in (("ref", "to_ref"), ("hard", "to_hard"), ("pinned", "to_pinned"), ("hyb-pin", "to_hyb_pin")):
                    ci = c[rn]
                    row.update({col: f3(ci["ratio"]), col + "_lo": f3(ci["lo"]), col + "_hi": f3(ci["hi"]),
                                col + "_sd_log": f3(ci["sd"]), col + "_n": ci["n"]})
                for rn, col in (("pinned", "verdict_to_pinned"), ("hyb-pin", "verdict_to_hyb_pin")):
                    v = verdict(c[rn]) if m != rn and not m.endswith("-aa") else ""
                    row[col] = "unresolved (A/A)" if p["gate"] and v not in ("", "-") else v
                row.update({"verdict": c["verdict"], "verdict_without_aa": c["raw"],
                            "layout_aa": st_l[p["layout"]]["status"],
                            "point_aa": (p["own_aa"]["kind"] + " " + f3(p["own_aa"]["ratio"]) + " " + iv(p["own_aa"])) if p["own_aa"] else "",
                            "victim_irqcpu_per_s": "%.0f" % vic if vic == vic else "",
                            "victim_irqcpu_to_pinned": f3(vic / pv) if pv > 0 and vic == vic else "",
                            "thread_on_irqcpu_pct": med("thread_on_irqcpu_pct", "%.1f"),
                            "hard_pct": med("hard_pct", "%.1f"), "irqs_per_compl": med("irqs_per_compl", "%.3f"),
                            "handoffs_per_compl": med("handoffs_per_compl", "%.4f"),
                            "irqcpu_hardirq_pct": med("irqcpu_hardirq_pct", "%.1f"),
                            "max_hard_ms": "%.1f" % max(fnum(r.get("max_hard_ms")) for r in rs),
                            "lat_p50_us": med("lat_p50_us", "%.1f"), "lat_p99_us": med("lat_p99_us", "%.1f"),
                            "lockups": "%d" % sum(fnum(r.get("lockups"), 0) for r in rs),
                            "stalls": "%d" % sum(fnum(r.get("stalls"), 0) for r in rs),
                            "spurious": "%d" % sum(fnum(r.get("spurious"), 0) for r in rs)})
                rows.append(row)
    with open(os.path.join(out, "swamp.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "swamp-aa.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["boot", "layout", "ratio", "kind", "label", "n", "ratio_aa", "lo", "hi", "sd_log", "status"])
        for b in boots:
            for lay, st in b["layouts"].items():
                if st["kind"]:
                    ci = st["ci"]
                    w.writerow([b["name"], lay, "all", st["kind"], "", ci["n"], f3(ci["ratio"]), f3(ci["lo"]), f3(ci["hi"]),
                                f3(ci["sd"]), st["status"]])
                else:
                    w.writerow([b["name"], lay, "all", "", "", 0, "", "", "", "", st["status"]])
            for p in b["points"]:
                for a in (p["aa"], p["builtin"]):
                    if a:
                        w.writerow([b["name"], p["layout"], p["ratio"], a["kind"], a["label"], a["n"], f3(a["ratio"]),
                                    f3(a["lo"]), f3(a["hi"]), f3(a["sd"]), "includes 1" if includes_1(a) else "excludes 1"])
    with open(os.path.join(out, "swamp-boot.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        nk = ["ref_maxhard_med", "ref_maxhard_max", "ref_sd_log_median", "aa_sd_log", "builtin_sd_log"]
        w.writerow(["boot", "source", "runs", "rounds", "ref", "aa_arm"] + CAL_FIELDS + ["E_points"] + nk)
        for b in boots:
            w.writerow([b["name"], b["source"], len(b["runs"]), b["rounds"], ref, b["arm"] or ""] +
                       [b["cal"].get(k, "") for k in CAL_FIELDS] +
                       ["%.0f-%.0f" % b["E_points"] if b.get("E_points") else ""] + [f3(b["noise"][k]) for k in nk])
    if prow:
        with open(os.path.join(out, "swamp-pooled.csv"), "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["layout", "ratio", "mode", "ref", "boots", "ratio_to_ref", "lo", "hi", "sd_log_boot_means",
                        "verdict", "verdict_without_aa", "layout_aa", "per_boot"])
            for r in prow:
                w.writerow([r["layout"], r["ratio"], r["mode"], ref, r["boots"], f3(r["ci"]["ratio"]), f3(r["ci"]["lo"]),
                            f3(r["ci"]["hi"]), f3(r["ci"]["sd"]), r["verdict"], r["raw"], play[r["layout"]]["status"],
                            " ".join("%s:%s" % (n, f3(math.exp(m))) for n, m in r["per_boot"])])


def run(args, ref):
    out = None
    if len(args) >= 2 and os.path.isdir(args[-1]):
        out = args[-1]
        args = args[:-1]
    if not args:
        sys.exit(__doc__)
    boots = []
    for a in args:
        for b in load(a):
            if not b["runs"]:
                sys.exit("bench-swamp.py: no runs in %s" % a)
            if b.get("tap") and not b["cal"]:
                sys.exit("bench-swamp.py: no calibration in %s" % a)
            names = {x["name"] for x in boots}
            base, i = b["name"], 2
            while b["name"] in names:
                b["name"] = "%s#%d" % (base, i)
                i += 1
            boots.append(analyse(b, ref))
    verdicts = []
    for i, b in enumerate(boots):
        if i:
            print()
        print_boot(b, ref)
        v = issue40(b)
        if v:
            print("\nIssue 40's targets for hyb-move (t intervals):")
            print("\n".join(v))
            verdicts += (["== " + b["name"]] if len(boots) > 1 else []) + v
    prow, play = (None, None)
    if len(boots) > 1:
        prow, play = pooled(boots, ref)
        print()
        print_pooled(prow, play, boots, ref)
    if out:
        write_csvs(out, boots, ref, prow, play)
        with open(os.path.join(out, "swamp-verdict.txt"), "w") as fh:
            fh.write("\n".join(verdicts) + "\n")


# ---------------------------------------------------------------- self-test
def selftest():
    fails = []

    def ok(cond, text):
        print("%s %s" % ("ok  " if cond else "FAIL", text))
        if not cond:
            fails.append(text)
    # t quantiles against the tables (0.975, two-sided 95%)
    for df, want in ((1, 12.706205), (2, 4.302653), (4, 2.776445), (9, 2.262157), (29, 2.045230), (100, 1.983972)):
        got = t_quantile(0.975, df)
        ok(abs(got - want) < 1e-5, "t quantile 0.975, %d df: %.6f (table %.6f)" % (df, got, want))
    # n = 10, mean 0, sd 1: half-width 2.262157 / sqrt(10) = 0.715357
    raw = [0.3, -1.2, 0.8, 2.1, -0.4, 0.0, -1.7, 0.9, 0.5, -0.6]
    m, s = statistics.fmean(raw), statistics.stdev(raw)
    z = [(v - m) / s for v in raw]
    ci = tint(z)
    ok(abs(ci["half"] - 0.715357) < 1e-5 and abs(ci["lo"] - math.exp(-0.715357)) < 1e-5,
       "t interval n=10 mean 0 sd 1: half-width %.5f (want 0.71536), ratio interval %s" % (ci["half"], iv(ci)))
    # coverage under the null: an A/A of 10 rounds excludes 1 in ~5% of boots
    rng = random.Random(40)
    miss = sum(not includes_1(tint([rng.gauss(0, 0.1) for _ in range(10)])) for _ in range(4000))
    ok(0.035 <= miss / 4000 <= 0.065, "A/A of 10 normal rounds, 4000 simulated boots: %.1f%% exclude 1 (want ~5%%)" % (100 * miss / 4000))
    # verdicts
    for lo, hi, want in ((1.01, 1.3, "better"), (0.95, 1.2, "not worse"), (0.96, 0.99, "not worse"),
                         (0.80, 0.99, "worse"), (0.90, 1.10, "unresolved"), (0.949, 1.0, "unresolved")):
        ok(verdict({"lo": lo, "hi": hi}) == want, "verdict %.3f-%.3f: %s (want %s)" % (lo, hi, verdict({"lo": lo, "hi": hi}), want))

    # Synthetic boots: 10 rounds; the host's per-round level varies by 30%.
    wig = [0.02, -0.02, 0.035, -0.035, 0.01, -0.01, 0.025, -0.025, 0.0, 0.005]

    def boot(name, spec):
        b = new_boot(name, "synthetic")
        for (lay, ratio, mode), (fac, hp) in spec.items():
            for i in range(10):
                host = 1000 * (1 + 0.3 * math.sin(i))
                w = wig[(i * 3 + len(mode)) % 10] if fac != 1 else 0
                b["runs"].append({"layout": lay, "ratio": ratio, "mode": mode, "round": str(i + 1),
                                  "compl_per_s": "%.3f" % (host * fac * math.exp(w)), "hard_pct": str(hp)})
        return analyse(b, "hard")
    spec = {("L1", "1", "hard"): (1, 100), ("L1", "1", "hard-aa"): (0.9, 100), ("L1", "1", "hyb-move"): (1.3, 10),
            ("L1", "5", "hard"): (1, 100), ("L1", "5", "hard-aa"): (0.9, 100), ("L1", "5", "hyb-move"): (1.3, 10),
            ("L2", "1", "hard"): (1, 100), ("L2", "1", "hard-aa"): (1.0001, 100), ("L2", "1", "hyb-move"): (1.3, 10)}
    b = boot("aa-fails", spec)
    st = b["layouts"]["L1"]
    ok(st["ok"] is False and st["status"] == "A/A fails: unresolved",
       "A/A arm at 0.9x: L1 A/A %s (%s): '%s'" % (f3(st["ci"]["ratio"]), iv(st["ci"]), st["status"]))
    c = b["points"][0]["cells"]["hyb-move"]
    ok(c["raw"] == "better" and c["verdict"] == "unresolved (A/A)",
       "L1 C/E 1 hyb-move 1.3x (%s): '%s' without the A/A, '%s' with it" % (iv(c["ref"]), c["raw"], c["verdict"]))
    st2 = b["layouts"]["L2"]
    c2 = b["points"][2]["cells"]["hyb-move"]
    ok(st2["ok"] is True and c2["verdict"] == "better",
       "A/A arm at 1.0x: L2 A/A %s (%s) '%s', hyb-move '%s'" % (f3(st2["ci"]["ratio"]), iv(st2["ci"]), st2["status"], c2["verdict"]))
    b = boot("aa-point", {("L1", "1", "hard"): (1, 100), ("L1", "1", "hard-aa"): (0.85, 100), ("L1", "1", "hyb-move"): (1.3, 10),
                          ("L1", "5", "hard"): (1, 100), ("L1", "5", "hard-aa"): (1.18, 100), ("L1", "5", "hyb-move"): (1.3, 10)})
    st = b["layouts"]["L1"]
    ok(st["ok"] is True and all(p["gate"] == "A/A fails at this point: unresolved" for p in b["points"]),
       "A/A arm 0.85x at C/E 1 and 1.18x at 5: layout A/A %s (%s) '%s', each point '%s'" % (
           f3(st["ci"]["ratio"]), iv(st["ci"]), st["status"], b["points"][0]["gate"]))
    b = boot("no-aa", {("L1", "1", "hard"): (1, 100), ("L1", "1", "hyb-move"): (1.3, 10)})
    ok(b["layouts"]["L1"]["status"] == "no A/A arm in this boot" and b["points"][0]["cells"]["hyb-move"]["verdict"] == "better",
       "no arm, no built-in pair: '%s', verdict '%s'" % (b["layouts"]["L1"]["status"], b["points"][0]["cells"]["hyb-move"]["verdict"]))
    b = boot("built-in", {("L1", "15", "hard"): (1, 100), ("L1", "15", "hyb-pin"): (0.97, 100),
                          ("L1", "15", "hyb-move"): (0.97 * 0.9, 100), ("L1", "1", "hard"): (1, 100),
                          ("L1", "1", "hyb-pin"): (1.0, 95), ("L1", "1", "hyb-move"): (1.3, 10)})
    p15 = [p for p in b["points"] if p["ratio"] == "15"][0]
    p1 = [p for p in b["points"] if p["ratio"] == "1"][0]
    ok(p15["builtin"] is not None and p1["builtin"] is None and b["layouts"]["L1"]["kind"] == "built-in"
       and b["layouts"]["L1"]["ok"] is False and p1["cells"]["hyb-move"]["verdict"] == "unresolved (A/A)",
       "built-in A/A (hyb-move/hyb-pin, no overflow) at 0.9x gates L1: %s, '%s'" % (
           aa_text(p15["builtin"]), b["layouts"]["L1"]["status"]))
    # Pooled: two boots whose mean log-ratios are log 1.2 and log 1.4
    b1 = boot("b1", {("L1", "1", "hard"): (1, 100), ("L1", "1", "hyb-move"): (1.2, 10)})
    b2 = boot("b2", {("L1", "1", "hard"): (1, 100), ("L1", "1", "hyb-move"): (1.4, 10)})
    rows, _ = pooled([b1, b2], "hard")
    r = rows[0]
    m1, m2 = b1["points"][0]["cells"]["hyb-move"]["ref"]["mean"], b2["points"][0]["cells"]["hyb-move"]["ref"]["mean"]
    want_half = 12.706205 * abs(m1 - m2) / math.sqrt(2) / math.sqrt(2)
    ok(r["boots"] == 2 and abs(r["ci"]["mean"] - (m1 + m2) / 2) < 1e-12 and abs(r["ci"]["half"] - want_half) < 1e-5,
       "pooled over 2 boots: %s (%s), half-width %.4f on 1 df (want %.4f)" % (f3(r["ci"]["ratio"]), iv(r["ci"]), r["ci"]["half"], want_half))
    # Two boots that agree by chance: the within-boot noise is the floor
    v = [("x", math.log(1.2), 0.02 ** 2), ("y", math.log(1.2) + 1e-4, 0.02 ** 2)]
    ci = pool(v)
    want_half = 12.706205 * math.sqrt(2 * 0.02 ** 2) / 2
    ok(ci["floor"] and abs(ci["half"] - want_half) < 1e-5,
       "pooled, boot means 1e-4 apart, se 0.02 each: half-width %.4f from the within-boot noise (want %.4f)" % (ci["half"], want_half))
    print("selftest: %d failed" % len(fails))
    return 1 if fails else 0


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = sys.argv[1:]
    ref = "hard"
    if "--selftest" in args:
        sys.exit(selftest())
    if "--ref" in args:
        i = args.index("--ref")
        ref = args[i + 1]
        del args[i:i + 2]
    run(args, ref)


if __name__ == "__main__":
    main()
