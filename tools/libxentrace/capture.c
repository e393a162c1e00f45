/*
 * libxentrace, capture: Xen's trace buffers, seen from dom0.
 *
 * Through the Xen libraries' public APIs only: libxenctrl for
 * XEN_SYSCTL_tbuf_op and the CPU count, libxenforeignmemory to map
 * DOMID_XEN's frames, libxenevtchn for VIRQ_TBUF.  So the same code runs
 * on Xen 4.17 and, through its drop-in libraries, on xen-sim.
 *
 *   t_info (mapped read-only)            CPU c's buffer (mapped read-write)
 *   +---------------------------+        +-----------+-------------------+
 *   | tbuf_size  (pages per CPU)|        | cons prod | data_size bytes   |
 *   | mfn_offset[c] ------------+--+     +-----------+-------------------+
 *   | ...                       |  |       ^ one virtually contiguous view
 *   | MFN list of CPU c  <------+--+       | of the tbuf_size frames listed
 *   +---------------------------+ --------+
 *
 * Trust.  Everything read from shared memory is input, not fact: t_info is
 * Xen's, but its offsets and sizes are checked before they address
 * anything; cons and prod live in pages that any dom0 process may map
 * read-write, so every index is checked before it is used, and a bad one
 * resynchronises that CPU (see xt_window()).  Nothing here asserts or
 * aborts on a value found in shared memory.
 *
 * Ordering, with the labels of public/trace.h: read_prod() is the load of
 * prod with (C), pairing with Xen's (B); write_cons() is (D), pairing with
 * Xen's (A).
 *
 * A handle is thread-compatible: use it from one thread at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include <xenctrl.h>
#include <xenevtchn.h>
#include <xenforeignmemory.h>
#include <public/trace.h>     /* ours: the same ABI as xen/trace.h */

#include "libxentrace.h"

#define PAGE_BYTES      XC_PAGE_SIZE
#define T_BUF_BYTES     ((uint32_t)sizeof(struct t_buf))

/*
 * The furthest byte of t_info any CPU's entry can reach: mfn_offset and
 * tbuf_size are u16, so a list starts below word 65536 and has fewer than
 * 65536 words.  Nothing beyond this is ever read, so it is never mapped.
 */
#define T_INFO_REACH    ((2 * (size_t)UINT16_MAX) * sizeof(uint32_t))

struct cpu_buffer {
    struct t_buf *buf;          /* NULL: this CPU has no buffer mapped */
    unsigned long resyncs;      /* bad indices found by xt_window() */
};

struct xt_host {
    xc_interface *xch;
    xenforeignmemory_handle *fmem;
    xenevtchn_handle *xce;      /* NULL until xt_bind_virq() */
    evtchn_port_t port;         /* VIRQ_TBUF's, when xce is set */
    unsigned int max_cpus;

    const void *t_info;         /* NULL until xt_map_buffers() */
    size_t t_info_pages;
    unsigned int buf_pages;     /* each CPU's buffer: t_info's tbuf_size */
    uint32_t data_size;         /* record bytes per CPU; 0 until mapped */
    struct cpu_buffer *cpus;    /* [max_cpus] */
};

/*
 * The Xen libraries' own messages.  What they say of a failure is the
 * errno our calls return, which the caller says in its one line: "xencall:
 * error: Could not obtain handle..." before "xentrace: cannot open Xen's
 * interfaces: No such file or directory" would say it twice.
 */
static void say_nothing(struct xentoollog_logger *l, xentoollog_level level,
                        int errnoval, const char *context, const char *format,
                        va_list al)
{
    (void)l, (void)level, (void)errnoval, (void)context, (void)format;
    (void)al;
}

static void keep_nothing(struct xentoollog_logger *l)
{
    (void)l;
}

static struct xentoollog_logger quiet = {
    .vmessage = say_nothing, .destroy = keep_nothing,
};

struct xt_host *xt_open(void)
{
    struct xt_host *h = calloc(1, sizeof(*h));
    int max_cpus, saved_errno;

    if ( !h )
        return NULL;

    h->xch = xc_interface_open(&quiet, &quiet, 0);
    if ( !h->xch )
        goto fail;
    h->fmem = xenforeignmemory_open(&quiet, 0);
    if ( !h->fmem )
        goto fail;

    /* physinfo max_cpu_id + 1: every CPU number Xen may use. */
    max_cpus = xc_get_max_cpus(h->xch);
    if ( max_cpus <= 0 )
    {
        if ( max_cpus == 0 )
            errno = EIO;
        goto fail;
    }
    h->max_cpus = max_cpus;
    h->cpus = calloc(h->max_cpus, sizeof(*h->cpus));
    if ( !h->cpus )
        goto fail;

    return h;

 fail:
    saved_errno = errno;
    xt_close(h);
    errno = saved_errno;
    return NULL;
}

static void unmap_buffers(struct xt_host *h)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < h->max_cpus; cpu++ )
    {
        if ( h->cpus[cpu].buf )
            xenforeignmemory_unmap(h->fmem, h->cpus[cpu].buf, h->buf_pages);
        h->cpus[cpu].buf = NULL;
    }
    if ( h->t_info )
        xenforeignmemory_unmap(h->fmem, (void *)h->t_info, h->t_info_pages);
    h->t_info = NULL;
    h->data_size = 0;
}

void xt_close(struct xt_host *h)
{
    if ( !h )
        return;

    if ( h->cpus )
        unmap_buffers(h);
    free(h->cpus);
    xenevtchn_close(h->xce);            /* which unbinds VIRQ_TBUF */
    xenforeignmemory_close(h->fmem);
    xc_interface_close(h->xch);
    free(h);
}

unsigned int xt_max_cpus(const struct xt_host *h)
{
    return h->max_cpus;
}

uint32_t xt_xen_version(struct xt_host *h)
{
    int v = xc_version(h->xch, XENVER_version, NULL);

    return v > 0 ? (uint32_t)v : 0;
}

uint64_t xt_tsc_hz(struct xt_host *h)
{
    xc_physinfo_t info;

    if ( xc_physinfo(h->xch, &info) )
        return 0;
    return info.cpu_khz * 1000ULL;
}

/*
 * Control: XEN_SYSCTL_tbuf_op
 * ===========================
 *
 * Through xc_sysctl() rather than the xc_tbuf_* wrappers, so that set_size
 * and enable stay separate (xc_tbuf_enable() does both, ignoring
 * set_size's error) and get_info can be had alone.  None of these carry a
 * pointer, so xc_sysctl()'s bounce of the struct itself is all they need.
 * Errors are xc_sysctl()'s: -1 with errno as Xen returned it.
 */
static int tbuf_op(struct xt_host *h, uint32_t cmd,
                   struct xen_sysctl_tbuf_op *op)
{
    struct xen_sysctl sysctl = {
        .cmd = XEN_SYSCTL_tbuf_op,
        .interface_version = XEN_SYSCTL_INTERFACE_VERSION,
    };
    int rc;

    op->cmd = cmd;
    sysctl.u.tbuf_op = *op;
    rc = xc_sysctl(h->xch, &sysctl);
    if ( rc == 0 )
        *op = sysctl.u.tbuf_op;

    return rc;
}

static int get_info(struct xt_host *h, struct xen_sysctl_tbuf_op *info)
{
    *info = (struct xen_sysctl_tbuf_op){ 0 };
    return tbuf_op(h, XEN_SYSCTL_TBUFOP_get_info, info);
}

int xt_get_evt_mask(struct xt_host *h, uint32_t *mask)
{
    struct xen_sysctl_tbuf_op info;

    if ( get_info(h, &info) )
        return -1;
    *mask = info.evt_mask;

    return 0;
}

int xt_set_evt_mask(struct xt_host *h, uint32_t mask)
{
    struct xen_sysctl_tbuf_op op = { .evt_mask = mask };

    return tbuf_op(h, XEN_SYSCTL_TBUFOP_set_evt_mask, &op);
}

/*
 * The bitmap goes to Xen through xc_tbuf_set_cpu_mask(), not a hand-made
 * sysctl: Xen reads it from dom0 memory, which on a real host must be a
 * hypercall buffer (libxenctrl bounces it into one), and the bounce helpers
 * are libxenctrl internals.  That call sends a map of xc_get_max_cpus()
 * bits, every CPU number Xen has, so no width is lost: CPU n is bit n of
 * the caller's map for n < @nr_bits, and off for n >= @nr_bits.  Bits at
 * or above max_cpus name no CPU and are dropped, as Xen itself drops them
 * (xenctl_bitmap_to_cpumask() copies only nr_cpu_ids bits).
 */
int xt_set_cpu_mask(struct xt_host *h, const uint8_t *bitmap,
                    unsigned int nr_bits)
{
    xc_cpumap_t map;
    unsigned int cpu;
    int rc, saved_errno;

    if ( nr_bits && !bitmap )
    {
        errno = EINVAL;
        return -1;
    }

    map = xc_cpumap_alloc(h->xch);      /* zeroed */
    if ( !map )
        return -1;
    for ( cpu = 0; cpu < h->max_cpus && cpu < nr_bits; cpu++ )
        if ( bitmap[cpu / 8] & (1U << (cpu % 8)) )
            xc_cpumap_setcpu(cpu, map);

    rc = xc_tbuf_set_cpu_mask(h->xch, map);
    saved_errno = errno;
    free(map);
    errno = saved_errno;

    return rc;
}

/*
 * Our own commands (public/trace.h): the ranges staged on an empty list,
 * then put in force together.  A Xen without them fails the first call,
 * with EINVAL, before anything changed.
 */
bool xt_has_dom_filter(struct xt_host *h)
{
    struct xen_sysctl_tbuf_op op = { .size = 0 };

    return !tbuf_op(h, XEN_SYSCTL_TBUFOP_dom_filter_stage, &op);
}

int xt_set_dom_filter(struct xt_host *h, const uint32_t *ranges,
                      unsigned int nr)
{
    struct xen_sysctl_tbuf_op op = { .size = 0 };
    unsigned int i;

    if ( !ranges )
        return tbuf_op(h, XEN_SYSCTL_TBUFOP_dom_filter_commit, &op);
    if ( tbuf_op(h, XEN_SYSCTL_TBUFOP_dom_filter_stage, &op) )
        return -1;
    for ( i = 0; i < nr; i++ )
    {
        op = (struct xen_sysctl_tbuf_op){ .evt_mask = ranges[i], .size = 1 };
        if ( tbuf_op(h, XEN_SYSCTL_TBUFOP_dom_filter_stage, &op) )
            return -1;
    }
    op = (struct xen_sysctl_tbuf_op){ .size = 1 };
    return tbuf_op(h, XEN_SYSCTL_TBUFOP_dom_filter_commit, &op);
}

int xt_switch_event(struct xt_host *h, uint32_t event, unsigned int state)
{
    struct xen_sysctl_tbuf_op op = { .evt_mask = event, .size = state };

    return tbuf_op(h, XEN_SYSCTL_TBUFOP_event_switch, &op);
}

int xt_set_size(struct xt_host *h, unsigned int pages)
{
    struct xen_sysctl_tbuf_op op = { .size = pages };

    return tbuf_op(h, XEN_SYSCTL_TBUFOP_set_size, &op);
}

int xt_resize(struct xt_host *h, unsigned int pages)
{
    struct xen_sysctl_tbuf_op op = { .size = pages };

    return tbuf_op(h, XEN_SYSCTL_TBUFOP_resize, &op);
}

int xt_enable(struct xt_host *h)
{
    struct xen_sysctl_tbuf_op op = { 0 };

    return tbuf_op(h, XEN_SYSCTL_TBUFOP_enable, &op);
}

int xt_disable(struct xt_host *h)
{
    struct xen_sysctl_tbuf_op op = { 0 };

    return tbuf_op(h, XEN_SYSCTL_TBUFOP_disable, &op);
}

/*
 * Mapping
 * =======
 */

/* Map @pages frames of DOMID_XEN, listed in @mfns, as one range. */
static void *map_frames(struct xt_host *h, int prot, const xen_pfn_t *mfns,
                        size_t pages)
{
    /* With no err[] array, any frame refused fails the whole map. */
    return xenforeignmemory_map(h->fmem, DOMID_XEN, prot, pages, mfns, NULL);
}

/* The first @bytes of t_info, contiguous frames from @mfn. */
static int map_t_info(struct xt_host *h, uint64_t mfn, size_t bytes)
{
    size_t pages, i;
    xen_pfn_t *mfns;

    pages = (bytes + PAGE_BYTES - 1) / PAGE_BYTES;
    mfns = calloc(pages, sizeof(*mfns));
    if ( !mfns )
        return -1;
    for ( i = 0; i < pages; i++ )
        mfns[i] = mfn + i;

    /* Read-only: Xen shares t_info so, and refuses a writable mapping. */
    h->t_info = map_frames(h, PROT_READ, mfns, pages);
    free(mfns);
    if ( !h->t_info )
        return -1;
    h->t_info_pages = pages;

    return 0;
}

/* The u16 and u32 at byte @off of t_info, read once each. */
static uint16_t t_info_u16(const struct xt_host *h, size_t off)
{
    return __atomic_load_n((const uint16_t *)((const char *)h->t_info + off),
                           __ATOMIC_RELAXED);
}

static uint32_t t_info_u32(const struct xt_host *h, size_t off)
{
    return __atomic_load_n((const uint32_t *)((const char *)h->t_info + off),
                           __ATOMIC_RELAXED);
}

/*
 * CPU @cpu's MFN list: its first word in t_info, or 0 if it has no buffer,
 * or -1 with EIO if its entry or its list is not inside t_info (@bytes),
 * or overlaps the entries before it.
 */
static long mfn_list_start(const struct xt_host *h, unsigned int cpu,
                           size_t bytes)
{
    size_t entry = offsetof(struct t_info, mfn_offset) +
                   (size_t)cpu * sizeof(uint16_t);
    size_t header = offsetof(struct t_info, mfn_offset) +
                    (size_t)h->max_cpus * sizeof(uint16_t);
    size_t first;

    if ( entry + sizeof(uint16_t) > bytes )
        goto bad;
    first = t_info_u16(h, entry);
    if ( first == 0 )
        return 0;
    if ( first * sizeof(uint32_t) < header ||
         (first + h->buf_pages) * sizeof(uint32_t) > bytes )
        goto bad;

    return first;

 bad:
    errno = EIO;
    return -1;
}

/* Map CPU @cpu's buffer, whose MFN list starts at word @first of t_info. */
static int map_buffer(struct xt_host *h, unsigned int cpu, size_t first)
{
    xen_pfn_t *mfns = calloc(h->buf_pages, sizeof(*mfns));
    unsigned int i;

    if ( !mfns )
        return -1;
    for ( i = 0; i < h->buf_pages; i++ )
        mfns[i] = t_info_u32(h, (first + i) * sizeof(uint32_t));
    h->cpus[cpu].buf = map_frames(h, PROT_READ | PROT_WRITE, mfns,
                                  h->buf_pages);
    free(mfns);

    return h->cpus[cpu].buf ? 0 : -1;
}

static int map_all(struct xt_host *h)
{
    struct xen_sysctl_tbuf_op info;
    unsigned int cpu, mapped = 0;
    size_t bytes;
    long first;

    if ( get_info(h, &info) )
        return -1;
    if ( info.buffer_mfn == 0 || info.size == 0 )
    {
        errno = ENODATA;
        return -1;
    }
    bytes = info.size < T_INFO_REACH ? info.size : T_INFO_REACH;
    if ( map_t_info(h, info.buffer_mfn, bytes) )
        return -1;

    h->buf_pages = t_info_u16(h, offsetof(struct t_info, tbuf_size));
    if ( h->buf_pages == 0 )
    {
        errno = ENODATA;
        return -1;
    }

    for ( cpu = 0; cpu < h->max_cpus; cpu++ )
    {
        first = mfn_list_start(h, cpu, bytes);
        if ( first < 0 )
            return -1;
        if ( first == 0 )
            continue;
        if ( map_buffer(h, cpu, first) )
            return -1;
        mapped++;
    }
    if ( mapped == 0 )
    {
        errno = ENODATA;
        return -1;
    }

    /* At most 65535 pages: 2 * data_size fits in 32 bits. */
    h->data_size = h->buf_pages * PAGE_BYTES - T_BUF_BYTES;

    return 0;
}

/*
 * Once mapped, a second call has nothing to do: Xen never frees or resizes
 * its buffers.  A failure leaves nothing mapped.
 */
int xt_map_buffers(struct xt_host *h)
{
    int saved_errno;

    if ( h->t_info )
        return 0;
    if ( map_all(h) == 0 )
        return 0;

    saved_errno = errno;
    unmap_buffers(h);
    errno = saved_errno;
    return -1;
}

bool xt_cpu_mapped(const struct xt_host *h, unsigned int cpu)
{
    return cpu < h->max_cpus && h->cpus[cpu].buf;
}

uint32_t xt_data_size(const struct xt_host *h)
{
    return h->data_size;
}

unsigned int xt_buf_pages(const struct xt_host *h)
{
    return h->buf_pages;
}

/*
 * Windows
 * =======
 */

/* Xen's prod; C: the records it covers are read after it, pairs with B. */
static uint32_t read_prod(const struct t_buf *buf)
{
    return __atomic_load_n(&buf->prod, __ATOMIC_ACQUIRE);
}

/*
 * D: every load of the records before @cons is ordered before this store,
 * which a release store guarantees; so Xen, which loads cons before it
 * writes (A), never overwrites a record still being read.
 */
static void write_cons(struct t_buf *buf, uint32_t cons)
{
    __atomic_store_n(&buf->cons, cons, __ATOMIC_RELEASE);
}

/* An index Xen could have written: aligned, below 2 * data_size. */
static bool index_ok(const struct xt_host *h, uint32_t idx)
{
    return (idx & 3) == 0 && idx < 2 * h->data_size;
}

static struct t_buf *cpu_buf(const struct xt_host *h, unsigned int cpu)
{
    return cpu < h->max_cpus ? h->cpus[cpu].buf : NULL;
}

/*
 * Bad indices: count them, and unless prod itself is bad, empty the
 * buffer (cons = prod), dropping what it held: there is no telling where
 * a record starts.  A bad prod is left to Xen, which keeps its own copy
 * and stores it again with its next record; writing it to cons would only
 * spread it.
 */
static long resync(struct xt_host *h, unsigned int cpu, uint32_t prod)
{
    h->cpus[cpu].resyncs++;
    if ( index_ok(h, prod) )
        write_cons(h->cpus[cpu].buf, prod);
    errno = EIO;
    return -1;
}

/*
 * Beyond the header's contract: EINVAL for a CPU number >= max_cpus,
 * ENODATA for a CPU without a mapped buffer.
 */
long xt_window(struct xt_host *h, unsigned int cpu, struct xt_window *w)
{
    struct t_buf *buf = cpu_buf(h, cpu);
    const char *data;
    uint32_t prod, cons, len, off;

    if ( !buf )
    {
        errno = cpu < h->max_cpus ? ENODATA : EINVAL;
        return -1;
    }

    prod = read_prod(buf);
    cons = __atomic_load_n(&buf->cons, __ATOMIC_RELAXED);
    if ( !index_ok(h, prod) || !index_ok(h, cons) )
        return resync(h, cpu, prod);
    len = prod >= cons ? prod - cons : prod + 2 * h->data_size - cons;
    if ( len > h->data_size )               /* cons is ahead of prod */
        return resync(h, cpu, prod);

    data = (const char *)(buf + 1);
    off = cons < h->data_size ? cons : cons - h->data_size;
    w->cpu = cpu;
    w->cons = cons;
    w->prod = prod;
    w->piece[0] = data + off;
    if ( len <= h->data_size - off )
    {
        w->len[0] = len;
        w->piece[1] = NULL;
        w->len[1] = 0;
    }
    else                                    /* wraps past the end */
    {
        w->len[0] = h->data_size - off;
        w->piece[1] = data;
        w->len[1] = len - w->len[0];
    }

    return len;
}

void xt_release(struct xt_host *h, const struct xt_window *w)
{
    struct t_buf *buf = cpu_buf(h, w->cpu);

    /* Never store an index Xen could not have written. */
    if ( buf && index_ok(h, w->prod) )
        write_cons(buf, w->prod);
}

int xt_discard(struct xt_host *h, unsigned int cpu)
{
    struct t_buf *buf = cpu_buf(h, cpu);
    uint32_t prod;

    if ( !buf )
    {
        errno = ENODATA;
        return -1;
    }
    prod = read_prod(buf);
    if ( !index_ok(h, prod) )
    {
        errno = EIO;
        return -1;
    }
    write_cons(buf, prod);
    return 0;
}

unsigned long xt_resyncs(const struct xt_host *h, unsigned int cpu)
{
    return cpu < h->max_cpus ? h->cpus[cpu].resyncs : 0;
}

/*
 * Notification
 * ============
 */

/* Bound by this handle already: done.  A failure leaves it unbound. */
int xt_bind_virq(struct xt_host *h)
{
    xenevtchn_port_or_error_t port;
    int saved_errno;

    if ( h->xce )
        return 0;
    h->xce = xenevtchn_open(&quiet, 0);
    if ( !h->xce )
        return -1;

    port = xenevtchn_bind_virq(h->xce, VIRQ_TBUF);
    if ( port < 0 )
    {
        saved_errno = errno;
        xenevtchn_close(h->xce);
        h->xce = NULL;
        errno = saved_errno;
        return -1;
    }
    h->port = port;

    return 0;
}

/*
 * Unbound, this is a plain sleep.  Bound, the port is unmasked as soon as
 * it is seen, so that a notification during the caller's sweep makes the
 * next wait return at once.
 */
int xt_wait_ns(struct xt_host *h, int64_t timeout_ns,
               const sigset_t *sigmask)
{
    struct timespec ts = { .tv_sec = timeout_ns / 1000000000,
                           .tv_nsec = timeout_ns % 1000000000 };
    const struct timespec *timeout = timeout_ns < 0 ? NULL : &ts;
    struct pollfd pfd = { .events = POLLIN };
    xenevtchn_port_or_error_t port;
    int rc;

    if ( !h->xce )
        return ppoll(NULL, 0, timeout, sigmask);

    pfd.fd = xenevtchn_fd(h->xce);
    rc = ppoll(&pfd, 1, timeout, sigmask);
    if ( rc <= 0 )
        return rc;
    if ( !(pfd.revents & POLLIN) )          /* POLLERR, POLLHUP, POLLNVAL */
    {
        errno = EIO;
        return -1;
    }

    port = xenevtchn_pending(h->xce);
    if ( port < 0 )
        return errno == EAGAIN ? 0 : -1;    /* gone before we read it */
    if ( (evtchn_port_t)port != h->port )   /* the handle has no other */
    {
        errno = EIO;
        return -1;
    }
    if ( xenevtchn_unmask(h->xce, port) )
        return -1;

    return 1;
}
