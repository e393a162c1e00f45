/*
 * gen-trace: a synthetic trace file, for the readers' tests and benchmarks.
 *
 *   gen-trace [-n] [-B batch-bytes] [-c cpus] [-C counts] [-l lost-ppm]
 *             [-s size] [-S seed] [-w workload] file
 *
 * The records are those of xen-sim's workloads (tools/xen-sim/workload.c):
 * Xen 4.17's scheduler, HVM, PV, memory and IRQ records with the payloads
 * Xen writes.  Here the workload's trace calls do not go to the trace
 * buffers but into batches (tests/common/batches.c) put through
 * libxtfile's writer, so the file is laid out as our xentrace writes it,
 * without a hypervisor, without threads, and
 * the same for a seed on any machine: every record's TSC is the workload's
 * simulated time at 2.4 GHz (one call every 50 us per CPU at the default
 * pace), which the file's metadata gives as its TSC frequency.
 *
 * The CPUs run in lock step, a quantum of simulated time at a time, and
 * an epoch is put only between quanta: every CPU's batches cover the
 * same stretch of time, as in a capture from a host whose TSCs agree
 * (docs/trace-format.md, "Compatibility").
 *
 * Losses: with -l, each record has a lost-ppm in a million chance of
 * starting a run of 1 to MAX_LOSS_RUN records that are dropped; the next
 * record that is kept is preceded by a TRC_LOST_RECORDS record as Xen
 * writes one, {count, domain | vcpu << 16, first TSC lo, hi}.
 *
 * -s size (bytes, or with a K, M or G suffix) is the file size to reach;
 * the file stops at the first epoch that reaches it, so it may be larger
 * by up to one batch per CPU.  -B sets the batch size at which an epoch
 * is put (default 256 KiB, less with many CPUs so that at most 32 MiB are
 * held).
 * -C writes what was generated, for tests: one line "cpu event count"
 * (event in hex) per CPU and event kept, and one line "cpu lost count"
 * per CPU with losses.  -n names the domains in the first batch, as our
 * xentrace does from xen-sim's xenstore (xtfile.h, "Domains").
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xen/trace.h>

#include "batches.h"
#include "workload.h"

#define TSC_HZ          2400000000ULL   /* workload.c's payload TSC */
#define START_TSC       0x2540be400ULL  /* 10^10 ticks: 4 s of uptime */
#define START_SEC       1764480000      /* 2025-11-30 05:20:00 UTC */
#define QUANTUM_NS      10000000ULL     /* simulated time per round */
#define STAGE_BYTES     (64 * 1024)     /* a CPU's records of one round */
#define HELD_BYTES      (32ULL << 20)   /* what the writer may hold in all */
#define MAX_LOSS_RUN    256
#define MAX_EVENTS      64              /* distinct events per CPU, for -C */
#define REC_MAX         (4 + 8 + 4 * TRACE_EXTRA_MAX)

/* One simulated pCPU: the workload's state, and its records of a round. */
struct gen_cpu {
    struct wl_cpu wl;
    uint8_t *stage;
    size_t staged;
    uint32_t dom, vcpu;         /* who runs, for TRC_LOST_RECORDS */
    uint32_t losing;            /* records still to drop */
    uint32_t lost;              /* dropped since the last marker */
    uint64_t first_lost_tsc;
    uint64_t rng;
    /* -C: what was written. */
    uint32_t events[MAX_EVENTS];
    uint64_t counts[MAX_EVENTS];
    unsigned int nr_events;
    uint64_t lost_total;
};

static struct gen_cpu *cpus;
static struct gen_cpu *this_cpu;   /* whose step() runs */
static struct xt_writer *writer;
static struct batches *epoch;      /* every CPU's batch being filled */
static uint32_t loss_ppm;
static uint64_t ns_per_call;

/* splitmix64's finaliser: a seed per CPU from the seed and the CPU. */
static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* xorshift64: whether and how much a CPU loses, apart from the workload. */
static uint64_t next_random(struct gen_cpu *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

/* The TSC of the call the workload makes now: one per call, at its pace. */
static uint64_t call_tsc(const struct gen_cpu *g)
{
    return START_TSC + g->wl.calls * ns_per_call * (TSC_HZ / 1000000) / 1000;
}

static void count_event(struct gen_cpu *g, uint32_t event)
{
    unsigned int i;

    for ( i = 0; i < g->nr_events && g->events[i] != event; i++ )
        continue;
    if ( i == g->nr_events )
    {
        if ( g->nr_events == MAX_EVENTS )
            errx(1, "more than %d distinct events on a CPU", MAX_EVENTS);
        g->events[g->nr_events++] = event;
    }
    g->counts[i]++;
}

/* Move the CPU's staged records into its batch. */
static void unstage(struct gen_cpu *g)
{
    if ( batches_add(epoch, g->wl.cpu, g->stage, g->staged) )
        err(1, "batches_add");
    g->staged = 0;
}

static void stage(struct gen_cpu *g, uint32_t event, bool tsc,
                  const uint32_t *words, unsigned int nr)
{
    uint32_t rec[REC_MAX / 4];
    unsigned int n = 0;

    if ( g->staged + REC_MAX > STAGE_BYTES )
        unstage(g);
    rec[n++] = event | nr << TRACE_EXTRA_SHIFT | (tsc ? TRC_HD_CYCLE_FLAG : 0);
    if ( tsc )
    {
        uint64_t t = call_tsc(g);

        rec[n++] = t;
        rec[n++] = t >> 32;
    }
    memcpy(&rec[n], words, nr * 4);
    n += nr;
    memcpy(g->stage + g->staged, rec, n * 4);
    g->staged += n * 4;
    count_event(g, event);
}

/* Xen's t_buf lost-record logic, with the run of losses drawn at random. */
static bool keep_record(struct gen_cpu *g)
{
    if ( !g->losing && loss_ppm && next_random(g) % 1000000 < loss_ppm )
        g->losing = 1 + next_random(g) % MAX_LOSS_RUN;
    if ( g->losing )
    {
        if ( !g->lost++ )
            g->first_lost_tsc = call_tsc(g);
        g->losing--;
        return false;
    }
    if ( g->lost )
    {
        uint32_t d[4] = { g->lost, g->dom | g->vcpu << 16,
                          (uint32_t)g->first_lost_tsc,
                          (uint32_t)(g->first_lost_tsc >> 32) };

        stage(g, TRC_LOST_RECORDS, true, d, 4);
        g->lost_total += g->lost;
        g->lost = 0;
    }
    return true;
}

/*
 * What workload.c calls: Xen's producer API, and the host's current vCPU.
 * Tracing is always on: its trc_*() calls test tb_init_done.
 */

bool tb_init_done = true;

/* Xen's trace(): the TSC asked for by bit 31, a payload of whole words. */
void trace(uint32_t event, unsigned int extra, const void *extra_data)
{
    uint32_t words[TRACE_EXTRA_MAX] = { 0 };
    unsigned int nr = extra / 4;

    if ( extra % 4 || nr > TRACE_EXTRA_MAX )
        errx(1, "event %#x: bad size %u", event, extra);
    if ( nr )
        memcpy(words, extra_data, extra);
    if ( keep_record(this_cpu) )
        stage(this_cpu, TRC_HD_TO_EVENT(event),
              event & TRC_HD_CYCLE_FLAG, words, nr);
}

/* Xen's __trace_hypercall(): the scalar arguments as 32-bit words. */
void __trace_hypercall(uint32_t event, unsigned long op,
                       const xen_ulong_t *args)
{
    uint32_t d[1 + 6];
    unsigned int want, i, n = 1;

    switch ( op )
    {
    case __HYPERVISOR_mmu_update:
    case __HYPERVISOR_multicall:
    case __HYPERVISOR_mmuext_op:      want = 1U << 1; break;
    case __HYPERVISOR_grant_table_op: want = 1U << 0 | 1U << 2; break;
    case __HYPERVISOR_vcpu_op:        want = 1U << 0 | 1U << 1; break;
    case __HYPERVISOR_sched_op:       want = 1U << 0; break;
    default:                          want = 0; break;
    }
    d[0] = op & ~TRC_PV_HYPERCALL_V2_ARG_MASK;
    for ( i = 0; i < 6; i++ )
    {
        if ( !(want & 1U << i) )
            continue;
        d[0] |= TRC_PV_HYPERCALL_V2_ARG_32(i);
        d[n++] = args[i];
    }
    trace_time(event, n * sizeof(uint32_t), d);
}

void host_set_current(struct vcpu *v)
{
    this_cpu->dom = v ? v->domain->domain_id : DOMID_IDLE;
    this_cpu->vcpu = v ? (uint32_t)v->vcpu_id : this_cpu->wl.cpu;
}

/* For xen-sim --repeatable's workloads only: gen-trace has its own clock. */
void host_set_tsc(uint64_t tsc)
{
    errx(1, "host_set_tsc(%" PRIu64 "): not in gen-trace", tsc);
}

/*
 * Options and the main loop
 */

static void usage(void)
{
    fprintf(stderr, "usage: gen-trace [-n] [-B batch-bytes] [-c cpus] "
            "[-C counts] [-l lost-ppm] [-s size] [-S seed] [-w workload] "
            "file\n");
    exit(1);
}

static unsigned long long number(const char *s, const char *what,
                                 bool suffix)
{
    unsigned long long n;
    char *end;

    errno = 0;
    n = strtoull(s, &end, 0);
    if ( suffix && *end && !end[1] )
    {
        unsigned int shift = *end == 'K' ? 10 : *end == 'M' ? 20 :
                             *end == 'G' ? 30 : 0;

        if ( shift && n < 1ULL << (63 - shift) )
        {
            n <<= shift;
            end++;
        }
    }
    if ( errno || end == s || *end || s[0] == '-' )
        errx(1, "bad %s: %s", what, s);
    return n;
}

static void write_counts(const char *path, unsigned int nr_cpus)
{
    FILE *f = fopen(path, "w");
    unsigned int c, i;

    if ( !f )
        err(1, "%s", path);
    for ( c = 0; c < nr_cpus; c++ )
    {
        for ( i = 0; i < cpus[c].nr_events; i++ )
            fprintf(f, "%u %08" PRIx32 " %" PRIu64 "\n", c,
                    cpus[c].events[i], cpus[c].counts[i]);
        if ( cpus[c].lost_total )
            fprintf(f, "%u lost %" PRIu64 "\n", c, cpus[c].lost_total);
    }
    if ( fclose(f) )
        err(1, "%s", path);
}

/* Run every CPU up to simulated time @until, into its batch. */
static void run_round(const struct workload *wl, unsigned int nr_cpus,
                      uint64_t until)
{
    unsigned int c;

    for ( c = 0; c < nr_cpus; c++ )
    {
        this_cpu = &cpus[c];
        while ( this_cpu->wl.calls * ns_per_call < until )
            wl->step(&this_cpu->wl);
        unstage(this_cpu);
    }
}

/* -n: the workload's domains, named as xen-sim's xenstore names them. */
static void name_domains(struct xt_writer_opts *wo)
{
    static struct xt_domain domains[16];
    unsigned int i;

    for ( i = 0; i < wl_nr_domains() && i < 16; i++ )
        snprintf(domains[i].name, sizeof(domains[i].name), "%s",
                 wl_domain(i, &domains[i].domid, domains[i].uuid));
    wo->domains = domains;
    wo->nr_domains = i;
}

int main(int argc, char **argv)
{
    const struct workload *wl = workload_find("mixed");
    const char *counts_path = NULL;
    unsigned long long size = 1 << 20, seed = 1, batch_bytes = 0;
    unsigned int nr_cpus = 8, c;
    uint64_t until = 0;
    struct xt_metadata meta;
    struct xt_writer_opts wo = { 0 };
    bool named = false;
    int opt, fd;

    while ( (opt = getopt(argc, argv, "nB:c:C:l:s:S:w:")) != -1 )
    {
        switch ( opt )
        {
        case 'n':
            named = true;
            break;
        case 'B':
            batch_bytes = number(optarg, "batch size", true);
            if ( !batch_bytes || batch_bytes > HELD_BYTES )
                errx(1, "bad batch size: %s", optarg);
            break;
        case 'c':
            nr_cpus = number(optarg, "CPU count", false);
            if ( !nr_cpus || nr_cpus > 4096 )
                errx(1, "bad CPU count: %s", optarg);
            break;
        case 'C':
            counts_path = optarg;
            break;
        case 'l':
            loss_ppm = number(optarg, "loss rate", false);
            if ( loss_ppm > 1000000 )
                errx(1, "bad loss rate: %s", optarg);
            break;
        case 's':
            size = number(optarg, "size", true);
            break;
        case 'S':
            seed = number(optarg, "seed", false);
            break;
        case 'w':
            wl = workload_find(optarg);
            if ( !wl || !wl->default_rate )
                errx(1, "bad workload: %s (idle or mixed)", optarg);
            break;
        default:
            usage();
        }
    }
    if ( optind != argc - 1 )
        usage();

    fd = open(argv[optind], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if ( fd < 0 )
        err(1, "%s", argv[optind]);
    meta = (struct xt_metadata){
        .tsc_hz = TSC_HZ, .nr_cpus = nr_cpus, .start_tsc = START_TSC,
        .start_sec = START_SEC, .start_nsec = 0,
    };
    /* Every CPU fills its batch at about the same time: bound the total. */
    if ( !batch_bytes )
        batch_bytes = HELD_BYTES / nr_cpus < 256 * 1024 ? HELD_BYTES / nr_cpus
                                                        : 256 * 1024;
    if ( named )
        name_domains(&wo);
    writer = xt_writer_open(fd, &meta, &wo);
    if ( !writer )
        err(1, "%s", argv[optind]);
    if ( !(epoch = batches_new(nr_cpus, batch_bytes)) )
        err(1, "batches_new");

    ns_per_call = 1000000000ULL / wl->default_rate;
    cpus = calloc(nr_cpus, sizeof(*cpus));
    if ( !cpus )
        err(1, "calloc");
    for ( c = 0; c < nr_cpus; c++ )
    {
        cpus[c].stage = malloc(STAGE_BYTES);
        if ( !cpus[c].stage )
            err(1, "malloc");
        cpus[c].rng = mix64(seed ^ mix64(c + 1)) | 1;
        cpus[c].dom = DOMID_IDLE;
        cpus[c].vcpu = c;
        this_cpu = &cpus[c];
        wl->init(&cpus[c].wl, c, nr_cpus, seed);
    }

    while ( xt_writer_bytes(writer) < size )
    {
        until += QUANTUM_NS;
        run_round(wl, nr_cpus, until);
        if ( batches_full(epoch) && batches_put(epoch, writer) )
            err(1, "%s", argv[optind]);
    }
    if ( batches_put(epoch, writer) || xt_writer_close(writer) || close(fd) )
        err(1, "%s", argv[optind]);
    batches_free(epoch);
    if ( counts_path )
        write_counts(counts_path, nr_cpus);

    for ( c = 0; c < nr_cpus; c++ )
        free(cpus[c].stage);
    free(cpus);
    return 0;
}
