#!/bin/bash
# build-tree.sh [--stock] [--arch ARCH] XEN-SRC CACHE VERSION: build the
# hypervisor of the Xen release tree XEN-SRC/xen-VERSION.tar.xz with our
# trace.c and trace headers in place of Xen's (--stock: unchanged), for
# ARCH (x86_64, the default, or arm64, with Debian's aarch64-linux-gnu-
# cross compiler), and print the directory of what it made:
#
#   xen            the image: on x86_64 the multiboot one (a 32-bit ELF,
#                  for QEMU -kernel), on arm64 the Image Xen boots from
#   build.rc       make's exit status; build.log its output
#   nm.txt, sections.txt, call-site.txt   (ours only; see call-site.sh)
#
# Configured with `make defconfig` (CONFIG_TRACEBUFFER=y, CONFIG_COMPAT=y
# on x86) and built with Xen's own flags, -Werror among them.  Ours on
# arm64 also gets the Arm trace points, the series xen/patches/arm/VERSION
# (with xen/trace-events.h, the typed calls it makes), where there is one.  Everything
# lives under CACHE/ours-in-VERSION (CACHE/stock-VERSION; on arm64 with
# -arm64 after VERSION): the unpacked
# tree, kept so that a change to our files rebuilds only what depends on
# them, and one result directory per KEY, a hash of the tarball, our files
# and these scripts, so a repeat run builds nothing.  A failed build is
# printed too, for the tests to report, but not kept.
set -euo pipefail

STOCK=no ARCH=x86_64
[ "${1-}" = --stock ] && { STOCK=yes; shift; }
[ "${1-}" = --arch ] && { ARCH=${2-}; shift 2; }
[ $# -eq 3 ] || { echo "usage: build-tree.sh [--stock] [--arch ARCH] XEN-SRC CACHE VERSION" >&2; exit 2; }
XEN_SRC=$1 CACHE=$2 VER=$3
case $ARCH in
x86_64) MAKE_ARCH=(XEN_TARGET_ARCH=x86_64) SUFFIX= ;;
arm64)  MAKE_ARCH=(XEN_TARGET_ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
        SUFFIX=-arm64 ;;
*) echo "build-tree.sh: no such architecture: $ARCH" >&2; exit 2 ;;
esac
REPO=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "build-tree: $*" >&2; }
die() { say "$*"; exit 1; }

TAR=$XEN_SRC/xen-$VER.tar.xz
[ -f "$TAR" ] || die "$TAR: no such release tarball"
OURS=(xen/common/trace.c xen/include/public/trace.h xen/include/xen/trace.h
      xen/include/xen/trace-events.h)
SCRIPTS=(tests/xen/build-tree.sh tests/xen/call-site.sh tests/xen/call-site.c)
PATCHES=()
if [ $STOCK = no ] && [ "$ARCH" = arm64 ]; then
    PATCHES=($(cd "$REPO" && ls xen/patches/arm/"$VER"/*.patch 2> /dev/null))
fi
if [ $STOCK = yes ]; then
    DIR=$CACHE/stock-$VER$SUFFIX
    KEY=$(sha256sum < "$TAR" | cut -c1-16)
else
    DIR=$CACHE/ours-in-$VER$SUFFIX
    KEY=$( (sha256sum < "$TAR"; cd "$REPO" &&
            cat "${OURS[@]}" "${SCRIPTS[@]}" "${PATCHES[@]}") |
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

# The series applied to the tree, by its hash (none: no .xt-series):
# another series needs a fresh tree.
SERIES=
[ ${#PATCHES[@]} -eq 0 ] ||
    SERIES=$( (cd "$REPO" && cat "${PATCHES[@]}") | sha256sum | cut -c1-16)
[ "$(cat "$TREE/.xt-series" 2> /dev/null || true)" = "$SERIES" ] ||
    rm -rf "$TREE"
if [ ! -f "$TREE/xen/.config" ]; then
    rm -rf "$TREE"
    mkdir -p "$TREE"
    say "unpacking and configuring $TAR"
    tar -xJf "$TAR" -C "$TREE" --strip-components=1
    make -C "$TREE/xen" "${MAKE_ARCH[@]}" defconfig > "$DIR/config.log" 2>&1 ||
        { cat "$DIR/config.log" >&2; die "defconfig failed"; }
    for p in "${PATCHES[@]}"; do
        patch -d "$TREE" -p1 -F0 < "$REPO/$p" > "$DIR/patch.log" 2>&1 ||
            { cat "$DIR/patch.log" >&2; die "$p does not apply"; }
    done
    [ -z "$SERIES" ] || echo "$SERIES" > "$TREE/.xt-series"
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
make -C "$TREE/xen" "${MAKE_ARCH[@]}" -j"$(nproc)" > "$OUT/build.log" 2>&1 || rc=$?
echo $rc > "$OUT/build.rc"
say "$VER: make exited $rc after $((SECONDS - start)) s"
if [ $rc -ne 0 ]; then
    tail -n 20 "$OUT/build.log" >&2
    echo "$OUT"        # not cached: the tests report it
    exit 0
fi
cp "$TREE/xen/xen" "$OUT/xen"
[ $STOCK = yes ] || "$REPO/tests/xen/call-site.sh" "$TREE/xen" "$OUT" "$ARCH"
touch "$OUT/.complete"
# Older results of this tree: they describe files no longer there.
find "$DIR" -mindepth 1 -maxdepth 1 -type d ! -name tree ! -name "$KEY" \
    -exec rm -rf {} +
echo "$OUT"
