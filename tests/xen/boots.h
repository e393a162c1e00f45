/*
 * The boots of `make check-xen` (tests/xen/check-xen.sh), for its cmocka
 * tests: each test on each boot it applies to, named for both, with the
 * boot's name (its directory under $XT_RESULTS) as the test's state.
 * A boot on emulated arm64 has "arm64-" before the name of the x86 boot
 * whose scenario it runs; "cost" and "arm64-cost" are booted with the
 * guest's clock counting instructions (boot.sh --icount).
 */
#ifndef BOOTS_H
#define BOOTS_H

#define ON(fn, boot) { #fn " " boot, fn, NULL, NULL, (void *)boot }
#define ON_STOCK(fn) ON(fn, "debian-xen"), ON(fn, "stock-4.20"), \
                     ON(fn, "arm64-debian-xen")
#define ON_OURS(fn)  ON(fn, "our-xen"), ON(fn, "our-xen-4.20"), \
                     ON(fn, "arm64-our-xen"), ON(fn, "arm64-our-xen-4.20")
#define ON_CLAMP(fn) ON(fn, "clamp"), ON(fn, "clamp-4.20")
/* The boots on emulated arm64, stock and ours. */
#define ON_ARM(fn)   ON(fn, "arm64-debian-xen"), ON(fn, "arm64-our-xen"), \
                     ON(fn, "arm64-our-xen-4.20"), ON(fn, "arm64-domu")
/* Ours on arm64 with a guest (dom0-tests.sh domu). */
#define ON_DOMU(fn)  ON(fn, "arm64-domu")

#endif /* BOOTS_H */
