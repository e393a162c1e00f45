/*
 * The record path of trace.c, seen from dom0: encoding, wrap padding, page
 * splits, lost records, high-water notification, masks, the domain filter,
 * and a consumer that writes nonsense into the shared page.
 *
 * One hypervisor for the whole file: 2 CPUs, 2 pages each (8184 bytes of
 * records).  Each test starts from empty buffers wherever prod happens to
 * be, and moves prod where it needs it with 4-byte records.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <xen/sched.h>
#include "host_util.h"

#define LOST_REC_SIZE  28
#define LOST_RESERVE   64        /* trace.c keeps this free for a marker */
#define MAX_RECS       4096

#define EV_FILL        (TRC_HVM_HANDLER + 0x30)    /* 4-byte filler */
#define EV_TEST        (TRC_HVM_HANDLER + 0x31)

static struct tu_buf buf[2];
static struct tu_rec recs[MAX_RECS];

static int setup(void **state)
{
    (void)state;
    tu_boot(2, "tbuf_size=2");
    tu_map_buf(0, &buf[0]);
    tu_map_buf(1, &buf[1]);
    return 0;
}

/* Both CPUs empty, everything traced, running as CPU 0 in its idle vCPU. */
static int reset(void **state)
{
    uint8_t all = 0xff;

    (void)state;
    host_cpu_enter(0);
    host_set_current(NULL);
    assert_int_equal(tu_set_evt_mask(TRC_ALL), 0);
    assert_int_equal(tu_set_cpu_mask(&all, 8), 0);
    assert_int_equal(tu_enable(), 0);
    assert_int_equal(tu_dom_filter_commit(false), 0);
    assert_int_equal(tu_event_switch(EV_TEST, XEN_TBUF_EVENT_MASKS), 0);
    assert_int_equal(tu_event_switch(EV_FILL, XEN_TBUF_EVENT_MASKS), 0);
    assert_int_equal(tu_event_switch(TRC_SCHED_RUNSTATE_CHANGE,
                                     XEN_TBUF_EVENT_MASKS), 0);
    tu_drain(&buf[0], NULL, 0);
    tu_drain(&buf[1], NULL, 0);
    host_process_softirqs();
    tu_console_clear();
    return 0;
}

static uint32_t data_offset(const struct tu_buf *b)
{
    return b->meta->prod % b->data_size;
}

/* Emit 4-byte records on CPU 0 until its prod is at data offset @off. */
static void move_prod_to(uint32_t off)
{
    while ( data_offset(&buf[0]) != off )
    {
        __trace_var(EV_FILL, false, 0, NULL);
        if ( tu_unconsumed(&buf[0]) > buf[0].data_size / 2 )
            tu_drain(&buf[0], NULL, 0);
    }
    tu_drain(&buf[0], NULL, 0);
}

static struct trace_cpu_stats stats_of(unsigned int cpu)
{
    struct trace_cpu_stats s;

    trace_cpu_stats(cpu, &s);
    return s;
}

static void test_encoding_every_size(void **state)
{
    static const uint32_t payload[7] = { 1, 2, 3, 4, 5, 6, 0xdeadbeef };
    unsigned int words, tsc, i;
    uint64_t last_tsc = 0;

    (void)state;
    for ( tsc = 0; tsc < 2; tsc++ )
        for ( words = 0; words <= 7; words++ )
        {
            __trace_var(EV_TEST + words, tsc, words * 4, payload);
            assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
            assert_int_equal(recs[0].event, EV_TEST + words);
            assert_int_equal(recs[0].words, words);
            assert_int_equal(recs[0].has_tsc, tsc);
            assert_int_equal(recs[0].size, 4 + 8 * tsc + 4 * words);
            for ( i = 0; i < words; i++ )
                assert_int_equal(recs[0].data[i], payload[i]);
            if ( tsc )
            {
                assert_true(recs[0].tsc > last_tsc);
                last_tsc = recs[0].tsc;
            }
        }
}

/* The header word exactly as the ABI lays it out. */
static void test_header_word(void **state)
{
    uint32_t d[2] = { 7, 8 }, hdr;

    (void)state;
    move_prod_to(0);
    __trace_var(TRC_TRACE_CPU_CHANGE, true, sizeof(d), d);
    memcpy(&hdr, buf[0].data, 4);
    assert_int_equal(hdr, 0xa001f003);
    tu_drain(&buf[0], NULL, 0);
}

/* Payloads that are not whole words are zero-filled, never over-read. */
static void test_odd_sized_payload(void **state)
{
    unsigned int bytes, i;

    (void)state;
    for ( bytes = 1; bytes <= 27; bytes++ )
    {
        /* Exactly @bytes long: AddressSanitizer catches an over-read. */
        unsigned char *p = malloc(bytes);
        unsigned char got[28] = { 0 };

        assert_non_null(p);
        for ( i = 0; i < bytes; i++ )
            p[i] = 0xa0 + i;
        __trace_var(EV_TEST, true, bytes, p);
        assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
        assert_int_equal(recs[0].words, (bytes + 3) / 4);
        memcpy(got, recs[0].data, 4 * recs[0].words);
        assert_memory_equal(got, p, bytes);
        for ( i = bytes; i < 4 * recs[0].words; i++ )
            assert_int_equal(got[i], 0);
        free(p);
    }
}

static void test_oversized_payload_is_truncated(void **state)
{
    uint32_t d[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

    (void)state;
    __trace_var(EV_TEST, true, sizeof(d), d);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(recs[0].words, 7);
    assert_memory_equal(recs[0].data, d, 28);
    assert_non_null(strstr(tu_console(), "bad size 40"));
}

/*
 * Xen 4.19's API: trace() takes the TSC from the event's bit 31, which
 * trace_time() sets; TRACE() and TRACE_TIME() pack their arguments.
 */
static void test_trace_every_size(void **state)
{
    static const uint32_t payload[7] = { 9, 8, 7, 6, 5, 4, 0xfeedface };
    unsigned int words, tsc, i;

    (void)state;
    for ( tsc = 0; tsc < 2; tsc++ )
        for ( words = 0; words <= 7; words++ )
        {
            if ( tsc )
                trace_time(EV_TEST + words, words * 4, payload);
            else
                trace(EV_TEST + words, words * 4, payload);
            assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
            assert_int_equal(recs[0].event, EV_TEST + words);
            assert_int_equal(recs[0].words, words);
            assert_int_equal(recs[0].has_tsc, tsc);
            for ( i = 0; i < words; i++ )
                assert_int_equal(recs[0].data[i], payload[i]);
        }
}

static void test_trace_macros(void **state)
{
    unsigned int i;

    (void)state;
    TRACE(EV_TEST);
    TRACE(EV_TEST + 1, 1, 2, 3, 4, 5, 6, 7);
    TRACE_TIME(EV_TEST + 2);
    TRACE_TIME(EV_TEST + 3, 0xabc);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 4);
    for ( i = 0; i < 4; i++ )
    {
        assert_int_equal(recs[i].event, EV_TEST + i);
        assert_int_equal(recs[i].has_tsc, i >= 2);
    }
    assert_int_equal(recs[0].words, 0);
    assert_int_equal(recs[1].words, 7);
    assert_int_equal(recs[1].data[6], 7);
    assert_int_equal(recs[2].words, 0);
    assert_int_equal(recs[3].words, 1);
    assert_int_equal(recs[3].data[0], 0xabc);
}

/*
 * Xen 4.18's rule for trace(): a size that is not whole words, or more
 * than a record holds, is the caller's bug.  The record is dropped, not
 * counted as lost, and said once; __trace_var() keeps 4.17's rule (above).
 */
static void test_trace_rejects_bad_sizes(void **state)
{
    static const unsigned int bad[] = { 1, 2, 3, 5, 27, 29, 32, 40 };
    uint32_t d[10] = { 0 };
    struct trace_cpu_stats before = stats_of(0);
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
        trace_time(EV_TEST, bad[i], d);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 0);
    assert_int_equal(stats_of(0).records, before.records);
    assert_int_equal(stats_of(0).lost, before.lost);
    assert_non_null(strstr(tu_console(), "Trace event 0x80082031 bad size 1, "
                                         "discarding"));
    assert_null(strstr(tu_console(), "bad size 2,"));
}

/*
 * With k bytes left before the end, a 40-byte record is preceded by a pad
 * of exactly k bytes (4-36) and lands at offset 0.
 */
static void test_wrap_pad_every_size(void **state)
{
    uint32_t d[7] = { 0 };
    unsigned int k;

    (void)state;
    for ( k = 4; k <= 36; k += 4 )
    {
        move_prod_to(buf[0].data_size - k);
        __trace_var(EV_TEST, true, sizeof(d), d);
        assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 2);

        assert_int_equal(recs[0].event, TRC_TRACE_WRAP_BUFFER);
        assert_int_equal(recs[0].size, k);
        assert_int_equal(recs[0].offset, buf[0].data_size - k);
        assert_int_equal(recs[0].has_tsc, k > 32);
        assert_int_equal(recs[0].words, k > 32 ? 6 : (k - 4) / 4);
        for ( unsigned int i = 0; i < recs[0].words; i++ )
            assert_int_equal(recs[0].data[i], 0);

        assert_int_equal(recs[1].event, EV_TEST);
        assert_int_equal(recs[1].offset, 0);
    }

    /* 40 bytes left: the record fits exactly, no pad. */
    move_prod_to(buf[0].data_size - 40);
    __trace_var(EV_TEST, true, sizeof(d), d);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(recs[0].offset, buf[0].data_size - 40);
}

/* A record across the boundary of two (non-contiguous) pages. */
static void test_record_across_pages(void **state)
{
    uint32_t d[7] = { 11, 22, 33, 44, 55, 66, 77 };
    uint32_t start = 4096 - 8 - 20;     /* 20 bytes in page 0, 20 in 1 */
    const struct t_info *ti = tu_map_t_info();
    const uint32_t *mfns = (const uint32_t *)ti + ti->mfn_offset[0];

    (void)state;
    assert_int_not_equal(mfns[1], mfns[0] + 1);    /* really apart */
    move_prod_to(start);
    __trace_var(EV_TEST, true, sizeof(d), d);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(recs[0].offset, start);
    assert_memory_equal(recs[0].data, d, sizeof(d));
}

/* Records of random sizes never straddle the end (tu_drain checks). */
static void test_random_sizes_never_straddle(void **state)
{
    uint32_t d[7] = { 0 };
    unsigned int i, emitted = 0, seen = 0;

    (void)state;
    srand(42);
    for ( i = 0; i < 20000; i++ )
    {
        __trace_var(EV_TEST, rand() & 1, 4 * (rand() % 8), d);
        emitted++;
        if ( rand() % 50 == 0 )
            seen += tu_drain(&buf[0], recs, MAX_RECS);
    }
    seen += tu_drain(&buf[0], recs, MAX_RECS);
    assert_true(seen >= emitted);    /* pads come on top */
}

/* Fill CPU 0's buffer with 12-byte records until one is refused. */
static unsigned int fill_until_lost(void)
{
    unsigned long lost = stats_of(0).lost;
    unsigned int written = 0;

    while ( stats_of(0).lost == lost )
    {
        TRACE_0D(EV_TEST);
        written++;
    }
    return written - 1;
}

static void test_lost_records_marker(void **state)
{
    struct domain dom = { .domain_id = 7 };
    struct vcpu v = { .vcpu_id = 3, .domain = &dom };
    struct trace_cpu_stats before = stats_of(0);
    unsigned int written, i;
    size_t n;

    (void)state;
    written = fill_until_lost();
    assert_true(tu_unconsumed(&buf[0]) <= buf[0].data_size - LOST_RESERVE);
    for ( i = 0; i < 99; i++ )
        TRACE_0D(EV_TEST);
    assert_int_equal(stats_of(0).lost - before.lost, 100);
    assert_int_equal(stats_of(0).records - before.records, written);
    assert_int_equal(stats_of(0).bytes - before.bytes, 12 * written);

    /* Nothing about the loss yet: it is reported with the next record. */
    n = tu_drain(&buf[0], recs, MAX_RECS);
    for ( i = 0; i < n; i++ )
        assert_int_not_equal(recs[i].event, TRC_LOST_RECORDS);

    host_set_current(&v);
    TRACE_1D(EV_TEST + 1, 0x1234);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 2);
    assert_int_equal(recs[0].event, TRC_LOST_RECORDS);
    assert_true(recs[0].has_tsc);
    assert_int_equal(recs[0].size, LOST_REC_SIZE);
    assert_int_equal(recs[0].data[0], 100);
    assert_int_equal(recs[0].data[1] & 0xffff, 7);
    assert_int_equal(recs[0].data[1] >> 16, 3);
    assert_true(recs[0].data[2] | ((uint64_t)recs[0].data[3] << 32));
    assert_true((recs[0].data[2] | ((uint64_t)recs[0].data[3] << 32)) <=
                recs[0].tsc);
    assert_int_equal(recs[1].event, EV_TEST + 1);
    assert_int_equal(recs[1].data[0], 0x1234);

    /* Reported once. */
    TRACE_0D(EV_TEST);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(recs[0].event, EV_TEST);
}

/* Disabling writes a pending count, even into a buffer left full. */
static void test_disable_flushes_lost_count(void **state)
{
    unsigned int i;
    size_t n;

    (void)state;
    fill_until_lost();
    for ( i = 0; i < 9; i++ )
        TRACE_0D(EV_TEST);
    assert_int_equal(tu_disable(), 0);

    n = tu_drain(&buf[0], recs, MAX_RECS);
    assert_true(n >= 2);
    assert_int_equal(recs[n - 1].event, TRC_LOST_RECORDS);
    assert_int_equal(recs[n - 1].data[0], 10);
    assert_int_equal(recs[n - 1].data[1], DOMID_IDLE | (0 << 16));

    assert_int_equal(tu_enable(), 0);
    TRACE_0D(EV_TEST);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(recs[0].event, EV_TEST);
}

/*
 * The marker that disable writes is stamped with the buffer's CPU's time
 * of the last loss, not the control CPU's clock: here that clock runs far
 * ahead, and the CPU's next record must still come after the marker.
 */
static void test_disable_marker_keeps_time_in_order(void **state)
{
    uint64_t first, before_disable;
    size_t n;

    (void)state;
    fill_until_lost();
    TRACE_0D(EV_TEST);
    before_disable = get_cycles();

    host_set_tsc_offset(1ULL << 40);         /* the control CPU's clock */
    assert_int_equal(tu_disable(), 0);
    host_set_tsc_offset(0);

    n = tu_drain(&buf[0], recs, MAX_RECS);
    assert_true(n >= 2);
    assert_int_equal(recs[n - 1].event, TRC_LOST_RECORDS);
    first = recs[n - 1].data[2] | ((uint64_t)recs[n - 1].data[3] << 32);
    assert_true(recs[n - 2].tsc <= first);
    assert_true(first < recs[n - 1].tsc);    /* the second loss's time */
    assert_true(recs[n - 1].tsc <= before_disable);

    assert_int_equal(tu_enable(), 0);
    TRACE_0D(EV_TEST);
    assert_int_equal(tu_drain(&buf[0], &recs[n], MAX_RECS - n), 1);
    assert_true(recs[n - 1].tsc <= recs[n].tsc);
}

static unsigned long tbuf_virqs(void)
{
    host_process_softirqs();
    return host_virq_count(VIRQ_TBUF);
}

/* VIRQ_TBUF once per crossing of half the buffer; never from a failure. */
static void test_high_water_notification(void **state)
{
    uint32_t half = buf[0].data_size / 2;
    unsigned long virqs = tbuf_virqs();

    (void)state;
    while ( tu_unconsumed(&buf[0]) + 12 < half )
        TRACE_0D(EV_TEST);
    assert_int_equal(tbuf_virqs(), virqs);

    TRACE_0D(EV_TEST);                       /* crosses */
    assert_true(tu_unconsumed(&buf[0]) >= half);
    assert_int_equal(tbuf_virqs(), virqs + 1);

    fill_until_lost();                       /* beyond, and a failure */
    TRACE_0D(EV_TEST);
    assert_int_equal(tbuf_virqs(), virqs + 1);

    tu_drain(&buf[0], NULL, 0);              /* below again, then across */
    while ( tu_unconsumed(&buf[0]) < half )
        TRACE_0D(EV_TEST);
    assert_int_equal(tbuf_virqs(), virqs + 2);
}

/* Emit @event on CPU 0 and say whether it was recorded. */
static bool recorded(uint32_t event)
{
    bool predicted = trace_will_trace_event(event);
    size_t n;

    TRACE_0D(event);
    n = tu_drain(&buf[0], recs, MAX_RECS);
    assert_int_equal(n > 0, predicted);
    return n == 1 && recs[0].event == TRC_HD_TO_EVENT(event);
}

static void test_event_mask(void **state)
{
    (void)state;
    assert_int_equal(tu_set_evt_mask(TRC_SCHED), 0);
    assert_true(recorded(TRC_SCHED_SWITCH));
    assert_false(recorded(TRC_HVM_VMENTRY));

    /* Subclasses: SCHED_MIN is subclass 1, SCHED_VERBOSE subclass 8. */
    assert_int_equal(tu_set_evt_mask(TRC_SCHED_MIN), 0);
    assert_true(recorded(TRC_SCHED_RUNSTATE_CHANGE));
    assert_false(recorded(TRC_SCHED_SWITCH));

    /* Two classes; the minor number is never filtered. */
    assert_int_equal(tu_set_evt_mask(TRC_HVM | TRC_MEM), 0);
    assert_true(recorded(TRC_HVM_HANDLER + 0xfff));
    assert_true(recorded(TRC_MEM_POD_POPULATE));
    assert_false(recorded(TRC_PV_HYPERCALL_V2));

    /* A class bit without a matching subclass bit passes nothing. */
    assert_int_equal(tu_set_evt_mask(0x00020000), 0);
    assert_false(recorded(TRC_SCHED_SWITCH));
}

/*
 * Bits 31-28 of the mask match nothing: 0x8002f000 is "scheduler only",
 * where Xen 4.19+ passes every timed event because it carries the TSC flag
 * in bit 31 of the event.  Bits 31-28 of an event are not part of it.
 */
static void test_mask_bits_above_event_match_nothing(void **state)
{
    (void)state;
    assert_int_equal(tu_set_evt_mask(0x8002f000), 0);
    assert_true(recorded(TRC_SCHED_SWITCH));
    assert_false(recorded(TRC_HVM_VMENTRY));
    assert_false(recorded(TRC_HVM_VMENTRY | TRC_HD_CYCLE_FLAG));
    assert_true(recorded(TRC_SCHED_SWITCH | TRC_HD_CYCLE_FLAG));

    assert_int_equal(tu_set_evt_mask(0xf0000000), 0);
    assert_false(recorded(TRC_SCHED_SWITCH));
    assert_false(recorded(TRC_GEN + 0x10));
}

/*
 * A checksum of the 64 highest frames, where the heap put t_info and the
 * buffers, except CPU 0's buffer frames.
 */
static uint64_t checksum_other_frames(void)
{
    const struct t_info *ti = tu_map_t_info();
    const uint32_t *mine = (const uint32_t *)ti + ti->mfn_offset[0];
    uint64_t sum = 0;
    unsigned long mfn;
    unsigned int i;

    for ( mfn = host_machine_pages() - 64; mfn < host_machine_pages(); mfn++ )
    {
        const uint64_t *p = host_mfn_to_virt(mfn);
        bool skip = false;

        for ( i = 0; i < ti->tbuf_size; i++ )
            skip |= mine[i] == mfn;
        for ( i = 0; !skip && i < 4096 / 8; i++ )
            sum = sum * 31 + p[i];
    }
    return sum;
}

/*
 * dom0 writes nonsense into cons: the buffer is reset, the event counted
 * and logged once, nothing is written outside the buffer, and tracing goes
 * on here and on the other CPU.
 */
static void test_hostile_cons(void **state)
{
    uint32_t ds = buf[0].data_size;
    const uint32_t bad[] = {
        1, 2, 3, 2 * ds, 2 * ds + 4, UINT32_MAX, UINT32_MAX - 3, 0x80000000,
    };
    unsigned long resyncs = stats_of(0).resyncs;
    uint64_t others = checksum_other_frames();
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        TRACE_1D(EV_TEST, i);
        buf[0].meta->cons = bad[i];
        TRACE_1D(EV_TEST + 1, i);
        assert_int_equal(stats_of(0).resyncs, resyncs + i + 1);
        assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
        assert_int_equal(recs[0].event, EV_TEST + 1);
        assert_int_equal(recs[0].data[0], i);
    }

    /* cons ahead of prod: claims more consumed than was produced. */
    move_prod_to(100);
    buf[0].meta->cons = (buf[0].meta->prod + 8) % (2 * ds);
    TRACE_0D(EV_TEST);
    assert_int_equal(stats_of(0).resyncs, resyncs + i + 1);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);

    assert_int_equal(checksum_other_frames(), others);
    assert_non_null(strstr(tu_console(), "trc#0: bogus cons 0x1 "));
    assert_null(strstr(strstr(tu_console(), "bogus cons") + 1, "bogus"));

    host_cpu_enter(1);
    TRACE_1D(EV_TEST, 1);
    host_cpu_enter(0);
    assert_int_equal(tu_drain(&buf[1], recs, MAX_RECS), 1);
    assert_int_equal(stats_of(1).resyncs, 0);
}

/* Random cons values and scribbled records never upset Xen. */
static void test_random_hostile_consumer(void **state)
{
    unsigned char *data = (unsigned char *)buf[0].data;
    uint64_t others = checksum_other_frames();
    unsigned int i;

    (void)state;
    srand(7);
    for ( i = 0; i < 100000; i++ )
    {
        switch ( rand() % 4 )
        {
        case 0:
            buf[0].meta->cons = (uint32_t)rand() * 2654435761u;
            break;
        case 1:
            buf[0].meta->prod = rand();
            break;
        case 2:
            data[rand() % buf[0].data_size] = rand();
            break;
        }
        __trace_var(EV_TEST, rand() & 1, 4 * (rand() % 8), recs);
    }
    assert_int_equal(checksum_other_frames(), others);

    /* A well-behaved consumer again sees well-formed records. */
    buf[0].meta->cons = buf[0].meta->prod;
    TRACE_2D(EV_TEST, 5, 6);
    tu_drain(&buf[0], recs, MAX_RECS);
    assert_int_equal(recs[0].event, EV_TEST);
    assert_int_equal(recs[0].data[1], 6);
}

/* dom0's writes to prod are ignored: Xen writes from its own copy. */
static void test_hostile_prod_is_ignored(void **state)
{
    uint32_t prod = buf[0].meta->prod;

    (void)state;
    buf[0].meta->prod = (prod + 1000) % (2 * buf[0].data_size);
    TRACE_0D(EV_TEST);
    assert_int_equal(buf[0].meta->prod,
                     (prod + 12) % (2 * buf[0].data_size));
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
}

static void test_hypercall_records(void **state)
{
    const xen_ulong_t args[6] = { 10, 11, 12, 13, 14, 15 };

    (void)state;
    __trace_hypercall(TRC_PV_HYPERCALL_V2, __HYPERVISOR_grant_table_op, args);
    __trace_hypercall(TRC_PV_HYPERCALL_SUBCALL, __HYPERVISOR_mmu_update,
                      args);
    __trace_hypercall(TRC_PV_HYPERCALL_V2, 17, args);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 3);

    assert_int_equal(recs[0].event, TRC_PV_HYPERCALL_V2);
    assert_true(recs[0].has_tsc);
    assert_int_equal(recs[0].words, 3);
    assert_int_equal(recs[0].data[0], __HYPERVISOR_grant_table_op |
                     TRC_PV_HYPERCALL_V2_ARG_32(0) |
                     TRC_PV_HYPERCALL_V2_ARG_32(2));
    assert_int_equal(recs[0].data[1], 10);
    assert_int_equal(recs[0].data[2], 12);

    assert_int_equal(recs[1].event, TRC_PV_HYPERCALL_SUBCALL);
    assert_int_equal(recs[1].data[0], __HYPERVISOR_mmu_update |
                     TRC_PV_HYPERCALL_V2_ARG_32(1));
    assert_int_equal(recs[1].data[1], 11);

    assert_int_equal(recs[2].words, 1);
    assert_int_equal(recs[2].data[0], 17);
}

static void test_disabled_records_nothing(void **state)
{
    unsigned long records = stats_of(0).records;
    unsigned int evaluated = 0;

    (void)state;
    assert_int_equal(tu_disable(), 0);
    TRACE_3D(EV_TEST, 1, evaluated++, 3);
    TRACE_TIME(EV_TEST, evaluated++);
    assert_int_equal(evaluated, 0);
    __trace_var(EV_TEST, true, 0, NULL);
    trace_time(EV_TEST, 0, NULL);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 0);
    assert_int_equal(stats_of(0).records, records);
    assert_false(trace_will_trace_event(EV_TEST));
}

/*
 * The domain filter keeps what a listed domain writes, and the scheduler's
 * and domain operations' records that name it, whoever writes them; it
 * drops the rest, which is then neither written nor lost.
 */
static void test_dom_filter(void **state)
{
    struct domain d3 = { .domain_id = 3 }, d5 = { .domain_id = 5 };
    struct vcpu v3 = { .vcpu_id = 1, .domain = &d3 };
    struct vcpu v5 = { .vcpu_id = 0, .domain = &d5 };
    struct trace_cpu_stats before = stats_of(0);
    uint32_t runstate_d3 = TRC_SCHED_RUNSTATE_CHANGE |
                           1 << 8 | 0 << 4;   /* runnable -> running */
    size_t n;

    (void)state;
    assert_int_equal(tu_dom_filter_stage(3, 3), 0);
    assert_int_equal(tu_dom_filter_stage(10, 12), 0);
    assert_int_equal(tu_dom_filter_commit(true), 0);

    host_set_current(&v3);
    TRACE_1D(EV_TEST, 1);                            /* d3's: kept */
    host_set_current(&v5);
    TRACE_1D(EV_TEST, 2);                            /* d5's: dropped */
    TRACE_1D(runstate_d3, 3 << 16 | 1);              /* names d3v1: kept */
    TRACE_2D(TRC_SCHED_WAKE, 3, 1);                  /* names d3: kept */
    TRACE_2D(TRC_SCHED_WAKE, 5, 0);                  /* names d5: dropped */
    TRACE_4D(TRC_SCHED_SWITCH, 5, 0, 11, 0);         /* next is d11: kept */
    TRACE_1D(TRC_DOM0_DOM_ADD, 12);                  /* d12: kept */
    TRACE_1D(TRC_MEM_PAGE_GRANT_MAP, 3);             /* not sched: dropped */
    TRACE_1D(TRC_GEN + 4, 4);                        /* TRC_GEN: kept */
    TRACE_0D(TRC_SCHED_WAKE);                        /* names none: dropped */

    n = tu_drain(&buf[0], recs, MAX_RECS);
    assert_int_equal(n, 6);
    assert_int_equal(recs[0].event, EV_TEST);
    assert_int_equal(recs[1].event, runstate_d3);
    assert_int_equal(recs[2].data[0], 3);
    assert_int_equal(recs[3].event, TRC_SCHED_SWITCH);
    assert_int_equal(recs[4].event, TRC_DOM0_DOM_ADD);
    assert_int_equal(recs[5].event, TRC_GEN + 4);
    assert_int_equal(stats_of(0).records - before.records, 6);
    assert_int_equal(stats_of(0).lost, before.lost);

    /* Off: every domain again, and the staged list starts empty. */
    assert_int_equal(tu_dom_filter_commit(false), 0);
    TRACE_1D(EV_TEST, 2);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(tu_dom_filter_commit(true), 0);
    host_set_current(&v3);
    TRACE_1D(EV_TEST, 1);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 0);
}

/* A commit replaces the whole list; ranges outside the ids are refused. */
static void test_dom_filter_control(void **state)
{
    struct domain d3 = { .domain_id = 3 }, idle = { .domain_id = DOMID_IDLE };
    struct vcpu v3 = { .vcpu_id = 0, .domain = &d3 };
    struct vcpu vi = { .vcpu_id = 0, .domain = &idle };

    (void)state;
    assert_int_equal(tu_dom_filter_stage(4, 3), -EINVAL);
    assert_int_equal(tu_dom_filter_stage(0, DOMID_IDLE + 1), -EINVAL);
    assert_int_equal(tu_dom_filter_stage(3, 3), 0);
    assert_int_equal(tu_dom_filter_commit(true), 0);
    assert_int_equal(tu_dom_filter_stage(DOMID_IDLE, DOMID_IDLE), 0);
    assert_int_equal(tu_dom_filter_commit(true), 0);  /* idle only now */

    host_set_current(&v3);
    TRACE_1D(EV_TEST, 3);
    host_set_current(&vi);
    TRACE_1D(EV_TEST, 0x7fff);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(recs[0].data[0], 0x7fff);
}

/*
 * Per-event switches: off beats the event mask, on passes what it masks
 * out, and back to the masks undoes either; a runstate change is one
 * event whatever its states.  Nothing switched off is counted as lost.
 */
static void test_event_switches(void **state)
{
    uint32_t runnable_to_running = TRC_SCHED_RUNSTATE_CHANGE | 1 << 8;
    struct trace_cpu_stats before = stats_of(0);
    size_t n;

    (void)state;
    assert_int_equal(tu_event_switch(EV_TEST, XEN_TBUF_EVENT_OFF), 0);
    TRACE_1D(EV_TEST, 1);                            /* off: dropped */
    TRACE_1D(EV_TEST + 1, 2);                        /* the mask's */
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(recs[0].event, EV_TEST + 1);

    assert_int_equal(tu_set_evt_mask(TRC_HVM), 0);   /* no sched class */
    assert_int_equal(tu_event_switch(TRC_SCHED_RUNSTATE_CHANGE,
                                     XEN_TBUF_EVENT_ON), 0);
    TRACE_1D(runnable_to_running, 3 << 16);          /* on: traced */
    TRACE_2D(TRC_SCHED_WAKE, 3, 0);                  /* masked out */
    TRACE_1D(EV_TEST, 4);                            /* still off */
    n = tu_drain(&buf[0], recs, MAX_RECS);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].event, runnable_to_running);

    assert_int_equal(tu_event_switch(EV_TEST, XEN_TBUF_EVENT_MASKS), 0);
    assert_int_equal(tu_event_switch(TRC_SCHED_RUNSTATE_CHANGE,
                                     XEN_TBUF_EVENT_MASKS), 0);
    TRACE_1D(EV_TEST, 5);
    TRACE_1D(runnable_to_running, 3 << 16);
    assert_int_equal(tu_drain(&buf[0], recs, MAX_RECS), 1);
    assert_int_equal(recs[0].event, EV_TEST);
    assert_int_equal(stats_of(0).lost, before.lost);
}

/* 64 events at most; a bad event or state is refused. */
static void test_event_switch_limits(void **state)
{
    unsigned int i;

    (void)state;
    assert_int_equal(tu_event_switch(0, XEN_TBUF_EVENT_OFF), -EINVAL);
    assert_int_equal(tu_event_switch(EV_TEST | 1u << 28, XEN_TBUF_EVENT_OFF),
                     -EINVAL);
    assert_int_equal(tu_event_switch(EV_TEST, 3), -EINVAL);
    for ( i = 0; i < 64; i++ )
        assert_int_equal(tu_event_switch(TRC_MEM + 0x100 + i,
                                         XEN_TBUF_EVENT_OFF), 0);
    assert_int_equal(tu_event_switch(TRC_MEM + 0x200, XEN_TBUF_EVENT_OFF),
                     -ENOSPC);
    /* Switching one of them again, or on, needs no new slot of its own. */
    assert_int_equal(tu_event_switch(TRC_MEM + 0x100, XEN_TBUF_EVENT_OFF), 0);
    assert_int_equal(tu_event_switch(TRC_MEM + 0x101, XEN_TBUF_EVENT_ON), 0);
    for ( i = 0; i < 64; i++ )
        assert_int_equal(tu_event_switch(TRC_MEM + 0x100 + i,
                                         XEN_TBUF_EVENT_MASKS), 0);
    assert_int_equal(tu_event_switch(TRC_MEM + 0x200, XEN_TBUF_EVENT_OFF), 0);
    assert_int_equal(tu_event_switch(TRC_MEM + 0x200, XEN_TBUF_EVENT_MASKS),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup(fn, reset)
        T(test_encoding_every_size),
        T(test_header_word),
        T(test_odd_sized_payload),
        T(test_oversized_payload_is_truncated),
        T(test_trace_every_size),
        T(test_trace_macros),
        T(test_trace_rejects_bad_sizes),
        T(test_wrap_pad_every_size),
        T(test_record_across_pages),
        T(test_random_sizes_never_straddle),
        T(test_lost_records_marker),
        T(test_disable_flushes_lost_count),
        T(test_disable_marker_keeps_time_in_order),
        T(test_high_water_notification),
        T(test_event_mask),
        T(test_mask_bits_above_event_match_nothing),
        T(test_hostile_cons),
        T(test_random_hostile_consumer),
        T(test_hostile_prod_is_ignored),
        T(test_hypercall_records),
        T(test_disabled_records_nothing),
        T(test_dom_filter),
        T(test_dom_filter_control),
        T(test_event_switches),
        T(test_event_switch_limits),
#undef T
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
