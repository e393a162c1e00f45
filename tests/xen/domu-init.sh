#!/bin/busybox sh
# /init of the domU initramfs that tests/xen/boot.sh --domu builds: a
# guest that keeps its vCPU busy spawning processes, so that Xen
# schedules it against dom0's load, until dom0 destroys it.
/bin/busybox mkdir -p /proc
/bin/busybox mount -t proc proc /proc
echo "@@XT DOMU UP"
while :; do /bin/busybox true; done
