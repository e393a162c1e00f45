/*
 * xentrace's option parsers (tools/xentrace/options.c, on the grammar of
 * tools/common/numbers.h): every accepted form of -c, -e, -M/--batch-size,
 * -S, -s, -r and -T arguments with xentrace's limits, and the reason given
 * for each kind of bad value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <public/trace.h>

#include "numbers.h"
#include "options.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)

/*
 * Numbers: -S, -s, -r, -T
 * =======================
 */

static void test_number_accepts_decimal_within_bounds(void **state)
{
    unsigned long long n = 0;

    (void)state;
    assert_null(num_parse("32", 1, MAX_TBUF_PAGES, &n));
    assert_int_equal(n, 32);
    assert_null(num_parse("1", 1, MAX_TBUF_PAGES, &n));
    assert_int_equal(n, 1);
    assert_null(num_parse("65535", 1, MAX_TBUF_PAGES, &n));
    assert_int_equal(n, 65535);
    assert_null(num_parse("0", 0, MAX_RESERVE_MB, &n));     /* -r 0 */
    assert_int_equal(n, 0);
    assert_null(num_parse("007", 1, 10, &n));
    assert_int_equal(n, 7);
    assert_null(num_parse("31536000", 1, MAX_SECONDS, &n)); /* -T */
    assert_int_equal(n, MAX_SECONDS);
}

static void test_number_rejects_out_of_range(void **state)
{
    unsigned long long n = 99;

    (void)state;
    assert_string_equal(num_parse("0", 1, MAX_TBUF_PAGES, &n),
                        "too small");
    assert_string_equal(num_parse("65536", 1, MAX_TBUF_PAGES, &n),
                        "too large");
    assert_string_equal(num_parse("3600001", 1, MAX_POLL_MS, &n),
                        "too large");
    assert_string_equal(num_parse("99999999999999999999999", 1, 10, &n),
                        "too large");
}

static void test_number_rejects_non_numbers(void **state)
{
    static const char *const bad[] = {
        "", "-1", "+1", " 1", "1 ", "1x", "0x10", "1.5", "ten", "1k",
    };
    unsigned long long n;
    size_t i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        const char *why = num_parse(bad[i], 0, 100, &n);

        if ( !why || strcmp(why, "invalid") )
            fail_msg("\"%s\": %s", bad[i], why ? why : "accepted");
    }
}

/*
 * Sizes: -M, --batch-size
 * =======================
 */

static void test_size_suffixes(void **state)
{
    static const struct { const char *arg; unsigned long long bytes; } ok[] = {
        { "65536", 65536 },
        { "64k", 64 * KiB }, { "64K", 64 * KiB },
        { "64KB", 64 * KiB }, { "64KiB", 64 * KiB },
        { "1m", MiB }, { "1M", MiB }, { "400MiB", 400 * MiB },
        { "400MB", 400 * MiB },
        { "2g", 2 * GiB }, { "2G", 2 * GiB }, { "1GiB", GiB },
    };
    size_t i;

    (void)state;
    for ( i = 0; i < sizeof(ok) / sizeof(ok[0]); i++ )
    {
        unsigned long long bytes = 0;
        const char *why = num_parse_size(ok[i].arg, MIN_RING_BYTES,
                                         MAX_RING_BYTES, &bytes);

        if ( why )
            fail_msg("\"%s\": %s", ok[i].arg, why);
        assert_int_equal(bytes, ok[i].bytes);
    }
}

static void test_size_rejects_bad_values(void **state)
{
    static const struct { const char *arg, *why; } bad[] = {
        { "", "invalid" },
        { "M", "invalid" },
        { "-1M", "invalid" },
        { "1.5M", "invalid (a number of bytes, or with k, M or G)" },
        { "1T", "invalid (a number of bytes, or with k, M or G)" },
        { "1Mi", "invalid (a number of bytes, or with k, M or G)" },
        { "1MiBs", "invalid (a number of bytes, or with k, M or G)" },
        { "1 M", "invalid (a number of bytes, or with k, M or G)" },
        { "63k", "too small" },
        { "1025G", "too large" },
        { "17179869184G", "too large" },       /* wraps 64 bits */
        { "99999999999999999999999", "too large" },
    };
    size_t i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        unsigned long long bytes;
        const char *why = num_parse_size(bad[i].arg, MIN_RING_BYTES,
                                     MAX_RING_BYTES, &bytes);

        if ( !why || strcmp(why, bad[i].why) )
            fail_msg("\"%s\": %s, not %s", bad[i].arg,
                     why ? why : "accepted", bad[i].why);
    }
}

static void test_batch_size_bounds(void **state)
{
    unsigned long long bytes;

    (void)state;
    assert_null(num_parse_size("4k", MIN_BATCH_BYTES, MAX_BATCH_BYTES,
                               &bytes));
    assert_int_equal(bytes, 4096);
    assert_null(num_parse_size("256M", MIN_BATCH_BYTES, MAX_BATCH_BYTES,
                               &bytes));
    assert_string_equal(num_parse_size("4095", MIN_BATCH_BYTES,
                                       MAX_BATCH_BYTES, &bytes), "too small");
    assert_string_equal(num_parse_size("257M", MIN_BATCH_BYTES,
                                       MAX_BATCH_BYTES, &bytes), "too large");
}

/*
 * Event masks: -e
 * ===============
 */

static void test_evt_keywords_are_the_classes(void **state)
{
    static const struct evt_class expected[] = {
        { "gen", 0x0001f000 }, { "sched", 0x0002f000 },
        { "dom0op", 0x0004f000 }, { "hvm", 0x0008f000 },
        { "mem", 0x0010f000 }, { "pv", 0x0020f000 },
        { "shadow", 0x0040f000 }, { "hw", 0x0080f000 },
        { "arm", 0x00808000 }, { "guest", 0x0800f000 },
        { "all", 0x0ffff000 },
    };
    size_t i, n = sizeof(expected) / sizeof(expected[0]);

    (void)state;
    for ( i = 0; i < n; i++ )
    {
        uint32_t mask = 0;

        assert_non_null(evt_classes[i].name);
        assert_string_equal(evt_classes[i].name, expected[i].name);
        assert_int_equal(evt_classes[i].mask, expected[i].mask);
        assert_null(parse_evt_mask(expected[i].name, &mask));
        assert_int_equal(mask, expected[i].mask);
    }
    assert_null(evt_classes[n].name);
    assert_int_equal(TRC_ALL, 0x0ffff000);
}

static void test_evt_mask_forms(void **state)
{
    static const struct { const char *arg; uint32_t mask; } ok[] = {
        { "0x0002f000", TRC_SCHED },
        { "0X2F000", TRC_SCHED },
        { "192512", TRC_SCHED },                    /* decimal */
        { "0x00021000", TRC_SCHED_MIN },
        { "sched,hvm", TRC_SCHED | TRC_HVM },
        { "hvm,sched", TRC_SCHED | TRC_HVM },
        { "sched,0x00081000", TRC_SCHED | TRC_HVM_ENTRYEXIT },
        /* Every named class; "all" has the unnamed classes 24-26 too. */
        { "gen,sched,dom0op,hvm,mem,pv,shadow,hw,guest", 0x08fff000 },
        { "0xfffff000", TRC_ALL },      /* the old man page's TRC_ALL */
        { "0x8002f000", TRC_SCHED },    /* bit 31 is the TSC flag */
        { "0x0002f0ff", 0x0002f0ff },   /* minor bits are kept */
    };
    size_t i;

    (void)state;
    for ( i = 0; i < sizeof(ok) / sizeof(ok[0]); i++ )
    {
        uint32_t mask = 0;
        const char *why = parse_evt_mask(ok[i].arg, &mask);

        if ( why )
            fail_msg("\"%s\": %s", ok[i].arg, why);
        if ( mask != ok[i].mask )
            fail_msg("\"%s\": %#x, not %#x", ok[i].arg, mask, ok[i].mask);
    }
}

static void test_evt_mask_rejects_bad_values(void **state)
{
    static const char no_class[] =
        "not a number or a class (see xentrace(8))";
    static const char no_event[] =
        "selects no event (a mask needs a class and a subclass bit)";
    static const struct { const char *arg, *why; } bad[] = {
        { "", "invalid" },
        { "sched,", "invalid" },
        { ",sched", "invalid" },
        { "sched,,hvm", "invalid" },
        { "foo", no_class },
        { "Sched", no_class },
        { "sched hvm", no_class },
        { "schedx", no_class },
        { "0x", no_class },
        { "0x2g000", no_class },
        { "0x0x2f000", no_class },      /* strtoull's own "0x" (fuzzing) */
        { "-1", no_class },
        { "12ab", no_class },
        { "0x100000000", "too large" },
        { "99999999999999999999999", "too large" },
        { "0", no_event },
        { "0x1", no_event },            /* minor bits only */
        { "0x00010000", no_event },     /* a class, no subclass */
        { "0x0000f000", no_event },     /* subclasses, no class */
        { "0x80000000", no_event },     /* the TSC flag alone */
        { "0xf0000000", no_event },
    };
    size_t i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        uint32_t mask = 0xdead;
        const char *why = parse_evt_mask(bad[i].arg, &mask);

        if ( !why || strcmp(why, bad[i].why) )
            fail_msg("\"%s\": %s, not %s", bad[i].arg,
                     why ? why : "accepted", bad[i].why);
        assert_int_equal(mask, 0xdead);         /* untouched */
    }
}

/*
 * CPU masks: -c
 * =============
 */

/* Parse @arg for @max_cpus CPUs; fails unless accepted. */
static void cpus(const char *arg, unsigned int max_cpus, uint8_t *bitmap)
{
    const char *why;

    memset(bitmap, 0xa5, (max_cpus + 7) / 8);
    if ( (why = parse_cpu_mask(arg, max_cpus, bitmap)) )
        fail_msg("-c %s (%u CPUs): %s", arg, max_cpus, why);
}

static void test_cpu_mask_all(void **state)
{
    uint8_t b[2];

    (void)state;
    cpus("all", 8, b);
    assert_int_equal(b[0], 0xff);
    cpus("all", 12, b);
    assert_int_equal(b[0], 0xff);
    assert_int_equal(b[1], 0x0f);       /* no bit beyond the last CPU */
    cpus("all", 1, b);
    assert_int_equal(b[0], 0x01);
}

static void test_cpu_mask_hex(void **state)
{
    char wide[2 + 75 + 1] = "0x";
    uint8_t b[40];

    (void)state;
    cpus("0x5", 8, b);
    assert_int_equal(b[0], 0x05);
    cpus("0XfF", 8, b);
    assert_int_equal(b[0], 0xff);
    cpus("0x0000000000000000000000000001", 8, b);   /* leading zeros */
    assert_int_equal(b[0], 0x01);
    cpus("0x100", 16, b);
    assert_int_equal(b[0], 0x00);
    assert_int_equal(b[1], 0x01);
    cpus("0x80000001", 32, b);
    assert_memory_equal(b, ((uint8_t[]){ 0x01, 0, 0, 0x80 }), 4);

    /*
     * Wider than 32 bits (upstream's limit) and 64: CPUs 0, 64 and 299,
     * i.e. hex digit 0 = 1, digit 16 = 1 and digit 74 = 8.
     */
    memset(wide + 2, '0', 75);
    wide[2 + 74 - 74] = '8';
    wide[2 + 74 - 16] = '1';
    wide[2 + 74 - 0] = '1';
    cpus(wide, 300, b);
    assert_int_equal(b[0], 0x01);
    assert_int_equal(b[8], 0x01);
    assert_int_equal(b[299 / 8], 1 << (299 % 8));
    assert_int_equal(b[1] | b[7] | b[9] | b[36], 0);
}

static void test_cpu_mask_lists(void **state)
{
    static const struct { const char *arg; uint16_t mask; } ok[] = {
        { "0", 0x0001 },
        { "7", 0x0080 },
        { "0-3,7", 0x008f },
        { "0,2,5-7", 0x00e5 },
        { "-3", 0x000f },
        { "3-", 0xfff8 },
        { "0-0", 0x0001 },              /* CPU 0: not "all", as upstream */
        { "2-2", 0x0004 },
        { "15", 0x8000 },
        { "0-15", 0xffff },
        { "-0", 0x0001 },
        { "15-", 0x8000 },
        { "1,1,1-2", 0x0006 },
        { "12-,-1", 0xf003 },
        { "007", 0x0080 },
    };
    size_t i;

    (void)state;
    for ( i = 0; i < sizeof(ok) / sizeof(ok[0]); i++ )
    {
        uint8_t b[2];

        cpus(ok[i].arg, 16, b);
        if ( (b[0] | b[1] << 8) != ok[i].mask )
            fail_msg("-c %s: %#x, not %#x", ok[i].arg, b[0] | b[1] << 8,
                     ok[i].mask);
    }
}

static void test_cpu_mask_rejects_bad_values(void **state)
{
    static const struct { const char *arg, *why; } bad[] = {
        { "", "empty item (CPUs 0 to 7)" },
        { "-", "-: invalid (CPUs 0 to 7)" },
        { ",", "empty item (CPUs 0 to 7)" },
        { "1,", "empty item (CPUs 0 to 7)" },
        { ",1", "empty item (CPUs 0 to 7)" },
        { "1,,2", "empty item (CPUs 0 to 7)" },
        { "a", "a: invalid (CPUs 0 to 7)" },
        { "1a", "1a: invalid (CPUs 0 to 7)" },
        { "1-2-3", "1-2-3: invalid (CPUs 0 to 7)" },
        { "1--2", "1--2: invalid (CPUs 0 to 7)" },
        { " 1", " 1: invalid (CPUs 0 to 7)" },
        { "+1", "+1: invalid (CPUs 0 to 7)" },
        { "1- 2", "1- 2: invalid (CPUs 0 to 7)" },
        { "1-+2", "1-+2: invalid (CPUs 0 to 7)" },
        { "0x", "invalid" },
        { "0xg", "invalid" },
        { "0x1 ", "invalid" },
        { "ALL", "ALL: invalid (CPUs 0 to 7)" },
        { "5-2", "5-2: wrong order (CPUs 0 to 7)" },
        { "0,1-0", "1-0: wrong order (CPUs 0 to 7)" },
        { "8", "8: too large (CPUs 0 to 7)" },
        { "1,0-8", "0-8: too large (CPUs 0 to 7)" },
        { "9-", "9-: too large (CPUs 0 to 7)" },
        { "-99999999999999999999999",
          "-9999999999999999...: too large (CPUs 0 to 7)" },
        { "0x100", "CPU 8: too large (CPUs 0 to 7)" },
        { "0x10000000000000000", "CPU 64: too large (CPUs 0 to 7)" },
        { "0x0", "selects no CPU" },
        { "0x000", "selects no CPU" },
    };
    size_t i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        uint8_t b[1];
        const char *why = parse_cpu_mask(bad[i].arg, 8, b);

        if ( !why || strcmp(why, bad[i].why) )
            fail_msg("-c \"%s\": %s, not %s", bad[i].arg,
                     why ? why : "accepted", bad[i].why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_number_accepts_decimal_within_bounds),
        cmocka_unit_test(test_number_rejects_out_of_range),
        cmocka_unit_test(test_number_rejects_non_numbers),
        cmocka_unit_test(test_size_suffixes),
        cmocka_unit_test(test_size_rejects_bad_values),
        cmocka_unit_test(test_batch_size_bounds),
        cmocka_unit_test(test_evt_keywords_are_the_classes),
        cmocka_unit_test(test_evt_mask_forms),
        cmocka_unit_test(test_evt_mask_rejects_bad_values),
        cmocka_unit_test(test_cpu_mask_all),
        cmocka_unit_test(test_cpu_mask_hex),
        cmocka_unit_test(test_cpu_mask_lists),
        cmocka_unit_test(test_cpu_mask_rejects_bad_values),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
