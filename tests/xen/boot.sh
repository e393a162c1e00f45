#!/bin/bash
# boot.sh [options] ROOT HV SCENARIO OUT: boot hypervisor HV in QEMU with
# a Linux PV dom0 that runs tests/xen/dom0-tests.sh SCENARIO, and unpack
# what dom0 left in /out into the directory OUT (which it empties first).
#
#   ROOT   the packages fetch-debs.sh unpacked (dom0 kernel, its modules,
#          busybox)
#   HV     the multiboot image: Xen's "xen" (a 32-bit ELF), or xen.gz
#
# Options:
#   --xen-args STR   more Xen command-line words (tbuf_size=... etc.)
#   --prog PATH      a dom0 program for /harness, with the libraries ldd
#                    finds for it on this host; repeatable; NAME=PATH
#                    installs it as NAME
#   --mem MIB        QEMU memory (default 1024)
#   --dom0-mem SIZE  Xen dom0_mem (default 512M)
#   --timeout SEC    give up on QEMU after SEC seconds (default 900)
#
# QEMU runs with TCG and -cpu qemu64: Xen needs VT-x/SVM from KVM, and
# -cpu max breaks a PV dom0 (docs/real-xen.md).  OUT also gets serial.log
# (each console line prefixed with host seconds since QEMU started) and
# boot-times.txt.  Exit status 0 if dom0 finished its scenario.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
XEN_ARGS=
PROGS=()
MEM=1024
DOM0_MEM=512M
TIMEOUT=900
while [ $# -gt 4 ]; do
    case "$1" in
    --xen-args) XEN_ARGS=$2 ;;
    --prog) PROGS+=("$2") ;;
    --mem) MEM=$2 ;;
    --dom0-mem) DOM0_MEM=$2 ;;
    --timeout) TIMEOUT=$2 ;;
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
mkdir -p "$IRD"/{bin,etc/xt,lib/modules,lib/x86_64-linux-gnu,lib64,harness}
cp "$ROOT/bin/busybox" "$IRD/bin/busybox"
ln -s busybox "$IRD/bin/sh"
install -m 755 "$HERE/init.sh" "$IRD/init"
install -m 755 "$HERE/dom0-tests.sh" "$IRD/harness/dom0-tests.sh"
echo "$SCENARIO" > "$IRD/etc/xt/scenario"

# A program and the libraries it loads here, which are dom0's too.
add_prog() {
    local name=${1%%=*} path=${1#*=} line lib
    install -m 755 "$path" "$IRD/harness/$name"
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
for m in xen-privcmd xenfs xen-evtchn xen-gntdev virtio_pci virtio_blk; do
    add_module "$m"
done
(cd "$IRD" && find . | LC_ALL=C sort | "$ROOT/bin/busybox" cpio -o -H newc \
    2> /dev/null) > "$WORK/initramfs.cpio"

# ----------------------------------------------------------------- boot
XEN_ELF=$WORK/xen.elf
if gzip -t "$HV" 2> /dev/null; then zcat "$HV" > "$XEN_ELF"; else cp "$HV" "$XEN_ELF"; fi
XEN_CMDLINE="console=com1 com1=115200,8n1 loglvl=all guest_loglvl=all"
XEN_CMDLINE+=" dom0_mem=$DOM0_MEM,max:$DOM0_MEM dom0_max_vcpus=2 $XEN_ARGS"
DOM0_CMDLINE="console=hvc0 earlyprintk=xen rdinit=/init panic=-1 loglevel=6"
truncate -s 2G "$WORK/out.img"
# QEMU's multiboot loader: -initrd "module args,module args", and a comma
# inside a module's arguments is written twice.
QEMU=(qemu-system-x86_64 -accel tcg,thread=multi -cpu qemu64 -machine pc
      -smp 2 -m "$MEM" -nodefaults -display none -no-reboot -monitor none
      -serial stdio
      -kernel "$XEN_ELF" -append "$XEN_CMDLINE"
      -initrd "$ROOT/boot/vmlinuz ${DOM0_CMDLINE//,/,,},$WORK/initramfs.cpio"
      -drive "file=$WORK/out.img,format=raw,if=virtio,cache=unsafe")
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
