/*
 * xentrace's output queue (tools/xentrace/output.c), without a host:
 * epochs of chunks in, as the capture thread makes them, and the file
 * read back.  Written as they come, every chunk is a batch, in order;
 * with a ring (-M), the file holds the fewest newest epochs whose
 * batches hold the ring's size, whole and in order, after the metadata.
 * Each CPU's count of what the file holds sums the chunks it holds, also
 * when a write fails part of the way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "output.h"

#define NR_CPUS       4u
#define MAX_EPOCHS    400u
#define CHUNK_RECORDS (16u * 1024)
#define REC_BYTES     8u            /* TRC_GEN + 0x100, one word: a sequence */

static char path[] = "/tmp/test_output.XXXXXX";

static const struct xt_metadata meta = {
    .tsc_hz = 2400000000ULL, .nr_cpus = NR_CPUS,
};

/* What was pushed: per epoch, each CPU's records (0: none). */
struct pushed {
    unsigned int nr_epochs;
    uint32_t first[MAX_EPOCHS][NR_CPUS];    /* sequence of its first */
    uint32_t count[MAX_EPOCHS][NR_CPUS];
    size_t bytes[MAX_EPOCHS];               /* xt_batch_size() of each */
};

static uint32_t next_seq = 1;
static uint32_t rng = 2463534242u;

static uint32_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* One epoch: chunks for some CPUs, ascending, the last one marked. */
static void push_epoch(struct output *o, struct pushed *p,
                       unsigned int max_records)
{
    unsigned int e = p->nr_epochs++, cpu, last = 0;
    struct chunk *c[NR_CPUS] = { NULL };

    assert_true(e < MAX_EPOCHS);
    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        uint32_t i, n = next_random() % 3 ? 1 + next_random() % max_records
                                          : 0;

        if ( !n )
            continue;
        /* NULL once the writer failed: what is pushed goes nowhere. */
        if ( !(c[cpu] = output_take(o, cpu)) )
            break;
        p->first[e][cpu] = next_seq;
        p->count[e][cpu] = n;
        for ( i = 0; i < n; i++ )
        {
            uint32_t rec[2] = { (TRC_GEN + 0x100) | 1u << TRACE_EXTRA_SHIFT,
                                next_seq++ };

            memcpy(chunk_end(c[cpu]), rec, REC_BYTES);
            c[cpu]->len += REC_BYTES;
        }
        /* lost: any figure, to be carried as it is */
        c[cpu]->count = (struct chunk_count){
            .records = n, .bytes = n * REC_BYTES, .lost = e * cpu };
        p->bytes[e] += xt_batch_size(c[cpu]->len);
        last = cpu + 1;
    }
    if ( last )
        c[last - 1]->ends_epoch = true;
    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        if ( c[cpu] )
            output_push(o, c[cpu]);
}

static uint32_t word(const uint8_t *p)
{
    uint32_t w;

    memcpy(&w, p, 4);
    return w;
}

/*
 * The file holds the metadata's page, then epochs [@first, nr_epochs)
 * exactly: a batch per CPU with records, ascending, each holding them.
 */
static void assert_file_holds(const struct pushed *p, unsigned int first)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    uint8_t *file;
    size_t off = XT_PAGE;
    unsigned int e, cpu;

    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    file = malloc(st.st_size);
    assert_non_null(file);
    assert_int_equal(read(fd, file, st.st_size), st.st_size);
    close(fd);

    assert_true(st.st_size >= XT_PAGE);
    assert_int_equal(word(file + XT_BATCH_HEAD), TRC_XT_FORMAT |
                     1u << TRACE_EXTRA_SHIFT);
    for ( e = first; e < p->nr_epochs; e++ )
        for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        {
            uint32_t i, bytes;

            if ( !p->count[e][cpu] )
                continue;
            assert_true(off + XT_BATCH_HEAD <= (size_t)st.st_size);
            assert_int_equal(word(file + off), TRC_TRACE_CPU_CHANGE |
                             2u << TRACE_EXTRA_SHIFT);
            assert_int_equal(word(file + off + 4), cpu);
            bytes = word(file + off + 8);
            assert_int_equal(XT_BATCH_HEAD + bytes,
                             xt_batch_size(p->count[e][cpu] * REC_BYTES));
            for ( i = 0; i < p->count[e][cpu]; i++ )
                assert_int_equal(word(file + off + XT_BATCH_HEAD +
                                      i * REC_BYTES + 4),
                                 p->first[e][cpu] + i);
            off += XT_BATCH_HEAD + bytes;
        }
    assert_int_equal(off, st.st_size);
    free(file);
}

/*
 * Each CPU's count of what the file holds: the chunks of epochs [@first,
 * nr_epochs), and of the last of those, only the CPUs before @cut_cpu
 * (NR_CPUS: all).
 */
static void assert_written(const struct output *o, const struct pushed *p,
                           unsigned int first, unsigned int cut_cpu)
{
    unsigned int e, cpu;

    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        struct chunk_count want = { 0 };
        const struct chunk_count *got = output_written(o, cpu);

        for ( e = first; e < p->nr_epochs; e++ )
            if ( e + 1 < p->nr_epochs || cpu < cut_cpu )
            {
                want.records += p->count[e][cpu];
                want.bytes += p->count[e][cpu] * REC_BYTES;
                want.lost += p->count[e][cpu] ? e * cpu : 0;
            }
        assert_int_equal(got->records, want.records);
        assert_int_equal(got->bytes, want.bytes);
        assert_int_equal(got->lost, want.lost);
    }
}

/* Run @nr_epochs epochs through an output with @ring_bytes; the file. */
static struct output *run(struct pushed *p, unsigned int nr_epochs,
                          unsigned int max_records, size_t ring_bytes)
{
    int fd = open(path, O_WRONLY | O_TRUNC);
    struct xt_writer *w;
    struct output *o;
    unsigned int e;

    assert_true(fd >= 0);
    w = xt_writer_open(fd, &meta, NULL);
    assert_non_null(w);
    o = output_start(w, NR_CPUS, CHUNK_RECORDS * REC_BYTES, 1 << 20,
                     NR_CPUS + 2, ring_bytes);
    assert_non_null(o);
    for ( e = 0; e < nr_epochs; e++ )
        push_epoch(o, p, max_records);
    assert_int_equal(output_finish(o), 0);
    close(fd);
    return o;
}

/* The first epoch kept: the fewest newest that hold @ring_bytes. */
static unsigned int first_kept(const struct pushed *p, size_t ring_bytes,
                               size_t *kept)
{
    unsigned int first;

    *kept = 0;
    for ( first = p->nr_epochs; first > 0 && *kept < ring_bytes; first-- )
        *kept += p->bytes[first - 1];
    return first;
}

static size_t passed(const struct pushed *p)
{
    size_t sum = 0;
    unsigned int e;

    for ( e = 0; e < p->nr_epochs; e++ )
        sum += p->bytes[e];
    return sum;
}

/* Without a ring, every chunk is written, in the order pushed. */
static void test_writes_as_they_come(void **state)
{
    struct pushed *p = calloc(1, sizeof(*p));
    struct output *o;

    (void)state;
    assert_non_null(p);
    o = run(p, 100, 2000, 0);
    assert_file_holds(p, 0);
    assert_written(o, p, 0, NR_CPUS);
    assert_int_equal(output_passed_bytes(o), passed(p));
    assert_int_equal(output_file_bytes(o), XT_PAGE + passed(p));
    output_free(o);
    free(p);
}

/*
 * A ring of 96 KiB through hundreds of epochs: the file keeps the fewest
 * newest epochs that hold it, and says how much passed through.
 */
static void test_ring_keeps_newest_epochs(void **state)
{
    const size_t ring_bytes = 96 * 1024;
    struct pushed *p = calloc(1, sizeof(*p));
    struct output *o;
    unsigned int first;
    size_t kept = 0;

    (void)state;
    assert_non_null(p);
    o = run(p, 300, 1000, ring_bytes);
    first = first_kept(p, ring_bytes, &kept);
    assert_true(first > 10 && kept >= ring_bytes);
    print_message("%u epochs, the newest %u kept: %zu bytes\n",
                  p->nr_epochs, p->nr_epochs - first, kept);
    assert_file_holds(p, first);
    assert_written(o, p, first, NR_CPUS);
    assert_int_equal(output_file_bytes(o), XT_PAGE + kept);
    assert_int_equal(output_passed_bytes(o), passed(p));
    output_free(o);
    free(p);
}

/* An epoch bigger than the whole ring: it alone is kept. */
static void test_ring_keeps_oversized_epoch(void **state)
{
    struct pushed *p = calloc(1, sizeof(*p));
    struct output *o;
    size_t kept;

    (void)state;
    assert_non_null(p);
    o = run(p, 20, CHUNK_RECORDS / REC_BYTES, 8 * 1024);
    while ( !p->bytes[p->nr_epochs - 1] )
        p->nr_epochs--;             /* an empty epoch is no epoch */
    assert_true(p->bytes[p->nr_epochs - 1] >= 8 * 1024);
    assert_int_equal(first_kept(p, 8 * 1024, &kept), p->nr_epochs - 1);
    assert_file_holds(p, p->nr_epochs - 1);
    assert_written(o, p, p->nr_epochs - 1, NR_CPUS);
    assert_int_equal(output_file_bytes(o), XT_PAGE + kept);
    output_free(o);
    free(p);
}

/*
 * The file may not grow past a size that falls inside a batch (a full
 * disk, as RLIMIT_FSIZE makes one): the writer fails with EFBIG, the file
 * ends after the last batch written whole, and the counts are those of
 * the batches it holds, though that writev(2) held more.
 */
static void test_failed_write_counts_the_file(void **state)
{
    struct pushed *p = calloc(1, sizeof(*p));
    struct rlimit was, lim;
    struct xt_writer *w;
    struct output *o;
    struct stat st;
    size_t at = XT_PAGE;
    unsigned int e, cpu = NR_CPUS;
    int fd = open(path, O_WRONLY | O_TRUNC);

    (void)state;
    assert_non_null(p);
    assert_true(fd >= 0);
    w = xt_writer_open(fd, &meta, NULL);
    assert_non_null(w);
    o = output_start(w, NR_CPUS, CHUNK_RECORDS * REC_BYTES, 1 << 20,
                     NR_CPUS + 2, 0);
    assert_non_null(o);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    lim = (struct rlimit){ .rlim_cur = 200 * 1024 + 123,
                           .rlim_max = was.rlim_max };
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    for ( e = 0; e < 60; e++ )
        push_epoch(o, p, 2000);
    assert_int_equal(output_finish(o), EFBIG);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, SIG_DFL);
    close(fd);

    /* The epochs whole in the file, and the CPUs of the one cut. */
    for ( e = 0; e < p->nr_epochs && cpu == NR_CPUS; e++ )
        for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        {
            size_t size = p->count[e][cpu] ?
                          xt_batch_size(p->count[e][cpu] * REC_BYTES) : 0;

            if ( at + size > lim.rlim_cur )
                break;
            at += size;
        }
    assert_true(cpu < NR_CPUS);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, at);
    p->nr_epochs = e;
    assert_written(o, p, 0, cpu);
    assert_int_equal(output_file_bytes(o), at);
    output_free(o);
    free(p);
}

static int setup(void **state)
{
    int fd = mkstemp(path);

    (void)state;
    if ( fd < 0 )
        return -1;
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return unlink(path);
}

/*
 * The pool: as many chunks as its bytes hold, but a chunk for each CPU
 * and two more whatever that costs: -S 65535 (256 MB a CPU) on 64 CPUs
 * is 16 GB, which xentrace refuses on a machine of less than 32 GB.
 */
static void test_pool_bytes(void **state)
{
    size_t small = 64 << 10, huge = (size_t)65535 << 12;

    (void)state;
    assert_int_equal(output_pool_bytes(small - XT_BATCH_HEAD, 16 << 20, 4),
                     16 << 20);
    assert_true(output_pool_bytes(huge, 16 << 20, 66) >= (uint64_t)66 * huge);
    assert_true(output_pool_bytes(huge, 16 << 20, 66) <
                (uint64_t)66 * (huge + 2 * XT_PAGE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_as_they_come),
        cmocka_unit_test(test_ring_keeps_newest_epochs),
        cmocka_unit_test(test_ring_keeps_oversized_epoch),
        cmocka_unit_test(test_failed_write_counts_the_file),
        cmocka_unit_test(test_pool_bytes),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
