/*
 * Trace points as Xen code writes them, compiled by tests/xen/call-site.sh
 * with the flags a Xen tree builds common/trace.o with, so that the
 * disabled path of each API can be read in that tree's code: tb_init_done
 * compared, one branch.
 */
#include <xen/lib.h>
#include <xen/trace.h>

void call_site_trace_time(uint32_t a, uint32_t b, uint32_t c);
void call_site_trace_time(uint32_t a, uint32_t b, uint32_t c)
{
    TRACE_TIME(TRC_SCHED_SWITCH_INFPREV, a, b, c);
}

#if TRACE_API_4_17
void call_site_trace_3d(uint32_t a, uint32_t b, uint32_t c);
void call_site_trace_3d(uint32_t a, uint32_t b, uint32_t c)
{
    TRACE_3D(TRC_SCHED_SWITCH_INFPREV, a, b, c);
}
#endif
