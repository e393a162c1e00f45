#!/bin/bash
# check-xen.sh CACHE XEN-SRC XENTRACE TBUF-STATE RESULTS ARM-BUILD: the
# boots of `make check-xen`.  Fetches the Debian packages (fetch-debs.sh), builds
# Debian's Xen 4.17 with our trace.c (build-xen.sh), and Xen 4.20.4 from
# XEN-SRC both with ours and stock (build-tree.sh), all cached under CACHE,
# and boots six times, dom0 running dom0-tests.sh with our XENTRACE,
# Debian's xentrace and TBUF-STATE; each boot's results go to
# RESULTS/SCENARIO, and what the builds of ours made to RESULTS/trees.
# Then cost: ours on 4.20.4 booted with --icount, where the guest's clock
# counts instructions, for what a trace point costs when it writes.
# Then three on emulated arm64 (QEMU virt with EL2): Debian's arm64 Xen
# 4.17, Debian's 4.17 source built for arm64 with our trace.c, and 4.20.4
# with ours, as arm64-debian-xen, arm64-our-xen and arm64-our-xen-4.20,
# running the scenarios of the x86 boots of the same names, and
# arm64-domu, ours on 4.17 again with a guest that dom0's xl starts, and
# arm64-cost as cost; their dom0
# runs our programs cross-built (make arm64-dom0, in ARM-BUILD) against
# the arm64 packages, Debian's arm64 xentrace and xenalyze.
# test_xen and test_xen_trees then check them.  A boot that fails leaves
# its directory without results, which fails its tests; only a failed
# fetch stops here.  RESULTS/timings.txt gets the seconds each phase took.
set -uo pipefail

[ $# -eq 6 ] || { echo "usage: check-xen.sh CACHE XEN-SRC XENTRACE TBUF-STATE RESULTS ARM-BUILD" >&2; exit 2; }
CACHE=$1 XEN_SRC=$2 XENTRACE=$3 TBUF_STATE=$4 RESULTS=$5 ARM_BUILD=$6
HERE=$(dirname "$0")
rm -rf "$RESULTS"
mkdir -p "$RESULTS/trees"
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
[ -z "$OUR_XEN" ] || cp -r "$OUR_XEN.d" "$RESULTS/trees/4.17"
# Xen 4.20.4: the newest release whose sysctl interface Debian's 4.17 dom0
# libraries speak.  A failed build leaves no image, which fails the tests.
OUT=$(timed build-4.20-ours "$HERE/build-tree.sh" "$XEN_SRC" "$CACHE" 4.20.4) &&
    cp -r "$OUT" "$RESULTS/trees/4.20.4"
OUR_XEN_420=$RESULTS/trees/4.20.4/xen
OUT=$(timed build-4.20-stock "$HERE/build-tree.sh" --stock "$XEN_SRC" "$CACHE" 4.20.4)
STOCK_XEN_420=$OUT/xen

# The cost boots, x86's and Arm's alike: one pCPU, as Xen's arm64 boot
# spins for ever under -icount waiting for its second CPU (QEMU runs the
# CPUs in turns, and only at a timer's deadline); a dom0 of one vCPU, so
# the loop runs where it was timed; buffers of 4 MiB, so that a capture's
# records of the loop fit below the half where Xen notifies, and xentrace
# stays asleep (dom0-tests.sh's cost()).
COST_ARGS="tbuf_size=1024 maxcpus=1 dom0_max_vcpus=1"

# trace-cmd: our-xen's "timeline-dat" step records dom0's ftrace with it.
PROGS=(--prog "xentrace=$XENTRACE"
       --prog xentrace-debian=/usr/lib/xen-4.17/bin/xentrace
       --prog "tbuf-state=$TBUF_STATE"
       --prog "trace-cmd=$(command -v trace-cmd)")
# The live view, where make gives it (XT_TOP): our-xen's "live" step;
# the hypercall loop (XT_HCALL_LOOP): its "cost" step.
[ -z "${XT_TOP:-}" ] || PROGS+=(--prog "xentrace-top=$XT_TOP")
[ -z "${XT_HCALL_LOOP:-}" ] ||
    PROGS+=(--prog "hypercall-loop=$XT_HCALL_LOOP")
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
if [ -f "$STOCK_XEN_420" ]; then
    timed boot-stock-4.20 "$HERE/boot.sh" "${PROGS[@]}" --xen-args tbuf_size=32 \
        "$ROOT" "$STOCK_XEN_420" stock-4.20 "$RESULTS/stock-4.20"
fi
if [ -f "$OUR_XEN_420" ]; then
    timed boot-our-xen-4.20 "$HERE/boot.sh" "${PROGS[@]}" \
        --xen-args "tbuf_size=32 tevt_mask=0x0002f000" \
        "$ROOT" "$OUR_XEN_420" our-xen-4.20 "$RESULTS/our-xen-4.20"
    timed boot-clamp-4.20 "$HERE/boot.sh" "${PROGS[@]}" --mem 1536 \
        --dom0-mem 384M --xen-args tbuf_size=100000 \
        "$ROOT" "$OUR_XEN_420" clamp-4.20 "$RESULTS/clamp-4.20"
    timed boot-cost "$HERE/boot.sh" "${PROGS[@]}" --icount \
        --xen-args "$COST_ARGS" "$ROOT" "$OUR_XEN_420" cost "$RESULTS/cost"
fi

# ---------------------------------------------------------------- arm64
# arm64_dom0 ROOT: our dom0 programs for arm64, in ARM_BUILD/dom0.
arm64_dom0() {
    local libs=$1/usr/lib/aarch64-linux-gnu:$1/lib/aarch64-linux-gnu
    "${MAKE:-make}" -s --no-print-directory BUILD="$ARM_BUILD" \
        CC="aarch64-linux-gnu-gcc -I$1/usr/include" \
        LDFLAGS="-L${libs//:/ -L} -Wl,-rpath-link,$libs" \
        ARM_DOM0="$ARM_BUILD/dom0" arm64-dom0 >&2
}
ARM_ROOT=$(timed fetch-arm64 "$HERE/fetch-debs.sh" "$CACHE" arm64) &&
    timed build-arm64-dom0 arm64_dom0 "$ARM_ROOT" || ARM_ROOT=
OUR_ARM=$(timed build-xen-arm64 "$HERE/build-xen.sh" "$CACHE" arm64) ||
    OUR_ARM=
[ -z "$OUR_ARM" ] || cp -r "$OUR_ARM.d" "$RESULTS/trees/4.17-arm64"
OUT=$(timed build-4.20-ours-arm64 "$HERE/build-tree.sh" --arch arm64 \
      "$XEN_SRC" "$CACHE" 4.20.4) && cp -r "$OUT" "$RESULTS/trees/4.20.4-arm64"
OUR_ARM_420=$RESULTS/trees/4.20.4-arm64/xen
if [ -n "$ARM_ROOT" ]; then
    D=$ARM_BUILD/dom0
    ARM_PROGS=(--arch arm64 --prog "xentrace=$D/xentrace"
               --prog "xentrace-debian=$ARM_ROOT/usr/lib/xen-4.17/bin/xentrace"
               --prog "tbuf-state=$D/tbuf-state"
               --prog "hypercall-loop=$D/hypercall-loop"
               --prog "xentrace-summary=$D/xentrace-summary"
               --prog "xenalyze=$ARM_ROOT/usr/bin/xenalyze")
    timed boot-arm64-debian-xen "$HERE/boot.sh" "${ARM_PROGS[@]}" \
        --xen-args tbuf_size=32 "$ARM_ROOT" "$ARM_ROOT/boot/xen-4.17-arm64" \
        debian-xen "$RESULTS/arm64-debian-xen"
    [ -z "$OUR_ARM" ] ||
        timed boot-arm64-our-xen "$HERE/boot.sh" "${ARM_PROGS[@]}" \
            --xen-args "tbuf_size=32 tevt_mask=0x0002f000" \
            "$ARM_ROOT" "$OUR_ARM" our-xen "$RESULTS/arm64-our-xen"
    B=$ARM_ROOT/usr/lib/xen-4.17/bin
    [ -z "$OUR_ARM" ] ||
        timed boot-arm64-domu "$HERE/boot.sh" "${ARM_PROGS[@]}" --domu \
            --prog "xl=$B/xl" --prog "xenstored=$B/xenstored" \
            --prog "xen-init-dom0=$B/xen-init-dom0" \
            --prog "xenconsoled=$B/xenconsoled" --xen-args tbuf_size=32 \
            "$ARM_ROOT" "$OUR_ARM" domu "$RESULTS/arm64-domu"
    [ ! -f "$OUR_ARM_420" ] ||
        timed boot-arm64-our-xen-4.20 "$HERE/boot.sh" "${ARM_PROGS[@]}" \
            --xen-args "tbuf_size=32 tevt_mask=0x0002f000" \
            "$ARM_ROOT" "$OUR_ARM_420" our-xen-4.20 "$RESULTS/arm64-our-xen-4.20"
    [ ! -f "$OUR_ARM_420" ] ||
        timed boot-arm64-cost "$HERE/boot.sh" "${ARM_PROGS[@]}" --icount \
            --xen-args "$COST_ARGS" "$ARM_ROOT" "$OUR_ARM_420" cost \
            "$RESULTS/arm64-cost"
fi
echo "check-xen: seconds per phase: $(tr '\n' ' ' < "$TIMES")"
exit 0
