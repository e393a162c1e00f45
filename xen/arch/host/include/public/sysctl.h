/* SPDX-License-Identifier: MIT */
/*
 * XEN_SYSCTL_tbuf_op, the trace buffer control operation, for the host
 * build.  In the Xen tree, the real include/public/sysctl.h is used instead;
 * tests/unit/test_abi.c checks this layout against Debian's header.
 */
#ifndef __HOST_PUBLIC_SYSCTL_H__
#define __HOST_PUBLIC_SYSCTL_H__

#include <public/xen.h>

#define XEN_SYSCTL_INTERFACE_VERSION 0x00000015    /* Xen 4.17 */
#define XEN_SYSCTL_tbuf_op           2

struct xen_sysctl_tbuf_op {
#define XEN_SYSCTL_TBUFOP_get_info     0
#define XEN_SYSCTL_TBUFOP_set_cpu_mask 1
#define XEN_SYSCTL_TBUFOP_set_evt_mask 2
#define XEN_SYSCTL_TBUFOP_set_size     3
#define XEN_SYSCTL_TBUFOP_enable       4
#define XEN_SYSCTL_TBUFOP_disable      5
    uint32_t cmd;                    /* IN */
    struct xenctl_bitmap cpu_mask;   /* IN (set_cpu_mask) */
    uint32_t evt_mask;               /* IN (set_evt_mask), OUT (get_info) */
    uint64_aligned_t buffer_mfn;     /* OUT (get_info): first t_info MFN */
    uint32_t size;                   /* IN (set_size): pages per CPU;
                                        OUT (get_info): bytes of t_info */
};

#endif /* __HOST_PUBLIC_SYSCTL_H__ */
