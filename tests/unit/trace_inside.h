/*
 * A look inside the hypervisor's per-CPU tracing state, for tests only.
 * trace_inside.c compiles xen/common/trace.c itself, unchanged, followed
 * by these accessors; a program linked with it links the host objects
 * without the trace.o of the host library.  Call with tracing idle on
 * @cpu (no trace point running there).
 */
#ifndef TRACE_INSIDE_H
#define TRACE_INSIDE_H

#include <stdint.h>

/* Records lost on @cpu and not yet reported in a TRC_LOST_RECORDS. */
unsigned long ti_lost(unsigned int cpu);
void ti_set_lost(unsigned int cpu, unsigned long lost);

/* Xen's own copy of @cpu's prod (it never reads the shared one back). */
uint32_t ti_prod(unsigned int cpu);

/* Bytes of each buffer's data area. */
uint32_t ti_data_size(void);

/*
 * Start @cpu's buffer afresh: prod, cons and the counts to 0, nothing
 * pending.  The data area is left as it is.
 */
void ti_reset(unsigned int cpu);

#endif /* TRACE_INSIDE_H */
