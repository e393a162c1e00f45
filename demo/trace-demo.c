/*
 * trace-demo: Xen's trace buffers at work, in this process.
 *
 * Boots the hypervisor's trace buffers (xen/common/trace.c on the host
 * environment) on two physical CPUs, runs a small scheduler workload on
 * each, and plays dom0: maps each CPU's buffer from the frames t_info
 * lists, and prints the records it finds.  dom0 keeps up with CPU 0 while
 * it runs, but reads CPU 1 only at the end, so CPU 1's buffer overflows
 * and shows a lost-records marker.
 *
 * usage: trace-demo [-n switches] [-r records-to-show]
 */
#include <err.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include <host.h>
#include <xen/sched.h>
#include <xen/trace.h>

#define NR_PCPUS   2
#define NR_DOMS    3

static unsigned int switches = 400;
static unsigned int show = 12;

/* What dom0 maps of one CPU's buffer, and what it has read so far. */
struct view {
    struct t_buf *meta;
    const unsigned char *data;
    uint32_t data_size;
    unsigned int read, shown;
    uint64_t first_tsc;
};

static bool workload_done;

static int tbuf_op(unsigned int cmd, struct xen_sysctl_tbuf_op *op)
{
    op->cmd = cmd;
    return tb_control(op);
}

static void map_view(unsigned int cpu, struct view *v)
{
    struct xen_sysctl_tbuf_op op = { 0 };
    uint32_t mfns[16];
    const struct t_info *ti;
    unsigned int i;

    if ( tbuf_op(XEN_SYSCTL_TBUFOP_get_info, &op) || !op.buffer_mfn )
        errx(1, "no trace buffers");
    for ( i = 0; i < op.size / 4096 && i < 16; i++ )
        mfns[i] = op.buffer_mfn + i;
    ti = host_map_frames(mfns, i, PROT_READ);
    if ( !ti )
        err(1, "map t_info");
    v->meta = host_map_frames((const uint32_t *)ti + ti->mfn_offset[cpu],
                              ti->tbuf_size, PROT_READ | PROT_WRITE);
    if ( !v->meta )
        err(1, "map buffer of cpu %u", cpu);
    v->data = (const unsigned char *)(v->meta + 1);
    v->data_size = ti->tbuf_size * 4096 - sizeof(struct t_buf);
}

/*
 * Let the current vCPU run for about @ns.  It sleeps rather than spins:
 * this machine may have fewer cores than the demo has threads, and dom0
 * must get a core to keep up.
 */
static void run_for(long ns)
{
    struct timespec t = { .tv_nsec = ns };

    nanosleep(&t, NULL);
}

/*
 * One pCPU: vCPUs of NR_DOMS domains take turns, each making a hypercall
 * and running for a while.  Runstates: 0 running, 1 runnable.
 */
static void *pcpu(void *arg)
{
    unsigned int cpu = (unsigned long)arg, i;
    struct domain doms[NR_DOMS];
    struct vcpu vcpus[NR_DOMS];
    const xen_ulong_t args[6] = { 1, 16, 0, 0, 0, 0 };

    host_cpu_enter(cpu);
    for ( i = 0; i < NR_DOMS; i++ )
    {
        doms[i].domain_id = i;
        vcpus[i].domain = &doms[i];
        vcpus[i].vcpu_id = cpu;
    }
    for ( i = 0; i < switches; i++ )
    {
        struct vcpu *prev = &vcpus[i % NR_DOMS];
        struct vcpu *next = &vcpus[(i + 1) % NR_DOMS];

        TRACE_1D(TRC_SCHED_RUNSTATE_CHANGE | (0 << 8) | (1 << 4),
                 prev->vcpu_id | (prev->domain->domain_id << 16));
        TRACE_1D(TRC_SCHED_RUNSTATE_CHANGE | (1 << 8) | (0 << 4),
                 next->vcpu_id | (next->domain->domain_id << 16));
        TRACE_4D(TRC_SCHED_SWITCH, prev->domain->domain_id, prev->vcpu_id,
                 next->domain->domain_id, next->vcpu_id);
        host_set_current(next);
        __trace_hypercall(TRC_PV_HYPERCALL_V2, __HYPERVISOR_mmu_update, args);
        host_process_softirqs();
        run_for(20000);
    }
    host_set_current(NULL);
    return NULL;
}

static const char *const runstates[] = {
    "running", "runnable", "blocked", "offline",
};

/* Print what the payload of @event says, for the events the demo makes. */
static void print_payload(uint32_t event, const uint32_t *w, unsigned int n)
{
    unsigned int i;

    if ( (event & ~0xff0) == TRC_SCHED_RUNSTATE_CHANGE && n == 1 )
        printf("runstate_change d%uv%u %s->%s", w[0] >> 16, w[0] & 0xffff,
               runstates[(event >> 8) & 3], runstates[(event >> 4) & 3]);
    else if ( event == TRC_SCHED_SWITCH && n == 4 )
        printf("switch          d%uv%u -> d%uv%u", w[0], w[1], w[2], w[3]);
    else if ( event == TRC_PV_HYPERCALL_V2 && n == 2 &&
              (w[0] & 0xfffff) == __HYPERVISOR_mmu_update )
        printf("hypercall       mmu_update count=%u", w[1]);
    else if ( event == TRC_LOST_RECORDS && n == 4 )
        printf("lost_records    %u records lost; d%uv%u runs now", w[0],
               w[1] & 0xffff, w[1] >> 16);
    else if ( event == TRC_TRACE_WRAP_BUFFER )
        printf("wrap_buffer     (padding to the end of the buffer)");
    else
    {
        printf("%#-15x", event);
        for ( i = 0; i < n; i++ )
            printf(" %#x", w[i]);
    }
}

/* Print one record at data offset @off. */
static void print_record(struct view *v, uint32_t off)
{
    uint32_t hdr, words[7], n, size;
    uint64_t tsc = 0;

    memcpy(&hdr, v->data + off, 4);
    n = TRC_HD_EXTRA(hdr);
    size = 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 8 : 0) + 4 * n;
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        memcpy(&tsc, v->data + off + 4, 8);
    memcpy(words, v->data + off + size - 4 * n, 4 * n);
    if ( !v->first_tsc )
        v->first_tsc = tsc;

    printf("  %5u  %12llu  ", off,
           tsc ? (unsigned long long)(tsc - v->first_tsc) : 0ULL);
    print_payload(TRC_HD_TO_EVENT(hdr), words, n);
    printf("\n");
}

/*
 * Read the records between cons and prod, printing the first few and every
 * marker, then consume them.
 */
static void read_buffer(struct view *v)
{
    uint32_t prod = __atomic_load_n(&v->meta->prod, __ATOMIC_ACQUIRE);
    uint32_t cons = v->meta->cons;

    while ( cons != prod )
    {
        uint32_t off = cons % v->data_size, hdr, event;

        memcpy(&hdr, v->data + off, 4);
        event = TRC_HD_TO_EVENT(hdr);
        if ( v->shown < show || event == TRC_LOST_RECORDS ||
             event == TRC_TRACE_WRAP_BUFFER )
        {
            print_record(v, off);
            v->shown++;
        }
        v->read++;
        cons = (cons + 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 8 : 0) +
                4 * TRC_HD_EXTRA(hdr)) % (2 * v->data_size);
    }
    __atomic_store_n(&v->meta->cons, prod, __ATOMIC_RELEASE);
}

static void summarise(unsigned int cpu, const struct view *v)
{
    struct trace_cpu_stats stats;

    trace_cpu_stats(cpu, &stats);
    printf("  CPU %u: %u emitted = %lu written + %lu lost (reported in "
           "markers); dom0 read %u records, pads and markers included\n",
           cpu, 4 * switches, stats.records, stats.lost, v->read);
}

/* dom0 keeps up with CPU 0 while the workload runs. */
static void *dom0(void *arg)
{
    struct view *v = arg;

    printf("\nCPU 0, read while it runs:\n"
           "  offset  TSC (+cycles)  event\n");
    while ( !__atomic_load_n(&workload_done, __ATOMIC_ACQUIRE) )
    {
        read_buffer(v);
        usleep(100);
    }
    read_buffer(v);
    return NULL;
}

int main(int argc, char *argv[])
{
    struct host_config cfg = { .nr_cpus = NR_PCPUS, .cmdline = "tbuf_size=1" };
    struct xen_sysctl_tbuf_op op = { 0 };
    struct view views[NR_PCPUS] = { { 0 } };
    pthread_t threads[NR_PCPUS], reader;
    unsigned long cpu;
    int ch;

    while ( (ch = getopt(argc, argv, "n:r:")) != -1 )
        switch ( ch )
        {
        case 'n':
            switches = strtoul(optarg, NULL, 10);
            break;
        case 'r':
            show = strtoul(optarg, NULL, 10);
            break;
        default:
            fprintf(stderr, "usage: trace-demo [-n switches] [-r records]\n");
            return 1;
        }

    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("Booting the trace buffers (Xen command line \"%s\", %u CPUs):\n",
           cfg.cmdline, cfg.nr_cpus);
    if ( host_boot(&cfg) )
        errx(1, "boot failed");
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        map_view(cpu, &views[cpu]);

    printf("Each CPU runs %u context switches of %u domains' vCPUs;\n"
           "dom0 reads CPU 1's buffer only at the end, so it overflows.\n",
           switches, NR_DOMS);
    if ( pthread_create(&reader, NULL, dom0, &views[0]) )
        errx(1, "pthread_create");
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        if ( pthread_create(&threads[cpu], NULL, pcpu, (void *)cpu) )
            errx(1, "pthread_create");
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        pthread_join(threads[cpu], NULL);
    tbuf_op(XEN_SYSCTL_TBUFOP_disable, &op);   /* flushes lost counts */
    __atomic_store_n(&workload_done, true, __ATOMIC_RELEASE);
    pthread_join(reader, NULL);

    printf("\nCPU 1, read at the end:\n"
           "  offset  TSC (+cycles)  event\n");
    read_buffer(&views[1]);

    printf("\nAccount:\n");
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        summarise(cpu, &views[cpu]);
    printf("  VIRQ_TBUF sent %lu times, once per high-water crossing.\n",
           host_virq_count(VIRQ_TBUF));

    return 0;
}
