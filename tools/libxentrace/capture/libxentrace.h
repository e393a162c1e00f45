/*
 * libxentrace: capture Xen's trace buffers from dom0, and write trace files.
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* xentrace-ng's version: in every file's metadata, and xentrace -V. */
#define XT_VERSION_MAJOR   0
#define XT_VERSION_MINOR   1
#define XT_VERSION_PATCH   0
#define XT_VERSION         "0.1.0"

/*
 * Capture
 * =======
 */

struct xt_host;                 /* the trace buffers of one Xen host */

struct xt_host *xt_open(void);
void xt_close(struct xt_host *h);

/* Possible CPUs (physinfo max_cpu_id + 1): CPU numbers are below this. */
unsigned int xt_max_cpus(const struct xt_host *h);

/* XEN_SYSCTL_tbuf_op. */
int xt_get_evt_mask(struct xt_host *h, uint32_t *mask);
int xt_set_evt_mask(struct xt_host *h, uint32_t mask);
/* @bitmap: bit n of byte n / 8 is CPU n; @nr_bits may be any width. */
int xt_set_cpu_mask(struct xt_host *h, const uint8_t *bitmap,
                    unsigned int nr_bits);
/* Pages per CPU; EBUSY if buffers of that size exist, EINVAL another. */
int xt_set_size(struct xt_host *h, unsigned int pages);
int xt_enable(struct xt_host *h);
int xt_disable(struct xt_host *h);

/*
 * Map t_info read-only and each CPU's buffer read-write.  CPUs that have
 * no buffer (mfn_offset 0) are skipped; ENODATA if there are no buffers.
 */
int xt_map_buffers(struct xt_host *h);
bool xt_cpu_mapped(const struct xt_host *h, unsigned int cpu);
uint32_t xt_data_size(const struct xt_host *h);     /* bytes per CPU */

/*
 * One CPU's unconsumed records, from cons to prod: one piece, or two when
 * the ring wraps.  The pieces point into the shared buffer; copy them out
 * before xt_release().
 */
struct xt_window {
    unsigned int cpu;
    const void *piece[2];
    uint32_t len[2];            /* bytes; len[1] is 0 unless it wraps */
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

/* Throw away what CPU @cpu's buffer holds (cons = prod), as -D does. */
void xt_discard(struct xt_host *h, unsigned int cpu);

unsigned long xt_resyncs(const struct xt_host *h, unsigned int cpu);

/*
 * Bind VIRQ_TBUF (EEXIST if another consumer has it: Xen allows one), and
 * wait for it for at most @timeout_ms (-1: for ever).  Returns 1 if it
 * fired, 0 on timeout, -1 with errno (EINTR when a signal came).
 */
int xt_bind_virq(struct xt_host *h);
int xt_wait(struct xt_host *h, int timeout_ms);

/*
 * Trace files
 * ===========
 *
 * A trace file is a stream of t_rec records, readable by any tool that
 * reads xentrace's files (docs/trace-format.md).  The writer adds records
 * per CPU and writes them as batches: each starts at a 4 KiB file offset
 * with a TRC_TRACE_CPU_CHANGE {cpu, bytes} record and ends padded to the
 * next 4 KiB boundary with TRC_TRACE_WRAP_BUFFER records, which readers
 * ignore, so that whole pages go out in one write(2) (and O_DIRECT
 * works).  A flush writes every CPU that has records, in ascending order.
 * The first batch starts with metadata records (below).
 */

/* Metadata, as TRC_GEN (0x0001f000) events at the start of the file. */
#define TRC_XT_FORMAT      0x0001f010   /* {format version} */
#define TRC_XT_TOOL        0x0001f011   /* {major, minor, patch} */
#define TRC_XT_TSC_HZ      0x0001f012   /* {hz lo, hz hi} */
#define TRC_XT_CPUS        0x0001f013   /* {possible CPUs} */
#define TRC_XT_START       0x0001f014   /* {tsc lo, tsc hi, s lo, s hi, ns} */
#define XT_FORMAT_VERSION  1

struct xt_metadata {
    uint64_t tsc_hz;            /* 0: unknown */
    uint32_t nr_cpus;
    uint64_t start_tsc;         /* TSC at start_time */
    int64_t start_sec;          /* wall clock (CLOCK_REALTIME) at start */
    uint32_t start_nsec;
};

struct xt_writer;

struct xt_writer_opts {
    /*
     * A CPU's records are held until it has at least this many bytes (or
     * a flush), so that padding stays small; 0 means 256 KiB.
     */
    size_t batch_bytes;
    /*
     * Flight recorder (-M): keep the newest @ring_bytes of batches in
     * memory, and no more than the fewest newest flushes that hold that
     * much (what is kept starts at an epoch boundary), and write them out
     * at xt_writer_close().  0: write as we go.
     */
    size_t ring_bytes;
    /* The fd is O_DIRECT: writes are from page-aligned memory. */
    bool direct;
    /*
     * -r: refuse (ENOSPC) a write that would leave less than this many
     * bytes free on the file's file system.  0: no check.
     */
    uint64_t reserve_bytes;
};

/* A writer to @fd, with its metadata; NULL opts means the defaults. */
struct xt_writer *xt_writer_open(int fd, const struct xt_metadata *meta,
                                 const struct xt_writer_opts *opts);

/* Hold @len bytes of whole records of CPU @cpu. */
int xt_writer_add(struct xt_writer *w, unsigned int cpu, const void *data,
                  size_t len);

/* Whether some CPU holds batch_bytes or more: time to flush. */
bool xt_writer_full(const struct xt_writer *w);

/*
 * Write everything held, one batch per CPU in ascending order (with -M:
 * into the ring).  On error (ENOSPC, a short write...), the file is cut
 * back to the end of the last complete batch: it stays a valid trace file.
 */
int xt_writer_flush(struct xt_writer *w);

/*
 * Batches without a copy.  A caller that stages records itself can lay
 * them out as a batch and have it written from there: page-aligned
 * memory of xt_batch_size(records) bytes, the records XT_BATCH_HEAD
 * bytes in.  xt_writer_put() fills in the header before them and the
 * pads after them, and writes the batch with one write(2) (with
 * ring_bytes it copies the records in as xt_writer_add() does, flushing
 * when some CPU is full).  Records held by xt_writer_add() are flushed
 * first, and the metadata goes out before the first batch, in a batch
 * of its own.  On error, as xt_writer_flush().
 */
#define XT_BATCH_HEAD      12u          /* the TRC_TRACE_CPU_CHANGE record */
size_t xt_batch_size(size_t records);
int xt_writer_put(struct xt_writer *w, unsigned int cpu, void *batch,
                  size_t records);

/* Flush, and free the writer (the fd stays open). */
int xt_writer_close(struct xt_writer *w);

/* Bytes written so far, of which padding. */
uint64_t xt_writer_bytes(const struct xt_writer *w);
uint64_t xt_writer_padding(const struct xt_writer *w);

#endif /* LIBXENTRACE_H */
