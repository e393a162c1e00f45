/*
 * Drop-in libxenctrl.so.4.17 for xen-sim: the part of libxenctrl that
 * tracing uses, with Debian's SONAME and symbol version (libxenctrl.map),
 * over xen-sim's socket (../protocol.h) instead of privcmd hypercalls.
 *
 * Each call behaves as libxenctrl 4.17's (tools/libs/ctrl/xc_tbuf.c,
 * xc_misc.c, xc_foreign_memory.c): 0 or a pointer on success, -1 or NULL
 * with errno on failure, errno being what the hypervisor returned.  The
 * differences are written where they are.  When xen-sim goes away, calls
 * fail as client.h says (ECONNRESET, EPIPE).
 */
#define _GNU_SOURCE
#define XC_WANT_COMPAT_MAP_FOREIGN_API
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xenctrl.h>
#include <xen/trace.h>

#include "client.h"
#include "foreign.h"

struct xc_interface_core {
    struct xs_conn conn;
    int memfd;                  /* machine memory, from XS_HELLO; or -1 */
    xentoollog_logger *logger;  /* NULL: log to stderr */
    int max_cpus;               /* xc_get_max_cpus(), once known; else 0 */
};

XS_EXPORT
xc_interface *xc_interface_open(xentoollog_logger *logger,
                                xentoollog_logger *dombuild_logger,
                                unsigned open_flags)
{
    xc_interface *xch = calloc(1, sizeof(*xch));

    (void)dombuild_logger;      /* xen-sim builds no domains */
    if ( !xch )
        return NULL;
    xch->logger = logger;
    xch->memfd = -1;

    /* As in libxenctrl: a handle that opens nothing, calls fail. */
    if ( open_flags & XC_OPENFLAG_DUMMY )
    {
        xs_init(&xch->conn);
        return xch;
    }

    if ( xs_connect(&xch->conn, logger, "xc") )
        goto fail;
    xch->memfd = xs_hello(&xch->conn);
    if ( xch->memfd < 0 )
    {
        xs_log_error(logger, "xc", errno, "xen-sim did not answer XS_HELLO");
        xs_disconnect(&xch->conn);
        goto fail;
    }

    return xch;

 fail:
    free(xch);
    return NULL;
}

XS_EXPORT
int xc_interface_close(xc_interface *xch)
{
    if ( !xch )
        return 0;
    if ( xch->memfd >= 0 )
        close(xch->memfd);
    xs_disconnect(&xch->conn);
    free(xch);

    return 0;
}

/*
 * Physical CPUs
 * =============
 */

/*
 * The simulated hypervisor is Xen 4.17's (the ABI of xen/): XENVER_version
 * says so; the other commands are not simulated (ENOSYS).
 */
XS_EXPORT
int xc_version(xc_interface *xch, int cmd, void *arg)
{
    (void)xch;
    (void)arg;
    if ( cmd != XENVER_version )
    {
        errno = ENOSYS;
        return -1;
    }
    return 4 << 16 | 17;
}

/* Only nr_cpus and max_cpu_id are simulated; every other field is 0. */
XS_EXPORT
int xc_physinfo(xc_interface *xch, xc_physinfo_t *info)
{
    struct xs_physinfo reply;
    size_t len = 0;
    int rc;

    rc = xs_call(&xch->conn, XS_PHYSINFO, NULL, 0, &reply, sizeof(reply),
                 &len, NULL);
    if ( rc == 0 && len != sizeof(reply) )
        rc = -EPROTO;
    if ( rc )
    {
        errno = -rc;
        return -1;
    }

    memset(info, 0, sizeof(*info));
    info->nr_cpus = reply.nr_cpus;
    info->max_cpu_id = reply.max_cpu_id;

    return 0;
}

/*
 * libxenctrl caches this in a static, for the process; per handle is the
 * same answer from one host and stays right if a process meets two.
 */
XS_EXPORT
int xc_get_max_cpus(xc_interface *xch)
{
    int max_cpus = __atomic_load_n(&xch->max_cpus, __ATOMIC_RELAXED);
    xc_physinfo_t physinfo;

    if ( max_cpus )
        return max_cpus;
    if ( xc_physinfo(xch, &physinfo) )
        return -1;
    max_cpus = physinfo.max_cpu_id + 1;
    __atomic_store_n(&xch->max_cpus, max_cpus, __ATOMIC_RELAXED);

    return max_cpus;
}

XS_EXPORT
int xc_get_online_cpus(xc_interface *xch)
{
    xc_physinfo_t physinfo;

    if ( xc_physinfo(xch, &physinfo) )
        return -1;
    return physinfo.nr_cpus;
}

XS_EXPORT
int xc_get_cpumap_size(xc_interface *xch)
{
    int max_cpus = xc_get_max_cpus(xch);

    if ( max_cpus < 0 )
        return -1;
    return (max_cpus + 7) / 8;
}

XS_EXPORT
xc_cpumap_t xc_cpumap_alloc(xc_interface *xch)
{
    int size = xc_get_cpumap_size(xch);

    if ( size <= 0 )
        return NULL;
    return calloc(1, size);
}

XS_EXPORT
void xc_cpumap_clearcpu(int cpu, xc_cpumap_t map)
{
    map[cpu / 8] &= ~(1U << (cpu % 8));
}

XS_EXPORT
void xc_cpumap_setcpu(int cpu, xc_cpumap_t map)
{
    map[cpu / 8] |= 1U << (cpu % 8);
}

XS_EXPORT
int xc_cpumap_testcpu(int cpu, xc_cpumap_t map)
{
    return (map[cpu / 8] >> (cpu % 8)) & 1;
}

/*
 * Foreign mappings
 * ================
 */

XS_EXPORT
void *xc_map_foreign_pages(xc_interface *xch, uint32_t dom, int prot,
                           const xen_pfn_t *arr, int num)
{
    if ( num < 0 )
    {
        errno = EINVAL;
        return NULL;
    }

    return xs_map_frames(&xch->conn, xch->memfd, dom, NULL, prot, 0, num,
                         arr, NULL);
}

/* @size bytes of contiguous frames from @mfn. */
XS_EXPORT
void *xc_map_foreign_range(xc_interface *xch, uint32_t dom, int size,
                           int prot, unsigned long mfn)
{
    xen_pfn_t *arr;
    int i, num;
    void *addr;

    if ( size < 0 )
    {
        errno = EINVAL;
        return NULL;
    }
    num = (size + XC_PAGE_SIZE - 1) >> XC_PAGE_SHIFT;
    arr = calloc(num ? num : 1, sizeof(*arr));
    if ( !arr )
        return NULL;
    for ( i = 0; i < num; i++ )
        arr[i] = mfn + i;

    addr = xc_map_foreign_pages(xch, dom, prot, arr, num);
    free(arr);

    return addr;
}

XS_EXPORT
void *xc_map_foreign_bulk(xc_interface *xch, uint32_t dom, int prot,
                          const xen_pfn_t *arr, int *err, unsigned int num)
{
    return xs_map_frames(&xch->conn, xch->memfd, dom, NULL, prot, 0, num,
                         arr, err);
}

/*
 * Trace buffers
 * =============
 */

/* XEN_SYSCTL_tbuf_op: 0, or -1 with errno as the hypervisor returned it. */
static int tbuf_op(xc_interface *xch, struct xs_tbuf_op *op,
                   const uint8_t *bitmap)
{
    struct iovec iov[2] = {
        { .iov_base = op, .iov_len = sizeof(*op) },
        { .iov_base = (void *)bitmap, .iov_len = op->bitmap_bytes },
    };
    struct xs_tbuf_op reply;
    size_t len = 0;
    int rc;

    rc = xs_call(&xch->conn, XS_TBUF_OP, iov, bitmap ? 2 : 1, &reply,
                 sizeof(reply), &len, NULL);
    if ( rc == 0 && len != sizeof(reply) )
        rc = -EPROTO;
    if ( rc )
    {
        errno = -rc;
        return -1;
    }
    *op = reply;

    return 0;
}

/*
 * XEN_SYSCTL_tbuf_op as the hypervisor takes it, for xc_sysctl(): the CPU
 * bitmap travels with the request; the OUT fields come back.
 */
static int sysctl_tbuf_op(xc_interface *xch, struct xen_sysctl_tbuf_op *tbc)
{
    struct xs_tbuf_op op = {
        .cmd = tbc->cmd,
        .evt_mask = tbc->evt_mask,
        .size = tbc->size,
    };
    const uint8_t *bitmap = NULL;

    if ( tbc->cmd == XEN_SYSCTL_TBUFOP_set_cpu_mask )
    {
        bitmap = tbc->cpu_mask.bitmap.p;
        op.nr_bits = tbc->cpu_mask.nr_bits;
        op.bitmap_bytes = (op.nr_bits + 7) / 8;
        if ( op.bitmap_bytes && !bitmap )
        {
            errno = EFAULT;
            return -1;
        }
    }
    if ( tbuf_op(xch, &op, bitmap) )
        return -1;

    tbc->evt_mask = op.evt_mask;
    tbc->buffer_mfn = op.buffer_mfn;
    tbc->size = op.size;
    return 0;
}

/*
 * The sysctls xen-sim has: the trace buffer op and physinfo.  As
 * do_sysctl(), another interface version is EACCES; the rest is ENOSYS.
 */
XS_EXPORT
int xc_sysctl(xc_interface *xch, struct xen_sysctl *sysctl)
{
    if ( sysctl->interface_version != XEN_SYSCTL_INTERFACE_VERSION )
    {
        errno = EACCES;
        return -1;
    }

    switch ( sysctl->cmd )
    {
    case XEN_SYSCTL_tbuf_op:
        return sysctl_tbuf_op(xch, &sysctl->u.tbuf_op);
    case XEN_SYSCTL_physinfo:
        return xc_physinfo(xch, &sysctl->u.physinfo);
    default:
        errno = ENOSYS;
        return -1;
    }
}

static int tbuf_cmd(xc_interface *xch, uint32_t cmd)
{
    struct xs_tbuf_op op = { .cmd = cmd };

    return tbuf_op(xch, &op, NULL);
}

XS_EXPORT
int xc_tbuf_set_size(xc_interface *xch, unsigned long size)
{
    struct xs_tbuf_op op = {
        .cmd = XEN_SYSCTL_TBUFOP_set_size,
        .size = size,           /* truncated to 32 bits, as in the sysctl */
    };

    return tbuf_op(xch, &op, NULL);
}

/*
 * libxenctrl 4.17 maps t_info PROT_READ|PROT_WRITE to read tbuf_size.  Xen
 * shares t_info read-only, so the mapping is refused and this always
 * fails with EBUSY, on Xen (get_page_from_l1e() cannot take a writable
 * type on a page pinned PGT_none) as under xen-sim (protocol.h).  With no
 * buffers, t_info is 0 bytes and the mapping fails with EINVAL.
 */
XS_EXPORT
int xc_tbuf_get_size(xc_interface *xch, unsigned long *size)
{
    struct xs_tbuf_op op = { .cmd = XEN_SYSCTL_TBUFOP_get_info };
    struct t_info *t_info;
    int rc = 0;

    if ( tbuf_op(xch, &op, NULL) )
        return -1;

    t_info = xc_map_foreign_range(xch, DOMID_XEN, op.size,
                                  PROT_READ | PROT_WRITE, op.buffer_mfn);
    if ( !t_info )
        return -1;

    /* Reached only if a writable t_info was allowed. */
    if ( t_info->tbuf_size == 0 )
    {
        errno = ENODATA;
        rc = -1;
    }
    else
        *size = t_info->tbuf_size;

    /* 4.17 passes the byte size as a page count here: not reproduced. */
    xs_unmap_frames(&xch->conn, t_info,
                    (op.size + XC_PAGE_SIZE - 1) >> XC_PAGE_SHIFT);

    return rc;
}

/*
 * set_size (its error ignored: the size may be set already), enable, then
 * get_info for the t_info MFN and byte size.  libxenctrl 4.17 returns 0
 * even when get_info fails, leaving *mfn and *size unset; this returns -1.
 */
XS_EXPORT
int xc_tbuf_enable(xc_interface *xch, unsigned long pages, unsigned long *mfn,
                   unsigned long *size)
{
    struct xs_tbuf_op op = { .cmd = XEN_SYSCTL_TBUFOP_get_info };

    (void)xc_tbuf_set_size(xch, pages);
    if ( tbuf_cmd(xch, XEN_SYSCTL_TBUFOP_enable) )
        return -1;
    if ( tbuf_op(xch, &op, NULL) )
        return -1;
    *mfn = op.buffer_mfn;
    *size = op.size;

    return 0;
}

XS_EXPORT
int xc_tbuf_disable(xc_interface *xch)
{
    return tbuf_cmd(xch, XEN_SYSCTL_TBUFOP_disable);
}

/* The bitmap is xc_get_cpumap_size() bytes of xc_get_max_cpus() bits. */
XS_EXPORT
int xc_tbuf_set_cpu_mask(xc_interface *xch, xc_cpumap_t mask)
{
    struct xs_tbuf_op op = { .cmd = XEN_SYSCTL_TBUFOP_set_cpu_mask };
    int bits, bytes;

    bytes = xc_get_cpumap_size(xch);
    if ( bytes <= 0 )
    {
        xs_log_error(xch->logger, "xc", errno, "Could not get number of cpus");
        return -1;
    }
    bits = xc_get_max_cpus(xch);
    if ( bits <= 0 )
    {
        xs_log_error(xch->logger, "xc", errno, "Could not get number of bits");
        return -1;
    }
    op.nr_bits = bits;
    op.bitmap_bytes = bytes;

    return tbuf_op(xch, &op, mask);
}

XS_EXPORT
int xc_tbuf_set_evt_mask(xc_interface *xch, uint32_t mask)
{
    struct xs_tbuf_op op = {
        .cmd = XEN_SYSCTL_TBUFOP_set_evt_mask,
        .evt_mask = mask,
    };

    return tbuf_op(xch, &op, NULL);
}
