/* See trace_inside.h: trace.c as it is, plus accessors to its state. */
#include "../../xen/common/trace.c"
#include "trace_inside.h"

unsigned long ti_lost(unsigned int cpu)
{
    return per_cpu(t_cpu, cpu).lost_records;
}

void ti_set_lost(unsigned int cpu, unsigned long lost)
{
    struct t_cpu *tc = &per_cpu(t_cpu, cpu);

    if ( lost && !tc->lost_records )
        tc->lost_records_first_tsc = get_cycles();
    if ( lost )
        tc->lost_records_last_tsc = get_cycles();
    tc->lost_records = lost;
    tc->room = 0;           /* a marker is due: the slow path */
}

uint32_t ti_prod(unsigned int cpu)
{
    return per_cpu(t_cpu, cpu).prod;
}

uint32_t ti_data_size(void)
{
    return data_size;
}

void ti_reset(unsigned int cpu)
{
    struct t_cpu *tc = &per_cpu(t_cpu, cpu);

    tc->prod = 0;
    tc->lost_records = 0;
    tc->lost_records_first_tsc = 0;
    tc->lost_records_last_tsc = 0;
    tc->room = 0;
    memset(&tc->stats, 0, sizeof(tc->stats));
    if ( tc->buf )
    {
        write_atomic(&tc->buf->cons, 0);
        write_atomic(&tc->buf->prod, 0);
    }
}
