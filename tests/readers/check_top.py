#!/usr/bin/env python3
"""xentrace-top --json against xentrace-summary --json, interval by interval.

    check_top.py SUMMARY TRACE TOP.jsonl [lossy]
    check_top.py screen COLUMN SCREEN

For each interval xentrace-top printed, runs xentrace-summary --json
--from tsc:FROM --to tsc:TO on the same trace and checks that the counts
are the same, exactly: per domain and per vCPU the runstate cycles, the
runnable waits, exits by reason (count and cycles), hypercalls (PV
hypercalls and HVM VMCALLs) by op, interrupts injected; per pCPU the
records lost.  On a lossy trace, not the runstates and waits: a loss's
marker re-tells what came before it, which a window (it reads on) learns
and an interval (cut as it closes) cannot (docs/reading-traces.md,
"Intervals").  Then that the intervals tile the trace, and that their
counts add up to the whole trace's summary, exactly: every vCPU's time
over its states, exits, hypercalls, injections, waits, losses.  A vCPU
first seen after an interval's end is not in that interval, where the
window has it unknown and nothing else (docs/reading-traces.md,
"Intervals"): that time is taken off its domain's row and added to its
sum over the intervals.  Prints one line per disagreement and exits 1 if
any.

The second form reads a screen of xentrace-top captured by tmux and checks
that its domains (idle aside, which is always last) are in the order of
COLUMN, the largest first.
"""
import json
import subprocess
import sys

STATES = ("running", "runnable", "blocked", "offline", "lost", "unknown")


def by_key(entries, key):
    """count and cycles per key of a summary table, summed."""
    out = {}
    for e in entries:
        c = out.setdefault(e[key], [0, 0])
        c[0] += e["count"]
        c[1] += e["cycles"]
    return out


def who(row):
    return "d%d" % row["domain"] + ("v%d" % row["vcpu"] if "vcpu" in row
                                    else "")


def check_row(bad, iv, top, summ, lossy):
    name = "interval %d %s" % (iv, who(top))
    for s in STATES if not lossy else ():
        if top["runstate_cycles"][s] != summ["runstates"][s]["cycles"]:
            bad.append("%s %s: %d cycles, the summary %d" %
                       (name, s, top["runstate_cycles"][s],
                        summ["runstates"][s]["cycles"]))
    waits = sum(summ["latency"][c]["count"] for c in ("woken", "preempted"))
    if not lossy and top["wait"]["count"] != waits:
        bad.append("%s waits: %d, the summary %d" %
                   (name, top["wait"]["count"], waits))
    tables = (
        ("exits", by_key(summ["exits"], "reason")),
        ("hypercalls", by_key(summ["hypercalls"] + summ["vmcalls"], "key")),
        ("injected", by_key(summ["injected"], "key")),
    )
    for member, want in tables:
        total = sum(c for c, _ in want.values())
        if top[member]["count"] != total:
            bad.append("%s %s: %d, the summary %d" %
                       (name, member, top[member]["count"], total))
        got = {}
        for e in top[member]["top"]:
            c = got.setdefault(e["key"], [0, 0])
            c[0] += e["count"]
            c[1] += e["cycles"]
            if member == "exits" and e["count"] and \
               e["max_cycles"] * e["count"] < e["cycles"] - e["halted_cycles"]:
                bad.append("%s exit %s: max below the mean" %
                           (name, e["name"]))
        for k, c in got.items():
            if want.get(k) != c:
                bad.append("%s %s %d: %s, the summary %s" %
                           (name, member, k, c, want.get(k)))


def check_screen(column, path):
    lines = open(path).read().split("\n")
    head = [i for i, l in enumerate(lines) if l.startswith("NAME ")]
    if not head:
        print("no table head on the screen")
        sys.exit(1)
    names = lines[head[0]].split()
    col = names.index(column)
    # A row's name may hold blanks, "d3 (db-01)": the figures start where
    # the head's second column does.
    start = lines[head[0]].index(names[1])
    values = []
    for l in lines[head[0] + 1:]:
        if not l.startswith("d"):
            if l.startswith("idle") or not l.strip():
                break
            continue                    # a vCPU of the domain above
        values.append(float(l[start:].split()[col - 1].rstrip("us")))
    if len(values) < 2 or values != sorted(values, reverse=True):
        print("not by %s: %s" % (column, values))
        sys.exit(1)
    sys.exit(0)


def unseen_rows(summ, top):
    """The summary's vCPUs that the interval does not list, and may not:
    unknown all the window, with no count.  {(domain, vcpu): cycles}."""
    listed = {(v["domain"], v["vcpu"]) for v in top["vcpus"]}
    out = {}
    for v in summ["vcpus"]:
        key = (v["domain"], v["vcpu"])
        known = sum(v["runstates"][s]["cycles"] for s in STATES
                    if s != "unknown")
        counted = sum(len(v[t]) for t in ("exits", "hypercalls", "vmcalls",
                                          "injected"))
        if key not in listed and not known and not counted:
            out[key] = v["runstates"]["unknown"]["cycles"]
    return out


def without_unseen(row, unseen):
    """A summary domain row less its unseen vCPUs' unknown time."""
    less = sum(c for (d, _), c in unseen.items() if d == row["domain"])
    if not less or "vcpu" in row:
        return row
    row = json.loads(json.dumps(row))
    row["runstates"]["unknown"]["cycles"] -= less
    return row


def check_sum(bad, summary, trace, tops, unseen):
    """The intervals tile the trace and add up to the whole summary."""
    whole = json.loads(subprocess.run(
        [summary, "--json", trace], check=True, capture_output=True,
        text=True).stdout)
    for a, b in zip(tops, tops[1:]):
        if a["to_tsc"] != b["from_tsc"]:
            bad.append("interval %d ends at %d, the next starts at %d" %
                       (a["interval"], a["to_tsc"], b["from_tsc"]))
    if tops[-1]["to_tsc"] - tops[0]["from_tsc"] != whole["span_cycles"] + 1:
        bad.append("the intervals span %d cycles, the trace %d + 1" %
                   (tops[-1]["to_tsc"] - tops[0]["from_tsc"],
                    whole["span_cycles"]))
    sums = {k: [c, 0, 0, 0, 0] for k, c in unseen.items()}
    for top in tops:
        for row in top["vcpus"]:
            c = sums.setdefault((row["domain"], row["vcpu"]), [0] * 5)
            c[0] += sum(row["runstate_cycles"].values())
            c[1] += row["exits"]["count"]
            c[2] += row["hypercalls"]["count"]
            c[3] += row["injected"]["count"]
            c[4] += row["wait"]["count"]
    for v in whole["vcpus"]:
        want = [sum(v["runstates"][s]["cycles"] for s in STATES),
                sum(e["count"] for e in v["exits"]),
                sum(e["count"] for e in v["hypercalls"] + v["vmcalls"]),
                sum(e["count"] for e in v["injected"]),
                sum(v["latency"][c]["count"] for c in ("woken", "preempted"))]
        got = sums.pop((v["domain"], v["vcpu"]), None)
        if got != want:
            bad.append("d%dv%d summed over the intervals: %s, the whole %s "
                       "(time, exits, hypercalls, injected, waits)" %
                       (v["domain"], v["vcpu"], got, want))
    for k in sums:
        bad.append("d%dv%d: only in the intervals" % k)
    lost = {}
    for top in tops:
        for p in top["lost"]:
            lost[p["cpu"]] = lost.get(p["cpu"], 0) + p["records"]
    for p in whole["pcpus"]:
        if lost.get(p["cpu"], 0) != p["lost"]["records"]:
            bad.append("p%d lost over the intervals: %s, the whole %d" %
                       (p["cpu"], lost.get(p["cpu"]), p["lost"]["records"]))


def main():
    if sys.argv[1] == "screen":
        check_screen(sys.argv[2], sys.argv[3])
    summary, trace, jsonl = sys.argv[1:4]
    lossy = sys.argv[4:] == ["lossy"]
    bad = []
    unseen = {}
    intervals = 0
    tops = [json.loads(line) for line in open(jsonl)]
    for top in tops:
        intervals += 1
        summ = json.loads(subprocess.run(
            [summary, "--json", "--from", "tsc:%d" % top["from_tsc"],
             "--to", "tsc:%d" % top["to_tsc"], trace],
            check=True, capture_output=True, text=True).stdout)
        rows = {(d["domain"], d.get("vcpu")): d
                for d in summ["domains"] + summ["vcpus"]}
        missing = unseen_rows(summ, top)
        for key, c in missing.items():
            unseen[key] = unseen.get(key, 0) + c
            rows.pop(key)
        for row in top["domains"] + top["vcpus"]:
            s = rows.pop((row["domain"], row.get("vcpu")), None)
            if s is None:
                bad.append("interval %d %s: not in the summary" %
                           (top["interval"], who(row)))
            else:
                check_row(bad, top["interval"], row,
                          without_unseen(s, missing), lossy)
        # A domain none of whose vCPUs the interval knows yet.
        for key in [k for k in rows if k[1] is None and
                    {d for d, _ in missing} >= {k[0]} and
                    not any(v["domain"] == k[0] for v in top["vcpus"])]:
            rows.pop(key)
        for key in rows:
            bad.append("interval %d d%d: only in the summary" %
                       (top["interval"], key[0]))
        lost = {p["cpu"]: p["lost"]["records"] for p in summ["pcpus"]}
        for p in top["lost"]:
            if lost.get(p["cpu"]) != p["records"]:
                bad.append("interval %d p%d lost: %d, the summary %s" %
                           (top["interval"], p["cpu"], p["records"],
                            lost.get(p["cpu"])))
    if not intervals:
        bad.append("no interval")
    else:
        check_sum(bad, summary, trace, tops, unseen)
    for b in bad[:40]:
        print(b)
    print("%d intervals, %d disagreements" % (intervals, len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
