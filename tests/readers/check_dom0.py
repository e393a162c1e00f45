"""A capture with dom0's kernel events (xentrace --dom0) against what made
it and what read it:

  check_dom0.py TABLE SUMMARY_JSON DUMP [--notified PID]
                [--inside RUNSTATE_CSV SECONDS_DUMP BUSY_PID]

TABLE is xentrace's standard error (its exit table), SUMMARY_JSON
xentrace-summary --json of the file, DUMP xentrace-dump of it.  Checks:

- every lane's events and losses in the summary are the exit table's,
  the losses xentrace marked are ftrace's own overrun count, and the dump
  shows every event, each on a lane the file has;
- the dump is in TSC order, Xen's records and dom0's events together;
- the clocks: dom0's TSC against its CLOCK_MONOTONIC drifts less than
  DRIFT_PPM from the rate the file's times use, and no pair strays
  STRAY_NS from the fitted line;
- with --notified PID (xen-sim --notify's reader): each of xen-sim's
  notifications (TRC_HW_IRQ_HANDLED of irq 1000) is followed, within
  WAKE_NS and before the next, by that process's sched_waking, and each
  of its wakings follows a notification: cause, then effect, on one clock;
- with --inside (a real Xen: xentrace-plot --scatter runstate --csv and
  xentrace-dump -s of the file, and the pid of a process dom0 ran busy
  and idle): every sched_switch of dom0's CPU N falls inside an interval
  in which Xen ran d0vN, within the fit's stray and a microsecond (the
  dump's and the CSV's rounding), and BUSY_PID was switched in and out
  at least BUSY_SWITCHES times.  Events outside the first and last of the
  vCPU's known intervals (dom0's ftrace starts before Xen's tracing) are
  not checked; at least INSIDE_LEAST are.
"""
import json
import re
import sys

from checks import agree, fail, report

# NTP slews CLOCK_MONOTONIC by up to 500 ppm; xen-sim's TSC rate is
# xentrace's own measurement over 0.1 s, good to tens of ppm.
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
    """{dom0 cpu: (events, lost, overrun)} from xentrace's exit table."""
    rows, inside = {}, False
    for line in open(path, errors="replace"):
        if line.startswith("dom0-cpu"):
            inside = True
            continue
        m = re.match(r"\s*(\d+)\s+(\d+)\s+(\d+)\+?\s+(\d+)\s*$", line)
        if inside and m:
            rows[int(m.group(1))] = tuple(int(g) for g in m.group(2, 3, 4))
        elif inside:
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
        if lost != overrun:
            fail("dom0 cpu %d: %d lost marked, ftrace overran %d" %
                 (cpu, lost, overrun))
        agree(3)
    if sum(e for e, _ in ours.values()) != dom0["events"]:
        fail("dom0 events %d, lanes' sum %d" %
             (dom0["events"], sum(e for e, _ in ours.values())))


def check_clock(summary, hz):
    dom0 = summary["dom0"]
    if dom0["pairs"] < 2 or dom0["drift_ppm"] is None:
        fail("%d clock pairs, no fit" % dom0["pairs"])
        return
    if abs(dom0["drift_ppm"]) > DRIFT_PPM:
        fail("dom0's TSC drifts %.3f ppm from %d Hz" % (dom0["drift_ppm"], hz))
    if dom0["stray_ns"] > STRAY_NS:
        fail("a pair strays %d ns" % dom0["stray_ns"])
    agree(2)


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
            events += not m.group(5).startswith("TRC_XT_DOM0")
            if cpu not in lanes:
                fail("an event on dom0 cpu %d, not a lane" % cpu)
        if timed != " " or not tsc:
            continue
        if tsc < last:
            fail("out of TSC order: %s" % line.strip())
        last = tsc
        lines.append((tsc, line))
    return lines, events


def check_causality(lines, pid):
    """Each notification, then the notified process waking."""
    notes = [t for t, l in lines if "TRC_HW_IRQ_HANDLED irq=%d " % NOTIFY_IRQ in l]
    wakes = [t for t, l in lines
             if "sched_waking" in l and " pid=%d " % pid in l]
    if len(notes) < 10:
        fail("%d notifications in the capture" % len(notes))
    for i, n in enumerate(notes):
        following = notes[i + 1] if i + 1 < len(notes) else None
        woke = [w for w in wakes if n <= w <= n + WAKE_NS and
                (following is None or w < following)]
        # The last may have come as the capture stopped.
        if not woke and following is not None:
            fail("notification at TSC %d: no waking of %d after it" % (n, pid))
        agree()
    for w in wakes:
        if not any(n <= w <= n + WAKE_NS for n in notes):
            fail("%d woke at TSC %d, after no notification" % (pid, w))
        agree()


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
        check_clock(summary, summary["tsc_hz"])
        lines, events = read_dump(args[2],
                                  {c["cpu"] for c in summary["dom0"]["cpus"]})
        if events != summary["dom0"]["events"]:
            fail("the dump shows %d of dom0's events, the summary counts %d"
                 % (events, summary["dom0"]["events"]))
        if notified is not None:
            check_causality(lines, notified)
        if inside:
            check_inside(*inside, summary["dom0"]["stray_ns"] or 0)
    report()


main()
