/*
 * libxtfile's trace-file writer, without a hypervisor: synthetic records
 * in, put as epochs of batches (tests/common/batches.c), files read back
 * record by record (docs/trace-format.md).
 *
 * Every file is checked the same way: it is whole pages; each batch
 * starts with a TRC_TRACE_CPU_CHANGE at a multiple of 4096 whose byte
 * count reaches exactly the next batch; records never cross a batch's
 * end; pads come only at the end of a batch; the first batch is CPU 0's
 * 4 KiB of metadata alone.  Then each CPU's records, concatenated, must
 * be exactly the bytes given to the writer, and the batches' CPUs exactly
 * the epochs put.  Debian's xenalyze reads some of the files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "batches.h"
#include "run_cmd.h"

#define XENALYZE      "/usr/bin/xenalyze"
#define PAGE          4096u
#define HDR_BYTES     12u
#define META_WORDS    19u
#define MAX_CPUS      8u
#define MAX_FLUSHES   512u
#define KiB           1024u
#define DEFAULT_BATCH (256 * KiB)

static char dir[] = "/tmp/test_writer.XXXXXX";
static struct batches *staged;      /* the test's epoch being filled */
static char tiny_dir[64];           /* a 64 KiB tmpfs, if it mounted */
static bool tiny_mounted;

static const struct xt_metadata meta = {
    .tsc_hz = 2400000000ULL,        /* needs both words */
    .nr_cpus = MAX_CPUS,
    .start_tsc = 0x123456789abcULL,
    .start_sec = 1700000000,
    .start_nsec = 123456789,
    .xen_version = 4 << 16 | 20,
};

/* ---- The writer's writev(2) ----------------------------------------- */

/*
 * The writer's calls to writev(2) come here: this program's definition
 * takes precedence over libc's.  Calls on io.fd are counted, and can be
 * made to fail or to come back short.
 */
static struct {
    int fd;                     /* the fd watched, or -1 */
    unsigned int calls;         /* writev() calls on it */
    unsigned int eintr_call;    /* this call (from 1) fails with EINTR */
    unsigned int short_call;    /* this one writes half what it is asked */
    unsigned int fail_call;     /* this one fails with fail_errno */
    int fail_errno;
} io = { .fd = -1 };

ssize_t writev(int fd, const struct iovec *iov, int n)
{
    struct iovec half[64];
    size_t total = 0, left;
    int i;

    if ( fd == io.fd )
    {
        unsigned int call = ++io.calls;

        if ( call == io.eintr_call || call == io.fail_call )
        {
            errno = call == io.eintr_call ? EINTR : io.fail_errno;
            return -1;
        }
        if ( call == io.short_call && n <= 64 )
        {
            for ( i = 0; i < n; i++ )
                total += iov[i].iov_len;
            left = total / 2;
            for ( i = 0; i < n && left; i++ )
            {
                half[i] = iov[i];
                if ( half[i].iov_len > left )
                    half[i].iov_len = left;
                left -= half[i].iov_len;
            }
            return syscall(SYS_writev, fd, half, i);
        }
    }
    return syscall(SYS_writev, fd, iov, n);
}

static void watch(int fd)
{
    io = (typeof(io)){ .fd = fd };
}

/* ---- What the test gave the writer ---------------------------------- */

struct bytes {
    uint8_t *p;
    size_t len, cap;
};

static void append(struct bytes *b, const void *p, size_t len)
{
    if ( !len )
        return;
    if ( b->len + len > b->cap )
    {
        b->cap = (b->len + len) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->len, p, len);
    b->len += len;
}

/* Per CPU, the bytes added, and which of them each flush took. */
struct model {
    unsigned int nr_cpus;
    struct bytes added[MAX_CPUS];
    size_t staged[MAX_CPUS];
    unsigned int nr_flushes;
    struct {
        size_t start[MAX_CPUS], len[MAX_CPUS];
    } flush[MAX_FLUSHES];
};

static struct model *new_model(unsigned int nr_cpus)
{
    struct model *m = calloc(1, sizeof(*m));

    assert_non_null(m);
    m->nr_cpus = nr_cpus;
    return m;
}

static void free_model(struct model *m)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < MAX_CPUS; cpu++ )
        free(m->added[cpu].p);
    free(m);
}

static void model_add(struct model *m, unsigned int cpu, const void *p,
                      size_t len)
{
    append(&m->added[cpu], p, len);
    m->staged[cpu] += len;
}

/* A flush that wrote something: note which bytes it took. */
static void model_flush(struct model *m)
{
    unsigned int cpu;
    bool any = false;

    for ( cpu = 0; cpu < m->nr_cpus; cpu++ )
        any |= m->staged[cpu] != 0;
    if ( !any )
        return;
    assert_true(m->nr_flushes < MAX_FLUSHES);
    for ( cpu = 0; cpu < m->nr_cpus; cpu++ )
    {
        m->flush[m->nr_flushes].start[cpu] =
            m->added[cpu].len - m->staged[cpu];
        m->flush[m->nr_flushes].len[cpu] = m->staged[cpu];
        m->staged[cpu] = 0;
    }
    m->nr_flushes++;
}

/* ---- Synthetic records ---------------------------------------------- */

static uint32_t rng = 2463534242u;

static uint32_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* One CPU's record source: a TSC that only rises, and a sequence. */
struct source {
    unsigned int cpu;
    uint64_t tsc;
    uint32_t seq;
};

static uint32_t *put_tsc(uint32_t *p, struct source *s)
{
    s->tsc += 1000 + next_random() % 1000;
    *p++ = (uint32_t)s->tsc;
    *p++ = (uint32_t)(s->tsc >> 32);
    return p;
}

/*
 * One record at @p; returns its size.  The mix: runstate changes of
 * d1v<cpu> with a TSC, alternating running and runnable as xenalyze
 * expects; TRC_GEN records of 0-7 words with and without a TSC; and
 * now and then a pad as Xen writes them at its buffer's wrap (36 bytes,
 * a TSC and stale words), which must pass through untouched.
 */
static size_t make_record(struct source *s, uint32_t *p)
{
    uint32_t *start = p, kind = s->seq++ % 16, words = next_random() % 8;

    if ( kind < 6 )
    {
        bool running = kind % 2;    /* the new state alternates */

        *p++ = (TRC_SCHED_RUNSTATE_CHANGE | (running ? 1 : 0) << 8 |
                (running ? 0 : 1) << 4) | 1u << TRACE_EXTRA_SHIFT |
               TRC_HD_CYCLE_FLAG;
        p = put_tsc(p, s);
        *p++ = s->cpu | 1u << 16;   /* {u16 vcpu, u16 domain} */
    }
    else if ( kind == 15 )
    {
        *p++ = TRC_TRACE_WRAP_BUFFER | 6u << TRACE_EXTRA_SHIFT |
               TRC_HD_CYCLE_FLAG;
        p = put_tsc(p, s);
        memset(p, 0xa5, 6 * 4);
        p += 6;
    }
    else
    {
        bool timed = kind % 2;
        uint32_t i;

        *p++ = (TRC_GEN + 0x100 + words) | words << TRACE_EXTRA_SHIFT |
               (timed ? TRC_HD_CYCLE_FLAG : 0);
        if ( timed )
            p = put_tsc(p, s);
        for ( i = 0; i < words; i++ )
            *p++ = s->seq << 8 | i;
    }
    return (p - start) * 4;
}

/*
 * Add a window of whole records, about @bytes, for @s's CPU.  Its TSCs
 * follow every window added before, on any CPU, as a real host's would:
 * the CPUs' clocks agree.  (xenalyze 4.17 misreads a file whose highest
 * CPU's last batch lies wholly before the next CPU's previous one: it
 * takes the batch for a new pCPU and reads it twice.)
 */
static size_t make_window(struct source *s, uint32_t *buf, size_t bytes,
                          size_t room)
{
    static uint64_t now;
    size_t len = 0;

    if ( s->tsc < now )
        s->tsc = now;
    while ( len < bytes && len + 40 <= room )
        len += make_record(s, buf + len / 4);
    now = s->tsc;
    return len;
}

static void add_window(struct model *m, struct source *s, size_t bytes)
{
    static uint32_t buf[64 * KiB];
    size_t len = make_window(s, buf, bytes, sizeof(buf));

    assert_int_equal(batches_add(staged, s->cpu, buf, len), 0);
    model_add(m, s->cpu, buf, len);
}

/* Put the epoch staged. */
static void flush(struct xt_writer *w, struct model *m)
{
    assert_int_equal(batches_put(staged, w), 0);
    assert_false(batches_full(staged));
    model_flush(m);
}

/* ---- Reading a file back -------------------------------------------- */

/* A file read back: its metadata, then its batches of records. */
struct parsed {
    struct bytes cpu_data[MAX_CPUS];   /* records, without pads */
    unsigned int batch_cpu[4 * MAX_FLUSHES];
    size_t batch_size[4 * MAX_FLUSHES];
    unsigned int nr_batches;
    uint32_t meta[META_WORDS];
    uint64_t padding, bytes;
};

static void free_parsed(struct parsed *p)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < MAX_CPUS; cpu++ )
        free(p->cpu_data[cpu].p);
    free(p);
}

static uint32_t word(const uint8_t *p)
{
    uint32_t w;

    memcpy(&w, p, 4);
    return w;
}

static size_t record_size(uint32_t hdr)
{
    return 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 8 : 0) +
           4 * TRC_HD_EXTRA(hdr);
}

/* One of the writer's pads: no TSC, zero words (Xen's have stale ones). */
static bool is_pad(const uint8_t *rec)
{
    uint32_t hdr = word(rec), i;

    if ( TRC_HD_TO_EVENT(hdr) != TRC_TRACE_WRAP_BUFFER ||
         TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        return false;
    for ( i = 1; i <= TRC_HD_EXTRA(hdr); i++ )
        if ( word(rec + 4 * i) )
            return false;
    return true;
}

/*
 * The records of the batch at @off..@end, a CPU's then pads, after
 * @skip bytes (the metadata).  Returns the bytes of records.
 */
static size_t batch_records(struct parsed *p, const uint8_t *file,
                            size_t off, size_t end, size_t skip)
{
    size_t pos = off + HDR_BYTES + skip, data_end = 0;

    while ( pos < end )
    {
        size_t size = record_size(word(file + pos));

        if ( size > end - pos )
            fail_msg("record at %zu crosses the batch end %zu", pos, end);
        if ( is_pad(file + pos) )
        {
            if ( !data_end )
                data_end = pos;
        }
        else if ( data_end )
            fail_msg("record at %zu after padding", pos);
        pos += size;
    }
    if ( !data_end )
        data_end = end;
    assert_true(end - data_end < PAGE);
    p->padding += end - data_end;
    return data_end - (off + HDR_BYTES + skip);
}

/* The file's first batch: CPU 0's, one page, the metadata alone. */
static void parse_metadata(struct parsed *p, const uint8_t *file)
{
    assert_int_equal(word(file), 0x2001f003);
    assert_int_equal(word(file + 4), 0);
    assert_int_equal(word(file + 8), PAGE - HDR_BYTES);
    memcpy(p->meta, file + HDR_BYTES, META_WORDS * 4);
    assert_int_equal(batch_records(p, file, 0, PAGE, META_WORDS * 4), 0);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    uint8_t *buf;

    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    *len = st.st_size;
    buf = malloc(*len + 1);
    assert_non_null(buf);
    assert_int_equal(read(fd, buf, *len), (ssize_t)*len);
    buf[*len] = 0;
    close(fd);
    return buf;
}

/* Read and check @len bytes of trace file; fails the test if malformed. */
static struct parsed *parse_bytes(const uint8_t *file, size_t len)
{
    struct parsed *p = calloc(1, sizeof(*p));
    size_t off = 0;

    assert_non_null(p);
    assert_int_equal(len % PAGE, 0);
    assert_true(len > 0);
    parse_metadata(p, file);
    off = PAGE;
    while ( off < len )
    {
        uint32_t cpu = word(file + off + 4), bytes = word(file + off + 8);
        size_t end = off + HDR_BYTES + bytes;

        if ( word(file + off) != 0x2001f003 )
            fail_msg("no CPU change at %zu: %#x", off, word(file + off));
        assert_true(cpu < MAX_CPUS);
        if ( end % PAGE || end > len )
            fail_msg("batch at %zu: %u bytes end at %zu", off, bytes, end);
        assert_true(p->nr_batches < 4 * MAX_FLUSHES);
        append(&p->cpu_data[cpu], file + off + HDR_BYTES,
               batch_records(p, file, off, end, 0));
        p->batch_cpu[p->nr_batches] = cpu;
        p->batch_size[p->nr_batches++] = end - off;
        off = end;
    }
    p->bytes = len;
    return p;
}

static struct parsed *parse_file(const char *path)
{
    size_t len;
    uint8_t *file = slurp(path, &len);
    struct parsed *p = parse_bytes(file, len);

    free(file);
    return p;
}

static void assert_metadata(const struct parsed *p)
{
    static const uint32_t want[META_WORDS] = {
        0x1001f010, XT_FORMAT_VERSION,
        0x3001f011, 0, 1, 0,
        0x2001f012, 2400000000u, 0,
        0x1001f013, MAX_CPUS,
        0x5001f014, 0x56789abc, 0x1234, 1700000000, 0, 123456789,
        0x1001f015, 0x00040014,
    };

    assert_memory_equal(p->meta, want, sizeof(want));
}

/*
 * The file holds flushes [@first, m->nr_flushes): each an epoch of
 * batches in ascending CPU order, and each CPU's records exactly.
 */
static void assert_holds_flushes(const struct parsed *p, const struct model *m,
                                 unsigned int first)
{
    unsigned int f, cpu, n = 0;

    for ( f = first; f < m->nr_flushes; f++ )
        for ( cpu = 0; cpu < m->nr_cpus; cpu++ )
            if ( m->flush[f].len[cpu] )
            {
                assert_true(n < p->nr_batches);
                assert_int_equal(p->batch_cpu[n], cpu);
                n++;
            }
    assert_int_equal(n, p->nr_batches);

    for ( cpu = 0; cpu < m->nr_cpus; cpu++ )
    {
        struct bytes want = { 0 };

        for ( f = first; f < m->nr_flushes; f++ )
            append(&want, m->added[cpu].p + m->flush[f].start[cpu],
                   m->flush[f].len[cpu]);
        assert_int_equal(p->cpu_data[cpu].len, want.len);
        if ( want.len )
            assert_memory_equal(p->cpu_data[cpu].p, want.p, want.len);
        free(want.p);
    }
}

/* ---- Helpers -------------------------------------------------------- */

static int open_out(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    assert_true(fd >= 0);
    return fd;
}

static off_t file_size(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return st.st_size;
}

/* xenalyze --summary of @trace: its output, after checking it is clean. */
static char *xenalyze_summary(const char *trace, unsigned int nr_cpus)
{
    char log[128], *argv[] = { XENALYZE, "--summary", (char *)trace, NULL };
    char *text;
    size_t len;
    unsigned int cpu;
    int rc;

    /* In dir: the trace may be on a file system that is full. */
    snprintf(log, sizeof(log), "%s/xenalyze.summary", dir);
    rc = run_cmd(argv, log);
    text = (char *)slurp(log, &len);
    unlink(log);
    if ( rc || strstr(text, "Unexpected") || strstr(text, "FATAL") ||
         strstr(text, "ERROR") || strstr(text, "Strange") )
        fail_msg("xenalyze exited %d:\n%.3000s", rc, text);
    for ( cpu = 0; cpu < nr_cpus; cpu++ )
    {
        char want[64];

        snprintf(want, sizeof(want), "Activating pcpu %u ", cpu);
        if ( !strstr(text, want) )
            fail_msg("xenalyze did not see pcpu %u:\n%.3000s", cpu, text);
    }
    return text;
}

static void path_in(char *buf, size_t size, const char *d, const char *name)
{
    snprintf(buf, size, "%s/%s", d, name);
}

/* ---- Tests ---------------------------------------------------------- */

/* A writer on @fd, and an empty epoch that is full at @batch_bytes. */
static struct xt_writer *open_writer(int fd, const struct xt_writer_opts *opts,
                                     size_t batch_bytes)
{
    struct xt_writer *w = xt_writer_open(fd, &meta, opts);

    assert_non_null(w);
    staged = batches_new(MAX_CPUS, batch_bytes ? batch_bytes : DEFAULT_BATCH);
    assert_non_null(staged);
    return w;
}

/* Close the writer; what is staged and not put is dropped. */
static int close_writer(struct xt_writer *w)
{
    int rc = xt_writer_close(w), error = errno;

    batches_free(staged);
    staged = NULL;
    errno = error;
    return rc;
}

/*
 * Put what is staged, close the writer and @fd, and check that @path
 * holds the metadata and every epoch put; then free @m, remove @path.
 */
static void close_and_check(struct xt_writer *w, int fd, struct model *m,
                            const char *path)
{
    struct parsed *p;

    flush(w, m);
    assert_int_equal(close_writer(w), 0);
    close(fd);
    p = parse_file(path);
    assert_metadata(p);
    assert_holds_flushes(p, m, 0);
    free_parsed(p);
    free_model(m);
    unlink(path);
}

/*
 * @nr_cpus CPUs at the same rate, an epoch put whenever one is full, as
 * the daemon does: whole, in order, epochs as put, little padding.
 */
static void write_steady(unsigned int nr_cpus, unsigned int nr_flushes,
                         size_t batch_bytes, const char *name)
{
    struct model *m = new_model(nr_cpus);
    struct source src[MAX_CPUS];
    struct xt_writer *w;
    struct parsed *p;
    char path[128];
    unsigned int cpu;
    uint64_t bytes, padding;
    size_t effective = batch_bytes ? batch_bytes : DEFAULT_BATCH;
    int fd;

    path_in(path, sizeof(path), dir, name);
    fd = open_out(path);
    watch(fd);
    w = open_writer(fd, NULL, batch_bytes);
    for ( cpu = 0; cpu < nr_cpus; cpu++ )
        src[cpu] = (struct source){ .cpu = cpu, .tsc = 1ULL << 33 };

    while ( m->nr_flushes < nr_flushes )
    {
        for ( cpu = 0; cpu < nr_cpus; cpu++ )
            add_window(m, &src[cpu], 4 * KiB + next_random() % (8 * KiB));
        if ( batches_full(staged) )
            flush(w, m);
    }
    bytes = xt_writer_bytes(w);
    padding = xt_writer_padding(w);
    assert_int_equal(close_writer(w), 0);
    assert_int_equal(file_size(path), bytes);
    close(fd);

    p = parse_file(path);
    assert_metadata(p);
    assert_int_equal(p->padding, padding);
    assert_holds_flushes(p, m, 0);
    assert_int_equal(io.calls, 1 + p->nr_batches);  /* one writev() each */
    /* Alone, a CPU's batch goes as soon as it holds batch_bytes. */
    for ( cpu = 0; nr_cpus == 1 && cpu < p->nr_batches; cpu++ )
        assert_in_range(p->batch_size[cpu], effective,
                        effective + 12 * KiB + PAGE);
    print_message("%u CPUs, %u epochs, batch_bytes %zu KiB: %u batches, "
                  "%llu bytes, padding %llu (%.3f %%)\n", nr_cpus,
                  nr_flushes, effective / KiB,
                  p->nr_batches,
                  (unsigned long long)p->bytes,
                  (unsigned long long)p->padding,
                  100.0 * p->padding / p->bytes);
    assert_true(p->padding * 50 < p->bytes);    /* under 2 % */
    free_parsed(p);
    free_model(m);
    unlink(path);
}

static void test_one_cpu(void **state)
{
    (void)state;
    write_steady(1, 20, 0, "one.xt");
}

static void test_two_cpus(void **state)
{
    (void)state;
    write_steady(2, 20, 0, "two.xt");
}

static void test_eight_cpus(void **state)
{
    (void)state;
    write_steady(8, 10, 0, "eight.xt");
}

/* Small batches and uneven CPUs: exact, whatever the sizes. */
static void test_uneven_cpus_and_sizes(void **state)
{
    struct model *m = new_model(MAX_CPUS);
    struct source src[MAX_CPUS];
    struct xt_writer *w;
    char path[128];
    unsigned int cpu, i;
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "uneven.xt");
    fd = open_out(path);
    w = open_writer(fd, NULL, 6 * KiB);
    for ( cpu = 0; cpu < MAX_CPUS; cpu++ )
        src[cpu] = (struct source){ .cpu = cpu };

    for ( i = 0; i < 400; i++ )
    {
        /* Some CPUs busy, some rare: epochs of 1 to 8 batches. */
        cpu = next_random() % 3 ? next_random() % 2 : next_random() % 8;
        add_window(m, &src[cpu], 4 + next_random() % (3 * KiB));
        if ( batches_full(staged) || next_random() % 7 == 0 )
            flush(w, m);
    }
    close_and_check(w, fd, m, path);
}

/*
 * The metadata is the file's first page, written at open, whichever CPU
 * comes first after it; a batch of 12 bytes of records is one page.
 */
static void test_metadata_first(void **state)
{
    struct model *m = new_model(MAX_CPUS);
    struct source a = { .cpu = 5 }, b = { .cpu = 3 };
    struct xt_writer *w;
    struct parsed *p;
    char path[128];
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "meta.xt");
    fd = open_out(path);
    w = open_writer(fd, NULL, 0);
    assert_int_equal(file_size(path), PAGE);
    assert_int_equal(xt_writer_bytes(w), PAGE);
    add_window(m, &a, 100);
    add_window(m, &b, 5000);
    flush(w, m);
    add_window(m, &a, 10);
    flush(w, m);
    assert_int_equal(close_writer(w), 0);
    close(fd);

    p = parse_file(path);
    assert_int_equal(p->nr_batches, 3);
    assert_int_equal(p->batch_cpu[0], 3);
    assert_metadata(p);
    assert_holds_flushes(p, m, 0);
    assert_int_equal(p->batch_size[1], PAGE);
    assert_int_equal(p->batch_size[2], PAGE);
    free_parsed(p);
    free_model(m);
    unlink(path);
}

/* Nothing traced: still a trace file, the metadata's page. */
static void test_metadata_alone(void **state)
{
    struct xt_writer *w;
    struct parsed *p;
    char path[128];
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "empty.xt");
    fd = open_out(path);
    w = open_writer(fd, NULL, 0);
    assert_int_equal(close_writer(w), 0);
    close(fd);

    p = parse_file(path);
    assert_int_equal(p->bytes, PAGE);
    assert_int_equal(p->nr_batches, 0);
    assert_int_equal(p->padding, PAGE - HDR_BYTES - META_WORDS * 4);
    assert_metadata(p);
    free_parsed(p);
    free(xenalyze_summary(path, 1));
    unlink(path);
}

/* Lines of a summary, without those that count the "gen" class. */
static void drop_gen_lines(char *text)
{
    char *in = text, *out = text;

    while ( *in )
    {
        char *eol = strchrnul(in, '\n');
        size_t len = (size_t)(eol - in) + (*eol != 0);

        if ( !memmem(in, eol - in, "gen", 3) )
        {
            memmove(out, in, len);
            out += len;
        }
        in += len;
    }
    *out = 0;
}

/*
 * xenalyze reads our files, and the metadata changes nothing but the
 * volume of the "gen" class: the same file with the metadata turned into
 * pads gives the same summary otherwise.
 */
static void test_xenalyze_reads_files(void **state)
{
    struct model *m = new_model(4);
    struct source src[4];
    struct xt_writer *w;
    char path[128], bare[128], *with, *without;
    uint8_t *file;
    size_t len;
    unsigned int cpu, i;
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "xenalyze.xt");
    path_in(bare, sizeof(bare), dir, "bare.xt");
    fd = open_out(path);
    w = open_writer(fd, NULL, 64 * KiB);
    for ( cpu = 0; cpu < 4; cpu++ )
        src[cpu] = (struct source){ .cpu = cpu, .tsc = 1ULL << 33 };
    for ( i = 0; i < 300; i++ )
    {
        cpu = next_random() % 4;
        add_window(m, &src[cpu], 1 + next_random() % (4 * KiB));
        if ( batches_full(staged) )
            flush(w, m);
    }
    flush(w, m);
    assert_int_equal(close_writer(w), 0);
    close(fd);

    /* The metadata, 76 bytes, becomes pads of 32, 32 and 12 bytes. */
    file = slurp(path, &len);
    assert_int_equal(word(file + HDR_BYTES), 0x1001f010);
    memset(file + HDR_BYTES, 0, META_WORDS * 4);
    memcpy(file + HDR_BYTES, &(uint32_t){ 0x7001f002 }, 4);
    memcpy(file + HDR_BYTES + 32, &(uint32_t){ 0x7001f002 }, 4);
    memcpy(file + HDR_BYTES + 64, &(uint32_t){ 0x2001f002 }, 4);
    fd = open_out(bare);
    assert_int_equal(write(fd, file, len), (ssize_t)len);
    close(fd);
    free(file);

    with = xenalyze_summary(path, 4);
    without = xenalyze_summary(bare, 4);
    assert_non_null(strstr(with, "|-- Domain 1 --|"));
    drop_gen_lines(with);
    drop_gen_lines(without);
    assert_string_equal(with, without);
    free(with);
    free(without);
    free_model(m);
    unlink(path);
    unlink(bare);
}

/*
 * Records for @s's CPU, about @bytes of them, laid out as a batch in
 * page-aligned memory for xt_writer_put(); their length at *@len.
 */
static uint8_t *make_batch(struct model *m, struct source *s, size_t bytes,
                           size_t *len)
{
    size_t size = xt_batch_size(bytes + 40);
    uint8_t *batch = NULL;

    assert_int_equal(posix_memalign((void **)&batch, PAGE, size), 0);
    memset(batch, 0xee, size);                  /* no stale zeroes */
    *len = make_window(s, (uint32_t *)(batch + XT_BATCH_HEAD), bytes,
                       bytes + 40);
    if ( m )
        append(&m->added[s->cpu], batch + XT_BATCH_HEAD, *len);
    return batch;
}

/* Bad arguments are refused, and a refused batch harms nothing. */
static void test_bad_arguments(void **state)
{
    struct xt_metadata no_cpus = meta, bad_ns = meta;
    struct model *m = new_model(2);
    struct source src = { .cpu = 1 };
    struct xt_writer *w;
    struct parsed *p;
    uint8_t *batch;
    char path[128];
    size_t len;
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "bad.xt");
    fd = open_out(path);

    no_cpus.nr_cpus = 0;
    bad_ns.start_nsec = 1000000000;
    errno = 0;
    assert_null(xt_writer_open(fd, &no_cpus, NULL));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(xt_writer_open(fd, &bad_ns, NULL));
    assert_int_equal(errno, EINVAL);
    assert_int_equal(file_size(path), 0);

    w = xt_writer_open(fd, &meta, NULL);
    assert_non_null(w);
    batch = make_batch(NULL, &src, 1000, &len);
    errno = 0;
    assert_int_equal(xt_writer_put(w, MAX_CPUS, batch, len), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(xt_writer_put(w, 1, batch, len - 2), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(xt_writer_put(w, 1, batch + 4, len), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(file_size(path), PAGE);        /* the metadata alone */
    /* The writer goes on. */
    free(batch);
    batch = make_batch(m, &src, 1000, &len);
    assert_int_equal(xt_writer_put(w, 1, batch, len), 0);
    assert_int_equal(xt_writer_close(w), 0);
    free(batch);
    p = parse_file(path);
    assert_int_equal(p->nr_batches, 1);
    assert_int_equal(p->cpu_data[1].len, m->added[1].len);
    assert_memory_equal(p->cpu_data[1].p, m->added[1].p, m->added[1].len);
    free_parsed(p);

    /* Batches must start at page offsets of the file. */
    assert_int_equal(lseek(fd, 100, SEEK_SET), 100);
    errno = 0;
    assert_null(xt_writer_open(fd, &meta, NULL));
    assert_int_equal(errno, EINVAL);
    close(fd);
    free_model(m);
    unlink(path);
}

/* A pipe: no free-space check (its file system reports none free). */
static void test_pipe_skips_reserve(void **state)
{
    struct xt_writer_opts opts = { .reserve_bytes = UINT64_MAX };
    struct model *m = new_model(2);
    struct source s = { .cpu = 1 };
    struct xt_writer *w;
    struct parsed *p;
    uint8_t buf[3 * PAGE];
    size_t got = 0;
    ssize_t n;
    int fds[2];

    (void)state;
    assert_int_equal(pipe(fds), 0);
    w = open_writer(fds[1], &opts, 0);
    add_window(m, &s, 3000);
    flush(w, m);
    assert_int_equal(close_writer(w), 0);
    close(fds[1]);
    while ( (n = read(fds[0], buf + got, sizeof(buf) - got)) > 0 )
        got += n;
    close(fds[0]);
    assert_int_equal(got, 2 * PAGE);

    p = parse_bytes(buf, got);
    assert_metadata(p);
    assert_holds_flushes(p, m, 0);
    free_parsed(p);
    free_model(m);
}

/*
 * A reserve bigger than the free space: the metadata is refused, at
 * open, and nothing is written; half the free space in reserve is fine.
 */
static void test_reserve_refuses_metadata(void **state)
{
    struct xt_writer_opts opts = { 0 };
    struct model *m = new_model(2);
    struct source s = { .cpu = 0 };
    struct statvfs vfs;
    struct xt_writer *w;
    char path[128];
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "reserve.xt");
    fd = open_out(path);
    assert_int_equal(fstatvfs(fd, &vfs), 0);
    opts.reserve_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize + (1 << 30);

    watch(fd);
    errno = 0;
    assert_null(xt_writer_open(fd, &meta, &opts));
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(io.calls, 0);
    assert_int_equal(file_size(path), 0);

    opts.reserve_bytes /= 2;
    w = open_writer(fd, &opts, 0);
    add_window(m, &s, 10000);
    flush(w, m);
    assert_int_equal(close_writer(w), 0);
    assert_int_equal(file_size(path), 4 * PAGE);
    close(fd);
    free_model(m);
    unlink(path);
}

/* A signal before anything went, a short count: the batch still goes. */
static void test_interrupted_and_short_writes(void **state)
{
    struct model *m = new_model(2);
    struct source src[2] = { { .cpu = 0 }, { .cpu = 1 } };
    struct xt_writer *w;
    struct parsed *p;
    char path[128];
    unsigned int i;
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "retry.xt");
    fd = open_out(path);
    w = open_writer(fd, NULL, 0);
    watch(fd);
    io.eintr_call = 2;
    io.short_call = 4;
    for ( i = 0; i < 3; i++ )
    {
        add_window(m, &src[0], 10 * KiB);
        add_window(m, &src[1], 7 * KiB);
        flush(w, m);
    }
    assert_int_equal(close_writer(w), 0);
    close(fd);

    p = parse_file(path);
    assert_metadata(p);
    assert_holds_flushes(p, m, 0);
    assert_int_equal(io.calls, p->nr_batches + 2);
    free_parsed(p);
    free_model(m);
    unlink(path);
}

/*
 * EIO after half a batch went out: the file is cut back to the batches
 * before, and the writer keeps failing with EIO.
 */
static void test_write_error_cuts_back(void **state)
{
    struct model *m = new_model(2);
    struct source src[2] = { { .cpu = 0 }, { .cpu = 1 } };
    struct xt_writer *w;
    struct parsed *p;
    uint8_t *batch;
    char path[128];
    size_t len;
    off_t good;
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "eio.xt");
    fd = open_out(path);
    w = open_writer(fd, NULL, 0);
    add_window(m, &src[0], 10 * KiB);
    add_window(m, &src[1], 7 * KiB);
    flush(w, m);
    good = file_size(path);

    watch(fd);
    io.short_call = 1;
    io.fail_call = 2;
    io.fail_errno = EIO;
    add_window(m, &src[0], 10 * KiB);
    add_window(m, &src[1], 7 * KiB);
    errno = 0;
    assert_int_equal(batches_put(staged, w), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(io.calls, 2);
    assert_int_equal(file_size(path), good);
    assert_int_equal(xt_writer_bytes(w), good);
    assert_int_equal(lseek(fd, 0, SEEK_CUR), good);

    batch = make_batch(NULL, &src[0], 100, &len);
    errno = 0;
    assert_int_equal(xt_writer_put(w, 0, batch, len), -1);
    assert_int_equal(errno, EIO);
    free(batch);
    errno = 0;
    assert_int_equal(close_writer(w), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(io.calls, 2);
    close(fd);

    p = parse_file(path);
    assert_metadata(p);
    assert_holds_flushes(p, m, 0);
    free_parsed(p);
    free_model(m);
    unlink(path);
}

/*
 * Several batches in one xt_writer_putv(): one writev(2), the same file as
 * one xt_writer_put() each.  EIO after half of them went out: the file is
 * cut back to the last batch written whole, which is one of them.
 */
static void test_gathered_batches(void **state)
{
    struct source src[2] = { { .cpu = 0 }, { .cpu = 1 } };
    struct xt_out_batch b[4], copy[4];
    struct xt_writer *w;
    uint8_t *one, *all;
    size_t one_len, all_len, total = 0, half, whole = 0;
    char path[128], path1[128];
    unsigned int i;
    int fd;

    (void)state;
    for ( i = 0; i < 4; i++ )
    {
        size_t len, size;

        b[i] = (struct xt_out_batch){ .cpu = i % 2 };
        b[i].buf = make_batch(NULL, &src[i % 2], (i + 1) * 5 * KiB, &len);
        b[i].records = len;
        size = xt_batch_size(len);
        copy[i] = b[i];
        assert_int_equal(posix_memalign(&copy[i].buf, PAGE, size), 0);
        memcpy(copy[i].buf, b[i].buf, size);
        total += size;
    }

    path_in(path, sizeof(path), dir, "gathered.xt");
    fd = open_out(path);
    w = open_writer(fd, NULL, 0);
    watch(fd);
    assert_int_equal(xt_writer_putv(w, b, 4), 0);
    assert_int_equal(io.calls, 1);
    assert_int_equal(xt_writer_bytes(w), PAGE + total);
    assert_int_equal(close_writer(w), 0);
    close(fd);
    path_in(path1, sizeof(path1), dir, "one-by-one.xt");
    fd = open_out(path1);
    w = open_writer(fd, NULL, 0);
    for ( i = 0; i < 4; i++ )
        assert_int_equal(xt_writer_put(w, copy[i].cpu, copy[i].buf,
                                       copy[i].records), 0);
    assert_int_equal(close_writer(w), 0);
    close(fd);
    /* The metadata's start TSC and time differ: the batches after it. */
    one = slurp(path1, &one_len);
    all = slurp(path, &all_len);
    assert_int_equal(all_len, one_len);
    assert_memory_equal(all + PAGE, one + PAGE, all_len - PAGE);
    free(one);
    free(all);
    unlink(path1);

    fd = open_out(path);
    w = open_writer(fd, NULL, 0);
    watch(fd);
    io.short_call = 1;
    io.fail_call = 2;
    io.fail_errno = EIO;
    half = total / 2;
    for ( i = 0; i < 4 && xt_batch_size(copy[i].records) <= half; i++ )
    {
        half -= xt_batch_size(copy[i].records);
        whole += xt_batch_size(copy[i].records);
    }
    errno = 0;
    assert_int_equal(xt_writer_putv(w, copy, 4), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(io.calls, 2);
    assert_int_equal(file_size(path), PAGE + whole);
    assert_int_equal(xt_writer_bytes(w), PAGE + whole);
    assert_int_equal(close_writer(w), -1);
    close(fd);

    for ( i = 0; i < 4; i++ )
    {
        free(b[i].buf);
        free(copy[i].buf);
    }
    unlink(path);
}

static int mount_tiny(void **state)
{
    (void)state;
    path_in(tiny_dir, sizeof(tiny_dir), dir, "tiny");
    if ( mkdir(tiny_dir, 0755) )
        return -1;
    tiny_mounted = !mount("tmpfs", tiny_dir, "tmpfs", 0, "size=64k");
    if ( !tiny_mounted )
        print_message("cannot mount a 64 KiB tmpfs (%s): skipped\n",
                      strerror(errno));
    return 0;
}

static int unmount_tiny(void **state)
{
    (void)state;
    /* Detached: a failed test may have left a file open there. */
    if ( tiny_mounted && umount2(tiny_dir, MNT_DETACH) )
        return -1;
    tiny_mounted = false;
    return rmdir(tiny_dir);
}

/*
 * Into a 64 KiB tmpfs until it is full: ENOSPC, and the file is whole
 * batches holding a prefix of each CPU's records.
 */
static void test_enospc_leaves_valid_file(void **state)
{
    struct model *m = new_model(2);
    struct source src[2] = { { .cpu = 0 }, { .cpu = 1 } };
    struct xt_writer *w;
    struct parsed *p;
    char path[128];
    unsigned int cpu, i;
    int fd, rc = 0;

    (void)state;
    if ( !tiny_mounted )
        skip();
    path_in(path, sizeof(path), tiny_dir, "full.xt");
    fd = open_out(path);
    w = open_writer(fd, NULL, 9 * KiB);
    for ( i = 0; i < 100 && !rc; i++ )
    {
        for ( cpu = 0; cpu < 2; cpu++ )
            add_window(m, &src[cpu], 2 * KiB);
        if ( batches_full(staged) )
        {
            errno = 0;
            rc = batches_put(staged, w);
            if ( !rc )
                model_flush(m);
        }
    }
    assert_int_equal(rc, -1);
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(xt_writer_bytes(w), file_size(path));
    assert_int_equal(close_writer(w), -1);
    assert_int_equal(errno, ENOSPC);
    close(fd);

    p = parse_file(path);
    print_message("full at %llu bytes, %u batches\n",
                  (unsigned long long)p->bytes, p->nr_batches);
    assert_metadata(p);
    /* Whole epochs, then maybe CPU 0's batch of the one that failed. */
    for ( cpu = 0; cpu < 2; cpu++ )
    {
        assert_true(p->cpu_data[cpu].len <= m->added[cpu].len);
        assert_memory_equal(p->cpu_data[cpu].p, m->added[cpu].p,
                            p->cpu_data[cpu].len);
    }
    free(xenalyze_summary(path, 2));
    free_parsed(p);
    free_model(m);
    unlink(path);
}

/*
 * -r on a nearly full file system: a batch bigger than the free space
 * with a small reserve.  Upstream's check wraps below zero and passes.
 */
static void test_reserve_does_not_wrap(void **state)
{
    struct xt_writer_opts opts = { .reserve_bytes = 1 };
    struct model *m = new_model(2);
    struct source s = { .cpu = 0 };
    struct xt_writer *w;
    char path[128];
    int fd;

    (void)state;
    if ( !tiny_mounted )
        skip();
    path_in(path, sizeof(path), tiny_dir, "reserve.xt");
    fd = open_out(path);
    watch(fd);
    w = open_writer(fd, &opts, 0);
    add_window(m, &s, 100 * KiB);
    errno = 0;
    assert_int_equal(batches_put(staged, w), -1);
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(io.calls, 1);             /* the metadata; refused */
    assert_int_equal(file_size(path), PAGE);
    assert_int_equal(close_writer(w), -1);
    close(fd);
    free_model(m);
    unlink(path);
}

/* O_DIRECT, where the file system has it (tmpfs has not). */
static void test_direct(void **state)
{
    struct model *m = new_model(2);
    struct source src[2] = { { .cpu = 0 }, { .cpu = 1 } };
    struct xt_writer *w;
    char path[128];
    unsigned int i;
    int fd;

    (void)state;
    path_in(path, sizeof(path), dir, "direct.xt");
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
    if ( fd < 0 && errno == EINVAL )
    {
        print_message("%s: no O_DIRECT here: skipped\n", dir);
        unlink(path);
        skip();
    }
    assert_true(fd >= 0);
    assert_true(fcntl(fd, F_GETFL) & O_DIRECT);
    w = open_writer(fd, NULL, 64 * KiB);
    for ( i = 0; i < 200; i++ )
    {
        add_window(m, &src[i % 2], 1 + next_random() % (3 * KiB));
        if ( batches_full(staged) )
            flush(w, m);
    }
    close_and_check(w, fd, m, path);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_cpu),
        cmocka_unit_test(test_two_cpus),
        cmocka_unit_test(test_eight_cpus),
        cmocka_unit_test(test_uneven_cpus_and_sizes),
        cmocka_unit_test(test_metadata_first),
        cmocka_unit_test(test_metadata_alone),
        cmocka_unit_test(test_xenalyze_reads_files),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_pipe_skips_reserve),
        cmocka_unit_test(test_reserve_refuses_metadata),
        cmocka_unit_test(test_interrupted_and_short_writes),
        cmocka_unit_test(test_write_error_cuts_back),
        cmocka_unit_test_setup_teardown(test_enospc_leaves_valid_file,
                                        mount_tiny, unmount_tiny),
        cmocka_unit_test(test_gathered_batches),
        cmocka_unit_test_setup_teardown(test_reserve_does_not_wrap,
                                        mount_tiny, unmount_tiny),
        cmocka_unit_test(test_direct),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
