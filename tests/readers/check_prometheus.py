#!/usr/bin/env python3
"""check_prometheus.py TOP_JSON API: what Prometheus scraped from
xentrace-top --metrics equals the sums of the intervals xentrace-top
--json printed (one JSON object a line) over the same run.

TOP_JSON is xentrace-top's output, API the Prometheus server's base URL
(http://127.0.0.1:PORT), queried through /api/v1/query.  The counts
(exits, hypercalls, injected interrupts per domain, lost records per
pCPU, intervals) must be equal; the runstate seconds per domain and state
agree to a microsecond per interval (the JSON has cycles, the counters
seconds).  Each domain the last interval names "dN (NAME)" has the
info series xen_domain_info{domain="N",name="NAME"}.  Exits 0 if all
agree, else prints each difference and exits 1.
"""
import json
import sys
import urllib.parse
import urllib.request

IDLE = 0x7fff


def query(api, expr):
    url = api + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url) as r:
        answer = json.load(r)
    if answer["status"] != "success":
        sys.exit("check_prometheus: %s: %s" % (expr, answer))
    return {tuple(sorted((k, v) for k, v in s["metric"].items()
                         if k not in ("__name__", "instance", "job"))):
            float(s["value"][1]) for s in answer["data"]["result"]}


def domain(d):
    return "idle" if d == IDLE else str(d)


def expected(intervals):
    counts, seconds = {}, {}
    for iv in intervals:
        hz = (iv["to_tsc"] - iv["from_tsc"]) / iv["seconds"]
        for d in iv["domains"]:
            dom = domain(d["domain"])
            for metric, member in (("xen_vcpu_exits_total", "exits"),
                                   ("xen_hypercalls_total", "hypercalls"),
                                   ("xen_interrupts_injected_total",
                                    "injected")):
                key = (metric, (("domain", dom),))
                counts[key] = counts.get(key, 0) + d[member]["count"]
            for state, cycles in d["runstate_cycles"].items():
                key = (("domain", dom), ("state", state))
                seconds[key] = seconds.get(key, 0.0) + cycles / hz
        for lost in iv["lost"]:
            key = ("xen_lost_records_total", (("pcpu", str(lost["cpu"])),))
            counts[key] = counts.get(key, 0) + lost["records"]
    return counts, seconds


def main():
    with open(sys.argv[1]) as f:
        intervals = [json.loads(line) for line in f if line.strip()]
    api = sys.argv[2]
    counts, seconds = expected(intervals)
    bad = []
    got = {}
    for metric, by in (("xen_vcpu_exits_total", "domain"),
                       ("xen_hypercalls_total", "domain"),
                       ("xen_interrupts_injected_total", "domain"),
                       ("xen_lost_records_total", "pcpu")):
        for labels, v in query(api, "sum by (%s) (%s)" % (by, metric)).items():
            got[(metric, labels)] = v
    for key in set(counts) | set(got):
        if counts.get(key, 0) != got.get(key, 0):
            bad.append("%s: printed %s, scraped %s" %
                       (key, counts.get(key, 0), got.get(key, 0)))
    scraped = query(api, "xen_runstate_seconds_total")
    for key, v in seconds.items():
        if abs(scraped.get(key, 0.0) - v) > 1e-6 * len(intervals):
            bad.append("runstate %s: printed %.9f, scraped %.9f" %
                       (key, v, scraped.get(key, 0.0)))
    names = {k: v for k, v in query(api, "xen_domain_info").items()}
    for d in intervals[-1]["domains"]:
        if " (" not in d["name"]:
            continue
        want = d["name"].split(" (", 1)[1][:-1]
        got = [dict(k).get("name") for k in names
               if dict(k).get("domain") == domain(d["domain"])]
        if got != [want]:
            bad.append("xen_domain_info of d%d: %s, not %s" %
                       (d["domain"], got, want))
    n = query(api, "xen_trace_intervals_total").get((), 0)
    if n != len(intervals):
        bad.append("intervals: printed %d, scraped %s" % (len(intervals), n))
    if len(counts) < 5:
        bad.append("only %d counters to compare" % len(counts))
    for line in bad:
        print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
