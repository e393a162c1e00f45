#!/usr/bin/env python3
"""Checks of xentrace-export --perfetto, on the file as Perfetto's own
protos decode it (protoc --decode=perfetto.protos.Trace), for
tests/readers/test_export.c.

  check_perfetto.py DECODED [options]

What always holds, the way Perfetto's trace processor reads the file:
  - every thread (a tid in the scheduling data or a thread track) and
    process is declared before its first use, every track before its
    first event;
  - per pCPU the scheduling events are in time order, bundle after
    bundle; no vCPU runs on two pCPUs at once;
  - per vCPU its states (running from the scheduling data; runnable,
    blocked or offline from sched_switch's prev_state and sched_waking;
    lost from its "lost" slices; unknown before its first event) cover
    the trace's span exactly once: their durations sum to the span, and
    no lost slice overlaps a run;
  - per track, slices begin and end balanced and nested, in the order
    the trace processor sorts them (by time, ties in file order).

Options add what the test knows:
  --gaps N --lost M     N "lost ... records" slices, M records in all
  --runs JSON           per vCPU, the time running is that of the Chrome
                        JSON export's run slices, within 1%: the JSON has
                        the model's RUNNING intervals (from the runstate
                        records), the Perfetto file switches (from the
                        switch records a few ns later).
  --domain D            the only vCPUs are domain D's
  --cpu C               the only pCPU is C
  --window FROM TO      every timestamp in [FROM, TO] (ns)
  --no-sched            no scheduling data at all
  --dump-header FILE    xentrace-dump's header lines: the clock
                        snapshot ties the capture's start at its TSC (as
                        nanoseconds at its frequency) to its wall clock

Exits 0 if all holds, 1 with the first difference otherwise.
"""
import argparse
import datetime
import json
import sys

XEN_PID = 0x7FFF0000
PRETTY = {0: "R", 1: "S", 4: "T"}


def fail(msg):
    print(msg)
    sys.exit(1)


def parse(path):
    """protoc's text format: a list of (key, value) per message."""
    root = []
    stack = [root]
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line == "}":
                stack.pop()
            elif line.endswith("{"):
                child = []
                stack[-1].append((line[:-1].strip(), child))
                stack.append(child)
            else:
                key, _, value = line.partition(": ")
                if value.startswith('"'):
                    value = value[1:-1]
                elif value.lstrip("-").isdigit():
                    value = int(value)
                stack[-1].append((key, value))
    return [m for k, m in root if k == "packet"]


def get(msg, key, default=None):
    for k, v in msg:
        if k == key:
            return v
    return default


def all_of(msg, key):
    return [v for k, v in msg if k == key]


def is_vcpu(tid):
    return 0 < tid < XEN_PID


class Trace:
    def __init__(self, packets):
        self.packets = packets
        self.declared_tids = set()
        self.declared_pids = set()
        self.thread_pid = {}
        self.tracks = {}            # uuid -> (name, tid or None)
        self.switches = {}          # cpu -> [(ts, prev_state, tid)]
        self.wakings = []           # (ts, tid, target_cpu)
        self.events = []            # (ts, order, type, uuid, name)
        self.snapshot = None
        self.first_ts = None
        self.last_ts = None

    def seen(self, ts):
        self.first_ts = ts if self.first_ts is None else min(self.first_ts, ts)
        self.last_ts = ts if self.last_ts is None else max(self.last_ts, ts)

    def use_tid(self, tid, what):
        if tid != 0 and tid not in self.declared_tids:
            fail("%s: tid %d used before it is declared" % (what, tid))

    def read(self):
        for order, p in enumerate(self.packets):
            tree = get(p, "process_tree")
            if tree is not None:
                for proc in all_of(tree, "processes"):
                    self.declared_pids.add(get(proc, "pid"))
                for th in all_of(tree, "threads"):
                    tgid = get(th, "tgid")
                    if tgid not in self.declared_pids:
                        fail("thread %d of process %d, not declared"
                             % (get(th, "tid"), tgid))
                    self.declared_tids.add(get(th, "tid"))
                    self.thread_pid[get(th, "tid")] = tgid
            td = get(p, "track_descriptor")
            if td is not None and get(td, "process") is not None:
                # A process: declared by its track, named in full.
                self.declared_pids.add(get(get(td, "process"), "pid"))
                continue
            if td is not None:
                th = get(td, "thread")
                tid = None
                if th is not None:
                    tid = get(th, "tid")
                    self.use_tid(tid, "thread track")
                    if self.thread_pid.get(tid) != get(th, "pid"):
                        fail("thread track of tid %d: pid %s, not %s" %
                             (tid, get(th, "pid"), self.thread_pid.get(tid)))
                # A vCPU's counter is a child of its thread's track.
                parent = self.tracks.get(get(td, "parent_uuid"))
                if tid is None and parent is not None:
                    tid = parent[1]
                self.tracks[get(td, "uuid")] = (get(td, "name"), tid)
            cs = get(p, "clock_snapshot")
            if cs is not None:
                self.snapshot = {get(c, "clock_id"): get(c, "timestamp")
                                 for c in all_of(cs, "clocks")}
            fe = get(p, "ftrace_events")
            if fe is not None:
                self.read_bundle(fe)
            te = get(p, "track_event")
            if te is not None:
                self.read_event(p, te, order)

    def read_bundle(self, fe):
        cpu = get(fe, "cpu")
        sched = get(fe, "compact_sched", [])
        comms = all_of(sched, "intern_table")

        def arrays(prefix, fields):
            cols = [all_of(sched, prefix + f) for f in fields]
            if len(set(map(len, cols))) > 1:
                fail("cpu %d: %s arrays of unequal length" % (cpu, prefix))
            return list(zip(*cols))

        ts = 0
        out = self.switches.setdefault(cpu, [])
        for delta, state, tid, prio, comm in arrays(
                "switch_", ("timestamp", "prev_state", "next_pid",
                            "next_prio", "next_comm_index")):
            ts += delta
            self.use_tid(tid, "cpu %d sched_switch" % cpu)
            if comm >= len(comms):
                fail("cpu %d: comm index %d of %d" % (cpu, comm, len(comms)))
            if out and ts < out[-1][0]:
                fail("cpu %d: sched_switch at %d after one at %d"
                     % (cpu, ts, out[-1][0]))
            out.append((ts, state, tid))
            self.seen(ts)
        ts = 0
        for delta, tid, target, prio, comm in arrays(
                "waking_", ("timestamp", "pid", "target_cpu", "prio",
                            "comm_index")):
            ts += delta
            self.use_tid(tid, "cpu %d sched_waking" % cpu)
            self.wakings.append((ts, tid, target))
            self.seen(ts)

    def read_event(self, p, te, order):
        uuid = get(te, "track_uuid")
        if uuid not in self.tracks:
            fail("track event on track %s before its descriptor" % uuid)
        ts = get(p, "timestamp")
        self.seen(ts)
        name = get(te, "name")
        iid = get(te, "name_iid")
        interned = get(p, "interned_data")
        if interned is not None:
            for e in all_of(interned, "event_names"):
                self.names[get(e, "iid")] = get(e, "name")
        if iid is not None:
            if iid not in self.names:
                fail("name iid %d used before it is interned" % iid)
            name = self.names[iid]
        self.events.append((ts, order, get(te, "type"), uuid, name))

    names = {}


def check_slices(t):
    stacks = {}
    for ts, _, kind, uuid, name in sorted(t.events, key=lambda e: e[:2]):
        if kind == "TYPE_SLICE_BEGIN":
            stacks.setdefault(uuid, []).append((ts, name))
        elif kind == "TYPE_SLICE_END":
            if not stacks.get(uuid):
                fail("track %s: slice end at %d with none open" % (uuid, ts))
            stacks[uuid].pop()
    for uuid, stack in stacks.items():
        if stack:
            fail("track %s: slice %s at %d never ends" % (uuid, stack[-1][1],
                                                          stack[-1][0]))


def runs(t, ends=False):
    """Per vCPU, its runs [(start, end, cpu)] from the scheduling data;
    with @ends, whether each ends in a switch to unknown/N (a loss, or the
    pCPU's last record) as a fourth element."""
    out = {}
    for cpu, sw in t.switches.items():
        for i, (ts, _, tid) in enumerate(sw):
            nxt = sw[i + 1] if i + 1 < len(sw) else None
            end = nxt[0] if nxt else t.last_ts
            unknown = nxt is None or (nxt[2] - XEN_PID) % 2 == 1 and \
                nxt[2] > XEN_PID
            if is_vcpu(tid) and end > ts:
                out.setdefault(tid, []).append(
                    (ts, end, cpu, unknown) if ends else (ts, end, cpu))
    return out


def lost_slices(t):
    out = {}
    open_at = {}
    for ts, _, kind, uuid, name in sorted(t.events, key=lambda e: e[:2]):
        tid = t.tracks[uuid][1]
        if tid is None:
            continue
        if kind == "TYPE_SLICE_BEGIN" and name == "lost":
            open_at[uuid] = ts
        elif kind == "TYPE_SLICE_END" and uuid in open_at:
            out.setdefault(tid, []).append((open_at.pop(uuid), ts))
    return out


def check_states(t):
    run = runs(t)
    lost = lost_slices(t)
    span = t.last_ts - t.first_ts
    tids = set(run) | set(lost) | {tid for _, tid, _ in t.wakings}
    for tid in tids:
        mine = sorted(run.get(tid, []))
        for a, b in zip(mine, mine[1:]):
            if b[0] < a[1]:
                fail("tid %d runs on cpu %d and %d at once, at %d"
                     % (tid, a[2], b[2], b[0]))
        for ls, le in lost.get(tid, []):
            for rs, re_, cpu in mine:
                if ls < re_ and rs < le:
                    fail("tid %d: lost [%d, %d) overlaps its run on cpu %d "
                         "[%d, %d)" % (tid, ls, le, cpu, rs, re_))
        # Tile the span: running, else lost, else the last state said.
        marks = sorted([(s, 0) for s, _, _ in mine] +
                       [(e, 1) for _, e, _ in mine] +
                       [(s, 2) for s, _ in lost.get(tid, [])] +
                       [(e, 3) for _, e in lost.get(tid, [])] +
                       [(ts, 4) for ts, w, _ in t.wakings if w == tid])
        durations = {}
        state, running, in_lost, since = "unknown", False, 0, t.first_ts
        for ts, what in marks:
            shown = "running" if running else "lost" if in_lost else state
            durations[shown] = durations.get(shown, 0) + ts - since
            since = ts
            if what == 0:
                running = True
            elif what == 1:
                running, state = False, "switched out"
            elif what == 2:
                in_lost += 1
            elif what == 3:
                in_lost -= 1
            elif not running:
                state = "R"
        shown = "running" if running else "lost" if in_lost else state
        durations[shown] = durations.get(shown, 0) + t.last_ts - since
        if sum(durations.values()) != span:
            fail("tid %d: states sum to %d, the span is %d: %s"
                 % (tid, sum(durations.values()), span, durations))


def check_runs_against_json(t, path):
    """The JSON's runs are the model's RUNNING intervals, from runstate
    changes; the Perfetto file's from the switch records, which Xen writes
    just before them.  So they pair up one to one, per vCPU in time order,
    on the same pCPU, each Perfetto run starting and ending no later than
    its JSON run, and the two overlapping.  (The model may close a run and
    open the next at the same TSC, as when a record proves again what it
    holds: those are one.  A run the model has no RUNNING interval for is
    one here only if a loss ends it, or the model books its time lost.)"""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names = {}
    want = {}
    lost = {}
    origin = t.snapshot[6]      # the JSON's time 0: the capture's start
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[e["args"]["name"]] = e["tid"]
    for e in events:
        if e["ph"] == "X" and e["cat"] == "sched":
            tid = names.get(e["name"])
            if tid is None:
                fail("JSON run of %s, a vCPU never named" % e["name"])
            want.setdefault(tid, []).append((
                origin + round(e["ts"] * 1000),
                origin + round((e["ts"] + e["dur"]) * 1000), e["tid"]))
        elif e["ph"] == "X" and e["cat"] == "lost" and e["pid"] != XEN_PID:
            lost.setdefault(e["tid"], []).append((
                origin + round(e["ts"] * 1000),
                origin + round((e["ts"] + e["dur"]) * 1000)))
    got = runs(t, ends=True)
    for tid in set(want) | set(got):
        a = sorted(got.get(tid, []))
        b = []
        for run in sorted(want.get(tid, [])):
            # A run the model closed and reopened at once is one run.
            if b and abs(b[-1][1] - run[0]) <= 1 and b[-1][2] == run[2]:
                b[-1] = (b[-1][0], run[1], run[2])
            else:
                b.append(run)
        def unproven(run):
            """A switch record just before a loss: the run it proves has
            no runstate change, so no RUNNING interval; or one the model
            books LOST, its runstate changes disagreeing."""
            return run[3] or any(ls < run[1] and run[0] < le
                                 for ls, le in lost.get(tid, []))

        i = 0
        for s2, e2, c2 in b:
            while i < len(a) and a[i][1] <= s2 and unproven(a[i]):
                i += 1
            if i == len(a):
                fail("tid %d: JSON run [%d, %d) on cpu %d, none in the "
                     "Perfetto file" % (tid, s2, e2, c2))
            s1, e1, c1, _ = a[i]
            if c1 != c2 or s1 > s2 + 1 or e1 > e2 + 1 or e1 <= s2:
                fail("tid %d: Perfetto run [%d, %d) on cpu %d, JSON's "
                     "[%d, %d) on cpu %d" % (tid, s1, e1, c1, s2, e2, c2))
            i += 1
        if any(not unproven(run) for run in a[i:]):
            fail("tid %d: Perfetto run at %d, none in the JSON"
                 % (tid, a[i][0]))


def check_clock(t, path):
    """'# started 2025-11-30 05:20:00.000000000 UTC at TSC 10000000000'
    and '# 4 CPUs with records (4 possible), TSC 2400000000 Hz'."""
    started = hz = None
    with open(path) as f:
        for line in f:
            words = line.split()
            if line.startswith("# started "):
                when = datetime.datetime.strptime(
                    words[2] + " " + words[3].split(".")[0],
                    "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc)
                nsec = int(words[3].split(".")[1])
                started = (int(when.timestamp()) * 10**9 + nsec,
                           int(words[-1]))
            elif " TSC " in line and line.rstrip().endswith("Hz") or \
                    "Hz (not in the file)" in line:
                hz = int(words[words.index("TSC") + 1])
    if started is None or hz is None:
        fail("%s: no start or no TSC frequency" % path)
    wall, tsc = started
    want = {1: wall, 6: tsc * 10**9 // hz}
    if t.snapshot != want:
        fail("clock snapshot %s, not %s" % (t.snapshot, want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("decoded")
    ap.add_argument("--gaps", type=int)
    ap.add_argument("--lost", type=int)
    ap.add_argument("--runs")
    ap.add_argument("--domain", type=int)
    ap.add_argument("--cpu", type=int)
    ap.add_argument("--window", type=int, nargs=2)
    ap.add_argument("--no-sched", action="store_true")
    ap.add_argument("--dump-header")
    a = ap.parse_args()

    t = Trace(parse(a.decoded))
    t.read()
    if not t.events and not t.switches:
        fail("no events at all")
    check_slices(t)
    check_states(t)

    if a.gaps is not None:
        lost = [e for e in t.events if e[2] == "TYPE_SLICE_BEGIN" and
                e[4] and e[4].startswith("lost ")]
        count = sum(int(e[4].split()[1]) for e in lost)
        if len(lost) != a.gaps or count != a.lost:
            fail("%d loss slices of %d records, not %d of %d"
                 % (len(lost), count, a.gaps, a.lost))
    if a.runs:
        check_runs_against_json(t, a.runs)
    if a.domain is not None:
        for tid, pid in t.thread_pid.items():
            if pid != XEN_PID and pid != (a.domain + 1) << 16:
                fail("tid %d of pid %d, with --domain %d" % (tid, pid,
                                                              a.domain))
    if a.cpu is not None:
        if set(t.switches) - {a.cpu}:
            fail("scheduling on cpus %s, with --cpu %d"
                 % (sorted(t.switches), a.cpu))
        for name, tid in t.tracks.values():
            if tid is None and not name.startswith("pCPU %d" % a.cpu):
                fail("track %s, with --cpu %d" % (name, a.cpu))
    if a.window:
        if t.first_ts < a.window[0] or t.last_ts > a.window[1]:
            fail("events from %d to %d, outside [%d, %d]"
                 % (t.first_ts, t.last_ts, a.window[0], a.window[1]))
    if a.no_sched and (t.switches or t.wakings):
        fail("scheduling data, with --classes leaving sched out")
    if a.dump_header:
        check_clock(t, a.dump_header)
    print("%d packets, %d track events, %d switches, %d wakings, "
          "%d threads, %d tracks" % (len(t.packets), len(t.events),
                                      sum(map(len, t.switches.values())),
                                      len(t.wakings), len(t.declared_tids),
                                      len(t.tracks)))


if __name__ == "__main__":
    main()
