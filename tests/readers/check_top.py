#!/usr/bin/env python3
"""xentrace-top --json against xentrace-summary --json, interval by interval.

    check_top.py SUMMARY TRACE TOP.jsonl
    check_top.py screen COLUMN SCREEN

For each interval xentrace-top printed, runs xentrace-summary --json
--from tsc:FROM --to tsc:TO on the same trace and checks that the counts
are the same, exactly: per domain and per vCPU the runstate cycles, the
runnable waits, exits by reason (count and cycles), hypercalls (PV
hypercalls and HVM VMCALLs) by op, interrupts injected; per pCPU the
records lost.  Prints one line per disagreement and exits 1 if any.

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


def check_row(bad, iv, top, summ):
    name = "interval %d %s" % (iv, who(top))
    for s in STATES:
        if top["runstate_cycles"][s] != summ["runstates"][s]["cycles"]:
            bad.append("%s %s: %d cycles, the summary %d" %
                       (name, s, top["runstate_cycles"][s],
                        summ["runstates"][s]["cycles"]))
    waits = sum(summ["latency"][c]["count"] for c in ("woken", "preempted"))
    if top["wait"]["count"] != waits:
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
               e["max_cycles"] * e["count"] < e["cycles"]:
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
    values = []
    for l in lines[head[0] + 1:]:
        if not l.startswith("d"):
            if l.startswith("idle") or not l.strip():
                break
            continue                    # a vCPU of the domain above
        values.append(float(l.split()[col].rstrip("us")))
    if len(values) < 2 or values != sorted(values, reverse=True):
        print("not by %s: %s" % (column, values))
        sys.exit(1)
    sys.exit(0)


def main():
    if sys.argv[1] == "screen":
        check_screen(sys.argv[2], sys.argv[3])
    summary, trace, jsonl = sys.argv[1:4]
    bad = []
    intervals = 0
    for line in open(jsonl):
        top = json.loads(line)
        intervals += 1
        summ = json.loads(subprocess.run(
            [summary, "--json", "--from", "tsc:%d" % top["from_tsc"],
             "--to", "tsc:%d" % top["to_tsc"], trace],
            check=True, capture_output=True, text=True).stdout)
        rows = {(d["domain"], d.get("vcpu")): d
                for d in summ["domains"] + summ["vcpus"]}
        for row in top["domains"] + top["vcpus"]:
            s = rows.pop((row["domain"], row.get("vcpu")), None)
            if s is None:
                bad.append("interval %d %s: not in the summary" %
                           (top["interval"], who(row)))
            else:
                check_row(bad, top["interval"], row, s)
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
    for b in bad[:40]:
        print(b)
    print("%d intervals, %d disagreements" % (intervals, len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
