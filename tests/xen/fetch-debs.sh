#!/bin/bash
# fetch-debs.sh CACHE-DIR: the Debian packages a boot needs, downloaded
# into CACHE/debs and unpacked (dpkg -x) into CACHE/root/KEY; prints that
# directory.  Nothing is installed: /boot is left alone.
#
#   xen-hypervisor-4.17-amd64  at the version of libxen-dev, so Debian's
#                              hypervisor matches the dom0 libraries
#   linux-image-*-amd64        the dom0 kernel and its modules, the one
#                              linux-image-amd64 depends on
#   busybox-static             the dom0 userland
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: fetch-debs.sh CACHE-DIR" >&2; exit 2; }
CACHE=$1
say() { echo "fetch-debs: $*" >&2; }
die() { say "$*"; exit 1; }

DEBS=$CACHE/debs
mkdir -p "$DEBS"
TOOLS_VER=$(dpkg-query -W -f='${Version}' libxen-dev) ||
    die "libxen-dev is not installed"

# The newest kernel already in the cache, else the one apt resolves.
KPKG=$(cd "$DEBS" && ls linux-image-[0-9]*-amd64_*.deb 2>/dev/null |
       cut -d_ -f1 | sort -V | tail -n1 || true)
if [ -z "$KPKG" ]; then
    resolve() {
        apt-cache depends linux-image-amd64 2>/dev/null |
            awk '/Depends: linux-image-[0-9]/ && !found++ { print $2 }'
    }
    KPKG=$(resolve)
    [ -n "$KPKG" ] || { apt-get update -qq && KPKG=$(resolve); }
    [ -n "$KPKG" ] || die "cannot resolve linux-image-amd64"
fi

# name=version for apt-get download, name_version for the cached file
# (dpkg's file names write an epoch's ':' as '%3a').
WANT=("xen-hypervisor-4.17-amd64=$TOOLS_VER" "$KPKG" busybox-static)
missing=()
for w in "${WANT[@]}"; do
    pat=${w/=/_}
    [ "$pat" = "$w" ] && pat=${w}_
    compgen -G "$DEBS/${pat//:/%3a}*.deb" > /dev/null || missing+=("$w")
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
ROOT=$CACHE/root/$KEY
if [ ! -f "$ROOT/.complete" ]; then
    rm -rf "$CACHE/root"        # older package sets: 400 MB each
    mkdir -p "$ROOT"
    for w in "${WANT[@]}"; do
        pat=${w/=/_}
        [ "$pat" = "$w" ] && pat=${w}_
        deb=$(ls "$DEBS"/${pat//:/%3a}*.deb | sort -V | tail -n1)
        dpkg -x "$deb" "$ROOT"
    done
    ln -s "vmlinuz-${KPKG#linux-image-}" "$ROOT/boot/vmlinuz"
    ln -s "${KPKG#linux-image-}" "$ROOT/lib/modules/dom0"
    touch "$ROOT/.complete"
fi
[ -f "$ROOT/boot/xen-4.17-amd64.gz" ] && [ -x "$ROOT/bin/busybox" ] &&
    [ -f "$ROOT/boot/vmlinuz" ] || die "$ROOT: unpacking incomplete"
echo "$ROOT"
