/******************************************************************************
 * include/xen/trace.h
 *
 * The hypervisor's trace points: how Xen code emits records into the
 * per-CPU trace buffers that dom0 reads (see common/trace.c and
 * public/trace.h).  The link contract is Xen 4.17's.
 *
 * A disabled trace point costs one load and one branch at the call site:
 * every entry point below tests tb_init_done inline before calling out.
 */

#ifndef __XEN_TRACE_H__
#define __XEN_TRACE_H__

/* Tracing is on.  Here because asm/trace.h may use it. */
#ifdef CONFIG_TRACEBUFFER
extern int tb_init_done;
#else
#define tb_init_done false
#endif

#include <xen/types.h>
#include <public/sysctl.h>
#include <public/trace.h>
#include <asm/trace.h>

/* Per-CPU counts kept by the buffers, for diagnostics. */
struct trace_cpu_stats {
    unsigned long records;    /* records written */
    unsigned long bytes;      /* bytes of those records */
    unsigned long lost;       /* records that found no room (and were
                                 reported, or will be, as TRC_LOST_RECORDS) */
    unsigned long unbuffered; /* records on a CPU that has no buffer */
    unsigned long resyncs;    /* buffer resets after dom0 wrote a bad cons */
};

#ifdef CONFIG_TRACEBUFFER

/* Allocates the buffers if tbuf_size= was given at boot. */
void init_trace_bufs(void);

/* XEN_SYSCTL_tbuf_op: buffer size, masks, on/off, where the buffers are. */
int tb_control(struct xen_sysctl_tbuf_op *tbc);

/* Whether @event, emitted now on this CPU, would be recorded. */
int trace_will_trace_event(uint32_t event);

/*
 * Record @event (bits 27-0) with @extra bytes of payload from @extra_data,
 * and a TSC if @cycles.  @extra is rounded up to whole words, with zeroes,
 * and at most TRACE_EXTRA_MAX words are kept.
 */
void __trace_var(uint32_t event, bool cycles, unsigned int extra,
                 const void *extra_data);

static inline void trace_var(uint32_t event, bool cycles, unsigned int extra,
                             const void *extra_data)
{
    if ( unlikely(tb_init_done) )
        __trace_var(event, cycles, extra, extra_data);
}

/* A TRC_PV_HYPERCALL_V2-style record of hypercall @op and its scalars. */
void __trace_hypercall(uint32_t event, unsigned long op,
                       const xen_ulong_t *args);

void trace_cpu_stats(unsigned int cpu, struct trace_cpu_stats *stats);

#else /* CONFIG_TRACEBUFFER */

#include <xen/errno.h>

static inline void init_trace_bufs(void) {}
static inline int tb_control(struct xen_sysctl_tbuf_op *tbc)
{
    return -ENOSYS;
}

static inline int trace_will_trace_event(uint32_t event)
{
    return 0;
}

static inline void trace_var(uint32_t event, bool cycles, unsigned int extra,
                             const void *extra_data) {}
static inline void __trace_var(uint32_t event, bool cycles, unsigned int extra,
                               const void *extra_data) {}
static inline void __trace_hypercall(uint32_t event, unsigned long op,
                                     const xen_ulong_t *args) {}
static inline void trace_cpu_stats(unsigned int cpu,
                                   struct trace_cpu_stats *stats)
{
    *stats = (struct trace_cpu_stats){ 0 };
}

#endif /* CONFIG_TRACEBUFFER */

/*
 * The 4.19+ primitives, over 4.17's __trace_var(): a record of @event with
 * @extra bytes from @extra_data, timed if @event has TRC_HD_CYCLE_FLAG
 * (trace_time() sets it).  As upstream's trace(), neither tests
 * tb_init_done inline: their callers do (the generated trc_*() calls of
 * xen/trace-events.h).
 */
static inline void trace(uint32_t event, unsigned int extra,
                         const void *extra_data)
{
    __trace_var((uint32_t)(event & ~TRC_HD_CYCLE_FLAG),
                event & TRC_HD_CYCLE_FLAG, extra, extra_data);
}

static inline void trace_time(uint32_t event, unsigned int extra,
                              const void *extra_data)
{
    trace((uint32_t)(event | TRC_HD_CYCLE_FLAG), extra, extra_data);
}

/*
 * TRACE_nD(event, d1, ..., dn): a timed record of n 32-bit values.  Each
 * argument is evaluated only when tracing is on.
 */
#define TRACE_ND_(_e, ...)                                      \
    do {                                                        \
        if ( unlikely(tb_init_done) )                           \
        {                                                       \
            uint32_t d_[] = { __VA_ARGS__ };                    \
                                                                \
            __trace_var(_e, true, sizeof(d_), d_);              \
        }                                                       \
    } while ( 0 )

#define TRACE_0D(_e)                                            \
    do {                                                        \
        trace_var(_e, true, 0, NULL);                           \
    } while ( 0 )
#define TRACE_1D(_e, d1)                 TRACE_ND_(_e, d1)
#define TRACE_2D(_e, d1, d2)             TRACE_ND_(_e, d1, d2)
#define TRACE_3D(_e, d1, d2, d3)         TRACE_ND_(_e, d1, d2, d3)
#define TRACE_4D(_e, d1, d2, d3, d4)     TRACE_ND_(_e, d1, d2, d3, d4)
#define TRACE_5D(_e, d1, d2, d3, d4, d5) TRACE_ND_(_e, d1, d2, d3, d4, d5)
#define TRACE_6D(_e, d1, d2, d3, d4, d5, d6) \
    TRACE_ND_(_e, d1, d2, d3, d4, d5, d6)

#endif /* __XEN_TRACE_H__ */

/*
 * Local variables:
 * mode: C
 * c-file-style: "BSD"
 * c-basic-offset: 4
 * tab-width: 4
 * indent-tabs-mode: nil
 * End:
 */
