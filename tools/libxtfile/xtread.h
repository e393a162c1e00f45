/*
 * libxtfile, the reader: read trace files as xentrace writes them, ours and
 * upstream's (docs/trace-format.md).
 *
 * A trace file is a flat stream of t_rec records in batches: each batch is
 * a TRC_TRACE_CPU_CHANGE {cpu, bytes} record and the @bytes of one CPU's
 * records that follow it.  Nothing in the input is trusted; any bytes are
 * safe.
 *
 * Two ways of reading, chosen by xt_reader_open*():
 *
 *   indexed   a regular file (mapped) or memory (xt_reader_open_mem()):
 *             walked and checked once at open, every batch indexed (40
 *             bytes a batch, 200 a CPU, CPUs below XT_CPUS_MAX).
 *             Everything in xt_reader_info() is known at open; every
 *             order, any number of iterators.
 *   streamed  a pipe, a terminal, gzip, XT_READ_FOLLOW or XT_READ_STREAM:
 *             read once, front to back, through a buffer of 1 MiB (and
 *             64 KiB for gzip).  Memory stays within that, 200 bytes per
 *             CPU, and for XT_ORDER_TSC the reorder window twice (what
 *             waits, and used room kept to copy the next batches into):
 *             it does not grow with the input.  One iterator, once;
 *             XT_ORDER_CPU needs an indexed reader (ESPIPE).  A seekable
 *             gzip file is read twice, to count and to hand out, so its
 *             xt_reader_info() is whole at open; otherwise info->streamed
 *             is set and the counts are whole only at the end.
 *
 * The first word is checked at open: input that does not start with a
 * CPU-change record is refused before more than 64 KiB is read.
 *
 * Records come through iterators, in three orders:
 *   XT_ORDER_FILE  the order of the file (batch after batch);
 *   XT_ORDER_CPU   one CPU's records, its batches in file order (indexed);
 *   XT_ORDER_TSC   every CPU merged by TSC.  Indexed: a k-way merge of
 *                  the whole file.  Streamed: the records of the last
 *                  XT_MERGE_WINDOW bytes are merged; a batch whose records
 *                  are older than what has already gone out (it came
 *                  later than the window) is merged anyway, out of order,
 *                  and counted in info->late_batches for a warning.
 * A record without a TSC has the TSC of the last record of its CPU that
 * had one (0 before the first), as xenalyze does.  In file and CPU order
 * an iterator can also hand out whole batches, for readers that take
 * every record where it lies (xt_iter_batch()).
 *
 * Damage.  Inside a batch, records must fill its byte count exactly, be
 * of an event class Xen writes, and carry TSCs that do not go backwards.
 * Where one does not, or where a batch should start and none does, the
 * reader keeps the good records before it, skips to the next plausible
 * CPU-change record, and counts what it skipped (xt_reader_info()); an
 * input that ends inside a batch is truncated.  xt_reader_damage() says it
 * in one line, xt_reader_status() is the readers' exit status.
 *
 * Functions that can fail return NULL or -1 with errno set, like the rest
 * of libxtfile.  Everything a reader returns stays valid until
 * xt_reader_close().
 */
#ifndef XTREAD_H
#define XTREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xtevents.h"           /* the event catalogue */
#include "xtfile.h"             /* the records, struct xt_metadata */

/*
 * Opening
 * =======
 */

struct xt_reader;

/* Flags for xt_reader_open*(). */
#define XT_READ_NO_GZIP      (1u << 0)  /* take gzip input as it is */
#define XT_READ_STREAM       (1u << 1)  /* stream even a file or memory */
#define XT_READ_FOLLOW       (1u << 2)  /* streamed; at the end of the
                                           input, wait for more (tail -f),
                                           until xentrace's end records
                                           (TRC_XT_END) have come: a file
                                           without them never ends */

/* Streamed XT_ORDER_TSC keeps this many bytes of records to merge. */
#define XT_MERGE_WINDOW      (32u << 20)

/* The exit status of a reader whose input was read, but damaged. */
#define XT_EXIT_DAMAGED      2

/*
 * Open @path ("-" or NULL: standard input).  Fails with errno:
 *   ENOENT, EACCES...  from open(2)/read(2);
 *   ENODATA  the input is empty: "no records";
 *   EILSEQ   the input does not start with a CPU-change record: not a
 *            trace file;
 *   EBADMSG  it does, in the other byte order (a file from a host of the
 *            other endianness: not supported);
 *   EFBIG    a regular file too big to map;
 *   ENOMEM, or EIO for a gzip stream broken before its first record.
 */
struct xt_reader *xt_reader_open(const char *path, unsigned int flags);

/*
 * The same on an open fd (not closed by the reader; a seekable gzip file
 * is read from offset 0, twice).
 */
struct xt_reader *xt_reader_open_fd(int fd, unsigned int flags);

/*
 * The same on @len bytes at @data, which are not copied: they must stay
 * valid and unchanged until xt_reader_close().  Indexed, unless gzip or
 * XT_READ_STREAM.  For tests and fuzzing.
 */
struct xt_reader *xt_reader_open_mem(const void *data, size_t len,
                                     unsigned int flags);

void xt_reader_close(struct xt_reader *r);

/*
 * End an XT_READ_FOLLOW input where it is now, as a pipe ends: what has
 * been written is read, then the end.  Safe in a signal handler.
 */
void xt_reader_stop_following(struct xt_reader *r);

/*
 * strerror() for the reader's errors: "not a trace file" for EILSEQ,
 * "trace file of the other byte order" for EBADMSG, "no records" for
 * ENODATA, "needs a seekable input..." for ESPIPE.
 */
const char *xt_reader_strerror(int err);

/*
 * What the file holds
 * ===================
 */

/* Whether the input was damaged, and the first damage's kind. */
enum xt_damage {
    XT_DAMAGE_NONE = 0,
    XT_DAMAGE_TRUNCATED,        /* it ends inside a batch */
    XT_DAMAGE_CORRUPT,          /* bytes were skipped */
};

/* Why bytes were skipped, or a read stopped. */
enum xt_bad {
    XT_BAD_NONE = 0,
    XT_BAD_NO_BATCH,            /* no CPU-change record where a batch starts */
    XT_BAD_FILL,                /* records do not fill the batch's bytes */
    XT_BAD_CLASS,               /* an event class no Xen writes */
    XT_BAD_TSC,                 /* a TSC going backwards within a batch */
    XT_BAD_GZIP,                /* the gzip stream breaks */
    XT_BAD_READ,                /* read(2) failed */
    XT_BAD_CPU,                 /* a batch of CPU XT_CPUS_MAX or above */
};

/* "an event class no Xen writes"... */
const char *xt_bad_text(enum xt_bad why);

struct xt_reader_info {
    uint64_t size;              /* bytes of input (after gzip); streamed: 0 */
    uint64_t end;               /* bytes read: the end of the last good
                                   record or CPU-change record */
    bool streamed;              /* counts are whole only once every record
                                   is read (a pipe, XT_READ_FOLLOW) */
    enum xt_damage damage;      /* the first damage's kind, */
    uint64_t damage_offset;     /* where it is (the first bad byte), */
    enum xt_bad damage_why;     /* and why, if XT_DAMAGE_CORRUPT */
    uint64_t skips;             /* places where bytes were skipped */
    uint64_t skipped;           /* bytes skipped in all */
    bool truncated;             /* the input ends inside a batch: */
    uint64_t truncated_at;      /* the end of its last good record */
    uint64_t missing;           /* bytes the cut batch lacks (0: unknown) */
    enum xt_bad truncated_why;  /* XT_BAD_NONE: the input just ends */
    uint64_t late_batches;      /* streamed XT_ORDER_TSC: batches merged
                                   out of order, the first at: */
    uint64_t late_offset;
    bool gzip;                  /* the input was gzip */

    /* Metadata records (TRC_XT_*) of the first batch, xentrace-ng's. */
    bool has_meta;              /* at least TRC_XT_FORMAT was found */
    uint32_t format_version;    /* 0: none */
    uint32_t tool_version[3];   /* major, minor, patch; 0s: unknown */
    bool has_tsc_hz, has_nr_cpus;
    bool has_start;             /* TRC_XT_START with a TSC that is not 0 */
    struct xt_metadata meta;    /* fields 0 where not present; xen_version
                                   from TRC_XT_XEN_VERSION */

    /* Totals over all CPUs, of the good records. */
    uint64_t batches;           /* CPU-change records */
    uint64_t records;           /* Xen's records, lost-records markers
                                   included: not CPU-change, pads or
                                   metadata (TRC_XT_*) */
    uint64_t pads;              /* TRC_TRACE_WRAP_BUFFER records */
    uint64_t lost_markers;      /* TRC_LOST_RECORDS records */
    uint64_t lost_records;      /* the sum of their counts */
    uint64_t metadata;          /* xentrace-ng's TRC_XT_* records, but: */
    uint64_t dom0_events;       /* dom0's kernel events (TRC_XT_DOM0_EVENT
                                   records, but XT_DOM0_LOST's), */
    uint64_t dom0_lost_markers; /* the XT_DOM0_LOST ones, */
    uint64_t dom0_lost;         /* and the sum of their counts */
    unsigned int nr_cpus;       /* CPUs with at least one batch, dom0's
                                   lanes included */
    unsigned int max_cpu;       /* the highest CPU number seen (0 if none) */
};

const struct xt_reader_info *xt_reader_info(const struct xt_reader *r);

/*
 * The domains the file names (xtfile.h, "Domains"), as far as the reader
 * has read: all of a seekable file's once it is open, a stream's as it
 * is read.  Upstream's files name none.
 */
struct xt_domain_info {
    struct xt_domain domain;    /* its UUID and name as last told, the name
                                   xt_text_printable() */
    char first_name[XT_DOMAIN_NAME_MAX + 1];    /* the first told */
    uint32_t renames;           /* times the name changed since */
    uint64_t named_tsc;         /* of the last naming: 0 if at the start */
};

/* Domain @domid's, or NULL if the file names it not (yet). */
const struct xt_domain_info *xt_reader_domain(const struct xt_reader *r,
                                              uint32_t domid);
/* The @i-th domain named, in the order they were first named: NULL past
   the last, or for one whose name has not come whole. */
unsigned int xt_reader_nr_domains(const struct xt_reader *r);
const struct xt_domain_info *xt_reader_domain_at(const struct xt_reader *r,
                                                 unsigned int i);

/*
 * The masks in force (xtfile.h, "Masks"), as far as read: periods in TSC
 * order, each from its TSC (0: the start) to the next one's.  At most
 * XT_MASK_PERIODS_MAX: a change past them is counted by
 * xt_reader_masks_dropped(), not kept.  Upstream's files tell none.
 */
#define XT_MASK_PERIODS_MAX 1024u
struct xt_mask_period {
    uint64_t tsc;
    uint32_t evt_mask;
    char cpus[64];              /* "0-3,7", "all", "none"; cut: ",..." */
    char domains[64];           /* the domain filter: "all", "3,10-12" */
    bool dom_filter_in_dom0;    /*   applied by xentrace, not by Xen */
    char switches[160];         /* "none", "+TRC_HVM_VMEXIT64,-0x..." */
};

/*
 * @p in a line, into @buf of @size bytes: "events sched,hvm, CPUs 0-3",
 * then ", domains 1,3" if filtered (" (in dom0)" if xentrace did it),
 * then ", switched +X,-Y" if events are switched.  Returns @buf.
 */
const char *xt_mask_period_text(const struct xt_mask_period *p, char *buf,
                                size_t size);

unsigned int xt_reader_nr_mask_periods(const struct xt_reader *r);
const struct xt_mask_period *xt_reader_mask_period(const struct xt_reader *r,
                                                   unsigned int i);
uint64_t xt_reader_masks_dropped(const struct xt_reader *r);

/*
 * Dom0's kernel events (xtfile.h, "Dom0's kernel events"), as far as
 * read: what the lanes are, the generic types' names, and dom0's clocks
 * fitted through the pairs.  Upstream's files have no lanes.
 */
struct xt_dom0_info {
    uint32_t first_lane, lanes; /* lanes 0: none */
    uint32_t clock;             /* XT_DOM0_CLOCK_* */
    unsigned int nr_types;      /* generic types named: 0 to nr_types - 1 */
    uint64_t pairs;             /* clock pairs read */
};

/* The reader's own, kept up as it reads: a pointer that stays valid. */
const struct xt_dom0_info *xt_reader_dom0(const struct xt_reader *r);

/*
 * dom0's TSC against its CLOCK_MONOTONIC: the least-squares line through
 * the pairs (the first XT_DOM0_PAIRS_KEPT and the last), and how far the
 * farthest pair lies off it.  False, with @c unset, before two pairs
 * apart in time.
 */
#define XT_DOM0_PAIRS_KEPT 4096u
struct xt_dom0_clock {
    double tsc_per_ns;          /* TSC ticks a ns of CLOCK_MONOTONIC */
    double stray_ns;            /* the farthest a pair lies off that line */
};

bool xt_reader_dom0_clock(const struct xt_reader *r, struct xt_dom0_clock *c);

/* Whether @cpu is one of dom0's lanes, whose records are dom0's events. */
static inline bool xt_dom0_is_lane(const struct xt_dom0_info *d,
                                   unsigned int cpu)
{
    return cpu - d->first_lane < d->lanes;
}

bool xt_reader_is_dom0_lane(const struct xt_reader *r, unsigned int cpu);

/* Generic type @type's names, or NULL if the file names it not. */
const struct xt_dom0_type *xt_reader_dom0_type(const struct xt_reader *r,
                                               unsigned int type);

/*
 * The Xen version whose event layouts the reader decodes with
 * (XT_XEN_VERSION(): it fills xt_record.xen_version): the one set here,
 * else the file's TRC_XT_XEN_VERSION, else XT_XEN_DEFAULT.  Setting 0
 * goes back to the file's.
 */
void xt_reader_set_xen_version(struct xt_reader *r, uint32_t version);
uint32_t xt_reader_xen_version(const struct xt_reader *r);

/*
 * One line (no newline) that tools print as a warning when the input was
 * damaged, e.g. "corrupt at offset 8292 (an event class no Xen writes):
 * 3900 bytes skipped in 1 place" or "truncated at offset 8192, the last
 * batch lacks 3996 bytes"; NULL when info->damage is XT_DAMAGE_NONE.
 * Written into @buf of @size bytes, which it returns.
 */
const char *xt_reader_damage(const struct xt_reader *r, char *buf,
                             size_t size);

/* 0 for an input read cleanly (so far), XT_EXIT_DAMAGED if damaged. */
int xt_reader_status(const struct xt_reader *r);

/*
 * Per CPU, for the CPUs that have at least one batch: ascending, or
 * streamed, in order of appearance.
 */
struct xt_cpu_info {
    unsigned int cpu;
    uint64_t batches;
    uint64_t bytes;             /* of its batches, CPU-change records included */
    uint64_t records;           /* as in xt_reader_info */
    uint64_t pads;
    uint64_t lost_markers;
    uint64_t lost_records;
    uint64_t metadata;
    uint64_t dom0_events, dom0_lost_markers, dom0_lost;
                                /* a lane's (xt_reader_dom0()) */
    bool has_tsc;               /* some record carries a TSC; then: */
    uint64_t first_tsc;         /* the first TSC in its stream */
    uint64_t last_tsc;          /* the last */
};

/* @i from 0 to info->nr_cpus - 1; NULL past it. */
const struct xt_cpu_info *xt_reader_cpu(const struct xt_reader *r,
                                        unsigned int i);

/*
 * Records
 * =======
 */

struct xt_record {
    uint64_t offset;            /* of its header in the input */
    uint64_t tsc;               /* its own, or inherited (has_tsc false) */
    uint32_t event;             /* header bits 0-27 */
    unsigned int cpu;
    unsigned int cpu_index;     /* of @cpu, for xt_reader_cpu() */
    unsigned int nr_extra;      /* 0-7 */
    bool has_tsc;               /* the record carries its TSC */
    uint32_t extra[7];          /* nr_extra words; the rest are 0 */
    uint32_t xen_version;       /* of the hypervisor that wrote it
                                   (xt_reader_xen_version()) */
};

enum xt_order {
    XT_ORDER_FILE,              /* file order */
    XT_ORDER_CPU,               /* one CPU, in file order */
    XT_ORDER_TSC,               /* all CPUs, by TSC; ties by CPU, then file */
};

/* Flags for xt_iter_new(). */
#define XT_ITER_SPECIAL     (1u << 0)   /* also CPU-change and pad records */
#define XT_ITER_NOWAIT      (1u << 1)   /* streamed: see xt_iter_next() */

struct xt_iter;

/*
 * An iterator over @r's records in @order; @cpu is the CPU number for
 * XT_ORDER_CPU and ignored otherwise.  Indexed, any number of iterators
 * can be used at once; streamed, one (EBUSY), and not XT_ORDER_CPU
 * (ESPIPE).  NULL with ENOMEM.
 *
 * Without XT_ITER_SPECIAL, iterators give every record except
 * TRC_TRACE_CPU_CHANGE and TRC_TRACE_WRAP_BUFFER: the metadata and
 * TRC_LOST_RECORDS records come through as records.  With it, in
 * XT_ORDER_TSC the CPU-change records have the TSC of their CPU's last
 * record before the batch.
 */
struct xt_iter *xt_iter_new(struct xt_reader *r, enum xt_order order,
                            unsigned int cpu, unsigned int flags);

/*
 * The next record into @rec: 1, or 0 at the end; -1 with ENOMEM.
 * Streamed, with XT_ITER_NOWAIT: -1 with EAGAIN where the next record is
 * not in yet (flush your output, and call again: that call waits).
 * Streamed XT_ORDER_FILE hands out records as their bytes come in; TSC
 * order holds them until the input pauses for 100 ms (the other CPUs'
 * batches of the same moment come together), so a live capture's records
 * come out within that of their batch.  A followed file is looked at
 * every 100 ms.
 */
int xt_iter_next(struct xt_iter *it, struct xt_record *rec);

void xt_iter_free(struct xt_iter *it);

/*
 * TRC_LOST_RECORDS {count, dom | vcpu << 16, first tsc lo, hi}: whether
 * @rec is one (with its 4 words), and what it says.
 */
struct xt_lost {
    uint32_t count;             /* records lost before this one */
    uint16_t domain, vcpu;      /* what ran when the loss started */
    uint64_t first_tsc;         /* TSC of the first record lost */
};

bool xt_record_lost(const struct xt_record *rec, struct xt_lost *lost);

/*
 * Batches
 * =======
 *
 * A batch's good records as they lie in the input, for readers that take
 * every record once (xentrace-summary's counts, its merge by CPU): no
 * record is copied or decoded.  Streamed, a long batch comes in parts.
 */

struct xt_batch {
    unsigned int cpu;
    unsigned int cpu_index;     /* for xt_reader_cpu() */
    const uint32_t *words;      /* whole, checked records; 4-byte aligned */
    size_t len;                 /* words */
    uint64_t offset;            /* of words[0] in the input */
};

/*
 * The next batch of an XT_ORDER_FILE or XT_ORDER_CPU iterator into @b: 1,
 * 0 at the end, or -1 with errno: EINVAL in XT_ORDER_TSC or on an
 * iterator that has handed out records (it hands out one or the other),
 * ENOMEM, or streamed EAGAIN as xt_iter_next().  @b->words stays valid
 * until the iterator's next call; on an indexed reader, where the batch is
 * 4-byte aligned in the input, it is read in place and stays valid until
 * xt_reader_close() (a copy only after damage).
 */
int xt_iter_batch(struct xt_iter *it, struct xt_batch *b);

/*
 * A record a guest wrote (HVMOP_xentrace: class TRC_GUEST, the guest's
 * own event in the low 12 bits, its words as payload) has no line in the
 * catalogue.  Every reader names it so, from those 12 bits: the format of
 * printf(3) for "TRC_GUEST+0x001".
 */
#define XT_GUEST_EVENT_NAME  "TRC_GUEST+0x%03x"

/*
 * Format @rec's event and payload, in the layout of @rec->xen_version, as
 * text into @buf (NUL-terminated,
 * truncated to @size): "TRC_SCHED_SWITCH prev=d1v0 next=d2v1", for a
 * guest's "TRC_GUEST+0x001 [ 0xdead ]", or for an event the catalogue
 * does not know "event 0x00081234 [ 0x1 0x2 ]".
 * Payload words past the fields are printed as "[ ... ]"; missing ones as
 * "?".  Returns the length it would have had, like snprintf.
 */
size_t xt_record_format(const struct xt_record *rec, char *buf, size_t size);

/* No formatted record is longer than this, NUL included. */
#define XT_RECORD_FORMAT_MAX 512

/*
 * The vCPUs and domains @rec's payload names, by the catalogue's fields
 * in the layout of @rec->xen_version: a dv or vd field names a vCPU; a
 * field "dom" (or "prev_dom"...) names a domain, and a vCPU of it with a
 * field "vcpu" (or "prev_vcpu"...) right after it.  Each as domain << 16
 * | vcpu, with vcpu XT_VCPU_ANY where only the domain is named; into
 * @out, at most XT_RECORD_VCPUS_MAX; how many.  A field past the payload
 * names nothing.
 */
/*
 * The first payload word of @rec's field @name ("dom", "order"), in the
 * layout of @rec->xen_version, into *@word: false if the catalogue gives
 * the event no such field, or the record ends before it.
 */
bool xt_record_field(const struct xt_record *rec, const char *name,
                     uint32_t *word);

#define XT_RECORD_VCPUS_MAX  4
#define XT_VCPU_ANY          0xffffu
unsigned int xt_record_vcpus(const struct xt_record *rec,
                             uint32_t out[XT_RECORD_VCPUS_MAX]);

#endif /* XTREAD_H */
