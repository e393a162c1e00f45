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
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include <xen/trace.h>          /* Debian's: the oracle of event ids */

#include "catalogue.h"          /* the catalogue's tables, libxtfile's */
#include "reader_cpu.h"
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
    while ( xt_iter_next(it, &rec) > 0 )
    {
        if ( n < max )
            out[n] = rec;
        n++;
    }
    xt_iter_free(it);
    return n;
}

static void assert_stream_agrees(const void *data, size_t len);

/*
 * Hand-built files
 * ================
 */

static void test_empty_input(void **state)
{
    (void)state;
    assert_null(xt_reader_open_mem("", 0, 0));
    assert_int_equal(errno, ENODATA);
    assert_string_equal(xt_reader_strerror(ENODATA), "no records");
    assert_null(xt_reader_open_mem("", 0, XT_READ_STREAM));
    assert_int_equal(errno, ENODATA);
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
    assert_int_equal(cpu_info(r, 3)->lost_records, 1234);
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
    /* Metadata are not "records": those are Xen's. */
    assert_int_equal(in->records, 0);
    assert_int_equal(in->metadata, 5);
    xt_reader_close(r);
    free(f.w);

    /* A start whose TSC was not known (arm64's xentrace) is no start. */
    init(&f);
    batch(&f, 0);
    rec(&f, TRC_XT_START, 0, 5,
        (const uint32_t[]){ 0, 0, 0x692bd400, 0, 500000000 });
    rec1(&f, TRC_SCHED_SWITCH, 700, 1);
    r = open_file(&f, SIZE_MAX);
    assert_false(xt_reader_info(r)->has_start);
    assert_int_equal(xt_reader_info(r)->metadata, 1);
    xt_reader_close(r);
    free(f.w);
}

/*
 * xentrace-ng's file: metadata alone in the first batch, each CPU's stream
 * ended by TRC_XT_END at the newest TSC.  That is clean: a metadata record
 * with a TSC, not damage, and the Xen version of TRC_XT_XEN_VERSION is
 * every record's, indexed or streamed.
 */
static void test_end_records_are_clean(void **state)
{
    const unsigned int flags[] = { 0, XT_READ_STREAM };
    struct xt_record got;
    struct xt_reader *r;
    struct xt_iter *it;
    struct file f;
    unsigned int i, n;

    (void)state;
    init(&f);
    batch(&f, 0);
    rec1(&f, TRC_XT_FORMAT, 0, 1);
    rec1(&f, TRC_XT_XEN_VERSION, 0, 4 << 16 | 20);
    batch(&f, 0);
    rec1(&f, TRC_SCHED_WAKE, 100, 1);
    rec1(&f, TRC_SCHED_WAKE, 200, 1);
    batch(&f, 1);
    rec1(&f, TRC_SCHED_WAKE, 150, 1);
    rec1(&f, TRC_SCHED_WAKE, 300, 1);
    batch(&f, 0);
    rec(&f, TRC_XT_END, 300, 0, NULL);
    batch(&f, 1);
    rec(&f, TRC_XT_END, 300, 0, NULL);
    end_batch(&f);
    for ( i = 0; i < 2; i++ )
    {
        r = xt_reader_open_mem(f.w, f.n * 4, flags[i]);
        assert_non_null(r);
        assert_int_equal(xt_reader_xen_version(r), 4 << 16 | 20);
        it = xt_iter_new(r, XT_ORDER_TSC, 0, 0);
        assert_non_null(it);
        for ( n = 0; xt_iter_next(it, &got) > 0; n++ )
            assert_int_equal(got.xen_version, 4 << 16 | 20);
        assert_int_equal(n, 8);
        xt_iter_free(it);
        assert_int_equal(xt_reader_info(r)->records, 4);
        assert_int_equal(xt_reader_info(r)->metadata, 4);
        assert_int_equal(xt_reader_status(r), 0);
        assert_int_equal(xt_reader_info(r)->damage, XT_DAMAGE_NONE);
        assert_int_equal(xt_reader_info(r)->skips, 0);
        xt_reader_close(r);
    }
    assert_stream_agrees(f.w, f.n * 4);
    free(f.w);
}

/*
 * Each payload length from 0 to 7 words, each record followed by other
 * words: its own words read back, and 0 past them, in every order, mapped
 * and streamed.
 */
static void test_payload_words(void **state)
{
    const unsigned int flags[] = { 0, XT_READ_STREAM };
    const uint32_t words[7] = {
        0x11111111, 0x22222222, 0x33333333, 0x44444444, 0x55555555,
        0x66666666, 0x77777777,
    };
    struct xt_record got[16];
    struct xt_reader *r;
    struct file f;
    unsigned int i, n, k, w;

    (void)state;
    init(&f);
    batch(&f, 0);
    for ( n = 0; n <= 7; n++ )
    {
        rec(&f, TRC_SCHED_WAKE, 100 + n, n, words);
        rec(&f, TRC_SCHED_WAKE, 0, 7, words);
    }
    end_batch(&f);
    for ( i = 0; i < 2; i++ )
    {
        r = xt_reader_open_mem(f.w, f.n * 4, flags[i]);
        assert_non_null(r);
        assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, got, 16), 16);
        for ( k = 0; k < 16; k++ )
        {
            n = k % 2 ? 7 : k / 2;
            assert_int_equal(got[k].nr_extra, n);
            for ( w = 0; w < 7; w++ )
                assert_int_equal(got[k].extra[w], w < n ? words[w] : 0);
        }
        xt_reader_close(r);
    }
    assert_stream_agrees(f.w, f.n * 4);
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

        if ( cut < 4 )
        {
            /* Not even the first word: not a trace. */
            assert_null(r);
            assert_int_equal(errno, EILSEQ);
            continue;
        }
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
    assert_int_equal(xt_reader_status(r), XT_EXIT_DAMAGED);
    assert_string_equal(xt_reader_damage(r, warn, sizeof(warn)),
                        "truncated at offset 136, the last batch lacks "
                        "6 bytes");
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
    /* Nothing plausible after it: the rest is skipped, and said. */
    assert_int_equal(xt_reader_info(r)->damage_offset, f.n * 4 - 28);
    assert_int_equal(xt_reader_info(r)->skipped, 28);
    assert_int_equal(xt_reader_info(r)->damage_why, XT_BAD_NO_BATCH);
    xt_reader_close(r);
    assert_stream_agrees(f.w, f.n * 4);
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
 * Walking batches, and streaming
 * ==============================
 */

struct walked {
    uint64_t records, batches;
};

/*
 * Every batch of @r in file order, each checked: aligned, of its CPU,
 * whole records exactly.
 */
static struct walked walk_batches_of(struct xt_reader *r)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_FILE, 0, 0);
    struct xt_batch b;
    struct walked w = { 0 };
    int got;

    assert_non_null(it);
    while ( (got = xt_iter_batch(it, &b)) > 0 )
    {
        size_t at;

        assert_int_equal((uintptr_t)b.words % 4, 0);
        assert_int_equal(xt_reader_cpu(r, b.cpu_index)->cpu, b.cpu);
        for ( at = 0; at < b.len; at += xt_record_words(b.words[at]) )
        {
            uint32_t event = TRC_HD_TO_EVENT(b.words[at]);

            w.records += event != TRC_TRACE_WRAP_BUFFER &&
                         event != TRC_TRACE_CPU_CHANGE;
        }
        assert_int_equal(at, b.len);
        w.batches++;
    }
    assert_int_equal(got, 0);
    xt_iter_free(it);
    return w;
}

static uint64_t walk_batches(struct xt_reader *r)
{
    return walk_batches_of(r).records;
}

static void assert_same_records(const struct xt_record *a,
                                const struct xt_record *b, size_t n)
{
    size_t i;

    for ( i = 0; i < n; i++ )
    {
        assert_int_equal(a[i].offset, b[i].offset);
        assert_int_equal(a[i].tsc, b[i].tsc);
        assert_int_equal(a[i].event, b[i].event);
        assert_int_equal(a[i].cpu, b[i].cpu);
        assert_memory_equal(a[i].extra, b[i].extra, sizeof(a[i].extra));
    }
}

/*
 * @len bytes at @data, streamed, say what they say indexed: the same
 * records in file and TSC order, the same counts, the same damage.
 */
static void assert_stream_agrees(const void *data, size_t len)
{
    enum { MAX = 64 };
    struct xt_reader *r = xt_reader_open_mem(data, len, 0), *st;
    struct xt_record *want = calloc(MAX, sizeof(*want));
    struct xt_record *got = calloc(MAX, sizeof(*got));
    const struct xt_reader_info *a, *b;
    enum xt_order order;
    char wa[256], wb[256];
    const char *da, *db;
    unsigned int i;
    size_t n;

    if ( !r )
    {
        int err = errno;

        assert_null(xt_reader_open_mem(data, len, XT_READ_STREAM));
        assert_int_equal(errno, err);
        free(want);
        free(got);
        return;
    }
    for ( order = XT_ORDER_FILE; order <= XT_ORDER_TSC; order++ )
    {
        if ( order == XT_ORDER_CPU )
            continue;
        st = xt_reader_open_mem(data, len, XT_READ_STREAM);
        assert_non_null(st);
        n = collect(r, order, 0, XT_ITER_SPECIAL, want, MAX);
        assert_true(n <= MAX);
        assert_int_equal(collect(st, order, 0, XT_ITER_SPECIAL, got, MAX), n);
        assert_same_records(want, got, n);
        a = xt_reader_info(r);
        b = xt_reader_info(st);
        assert_true(b->streamed);
        assert_int_equal(b->late_batches, 0);
        da = xt_reader_damage(r, wa, sizeof(wa));
        db = xt_reader_damage(st, wb, sizeof(wb));
        assert_true((da == NULL) == (db == NULL));
        if ( da )
            assert_string_equal(da, db);
        assert_int_equal(xt_reader_status(r), xt_reader_status(st));
        assert_int_equal(a->end, b->end);
        assert_int_equal(a->skipped, b->skipped);
        assert_int_equal(a->records, b->records);
        assert_int_equal(a->pads, b->pads);
        assert_int_equal(a->lost_records, b->lost_records);
        assert_int_equal(a->batches, b->batches);
        assert_int_equal(a->nr_cpus, b->nr_cpus);
        assert_int_equal(a->has_meta, b->has_meta);
        for ( i = 0; i < a->nr_cpus; i++ )
        {
            const struct xt_cpu_info *ca = xt_reader_cpu(r, i);
            const struct xt_cpu_info *cb = cpu_info(st, ca->cpu);

            assert_non_null(cb);
            assert_int_equal(ca->bytes, cb->bytes);
            assert_int_equal(ca->records, cb->records);
            assert_int_equal(ca->has_tsc, cb->has_tsc);
            assert_int_equal(ca->first_tsc, cb->first_tsc);
            assert_int_equal(ca->last_tsc, cb->last_tsc);
        }
        /* One pass: no second iterator, no per-CPU order. */
        assert_null(xt_iter_new(st, XT_ORDER_FILE, 0, 0));
        assert_int_equal(errno, EBUSY);
        xt_reader_close(st);
    }
    st = xt_reader_open_mem(data, len, XT_READ_STREAM);
    assert_null(xt_iter_new(st, XT_ORDER_CPU, 0, 0));
    assert_int_equal(errno, ESPIPE);
    a = xt_reader_info(r);
    assert_int_equal(walk_batches(st), a->records + a->metadata);
    assert_int_equal(walk_batches(r), a->records + a->metadata);
    xt_reader_close(st);
    xt_reader_close(r);
    free(want);
    free(got);
}

static void test_walk_batches(void **state)
{
    struct file f;
    struct xt_reader *r;
    struct xt_iter *it;
    struct xt_record rec;
    struct xt_batch b;
    struct walked w;

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    r = xt_reader_open_mem(f.w, f.n * 4, 0);
    assert_non_null(r);
    w = walk_batches_of(r);
    assert_int_equal(w.records, 7);
    assert_int_equal(w.batches, 4);
    assert_int_equal(cpu_info(r, 1)->first_tsc, 200);
    assert_int_equal(cpu_info(r, 1)->last_tsc, 450);
    /* One iterator hands out records or batches, and TSC order has none. */
    it = xt_iter_new(r, XT_ORDER_FILE, 0, 0);
    assert_int_equal(xt_iter_next(it, &rec), 1);
    assert_int_equal(xt_iter_batch(it, &b), -1);
    assert_int_equal(errno, EINVAL);
    xt_iter_free(it);
    it = xt_iter_new(r, XT_ORDER_TSC, 0, 0);
    assert_int_equal(xt_iter_batch(it, &b), -1);
    assert_int_equal(errno, EINVAL);
    xt_iter_free(it);
    xt_reader_close(r);
    assert_stream_agrees(f.w, f.n * 4);
    free(f.w);
}

/*
 * build_epochs()'s @f with 2 bytes more in its second batch, which says
 * it holds 42: the batches after it start where they are not 4-byte
 * aligned.
 */
static uint8_t *misaligned(const struct file *f)
{
    uint8_t *odd = calloc(1, f->n * 4 + 2);

    assert_non_null(odd);
    memcpy(odd, f->w, 96);
    memcpy(odd + 98, f->w + 24, f->n * 4 - 96);
    memcpy(odd + 52, &(uint32_t){ 42 }, 4);
    return odd;
}

/* Every cut of the file, and an unaligned copy: streamed as indexed. */
static void test_stream_agrees_cut_and_unaligned(void **state)
{
    struct file f;
    uint8_t *odd;
    size_t cut;

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    for ( cut = 0; cut <= f.n * 4; cut++ )
        assert_stream_agrees(f.w, cut);

    odd = misaligned(&f);
    assert_stream_agrees(odd, f.n * 4 + 2);
    /* All of it unaligned in memory. */
    memmove(odd + 1, f.w, f.n * 4);
    assert_stream_agrees(odd + 1, f.n * 4);
    free(odd);
    free(f.w);
}

/*
 * Each CPU's batches (xt_iter_batch() in XT_ORDER_CPU) hold its records
 * as XT_ORDER_CPU's records give them, aligned or (@len's input not
 * 4-byte aligned after damage) copied; a stream has no CPU order.
 */
static void assert_cpu_batches(const void *data, size_t len)
{
    struct xt_reader *r = xt_reader_open_mem(data, len, 0);
    struct xt_record recs[16];
    struct xt_batch b;
    unsigned int i;

    assert_non_null(r);
    for ( i = 0; i < xt_reader_info(r)->nr_cpus; i++ )
    {
        size_t n = collect(r, XT_ORDER_CPU, xt_reader_cpu(r, i)->cpu, 0,
                           recs, 16), k = 0, w;
        struct xt_iter *it = xt_iter_new(r, XT_ORDER_CPU,
                                         xt_reader_cpu(r, i)->cpu, 0);

        assert_non_null(it);
        while ( xt_iter_batch(it, &b) > 0 )
        {
            assert_int_equal(b.cpu_index, i);
            assert_int_equal((uintptr_t)b.words % 4, 0);
            for ( w = 0; w < b.len; w += xt_record_words(b.words[w]) )
            {
                assert_true(k < n);
                assert_int_equal(recs[k].offset, b.offset + 4 * w);
                assert_int_equal(recs[k].event, TRC_HD_TO_EVENT(b.words[w]));
                k++;
            }
        }
        assert_int_equal(k, n);
        /* At the end it stays there. */
        assert_int_equal(xt_iter_batch(it, &b), 0);
        xt_iter_free(it);
    }
    xt_reader_close(r);

    r = xt_reader_open_mem(data, len, XT_READ_STREAM);
    assert_non_null(r);
    assert_null(xt_iter_new(r, XT_ORDER_CPU, 0, 0));
    assert_int_equal(errno, ESPIPE);
    xt_reader_close(r);
}

static void test_cpu_batches(void **state)
{
    struct file f;
    uint8_t *odd;

    (void)state;
    build_epochs(&f);
    end_batch(&f);
    assert_cpu_batches(f.w, f.n * 4);
    odd = misaligned(&f);
    assert_cpu_batches(odd, f.n * 4 + 2);
    free(odd);
    free(f.w);
}

static void test_batches_1024_cpus(void **state)
{
    struct file f;
    struct xt_reader *r;
    unsigned int cpu, epoch;

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
    r = xt_reader_open_mem(f.w, f.n * 4, 0);
    assert_int_equal(xt_reader_info(r)->nr_cpus, 1024);
    assert_int_equal(xt_reader_info(r)->max_cpu, 1023);
    assert_int_equal(walk_batches(r), 4096);
    assert_int_equal(cpu_info(r, 0)->first_tsc, 1000000 - 1023);
    assert_int_equal(cpu_info(r, 0)->last_tsc, 2000000 - 1023);
    xt_reader_close(r);
    free(f.w);
}

/*
 * Damage inside batches
 * =====================
 */

/*
 * Four batches: CPU 0 (good), CPU 1 with damage @kind at its second
 * record, CPU 2 (good), CPU 0 (good).  *@bad gets the damage's offset,
 * *@next that of the batch after it.
 */
enum damage_kind { BAD_CLASS, BAD_TSC, BAD_FILL };

static void build_damaged(struct file *f, enum damage_kind kind,
                          uint64_t *bad, uint64_t *next)
{
    init(f);
    batch(f, 0);
    rec1(f, 0x0002800a, 100, 1);
    rec1(f, 0x0002800a, 110, 2);
    batch(f, 1);
    rec1(f, 0x0002800a, 120, 3);
    *bad = f->n * 4;
    rec1(f, kind == BAD_CLASS ? 0x0000800a : 0x0002800a,
         kind == BAD_TSC ? 119 : 121, 4);
    rec1(f, 0x0002800a, 130, 5);
    batch(f, 2);
    *next = f->batch * 4;
    if ( kind == BAD_FILL )
    {
        /*
         * CPU 1's byte count says 4 bytes more than its records fill:
         * the damage is where its records end, and CPU 2's batch starts
         * right there, nothing skipped.
         */
        f->w[11 + 2] += 4;
        *bad = *next;
    }
    rec1(f, 0x0002800a, 140, 6);
    batch(f, 0);
    rec1(f, 0x0002800a, 150, 7);
    end_batch(f);
}

static void test_damage_offsets(void **state)
{
    static const struct {
        enum damage_kind kind;
        enum xt_bad why;
        uint64_t records;       /* the good ones */
    } cases[] = {
        { BAD_CLASS, XT_BAD_CLASS, 5 },
        { BAD_TSC, XT_BAD_TSC, 5 },
        { BAD_FILL, XT_BAD_FILL, 7 },
    };
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(cases) / sizeof(cases[0]); i++ )
    {
        struct file f;
        uint64_t bad, next;
        struct xt_reader *r;
        const struct xt_reader_info *in;
        char warn[256], want[256];

        build_damaged(&f, cases[i].kind, &bad, &next);
        /* CPU 1's batch starts at word 11 (2 + 3 + 3 + 3). */
        assert_int_equal(f.w[11], HDR(TRC_TRACE_CPU_CHANGE, 2, 0));
        assert_int_equal(f.w[12], 1);
        r = xt_reader_open_mem(f.w, f.n * 4, 0);
        assert_non_null(r);
        in = xt_reader_info(r);
        assert_int_equal(in->damage, XT_DAMAGE_CORRUPT);
        assert_int_equal(in->damage_offset, bad);
        assert_int_equal(in->skips, 1);
        assert_int_equal(in->damage_why, cases[i].why);
        assert_int_equal(in->skipped, next - bad);
        /* Read on at the next batch: the CPUs after the damage are whole. */
        assert_int_equal(in->records, cases[i].records);
        assert_int_equal(cpu_info(r, 2)->records, 1);
        assert_int_equal(cpu_info(r, 0)->records, 3);
        assert_int_equal(xt_reader_status(r), XT_EXIT_DAMAGED);
        snprintf(want, sizeof(want), "corrupt at offset %" PRIu64 " (%s): %"
                 PRIu64 " bytes skipped in 1 place", bad,
                 xt_bad_text(cases[i].why), next - bad);
        assert_string_equal(xt_reader_damage(r, warn, sizeof(warn)), want);
        assert_int_equal(walk_batches(r), cases[i].records);
        xt_reader_close(r);
        assert_stream_agrees(f.w, f.n * 4);
        free(f.w);
    }
}

/* A byte count that lies: the scan finds the next batch, not the said end. */
static void test_resync_scans(void **state)
{
    struct file f;
    struct xt_reader *r;
    const struct xt_reader_info *in;
    size_t hdr1;

    (void)state;
    init(&f);
    batch(&f, 0);
    rec1(&f, 0x0002800a, 100, 1);
    batch(&f, 1);
    hdr1 = f.batch;
    rec1(&f, 0x0002800a, 120, 2);
    put(&f, 0);                                 /* zeros in a batch */
    put(&f, 0);
    batch(&f, 2);
    rec1(&f, 0x0002800a, 140, 3);
    end_batch(&f);
    f.w[hdr1 + 2] = 1000;                       /* far past the end */
    r = xt_reader_open_mem(f.w, f.n * 4, 0);
    in = xt_reader_info(r);
    assert_int_equal(in->records, 3);
    assert_int_equal(in->skipped, 8);
    assert_int_equal(in->damage_why, XT_BAD_CLASS);
    assert_int_equal(in->damage_offset, (hdr1 + 3 + 3 + 1) * 4);
    assert_false(in->truncated);
    xt_reader_close(r);
    assert_stream_agrees(f.w, f.n * 4);
    free(f.w);
}

/* Zeros, random bytes, text in gzip: refused from the first bytes. */
static void test_first_word(void **state)
{
    char path[] = "/tmp/test_readers.gz.XXXXXX";
    uint8_t *junk = malloc(1 << 20);
    struct xt_reader *r;
    unsigned int i, seed = 12;
    gzFile gz;
    int fd;

    (void)state;
    assert_non_null(junk);
    memset(junk, 0, 1 << 20);
    assert_null(xt_reader_open_mem(junk, 1 << 20, XT_READ_STREAM));
    assert_int_equal(errno, EILSEQ);
    for ( i = 0; i < 1 << 20; i++ )
        junk[i] = rand_r(&seed);
    assert_null(xt_reader_open_mem(junk, 1 << 20, 0));
    assert_int_equal(errno, EILSEQ);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    gz = gzdopen(fd, "wb");
    for ( i = 0; i < 1000; i++ )
        gzputs(gz, "hello, this is not a trace\n");
    gzclose(gz);
    r = xt_reader_open(path, 0);
    assert_null(r);
    assert_int_equal(errno, EILSEQ);
    unlink(path);
    free(junk);
}

/*
 * Hostile values
 * ==============
 */

static void test_hostile_cpus_and_tscs(void **state)
{
    struct file f;
    struct xt_reader *r;
    struct xt_record recs[8];
    struct xt_lost lost;

    (void)state;
    init(&f);
    batch(&f, XT_CPUS_MAX - 1);                 /* the highest Xen has */
    rec1(&f, 0x0002800a, 0, 1);
    rec1(&f, 0x0002800a, UINT64_MAX, 2);        /* a 2^64-1 span */
    batch(&f, XT_CPUS_MAX / 2);
    rec(&f, TRC_LOST_RECORDS, 5, 4, (uint32_t[]){ 0xffffffffu,
        0xffffffffu, 0xffffffffu, 0xffffffffu });
    batch(&f, 7);                               /* ends before 0 starts */
    rec1(&f, 0x0002800a, 3, 3);
    r = open_file(&f, SIZE_MAX);
    assert_non_null(r);
    assert_int_equal(xt_reader_info(r)->damage, XT_DAMAGE_NONE);
    assert_int_equal(xt_reader_info(r)->max_cpu, XT_CPUS_MAX - 1);
    assert_int_equal(xt_reader_info(r)->lost_records, 0xffffffffu);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, recs, 8), 4);
    assert_int_equal(recs[0].tsc, 0);
    assert_int_equal(recs[3].tsc, UINT64_MAX);
    assert_int_equal(recs[3].cpu, XT_CPUS_MAX - 1);
    assert_int_equal(xt_reader_cpu(r, recs[3].cpu_index)->cpu,
                     XT_CPUS_MAX - 1);
    assert_true(xt_record_lost(&recs[2], &lost));
    assert_int_equal(lost.count, 0xffffffffu);
    assert_int_equal(collect(r, XT_ORDER_CPU, XT_CPUS_MAX - 1, 0, recs, 8),
                     2);
    xt_reader_close(r);
    assert_stream_agrees(f.w, f.n * 4);
    free(f.w);
}

/*
 * A batch of a CPU no Xen has (XT_CPUS_MAX and above, to 2^32 - 1) is
 * damage: skipped whole, counted and said, and the batches around it are
 * read, indexed and streamed alike.
 */
static void test_impossible_cpus_skipped(void **state)
{
    static const uint32_t cpus[] = { XT_CPUS_MAX, 0x80000000u, 0xffffffffu };
    struct file f;
    struct xt_reader *r;
    const struct xt_reader_info *in;
    char warn[256];
    size_t i, bad;

    (void)state;
    for ( i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++ )
    {
        init(&f);
        batch(&f, 1);
        rec1(&f, 0x0002800a, 10, 1);
        end_batch(&f);
        bad = f.n * 4;
        batch(&f, cpus[i]);
        rec1(&f, 0x0002800a, 20, 2);
        rec1(&f, 0x0002800a, 30, 3);
        batch(&f, 2);
        rec1(&f, 0x0002800a, 40, 4);
        r = open_file(&f, SIZE_MAX);
        assert_non_null(r);
        in = xt_reader_info(r);
        assert_int_equal(in->damage, XT_DAMAGE_CORRUPT);
        assert_int_equal(in->damage_why, XT_BAD_CPU);
        assert_int_equal(in->damage_offset, bad);
        assert_int_equal(in->skips, 1);
        assert_int_equal(in->skipped, 12 + 2 * 16);
        assert_int_equal(in->records, 2);
        assert_int_equal(in->nr_cpus, 2);
        assert_int_equal(in->max_cpu, 2);
        assert_non_null(strstr(xt_reader_damage(r, warn, sizeof(warn)),
                               "(a CPU number no Xen has): 44 bytes skipped"));
        assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, NULL, 0), 2);
        xt_reader_close(r);
        assert_stream_agrees(f.w, f.n * 4);
        free(f.w);
    }
}

/*
 * 10^5 distinct CPU numbers, in scattered order: the possible ones in
 * every order, in time that does not grow as CPUs squared; the rest
 * skipped and counted.
 */
static void test_100000_cpus(void **state)
{
    enum { CPUS = 100000 };
    struct file f;
    struct xt_reader *r, *st;
    unsigned int cpu, possible = 0;

    (void)state;
    init(&f);
    for ( cpu = 0; cpu < CPUS; cpu++ )
    {
        uint32_t n = cpu * 40503u % 1000003u;   /* scattered numbers */

        possible += n < XT_CPUS_MAX;
        batch(&f, n);
        rec1(&f, 0x0002800a, 2 * CPUS - cpu, cpu);
    }
    assert_true(possible > 100 && possible < XT_CPUS_MAX);
    r = open_file(&f, SIZE_MAX);
    assert_int_equal(xt_reader_info(r)->nr_cpus, possible);
    assert_int_equal(xt_reader_info(r)->records, possible);
    assert_int_equal(xt_reader_info(r)->skipped, (CPUS - possible) * 28);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, NULL, 0), possible);
    /* One iterator per CPU, as xentrace-export --ctf makes them. */
    for ( cpu = 0; cpu < possible; cpu++ )
        assert_int_equal(collect(r, XT_ORDER_CPU, xt_reader_cpu(r, cpu)->cpu,
                                 0, NULL, 0), 1);
    st = xt_reader_open_mem(f.w, f.n * 4, XT_READ_STREAM);
    assert_int_equal(collect(st, XT_ORDER_TSC, 0, 0, NULL, 0), possible);
    assert_int_equal(xt_reader_info(st)->nr_cpus, possible);
    assert_int_equal(xt_reader_info(st)->skipped, (CPUS - possible) * 28);
    xt_reader_close(st);
    xt_reader_close(r);
    free(f.w);
}

/* @field ("VmRSS:", "VmHWM:") of /proc/self/status, in KiB. */
static long status_kib(const char *field)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");

    if ( !f )
        return -1;
    while ( fgets(line, sizeof(line), f) )
        if ( !strncmp(line, field, strlen(field)) )
            kib = strtol(line + strlen(field), NULL, 10);
    fclose(f);
    return kib;
}

/*
 * test_readers --rss PATH: read the file at PATH streamed, every record
 * in file order (no merge window), and print what that added to this
 * process's RSS, in KiB, with the reader still open.  A process of its
 * own, so that no test's freed memory is reused and none counts.
 */
static int rss_child(const char *path)
{
    long before = status_kib("VmRSS:");
    struct xt_reader *r = xt_reader_open(path, XT_READ_STREAM);
    struct xt_iter *it = r ? xt_iter_new(r, XT_ORDER_FILE, 0, 0) : NULL;
    struct xt_record rec;
    uint64_t n = 0;

    if ( !it )
        return 3;
    while ( xt_iter_next(it, &rec) == 1 )
        n++;
    if ( n != xt_reader_info(r)->records + xt_reader_info(r)->metadata )
        return 4;
    printf("%ld\n", status_kib("VmRSS:") - before);
    xt_iter_free(it);
    xt_reader_close(r);
    return 0;
}

/* What reading @path adds to a fresh process's RSS (rss_child()). */
static long child_rss_kib(const char *path)
{
    char cmd[256];
    FILE *p;
    long kib;

    snprintf(cmd, sizeof(cmd), "/proc/%d/exe --rss %s", (int)getpid(), path);
    p = popen(cmd, "r");
    assert_non_null(p);
    assert_int_equal(fscanf(p, "%ld", &kib), 1);
    assert_int_equal(pclose(p), 0);
    return kib;
}

/*
 * Memory is bounded by the machine, not by the input: reading 10^5
 * distinct CPU numbers and 10^6 lost-records markers, 30 MB of input,
 * adds less than 8 MiB to the RSS (16383 CPUs' slots, the stream's 1 MiB
 * buffer; a slot for every CPU number seen, without XT_CPUS_MAX, adds
 * more than twice that).
 */
static void test_memory_bounded(void **state)
{
    enum { CPUS = 100000, LOSSES = 1000000 };
    char path[] = "/tmp/test_readers.rss.XXXXXX";
    struct file f;
    long grew;
    unsigned int i;
    int fd;

    (void)state;
    init(&f);
    batch(&f, 0);
    for ( i = 0; i < LOSSES; i++ )
        rec(&f, TRC_LOST_RECORDS, 1 + i, 4, (uint32_t[]){ 1, 0, i, 0 });
    /* Every CPU Xen can have, scattered, then numbers above. */
    for ( i = 0; i < CPUS; i++ )
    {
        batch(&f, i < XT_CPUS_MAX ? i * 7919u % XT_CPUS_MAX : i * 40503u);
        rec1(&f, 0x0002800a, 2 * LOSSES + i, i);
    }
    end_batch(&f);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, f.w, f.n * 4), (ssize_t)(f.n * 4));
    close(fd);
    free(f.w);
    grew = child_rss_kib(path);
    unlink(path);
    print_message("reading it added %ld KiB to the RSS\n", grew);
    assert_true(grew >= 0 && grew < 8 * 1024);
}

/*
 * Streaming
 * =========
 */

/*
 * A CPU whose batch comes more than the reorder window after the records
 * it precedes: merged anyway, out of order, and counted.
 */
static void test_late_batch_merged(void **state)
{
    struct file f;
    struct xt_reader *st;
    struct xt_iter *it;
    struct xt_record rec;
    uint64_t n = 0, late_at, tsc = 1000;

    (void)state;
    init(&f);
    batch(&f, 0);
    rec1(&f, 0x0002800a, 500, 0);
    while ( f.n * 4 < XT_MERGE_WINDOW + (4u << 20) )
    {
        unsigned int i;

        batch(&f, 1);
        for ( i = 0; i < 1000; i++ )
            rec1(&f, 0x0002800a, tsc++, i);
    }
    batch(&f, 2);
    late_at = f.n * 4;
    rec1(&f, 0x0002800a, 600, 0);               /* long gone by */
    end_batch(&f);
    st = xt_reader_open_mem(f.w, f.n * 4, XT_READ_STREAM);
    it = xt_iter_new(st, XT_ORDER_TSC, 0, 0);
    while ( xt_iter_next(it, &rec) > 0 )
        n++;
    xt_iter_free(it);
    assert_int_equal(n, 2 + tsc - 1000);
    assert_int_equal(xt_reader_info(st)->late_batches, 1);
    assert_int_equal(xt_reader_info(st)->late_offset, late_at);
    assert_int_equal(xt_reader_status(st), 0);
    xt_reader_close(st);
    free(f.w);
}

/*
 * A child reads @bytes of generated batches from a pipe in TSC order,
 * under an address-space limit: memory does not grow with the input.
 */
static void test_bounded_memory(void **state)
{
#ifdef __SANITIZE_ADDRESS__
    const uint64_t bytes = 256ull << 20;        /* ASan: no RLIMIT_AS */
#else
    const uint64_t bytes = 3ull << 30;
#endif
    enum { BATCH_WORDS = 3 + 256 * 10 };
    struct rlimit lim = { 192u << 20, 192u << 20 };
    struct rusage ru;
    uint32_t *b = calloc(BATCH_WORDS, 4);
    uint64_t sent = 0, tsc = 1;
    int fds[2], status;
    pid_t pid;

    (void)state;
    assert_non_null(b);
    assert_int_equal(pipe(fds), 0);
    pid = fork();
    if ( pid == 0 )
    {
        struct xt_reader *r;
        struct xt_iter *it;
        struct xt_record rec;
        uint64_t n = 0, last = 0;

        close(fds[1]);
#ifndef __SANITIZE_ADDRESS__
        if ( setrlimit(RLIMIT_AS, &lim) )
            _exit(3);
#endif
        r = xt_reader_open_fd(fds[0], 0);
        it = r ? xt_iter_new(r, XT_ORDER_TSC, 0, 0) : NULL;
        if ( !it )
            _exit(4);
        while ( xt_iter_next(it, &rec) > 0 )
        {
            if ( rec.tsc < last )
                _exit(5);
            last = rec.tsc;
            n++;
        }
        _exit(n == bytes / (BATCH_WORDS * 4) * 256 &&
              !xt_reader_info(r)->damage ? 0 : 6);
    }
    close(fds[0]);
    while ( sent + BATCH_WORDS * 4 <= bytes )
    {
        unsigned int i;

        b[0] = HDR(TRC_TRACE_CPU_CHANGE, 2, 0);
        b[1] = (sent / (BATCH_WORDS * 4)) % 8;
        b[2] = (BATCH_WORDS - 3) * 4;
        for ( i = 0; i < 256; i++ )
        {
            uint32_t *w = b + 3 + 10 * i;

            w[0] = HDR(TRC_SCHED_SWITCH, 7, 1);
            w[1] = (uint32_t)tsc;
            w[2] = tsc++ >> 32;
        }
        assert_int_equal(write(fds[1], b, BATCH_WORDS * 4), BATCH_WORDS * 4);
        sent += BATCH_WORDS * 4;
    }
    close(fds[1]);
    assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    print_message("%llu MiB through a pipe: peak RSS %ld KiB\n",
                  (unsigned long long)(bytes >> 20), ru.ru_maxrss);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    (void)lim;
    free(b);
}

/* Read a line with @want from @fd within 10 s (a hang fails the test). */
static bool line_comes(int fd, const char *want, char *buf, size_t size)
{
    size_t len = strlen(buf);

    while ( !strstr(buf, want) )
    {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if ( poll(&pfd, 1, 10000) != 1 || len + 1 >= size )
            return false;
        n = read(fd, buf + len, size - 1 - len);
        if ( n <= 0 )
            return false;
        len += n;
        buf[len] = '\0';
    }
    return true;
}

/* Start @argv with its stdin from *@in (a new pipe if -1), stdout a pipe. */
static pid_t start_dump(char *const argv[], int *in, int *out)
{
    int o[2], i[2] = { -1, -1 };
    pid_t pid;

    assert_int_equal(pipe(o), 0);
    if ( *in < 0 )
        assert_int_equal(pipe(i), 0);
    pid = fork();
    assert_true(pid >= 0);
    if ( pid == 0 )
    {
        dup2(o[1], STDOUT_FILENO);
        if ( i[0] >= 0 )
            dup2(i[0], STDIN_FILENO);
        execv(argv[0], argv);
        _exit(127);
    }
    close(o[1]);
    if ( i[0] >= 0 )
    {
        close(i[0]);
        *in = i[1];
    }
    *out = o[0];
    return pid;
}

/* A batch of one record on @cpu: TRC_SCHED_SWITCH at @tsc. */
static void one_batch(struct file *f, uint32_t cpu, uint64_t tsc)
{
    f->n = 0;
    f->batch = SIZE_MAX;
    batch(f, cpu);
    rec1(f, TRC_SCHED_SWITCH, tsc, 0);
    end_batch(f);
}

/*
 * xentrace-dump prints each batch while its input stays open: a pipe in
 * both orders, and a file being written (-f).
 */
static void test_dump_live(void **state)
{
    static const char *const modes[][3] = {
        { "", "", "pipe" }, { "-r", "", "pipe" },
        { "-f", "", "file" }, { "-f", "-r", "file" },
    };
    unsigned int m, i;

    (void)state;
    for ( m = 0; m < 4; m++ )
    {
        char path[] = "/tmp/test_readers.live.XXXXXX", want[32];
        char *buf = calloc(1, 1 << 16);
        char *argv[5] = { (char *)XT_DUMP };
        bool file = !strcmp(modes[m][2], "file");
        int in = -1, out, status, argc = 1, fd = -1;
        struct file f = { 0 };
        pid_t pid;

        if ( modes[m][0][0] )
            argv[argc++] = (char *)modes[m][0];
        if ( modes[m][1][0] )
            argv[argc++] = (char *)modes[m][1];
        if ( file )
        {
            fd = mkstemp(path);
            assert_true(fd >= 0);
            one_batch(&f, 0, 1000);
            assert_int_equal(write(fd, f.w, f.n * 4), (ssize_t)(f.n * 4));
            argv[argc++] = path;
            in = open("/dev/null", O_RDONLY);
        }
        pid = start_dump(argv, &in, &out);
        for ( i = 0; i < 5; i++ )
        {
            one_batch(&f, i % 2, 2000 + i);
            assert_int_equal(write(file ? fd : in, f.w, f.n * 4),
                             (ssize_t)(f.n * 4));
            snprintf(want, sizeof(want), "%u cpu%u", 2000 + i, i % 2);
            if ( !line_comes(out, want, buf, 1 << 16) )
                fail_msg("xentrace-dump %s %s: no \"%s\" while its input "
                         "stays open", modes[m][0], modes[m][1], want);
        }
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
        close(in);
        close(out);
        if ( file )
        {
            close(fd);
            unlink(path);
        }
        free(f.w);
        free(buf);
    }
}

/*
 * The library's follow mode: records written later come out, until
 * xentrace's end record.
 */
static void test_follow_file(void **state)
{
    char path[] = "/tmp/test_readers.follow.XXXXXX";
    struct file f = { 0 };
    struct xt_reader *r;
    struct xt_iter *it;
    struct xt_record rec;
    int fd;
    unsigned int i;

    (void)state;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    one_batch(&f, 0, 10);
    assert_int_equal(write(fd, f.w, f.n * 4), (ssize_t)(f.n * 4));
    r = xt_reader_open(path, XT_READ_FOLLOW);
    assert_non_null(r);
    assert_true(xt_reader_info(r)->streamed);
    it = xt_iter_new(r, XT_ORDER_FILE, 0, XT_ITER_NOWAIT);
    assert_int_equal(xt_iter_next(it, &rec), 1);
    assert_int_equal(rec.tsc, 10);
    /* The end of the file is not the end of the trace. */
    errno = 0;
    assert_int_equal(xt_iter_next(it, &rec), -1);
    assert_int_equal(errno, EAGAIN);
    for ( i = 1; i <= 3; i++ )
    {
        /* A whole batch: the call after EAGAIN waits for it. */
        one_batch(&f, i, 10 + 2 * i);
        assert_int_equal(write(fd, f.w, f.n * 4), (ssize_t)(f.n * 4));
        assert_int_equal(xt_iter_next(it, &rec), 1);
        assert_int_equal(rec.tsc, 10 + 2 * i);
        /* Half a batch: EAGAIN, and its record once the rest is in. */
        one_batch(&f, i, 11 + 2 * i);
        assert_int_equal(write(fd, f.w, 8), 8);
        assert_int_equal(xt_iter_next(it, &rec), -1);
        assert_int_equal(errno, EAGAIN);
        assert_int_equal(write(fd, f.w + 2, f.n * 4 - 8),
                         (ssize_t)(f.n * 4 - 8));
        assert_int_equal(xt_iter_next(it, &rec), 1);
        assert_int_equal(rec.tsc, 11 + 2 * i);
        assert_int_equal(rec.cpu, i);
    }
    /* xentrace's end record: the capture is over, and so is the input. */
    f.n = 0;
    f.batch = SIZE_MAX;
    batch(&f, 0);
    put(&f, HDR(TRC_XT_END, 0, 20));
    put(&f, 20);
    put(&f, 0);
    end_batch(&f);
    assert_int_equal(write(fd, f.w, f.n * 4), (ssize_t)(f.n * 4));
    assert_int_equal(xt_iter_next(it, &rec), 1);
    assert_int_equal(rec.event, TRC_XT_END);
    assert_int_equal(xt_iter_next(it, &rec), 0);
    /* At the end, every batch is counted: the last one too. */
    assert_int_equal(xt_reader_info(r)->records, 7);
    assert_int_equal(xt_reader_info(r)->metadata, 1);
    assert_int_equal(xt_reader_info(r)->damage, XT_DAMAGE_NONE);
    xt_iter_free(it);
    xt_reader_close(r);
    close(fd);
    unlink(path);
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

/* xentrace_format keeps a TSC per CPU, to the highest CPU Xen has. */
static void test_format_big_cpu_numbers(void **state)
{
    struct file f;
    char *out;

    (void)state;
    init(&f);
    batch(&f, XT_CPUS_MAX - 1);
    rec1(&f, TRC_SCHED_SWITCH, 100, 0);
    batch(&f, 0);
    rec1(&f, TRC_SCHED_SWITCH, 50, 0);
    batch(&f, XT_CPUS_MAX - 1);
    rec1(&f, TRC_SCHED_SWITCH, 90, 0);
    /* ASan needs the room. */
    out = run_on_file(&f,
#ifndef __SANITIZE_ADDRESS__
                      "ulimit -v 200000; "
#endif
                      XT_FORMAT " " XT_FORMATS " < '%s'");
    assert_non_null(strstr(out, "CPU16382"));
    assert_non_null(strstr(out, "TSC stepped backward cpu 16382"));
    free(out);
    free(f.w);
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

/*
 * Past xenalyze's limit of 256 vCPUs a domain (it skips a runstate change
 * of a higher one: "vcpu 300 > MAX_VCPUS 256!"): d1v300 and d1v4095 run
 * and block, and the summary has both.  Without a clock in the file or
 * -H, the summary takes xenalyze's 2.4 GHz and marks it assumed.
 */
static void test_vcpu_ids_past_256(void **state)
{
    struct file f;
    char *out;

    (void)state;
    init(&f);
    batch(&f, 0);
    rec1(&f, RUNSTATE(1, 0), 100, 1 << 16 | 300);   /* d1v300 running */
    rec1(&f, RUNSTATE(0, 2), 300, 1 << 16 | 300);   /* ... 2 us, blocked */
    rec1(&f, RUNSTATE(1, 0), 300, 1 << 16 | 4095);  /* d1v4095 running */
    rec1(&f, RUNSTATE(0, 2), 400, 1 << 16 | 4095);  /* ... 1 us, blocked */
    out = run_on_file(&f, XT_SUMMARY " -H 100000000 '%s'");
    assert_non_null(strstr(out, "\nd1v300        0.000002       1 "));
    assert_non_null(strstr(out, "\nd1v4095       0.000001       1 "));
    free(out);
    /* No clock in the file, nor -H: xenalyze's 2.4 GHz, and it says so. */
    out = run_on_file(&f, XT_SUMMARY " '%s'");
    assert_non_null(strstr(out, " at 2400.000 MHz (assumed)\n"));
    free(out);
    free(f.w);
}

/* @f begun as our xentrace begins a file: a clock of @hz, a @start. */
static void metadata_at(struct file *f, const uint32_t hz[2],
                        const uint32_t start[5])
{
    init(f);
    batch(f, 0);
    rec1(f, TRC_XT_FORMAT, 0, 1);
    rec(f, TRC_XT_TSC_HZ, 0, 2, hz);
    rec1(f, TRC_XT_CPUS, 0, 1);
    rec(f, TRC_XT_START, 0, 5, start);
    batch(f, 0);
}

/*
 * One clock: a capture that starts 0.7 s before its first record (as a -M
 * capture does).  --from 0.5 --to 1.5 are seconds from the capture's start
 * in the summary and the export alike, and xentrace-dump -s counts from
 * there too: d1v0 runs from 0.7 s to the window's end, 1.5 s, in an
 * interval that ends after it, so counted in no interval of the window's
 * (a window counts a runstate interval where it ends: "Intervals" in
 * docs/reading-traces.md).
 */
static void test_one_clock(void **state)
{
    static const uint32_t hz[] = { 1000000, 0 };            /* 1 MHz */
    static const uint32_t start[] = { 1000000, 0, 1764480000, 0, 0 };
    struct file f;
    char *out;
    uint64_t tsc;

    (void)state;
    metadata_at(&f, hz, start);
    rec1(&f, RUNSTATE(1, 0), 1700000, 1 << 16);  /* d1v0 runnable->running */
    for ( tsc = 1800000; tsc < 4700000; tsc += 100000 )
        rec1(&f, 0x0002800a, tsc, 1 << 16);
    rec1(&f, RUNSTATE(0, 1), 4700000, 1 << 16);

    out = run_on_file(&f, XT_SUMMARY " --from 0.5 --to 1.5 '%s'");
    assert_non_null(strstr(out, "\nd1v0          0.800000       0 "));
    free(out);
    out = run_on_file(&f, XT_EXPORT " --json - --from 0.5 --to 1.5 '%s'");
    assert_non_null(strstr(out, "\"ts\":700000.000,\"name\":\"d1v0\","
                                "\"dur\":800000.000}"));
    free(out);
    out = run_on_file(&f, XT_DUMP " -s '%s'");
    assert_non_null(strstr(out, "\n   0.700000000 cpu0  "));
    free(out);
    free(f.w);
}

/*
 * A capture that starts 100 ticks before the TSC's end: --from 0.0001
 * --to 0.5 at 1 MHz both land at UINT64_MAX.  The window is empty, not
 * misordered, so the summary and the export print it and exit 0.
 */
static void test_window_at_the_clock_end(void **state)
{
    static const uint32_t hz[] = { 1000000, 0 };            /* 1 MHz */
    static const uint32_t start[] = { UINT32_MAX - 99, UINT32_MAX,
                                      1764480000, 0, 0 };
    struct file f;

    (void)state;
    metadata_at(&f, hz, start);
    rec1(&f, RUNSTATE(1, 0), UINT64_MAX - 50, 1 << 16);

    free(run_on_file(&f, XT_SUMMARY " --from 0.0001 --to 0.5 '%s'"));
    free(run_on_file(&f, XT_EXPORT " --json - --from 0.0001 --to 0.5 '%s'"));
    free(f.w);
}

/*
 * @n records of 7 words on two CPUs, losses (TRC_LOST_RECORDS) or not,
 * into a temporary file, whose name goes into @path.
 */
static void write_lossy(char *path, unsigned int n, bool losses)
{
    struct file f;
    unsigned int i;
    int fd;

    init(&f);
    for ( i = 0; i < n; i++ )
    {
        uint64_t tsc = 1000 + 10ull * i;
        uint32_t extra[4] = { 3, 1u << 16, (uint32_t)tsc - 5, 0 };

        if ( i % 1000 == 0 )
            batch(&f, i / 1000 % 2);
        rec(&f, losses ? TRC_LOST_RECORDS : TRC_MEM_PAGE_GRANT_MAP, tsc, 4,
            extra);
    }
    end_batch(&f);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, f.w, f.n * 4), (ssize_t)(f.n * 4));
    close(fd);
    free(f.w);
}

/*
 * The peak RSS and the largest anonymous RSS, in KiB, of @reader on @path
 * (its output thrown away), as bench/rusage measures them: its own child,
 * whose peak is not this test's (a child forked from here starts at this
 * process's size).
 */
static void reader_rss(const char *reader, const char *path, long *rss,
                       long *anon)
{
    char out[] = "/tmp/test_readers.rss.XXXXXX", cmd[512];
    double wall, user, sys;
    FILE *f;
    int fd = mkstemp(out);

    assert_true(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof(cmd), RUSAGE " -m %s %s %s > /dev/null", out,
             reader, path);
    assert_int_equal(system(cmd), 0);
    f = fopen(out, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lf %lf %lf %ld %ld", &wall, &user, &sys,
                            rss, anon), 5);
    fclose(f);
    unlink(out);
}

/*
 * 10^6 loss markers cost the summary and the plot no more memory than
 * 10^6 other records of the same size: losses are kept per time bin, not
 * one by one.  (They kept and sorted a 32-byte entry per marker.)
 */
static void test_losses_bounded(void **state)
{
    static const char *const readers[] = { XT_SUMMARY, XT_PLOT };
    char lossy[] = "/tmp/test_readers.lossy.XXXXXX";
    char plain[] = "/tmp/test_readers.plain.XXXXXX";
    unsigned int i;

    (void)state;
    write_lossy(lossy, 1000000, true);
    write_lossy(plain, 1000000, false);
    for ( i = 0; i < 2; i++ )
    {
        long with, without, with_anon, without_anon;

        reader_rss(readers[i], lossy, &with, &with_anon);
        reader_rss(readers[i], plain, &without, &without_anon);
        print_message("%s: peak RSS %ld KiB (anonymous %ld) with 10^6 "
                      "losses, %ld KiB (%ld) without\n", readers[i], with,
                      with_anon, without, without_anon);
        assert_true(with < without + 8192);
        assert_true(with_anon < without_anon + 8192);
    }
    unlink(lossy);
    unlink(plain);
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
    assert_non_null(r);
    assert_true(xt_reader_info(r)->streamed);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, NULL, 0), 7);
    close(fds[0]);
    waitpid(pid, NULL, 0);
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
    /* A gzip file is counted at open: it can be read again. */
    assert_false(xt_reader_info(r)->streamed);
    assert_int_equal(xt_reader_info(r)->records, 7);
    assert_int_equal(collect(r, XT_ORDER_TSC, 0, 0, NULL, 0), 7);
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
    const struct xt_event_desc *t = xt_event_descs;

    (void)state;
    n = xt_nr_event_descs;
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
 * event ...": without CPU changes and pads, per CPU, they must be ours,
 * with our metadata (xenalyze reads it as any TRC_GEN record).
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
        assert_int_equal(count_lines(cmd), ci->records + ci->metadata);
    }
    xt_reader_close(r);
}

/* The dump: a line per record, in TSC order, header lines aside. */
static void test_dump_lines(void **state)
{
    struct xt_reader *r = xt_reader_open(capture, 0);
    const struct xt_reader_info *in = xt_reader_info(r);
    uint64_t lines = in->records + in->metadata;
    char cmd[512];

    (void)state;
    snprintf(cmd, sizeof(cmd), "%s '%s' | grep -v '^#'", XT_DUMP, capture);
    assert_int_equal(count_lines(cmd), lines);
    snprintf(cmd, sizeof(cmd), "%s -a -r '%s' | grep -v '^#'", XT_DUMP,
             capture);
    assert_int_equal(count_lines(cmd), lines + in->pads + in->batches);
    /* Sorted by TSC: the first column never goes down. */
    snprintf(cmd, sizeof(cmd), "%s '%s' | grep -v '^#' | "
             "awk '$1 < last { print } { last = $1 }'", XT_DUMP, capture);
    assert_int_equal(count_lines(cmd), 0);
    /* Seconds, from the metadata's TSC Hz; and from standard input. */
    snprintf(cmd, sizeof(cmd), "%s -s < '%s' | grep -v '^#' | grep -c "
             "'^ *-\\?[0-9]*\\.[0-9]\\{9\\} *cpu[01]' | grep -qx %llu",
             XT_DUMP, capture, (unsigned long long)lines);
    assert_int_equal(system(cmd), 0);
    xt_reader_close(r);
}

/*
 * -a: each CPU-change record after a CPU's first tells what the batch
 * before it held, as the lines show it: so many records (pads and
 * metadata among them), the bytes its own CPU-change record said.  In
 * file order and in TSC order; and the batches noted are all but each
 * CPU's last.
 */
static void test_dump_batches(void **state)
{
    struct xt_reader *r = xt_reader_open(capture, 0);
    const struct xt_reader_info *in = xt_reader_info(r);
    const char *order[] = { "-r", "" };
    unsigned long bad, notes;
    unsigned int i;
    char cmd[1024];
    FILE *f;

    (void)state;
    for ( i = 0; i < 2; i++ )
    {
        snprintf(cmd, sizeof(cmd), "%s -a %s '%s' | sed '/^#/d' | awk '"
                 "{ c = $2; sub(/\\*$/, \"\", c) }"
                 "$3 != \"TRC_TRACE_CPU_CHANGE\" { n[c]++; next }"
                 "$7 == \"before:\" { notes++ }"
                 "$7 == \"before:\" && ($8 != n[c] || $10 != b[c]) { bad++ }"
                 "c in b && $7 != \"before:\" { bad++ }"
                 "{ n[c] = 0; b[c] = substr($5, 7) }"
                 "END { print bad + 0, notes + 0 }'", XT_DUMP, order[i],
                 capture);
        f = popen(cmd, "r");
        assert_non_null(f);
        assert_int_equal(fscanf(f, "%lu %lu", &bad, &notes), 2);
        pclose(f);
        print_message("%s: %lu batches noted\n", *order[i] ? order[i] : "TSC",
                      notes);
        assert_int_equal(bad, 0);
        assert_int_equal(notes, in->batches - in->nr_cpus);
    }
    xt_reader_close(r);
}

/*
 * -p: a column per pCPU (the capture has two) after the time, and the
 * rest of the line as without it.  Where the note names a guest's vCPU
 * running on the record's pCPU, its column says '|'; at an idle entry
 * into C-state N, N; the pCPUs are seen running guests and idle.
 */
static void test_dump_pcpus(void **state)
{
    char cmd[1024];
    unsigned long bad, guest, idle;
    FILE *f;

    (void)state;
    snprintf(cmd, sizeof(cmd), "d='%s'; %s -p $d/trace.bin | sed '/^#/d' | "
             "sed -E 's/^( *[0-9]+) [-|?0-9+]+ /\\1 /' > $d/stripped && "
             "%s $d/trace.bin | sed '/^#/d' | cmp - $d/stripped", tmpdir,
             XT_DUMP, XT_DUMP);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "%s -p '%s' | sed '/^#/d' | awk '"
             "{ s = $2; c = substr(s, substr($3, 4) + 1, 1) }"
             "length(s) != 2 || s !~ /^[-|?0-9+]+$/ { bad++ }"
             "/ [|] d[0-9]+v[0-9]+ / && c != \"|\" { bad++ }"
             "$4 == \"TRC_PM_IDLE_ENTRY\" && \"cstate=\" c != $5 { bad++ }"
             "c == \"|\" { guest++ } c ~ /[-0-9]/ { idle++ }"
             "END { print bad + 0, guest + 0, idle + 0 }'", XT_DUMP, capture);
    f = popen(cmd, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu %lu %lu", &bad, &guest, &idle), 3);
    pclose(f);
    print_message("-p: %lu lines on a pCPU running a guest, %lu idle\n",
                  guest, idle);
    assert_int_equal(bad, 0);
    assert_true(guest > 1000 && idle > 100);
    assert_int_equal(system(XT_DUMP " -p -r /dev/null 2>/dev/null"), 1 << 8);
}

/* Lines of the dump of the capture with @options, header lines aside. */
static unsigned long dump_lines(const char *options)
{
    char cmd[512];

    snprintf(cmd, sizeof(cmd), "%s %s '%s' 2>/dev/null | sed '/^#/d'",
             XT_DUMP, options, capture);
    return count_lines(cmd);
}

/*
 * The dump's filters.  Every record is of one pCPU and of one class, so
 * the filters of each split the dump; the catalogue's names and numbers
 * pick the same events; what is about d1v0 (its fields name it, or it
 * runs where the record was written) is within what is about domain 1;
 * and a window in seconds holds the lines that -s prints in it.
 */
static void test_dump_filters(void **state)
{
    static const char *const classes[] = {
        "gen", "sched", "dom0op", "hvm", "mem", "pv", "shadow", "hw", "guest",
    };
    unsigned long all = dump_lines(""), sum = 0, d1, d1v0;
    char cmd[1024], opt[64];
    unsigned int i;

    (void)state;
    assert_int_equal(dump_lines("--cpu 0") + dump_lines("--cpu 1"), all);
    snprintf(cmd, sizeof(cmd), "%s --cpu 1 '%s' | sed '/^#/d' | "
             "awk '$2 !~ /^cpu1/'", XT_DUMP, capture);
    assert_int_equal(count_lines(cmd), 0);
    for ( i = 0; i < sizeof(classes) / sizeof(classes[0]); i++ )
    {
        snprintf(opt, sizeof(opt), "--classes %s", classes[i]);
        sum += dump_lines(opt);
    }
    assert_int_equal(sum, all);
    assert_true(dump_lines("--classes hvm") > 1000);

    /* Names and numbers, and an event's lines are the full dump's. */
    snprintf(cmd, sizeof(cmd), "%s '%s' | grep -c ' TRC_SCHED_SWITCH ' | "
             "grep -qx %lu", XT_DUMP, capture,
             dump_lines("--event TRC_SCHED_SWITCH"));
    assert_int_equal(system(cmd), 0);
    assert_int_equal(dump_lines("--event 0x28004"),
                     dump_lines("--event TRC_SCHED_WAKE"));
    assert_int_equal(dump_lines("--event TRC_SCHED_WAKE,TRC_SCHED_SWITCH"),
                     dump_lines("--event 0x28004") +
                     dump_lines("--event TRC_SCHED_SWITCH"));

    /* d1v0: each line of the full dump that names it is kept. */
    d1 = dump_lines("--domain 1");
    d1v0 = dump_lines("--domain 1 --vcpu 0");
    print_message("%lu lines, %lu about d1, %lu about d1v0\n", all, d1, d1v0);
    assert_true(d1v0 > 1000 && d1v0 < d1 && d1 < all);
    snprintf(cmd, sizeof(cmd), "d='%s'; %s $d/trace.bin | sed '/^#/d' | "
             "grep -E 'd1v0|[ _]dom=1 ([a-z]+_)?vcpu=0( |$)' | sort > $d/named"
             " && %s --domain 1 --vcpu 0 $d/trace.bin | sed '/^#/d' | "
             "sort > $d/kept && comm -23 $d/named $d/kept", tmpdir, XT_DUMP,
             XT_DUMP);
    assert_int_equal(count_lines(cmd), 0);
    snprintf(cmd, sizeof(cmd), "d='%s'; %s --domain 1 $d/trace.bin | "
             "sed '/^#/d' | sort > $d/d1 && comm -23 $d/kept $d/d1", tmpdir,
             XT_DUMP);
    assert_int_equal(count_lines(cmd), 0);

    /* A window: -s's times from 0.2 on, before 0.4. */
    snprintf(cmd, sizeof(cmd), "%s -s --from 0.2 --to 0.4 '%s' | "
             "sed '/^#/d' | awk '$1 < 0.2 || $1 >= 0.4'", XT_DUMP, capture);
    assert_int_equal(count_lines(cmd), 0);
    snprintf(cmd, sizeof(cmd), "%s -s '%s' | sed '/^#/d' | "
             "awk '$1 >= 0.2 && $1 < 0.4' | grep -c . | grep -qx %lu",
             XT_DUMP, capture, dump_lines("--from 0.2 --to 0.4"));
    assert_int_equal(system(cmd), 0);
}

/*
 * xentrace-dump -f on a capture being written ends by itself once
 * xentrace has ended it, with every record that the finished file has.
 */
static void test_dump_follow_ends(void **state)
{
    char cmd[1024];

    (void)state;
    snprintf(cmd, sizeof(cmd),
             "d='%s'; rm -f $d/live.bin && "
             "(%s --pcpus 2 --workload mixed -- %s -D -e all -T 2 $d/live.bin "
             "> $d/sim.log 2>&1 &) && sleep 0.5 && "
             "timeout 20 %s -f $d/live.bin > $d/followed && "
             "%s $d/live.bin | sed '/^#/d' > $d/finished && "
             "sed '/^#/d' $d/followed | cmp - $d/finished && "
             "test $(wc -l < $d/finished) -gt 1000", tmpdir,
             XEN_SIM, XENTRACE, XT_DUMP, XT_DUMP);
    assert_int_equal(system(cmd), 0);
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
    assert_int_equal(count_lines(cmd),
                     in->records + in->metadata + in->pads + in->batches);
    snprintf(cmd, sizeof(cmd), "%s %s < '%s' | grep -c '^CPU1 .* "
             "sched_switch  \\[ prev_dom = ' >/dev/null", XT_FORMAT, XT_FORMATS,
             capture);
    assert_int_equal(system(cmd), 0);
    xt_reader_close(r);
}

int main(int argc, char **argv)
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
        cmocka_unit_test(test_end_records_are_clean),
        cmocka_unit_test(test_payload_words),
        cmocka_unit_test(test_cut_anywhere),
        cmocka_unit_test(test_cut_mid_record),
        cmocka_unit_test(test_corrupt_batch_boundary),
        cmocka_unit_test(test_unknown_events_print),
        cmocka_unit_test(test_dump_tsc_column),
        cmocka_unit_test(test_1024_cpus),
        cmocka_unit_test(test_walk_batches),
        cmocka_unit_test(test_damage_offsets),
        cmocka_unit_test(test_resync_scans),
        cmocka_unit_test(test_first_word),
        cmocka_unit_test(test_hostile_cpus_and_tscs),
        cmocka_unit_test(test_impossible_cpus_skipped),
        cmocka_unit_test(test_format_big_cpu_numbers),
        cmocka_unit_test(test_100000_cpus),
        cmocka_unit_test(test_memory_bounded),
        cmocka_unit_test(test_late_batch_merged),
        cmocka_unit_test(test_bounded_memory),
        cmocka_unit_test(test_dump_live),
        cmocka_unit_test(test_follow_file),
        cmocka_unit_test(test_stream_agrees_cut_and_unaligned),
        cmocka_unit_test(test_cpu_batches),
        cmocka_unit_test(test_batches_1024_cpus),
        cmocka_unit_test(test_summary_batches_in_file_order),
        cmocka_unit_test(test_vcpu_ids_past_256),
        cmocka_unit_test(test_one_clock),
        cmocka_unit_test(test_window_at_the_clock_end),
        cmocka_unit_test(test_losses_bounded),
        cmocka_unit_test(test_pipe_and_gzip),
        cmocka_unit_test(test_catalogue_covers_trace_h),
        cmocka_unit_test(test_catalogue_sorted_and_sane),
        cmocka_unit_test_setup_teardown(test_counts_agree_with_xenalyze,
                                        make_capture, NULL),
        cmocka_unit_test(test_dump_lines),
        cmocka_unit_test(test_dump_filters),
        cmocka_unit_test(test_dump_pcpus),
        cmocka_unit_test(test_dump_batches),
        cmocka_unit_test(test_dump_follow_ends),
        cmocka_unit_test_setup_teardown(test_xentrace_format_lines, NULL,
                                        remove_capture),
    };

    if ( argc == 3 && !strcmp(argv[1], "--rss") )
        return rss_child(argv[2]);

    /* One group: tests/run-tests reads one summary per program. */
    return cmocka_run_group_tests_name("readers", tests, NULL, NULL);
}
