#!/bin/bash
# fetch-debs.sh CACHE-DIR [ARCH]: the Debian packages a boot needs,
# downloaded into CACHE/debs and unpacked (dpkg -x) into CACHE/root/KEY;
# prints that directory.  Nothing is installed: /boot is left alone.
#
#   xen-hypervisor-4.17-amd64  at the version of libxen-dev, so Debian's
#                              hypervisor matches the dom0 libraries
#   linux-image-*-amd64        the dom0 kernel and its modules, the one
#                              linux-image-amd64 depends on
#   busybox-static             the dom0 userland
#
# ARCH arm64 (default amd64): the arm64 packages instead, into
# CACHE/debs-arm64 and CACHE/root-arm64/KEY (apt needs the architecture:
# dpkg --add-architecture arm64), and as the dom0 programs run there on
# arm64 libraries, also those: Debian's tools (xen-utils-4.17, with
# xentrace, xl and xenstored; xen-utils-common, with xenalyze), the
# libraries they load, and libxen-dev, zlib1g-dev, libtracefs-dev and
# libtraceevent-dev to build ours against.
set -euo pipefail

[ $# -eq 1 ] || [ $# -eq 2 ] ||
    { echo "usage: fetch-debs.sh CACHE-DIR [ARCH]" >&2; exit 2; }
CACHE=$1 ARCH=${2:-amd64}
say() { echo "fetch-debs: $*" >&2; }
die() { say "$*"; exit 1; }

case $ARCH in
amd64) SUFFIX= QUAL= ;;
arm64) SUFFIX=-arm64 QUAL=:arm64
       dpkg --print-foreign-architectures | grep -qx arm64 || {
           say "dpkg --add-architecture arm64"
           dpkg --add-architecture arm64
           apt-get update -qq
       } ;;
*) die "no such architecture: $ARCH" ;;
esac
DEBS=$CACHE/debs$SUFFIX
mkdir -p "$DEBS"
TOOLS_VER=$(dpkg-query -W -f='${Version}' libxen-dev) ||
    die "libxen-dev is not installed"

# The newest kernel already in the cache, else the one apt resolves.
KPKG=$(cd "$DEBS" && ls linux-image-[0-9]*-"$ARCH"_*.deb 2>/dev/null |
       cut -d_ -f1 | sort -V | tail -n1 || true)
if [ -z "$KPKG" ]; then
    resolve() {
        apt-cache depends "linux-image-$ARCH$QUAL" 2>/dev/null |
            awk '/Depends: linux-image-[0-9]/ && !found++ { print $2 }'
    }
    KPKG=$(resolve)
    [ -n "$KPKG" ] || { apt-get update -qq && KPKG=$(resolve); }
    [ -n "$KPKG" ] || die "cannot resolve linux-image-$ARCH"
    KPKG=${KPKG%:*}
fi

# name=version for apt-get download, name_version for the cached file
# (dpkg's file names write an epoch's ':' as '%3a').
WANT=("xen-hypervisor-4.17-$ARCH$QUAL=$TOOLS_VER" "$KPKG$QUAL"
      "busybox-static$QUAL")
if [ "$ARCH" = arm64 ]; then
    for p in xen-utils-4.17 xen-utils-common libxen-dev libxencall1 \
             libxenevtchn1 libxenforeignmemory1 libxengnttab1 \
             libxenmisc4.17 libxenstore4 libxentoollog1 libxentoolcore1 \
             libxendevicemodel1 libxenhypfs1; do
        WANT+=("$p:arm64=$TOOLS_VER")
    done
    WANT+=(libc6:arm64 libyajl2:arm64 libncurses6:arm64 libtinfo6:arm64
           zlib1g:arm64 zlib1g-dev:arm64 libuuid1:arm64 libfdt1:arm64
           libgcc-s1:arm64 libtracefs1:arm64 libtracefs-dev:arm64
           libtraceevent1:arm64 libtraceevent-dev:arm64)
fi
missing=()
# The cached file of package NAME[:ARCH][=VERSION]: NAME_VERSION*.deb.
deb_glob() {
    local w=${1/:$ARCH/} pat
    pat=${w/=/_}
    [ "$pat" = "$w" ] && pat=${w}_
    echo "$DEBS/${pat//:/%3a}*.deb"
}
for w in "${WANT[@]}"; do
    compgen -G "$(deb_glob "$w")" > /dev/null || missing+=("$w")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "apt-get download ${missing[*]}"
    (cd "$DEBS" && { apt-get download -q -o APT::Sandbox::User=root \
        "${missing[@]}" || { apt-get update -qq && apt-get download -q \
        -o APT::Sandbox::User=root "${missing[@]}"; }; }) \
        > "$DEBS/download.log" 2>&1 ||
        { cat "$DEBS/download.log" >&2; die "apt-get download failed"; }
fi

KEY=$(printf '%s\n' "$TOOLS_VER" "$KPKG" | cat - <(cd "$DEBS" && ls ./*.deb) |
      sha256sum | cut -c1-16)
ROOT=$CACHE/root$SUFFIX/$KEY
if [ ! -f "$ROOT/.complete" ]; then
    rm -rf "$CACHE/root$SUFFIX"  # older package sets: 400 MB each
    mkdir -p "$ROOT"
    for w in "${WANT[@]}"; do
        deb=$(ls $(deb_glob "$w") | sort -V | tail -n1)
        dpkg -x "$deb" "$ROOT"
    done
    ln -s "vmlinuz-${KPKG#linux-image-}" "$ROOT/boot/vmlinuz"
    ln -s "${KPKG#linux-image-}" "$ROOT/lib/modules/dom0"
    touch "$ROOT/.complete"
fi
HV=$ROOT/boot/xen-4.17-amd64.gz
[ "$ARCH" = arm64 ] && HV=$ROOT/boot/xen-4.17-arm64
[ -f "$HV" ] && [ -f "$ROOT/bin/busybox" ] && [ -f "$ROOT/boot/vmlinuz" ] ||
    die "$ROOT: unpacking incomplete"
echo "$ROOT"
