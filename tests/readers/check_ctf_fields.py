#!/usr/bin/env python3
"""babeltrace2's reading of a CTF export against xentrace-dump's, field by field.

  check_ctf_fields.py BABELTRACE_OUTPUT DUMP_R_OUTPUT

The first file is `babeltrace2 DIR` of `xentrace-export --ctf DIR`, the
second `xentrace-dump -r` of the same trace.  Per CPU, in the order of
the file, every record must have the same event name, the same field
names with the same values, and the same words past the fields.  The
forms differ by design: a dv field is "vcpu=d1v0" in the dump and
"vcpu = { vcpu = 0, dom = 1 }" in CTF (Xen's idle domain, 32767, is
"idle-vN" in the dump); hex digits are upper case in
babeltrace2; runstate changes carry their states in the event id, which
CTF gives as xen_event; a text field (a domain's name) is quoted in
both, text="db-01" and text = "db-01".

Prints the number of records compared and exits 0 if all agree, or
prints the first difference and exits 1.
"""
import re
import sys
from collections import defaultdict

BT_LINE = re.compile(r'^\[[^]]*\] \([^)]*\) (\S+): \{ cpu_id = (\d+) \}, '
                     r'\{ (.*) \}$')
DUMP_LINE = re.compile(r'^\s*\d+ cpu(\d+)\*? (.*)$')
BT_DV = re.compile(r'(\w+) = \{ (vcpu|dom) = (\d+), (vcpu|dom) = (\d+) \}')
BT_DATA = re.compile(r'data = \[ (.*?) \]')
BT_FIELD = re.compile(r'(\w+) = (-?\w+)')
BT_TEXT = re.compile(r'(\w+) = "([^"]*)"')
DUMP_TEXT = re.compile(r' (\w+)="([^"]*)"')


def fail(msg):
    print(msg)
    sys.exit(1)


def number(text):
    return int(text, 16) if text.lower().startswith('0x') else int(text)


def parse_bt(text):
    """(name, {field: value}, [words]) of babeltrace2's payload text."""
    fields = {m.group(1): m.group(2) for m in BT_TEXT.finditer(text)}
    text = BT_TEXT.sub('', text)
    for m in BT_DV.finditer(text):
        parts = {m.group(2): m.group(3), m.group(4): m.group(5)}
        # The dump names Xen's idle vCPUs as every reader does.
        fields[m.group(1)] = ('idle-v%s' % parts['vcpu']
                              if parts['dom'] == '32767' else
                              'd%sv%s' % (parts['dom'], parts['vcpu']))
    text = BT_DV.sub('', text)
    words = []
    m = BT_DATA.search(text)
    if m:
        words = [number(w.split(' = ')[1]) for w in m.group(1).split(', ')]
        text = BT_DATA.sub('', text)
    for m in BT_FIELD.finditer(text):
        if m.group(1) not in ('xen_event', 'has_tsc'):
            fields[m.group(1)] = number(m.group(2))
    return fields, words


def parse_dump(text):
    """(name, {field: value}, [words]) of a dump line's record."""
    words = []
    m = re.search(r' \[ (.*) \]$', text)
    if m:
        words = [number(w) for w in m.group(1).split()]
        text = text[:m.start()]
    texts = {m.group(1): m.group(2) for m in DUMP_TEXT.finditer(text)}
    tokens = DUMP_TEXT.sub('', text).split()
    name, fields = tokens[0], texts
    if name == 'event':
        name = 'event_0x%08x' % number(tokens[1])
        tokens = tokens[1:]
    for t in tokens[1:]:
        k, eq, v = t.partition('=')
        if not eq:
            continue        # "running->runnable", "nested"
        fields[k] = v if re.match(r'^(d\d+|idle-)v\d+$', v) else number(v)
    return name, fields, words


def per_cpu(path, line_re, cpu_group, parse):
    """{cpu: [(line number, parse(match))]} of the records at @path."""
    records = defaultdict(list)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if line.startswith('#'):
                continue
            m = line_re.match(line)
            if not m:
                fail('%s:%d: not a record: %r' % (path, n, line))
            records[int(m.group(cpu_group))].append((n, parse(m)))
    return records


def from_bt(m):
    fields, words = parse_bt(m.group(3))
    return m.group(1), fields, words


def from_dump(m):
    return parse_dump(m.group(2))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    bt = per_cpu(sys.argv[1], BT_LINE, 2, from_bt)
    dump = per_cpu(sys.argv[2], DUMP_LINE, 1, from_dump)
    if sorted(bt) != sorted(dump):
        fail('CPUs differ: CTF %s, dump %s' % (sorted(bt), sorted(dump)))
    total = 0
    for cpu in sorted(bt):
        if len(bt[cpu]) != len(dump[cpu]):
            fail('cpu %d: %d records in CTF, %d in the dump'
                 % (cpu, len(bt[cpu]), len(dump[cpu])))
        for (bn, b), (dn, d) in zip(bt[cpu], dump[cpu]):
            if b != d:
                fail('cpu %d: babeltrace2 line %d %s, dump line %d %s'
                     % (cpu, bn, b, dn, d))
        total += len(bt[cpu])
    print('%d records agree' % total)


if __name__ == '__main__':
    main()
