#!/bin/bash
# call-site.sh XEN-DIR OUT-DIR [ARCH]: what a Xen tree, built for ARCH
# (x86_64, the default, or arm64), made of our files, for the checks of
# test_xen_trees and test_xen, in OUT-DIR:
#
#   nm.txt         nm -S of common/trace.o: the symbols and their sizes
#   sections.txt   objdump -h of it (.init_array: a constructor)
#   call-site.txt  objdump -dr of tests/xen/call-site.c compiled with the
#                  command line Xen's build used for common/trace.o
set -euo pipefail

[ $# -eq 2 ] || [ $# -eq 3 ] ||
    { echo "usage: call-site.sh XEN-DIR OUT-DIR [ARCH]" >&2; exit 2; }
XEN=$1 OUT=$2 ARCH=${3:-x86_64}
# The binutils of the target: the host's read only its own instructions.
BINUTILS=
[ "$ARCH" = arm64 ] && BINUTILS=aarch64-linux-gnu-
PROBE=$(cd "$(dirname "$0")" && pwd)/call-site.c

"${BINUTILS}nm" -S "$XEN/common/trace.o" > "$OUT/nm.txt"
"${BINUTILS}objdump" -h "$XEN/common/trace.o" > "$OUT/sections.txt"

# "cmd_common/trace.o := gcc ... -c common/trace.c -o common/.trace.o.tmp
# -MQ common/trace.o" (4.17: "-o common/trace.o"), without the dependency
# file options.
cmd=$(sed -n 's/^cmd_common\/trace\.o := //p' "$XEN/common/.trace.o.cmd")
[ -n "$cmd" ] || { echo "call-site.sh: no command line for common/trace.o" >&2; exit 1; }
cmd=$(sed -e 's/ -MMD\| -MP\| -MF [^ ]*\| -MQ [^ ]*//g' \
          -e 's/ -c common\/trace\.c -o [^ ]*//' <<< "$cmd")
(cd "$XEN" && eval "$cmd -c $PROBE -o $OUT/call-site.o")
"${BINUTILS}objdump" -dr --no-show-raw-insn "$OUT/call-site.o" > "$OUT/call-site.txt"
