#!/bin/bash
# check-xen-events.sh: the catalogue check (test_xen_events) on the Debian
# 4.17 source that build-xen.sh fetched into $XEN_CACHE/src, a test of
# make check-xen (tests/run-tests runs it as a program).  XEN_EVENTS_TEST
# is the test program.  The tree and the list found are kept under
# $XEN_CACHE/xen-events.
set -euo pipefail

: "${XEN_CACHE:?}" "${XEN_EVENTS_TEST:?}"
DSC=$(ls -t "$XEN_CACHE"/src/*/dl/xen_4.17.*.dsc 2> /dev/null | head -n 1) ||
    true
[ -n "$DSC" ] ||
    { echo "check-xen-events: no Xen 4.17 source in $XEN_CACHE/src" >&2; exit 1; }
XT_XEN_SOURCES=$DSC exec "$XEN_EVENTS_TEST"
