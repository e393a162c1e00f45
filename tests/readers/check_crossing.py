"""The summary's latencies across to dom0 (xentrace-summary's "crossing")
against chains whose every stage is known:

  check_crossing.py SUMMARY DUMP TRACE OUT

Takes TRACE, a capture of xen-sim's (two pCPUs, no dom0 lanes), and
writes OUT: the same with two dom0 lanes added.  For each run of d0v0 or
d0v1 that Xen's records show (blocked->runnable at W, runnable->running
at R, running for 4000 ticks or more), dom0's CPU of that vCPU takes an
IRQ "evtchn:test" at R + 1000 and wakes task "backend" (a pid of its own)
at R + 1500, which the other dom0 CPU runs at R + 3000.  The summary of
OUT must find each such chain and no other with those names, with run to
IRQ 1000 ticks, IRQ to task 2000, wake to run the largest R - W, and the
whole that plus 3000, at most (maxima are exact; the percentiles are the
sketch's); and the rest of the summary must be the summary of TRACE's.
"""
import json
import re
import struct
import subprocess
import sys

from checks import agree, fail, report

PAGE = 4096
CPU_CHANGE = 0x2001f003
PAD = 0x0001f002
DOM0 = 0x0001f01c
DOM0_EVENT = 0x0001f01d
SWITCH, WAKING, IRQ_ENTRY = 1, 2, 3
LANES = 2
RUN_IRQ, IRQ_WAKE, IRQ_TASK = 1000, 500, 2000


def chains(dump):
    """[(vcpu, W, R)] of the runs that take the chain."""
    woken, running, found = {}, {}, []
    for line in dump.splitlines():
        m = re.match(r"\s*(\d+) cpu\d+ +TRC_SCHED_RUNSTATE_CHANGE "
                     r"vcpu=d0v([01]) (\w+)->(\w+)", line)
        if not m:
            continue
        tsc, v, old, new = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        if old == "blocked" and new == "runnable":
            woken[v] = tsc
        elif old == "runnable" and new == "running" and v in woken:
            running[v] = (woken.pop(v), tsc)
        elif old == "running" and v in running:
            w, r = running.pop(v)
            if tsc - r >= 4000:
                found.append((v, w, r))
    return found


def record(tsc, words):
    return struct.pack("<III", 0x80000000 | len(words) << 28 | DOM0_EVENT,
                       tsc & 0xffffffff, tsc >> 32) + \
        struct.pack("<%dI" % len(words), *words)


def text(s, n):
    return list(struct.unpack("<%dI" % (n // 4), s.encode().ljust(n, b"\0")))


def lane_events(found):
    """{lane: [(tsc, bytes)]}"""
    lanes = {0: [], 1: []}
    for k, (v, w, r) in enumerate(found):
        pid = 5000 + k
        lanes[v].append((r + RUN_IRQ, record(r + RUN_IRQ, [IRQ_ENTRY << 24, 40] +
                                             text("evtchn:test", 20))))
        lanes[v].append((r + IRQ_WAKE + RUN_IRQ,
                         record(r + RUN_IRQ + IRQ_WAKE,
                                [WAKING << 24 | 1 - v, pid] + text("backend", 16))))
        lanes[1 - v].append((r + RUN_IRQ + IRQ_TASK,
                             record(r + RUN_IRQ + IRQ_TASK,
                                    [SWITCH << 24, 0, pid] + text("backend", 16))))
    return lanes


def padded(body, cpu):
    """A batch of @cpu: its CPU-change record, @body, pads to a page."""
    pad = (-(12 + len(body))) % PAGE
    out = body
    while pad:
        n = min(7, (pad - 4) // 4)
        out += struct.pack("<I", PAD | n << 28) + b"\0" * (4 * n)
        pad -= 4 + 4 * n
    return struct.pack("<III", CPU_CHANGE, cpu, len(out)) + out


def with_lanes(data, found):
    """@data with the lanes' metadata in its first batch, their batches
    after the rest."""
    hdr, cpu, nbytes = struct.unpack_from("<III", data, 0)
    first = data[12:12 + nbytes]
    nr_cpus = None
    pos = 0
    records = b""
    while pos < len(first):
        h, = struct.unpack_from("<I", first, pos)
        size = 4 + 8 * (h >> 31) + 4 * ((h >> 28) & 7)
        if h & 0x0fffffff == PAD:
            break
        if h & 0x0fffffff == 0x0001f013:
            nr_cpus, = struct.unpack_from("<I", first, pos + 4)
        records += first[pos:pos + size]
        pos += size
    records += struct.pack("<5I", 4 << 28 | DOM0, 1, nr_cpus, LANES, 1)
    out = padded(records, 0) + data[12 + nbytes:]
    for lane, events in lane_events(found).items():
        events.sort(key=lambda e: e[0])
        out += padded(b"".join(e[1] for e in events), nr_cpus + lane)
    return out


def summary(binary, path):
    return json.loads(subprocess.run([binary, "--json", path], check=True,
                                     capture_output=True).stdout)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: check_crossing.py SUMMARY DUMP TRACE OUT")
    binary, dump, trace, out = sys.argv[1:]
    found = chains(subprocess.run([dump, trace], check=True,
                                  capture_output=True, text=True).stdout)
    if len(found) < 10:
        fail("only %d runs of dom0's vCPUs to decorate" % len(found))
    open(out, "wb").write(with_lanes(open(trace, "rb").read(), found))
    before, after = summary(binary, trace), summary(binary, out)
    hz = after["tsc_hz"]
    rows = [r for r in (after["crossing"] or {"rows": []})["rows"]
            if r["irq"] == "evtchn:test"]
    if len(rows) != 1 or rows[0]["task"] != "backend":
        fail("rows of evtchn:test: %s" % rows)
        report()
    row = rows[0]
    us = lambda ticks: ticks * 1e6 / hz
    want = {
        "chains": len(found),
        "run_to_irq": us(RUN_IRQ),
        "irq_to_task": us(IRQ_TASK),
        "wake_to_run": us(max(r - w for _, w, r in found)),
        "total": us(max(r - w for _, w, r in found) + RUN_IRQ + IRQ_TASK),
    }
    if row["chains"] != want["chains"]:
        fail("%d chains, %d made" % (row["chains"], want["chains"]))
    for span in ("run_to_irq", "irq_to_task", "wake_to_run", "total"):
        got = row[span + "_us"]["max"]
        if abs(got - want[span]) > 0.001:
            fail("%s max %.3f us, made %.3f" % (span, got, want[span]))
        agree()
    # Xen's figures are none of the lanes' business (the first batch's
    # one more metadata record, TRC_XT_DOM0, is in CPU 0's "gen" class).
    for key in ("records", "bytes", "seconds", "domains", "vcpus", "pcpus"):
        if before[key] != after[key]:
            fail("%s changed with dom0's lanes" % key)
        agree()
    cpu = lambda c: (c["cpu"], c["records"], c["bytes"], c["from_seconds"],
                     c["to_seconds"])
    if [cpu(c) for c in before["cpus"]] != [cpu(c) for c in after["cpus"]]:
        fail("cpus changed with dom0's lanes")
    agree()
    report()


main()
