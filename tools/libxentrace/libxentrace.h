/*
 * libxentrace: capture Xen's trace buffers from dom0.  Trace files are
 * libxtfile's (xtfile.h, xtread.h), which needs no Xen library.
 *
 * Capture uses only the Xen libraries' public APIs (libxenctrl,
 * libxenforeignmemory, libxenevtchn), so it works against a real Xen 4.17
 * and against xen-sim.  Everything in the shared pages is untrusted: a bad
 * index is reported and that CPU resynchronised, never asserted on.
 *
 * Functions return 0 (or a count) on success and -1 with errno on failure,
 * like the Xen libraries they sit on.
 */
#ifndef LIBXENTRACE_H
#define LIBXENTRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xt_host;                 /* the trace buffers of one Xen host */

struct xt_host *xt_open(void);
void xt_close(struct xt_host *h);

/* Possible CPUs (physinfo max_cpu_id + 1): CPU numbers are below this. */
unsigned int xt_max_cpus(const struct xt_host *h);

/*
 * The hypervisor's version, xc_version(XENVER_version): major << 16 |
 * minor, as the TRC_XT_XEN_VERSION metadata record carries it; 0 if Xen
 * does not say (errno set).
 */
uint32_t xt_xen_version(struct xt_host *h);

/*
 * The TSC's rate as Xen calibrated it (physinfo cpu_khz, which xl info
 * gives as cpu_mhz), in Hz; 0 if Xen does not say (errno set if the
 * sysctl failed).
 */
uint64_t xt_tsc_hz(struct xt_host *h);

/* XEN_SYSCTL_tbuf_op. */
int xt_get_evt_mask(struct xt_host *h, uint32_t *mask);
int xt_set_evt_mask(struct xt_host *h, uint32_t mask);
/* @bitmap: bit n of byte n / 8 is CPU n; @nr_bits may be any width. */
int xt_set_cpu_mask(struct xt_host *h, const uint8_t *bitmap,
                    unsigned int nr_bits);
/*
 * The domain filter (public/trace.h): @nr ranges of domain ids, each
 * first << 16 | last, in force together; NULL @ranges: off, every domain.
 * EINVAL from a Xen without the filter.
 */
int xt_set_dom_filter(struct xt_host *h, const uint32_t *ranges,
                      unsigned int nr);
/* Whether Xen has the filter; asking empties its staged list, no more. */
bool xt_has_dom_filter(struct xt_host *h);
/*
 * Switch @event (public/trace.h): XEN_TBUF_EVENT_ON, _OFF, or _MASKS,
 * back to the event mask.  EINVAL from a Xen without switches.
 */
int xt_switch_event(struct xt_host *h, uint32_t event, unsigned int state);
/* Pages per CPU; EBUSY if buffers of that size exist, EINVAL another. */
int xt_set_size(struct xt_host *h, unsigned int pages);
/*
 * Buffers of @pages pages per CPU in place of Xen's, tracing left off
 * (public/trace.h): EBUSY while tracing is on or a page of them is
 * mapped, EINVAL from a Xen that cannot.  Not while they are mapped here.
 */
int xt_resize(struct xt_host *h, unsigned int pages);
int xt_enable(struct xt_host *h);
int xt_disable(struct xt_host *h);

/*
 * Map t_info read-only and each CPU's buffer read-write.  CPUs that have
 * no buffer (mfn_offset 0) are skipped; ENODATA if there are no buffers.
 */
int xt_map_buffers(struct xt_host *h);
bool xt_cpu_mapped(const struct xt_host *h, unsigned int cpu);
uint32_t xt_data_size(const struct xt_host *h);     /* bytes per CPU */
unsigned int xt_buf_pages(const struct xt_host *h); /* t_info's tbuf_size */

/*
 * One CPU's unconsumed records, from cons to prod: one piece, or two when
 * the ring wraps.  The pieces point into the shared buffer; copy them out
 * before xt_release().
 */
struct xt_window {
    unsigned int cpu;
    const void *piece[2];
    uint32_t len[2];            /* bytes; len[1] is 0 unless it wraps */
    uint32_t cons;              /* where it starts, as found */
    uint32_t prod;              /* what xt_release() sets cons to */
};

/*
 * Take CPU @cpu's window: load prod, then (C) read barrier.  Returns its
 * length in bytes (0: nothing new), or -1 with errno EIO if cons or prod
 * is out of range or misaligned, which xt_resyncs() counts: with a good
 * prod the CPU is resynchronised (cons = prod, what it held dropped); a
 * bad prod is left for Xen, which writes its own with the next record.
 * Either way capture may go on.  EINVAL: no such CPU; ENODATA: no buffer.
 */
long xt_window(struct xt_host *h, unsigned int cpu, struct xt_window *w);

/* (D) full barrier, then cons = w->prod: the window's space is Xen's. */
void xt_release(struct xt_host *h, const struct xt_window *w);

/*
 * Throw away what CPU @cpu's buffer holds (cons = prod), as -D does.
 * -1 with errno EIO if prod is out of range or misaligned (cons is left
 * as it is; Xen writes its own prod with the next record), ENODATA if
 * the CPU has no buffer.
 */
int xt_discard(struct xt_host *h, unsigned int cpu);

unsigned long xt_resyncs(const struct xt_host *h, unsigned int cpu);

/*
 * Bind VIRQ_TBUF (EEXIST if another consumer has it: Xen allows one), and
 * wait for it for at most @timeout_ns nanoseconds (-1: for ever), as
 * precisely as the kernel's timers (ppoll(2)), with the signal mask
 * @sigmask in force while it waits (NULL: the caller's), as ppoll(2)'s: a
 * caller that blocks its exit signals, tests its flag, then waits with
 * them unblocked, sees a signal that came between the two at once.
 * Returns 1 if it fired, 0 on timeout, -1 with errno (EINTR when a signal
 * came).
 */
int xt_bind_virq(struct xt_host *h);
int xt_wait_ns(struct xt_host *h, int64_t timeout_ns,
               const sigset_t *sigmask);

#endif /* LIBXENTRACE_H */
