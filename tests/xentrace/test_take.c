/*
 * xentrace's taking (take.c, window.c) of windows that another dom0
 * process may have scribbled on or moved cons in: random sequences of
 * Xen's records (scheduler, idle, lost-records, wrap pads, some TSCs
 * running backwards, some events Xen does not write), cons moved back and
 * on, bad indices, through drain_pass() and the epochs to a stand-in for
 * libxentrace and output.c.  What each CPU's queued chunks hold must be
 * whole records, TSCs never going back, exactly the records and bytes the
 * counts say besides the marks; a gap's lost-records record only after a
 * record with a TSC, and naming, if it names one, the vCPU that the
 * records after it name first.  Each chunk's own count (what the exit
 * table counts once it is written) is what it holds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>

#include "take.h"
#include "xtfile.h"

#define NR_CPUS     3
#define SEQUENCES   400

/* The stand-in for libxentrace: NR_CPUS rings that the test writes. */
struct xt_host {
    uint32_t data_size;
    uint8_t *buf[NR_CPUS];
    uint32_t cons[NR_CPUS], prod[NR_CPUS];
    bool mapped[NR_CPUS], bad_index[NR_CPUS];
    uint64_t tsc[NR_CPUS];
};

static uint64_t seed;

static uint32_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed >> 16;
}

bool xt_cpu_mapped(const struct xt_host *h, unsigned int cpu)
{
    return h->mapped[cpu];
}

unsigned int xt_max_cpus(const struct xt_host *h)
{
    (void)h;
    return NR_CPUS;
}

uint32_t xt_data_size(const struct xt_host *h)
{
    return h->data_size;
}

static uint32_t used(const struct xt_host *h, unsigned int cpu)
{
    uint32_t prod = h->prod[cpu], cons = h->cons[cpu];

    return prod >= cons ? prod - cons : prod + 2 * h->data_size - cons;
}

long xt_window(struct xt_host *h, unsigned int cpu, struct xt_window *w)
{
    uint32_t len = used(h, cpu), cons = h->cons[cpu];
    uint32_t off = cons % h->data_size;

    if ( h->bad_index[cpu] || len > h->data_size )
    {
        h->bad_index[cpu] = false;
        h->cons[cpu] = h->prod[cpu];            /* resynchronised */
        return -1;
    }
    *w = (struct xt_window){ .cpu = cpu, .cons = cons, .prod = h->prod[cpu],
                             .piece = { h->buf[cpu] + off } };
    w->len[0] = len < h->data_size - off ? len : h->data_size - off;
    w->len[1] = len - w->len[0];
    w->piece[1] = w->len[1] ? h->buf[cpu] : NULL;
    return len;
}

void xt_release(struct xt_host *h, const struct xt_window *w)
{
    h->cons[w->cpu] = w->prod;
}

/* The stand-in for output.c: each CPU's queued records, end to end. */
struct output {
    size_t chunk_room;
    uint8_t *queued[NR_CPUS];
    size_t len[NR_CPUS];
};

struct chunk *output_take(struct output *o, unsigned int cpu)
{
    struct chunk *k = test_calloc(1, sizeof(*k));

    k->cpu = cpu;
    k->buf = test_calloc(1, XT_BATCH_HEAD + o->chunk_room);
    return k;
}

static uint32_t word_at(const uint8_t *p, unsigned int i);

/*
 * Xen's records in the @len bytes at @p, a chunk's: not the marks
 * (TRC_XT_SKIPPED, a gap's lost-records record of count 0 after it,
 * TRC_XT_END), nor pads.
 */
static struct chunk_count count_chunk(const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    struct chunk_count n = { 0 };
    bool after_skip = false;
    uint32_t size;

    for ( ; p < end; p += size )
    {
        uint32_t hdr = word_at(p, 0), event = TRC_HD_TO_EVENT(hdr);
        unsigned int payload = 1 + 2 * TRC_HD_INCLUDES_CYCLE_COUNT(hdr);
        bool gap_marker = after_skip && event == TRC_LOST_RECORDS &&
                          !word_at(p, payload);     /* count: not known */

        size = 4 * xt_record_words(hdr);
        after_skip = event == TRC_XT_SKIPPED;
        if ( event == TRC_XT_SKIPPED || event == TRC_XT_END || gap_marker ||
             event == TRC_TRACE_WRAP_BUFFER )
            continue;
        n.records++;
        n.bytes += size;
        if ( event == TRC_LOST_RECORDS )
            n.lost += word_at(p, payload);
    }
    return n;
}

void output_push(struct output *o, struct chunk *k)
{
    struct chunk_count n = count_chunk(chunk_records(k), k->len);

    assert_int_equal(k->count.records, n.records);
    assert_int_equal(k->count.bytes, n.bytes);
    assert_int_equal(k->count.lost, n.lost);
    o->queued[k->cpu] = test_realloc(o->queued[k->cpu],
                                     o->len[k->cpu] + k->len + 1);
    memcpy(o->queued[k->cpu] + o->len[k->cpu], chunk_records(k), k->len);
    o->len[k->cpu] += k->len;
    test_free(k->buf);
    test_free(k);
}

void output_flush(struct output *o)
{
    (void)o;
}

/* Xen's writing of a record of @words at CPU @cpu's prod, padding the wrap. */
static void put_record(struct xt_host *h, unsigned int cpu, const uint32_t *w,
                       uint32_t words)
{
    uint32_t ring = 2 * h->data_size, p = h->prod[cpu];
    uint32_t rest = h->data_size - p % h->data_size;

    if ( 4 * words > rest )
    {
        uint32_t pad[10] = { 0 }, n = rest / 4;

        if ( n <= 8 )
            pad[0] = TRC_TRACE_WRAP_BUFFER | (n - 1) << TRACE_EXTRA_SHIFT;
        else
        {
            pad[0] = TRC_TRACE_WRAP_BUFFER | (n - 3) << TRACE_EXTRA_SHIFT |
                     TRC_HD_CYCLE_FLAG;
            memcpy(&pad[1], &h->tsc[cpu], 8);
        }
        memcpy(h->buf[cpu] + p % h->data_size, pad, rest);
        p = (p + rest) % ring;
    }
    memcpy(h->buf[cpu] + p % h->data_size, w, 4 * words);
    h->prod[cpu] = (p + 4 * words) % ring;
}

/* Up to @n records on CPU @cpu, as Xen writes them, now and then not. */
static void write_records(struct xt_host *h, unsigned int cpu, unsigned int n)
{
    while ( n-- && used(h, cpu) + 80 < h->data_size )
    {
        uint32_t w[10] = { 0 }, event, extra = rnd() % 4, i, words;
        bool timed = rnd() % 4;

        switch ( rnd() % 10 )
        {
        case 0: event = TRC_SCHED_SWITCH; extra = 4; break;
        case 1: event = TRC_SCHED_RUNSTATE_CHANGE | (rnd() % 3) << 8 |
                        (rnd() % 3) << 4; extra = 2; break;
        case 2: event = TRC_PM_IDLE_ENTRY; break;
        case 3: event = TRC_LOST_RECORDS; extra = 4; timed = true; break;
        case 4: event = rnd() % 50 ? TRC_HVM_VMENTRY : 0x0fff0001; break;
        default: event = TRC_HVM_VMENTRY + 1 + rnd() % 3; break;
        }
        w[0] = event | extra << TRACE_EXTRA_SHIFT |
               (timed ? TRC_HD_CYCLE_FLAG : 0);
        if ( timed )
        {
            h->tsc[cpu] += rnd() % 1000;
            if ( rnd() % 200 == 0 )
                h->tsc[cpu] -= 5000;            /* backwards */
            memcpy(&w[1], &h->tsc[cpu], 8);
        }
        words = 1 + 2 * timed + extra;
        for ( i = 1 + 2 * timed; i < words; i++ )
            w[i] = rnd() % 4;
        if ( event == TRC_LOST_RECORDS )
            w[3] = 1 + rnd() % 4;       /* the count: not a gap's 0 */
        put_record(h, cpu, w, words);
    }
}

/* What another dom0 process does to CPU @cpu's buffer, now and then. */
static void meddle(struct xt_host *h, unsigned int cpu)
{
    uint32_t ring = 2 * h->data_size, u = used(h, cpu), at, word;

    switch ( rnd() % 40 )
    {
    case 0:                                     /* a word written over */
        at = (h->cons[cpu] + 4 * (rnd() % (u / 4 + 1))) % h->data_size;
        word = rnd() | rnd() << 16;
        memcpy(h->buf[cpu] + (at & ~3u), &word, 4);
        break;
    case 1:                                     /* cons back a little */
        h->cons[cpu] = (h->cons[cpu] + ring - 4 * (rnd() % 64)) % ring;
        break;
    case 2:                                     /* cons on */
        h->cons[cpu] = (h->cons[cpu] + 4 * (rnd() % (u / 4 + 1))) % ring;
        break;
    case 3:
        h->bad_index[cpu] = true;
        break;
    case 4:                                     /* cons back a lot */
        h->cons[cpu] = (h->cons[cpu] + ring -
                        4 * (rnd() % (h->data_size / 4))) % ring;
        break;
    }
}

static uint32_t word_at(const uint8_t *p, unsigned int i)
{
    uint32_t w;

    memcpy(&w, p + 4 * i, 4);
    return w;
}

/* The vCPU record @p, of header @hdr, says is running on @cpu, if any. */
static bool names_vcpu(const uint8_t *p, uint32_t hdr, unsigned int cpu,
                       uint32_t *word)
{
    uint32_t event = TRC_HD_TO_EVENT(hdr), extra = TRC_HD_EXTRA(hdr);
    unsigned int at = 1 + 2 * TRC_HD_INCLUDES_CYCLE_COUNT(hdr);

    if ( (event & ~0xff0u) == TRC_SCHED_RUNSTATE_CHANGE && extra >= 1 &&
         !(event >> 8 & 0xf) )
        *word = word_at(p, at) >> 16 | (word_at(p, at) & 0xffff) << 16;
    else if ( event == TRC_SCHED_SWITCH && extra >= 2 )
        *word = (word_at(p, at) & 0xffff) | word_at(p, at + 1) << 16;
    else if ( event == TRC_PM_IDLE_ENTRY || event == TRC_PM_IDLE_EXIT )
        *word = XT_DOMID_IDLE | cpu << 16;
    else
        return false;
    return true;
}

/* The vCPU the first record from @p on to name one names; false: none. */
static bool next_named(const uint8_t *p, const uint8_t *end, unsigned int cpu,
                       uint32_t *word)
{
    for ( ; p < end; p += 4 * xt_record_words(word_at(p, 0)) )
        if ( names_vcpu(p, word_at(p, 0), cpu, word) )
            return true;
    return false;
}

/* What CPU @cpu's queued records must be, against its counts @n. */
static void check_queued(const uint8_t *p, size_t len, unsigned int cpu,
                         const struct cpu_count *n)
{
    const uint8_t *end = p + len;
    uint64_t records = 0, bytes = 0, last = 0, tsc;
    bool timed_before = false, after_skip = false;
    uint32_t hdr, event, size, word;

    for ( ; p < end; p += size )
    {
        assert_true(end - p >= 4);
        hdr = word_at(p, 0);
        event = TRC_HD_TO_EVENT(hdr);
        size = 4 * xt_record_words(hdr);
        assert_true(size <= (size_t)(end - p));         /* whole records */
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        {
            memcpy(&tsc, p + 4, 8);
            assert_true(tsc >= last);
            last = tsc;
        }
        if ( event == TRC_XT_SKIPPED || event == TRC_XT_END )
            ;
        else if ( event == TRC_LOST_RECORDS && after_skip &&
                  !word_at(p, 3) )
        {
            /* A gap's: after a record with a TSC; its vCPU, if named. */
            word = word_at(p, 4);
            assert_true(timed_before);
            if ( (word & 0xffff) != XT_DOMID_UNKNOWN )
            {
                uint32_t truth;

                assert_true(next_named(p + size, end, cpu, &truth));
                assert_int_equal(word, truth);
            }
            else
                assert_int_equal(word >> 16, cpu);
        }
        else
        {
            /* A pad is neither a record nor its bytes (xtread.h). */
            records += event != TRC_TRACE_WRAP_BUFFER;
            bytes += event != TRC_TRACE_WRAP_BUFFER ? size : 0;
            timed_before |= TRC_HD_INCLUDES_CYCLE_COUNT(hdr);
        }
        after_skip = event == TRC_XT_SKIPPED;
    }
    assert_int_equal(records, n->records);
    assert_int_equal(bytes, n->bytes);
}

static void take_sequence(void)
{
    struct xt_host h = { .data_size = 1024 + 4 * (rnd() % 1024) };
    struct take c = { 0 };
    struct output o = { 0 };
    uint64_t now = 1;
    unsigned int cpu, pass, passes = 5 + rnd() % 60;
    int err = dup(2), null = open("/dev/null", O_WRONLY);

    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        h.buf[cpu] = test_calloc(1, h.data_size);
        h.mapped[cpu] = rnd() % 5;
        h.cons[cpu] = h.prod[cpu] = 4 * (rnd() % (2 * h.data_size / 4));
        h.tsc[cpu] = rnd() % 3 ? rnd() : 0;
    }
    /* Its lines on stderr, one a CPU that meddling reaches, are not news. */
    assert_true(err >= 0 && null >= 0 && dup2(null, 2) == 2);
    take_start(&c, &h, 256 + 4 * (rnd() % 512), 0, 0);
    c.out = &o;
    o.chunk_room = c.chunk_room;
    for ( pass = 0; pass < passes; pass++ )
    {
        for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        {
            if ( rnd() % 3 )
                write_records(&h, cpu, rnd() % 60);
            meddle(&h, cpu);
        }
        now += rnd() % 3 ? rnd() % 300 : 1200;
        drain_pass(&c, now);
        push_due(&c, now);
    }
    push_epoch(&c, 0, true);
    push_end(&c);
    assert_true(dup2(err, 2) == 2);
    close(err);
    close(null);
    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        check_queued(o.queued[cpu], o.len[cpu], cpu, &c.check[cpu].count);
        test_free(o.queued[cpu]);
        test_free(h.buf[cpu]);
    }
    take_free(&c);
}

static void test_random_windows(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < SEQUENCES; i++ )
    {
        seed = 88172645463325252ull + 2654435761u * (i + 1);
        take_sequence();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_windows),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
