/*
 * xentrace's check of what a CPU's buffer held (tools/xentrace/window.c):
 * Xen's records pass and are counted; a piece with anything else in it,
 * what another dom0 process made of the records, fails and says why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "window.h"
#include "xtfile.h"


/* Records built into a piece of a buffer. */
struct piece {
    uint32_t w[256];
    unsigned int n;                         /* words */
};

static void put(struct piece *p, uint32_t event, uint64_t tsc,
                unsigned int words)
{
    unsigned int i;

    p->w[p->n++] = event | words << TRACE_EXTRA_SHIFT |
                   (tsc ? TRC_HD_CYCLE_FLAG : 0);
    if ( tsc )
    {
        p->w[p->n++] = tsc;
        p->w[p->n++] = tsc >> 32;
    }
    for ( i = 0; i < words; i++ )
        p->w[p->n++] = i + 1;
}

static void put_lost(struct piece *p, uint64_t tsc, uint32_t count)
{
    put(p, TRC_LOST_RECORDS, tsc, 4);
    p->w[p->n - 4] = count;
}

static bool check(struct cpu_check *c, const struct piece *p, bool at_wrap,
                  uint32_t *why)
{
    return check_piece(c, (const uint8_t *)p->w, 4 * p->n, at_wrap, why);
}

/* Records of every shape, a marker, a pad at the wrap: all Xen's. */
static void test_xen_records_pass(void **state)
{
    struct cpu_check c = { 0 };
    struct piece p = { .n = 0 };
    uint32_t why;

    (void)state;
    put(&p, TRC_SCHED_SWITCH, 100, 4);      /* d1v2 to d3v4 */
    put(&p, TRC_SCHED_SWITCH, 0, 7);        /* no TSC */
    put(&p, TRC_SCHED_SWITCH, 100, 7);      /* the same TSC again */
    put_lost(&p, 200, 5);
    put(&p, TRC_GUEST | 0x12, 300, 2);
    put(&p, 0x00808001, 300, 4);            /* our Arm trace points' */
    put(&p, TRC_TRACE_WRAP_BUFFER, 0, 3);
    assert_true(check(&c, &p, true, &why));
    assert_int_equal(c.count.records, 6);   /* the pad is not one */
    assert_int_equal(c.count.lost, 5);
    assert_int_equal(c.count.bytes, 4 * (p.n - 4));  /* nor its bytes */
    assert_int_equal(c.count.last_tsc, 300);
    assert_int_equal(c.count.skipped, 0);
    assert_int_equal(c.floor_tsc, 300);
}

/*
 * A record Xen does not write fails the piece, all of it: the records
 * before may be garbage that looks right.
 */
static void test_bad_record_fails_the_piece(void **state)
{
    static const struct {
        uint32_t bad;           /* a header Xen never writes */
        uint32_t why;
    } cases[] = {
        { 0x00000003, XT_SKIP_EVENT },                  /* no class */
        { 0x00030003, XT_SKIP_EVENT },                  /* two classes */
        { 0x00100003, XT_SKIP_EVENT },                  /* class, no sub */
        { 0x00023003, XT_SKIP_EVENT },                  /* not its sub */
        { 0x01003003, XT_SKIP_EVENT },                  /* not Xen's class */
        { 0x00804003, XT_SKIP_EVENT },                  /* hw, not its sub */
        { 0x0800a003, XT_SKIP_EVENT },                  /* guest, not f */
        { TRC_TRACE_CPU_CHANGE | 2 << TRACE_EXTRA_SHIFT, XT_SKIP_EVENT },
        { TRC_XT_END, XT_SKIP_EVENT },                  /* the file's */
        { TRC_LOST_RECORDS | 1 << TRACE_EXTRA_SHIFT, XT_SKIP_EVENT },
        { TRC_TRACE_WRAP_BUFFER, XT_SKIP_EVENT },       /* not at the wrap */
        { TRC_SCHED_SWITCH | 7u << TRACE_EXTRA_SHIFT, XT_SKIP_TILE },
    };
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(cases) / sizeof(cases[0]); i++ )
    {
        struct cpu_check c = { 0 };
        struct piece p = { .n = 0 };
        uint32_t why;

        put(&p, TRC_SCHED_SWITCH, 100, 1);
        p.w[p.n++] = cases[i].bad;
        put(&p, TRC_SCHED_SWITCH, 200, 1);
        assert_false(check(&c, &p, false, &why));
        assert_int_equal(why, cases[i].why);
        assert_int_equal(c.count.records, 0);
        assert_int_equal(c.count.bytes, 0);
        assert_int_equal(c.count.last_tsc, 0);
        assert_int_equal(c.count.skipped, 4 * p.n);
    }
}

/*
 * TSCs must not run backwards: within a piece, and against the last piece
 * that passed.
 */
static void test_tsc_backwards(void **state)
{
    struct cpu_check c = { 0 };
    struct piece p = { .n = 0 };
    uint32_t why;

    (void)state;
    put(&p, TRC_SCHED_SWITCH, 1000, 0);
    put(&p, TRC_SCHED_SWITCH, 999, 0);
    assert_false(check(&c, &p, false, &why));
    assert_int_equal(why, XT_SKIP_TSC);
    assert_int_equal(c.floor_tsc, 0);       /* a failed piece sets none */

    p.n = 0;
    put(&p, TRC_SCHED_SWITCH, 500, 0);
    assert_true(check(&c, &p, false, &why));
    assert_int_equal(c.floor_tsc, 500);

    p.n = 0;
    put(&p, TRC_SCHED_SWITCH, 0, 1);        /* no TSC: nothing to compare */
    put(&p, TRC_SCHED_SWITCH, 499, 0);
    assert_false(check(&c, &p, false, &why));
    assert_int_equal(why, XT_SKIP_TSC);
    assert_int_equal(c.count.records, 1);
}

/* The vCPU running where records resume, and their first TSC. */
/*
 * A piece of @words words longer than several COPY_STEPs, records of every
 * size straddling the steps; at word @bad (if below @words), a TSC older
 * than the one before.
 */
static uint32_t *long_piece(unsigned int words, unsigned int bad)
{
    uint32_t *w = test_malloc(4 * words);
    unsigned int n = 0, extra = 0;
    uint64_t tsc = 1000;

    while ( n < words )
    {
        unsigned int size = 3 + extra < words - n ? 3 + extra : words - n;

        memset(w + n, 0, 4 * size);
        if ( size < 3 )                     /* the last: no TSC */
            w[n] = TRC_HVM_ENTRYEXIT | 1 | (size - 1) << TRACE_EXTRA_SHIFT;
        else
        {
            w[n] = TRC_HVM_ENTRYEXIT | 1 | TRC_HD_CYCLE_FLAG |
                   (size - 3) << TRACE_EXTRA_SHIFT;
            tsc = n <= bad && bad < n + size ? tsc - 500 : tsc + 7;
            w[n + 1] = tsc;
            w[n + 2] = tsc >> 32;
        }
        n += size;
        extra = (extra + 1) % 8;
    }
    return w;
}

/*
 * The TSC word of long_piece(@words)'s first record that starts at or
 * after its middle: where a piece alone is split, so that a TSC older
 * than the one before is there at the join of its halves.
 */
static unsigned int tsc_after_middle(unsigned int words)
{
    uint32_t *w = long_piece(words, ~0u);
    unsigned int n = 0;

    while ( n < words / 2 )
        n += xt_record_words(w[n]);
    test_free(w);
    return n + 1;
}

/*
 * The check fused with the copy, alone (walked as two halves side by
 * side) and beside another CPU's piece, passes, fails and counts as the
 * check in place does, across its copy steps and the join of its halves,
 * and copies what passes.
 */
static void test_copy_checked_as_in_place(void **state)
{
    unsigned int words = 3 * COPY_STEP / 4 + 1001, i, pair;
    const unsigned int bads[] = { ~0u, 5, COPY_STEP / 4 + 3,
                                  3 * COPY_STEP / 4,
                                  tsc_after_middle(words) };

    (void)state;
    for ( i = 0; i < sizeof(bads) / sizeof(bads[0]); i++ )
        for ( pair = 0; pair < 2; pair++ )
        {
            uint32_t *w = long_piece(words, bads[i]), why;
            uint32_t *other = long_piece(words / 3, ~0u);
            uint8_t *to = test_malloc(4 * words), *to_other =
                test_malloc(4 * words);
            struct cpu_check in_place = { .floor_tsc = 900 }, copied =
                in_place, c_other = { 0 };
            struct piece_copy pc[2] = {
                { .check = &copied, .to = to, .from = (uint8_t *)w,
                  .len = 4 * words },
                { .check = &c_other, .to = to_other,
                  .from = (uint8_t *)other, .len = 4 * (words / 3) },
            };
            bool passed = check_piece(&in_place, (uint8_t *)w, 4 * words,
                                      false, &why);

            assert_int_equal(passed, bads[i] == ~0u);
            copy_pieces_checked(pc, 1 + pair);
            assert_int_equal(pc[0].why, passed ? 0 : why);
            assert_int_equal(copied.count.records, in_place.count.records);
            assert_int_equal(copied.count.bytes, in_place.count.bytes);
            assert_int_equal(copied.count.skipped, in_place.count.skipped);
            assert_int_equal(copied.floor_tsc, in_place.floor_tsc);
            if ( passed )
                assert_memory_equal(to, w, 4 * words);
            if ( pair )
            {
                assert_int_equal(pc[1].why, 0);
                assert_memory_equal(to_other, other, 4 * (words / 3));
            }
            test_free(w);
            test_free(other);
            test_free(to);
            test_free(to_other);
        }
}

/*
 * A piece alone whose split is a wrong guess: inside a record, payload
 * words that look like records; the walk finds out and goes on alone,
 * and the outcome is the check in place's.
 */
static void test_copy_split_wrong_guess(void **state)
{
    unsigned int words, n, i;

    (void)state;
    for ( words = 3 * COPY_STEP / 4; ; words++ )
    {
        uint32_t *w = long_piece(words, ~0u), why;
        uint8_t *to = test_malloc(4 * words);
        struct cpu_check in_place = { .floor_tsc = 900 }, copied = in_place;
        struct piece_copy pc = { .check = &copied, .to = to,
                                 .from = (uint8_t *)w, .len = 4 * words };

        for ( n = 0; n + xt_record_words(w[n]) <= words / 2; )
            n += xt_record_words(w[n]);
        /* The middle in a record's payload, with 4 of its words after. */
        if ( n + 3 > words / 2 || n + xt_record_words(w[n]) < words / 2 + 4 )
        {
            test_free(w);
            test_free(to);
            continue;
        }
        for ( i = 0; i < 4; i++ )
            w[words / 2 + i] = TRC_HVM_ENTRYEXIT | 1;
        assert_true(check_piece(&in_place, (uint8_t *)w, 4 * words, false,
                                &why));
        copy_pieces_checked(&pc, 1);
        assert_int_equal(pc.why, 0);
        assert_int_equal(copied.count.records, in_place.count.records);
        assert_int_equal(copied.floor_tsc, in_place.floor_tsc);
        assert_memory_equal(to, w, 4 * words);
        test_free(w);
        test_free(to);
        break;
    }
}

/* What records say, as a gap's marks need: their first TSC and vCPU. */
static struct piece_says says_of(const struct piece *p, size_t len)
{
    struct piece_says s;

    piece_says((const uint8_t *)p->w, len, 3, &s);
    return s;
}

static void test_running_vcpu(void **state)
{
    struct piece p = { .n = 0 };
    struct piece_says s;

    (void)state;
    put(&p, TRC_HVM_VMENTRY, 0, 0);
    s = says_of(&p, 4 * p.n);
    assert_false(s.named);
    assert_false(s.timed);
    put(&p, TRC_HVM_VMENTRY, 700, 0);
    /* A runstate change to running says nothing; off running, it does. */
    put(&p, TRC_SCHED_RUNSTATE_CHANGE | 2 << 8 | 0 << 4, 800, 1);
    put(&p, TRC_SCHED_RUNSTATE_CHANGE | 0 << 8 | 2 << 4, 900, 1);
    p.w[p.n - 1] = 5 << 16 | 1;
    put(&p, TRC_SCHED_SWITCH, 1000, 4);
    s = says_of(&p, 4 * p.n);
    assert_true(s.named);
    assert_int_equal(s.dom, 5);
    assert_int_equal(s.vcpu, 1);
    assert_true(s.timed);
    assert_int_equal(s.tsc, 700);
}

/* A TSC of 0 is a TSC: records with one have a first TSC, 0. */
static void test_first_tsc_zero(void **state)
{
    struct piece p = { .n = 0 };
    struct piece_says s;

    (void)state;
    put(&p, TRC_HVM_VMENTRY, 0, 0);
    p.w[p.n++] = TRC_HVM_VMEXIT | TRC_HD_CYCLE_FLAG;
    p.w[p.n++] = 0;
    p.w[p.n++] = 0;
    put(&p, TRC_HVM_VMENTRY, 700, 0);
    s = says_of(&p, 4 * p.n);
    assert_true(s.timed);
    assert_int_equal(s.tsc, 0);
    /* Cut inside that record's TSC: none. */
    assert_false(says_of(&p, 4 + 8).timed);
}

/* Only the idle vCPU enters C-states: its id is the CPU's. */
static void test_running_idle(void **state)
{
    struct piece p = { .n = 0 };
    struct piece_says s;

    (void)state;
    put(&p, TRC_HW_IRQ + 1, 100, 1);
    put(&p, TRC_PM_IDLE_EXIT, 200, 2);
    put(&p, TRC_SCHED_SWITCH, 300, 4);
    s = says_of(&p, 4 * p.n);
    assert_true(s.named);
    assert_int_equal(s.dom, XT_DOMID_IDLE);
    assert_int_equal(s.vcpu, 3);
}

/*
 * The copy says what a piece's records say when asked (say), and only
 * if the piece passed.
 */
static void test_copy_says(void **state)
{
    struct piece p = { .n = 0 };
    struct cpu_check c = { .count = { 0 } }, d = c;
    uint8_t to[sizeof(p.w)];
    struct piece_copy pc = { .check = &c, .cpu = 3, .to = to,
                             .from = (const uint8_t *)p.w, .say = true };

    (void)state;
    put(&p, TRC_HVM_VMENTRY, 100, 0);
    put(&p, TRC_SCHED_SWITCH, 200, 4);
    pc.len = 4 * p.n;
    copy_pieces_checked(&pc, 1);
    assert_int_equal(pc.why, 0);
    assert_true(pc.says.timed);
    assert_int_equal(pc.says.tsc, 100);
    assert_true(pc.says.named);
    assert_int_equal(pc.says.vcpu, 2);
    /* Not asked: not said. */
    pc = (struct piece_copy){ .check = &d, .cpu = 3, .to = to,
                              .from = (const uint8_t *)p.w, .len = 4 * p.n };
    copy_pieces_checked(&pc, 1);
    assert_false(pc.says.timed || pc.says.named);
}

/* Where cons was found, against where xentrace left it. */
static void test_cons_moved(void **state)
{
    const uint32_t size = 4096;
    struct cpu_check c = { .next_cons = 1000, .knows_cons = true };
    struct cpu_check unknown = { 0 };
    bool back;

    (void)state;
    assert_int_equal(cons_moved(&c, 1000, 500, size, &back), 0);
    assert_int_equal(cons_moved(&unknown, 40, 500, size, &back), 0);
    /* Back over records taken: skip them in the window. */
    assert_int_equal(cons_moved(&c, 960, 500, size, &back), 40);
    assert_true(back);
    /* Back across the end of the index range (2 * size). */
    c.next_cons = 8;
    assert_int_equal(cons_moved(&c, 2 * size - 8, 500, size, &back), 16);
    assert_true(back);
    /* On: the bytes passed over are gone. */
    c.next_cons = 1000;
    assert_int_equal(cons_moved(&c, 1200, 500, size, &back), 200);
    assert_false(back);
    /* Further than a buffer either way: no telling. */
    assert_int_equal(cons_moved(&c, 1000 + size + 4, 500, size, &back), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xen_records_pass),
        cmocka_unit_test(test_bad_record_fails_the_piece),
        cmocka_unit_test(test_tsc_backwards),
        cmocka_unit_test(test_copy_checked_as_in_place),
        cmocka_unit_test(test_copy_split_wrong_guess),
        cmocka_unit_test(test_running_vcpu),
        cmocka_unit_test(test_first_tsc_zero),
        cmocka_unit_test(test_running_idle),
        cmocka_unit_test(test_copy_says),
        cmocka_unit_test(test_cons_moved),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
