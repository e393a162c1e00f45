#!/usr/bin/env python3
"""Checks of the readers' outputs for tests/readers/test_export.c.

  check_export.py counts GEN_COUNTS SUMMARY_JSON
      xentrace-summary --json gives, per CPU and event, the records that
      gen-trace -C says it wrote, and per CPU the records it lost.
  check_export.py xenalyze XENALYZE_SUMMARY SUMMARY_JSON
      per CPU, the bytes of each class but "gen" are those of xenalyze's
      "Log volume summary" (its "gen" also counts the padding).
  check_export.py chrome CHROME_JSON SUMMARY_JSON [DOMAIN]
      the file is JSON: every event on a thread and in a process named
      before it (only DOMAIN's and Xen's with --domain), fewer instants
      than records, vCPU runs, and a slice per loss of the summary's.
  check_export.py chrome-records CHROME_JSON SUMMARY_JSON
      with --records, one instant with arguments per record.
  check_export.py ctf-times BABELTRACE_OUT DUMP_S_OUT
      babeltrace2 --clock-seconds's times are xentrace-dump -s's, from the
      wall clock of the capture's start in its header.
  check_export.py carried SUMMARY_JSON
      prints the records the exports carry: the summary's (Xen's) and
      the metadata records, which its event table lists.
  check_export.py svg SVG SUMMARY_JSON
      the SVG is well-formed XML with one polyline per CPU of the summary
      and one lost band per TRC_LOST_RECORDS.

Exits 0 if all holds, 1 with the first difference otherwise.
"""
import datetime
import json
import re
import sys
import xml.etree.ElementTree as ET

XEN_PID = 0x7FFF0000
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
    # By design: xenalyze takes dom0's lanes (xentrace --dom0) for pCPUs
    # that run nothing, their records for TRC_GEN ones it does not know.
    dom0 = summary["dom0"]
    lanes = {dom0["first_lane"] + c["cpu"] for c in dom0["cpus"]} \
        if dom0 else set()
    if set(volumes) - lanes != {c["cpu"] for c in summary["cpus"]}:
        fail("CPUs %s, xenalyze %s" %
             (sorted(c["cpu"] for c in summary["cpus"]), sorted(volumes)))


def carried(summary):
    """The records an export carries: Xen's (the summary's "records",
    docs/trace-format.md) and xentrace-ng's metadata records."""
    return summary["records"] + sum(e["records"] for e in summary["events"]
                                    if int(e["id"], 16) in META_EVENTS)


def check_chrome(path, summary_path, domain=None):
    """The structure of the Perfetto export (perfetto.c) in Chrome's
    terms: threads named before use, vCPU threads in their domain's
    process, no instant per record, a slice per loss."""
    summary = json.load(open(summary_path))
    records = carried(summary)
    losses = sum(c["lost_markers"] for c in summary["cpus"])
    lost = sum(c["lost_records"] for c in summary["cpus"])
    events = json.load(open(path))["traceEvents"]
    threads, processes = set(), set()
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            threads.add((e["pid"], e["tid"]))
        elif e["ph"] == "M" and e["name"] == "process_name":
            processes.add(e["pid"])
        elif e["ph"] in "Xi":
            if (e["pid"], e["tid"]) not in threads:
                fail("%s event on thread %d/%d before its name"
                     % (e["name"], e["pid"], e["tid"]))
            if e["pid"] not in processes:
                fail("event in process %d before its name" % e["pid"])
            if domain is not None and e["pid"] not in (XEN_PID,
                                                       (domain + 1) << 16):
                fail("event of pid %d with --domain %d" % (e["pid"], domain))
    instants = [e for e in events if e["ph"] == "i"]
    if len(instants) >= records:
        fail("instant events %d, records %d" % (len(instants), records))
    slices = [e for e in events if e["ph"] == "X"]
    if not slices or any(e["dur"] < 0 for e in slices):
        fail("%d slices, or one of negative duration" % len(slices))
    if not any(e["cat"] == "sched" for e in slices):
        fail("no vCPU runs")
    gaps = [e for e in slices if e["name"].startswith("lost ")]
    if domain is None and (len(gaps) != losses or
                           sum(e["args"]["count"] for e in gaps) != lost):
        fail("%d loss slices of %d records, %d losses of %d"
             % (len(gaps), sum(e["args"]["count"] for e in gaps), losses,
                lost))


def check_chrome_records(path, summary_path):
    """With --records: an instant with its fields per record the summary
    counts, on its pCPU's thread."""
    records = carried(json.load(open(summary_path)))
    events = json.load(open(path))["traceEvents"]
    got = [e for e in events if e["ph"] == "i" and e["pid"] == XEN_PID and
           "args" in e]
    if len(got) != records:
        fail("%d record instants, %d records" % (len(got), records))


def check_ctf_times(bt_path, dump_path):
    """babeltrace2 --clock-seconds puts every record at the wall-clock
    time of the capture's start plus its xentrace-dump -s seconds (to the
    nanosecond)."""
    start = None
    dump = []
    with open(dump_path) as f:
        for line in f:
            if line.startswith("# started "):
                w = line.split()
                when = datetime.datetime.strptime(
                    w[2] + " " + w[3].split(".")[0], "%Y-%m-%d %H:%M:%S")
                sec = int(when.replace(tzinfo=datetime.timezone.utc)
                          .timestamp())
                start = sec * 10**9 + int(w[3].split(".")[1])
            elif not line.startswith("#"):
                s, _, ns = line.split()[0].lstrip("-").partition(".")
                t = int(s) * 10**9 + int(ns)
                dump.append(start - t if line.lstrip().startswith("-")
                            else start + t)
    bt = []
    with open(bt_path) as f:
        for line in f:
            s, _, ns = line[1:line.index("]")].partition(".")
            bt.append(int(s) * 10**9 + int(ns))
    # Within a nanosecond: CTF's clock offset is in ticks, and the wall
    # clock of TSC 0 need not be a whole number of them.
    diff = [(a, b) for a, b in zip(sorted(bt), sorted(dump)) if abs(a - b) > 1]
    if start is None or len(bt) != len(dump) or diff:
        fail("CTF times differ from the dump's: %d of %d, first %s"
             % (len(diff), len(bt), diff[:1]))


def check_svg(path, summary_path):
    summary = json.load(open(summary_path))
    cpus = sorted(c["cpu"] for c in summary["cpus"])
    losses = sum(c["lost_markers"] for c in summary["cpus"])
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    series = [p.get("data-cpu") for p in root.iter(ns + "polyline")]
    if sorted(map(int, series)) != cpus:
        fail("%d series for %d CPUs" % (len(series), len(cpus)))
    # A band per time bin with losses; each says how many markers touch it.
    bands = [r for r in root.iter(ns + "rect") if r.get("class") == "lost"]
    if losses and not bands:
        fail("no lost band for %d losses" % losses)
    if max([int(r.get("data-markers")) for r in bands] or [0]) > losses:
        fail("a band with more markers than the %d losses" % losses)


def main():
    what, args = sys.argv[1], sys.argv[2:]
    if what == "counts":
        check_counts(*args)
    elif what == "xenalyze":
        check_xenalyze(*args)
    elif what == "chrome-records":
        check_chrome_records(*args)
    elif what == "ctf-times":
        check_ctf_times(*args)
    elif what == "chrome":
        check_chrome(args[0], args[1], int(args[2]) if len(args) > 2 else None)
    elif what == "carried":
        print(carried(json.load(open(args[0]))))
    elif what == "svg":
        check_svg(*args)
    else:
        fail("unknown check: " + what)


if __name__ == "__main__":
    main()
