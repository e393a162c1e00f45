#!/usr/bin/env python3
"""xentrace-summary's figures against Debian's xenalyze --summary's.

  check_agree.py xenalyze XENALYZE_SUMMARY SUMMARY_JSON
      on a loss-free trace, every figure both tools report agrees: per
      vCPU, guests' and Xen's idle ones, the count, mean cycles and
      seconds of each runstate (and of runnable's wake / preempt split),
      of each exit reason, of each VMCALL's hypercall, of each I/O port,
      of each MMIO address (--with-mmio-enumeration's: not the VGA
      window's, which xenalyze leaves out and ours sums in a row; the
      accesses of all, against its count of MMIO exits), of the CR_ACCESS exits by control register written and of the
      EXCEPTION_NMI exits, and the EXTERNAL_INTERRUPT exits by vector,
      where xenalyze prints them (the vCPU that set the handler first);
      per injected vector the time from the entry after it to the next
      halt ("wake to halt alone / any", "intr to halt");
      per vCPU the interrupts injected per vector, the PV hypercalls per
      number and the other PV events per kind, and the pCPUs it ran on;
      the trace's span and the TSC frequency both used; per domain its
      concurrency (its "Runstates": full and partial run and contention,
      concurrency hazard; check_concurrency() names the difference at a
      trace's end); per CPU the bytes of each class
      (tests/readers/check_export.py has that one); with xenalyze's
      --with-interrupt-eip-enumeration and our --interrupt-rips, per
      domain the guest RIPs that vector's interrupts came at (not their
      counts, which xenalyze prints as 0: check_interrupt_rips()).
  check_agree.py span SUMMARY_JSON
      on any trace, lossy too: per vCPU the time in every state, lost
      and unknown included, is the trace's span, to the cycle.
  check_agree.py intervals DUMP SUMMARY_JSON
      on a loss-free trace: each vCPU's running, blocked and offline
      intervals ("intervals": count, p50, p90, p99) are those between
      its runstate changes in xentrace-dump's lines: the counts the
      same, and each percentile within the sketch's bound of the exact
      one (1/128 of it, and the JSON's rounding), for every vCPU and
      state where the changes alone make every interval (not a PV vCPU
      whose running the scheduler proves by other records too).
  check_agree.py pcpus XENALYZE_REPORT_PCPU SUMMARY_JSON
      on a loss-free trace, per pCPU the seconds running a guest's vCPU
      and running the idle vCPU, as xenalyze --report-pcpu prints them;
      its counts, of the stints it timed from one context switch to the
      next, are within one of ours, the switches away from a guest's
      vCPU and from the idle one: it times no stint before a pCPU's first
      switch, and times the one still open at the end.
  check_agree.py mem DUMP SUMMARY_JSON
      on any trace: per domain, the memory operations done for it
      ("mem_for") are the dump's TRC_MEM records that name it, by event;
      those done by its vCPUs ("mem"), summed over the domains, are no
      more than the records (a record on a pCPU whose vCPU is not known
      is no domain's).  xenalyze counts neither: its "Grant table ops"
      stay empty, its grant records going to a function that only dumps.
  check_agree.py longest DUMP SUMMARY_JSON SHORT_JSON
      on a loss-free trace, the summary's --longest lists, with room for
      every interval (SUMMARY_JSON) and with few (SHORT_JSON), against
      the records of xentrace-dump's lines: each vCPU's exits of each
      reason, from its VMEXIT to its VMENTRY (HLT aside: its time in
      Xen leaves out the time halted, which the records alone do not
      show), the VMCALL exits by hypercall, and the waits from runnable
      to running between its runstate changes, the same lengths; each
      list longest first; the short lists the long ones' first items.

Counts agree exactly.  Cycles are compared as xenalyze prints them, a
mean in whole cycles (its total / count, rounded down): ours must give
the same integer.  Both tools add the same TSC differences, so there is
no tolerance to allow but the rounding of that division, which is
reproduced.  Seconds, xenalyze's total cycles over the --cpu-hz it was
given, printed with two decimals, must be within half a hundredth of
ours (TWO_DECIMALS): that is the rounding of its printf, and what
shows that both tools were given the same TSC frequency.

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
    __HYPERVISOR_* ("event_channel_op"): they are compared by number,
    but in the VMCALL split, which xenalyze gives by name only, through
    HYPERCALL_ALIASES.
  - xenalyze's PV "hypercall" count and per-hypercall counts include
    multicall entries; ours lists those apart ("subcalls").
  - xenalyze's PV event names are its own ("ptwr" for
    TRC_PV_PTWR_EMULATION): they are compared by number; its "ptwr"
    counts TRC_PV_PTWR_EMULATION_PAE too, which ours lists apart.
  - xenalyze splits VMCALL exits by hypercall for one vCPU at most, the
    first it sees one on (hvm_set_summary_handler() sets the summary's
    handler once per call site, for the vCPU at hand, which may be its
    placeholder for records before a pCPU's first scheduler record):
    compared where it prints it, and checked that it is one vCPU at most.
  - where each vCPU ran: xenalyze's "cpu affinity" is residence, from a
    vCPU's first run on a pCPU to its next run elsewhere (or the trace's
    end), booked to the pCPU it moves to; ours is the running time on
    each pCPU.  So its residences are our migrations + 1, its pCPUs are
    among ours, and without a migration they are the one pCPU it ran on.
    Its first residence starts at its first switch to the vCPU: one that
    the trace finds running, or in a state unknown to us, and that moved
    before that switch (seen on real Xen on Arm, busy dom0 vCPUs) may
    have one residence fewer, our migrations alone.
    xenalyze places a vCPU at a TRC_SCHED_SWITCH to it: one only ever
    seen running (continue-running records: real Xen's busy dom0 vCPUs)
    has no affinity, and none of our intervals in another state.
  - xenalyze's domain runstates are about concurrency (full / partial
    run, contention, all vCPUs blocked); ours add the vCPUs' states, and
    are not compared.
  - xenalyze's percentiles of a runstate ({p5|p50|p95}) come from its
    own sample of the intervals, and are not compared: ours are checked
    against the records instead ("intervals" above).  On the demo's HVM
    vCPUs they disagree with the records: d1v0's running intervals have
    a median of 5.62 M cycles between its runstate changes, 5.60 M in
    ours, 8.42 M in xenalyze's.

Exits 0 if all holds, 1 with the differences otherwise.
"""
import json
import re
import sys

from checks import agree, compared, fail, report

EXIT_ALIASES = {
    "PENDING_INTERRUPT": "PENDING_VIRT_INTR",
    "VMOFF": "VMXOFF",
    "VMON": "VMXON",
    "MACHINE_CHECK": "MCE_DURING_VMENTRY",
}
STATES = ("running", "runnable", "blocked", "offline")
CAUSES = {"wake": "woken", "preempt": "preempted"}
# xenalyze's hypercall names that are not Xen's __HYPERVISOR_* ones.
HYPERCALL_ALIASES = {
    "evtchn_op": "event_channel_op",
    "sched_op(compat)": "sched_op_compat",
    "evtchn_op(compat)": "event_channel_op_compat",
    "physdev_op(compat)": "physdev_op_compat",
}

# xenalyze's PV event numbers (its PV_* enum: TRC_PV_*'s low byte).
PV_EVENTS = {
    "trap": 3, "page_fault": 4, "forced_invalid_op": 5,
    "emulate privop": 6, "emulate 4g": 7, "math state restore": 8,
    "paging fixup": 9, "gdt/ldt mapping fault": 10, "ptwr": 11,
    "ptwr(pae)": 12,
}
PV_PTWR, PV_PTWR_PAE = 11, 12
IDLE_DOMAIN = 0x7fff
DEFAULT_DOMAIN = 0x8000     # xenalyze's, for vCPUs of no known domain
TWO_DECIMALS = 0.005 + 1e-9  # the rounding of xenalyze's "%.2lf"

# "2.40 GHz", or below 1 GHz (an Arm generic timer's) "62.50 MHz".
RE_TOTAL = re.compile(r"^Total time: ([\d.]+) seconds \(using cpu speed ([\d.]+) ([GM])Hz\)")
HZ_OF_UNIT = {"G": 1e9, "M": 1e6}
RE_DOMAIN = re.compile(r"^\|-- Domain (\d+) --\|")
RE_VCPU = re.compile(r"^-- v(\d+) --")
RE_RUNSTATE = re.compile(r"^\s+(\w+):\s+(\d+)\s+([\d.]+)s\s+(\d+)")
RE_CONCURRENCY = re.compile(r"^\s+([a-z_ ]+):\s+(\d+)\s+([\d.]+)s\s+(\d+)")
# xenalyze's names of a domain's runstates, and our JSON's.
CONCURRENCY = {"blocked": "blocked", "partial run": "partial_run",
               "full run": "full_run",
               "partial contention": "partial_contention",
               "concurrency_hazard": "hazard",
               "full_contention": "full_contention", "lost": "lost"}
RE_EXIT = re.compile(r"^ ([A-Z][A-Z0-9_]+)\s+(\d+)\s+([\d.]+)s\s+[\d.]+%\s+(\d+) cyc")
RE_VMCALL = re.compile(r"^    \[\s*([^]\s]+)\]\s+(\d+)\s+([\d.]+)s\s+[\d.]+%\s+(\d+) cyc")
# Under an exit reason, the lines of the handler xenalyze set for it:
# CR_ACCESS's control registers written, EXCEPTION_NMI's traps, and
# EXTERNAL_INTERRUPT's vectors ("LOCAL_TIMER(249): 409", "[ 73]: 29").
RE_CR = re.compile(r"^   cr(\d+)\s+(\d+)\s+([\d.]+)s\s+[\d.]+%\s+(\d+) cyc")
RE_TRAP = re.compile(r"^   (trap)\s+(\d+)\s+([\d.]+)s\s+[\d.]+%\s+(\d+) cyc")
RE_EXTINT = re.compile(r"^\s+(?:\w+\(\s*(\d+)\)|\[\s*(\d+)\]):\s+(\d+)$")
RE_AFFINITY = re.compile(r"^ cpu affinity:\s+(\d+)")
RE_AFFINITY_CPU = re.compile(r"^   \[(\d+)\]:\s+(\d+)")
RE_VECTOR = re.compile(r"^  \[(\d+)\] (\d+)")
RE_TO_HALT = re.compile(r"^   \* (wake to halt alone|wake to halt any|intr to halt)"
                        r"\s*:\s+(\d+)\s+([\d.]+)s\s+(\d+)")
RE_IO = re.compile(r"^\s*([0-9a-f]+):\[([rw])\]\s+(\d+)\s+([\d.]+)s\s+[\d.]+%\s+(\d+) cyc")
# Under EPT_VIOLATION (NPF), its MMIO exits, every address counted.
RE_MMIO_EXITS = re.compile(r"^   mmio\s+(\d+)\s+([\d.]+)s\s+[\d.]+%\s+(\d+) cyc")
# The VGA window, which xenalyze leaves out of its MMIO table (by default;
# it tests gpa < 0xbffff, we < 0xc0000) and our table has as one row.
VGA_START = 0xa0000
RE_PV = re.compile(r"^  (\S.*?)  (\d+)$")
# --with-interrupt-eip-enumeration's list of a domain: "Interrupt eip
# list (vector 249)", then "   ffff81234568<45 blanks, a symbol's room>:
# 0 -nan%": a RIP's low 48 bits, and a count that is always 0 (below).
RE_RIPS = re.compile(r"^Interrupt eip list \(vector (\d+)\)")
RE_RIP = re.compile(r"^\s+([0-9a-f]+)\s*:\s+(\d+)\s+\S+%$")
RIP_BITS = 48
RE_HYPERCALL = re.compile(r"^    (\S+)\s+\[\s*(\d+)\]:\s+(\d+)")

tsc_hz = [0]               # the summary's, which xenalyze was given
vmcall_splits = []         # the vCPUs xenalyze splits VMCALL for
vmcall_splits_unprinted = []    # those it does not, though ours does




def figure(m):
    """(count, mean cycles, seconds) of a matched summary line."""
    return int(m.group(2)), int(m.group(4)), float(m.group(3))


def parse_xenalyze(path):
    """{(dom, vcpu): {...}} from xenalyze --summary's per-vCPU sections,
    its total time and TSC frequency, as (seconds, the frequency in its
    unit, Hz per unit), {dom: {state: figure}} of its domains'
    runstates (their concurrency), and {dom: {rip: count}} of its
    interrupt RIP lists (--with-interrupt-eip-enumeration): their vector
    and RIPs."""
    vcpus, total, domains, rips = {}, None, {}, {}
    dom = v = None
    section = exit_reason = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = RE_TOTAL.match(line)
        if m:
            total = (float(m.group(1)), float(m.group(2)),
                     HZ_OF_UNIT[m.group(3)])
            continue
        m = RE_DOMAIN.match(line)
        if m:
            dom, v, section = int(m.group(1)), None, None
            continue
        m = RE_VCPU.match(line)
        if m and dom is not None:
            v = vcpus.setdefault((dom, int(m.group(1))), {
                "runstates": {}, "exits": {}, "vmcalls": {}, "vectors": {},
                "io": {}, "pv": {}, "hypercalls": {}, "affinity": None,
                "affinity_cpus": set(), "cr_writes": {}, "traps": None,
                "extints": {}, "to_halt": {}, "mmio": {},
                "mmio_exits": None})
            section = None
            continue
        m = RE_RIPS.match(line)
        if m:
            section = "rips"
            rips.setdefault(dom, {"vector": int(m.group(1)), "rips": set()})
            continue
        if section == "rips":
            m = RE_RIP.match(line)
            if m:
                rips[dom]["rips"].add(int(m.group(1), 16))
                continue
            if line.startswith("   Total samples:"):
                continue
            section = None
        if v is None:
            if dom is not None and line.startswith(" Runstates:"):
                section = "concurrency"
            elif section == "concurrency":
                m = RE_CONCURRENCY.match(line)
                if m and m.group(1).strip() in CONCURRENCY:
                    domains.setdefault(dom, {})[
                        CONCURRENCY[m.group(1).strip()]] = figure(m)
                else:
                    section = None
            continue
        if line.startswith(" Runstates:"):
            section = "runstates"
        elif line.startswith("Exit reasons:"):
            section = "exits"
        elif line.startswith("Guest interrupt counts:"):
            section = "vectors"
        elif line.startswith("IO address summary:"):
            section = "io"
        elif line.startswith("MMIO address summary:"):
            section = "mmio"
        elif line.startswith("PV events:"):
            section = "pv"
        elif RE_AFFINITY.match(line):
            section = "affinity"
            v["affinity"] = int(RE_AFFINITY.match(line).group(1))
        elif line and not line.startswith(" ") and \
                section not in ("io", "mmio"):
            section = None
        elif section == "runstates":
            m = RE_RUNSTATE.match(line)
            if m:
                v["runstates"][m.group(1)] = figure(m)
        elif section == "affinity":
            m = RE_AFFINITY_CPU.match(line)
            if m:
                v["affinity_cpus"].add(int(m.group(1)))
        elif section == "exits":
            m = RE_EXIT.match(line)
            if m:
                exit_reason = EXIT_ALIASES.get(m.group(1), m.group(1))
                v["exits"][exit_reason] = figure(m)
                continue
            m = RE_VMCALL.match(line)
            if m and exit_reason == "VMCALL":
                name = HYPERCALL_ALIASES.get(m.group(1), m.group(1))
                v["vmcalls"][name] = figure(m)
                continue
            m = RE_CR.match(line)
            if m and exit_reason == "CR_ACCESS":
                v["cr_writes"][int(m.group(1))] = figure(m)
                continue
            m = RE_TRAP.match(line)
            if m and exit_reason == "EXCEPTION_NMI":
                v["traps"] = figure(m)
                continue
            m = RE_MMIO_EXITS.match(line)
            if m and exit_reason in ("EPT_VIOLATION", "NPF"):
                v["mmio_exits"] = int(m.group(1))
                continue
            m = RE_EXTINT.match(line)
            if m and exit_reason == "EXTERNAL_INTERRUPT":
                vector = int(m.group(1) or m.group(2))
                v["extints"][vector] = int(m.group(3))
        elif section == "vectors":
            m = RE_VECTOR.match(line)
            if m:
                vector = int(m.group(1))
                v["vectors"][vector] = int(m.group(2))
                continue
            m = RE_TO_HALT.match(line)
            if m:
                v["to_halt"]["0x%02x %s" % (vector, m.group(1))] = figure(m)
        elif section in ("io", "mmio"):
            m = RE_IO.match(line)
            if m:
                key = (int(m.group(1), 16), m.group(2) == "w")
                v[section][key] = (int(m.group(3)), int(m.group(5)),
                                   float(m.group(4)))
            elif line.startswith("MMIO address summary:"):
                section = "mmio"
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
    return vcpus, total, domains, rips


def same_seconds(what, seconds, cycles, slack=0.0):
    """xenalyze's printed seconds against our cycles at the file's rate,
    give or take @slack seconds."""
    agree()
    if abs(cycles / tsc_hz[0] - seconds) > TWO_DECIMALS + slack:
        fail("%s: %.6f s, xenalyze %.2f s" % (what, cycles / tsc_hz[0],
                                               seconds))


def same_mean(what, xen, cycles, count):
    """xenalyze's (count, mean, seconds) against our total cycles and
    count."""
    xcount, xmean, xseconds = xen
    agree(2)
    if count != xcount:
        fail("%s: count %d, xenalyze %d" % (what, count, xcount))
    elif count and cycles // count != xmean:
        fail("%s: mean %d cycles, xenalyze %d" % (what, cycles // count, xmean))
    same_seconds(what, xseconds, cycles)


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


def same_table(what, ours, theirs):
    """Our {name: entry} against xenalyze's {name: (count, mean, s)}."""
    for key in set(ours) | set(theirs):
        if key not in theirs:
            fail("%s %s: %d, xenalyze none" % (what, key, ours[key]["count"]))
        elif key not in ours:
            fail("%s %s: none, xenalyze %d" % (what, key, theirs[key][0]))
        else:
            same_mean("%s %s" % (what, key), theirs[key],
                      ours[key]["cycles"], ours[key]["count"])


def check_runstates(name, ours, xen):
    for state in STATES + tuple(CAUSES):
        cycles, count = compared_runstate(ours, state)
        if state in xen["runstates"]:
            same_mean("%s %s" % (name, state), xen["runstates"][state],
                      cycles, count)
        elif count:
            fail("%s %s: %d intervals, xenalyze none" % (name, state, count))


def placed_without_switch(ours):
    """Whether the trace starts with the vCPU in a state no switch to it
    began: running from its first record, or unknown before its first."""
    before = ours["before_first_run"]
    return (before["unknown"]["count"] > 0 or
            not any(s["count"] for s in before.values()))


def check_pcpus(name, ours, xen):
    """Where it ran: xenalyze's residences against our runs per pCPU."""
    ran_on = {p["key"] for p in ours["pcpus"]}
    agree(2)
    if xen["affinity"] is None:
        # xenalyze places a vCPU at a switch to it: one only ever seen
        # running (continue-running records) has no affinity.
        if [s for s in STATES[1:] if compared_runstate(ours, s)[1]]:
            fail("%s: ran on pCPUs %s, xenalyze no affinity" %
                 (name, sorted(ran_on)))
        return
    residences = {ours["migrations"] + 1}
    if placed_without_switch(ours):
        # xenalyze's first residence starts at its first switch to the
        # vCPU: a move before it, from where the vCPU was at the start,
        # is not one of its residences.
        residences.add(ours["migrations"])
    if xen["affinity"] not in residences:
        fail("%s: %d residences, our migrations %d" %
             (name, xen["affinity"], ours["migrations"]))
    if not xen["affinity_cpus"] <= ran_on or (
            not ours["migrations"] and xen["affinity_cpus"] != ran_on):
        fail("%s: xenalyze's pCPUs %s, ours %s" %
             (name, sorted(xen["affinity_cpus"]), sorted(ran_on)))


def check_hvm(name, ours, xen):
    same_table("%s exit" % name, {e["name"]: e for e in ours["exits"]},
               xen["exits"])
    if xen["vmcalls"]:
        same_table("%s VMCALL" % name,
                   {e["name"]: e for e in ours["vmcalls"]}, xen["vmcalls"])
        vmcall_splits.append(name)
    elif ours["vmcalls"]:
        vmcall_splits_unprinted.append(name)
    # The handlers' lines: where xenalyze prints them (for the vCPU
    # whose exit set the handler first, as its VMCALLs').
    for cr, figures in xen["cr_writes"].items():
        mine = [e for e in ours["cr_writes"] if e["key"] == cr]
        same_mean("%s cr%d writes" % (name, cr), figures,
                  mine[0]["cycles"] if mine else 0,
                  mine[0]["count"] if mine else 0)
    if xen["traps"]:
        same_mean("%s exception exits" % name, xen["traps"],
                  sum(e["cycles"] for e in ours["exceptions"]),
                  sum(e["count"] for e in ours["exceptions"]))
    if xen["extints"]:
        agree()
        extints = {e["key"]: e["count"] for e in ours["extints"]}
        if extints != xen["extints"]:
            fail("%s external interrupt vectors %s, xenalyze %s" %
                 (name, extints, xen["extints"]))
    same_table("%s to halt" % name, {e["name"]: e for e in ours["to_halt"]},
               xen["to_halt"])
    vectors = {e["key"]: e["count"] for e in ours["injected"]}
    agree(len(xen["vectors"]) + 1)
    if vectors != xen["vectors"]:
        fail("%s injected vectors %s, xenalyze %s" %
             (name, vectors, xen["vectors"]))
    same_addresses("%s I/O port" % name, by_address(ours["io"]), xen["io"])
    check_mmio(name, ours, xen)


def by_address(entries):
    """{(address, write): entry} of our I/O or MMIO table."""
    return {(e["key"] & ~(1 << 63), bool(e["key"] >> 63)): e
            for e in entries}


def same_addresses(what, ours, theirs):
    """Our {(address, write): entry} against xenalyze's, the same
    addresses, each with the same count, mean and seconds."""
    if set(ours) != set(theirs):
        fail("%ss %s, xenalyze %s" % (what, sorted(ours), sorted(theirs)))
    for key in set(ours) & set(theirs):
        same_mean("%s %#x" % (what, key[0]), theirs[key],
                  ours[key]["cycles"], ours[key]["count"])


def check_interrupt_rips(summary, rips):
    """Per domain, the RIPs of --interrupt-rips' vector: xenalyze's list
    has the same RIPs (it keeps a RIP's low 48 bits, ours all 64; past
    4096 RIPs ours counts the rest in interrupt_rips_others).  Its counts
    are always 0, a fault of xenalyze's: update_eip() is given 0 cycles,
    and update_cycles() counts only samples with cycles.  Ours add up
    instead to the domain's exits of that vector."""
    for d in summary["domains"]:
        theirs = rips.get(d["domain"])
        if not theirs:
            continue
        ours = {e["key"] & ((1 << RIP_BITS) - 1) for e in d["interrupt_rips"]}
        others = d.get("interrupt_rips_others", {"count": 0})["count"]
        exits = sum(e["count"] for e in d["extints"]
                    if e["key"] == theirs["vector"])
        agree(2)
        if ours != theirs["rips"] and not (others and ours < theirs["rips"]):
            fail("d%d: %d interrupt RIPs, xenalyze %d; %s apart" % (
                d["domain"], len(ours), len(theirs["rips"]),
                ["%#x" % r for r in sorted(ours ^ theirs["rips"])[:5]]))
        if sum(e["count"] for e in d["interrupt_rips"]) + others != exits:
            fail("d%d: %d interrupts by RIP, %d exits of vector %d" % (
                d["domain"], sum(e["count"] for e in d["interrupt_rips"]) +
                others, exits, theirs["vector"]))


def check_mmio(name, ours, xen):
    """MMIO by address: xenalyze's table is ours but the VGA window's row
    (named above); its count of MMIO exits has every address, ours too."""
    if xen["mmio_exits"] is not None:
        agree()
        if sum(e["count"] for e in ours["mmio"]) != xen["mmio_exits"]:
            fail("%s: %d MMIO accesses, xenalyze %d MMIO exits" %
                 (name, sum(e["count"] for e in ours["mmio"]),
                  xen["mmio_exits"]))
    if not xen["mmio"]:
        return
    agree()
    same_addresses("%s MMIO address" % name,
                   {k: e for k, e in by_address(ours["mmio"]).items()
                    if k[0] != VGA_START}, xen["mmio"])


def check_pv(name, ours, xen):
    hypercalls = {}
    for e in ours["hypercalls"] + ours["subcalls"]:
        hypercalls[e["key"]] = hypercalls.get(e["key"], 0) + e["count"]
    agree(len(xen["hypercalls"]) + 3)
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
    events = {}
    for e in ours["pv"]:
        number = PV_PTWR if e["key"] & 0xff == PV_PTWR_PAE else e["key"] & 0xff
        events[number] = events.get(number, 0) + e["count"]
    theirs = {PV_EVENTS[k]: n for k, n in xen["pv"].items() if k in PV_EVENTS}
    agree(len(theirs))
    if events != theirs:
        fail("%s PV events %s, xenalyze %s" % (name, events, theirs))


def ends_apart(summary):
    """Seconds between the first pCPU's records ending and the trace's
    end: 0 where they all end at one TSC, as xentrace-ng's end records
    (TRC_XT_END, at the newest TSC) make them."""
    ends = [c["to_seconds"] for c in summary["cpus"]
            if c["to_seconds"] is not None]
    return max(ends) - min(ends) if ends else 0.0


def check_concurrency(summary, domains):
    """Each domain's concurrency, xenalyze's domain runstates.  Where the
    pCPUs' records end at different TSCs (upstream's files), xenalyze
    loses a pCPU's vCPU as its records end, ours as the trace ends, in
    the order the pCPUs' records ended (the same from a file and a pipe,
    which cannot know a pCPU's end before the stream's).  Until the first
    pCPU's records end the two agree, so each domain's last stretch alone
    may be booked to another state: each count is within one, the mean
    is not compared, and the seconds are within that stretch."""
    apart = ends_apart(summary)
    for d in summary["domains"]:
        if d["domain"] in (IDLE_DOMAIN, DEFAULT_DOMAIN):
            continue
        theirs = domains.get(d["domain"], {})
        for key, ours in d["concurrency"].items():
            what = "d%d %s" % (d["domain"], key)
            count, mean, seconds = theirs.get(key, (0, 0, 0.0))
            if not apart or abs(ours["count"] - count) > 1:
                same_mean(what, (count, mean, seconds), ours["cycles"],
                          ours["count"])
            else:
                same_seconds(what, seconds, ours["cycles"], apart)


def xenalyze_span(summary):
    """The span xenalyze reads, in cycles: ours, Xen's records', but for
    dom0's lanes (xentrace --dom0), whose events xenalyze takes for a
    pCPU's and so spans too: from the first CPU's or lane's first record
    to the last one's last."""
    lanes = summary["dom0"]["cpus"] if summary["dom0"] else []
    times = [(c["from_seconds"], c["to_seconds"])
             for c in summary["cpus"] + lanes if c["from_seconds"] is not None]
    if not lanes or not times:
        return summary["span_cycles"]
    return (max(t for _, t in times) - min(f for f, _ in times)) * \
        summary["tsc_hz"]


def check_xenalyze(xen_path, summary_path):
    xen, total, domains, rips = parse_xenalyze(xen_path)
    summary = json.load(open(summary_path))
    tsc_hz[0] = summary["tsc_hz"]
    ours = {(v["domain"], v["vcpu"]): v for v in summary["vcpus"]}
    if not [k for k in ours if k[0] != IDLE_DOMAIN]:
        fail("no guest vCPUs in the summary")
    agree(2)
    if total is None:
        fail("no total time in xenalyze's output")
    else:
        same_seconds("span", total[0], xenalyze_span(summary))
        if abs(tsc_hz[0] / total[2] - total[1]) > TWO_DECIMALS:
            fail("TSC at %d Hz, xenalyze %.2f %s" % (
                tsc_hz[0], total[1], "GHz" if total[2] == 1e9 else "MHz"))
    for key in sorted(ours):
        name = ours[key]["name"]
        if key not in xen:
            # xenalyze shows a vCPU once it has seen it run.
            if compared_runstate(ours[key], "running")[1]:
                fail("%s: ran, but xenalyze has no section" % name)
            continue
        check_runstates(name, ours[key], xen[key])
        check_pcpus(name, ours[key], xen[key])
        check_hvm(name, ours[key], xen[key])
        check_pv(name, ours[key], xen[key])
    for key in set(xen) - set(ours):
        if key[0] != DEFAULT_DOMAIN:
            fail("d%dv%d: in xenalyze only" % key)
    check_concurrency(summary, domains)
    check_interrupt_rips(summary, rips)
    agree()
    if vmcall_splits_unprinted and len(vmcall_splits) > 1:
        fail("xenalyze splits VMCALL by hypercall for %s, not one vCPU" %
             vmcall_splits)


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


SPAN_STATES = ("running", "blocked", "offline")
PERCENTILES = ((0.5, "p50_us"), (0.9, "p90_us"), (0.99, "p99_us"))


def dump_intervals(dump_path):
    """{(vcpu, state): [cycles]} between each vCPU's runstate changes."""
    last, spans = {}, {}
    for line in open(dump_path):
        f = line.split()
        if len(f) < 5 or f[2] != "TRC_SCHED_RUNSTATE_CHANGE":
            continue
        tsc, vcpu = int(f[0]), f[3].split("=")[1]
        old, new = f[4].split("->")
        if vcpu in last and last[vcpu][0] == old:
            spans.setdefault((vcpu, old), []).append(tsc - last[vcpu][1])
        last[vcpu] = (new, tsc)
    return spans


def exact_quantile(values, q):
    """As the sketch ranks: the round(q * n)-th smallest, 1-based."""
    rank = max(1, min(len(values), int(q * len(values) + 0.5)))
    return values[rank - 1]


def check_intervals(dump_path, summary_path):
    summary = json.load(open(summary_path))
    hz = summary["tsc_hz"]
    spans = dump_intervals(dump_path)
    for v in summary["vcpus"]:
        name = v["name"].split()[0]
        for state in SPAN_STATES:
            ours = v["intervals"][state]
            exact = sorted(spans.get((name, state), []))
            if not exact or len(exact) != ours["count"]:
                continue
            agree()
            for q, key in PERCENTILES:
                want = exact_quantile(exact, q) * 1e6 / hz
                if abs(ours[key] - want) > want / 128 + 0.002:
                    fail("%s %s %s: %.3f us, the records %.3f" %
                         (name, state, key, ours[key], want))
    if compared[0] < 4:
        fail("only %d vCPU states compared" % compared[0])


EXIT_EVENTS = ("TRC_HVM_VMEXIT", "TRC_HVM_VMX_EXIT", "TRC_HVM_SVM_EXIT")


def dump_exits(dump_path):
    """[(vcpu, reason, cycles, hypercall)] of each exit, VMEXIT to VMENTRY
    or to the vCPU's preemption (its wait for a pCPU is none of the exit's,
    as in xenalyze), by the vCPU the dump's note names (hypercall None but
    for VMCALLs)."""
    opened, exits = {}, []
    for line in open(dump_path):
        f = line.split()
        if len(f) > 4 and f[2] == "TRC_SCHED_RUNSTATE_CHANGE" and \
                f[4].endswith("->runnable"):
            vcpu = f[3].split("=")[1]
            if vcpu in opened:
                tsc, reason, hypercall = opened.pop(vcpu)
                exits.append((vcpu, reason, int(f[0]) - tsc, hypercall))
        if " | " not in line:
            continue
        note = line.split(" | ", 1)[1].split()
        vcpu, event = note[0], f[2]
        if vcpu == "?":
            continue
        if event.startswith(EXIT_EVENTS):
            opened[vcpu] = [int(f[0]), note[1] if len(note) > 1 else "?",
                            None]
        elif event == "TRC_HVM_VMMCALL" and vcpu in opened and len(note) > 1:
            opened[vcpu][2] = note[1]
        elif event.startswith("TRC_HVM_VMENTRY") and vcpu in opened:
            tsc, reason, hypercall = opened.pop(vcpu)
            exits.append((vcpu, reason, int(f[0]) - tsc, hypercall))
    return exits


def same_lengths(what, ours, records, hz):
    """Per key, our lengths (us) are the records' (cycles), where as many."""
    for key, exact in records.items():
        mine = sorted(ours.get(key, []))
        if len(mine) != len(exact):
            continue
        agree()
        want = sorted(c * 1e6 / hz for c in exact)
        for m, w in zip(mine, want):
            if abs(m - w) > 0.0015:
                fail("%s %s: %.3f us, the records %.3f" % (what, key, m, w))
                break


def check_longest(dump_path, summary_path, short_path):
    summary = json.load(open(summary_path))
    short = json.load(open(short_path))["longest"]
    hz, longest = summary["tsc_hz"], summary["longest"]
    for kind, items in longest.items():
        us = [i["us"] for i in items]
        if us != sorted(us, reverse=True):
            fail("longest %s: not longest first" % kind)
        if short[kind] != items[:len(short[kind])]:
            fail("longest %s: the short list is not the long one's first"
                 % kind)
    exits, calls, records, call_records = {}, {}, {}, {}
    for i in longest["exits"]:
        exits.setdefault((i["vcpu"], i["reason"]), []).append(i["us"])
    for i in longest["hypercalls"]:
        calls.setdefault((i["vcpu"], i["hypercall"]), []).append(i["us"])
    for vcpu, reason, cycles, hypercall in dump_exits(dump_path):
        if reason != "HLT":
            records.setdefault((vcpu, reason), []).append(cycles)
        if hypercall:
            call_records.setdefault((vcpu, hypercall), []).append(cycles)
    same_lengths("exit", exits, records, hz)
    same_lengths("hypercall", calls, call_records, hz)
    waits = {}
    for i in longest["waits"]:
        waits.setdefault(i["vcpu"], []).append(i["us"])
    spans = dump_intervals(dump_path)
    same_lengths("wait", waits, {v: c for (v, state), c in spans.items()
                                 if state == "runnable" and
                                 not v.startswith("idle")}, hz)
    if compared[0] < 10:
        fail("only %d lists compared" % compared[0])


def check_mem(dump_path, summary_path):
    summary = json.load(open(summary_path))
    records, done_for = {}, {}
    for line in open(dump_path):
        f = line.split()
        if len(f) > 3 and f[2].startswith("TRC_MEM_") and \
                f[3].startswith("dom="):
            key = (f[2], int(f[3].split("=")[1]))
            records[key] = records.get(key, 0) + 1
            records[f[2]] = records.get(f[2], 0) + 1
    for d in summary["domains"]:
        for e in d["mem_for"]:
            done_for[(e["name"], d["domain"])] = e["count"]
    done_by = {}
    for d in summary["domains"]:
        for e in d["mem"]:
            done_by[e["name"]] = done_by.get(e["name"], 0) + e["count"]
    for key, count in records.items():
        if isinstance(key, str):
            agree()
            if done_by.get(key, 0) > count:
                fail("%s: done by %d, more than the %d records" %
                     (key, done_by[key], count))
            continue
        agree()
        if done_for.get(key, 0) != count:
            fail("d%d %s done for it: %d, the records %d" %
                 (key[1], key[0], done_for.get(key, 0), count))
    if compared[0] < 4:
        fail("only %d memory figures compared" % compared[0])


def xenalyze_pcpus(path):
    """{(cpu, "running"|"idle"|"lost"): (count, seconds)} of --report-pcpu."""
    cpu, out = None, {}
    for line in open(path):
        m = re.match(r"pcpu (\d+)$", line)
        if m:
            cpu = int(m.group(1))
            continue
        m = re.match(r"\s*(running|idle|lost):\s+(\d+)\s+([\d.]+)s", line)
        if m and cpu is not None:
            out[(cpu, m.group(1))] = (int(m.group(2)), float(m.group(3)))
    return out


def check_pcpu_report(report_path, summary_path):
    theirs = xenalyze_pcpus(report_path)
    summary = json.load(open(summary_path))
    for p in summary["pcpus"]:
        for what, switches in (("running", "switches_from_running"),
                               ("idle", "switches_from_idle")):
            count, seconds = theirs.get((p["cpu"], what), (0, 0.0))
            agree()
            if abs(p[what]["seconds"] - seconds) > TWO_DECIMALS:
                fail("p%d %s: %.6f s, xenalyze %.2f" %
                     (p["cpu"], what, p[what]["seconds"], seconds))
            if abs(p[switches] - count) > 1:
                fail("p%d %s: %d switches, xenalyze %d stints" %
                     (p["cpu"], what, p[switches], count))
    if not summary["pcpus"]:
        fail("no pCPUs compared")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "xenalyze":
        check_xenalyze(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "intervals":
        check_intervals(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "mem":
        check_mem(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "pcpus":
        check_pcpu_report(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "longest":
        check_longest(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 3 and sys.argv[1] == "span":
        check_span(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(1)
    report()


if __name__ == "__main__":
    main()
