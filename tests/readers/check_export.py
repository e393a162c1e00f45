#!/usr/bin/env python3
"""Checks of the readers' outputs for tests/readers/test_export.c.

  check_export.py counts GEN_COUNTS SUMMARY_JSON
      xentrace-summary --json gives, per CPU and event, the records that
      gen-trace -C says it wrote, and per CPU the records it lost.
  check_export.py xenalyze XENALYZE_SUMMARY SUMMARY_JSON
      per CPU, the bytes of each class but "gen" are those of xenalyze's
      "Log volume summary" (its "gen" also counts the padding).
  check_export.py chrome CHROME_JSON SUMMARY_JSON
      the file is JSON, with one named track per CPU of the summary, one
      instant event per record, and vCPU slices of positive duration.
  check_export.py svg SVG SUMMARY_JSON
      the SVG is well-formed XML with one polyline per CPU of the summary
      and one lost band per TRC_LOST_RECORDS.

Exits 0 if all holds, 1 with the first difference otherwise.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

# xentrace-ng's metadata: TRC_GEN + 0x10 .. 0x1f (docs/trace-format.md).
META_EVENTS = range(0x1f010, 0x1f020)
XENALYZE_CLASSES = ("sched", "hvm", "mem", "pv", "hw")


def fail(msg):
    print(msg)
    sys.exit(1)


def check_counts(gen_path, summary_path):
    want, want_lost = {}, {}
    with open(gen_path) as f:
        for line in f:
            cpu, event, count = line.split()
            if event == "lost":
                want_lost[int(cpu)] = int(count)
            else:
                want[(int(cpu), int(event, 16))] = int(count)
    summary = json.load(open(summary_path))
    got = {}
    for c in summary["cpus"]:
        for event, count in c["events"].items():
            if int(event, 16) not in META_EVENTS:
                got[(c["cpu"], int(event, 16))] = count
        if c["lost_records"] != want_lost.get(c["cpu"], 0):
            fail("cpu %d: lost %d, generated %d" %
                 (c["cpu"], c["lost_records"], want_lost.get(c["cpu"], 0)))
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:5]
        fail("per-CPU event counts differ, e.g. %s" % diff)
    total = sum(c["records"] for c in summary["cpus"])
    if total != summary["records"]:
        fail("records %d, sum over CPUs %d" % (summary["records"], total))


def xenalyze_volumes(path):
    """{cpu: {class: bytes}} from xenalyze --summary's log volume summary."""
    volumes, cpu = {}, None
    in_volume = False
    for line in open(path, errors="replace"):
        if line.startswith("--- Log volume summary"):
            in_volume = True
            continue
        if in_volume and line.startswith("---"):
            break
        if not in_volume:
            continue
        m = re.match(r"\s*- cpu (\d+) -", line)
        if m:
            cpu = int(m.group(1))
            volumes[cpu] = {}
            continue
        m = re.match(r"\s*(\w+)\s*:\s*(\d+)", line)
        if m and cpu is not None:
            volumes[cpu][m.group(1)] = int(m.group(2))
    return volumes


def check_xenalyze(xenalyze_path, summary_path):
    volumes = xenalyze_volumes(xenalyze_path)
    summary = json.load(open(summary_path))
    if not volumes:
        fail("no log volume summary in xenalyze's output")
    for c in summary["cpus"]:
        theirs = volumes.get(c["cpu"], {})
        for cls in XENALYZE_CLASSES:
            ours = c["classes"].get(cls, {}).get("bytes", 0)
            if ours != theirs.get(cls, 0):
                fail("cpu %d %s: %d bytes, xenalyze %d" %
                     (c["cpu"], cls, ours, theirs.get(cls, 0)))
    if set(volumes) != {c["cpu"] for c in summary["cpus"]}:
        fail("CPUs %s, xenalyze %s" %
             (sorted(c["cpu"] for c in summary["cpus"]), sorted(volumes)))


def check_chrome(path, summary_path):
    summary = json.load(open(summary_path))
    cpus = {c["cpu"] for c in summary["cpus"]}
    records = summary["records"]
    events = json.load(open(path))["traceEvents"]
    tracks = {e["tid"] for e in events
              if e["ph"] == "M" and e["name"] == "thread_name"}
    if tracks != cpus:
        fail("tracks %d, CPUs %d" % (len(tracks), len(cpus)))
    instants = [e for e in events if e["ph"] == "i"]
    if len(instants) != records:
        fail("instant events %d, records %d" % (len(instants), records))
    if {e["tid"] for e in instants} - tracks:
        fail("instant events on tracks that have no name")
    slices = [e for e in events if e["ph"] == "X"]
    if not slices or any(e["dur"] < 0 for e in slices):
        fail("%d vCPU slices, or one of negative duration" % len(slices))


def check_svg(path, summary_path):
    summary = json.load(open(summary_path))
    cpus = sorted(c["cpu"] for c in summary["cpus"])
    losses = sum(c["lost_markers"] for c in summary["cpus"])
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    series = [p.get("data-cpu") for p in root.iter(ns + "polyline")]
    if sorted(map(int, series)) != cpus:
        fail("%d series for %d CPUs" % (len(series), len(cpus)))
    bands = [r for r in root.iter(ns + "rect") if r.get("class") == "lost"]
    if len(bands) != losses:
        fail("%d lost bands, %d losses" % (len(bands), losses))


def main():
    what, args = sys.argv[1], sys.argv[2:]
    if what == "counts":
        check_counts(*args)
    elif what == "xenalyze":
        check_xenalyze(*args)
    elif what == "chrome":
        check_chrome(*args)
    elif what == "svg":
        check_svg(*args)
    else:
        fail("unknown check: " + what)


if __name__ == "__main__":
    main()
