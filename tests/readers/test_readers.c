/*
 * Reading trace files: libxentrace's reader on hand-built files (pads,
 * lost records, epochs, cuts, unknown events, 1024 CPUs, pipes, gzip,
 * garbage), the event catalogue against Debian's public trace.h, and the
 * tools on a xen-sim capture, checked against Debian's xenalyze.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include <xen/trace.h>          /* Debian's: the oracle of event ids */

#include "run_cmd.h"
#include "xtread.h"

#define HDR(ev, n, tsc)  ((ev) | (uint32_t)(n) << 28 | ((tsc) ? 1u << 31 : 0))

/* A file under construction, as 32-bit words. */
struct file {
    uint32_t *w;
    size_t n, cap;
    size_t batch;               /* word index of the open batch's header */
};

static void put(struct file *f, uint32_t word)
{
    if ( f->n == f->cap )
    {
        f->cap = f->cap ? f->cap * 2 : 1024;
        f->w = realloc(f->w, f->cap * 4);
        assert_non_null(f->w);
    }
    f->w[f->n++] = word;
}

/* A record: @tsc 0 means none. */
static void rec(struct file *f, uint32_t ev, uint64_t tsc, unsigned int n,
                const uint32_t *extra)
{
    unsigned int i;

    put(f, HDR(ev, n, tsc));
    if ( tsc )
    {
        put(f, (uint32_t)tsc);
        put(f, tsc >> 32);
    }
    for ( i = 0; i < n; i++ )
        put(f, extra[i]);
}

static void rec1(struct file *f, uint32_t ev, uint64_t tsc, uint32_t a)
{
    rec(f, ev, tsc, 1, &a);
}

/* Close the open batch: its byte count, as upstream's xentrace writes it. */
static void end_batch(struct file *f)
{
    if ( f->batch != SIZE_MAX )
        f->w[f->batch + 2] = (f->n - f->batch - 3) * 4;
    f->batch = SIZE_MAX;
}

static void batch(struct file *f, uint32_t cpu)
{
    end_batch(f);
    f->batch = f->n;
    put(f, HDR(TRC_TRACE_CPU_CHANGE, 2, 0));
    put(f, cpu);
    put(f, 0);
}

static struct xt_reader *open_file(struct file *f, size_t bytes)
{
    end_batch(f);
    return xt_reader_open_mem(f->w, bytes == SIZE_MAX ? f->n * 4 : bytes, 0);
}

static void init(struct file *f)
{
    memset(f, 0, sizeof(*f));
    f->batch = SIZE_MAX;
}

/* All records of @r in @order (XT_ORDER_CPU: @cpu). */
static size_t collect(struct xt_reader *r, enum xt_order order,
                      unsigned int cpu, unsigned int flags,
                      struct xt_record *out, size_t max)
{
    struct xt_iter *it = xt_iter_new(r, order, cpu, flags);
    size_t n = 0;
    struct xt_record rec;

    assert_non_null(it);
    while ( xt_iter_next(it, &rec) )
    {
        if ( n < max )
            out[n] = rec;
        n++;
    }
    xt_iter_free(it);
    return n;
}

/*
 * Hand-built files
 * ================
 */

static void test_empty_input(void **state)
{
    struct xt_reader *r = xt_reader_open_mem("", 0, 0);
    struct xt_record recs[1];

    (void)state;
    assert_non_null(r);
    assert_int_equal(xt_reader_info(r)->records, 0);
    assert_int_equal(xt_reader_info(r)->damage, XT_DAMAGE_NONE);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, recs, 1), 0);
    xt_reader_close(r);
}

static void test_not_a_trace(void **state)
{
    static const uint32_t junk[] = { 0x12345678, 0, 0 };
    uint32_t swapped[] = { __builtin_bswap32(HDR(TRC_TRACE_CPU_CHANGE, 2, 0)),
                           0, 0 };

    (void)state;
    assert_null(xt_reader_open_mem(junk, sizeof(junk), 0));
    assert_int_equal(errno, EILSEQ);
    assert_null(xt_reader_open_mem(swapped, sizeof(swapped), 0));
    assert_int_equal(errno, EBADMSG);
    assert_string_equal(xt_reader_strerror(EILSEQ), "not a trace file");
}

/* Two epochs of two CPUs; records out of order across CPUs. */
static void build_epochs(struct file *f)
{
    init(f);
    batch(f, 0);
    rec1(f, 0x0002800a, 100, 1);
    rec1(f, 0x0002800a, 300, 2);
    batch(f, 1);
    rec1(f, 0x0002800a, 200, 3);
    rec1(f, 0x0002800a, 0, 4);          /* no TSC: 200 */
    rec1(f, 0x0002800a, 400, 5);
    batch(f, 0);
    rec1(f, 0x0002800a, 500, 6);
    batch(f, 1);
    rec1(f, 0x0002800a, 450, 7);
}

static void test_tsc_order_merges_epochs(void **state)
{
    static const uint32_t want[] = { 1, 3, 4, 2, 5, 7, 6 };
    struct file f;
    struct xt_record recs[8];
    struct xt_reader *r;
    size_t i;

    (void)state;
    build_epochs(&f);
    r = open_file(&f, SIZE_MAX);
    assert_non_null(r);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, recs, 8), 7);
    for ( i = 0; i < 7; i++ )
        assert_int_equal(recs[i].extra[0], want[i]);
    assert_int_equal(recs[2].tsc, 200);         /* inherited */
    assert_false(recs[2].has_tsc);
    assert_int_equal(recs[2].cpu, 1);
    assert_int_equal(xt_reader_info(r)->batches, 4);
    assert_int_equal(xt_reader_info(r)->nr_cpus, 2);
    xt_reader_close(r);
    free(f.w);
}

/*
 * Equal TSCs come by CPU, then in file order; the largest TSC sorts last;
 * CPUs whose records run out early leave the merge; the words past a
 * record's own are 0.  Three CPUs, not a power of 2, in no order.
 */
static void test_tsc_ties_by_cpu(void **state)
{
    static const uint32_t want[] = { 1, 4, 2, 3, 6, 5 };
    static const unsigned int want_cpu[] = { 2, 5, 7, 7, 2, 7 };
    struct file f;
    struct xt_record recs[8];
    struct xt_reader *r;
    size_t i, j;

    (void)state;
    init(&f);
    batch(&f, 7);
    rec1(&f, 0x0002800a, 100, 2);
    rec1(&f, 0x0002800a, 100, 3);
    rec1(&f, 0x0002800a, UINT64_MAX, 5);
    batch(&f, 2);
    rec1(&f, 0x0002800a, 100, 1);
    rec1(&f, 0x0002800a, 300, 6);
    batch(&f, 5);
    rec1(&f, 0x0002800a, 100, 4);
    r = open_file(&f, SIZE_MAX);
    assert_non_null(r);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, recs, 8), 6);
    for ( i = 0; i < 6; i++ )
    {
        assert_int_equal(recs[i].extra[0], want[i]);
        assert_int_equal(recs[i].cpu, want_cpu[i]);
        for ( j = 1; j < 7; j++ )
            assert_int_equal(recs[i].extra[j], 0);
    }
    assert_true(recs[5].tsc == UINT64_MAX);
    xt_reader_close(r);
    free(f.w);
}

static void test_file_and_cpu_order(void **state)
{
    static const uint32_t file_order[] = { 1, 2, 3, 4, 5, 6, 7 };
    static const uint32_t cpu1[] = { 3, 4, 5, 7 };
    struct file f;
    struct xt_record recs[16];
    struct xt_reader *r;
    size_t i;

    (void)state;
    build_epochs(&f);
    r = open_file(&f, SIZE_MAX);
    assert_int_equal(collect(r, XT_ORDER_FILE, 0, 0, recs, 16), 7);
    for ( i = 0; i < 7; i++ )
        assert_int_equal(recs[i].extra[0], file_order[i]);
    assert_int_equal(collect(r, XT_ORDER_CPU, 1, 0, recs, 16), 4);
    for ( i = 0; i < 4; i++ )
        assert_int_equal(recs[i].extra[0], cpu1[i]);
    assert_int_equal(collect(r, XT_ORDER_CPU, 9, 0, recs, 16), 0);
    /* With the CPU-change records: 4 more. */
    assert_int_equal(collect(r, XT_ORDER_FILE, 0, XT_ITER_SPECIAL, recs, 16),
                     11);
    assert_int_equal(recs[0].event, TRC_TRACE_CPU_CHANGE);
    assert_int_equal(recs[0].offset, 0);
    xt_reader_close(r);
    free(f.w);
}

static void test_pads_skipped_and_counted(void **state)
{
    static const uint32_t zeros[7];
    struct file f;
    struct xt_record recs[8];
    struct xt_reader *r;

    (void)state;
    init(&f);
    batch(&f, 0);
    rec1(&f, 0x00021011, 10, 0x00010000);
    rec(&f, TRC_TRACE_WRAP_BUFFER, 20, 3, zeros);   /* Xen's, with a TSC */
    rec1(&f, 0x00021101, 30, 0x00010000);
    rec(&f, TRC_TRACE_WRAP_BUFFER, 0, 7, zeros);
    rec(&f, TRC_TRACE_WRAP_BUFFER, 0, 0, zeros);
    r = open_file(&f, SIZE_MAX);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, recs, 8), 2);
    assert_int_equal(xt_reader_info(r)->pads, 3);
    assert_int_equal(xt_reader_info(r)->records, 2);
    assert_int_equal(xt_reader_cpu(r, 0)->last_tsc, 30);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, XT_ITER_SPECIAL, recs, 8), 6);
    xt_reader_close(r);
    free(f.w);
}

static void test_lost_records(void **state)
{
    const uint32_t lost[] = { 1234, 7 | 2u << 16, 0x89abcdef, 0x1 };
    struct file f;
    struct xt_record recs[4];
    struct xt_reader *r;
    struct xt_lost l;
    char text[XT_RECORD_FORMAT_MAX];

    (void)state;
    init(&f);
    batch(&f, 3);
    rec(&f, TRC_LOST_RECORDS, 1000, 4, lost);
    rec1(&f, 0x00028004, 1001, 7);
    r = open_file(&f, SIZE_MAX);
    assert_int_equal(xt_reader_info(r)->lost_records, 1234);
    assert_int_equal(xt_reader_info(r)->lost_markers, 1);
    assert_int_equal(xt_reader_cpu_by_id(r, 3)->lost_records, 1234);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, recs, 4), 2);
    assert_true(xt_record_lost(&recs[0], &l));
    assert_int_equal(l.count, 1234);
    assert_int_equal(l.domain, 7);
    assert_int_equal(l.vcpu, 2);
    assert_int_equal(l.first_tsc, 0x189abcdefULL);
    assert_false(xt_record_lost(&recs[1], &l));
    xt_record_format(&recs[0], text, sizeof(text));
    assert_string_equal(text, "TRC_LOST_RECORDS count=1234 lost_on=d7v2 "
                              "first_tsc=6604705263");
    xt_reader_close(r);
    free(f.w);
}

static void test_metadata(void **state)
{
    static const uint32_t tool[] = { 0, 1, 2 };
    static const uint32_t hz[] = { 0x8f0d1800, 0 };
    static const uint32_t start[] = { 0x540be400, 2, 0x692bd400, 0,
                                      500000000 };
    struct file f;
    struct xt_reader *r;
    const struct xt_reader_info *in;

    (void)state;
    init(&f);
    batch(&f, 0);
    rec1(&f, TRC_XT_FORMAT, 0, 1);
    rec(&f, TRC_XT_TOOL, 0, 3, tool);
    rec(&f, TRC_XT_TSC_HZ, 0, 2, hz);
    rec1(&f, TRC_XT_CPUS, 0, 2);
    rec(&f, TRC_XT_START, 0, 5, start);
    r = open_file(&f, SIZE_MAX);
    in = xt_reader_info(r);
    assert_true(in->has_meta && in->has_tsc_hz && in->has_start);
    assert_int_equal(in->format_version, 1);
    assert_int_equal(in->tool_version[2], 2);
    assert_int_equal(in->meta.tsc_hz, 2400000000ULL);
    assert_int_equal(in->meta.nr_cpus, 2);
    assert_int_equal(in->meta.start_tsc, 0x2540be400ULL);
    assert_int_equal(in->meta.start_sec, 1764480000);
    assert_int_equal(in->meta.start_nsec, 500000000);
    assert_int_equal(in->records, 5);
    xt_reader_close(r);
    free(f.w);
}

/* Cut at every byte: never more records than whole ones, damage said. */
static void test_cut_anywhere(void **state)
{
    struct file f;
    size_t cut, full;

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    full = f.n * 4;
    for ( cut = 1; cut < full; cut++ )
    {
        struct xt_reader *r = xt_reader_open_mem(f.w, cut, 0);
        const struct xt_reader_info *in;
        struct xt_record recs[8];
        char warn[256];

        assert_non_null(r);
        in = xt_reader_info(r);
        /* Complete up to the cut only if the cut is between batches. */
        assert_true(in->damage != XT_DAMAGE_NONE || in->end == cut);
        assert_true((xt_reader_damage(r, warn, sizeof(warn)) != NULL) ==
                    (in->damage != XT_DAMAGE_NONE));
        assert_true(in->end <= cut);
        assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, recs, 8),
                         in->records);
        assert_true(in->records <= 7);
        xt_reader_close(r);
    }
    free(f.w);
}

static void test_cut_mid_record(void **state)
{
    struct file f;
    struct xt_reader *r;
    const struct xt_reader_info *in;
    char warn[256];

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    /* The last record (12 + 4 bytes) loses 6 bytes. */
    r = xt_reader_open_mem(f.w, f.n * 4 - 6, 0);
    in = xt_reader_info(r);
    assert_int_equal(in->damage, XT_DAMAGE_TRUNCATED);
    assert_int_equal(in->records, 6);
    assert_int_equal(in->end, f.n * 4 - 16);
    assert_int_equal(in->missing, 6);
    assert_string_equal(xt_reader_damage(r, warn, sizeof(warn)),
                        "truncated: 10 bytes at offset 136 not read, "
                        "the last batch lacks 6 bytes");
    xt_reader_close(r);
    free(f.w);
}

static void test_corrupt_batch_boundary(void **state)
{
    struct file f;
    struct xt_reader *r;

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    f.w[f.n - 7] = 0xdeadbeef;          /* the last batch's CPU change */
    r = xt_reader_open_mem(f.w, f.n * 4, 0);
    assert_non_null(r);
    assert_int_equal(xt_reader_info(r)->damage, XT_DAMAGE_CORRUPT);
    assert_int_equal(xt_reader_info(r)->records, 6);
    xt_reader_close(r);
    free(f.w);
}

static void test_unknown_events_print(void **state)
{
    static const uint32_t w[] = { 1, 2 };
    struct xt_record r = { .event = 0x0ff12345, .nr_extra = 2 };
    char text[XT_RECORD_FORMAT_MAX], small[8];

    (void)state;
    memcpy(r.extra, w, sizeof(w));
    xt_record_format(&r, text, sizeof(text));
    assert_string_equal(text, "event 0xff12345 [ 0x1 0x2 ]");
    assert_int_equal(xt_record_format(&r, small, sizeof(small)),
                     strlen(text));
    assert_string_equal(small, "event 0");
    assert_null(xt_event_find(0x0ff12345));
    /* A known event with too few and too many words. */
    r.event = TRC_SCHED_SWITCH;
    xt_record_format(&r, text, sizeof(text));
    assert_string_equal(text, "TRC_SCHED_SWITCH prev_dom=1 prev_vcpu=2 "
                              "next_dom=? next_vcpu=?");
    r.event = TRC_SCHED_RUNSTATE_CHANGE | 1 << 8 | 0 << 4;
    r.extra[0] = 0x00030001;
    r.nr_extra = 2;
    xt_record_format(&r, text, sizeof(text));
    assert_string_equal(text, "TRC_SCHED_RUNSTATE_CHANGE vcpu=d3v1 "
                              "runnable->running [ 0x2 ]");
    assert_string_equal(xt_event_class(TRC_HVM_VMEXIT), "hvm");
}

/*
 * xentrace-dump's time column: right-aligned in 16, wider when the TSC
 * needs it, at every change of width of its hand-made digits.
 */
static void test_dump_tsc_column(void **state)
{
    static const uint64_t tscs[] = {
        5, 99999999, 100000000, 123456789, 9999999999999999ULL,
        10000000000000000ULL, UINT64_MAX,
    };
    static const char *const want[] = {
        /* No scheduler record: the vCPU running is not known ("?"). */
        "               5 cpu3  TRC_PV_HYPERCALL_V2 op_args=0x5 | ? "
        "fpu_taskswitch\n",
        "        99999999 cpu3  TRC_PV_HYPERCALL_V2 op_args=0x5f5e0ff | ?\n",
        "       100000000 cpu3  TRC_PV_HYPERCALL_V2 op_args=0x5f5e100 | ?\n",
        "       123456789 cpu3  TRC_PV_HYPERCALL_V2 op_args=0x75bcd15 | ?\n",
        "9999999999999999 cpu3  TRC_PV_HYPERCALL_V2 op_args=0x6fc0ffff | ?\n",
        "10000000000000000 cpu3  TRC_PV_HYPERCALL_V2 op_args=0x6fc10000 | "
        "?\n",
        "18446744073709551615 cpu3  TRC_PV_HYPERCALL_V2 op_args=0xffffffff | "
        "?\n",
    };
    char path[] = "/tmp/test_readers.tsc.XXXXXX", cmd[256], line[256];
    struct file f;
    FILE *out;
    size_t i;
    int fd;

    (void)state;
    init(&f);
    batch(&f, 3);
    for ( i = 0; i < 7; i++ )
        rec1(&f, TRC_PV_HYPERCALL_V2, tscs[i], tscs[i]);
    end_batch(&f);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, f.w, f.n * 4), (ssize_t)(f.n * 4));
    close(fd);
    snprintf(cmd, sizeof(cmd), "%s '%s' | grep -v '^#'", XT_DUMP, path);
    out = popen(cmd, "r");
    assert_non_null(out);
    for ( i = 0; i < 7; i++ )
    {
        assert_non_null(fgets(line, sizeof(line), out));
        assert_string_equal(line, want[i]);
    }
    assert_null(fgets(line, sizeof(line), out));
    assert_int_equal(pclose(out), 0);
    unlink(path);
    free(f.w);
}

static void test_1024_cpus(void **state)
{
    struct file f;
    struct xt_reader *r;
    struct xt_record *recs = calloc(2048, sizeof(*recs));
    unsigned int cpu, epoch;
    size_t i;

    (void)state;
    init(&f);
    for ( epoch = 0; epoch < 2; epoch++ )
        for ( cpu = 0; cpu < 1024; cpu++ )
        {
            batch(&f, cpu);
            /* Later CPUs earlier in time: the merge has work to do. */
            rec1(&f, 0x00028004, 1000000 * (epoch + 1) - cpu, cpu);
        }
    r = open_file(&f, SIZE_MAX);
    assert_int_equal(xt_reader_info(r)->nr_cpus, 1024);
    assert_int_equal(xt_reader_info(r)->max_cpu, 1023);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, recs, 2048), 2048);
    for ( i = 1; i < 2048; i++ )
        assert_true(recs[i - 1].tsc <= recs[i].tsc);
    assert_int_equal(recs[0].cpu, 1023);
    assert_int_equal(xt_reader_cpu(r, 1023)->records, 2);
    xt_reader_close(r);
    free(recs);
    free(f.w);
}

/*
 * Batches in place (XT_READ_BATCHES)
 * ==================================
 */

/* Walk every batch of @r as xentrace-summary does; its records. */
static uint64_t walk_batches(struct xt_reader *r)
{
    struct xt_batch b;
    uint64_t i, n = 0;

    for ( i = 0; xt_reader_batch(r, i, &b) > 0; i++ )
    {
        size_t w = 0;

        assert_int_equal((uintptr_t)b.words % 4, 0);
        assert_int_equal(xt_reader_cpu(r, b.cpu_index)->cpu, b.cpu);
        while ( w < b.len && xt_record_words(b.words[w]) <= b.len - w )
        {
            uint32_t event = b.words[w] & 0x0fffffffu;

            n += event != TRC_TRACE_WRAP_BUFFER && event != TRC_TRACE_CPU_CHANGE;
            w += xt_record_words(b.words[w]);
        }
        xt_reader_walked(r, i, w);
    }
    assert_int_equal(i, xt_reader_info(r)->batches);
    return n;
}

/*
 * @len bytes at @data, opened with XT_READ_BATCHES and walked, say what
 * they say opened without it.
 */
static void assert_batches_agree(const void *data, size_t len)
{
    struct xt_reader *r = xt_reader_open_mem(data, len, 0);
    struct xt_reader *lazy = xt_reader_open_mem(data, len, XT_READ_BATCHES);
    const struct xt_reader_info *a, *b;
    char wa[256], wb[256];
    const char *da, *db;
    unsigned int i;

    assert_non_null(r);
    assert_non_null(lazy);
    a = xt_reader_info(r);
    b = xt_reader_info(lazy);
    assert_int_equal(b->records, 0);
    assert_int_equal(walk_batches(lazy), a->records);
    da = xt_reader_damage(r, wa, sizeof(wa));
    db = xt_reader_damage(lazy, wb, sizeof(wb));
    assert_true((da == NULL) == (db == NULL));
    if ( da )
        assert_string_equal(da, db);
    assert_int_equal(a->damage, b->damage);
    assert_int_equal(a->damage_offset, b->damage_offset);
    assert_int_equal(a->end, b->end);
    assert_int_equal(a->batches, b->batches);
    assert_int_equal(a->nr_cpus, b->nr_cpus);
    assert_int_equal(a->has_meta, b->has_meta);
    for ( i = 0; i < a->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ca = xt_reader_cpu(r, i);
        const struct xt_cpu_info *cb = xt_reader_cpu(lazy, i);

        assert_int_equal(ca->cpu, cb->cpu);
        assert_int_equal(ca->bytes, cb->bytes);
        assert_int_equal(ca->has_tsc, cb->has_tsc);
        assert_int_equal(ca->first_tsc, cb->first_tsc);
        assert_int_equal(ca->last_tsc, cb->last_tsc);
    }
    xt_reader_close(lazy);
    xt_reader_close(r);
}

static void test_batches_in_place(void **state)
{
    struct file f;
    struct xt_reader *r;
    struct xt_batch b;

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    r = xt_reader_open_mem(f.w, f.n * 4, XT_READ_BATCHES);
    assert_non_null(r);
    assert_int_equal(xt_reader_info(r)->batches, 4);
    assert_int_equal(xt_reader_cpu_by_id(r, 1)->first_tsc, 200);
    assert_int_equal(xt_reader_cpu_by_id(r, 1)->last_tsc, 450);
    /* Batch 1: CPU 1's three records, 16 + 8 + 16 bytes, not copied. */
    assert_int_equal(xt_reader_batch(r, 1, &b), 1);
    assert_int_equal(b.cpu, 1);
    assert_int_equal(b.cpu_index, 1);
    assert_ptr_equal(b.words, f.w + 11 + 3);
    assert_int_equal(b.len, 10);
    assert_int_equal(b.offset, 56);
    assert_int_equal(b.words[4], HDR(0x0002800a, 1, 0));
    assert_int_equal(xt_reader_batch(r, 4, &b), 0);
    errno = 0;
    assert_null(xt_iter_new(r, XT_ORDER_FILE, 0, 0));
    assert_int_equal(errno, EINVAL);
    xt_reader_close(r);
    assert_batches_agree(f.w, f.n * 4);
    free(f.w);
}

static void test_batches_damage(void **state)
{
    struct file f;
    struct xt_reader *r;
    char warn[256];
    uint8_t *odd;
    size_t cut;

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    for ( cut = 0; cut <= f.n * 4; cut++ )
        assert_batches_agree(f.w, cut);

    /* Batch 1 says 36 bytes, not 40: its last record runs over. */
    f.w[11 + 2] = 36;
    r = xt_reader_open_mem(f.w, f.n * 4, XT_READ_BATCHES);
    /* Batch 2 would start inside that record: open sees that first. */
    assert_int_equal(xt_reader_info(r)->damage, XT_DAMAGE_CORRUPT);
    assert_int_equal(xt_reader_info(r)->damage_offset, 92);
    assert_int_equal(walk_batches(r), 4);
    assert_int_equal(xt_reader_info(r)->damage_offset, 80);
    assert_string_equal(xt_reader_damage(r, warn, sizeof(warn)),
                        "corrupt at offset 80: 72 bytes not read");
    xt_reader_close(r);
    assert_batches_agree(f.w, f.n * 4);
    f.w[11 + 2] = 40;

    /* 42 bytes: the next batch is not aligned, and comes as a copy. */
    odd = calloc(1, f.n * 4 + 2);
    assert_non_null(odd);
    memcpy(odd, f.w, 96);
    memcpy(odd + 98, f.w + 24, f.n * 4 - 96);
    memcpy(odd + 52, &(uint32_t){ 42 }, 4);
    assert_batches_agree(odd, f.n * 4 + 2);
    /* All of it unaligned in memory. */
    memmove(odd + 1, f.w, f.n * 4);
    assert_batches_agree(odd + 1, f.n * 4);
    free(odd);
    free(f.w);
}

static void test_batches_1024_cpus(void **state)
{
    struct file f;
    struct xt_reader *r;
    struct xt_batch b;
    unsigned int cpu, epoch;
    uint64_t i;

    (void)state;
    init(&f);
    for ( epoch = 0; epoch < 2; epoch++ )
        for ( cpu = 0; cpu < 1024; cpu++ )
        {
            batch(&f, 1023 - cpu);
            rec1(&f, 0x00028004, 1000000 * (epoch + 1) - cpu, cpu);
            rec1(&f, 0x00028004, 0, cpu);
        }
    end_batch(&f);
    r = xt_reader_open_mem(f.w, f.n * 4, XT_READ_BATCHES);
    assert_int_equal(xt_reader_info(r)->nr_cpus, 1024);
    assert_int_equal(xt_reader_info(r)->max_cpu, 1023);
    for ( i = 0; xt_reader_batch(r, i, &b) > 0; i++ )
    {
        assert_int_equal(b.cpu, 1023 - i % 1024);
        assert_int_equal(b.cpu_index, b.cpu);
        assert_int_equal(b.len, 6);
    }
    assert_int_equal(i, 2048);
    assert_int_equal(xt_reader_cpu_by_id(r, 0)->first_tsc, 1000000 - 1023);
    assert_int_equal(xt_reader_cpu_by_id(r, 0)->last_tsc, 2000000 - 1023);
    xt_reader_close(r);
    assert_batches_agree(f.w, f.n * 4);
    free(f.w);
}

/* Run @cmd with "%s" the path of @f written to a file; its output. */
static char *run_on_file(struct file *f, const char *cmd_fmt)
{
    char path[] = "/tmp/test_readers.sum.XXXXXX", cmd[512];
    char *out = calloc(1, 65536);
    FILE *p;
    size_t n;
    int fd;

    assert_non_null(out);
    end_batch(f);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, f->w, f->n * 4), (ssize_t)(f->n * 4));
    close(fd);
    snprintf(cmd, sizeof(cmd), cmd_fmt, path);
    p = popen(cmd, "r");
    assert_non_null(p);
    n = fread(out, 1, 65535, p);
    assert_true(n > 0);
    assert_int_equal(pclose(p), 0);
    unlink(path);
    return out;
}

#define RUNSTATE(old, new)  (0x00021001u | (old) << 8 | (new) << 4)

/*
 * xentrace-summary counts two batches side by side: the later one must
 * still add its events, and apply its runstate changes, after the earlier
 * one's, as if it were read after it.
 */
static void test_summary_batches_in_file_order(void **state)
{
    struct file f;
    char *out;
    unsigned int i;

    (void)state;
    init(&f);
    batch(&f, 0);
    rec1(&f, RUNSTATE(2, 1), 90, 2 << 16);      /* d2v0 blocked->runnable */
    rec1(&f, RUNSTATE(0, 2), 100, 1 << 16);     /* d1v0 running->blocked */
    for ( i = 0; i < 20; i++ )
        rec1(&f, 0x0002800a, 101 + i, i);
    rec1(&f, 0x0008aaa1, 300, 0);               /* new in the earlier batch */
    batch(&f, 1);
    rec1(&f, RUNSTATE(2, 1), 200, 1 << 16);     /* d1v0 blocked->runnable */
    rec1(&f, 0x0008bbb1, 250, 0);               /* new in the later batch */
    out = run_on_file(&f, XT_SUMMARY " -H 100 '%s'");
    /*
     * d1v0: unknown from the start (90) to 100, blocked to 200, runnable
     * to the end (300): running, runnable, blocked, offline, lost and
     * unknown seconds with their intervals, and no migration.
     */
    assert_non_null(strstr(out, "\nd1v0          0.000000       0    1.000000"
                                "       1    1.000000       1    0.000000"
                                "       0    0.000000       0    0.100000"
                                "       1      0\n"));
    assert_non_null(strstr(out, "0x0008aaa1"));
    assert_true(strstr(out, "0x0008aaa1") < strstr(out, "0x0008bbb1"));
    free(out);
    free(f.w);
}

/* A pipe and a gzip file, through xt_reader_open_fd(). */
static void test_pipe_and_gzip(void **state)
{
    struct file f;
    char path[] = "/tmp/test_readers.XXXXXX";
    int fds[2], fd;
    pid_t pid;
    struct xt_reader *r;
    gzFile gz;

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    assert_int_equal(pipe(fds), 0);
    pid = fork();
    if ( pid == 0 )
    {
        close(fds[0]);
        _exit(write(fds[1], f.w, f.n * 4) == (ssize_t)(f.n * 4) ? 0 : 1);
    }
    close(fds[1]);
    r = xt_reader_open_fd(fds[0], 0);
    close(fds[0]);
    waitpid(pid, NULL, 0);
    assert_non_null(r);
    assert_int_equal(xt_reader_info(r)->records, 7);
    assert_false(xt_reader_info(r)->gzip);
    xt_reader_close(r);

    fd = mkstemp(path);
    assert_true(fd >= 0);
    gz = gzdopen(fd, "wb");
    assert_int_equal(gzwrite(gz, f.w, f.n * 4), (int)(f.n * 4));
    gzclose(gz);
    r = xt_reader_open(path, 0);
    assert_non_null(r);
    assert_true(xt_reader_info(r)->gzip);
    assert_int_equal(xt_reader_info(r)->records, 7);
    xt_reader_close(r);
    r = xt_reader_open(path, XT_READ_NO_GZIP);
    assert_null(r);
    assert_int_equal(errno, EILSEQ);
    unlink(path);
    free(f.w);
}

/*
 * The catalogue
 * =============
 */

struct trc_name {
    const char *name;
    unsigned long long value;
};

static const struct trc_name trc_names[] = {
#include "trc_names.h"          /* every object-like TRC_ macro of it */
};

/* An event id: class and event bits, no more than 28 bits. */
static bool is_event_id(unsigned long long v)
{
    return v >= 0x10000 && v <= 0x0fffffff && (v & 0xfff);
}

static void test_catalogue_covers_trace_h(void **state)
{
    size_t i, events = 0;

    (void)state;
    for ( i = 0; i < sizeof(trc_names) / sizeof(trc_names[0]); i++ )
    {
        const struct xt_event_desc *d;

        if ( !is_event_id(trc_names[i].value) )
            continue;
        events++;
        d = xt_event_find(trc_names[i].value);
        if ( !d || d->id != trc_names[i].value ||
             strcmp(d->name, trc_names[i].name) )
            fail_msg("%s (%#llx) is not in trace-events", trc_names[i].name,
                     trc_names[i].value);
    }
    print_message("%zu event ids in <xen/trace.h>, all catalogued\n", events);
    assert_true(events > 120);
}

static void test_catalogue_sorted_and_sane(void **state)
{
    size_t n, i, j;
    const struct xt_event_desc *t = xt_event_table(&n);

    (void)state;
    for ( i = 0; i < n; i++ )
    {
        assert_true(t[i].words <= 7);
        assert_int_equal(t[i].name_len, strlen(t[i].name));
        for ( j = 0; j < t[i].nr_fields; j++ )
            assert_int_equal(t[i].fields[j].name_len,
                             strlen(t[i].fields[j].name));
        assert_true(t[i].min_words <= t[i].words);
        assert_true(t[i].xen_min <= t[i].xen_max);
        /* An id's layouts follow each other, for versions apart. */
        if ( i )
            assert_true(t[i - 1].id < t[i].id ||
                        (t[i - 1].id == t[i].id &&
                         t[i - 1].xen_max < t[i].xen_min));
        assert_ptr_equal(xt_event_find_xen(t[i].id, t[i].xen_min), &t[i]);
        assert_ptr_equal(xt_event_find_xen(t[i].id, t[i].xen_max), &t[i]);
    }
    /* Misses of the hash table. */
    assert_null(xt_event_find(0x0fffffff));
    assert_null(xt_event_find(0));
}

/*
 * A capture from xen-sim
 * ======================
 */

static char tmpdir[64];
static char capture[128];

static int make_capture(void **state)
{
    char log[160];
    char *const argv[] = {
        XEN_SIM, "--pcpus", "2", "--workload", "mixed", "--", XENTRACE,
        "-D", "-e", "all", "-T", "1", capture, NULL,
    };

    (void)state;
    strcpy(tmpdir, "/tmp/test_readers.XXXXXX");
    if ( !mkdtemp(tmpdir) )
        return -1;
    snprintf(capture, sizeof(capture), "%s/trace.bin", tmpdir);
    snprintf(log, sizeof(log), "%s/capture.log", tmpdir);
    return run_cmd(argv, log) == 0 ? 0 : -1;
}

static int remove_capture(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Lines of a command's standard output, by a shell pipeline. */
static unsigned long count_lines(const char *pipeline)
{
    FILE *p = popen(pipeline, "r");
    unsigned long n = 0;
    int c;

    assert_non_null(p);
    while ( (c = fgetc(p)) != EOF )
        n += c == '\n';
    assert_int_equal(pclose(p), 0);
    return n;
}

/*
 * xenalyze --dump-raw-reads logs each record it reads, "R p CPU offset
 * event ...": without CPU changes and pads, per CPU, they must be ours.
 */
static void test_counts_agree_with_xenalyze(void **state)
{
    struct xt_reader *r = xt_reader_open(capture, 0);
    const struct xt_reader_info *in;
    unsigned int i;

    (void)state;
    assert_non_null(r);
    in = xt_reader_info(r);
    assert_int_equal(in->damage, XT_DAMAGE_NONE);
    assert_int_equal(in->nr_cpus, 2);
    assert_true(in->has_meta);
    for ( i = 0; i < in->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);
        char cmd[512];

        snprintf(cmd, sizeof(cmd), "xenalyze --dump-raw-reads "
                 "--dump-no-processing '%s' 2>/dev/null | awk '$1 == \"R\" "
                 "&& $3 == %u && $5 != \"1f003\" && $5 != \"1f002\"'",
                 capture, ci->cpu);
        print_message("cpu %u: %llu records\n", ci->cpu,
                      (unsigned long long)ci->records);
        assert_true(ci->records > 1000);
        assert_int_equal(count_lines(cmd), ci->records);
    }
    xt_reader_close(r);
}

/* The dump: a line per record, in TSC order, header lines aside. */
static void test_dump_lines(void **state)
{
    struct xt_reader *r = xt_reader_open(capture, 0);
    char cmd[512];

    (void)state;
    snprintf(cmd, sizeof(cmd), "%s '%s' | grep -v '^#'", XT_DUMP, capture);
    assert_int_equal(count_lines(cmd), xt_reader_info(r)->records);
    snprintf(cmd, sizeof(cmd), "%s -a -r '%s' | grep -v '^#'", XT_DUMP,
             capture);
    assert_int_equal(count_lines(cmd), xt_reader_info(r)->records +
                     xt_reader_info(r)->pads + xt_reader_info(r)->batches);
    /* Sorted by TSC: the first column never goes down. */
    snprintf(cmd, sizeof(cmd), "%s '%s' | grep -v '^#' | "
             "awk '$1 < last { print } { last = $1 }'", XT_DUMP, capture);
    assert_int_equal(count_lines(cmd), 0);
    /* Seconds, from the metadata's TSC Hz; and from standard input. */
    snprintf(cmd, sizeof(cmd), "%s -s < '%s' | grep -v '^#' | grep -c "
             "'^ *-\\?[0-9]*\\.[0-9]\\{9\\} *cpu[01]' | grep -qx %llu",
             XT_DUMP, capture,
             (unsigned long long)xt_reader_info(r)->records);
    assert_int_equal(system(cmd), 0);
    xt_reader_close(r);
}

/* xentrace_format with the generated formats: a line per flat record. */
static void test_xentrace_format_lines(void **state)
{
    struct xt_reader *r = xt_reader_open(capture, 0);
    const struct xt_reader_info *in = xt_reader_info(r);
    char cmd[512];

    (void)state;
    snprintf(cmd, sizeof(cmd), "%s %s < '%s'", XT_FORMAT, XT_FORMATS,
             capture);
    assert_int_equal(count_lines(cmd), in->records + in->pads + in->batches);
    snprintf(cmd, sizeof(cmd), "%s %s < '%s' | grep -c '^CPU1 .* "
             "sched_switch  \\[ prev_dom = ' >/dev/null", XT_FORMAT, XT_FORMATS,
             capture);
    assert_int_equal(system(cmd), 0);
    xt_reader_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_not_a_trace),
        cmocka_unit_test(test_tsc_order_merges_epochs),
        cmocka_unit_test(test_tsc_ties_by_cpu),
        cmocka_unit_test(test_file_and_cpu_order),
        cmocka_unit_test(test_pads_skipped_and_counted),
        cmocka_unit_test(test_lost_records),
        cmocka_unit_test(test_metadata),
        cmocka_unit_test(test_cut_anywhere),
        cmocka_unit_test(test_cut_mid_record),
        cmocka_unit_test(test_corrupt_batch_boundary),
        cmocka_unit_test(test_unknown_events_print),
        cmocka_unit_test(test_dump_tsc_column),
        cmocka_unit_test(test_1024_cpus),
        cmocka_unit_test(test_batches_in_place),
        cmocka_unit_test(test_batches_damage),
        cmocka_unit_test(test_batches_1024_cpus),
        cmocka_unit_test(test_summary_batches_in_file_order),
        cmocka_unit_test(test_pipe_and_gzip),
        cmocka_unit_test(test_catalogue_covers_trace_h),
        cmocka_unit_test(test_catalogue_sorted_and_sane),
        cmocka_unit_test_setup_teardown(test_counts_agree_with_xenalyze,
                                        make_capture, NULL),
        cmocka_unit_test(test_dump_lines),
        cmocka_unit_test_setup_teardown(test_xentrace_format_lines, NULL,
                                        remove_capture),
    };

    /* One group: tests/run-tests reads one summary per program. */
    return cmocka_run_group_tests_name("readers", tests, NULL, NULL);
}
