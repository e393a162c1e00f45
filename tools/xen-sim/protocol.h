/*
 * The wire protocol between xen-sim (the simulated host) and the drop-in
 * Xen libraries its dom0 programs load.
 *
 * Every library handle (an xc_interface, a xenforeignmemory_handle, a
 * xenevtchn_handle, a struct xs_handle) is one connection to xen-sim's UNIX socket, whose path
 * is in $XEN_SIM_SOCKET.  A connection is a sequence of requests, each
 * answered before the next is sent:
 *
 *   request:  struct xs_msg { op, len }  then len bytes of payload
 *   reply:    struct xs_msg { rc, len }  then len bytes of payload,
 *             and for XS_HELLO, XS_BIND_VIRQ and XS_STORE_WATCH one
 *             descriptor (SCM_RIGHTS) sent with the header
 *
 * rc is 0 or a negative errno, as the hypervisor (or the privcmd and
 * evtchn drivers) would return it; the libraries turn it into -1 and errno
 * as the real ones do.  Both sides are on one machine: host byte order,
 * native struct layout.
 */
#ifndef XEN_SIM_PROTOCOL_H
#define XEN_SIM_PROTOCOL_H

#include <stdint.h>

#define XS_SOCKET_ENV      "XEN_SIM_SOCKET"
#define XS_MAX_PAYLOAD     (1U << 20)

enum xs_op {
    /*
     * No payload.  Reply: struct xs_hello, and the machine memory file:
     * frame n is at offset n * 4096.  It may be mapped only as XS_MAP
     * allows.
     */
    XS_HELLO = 1,

    /*
     * XEN_SYSCTL_tbuf_op.  Payload: struct xs_tbuf_op, then bitmap_bytes
     * bytes of CPU bitmap (set_cpu_mask).  Reply: struct xs_tbuf_op with
     * the OUT fields filled in, rc as tb_control() returned it.
     */
    XS_TBUF_OP,

    /* No payload.  Reply: struct xs_physinfo. */
    XS_PHYSINFO,

    /*
     * May this connection map these frames of DOMID_XEN?  Payload: struct
     * xs_map, then count uint64_t MFNs.  Reply: count int32_t, one per
     * frame: 0, or -EPERM (not shared), -EBUSY (writable asked of a
     * read-only frame) or -EINVAL (no such frame).  rc is 0 if every frame
     * may be mapped, else the first error.  Each frame allowed holds a
     * reference, as a mapping does in Xen, until XS_UNMAP.
     */
    XS_MAP,

    /*
     * This connection no longer maps these frames: the references XS_MAP
     * took for them go.  Payload: uint64_t MFNs.  Reply: none, rc 0.  A
     * frame the connection holds no reference to is ignored; closing
     * the connection gives back every reference it holds.
     */
    XS_UNMAP,

    /*
     * Bind a global virq to this connection.  Payload: uint32_t virq.
     * Reply: uint32_t port, and an eventfd that is signalled when the virq
     * fires.  -EEXIST if a connection has it bound already (dom0 binds a
     * virq once: evtchn_bind_virq() says so); -EINVAL for a virq xen-sim
     * does not deliver.  Closing the connection unbinds.
     */
    XS_BIND_VIRQ,

    /* Payload: uint32_t port.  Unbinds it; -EINVAL if not bound here. */
    XS_UNBIND,

    /*
     * xenstore (store.h), for the drop-in libxenstore.  The names are
     * not xenstore's own wire protocol's (xs_wire.h: XS_READ...), which
     * the drop-in's <xenstore.h> brings in.  XS_STORE_GET and
     * XS_STORE_LIST: payload, a path (no NUL).  Reply: the node's value,
     * or its children's names separated by NULs; -ENOENT if there is no
     * such node.
     */
    XS_STORE_GET,
    XS_STORE_LIST,

    /*
     * No payload.  Reply: an eventfd, signalled whenever a node changes:
     * the drop-in fires its watches then.  The same one for every call
     * on a connection; closing the connection drops it.
     */
    XS_STORE_WATCH,
};

struct xs_msg {
    int32_t op_or_rc;          /* enum xs_op in a request, rc in a reply */
    uint32_t len;              /* payload bytes that follow */
};

struct xs_hello {
    uint64_t machine_pages;    /* frames in the machine memory file */
};

struct xs_tbuf_op {
    uint32_t cmd;              /* XEN_SYSCTL_TBUFOP_* */
    uint32_t evt_mask;         /* IN (set_evt_mask), OUT (get_info) */
    uint64_t buffer_mfn;       /* OUT (get_info) */
    uint32_t size;             /* IN (set_size), OUT (get_info) */
    uint32_t nr_bits;          /* IN (set_cpu_mask): bits in the bitmap */
    uint32_t bitmap_bytes;     /* IN (set_cpu_mask): bytes that follow */
    uint32_t pad;
};

struct xs_physinfo {
    uint32_t nr_cpus;          /* online CPUs */
    uint32_t max_cpu_id;       /* highest possible CPU id */
    uint32_t max_cpus;         /* possible CPUs: max_cpu_id + 1 */
    uint32_t pad;
};

struct xs_map {
    uint32_t prot;             /* PROT_READ, optionally | PROT_WRITE */
    uint32_t count;            /* MFNs that follow */
};

#endif /* XEN_SIM_PROTOCOL_H */
