/*
 * libxentrace, trace files: per-CPU records out as page-aligned batches.
 *
 * The file (docs/trace-format.md) is a flat stream of t_rec records,
 * without a file header, cut into batches:
 *
 *   offset 0      +-------------------------------------------------+
 *                 | CPU_CHANGE {cpu a, bytes}    (12 bytes, no TSC) |
 *                 | metadata records (first batch of the file only) |
 *                 | CPU a's records, as Xen wrote them              |
 *                 | WRAP_BUFFER pads (<= 32 bytes each, no TSC)     |
 *   k * 4096      +-------------------------------------------------+
 *                 | CPU_CHANGE {cpu b, bytes}                       |
 *                 | ...                                             |
 *
 * "bytes" counts everything after the CPU-change record up to the next
 * page boundary, pads included, so readers that follow the byte counts
 * and readers that read record after record both land on the next batch.
 * A flush writes one batch per CPU that holds records, in ascending CPU
 * order: an epoch, as xenalyze calls it.  The metadata goes into the
 * first batch written, the lowest CPU's of the first flush with records;
 * before the first batch put (xt_writer_put()), or if there never is a
 * batch, it goes alone, as CPU 0's batch.
 *
 * Staging.  A caller may stage records itself, in memory laid out as a
 * batch, and put them (xt_writer_put()); or add them here.  Each CPU's
 * records added collect in a page-aligned buffer laid out as its batch
 * will be: room for the CPU-change record (and the metadata
 * while it is pending), then the records.  Flushing fills in the header
 * and the pads in place and writes the buffer with one write(2): no copy,
 * and O_DIRECT works since address, length and file offset are all
 * multiples of the page.
 *
 * Flight recorder (ring_bytes).  A flush copies its batches into an epoch
 * of exactly sized buffers instead of writing them; epochs form a FIFO of
 * whole batches, so nothing ever straddles the end of a ring (upstream's
 * -M overflows its heap there).  The oldest epoch is dropped as long as
 * the others hold ring_bytes without it: what is kept is at least the
 * newest ring_bytes, and less than one epoch more.  (Keeping at most
 * ring_bytes instead kept nearly nothing when epochs were about as big
 * as the ring: the small last flush of a capture alone.)
 * xt_writer_close() writes the kept epochs, with the metadata inserted
 * into the first batch.
 *
 * Failure.  The first error of a flush (a failed write, ENOSPC from the
 * reserve check, no memory) fails the writer for good: a regular
 * file is cut back to the end of its last complete batch, what was held
 * is dropped, and every later call returns that first error.  The caller
 * is expected to stop.
 *
 * A writer is thread-compatible: use it from one thread at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <stdint.h>
#include <public/trace.h>

#include "libxentrace.h"

#define XT_PAGE         4096u       /* batches start at multiples of this */
#define HDR_BYTES       XT_BATCH_HEAD   /* the TRC_TRACE_CPU_CHANGE record */
#define HDR_WORD        (TRC_TRACE_CPU_CHANGE | (2u << TRACE_EXTRA_SHIFT))
#define PAD_MAX_BYTES   32u         /* a pad: header and up to 7 words */
#define META_WORDS      19u         /* the six metadata records */
#define META_BYTES      (META_WORDS * 4u)
#define DEFAULT_BATCH   (256u * 1024)
/* Linux's largest write(2): a bigger batch could not go out in one. */
#define MAX_BATCH       0x7ffff000u

/* One CPU's records waiting for a flush: buf + HDR_BYTES + room. */
struct stage {
    uint8_t *buf;               /* page-aligned; NULL until first used */
    size_t cap;                 /* bytes at buf, a multiple of XT_PAGE */
    size_t room;                /* bytes kept free for the metadata */
    size_t len;                 /* bytes of records after the room */
};

/* A batch made: header, records, pads; @size is a multiple of XT_PAGE. */
struct batch {
    uint8_t *buf;
    size_t size;
    size_t records;             /* bytes of records from buf + HDR_BYTES */
    size_t pad;                 /* bytes of pads at its end */
    unsigned int cpu;
};

/* With ring_bytes: the batches of one flush, ascending CPUs. */
struct epoch {
    struct epoch *next;         /* the next newer epoch */
    size_t bytes;               /* sum of the batches' sizes */
    unsigned int nr;
    struct batch batch[];
};

struct xt_writer {
    int fd;
    bool regular;               /* a regular file: reserve and truncate */
    off_t end;                  /* offset after the last complete batch */
    size_t batch_bytes;
    size_t ring_bytes;
    uint64_t reserve_bytes;

    uint32_t meta[META_WORDS];  /* the metadata records */
    bool meta_pending;          /* not yet in a batch written */

    unsigned int nr_cpus;
    unsigned int nr_full;       /* CPUs holding batch_bytes or more */
    struct stage *stage;        /* [nr_cpus] */

    struct epoch *oldest, *newest;  /* the ring, oldest first */
    size_t ring_used;           /* bytes of batches in it */

    uint64_t bytes, padding;    /* see xt_writer_bytes() */
    int error;                  /* the first error of a flush, or 0 */
};

static size_t page_up(size_t n)
{
    return (n + XT_PAGE - 1) & ~(size_t)(XT_PAGE - 1);
}

static uint32_t *put_record(uint32_t *p, uint32_t event, unsigned int nr,
                            const uint32_t *words)
{
    *p++ = event | (nr << TRACE_EXTRA_SHIFT);
    memcpy(p, words, nr * 4);
    return p + nr;
}

/* The metadata records, no TSC: META_WORDS words at @m. */
static void make_metadata(uint32_t *m, const struct xt_metadata *md)
{
    const uint32_t format[] = { XT_FORMAT_VERSION };
    const uint32_t tool[] = { XT_VERSION_MAJOR, XT_VERSION_MINOR, XT_VERSION_PATCH };
    const uint32_t hz[] = { (uint32_t)md->tsc_hz,
                            (uint32_t)(md->tsc_hz >> 32) };
    const uint32_t cpus[] = { md->nr_cpus };
    const uint32_t xen[] = { md->xen_version };
    const uint32_t start[] = {
        (uint32_t)md->start_tsc, (uint32_t)(md->start_tsc >> 32),
        (uint32_t)md->start_sec, (uint32_t)((uint64_t)md->start_sec >> 32),
        md->start_nsec,
    };

    m = put_record(m, TRC_XT_FORMAT, 1, format);
    m = put_record(m, TRC_XT_TOOL, 3, tool);
    m = put_record(m, TRC_XT_TSC_HZ, 2, hz);
    m = put_record(m, TRC_XT_CPUS, 1, cpus);
    m = put_record(m, TRC_XT_START, 5, start);
    put_record(m, TRC_XT_XEN_VERSION, 1, xen);
}

/* Fill @n bytes (a multiple of 4) with TRC_TRACE_WRAP_BUFFER pads. */
static void pad(uint8_t *p, size_t n)
{
    while ( n )
    {
        size_t size = n < PAD_MAX_BYTES ? n : PAD_MAX_BYTES;
        uint32_t hdr = TRC_TRACE_WRAP_BUFFER |
                       (uint32_t)(size / 4 - 1) << TRACE_EXTRA_SHIFT;

        memcpy(p, &hdr, 4);
        memset(p + 4, 0, size - 4);
        p += size;
        n -= size;
    }
}

/*
 * Make CPU @cpu's batch in @buf, whose @records bytes of records start at
 * buf + HDR_BYTES + @room: move them to follow the metadata if @meta, or
 * the header if not (nothing moves if they are there already), fill in
 * the header and pad to the page.  @buf must have room for the batch.
 */
static struct batch make_batch(uint8_t *buf, unsigned int cpu, size_t room,
                               size_t records, const uint32_t *meta)
{
    size_t meta_bytes = meta ? META_BYTES : 0;
    size_t used = HDR_BYTES + meta_bytes + records;
    struct batch b = {
        .buf = buf, .size = page_up(used), .records = meta_bytes + records,
        .cpu = cpu,
    };
    uint32_t hdr[3] = { HDR_WORD, cpu, (uint32_t)(b.size - HDR_BYTES) };

    if ( room != meta_bytes )
        memmove(buf + HDR_BYTES + meta_bytes, buf + HDR_BYTES + room,
                records);
    memcpy(buf, hdr, HDR_BYTES);
    if ( meta )
        memcpy(buf + HDR_BYTES, meta, META_BYTES);
    b.pad = b.size - used;
    pad(buf + used, b.pad);
    return b;
}

static uint8_t *alloc_pages(size_t size)
{
    void *p;
    int rc = posix_memalign(&p, XT_PAGE, size);

    if ( rc )
    {
        errno = rc;
        return NULL;
    }
    return p;
}

/* Have @s hold at least @cap bytes, keeping what it holds. */
static int grow(struct stage *s, size_t cap)
{
    uint8_t *buf;

    if ( cap <= s->cap )
        return 0;
    cap = page_up(cap > s->cap + s->cap / 2 ? cap : s->cap + s->cap / 2);
    buf = alloc_pages(cap);
    if ( !buf )
        return -1;
    if ( s->buf )
        memcpy(buf, s->buf, HDR_BYTES + s->room + s->len);
    free(s->buf);
    s->buf = buf;
    s->cap = cap;
    return 0;
}

/* Drop what every CPU holds; the buffers stay, for reuse. */
static void drop_staged(struct xt_writer *w)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < w->nr_cpus; cpu++ )
        w->stage[cpu].len = 0;
    w->nr_full = 0;
}

/*
 * Whether @size more bytes leave reserve_bytes free: 0, ENOSPC, or the
 * error of fstatvfs().  Only for regular files: a pipe's file system
 * says nothing about the space the reader has (Linux reports 0 free).
 */
static int check_reserve(const struct xt_writer *w, size_t size)
{
    struct statvfs s;
    uint64_t avail;

    if ( !w->reserve_bytes || !w->regular )
        return 0;
    if ( fstatvfs(w->fd, &s) )
        return errno;
    if ( __builtin_mul_overflow((uint64_t)s.f_bavail, (uint64_t)s.f_frsize,
                                &avail) )
        avail = UINT64_MAX;
    /* Upstream computes avail - size unsigned and lets it wrap. */
    if ( avail < size || avail - size < w->reserve_bytes )
        return ENOSPC;
    return 0;
}

/*
 * Write all of @buf.  A short count is followed by a write of the rest:
 * a pipe returns one when a signal arrives mid-write, and on a full file
 * system the next write gives the reason (ENOSPC).  EINTR before anything
 * was written is retried too: records are not dropped for a signal.
 */
static int write_all(int fd, const uint8_t *buf, size_t size)
{
    while ( size )
    {
        ssize_t n = write(fd, buf, size);

        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 )
            return errno;
        if ( n == 0 )
            return EIO;
        buf += n;
        size -= n;
    }
    return 0;
}

/* The writer fails with @error: cut the file back, drop what is held. */
static int fail(struct xt_writer *w, int error)
{
    /* If this fails too, the caller still learns the first error. */
    if ( w->regular && !ftruncate(w->fd, w->end) )
        (void)lseek(w->fd, w->end, SEEK_SET);
    drop_staged(w);
    w->error = error;
    errno = error;
    return -1;
}

/* Write batch @b, or fail the writer. */
static int put_batch(struct xt_writer *w, const struct batch *b)
{
    int rc = check_reserve(w, b->size);

    if ( !rc )
        rc = write_all(w->fd, b->buf, b->size);
    if ( rc )
        return fail(w, rc);
    w->end += b->size;
    return 0;
}

static void count_batch(struct xt_writer *w, const struct batch *b)
{
    w->bytes += b->size;
    w->padding += b->pad;
}

/* The metadata, if still pending, for the batch about to be made. */
static const uint32_t *take_metadata(struct xt_writer *w)
{
    if ( !w->meta_pending )
        return NULL;
    w->meta_pending = false;
    return w->meta;
}

/*
 * With ring_bytes: copy CPU @cpu's staged records into a new batch of
 * @e.  Its buffer has room for the metadata too, so that the first batch
 * kept can take it at close without allocating.
 */
static int ring_batch(struct epoch *e, unsigned int cpu, const struct stage *s)
{
    uint8_t *buf = alloc_pages(page_up(HDR_BYTES + META_BYTES + s->len));

    if ( !buf )
        return -1;
    memcpy(buf + HDR_BYTES, s->buf + HDR_BYTES + s->room, s->len);
    e->batch[e->nr] = make_batch(buf, cpu, 0, s->len, NULL);
    e->bytes += e->batch[e->nr].size;
    e->nr++;
    return 0;
}

static void free_epoch(struct epoch *e)
{
    unsigned int i;

    for ( i = 0; i < e->nr; i++ )
        free(e->batch[i].buf);
    free(e);
}

/* Add @e as the newest epoch; drop the oldest while the rest hold enough. */
static void ring_keep(struct xt_writer *w, struct epoch *e)
{
    if ( w->oldest )
        w->newest->next = e;
    else
        w->oldest = e;
    w->newest = e;
    w->ring_used += e->bytes;

    while ( w->oldest != w->newest &&
            w->ring_used - w->oldest->bytes >= w->ring_bytes )
    {
        struct epoch *old = w->oldest;

        w->oldest = old->next;
        w->ring_used -= old->bytes;
        free_epoch(old);
    }
}

static int flush_to_ring(struct xt_writer *w, unsigned int nr_staged)
{
    struct epoch *e = calloc(1, sizeof(*e) + nr_staged * sizeof(e->batch[0]));
    unsigned int cpu;

    if ( !e )
        return fail(w, errno);
    for ( cpu = 0; cpu < w->nr_cpus; cpu++ )
    {
        const struct stage *s = &w->stage[cpu];

        if ( !s->len )
            continue;
        if ( ring_batch(e, cpu, s) )
        {
            int error = errno;

            free_epoch(e);
            return fail(w, error);
        }
        count_batch(w, &e->batch[e->nr - 1]);
    }
    ring_keep(w, e);
    drop_staged(w);
    return 0;
}

static int flush_to_file(struct xt_writer *w)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < w->nr_cpus; cpu++ )
    {
        struct stage *s = &w->stage[cpu];
        struct batch b;

        if ( !s->len )
            continue;
        b = make_batch(s->buf, cpu, s->room, s->len, take_metadata(w));
        if ( put_batch(w, &b) )
            return -1;
        count_batch(w, &b);
        s->len = 0;
    }
    w->nr_full = 0;
    return 0;
}

int xt_writer_flush(struct xt_writer *w)
{
    unsigned int cpu, nr_staged = 0;

    if ( w->error )
    {
        errno = w->error;
        return -1;
    }
    for ( cpu = 0; cpu < w->nr_cpus; cpu++ )
        nr_staged += w->stage[cpu].len != 0;
    if ( !nr_staged )
        return 0;
    return w->ring_bytes ? flush_to_ring(w, nr_staged) : flush_to_file(w);
}

int xt_writer_add(struct xt_writer *w, unsigned int cpu, const void *data,
                  size_t len)
{
    struct stage *s;
    size_t need;

    if ( w->error )
    {
        errno = w->error;
        return -1;
    }
    if ( cpu >= w->nr_cpus || len % 4 )
    {
        errno = EINVAL;
        return -1;
    }
    if ( !len )
        return 0;

    s = &w->stage[cpu];
    /*
     * While the metadata is pending, an empty stage keeps room for it in
     * front of the records: the first batch written takes it in place.
     * (The ring's batches take it at close, in buffers of their own.)
     */
    if ( !s->len )
        s->room = w->meta_pending && !w->ring_bytes ? META_BYTES : 0;
    /* s->len never passes this bound, so it cannot wrap. */
    if ( len > MAX_BATCH - HDR_BYTES - META_BYTES - s->len )
    {
        errno = EOVERFLOW;      /* flush first */
        return -1;
    }
    need = page_up(HDR_BYTES + s->room + s->len + len);
    if ( grow(s, need) )
        return -1;

    memcpy(s->buf + HDR_BYTES + s->room + s->len, data, len);
    if ( s->len < w->batch_bytes && s->len + len >= w->batch_bytes )
        w->nr_full++;
    s->len += len;
    return 0;
}

bool xt_writer_full(const struct xt_writer *w)
{
    return w->nr_full > 0;
}

size_t xt_batch_size(size_t records)
{
    return page_up(XT_BATCH_HEAD + records);
}

/* Nothing was ever written: the metadata alone, as CPU 0's batch. */
static int write_metadata_batch(struct xt_writer *w)
{
    uint8_t *buf = alloc_pages(XT_PAGE);
    struct batch b;
    int rc;

    if ( !buf )
        return fail(w, errno);
    b = make_batch(buf, 0, 0, 0, take_metadata(w));
    rc = put_batch(w, &b);
    if ( !rc )
        count_batch(w, &b);
    free(buf);
    return rc;
}

int xt_writer_put(struct xt_writer *w, unsigned int cpu, void *batch,
                  size_t records)
{
    struct batch b;

    if ( w->ring_bytes )
    {
        if ( xt_writer_add(w, cpu, (uint8_t *)batch + XT_BATCH_HEAD, records) )
            return -1;
        return xt_writer_full(w) ? xt_writer_flush(w) : 0;
    }
    if ( cpu >= w->nr_cpus || records % 4 || (uintptr_t)batch % XT_PAGE ||
         records > MAX_BATCH - XT_PAGE )
    {
        errno = EINVAL;
        return -1;
    }
    /* Records held by xt_writer_add() go first: each CPU's stay in order. */
    if ( xt_writer_flush(w) )
        return -1;
    /* The metadata opens the file: in a batch of its own, as at close. */
    if ( w->meta_pending && write_metadata_batch(w) )
        return -1;
    b = make_batch(batch, cpu, 0, records, NULL);
    if ( put_batch(w, &b) )
        return -1;
    count_batch(w, &b);
    return 0;
}

/*
 * Write the kept epochs, oldest first, the metadata in the first batch:
 * its buffer has room (ring_batch()), and the records move up for it.
 */
static int write_ring(struct xt_writer *w)
{
    struct epoch *e;
    unsigned int i;

    for ( e = w->oldest; e; e = e->next )
        for ( i = 0; i < e->nr; i++ )
        {
            struct batch *b = &e->batch[i];
            const uint32_t *meta = take_metadata(w);

            if ( meta )
                *b = make_batch(b->buf, b->cpu, 0, b->records, meta);
            if ( put_batch(w, b) )
                return -1;
        }
    return 0;
}

static void free_writer(struct xt_writer *w)
{
    unsigned int cpu;

    while ( w->oldest )
    {
        struct epoch *e = w->oldest;

        w->oldest = e->next;
        free_epoch(e);
    }
    for ( cpu = 0; cpu < w->nr_cpus; cpu++ )
        free(w->stage[cpu].buf);
    free(w->stage);
    free(w);
}

int xt_writer_close(struct xt_writer *w)
{
    int rc = xt_writer_flush(w), error;

    if ( !rc && w->ring_bytes )
        rc = write_ring(w);
    if ( !rc && w->meta_pending )
        rc = write_metadata_batch(w);
    error = errno;
    free_writer(w);
    errno = error;
    return rc;
}

struct xt_writer *xt_writer_open(int fd, const struct xt_metadata *meta,
                                 const struct xt_writer_opts *opts)
{
    static const struct xt_writer_opts defaults;
    struct xt_writer *w;
    struct stat st;

    if ( !opts )
        opts = &defaults;
    if ( !meta || !meta->nr_cpus || meta->start_nsec >= 1000000000 ||
         opts->batch_bytes > MAX_BATCH - XT_PAGE )
    {
        errno = EINVAL;
        return NULL;
    }
    if ( fstat(fd, &st) )
        return NULL;

    w = calloc(1, sizeof(*w));
    if ( !w )
        return NULL;
    w->fd = fd;
    w->regular = S_ISREG(st.st_mode);
    if ( w->regular )
    {
        /* Batches must start at multiples of the page in the file. */
        w->end = lseek(fd, 0, SEEK_CUR);
        if ( w->end < 0 || w->end % XT_PAGE )
        {
            errno = w->end < 0 ? errno : EINVAL;
            free(w);
            return NULL;
        }
    }
    /*
     * opts->direct asks nothing more: every write is whole pages, from
     * page-aligned memory, at a page-aligned offset.
     */
    w->batch_bytes = opts->batch_bytes ? opts->batch_bytes : DEFAULT_BATCH;
    w->ring_bytes = opts->ring_bytes;
    w->reserve_bytes = opts->reserve_bytes;
    make_metadata(w->meta, meta);
    w->meta_pending = true;
    w->nr_cpus = meta->nr_cpus;
    w->stage = calloc(w->nr_cpus, sizeof(*w->stage));
    if ( !w->stage )
    {
        free(w);
        return NULL;
    }
    return w;
}

/*
 * Both count the batches flushes make as they make them: written to the
 * file, or with ring_bytes put into the ring (dropped ones included: the
 * rate of capture, not the size of the file at close).
 */
uint64_t xt_writer_bytes(const struct xt_writer *w)
{
    return w->bytes;
}

uint64_t xt_writer_padding(const struct xt_writer *w)
{
    return w->padding;
}
