#!/usr/bin/env python3
"""A Perfetto export as Perfetto's own trace processor reads it, against
the summary of the same trace.

  check_tp.py PFTRACE SUMMARY_JSON RUNSTATE_CSV DUMP

PFTRACE is `xentrace-export --perfetto`'s, SUMMARY_JSON `xentrace-summary
--json`'s, RUNSTATE_CSV `xentrace-plot --scatter runstate --csv`'s (the
model's runstate intervals), DUMP `xentrace-dump`'s, all of one trace.
trace_processor_shell is $TRACE_PROCESSOR, else the oracle's.

  - the import: its stats table has no entry of severity error or
    data_loss;
  - per vCPU, the time running (sched_slice; the idle vCPUs are swapper on
    their pCPU): on a loss-free trace its runs are the model's, one for
    one, a run continued over time slices being one slice (and one the
    pCPU's last record cut within the switch, none in the model); each starts
    and ends where the model's does, give or take the time Xen takes
    from a TRC_SCHED_SWITCH to the runstate changes after it (the
    scheduling is shown at the switch, as Linux's ftrace shows it; the
    summary, like xenalyze, times the runstates): at most that gap, the
    dump's largest, twice per run; so the running times agree within it;
  - per vCPU, the exit slices by reason, and the instants of the
    hypercalls (PV ones, multicall entries and VMCALLs), of the other PV
    events (named with TRC_64_FLAG's "64" where the record has it; the
    summary counts them without) and of injected vectors, are the
    summary's counts; an exit still open where the
    trace ends is a slice (it is cut there) the summary does not count:
    one more at most per vCPU; a VMCALL is an instant at its record, and
    the summary counts it as its exit ends: those of exits open at the
    end, or cut off by a loss (the summary's exits_dropped), are not;
  - per vCPU, the "halted" slices inside its exits (HLT, WFI) add up to
    the time the summary's exits spent halted (their seconds less their
    seconds in Xen), within a nanosecond of rounding a slice and a row;
  - per pCPU, a "lost N records" slice per TRC_LOST_RECORDS, N adding up
    to the records the summary says were lost;
  - the counters: per vCPU, "to halt" at each injected interrupt's time
    to the halt and back to 0: two points for each of the summary's; per
    pCPU, "C-state" at each residency's C-state and back to 0: as many
    points of each C-state as the summary's residencies in it, and as
    many zeros as all of them (one more residency, still open at the end,
    at most).

Exits 0 if all holds, 1 with the differences otherwise.
"""
import csv
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

from checks import agree, fail, report

TP = os.environ.get("TRACE_PROCESSOR",
                    os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                 "shared", "oracles", "perfetto-tp",
                                 "trace_processor_shell"))
IDLE = 32767
RE_START = re.compile(r"^# started .* at TSC (\d+)")
RE_RECORD = re.compile(r"^\s*(\d+) cpu(\d+)\*?\s+(\S+)")
RE_PV64 = re.compile(r"^(TRC_PV_\w+?)64$")


def query(pftrace, sql):
    """The rows of @sql on @pftrace, as dicts."""
    out = subprocess.run([TP, "-q", "/dev/stdin", pftrace], input=sql,
                         capture_output=True, text=True)
    if out.returncode:
        fail("trace_processor_shell: %s" % out.stderr.strip()[-300:])
        return []
    return list(csv.DictReader(out.stdout.splitlines()))


def check_stats(pftrace):
    for r in query(pftrace, "select name, value from stats where value > 0 "
                   "and severity in ('error', 'data_loss');"):
        fail("trace processor: %s = %s" % (r["name"], r["value"]))
    agree()


def read_dump(path):
    """The origin TSC (the capture's start, else the first record's), each
    pCPU's last record's TSC, and the largest time from a TRC_SCHED_SWITCH to the runstate changes right
    after it on its pCPU (Xen's context switch writes them together)."""
    origin, first, gap = None, None, 0
    last = defaultdict(int)
    switch_at = {}
    for line in open(path):
        m = RE_START.match(line)
        if m:
            origin = int(m.group(1))
            continue
        m = RE_RECORD.match(line)
        if not m:
            continue
        tsc, cpu, event = int(m.group(1)), int(m.group(2)), m.group(3)
        if not event.startswith("TRC_XT_"):     # xentrace's, not Xen's
            first = tsc if first is None else min(first, tsc)
            last[cpu] = max(last[cpu], tsc)
        if event == "TRC_SCHED_SWITCH":
            switch_at[cpu] = tsc
        elif event == "TRC_SCHED_RUNSTATE_CHANGE" and cpu in switch_at:
            gap = max(gap, tsc - switch_at[cpu])
        else:
            switch_at.pop(cpu, None)
    if origin is None and first is None:
        fail("the dump has no record")
    return origin if origin is not None else first or 0, last, gap


def model_runs(path, origin, hz):
    """{vcpu: [(start, end)]} in TSC, runs continued over time slices as
    one."""
    runs = defaultdict(list)
    for r in csv.DictReader(open(path)):
        if r["state"] != "running":
            continue
        a = round(float(r["from_seconds"]) * hz) + origin
        b = round(float(r["to_seconds"]) * hz) + origin
        done = runs[r["vcpu"]]
        if done and abs(done[-1][1] - a) <= 2:
            done[-1] = (done[-1][0], b)
        else:
            done.append((a, b))
    return runs


def perfetto_runs(pftrace):
    """{vcpu: [(start, end)]} in ns; the idle vCPUs' by their pCPU.  A
    switch at the trace's last TSC makes a slice of no time, a run the
    model has not."""
    runs = defaultdict(list)
    for r in query(pftrace, "select t.name, s.cpu, s.ts, s.dur from "
                   "sched_slice s join thread t using (utid) where s.dur > 0 "
                   "order by s.ts;"):
        name = r["name"]
        if name == "swapper":
            name = "idle-v%s" % r["cpu"]
        elif not re.match(r"^d\d+v\d+$", name):
            continue            # unknown/N, other/N: no vCPU's
        runs[name].append((int(r["ts"]), int(r["ts"]) + int(r["dur"]),
                           int(r["cpu"])))
    return runs


def check_runs(pftrace, summary, runstates, dump):
    hz = summary["tsc_hz"]
    origin, last, gap = read_dump(dump)

    def ns(tsc):
        return tsc * 10**9 // hz
    ours = model_runs(runstates, origin, hz)
    theirs = perfetto_runs(pftrace)
    slack = ns(gap) + 2
    for v in summary["vcpus"]:
        name = v["name"]
        m, p = ours.get(name, []), theirs.get(name, [])
        # Switched in at its pCPU's very end: the runstate change, in the
        # switches' gap, at the pCPU's last record, gives the model no time.
        if p and p[-1][1] == ns(last[p[-1][2]]) and \
                p[-1][1] - p[-1][0] <= slack and \
                (not m or ns(m[-1][1]) < p[-1][0]):
            p = p[:-1]
        agree()
        if len(m) != len(p):
            fail("%s: %d runs in Perfetto, %d in the model" % (name, len(p),
                                                              len(m)))
            continue
        worst = 0
        for (a, b), (s, e, cpu) in zip(m, p):
            worst = max(worst, abs(ns(a) - s), abs(ns(b) - e))
        if worst > slack:
            fail("%s: a run %d ns from the model's, the switches' gap is "
                 "%d ns" % (name, worst, slack))
        total = sum(e - s for s, e, cpu in p) / 1e9
        agree()
        if abs(total - v["runstates"]["running"]["seconds"]) > \
                2 * len(p) * slack / 1e9 + 1e-9:
            fail("%s: %.9f s running in Perfetto, %.9f in the summary" % (
                name, total, v["runstates"]["running"]["seconds"]))
    print("runs: the switches' gap is %d ns" % slack)


def expected_names(v):
    """{name: count} of a vCPU's exits, hypercalls and injections, and the
    names of its exits and of its VMCALLs' hypercalls."""
    want = Counter()
    for e in v["exits"]:
        want[e["name"]] += e["count"]
    for table in ("hypercalls", "subcalls", "vmcalls"):
        for e in v[table]:
            want[e["name"]] += e["count"]
    for e in v["injected"]:
        want["inject " + e["name"]] += e["count"]
    for e in v["pv"]:
        want[e["name"]] += e["count"]
    return want, {e["name"] for e in v["exits"]}, \
        {e["name"] for e in v["vmcalls"]}


def check_halted(v, slices, ns):
    """A vCPU's @slices "halted", @ns long in all, against its exits'."""
    rows = v["exits"] + v.get("arm", {}).get("traps", [])
    want = sum(e["seconds"] - e["in_xen_seconds"] for e in rows) * 1e9
    agree()
    if abs(ns - want) > slices + 2 * len(rows) + 1:
        fail("%s: %d ns halted in %d Perfetto slices, %.0f in the summary's "
             "exits" % (v["name"], ns, slices, want))


def check_slices(pftrace, summary):
    got = defaultdict(Counter)
    halted = defaultdict(int)
    lost = defaultdict(lambda: [0, 0])
    for r in query(pftrace, "select s.name, s.dur, k.name as track, t.name "
                   "as thread from slice s join track k on s.track_id = k.id "
                   "left join thread_track tt on tt.id = s.track_id "
                   "left join thread t on t.utid = tt.utid;"):
        if r["thread"]:
            got[r["thread"]][RE_PV64.sub(r"\1", r["name"])] += 1
            if r["name"] == "halted":
                halted[r["thread"]] += int(r["dur"])
        m = re.match(r"^lost (\d+) records$", r["name"])
        if m and r["track"].startswith("pCPU "):
            cpu = int(r["track"].split()[1])
            lost[cpu][0] += 1
            lost[cpu][1] += int(m.group(1))
    uncounted = 0
    for v in summary["vcpus"]:
        if v["domain"] == IDLE:
            continue
        want, exits, vmcalls = expected_names(v)
        extra = 0
        for name, n in want.items():
            have = got[v["name"]][name]
            agree()
            if name in exits and have == n + 1:
                extra += 1
            elif name in vmcalls and have > n:
                uncounted += have - n
            elif have != n:
                fail("%s: %d %s in Perfetto, %d in the summary" % (
                    v["name"], have, name, n))
        if extra > 1:
            fail("%s: %d exits open at the end" % (v["name"], extra))
        check_halted(v, got[v["name"]]["halted"], halted[v["name"]])
    # A VMCALL is an instant at its record, and the summary's when its
    # exit ends: not one still open at the end, nor one a loss cut off.
    agree()
    if uncounted > summary["unplaced"]["exits_dropped"] + \
            len(summary["vcpus"]):
        fail("%d VMCALLs in Perfetto only, %d exits dropped" % (
            uncounted, summary["unplaced"]["exits_dropped"]))
    for c in summary["cpus"]:
        agree()
        if lost[c["cpu"]] != [c["lost_markers"], c["lost_records"]]:
            fail("cpu%d: %d loss slices of %d records in Perfetto, "
                 "%d of %d in the summary" % (c["cpu"], lost[c["cpu"]][0],
                                               lost[c["cpu"]][1],
                                               c["lost_markers"],
                                               c["lost_records"]))


def check_cstates(pftrace, summary):
    """Per pCPU, the C-state counter's points against its residencies."""
    points = defaultdict(Counter)
    for r in query(pftrace, "select k.name, c.value, count(*) as n from "
                   "counter c join counter_track k on c.track_id = k.id "
                   "where k.name like 'pCPU % C-state' group by k.name, "
                   "c.value;"):
        points[int(r["name"].split()[1])][int(float(r["value"]))] += \
            int(r["n"])
    for p in summary["pcpus"]:
        want = Counter({e["key"]: e["count"] for e in p["cstates"]})
        want[0] += sum(e["count"] for e in p["cstates"])
        have = points[p["cpu"]]
        extra = {k: have[k] - want[k] for k in set(have) | set(want)
                 if have[k] != want[k]}
        agree()
        # An open residency at the end: its C-state and its 0, once.
        if extra and not (len(extra) == 2 and extra.get(0) == 1 and
                          sorted(extra.values()) == [1, 1]):
            fail("pCPU %d: C-state points %s, the summary's residencies "
                 "%s" % (p["cpu"], dict(have), dict(want)))


def check_counters(pftrace, summary):
    points = {r["name"]: int(r["n"]) for r in query(
        pftrace, "select k.name, count(*) as n from counter c join "
        "counter_track k on c.track_id = k.id group by k.name;")}
    for v in summary["vcpus"]:
        n = sum(e["count"] for e in v["to_halt"]
                if e["name"].endswith((" wake to halt any", " intr to halt")))
        agree()
        if points.get("%s to halt (ns)" % v["name"], 0) != 2 * n:
            fail("%s: %d to-halt points in Perfetto, %d halts in the "
                 "summary" % (v["name"],
                              points.get("%s to halt (ns)" % v["name"], 0),
                              n))


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(1)
    pftrace, summary_path, runstates, dump = sys.argv[1:]
    summary = json.load(open(summary_path))
    check_stats(pftrace)
    if not sum(c["lost_records"] for c in summary["cpus"]):
        check_runs(pftrace, summary, runstates, dump)
    check_slices(pftrace, summary)
    check_counters(pftrace, summary)
    check_cstates(pftrace, summary)
    report()


if __name__ == "__main__":
    main()
