/*
 * tbuf-state: what Xen's trace buffers look like to dom0, for the tests
 * that run in a real dom0 (tests/xen).  Prints
 *
 *   evt_mask 0x...     the event mask in force (XEN_SYSCTL_tbuf_op get_info)
 *   tinfo_bytes N      the size of the t_info area (get_info)
 *   pages N            t_info->tbuf_size: pages in each CPU's buffer
 *   buffers N          CPUs that have a buffer
 *   tracing on|off     whether Xen still writes records
 *
 * Xen does not say whether tracing is on, so tbuf-state finds out: it
 * empties every buffer (cons = prod, as a consumer would), makes some
 * hypercalls and sleeps (scheduler events) for about a second, and looks
 * whether any prod moved.  Only run it when no consumer is running.
 * Built against Debian's libxen-dev, so it checks through Xen's own ABI.
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define XC_WANT_COMPAT_MAP_FOREIGN_API   /* xc_map_foreign_range() */
#include <xenctrl.h>
#include <xen/trace.h>

#define PAGE_BYTES   4096
#define ROUNDS       100         /* of hypercalls, then a 10 ms sleep */
#define CALLS        200
#define MAX_CPUS     4096

static struct xen_sysctl_tbuf_op get_info(xc_interface *xch)
{
    struct xen_sysctl sysctl = {
        .cmd = XEN_SYSCTL_tbuf_op,
        .interface_version = XEN_SYSCTL_INTERFACE_VERSION,
        .u.tbuf_op.cmd = XEN_SYSCTL_TBUFOP_get_info,
    };

    if ( xc_sysctl(xch, &sysctl) )
        err(1, "get_info");
    return sysctl.u.tbuf_op;
}

static void *map(xc_interface *xch, unsigned long mfn, size_t bytes, int prot)
{
    void *p = xc_map_foreign_range(xch, DOMID_XEN, bytes, prot, mfn);

    if ( !p )
        err(1, "map mfn %#lx", mfn);
    return p;
}

/* Keep this CPU busy with hypercalls, and let it block now and then. */
static void make_activity(xc_interface *xch)
{
    unsigned int round, call;

    for ( round = 0; round < ROUNDS; round++ )
    {
        for ( call = 0; call < CALLS; call++ )
            get_info(xch);
        usleep(10000);
    }
}

int main(void)
{
    xc_interface *xch = xc_interface_open(NULL, NULL, 0);
    struct xen_sysctl_tbuf_op info;
    const struct t_info *t_info;
    static struct t_buf *buf[MAX_CPUS];
    unsigned int cpu, cpus, buffers = 0, moved = 0;

    if ( !xch )
        err(1, "xc_interface_open");
    info = get_info(xch);
    printf("evt_mask %#x\ntinfo_bytes %u\n", info.evt_mask, info.size);
    if ( !info.size )
    {
        printf("pages 0\nbuffers 0\ntracing off\n");
        return 0;
    }

    t_info = map(xch, info.buffer_mfn, info.size, PROT_READ);
    cpus = xc_get_max_cpus(xch);
    if ( cpus > MAX_CPUS )
        cpus = MAX_CPUS;
    for ( cpu = 0; cpu < cpus; cpu++ )
    {
        const uint32_t *mfns = (const uint32_t *)t_info +
                               t_info->mfn_offset[cpu];

        if ( !t_info->mfn_offset[cpu] )
            continue;
        buf[cpu] = map(xch, mfns[0], PAGE_BYTES, PROT_READ | PROT_WRITE);
        buf[cpu]->cons = buf[cpu]->prod;
        buffers++;
    }
    printf("pages %u\nbuffers %u\n", t_info->tbuf_size, buffers);

    make_activity(xch);
    for ( cpu = 0; cpu < cpus; cpu++ )
        if ( buf[cpu] && buf[cpu]->prod != buf[cpu]->cons )
            moved++;
    printf("tracing %s\n", moved ? "on" : "off");
    xc_interface_close(xch);
    return 0;
}
