/*
 * xentrace's pacing (tools/xentrace/pace.c), on passes made up in time:
 * the wait aims at the high-water mark, where Xen's notification comes;
 * a pass that found a buffer fuller than it was aimed at, or records
 * lost, aims lower, for a while.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pace.h"

#define DATA     131072u                /* a CPU's buffer: 32 pages */
#define POLL_MS  100u
#define MS       1000000ULL
#define STEP_NS  (5 * MS)               /* half a buffer fills in this */

/*
 * A pacing started, then 100 passes every STEP_NS, each
 * finding half a buffer: steady.  Returns the time of the last.
 */
static uint64_t steady(struct pacing *p)
{
    uint64_t now = 1000 * MS;
    unsigned int passes;

    pace_start(p, DATA, POLL_MS);
    for ( passes = 0; passes < 100; passes++ )
    {
        now += STEP_NS;
        pace_next_wait(p, now, DATA / 2, p->lost);
    }
    return now;
}

/*
 * steady(), and one more pass at the time returned: the wait
 * after it, in *@wait.
 */
static uint64_t settled(struct pacing *p, uint64_t *wait)
{
    uint64_t now = steady(p) + STEP_NS;

    *wait = pace_next_wait(p, now, DATA / 2, 0);
    return now;
}

/* The wait for a full buffer at the rate learnt. */
static uint64_t wait_for(const struct pacing *p, uint32_t fill)
{
    return (unsigned __int128)fill * 1000000000ULL / p->rate;
}

static void test_first_wait_is_poll(void **state)
{
    struct pacing p;

    (void)state;
    pace_start(&p, DATA, POLL_MS);
    assert_int_equal(p.aim, DATA / 2);
    assert_int_equal(pace_next_wait(&p, 1000 * MS, 0, 0),
                     POLL_MS * MS);
}

/*
 * Woken by the notification at the high-water mark, the timer is only
 * for a buffer that fills without one: set for a full buffer.
 */
static void test_steady_aims_at_high_water(void **state)
{
    struct pacing p;
    uint64_t now;

    (void)state;
    now = steady(&p);
    assert_int_equal(p.aim, DATA / 2);
    assert_int_equal(p.margin, 0);
    assert_true(p.rate > 0);
    assert_int_equal(pace_next_wait(&p, now + STEP_NS, DATA / 2, 0),
                     wait_for(&p, DATA));
}

/*
 * A pass that finds records lost found its buffer full, late or not:
 * it aims lower, by the overshoot, to a quarter of the buffer at least.
 */
static void test_loss_aims_lower(void **state)
{
    struct pacing p;
    uint64_t now;

    (void)state;
    now = steady(&p);
    pace_next_wait(&p, now + 4 * STEP_NS, DATA / 2, 1000);
    assert_int_equal(p.aim, DATA / 4);
    assert_int_equal(p.margin, DATA / 2);
}

/*
 * Woken by its timer, a pass that finds a buffer full aims lower, by the
 * overshoot, to a quarter at least, and the timer with it; a second or
 * two without one bring the aim back to the high-water mark.
 */
static void test_overshoot_aims_lower(void **state)
{
    struct pacing p;
    uint64_t now, wait, deadline;

    (void)state;
    now = settled(&p, &wait);
    deadline = now + wait;
    wait = pace_next_wait(&p, deadline, DATA, 0);
    assert_int_equal(p.aim, DATA / 4);
    assert_int_equal(p.margin, DATA / 2);
    assert_int_equal(wait, wait_for(&p, DATA / 4));

    now = deadline;
    while ( p.aim < DATA / 2 && now < deadline + 5000 * MS )
    {
        now += wait;
        wait = pace_next_wait(&p, now, p.aim, 0);
    }
    assert_int_equal(p.aim, DATA / 2);
    assert_true(now - deadline > 500 * MS);
}

/* The wait is -s at most, and a pass at once rather than under 20 us. */
static void test_wait_bounds(void **state)
{
    struct pacing p;
    uint64_t now;
    int i;

    (void)state;
    pace_start(&p, DATA, POLL_MS);
    now = 1000 * MS;
    pace_next_wait(&p, now, 0, 0);
    /* A trickle: the timer would be for seconds. */
    assert_int_equal(pace_next_wait(&p, now + POLL_MS * MS, 64, 0),
                     POLL_MS * MS);
    /* A flood: a full buffer every 10 us. */
    pace_start(&p, DATA, POLL_MS);
    pace_next_wait(&p, now, 0, 0);
    for ( i = 0; i < 1000; i++ )
    {
        now += 10000;
        if ( !pace_next_wait(&p, now, DATA, 0) )
            break;
    }
    assert_int_equal(pace_next_wait(&p, now + 10000, DATA, 0), 0);
}

int main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_wait_is_poll),
        cmocka_unit_test(test_steady_aims_at_high_water),
        cmocka_unit_test(test_loss_aims_lower),
        cmocka_unit_test(test_overshoot_aims_lower),
        cmocka_unit_test(test_wait_bounds),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
