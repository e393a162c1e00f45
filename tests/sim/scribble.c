/*
 * scribble: a second dom0 process that writes over a CPU's trace buffer,
 * as any process that maps the shared pages read-write can; on Debian's
 * Xen libraries and <xen/trace.h>, as such a process would be.
 *
 *   scribble before CPU SEED     make buffers if there are none, leaving
 *                                tracing off; then move CPU's cons back
 *                                from prod, with random bytes between
 *                                them, as if records were there
 *   scribble during CPU SEED MS  for MS milliseconds, every few: cons
 *                                moved back or on, and random bytes
 *                                between it and prod
 *
 * Indices stay in range and cons within a buffer of prod, so that Xen
 * itself takes them; what is wrong is what they point at.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <xenctrl.h>
#include <xenforeignmemory.h>
#include <xen/trace.h>

#define PAGE        XC_PAGE_SIZE
#define TBUF_PAGES  32

static xc_interface *xch;
static unsigned int seed;

static void tbuf_op(uint32_t cmd, struct xen_sysctl_tbuf_op *op)
{
    struct xen_sysctl sysctl = {
        .cmd = XEN_SYSCTL_tbuf_op,
        .interface_version = XEN_SYSCTL_INTERFACE_VERSION,
    };

    op->cmd = cmd;
    sysctl.u.tbuf_op = *op;
    if ( xc_sysctl(xch, &sysctl) )
        err(1, "tbuf_op %u", cmd);
    *op = sysctl.u.tbuf_op;
}

static void sleep_ms(unsigned int ms)
{
    struct timespec t = { ms / 1000, ms % 1000 * 1000000L };

    nanosleep(&t, NULL);
}

/*
 * Buffers, made if there are none; tracing stays off.  set_size enables
 * tracing, so the event mask is cleared around it: records Xen wrote in
 * that moment would be an earlier run's in the capture that follows, not
 * this process's scribbling.
 */
static void make_buffers(void)
{
    struct xen_sysctl_tbuf_op op = { 0 };
    uint32_t evt_mask;

    tbuf_op(XEN_SYSCTL_TBUFOP_get_info, &op);
    if ( op.buffer_mfn )
        return;
    evt_mask = op.evt_mask;
    op = (struct xen_sysctl_tbuf_op){ .evt_mask = 0 };
    tbuf_op(XEN_SYSCTL_TBUFOP_set_evt_mask, &op);
    op = (struct xen_sysctl_tbuf_op){ .size = TBUF_PAGES };
    tbuf_op(XEN_SYSCTL_TBUFOP_set_size, &op);
    op = (struct xen_sysctl_tbuf_op){ 0 };
    tbuf_op(XEN_SYSCTL_TBUFOP_disable, &op);
    op = (struct xen_sysctl_tbuf_op){ .evt_mask = evt_mask };
    tbuf_op(XEN_SYSCTL_TBUFOP_set_evt_mask, &op);
}

/* What map_buffer() mapped, for unmap_all(). */
static xenforeignmemory_handle *fmem;
static void *t_info, *buffer;
static unsigned int t_info_pages, buffer_pages;

/* @pages frames of DOMID_XEN from @mfns, mapped with @prot. */
static void *map(int prot, const xen_pfn_t *mfns, unsigned int pages)
{
    return xenforeignmemory_map(fmem, DOMID_XEN, prot, pages, mfns, NULL);
}

/* CPU @cpu's buffer, mapped read-write; its data bytes in *@size. */
static struct t_buf *map_buffer(unsigned int cpu, uint32_t *size)
{
    struct xen_sysctl_tbuf_op op = { 0 };
    const struct t_info *ti;
    xen_pfn_t *mfns;
    unsigned int i;

    if ( !(fmem = xenforeignmemory_open(NULL, 0)) )
        err(1, "xenforeignmemory_open");
    tbuf_op(XEN_SYSCTL_TBUFOP_get_info, &op);
    t_info_pages = (op.size + PAGE - 1) / PAGE;
    if ( !(mfns = calloc(t_info_pages, sizeof(*mfns))) )
        err(1, "memory");
    for ( i = 0; i < t_info_pages; i++ )
        mfns[i] = op.buffer_mfn + i;
    ti = t_info = map(PROT_READ, mfns, t_info_pages);
    free(mfns);
    if ( !ti || !ti->mfn_offset[cpu] )
        errx(1, "no trace buffer for CPU %u", cpu);

    buffer_pages = ti->tbuf_size;
    if ( !(mfns = calloc(buffer_pages, sizeof(*mfns))) )
        err(1, "memory");
    for ( i = 0; i < buffer_pages; i++ )
        mfns[i] = ((const uint32_t *)ti)[ti->mfn_offset[cpu] + i];
    buffer = map(PROT_READ | PROT_WRITE, mfns, buffer_pages);
    free(mfns);
    if ( !buffer )
        err(1, "mapping CPU %u's buffer", cpu);
    *size = buffer_pages * PAGE - sizeof(struct t_buf);
    return buffer;
}

static void unmap_all(void)
{
    xenforeignmemory_unmap(fmem, buffer, buffer_pages);
    xenforeignmemory_unmap(fmem, t_info, t_info_pages);
    xenforeignmemory_close(fmem);
    xc_interface_close(xch);
}

/* A random multiple of 4 below @n (at least 4). */
static uint32_t pick4(uint32_t n)
{
    return (uint32_t)rand_r(&seed) % (n / 4) * 4;
}

/* Random words over the @len bytes from data offset @from, wrapping. */
static void scribble(struct t_buf *buf, uint32_t size, uint32_t from,
                     uint32_t len)
{
    uint8_t *data = (uint8_t *)(buf + 1);
    uint32_t at;

    for ( at = 0; at + 4 <= len; at += 4 )
    {
        uint32_t word = rand_r(&seed);

        memcpy(data + (from + at) % size, &word, 4);
    }
}

static uint32_t load(const uint32_t *idx)
{
    return __atomic_load_n(idx, __ATOMIC_RELAXED);
}

/* Unconsumed bytes from @cons to @prod, in a buffer of @size. */
static uint32_t used(uint32_t cons, uint32_t prod, uint32_t size)
{
    return (prod + 2 * size - cons) % (2 * size);
}

/* cons moved on (into the window) or back, by a multiple of 4. */
static void move_cons(struct t_buf *buf, uint32_t size, bool back)
{
    uint32_t cons = load(&buf->cons), prod = load(&buf->prod);
    uint32_t n = used(cons, prod, size);

    if ( back && n + 4 < size )
        cons = (cons + 2 * size - 4 - pick4(size - n - 4)) % (2 * size);
    else if ( !back && n >= 8 )
        cons = (cons + 4 + pick4(n - 4)) % (2 * size);
    __atomic_store_n(&buf->cons, cons, __ATOMIC_RELAXED);
}

/* Random words between cons and prod. */
static void scribble_window(struct t_buf *buf, uint32_t size)
{
    uint32_t cons = load(&buf->cons);

    scribble(buf, size, cons % size, used(cons, load(&buf->prod), size));
}

int main(int argc, char *argv[])
{
    struct t_buf *buf;
    unsigned int cpu, ms = 0;
    uint32_t size;
    bool during;

    if ( argc < 4 || (strcmp(argv[1], "before") && strcmp(argv[1], "during")) )
        errx(1, "usage: scribble before|during CPU SEED [MS]");
    during = !strcmp(argv[1], "during");
    cpu = atoi(argv[2]);
    seed = strtoul(argv[3], NULL, 0);
    if ( during && (argc != 5 || !(ms = atoi(argv[4]))) )
        errx(1, "usage: scribble during CPU SEED MS");
    if ( !(xch = xc_interface_open(NULL, NULL, 0)) )
        err(1, "xc_interface_open");

    if ( !during )
    {
        make_buffers();
        buf = map_buffer(cpu, &size);
        move_cons(buf, size, true);
        scribble_window(buf, size);
    }
    else
    {
        buf = map_buffer(cpu, &size);
        for ( ; ms > 0; ms -= ms < 3 ? ms : 3 )
        {
            move_cons(buf, size, rand_r(&seed) % 2);
            scribble_window(buf, size);
            sleep_ms(3);
        }
    }
    unmap_all();
    return 0;
}
