/*
 * capture_floor: what capture's data path costs without a hypervisor or a
 * scheduler, in CPU-s per GB: the floors that bench/run-capture prints
 * beside the tracers' figures.
 *
 *   capture_floor [-b MiB] [-p pages] [-r rounds] records-file [dir ...]
 *
 * A simulated 2-CPU ring of @pages pages per CPU (data starting 8 bytes
 * into the first page, as Xen's t_buf), filled with real records: those
 * of CPU 0 of the records-file (a trace file, as bench/gen-trace writes
 * one), their TSCs moved on each time the file's records are used again,
 * and a wrap pad as Xen writes one where the next record would not fit.
 * It is taken in windows of an eighth of a buffer, as xentrace aims at,
 * both CPUs' a pass, and every lap of the ring is flushed from the cache
 * first (clflush; Xen's CPUs wrote it, not the one that takes it).  Each
 * case runs -b MiB (default 256) of windows, -r rounds (default 5), and
 * prints "case dir min median max" in s/GB of the thread's CPU time
 * (user and system), the flushes not counted:
 *
 *   memcpy        each window copied into chunks of a 16 MiB pool (or
 *                 of 2 chunks a CPU, if more), as xentrace's
 *   copy-check    the same, with xentrace's check fused into the copy
 *                 (copy_pieces_checked(), window.c; both CPUs' windows
 *                 side by side, as xentrace takes them): the check's
 *                 cost is the difference
 *   ring-writev   per dir: no copy, 8 passes a writev(2) of each CPU's
 *                 CPU-change record and window straight from the ring
 *                 (Debian's xentrace writes a pass with 2 writes a CPU);
 *                 what writing unchecked bytes would cost
 *   check-writev  per dir: the "write from the ring": each pass
 *                 checked in the ring (check_pieces(), both CPUs side by
 *                 side), then written as ring-writev writes it.  Not
 *                 validated capture: another process can change the
 *                 bytes between the check and the kernel's copy
 *   writev-check  per dir: ring-writev, then each writev(2)'s windows
 *                 checked in the file's page-cache copy, through a
 *                 mapping of the file: what is checked is what the file
 *                 holds, the kernel's copy the one copy
 *   ours          per dir: xentrace's path, copy-check into batches of
 *                 256 KiB, epochs gathered into writes of 1 MiB or more
 *                 (xt_writer_putv())
 *   ours-direct   the same with O_DIRECT, where the dir takes it
 *   mmap-out      per dir: the mmapped output, no second copy:
 *                 copy-check straight into the file's pages, through a
 *                 shared mapping of it, each window's pages populated
 *                 for writing first (MADV_POPULATE_WRITE, as fallocate
 *                 and a prefault would); a slot of the largest batch a
 *                 CPU, its unused pages left holes.  The mapping's
 *                 teardown is counted
 *
 * Files are cut back to nothing every 256 MiB, outside the timing.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "window.h"
#include "xtfile.h"

#define NR_CPUS         2u
#define T_BUF_HEAD      8u              /* cons and prod before the data */
#define POOL_BYTES      (16u << 20)
#define BATCH_BYTES     (256u << 10)
#define GATHER_BYTES    (1u << 20)
#define PASSES_A_WRITEV 8u
#define FILE_MAX        (256ULL << 20)
#define MAX_WINDOWS     64u             /* an eighth, and the rest */

struct ring {
    uint8_t *page;                      /* the buffer's pages */
    uint8_t *data;
    uint32_t win_off[MAX_WINDOWS], win_len[MAX_WINDOWS];
    unsigned int nr_windows;
};

static struct ring rings[NR_CPUS];
static size_t ring_bytes;               /* pages * 4096 */
static uint8_t *pool;
static size_t pool_bytes;               /* 16 MiB, or 2 chunks a CPU */
static uint64_t case_bytes = 256ULL << 20;

/* CPU 0's records of the trace file at @path, in *@len bytes. */
static uint8_t *read_records(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *all, *rec;
    size_t size, at = 0, n = 0;
    long end;

    if ( !f || fseek(f, 0, SEEK_END) || (end = ftell(f)) < 0 ||
         fseek(f, 0, SEEK_SET) )
        err(1, "%s", path);
    size = end;
    if ( !(all = malloc(size)) || !(rec = malloc(size)) ||
         fread(all, 1, size, f) != size )
        err(1, "%s", path);
    fclose(f);
    /* Batch after batch: CPU 0's records, without the writer's pads. */
    while ( at + XT_BATCH_HEAD <= size )
    {
        uint32_t hdr[3], r, bytes, cpu;
        size_t b, stop;

        memcpy(hdr, all + at, sizeof(hdr));
        cpu = hdr[1];
        bytes = hdr[2];
        stop = at + XT_BATCH_HEAD + bytes;
        if ( stop > size )
            break;
        for ( b = at + XT_BATCH_HEAD; cpu == 0 && b < stop; )
        {
            uint32_t ev;

            memcpy(&r, all + b, 4);
            ev = TRC_HD_TO_EVENT(r);
            bytes = 4 * xt_record_words(r);
            if ( ev != TRC_TRACE_WRAP_BUFFER &&
                 (ev & ~0xfu) != (TRC_XT_FORMAT & ~0xfu) )
            {
                memcpy(rec + n, all + b, bytes);
                n += bytes;
            }
            b += bytes;
        }
        at = stop;
    }
    free(all);
    if ( !n )
        errx(1, "%s: no records of CPU 0", path);
    *len = n;
    return rec;
}

/* TSCs of the records at @p, @len bytes, moved on by @by. */
static void shift_tscs(uint8_t *p, size_t len, uint64_t by)
{
    uint8_t *end = p + len;
    uint32_t hdr;
    uint64_t tsc;

    for ( ; p < end; p += 4 * xt_record_words(hdr) )
    {
        memcpy(&hdr, p, 4);
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        {
            memcpy(&tsc, p + 4, 8);
            tsc += by;
            memcpy(p + 4, &tsc, 8);
        }
    }
}

/* Fill @r's data with records from @rec, then windows of an eighth. */
static void fill_ring(struct ring *r, const uint8_t *rec, size_t rec_len)
{
    size_t data_size = ring_bytes - T_BUF_HEAD, at = 0, from = 0;
    uint64_t span, last_tsc = 0, tsc;
    uint32_t hdr, start = 0;
    unsigned int lap = 0;

    span = 0;
    if ( posix_memalign((void **)&r->page, XT_PAGE, ring_bytes) )
        err(1, "memory");
    r->data = r->page + T_BUF_HEAD;
    for ( ;; )
    {
        size_t size;

        if ( from == rec_len )
        {
            from = 0;
            lap++;
            span = last_tsc + 1000;     /* every lap after the one before */
        }
        memcpy(&hdr, rec + from, 4);
        size = 4 * xt_record_words(hdr);
        if ( at + size > data_size )
            break;
        memcpy(r->data + at, rec + from, size);
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        {
            shift_tscs(r->data + at, size, lap ? span : 0);
            memcpy(&tsc, r->data + at + 4, 8);
            last_tsc = tsc;
        }
        at += size;
        from += size;
        if ( at - start >= data_size / 8 && r->nr_windows < MAX_WINDOWS - 1 )
        {
            r->win_off[r->nr_windows] = start;
            r->win_len[r->nr_windows++] = at - start;
            start = at;
        }
    }
    /* Xen's wrap pad: the rest, a record of no more than 36 bytes. */
    if ( at < data_size )
    {
        size_t gap = data_size - at;
        uint32_t pad = TRC_TRACE_WRAP_BUFFER |
                       (uint32_t)(gap / 4 - 1) << TRACE_EXTRA_SHIFT;

        if ( gap > 32 )
            pad = TRC_TRACE_WRAP_BUFFER | TRC_HD_CYCLE_FLAG |
                  (uint32_t)(gap / 4 - 3) << TRACE_EXTRA_SHIFT;
        memset(r->data + at, 0, gap);
        memcpy(r->data + at, &pad, 4);
        if ( gap > 32 )
            memcpy(r->data + at + 4, &last_tsc, 8);
    }
    r->win_off[r->nr_windows] = start;
    r->win_len[r->nr_windows++] = data_size - start;
}

static void flush_rings(void)
{
    unsigned int cpu;
    size_t off;

    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        for ( off = 0; off < ring_bytes; off += 64 )
            _mm_clflush(rings[cpu].page + off);
    _mm_mfence();
}

static double thread_seconds(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

enum what { MEMCPY, COPY_CHECK, RING_WRITEV, CHECK_WRITEV, WRITEV_CHECK,
            OURS, MMAP_OUT };

/* A case's state: its chunks, its file. */
struct run {
    enum what what;
    const char *dir;
    bool direct;
    int fd;
    struct xt_writer *w;
    struct cpu_check check[NR_CPUS];
    size_t pool_at;                     /* the next chunk's place */
    uint8_t *chunk[NR_CPUS];
    size_t len[NR_CPUS];
    struct xt_out_batch gather[XT_PUTV_MAX];
    unsigned int nr_gathered;
    size_t gathered;
    struct iovec iov[PASSES_A_WRITEV * NR_CPUS * 2];
    uint32_t hdr[PASSES_A_WRITEV * NR_CPUS][3];
    unsigned int nr_iov;
    uint64_t file_bytes;
    /* WRITEV_CHECK, MMAP_OUT: the file mapped; WRITEV_CHECK: the windows
       of the next writev */
    uint8_t *map;
    size_t map_len;
    struct piece_copy written[PASSES_A_WRITEV * NR_CPUS];
    uint64_t written_at[PASSES_A_WRITEV * NR_CPUS];     /* file offsets */
};

/* Whether case @r writes from the ring, as ring-writev does. */
static bool from_ring(const struct run *r)
{
    return r->what == RING_WRITEV || r->what == CHECK_WRITEV ||
           r->what == WRITEV_CHECK;
}

static void open_file(struct run *r)
{
    struct xt_metadata meta = { .nr_cpus = NR_CPUS };
    char path[4096];
    bool mapped = r->what == WRITEV_CHECK || r->what == MMAP_OUT;

    snprintf(path, sizeof(path), "%s/xt-floor.%ld.bin", r->dir,
             (long)getpid());
    r->fd = open(path, (mapped ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC |
                       (r->direct ? O_DIRECT : 0), 0644);
    if ( r->fd < 0 )
        err(1, "%s", path);
    unlink(path);
    /*
     * Past FILE_MAX by a writev, or by a lap's slots (an epoch a pass at
     * most), at most; mapped past the end, not read.
     */
    r->map_len = FILE_MAX + MAX_WINDOWS * NR_CPUS *
                            (BATCH_BYTES + ring_bytes + XT_PAGE);
    if ( r->what == MMAP_OUT && ftruncate(r->fd, r->map_len) )
        err(1, "%s", path);
    if ( mapped &&
         (r->map = mmap(NULL, r->map_len,
                        PROT_READ | (r->what == MMAP_OUT ? PROT_WRITE : 0),
                        MAP_SHARED, r->fd, 0)) == MAP_FAILED )
        err(1, "%s", path);
    if ( r->what == OURS && !(r->w = xt_writer_open(r->fd, &meta, NULL)) )
        err(1, "%s", path);
    r->file_bytes = 0;
}

/* The mapping's teardown: MMAP_OUT's work, counted. */
static void unmap_file(struct run *r)
{
    if ( r->map )
        munmap(r->map, r->map_len);
    r->map = NULL;
}

/* Closing the file (and freeing its pages, once unlinked) is not. */
static void close_file(struct run *r)
{
    if ( r->w )
        xt_writer_close(r->w);
    r->w = NULL;
    unmap_file(r);
    close(r->fd);
}

/*
 * A chunk of the pool for a CPU's batch (as xentrace's, reused); with
 * MMAP_OUT, the file's next slot.
 */
static uint8_t *next_chunk(struct run *r)
{
    size_t size = BATCH_BYTES + ring_bytes + XT_PAGE;
    uint8_t *c;

    if ( r->what == MMAP_OUT )
    {
        c = r->map + r->file_bytes;
        r->file_bytes += size;
        return c;
    }
    if ( r->pool_at + size > pool_bytes )
        r->pool_at = 0;
    c = pool + r->pool_at;
    r->pool_at += size;
    return c;
}

static void write_gathered(struct run *r)
{
    if ( r->nr_gathered && xt_writer_putv(r->w, r->gather, r->nr_gathered) )
        err(1, "%s", r->dir);
    r->file_bytes += r->gathered;
    r->nr_gathered = 0;
    r->gathered = 0;
}

/* The epoch: every CPU's batch, gathered until GATHER_BYTES. */
static void end_epoch(struct run *r)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        if ( r->what == MMAP_OUT )
        {
            uint32_t *hdr = (uint32_t *)r->chunk[cpu];

            hdr[0] = TRC_TRACE_CPU_CHANGE | 2u << TRACE_EXTRA_SHIFT;
            hdr[1] = cpu;
            hdr[2] = r->len[cpu];
        }
        if ( r->what == OURS && r->len[cpu] )
        {
            r->gather[r->nr_gathered++] = (struct xt_out_batch){
                .cpu = cpu, .buf = r->chunk[cpu], .records = r->len[cpu] };
            r->gathered += xt_batch_size(r->len[cpu]);
        }
        r->chunk[cpu] = next_chunk(r);
        r->len[cpu] = 0;
    }
    if ( r->what == OURS && (r->gathered >= GATHER_BYTES ||
                             r->nr_gathered + NR_CPUS > XT_PUTV_MAX) )
        write_gathered(r);
}

/* The @n pieces at @pc passed the check, as the simulated ring's must. */
static void passed(const struct piece_copy *pc, unsigned int n)
{
    unsigned int i;

    for ( i = 0; i < n; i++ )
        if ( pc[i].why )
            errx(1, "the simulated ring failed the check (%u)", pc[i].why);
}

/*
 * The windows gathered, straight from the ring in one writev(2); with
 * WRITEV_CHECK, then checked in the file's pages, a pass at a time.
 */
static void write_ring(struct run *r)
{
    struct iovec *iov = r->iov;
    int n = r->nr_iov;
    unsigned int i;

    /* Every byte, as a tracer must. */
    while ( n )
    {
        ssize_t got = writev(r->fd, iov, n);

        if ( got <= 0 )
            err(1, "%s", r->dir);
        for ( ; n && (size_t)got >= iov->iov_len; iov++, n-- )
            got -= iov->iov_len;
        if ( n )
        {
            iov->iov_base = (uint8_t *)iov->iov_base + got;
            iov->iov_len -= got;
        }
    }
    for ( i = 0; r->what == WRITEV_CHECK && i < r->nr_iov / 2; i++ )
        r->written[i].from = r->map + r->written_at[i];
    for ( i = 0; r->what == WRITEV_CHECK && i < r->nr_iov / 2; i += NR_CPUS )
    {
        check_pieces(&r->written[i], NR_CPUS);
        passed(&r->written[i], NR_CPUS);
    }
    r->nr_iov = 0;
}

/* The file's pages that @len bytes at @to take, ready to be written. */
static void populate(uint8_t *to, size_t len)
{
    uintptr_t start = (uintptr_t)to & ~(uintptr_t)(XT_PAGE - 1);
    uintptr_t end = ((uintptr_t)to + len + XT_PAGE - 1) &
                    ~(uintptr_t)(XT_PAGE - 1);

    if ( madvise((void *)start, end - start, MADV_POPULATE_WRITE) )
        err(1, "MADV_POPULATE_WRITE");
}

/* Window @i of every CPU: one pass. */
static void pass(struct run *r, unsigned int i)
{
    struct piece_copy pc[NR_CPUS];
    bool full = false;
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        const struct ring *g = &rings[cpu];
        const uint8_t *from = g->data + g->win_off[i];
        uint32_t len = g->win_len[i];
        uint8_t *to = r->chunk[cpu] + XT_BATCH_HEAD + r->len[cpu];

        pc[cpu] = (struct piece_copy){ .check = &r->check[cpu], .to = to,
                                       .from = from, .len = len,
                                       .at_wrap = i == g->nr_windows - 1 };
        if ( r->what == MMAP_OUT )
            populate(to, len);
        if ( r->what == MEMCPY )
            memcpy(to, from, len);
        else if ( from_ring(r) )
        {
            uint32_t *hdr = r->hdr[r->nr_iov / 2];

            hdr[0] = TRC_TRACE_CPU_CHANGE | 2u << TRACE_EXTRA_SHIFT;
            hdr[1] = cpu;
            hdr[2] = len;
            if ( r->what == WRITEV_CHECK )
            {
                r->written_at[r->nr_iov / 2] = r->file_bytes + XT_BATCH_HEAD;
                r->written[r->nr_iov / 2] = pc[cpu];
            }
            r->iov[r->nr_iov++] = (struct iovec){ hdr, XT_BATCH_HEAD };
            r->iov[r->nr_iov++] = (struct iovec){ (void *)from, len };
            r->file_bytes += XT_BATCH_HEAD + len;
        }
    }
    /* As xentrace takes a pass: every CPU's windows side by side. */
    if ( r->what == COPY_CHECK || r->what == OURS || r->what == MMAP_OUT )
        copy_pieces_checked(pc, NR_CPUS);
    else if ( r->what == CHECK_WRITEV )
        check_pieces(pc, NR_CPUS);
    if ( r->what == COPY_CHECK || r->what == OURS ||
         r->what == CHECK_WRITEV || r->what == MMAP_OUT )
        passed(pc, NR_CPUS);
    for ( cpu = 0; cpu < NR_CPUS && !from_ring(r); cpu++ )
    {
        r->len[cpu] += pc[cpu].len;
        full |= r->len[cpu] >= BATCH_BYTES;
    }
    if ( from_ring(r) && r->nr_iov == sizeof(r->iov) / sizeof(r->iov[0]) )
        write_ring(r);
    if ( full )
        end_epoch(r);
}

/* One round of case @r: its s/GB. */
static double round_of(struct run *r)
{
    uint64_t done = 0;
    double cpu_s = 0;
    unsigned int i, cpu;

    memset(r->check, 0, sizeof(r->check));
    if ( r->dir )
        open_file(r);
    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        r->chunk[cpu] = next_chunk(r);
        r->len[cpu] = 0;
    }
    while ( done < case_bytes )
    {
        double t;

        flush_rings();
        /* The records come round again: their TSCs with them. */
        for ( cpu = 0; cpu < NR_CPUS; cpu++ )
            r->check[cpu].floor_tsc = 0;
        t = thread_seconds();
        for ( i = 0; i < rings[0].nr_windows; i++ )
            pass(r, i);
        cpu_s += thread_seconds() - t;
        done += NR_CPUS * (ring_bytes - T_BUF_HEAD);
        if ( r->file_bytes >= FILE_MAX )
        {
            t = thread_seconds();
            if ( r->what == OURS )
                write_gathered(r);
            if ( r->what == MMAP_OUT )
                unmap_file(r);
            cpu_s += thread_seconds() - t;
            close_file(r);
            open_file(r);
            for ( cpu = 0; r->what == MMAP_OUT && cpu < NR_CPUS; cpu++ )
            {
                r->chunk[cpu] = next_chunk(r);
                r->len[cpu] = 0;
            }
        }
    }
    if ( r->what == MMAP_OUT )
    {
        double t = thread_seconds();

        unmap_file(r);
        cpu_s += thread_seconds() - t;
    }
    if ( r->dir )
        close_file(r);
    return cpu_s / (done / 1e9);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static void run_case(enum what what, const char *name, const char *dir,
                     bool direct, unsigned int rounds)
{
    struct run r = { .what = what, .dir = dir, .direct = direct };
    double s[16];
    unsigned int i;

    for ( i = 0; i < rounds; i++ )
        s[i] = round_of(&r);
    qsort(s, rounds, sizeof(s[0]), by_value);
    printf("%s %s %.3f %.3f %.3f\n", name, dir ? dir : "-", s[0],
           s[rounds / 2], s[rounds - 1]);
    fflush(stdout);
}

/* Whether @dir takes O_DIRECT (tmpfs did not before Linux 6.6). */
static bool direct_works(const char *dir)
{
    char path[4096];
    int fd;

    snprintf(path, sizeof(path), "%s/xt-floor-direct.%ld.bin", dir,
             (long)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
    if ( fd < 0 )
        return false;
    unlink(path);
    close(fd);
    return true;
}

int main(int argc, char *argv[])
{
    unsigned int pages = 32, rounds = 5, cpu;
    uint8_t *rec;
    size_t rec_len;
    int ch, i;

    while ( (ch = getopt(argc, argv, "b:p:r:")) != -1 )
        switch ( ch )
        {
        case 'b':
            case_bytes = strtoull(optarg, NULL, 0) << 20;
            break;
        case 'p':
            pages = strtoul(optarg, NULL, 0);
            break;
        case 'r':
            rounds = strtoul(optarg, NULL, 0);
            break;
        default:
            goto usage;
        }
    if ( optind >= argc || !pages || pages > 8192 || !rounds || rounds > 16 ||
         !case_bytes )
        goto usage;

    ring_bytes = (size_t)pages * XT_PAGE;
    rec = read_records(argv[optind], &rec_len);
    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        fill_ring(&rings[cpu], rec, rec_len);
    free(rec);
    pool_bytes = 2 * NR_CPUS * (BATCH_BYTES + ring_bytes + XT_PAGE);
    if ( pool_bytes < POOL_BYTES )
        pool_bytes = POOL_BYTES;
    if ( posix_memalign((void **)&pool, XT_PAGE, pool_bytes) )
        err(1, "memory");
    memset(pool, 0, pool_bytes);

    run_case(MEMCPY, "memcpy", NULL, false, rounds);
    run_case(COPY_CHECK, "copy-check", NULL, false, rounds);
    for ( i = optind + 1; i < argc; i++ )
    {
        run_case(RING_WRITEV, "ring-writev", argv[i], false, rounds);
        run_case(CHECK_WRITEV, "check-writev", argv[i], false, rounds);
        run_case(WRITEV_CHECK, "writev-check", argv[i], false, rounds);
        run_case(OURS, "ours", argv[i], false, rounds);
        if ( direct_works(argv[i]) )
            run_case(OURS, "ours-direct", argv[i], true, rounds);
        run_case(MMAP_OUT, "mmap-out", argv[i], false, rounds);
    }
    return 0;

usage:
    fprintf(stderr, "usage: capture_floor [-b MiB] [-p pages] [-r rounds] "
            "records-file [dir ...]\n");
    return 1;
}
