/*
 * libxtfile, the writer: batches laid out by the caller out to the file.
 *
 * The file (docs/trace-format.md) is a flat stream of t_rec records,
 * without a file header, cut into batches:
 *
 *   offset 0      +-------------------------------------------------+
 *                 | CPU_CHANGE {cpu 0, 4084}     (12 bytes, no TSC) |
 *                 | the metadata records, the domains' last         |
 *                 | WRAP_BUFFER pads (<= 32 bytes each, no TSC)     |
 *   4096          +-------------------------------------------------+
 *                 | CPU_CHANGE {cpu a, bytes}                       |
 *                 | CPU a's records, as Xen wrote them              |
 *                 | WRAP_BUFFER pads                                |
 *   k * 4096      +-------------------------------------------------+
 *                 | CPU_CHANGE {cpu b, bytes}                       |
 *                 | ...                                             |
 *
 * "bytes" counts everything after the CPU-change record up to the next
 * page boundary, pads included, so readers that follow the byte counts
 * and readers that read record after record both land on the next batch.
 * The caller lays out each batch's records in page-aligned memory with
 * room for the header before them and the pads after them; the writer
 * fills both in place and writes the batch, or several, with one
 * writev(2).  Address,
 * length and file offset are all multiples of the page, so O_DIRECT works.
 *
 * Failure.  The first error (a failed write, ENOSPC from the reserve
 * check) fails the writer for good: a regular file is cut back to the end
 * of its last complete batch, and every later call returns that error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "put.h"
#include "xtfile.h"

/* Linux's largest write(2): a bigger batch could not go out in one. */
#define MAX_BATCH       0x7ffff000u

struct xt_writer {
    int fd;
    bool regular;               /* a regular file: reserve and truncate */
    off_t end;                  /* offset after the last complete batch */
    unsigned int nr_cpus;       /* the metadata's and dom0's lanes':
                                   CPUs are below it */
    uint64_t reserve_bytes;
    uint64_t bytes, padding;    /* see xt_writer_bytes() */
    int error;                  /* the first error, or 0 */
};

static size_t page_up(size_t n)
{
    return (n + XT_PAGE - 1) & ~(size_t)(XT_PAGE - 1);
}

size_t xt_batch_size(size_t records)
{
    return page_up(XT_BATCH_HEAD + records);
}

/* The metadata records, no TSC: XT_META_WORDS words at @m. */
static void make_metadata(uint32_t *m, const struct xt_metadata *md)
{
    const uint32_t format[] = { XT_FORMAT_VERSION };
    const uint32_t tool[] = { XT_VERSION_MAJOR, XT_VERSION_MINOR,
                              XT_VERSION_PATCH };
    const uint32_t hz[] = { (uint32_t)md->tsc_hz,
                            (uint32_t)(md->tsc_hz >> 32) };
    const uint32_t cpus[] = { md->nr_cpus };
    const uint32_t xen[] = { md->xen_version };
    const uint32_t start[] = {
        (uint32_t)md->start_tsc, (uint32_t)(md->start_tsc >> 32),
        (uint32_t)md->start_sec, (uint32_t)((uint64_t)md->start_sec >> 32),
        md->start_nsec,
    };

    m = put_record(m, TRC_XT_FORMAT, NULL, format, 1);
    m = put_record(m, TRC_XT_TOOL, NULL, tool, 3);
    m = put_record(m, TRC_XT_TSC_HZ, NULL, hz, 2);
    m = put_record(m, TRC_XT_CPUS, NULL, cpus, 1);
    m = put_record(m, TRC_XT_START, NULL, start, 5);
    put_record(m, TRC_XT_XEN_VERSION, NULL, xen, 1);
}

/* Fill @n bytes (a multiple of 4) with TRC_TRACE_WRAP_BUFFER pads. */
static void pad(uint8_t *p, size_t n)
{
    while ( n )
    {
        size_t size = n < XT_PAD_MAX_BYTES ? n : XT_PAD_MAX_BYTES;
        uint32_t hdr = TRC_TRACE_WRAP_BUFFER |
                       (uint32_t)(size / 4 - 1) << TRACE_EXTRA_SHIFT;

        memcpy(p, &hdr, 4);
        memset(p + 4, 0, size - 4);
        p += size;
        n -= size;
    }
}

/*
 * In *@room, the bytes that can be written before less than reserve_bytes
 * would be free: 0 or the error of fstatvfs().  Only for regular files: a
 * pipe's file system says nothing about the space the reader has (Linux
 * reports 0 free).
 */
static int reserve_room(const struct xt_writer *w, uint64_t *room)
{
    struct statvfs s;
    uint64_t avail;

    *room = UINT64_MAX;
    if ( !w->reserve_bytes || !w->regular )
        return 0;
    if ( fstatvfs(w->fd, &s) )
        return errno;
    if ( __builtin_mul_overflow((uint64_t)s.f_bavail, (uint64_t)s.f_frsize,
                                &avail) )
        avail = UINT64_MAX;
    /* Upstream computes avail - size unsigned and lets it wrap. */
    *room = avail > w->reserve_bytes ? avail - w->reserve_bytes : 0;
    return 0;
}

/*
 * Write all of the @n buffers at @iov, which it changes; in *@done, the
 * bytes written.  A short count is followed by a write of the rest: a
 * pipe returns one when a signal arrives mid-write, and on a full file
 * system the next write gives the reason (ENOSPC).  EINTR before
 * anything was written is retried too: records are not dropped for a
 * signal.
 */
static int write_all(int fd, struct iovec *iov, unsigned int n,
                     uint64_t *done)
{
    *done = 0;
    while ( n )
    {
        ssize_t got = writev(fd, iov, n);

        if ( got < 0 && errno == EINTR )
            continue;
        if ( got < 0 )
            return errno;
        if ( got == 0 )
            return EIO;
        *done += got;
        for ( ; n && (size_t)got >= iov->iov_len; iov++, n-- )
            got -= iov->iov_len;
        if ( n )
        {
            iov->iov_base = (uint8_t *)iov->iov_base + got;
            iov->iov_len -= got;
        }
    }
    return 0;
}

/* The writer fails with @error: cut the file back. */
static int fail(struct xt_writer *w, int error)
{
    /* If this fails too, the caller still learns the first error. */
    if ( w->regular && !ftruncate(w->fd, w->end) )
        (void)lseek(w->fd, w->end, SEEK_SET);
    w->error = error;
    errno = error;
    return -1;
}

/* CPU @cpu's batch of @records bytes at @buf: header and pads in place. */
static size_t lay_out(unsigned int cpu, uint8_t *buf, size_t records)
{
    size_t used = XT_BATCH_HEAD + records, size = page_up(used);
    uint32_t hdr[3] = { XT_CPU_CHANGE_HDR, cpu,
                        (uint32_t)(size - XT_BATCH_HEAD) };

    memcpy(buf, hdr, XT_BATCH_HEAD);
    pad(buf + used, size - used);
    return size;
}

/*
 * The @n batches at @b out in order, as many as the reserve leaves room
 * for; the file's end moves past each batch written whole.
 */
static int write_batches(struct xt_writer *w, const struct xt_out_batch *b,
                         unsigned int n)
{
    struct iovec iov[XT_PUTV_MAX];
    uint64_t room, total = 0, done;
    unsigned int i, fit;
    int rc = reserve_room(w, &room);

    for ( fit = 0; !rc && fit < n; fit++ )
    {
        size_t size = lay_out(b[fit].cpu, b[fit].buf, b[fit].records);

        if ( size > room - total )
        {
            rc = ENOSPC;
            break;
        }
        total += size;
        iov[fit] = (struct iovec){ .iov_base = b[fit].buf, .iov_len = size };
    }
    if ( fit )
    {
        int wrc = write_all(w->fd, iov, fit, &done);

        rc = wrc ? wrc : rc;
        /* write_all() changed iov: the sizes again, from the records. */
        for ( i = 0; i < fit; i++ )
        {
            size_t size = xt_batch_size(b[i].records);

            if ( done < size )
                break;
            done -= size;
            w->end += size;
            w->bytes += size;
            w->padding += size - XT_BATCH_HEAD - b[i].records;
        }
    }
    return rc ? fail(w, rc) : 0;
}

int xt_writer_putv(struct xt_writer *w, const struct xt_out_batch *b,
                   unsigned int n)
{
    unsigned int i;

    if ( w->error )
    {
        errno = w->error;
        return -1;
    }
    if ( !n || n > XT_PUTV_MAX )
    {
        errno = EINVAL;
        return -1;
    }
    for ( i = 0; i < n; i++ )
        if ( b[i].cpu >= w->nr_cpus || b[i].records % 4 ||
             (uintptr_t)b[i].buf % XT_PAGE ||
             b[i].records > MAX_BATCH - XT_PAGE )
        {
            errno = EINVAL;
            return -1;
        }
    return write_batches(w, b, n);
}

int xt_writer_put(struct xt_writer *w, unsigned int cpu, void *batch,
                  size_t records)
{
    struct xt_out_batch b = { .cpu = cpu, .buf = batch, .records = records };

    return xt_writer_putv(w, &b, 1);
}

/*
 * The file's first batch: the metadata alone, as CPU 0's, the masks and
 * the domains named at the start after the rest; or another file's first
 * batch as it was.  dom0's lanes come last.
 */
static size_t first_batch_words(const struct xt_writer_opts *opts)
{
    if ( opts->first_batch )
        return opts->first_batch_words + XT_DOM0_META_WORDS_MAX;
    return XT_META_WORDS + XT_MASKS_WORDS_MAX +
           (size_t)opts->nr_domains * XT_DOMAIN_WORDS_MAX +
           XT_DOM0_META_WORDS_MAX;
}

static size_t make_first_batch(uint32_t *m, const struct xt_metadata *md,
                               const struct xt_writer_opts *opts)
{
    size_t words = XT_META_WORDS;
    unsigned int i;

    if ( opts->first_batch )
    {
        memcpy(m, opts->first_batch, opts->first_batch_words * 4);
        return opts->first_batch_words;
    }
    make_metadata(m, md);
    if ( opts->cpu_mask )
        words += xt_masks_put(opts->evt_mask, opts->cpu_mask, md->nr_cpus,
                              opts->more, NULL, m + words);
    for ( i = 0; i < opts->nr_domains; i++ )
        words += xt_domain_put(&opts->domains[i], NULL, m + words);
    return words;
}

static int write_metadata(struct xt_writer *w, const struct xt_metadata *md,
                          const struct xt_writer_opts *opts)
{
    uint32_t *m;
    uint8_t *buf;
    size_t words;
    int rc = posix_memalign((void **)&buf, XT_PAGE,
                            xt_batch_size(first_batch_words(opts) * 4));

    if ( rc )
    {
        errno = rc;
        return -1;
    }
    m = (uint32_t *)(buf + XT_BATCH_HEAD);
    words = make_first_batch(m, md, opts);
    if ( opts->dom0 )
        words += xt_dom0_meta_put(opts->dom0, m + words);
    rc = xt_writer_put(w, 0, buf, words * 4);
    free(buf);
    return rc;
}

int xt_writer_close(struct xt_writer *w)
{
    int error = w->error;

    free(w);
    errno = error;
    return error ? -1 : 0;
}

struct xt_writer *xt_writer_open(int fd, const struct xt_metadata *meta,
                                 const struct xt_writer_opts *opts)
{
    static const struct xt_writer_opts defaults;
    struct xt_writer *w;
    struct stat st;

    if ( !opts )
        opts = &defaults;
    if ( !meta || !meta->nr_cpus || meta->start_nsec >= 1000000000 )
    {
        errno = EINVAL;
        return NULL;
    }
    if ( fstat(fd, &st) || !(w = calloc(1, sizeof(*w))) )
        return NULL;
    w->fd = fd;
    w->regular = S_ISREG(st.st_mode);
    w->nr_cpus = meta->nr_cpus;
    if ( opts->dom0 && opts->dom0->lanes )
    {
        if ( opts->dom0->first_lane != meta->nr_cpus ||
             opts->dom0->lanes > XT_CPUS_MAX - meta->nr_cpus )
        {
            errno = EINVAL;
            free(w);
            return NULL;
        }
        w->nr_cpus += opts->dom0->lanes;
    }
    w->reserve_bytes = opts->reserve_bytes;
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
    if ( write_metadata(w, meta, opts) )
    {
        int error = errno;

        free(w);
        errno = error;
        return NULL;
    }
    return w;
}

uint64_t xt_writer_bytes(const struct xt_writer *w)
{
    return w->bytes;
}

uint64_t xt_writer_padding(const struct xt_writer *w)
{
    return w->padding;
}
