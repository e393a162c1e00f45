#!/bin/busybox sh
# /init of the dom0 initramfs that tests/xen/boot.sh builds: PID 1 of a
# Linux dom0 (x86 PV, or arm64) under Xen in QEMU.  Loads the Xen device
# drivers, runs /harness/dom0-tests.sh with the scenario named in
# /etc/xt/scenario in /out, writes /out as a tar archive onto the raw disk
# /dev/vda and powers off.  "@@XT" lines on the console mark the phases for boot.sh.

/bin/busybox mkdir -p /proc /sys /dev /tmp /out /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/harness:/bin:/sbin:/usr/bin:/usr/sbin
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/lib/aarch64-linux-gnu
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs -o size=90% tmpfs /out

mark() { echo "@@XT $* uptime=$(cut -d' ' -f1 /proc/uptime)"; }

finish() {
    dmesg > /out/dmesg.txt 2>&1
    mark EXPORT "$(du -sk /out | cut -f1)KiB"
    tar -cf /dev/vda -C /out . || mark "FAIL tar to /dev/vda"
    sync
    mark DONE
    # ACPI power-off through Xen; if that does not stop the machine, a
    # reboot does (QEMU runs with -no-reboot).
    poweroff -f
    sleep 3
    reboot -f
    sleep 1000
}

fail() {
    mark "FAIL $*"
    echo "$*" > /out/harness-failure.txt
    finish
}

mark USERSPACE
while read -r ko; do
    insmod "/lib/modules/$ko" 2> /tmp/insmod.err ||
        grep -q 'File exists' /tmp/insmod.err || fail "insmod $ko: $(cat /tmp/insmod.err)"
done < /etc/xt/modules

mkdir -p /proc/xen
mount -t xenfs xenfs /proc/xen || fail "mount xenfs"
grep -q control_d /proc/xen/capabilities || fail "not the control domain"
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] || fail "the output disk /dev/vda did not appear"

mark SCENARIO "$(cat /etc/xt/scenario)"
cd /out
dom0-tests.sh "$(cat /etc/xt/scenario)" > /out/scenario.log 2>&1
echo $? > /out/scenario.rc
mark SCENARIO-END "rc=$(cat /out/scenario.rc)"
finish
