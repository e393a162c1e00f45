/*
 * libxtfile, reading trace files (xtread.h, docs/trace-format.md).
 *
 * Two ways in, one set of checks.
 *
 * Indexed.  A regular file is mapped (xt_reader_open_mem(): the caller's
 * memory), and xt_reader_open*() walks it once, batch by batch: a
 * CPU-change record {cpu, bytes}, then records up to @bytes further.
 * Each batch keeps where its records start and where the last good one
 * ends, so that the iterators never check a bound again.  The walk checks
 * four batches at once (check_lanes()), as walking a batch is a chain of
 * loads, each header giving where the next record is, and four chains run
 * in the time of one.
 *
 * Streamed.  Pipes, gzip and followed files are read through a buffer of
 * STREAM_BUF bytes (struct stream), record after record: the same checks
 * on what is buffered, and the same resynchronisation.  File order hands
 * out what is buffered; TSC order copies up to MERGE_WINDOW bytes of
 * records into a ring allocated once (struct seg, a CPU's list of them)
 * and merges the CPUs through the same tournament.  A seekable
 * gzip file is read twice, once to count and once for the caller, so that
 * its xt_reader_info() is whole at open as a mapped file's is.
 *
 * Checks.  Inside a batch, records must fill its byte count exactly, have
 * an event class Xen writes, and carry TSCs that do not go backwards.
 * Where one fails, the batch ends at the record before; the bytes from
 * there to the next plausible CPU-change record are counted (info->skips,
 * skipped, and the first place and why), and reading goes on there.
 *
 * CPUs.  CPU numbers are below XT_CPUS_MAX (a batch of another is damage:
 * skipped and counted, so that memory stays within what a host has), and
 * sparse, so they are mapped to dense "slots" through a hash table; an indexed reader then sorts the slots by
 * CPU number (slot order is CPU order).  Each CPU's batches form a chain
 * through the batch array, in file order.
 *
 * Merging.  An indexed XT_ORDER_TSC keeps one cursor per CPU, each walking
 * its CPU's chain, in a tournament (tournament.h) keyed by (TSC, slot):
 * O(log nCPU) compares without branches per record.  A streamed one keys
 * by (TSC, CPU), as its slots are in order of appearance.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "array.h"
#include "dom0.h"
#include "domains.h"
#include "masks.h"
#include "hashtab.h"
#include "tournament.h"
#include "xtread.h"

#define NO_BATCH        UINT64_MAX
#define MAX_RECORD      40              /* bytes: 1 + 2 + 7 words */
#define LANES           4
#define STREAM_BUF      (1u << SEG_CLASS_MAX)
#define SEG_CLASS_MIN   8               /* the merge's segs: 256 bytes */
#define SEG_CLASS_MAX   20              /* to a span's most */
#define SEG_CLASSES     (SEG_CLASS_MAX - SEG_CLASS_MIN + 1)
#define GZIP_BUF        (1u << 16)
#define MERGE_WINDOW    XT_MERGE_WINDOW
#define HOLD_MS         100             /* wait for more before handing out */
#define DRAIN_LOOK      (64u << 10)     /* then look again after these bytes */
#define FOLLOW_MS       100             /* poll a followed file this often */
#define PIPE_BYTES      (1 << 20)       /* asked of an input pipe */

/* Loads, as records are 4-byte aligned in the file but @data may not be. */
static inline uint32_t rd32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint64_t rd64(const uint8_t *p)
{
    return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static inline unsigned int rec_size(uint32_t hdr)
{
    return 4 * xt_record_words(hdr);
}

/* Where the payload words of the record whose header is @hdr start. */
static inline unsigned int words_at(uint32_t hdr)
{
    return TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 12 : 4;
}

static inline bool is_cpu_change(uint32_t hdr)
{
    return TRC_HD_TO_EVENT(hdr) == TRC_TRACE_CPU_CHANGE &&
           TRC_HD_EXTRA(hdr) >= XT_TRACE_CPU_CHANGE_WORDS;
}

/*
 * The CPU number of the CPU-change record at @p, if Xen can have that
 * CPU (XT_CPUS_MAX): a batch of another is skipped as damage, so that the
 * CPUs' state stays within what a host has, whatever the input says.
 */
static inline bool cpu_possible(const uint8_t *p)
{
    return rd32(p + words_at(rd32(p))) < XT_CPUS_MAX;
}

/* Pads and CPU-change records: skipped unless XT_ITER_SPECIAL. */
static inline bool is_special(uint32_t event)
{
    return event == TRC_TRACE_WRAP_BUFFER || event == TRC_TRACE_CPU_CHANGE;
}

/*
 * keep_words[n]: the masks that keep the first n of seven payload words,
 * as four 64-bit words (little-endian: word 2i is the low half of mask i).
 */
#define KEEP(n, i) ((2 * (i) < (n) ? 0xffffffffull : 0) | \
                    (2 * (i) + 1 < (n) ? 0xffffffffull << 32 : 0))
#define KEEP_ALL(n) { KEEP(n, 0), KEEP(n, 1), KEEP(n, 2), KEEP(n, 3) }
static const uint64_t keep_words[8][4] = {
    KEEP_ALL(0), KEEP_ALL(1), KEEP_ALL(2), KEEP_ALL(3),
    KEEP_ALL(4), KEEP_ALL(5), KEEP_ALL(6), KEEP_ALL(7),
};
#undef KEEP_ALL
#undef KEEP

/*
 * Decode the record at @p (known to be whole) for CPU @cpu; the input
 * ends at @lim.
 */
static inline void decode(const uint8_t *p, const uint8_t *lim,
                          uint64_t offset, unsigned int cpu,
                          uint64_t *last_tsc, struct xt_record *rec)
{
    uint32_t hdr = rd32(p);
    unsigned int n = TRC_HD_EXTRA(hdr), i;

    rec->offset = offset;
    rec->event = TRC_HD_TO_EVENT(hdr);
    rec->cpu = cpu;
    rec->nr_extra = n;
    rec->has_tsc = TRC_HD_INCLUDES_CYCLE_COUNT(hdr);
    p += 4;
    if ( rec->has_tsc )
    {
        *last_tsc = rd64(p);
        p += 8;
    }
    rec->tsc = *last_tsc;
    if ( (size_t)(lim - p) >= sizeof(rec->extra) )
    {
        /*
         * Seven words whatever @n, the ones past it masked to 0, eight
         * bytes at a time: no branch to mispredict as the records' sizes
         * vary, and a quarter of the work of a word at a time.
         */
        uint64_t v[4] = { 0 };

        memcpy(v, p, sizeof(rec->extra));
        for ( i = 0; i < 4; i++ )
            v[i] &= keep_words[n][i];
        memcpy(rec->extra, v, sizeof(rec->extra));
        return;
    }
    memset(rec->extra, 0, sizeof(rec->extra));
    for ( i = 0; i < n; i++ )
        rec->extra[i] = rd32(p + 4 * i);
}

/*
 * The reader
 * ==========
 */

struct batch {
    uint64_t hdr;               /* offset of its CPU-change record */
    uint64_t start;             /* of its first record */
    uint64_t end;               /* of the end of its last good record */
    uint64_t next;              /* the CPU's next batch, or NO_BATCH */
    uint32_t slot;
};

/* Streamed, XT_ORDER_TSC: records of one CPU waiting to be merged. */
struct seg {
    struct seg *next;           /* its CPU's next, or on a free list */
    uint64_t offset;            /* of data[0] in the input */
    size_t len, pos;            /* bytes, and the next record */
    uint8_t data[];
};

struct slot {
    struct xt_cpu_info info;
    uint64_t first_batch, last_batch;
    uint64_t merge_tsc;         /* streamed: its last record's TSC */
};

/*
 * What a lane's check steps on with every record, kept in registers
 * (check_lanes()).
 */
struct fast {
    uint64_t pos, lim;          /* the next record; the end of what's there */
    uint64_t tsc;               /* the batch's last TSC */
    uint64_t records;
    uint64_t first_tsc;         /* its first TSC, if @has_tsc */
    bool has_tsc;
};

/* What one batch's check found (check_lanes()). */
struct lane {
    const uint8_t *base;        /* the input, at offset 0 */
    struct fast f;              /* position, TSC, records */
    uint64_t pads, lost_markers, lost_records, metadata;
    uint64_t dom0_events, dom0_lost_markers, dom0_lost;
    enum xt_bad bad;            /* XT_BAD_NONE: stopped at f.lim or at a
                                   record that does not fit */
    bool meta;                  /* take metadata records */
};

/* The input as a stream (pipes, gzip, followed files). */
struct stream {
    int fd;                     /* -1: @mem */
    const uint8_t *mem;         /* xt_reader_open_mem(): the input */
    size_t mem_len, mem_pos;
    bool follow, pollable, seekable;
    bool own_fd;                /* close it with the reader */
    bool gz, gz_end;
    z_stream zs;
    uint8_t *zin;
    uint8_t *buf;               /* input bytes [pos, pos + tail - head) */
    size_t head, tail;
    uint64_t pos;
    bool eof;
    volatile sig_atomic_t stop;     /* xt_reader_stop_following() */
};

enum parse { PARSE_HEADER, PARSE_RECORDS, PARSE_RESYNC, PARSE_END };

struct xt_reader {
    const uint8_t *data;        /* indexed: the input */
    size_t size;
    void *map;                  /* to munmap, or NULL */
    size_t map_len;

    struct batch *batches;
    uint64_t nr_batches;
    size_t cap_batches;
    struct slot *slots;
    uint64_t nr_slots;
    size_t cap_slots;
    struct hashtab cpus;        /* CPU number -> slot */

    struct xt_reader_info info;
    struct domains domains;     /* as far as read (lane_slow()) */
    struct dom0_table dom0;     /* the same */
    struct masks masks;         /* the same */
    bool counted;               /* a second pass: the counts are in */
    uint32_t xen_version;       /* xt_reader_set_xen_version(), or 0 */

    /* Streamed */
    struct stream *s;
    enum parse state;
    uint64_t batch_end;         /* of the batch being read */
    struct lane lane;           /* its check so far */
    uint32_t slot;              /* its slot */
    bool started;               /* streamed: read from its start */
    bool busy;                  /* streamed: an iterator is on */
};

/* The Xen version the records are read as: xt_reader_xen_version(). */
static inline uint32_t version_of(const struct xt_reader *r)
{
    if ( r->xen_version )
        return r->xen_version;
    return r->info.meta.xen_version ? r->info.meta.xen_version
                                    : XT_XEN_DEFAULT;
}

static uint64_t slot_cpu(const void *slots, unsigned int i)
{
    return ((const struct slot *)slots)[i].info.cpu;
}

static uint64_t slot_hash(const void *slots, unsigned int i)
{
    return hashtab_hash(slot_cpu(slots, i));
}

/* The slot of CPU @cpu, or -1 if it has none. */
static int64_t find_slot(const struct xt_reader *r, unsigned int cpu)
{
    return (int64_t)hashtab_get(&r->cpus, cpu, r->slots, slot_cpu) - 1;
}

/*
 * The slot of CPU @cpu (below XT_CPUS_MAX: a bounded number), made if
 * new; -1 on ENOMEM.
 */
static int64_t slot_of(struct xt_reader *r, uint32_t cpu)
{
    unsigned int h;
    struct slot *s;

    if ( hashtab_fit(&r->cpus, r->nr_slots + 1, r->slots, slot_hash) )
        return -1;
    h = hashtab_find(&r->cpus, cpu, r->slots, slot_cpu);
    if ( hashtab_index(&r->cpus, h) )
        return hashtab_index(&r->cpus, h) - 1;
    if ( array_fit(&r->slots, &r->cap_slots, r->nr_slots + 1,
                   sizeof(*r->slots)) )
        return -1;
    s = &r->slots[r->nr_slots];
    s->info.cpu = cpu;
    s->first_batch = s->last_batch = NO_BATCH;
    hashtab_set(&r->cpus, h, r->nr_slots);
    return r->nr_slots++;
}

static const char *const bad_text[] = {
    [XT_BAD_NONE] = "damaged",
    [XT_BAD_NO_BATCH] = "no CPU-change record where a batch starts",
    [XT_BAD_FILL] = "records do not fill the batch's byte count",
    [XT_BAD_CLASS] = "an event class no Xen writes",
    [XT_BAD_TSC] = "a TSC going backwards on its CPU",
    [XT_BAD_GZIP] = "broken gzip stream",
    [XT_BAD_READ] = "read error",
    [XT_BAD_CPU] = "a CPU number no Xen has",
};

const char *xt_bad_text(enum xt_bad why)
{
    return (unsigned int)why < sizeof(bad_text) / sizeof(bad_text[0]) &&
           bad_text[why] ? bad_text[why] : "damaged";
}

/* Bytes from @at are skipped, for @why, up to where skip_more() says. */
static void skip_start(struct xt_reader *r, uint64_t at, enum xt_bad why)
{
    struct xt_reader_info *in = &r->info;

    if ( r->counted )
        return;
    if ( in->damage == XT_DAMAGE_NONE )
    {
        in->damage = XT_DAMAGE_CORRUPT;
        in->damage_offset = at;
        in->damage_why = why;
    }
    in->skips++;
}

static void skip_more(struct xt_reader *r, uint64_t bytes)
{
    struct xt_reader_info *in = &r->info;

    if ( r->counted )
        return;
    in->skipped += bytes;
}

/* The input ends inside a batch at @at, which lacks @missing bytes. */
static void truncated(struct xt_reader *r, uint64_t at, uint64_t missing,
                      enum xt_bad why)
{
    struct xt_reader_info *in = &r->info;

    if ( r->counted || in->truncated )
        return;
    in->truncated = true;
    in->truncated_at = at;
    in->missing = missing;
    in->truncated_why = why;
    if ( in->damage == XT_DAMAGE_NONE )
    {
        in->damage = XT_DAMAGE_TRUNCATED;
        in->damage_offset = at;
    }
}

/* The first of each metadata record is the one. */
static void take_metadata(struct xt_reader *r, const struct xt_record *rec)
{
    struct xt_reader_info *in = &r->info;

    switch ( rec->event )
    {
    case TRC_XT_FORMAT:
        if ( rec->nr_extra >= 1 && !in->has_meta )
        {
            in->has_meta = true;
            in->format_version = rec->extra[0];
        }
        break;
    case TRC_XT_TOOL:
        if ( rec->nr_extra >= 3 && !in->tool_version[0] &&
             !in->tool_version[1] && !in->tool_version[2] )
            memcpy(in->tool_version, rec->extra, sizeof(in->tool_version));
        break;
    case TRC_XT_TSC_HZ:
        if ( rec->nr_extra >= 2 && !in->has_tsc_hz )
        {
            in->has_tsc_hz = true;
            in->meta.tsc_hz = rec->extra[0] | (uint64_t)rec->extra[1] << 32;
        }
        break;
    case TRC_XT_CPUS:
        if ( rec->nr_extra >= 1 && !in->has_nr_cpus )
        {
            in->has_nr_cpus = true;
            in->meta.nr_cpus = rec->extra[0];
        }
        break;
    case TRC_XT_XEN_VERSION:
        if ( rec->nr_extra >= 1 && !in->meta.xen_version )
            in->meta.xen_version = rec->extra[0];
        break;
    case TRC_XT_START:
        /* TSC 0: its TSC was not known (docs/trace-format.md). */
        if ( rec->nr_extra >= 5 && !in->has_start &&
             (rec->extra[0] || rec->extra[1]) )
        {
            in->has_start = true;
            in->meta.start_tsc = rec->extra[0] | (uint64_t)rec->extra[1] << 32;
            in->meta.start_sec = (int64_t)(rec->extra[2] |
                                           (uint64_t)rec->extra[3] << 32);
            in->meta.start_nsec = rec->extra[4];
        }
        break;
    }
}

/*
 * Checking records
 * ================
 */

/*
 * Check and count an ordinary record (no TRC_GEN) at @f: false at one it
 * does not take, which lane_slow() then looks at.
 */
static inline __attribute__((always_inline)) bool
fast_step(const uint8_t *base, struct fast *f)
{
    const uint8_t *p = base + f->pos;
    uint32_t hdr, cls;
    unsigned int size;

    if ( f->lim - f->pos < 4 )
        return false;
    hdr = rd32(p);
    size = rec_size(hdr);
    cls = (hdr >> 16) & 0xfff;
    /* A class Xen writes (any subclass: the catalogue's), not TRC_GEN. */
    if ( f->lim - f->pos < size || !xt_xen_class(hdr) ||
         cls == TRC_GEN >> 16 )
        return false;
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
    {
        uint64_t tsc = rd64(p + 4);

        if ( tsc < f->tsc )
            return false;
        f->tsc = tsc;
        if ( !f->has_tsc )
            f->first_tsc = tsc;
        f->has_tsc = true;
    }
    f->records++;
    f->pos += size;
    return true;
}

/* A dom0 event: a LOST one is a marker with its count, like Xen's. */
static void count_dom0(struct lane *l, const struct xt_record *rec)
{
    struct xt_dom0_event e;

    if ( xt_dom0_event_get(rec->extra, rec->nr_extra, &e) ||
         e.kind != XT_DOM0_LOST )
    {
        l->dom0_events++;
        return;
    }
    l->dom0_lost_markers++;
    l->dom0_lost += e.v[0] | (uint64_t)e.v[1] << 32;
}

/*
 * The record at @l that fast_step() did not take: a TRC_GEN one (pads,
 * CPU changes, losses, metadata), or where the lane stops (its end, a
 * record that does not fit, or a bad one: @l->bad).  False if it stops.
 */
static bool __attribute__((noinline))
lane_slow(struct xt_reader *r, struct lane *l)
{
    struct fast *f = &l->f;
    const uint8_t *p = l->base + f->pos;
    uint32_t hdr, event;
    struct xt_record rec;
    uint64_t tsc;

    if ( f->lim - f->pos < 4 || f->lim - f->pos < rec_size(rd32(p)) )
        return false;
    hdr = rd32(p);
    event = TRC_HD_TO_EVENT(hdr);
    if ( !xt_xen_class(hdr) )
    {
        l->bad = XT_BAD_CLASS;
        return false;
    }
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
    {
        tsc = rd64(p + 4);
        if ( tsc < f->tsc )
        {
            l->bad = XT_BAD_TSC;
            return false;
        }
        f->tsc = tsc;
        if ( !f->has_tsc )
            f->first_tsc = tsc;
        f->has_tsc = true;
    }
    f->pos += rec_size(hdr);
    if ( (event >> 16) != TRC_GEN >> 16 )
    {
        f->records++;
        return true;
    }
    if ( event == TRC_TRACE_WRAP_BUFFER )
        l->pads++;
    if ( is_special(event) )
        return true;
    /* xentrace's last records: a followed capture has ended. */
    if ( event == TRC_XT_END && r->s )
        r->s->stop = 1;
    if ( xt_is_metadata(event) && event != TRC_XT_DOM0_EVENT )
        l->metadata++;                  /* "records" are Xen's, */
    else if ( event != TRC_XT_DOM0_EVENT )
        f->records++;                   /* dom0's are counted below */
    tsc = f->tsc;
    decode(p, l->base + f->lim, 0, 0, &tsc, &rec);
    if ( event == TRC_XT_DOM0_EVENT )
        count_dom0(l, &rec);
    else if ( rec.event == TRC_XT_DOM0 )
    {
        if ( !r->counted )              /* pairs are added once */
            dom0_take(&r->dom0, &rec, l->meta);
    }
    else if ( event == TRC_LOST_RECORDS )
    {
        l->lost_markers++;
        l->lost_records += rec.nr_extra ? rec.extra[XT_LOST_RECORDS_COUNT] : 0;
    }
    else if ( domains_take(&r->domains, &rec) )
        ;
    else if ( rec.event == TRC_XT_MASKS || rec.event == TRC_XT_DOM_FILTER ||
              rec.event == TRC_XT_EVENT_SWITCHES )
    {
        /* Periods are added: once, by the pass that counts. */
        if ( !r->counted )
            masks_take(&r->masks, &rec);
    }
    else if ( l->meta )
        take_metadata(r, &rec);
    return true;
}

static inline bool lane_step(struct xt_reader *r, struct lane *l)
{
    return fast_step(l->base, &l->f) || lane_slow(r, l);
}

/*
 * Check @n lanes (batches) side by side until each stops: walking a batch
 * is a chain of loads, each header giving where the next record is, and
 * four chains run in about the time of one (bench/walk -b of the 8-pCPU
 * file: 32.5 ms with four, 35.9 with one, medians of 7 alternated runs).
 */
static void check_lanes(struct xt_reader *r, struct lane *l, unsigned int n)
{
    unsigned int i;

    if ( n == LANES )
    {
        struct fast f0 = l[0].f, f1 = l[1].f, f2 = l[2].f, f3 = l[3].f;

        for ( ;; )
        {
            bool a = fast_step(l[0].base, &f0), b = fast_step(l[1].base, &f1);
            bool c = fast_step(l[2].base, &f2), d = fast_step(l[3].base, &f3);

            if ( a & b & c & d )
                continue;
            l[0].f = f0;
            l[1].f = f1;
            l[2].f = f2;
            l[3].f = f3;
            if ( (!a && !lane_slow(r, &l[0])) || (!b && !lane_slow(r, &l[1])) ||
                 (!c && !lane_slow(r, &l[2])) || (!d && !lane_slow(r, &l[3])) )
                break;
            f0 = l[0].f;
            f1 = l[1].f;
            f2 = l[2].f;
            f3 = l[3].f;
        }
    }
    /* The rest, one by one; a lane that stopped stops again at once. */
    for ( i = 0; i < n; i++ )
        while ( lane_step(r, &l[i]) )
            ;
}

/* Add a batch's records, checked by @l, to its CPU's counts and the totals. */
static void count_lane(struct xt_reader *r, struct slot *s,
                       const struct lane *l)
{
    struct xt_cpu_info *ci = &s->info;
    struct xt_reader_info *in = &r->info;

    if ( r->counted )
        return;
    ci->records += l->f.records;
    ci->pads += l->pads;
    ci->lost_markers += l->lost_markers;
    ci->lost_records += l->lost_records;
    ci->metadata += l->metadata;
    ci->dom0_events += l->dom0_events;
    ci->dom0_lost_markers += l->dom0_lost_markers;
    ci->dom0_lost += l->dom0_lost;
    in->records += l->f.records;
    in->pads += l->pads;
    in->lost_markers += l->lost_markers;
    in->lost_records += l->lost_records;
    in->metadata += l->metadata;
    in->dom0_events += l->dom0_events;
    in->dom0_lost_markers += l->dom0_lost_markers;
    in->dom0_lost += l->dom0_lost;
    if ( l->f.has_tsc )
    {
        if ( !ci->has_tsc )
            ci->first_tsc = l->f.first_tsc;
        ci->has_tsc = true;
        ci->last_tsc = l->f.tsc;
    }
}

/* A new batch of @s, @bytes of it read so far. */
static void count_batch(struct xt_reader *r, struct slot *s, uint64_t bytes)
{
    if ( r->counted )
        return;
    if ( !s->info.batches++ )
    {
        r->info.nr_cpus++;
        if ( s->info.cpu > r->info.max_cpu )
            r->info.max_cpu = s->info.cpu;
    }
    s->info.bytes += bytes;
    r->info.batches++;
}

/*
 * A plausible start of a batch at @p, @len bytes there: a CPU-change
 * record as xentrace writes it, whose byte count whole records can fill.
 */
static bool plausible_batch(const uint8_t *p, size_t len)
{
    uint32_t hdr = len >= 4 ? rd32(p) : 0;
    unsigned int at = words_at(hdr) + 4;

    return (hdr & ~TRC_HD_CYCLE_FLAG) == XT_CPU_CHANGE_HDR && len >= at + 4 &&
           rd32(p + at) % 4 == 0 && rd32(p + at - 4) < XT_CPUS_MAX;
}

/*
 * Indexed
 * =======
 */

/*
 * Where reading goes on after damage at @from: the first plausible batch
 * from there on, in 4-byte steps, the damaged batch's own end (@said_end,
 * 0 if none) being one of the places tried.  A stream tries them in the
 * same order (stream_resync()).
 */
static uint64_t resync(const struct xt_reader *r, uint64_t from,
                       uint64_t said_end)
{
    uint64_t off;

    for ( off = from; off < r->size; off += 4 )
    {
        if ( plausible_batch(r->data + off, r->size - off) )
            return off;
        if ( said_end > off && said_end - off < 4 && said_end < r->size &&
             plausible_batch(r->data + said_end, r->size - said_end) )
            return said_end;
    }
    return r->size;
}

/* Add the batch whose CPU-change record is at @off, checked by @l. */
static int add_batch(struct xt_reader *r, uint64_t off, const struct lane *l)
{
    uint32_t hdr = rd32(r->data + off);
    const uint8_t *words = r->data + off + words_at(hdr);
    int64_t si = slot_of(r, rd32(words));
    struct slot *s;
    struct batch *b;

    if ( si < 0 || array_fit(&r->batches, &r->cap_batches, r->nr_batches + 1,
                             sizeof(*r->batches)) )
        return -1;
    s = &r->slots[si];
    b = &r->batches[r->nr_batches];
    b->hdr = off;
    b->start = off + rec_size(hdr);
    b->end = l->f.pos;
    b->next = NO_BATCH;
    b->slot = si;
    if ( s->last_batch == NO_BATCH )
        s->first_batch = r->nr_batches;
    else
        r->batches[s->last_batch].next = r->nr_batches;
    s->last_batch = r->nr_batches++;
    count_batch(r, s, b->end - off);
    count_lane(r, s, l);
    return 0;
}

/*
 * Up to LANES batches from @off, hopping by their byte counts; false
 * where no batch can start (damage or the end).  @ends gets where each
 * batch says it ends.
 */
static unsigned int gather(struct xt_reader *r, uint64_t off, bool first,
                           struct lane *l, uint64_t *ends)
{
    unsigned int n = 0;

    while ( n < LANES && r->size - off >= 4 && is_cpu_change(rd32(r->data + off)) &&
            r->size - off >= rec_size(rd32(r->data + off)) &&
            cpu_possible(r->data + off) )
    {
        uint32_t hdr = rd32(r->data + off);
        uint64_t start = off + rec_size(hdr);
        uint32_t bytes = rd32(r->data + off + words_at(hdr) + 4);

        ends[n] = start + bytes;
        l[n] = (struct lane){
            .base = r->data, .f.pos = start,
            .f.lim = ends[n] < r->size ? ends[n] : r->size,
            .meta = first && n == 0,
        };
        n++;
        if ( ends[n - 1] >= r->size )
            break;
        off = ends[n - 1];
    }
    return n;
}

/* Skip from @from, the start of damage, to the next plausible batch. */
static uint64_t skip_to_batch(struct xt_reader *r, uint64_t from,
                              uint64_t said_end, enum xt_bad why)
{
    uint64_t to = resync(r, from, said_end);

    skip_start(r, from, why);
    skip_more(r, to - from);
    return to;
}

/*
 * Whether the record at @pos runs over its batch's end @end, as far as
 * the input shows: else, where the input ends first, it is truncated.  A
 * stream tells the same from the same bytes (stream_records()).
 */
static bool overruns(const struct xt_reader *r, uint64_t pos, uint64_t end)
{
    uint64_t left = end - pos;

    if ( r->size - pos < (left < 4 ? left : 4) )
        return false;
    return left < 4 || rec_size(rd32(r->data + pos)) > left;
}

static int index_input(struct xt_reader *r)
{
    uint64_t off = 0, ends[LANES];
    struct lane l[LANES];

    while ( off < r->size )
    {
        unsigned int n = gather(r, off, off == 0, l, ends), i;

        if ( n == 0 )
        {
            uint32_t hdr = r->size - off >= 4 ? rd32(r->data + off) : 0;

            if ( r->size - off < 4 ||
                 (is_cpu_change(hdr) && r->size - off < rec_size(hdr)) )
            {
                truncated(r, off, 0, XT_BAD_NONE);
                break;
            }
            off = skip_to_batch(r, off, 0, is_cpu_change(hdr) ?
                                           XT_BAD_CPU : XT_BAD_NO_BATCH);
            continue;
        }
        check_lanes(r, l, n);
        for ( i = 0; i < n; i++ )
        {
            if ( add_batch(r, off, &l[i]) )
                return -1;
            r->info.end = l[i].f.pos;
            if ( l[i].f.pos == ends[i] )
            {
                off = ends[i];
                continue;
            }
            if ( l[i].bad == XT_BAD_NONE && ends[i] > r->size &&
                 !overruns(r, l[i].f.pos, ends[i]) )
            {
                /* What is left of the input is less than a record. */
                truncated(r, l[i].f.pos, ends[i] - r->size, XT_BAD_NONE);
                off = r->size;
                break;
            }
            off = skip_to_batch(r, l[i].f.pos, ends[i],
                                l[i].bad ? l[i].bad : XT_BAD_FILL);
            break;
        }
    }
    return 0;
}

static int cmp_slot_cpu(const void *a, const void *b)
{
    unsigned int x = ((const struct slot *)a)->info.cpu;
    unsigned int y = ((const struct slot *)b)->info.cpu;

    return x < y ? -1 : x > y;
}

/*
 * Sort the slots by CPU, renumber the batches' slots to match, and hash
 * the CPUs again.
 */
static int sort_slots(struct xt_reader *r)
{
    uint32_t *new_of;
    uint64_t i, b;

    if ( !r->nr_slots )
        return 0;
    new_of = malloc(r->nr_slots * sizeof(*new_of));
    if ( !new_of )
        return -1;
    /* The old number, for a moment, where the merge's TSC will be. */
    for ( i = 0; i < r->nr_slots; i++ )
        r->slots[i].merge_tsc = i;
    qsort(r->slots, r->nr_slots, sizeof(*r->slots), cmp_slot_cpu);
    for ( i = 0; i < r->nr_slots; i++ )
    {
        new_of[r->slots[i].merge_tsc] = i;
        r->slots[i].merge_tsc = 0;
    }
    for ( b = 0; b < r->nr_batches; b++ )
        r->batches[b].slot = new_of[r->batches[b].slot];
    free(new_of);
    return hashtab_build(&r->cpus, r->nr_slots, r->slots, slot_hash);
}

/*
 * Streamed
 * ========
 */

static ssize_t src_read(struct stream *s, uint8_t *p, size_t n)
{
    ssize_t got;

    if ( s->fd < 0 )
    {
        got = n < s->mem_len - s->mem_pos ? n : s->mem_len - s->mem_pos;
        memcpy(p, s->mem + s->mem_pos, got);
        s->mem_pos += got;
        return got;
    }
    do
        got = read(s->fd, p, n);
    while ( got < 0 && errno == EINTR );
    return got;
}

static bool starts_gzip(const uint8_t *p, size_t len)
{
    return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/*
 * Up to @n bytes of input (inflated) at @p: how many, 0 at its end (for
 * now, if followed), -1 with errno, or -2 for a broken gzip stream.
 */
static ssize_t raw_read(struct stream *s, uint8_t *p, size_t n)
{
    z_stream *zs = &s->zs;

    if ( !s->gz )
        return src_read(s, p, n);
    for ( ;; )
    {
        ssize_t got;
        int ret;

        if ( s->gz_end )
            return 0;
        if ( zs->avail_in < 2 )
        {
            /* Keep a byte left over: a next member's magic may straddle. */
            memmove(s->zin, zs->next_in, zs->avail_in);
            got = src_read(s, s->zin + zs->avail_in, GZIP_BUF - zs->avail_in);
            if ( got < 0 )
                return -1;
            zs->next_in = s->zin;
            zs->avail_in += got;
            if ( !zs->avail_in )
                return 0;
        }
        zs->next_out = p;
        zs->avail_out = n;
        ret = inflate(zs, Z_NO_FLUSH);
        got = n - zs->avail_out;
        if ( ret == Z_STREAM_END )
        {
            /* Another member may follow; anything else ends the input. */
            if ( starts_gzip(zs->next_in, zs->avail_in) )
                inflateReset(zs);
            else if ( zs->avail_in >= 2 )
                s->gz_end = true;
            else
            {
                /* Too little to tell: more input decides, or its end. */
                uint8_t tail[2];
                size_t have = zs->avail_in;
                ssize_t more;

                memcpy(tail, zs->next_in, have);
                more = src_read(s, tail + have, 2 - have);
                if ( more > 0 && starts_gzip(tail, have + more) )
                {
                    memcpy(s->zin, tail, have + more);
                    zs->next_in = s->zin;
                    zs->avail_in = have + more;
                    inflateReset(zs);
                }
                else
                    s->gz_end = true;
            }
        }
        else if ( ret != Z_OK && ret != Z_BUF_ERROR )
            return -2;
        if ( got )
            return got;
    }
}

/* Whether input can be had at once, waiting up to @ms for it. */
static bool src_ready(struct stream *s, int ms)
{
    struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

    if ( !s->pollable || (s->gz && s->zs.avail_in) )
        return true;
    return poll(&pfd, 1, ms) != 0;
}

static void nap(int ms)
{
    struct timespec ts = { .tv_sec = ms / 1000,
                           .tv_nsec = (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* Fill results. */
enum { FILL_END, FILL_OK, FILL_WAIT };

/*
 * Have @need bytes buffered.  FILL_END where the input ends first,
 * FILL_WAIT where @wait_ms >= 0 and nothing came in that time.  Reads
 * hand over what they get at once: nothing waits for more than @need.
 */
static int fill(struct xt_reader *r, size_t need, int wait_ms)
{
    struct stream *s = r->s;

    while ( s->tail - s->head < need )
    {
        ssize_t got;

        if ( s->eof )
            return FILL_END;
        if ( s->head && STREAM_BUF - s->head < need + MAX_RECORD )
        {
            memmove(s->buf, s->buf + s->head, s->tail - s->head);
            s->tail -= s->head;
            s->head = 0;
        }
        if ( wait_ms >= 0 && !src_ready(s, wait_ms) )
            return FILL_WAIT;
        got = raw_read(s, s->buf + s->tail, STREAM_BUF - s->tail);
        if ( got > 0 )
        {
            s->tail += got;
            continue;
        }
        /*
         * A pipe's end is the end; a followed file's is for now: wait up
         * to @wait_ms (FOLLOW_MS at most; for ever, FOLLOW_MS at a time)
         * and look again, as poll(2) waits for a pipe, so that a file
         * written in steps closer than that does not look paused.
         */
        if ( got == 0 && s->follow && s->seekable && !s->stop )
        {
            if ( wait_ms == 0 )
                return FILL_WAIT;
            nap(wait_ms > 0 && wait_ms < FOLLOW_MS ? wait_ms : FOLLOW_MS);
            if ( wait_ms > 0 )
                wait_ms = 0;
            continue;
        }
        s->eof = true;
        if ( got < 0 )
            truncated(r, s->pos + (s->tail - s->head), 0,
                      got == -2 ? XT_BAD_GZIP : XT_BAD_READ);
    }
    return FILL_OK;
}

static void consume(struct stream *s, size_t n)
{
    s->head += n;
    s->pos += n;
}

/* What stream_next() hands out: bytes in the stream's buffer. */
struct span {
    const uint8_t *p;
    size_t len;
    uint64_t offset;
    uint32_t slot;
    bool cpu_change;            /* the batch's CPU-change record */
};

/* The batch being read stops here: its counts go in. */
static void end_batch(struct xt_reader *r)
{
    count_lane(r, &r->slots[r->slot], &r->lane);
    r->lane = (struct lane){ 0 };
}

static int stream_header(struct xt_reader *r, struct span *sp, int wait_ms)
{
    struct stream *s = r->s;
    uint32_t hdr;
    unsigned int size;
    int64_t si;
    int got = fill(r, 4, wait_ms);

    if ( got != FILL_OK )
    {
        if ( got == FILL_END )
        {
            if ( s->tail > s->head )
                truncated(r, s->pos, 0, XT_BAD_NONE);
            r->state = PARSE_END;
        }
        return got;
    }
    hdr = rd32(s->buf + s->head);
    if ( !is_cpu_change(hdr) )
    {
        skip_start(r, s->pos, XT_BAD_NO_BATCH);
        r->batch_end = 0;
        r->state = PARSE_RESYNC;
        return FILL_WAIT + 1;
    }
    size = rec_size(hdr);
    got = fill(r, size, wait_ms);
    if ( got != FILL_OK )
    {
        if ( got == FILL_END )
        {
            truncated(r, s->pos, 0, XT_BAD_NONE);
            r->state = PARSE_END;
        }
        return got;
    }
    if ( !cpu_possible(s->buf + s->head) )
    {
        skip_start(r, s->pos, XT_BAD_CPU);
        r->batch_end = 0;
        r->state = PARSE_RESYNC;
        return FILL_WAIT + 1;
    }
    si = slot_of(r, rd32(s->buf + s->head + words_at(hdr)));
    if ( si < 0 )
        return -1;
    r->slot = si;
    r->batch_end = s->pos + size +
                   rd32(s->buf + s->head + words_at(hdr) + 4);
    r->lane = (struct lane){ .meta = s->pos == 0 };
    count_batch(r, &r->slots[si], size);
    *sp = (struct span){ .p = s->buf + s->head, .len = size,
                         .offset = s->pos, .slot = si, .cpu_change = true };
    consume(s, size);
    r->info.end = s->pos;
    r->state = PARSE_RECORDS;
    return FILL_OK;
}

/* Damage at the stream's position: read on at the next batch. */
static void stream_damage(struct xt_reader *r, enum xt_bad why)
{
    end_batch(r);
    skip_start(r, r->s->pos, why);
    r->state = PARSE_RESYNC;
}

static int stream_records(struct xt_reader *r, struct span *sp, int wait_ms)
{
    struct stream *s = r->s;
    uint64_t left = r->batch_end - s->pos;
    struct lane *l = &r->lane;
    unsigned int size;
    int got;

    if ( left == 0 )
    {
        end_batch(r);
        r->state = PARSE_HEADER;
        return FILL_WAIT + 1;
    }
    got = fill(r, left < 4 ? left : 4, wait_ms);
    if ( got == FILL_OK && left >= 4 )
    {
        size = rec_size(rd32(s->buf + s->head));
        if ( size <= left )
            got = fill(r, size, wait_ms);
    }
    if ( got == FILL_WAIT )
        return got;
    if ( got == FILL_END )
    {
        end_batch(r);
        truncated(r, s->pos, left - (s->tail - s->head), XT_BAD_NONE);
        r->state = PARSE_END;
        return got;
    }
    l->base = s->buf + s->head;
    l->f.pos = 0;
    l->f.lim = s->tail - s->head < left ? s->tail - s->head : left;
    l->bad = XT_BAD_NONE;
    check_lanes(r, l, 1);
    if ( l->f.pos == 0 )
    {
        stream_damage(r, l->bad ? l->bad : XT_BAD_FILL);
        return FILL_WAIT + 1;
    }
    *sp = (struct span){ .p = s->buf + s->head, .len = l->f.pos,
                         .offset = s->pos, .slot = r->slot };
    if ( !r->counted )
        r->slots[r->slot].info.bytes += l->f.pos;
    consume(s, l->f.pos);
    r->info.end = s->pos;
    return FILL_OK;
}

/* Scan for the next plausible batch, trying places as resync() does. */
static int stream_resync(struct xt_reader *r, int wait_ms)
{
    struct stream *s = r->s;

    for ( ;; )
    {
        int got = fill(r, 24, wait_ms);
        size_t have = s->tail - s->head;

        if ( got == FILL_WAIT )
            return got;
        if ( plausible_batch(s->buf + s->head, have) )
        {
            r->state = PARSE_HEADER;
            return FILL_WAIT + 1;
        }
        if ( r->batch_end > s->pos && r->batch_end - s->pos < 4 )
        {
            size_t at = r->batch_end - s->pos;

            if ( have > at && plausible_batch(s->buf + s->head + at, have - at) )
            {
                consume(s, at);
                skip_more(r, at);
                r->state = PARSE_HEADER;
                return FILL_WAIT + 1;
            }
        }
        if ( have <= 4 )
        {
            consume(s, have);
            skip_more(r, have);
            r->state = PARSE_END;
            return FILL_END;
        }
        consume(s, 4);
        skip_more(r, 4);
    }
}

/*
 * The next span of the stream into @sp (valid until the next call):
 * FILL_OK, FILL_END at its end, FILL_WAIT (@wait_ms >= 0: nothing came in
 * that time), or -1 with ENOMEM.
 */
static int stream_next(struct xt_reader *r, struct span *sp, int wait_ms)
{
    for ( ;; )
    {
        int got;

        switch ( r->state )
        {
        case PARSE_HEADER:
            got = stream_header(r, sp, wait_ms);
            break;
        case PARSE_RECORDS:
            got = stream_records(r, sp, wait_ms);
            break;
        case PARSE_RESYNC:
            got = stream_resync(r, wait_ms);
            break;
        default:
            return FILL_END;
        }
        if ( got <= FILL_WAIT )
            return got;
    }
}

static void stream_free(struct stream *s)
{
    if ( !s )
        return;
    if ( s->gz )
        inflateEnd(&s->zs);
    free(s->zin);
    free(s->buf);
    free(s);
}

/* Read from the start again (a seekable gzip file, once counted). */
static int stream_rewind(struct xt_reader *r)
{
    struct stream *s = r->s;

    if ( s->fd >= 0 && lseek(s->fd, 0, SEEK_SET) < 0 )
        return -1;
    s->mem_pos = 0;
    s->head = s->tail = 0;
    s->pos = 0;
    s->eof = s->gz_end = false;
    s->zs.avail_in = 0;
    s->zs.next_in = s->zin;
    inflateReset(&s->zs);
    r->state = PARSE_HEADER;
    r->batch_end = 0;
    r->lane = (struct lane){ 0 };
    return 0;
}

/*
 * The metadata of the first batch, before it is handed out: xentrace
 * writes it first, 4 KiB; a longer first batch waits to be read.  Not of
 * a batch of a CPU no Xen has, which the indexed reader skips as damage:
 * both tell the same metadata.
 */
static void peek_metadata(struct xt_reader *r)
{
    struct stream *s = r->s;
    unsigned int size = rec_size(rd32(s->buf + s->head));
    struct lane l = { .base = s->buf + s->head, .meta = true };
    uint32_t bytes, cpu;

    if ( fill(r, size, -1) != FILL_OK )
        return;
    cpu = rd32(s->buf + s->head + words_at(rd32(s->buf + s->head)));
    bytes = rd32(s->buf + s->head + words_at(rd32(s->buf + s->head)) + 4);
    if ( bytes > STREAM_BUF / 2 || cpu >= XT_CPUS_MAX )
        return;
    fill(r, size + bytes, -1);
    l.base = s->buf + s->head;
    l.f.pos = size;
    l.f.lim = s->tail - s->head < size + bytes ? s->tail - s->head : size + bytes;
    check_lanes(r, &l, 1);
}

/*
 * Start reading @s: undo gzip, check the first word, and, for a seekable
 * gzip file, count it all.
 */
static int stream_open(struct xt_reader *r, struct stream *s,
                       unsigned int flags)
{
    uint32_t first;
    struct span sp;
    ssize_t read;
    int got;

    r->s = s;
    s->buf = malloc(STREAM_BUF);
    if ( !s->buf )
        return -1;
    /* What a first read gives: enough to tell gzip and a trace. */
    do
        read = src_read(s, s->buf + s->tail, GZIP_BUF - s->tail);
    while ( read > 0 && s->tail + read < 4 && (s->tail += read) );
    if ( read > 0 )
        s->tail += read;
    if ( !(flags & XT_READ_NO_GZIP) && starts_gzip(s->buf, s->tail) )
    {
        s->zin = malloc(GZIP_BUF);
        if ( !s->zin || inflateInit2(&s->zs, 16 + MAX_WBITS) != Z_OK )
        {
            errno = ENOMEM;
            return -1;
        }
        s->gz = true;
        memcpy(s->zin, s->buf, s->tail);
        s->zs.next_in = s->zin;
        s->zs.avail_in = s->tail;
        s->head = s->tail = 0;
        r->info.gzip = true;
    }
    got = fill(r, 4, -1);
    if ( got != FILL_OK )
    {
        errno = s->tail == 0 && !r->info.truncated ? ENODATA :
                r->info.truncated_why == XT_BAD_GZIP ? EIO : EILSEQ;
        return -1;
    }
    first = rd32(s->buf);
    if ( !is_cpu_change(first) )
    {
        errno = is_cpu_change(__builtin_bswap32(first)) ? EBADMSG : EILSEQ;
        return -1;
    }
    if ( !s->seekable || !s->gz || s->follow )
    {
        r->info.streamed = true;
        peek_metadata(r);
        return 0;
    }
    while ( (got = stream_next(r, &sp, -1)) == FILL_OK )
        ;
    if ( got < 0 || sort_slots(r) || stream_rewind(r) )
        return -1;
    r->info.size = r->info.end;
    r->counted = true;
    return 0;
}

/*
 * Opening
 * =======
 */

static struct xt_reader *open_fail(struct xt_reader *r)
{
    int err = errno;

    xt_reader_close(r);
    errno = err;
    return NULL;
}

/* An indexed reader of @r->data. */
static struct xt_reader *open_indexed(struct xt_reader *r)
{
    uint32_t first;

    r->info.size = r->size;
    if ( r->size == 0 )
    {
        errno = ENODATA;
        return open_fail(r);
    }
    first = r->size >= 4 ? rd32(r->data) : 0;
    if ( !is_cpu_change(first) )
    {
        errno = is_cpu_change(__builtin_bswap32(first)) ? EBADMSG : EILSEQ;
        return open_fail(r);
    }
    if ( index_input(r) || sort_slots(r) )
        return open_fail(r);
    return r;
}

static struct xt_reader *open_stream(struct xt_reader *r, int fd,
                                     const void *mem, size_t len,
                                     unsigned int flags)
{
    struct stream *s = calloc(1, sizeof(*s));
    struct stat st;

    if ( !s )
        return open_fail(r);
    s->fd = fd;
    s->mem = mem;
    s->mem_len = len;
    s->follow = flags & XT_READ_FOLLOW;
    if ( fd >= 0 && fstat(fd, &st) == 0 )
    {
        s->seekable = S_ISREG(st.st_mode);
        s->pollable = !s->seekable;
        /*
         * A pipe of 64 KiB costs a read(2) and a wake-up of the writer per
         * 64 KiB: as large as an unprivileged user may have it (1 MiB by
         * default), it costs a sixteenth.  Where it cannot grow, it works
         * as it is.
         */
        if ( S_ISFIFO(st.st_mode) )
            fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES);
    }
    else if ( fd < 0 )
        s->seekable = !(flags & XT_READ_STREAM);
    if ( stream_open(r, s, flags) )
        return open_fail(r);
    if ( r->info.streamed )
        r->info.size = 0;
    return r;
}

struct xt_reader *xt_reader_open_mem(const void *data, size_t len,
                                     unsigned int flags)
{
    struct xt_reader *r = calloc(1, sizeof(*r));

    if ( !r )
        return NULL;
    if ( (flags & XT_READ_STREAM) ||
         (!(flags & XT_READ_NO_GZIP) && starts_gzip(data, len)) )
        return open_stream(r, -1, data, len, flags);
    r->data = data;
    r->size = len;
    return open_indexed(r);
}

struct xt_reader *xt_reader_open_fd(int fd, unsigned int flags)
{
    struct xt_reader *r = calloc(1, sizeof(*r));
    struct stat st;
    uint8_t magic[2];

    if ( !r )
        return NULL;
    if ( fstat(fd, &st) )
        return open_fail(r);
    if ( !S_ISREG(st.st_mode) || (flags & (XT_READ_FOLLOW | XT_READ_STREAM)) ||
         (!(flags & XT_READ_NO_GZIP) && pread(fd, magic, 2, 0) == 2 &&
          starts_gzip(magic, 2)) )
        return open_stream(r, fd, NULL, 0, flags);
    if ( (uint64_t)st.st_size > SIZE_MAX )
    {
        errno = EFBIG;
        return open_fail(r);
    }
    if ( st.st_size > 0 )
    {
        r->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if ( r->map == MAP_FAILED )
        {
            r->map = NULL;
            return open_fail(r);
        }
        r->map_len = st.st_size;
        madvise(r->map, r->map_len, MADV_SEQUENTIAL);
        r->data = r->map;
        r->size = r->map_len;
    }
    return open_indexed(r);
}

struct xt_reader *xt_reader_open(const char *path, unsigned int flags)
{
    struct xt_reader *r;
    int fd, err;

    if ( !path || !strcmp(path, "-") )
        return xt_reader_open_fd(STDIN_FILENO, flags);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if ( fd < 0 )
        return NULL;
    r = xt_reader_open_fd(fd, flags);
    err = errno;
    if ( r && r->s )
        r->s->own_fd = true;    /* the reader's now: closed with it */
    else
        close(fd);
    errno = err;
    return r;
}

void xt_reader_close(struct xt_reader *r)
{
    if ( !r )
        return;
    if ( r->s && r->s->own_fd )
        close(r->s->fd);
    stream_free(r->s);
    if ( r->map )
        munmap(r->map, r->map_len);
    free(r->batches);
    free(r->slots);
    hashtab_free(&r->cpus);
    domains_free(&r->domains);
    dom0_table_free(&r->dom0);
    masks_free(&r->masks);
    free(r);
}

const char *xt_reader_strerror(int err)
{
    if ( err == EILSEQ )
        return "not a trace file";
    if ( err == EBADMSG )
        return "trace file of the other byte order";
    if ( err == ENODATA )
        return "no records";
    if ( err == ESPIPE )
        return "needs a seekable input (a file, not a pipe)";
    if ( err == EIO )
        return "broken gzip stream";
    return strerror(err);
}

/*
 * What the file holds
 * ===================
 */

void xt_reader_stop_following(struct xt_reader *r)
{
    if ( r->s )
        r->s->stop = 1;
}

const struct xt_reader_info *xt_reader_info(const struct xt_reader *r)
{
    return &r->info;
}

const struct xt_domain_info *xt_reader_domain(const struct xt_reader *r,
                                              uint32_t domid)
{
    return domains_find(&r->domains, domid);
}

const struct xt_dom0_info *xt_reader_dom0(const struct xt_reader *r)
{
    return &r->dom0.info;
}

bool xt_reader_dom0_clock(const struct xt_reader *r, struct xt_dom0_clock *c)
{
    return dom0_clock(&r->dom0, c);
}

bool xt_reader_is_dom0_lane(const struct xt_reader *r, unsigned int cpu)
{
    return xt_dom0_is_lane(&r->dom0.info, cpu);
}

const struct xt_dom0_type *xt_reader_dom0_type(const struct xt_reader *r,
                                               unsigned int type)
{
    return dom0_type(&r->dom0, type);
}

unsigned int xt_reader_nr_domains(const struct xt_reader *r)
{
    return domains_count(&r->domains);
}

const struct xt_domain_info *xt_reader_domain_at(const struct xt_reader *r,
                                                 unsigned int i)
{
    return domains_at(&r->domains, i);
}

unsigned int xt_reader_nr_mask_periods(const struct xt_reader *r)
{
    return r->masks.nr;
}

const struct xt_mask_period *xt_reader_mask_period(const struct xt_reader *r,
                                                   unsigned int i)
{
    return masks_at(&r->masks, i, r->info.meta.nr_cpus);
}

uint64_t xt_reader_masks_dropped(const struct xt_reader *r)
{
    return r->masks.dropped;
}

void xt_reader_set_xen_version(struct xt_reader *r, uint32_t version)
{
    r->xen_version = version;
}

uint32_t xt_reader_xen_version(const struct xt_reader *r)
{
    return version_of(r);
}

const char *xt_reader_damage(const struct xt_reader *r, char *buf,
                             size_t size)
{
    const struct xt_reader_info *in = &r->info;
    size_t len = 0;

    if ( in->damage == XT_DAMAGE_NONE )
        return NULL;
    buf[0] = '\0';
    if ( in->skips )
        len = snprintf(buf, size, "corrupt at offset %" PRIu64 " (%s): %"
                       PRIu64 " bytes skipped in %" PRIu64 " place%s",
                       in->damage_offset, xt_bad_text(in->damage_why),
                       in->skipped, in->skips, in->skips == 1 ? "" : "s");
    if ( in->truncated && len < size )
        snprintf(buf + len, size - len, "%struncated at offset %" PRIu64
                 "%s%s%s, the last batch lacks %" PRIu64 " bytes",
                 len ? "; " : "", in->truncated_at,
                 in->truncated_why ? " (" : "",
                 in->truncated_why ? xt_bad_text(in->truncated_why) : "",
                 in->truncated_why ? ")" : "", in->missing);
    return buf;
}

int xt_reader_status(const struct xt_reader *r)
{
    return r->info.damage == XT_DAMAGE_NONE ? 0 : XT_EXIT_DAMAGED;
}

const struct xt_cpu_info *xt_reader_cpu(const struct xt_reader *r,
                                        unsigned int i)
{
    return i < r->nr_slots ? &r->slots[i].info : NULL;
}

bool xt_record_lost(const struct xt_record *rec, struct xt_lost *lost)
{
    const uint32_t *w = rec->extra;

    if ( rec->event != TRC_LOST_RECORDS ||
         rec->nr_extra < XT_LOST_RECORDS_WORDS )
        return false;
    lost->count = w[XT_LOST_RECORDS_COUNT];
    lost->domain = XT_VD_DOM(w[XT_LOST_RECORDS_LOST_ON]);
    lost->vcpu = XT_VD_VCPU(w[XT_LOST_RECORDS_LOST_ON]);
    lost->first_tsc = w[XT_LOST_RECORDS_FIRST_TSC] |
                      (uint64_t)w[XT_LOST_RECORDS_FIRST_TSC + 1] << 32;
    return true;
}

/*
 * A stream to be read from its start: once, or again where it was
 * counted at open (a seekable gzip file).  -1 with EBUSY otherwise.
 */
static int stream_start(struct xt_reader *r)
{
    uint64_t i;

    if ( r->busy || (r->started && !r->counted) )
    {
        errno = EBUSY;
        return -1;
    }
    if ( r->started && stream_rewind(r) )
        return -1;
    for ( i = 0; i < r->nr_slots; i++ )
        r->slots[i].merge_tsc = 0;
    r->started = r->busy = true;
    return 0;
}

/*
 * Iterators
 * =========
 */

/* A walk through batches: the whole file, or one CPU's chain. */
struct cursor {
    uint64_t batch;             /* the current one, NO_BATCH at the end */
    uint64_t pos;               /* its next record (or CPU-change record) */
    bool chain;                 /* follow batch->next, not batch + 1 */
};

/*
 * XT_ORDER_TSC's merge key: the next record's TSC, ties broken by slot
 * (indexed: slots are in CPU order) or CPU (streamed); KEY_DONE when the
 * slot has no more.  One integer compare orders two.
 */
typedef tournament_key merge_key;
#define KEY_DONE        TOURNAMENT_DONE

/* Streamed XT_ORDER_TSC: a CPU's segs waiting. */
struct waiting {
    struct seg *head, *tail;
    uint32_t slot;
};

/* A batch's words, where they are not in place: xt_iter_batch(). */
struct words {
    uint32_t *w;
    size_t cap;
};

/* What an iterator hands out: records or batches, not both. */
enum taking { TAKING_ANY, TAKING_RECORDS, TAKING_BATCHES };

struct xt_iter {
    struct xt_reader *r;
    enum xt_order order;
    bool special;
    bool nowait;                /* XT_ITER_NOWAIT */
    enum taking taking;
    struct words copy;          /* the last batch, where copied */
    /* Indexed */
    uint64_t *last_tsc;         /* per slot, XT_ORDER_FILE and _TSC */
    uint64_t cpu_tsc;           /* XT_ORDER_CPU's */
    struct cursor file;         /* XT_ORDER_FILE and _CPU */
    struct cursor *cursors;     /* XT_ORDER_TSC: one per slot */
    struct tournament tree;     /* XT_ORDER_TSC: of the slots, or
                                   streamed, of the CPU numbers */
    /* Streamed */
    struct span span;           /* XT_ORDER_FILE: what is being handed out */
    size_t span_pos;
    struct waiting *by_cpu;     /* XT_ORDER_TSC: per CPU number */
    size_t by_cpu_cap;
    uint64_t waiting;           /* bytes of records in segs */
    struct seg *free_segs[SEG_CLASSES];  /* used up, by size class */
    size_t free_bytes;          /* of their room */
    uint64_t last_out;          /* the TSC of the last record handed out */
    uint64_t late_batch;        /* the end of the last batch found late */
    bool draining;              /* input paused: hand out what waits, */
    uint64_t look_below;        /* looking for more when less waits */
    bool said_eagain;           /* XT_ITER_NOWAIT: now wait for input */
};

static void cursor_enter(const struct xt_iter *it, struct cursor *c,
                         uint64_t batch)
{
    c->batch = batch;
    if ( batch != NO_BATCH )
        c->pos = it->special ? it->r->batches[batch].hdr
                             : it->r->batches[batch].start;
}

/* Move the cursor on to the batch after its own: its CPU's, or the file's. */
static void cursor_next_batch(const struct xt_iter *it, struct cursor *c)
{
    const struct xt_reader *r = it->r;

    cursor_enter(it, c, c->chain ? r->batches[c->batch].next
                        : c->batch + 1 < r->nr_batches ? c->batch + 1
                                                       : NO_BATCH);
}

/*
 * Put the cursor on its next record, past the pads and CPU-change records
 * that the iterator skips; false at its end.  Records are not decoded
 * here: the merge only needs the TSC of the record at the cursor.
 */
static bool cursor_seek(const struct xt_iter *it, struct cursor *c)
{
    const struct xt_reader *r = it->r;

    while ( c->batch != NO_BATCH )
    {
        const struct batch *b = &r->batches[c->batch];

        for ( ; c->pos < b->end; c->pos += rec_size(rd32(r->data + c->pos)) )
            if ( it->special ||
                 !is_special(TRC_HD_TO_EVENT(rd32(r->data + c->pos))) )
                return true;
        cursor_next_batch(it, c);
    }
    return false;
}

/* Decode the record at the cursor (cursor_seek() found one), step on. */
static void cursor_take(struct xt_iter *it, struct cursor *c,
                        struct xt_record *rec)
{
    const struct xt_reader *r = it->r;
    const struct batch *b = &r->batches[c->batch];
    const uint8_t *p = r->data + c->pos;

    decode(p, r->data + r->size, c->pos, r->slots[b->slot].info.cpu,
           c->chain && it->order == XT_ORDER_CPU ? &it->cpu_tsc
                                                 : &it->last_tsc[b->slot],
           rec);
    rec->cpu_index = b->slot;
    rec->xen_version = version_of(r);
    c->pos += rec_size(rd32(p));
}

/* The TSC of the record at the cursor of @slot, as decode() will give it. */
static uint64_t cursor_tsc(const struct xt_iter *it, unsigned int slot)
{
    const uint8_t *p = it->r->data + it->cursors[slot].pos;

    return TRC_HD_INCLUDES_CYCLE_COUNT(rd32(p)) ? rd64(p + 4)
                                                : it->last_tsc[slot];
}

static merge_key next_key(const struct xt_iter *it, unsigned int slot)
{
    if ( !cursor_seek(it, &it->cursors[slot]) )
        return KEY_DONE | slot;
    return (merge_key)cursor_tsc(it, slot) << 32 | slot;
}

static merge_key first_key(void *it, unsigned int slot)
{
    struct xt_iter *i = it;

    i->cursors[slot].chain = true;
    cursor_enter(i, &i->cursors[slot], i->r->slots[slot].first_batch);
    return next_key(i, slot);
}

/* The merge is a tournament of the slots (tournament.h). */
static int start_merge(struct xt_iter *it)
{
    const struct xt_reader *r = it->r;

    it->cursors = calloc(r->nr_slots ? r->nr_slots : 1, sizeof(*it->cursors));
    if ( !it->cursors )
        return -1;
    return tournament_start(&it->tree, r->nr_slots, first_key, it);
}

static int indexed_next(struct xt_iter *it, struct xt_record *rec)
{
    unsigned int slot;

    if ( it->order != XT_ORDER_TSC )
    {
        if ( !cursor_seek(it, &it->file) )
            return 0;
        cursor_take(it, &it->file, rec);
        return 1;
    }
    if ( tournament_over(&it->tree) )
        return 0;
    slot = tournament_source(&it->tree);
    cursor_take(it, &it->cursors[slot], rec);
    tournament_set(&it->tree, slot, next_key(it, slot));
    return 1;
}

/*
 * How long a streamed iterator waits for input before it says EAGAIN: not
 * at all, with XT_ITER_NOWAIT, so that the caller can flush its output;
 * then, having said it, until input comes (-1).
 */
static int wait_of(const struct xt_iter *it)
{
    return it->nowait && !it->said_eagain ? 0 : -1;
}

/* What stream_next() said, for the caller: EAGAIN for FILL_WAIT. */
static int said(struct xt_iter *it, int got)
{
    it->said_eagain = got == FILL_WAIT;
    if ( got == FILL_WAIT )
        errno = EAGAIN;
    return got;
}

/*
 * The stream's next span into it->span, to be handed out from its start
 * (a CPU-change record's as nothing unless @cpu_change): 1, 0 at the
 * end, or -1 with errno (EAGAIN: XT_ITER_NOWAIT, nothing in yet).
 */
static int next_span(struct xt_iter *it, bool cpu_change)
{
    int got = said(it, stream_next(it->r, &it->span, wait_of(it)));

    if ( got == FILL_WAIT )
        return -1;
    if ( got != FILL_OK )
        return got == FILL_END ? 0 : -1;
    it->span_pos = 0;
    if ( it->span.cpu_change && !cpu_change )
        it->span.len = 0;
    return 1;
}

static int stream_file_next(struct xt_iter *it, struct xt_record *rec)
{
    struct xt_reader *r = it->r;
    struct span *sp = &it->span;
    int got;

    for ( ;; )
    {
        while ( it->span_pos < sp->len )
        {
            const uint8_t *p = sp->p + it->span_pos;

            decode(p, sp->p + sp->len, sp->offset + it->span_pos,
                   r->slots[sp->slot].info.cpu, &r->slots[sp->slot].merge_tsc,
                   rec);
            rec->cpu_index = sp->slot;
            rec->xen_version = version_of(r);
            it->span_pos += rec_size(rd32(p));
            if ( it->special || !is_special(rec->event) )
                return 1;
        }
        if ( (got = next_span(it, it->special)) <= 0 )
            return got;
    }
}

/*
 * Streamed XT_ORDER_TSC.  Each span of records is copied into a seg on
 * its CPU's list, and a tournament of the CPUs (by CPU number: ties go to
 * the lower CPU) finds the least next record.  A seg used up goes to a
 * free list of its size class (a power of two), so that once the window
 * has filled, spans are copied into segs the merge already has rather
 * than into new ones; the free lists keep at most MERGE_WINDOW bytes.
 */
static unsigned int seg_class(size_t len)
{
    unsigned int c = SEG_CLASS_MIN;

    while ( ((size_t)1 << c) < len )
        c++;
    return c - SEG_CLASS_MIN;
}

/* A seg for @len bytes: a free one of its class, or a new one. */
static struct seg *seg_get(struct xt_iter *it, size_t len)
{
    unsigned int c = seg_class(len);
    struct seg *g = it->free_segs[c];

    if ( g )
    {
        it->free_segs[c] = g->next;
        it->free_bytes -= (size_t)1 << (c + SEG_CLASS_MIN);
        return g;
    }
    return malloc(sizeof(*g) + ((size_t)1 << (c + SEG_CLASS_MIN)));
}

static void seg_put(struct xt_iter *it, struct seg *g)
{
    unsigned int c = seg_class(g->len);
    size_t size = (size_t)1 << (c + SEG_CLASS_MIN);

    if ( it->free_bytes + size > MERGE_WINDOW )
    {
        free(g);
        return;
    }
    g->next = it->free_segs[c];
    it->free_segs[c] = g;
    it->free_bytes += size;
}

static void free_seg_list(struct seg *g)
{
    struct seg *next;

    for ( ; g; g = next )
    {
        next = g->next;
        free(g);
    }
}

/* The key of @cpu's next waiting record. */
static merge_key seg_key(const struct xt_iter *it, unsigned int cpu)
{
    const struct waiting *w = &it->by_cpu[cpu];
    const struct seg *g = w->head;
    const uint8_t *p = g->data + g->pos;
    uint64_t tsc = TRC_HD_INCLUDES_CYCLE_COUNT(rd32(p))
                   ? rd64(p + 4) : it->r->slots[w->slot].merge_tsc;

    return tournament_key_of(tsc, cpu);
}

/* Queue a span's records on its CPU for the merge. */
static int merge_add(struct xt_iter *it, const struct span *sp)
{
    struct xt_reader *r = it->r;
    unsigned int cpu = r->slots[sp->slot].info.cpu;
    uint32_t hdr = rd32(sp->p);
    struct waiting *w;
    struct seg *g;

    if ( sp->cpu_change && !it->special )
        return 0;
    if ( array_fit(&it->by_cpu, &it->by_cpu_cap, cpu + 1,
                   sizeof(*it->by_cpu)) ||
         tournament_grow(&it->tree, cpu + 1) )
        return -1;
    /* A batch whose records are older than what has gone out is late. */
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) && !sp->cpu_change &&
         rd64(sp->p + 4) < it->last_out &&
         it->late_batch != r->batch_end && !r->counted )
    {
        it->late_batch = r->batch_end;
        if ( !r->info.late_batches++ )
            r->info.late_offset = sp->offset;
    }
    if ( !(g = seg_get(it, sp->len)) )
        return -1;
    g->next = NULL;
    g->offset = sp->offset;
    g->len = sp->len;
    g->pos = 0;
    memcpy(g->data, sp->p, sp->len);
    w = &it->by_cpu[cpu];
    it->waiting += sp->len;
    if ( w->tail )
    {
        w->tail->next = g;
        w->tail = g;
        return 0;
    }
    *w = (struct waiting){ .head = g, .tail = g, .slot = sp->slot };
    tournament_set(&it->tree, cpu, seg_key(it, cpu));
    return 0;
}

/*
 * Read until MERGE_WINDOW bytes of records wait, the input ends, or
 * (records waiting) nothing more comes in HOLD_MS: a live capture's
 * batches are handed out within that of their coming in.  FILL_WAIT with
 * nothing waiting.  At the input's end, what waits is drained without
 * asking the input again.
 */
static int merge_fill(struct xt_iter *it)
{
    struct span sp;

    while ( it->waiting < MERGE_WINDOW )
    {
        bool some = !tournament_over(&it->tree);
        int got;

        /*
         * Draining, an input found quiet is looked at again DRAIN_LOOK
         * bytes of records later, not at every record: a poll(2) a record
         * cost a live capture's reader 8x its work, and a clock read a
         * record a fifth of it.
         */
        if ( some && it->draining && it->waiting > it->look_below )
            return FILL_OK;
        got = stream_next(it->r, &sp, !some ? wait_of(it)
                                    : it->draining ? 0 : HOLD_MS);
        if ( got < 0 )
            return -1;
        if ( got != FILL_OK )
        {
            if ( !some )
                return got;
            it->draining = true;
            it->look_below = got == FILL_WAIT && it->waiting > DRAIN_LOOK
                             ? it->waiting - DRAIN_LOOK : 0;
            return FILL_OK;
        }
        if ( merge_add(it, &sp) )
            return -1;
    }
    return FILL_OK;
}

static int stream_tsc_next(struct xt_iter *it, struct xt_record *rec)
{
    struct xt_reader *r = it->r;

    for ( ;; )
    {
        int got = said(it, merge_fill(it));
        unsigned int cpu, size;
        struct waiting *w;
        struct seg *g;
        const uint8_t *p;

        if ( got == FILL_WAIT )
            return -1;
        if ( got != FILL_OK )
            return got == FILL_END ? 0 : -1;
        cpu = tournament_source(&it->tree);
        w = &it->by_cpu[cpu];
        g = w->head;
        p = g->data + g->pos;
        size = rec_size(rd32(p));
        decode(p, g->data + g->len, g->offset + g->pos, cpu,
               &r->slots[w->slot].merge_tsc, rec);
        rec->cpu_index = w->slot;
        rec->xen_version = version_of(r);
        g->pos += size;
        it->waiting -= size;
        if ( g->pos == g->len )
        {
            w->head = g->next;
            w->tail = w->head ? w->tail : NULL;
            seg_put(it, g);
        }
        tournament_set(&it->tree, cpu, w->head ? seg_key(it, cpu)
                                               : TOURNAMENT_DONE | cpu);
        it->draining = it->draining && !tournament_over(&it->tree);
        if ( rec->tsc > it->last_out )
            it->last_out = rec->tsc;
        if ( it->special || !is_special(rec->event) )
            return 1;
    }
}

/*
 * Batches
 * -------
 */

/*
 * @len words at @p into @b, 4-byte aligned: in place where they are
 * aligned, else copied into the iterator's buffer.
 */
static int batch_words(struct xt_iter *it, const uint8_t *p, size_t len,
                       struct xt_batch *b)
{
    if ( (uintptr_t)p & 3 )
    {
        struct words *c = &it->copy;

        if ( array_fit(&c->w, &c->cap, len ? len : 1, sizeof(*c->w)) )
            return -1;
        memcpy(c->w, p, len * 4);
        p = (const uint8_t *)c->w;
    }
    b->words = (const uint32_t *)p;
    b->len = len;
    return 0;
}

static int indexed_batch(struct xt_iter *it, struct xt_batch *b)
{
    const struct xt_reader *r = it->r;
    struct cursor *c = &it->file;
    const struct batch *at;
    uint64_t from;

    if ( c->batch == NO_BATCH )
        return 0;
    at = &r->batches[c->batch];
    from = c->pos > at->start ? c->pos : at->start;
    *b = (struct xt_batch){
        .cpu = r->slots[at->slot].info.cpu, .cpu_index = at->slot,
        .offset = from,
    };
    if ( batch_words(it, r->data + from, (at->end - from) / 4, b) )
        return -1;
    cursor_next_batch(it, c);
    return 1;
}

static int stream_batch(struct xt_iter *it, struct xt_batch *b)
{
    struct xt_reader *r = it->r;
    struct span *sp = &it->span;
    int got;

    for ( ;; )
    {
        if ( it->span_pos < sp->len )
        {
            *b = (struct xt_batch){
                .cpu = r->slots[sp->slot].info.cpu, .cpu_index = sp->slot,
                .offset = sp->offset + it->span_pos,
            };
            if ( batch_words(it, sp->p + it->span_pos,
                             (sp->len - it->span_pos) / 4, b) )
                return -1;
            it->span_pos = sp->len;
            return 1;
        }
        if ( (got = next_span(it, false)) <= 0 )
            return got;
    }
}

/* Whether @it may hand out what @taking asks; EINVAL if not. */
static bool may_take(struct xt_iter *it, enum taking taking)
{
    if ( it->taking != TAKING_ANY && it->taking != taking )
    {
        errno = EINVAL;
        return false;
    }
    it->taking = taking;
    return true;
}

int xt_iter_batch(struct xt_iter *it, struct xt_batch *b)
{
    if ( it->order == XT_ORDER_TSC )
        errno = EINVAL;
    if ( it->order == XT_ORDER_TSC || !may_take(it, TAKING_BATCHES) )
        return -1;
    return it->r->s ? stream_batch(it, b) : indexed_batch(it, b);
}

struct xt_iter *xt_iter_new(struct xt_reader *r, enum xt_order order,
                            unsigned int cpu, unsigned int flags)
{
    struct xt_iter *it;

    if ( order != XT_ORDER_FILE && order != XT_ORDER_CPU &&
         order != XT_ORDER_TSC )
    {
        errno = EINVAL;
        return NULL;
    }
    if ( r->s && order == XT_ORDER_CPU )
    {
        errno = ESPIPE;
        return NULL;
    }
    if ( r->s && stream_start(r) )
        return NULL;
    it = calloc(1, sizeof(*it));
    if ( !it )
        return NULL;
    it->r = r;
    it->order = order;
    it->special = flags & XT_ITER_SPECIAL;
    it->nowait = flags & XT_ITER_NOWAIT;
    if ( r->s && order == XT_ORDER_TSC && tournament_grow(&it->tree, 1) )
        goto fail;
    if ( r->s )
        return it;
    /* One CPU's order needs one TSC: 10^5 of them cost no 10^10. */
    it->last_tsc = order == XT_ORDER_CPU ? NULL :
                   calloc(r->nr_slots ? r->nr_slots : 1, sizeof(*it->last_tsc));
    if ( order != XT_ORDER_CPU && !it->last_tsc )
        goto fail;
    if ( order == XT_ORDER_FILE )
        cursor_enter(it, &it->file, r->nr_batches ? 0 : NO_BATCH);
    else if ( order == XT_ORDER_CPU )
    {
        int64_t s = find_slot(r, cpu);

        it->file.chain = true;
        cursor_enter(it, &it->file, s < 0 ? NO_BATCH : r->slots[s].first_batch);
    }
    else if ( start_merge(it) )
        goto fail;
    return it;

 fail:
    xt_iter_free(it);
    return NULL;
}

int xt_iter_next(struct xt_iter *it, struct xt_record *rec)
{
    if ( !may_take(it, TAKING_RECORDS) )
        return -1;
    if ( !it->r->s )
        return indexed_next(it, rec);
    return it->order == XT_ORDER_TSC ? stream_tsc_next(it, rec)
                                     : stream_file_next(it, rec);
}

void xt_iter_free(struct xt_iter *it)
{
    size_t i;

    if ( !it )
        return;
    /* What waits for the merge goes: the next reading starts anew. */
    if ( it->r->s )
        it->r->busy = false;
    for ( i = 0; i < it->by_cpu_cap; i++ )
        free_seg_list(it->by_cpu[i].head);
    for ( i = 0; i < SEG_CLASSES; i++ )
        free_seg_list(it->free_segs[i]);
    free(it->last_tsc);
    free(it->cursors);
    tournament_free(&it->tree);
    free(it->by_cpu);
    free(it->copy.w);
    free(it);
}
