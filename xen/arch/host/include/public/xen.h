/* SPDX-License-Identifier: MIT */
/*
 * The part of Xen's public xen.h that the trace buffers use, for the host
 * build.  In the Xen tree, the real include/public/xen.h is used instead;
 * tests/unit/test_abi.c checks every value here against Debian's header.
 */
#ifndef __HOST_PUBLIC_XEN_H__
#define __HOST_PUBLIC_XEN_H__

#include <stdint.h>

/* Xen 4.17's guest interface version (xen-compat.h): xen/trace.h reads it. */
#define __XEN_LATEST_INTERFACE_VERSION__ 0x00040e00

typedef uint16_t domid_t;
typedef unsigned long xen_ulong_t;
typedef uint64_t uint64_aligned_t __attribute__((aligned(8)));

/* A guest pointer widened to 64 bits, as on every 64-bit Xen. */
#define XEN_GUEST_HANDLE_64(type) \
    union { type *p; uint64_aligned_t q; }

#define DOMID_XEN          0x7FF2U
#define DOMID_IDLE         0x7FFFU
#define VIRQ_TBUF          4    /* global: trace buffer passed high water */

/* Hypercalls whose arguments __trace_hypercall() records. */
#define __HYPERVISOR_mmu_update            1
#define __HYPERVISOR_multicall            13
#define __HYPERVISOR_grant_table_op       20
#define __HYPERVISOR_vcpu_op              24
#define __HYPERVISOR_mmuext_op            26
#define __HYPERVISOR_sched_op             29

struct xenctl_bitmap {
    XEN_GUEST_HANDLE_64(uint8_t) bitmap;
    uint32_t nr_bits;
};

#endif /* __HOST_PUBLIC_XEN_H__ */
