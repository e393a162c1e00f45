#!/bin/sh
# dom0-tests.sh SCENARIO: the dom0 half of `make check-xen`, run by
# tests/xen/init.sh in /out of a real dom0.  Each step NAME leaves
#
#   NAME.bin    the trace file
#   NAME.err    the tracer's standard error
#   NAME.rc     its exit status
#   NAME.state  tbuf-state right after it exited
#   NAME.time   its seconds: elapsed, user, system (not after SIGINT)
#   NAME.load   the processes the load spawned meanwhile (0: an idle step;
#               for mmio, the interrupts moved)
#   NAME.wall   dom0's uptime in seconds before and after it
#
# and boot.state is tbuf-state before any tracer ran.  The host side
# (test_xen) checks them.  Tracers: xentrace (ours) and xentrace-debian
# (Debian's /usr/lib/xen-4.17/bin/xentrace), both on Debian's libraries.
#
# Scenarios, matching the Xen command line boot.sh is given:
#   debian-xen  Debian's hypervisor, tbuf_size=32
#   our-xen     ours, tbuf_size=32 tevt_mask=0x0002f000 (sched only)
#   clamp       ours, tbuf_size far above what t_info can describe
#   domu        (arm64) ours, tbuf_size=32, with a guest that xl starts
#               (boot.sh --domu): two domains scheduled against each other
#   cost        ours on 4.20.4 booted with boot.sh --icount, one pCPU, one
#               vCPU of dom0 and 1024 pages a CPU: what a trace point
#               costs when it writes, in instructions
# and the same on Xen 4.20.4: stock-4.20 (Xen's own trace.c) as
# debian-xen, our-xen-4.20 and clamp-4.20.  On arm64 the dom0 also has
# Debian's xenalyze and our xentrace-summary, and reads ours.bin with
# both: ours.dom0-xenalyze, ours.dom0-summary (JSON).

LOAD_PIDS=

# Two process-spawning loops, one per vCPU: every fork and exec is a
# stream of page-table hypercalls in a PV dom0, and every exit a
# reschedule.  Each loop counts its processes into /tmp/load.N when
# stopped.
load_start() {
    for i in 1 2; do
        (
            n=0
            trap 'echo $n > /tmp/load.$i; exit 0' TERM
            while :; do busybox true; n=$((n + 1)); done
        ) &
        LOAD_PIDS="$LOAD_PIDS $!"
    done
}

# load_stop NAME: stop the load, its process count to NAME.load.
load_stop() {
    kill $LOAD_PIDS
    wait $LOAD_PIDS 2> /dev/null
    LOAD_PIDS=
    echo $(($(cat /tmp/load.1) + $(cat /tmp/load.2))) > "$1.load"
}

# step NAME TRACER ARGS...: run TRACER ARGS... NAME.bin under load.
step() {
    name=$1
    shift
    echo "== $name: $*"
    [ -n "$idle" ] || load_start
    up=$(cut -d' ' -f1 /proc/uptime)
    time -o "$name.time" -f '%e %U %S' "$@" "$name.bin" 2> "$name.err"
    echo $? > "$name.rc"
    echo "$up $(cut -d' ' -f1 /proc/uptime)" > "$name.wall"
    if [ -n "$idle" ]; then echo 0 > "$name.load"; else load_stop "$name"; fi
    tbuf-state > "$name.state"
    cat "$name.err" "$name.time" "$name.load" "$name.state"
}

# idle NAME TRACER ARGS...: as step, with dom0 left idle, so that its
# vCPUs wait for interrupts (on Arm, a WFI that Xen traps).
idle() {
    idle=yes
    step "$@"
    idle=
}

# sigint NAME TRACER ARGS...: as step, stopped by SIGINT after 2 s.
sigint() {
    name=$1
    shift
    echo "== $name: $* (SIGINT)"
    load_start
    "$@" "$name.bin" 2> "$name.err" &
    pid=$!
    sleep 2
    kill -INT $pid
    wait $pid
    echo $? > "$name.rc"
    load_stop "$name"
    tbuf-state > "$name.state"
    cat "$name.err" "$name.state"
}

# mmio NAME: ours, -e all, while a loop moves each of dom0's interrupts
# that can move between its two vCPUs, again and again: on Arm, each move
# reads and writes the GIC distributor (its enable and routing registers),
# which Xen emulates, so each is MMIO traps; the moves made in NAME.load.
# Only on Arm.
mmio() {
    name=$1
    [ "$(uname -m)" = aarch64 ] || return 0
    echo "== $name: xentrace -D -e all -T 2, interrupts moved"
    (
        n=0
        trap 'echo $n > /tmp/moves; exit 0' TERM
        while :; do
            for f in /proc/irq/*/smp_affinity; do
                echo $((n % 2 + 1)) 2> /dev/null > "$f" && n=$((n + 1))
            done
            sleep 0.1
        done
    ) &
    pid=$!
    xentrace -D -e all -T 2 "$name.bin" 2> "$name.err"
    echo $? > "$name.rc"
    kill $pid
    wait $pid 2> /dev/null
    cat /tmp/moves > "$name.load"
    tbuf-state > "$name.state"
    cat "$name.err" "$name.load" "$name.state"
}

# cost NAME CLASS: what the trace points that a hypercall passes cost
# when they write, against masked off.  hypercall-loop times xen_version
# hypercalls, 2 rounds of 10,000, while ours captures -e sched (CLASS
# masked off: its trace points test the mask and return), looking at the
# buffers only once they are half full or at the end (-s 60000: the
# boot's buffers hold the loop's records, and its dom0 one vCPU), into
# NAME.masked.I.bin, then -e CLASS (every call's records written) into
# NAME.on.I.bin, I from 1 to 3 taking turns; NAME.masked and NAME.on get
# the loop's ns per call, a round a line (booted with --icount, a ns is an
# instruction), NAME.MODE.I.rc each capture's status.  bench/run-boot-cost
# puts x86's and Arm's side by side.
cost() {
    name=$1 class=$2
    command -v hypercall-loop > /dev/null || return 0
    : > "$name.masked"
    : > "$name.on"
    for i in 1 2 3; do
        for mode in masked on; do
            mask=sched
            [ $mode = masked ] || mask=$class
            out=$name.$mode.$i
            echo "== $out: hypercall-loop under xentrace -D -e $mask"
            xentrace -D -e $mask -s 60000 "$out.bin" 2> "$out.err" &
            pid=$!
            sleep 1
            hypercall-loop 10000 2 >> "$name.$mode"
            kill -INT $pid
            wait $pid
            echo $? > "$out.rc"
        done
    done
    cat "$name.masked" "$name.on"
}

# filter NAME: the domain filter (xentrace -d) on a real host, around
# hypercall-loop's 10,000 xen_version hypercalls, all made in dom0's
# context: -d 0 keeps a record of each, -d 7 (no such domain) none.  In
# Xen with ours; in dom0 on a stock Xen, which says so in NAME.dD.err.
# The scheduler's records are in the mask, as dom0's filter needs them.
# NAME.dD.bin, NAME.dD.rc for D 0 and 7.
filter() {
    name=$1
    command -v hypercall-loop > /dev/null || return 0
    class=pv
    [ "$(uname -m)" = aarch64 ] && class=arm
    for d in 0 7; do
        out=$name.d$d
        echo "== $out: hypercall-loop under xentrace -e sched,$class -d $d"
        xentrace -D -e sched,$class -d $d "$out.bin" 2> "$out.err" &
        pid=$!
        sleep 1
        hypercall-loop 10000 1 > /dev/null
        kill -INT $pid
        wait $pid
        echo $? > "$out.rc"
        cat "$out.err"
    done
}

# live NAME: ours into a pipe, kept by tee in NAME.bin and watched by
# xentrace-top --json (NAME.top, its status NAME.top.rc), as a user
# watches a host; only where the dom0 has xentrace-top (x86).
live() {
    name=$1
    command -v xentrace-top > /dev/null || return 0
    echo "== $name: xentrace - | tee $name.bin | xentrace-top --json -"
    load_start
    xentrace -D -e all -T 3 - 2> "$name.err" | tee "$name.bin" |
        xentrace-top --json -d 1 - > "$name.top" 2> "$name.top.err"
    echo $? > "$name.top.rc"
    load_stop "$name"
    tbuf-state > "$name.state"
    cat "$name.err" "$name.top.err" "$name.state"
}

# host NAME: xentrace-top with no file, as a user types it on a host: its
# own xentrace (ours, from PATH), -e sched for the masks it must put back;
# the intervals in NAME.top, its status NAME.top.rc, xentrace's exit table
# in NAME.err.
host() {
    name=$1
    command -v xentrace-top > /dev/null || return 0
    echo "== $name: xentrace-top --json -n 3 -d 1 -e sched"
    load_start
    XENTRACE=$(command -v xentrace) xentrace-top --json -n 3 -d 1 -e sched \
        > "$name.top" 2> "$name.err"
    echo $? > "$name.top.rc"
    load_stop "$name"
    tbuf-state > "$name.state"
    cat "$name.err" "$name.state"
}

# busy_start NAME: a process that counts to 2000 and sleeps 30 ms, over
# and over: its pid in NAME.pid; busy_stop NAME ends it.
busy_start() {
    (
        while :; do
            i=0
            while [ $i -lt 2000 ]; do i=$((i + 1)); done
            usleep 30000
        done
    ) &
    echo $! > "$1.pid"
}

busy_stop() {
    kill "$(cat "$1.pid")"
}

# dom0_ftrace: whether dom0's kernel events can be on Xen's clock here
# (x86's PV dom0 only: arm64's cannot read Xen's counter), with tracefs
# mounted.
dom0_ftrace() {
    [ "$(uname -m)" = x86_64 ] || return 1
    [ -e /sys/kernel/tracing/trace_clock ] ||
        mount -t tracefs nodev /sys/kernel/tracing
    return 0
}

# timeline NAME: Xen's scheduler and dom0's own on one clock (xentrace
# --dom0), with dom0 otherwise idle but for busy_start's process.
timeline() {
    name=$1
    dom0_ftrace || return 0
    busy_start "$name"
    idle "$name" xentrace -D -e sched --dom0 sched,irq -T 3
    busy_stop "$name"
}

# timeline_dat NAME: the same with dom0's events recorded by trace-cmd
# (record -C x86-tsc, into NAME.dat; its status in NAME.dat.rc, its words
# in NAME.tc) while xentrace records Xen alone: the host joins the two
# (xentrace-join).  trace-cmd starts a second before xentrace and ends a
# second after it.
timeline_dat() {
    name=$1
    dom0_ftrace || return 0
    busy_start "$name"
    trace-cmd record -q -C x86-tsc -e sched:sched_switch \
        -e sched:sched_waking -e irq:irq_handler_entry \
        -e irq:irq_handler_exit -o "$name.dat" sleep 5 > "$name.tc" 2>&1 &
    tc=$!
    sleep 1
    idle "$name" xentrace -D -e sched -T 3
    wait $tc
    echo $? > "$name.dat.rc"
    cat "$name.tc"
    busy_stop "$name"
}

# resize NAME: -S 8 on the boot's buffers of 32 pages, under load: ours
# resizes them (NAME.state says 8 pages), a stock Xen keeps them and
# xentrace says why in NAME.err; then NAME.back, -S 32, puts our Xen's
# back to the boot's size.
resize() {
    step "$1" xentrace -D -e sched -S 8 -T 1
    step "$1.back" xentrace -D -e sched -S 32 -T 1
}

tbuf-state > boot.state
cat boot.state
case "$1" in
debian-xen|stock-4.20)
    # An arm64 dom0 boots on fewer records than x86's PV one, whose every
    # page-table update is a hypercall: the load makes sure that the
    # boot's tracing overflows the buffers before the first capture.
    # tbuf-state emptied them above, and under this load Xen writes about
    # 1,200 scheduler records (25 bytes each) a second on CPU 1, whose 32
    # pages hold about 5,200: 3 s of it did not always overflow them, 12 s
    # does with twice the margin even at half the rate.
    if [ "$(uname -m)" = aarch64 ]; then
        load_start
        sleep 12
        load_stop fill
    fi
    # First, as it also ends the tracing that tbuf_size= started at boot:
    # ours and Debian's then start alike, without the lost records of the
    # boot's overflow.
    step masked xentrace -D -e sched -c 1 -T 2
    step ours xentrace -D -T 3
    step debian xentrace-debian -D -T 3
    sigint sigint xentrace -D
    step keep xentrace -D -x -T 1
    filter filter
    resize resize
    ;;
our-xen|our-xen-4.20)
    step nomask xentrace -D -T 2
    step ours xentrace -D -e all -T 3
    step debian xentrace-debian -D -e 0x0ffff000 -T 3
    idle idle xentrace -D -e all -T 1
    mmio mmio
    sigint sigint xentrace -D
    filter filter
    live live
    host host
    timeline timeline
    timeline_dat timeline-dat
    resize resize
    ;;
clamp|clamp-4.20)
    step ours xentrace -D -e all -T 2
    ;;
cost)
    # Ours, 4.20.4 (with Arm's trace points on arm64), booted with
    # --icount: the loop's times are instructions.
    if [ "$(uname -m)" = aarch64 ]; then cost cost arm; else cost cost pv; fi
    ;;
domu)
    # Xen's toolstack, as its init scripts start it, and a guest.
    mkdir -p /var/run/xen /var/lib/xen /var/log/xen /run/xenstored \
        /etc/xen /dev/pts
    : > /etc/xen/xl.conf
    mount -t devpts devpts /dev/pts     # xenconsoled's ptys
    xenstored --pid-file /var/run/xenstored.pid > xenstored.log 2>&1 ||
        exit 1
    xen-init-dom0 > init-dom0.log 2>&1 || exit 1
    xenconsoled --log=guest --log-dir=/out > xenconsoled.log 2>&1
    cat > /tmp/domu.cfg <<CFG
name = "domu"
kernel = "/domu/Image"
ramdisk = "/domu/initramfs.cpio"
extra = "console=hvc0 rdinit=/init"
memory = 128
vcpus = 1
CFG
    xl create /tmp/domu.cfg > domu.create 2>&1 || { cat domu.create; exit 1; }
    # Until the guest's /init runs its loop.
    i=0
    while ! grep -q '@@XT DOMU UP' guest-domu.log 2> /dev/null &&
          [ $i -lt 120 ]; do
        sleep 1
        i=$((i + 1))
    done
    xl list -v > domu.list
    # As in the other scenarios, the first capture ends the boot's
    # tracing and takes its overflow; the next two are loss-free.  The
    # guest is renamed during ours, which tells it (test_domu_named).
    step first xentrace -D -T 1
    (sleep 1.5; xl rename domu domu-renamed > rename.log 2>&1) &
    step ours xentrace -D -e all -T 4
    wait
    step debian xentrace-debian -D -e 0x0ffff000 -T 4
    xl destroy domu-renamed
    ;;
*)
    echo "dom0-tests.sh: unknown scenario $1" >&2
    exit 1
    ;;
esac
if command -v xenalyze > /dev/null; then
    xenalyze --summary ours.bin > ours.dom0-xenalyze 2>&1
    echo $? > ours.dom0-xenalyze.rc
    xentrace-summary --json ours.bin > ours.dom0-summary 2> ours.dom0-summary.err
    echo $? > ours.dom0-summary.rc
fi
