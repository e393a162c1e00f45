/*
 * libxtfile's records of dom0's kernel events (xtfile.h, "Dom0's kernel
 * events"): every kind comes back from its record as it went in, with its
 * text as ftrace prints it; the first batch's lanes, names and pairs come
 * back from the reader, whose fit of the pairs finds the rate they were
 * made with; the lanes' events and losses are counted apart from Xen's
 * records; and records xentrace never writes are refused, not misread.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "xtread.h"

#define TSC0       1000000ull
#define NR_CPUS    2u           /* Xen's; dom0's lanes are CPUs 2 and 3 */

static const struct xt_metadata meta = {
    .tsc_hz = 2000000000, .nr_cpus = NR_CPUS, .start_tsc = TSC0,
    .start_sec = 1700000000,
};

/* The second's name is as long as a name can be, XT_DOM0_NAME_MAX. */
static const struct xt_dom0_type types[] = {
    { "timer:hrtimer_start", { "hrtimer", "function", "expires" } },
    { "xen:xen_mmu_set_pte_and_a_name_as_long_as_a_name_can_be_here_xx",
      { "ptep" } },
};

/* Put @e and take it back. */
static void round_trip(const struct xt_dom0_event *e, struct xt_dom0_event *back)
{
    uint32_t w[XT_DOM0_EVENT_WORDS];
    size_t n = xt_dom0_event_put(e, 0x123456789ull, w);

    assert_true(n >= 4 && n <= XT_DOM0_EVENT_WORDS);
    assert_int_equal(w[0] & ~(TRACE_EXTRA_MAX << TRACE_EXTRA_SHIFT),
                     TRC_XT_DOM0_EVENT | TRC_HD_CYCLE_FLAG);
    assert_int_equal(xt_record_words(w[0]), n);
    assert_int_equal(w[1], 0x23456789);
    assert_int_equal(xt_dom0_event_get(w + 3, n - 3, back), 0);
}

static const char *text_of(const struct xt_dom0_event *e,
                           const struct xt_dom0_type *type)
{
    static char buf[XT_RECORD_FORMAT_MAX];

    xt_dom0_text(e, type, buf, sizeof(buf));
    return buf;
}

static void test_kinds_round_trip(void **state)
{
    const struct {
        struct xt_dom0_event e;
        const char *text;
    } cases[] = {
        { { .kind = XT_DOM0_SWITCH, .arg = 1, .nr = 2, .v = { 812, 0 },
            .text = "swapper/1" },
          "sched_switch prev_pid=812 prev_state=S ==> next_comm=swapper/1 "
          "next_pid=0" },
        { { .kind = XT_DOM0_SWITCH, .arg = 0x100, .nr = 2, .v = { 7, 8 },
            .text = "a-comm-of-16-ch" },
          "sched_switch prev_pid=7 prev_state=R+ ==> "
          "next_comm=a-comm-of-16-ch next_pid=8" },
        { { .kind = XT_DOM0_WAKING, .arg = 3, .nr = 1, .v = { 99 },
            .text = "blkback.1.xvda" },
          "sched_waking comm=blkback.1.xvda pid=99 target_cpu=3" },
        { { .kind = XT_DOM0_IRQ_ENTRY, .nr = 1, .v = { 24 },
            .text = "evtchn:xenstored" },
          "irq_handler_entry irq=24 name=evtchn:xenstored" },
        { { .kind = XT_DOM0_IRQ_EXIT, .arg = 1, .nr = 1, .v = { 24 } },
          "irq_handler_exit irq=24 ret=handled" },
        { { .kind = XT_DOM0_SOFTIRQ_ENTRY, .arg = 3 },
          "softirq_entry vec=3 [action=NET_RX]" },
        { { .kind = XT_DOM0_SOFTIRQ_EXIT, .arg = 42 },
          "softirq_exit vec=42 [action=?]" },
        { { .kind = XT_DOM0_LOST, .nr = 2, .v = { 5, 1 } },
          "lost 4294967301 events" },
        { { .kind = XT_DOM0_LOST, .nr = 2 },
          "lost events (ftrace did not count them)" },
    };
    unsigned int i;

    (void)state;

    for ( i = 0; i < sizeof(cases) / sizeof(cases[0]); i++ )
    {
        struct xt_dom0_event back;

        round_trip(&cases[i].e, &back);
        assert_int_equal(back.kind, cases[i].e.kind);
        assert_int_equal(back.arg, cases[i].e.arg);
        assert_int_equal(back.nr, cases[i].e.nr);
        assert_memory_equal(back.v, cases[i].e.v, back.nr * 4);
        assert_string_equal(back.text, cases[i].e.text);
        assert_string_equal(text_of(&back, NULL), cases[i].text);
    }
}

/* A name longer than the record's room is cut there; text is printable. */
static void test_text_cut_and_printable(void **state)
{
    struct xt_dom0_event e = { .kind = XT_DOM0_IRQ_ENTRY, .nr = 1,
                               .v = { 30 } }, back;
    uint32_t w[XT_DOM0_EVENT_WORDS];
    size_t n;

    (void)state;

    memcpy(e.text, "xen-pirq-msi-x-a-very", 20);
    round_trip(&e, &back);
    assert_string_equal(back.text, "xen-pirq-msi-x-a-ver");
    /* a hostile record: control characters shown as '?' */
    n = xt_dom0_event_put(&e, 1, w);
    w[5] = 0x0a0d1b41;
    assert_int_equal(xt_dom0_event_get(w + 3, n - 3, &back), 0);
    assert_null(strpbrk(back.text, "\n\r\x1b"));
}

/* Generic events: as many values as they have, named by their type. */
static void test_generic(void **state)
{
    struct xt_dom0_event e = { .kind = XT_DOM0_EVENT, .arg = 0, .nr = 3,
                               .v = { 1, 2, 3 } }, back;

    (void)state;

    round_trip(&e, &back);
    assert_int_equal(back.nr, 3);
    assert_string_equal(text_of(&back, &types[0]),
                        "timer:hrtimer_start hrtimer=1 function=2 expires=3");
    assert_string_equal(text_of(&back, NULL), "event type=0 ?=1 ?=2 ?=3");
    e.nr = 0;
    round_trip(&e, &back);
    assert_int_equal(back.nr, 0);
}

static void test_refused(void **state)
{
    struct xt_dom0_event e;
    const uint32_t unknown[] = { 0x63u << 24 }, none[] = { 0 };
    const uint32_t short_switch[] = { XT_DOM0_SWITCH << 24, 1, 2 };
    const uint32_t short_lost[] = { XT_DOM0_LOST << 24, 1 };

    (void)state;

    assert_int_equal(xt_dom0_event_get(unknown, 1, &e), -1);
    assert_int_equal(xt_dom0_event_get(none, 1, &e), -1);
    assert_int_equal(xt_dom0_event_get(none, 0, &e), -1);
    assert_int_equal(xt_dom0_event_get(short_switch, 3, &e), -1);
    assert_int_equal(xt_dom0_event_get(short_lost, 2, &e), -1);
}

/* Lay @len bytes at @words out as a batch of @cpu and write it. */
static void put_batch(struct xt_writer *w, unsigned int cpu,
                      const uint32_t *words, size_t len)
{
    uint8_t *buf = NULL;

    assert_int_equal(posix_memalign((void **)&buf, XT_PAGE,
                                    xt_batch_size(len)), 0);
    memcpy(buf + XT_BATCH_HEAD, words, len);
    assert_int_equal(xt_writer_put(w, cpu, buf, len), 0);
    free(buf);
}

static void put_refused(struct xt_writer *w, unsigned int cpu)
{
    uint8_t *buf = NULL;

    assert_int_equal(posix_memalign((void **)&buf, XT_PAGE,
                                    xt_batch_size(0)), 0);
    errno = 0;
    assert_int_equal(xt_writer_put(w, cpu, buf, 0), -1);
    assert_int_equal(errno, EINVAL);
    free(buf);
}

static size_t xen_record(uint32_t *p, uint64_t tsc)
{
    p[0] = TRC_SCHED_CONTINUE_RUNNING | 1 << TRACE_EXTRA_SHIFT |
           TRC_HD_CYCLE_FLAG;
    p[1] = (uint32_t)tsc;
    p[2] = tsc >> 32;
    p[3] = 0;
    return 4;
}

/*
 * A file of two pCPUs and two lanes: lane 0 with a switch, a loss of 7 and
 * an event; lane 1 with a waking; three pairs 1000 ns apart, 1500 and 1560
 * TSC ticks: least squares fit them 1.53 ticks a ns, the middle one 20
 * ticks (13.07 ns) off that line and the others 10.
 */
static char *write_file(void)
{
    static char path[] = "/tmp/test_dom0.XXXXXX";
    const struct xt_dom0_meta dom0 = {
        .first_lane = NR_CPUS, .lanes = 2, .clock = XT_DOM0_CLOCK_TSC,
        .pair_tsc = TSC0, .pair_ns = 5000, .nr_types = 2, .types = types,
    };
    const struct xt_writer_opts opts = { .dom0 = &dom0 };
    const struct xt_dom0_event sw = { .kind = XT_DOM0_SWITCH, .nr = 2,
                                      .v = { 1, 2 }, .text = "kworker" };
    const struct xt_dom0_event lost = { .kind = XT_DOM0_LOST, .nr = 2,
                                        .v = { 7 } };
    const struct xt_dom0_event gen = { .kind = XT_DOM0_EVENT, .nr = 1,
                                       .v = { 9 } };
    const struct xt_dom0_event wake = { .kind = XT_DOM0_WAKING, .nr = 1,
                                        .v = { 5 }, .text = "qemu" };
    uint32_t w[128];
    size_t n = 0;
    struct xt_writer *wr;
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    assert_non_null(wr = xt_writer_open(fd, &meta, &opts));
    n = xen_record(w, TSC0 + 10);
    put_batch(wr, 0, w, 4 * n);
    put_batch(wr, 1, w, 4 * n);
    n = xt_dom0_event_put(&sw, TSC0 + 5, w);
    n += xt_dom0_event_put(&lost, TSC0 + 20, w + n);
    n += xt_dom0_event_put(&gen, TSC0 + 20, w + n);
    n += xt_dom0_pair_put(TSC0 + 1500, 6000, w + n);
    n += xt_dom0_pair_put(TSC0 + 3060, 7000, w + n);
    put_batch(wr, NR_CPUS, w, 4 * n);
    n = xt_dom0_event_put(&wake, TSC0 + 15, w);
    put_batch(wr, NR_CPUS + 1, w, 4 * n);
    /* a lane the metadata does not have is refused */
    put_refused(wr, NR_CPUS + 2);
    assert_int_equal(xt_writer_close(wr), 0);
    close(fd);
    return path;
}

static void test_file(void **state)
{
    char *path = write_file();
    struct xt_reader *r = xt_reader_open(path, 0);
    const struct xt_reader_info *in;
    const struct xt_dom0_info *d;
    struct xt_dom0_clock c;
    struct xt_iter *it;
    struct xt_record rec;
    uint64_t last = 0;
    unsigned int i, dom0 = 0;

    (void)state;

    assert_non_null(r);
    in = xt_reader_info(r);
    d = xt_reader_dom0(r);
    assert_int_equal(d->first_lane, NR_CPUS);
    assert_int_equal(d->lanes, 2);
    assert_int_equal(d->clock, XT_DOM0_CLOCK_TSC);
    assert_int_equal(d->pairs, 3);
    assert_int_equal(d->nr_types, 2);
    assert_string_equal(xt_reader_dom0_type(r, 0)->name,
                        "timer:hrtimer_start");
    assert_string_equal(xt_reader_dom0_type(r, 0)->field[2], "expires");
    assert_int_equal(strlen(xt_reader_dom0_type(r, 1)->name),
                     XT_DOM0_NAME_MAX);
    assert_null(xt_reader_dom0_type(r, 2));
    assert_true(xt_reader_is_dom0_lane(r, 2) && xt_reader_is_dom0_lane(r, 3));
    assert_false(xt_reader_is_dom0_lane(r, 1) || xt_reader_is_dom0_lane(r, 4));

    /* counted apart: Xen's 2 records, dom0's 3 events, 7 lost in 1 */
    assert_int_equal(in->records, 2);
    assert_int_equal(in->dom0_events, 3);
    assert_int_equal(in->dom0_lost_markers, 1);
    assert_int_equal(in->dom0_lost, 7);
    for ( i = 0; i < in->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        assert_int_equal(ci->dom0_events, ci->cpu == 2 ? 2 : ci->cpu == 3);
        assert_int_equal(ci->dom0_lost_markers, ci->cpu == 2);
        assert_int_equal(ci->records, ci->cpu < NR_CPUS);
    }

    /* the fit (write_file()) */
    assert_true(xt_reader_dom0_clock(r, &c));
    assert_true(fabs(c.tsc_per_ns - 1.53) < 1e-9);
    assert_true(fabs(c.stray_ns - 20 / 1.53) < 1e-6);

    /* merged by TSC, the lanes with Xen's CPUs */
    assert_non_null(it = xt_iter_new(r, XT_ORDER_TSC, 0, 0));
    while ( xt_iter_next(it, &rec) > 0 )
    {
        if ( !rec.has_tsc )
            continue;
        assert_true(rec.tsc >= last);
        last = rec.tsc;
        dom0 += rec.event == TRC_XT_DOM0_EVENT;
    }
    assert_int_equal(dom0, 4);
    xt_iter_free(it);
    xt_reader_close(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_round_trip),
        cmocka_unit_test(test_text_cut_and_printable),
        cmocka_unit_test(test_generic),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_file),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
