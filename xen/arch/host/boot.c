/*
 * Host environment: booting, CPUs and per-CPU data.
 *
 * host_boot() does, in a process, what Xen's __start_xen() does for the
 * trace buffers: parse the command line, set up machine memory and the
 * per-CPU areas, bring the boot CPUs online, then call init_trace_bufs().
 * Every possible CPU gets its per-CPU area at boot, a copy of the
 * host_percpu section made before any code runs as that CPU.
 */
#include <errno.h>
#include <stdlib.h>

#include <host.h>
#include <xen/cpu.h>
#include <xen/cpumask.h>
#include <xen/lib.h>
#include <xen/param.h>
#include <xen/percpu.h>
#include <xen/sched.h>
#include <xen/trace.h>
#include "host_private.h"

#define DEFAULT_MEM_PAGES  (1UL << 18)     /* 1 GiB, sparse */

unsigned int nr_cpu_ids;
cpumask_t cpu_online_map;
unsigned long __per_cpu_offset[NR_CPUS];

/* A thread that has not entered a CPU faults on its first this_cpu(). */
#define NOT_A_CPU_OFFSET  (1UL << 63)

__thread unsigned int host_this_cpu;
__thread unsigned long host_this_cpu_offset = NOT_A_CPU_OFFSET;
__thread bool host_irqs_enabled = true;
__thread struct vcpu *host_current;
__thread int64_t host_tsc_offset;
#ifdef HOST_SETTABLE_TSC
__thread uint64_t host_tsc_value;
__thread bool host_tsc_is_set;
#endif

static void *percpu_area[NR_CPUS];     /* live as long as the process */
static struct domain idle_domain = { .domain_id = DOMID_IDLE };
static struct vcpu idle_vcpu[NR_CPUS];
static struct notifier_block *cpu_chain;
static bool booted;

extern char __start_host_percpu[] __attribute__((weak));
extern char __stop_host_percpu[] __attribute__((weak));
extern const struct kernel_param __start_host_params[] __attribute__((weak));
extern const struct kernel_param __stop_host_params[] __attribute__((weak));

static const struct kernel_param *find_param(const char *name, size_t len)
{
    const struct kernel_param *p;

    for ( p = __start_host_params; p < __stop_host_params; p++ )
        if ( strlen(p->name) == len && !memcmp(p->name, name, len) )
            return p;
    return NULL;
}

/* Set each known "name=number" of @cmdline; other options are Xen's. */
int host_parse_cmdline(const char *cmdline)
{
    const char *opt = cmdline;

    while ( opt && *opt )
    {
        size_t len = strcspn(opt, " "), name_len = strcspn(opt, "= ");
        const struct kernel_param *p = find_param(opt, name_len);

        if ( p && opt[name_len] == '=' )
        {
            char *end;
            unsigned long val = strtoul(opt + name_len + 1, &end, 0);

            if ( end == opt + name_len + 1 || end != opt + len ||
                 val > UINT32_MAX )
            {
                printk("Bad value for %.*s\n", (int)len, opt);
                return -EINVAL;
            }
            *p->var = val;
        }
        opt += len;
        opt += strspn(opt, " ");
    }

    return 0;
}

static int percpu_init(void)
{
    size_t size = __stop_host_percpu - __start_host_percpu;
    unsigned int cpu;

    for ( cpu = 0; cpu < nr_cpu_ids; cpu++ )
    {
        char *area = aligned_alloc(64, (size + 63) & ~(size_t)63);

        if ( !area )
            return -ENOMEM;
        percpu_area[cpu] = area;
        memcpy(area, __start_host_percpu, size);
        __per_cpu_offset[cpu] = (unsigned long)area -
                                (unsigned long)__start_host_percpu;
        idle_vcpu[cpu].vcpu_id = cpu;
        idle_vcpu[cpu].domain = &idle_domain;
    }

    return 0;
}

static void set_online(unsigned int cpu)
{
    cpu_online_map.bits[cpu / BITS_PER_LONG] |= 1UL << (cpu % BITS_PER_LONG);
}

int host_boot(const struct host_config *cfg)
{
    unsigned int online = cfg->online_cpus ?: cfg->nr_cpus;
    unsigned int cpu;
    int rc;

    if ( booted )
        return -EBUSY;
    if ( !cfg->nr_cpus || cfg->nr_cpus > NR_CPUS || online > cfg->nr_cpus )
        return -EINVAL;
    booted = true;

    printk("Command line: %s\n", cfg->cmdline ?: "");
    rc = host_parse_cmdline(cfg->cmdline);
    if ( rc )
        return rc;

    nr_cpu_ids = cfg->nr_cpus;
    rc = host_mm_init(cfg->mem_pages ?: DEFAULT_MEM_PAGES);
    if ( !rc )
        rc = percpu_init();
    if ( rc )
        return rc;

    for ( cpu = 0; cpu < online; cpu++ )
        set_online(cpu);
    host_cpu_enter(0);

    init_trace_bufs();
    return 0;
}

void host_cpu_enter(unsigned int cpu)
{
    host_this_cpu = cpu;
    host_this_cpu_offset = __per_cpu_offset[cpu];
    host_current = &idle_vcpu[cpu];
}

void host_set_tsc_offset(int64_t cycles)
{
    host_tsc_offset = cycles;
}

#ifdef HOST_SETTABLE_TSC
void host_set_tsc(uint64_t tsc)
{
    host_tsc_value = tsc;
    host_tsc_is_set = true;
}
#endif

void host_set_current(struct vcpu *v)
{
    host_current = v ?: &idle_vcpu[host_this_cpu];
}

unsigned int host_possible_cpus(void)
{
    return nr_cpu_ids;
}

unsigned int host_online_cpus(void)
{
    unsigned int cpu, n = 0;

    for_each_online_cpu ( cpu )
        n++;
    return n;
}

void register_cpu_notifier(struct notifier_block *nb)
{
    nb->next = cpu_chain;
    cpu_chain = nb;
}

int host_cpu_up(unsigned int cpu)
{
    struct notifier_block *nb;

    if ( cpu >= nr_cpu_ids )
        return -EINVAL;
    if ( cpu_online(cpu) )
        return -EEXIST;

    for ( nb = cpu_chain; nb; nb = nb->next )
        nb->notifier_call(nb, CPU_UP_PREPARE, (void *)(unsigned long)cpu);
    set_online(cpu);

    return 0;
}

int xenctl_bitmap_to_cpumask(cpumask_var_t *mask,
                             const struct xenctl_bitmap *bitmap)
{
    unsigned int nr = min(bitmap->nr_bits, nr_cpu_ids), cpu;
    const uint8_t *bytes = bitmap->bitmap.p;
    cpumask_t *m;

    if ( nr && !bytes )
        return -EFAULT;
    m = calloc(1, sizeof(*m));
    if ( !m )
        return -ENOMEM;

    for ( cpu = 0; cpu < nr; cpu++ )
        if ( bytes[cpu / 8] & (1U << (cpu % 8)) )
            m->bits[cpu / BITS_PER_LONG] |= 1UL << (cpu % BITS_PER_LONG);

    *mask = m;
    return 0;
}

void free_cpumask_var(cpumask_var_t mask)
{
    free(mask);
}
