/*
 * The relay (relay.h): a file's records read on a thread of their own
 * come to the caller in the same order, with the same fields, as on one
 * thread; each reaches the reading side's hook first; a failure on either
 * side ends the run at once, with nothing taken past it; and the readers
 * that take --threads (the summary, the plot, the dump) print the same
 * bytes with one thread or two.  Under
 * ThreadSanitizer too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "merge.h"
#include "relay.h"
#include "run_cmd.h"

static char dir[] = "/tmp/test_relay.XXXXXX";
static char trace[64], log_path[64];

/* What one side saw: how many records, and a hash of them in order. */
struct side {
    uint64_t count, hash;
    uint64_t fail_at;           /* fail at this record (from 1); 0: never */
};

static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;

    while ( len-- )
        h = (h ^ *b++) * 0x100000001b3ULL;
    return h;
}

static int see(void *arg, const struct xt_record *rec)
{
    struct side *s = arg;

    if ( ++s->count == s->fail_at )
        return -1;
    s->hash = fnv(s->hash, &rec->offset, sizeof(rec->offset));
    s->hash = fnv(s->hash, &rec->tsc, sizeof(rec->tsc));
    s->hash = fnv(s->hash, &rec->event, sizeof(rec->event));
    s->hash = fnv(s->hash, &rec->cpu, sizeof(rec->cpu));
    s->hash = fnv(s->hash, &rec->cpu_index, sizeof(rec->cpu_index));
    s->hash = fnv(s->hash, &rec->has_tsc, sizeof(rec->has_tsc));
    s->hash = fnv(s->hash, rec->extra, sizeof(rec->extra));
    return 0;
}

static int next_merged(void *g, struct xt_record *rec)
{
    return merge_next(g, rec);
}

/* A merge like the model's: the scheduler's records in TSC order. */
static const struct merge_sync sched_sync[] = {
    { 0xffff0000u, 0x00020000u },
    { 0, 0 },
};

/* relay_run() over the trace, with @each and @take; its return. */
static int run(unsigned int threads, struct side *each, struct side *take)
{
    struct xt_reader *r = xt_reader_open(trace, 0);
    struct relay_ops ops = {
        .each = see, .each_arg = each, .take = see, .take_arg = take,
    };
    struct merge *g;
    int ret;

    assert_non_null(r);
    g = merge_new(r, sched_sync);
    assert_non_null(g);
    ret = relay_run(r, next_merged, g, threads, &ops);
    merge_free(g);
    xt_reader_close(r);
    return ret;
}

static int setup(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(trace, sizeof(trace), "%s/trace.bin", dir);
    snprintf(log_path, sizeof(log_path), "%s/log", dir);
    /* Some 400,000 records: the ring goes round several times. */
    return run_sh(log_path, "%s -c 8 -s 10M -l 10 %s", GEN_TRACE, trace);
}

static int teardown(void **state)
{
    (void)state;
    return run_sh("/dev/null", "rm -rf %s", dir);
}

/* Two threads give each side what one gives, in the same order. */
static void test_same_records(void **state)
{
    struct side each1 = { 0 }, take1 = { 0 }, each2 = { 0 }, take2 = { 0 };

    (void)state;
    assert_int_equal(run(1, &each1, &take1), 0);
    assert_int_equal(run(2, &each2, &take2), 0);
    assert_true(take1.count > 4 * RELAY_BATCH * RELAY_BATCHES);
    assert_int_equal(each1.count, take1.count);
    assert_int_equal(each1.hash, take1.hash);
    assert_int_equal(each2.count, take1.count);
    assert_int_equal(each2.hash, take1.hash);
    assert_int_equal(take2.count, take1.count);
    assert_int_equal(take2.hash, take1.hash);
}

/*
 * The taker fails at a record: the run ends, ENOMEM, with the reader
 * stopped wherever it was (not at the end: it waits for room).
 */
static void test_take_fails(void **state)
{
    struct side each = { 0 }, take = { .fail_at = 100000 };

    (void)state;
    errno = 0;
    assert_int_equal(run(2, &each, &take), -1);
    assert_int_equal(errno, ENOMEM);
    assert_int_equal(take.count, 100000);
    assert_true(each.count >= 100000);
    assert_true(each.count <=
                (100000 / RELAY_BATCH + RELAY_BATCHES) * RELAY_BATCH);
}

/* The reading side's hook fails: the taker gets every record before
   that one and none after, as on one thread. */
static void test_each_fails(void **state)
{
    unsigned int threads;

    (void)state;
    for ( threads = 1; threads <= 2; threads++ )
    {
        struct side each = { .fail_at = 70001 }, take = { 0 };

        errno = 0;
        assert_int_equal(run(threads, &each, &take), -1);
        assert_int_equal(errno, ENOMEM);
        assert_int_equal(each.count, 70001);
        assert_int_equal(take.count, 70000);
    }
}

/* The same command with --threads 1 and 2 prints the same bytes. */
static void same_output(const char *cmd)
{
    char one[96], two[96];
    char *a, *b;

    snprintf(one, sizeof(one), "%s/one", dir);
    snprintf(two, sizeof(two), "%s/two", dir);
    assert_int_equal(run_sh(log_path, "%s --threads 1 %s > %s", cmd, trace,
                            one), 0);
    assert_int_equal(run_sh(log_path, "%s --threads 2 %s > %s", cmd, trace,
                            two), 0);
    a = read_file(one);
    b = read_file(two);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(strlen(a) > 1000);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static void test_readers_same_bytes(void **state)
{
    (void)state;
    same_output(SUMMARY);
    same_output(SUMMARY " --json --longest 5");
    same_output(SUMMARY " --from 0.01 --to 0.02 --domain 1");
    same_output(PLOT " --scatter runstate --csv");
    same_output(PLOT " --scatter exits --csv");
    same_output(DUMP);
    same_output(DUMP " -a -s");
    same_output(DUMP " -p --domain 1 --to 0.02");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_records),
        cmocka_unit_test(test_take_fails),
        cmocka_unit_test(test_each_fails),
        cmocka_unit_test(test_readers_same_bytes),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
