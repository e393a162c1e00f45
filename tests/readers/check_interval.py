#!/usr/bin/env python3
"""xentrace-summary --interval against --from/--to and the whole trace.

  check_interval.py window SUMMARY FILE SECONDS [lossy]
      Every interval of --json --interval SECONDS reports what --from
      tsc:A --to tsc:B of its bounds reports (no --to for the last): every
      figure on a loss-free file; on a lossy one all but what a later
      record re-tells (docs/reading-traces.md, "Intervals"): the
      runstates, placement, waits and runstate intervals, migrations, the
      domains' concurrency, the
      time exits were halted and what follows from it (their time in Xen,
      its shares, mean and percentiles, and so their order), and the
      unplaced counts, which a window takes from the whole file.
  check_interval.py sum SUMMARY FILE SECONDS [lossy]
      The intervals tile the span, and their counts (runstate intervals,
      exits, VMCALLs, I/O, MMIO, injections, hypercalls, PV events, the
      guests' own records, memory operations and PoD, pCPU placement,
      waits, whole running, blocked and offline intervals, migrations,
      domains' concurrency, vectors, IRQs, C-states, losses, pCPUs'
      running and idle time and switches, unplaced) sum to the whole
      trace's exactly, and so do the cycles of
      each, and of each runstate; on a lossy file, each vCPU's runstate
      cycles summed over its states.
  check_interval.py csv SUMMARY FILE SECONDS
      --csv: a header, then one row per vCPU per interval and per vCPU for
      "all", each with the header's columns, whose figures are the JSON's.

Prints what differs and exits 1, or exits 0.
"""
import collections
import csv
import json
import subprocess
import sys


def summary(prog, *args):
    out = subprocess.run([prog] + list(args), capture_output=True, text=True)
    if out.returncode:
        sys.exit("%s %s: status %d: %s" % (prog, " ".join(args),
                                           out.returncode, out.stderr))
    return out.stdout


def intervals(prog, path, seconds, *extra):
    lines = summary(prog, "--json", "--interval", seconds, *extra,
                    path).splitlines()
    return [json.loads(l) for l in lines[:-1]], json.loads(lines[-1])


# What a later record re-tells: not compared on a lossy file.  An exit's
# time halted is the time its vCPU was blocked, a runstate: with it, what
# is Xen's, its share of the span, and the cycles' mean and percentiles.
RETOLD = {"runstates", "before_first_run", "at_end", "latency",
          "intervals", "pcpus", "concurrency",
          "migrations", "share_running", "halted_cycles", "in_xen_seconds",
          "share_span", "mean_cycles", "p50_cycles", "p90_cycles",
          "p99_cycles", "max_cycles"}


def by_name(o):
    """The model's members, vCPUs and domains by name, pCPUs by number."""
    return {
        "span_cycles": o["span_cycles"],
        "domains": {d["name"]: d for d in o["domains"]},
        "vcpus": {v["name"]: v for v in o["vcpus"]},
        "pcpus": {p["cpu"]: p for p in o["pcpus"]},
        "unplaced": o["unplaced"],
    }


def diff(a, b, path, skip):
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k in skip:
                continue
            if k not in a or k not in b:
                out.append("%s/%s: in one only" % (path, k))
            else:
                out += diff(a[k], b[k], "%s/%s" % (path, k), skip)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return ["%s: %d entries, %d" % (path, len(a), len(b))]
        # Tables sorted by a re-told figure (exits, by Xen's time): by name.
        if "halted_cycles" in skip and all("name" in e for e in a + b):
            a = sorted(a, key=lambda e: e["name"])
            b = sorted(b, key=lambda e: e["name"])
        return [x for i, (p, q) in enumerate(zip(a, b))
                for x in diff(p, q, "%s[%d]" % (path, i), skip)]
    return [] if a == b else ["%s: %r, %r" % (path, a, b)]


def check_window(prog, path, seconds, lossy):
    ivs, _ = intervals(prog, path, seconds)
    bad = []
    for n, iv in enumerate(ivs):
        i = iv["interval"]
        win = ["--from", "tsc:%d" % i["from_tsc"]]
        if n + 1 < len(ivs):
            win += ["--to", "tsc:%d" % i["to_tsc"]]
        w = json.loads(summary(prog, "--json", *win, path))
        a, b = by_name(iv), by_name(w)
        skip = RETOLD | {"unplaced"} if lossy else set()
        if lossy:
            # A vCPU first seen after a cut is listed by the window alone.
            for m in ("domains", "vcpus"):
                for k in set(a[m]) ^ set(b[m]):
                    a[m].pop(k, None)
                    b[m].pop(k, None)
        bad += ["interval %d: %s" % (i["index"], d)
                for d in diff(a, b, "", skip)]
    return bad, len(ivs)


def counts(o):
    t = collections.Counter()
    for v in o["vcpus"]:
        who = v["name"]
        for s, x in v["runstates"].items():
            t[who, "runstates", s, "count"] += x["count"]
            t[who, "runstates", s, "cycles"] += x["cycles"]
            t[who, "runstates", "all", "cycles"] += (
                x["cycles"] if s not in ("woken", "preempted") else 0)
        for tab in ("exits", "vmcalls", "io", "mmio", "injected",
                    "cr_writes", "exceptions", "extints", "to_halt",
                    "hypercalls",
                    "subcalls", "pv", "guest", "pcpus", "mem", "pod"):
            for e in v[tab]:
                k = e.get("key", e.get("reason"))
                t[who, tab, k, "count"] += e["count"]
                t[who, tab, k, "cycles"] += e["cycles"]
        for c in ("woken", "preempted"):
            t[who, "latency", c, "count"] += v["latency"][c]["count"]
        for s, x in v["intervals"].items():
            t[who, "intervals", s, "count"] += x["count"]
        t[who, "migrations"] += v["migrations"]
    for d in o["domains"]:
        for s, x in d["concurrency"].items():
            t[d["name"], "concurrency", s, "count"] += x["count"]
            t[d["name"], "concurrency", s, "cycles"] += x["cycles"]
        for e in d["mem_for"]:
            t[d["name"], "mem_for", e["key"], "count"] += e["count"]
    for p in o["pcpus"]:
        for k in ("gaps", "records"):
            t[p["cpu"], "lost", k] += p["lost"][k]
        for k in ("running", "idle"):
            t[p["cpu"], k, "count"] += p[k]["count"]
            t[p["cpu"], k, "cycles"] += p[k]["cycles"]
        for k in ("switches_from_running", "switches_from_idle"):
            t[p["cpu"], k] += p[k]
        for tab in ("vectors", "irqs", "cstates"):
            for e in p[tab]:
                t[p["cpu"], tab, e["key"], "count"] += e["count"]
                t[p["cpu"], tab, e["key"], "cycles"] += e["cycles"]
    for k, x in o["unplaced"].items():
        t["unplaced", k] += x
    t["span_cycles"] += o["span_cycles"]
    return t


def retold(key, lossy):
    """Cycles of one runstate (or placement, or a pCPU's running or idle
    time) on a lossy file."""
    return lossy and key[-1] == "cycles" and (
        (len(key) == 4 and key[1] in ("runstates", "pcpus") and
         key[2] != "all") or
        (len(key) == 3 and key[1] in ("running", "idle")))


def check_sum(prog, path, seconds, lossy):
    ivs, whole = intervals(prog, path, seconds)
    bad = []
    for p, q in zip(ivs, ivs[1:]):
        if p["interval"]["to_tsc"] != q["interval"]["from_tsc"]:
            bad.append("interval %d does not end where %d starts" %
                       (p["interval"]["index"], q["interval"]["index"]))
        if q["interval"]["index"] != p["interval"]["index"] + 1:
            bad.append("interval %d follows %d" % (q["interval"]["index"],
                                                   p["interval"]["index"]))
    total = collections.Counter()
    for iv in ivs:
        total.update(counts(iv))
    want = counts(whole)
    if sum(iv["interval"]["records"] for iv in ivs) != whole["records"]:
        bad.append("records: %d in the intervals, %d" % (
            sum(iv["interval"]["records"] for iv in ivs), whole["records"]))
    for k in sorted(set(total) | set(want), key=str):
        if total[k] != want[k] and not retold(k, lossy):
            bad.append("%s: %d in the intervals, %d in the whole" %
                       (k, total[k], want[k]))
    return bad, len(ivs)


COLUMNS = ["interval", "from_seconds", "to_seconds", "domain", "vcpu",
           "running_seconds", "runnable_seconds", "blocked_seconds",
           "offline_seconds", "lost_seconds", "unknown_seconds", "waits",
           "wait_p50_us", "wait_p99_us", "migrations", "exits",
           "exit_seconds", "vmcalls", "hypercalls", "injected", "traps",
           "trap_seconds"]


def check_csv(prog, path, seconds):
    ivs, whole = intervals(prog, path, seconds)
    rows = list(csv.reader(summary(prog, "--csv", "--interval", seconds,
                                   path).splitlines()))
    bad = []
    if rows[0] != COLUMNS:
        bad.append("header: %s" % rows[0])
    want = []
    for o, label in [(iv, str(iv["interval"]["index"])) for iv in ivs] + \
                    [(whole, "all")]:
        for v in sorted(o["vcpus"], key=lambda v: (v["domain"], v["vcpu"])):
            want.append((label, v["domain"], v["vcpu"],
                         sum(e["count"] for e in v["exits"]),
                         sum(e["count"] for e in v["hypercalls"]),
                         sum(e["count"] for e in v["injected"]),
                         v["runstates"]["running"]["cycles"]))
    got = []
    for r in rows[1:]:
        if len(r) != len(COLUMNS):
            bad.append("row of %d columns: %s" % (len(r), r))
            continue
        got.append((r[0], int(r[3]), int(r[4]), int(r[15]), int(r[18]),
                    int(r[19]), float(r[5])))
    if len(got) != len(want):
        bad.append("%d rows, %d vCPUs in the intervals and the whole" %
                   (len(got), len(want)))
    hz = whole["tsc_hz"]
    for g, w in zip(got, want):
        if g[:6] != w[:6] or abs(g[6] - w[6] / hz) > 1e-9:
            bad.append("row %s, JSON %s" % (g, w))
    return bad, len(ivs)


def main():
    what, prog, path, seconds = sys.argv[1:5]
    lossy = sys.argv[5:] == ["lossy"]
    if what == "window":
        bad, n = check_window(prog, path, seconds, lossy)
    elif what == "sum":
        bad, n = check_sum(prog, path, seconds, lossy)
    else:
        bad, n = check_csv(prog, path, seconds)
    for b in bad[:40]:
        print(b)
    if n < 3:
        bad.append("only %d intervals" % n)
        print(bad[-1])
    print("%s: %d intervals, %d differences" % (what, n, len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
