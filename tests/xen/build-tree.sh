#!/bin/bash
# build-tree.sh [--stock] XEN-SRC CACHE VERSION: build the hypervisor of
# the Xen release tree XEN-SRC/xen-VERSION.tar.xz with our trace.c and
# trace headers in place of Xen's (--stock: unchanged), and print the
# directory of what it made:
#
#   xen            the multiboot image (a 32-bit ELF, for QEMU -kernel)
#   build.rc       make's exit status; build.log its output
#   nm.txt, sections.txt, call-site.txt   (ours only; see call-site.sh)
#
# Configured with `make defconfig` (CONFIG_TRACEBUFFER=y, CONFIG_COMPAT=y
# on x86) and built with Xen's own flags, -Werror among them.  Everything
# lives under CACHE/ours-in-VERSION (CACHE/stock-VERSION): the unpacked
# tree, kept so that a change to our files rebuilds only what depends on
# them, and one result directory per KEY, a hash of the tarball, our files
# and these scripts, so a repeat run builds nothing.  A failed build is
# printed too, for the tests to report, but not kept.
set -euo pipefail

STOCK=no
[ "${1-}" = --stock ] && { STOCK=yes; shift; }
[ $# -eq 3 ] || { echo "usage: build-tree.sh [--stock] XEN-SRC CACHE VERSION" >&2; exit 2; }
XEN_SRC=$1 CACHE=$2 VER=$3
REPO=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "build-tree: $*" >&2; }
die() { say "$*"; exit 1; }

TAR=$XEN_SRC/xen-$VER.tar.xz
[ -f "$TAR" ] || die "$TAR: no such release tarball"
OURS=(xen/common/trace.c xen/include/public/trace.h xen/include/xen/trace.h
      xen/include/xen/trace-events.h)
SCRIPTS=(tests/xen/build-tree.sh tests/xen/call-site.sh tests/xen/call-site.c)
if [ $STOCK = yes ]; then
    DIR=$CACHE/stock-$VER
    KEY=$(sha256sum < "$TAR" | cut -c1-16)
else
    DIR=$CACHE/ours-in-$VER
    KEY=$( (sha256sum < "$TAR"; cd "$REPO" && cat "${OURS[@]}" "${SCRIPTS[@]}") |
          sha256sum | cut -c1-16)
fi
OUT=$DIR/$KEY
TREE=$DIR/tree

# One build at a time per tree.
mkdir -p "$DIR"
exec 9> "$DIR/.lock"
flock 9
if [ -f "$OUT/.complete" ]; then
    say "cached: $OUT"
    echo "$OUT"
    exit 0
fi

if [ ! -f "$TREE/xen/.config" ]; then
    rm -rf "$TREE"
    mkdir -p "$TREE"
    say "unpacking and configuring $TAR"
    tar -xJf "$TAR" -C "$TREE" --strip-components=1
    make -C "$TREE/xen" XEN_TARGET_ARCH=x86_64 defconfig > "$DIR/config.log" 2>&1 ||
        { cat "$DIR/config.log" >&2; die "defconfig failed"; }
fi
grep -q '^CONFIG_TRACEBUFFER=y' "$TREE/xen/.config" ||
    die "$TREE/xen/.config: CONFIG_TRACEBUFFER is off"
if [ $STOCK = no ]; then
    for f in "${OURS[@]}"; do
        cmp -s "$REPO/$f" "$TREE/$f" || cp "$REPO/$f" "$TREE/$f"
    done
fi

rm -rf "$OUT"
mkdir -p "$OUT"
say "building $TREE/xen ($OUT/build.log)"
start=$SECONDS
rc=0
make -C "$TREE/xen" XEN_TARGET_ARCH=x86_64 -j"$(nproc)" > "$OUT/build.log" 2>&1 || rc=$?
echo $rc > "$OUT/build.rc"
say "$VER: make exited $rc after $((SECONDS - start)) s"
if [ $rc -ne 0 ]; then
    tail -n 20 "$OUT/build.log" >&2
    echo "$OUT"        # not cached: the tests report it
    exit 0
fi
cp "$TREE/xen/xen" "$OUT/xen"
[ $STOCK = yes ] || "$REPO/tests/xen/call-site.sh" "$TREE/xen" "$OUT"
touch "$OUT/.complete"
# Older results of this tree: they describe files no longer there.
find "$DIR" -mindepth 1 -maxdepth 1 -type d ! -name tree ! -name "$KEY" \
    -exec rm -rf {} +
echo "$OUT"
