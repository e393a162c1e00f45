/*
 * libxtfile: the trace file (docs/trace-format.md).  The one home of what
 * a trace file's records mean beyond Xen's ABI, and the writer; the
 * reader is xtread.h.  Needs no Xen library, only zlib (for the reader).
 *
 * A trace file is a flat stream of t_rec records, readable by any tool
 * that reads xentrace's files, cut into batches: each starts at a 4 KiB
 * file offset with a TRC_TRACE_CPU_CHANGE {cpu, bytes} record and holds
 * one CPU's records as Xen wrote them; "bytes" counts everything after
 * the CPU-change record up to the next batch.  The writer pads each batch
 * to the next 4 KiB boundary with TRC_TRACE_WRAP_BUFFER records, which
 * readers skip.  The file's first batch, 4 KiB, is CPU 0's and holds the
 * metadata records (TRC_XT_*) alone; xentrace ends every CPU's stream
 * with TRC_XT_END.
 *
 * The record header comes from Xen's public ABI, xen/include/public/
 * trace.h, the same as Debian's <xen/trace.h> (either may come first:
 * they share the include guard); every event number, the record layouts
 * and the runstate encoding from trace-events.h, generated from the event
 * catalogue, which includes it.  Both are included by quoted names, so
 * that a program's <xen/trace.h> stays whichever it means: build with
 * -iquote xen/include -I tools/trace-events (installed: the pkg-config
 * file says where).
 *
 * Functions return 0 (or a count) on success and -1 with errno on failure.
 */
#ifndef XTFILE_H
#define XTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-events.h"

/* xentrace-ng's version: in every file's metadata, and xentrace -V. */
#define XT_VERSION_MAJOR   0
#define XT_VERSION_MINOR   1
#define XT_VERSION_PATCH   0
#define XT_VERSION         "0.1.0"

/*
 * Records
 * =======
 */

#define XT_PAGE            4096u        /* batches start at multiples */
#define XT_BATCH_HEAD      12u          /* the TRC_TRACE_CPU_CHANGE record */
#define XT_PAD_MAX_BYTES   32u          /* a pad: header, up to 7 words */

/* Words of the record whose header is @hdr: 1 to 10. */
static inline unsigned int xt_record_words(uint32_t hdr)
{
    return 1 + (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 2 : 0) + TRC_HD_EXTRA(hdr);
}

/*
 * CPU numbers are below this: Xen's NR_CPUS is at most 16383 (the range
 * of its Kconfig option in 4.20 and 4.22).  A reader takes a batch of a
 * higher CPU for damage, and skips and counts it.
 */
#define XT_CPUS_MAX        16383u

/* The idle domain's id (DOMID_IDLE, public/xen.h): its vCPUs idle. */
#define XT_DOMID_IDLE      0x7fffu

/*
 * A domain id Xen never writes (above DOMID_IDLE): xentrace names it in a
 * gap's lost-records marker when the vCPU running at the gap's end is not
 * known.  It is xenalyze's "default domain", its pCPUs' vCPU before any
 * is known, so that xenalyze takes the pCPU's vCPU as unknown after the
 * gap, as at the start of a trace, instead of as idle (which it then
 * finds running records it refuses).
 */
#define XT_DOMID_UNKNOWN   0x8000u

/*
 * Metadata
 * ========
 *
 * TRC_GEN (0x0001f000) events without a TSC, alone in the file's first
 * batch, and TRC_XT_END at the end; their numbers and payloads are the
 * catalogue's (TRC_XT_*).  "records", wherever xentrace-ng counts them,
 * excludes these.  TRC_XT_XEN_VERSION's {major << 16 | minor} is 0 when
 * unknown.
 *
 * TRC_XT_END: the end of the capture, the last record of every CPU's
 * stream: no payload, and the TSC of the newest record of any CPU.  It keeps a
 * CPU's stream open until every CPU's is done: xenalyze 4.17 takes a
 * CPU whose stream ended early, seen again in the batch after another
 * CPU's, for a CPU coming online, and reads its last batch twice.  It is
 * the one metadata record outside the first batch, and has a TSC.
 *
 * TRC_XT_SKIPPED: bytes of a CPU's buffer that xentrace did not write,
 * because they are not records Xen wrote (another dom0 process wrote over the shared
 * pages): where they were in that CPU's stream, with the TSC of the CPU's
 * last record before, if any.  {bytes, why: XT_SKIP_*}.  Not counted
 * among the records, nor as lost: what was there is not known.
 */
#define XT_SKIP_CONS       1    /* cons moved back: taken already */
#define XT_SKIP_TILE       2    /* a record runs past the window or wrap */
#define XT_SKIP_EVENT      3    /* an event Xen does not write */
#define XT_SKIP_TSC        4    /* a TSC older than the CPU's last */
#define XT_FORMAT_VERSION  1
#define XT_META_WORDS      19u          /* the six records of the first batch */

/* Whether @event is one of the metadata events (TRC_XT_*). */
static inline bool xt_is_metadata(uint32_t event)
{
    return (event & ~0xfu) == (TRC_XT_FORMAT & ~0xfu);
}

/*
 * Domains
 * =======
 *
 * Which guest a domain id was: its name and UUID as xenstore has them
 * (/local/domain/N/name, and the UUID that ends /local/domain/N/vm), so
 * that "d14" still means something a week later.  A domain is told by
 * TRC_XT_DOMAIN {domid, the UUID as four words (word i holds bytes 4i to
 * 4i + 3, the first in its top byte: "%08x" of each in turn is the UUID's
 * text), name_bytes}, then ceil(name_bytes / 20) TRC_XT_DOMAIN_NAME
 * {domid, offset, 20 bytes of the name from offset, as they lie in memory}.
 * Those of the domains xenstore lists when the capture starts are
 * metadata of the first batch, without TSCs; a domain that appears or is
 * renamed later is told again in a CPU's stream, with that CPU's newest
 * TSC before xentrace saw the change (so no later than it).  A name is at
 * most XT_DOMAIN_NAME_MAX bytes (a longer one is cut there); an all-zero
 * UUID is dom0's, or unknown.
 */
#define XT_DOMAIN_NAME_MAX   64u
#define XT_DOMAIN_PIECE      20u        /* name bytes a TRC_XT_DOMAIN_NAME */
/* Words of one domain's records, TSCs included: the most xt_domain_put()
   writes. */
#define XT_DOMAIN_WORDS_MAX \
    (9u + 10u * ((XT_DOMAIN_NAME_MAX + XT_DOMAIN_PIECE - 1) / XT_DOMAIN_PIECE))

struct xt_domain {
    uint32_t domid;
    uint8_t uuid[16];
    char name[XT_DOMAIN_NAME_MAX + 1];  /* NUL-terminated; "" if none */
};

/*
 * Write @d's records at @words, with @tsc unless it is NULL (the first
 * batch's); returns the words written, at most XT_DOMAIN_WORDS_MAX.
 */
size_t xt_domain_put(const struct xt_domain *d, const uint64_t *tsc,
                     uint32_t *words);

/* @uuid as text, 8-4-4-4-12 hexadecimal digits, in @buf; returns @buf. */
#define XT_UUID_TEXT 37
const char *xt_uuid_text(const uint8_t uuid[16], char buf[XT_UUID_TEXT]);

/*
 * Masks
 * =====
 *
 * Which records could be in the file when: the event mask and the CPU
 * mask in force, so that a drop in the rate is never taken for idleness.
 * TRC_XT_MASKS {evt_mask, first_cpu, five words of CPU bits}: bit b of
 * word w is CPU first_cpu + 32 w + b; a mask is told by one record for
 * each 160 CPUs, first_cpu 0, 160, ... below the metadata's CPUs, all
 * with the same evt_mask.  Those in force at the start are metadata of
 * the first batch, without TSCs; a change during the capture
 * (xentrace-ctl) is told in a CPU's stream as a domain is (see Domains).
 */
#define XT_MASK_CPUS        160u        /* CPUs a TRC_XT_MASKS record */

/*
 * The domain filter in force (xentrace -d) is told with the masks: after
 * their TRC_XT_MASKS records, with their TSC, TRC_XT_DOM_FILTER {ranges,
 * first, in_dom0, four ranges}: ranges is how many ranges of domain ids
 * the filter has, a word each, first_id << 16 | last_id, ascending; a
 * record holds ranges first to first + 3, in records first 0, 4, ...;
 * in_dom0 is 1 if xentrace filtered (Xen had no filter), 0 if Xen did.
 * Without them, every domain was traced.
 */
#define XT_DOM_IDS            0x8000u   /* ids 0 to DOMID_IDLE */
#define XT_DOM_RANGES_MAX     64u       /* ranges a filter has at most */
#define XT_DOM_RANGES_RECORD  4u        /*   and a record holds */
struct xt_dom_filter {
    unsigned int nr;                    /* ranges; 0: every domain */
    bool in_dom0;
    uint32_t range[XT_DOM_RANGES_MAX];  /* first << 16 | last */
};

/*
 * The per-event switches in force (xentrace --event), after the domain
 * filter's records: TRC_XT_EVENT_SWITCHES {switches, first, five
 * switches}: how many events are switched (at most 64), the index of
 * switch0 among them, and each switch, the event's 28 bits with bit 31
 * set if it is switched on (traced whatever the event mask says), clear
 * if off (never traced); one record per five, first 0, 5, ...  Without
 * them no event was switched.
 */
#define XT_EVENT_SWITCHES_MAX     64u
#define XT_EVENT_SWITCHES_RECORD  5u
#define XT_EVENT_ON               0x80000000u
struct xt_event_switches {
    unsigned int nr;
    uint32_t sw[XT_EVENT_SWITCHES_MAX];
};

/* @doms as "0,3-5", "all" if none or NULL, cut with ",..."; @buf. */
const char *xt_dom_filter_text(const struct xt_dom_filter *doms, char *buf,
                               size_t size);

/*
 * @s as "+TRC_HVM_VMEXIT64,-0x0002800a": on +, off -, by the catalogue's
 * name if it has one; "none" if none or NULL, cut with ",..."; @buf.
 */
const char *xt_event_switches_text(const struct xt_event_switches *s,
                                   char *buf, size_t size);

#define XT_MASKS_WORDS_MAX \
    (10u * ((XT_CPUS_MAX + XT_MASK_CPUS) / XT_MASK_CPUS + \
            XT_DOM_RANGES_MAX / XT_DOM_RANGES_RECORD + \
            XT_EVENT_SWITCHES_MAX / XT_EVENT_SWITCHES_RECORD + 1))

/* What is told with the masks: each NULL or empty if there is none. */
struct xt_masks_more {
    const struct xt_dom_filter *doms;
    const struct xt_event_switches *switches;
};

/*
 * Write the records of event mask @evt_mask, CPU mask @cpus (a bitmap
 * of @nr_cpus bits: bit n of byte n / 8 is CPU n), the domain filter and
 * the switches of @more (NULL: neither) at @words, with @tsc unless it is
 * NULL; returns the words written, at most XT_MASKS_WORDS_MAX.
 */
size_t xt_masks_put(uint32_t evt_mask, const uint8_t *cpus,
                    unsigned int nr_cpus, const struct xt_masks_more *more,
                    const uint64_t *tsc, uint32_t *words);

struct xt_metadata {
    uint64_t tsc_hz;            /* 0: unknown */
    uint32_t nr_cpus;
    uint64_t start_tsc;         /* TSC at start_time */
    int64_t start_sec;          /* wall clock (CLOCK_REALTIME) at start */
    uint32_t start_nsec;
    uint32_t xen_version;       /* xc_version(XENVER_version): major << 16
                                   | minor; 0: unknown */
};

/*
 * Dom0's kernel events
 * ====================
 *
 * xentrace --dom0 records events of dom0's own Linux (its ftrace, through
 * libtracefs) beside Xen's, on Xen's TSC; xentrace-join adds those of a
 * trace-cmd trace.dat recorded on ftrace's x86-tsc clock to a capture of
 * Xen's.  They are not Xen's records:
 * each dom0 CPU's go in a stream of their own, a *lane*, whose CPU number
 * is first_lane + the dom0 CPU, first_lane being the metadata's nr_cpus
 * (so a lane's batch comes after every pCPU's in an epoch).  Upstream's
 * readers take a lane for a pCPU that runs nothing and skip its records
 * as unknown TRC_GEN events.
 *
 * TRC_XT_DOM0 {what, ...}, without a TSC, says what the lanes hold:
 *   XT_DOM0_LANES  {what, first_lane, lanes, clock}: in the first batch;
 *                  clock is XT_DOM0_CLOCK_* (how the TSCs were had);
 *   XT_DOM0_NAME   {what, type << 8 | field, offset, 16 bytes}: a piece
 *                  of the name of generic event @type ("sched:sched_wakeup",
 *                  field XT_DOM0_EVENT_FIELD) or of its field @field
 *                  (0-5), from @offset; in the first batch;
 *   XT_DOM0_PAIR   {what, tsc lo, tsc hi, ns lo, ns hi}: the TSC and
 *                  CLOCK_MONOTONIC read together, dom0's two clocks: in the
 *                  first batch at the start, in lane first_lane's stream
 *                  each second and at the end.  The readers fit TSC against
 *                  them, and state its rate and how far the pairs stray.
 *                  A trace.dat has none (XT_DOM0_CLOCK_TRACE_DAT).
 * TRC_XT_DOM0_EVENT, with the event's TSC, in its CPU's lane:
 * {kind << 24 | arg, ...}, kind XT_DOM0_*:
 *   SWITCH         arg prev_state; prev_pid, next_pid, next_comm (16 bytes)
 *   WAKING         arg target_cpu; pid, comm (16 bytes): sched_waking
 *   IRQ_ENTRY      irq, name (20 bytes, cut)
 *   IRQ_EXIT       arg ret; irq
 *   SOFTIRQ_ENTRY  arg vec
 *   SOFTIRQ_EXIT   arg vec
 *   EVENT          arg type; its first numeric fields, 32 bits of each
 *   LOST           count lo, count hi: events ftrace lost on this CPU
 *                  just before this point (its buffer overran)
 * Text is as it lies in memory, zero-filled.  The dom0 events are not
 * "records" where xentrace-ng counts those: they are counted on their own.
 */
#define XT_DOM0_LANES        1u
#define XT_DOM0_NAME         2u
#define XT_DOM0_PAIR         3u

#define XT_DOM0_CLOCK_TSC    1u         /* ftrace's x86-tsc: the TSC */
#define XT_DOM0_CLOCK_MONO   2u         /* ftrace's mono, put on the TSC
                                           by xentrace through the pairs */
#define XT_DOM0_CLOCK_TRACE_DAT 3u      /* x86-tsc, from a trace.dat by
                                           xentrace-join: no pairs */

/*
 * A clock's short name, "x86-tsc", "mono" or "trace.dat", and how the
 * readers state it ("x86-tsc", "mono, put on the TSC" ...); "unknown" for
 * a value no xentrace writes.
 */
const char *xt_dom0_clock_name(uint32_t clock);
const char *xt_dom0_clock_text(uint32_t clock);

#define XT_DOM0_SWITCH       1u
#define XT_DOM0_WAKING       2u
#define XT_DOM0_IRQ_ENTRY    3u
#define XT_DOM0_IRQ_EXIT     4u
#define XT_DOM0_SOFTIRQ_ENTRY 5u
#define XT_DOM0_SOFTIRQ_EXIT 6u
#define XT_DOM0_EVENT        7u
#define XT_DOM0_LOST         8u
#define XT_DOM0_KINDS        9u

#define XT_DOM0_TYPES        64u        /* generic event types at most */
#define XT_DOM0_FIELDS       6u         /* values a generic event keeps */
#define XT_DOM0_EVENT_FIELD  0xffu      /* XT_DOM0_NAME of the event */
#define XT_DOM0_NAME_MAX     63u        /* bytes of a name, cut there */
#define XT_DOM0_NAME_PIECE   16u
#define XT_DOM0_COMM         16u        /* Linux's TASK_COMM_LEN */
#define XT_DOM0_IRQ_NAME     20u

/* A generic event type: its name and its fields' (NULL or "": none). */
struct xt_dom0_type {
    char name[XT_DOM0_NAME_MAX + 1];
    char field[XT_DOM0_FIELDS][XT_DOM0_NAME_MAX + 1];
};

/* What the first batch says of the lanes; lanes 0: there are none. */
struct xt_dom0_meta {
    uint32_t first_lane, lanes, clock;
    uint64_t pair_tsc, pair_ns;         /* the start's pair; TSC 0: none */
    unsigned int nr_types;
    const struct xt_dom0_type *types;
};

/* Words of the first batch's dom0 records: the most xt_dom0_meta_put(). */
#define XT_DOM0_META_WORDS_MAX \
    (2u * 8u + XT_DOM0_TYPES * (XT_DOM0_FIELDS + 1) * 8u * \
               ((XT_DOM0_NAME_MAX + XT_DOM0_NAME_PIECE) / XT_DOM0_NAME_PIECE))

/* Write @m's records, without TSCs, at @words; returns the words. */
size_t xt_dom0_meta_put(const struct xt_dom0_meta *m, uint32_t *words);

/* A pair's record, without a TSC, at @words: 6 words. */
#define XT_DOM0_PAIR_WORDS   6u
size_t xt_dom0_pair_put(uint64_t tsc, uint64_t ns, uint32_t *words);

/* One dom0 event, as TRC_XT_DOM0_EVENT holds it. */
struct xt_dom0_event {
    uint32_t kind;              /* XT_DOM0_* */
    uint32_t arg;               /* the 24 bits beside the kind */
    unsigned int nr;            /* words in v[] */
    uint32_t v[6];
    char text[XT_DOM0_IRQ_NAME + 1];    /* comm or IRQ name; "" if none */
};

/*
 * Write @e's record, with @tsc, at @words; returns the words, at most
 * XT_DOM0_EVENT_WORDS.  @e's text goes where its kind has text.
 */
#define XT_DOM0_EVENT_WORDS  10u
size_t xt_dom0_event_put(const struct xt_dom0_event *e, uint64_t tsc,
                         uint32_t *words);

/*
 * Read the payload of a TRC_XT_DOM0_EVENT record, @n words at @extra,
 * into @e; -1 if it is not one xentrace writes (an unknown kind, or too
 * few words for its kind).
 */
int xt_dom0_event_get(const uint32_t *extra, unsigned int n,
                      struct xt_dom0_event *e);

/* "sched_switch", "irq_handler_entry", ... for a kind; "?" if none. */
const char *xt_dom0_kind_name(uint32_t kind);

/*
 * @e as text, as ftrace prints the event: "sched_switch prev_pid=7
 * prev_state=S ==> next_comm=swapper/0 next_pid=0", a generic one by its
 * @type's names (NULL: "event type=3 ?=...").  Into @buf of @size bytes,
 * as snprintf(3) does: returns the length it needed.
 */
size_t xt_dom0_text(const struct xt_dom0_event *e,
                    const struct xt_dom0_type *type, char *buf, size_t size);

/*
 * The writer
 * ==========
 *
 * It takes batches laid out by the caller, in page-aligned memory of
 * xt_batch_size(records) bytes with the records XT_BATCH_HEAD bytes in,
 * fills in the header before them and the pads after them, and writes
 * each with one write(2), or several with one writev(2): no copy, and
 * O_DIRECT works.  The order of the
 * batches is the caller's: xenalyze wants epochs, one batch per CPU with
 * records in ascending CPU order, each covering the same stretch of time
 * (docs/trace-format.md, "Compatibility").
 *
 * The first error (a failed write, ENOSPC from the reserve check) fails
 * the writer for good: a regular file is cut back to the end of its last
 * complete batch, and every later call returns that first error.  It stays
 * a valid trace file.  A writer is thread-compatible.
 */

struct xt_writer;

struct xt_writer_opts {
    /*
     * -r: refuse (ENOSPC) a write that would leave less than this many
     * bytes free on the file's file system.  0: no check.
     */
    uint64_t reserve_bytes;
    /* The domains of the first batch (see Domains), @nr_domains of them. */
    const struct xt_domain *domains;
    unsigned int nr_domains;
    /* The masks in force at the start (see Masks): no records if NULL. */
    const uint8_t *cpu_mask;    /* a bitmap of the metadata's nr_cpus */
    uint32_t evt_mask;
    const struct xt_masks_more *more;           /* NULL: none */
    /* dom0's lanes (see Dom0's kernel events): NULL if none. */
    const struct xt_dom0_meta *dom0;
    /*
     * xentrace-join: the records of another file's first batch, its
     * metadata, masks and domains, written in place of those made from
     * the above (@meta is still the file's), before dom0's.  NULL: none.
     */
    const uint32_t *first_batch;
    size_t first_batch_words;
};

/*
 * A writer to @fd (at a multiple of 4 KiB if a regular file) that writes
 * the metadata batch at once, as many pages as its domains need; NULL
 * opts means the defaults.
 */
struct xt_writer *xt_writer_open(int fd, const struct xt_metadata *meta,
                                 const struct xt_writer_opts *opts);

/* Bytes of memory a batch of @records bytes of records is laid out in. */
size_t xt_batch_size(size_t records);

/*
 * Write CPU @cpu's (below the metadata's nr_cpus, or a dom0 lane)
 * @records bytes of whole records at @batch +
 * XT_BATCH_HEAD as one batch; @batch is page-aligned, of
 * xt_batch_size(@records) bytes, and the writer fills in the rest.
 */
int xt_writer_put(struct xt_writer *w, unsigned int cpu, void *batch,
                  size_t records);

/* One batch of several for xt_writer_putv(), as xt_writer_put() takes it. */
struct xt_out_batch {
    unsigned int cpu;
    void *buf;
    size_t records;
};

/*
 * Write @n batches (1 to XT_PUTV_MAX), in order, with one writev(2) (more
 * only if the system writes less at a time): fewer calls, larger writes.
 * On an error the file is cut back to the end of the last batch written
 * whole, which may be one of these; with -r's reserve, the batches that
 * fit before it are written, then ENOSPC.
 */
#define XT_PUTV_MAX        64u
int xt_writer_putv(struct xt_writer *w, const struct xt_out_batch *batches,
                   unsigned int n);

/* Free the writer (the fd stays open); -1 if it had failed. */
int xt_writer_close(struct xt_writer *w);

/* Bytes written so far, the metadata batch's included; of which padding. */
uint64_t xt_writer_bytes(const struct xt_writer *w);
uint64_t xt_writer_padding(const struct xt_writer *w);

#endif /* XTFILE_H */
