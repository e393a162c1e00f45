/* Host environment: CPU masks, with the operations trace.c uses. */
#ifndef __HOST_XEN_CPUMASK_H__
#define __HOST_XEN_CPUMASK_H__

#include <string.h>
#include <xen/config.h>
#include <xen/types.h>
#include <public/xen.h>

#define BITS_PER_LONG  64

typedef struct cpumask {
    unsigned long bits[NR_CPUS / BITS_PER_LONG];
} cpumask_t;
typedef cpumask_t *cpumask_var_t;

extern unsigned int nr_cpu_ids;
extern cpumask_t cpu_online_map;

static inline void cpumask_setall(cpumask_t *m)
{
    unsigned int cpu;

    memset(m, 0, sizeof(*m));
    for ( cpu = 0; cpu < nr_cpu_ids; cpu++ )
        m->bits[cpu / BITS_PER_LONG] |= 1UL << (cpu % BITS_PER_LONG);
}

static inline bool cpumask_test_cpu(unsigned int cpu, const cpumask_t *m)
{
    return m->bits[cpu / BITS_PER_LONG] & (1UL << (cpu % BITS_PER_LONG));
}

static inline void cpumask_copy(cpumask_t *dst, const cpumask_t *src)
{
    *dst = *src;
}

#define cpu_online(cpu)  cpumask_test_cpu(cpu, &cpu_online_map)

#define for_each_online_cpu(cpu)                   \
    for ( (cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++ ) \
        if ( !cpu_online(cpu) ) { } else

/*
 * The mask comes from the control plane's copy of dom0's bitmap; bits past
 * nr_cpu_ids are ignored, missing ones are clear (Xen's rules).
 */
int xenctl_bitmap_to_cpumask(cpumask_var_t *mask,
                             const struct xenctl_bitmap *bitmap);
void free_cpumask_var(cpumask_var_t mask);

#endif /* __HOST_XEN_CPUMASK_H__ */
