#!/usr/bin/env python3
"""xentrace-summary --diff against the two traces' own summaries.

  check_diff.py DIFF BEFORE_JSON AFTER_JSON

DIFF is `xentrace-summary --diff BEFORE AFTER`'s text (no --top), the
JSONs are `xentrace-summary --json` of each trace.  Every domain of
either summary has its block, titled with its name, "only before" or
"only after" where the other trace lacks it; the idle domain's running
time is its pCPUs' idle time.  In each block, each figure is its
trace's, to the printed digits:

  - vCPUs running and waiting to run: the domain's running and runnable
    cycles over the trace's span;
  - waits to run per second, and their p50 and p99 in microseconds: the
    woken and preempted waits of the JSON's latency together (their
    percentiles merged lie between the lower of the causes' own and the
    longer of their longest);
  - per exit reason, per hypercall (PV hypercalls and VMCALL exits) and
    per injected vector: the count per second of the span, and an exit's
    mean and p99 time in Xen in microseconds; a key that only one trace
    has is "only before" or "only after", one that both have with the
    same figure "=";
  - each change is (after - before) / before of the two figures, to the
    printed rounding.

Exits 0 if all holds, 1 with the differences otherwise.
"""
import json
import re
import sys

from checks import agree, fail, report

SIDES = ("before", "after")
RE_TRACE = re.compile(r"^(before|after) +(.+): ([\d.]+) s at ([\d.]+) MHz")
TABLES = {"exit": "exits", "hypercall": "hypercalls", "injected": "injected"}




def close(what, printed, exact):
    """A printed figure against the exact one: its last digit's rounding
    (and a relative 1e-6 for a float's own)."""
    agree()
    if printed in ("-", ""):
        fail("%s: printed %r, expected %.6g" % (what, printed, exact))
        return
    digits = printed.split(".")[1] if "." in printed else ""
    if "e" in printed:
        tolerance = abs(exact) * 1e-3
    else:
        tolerance = 0.5 * 10 ** -len(digits) + abs(exact) * 1e-6
    if abs(float(printed) - exact) > tolerance:
        fail("%s: printed %s, expected %.6g" % (what, printed, exact))


def check_change(what, before, after, change):
    """The change column of two printed figures."""
    agree()
    if before == "-" or after == "-":
        want = "only after" if before == "-" else "only before"
        if change != want:
            fail("%s: change %r, expected %r" % (what, change, want))
        return
    b, a = float(before), float(after)
    if change == "=":
        if before != after:
            fail("%s: '=' for %s and %s" % (what, before, after))
    elif change == "from 0":
        if b != 0:
            fail("%s: 'from 0' for %s" % (what, before))
    elif not change.endswith("%") or b == 0:
        fail("%s: change %r for %s and %s" % (what, change, before, after))
    else:
        # The printed figures are rounded: the change is that of some
        # values within their rounding.
        def ends(s, x):
            d = s.split(".")[1] if "." in s else ""
            h = 0.5 * 10 ** -len(d) if "e" not in s else abs(x) * 1e-3
            return x - h, x + h
        blo, bhi = ends(before, b)
        alo, ahi = ends(after, a)
        lo = (alo - bhi) / bhi * 100 if bhi > 0 else float("-inf")
        hi = (ahi - blo) / blo * 100 if blo > 0 else float("inf")
        pct = float(change[:-1])
        if not lo - 0.051 <= pct <= hi + 0.051:
            fail("%s: change %s for %s -> %s" % (what, change, before,
                                                   after))


def parse(path):
    """{'traces': {side: span}, 'blocks': {title: {...}}} of the diff."""
    traces, blocks, block, table = {}, {}, None, None
    for line in open(path):
        line = line.rstrip("\n")
        m = RE_TRACE.match(line)
        if m:
            traces[m.group(1)] = float(m.group(3))
            continue
        if not line or line.startswith("("):
            table = None
            continue
        if not line.startswith(" "):
            block = {"title": line, "figures": {}, "tables": {}}
            blocks[line] = block
            continue
        head = line[2:].split()[0] if line.strip() else ""
        if head in TABLES and "change" in line:
            table = block["tables"].setdefault(TABLES[head], {})
            continue
        if line.strip().startswith("(") and table is not None:
            fail("%s: rows left out without --top: %s" % (block["title"],
                                                          line.strip()))
            continue
        if table is not None:
            name = line[2:26].strip()
            cols = [line[27:37], line[38:48], line[49:61], line[62:72],
                    line[73:81], line[82:94], line[95:105], line[106:114]]
            table.setdefault(name, []).append([c.strip() for c in cols])
        elif line[2:34].strip():
            rest = line[34:].split(None, 2)
            block["figures"][line[2:34].strip()] = rest
    return traces, blocks


def wait_figures(domain):
    counts = [domain["latency"][c]["count"] for c in ("woken", "preempted")]
    causes = [domain["latency"][c] for c in ("woken", "preempted")
              if domain["latency"][c]["count"]]
    ranges = {}
    for p in ("p50", "p99"):
        ranges[p] = (min(c[p + "_us"] for c in causes),
                     max(c["max_us"] for c in causes)) if causes else (0, 0)
    return sum(counts), ranges


def entries(domain, table):
    """[(name, count, in-Xen us, p99 us)] of a domain's table."""
    if table == "exits":
        return [(e["name"], e["count"],
                 e["in_xen_seconds"] * 1e6 / e["count"], e["p99_cycles"])
                for e in domain["exits"] if e["count"]]
    if table == "hypercalls":
        return [(e["name"], e["count"], None, None)
                for e in domain["hypercalls"] + domain["vmcalls"]]
    return [(e["name"], e["count"], None, None) for e in domain["injected"]]


def check_figures(title, block, domains, summaries):
    figs = block["figures"]
    idle = any(d and d["domain"] == 32767 for d in domains)
    for i, (side, d) in enumerate(zip(SIDES, domains)):
        if not d:
            continue
        s = summaries[i]
        span = s["span_cycles"]
        running = d["runstates"]["running"]["cycles"] / span
        if idle:
            want = {"pCPUs idle (mean)": running}
        else:
            waits, ranges = wait_figures(d)
            want = {
                "vCPUs running (mean)": running,
                "vCPUs waiting to run (mean)":
                    d["runstates"]["runnable"]["cycles"] / span,
                "waits to run /s": waits * s["tsc_hz"] / span,
            }
            for p in ("p50", "p99"):
                what = "%s wait %s us" % (title, p)
                got = figs.get("wait %s us" % p, ["0", "0"])[i]
                lo, hi = ranges[p]
                agree()
                if got != "-" and not lo - 0.01 - lo / 64 <= float(got) <= \
                        hi + 0.01 + hi / 64:
                    fail("%s: %s %s, not within the causes' %.2f..%.2f" %
                         (what, side, got, lo, hi))
        for name, exact in want.items():
            got = figs.get(name)
            if got is None:
                if exact:
                    fail("%s: no %r line" % (title, name))
                continue
            close("%s %s %s" % (title, name, side), got[i], exact)
    for name, (before, after, change) in figs.items():
        check_change("%s %s" % (title, name), before, after, change)


def check_tables(title, block, domains, summaries):
    for table in ("exits", "hypercalls", "injected"):
        lines = block["tables"].get(table, {})
        listed = {}
        for i, d in enumerate(domains):
            for name, count, mean, p99 in (entries(d, table) if d else []):
                listed.setdefault(name, [[], []])[i].append((count, mean,
                                                            p99))
        for name, sides in listed.items():
            rows = lines.get(name, [])
            if len(rows) != max(len(sides[0]), len(sides[1])):
                fail("%s %s %s: %d lines, expected %d" % (
                    title, table, name, len(rows),
                    max(len(sides[0]), len(sides[1]))))
                continue
            for k, row in enumerate(rows):
                what = "%s %s %s" % (title, table, name)
                for i in range(2):
                    if k >= len(sides[i]):
                        if row[i] != "-":
                            fail("%s: %s %r, not in that trace" % (
                                what, SIDES[i], row[i]))
                        continue
                    s = summaries[i]
                    count, mean, p99 = sides[i][k]
                    close(what + " /s " + SIDES[i], row[i],
                          count * s["tsc_hz"] / s["span_cycles"])
                    if mean is not None:
                        close(what + " in-Xen us " + SIDES[i], row[3 + i],
                              mean)
                        close(what + " p99 us " + SIDES[i], row[6 + i],
                              p99 * 1e6 / s["tsc_hz"])
                check_change(what + " /s", row[0], row[1], row[2])
                if mean is not None and row[5]:
                    check_change(what + " in-Xen us", row[3], row[4], row[5])
        for name in set(lines) - set(listed):
            fail("%s %s %s: in the diff only" % (title, table, name))


def title_of(domains):
    b, a = domains
    if not a:
        return "%s: only before" % b["name"]
    if not b:
        return "%s: only after" % a["name"]
    if b["name"] != a["name"]:
        return "%s, after %s" % (b["name"], a["name"])
    return b["name"]


def pair(summaries):
    """The summaries' domains paired as the diff pairs them: by name where
    both files name them, else by id."""
    def name(d):
        m = re.match(r"^d\d+ \((.*)\)$", d["name"])
        return m.group(1) if m else None
    before, after = (s["domains"] for s in summaries)
    taken, pairs = set(), {}
    for by_name in (True, False):
        for b in before:
            if b["domain"] in pairs:
                continue
            for k, a in enumerate(after):
                if k in taken:
                    continue
                if (name(b) and name(a) and name(b) == name(a)) if by_name \
                        else ((not name(b) or not name(a)) and
                              b["domain"] == a["domain"]):
                    taken.add(k)
                    pairs[b["domain"]] = (b, a)
                    break
    out = [pairs.get(b["domain"], (b, None)) for b in before]
    out += [(None, a) for k, a in enumerate(after) if k not in taken]
    return out


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(1)
    traces, blocks = parse(sys.argv[1])
    summaries = [json.load(open(p)) for p in sys.argv[2:4]]
    for i, side in enumerate(SIDES):
        close("%s span" % side, "%.6f" % traces.get(side, -1),
              summaries[i]["span_cycles"] / summaries[i]["tsc_hz"])
    seen = set()
    for domains in pair(summaries):
        title = title_of(domains)
        block = blocks.get(title)
        if block is None:
            fail("no block %r" % title)
            continue
        seen.add(title)
        check_figures(title, block, domains, summaries)
        check_tables(title, block, domains, summaries)
    for title in set(blocks) - seen:
        fail("block %r is in neither summary" % title)
    report()


if __name__ == "__main__":
    main()
