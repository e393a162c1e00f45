/******************************************************************************
 * include/xen/trace.h
 *
 * The hypervisor's trace points: how Xen code emits records into the
 * per-CPU trace buffers that dom0 reads (see common/trace.c and
 * public/trace.h).
 *
 * Two producer APIs, one implementation.  Every tree gets Xen 4.19's:
 * trace() and trace_time() take a payload of whole words, the TSC asked
 * for by TRC_HD_CYCLE_FLAG in the event, and TRACE()/TRACE_TIME() pack
 * their arguments into one.  Trees older than 4.19 call Xen 4.17's
 * TRACE_nD(), trace_var() and __trace_var() too, so they get those as
 * well; newer ones do not, as upstream removed them.
 *
 * A disabled trace point costs one compare and one branch at the call
 * site: every entry point below tests the bool tb_init_done inline before
 * calling out.
 */

#ifndef __XEN_TRACE_H__
#define __XEN_TRACE_H__

#include <xen/types.h>
#include <public/sysctl.h>
#include <public/trace.h>

/*
 * Whether the tree is older than Xen 4.19, and calls the 4.17 API.  No
 * version number reaches every object (compile.h is remade by each build),
 * but the guest interface version does, and it moved to 0x00041300 in
 * 4.19; 4.14 to 4.18 have 0x00040e00.
 */
#define TRACE_API_4_17 (__XEN_LATEST_INTERFACE_VERSION__ < 0x00041300)

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

/* Tracing is on.  Set once buffers exist; read by every trace point. */
extern bool tb_init_done;

/*
 * Allocates the buffers if tbuf_size= was given at boot.  Called from
 * start_xen() before Xen 4.21, run as a constructor at the same point
 * since.
 */
void init_trace_bufs(void);

/* XEN_SYSCTL_tbuf_op: buffer size, masks, on/off, where the buffers are. */
int tb_control(struct xen_sysctl_tbuf_op *tbc);

/* Whether @event, emitted now on this CPU, would be recorded. */
int trace_will_trace_event(uint32_t event);

/*
 * Record @event (bits 27-0), with a TSC if its bit 31 (TRC_HD_CYCLE_FLAG)
 * is set, and @extra bytes of payload from @extra_data.  @extra must be a
 * multiple of 4 and at most 4 * TRACE_EXTRA_MAX: any other size is a bug
 * at the call site, reported once, and the record is dropped.
 */
void trace(uint32_t event, unsigned int extra, const void *extra_data);

/* A TRC_PV_HYPERCALL_V2-style record of hypercall @op and its scalars. */
void __trace_hypercall(uint32_t event, unsigned long op,
                       const xen_ulong_t *args);

void trace_cpu_stats(unsigned int cpu, struct trace_cpu_stats *stats);

#else /* CONFIG_TRACEBUFFER */

#include <xen/errno.h>

#define tb_init_done false

static inline void init_trace_bufs(void) {}
static inline int tb_control(struct xen_sysctl_tbuf_op *tbc)
{
    return -ENOSYS;
}

static inline int trace_will_trace_event(uint32_t event)
{
    return 0;
}

static inline void trace(uint32_t event, unsigned int extra,
                         const void *extra_data) {}
static inline void __trace_hypercall(uint32_t event, unsigned long op,
                                     const xen_ulong_t *args) {}
static inline void trace_cpu_stats(unsigned int cpu,
                                   struct trace_cpu_stats *stats)
{
    *stats = (struct trace_cpu_stats){ 0 };
}

#endif /* CONFIG_TRACEBUFFER */

/* trace(), with a TSC. */
static inline void trace_time(uint32_t event, unsigned int extra,
                              const void *extra_data)
{
    trace(event | TRC_HD_CYCLE_FLAG, extra, extra_data);
}

/*
 * TRACE(event, d1, ..., dn): a record of up to TRACE_EXTRA_MAX 32-bit
 * values; TRACE_TIME() the same with a TSC.  The values are evaluated only
 * when tracing is on.
 */
#define TRACE(_e, ...)                                          \
    do {                                                        \
        if ( unlikely(tb_init_done) )                           \
        {                                                       \
            uint32_t d_[] = { __VA_ARGS__ };                    \
                                                                \
            BUILD_BUG_ON(ARRAY_SIZE(d_) > TRACE_EXTRA_MAX);     \
            trace(_e, sizeof(d_), sizeof(d_) ? d_ : NULL);      \
        }                                                       \
    } while ( 0 )

#define TRACE_TIME(_e, ...) TRACE((_e) | TRC_HD_CYCLE_FLAG, ## __VA_ARGS__)

#if TRACE_API_4_17

/*
 * Record @event with @extra bytes from @extra_data, and a TSC if @cycles,
 * by Xen 4.17's rule: @extra is rounded up to whole words, with zeroes, and
 * at most TRACE_EXTRA_MAX words are kept.
 */
#ifdef CONFIG_TRACEBUFFER
void __trace_var(uint32_t event, bool cycles, unsigned int extra,
                 const void *extra_data);
#else
static inline void __trace_var(uint32_t event, bool cycles, unsigned int extra,
                               const void *extra_data) {}
#endif

static inline void trace_var(uint32_t event, bool cycles, unsigned int extra,
                             const void *extra_data)
{
    if ( unlikely(tb_init_done) )
        __trace_var(event, cycles, extra, extra_data);
}

/* TRACE_nD(event, d1, ..., dn): TRACE_TIME() of n values. */
#define TRACE_0D(_e)                     TRACE_TIME(_e)
#define TRACE_1D(_e, d1)                 TRACE_TIME(_e, d1)
#define TRACE_2D(_e, d1, d2)             TRACE_TIME(_e, d1, d2)
#define TRACE_3D(_e, d1, d2, d3)         TRACE_TIME(_e, d1, d2, d3)
#define TRACE_4D(_e, d1, d2, d3, d4)     TRACE_TIME(_e, d1, d2, d3, d4)
#define TRACE_5D(_e, d1, d2, d3, d4, d5) TRACE_TIME(_e, d1, d2, d3, d4, d5)
#define TRACE_6D(_e, d1, d2, d3, d4, d5, d6) \
    TRACE_TIME(_e, d1, d2, d3, d4, d5, d6)

#endif /* TRACE_API_4_17 */

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
