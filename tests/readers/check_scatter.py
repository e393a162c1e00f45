#!/usr/bin/env python3
"""xentrace-plot --scatter's picture and CSV against the summary's figures.

  check_scatter.py KIND SVG CSV SUMMARY_JSON

SVG and CSV are `xentrace-plot --scatter KIND` without and with --csv,
SUMMARY_JSON `xentrace-summary --json` of the same trace.  Every point
the plot draws is one the summary counts, and the CSV has each:

  exits     per exit reason, the CSV's exits are the summary's (summed
            over the vCPUs), their mean time in Xen its mean; per vCPU,
            its external-interrupt exits by vector are the summary's;
  waits     per vCPU (idle ones aside), its waits woken and preempted,
            their total time the summary's;
  to-halt   per vCPU, its "wake to halt any" and "intr to halt" counts and
            time;
  irq       per pCPU, its IRQs by number;
  runstate  per vCPU and state, the CSV's intervals add up to the
            summary's time in that state;
  pcpu      per pCPU, the CSV's vCPU intervals add up to its time running
            guests and running idle.

For a point kind, each plot of the SVG holds the points its data-points
says, its cells' data-count summed, and a series the CSV's lines of that
series; the plots together hold every CSV line.  For a lane kind, each
lane drawn is a vCPU or pCPU of the CSV, and its cells' series are in
the legend.

Exits 0 if all holds, 1 with the differences otherwise.
"""
import csv
import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

from checks import agree, fail, report

NS = "{http://www.w3.org/2000/svg}"
IDLE = 32767



def same(what, ours, theirs, tolerance=0.0):
    agree()
    if abs(ours - theirs) > tolerance:
        fail("%s: plot %s, summary %s" % (what, ours, theirs))


def domain_of(vcpu):
    """d1v0 -> 1; idle-v3 -> the idle domain."""
    if vcpu.startswith("idle"):
        return IDLE
    return int(vcpu[1:vcpu.index("v")])


def check_exits(rows, summary):
    count, us = Counter(), defaultdict(float)
    for r in rows:
        count[r["reason"]] += 1
        us[r["reason"]] += float(r["us"])
    theirs, in_xen = Counter(), defaultdict(float)
    for v in summary["vcpus"]:
        for e in v["exits"]:
            theirs[e["name"]] += e["count"]
            in_xen[e["name"]] += e["in_xen_seconds"] * 1e6
    if not theirs:
        fail("no exits in the summary")
    for name in set(count) | set(theirs):
        same("exits %s" % name, count[name], theirs[name])
        # Each line's time is rounded to the nanosecond.
        same("exits %s in Xen, us" % name, us[name], in_xen[name],
             0.0005 * count[name] + 1e-3)
    check_vectors(rows, summary)
    return lambda r: r["reason"]


def check_vectors(rows, summary):
    """Each vCPU's exits with a vector are its extints, by vector."""
    ours = Counter((r["vcpu"], int(r["vector"], 16))
                   for r in rows if r["vector"])
    theirs = Counter()
    for v in summary["vcpus"]:
        for e in v.get("extints", []):
            theirs[(v["name"], e["key"])] += e["count"]
    if any(r["reason"] == "EXTERNAL_INTERRUPT" for r in rows) and not ours:
        fail("external interrupts without a vector")
    for key in set(ours) | set(theirs):
        same("%s external interrupts, vector 0x%02x" % key, ours[key],
             theirs[key])


def check_waits(rows, summary):
    count, us = Counter(), defaultdict(float)
    for r in rows:
        count[r["vcpu"]] += 1
        us[r["vcpu"]] += float(r["us"])
    for v in summary["vcpus"]:
        if v["domain"] == IDLE:
            continue
        lat = [v["latency"][c] for c in ("woken", "preempted")]
        n = sum(c["count"] for c in lat)
        same("%s waits" % v["name"], count.pop(v["name"], 0), n)
        same("%s waits, us" % v["name"], us.pop(v["name"], 0.0),
             sum(c["mean_us"] * c["count"] for c in lat),
             0.0005 * n + 0.001 * n)
    for name in count:
        fail("%s: waits in the plot only" % name)
    return lambda r: domain_of(r["vcpu"])


def check_to_halt(rows, summary):
    count, us = Counter(), defaultdict(float)
    for r in rows:
        count[r["vcpu"]] += 1
        us[r["vcpu"]] += float(r["us"])
    for v in summary["vcpus"]:
        booked = [e for e in v["to_halt"]
                  if e["name"].endswith((" wake to halt any",
                                         " intr to halt"))]
        n = sum(e["count"] for e in booked)
        same("%s to halt" % v["name"], count.pop(v["name"], 0), n)
        same("%s to halt, us" % v["name"], us.pop(v["name"], 0.0),
             sum(e["seconds"] for e in booked) * 1e6, 0.0005 * n + 1e-3)
    for name in count:
        fail("%s: to-halt in the plot only" % name)
    return lambda r: domain_of(r["vcpu"])


def check_irq(rows, summary):
    count = Counter((int(r["pcpu"]), int(r["irq"])) for r in rows)
    theirs = Counter()
    for p in summary["pcpus"]:
        for e in p["irqs"]:
            theirs[(p["cpu"], e["key"])] += e["count"]
    for key in set(count) | set(theirs):
        same("cpu%d IRQ %d" % key, count[key], theirs[key])
    return lambda r: "cpu" + r["pcpu"]


def check_runstate(rows, summary):
    time, lines = defaultdict(float), Counter()
    for r in rows:
        time[(r["vcpu"], r["state"])] += (float(r["to_seconds"]) -
                                          float(r["from_seconds"]))
        lines[r["vcpu"]] += 1
    for v in summary["vcpus"]:
        for state in ("running", "runnable", "blocked", "offline", "lost",
                      "unknown"):
            same("%s %s seconds" % (v["name"], state),
                 time.pop((v["name"], state), 0.0),
                 v["runstates"][state]["seconds"],
                 2e-9 * lines[v["name"]] + 2e-9)
    for key in time:
        fail("%s %s: in the plot only" % key)


def check_pcpu(rows, summary):
    time, lines = defaultdict(float), Counter()
    for r in rows:
        if r["vcpu"] != "lost":
            time[int(r["pcpu"])] += (float(r["to_seconds"]) -
                                     float(r["from_seconds"]))
            lines[int(r["pcpu"])] += 1
    for p in summary["pcpus"]:
        same("cpu%d running and idle seconds" % p["cpu"],
             time.pop(p["cpu"], 0.0),
             p["running"]["seconds"] + p["idle"]["seconds"],
             2e-9 * lines[p["cpu"]] + 2e-9)
    for cpu in time:
        fail("cpu%d: in the plot only" % cpu)


POINTS = {"exits": check_exits, "waits": check_waits,
          "to-halt": check_to_halt, "irq": check_irq}
LANES = {"runstate": check_runstate, "pcpu": check_pcpu}


def series_names(summary):
    """The plot's name of each domain id: the summary's."""
    return {d["domain"]: d["name"] for d in summary["domains"]}


def check_point_svg(root, rows, series_of, summary):
    plots = [g for g in root.iter(NS + "g") if g.get("class") == "series"]
    if rows and not plots:
        fail("no plot for %d points" % len(rows))
    names = series_names(summary)
    per_series = Counter()
    for r in rows:
        key = series_of(r)
        per_series[names.get(key, key) if isinstance(key, int) else key] += 1
    drawn = 0
    for g in plots:
        points = int(g.get("data-points"))
        cells = sum(int(r.get("data-count")) for r in g.iter(NS + "rect"))
        same("plot %s: cells" % g.get("data-series"), cells, points)
        if g.get("data-series") != "other":
            same("plot %s: points" % g.get("data-series"), points,
                 per_series[g.get("data-series")])
        drawn += points
    same("points drawn", drawn, len(rows))


def check_lane_svg(root, rows, kind):
    legend = {t.text for g in root.iter(NS + "g")
              if g.get("class") == "legend" for t in g.iter(NS + "text")}
    column = "vcpu" if kind == "runstate" else "pcpu"
    who = {r[column] if kind == "runstate" else "cpu" + r["pcpu"]
           for r in rows}
    lanes = [g for g in root.iter(NS + "g") if g.get("class") == "lane"]
    if rows and not lanes:
        fail("no lane for %d intervals" % len(rows))
    for g in lanes:
        agree()
        if g.get("data-lane") not in who:
            fail("lane %s is not in the CSV" % g.get("data-lane"))
        for r in g.iter(NS + "rect"):
            if r.get("data-series") not in legend:
                fail("lane %s: %s is not in the legend" % (
                    g.get("data-lane"), r.get("data-series")))


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in list(POINTS) + list(LANES):
        print(__doc__)
        sys.exit(1)
    kind, svg, table, summary_path = sys.argv[1:]
    summary = json.load(open(summary_path))
    rows = list(csv.DictReader(open(table)))
    root = ET.parse(svg).getroot()
    if kind in POINTS:
        series_of = POINTS[kind](rows, summary)
        check_point_svg(root, rows, series_of, summary)
    else:
        LANES[kind](rows, summary)
        check_lane_svg(root, rows, kind)
    report("%s: %d points or intervals, %%d figures agree" % (kind,
                                                              len(rows)))


if __name__ == "__main__":
    main()
