#!/bin/bash
# build-xen.sh CACHE-DIR [ARCH]: build the Xen 4.17 hypervisor from Debian's
# source package with xentrace-ng's trace.c and trace headers, for ARCH
# (x86_64, the default, or arm64 with Debian's aarch64-linux-gnu- cross
# compiler), and print the path of its image: on x86_64 the multiboot one
# (xen/xen, a 32-bit ELF for QEMU -kernel), on arm64 the Image Xen boots
# from.  IMAGE.d next to it holds what tests/xen/call-site.sh found in the
# build.
#
# The source is the version of the installed libxen-dev, so the hypervisor
# matches the dom0 libraries our xentrace links with.  It is configured as
# Debian configures it (debian/xen-kconfig + olddefconfig) and built with
# Xen's own flags (-Werror among them).  The image is kept as
# CACHE/hv/xen-VERSION-KEY (xen-VERSION-arm64-KEY), KEY hashing our three
# files and this script, so a repeat run builds nothing; the unpacked tree
# under CACHE/src/VERSION (tree, tree-arm64) is reused, so a change to our
# files rebuilds only what depends on them.
set -euo pipefail

[ $# -eq 1 ] || [ $# -eq 2 ] ||
    { echo "usage: build-xen.sh CACHE-DIR [ARCH]" >&2; exit 2; }
CACHE=$1 ARCH=${2:-x86_64}
case $ARCH in
x86_64) MAKE_ARCH=(XEN_TARGET_ARCH=x86_64) SUFFIX= ;;
arm64)  MAKE_ARCH=(XEN_TARGET_ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
        SUFFIX=-arm64 ;;
*) echo "build-xen.sh: no such architecture: $ARCH" >&2; exit 2 ;;
esac
REPO=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "build-xen: $*" >&2; }
die() { say "$*"; exit 1; }

OURS=(xen/common/trace.c xen/include/public/trace.h xen/include/xen/trace.h)
# Ours alone, with no Debian original to keep: trace.c's layouts of the
# records it writes, generated from the catalogue.
ADDED=(xen/include/xen/trace-events.h)
TOOLS_VER=$(dpkg-query -W -f='${Version}' libxen-dev) ||
    die "libxen-dev is not installed"
KEY=$(cd "$REPO" && cat "${OURS[@]}" "${ADDED[@]}" tests/xen/build-xen.sh tests/xen/call-site.sh \
      tests/xen/call-site.c | sha256sum | cut -c1-16)

# Source versions to try: libxen-dev's first, then the other 4.17 ones
# apt knows, newest first (a mirror may lack the security update's source;
# within 4.17 the hypercall interfaces dom0 uses do not change).
source_versions() {
    local known

    known=$(apt-cache showsrc xen 2> /dev/null | sed -n 's/^Version: //p')
    if [ -z "$known" ]; then
        add_deb_src
        known=$(apt-cache showsrc xen | sed -n 's/^Version: //p')
    fi
    { echo "$TOOLS_VER"; sort -rV <<< "$known"; } |
        awk '/^4\.17\./ && !seen[$0]++'
}

# deb-src entries for the configured Debian archive, if apt has none.
add_deb_src() {
    local f
    say "adding deb-src entries (/etc/apt/sources.list.d/xentrace-ng-src.*)"
    for f in /etc/apt/sources.list.d/*.sources; do
        grep -q 'debian' "$f" || continue
        sed 's/^Types:.*/Types: deb-src/' "$f"
        echo
    done > /etc/apt/sources.list.d/xentrace-ng-src.sources
    if [ -f /etc/apt/sources.list ]; then
        sed -n 's/^deb /deb-src /p' /etc/apt/sources.list \
            > /etc/apt/sources.list.d/xentrace-ng-src.list
    fi
    apt-get update -qq
}

# fetch VERSION: Debian's source package into CACHE/src/VERSION/dl.
fetch() {
    local dl=$CACHE/src/$1/dl
    compgen -G "$dl/*.dsc" > /dev/null && return 0
    rm -rf "$dl"
    mkdir -p "$dl"
    say "apt-get source xen=$1"
    (cd "$dl" && apt-get source -q --download-only \
        -o APT::Sandbox::User=root "xen=$1") > "$dl/../fetch.log" 2>&1 && return 0
    rm -rf "$dl"
    say "xen=$1: source not available (see $CACHE/src/$1/fetch.log)"
    return 1
}

VERSIONS=$(source_versions)
for VER in $VERSIONS; do
    IMAGE=$CACHE/hv/xen-$VER$SUFFIX-$KEY
    if [ -f "$IMAGE" ]; then
        say "cached: $IMAGE"
        echo "$IMAGE"
        exit 0
    fi
done
for VER in $VERSIONS; do
    fetch "$VER" && break
    VER=
done
[ -n "$VER" ] || die "no Xen 4.17 source package could be fetched"
[ "$VER" = "$TOOLS_VER" ] ||
    say "building $VER (the tools are $TOOLS_VER)"
SRC=$CACHE/src/$VER
DL=$SRC/dl
IMAGE=$CACHE/hv/xen-$VER$SUFFIX-$KEY

TREE=$SRC/tree$SUFFIX
if [ ! -f "$TREE/xen/.config" ]; then
    rm -rf "$TREE"
    say "unpacking and configuring $VER"
    dpkg-source -x "$DL"/*.dsc "$TREE" > "$SRC/unpack.log" 2>&1 ||
        { cat "$SRC/unpack.log" >&2; die "dpkg-source -x failed"; }
    for f in "${OURS[@]}"; do cp "$TREE/$f" "$TREE/$f.debian"; done
    cp "$TREE/debian/xen-kconfig" "$TREE/xen/.config"
    make -C "$TREE/xen" "${MAKE_ARCH[@]}" olddefconfig \
        > "$SRC/config$SUFFIX.log" 2>&1 ||
        { cat "$SRC/config$SUFFIX.log" >&2; die "olddefconfig failed"; }
fi
grep -q '^CONFIG_TRACEBUFFER=y' "$TREE/xen/.config" ||
    die "$TREE/xen/.config: CONFIG_TRACEBUFFER is off"

# Our public header must be a drop-in: every macro Xen's defines, ours
# defines (test_abi checks the values against the installed header).
missing=$(comm -23 \
    <(sed -n 's/^#define[[:space:]]\{1,\}\([A-Za-z_0-9]*\).*/\1/p' \
          "$TREE/xen/include/public/trace.h.debian" | sort -u) \
    <(sed -n 's/^#define[[:space:]]\{1,\}\([A-Za-z_0-9]*\).*/\1/p' \
          "$REPO/xen/include/public/trace.h" | sort -u))
[ -z "$missing" ] || die "public/trace.h lacks Xen's macros:" $missing

for f in "${OURS[@]}" "${ADDED[@]}"; do
    cmp -s "$REPO/$f" "$TREE/$f" || cp "$REPO/$f" "$TREE/$f"
done
LOG=$SRC/build$SUFFIX.log
say "building the hypervisor ($TREE/xen, log $LOG)"
start=$SECONDS
make -C "$TREE/xen" "${MAKE_ARCH[@]}" -j"$(nproc)" > "$LOG" 2>&1 ||
    { tail -n 40 "$LOG" >&2; die "hypervisor build failed"; }
say "built in $((SECONDS - start)) s"
mkdir -p "$CACHE/hv"
if [ "$ARCH" = arm64 ]; then
    # The arm64 Image header's magic, "ARM\x64" at offset 0x38.
    [ "$(od -An -tx1 -j56 -N4 "$TREE/xen/xen")" = " 41 52 4d 64" ] ||
        die "$TREE/xen/xen is not an arm64 Image"
else
    [ "$(head -c 5 "$TREE/xen/xen" | od -An -tx1)" = " 7f 45 4c 46 01" ] ||
        die "$TREE/xen/xen is not a 32-bit ELF"
fi
# What test_xen_trees reads of the build, next to the image.
rm -rf "$IMAGE.d"
mkdir -p "$IMAGE.d"
cp "$LOG" "$IMAGE.d/build.log"
echo 0 > "$IMAGE.d/build.rc"
"$REPO/tests/xen/call-site.sh" "$TREE/xen" "$IMAGE.d" "$ARCH"
cp "$TREE/xen/xen" "$IMAGE.tmp"
mv "$IMAGE.tmp" "$IMAGE"
echo "$IMAGE"
