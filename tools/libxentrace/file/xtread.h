/*
 * libxtfile, the reader: read trace files as xentrace writes them, ours and
 * upstream's (docs/trace-format.md).
 *
 * A trace file is a flat stream of t_rec records in batches: each batch is
 * a TRC_TRACE_CPU_CHANGE {cpu, bytes} record and the @bytes of one CPU's
 * records that follow it.  xt_reader_open() takes the whole input into
 * memory (mmap for regular files, read for pipes; gzip is undone), walks
 * every batch and record once to index them and count (only the batches
 * with XT_READ_BATCHES), and stops at the last complete record: the input
 * is never trusted, any bytes are safe.
 *
 * Records then come through iterators, in three orders:
 *   XT_ORDER_FILE  the order of the file (batch after batch);
 *   XT_ORDER_CPU   one CPU's records, its batches in file order;
 *   XT_ORDER_TSC   every CPU merged by TSC (a k-way merge).
 * A record without a TSC has the TSC of the last record of its CPU that
 * had one (0 before the first), as xenalyze does.
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

#include "xtfile.h"             /* the records, struct xt_metadata */

/*
 * Opening
 * =======
 */

struct xt_reader;

/* Flags for xt_reader_open*(). */
#define XT_READ_NO_GZIP      (1u << 0)  /* take gzip input as it is */
#define XT_READ_BATCHES      (1u << 1)  /* index the batches only: see
                                           "Batches" below */

/*
 * Open @path ("-" or NULL: standard input).  Fails with errno:
 *   ENOENT, EACCES...  from open(2)/read(2);
 *   EILSEQ   the input does not start with a CPU-change record: not a
 *            trace file;
 *   EBADMSG  it does, in the other byte order (a file from a host of the
 *            other endianness: not supported);
 *   EFBIG    the input does not fit in memory / size_t;
 *   ENOMEM, or EIO for a broken gzip stream.
 * An empty input is a valid trace with no records (upstream's empty
 * capture).
 */
struct xt_reader *xt_reader_open(const char *path, unsigned int flags);

/* The same on an open fd (not closed by the reader). */
struct xt_reader *xt_reader_open_fd(int fd, unsigned int flags);

/*
 * The same on @len bytes at @data, which are not copied: they must stay
 * valid and unchanged until xt_reader_close() (gzip input is inflated into
 * memory of the reader's own).  For tests and fuzzing.
 */
struct xt_reader *xt_reader_open_mem(const void *data, size_t len,
                                     unsigned int flags);

void xt_reader_close(struct xt_reader *r);

/*
 * strerror() for xt_reader_open*()'s errors: "not a trace file" for
 * EILSEQ, "trace file of the other byte order" for EBADMSG.
 */
const char *xt_reader_strerror(int err);

/*
 * What the file holds
 * ===================
 */

/* How the input ends, when it is not where the last batch ends. */
enum xt_damage {
    XT_DAMAGE_NONE = 0,
    XT_DAMAGE_TRUNCATED,        /* it ends inside a batch */
    XT_DAMAGE_CORRUPT,          /* bytes where a batch should start are not
                                   a CPU-change record, or a record runs
                                   over the end of its batch */
};

struct xt_reader_info {
    uint64_t size;              /* bytes of input (after gzip) */
    uint64_t end;               /* bytes read: the end of the last complete
                                   record; the rest was not read */
    enum xt_damage damage;
    uint64_t damage_offset;     /* where it starts (== end for truncation) */
    uint64_t missing;           /* TRUNCATED: bytes the cut batch lacks */
    bool gzip;                  /* the input was gzip */

    /* Metadata records (TRC_XT_*), xentrace-ng's files only. */
    bool has_meta;              /* at least TRC_XT_FORMAT was found */
    uint32_t format_version;    /* 0: none */
    uint32_t tool_version[3];   /* major, minor, patch; 0s: unknown */
    bool has_tsc_hz, has_nr_cpus, has_start;
    struct xt_metadata meta;    /* fields 0 where not present; xen_version
                                   from TRC_XT_XEN_VERSION */

    /* Totals over all CPUs. */
    uint64_t batches;           /* CPU-change records */
    uint64_t records;           /* records, without CPU-change and pads */
    uint64_t pads;              /* TRC_TRACE_WRAP_BUFFER records */
    uint64_t lost_markers;      /* TRC_LOST_RECORDS records */
    uint64_t lost_records;      /* the sum of their counts */
    unsigned int nr_cpus;       /* CPUs with at least one batch */
    unsigned int max_cpu;       /* the highest CPU number seen (0 if none) */
};

const struct xt_reader_info *xt_reader_info(const struct xt_reader *r);

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
 * damaged, e.g. "truncated: 100 bytes at offset 8192 not read, the last
 * batch lacks 3996 bytes"; NULL when info->damage is XT_DAMAGE_NONE.
 * Written into @buf of @size bytes, which it returns.
 */
const char *xt_reader_damage(const struct xt_reader *r, char *buf,
                             size_t size);

/* Per CPU, for the CPUs that have at least one batch, ascending. */
struct xt_cpu_info {
    unsigned int cpu;
    uint64_t batches;
    uint64_t bytes;             /* of its batches, CPU-change records included */
    uint64_t records;           /* as in xt_reader_info */
    uint64_t pads;
    uint64_t lost_markers;
    uint64_t lost_records;
    bool has_tsc;               /* some record carries a TSC; then: */
    uint64_t first_tsc;         /* the first TSC in its stream */
    uint64_t last_tsc;          /* the last */
};

/* @i from 0 to info->nr_cpus - 1; NULL past it. */
const struct xt_cpu_info *xt_reader_cpu(const struct xt_reader *r,
                                        unsigned int i);

/* The same by CPU number; NULL if the CPU has no batch. */
const struct xt_cpu_info *xt_reader_cpu_by_id(const struct xt_reader *r,
                                              unsigned int cpu);

/*
 * Records
 * =======
 */

struct xt_record {
    uint64_t offset;            /* of its header in the input */
    uint64_t tsc;               /* its own, or inherited (has_tsc false) */
    uint32_t event;             /* header bits 0-27 */
    unsigned int cpu;
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

struct xt_iter;

/*
 * An iterator over @r's records in @order; @cpu is the CPU number for
 * XT_ORDER_CPU and ignored otherwise.  Any number of iterators can be used
 * at once.  NULL with ENOMEM.
 *
 * Without XT_ITER_SPECIAL, iterators give every record except
 * TRC_TRACE_CPU_CHANGE and TRC_TRACE_WRAP_BUFFER: the metadata and
 * TRC_LOST_RECORDS records come through as records.  With it, in
 * XT_ORDER_TSC the CPU-change records have the TSC of their CPU's last
 * record before the batch.  EINVAL for a reader opened with
 * XT_READ_BATCHES.
 */
struct xt_iter *xt_iter_new(struct xt_reader *r, enum xt_order order,
                            unsigned int cpu, unsigned int flags);

/* The next record into @rec: 1, or 0 at the end. */
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
 * A batch's records as they lie in the input, for readers that take every
 * record once (xentrace-summary): no record is copied or decoded.
 *
 * Opened with XT_READ_BATCHES, a reader walks only the CPU-change records
 * at open, jumping from batch to batch, and the records of the few batches
 * it needs for the rest of xt_reader_info() and xt_cpu_info: the metadata
 * (of the first batch, where xentrace puts it), each CPU's first and last
 * TSC, and the end of a truncated last batch.  It does not count records:
 * records, pads, lost_markers and lost_records are 0, in xt_reader_info and
 * xt_cpu_info.  Whether each batch holds whole records is learnt as the
 * caller walks it and tells xt_reader_walked(): once every batch is told,
 * xt_reader_info(), xt_cpu_info's bytes and xt_reader_damage() say what a
 * reader opened without the flag says at open.  Record iterators need the index: xt_iter_new() fails on such a
 * reader with EINVAL.  Without the flag, batches come checked: words[0,
 * len) are whole records.
 */

struct xt_batch {
    unsigned int cpu;
    unsigned int cpu_index;     /* for xt_reader_cpu() */
    const uint32_t *words;      /* its records, after its CPU-change record */
    size_t len;                 /* words */
    uint64_t offset;            /* of words[0] in the input */
    bool in_place;              /* @words is in the input, not a copy */
};

/*
 * Batch @i (0 to info->batches - 1, in file order) into @b: 1, 0 past the
 * last, -1 with ENOMEM.  @b->words is 4-byte aligned: in the input itself
 * (@b->in_place), or, where the input is not aligned (damage, or
 * xt_reader_open_mem() on unaligned memory), a copy valid until the next
 * call.  With
 * XT_READ_BATCHES the last record may run past @b->len (damage): stop at
 * a record that does not fit, and tell xt_reader_walked().
 */
int xt_reader_batch(struct xt_reader *r, uint64_t i, struct xt_batch *b);

/*
 * Batch @i's whole records end after @len words: the first record that
 * did not fit in xt_batch.len starts there (@len == xt_batch.len: it had
 * none).  Once per batch counts; more calls change nothing.
 */
void xt_reader_walked(struct xt_reader *r, uint64_t i, size_t len);

/*
 * Event catalogue
 * ===============
 *
 * Generated from tools/libxentrace/file/trace-events: every event of Xen 4.17's
 * public trace.h and the xentrace-ng metadata, with its payload.
 */

enum xt_field_kind {
    XT_FIELD_U32,               /* one word, printed in decimal */
    XT_FIELD_X32,               /* one word, printed in hex */
    XT_FIELD_U64,               /* two words, low first, decimal */
    XT_FIELD_X64,               /* two words, low first, hex */
    XT_FIELD_DOMVCPU,           /* one word: domain << 16 | vcpu, "d1v0" */
    XT_FIELD_VCPUDOM,           /* one word: vcpu << 16 | domain, "d1v0" */
    XT_FIELD_S32,               /* one word, signed decimal */
};

struct xt_field {
    const char *name;
    enum xt_field_kind kind;
    unsigned int name_len;      /* strlen(name) */
};

struct xt_event_desc {
    uint32_t id;                /* event (bits 0-27) */
    const char *name;           /* e.g. "TRC_SCHED_SWITCH" */
    unsigned int nr_fields;
    const struct xt_field *fields;
    unsigned int words;         /* payload words the fields take */
    unsigned int name_len;      /* strlen(name) */
    unsigned int min_words;     /* the words of its fields that are not
                                   optional: a record may end after them */
    uint32_t xen_min, xen_max;  /* the Xen versions (XT_XEN_VERSION) this
                                   layout is for, both included */
};

/*
 * Xen versions as xc_version(XENVER_version) returns them, and as the
 * TRC_XT_XEN_VERSION metadata record and xt_record.xen_version carry
 * them.  Where an event's payload changed between versions, the catalogue
 * has one layout per version range; a file whose version is unknown
 * (upstream's, without --xen-version) is read with 4.17's.
 */
#define XT_XEN_VERSION(major, minor) ((uint32_t)(major) << 16 | (minor))
#define XT_XEN_DEFAULT  XT_XEN_VERSION(4, 17)

/*
 * "4.20" (or "4.20.4": the patch level is ignored) into *@version: 0, or
 * -1 with EINVAL.
 */
int xt_xen_version_parse(const char *s, uint32_t *version);

/*
 * The description of @event as the hypervisor of @xen_version writes it
 * (0: XT_XEN_DEFAULT), or NULL if the catalogue does not know it there.
 * Scheduler runstate changes (TRC_SCHED_RUNSTATE_CHANGE | old << 8 |
 * new << 4) are one entry.
 */
const struct xt_event_desc *xt_event_find_xen(uint32_t event,
                                              uint32_t xen_version);

/* The same for XT_XEN_DEFAULT. */
const struct xt_event_desc *xt_event_find(uint32_t event);

/*
 * Every entry, sorted by id and version; an id with layouts for different
 * versions has one entry for each.  *@n gets the count.
 */
const struct xt_event_desc *xt_event_table(size_t *n);

/* The class of @event as a short word: "gen", "sched", "hvm"... or "?". */
const char *xt_event_class(uint32_t event);

/*
 * Format @rec's event and payload, in the layout of @rec->xen_version, as
 * text into @buf (NUL-terminated,
 * truncated to @size): "TRC_SCHED_SWITCH prev=d1v0 next=d2v1", or for an
 * event the catalogue does not know "event 0x00081234 [ 0x1 0x2 ]".
 * Payload words past the fields are printed as "[ ... ]"; missing ones as
 * "?".  Returns the length it would have had, like snprintf.
 */
size_t xt_record_format(const struct xt_record *rec, char *buf, size_t size);

/* No formatted record is longer than this, NUL included. */
#define XT_RECORD_FORMAT_MAX 512

#endif /* XTREAD_H */
