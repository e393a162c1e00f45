"""A capture with dom0's kernel events (xentrace --dom0) against what made
it and what read it:

  check_dom0.py TABLE SUMMARY_JSON DUMP [--notified PID]
                [--inside RUNSTATE_CSV SECONDS_DUMP BUSY_PID]
                [--clock DRIFT_PPM STRAY_NS] [--perfetto TP PFTRACE]
                [--ctf CTF_DIR] [--dat REPORT]

TABLE is xentrace's standard error (its exit table), SUMMARY_JSON
xentrace-summary --json of the file, DUMP xentrace-dump of it.  Checks:

- every lane's events and losses in the summary are the exit table's,
  the losses xentrace marked are ftrace's own overrun count, and the dump
  shows every event, each on a lane the file has;
- with --dat (the file is xentrace-join's, TABLE its output, REPORT
  trace-cmd report of the trace.dat): the trace.dat's events per CPU, as
  trace-cmd reads them, are the lane's, and the file says its clock is a
  trace.dat's, with no pairs (instead of the clocks' check below);
- the dump is in TSC order, Xen's records and dom0's events together;
- the clocks: dom0's TSC against its CLOCK_MONOTONIC drifts less than
  DRIFT_PPM from the rate the file's times use, and no pair strays
  STRAY_NS from the fitted line (--clock sets both for another host);
- with --notified PID (xen-sim --notify's reader): each of xen-sim's
  notifications (TRC_HW_IRQ_HANDLED of irq 1000) is followed, within
  WAKE_NS and before the next, by that process's sched_waking, and each
  of its wakings between the first and the last follows a notification
  (it also wakes from its open of the FIFO, and at its end): cause, then
  effect, on one clock;
- with --inside (a real Xen: xentrace-plot --scatter runstate --csv and
  xentrace-dump -s of the file, and the pid of a process dom0 ran busy
  and idle): every sched_switch of dom0's CPU N falls inside an interval
  in which Xen ran d0vN, within the fit's stray and a microsecond (the
  dump's and the CSV's rounding), and BUSY_PID was switched in and out
  at least BUSY_SWITCHES times.  Events outside the first and last of the
  vCPU's known intervals (dom0's ftrace starts before Xen's tracing) are
  not checked; at least INSIDE_LEAST are;
- with --perfetto (Perfetto's trace_processor_shell, and xentrace-export
  --perfetto of the file): it imports with no error or data loss; it has
  two machines; on dom0's, a sched slice for every dom0 switch inside
  Xen's span but each CPU's first (what ran before it is not known) and
  an IRQ track slice for every IRQ handler and softirq entered there;
  every flow goes from a "woken by Xen" instant to an IRQ handler on the
  same dom0 CPU's track, not back in time, and there is one at least;
- with --ctf (xentrace-export --ctf of the file): babeltrace2 reads it,
  and its second stream class holds each of dom0's events, by kind, on
  its dom0 CPU (cpu_id), as many as the summary counts per CPU.
"""
import json
import re
import subprocess
import sys

from checks import agree, fail, report

# On xen-sim: NTP slews CLOCK_MONOTONIC by up to 500 ppm; xen-sim's TSC
# rate is xentrace's own measurement over 0.1 s, good to tens of ppm.
DRIFT_PPM = 1000
# A pair is read between two TSC reads, the closest of five: a vCPU
# descheduled in all five is off by its time away.
STRAY_NS = 1000000
# The reader wakes within microseconds of the write; a loaded host may
# take a scheduler tick or two.
WAKE_NS = 20000000
NOTIFY_IRQ = 1000
BUSY_SWITCHES = 20      # 3 s of 30 ms sleeps: some 100 wake-ups
INSIDE_LEAST = 50


def table_rows(path):
    """{dom0 cpu: (events, lost, overrun)} from xentrace's exit table;
    xentrace-join's has no overrun (None)."""
    rows, inside = {}, False
    for line in open(path, errors="replace"):
        if line.startswith("dom0-cpu"):
            inside = True
            continue
        m = re.match(r"\s*(\d+)\s+(\d+)\s+(\d+)\+?(?:\s+(\d+))?\s*$", line)
        if inside and m:
            rows[int(m.group(1))] = tuple(None if g is None else int(g)
                                          for g in m.group(2, 3, 4))
        elif inside and not line.lstrip().startswith("all"):
            inside = False
    return rows


def check_counts(rows, summary):
    dom0 = summary["dom0"]
    if not dom0:
        fail("the summary says the file has no dom0 lanes")
        return
    ours = {c["cpu"]: (c["events"], c["lost"]) for c in dom0["cpus"]}
    if set(ours) != set(rows):
        fail("lanes %s, exit table %s" % (sorted(ours), sorted(rows)))
    for cpu, (events, lost, overrun) in rows.items():
        if ours.get(cpu) != (events, lost):
            fail("dom0 cpu %d: summary %s, exit table %s" %
                 (cpu, ours.get(cpu), (events, lost)))
        if overrun is not None and lost != overrun:
            fail("dom0 cpu %d: %d lost marked, ftrace overran %d" %
                 (cpu, lost, overrun))
        agree(3)
    if sum(e for e, _ in ours.values()) != dom0["events"]:
        fail("dom0 events %d, lanes' sum %d" %
             (dom0["events"], sum(e for e, _ in ours.values())))


def check_clock(summary, hz, drift_ppm, stray_ns):
    dom0 = summary["dom0"]
    if dom0["pairs"] < 2 or dom0["drift_ppm"] is None:
        fail("%d clock pairs, no fit" % dom0["pairs"])
        return
    if abs(dom0["drift_ppm"]) > drift_ppm:
        fail("dom0's TSC drifts %.3f ppm from %d Hz" % (dom0["drift_ppm"], hz))
    if dom0["stray_ns"] > stray_ns:
        fail("a pair strays %d ns" % dom0["stray_ns"])
    agree(2)


def check_dat(rows, summary, report_path):
    """The trace.dat's events per CPU (trace-cmd report's "[00N]") are the
    lanes'; the clock is said to be a trace.dat's, without pairs."""
    theirs = {}
    for line in open(report_path, errors="replace"):
        m = re.match(r".*?\[(\d{3})\]\s*\d", line)
        if m:
            theirs[int(m.group(1))] = theirs.get(int(m.group(1)), 0) + 1
    ours = {cpu: events for cpu, (events, _, _) in rows.items() if events}
    if theirs != ours:
        fail("trace-cmd report counts %s, the lanes %s" % (theirs, ours))
    dom0 = summary["dom0"]
    if dom0["clock"] != "trace.dat" or dom0["pairs"]:
        fail("clock %s with %d pairs, not a trace.dat's" %
             (dom0["clock"], dom0["pairs"]))
    agree(len(ours) + 1)


def read_dump(path, lanes):
    """[(tsc, line)] of every timed record, checked in TSC order, and the
    count of dom0's events."""
    lines, last, events = [], 0, 0
    for line in open(path, errors="replace"):
        m = re.match(r"\s*(\d+) (dom0/)?cpu(\d+)([ *]) (.*)", line)
        if not m:
            continue
        tsc, dom0, cpu, timed = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
        if dom0:
            events += not m.group(5).startswith(("TRC_XT_DOM0", "lost "))
            if cpu not in lanes:
                fail("an event on dom0 cpu %d, not a lane" % cpu)
        if timed != " " or not tsc:
            continue
        if tsc < last:
            fail("out of TSC order: %s" % line.strip())
        last = tsc
        lines.append((tsc, line))
    return lines, events


def check_causality(lines, pid, hz):
    """Each notification, then the notified process waking."""
    wake = WAKE_NS * hz // 1000000000       # in TSC ticks
    notes = [t for t, l in lines if "TRC_HW_IRQ_HANDLED irq=%d " % NOTIFY_IRQ in l]
    wakes = [t for t, l in lines
             if "sched_waking" in l and " pid=%d " % pid in l]
    if len(notes) < 10:
        fail("%d notifications in the capture" % len(notes))
    for i, n in enumerate(notes):
        following = notes[i + 1] if i + 1 < len(notes) else None
        woke = [w for w in wakes if n <= w <= n + wake and
                (following is None or w < following)]
        # The last may have come as the capture stopped.
        if not woke and following is not None:
            fail("notification at TSC %d: no waking of %d after it" % (n, pid))
        agree()
    # Before the first and after the last, it wakes from its open(2) of
    # the FIFO (xen-sim opens its end as it starts) and at its end.
    for w in wakes:
        if notes and notes[0] <= w <= notes[-1] and \
                not any(n <= w <= n + wake for n in notes):
            fail("%d woke at TSC %d, after no notification" % (pid, w))
        agree()


def tp_query(tp, pftrace, sql):
    """The rows of @sql's last statement, as lists of strings."""
    out = subprocess.run([tp, "-q", "/dev/stdin", pftrace], input=sql,
                         capture_output=True, text=True, check=True).stdout
    lines = [l for l in out.splitlines() if l]
    return [[f.strip('"') for f in l.split(",")] for l in lines[1:]]


def in_span(dump_path):
    """dom0's switches and IRQ or softirq entries inside Xen's span:
    ({dom0 cpu: switches}, entries)."""
    xen, switches, entries = [], {}, []
    for line in open(dump_path, errors="replace"):
        m = re.match(r"\s*(\d+) (dom0/)?cpu(\d+)(.) (\S+)", line)
        if not m:
            continue
        t = int(m.group(1))
        if not m.group(2):
            if m.group(4) == " " and t:
                xen.append(t)
        elif m.group(5) == "sched_switch":
            switches.setdefault(int(m.group(3)), []).append(t)
        elif m.group(5) in ("irq_handler_entry", "softirq_entry"):
            entries.append(t)
    lo, hi = min(xen), max(xen)
    inside = lambda ts: [t for t in ts if lo <= t <= hi]
    return {c: len(inside(ts)) for c, ts in switches.items()}, \
        len(inside(entries))


def check_perfetto(tp, pftrace, dump_path):
    bad = tp_query(tp, pftrace, "select name, value from stats where value > 0"
                   " and severity in ('error', 'data_loss');")
    if bad:
        fail("trace_processor: %s" % bad)
    machines = tp_query(tp, pftrace, "select count(*) from machine;")
    if machines != [["2"]]:
        fail("machines %s, not 2" % machines)
    switches, entries = in_span(dump_path)
    want = sum(n - 1 for n in switches.values() if n)
    got = tp_query(tp, pftrace, "select count(*) from sched join cpu "
                   "using(ucpu) where cpu.machine_id = 1;")[0][0]
    if int(got) != want:
        fail("dom0's sched slices %s, switches %d" % (got, want))
    got = tp_query(tp, pftrace, "select count(*) from slice join track on "
                   "slice.track_id = track.id where track.name like "
                   "'dom0 CPU % IRQs' and slice.name != 'woken by Xen';")[0][0]
    if int(got) != entries:
        fail("dom0's IRQ slices %s, entries %d" % (got, entries))
    flows = tp_query(tp, pftrace, "select o.name, i.name, o.track_id = "
                     "i.track_id, o.ts <= i.ts from flow join slice o on "
                     "flow.slice_out = o.id join slice i on flow.slice_in = "
                     "i.id;")
    if not flows:
        fail("no flow from Xen's wake to a dom0 IRQ")
    for out_name, in_name, same, forward in flows:
        if out_name != "woken by Xen" or not in_name.startswith("irq ") or \
                same != "1" or forward != "1":
            fail("a flow %s -> %s (same track %s, forward %s)" %
                 (out_name, in_name, same, forward))
            break
    agree(4 + len(flows))


KINDS = ("sched_switch", "sched_waking", "irq_handler_entry",
         "irq_handler_exit", "softirq_entry", "softirq_exit", "event", "lost")


def check_ctf(ctf_dir, summary):
    out = subprocess.run(["babeltrace2", ctf_dir], capture_output=True,
                         text=True)
    if out.returncode:
        fail("babeltrace2 %s: %s" % (ctf_dir, out.stderr[-300:]))
        return
    per_cpu = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\[[^]]*\] \([^)]*\) dom0:(\w+): \{ cpu_id = (\d+) \}",
                     line)
        if not m:
            continue
        if m.group(1) not in KINDS:
            fail("a dom0 event of kind %s" % m.group(1))
        per_cpu[int(m.group(2))] = per_cpu.get(int(m.group(2)), 0) + 1
    want = {c["cpu"]: c["events"] for c in summary["dom0"]["cpus"]
            if c["events"]}
    if per_cpu != want:
        fail("CTF's dom0 events per CPU %s, the summary's %s" %
             (per_cpu, want))
    agree(len(want))


def running(csv_path):
    """{vcpu: [(from, to)]} of the intervals Xen ran each vCPU, sorted."""
    spans = {}
    for line in open(csv_path):
        f = line.strip().split(",")
        if len(f) == 4 and f[3] == "running":
            spans.setdefault(f[2], []).append((float(f[0]), float(f[1])))
    for v in spans.values():
        v.sort()
    return spans


def check_inside(csv_path, dump_path, busy, stray_ns):
    spans = running(csv_path)
    slack = stray_ns * 1e-9 + 1e-6
    checked = busy_switches = 0
    for line in open(dump_path, errors="replace"):
        m = re.match(r"\s*([\d.]+) dom0/cpu(\d+)  sched_switch prev_pid=(\d+)"
                     r".* next_pid=(\d+)", line)
        if not m:
            continue
        t, vcpu = float(m.group(1)), "d0v" + m.group(2)
        busy_switches += busy in (int(m.group(3)), int(m.group(4)))
        known = spans.get(vcpu, [])
        if not known or t < known[0][0] or t > known[-1][1]:
            continue
        checked += 1
        if not any(a - slack <= t <= b + slack for a, b in known):
            fail("%s's switch at %.9f s is in no interval Xen ran %s" %
                 (vcpu, t, vcpu))
    if checked < INSIDE_LEAST:
        fail("%d of dom0's switches inside Xen's intervals checked" % checked)
    if busy_switches < BUSY_SWITCHES:
        fail("the busy process %d switched %d times" % (busy, busy_switches))
    agree(checked + 1)


def main():
    args = sys.argv[1:]
    notified = inside = None
    clock = DRIFT_PPM, STRAY_NS
    perfetto = ctf = dat = None
    if "--dat" in args:
        i = args.index("--dat")
        dat = args[i + 1]
        del args[i:i + 2]
    if "--ctf" in args:
        i = args.index("--ctf")
        ctf = args[i + 1]
        del args[i:i + 2]
    if "--perfetto" in args:
        i = args.index("--perfetto")
        perfetto = args[i + 1], args[i + 2]
        del args[i:i + 3]
    if "--clock" in args:
        i = args.index("--clock")
        clock = float(args[i + 1]), float(args[i + 2])
        del args[i:i + 3]
    if "--notified" in args:
        i = args.index("--notified")
        notified = int(args[i + 1])
        del args[i:i + 2]
    if "--inside" in args:
        i = args.index("--inside")
        inside = args[i + 1], args[i + 2], int(args[i + 3])
        del args[i:i + 4]
    if len(args) != 3:
        sys.exit("usage: check_dom0.py TABLE SUMMARY_JSON DUMP "
                 "[--notified PID] [--inside CSV DUMP_S PID]")
    rows = table_rows(args[0])
    summary = json.load(open(args[1]))
    check_counts(rows, summary)
    if summary["dom0"]:
        if dat:
            check_dat(rows, summary, dat)
        else:
            check_clock(summary, summary["tsc_hz"], *clock)
        lines, events = read_dump(args[2],
                                  {c["cpu"] for c in summary["dom0"]["cpus"]})
        if events != summary["dom0"]["events"]:
            fail("the dump shows %d of dom0's events, the summary counts %d"
                 % (events, summary["dom0"]["events"]))
        if notified is not None:
            check_causality(lines, notified, summary["tsc_hz"])
        if inside:
            check_inside(*inside, summary["dom0"]["stray_ns"] or 0)
        if perfetto:
            check_perfetto(*perfetto, args[2])
        if ctf:
            check_ctf(ctf, summary)
    report()


main()
