#!/bin/bash
# check-xen.sh CACHE XENTRACE TBUF-STATE RESULTS: the boots of
# `make check-xen`.  Fetches the Debian packages (fetch-debs.sh), builds
# Xen with our trace.c (build-xen.sh), both cached under CACHE, and boots
# three times, dom0 running dom0-tests.sh with our XENTRACE, Debian's
# xentrace and TBUF-STATE; each boot's results go to RESULTS/SCENARIO.
# test_xen then checks them.  A boot that fails leaves its directory
# without results, which fails its tests; only a failed fetch stops here.
# RESULTS/timings.txt gets the seconds each phase took.
set -uo pipefail

[ $# -eq 4 ] || { echo "usage: check-xen.sh CACHE XENTRACE TBUF-STATE RESULTS" >&2; exit 2; }
CACHE=$1 XENTRACE=$2 TBUF_STATE=$3 RESULTS=$4
HERE=$(dirname "$0")
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
TIMES=$RESULTS/timings.txt
: > "$TIMES"

# timed NAME COMMAND...: run COMMAND, note its seconds as NAME.
timed() {
    local name=$1 start=$SECONDS rc
    shift
    "$@"
    rc=$?
    echo "$name $((SECONDS - start))" >> "$TIMES"
    return $rc
}

# One run at a time per cache: a run may replace what another boots.
mkdir -p "$CACHE"
exec 9> "$CACHE/.lock"
flock 9
ROOT=$(timed fetch "$HERE/fetch-debs.sh" "$CACHE") || exit 1
OUR_XEN=$(timed build-xen "$HERE/build-xen.sh" "$CACHE") || OUR_XEN=

PROGS=(--prog "xentrace=$XENTRACE"
       --prog xentrace-debian=/usr/lib/xen-4.17/bin/xentrace
       --prog "tbuf-state=$TBUF_STATE")
timed boot-debian-xen "$HERE/boot.sh" "${PROGS[@]}" --xen-args tbuf_size=32 \
    "$ROOT" "$ROOT/boot/xen-4.17-amd64.gz" debian-xen "$RESULTS/debian-xen"
if [ -n "$OUR_XEN" ]; then
    timed boot-our-xen "$HERE/boot.sh" "${PROGS[@]}" \
        --xen-args "tbuf_size=32 tevt_mask=0x0002f000" \
        "$ROOT" "$OUR_XEN" our-xen "$RESULTS/our-xen"
    # 2 x 65406 pages of buffers (510 MiB) besides dom0.
    timed boot-clamp "$HERE/boot.sh" "${PROGS[@]}" --mem 1536 \
        --dom0-mem 384M --xen-args tbuf_size=100000 \
        "$ROOT" "$OUR_XEN" clamp "$RESULTS/clamp"
fi
echo "check-xen: seconds per phase: $(tr '\n' ' ' < "$TIMES")"
exit 0
