/*
 * Counts and indices at their limits.  A lost-records count is 32 bits in
 * the TRC_LOST_RECORDS record but unsigned long in Xen: counts of 2^32 and
 * more go out in parts, one per record written.  Reaching 2^32 losses
 * takes hours, so these tests preset Xen's pending count through
 * trace_inside.h (trace.c compiled unchanged, plus accessors).  Buffer
 * indices wrap at 2 * data_size, never at 2^32: the producer is run past
 * that wrap many times with records of every size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <xen/sched.h>
#include "host_util.h"
#include "trace_inside.h"

#define EV_TEST   (TRC_HVM_HANDLER + 0x32)
#define MAX_RECS  4096

static struct tu_buf buf;
static struct tu_rec recs[MAX_RECS];

static int setup(void **state)
{
    (void)state;
    tu_boot(2, "tbuf_size=2");
    tu_map_buf(0, &buf);
    return 0;
}

static int empty_buffer(void **state)
{
    (void)state;
    tu_drain(&buf, NULL, 0);
    assert_int_equal(ti_lost(0), 0);
    return 0;
}

static uint32_t marker_count(const struct tu_rec *r)
{
    assert_int_equal(r->event, TRC_LOST_RECORDS);
    return r->data[0];
}

/*
 * Trace one record after losses and read it back: a marker, then the
 * record (each maybe after a wrap pad).  Returns the marker's count.
 */
static uint64_t report_once(uint32_t payload)
{
    size_t n, i, got = 0;
    const struct tu_rec *r[2];

    TRACE_1D(EV_TEST, payload);
    n = tu_drain(&buf, recs, MAX_RECS);
    for ( i = 0; i < n; i++ )
        if ( recs[i].event != TRC_TRACE_WRAP_BUFFER )
        {
            assert_true(got < 2);
            r[got++] = &recs[i];
        }
    assert_int_equal(got, 2);
    assert_int_equal(r[1]->event, EV_TEST);
    assert_int_equal(r[1]->data[0], payload);
    return marker_count(r[0]);
}

/* Every count, however large, is reported in full: part by part. */
static void test_lost_counts_reported_in_parts(void **state)
{
    static const unsigned long counts[] = {
        1, 0xfffffffeUL, 0xffffffffUL, 0x100000000UL, 0x100000005UL,
        0x200000001UL, 0x7fffffffffffUL,
    };
    size_t i;

    (void)state;
    for ( i = 0; i < sizeof(counts) / sizeof(counts[0]); i++ )
    {
        uint64_t reported = 0, parts = 0, want_parts;

        ti_set_lost(0, counts[i]);
        while ( ti_lost(0) && parts < 0x10000 )
        {
            uint64_t part = report_once(parts);

            /* Every part but the last is the most a marker can say. */
            assert_true(part == UINT32_MAX || ti_lost(0) == 0);
            reported += part;
            parts++;
        }
        want_parts = (counts[i] + UINT32_MAX - 1) / UINT32_MAX;
        assert_int_equal(reported, counts[i]);
        assert_int_equal(parts, want_parts);

        /* Nothing left: the next record comes alone. */
        TRACE_0D(EV_TEST);
        assert_int_equal(tu_drain(&buf, recs, MAX_RECS), 1);
        assert_int_equal(recs[0].event, EV_TEST);
    }
}

/*
 * Disabling writes the pending count, with 2^32 or more in parts: the
 * consumer's sweep after disable has it all.
 */
static void test_disable_flushes_every_part(void **state)
{
    (void)state;
    ti_set_lost(0, 0x100000002UL);
    assert_int_equal(tu_disable(), 0);
    assert_int_equal(tu_drain(&buf, recs, MAX_RECS), 2);
    assert_int_equal(marker_count(&recs[0]), UINT32_MAX);
    assert_int_equal(marker_count(&recs[1]), 3);
    assert_int_equal(recs[0].data[1], DOMID_IDLE | (0 << 16));
    assert_int_equal(ti_lost(0), 0);

    /* Nothing left pending: the next record comes alone. */
    assert_int_equal(tu_enable(), 0);
    TRACE_0D(EV_TEST);
    assert_int_equal(tu_drain(&buf, recs, MAX_RECS), 1);
    assert_int_equal(recs[0].event, EV_TEST);
}

/* A pending count near 2^32 and a full buffer: nothing is lost twice. */
static void test_wide_count_while_full(void **state)
{
    struct trace_cpu_stats before, after;
    unsigned int i, lost_now = 0;

    (void)state;
    trace_cpu_stats(0, &before);
    ti_set_lost(0, 0xfffffff0UL);
    while ( tu_unconsumed(&buf) < buf.data_size / 2 )
        TRACE_0D(EV_TEST);                      /* first: the marker */
    tu_drain(&buf, NULL, 0);
    assert_int_equal(ti_lost(0), 0);

    /* Fill, then lose 40 more: the next marker says 40, not 2^32 + 40. */
    for ( i = 0; i < 2 * buf.data_size / 12; i++ )
        TRACE_0D(EV_TEST);
    trace_cpu_stats(0, &after);
    lost_now = after.lost - before.lost;
    assert_true(lost_now > 0);
    for ( i = 0; i < 40; i++ )
        TRACE_0D(EV_TEST);
    assert_int_equal(ti_lost(0), lost_now + 40);
    tu_drain(&buf, NULL, 0);
    assert_int_equal(report_once(1), lost_now + 40);
}

/*
 * prod and cons count modulo 2 * data_size.  Records of every size, the
 * consumer draining as it goes, past that wrap 3 times at different
 * offsets: every record arrives, and the indices stay in range.
 */
static void test_indices_wrap_at_twice_the_data_size(void **state)
{
    uint32_t two_ds = 2 * buf.data_size, last_prod = 0;
    uint64_t written = 0, read = 0, bytes = 0;
    unsigned int wraps = 0, words = 0, n;

    (void)state;
    while ( wraps < 3 )
    {
        uint32_t payload[7] = { 0 };
        uint32_t prod;
        size_t i;

        payload[0] = written;
        __trace_var(EV_TEST, words & 1, 4 * (words % 8), payload);
        written++;
        words++;
        prod = buf.meta->prod;
        assert_true(prod < two_ds && prod % 4 == 0);
        assert_int_equal(prod, ti_prod(0));
        if ( prod < last_prod )
            wraps++;
        last_prod = prod;
        if ( tu_unconsumed(&buf) < buf.data_size / 3 )
            continue;
        n = tu_drain(&buf, recs, MAX_RECS);
        for ( i = 0; i < n; i++ )
        {
            bytes += recs[i].size;
            if ( recs[i].event == TRC_TRACE_WRAP_BUFFER )
                continue;
            assert_int_equal(recs[i].event, EV_TEST);
            if ( recs[i].words )
                assert_int_equal(recs[i].data[0], read);
            read++;
        }
    }
    n = tu_drain(&buf, recs, MAX_RECS);
    while ( n-- )
        read += recs[n].event == EV_TEST;
    assert_int_equal(read, written);
    assert_true(bytes > 2 * (uint64_t)two_ds);
    assert_int_equal(ti_lost(0), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, empty_buffer, empty_buffer)
    const struct CMUnitTest tests[] = {
        T(test_lost_counts_reported_in_parts),
        T(test_disable_flushes_every_part),
        T(test_wide_count_while_full),
        T(test_indices_wrap_at_twice_the_data_size),
    };
#undef T

    return cmocka_run_group_tests(tests, setup, NULL);
}
