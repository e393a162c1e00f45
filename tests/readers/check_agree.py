#!/usr/bin/env python3
"""xentrace-summary's figures against Debian's xenalyze --summary's.

  check_agree.py xenalyze XENALYZE_SUMMARY SUMMARY_JSON
      on a loss-free trace, every figure both tools report agrees: per
      vCPU the count and mean cycles of each runstate (and of runnable's
      wake / preempt split), of each exit reason, of each I/O port; per
      vCPU the interrupts injected per vector and the PV hypercalls per
      name; per CPU the bytes of each class (tests/readers/check_export.py
      has that one).
  check_agree.py span SUMMARY_JSON
      on any trace, lossy too: per vCPU the time in every state, lost
      and unknown included, is the trace's span, to the cycle.

Counts agree exactly.  Cycles are compared as xenalyze prints them, a
mean in whole cycles (its total / count, rounded down): ours must give
the same integer.  Both tools add the same TSC differences, so there is
no tolerance to allow but the rounding of that division, which is
reproduced.  Seconds are not compared: xenalyze prints two decimals.

Where the two differ by design, the figures are brought to the same
footing, and the difference is checked rather than ignored:

  - xenalyze counts a vCPU's runstates only once it has seen it start
    running ("leaving INIT"); ours books the intervals before from the
    first runstate change, and reports them as "before_first_run".
  - xenalyze does not close the intervals open at the end of the trace,
    except a running vCPU's, which it closes at its pCPU's last record;
    ours closes all of them, and reports them as "at_end".
  - xenalyze's exit reason names for VMX reasons 7, 26, 27 and 41 are
    PENDING_INTERRUPT, VMOFF, VMON and MACHINE_CHECK; ours are Xen's
    (PENDING_VIRT_INTR, VMXOFF, VMXON, MCE_DURING_VMENTRY).
  - xenalyze's hypercall names are its own ("evtchn_op"); ours are Xen's
    __HYPERVISOR_* ("event_channel_op"): they are compared by number.
  - xenalyze's PV "hypercall" count and per-hypercall counts include
    multicall entries; ours lists those apart ("subcalls").

Exits 0 if all holds, 1 with the differences otherwise.
"""
import json
import re
import sys

EXIT_ALIASES = {
    "PENDING_INTERRUPT": "PENDING_VIRT_INTR",
    "VMOFF": "VMXOFF",
    "VMON": "VMXON",
    "MACHINE_CHECK": "MCE_DURING_VMENTRY",
}
STATES = ("running", "runnable", "blocked", "offline")
CAUSES = {"wake": "woken", "preempt": "preempted"}

RE_DOMAIN = re.compile(r"^\|-- Domain (\d+) --\|")
RE_VCPU = re.compile(r"^-- v(\d+) --")
RE_RUNSTATE = re.compile(r"^\s+(\w+):\s+(\d+)\s+[\d.]+s\s+(\d+)")
RE_EXIT = re.compile(r"^ ([A-Z][A-Z0-9_]+)\s+(\d+)\s+[\d.]+s\s+[\d.]+%\s+(\d+) cyc")
RE_VECTOR = re.compile(r"^  \[(\d+)\] (\d+)")
RE_IO = re.compile(r"^\s+([0-9a-f]+):\[([rw])\]\s+(\d+)\s+[\d.]+s\s+[\d.]+%\s+(\d+) cyc")
RE_PV = re.compile(r"^  (\S.*?)  (\d+)$")
RE_HYPERCALL = re.compile(r"^    (\S+)\s+\[\s*(\d+)\]:\s+(\d+)")

errors = []
compared = [0]


def fail(msg):
    errors.append(msg)


def agree(n=1):
    compared[0] += n


def parse_xenalyze(path):
    """{(dom, vcpu): {...}} from xenalyze --summary's per-vCPU sections."""
    vcpus = {}
    dom = v = None
    section = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = RE_DOMAIN.match(line)
        if m:
            dom, v, section = int(m.group(1)), None, None
            continue
        m = RE_VCPU.match(line)
        if m and dom is not None:
            v = vcpus.setdefault((dom, int(m.group(1))), {
                "runstates": {}, "exits": {}, "vectors": {}, "io": {},
                "pv": {}, "hypercalls": {}})
            section = None
            continue
        if v is None:
            continue
        if line.startswith(" Runstates:"):
            section = "runstates"
        elif line.startswith("Exit reasons:"):
            section = "exits"
        elif line.startswith("Guest interrupt counts:"):
            section = "vectors"
        elif line.startswith("IO address summary:"):
            section = "io"
        elif line.startswith("PV events:"):
            section = "pv"
        elif line.startswith(" cpu affinity") or (
                line and not line.startswith(" ") and section != "io"):
            section = None
        elif section == "runstates":
            m = RE_RUNSTATE.match(line)
            if m:
                v["runstates"][m.group(1)] = (int(m.group(2)), int(m.group(3)))
        elif section == "exits":
            m = RE_EXIT.match(line)
            if m:
                name = EXIT_ALIASES.get(m.group(1), m.group(1))
                v["exits"][name] = (int(m.group(2)), int(m.group(3)))
        elif section == "vectors":
            m = RE_VECTOR.match(line)
            if m:
                v["vectors"][int(m.group(1))] = int(m.group(2))
        elif section == "io":
            m = RE_IO.match(line)
            if m:
                key = (int(m.group(1), 16), m.group(2) == "w")
                v["io"][key] = (int(m.group(3)), int(m.group(4)))
            elif line and not line.startswith(" "):
                section = None
        elif section == "pv":
            m = RE_HYPERCALL.match(line)
            if m:
                v["hypercalls"][int(m.group(2))] = int(m.group(3))
                continue
            m = RE_PV.match(line)
            if m:
                v["pv"][m.group(1)] = int(m.group(2))
    return vcpus


def same_mean(what, xen, cycles, count):
    """xenalyze's (count, mean) against our total cycles and count."""
    xcount, xmean = xen
    agree(2)
    if count != xcount:
        fail("%s: count %d, xenalyze %d" % (what, count, xcount))
    elif count and cycles // count != xmean:
        fail("%s: mean %d cycles, xenalyze %d" % (what, cycles // count, xmean))


def compared_runstate(v, name):
    """Our (cycles, count) of runstate @name on xenalyze's footing."""
    key = CAUSES.get(name, name)
    s, head, tail = v["runstates"][key], v["before_first_run"][key], \
        v["at_end"][key]
    cycles = s["cycles"] - head["cycles"]
    count = s["count"] - head["count"]
    if key != "running":
        cycles -= tail["cycles"]
        count -= tail["count"]
    return cycles, count


def check_vcpu(name, ours, xen):
    for state in STATES + tuple(CAUSES):
        cycles, count = compared_runstate(ours, state)
        if state in xen["runstates"]:
            same_mean("%s %s" % (name, state), xen["runstates"][state],
                      cycles, count)
        elif count:
            fail("%s %s: %d intervals, xenalyze none" % (name, state, count))
    exits = {e["name"]: e for e in ours["exits"]}
    for reason in set(exits) | set(xen["exits"]):
        if reason not in xen["exits"]:
            fail("%s exit %s: %d, xenalyze none" %
                 (name, reason, exits[reason]["count"]))
        elif reason not in exits:
            fail("%s exit %s: none, xenalyze %d" %
                 (name, reason, xen["exits"][reason][0]))
        else:
            same_mean("%s exit %s" % (name, reason), xen["exits"][reason],
                      exits[reason]["cycles"], exits[reason]["count"])
    vectors = {e["key"]: e["count"] for e in ours["injected"]}
    agree(len(xen["vectors"]) + len(xen["hypercalls"]) + 2)
    if vectors != xen["vectors"]:
        fail("%s injected vectors %s, xenalyze %s" %
             (name, vectors, xen["vectors"]))
    io = {(e["key"] & ~(1 << 63), bool(e["key"] >> 63)): e
          for e in ours["io"]}
    if set(io) != set(xen["io"]):
        fail("%s I/O ports %s, xenalyze %s" %
             (name, sorted(io), sorted(xen["io"])))
    for key in set(io) & set(xen["io"]):
        same_mean("%s port %#x" % (name, key[0]), xen["io"][key],
                  io[key]["cycles"], io[key]["count"])
    hypercalls = {}
    for e in ours["hypercalls"] + ours["subcalls"]:
        hypercalls[e["key"]] = hypercalls.get(e["key"], 0) + e["count"]
    if hypercalls != xen["hypercalls"]:
        fail("%s PV hypercalls %s, xenalyze %s" %
             (name, hypercalls, xen["hypercalls"]))
    if hypercalls and xen["pv"].get("hypercall") != sum(hypercalls.values()):
        fail("%s PV hypercall total %d, xenalyze %s" %
             (name, sum(hypercalls.values()), xen["pv"].get("hypercall")))
    subcalls = sum(e["count"] for e in ours["subcalls"])
    if subcalls != xen["pv"].get("hypercall (subcall)", 0):
        fail("%s PV subcalls %d, xenalyze %s" %
             (name, subcalls, xen["pv"].get("hypercall (subcall)")))


def check_xenalyze(xen_path, summary_path):
    xen = parse_xenalyze(xen_path)
    summary = json.load(open(summary_path))
    ours = {(v["domain"], v["vcpu"]): v for v in summary["vcpus"]}
    guests = {k for k in ours if k[0] != 0x7fff}
    if not guests:
        fail("no guest vCPUs in the summary")
    for key in sorted(guests):
        name = "d%dv%d" % key
        if key not in xen:
            # xenalyze shows a vCPU once it has seen it run.
            if compared_runstate(ours[key], "running")[1]:
                fail("%s: ran, but xenalyze has no section" % name)
            continue
        check_vcpu(name, ours[key], xen[key])
    for key in set(xen) - set(ours):
        if key[0] < 0x7fff:
            fail("d%dv%d: in xenalyze only" % key)


def check_span(summary_path):
    summary = json.load(open(summary_path))
    span = summary["span_cycles"]
    for v in summary["vcpus"]:
        total = sum(v["runstates"][s]["cycles"] for s in
                    STATES + ("lost", "unknown"))
        agree()
        if total != span:
            fail("%s: states sum to %d cycles, span %d" %
                 (v["name"], total, span))
        split = v["runstates"]["woken"]["cycles"] + \
            v["runstates"]["preempted"]["cycles"]
        if split > v["runstates"]["runnable"]["cycles"]:
            fail("%s: woken + preempted exceed runnable" % v["name"])
    if not summary["vcpus"]:
        fail("no vCPUs")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "xenalyze":
        check_xenalyze(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "span":
        check_span(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(1)
    for e in errors[:20]:
        print(e)
    if len(errors) > 20:
        print("... and %d more" % (len(errors) - 20))
    if not errors:
        print("%d figures agree" % compared[0])
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
