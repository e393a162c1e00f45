#!/bin/bash
# boot.sh [options] ROOT HV SCENARIO OUT: boot hypervisor HV in QEMU with
# a Linux dom0 that runs tests/xen/dom0-tests.sh SCENARIO, and unpack
# what dom0 left in /out into the directory OUT (which it empties first).
#
#   ROOT   the packages fetch-debs.sh unpacked (dom0 kernel, its modules,
#          busybox; on arm64 also the dom0 libraries)
#   HV     x86_64: the multiboot image, Xen's "xen" (a 32-bit ELF), or
#          xen.gz; arm64: Xen's Image
#
# Options:
#   --xen-args STR   more Xen command-line words (tbuf_size=... etc.)
#   --prog PATH      a dom0 program for /harness, with the libraries ldd
#                    finds for it on this host; repeatable; NAME=PATH
#                    installs it as NAME
#   --mem MIB        QEMU memory (default 1024)
#   --dom0-mem SIZE  Xen dom0_mem (default 512M)
#   --timeout SEC    give up on QEMU after SEC seconds (default 900)
#   --arch ARCH      x86_64 (default) or arm64
#   --icount         the guest's clock counts the instructions QEMU runs,
#                    one a nanosecond (-icount shift=0, on one host
#                    thread): what the guest times is instructions, the
#                    same however busy this host is.  An idle guest's clock
#                    jumps to its next timer (sleep=off): with sleep=on,
#                    arm64 dom0 now and then never woke from a sleep(1)
#   --domu           also a guest for dom0's xl to start (arm64): dom0's
#                    kernel as /domu/Image and /domu/initramfs.cpio, whose
#                    /init is tests/xen/domu-init.sh
#
# On x86_64 QEMU runs with TCG and -cpu qemu64: Xen needs VT-x/SVM from
# KVM, and -cpu max breaks a PV dom0 (docs/real-xen.md).  On arm64 it
# emulates the virt machine with EL2 (virtualization=on, GICv3, Cortex-A57,
# as Xen's own CI does), loads Xen as the kernel and dom0's kernel and
# initramfs beside it with QEMU's guest-loader, which describes them to
# Xen in the device tree; the output disk is a virtio-mmio one, which Xen
# hands to dom0 with the machine's other devices.  The dom0 programs are
# arm64 ones: their libraries come from ROOT, not this host.  OUT also
# gets serial.log
# (each console line prefixed with host seconds since QEMU started) and
# boot-times.txt.  Exit status 0 if dom0 finished its scenario.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
XEN_ARGS=
PROGS=()
MEM=1024
DOM0_MEM=512M
TIMEOUT=900
ARCH=x86_64
DOMU=no
ACCEL=(-accel tcg,thread=multi)
while [ $# -gt 4 ]; do
    case "$1" in
    --xen-args) XEN_ARGS=$2 ;;
    --prog) PROGS+=("$2") ;;
    --mem) MEM=$2 ;;
    --dom0-mem) DOM0_MEM=$2 ;;
    --timeout) TIMEOUT=$2 ;;
    --arch) ARCH=$2 ;;
    --domu) DOMU=yes; shift; continue ;;
    --icount) ACCEL=(-accel tcg,thread=single -icount shift=0,sleep=off)
              shift; continue ;;
    *) echo "boot.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
[ $# -eq 4 ] || { echo "usage: boot.sh [options] ROOT HV SCENARIO OUT" >&2; exit 2; }
ROOT=$1 HV=$2 SCENARIO=$3 OUT=$4
say() { echo "boot.sh: $*" >&2; }
die() { say "$*"; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/xt-boot.XXXXXX")
QEMU_PID=
cleanup() {
    [ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2> /dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# ------------------------------------------------------------ initramfs
IRD=$WORK/initramfs
case $ARCH in
x86_64) LIBDIR=lib/x86_64-linux-gnu ;;
arm64)  LIBDIR=lib/aarch64-linux-gnu ;;
*) die "no such architecture: $ARCH" ;;
esac
mkdir -p "$IRD"/{bin,etc/xt,lib/modules,$LIBDIR,lib64,harness}
cp "$ROOT/bin/busybox" "$IRD/bin/busybox"
ln -s busybox "$IRD/bin/sh"
install -m 755 "$HERE/init.sh" "$IRD/init"
install -m 755 "$HERE/dom0-tests.sh" "$IRD/harness/dom0-tests.sh"
echo "$SCENARIO" > "$IRD/etc/xt/scenario"

# A program and the libraries it loads here, which are dom0's too.  On
# arm64 the libraries are ROOT's, all of them (add_arm64_libs).
add_prog() {
    local name=${1%%=*} path=${1#*=} line lib
    install -m 755 "$path" "$IRD/harness/$name"
    [ "$ARCH" = x86_64 ] || return 0
    while read -r line; do
        case "$line" in
        *"=> not found"*) die "$path: ${line%% =>*} not found" ;;
        *"=> /"*) lib=${line#*=> }; lib=${lib%% (*}
                  cp -L "$lib" "$IRD/lib/x86_64-linux-gnu/" ;;
        /*ld-linux*) lib=${line%% (*}
                  cp -L "$lib" "$IRD/lib64/" ;;
        esac
    done < <(ldd "$path")
}
for p in "${PROGS[@]}"; do
    [[ $p == *=* ]] || p=$(basename "$p")=$p
    add_prog "$p"
done
if [ "$ARCH" = arm64 ]; then
    cp -a "$ROOT"/lib/aarch64-linux-gnu/*.so* \
        "$ROOT"/usr/lib/aarch64-linux-gnu/*.so* "$IRD/$LIBDIR/"
    ln -s "aarch64-linux-gnu/ld-linux-aarch64.so.1" \
        "$IRD/lib/ld-linux-aarch64.so.1"
fi

# The Xen device drivers and the virtio disk, each after its dependencies
# (the depends= field of the module itself: the package has no modules.dep).
KMODS=$ROOT/lib/modules/dom0/
declare -A KO_PATH=() KO_DONE=()
while read -r n f; do
    n=${n%.ko}
    KO_PATH[${n//-/_}]=$f
done < <(find "$KMODS" -name '*.ko' -printf '%f %p\n')
add_module() {
    local m=${1//-/_} f dep
    [ -n "${KO_DONE[$m]:-}" ] && return 0
    KO_DONE[$m]=1
    f=${KO_PATH[$m]:-}
    if [ -z "$f" ]; then
        grep -qw "$m" "$KMODS/modules.builtin" 2> /dev/null && return 0
        die "kernel module $m not found"
    fi
    for dep in $(tr '\0' '\n' < "$f" | sed -n 's/^depends=//p' | tr ',' ' '); do
        add_module "$dep"
    done
    cp "$f" "$IRD/lib/modules/"
    basename "$f" >> "$IRD/etc/xt/modules"
}
case $ARCH in
x86_64) DISK_BUS=virtio_pci ;;
arm64)  DISK_BUS=virtio_mmio ;;
esac
for m in xen-privcmd xenfs xen-evtchn xen-gntdev $DISK_BUS virtio_blk; do
    add_module "$m"
done
# ROOT's busybox makes the archive on x86_64; an arm64 one cannot run here.
CPIO=("$ROOT/bin/busybox" cpio)
[ "$ARCH" = x86_64 ] || CPIO=(cpio)
if [ $DOMU = yes ]; then
    DOMU_IRD=$WORK/domu
    mkdir -p "$DOMU_IRD/bin" "$IRD/domu"
    cp "$ROOT/bin/busybox" "$DOMU_IRD/bin/busybox"
    install -m 755 "$HERE/domu-init.sh" "$DOMU_IRD/init"
    (cd "$DOMU_IRD" && find . | LC_ALL=C sort | "${CPIO[@]}" -o -H newc \
        2> /dev/null) > "$IRD/domu/initramfs.cpio"
    cp -L "$ROOT/boot/vmlinuz" "$IRD/domu/Image"
fi
(cd "$IRD" && find . | LC_ALL=C sort | "${CPIO[@]}" -o -H newc \
    2> /dev/null) > "$WORK/initramfs.cpio"

# ----------------------------------------------------------------- boot
XEN_ELF=$WORK/xen.elf
if gzip -t "$HV" 2> /dev/null; then zcat "$HV" > "$XEN_ELF"; else cp "$HV" "$XEN_ELF"; fi
XEN_CMDLINE="loglvl=all guest_loglvl=all"
XEN_CMDLINE+=" dom0_mem=$DOM0_MEM,max:$DOM0_MEM dom0_max_vcpus=2 $XEN_ARGS"
truncate -s 2G "$WORK/out.img"
if [ "$ARCH" = x86_64 ]; then
    XEN_CMDLINE="console=com1 com1=115200,8n1 $XEN_CMDLINE"
    DOM0_CMDLINE="console=hvc0 earlyprintk=xen rdinit=/init panic=-1 loglevel=6"
    # QEMU's multiboot loader: -initrd "module args,module args", and a
    # comma inside a module's arguments is written twice.
    QEMU=(qemu-system-x86_64 "${ACCEL[@]}" -cpu qemu64 -machine pc
          -smp 2 -m "$MEM" -nodefaults -display none -no-reboot -monitor none
          -serial stdio
          -kernel "$XEN_ELF" -append "$XEN_CMDLINE"
          -initrd "$ROOT/boot/vmlinuz ${DOM0_CMDLINE//,/,,},$WORK/initramfs.cpio"
          -drive "file=$WORK/out.img,format=raw,if=virtio,cache=unsafe")
else
    # Xen's console is the UART the device tree's stdout-path names.
    XEN_CMDLINE="console=dtuart $XEN_CMDLINE"
    DOM0_CMDLINE="console=hvc0 earlycon=xenboot rdinit=/init panic=-1 loglevel=6"
    # RAM starts at 0x40000000, Xen at 0x40200000 (its Image header);
    # dom0's kernel (33 MiB) and initramfs go above it, where Xen finds
    # them through the device tree's multiboot,module nodes.
    QEMU=(qemu-system-aarch64 "${ACCEL[@]}" -cpu cortex-a57
          -machine virt,virtualization=on,gic-version=3
          -smp 2 -m "$MEM" -nodefaults -display none -no-reboot -monitor none
          -serial stdio
          -kernel "$XEN_ELF" -append "$XEN_CMDLINE"
          -device "guest-loader,addr=0x44000000,kernel=$ROOT/boot/vmlinuz,bootargs=${DOM0_CMDLINE//,/,,}"
          -device "guest-loader,addr=0x4c000000,initrd=$WORK/initramfs.cpio"
          -drive "file=$WORK/out.img,format=raw,if=none,id=out,cache=unsafe"
          -device virtio-blk-device,drive=out)
fi
printf '%q ' "${QEMU[@]}" > "$OUT/qemu-cmdline.txt"
say "$SCENARIO: xen $XEN_CMDLINE"

START=${EPOCHREALTIME/./}
since_start() {     # seconds since START, to 1/100
    local us=$((${EPOCHREALTIME/./} - START))
    printf '%d.%02d' $((us / 1000000)) $((us % 1000000 / 10000))
}
stamp() {
    local l
    while IFS= read -r l; do
        printf '%7s %s\n' "$(since_start)" "${l%$'\r'}"
    done
}
"${QEMU[@]}" < /dev/null > >(stamp > "$OUT/serial.log") 2>&1 &
QEMU_PID=$!
deadline=$((SECONDS + TIMEOUT))
while kill -0 "$QEMU_PID" 2> /dev/null; do
    if [ $SECONDS -ge $deadline ]; then
        say "$SCENARIO: no power-off after ${TIMEOUT}s; killing QEMU"
        kill "$QEMU_PID"
        break
    fi
    sleep 1
done
wait "$QEMU_PID" || true
QEMU_PID=
sleep 0.2       # the last lines through stamp()

# Seconds from QEMU's start to each milestone of the console.
at() { awk -v pat="$1" 'index($0, pat) { print $1; exit }' "$OUT/serial.log"; }
{
    echo "xen_banner $(at ' Xen version ')"
    echo "dom0_linux $(at 'Linux version')"
    echo "dom0_init $(at '@@XT USERSPACE')"
    echo "scenario_start $(at '@@XT SCENARIO ')"
    echo "scenario_end $(at '@@XT SCENARIO-END')"
    echo "done $(at '@@XT DONE')"
    echo "qemu_exit $(since_start)"
} > "$OUT/boot-times.txt"
grep -q '@@XT DONE' "$OUT/serial.log" || {
    tail -n 30 "$OUT/serial.log" >&2
    die "$SCENARIO: dom0 did not finish (see $OUT/serial.log)"
}
tar -xf "$WORK/out.img" -C "$OUT" || die "$SCENARIO: no archive on the disk"
say "$SCENARIO: $(tr '\n' ' ' < "$OUT/boot-times.txt")"
