/*
 * libFuzzer target: the hypervisor's trace buffers against a hostile dom0.
 *
 * The host build of xen/common/trace.c runs 3 CPUs with 2-page buffers.
 * The input is a program of operations, one CPU each: trace records of
 * 0 to 31 payload bytes (a burst of them, to overflow), drain the buffer
 * as an honest xentrace would, disable and re-enable tracing, and, as a
 * hostile dom0, write any value to cons, prod or a data word.  A CPU whose
 * buffer dom0 attacked is "dirty" until the honest consumer takes it back
 * (cons and prod set to Xen's prod).  What must hold:
 *
 *  - Xen never touches memory outside its buffers: every other page of
 *    machine memory is PROT_NONE (t_info PROT_READ) in Xen's own mapping,
 *    and across each call into Xen, a buffer changes only between Xen's
 *    prod before and after (plus prod, and cons on a resync).
 *  - A call returns (libFuzzer's -timeout catches a loop).
 *  - Every record that passed is written or lost: records + lost counts
 *    the calls, on every CPU.
 *  - Xen never overwrites what cons says is unconsumed, and never resets
 *    a buffer whose consumer is honest.
 *  - An honest consumer reads every record, in order and intact, or a
 *    TRC_LOST_RECORDS count for exactly the ones missing; at the end, after
 *    every buffer is taken back and traced into once more, each CPU's
 *    records and lost counts add up to everything traced since it was
 *    last clean.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <host.h>
#include <xen/trace.h>

#include "trace_inside.h"

#define NCPUS        3
#define TBUF_PAGES   2
#define MEM_PAGES    256
#define MAX_TRACES   (1 << 16)           /* per CPU and input */
#define EV_BASE      0x00021000          /* TRC_SCHED_MIN: minor = seq */
#define MAX_STEP     (36 + 28 + 36 + 40) /* pad, marker, pad, record */
#define BUF_BYTES    (TBUF_PAGES * PAGE_SIZE)

struct cpu_model {
    volatile struct t_buf *meta;        /* dom0's mapping of the buffer */
    unsigned char *data;
    uint8_t kind[MAX_TRACES];           /* each record traced: extra | cyc */
    uint32_t traced;
    uint32_t next_seq;                  /* next record the consumer expects */
    unsigned long resyncs;              /* when last taken back */
    bool dirty;
    _Alignas(8) unsigned char snap[BUF_BYTES];
};

static struct cpu_model cpus[NCPUS];
static uint32_t ds;                     /* data_size */
static unsigned char *payload[32];      /* exactly n bytes each */

#define KIND_CYCLES  0x20
#define check(cond)  do { if ( !(cond) ) abort(); } while ( 0 )

static void quiet(const char *line)
{
    (void)line;
}

static struct trace_cpu_stats stats_of(unsigned int cpu)
{
    struct trace_cpu_stats s;

    trace_cpu_stats(cpu, &s);
    return s;
}

static int tbuf_op(unsigned int cmd, struct xen_sysctl_tbuf_op *op)
{
    op->cmd = cmd;
    host_cpu_enter(0);
    return tb_control(op);
}

/* Map as dom0 would, and fence Xen's own view of everything else. */
static void setup(void)
{
    struct host_config cfg = {
        .nr_cpus = NCPUS, .mem_pages = MEM_PAGES, .cmdline = "tbuf_size=2",
    };
    struct xen_sysctl_tbuf_op op = { 0 };
    const struct t_info *ti;
    uint32_t t_info_mfns[1];
    bool mine[MEM_PAGES] = { false };
    unsigned int cpu, i;

    host_set_console(quiet);
    check(host_boot(&cfg) == 0);
    check(tbuf_op(XEN_SYSCTL_TBUFOP_get_info, &op) == 0);
    check(op.size == PAGE_SIZE);
    t_info_mfns[0] = op.buffer_mfn;
    ti = host_map_frames(t_info_mfns, 1, PROT_READ);
    check(ti && ti->tbuf_size == TBUF_PAGES);
    ds = ti_data_size();

    for ( cpu = 0; cpu < NCPUS; cpu++ )
    {
        const uint32_t *mfns = (const uint32_t *)ti + ti->mfn_offset[cpu];
        unsigned char *va = host_map_frames(mfns, TBUF_PAGES,
                                            PROT_READ | PROT_WRITE);

        check(va);
        cpus[cpu].meta = (volatile struct t_buf *)va;
        cpus[cpu].data = va + sizeof(struct t_buf);
        for ( i = 0; i < TBUF_PAGES; i++ )
            mine[mfns[i]] = true;
    }
    for ( i = 0; i < MEM_PAGES; i++ )
        if ( !mine[i] )
            check(!mprotect(host_mfn_to_virt(i), PAGE_SIZE,
                            i == op.buffer_mfn ? PROT_READ : PROT_NONE));
    for ( i = 0; i < 32; i++ )
        check((payload[i] = malloc(i ? i : 1)));
}

static uint32_t ring(uint32_t from, uint32_t to)
{
    return to >= from ? to - from : to + 2 * ds - from;
}

static void snapshot(void)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NCPUS; cpu++ )
        memcpy(cpus[cpu].snap, (const void *)cpus[cpu].meta, BUF_BYTES);
}

static bool data_same(const struct cpu_model *c, uint32_t off, uint32_t len)
{
    return !memcmp(c->data + off, c->snap + sizeof(struct t_buf) + off, len);
}

/*
 * After a call into Xen that took @cpu's prod from @old: its buffer
 * changed only where Xen wrote records, at most @max bytes.
 */
static void check_writes(unsigned int cpu, uint32_t old, uint32_t max,
                         unsigned long old_resyncs)
{
    struct cpu_model *c = &cpus[cpu];
    const struct t_buf *was = (const struct t_buf *)c->snap;
    uint32_t prod = ti_prod(cpu), span = ring(old, prod);
    uint32_t start = old < ds ? old : old - ds, end;
    bool resynced = stats_of(cpu).resyncs != old_resyncs;

    check(prod % 4 == 0 && prod < 2 * ds && span <= max);
    if ( c->meta->cons != was->cons )
        check(resynced && c->meta->cons == old);
    if ( c->meta->prod != was->prod )
        check(c->meta->prod == prod);
    /* Unchanged from the end of what Xen wrote round to its start. */
    end = (start + span) % ds;
    if ( !span )
        check(data_same(c, 0, ds));
    else if ( end <= start )
        check(data_same(c, end, start - end));
    else
        check(data_same(c, end, ds - end) && data_same(c, 0, start));

    /* Xen wrote: then it checked cons, and left what is unconsumed alone. */
    if ( prod != old && !resynced )
        check(ring(c->meta->cons, prod) <= ds);
    if ( !c->dirty )
        check(!resynced);
}

static uint8_t byte_of(uint32_t seq, unsigned int i)
{
    return seq * 31 + i * 7;
}

static void trace_one(unsigned int cpu, unsigned int extra, bool cycles)
{
    struct cpu_model *c = &cpus[cpu];
    uint32_t seq = c->traced, old = ti_prod(cpu);
    struct trace_cpu_stats before = stats_of(cpu), after;
    unsigned int i;

    for ( i = 0; i < extra; i++ )
        payload[extra][i] = byte_of(seq, i);
    c->kind[seq] = extra | (cycles ? KIND_CYCLES : 0);
    c->traced++;

    snapshot();
    host_cpu_enter(cpu);
    __trace_var(EV_BASE | (seq & 0xfff), cycles, extra, payload[extra]);

    after = stats_of(cpu);
    check(after.records + after.lost == before.records + before.lost + 1);
    if ( after.records != before.records )
        check(c->meta->prod == ti_prod(cpu) && old != ti_prod(cpu));
    else
        check(old == ti_prod(cpu));
    for ( i = 0; i < NCPUS; i++ )
        if ( i != cpu )
            check(!memcmp(cpus[i].snap, (const void *)cpus[i].meta,
                          BUF_BYTES));
    check_writes(cpu, old, MAX_STEP, before.resyncs);
}

/* Check one record of an honest consumer's drain against what was traced. */
static void check_record(struct cpu_model *c, const unsigned char *rec,
                         uint32_t hdr, unsigned int size)
{
    uint32_t event = TRC_HD_TO_EVENT(hdr), seq = c->next_seq, w;
    const unsigned char *p = rec + size - 4 * TRC_HD_EXTRA(hdr);
    unsigned int extra, i;

    if ( event == TRC_TRACE_WRAP_BUFFER )
        return;
    if ( event == TRC_LOST_RECORDS )
    {
        check(size == 28 && TRC_HD_INCLUDES_CYCLE_COUNT(hdr));
        memcpy(&w, p, 4);
        check(w && w <= c->traced - c->next_seq);
        c->next_seq += w;
        return;
    }
    check(seq < c->traced && event == (EV_BASE | (seq & 0xfff)));
    extra = c->kind[seq] & 0x1f;
    if ( extra > 28 )
        extra = 28;
    check(TRC_HD_EXTRA(hdr) == (extra + 3) / 4);
    check(TRC_HD_INCLUDES_CYCLE_COUNT(hdr) == !!(c->kind[seq] & KIND_CYCLES));
    for ( i = 0; i < 4 * TRC_HD_EXTRA(hdr); i++ )
        check(p[i] == (i < extra ? byte_of(seq, i) : 0));
    c->next_seq++;
}

/* Read everything between cons and prod, as xentrace does, and consume. */
static void drain(unsigned int cpu)
{
    struct cpu_model *c = &cpus[cpu];
    uint32_t prod = c->meta->prod, cons = c->meta->cons;
    uint32_t left;

    check(prod == ti_prod(cpu) && cons % 4 == 0 && cons < 2 * ds);
    left = ring(cons, prod);
    check(left <= ds);
    while ( left )
    {
        uint32_t off = cons < ds ? cons : cons - ds, hdr;
        unsigned int size;

        memcpy(&hdr, c->data + off, 4);
        size = 4 * (1 + 2 * TRC_HD_INCLUDES_CYCLE_COUNT(hdr) +
                    TRC_HD_EXTRA(hdr));
        check(off + size <= ds && size <= left);
        check_record(c, c->data + off, hdr, size);
        left -= size;
        cons = (cons + size) % (2 * ds);
    }
    c->meta->cons = prod;
}

/* The honest consumer takes a buffer back: empty from Xen's prod on. */
static void take_back(unsigned int cpu)
{
    struct cpu_model *c = &cpus[cpu];

    c->meta->cons = ti_prod(cpu);
    c->meta->prod = ti_prod(cpu);
    c->next_seq = c->traced - ti_lost(cpu);
    c->resyncs = stats_of(cpu).resyncs;
    c->dirty = false;
}

/* Disabling flushes lost counts: only where Xen wrote them, at most one. */
static void disable_enable(void)
{
    struct xen_sysctl_tbuf_op op = { 0 };
    uint32_t old[NCPUS];
    unsigned long resyncs[NCPUS];
    unsigned int cpu;

    snapshot();
    for ( cpu = 0; cpu < NCPUS; cpu++ )
    {
        old[cpu] = ti_prod(cpu);
        resyncs[cpu] = stats_of(cpu).resyncs;
    }
    check(tbuf_op(XEN_SYSCTL_TBUFOP_disable, &op) == 0);
    for ( cpu = 0; cpu < NCPUS; cpu++ )
        check_writes(cpu, old[cpu], 36 + 28, resyncs[cpu]);
    check(tbuf_op(XEN_SYSCTL_TBUFOP_enable, &op) == 0);
}

static void start_input(void)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NCPUS; cpu++ )
    {
        ti_reset(cpu);
        memset(cpus[cpu].data, 0, ds);
        cpus[cpu].traced = 0;
        take_back(cpu);
    }
}

static void finish_input(void)
{
    struct xen_sysctl_tbuf_op op = { 0 };
    unsigned int cpu, i;

    for ( cpu = 0; cpu < NCPUS; cpu++ )
    {
        if ( cpus[cpu].dirty )
            take_back(cpu);
        for ( i = 0; i < 3 && cpus[cpu].traced < MAX_TRACES; i++ )
            trace_one(cpu, 4 * i, i & 1);
        drain(cpu);
    }
    check(tbuf_op(XEN_SYSCTL_TBUFOP_disable, &op) == 0);
    for ( cpu = 0; cpu < NCPUS; cpu++ )
    {
        struct trace_cpu_stats s = stats_of(cpu);

        drain(cpu);
        check(ti_lost(cpu) == 0);
        check(cpus[cpu].next_seq == cpus[cpu].traced);
        check(s.records + s.lost == cpus[cpu].traced);
    }
    check(tbuf_op(XEN_SYSCTL_TBUFOP_enable, &op) == 0);
}

static uint32_t get32(const uint8_t **p, const uint8_t *end)
{
    uint32_t v = 0;
    unsigned int i;

    for ( i = 0; i < 4 && *p < end; i++ )
        v |= (uint32_t)*(*p)++ << (8 * i);
    return v;
}

static uint8_t get8(const uint8_t **p, const uint8_t *end)
{
    return *p < end ? *(*p)++ : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool booted;
    const uint8_t *p = data, *end = data + size;

    if ( !booted )
    {
        setup();
        booted = true;
    }
    start_input();

    while ( p < end )
    {
        uint8_t op = get8(&p, end), arg;
        unsigned int cpu = (op >> 4) % NCPUS, n;
        struct cpu_model *c = &cpus[cpu];

        if ( c->traced + 256 + 3 > MAX_TRACES )
            break;
        switch ( op & 0xf )
        {
        case 6:                                 /* a burst */
            arg = get8(&p, end);
            for ( n = 0; n < arg; n++ )
                trace_one(cpu, (arg + n) % 32, n & 1);
            break;
        case 7:
            if ( c->dirty )
                take_back(cpu);
            drain(cpu);
            break;
        case 8:                                 /* cons: anything */
            c->meta->cons = get32(&p, end);
            c->dirty = true;
            break;
        case 9:                                 /* cons: near prod */
            c->meta->cons = ti_prod(cpu) + 4 * (int8_t)get8(&p, end);
            c->dirty = true;
            break;
        case 10:                                /* prod: anything */
            c->meta->prod = get32(&p, end);
            c->dirty = true;
            break;
        case 11:                                /* a data word */
            n = get8(&p, end);
            n |= get8(&p, end) << 8;
            ((volatile uint32_t *)c->data)[n % (ds / 4)] = get32(&p, end);
            c->dirty = true;
            break;
        case 12:
            disable_enable();
            break;
        case 13:
            take_back(cpu);
            break;
        default:                                /* one record */
            arg = get8(&p, end);
            trace_one(cpu, arg & 0x1f, arg & KIND_CYCLES);
            break;
        }
    }

    finish_input();
    return 0;
}
