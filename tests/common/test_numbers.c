/*
 * The grammar of numbers, sizes and lists that xentrace, the readers and
 * xen-sim share (tools/common/numbers.h): what each accepts and means, at
 * the edges of 64 bits and of the caller's range, and the reason given for
 * each kind of refusal.  Each caller's own limits are its tests' (for
 * xentrace, test_xentrace_options).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "numbers.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)

/*
 * Numbers
 * =======
 */

static void test_digits_up_to_2_64(void **state)
{
    unsigned long long n;
    bool over;
    const char *s = "18446744073709551615,";

    (void)state;
    assert_ptr_equal(num_digits(s, &n, &over), s + 20);
    assert_false(over);
    assert_true(n == UINT64_MAX);
    s = "18446744073709551616";
    assert_ptr_equal(num_digits(s, &n, &over), s + 20);
    assert_true(over);
    assert_true(n == ULLONG_MAX);
    s = "99999999999999999999999999-";
    assert_ptr_equal(num_digits(s, &n, &over), s + 26);
    assert_true(over);
    s = "x1";
    assert_ptr_equal(num_digits(s, &n, &over), s);
    assert_false(over);
    assert_int_equal(n, 0);
}

/* num_parse() and num_parse_size() alike. */
typedef const char *parser(const char *arg, unsigned long long min,
                           unsigned long long max, unsigned long long *n);

struct accepted {
    const char *arg;
    unsigned long long n;
};

struct refused {
    const char *arg, *why;
};

#define N(table)    (sizeof(table) / sizeof(table[0]))

/* Each of @ok from 0 to UINT64_MAX gives its number. */
static void assert_accepted(parser *parse, const struct accepted *ok,
                            size_t n)
{
    size_t i;

    for ( i = 0; i < n; i++ )
    {
        unsigned long long got = 99;
        const char *why = parse(ok[i].arg, 0, UINT64_MAX, &got);

        if ( why || got != ok[i].n )
            fail_msg("\"%s\": %s, %llu", ok[i].arg, why ? why : "", got);
    }
}

/* Each of @bad from 0 to UINT64_MAX is refused for its reason. */
static void assert_refused(parser *parse, const struct refused *bad, size_t n)
{
    size_t i;

    for ( i = 0; i < n; i++ )
    {
        unsigned long long got = 99;
        const char *why = parse(bad[i].arg, 0, UINT64_MAX, &got);

        if ( !why || strcmp(why, bad[i].why) )
            fail_msg("\"%s\": %s, not %s", bad[i].arg,
                     why ? why : "accepted", bad[i].why);
        assert_int_equal(got, 99);
    }
}

static void test_number_accepts_digits(void **state)
{
    static const struct accepted ok[] = {
        { "0", 0 }, { "7", 7 }, { "007", 7 }, { "65535", 65535 },
        { "18446744073709551615", UINT64_MAX },
        { "000000000000000000000000000001", 1 },
    };

    (void)state;
    assert_accepted(num_parse, ok, N(ok));
}

/* What strtoul(3) takes and the grammar does not. */
static void test_number_refuses_strtoul_spellings(void **state)
{
    static const struct refused bad[] = {
        { "", "invalid" }, { " 1", "invalid" }, { "1 ", "invalid" },
        { "\t1", "invalid" }, { "\n1", "invalid" }, { "+1", "invalid" },
        { "-1", "invalid" }, { "-0", "invalid" }, { "0x10", "invalid" },
        { "1e3", "invalid" }, { "1.0", "invalid" }, { "1,", "invalid" },
        { "1k", "invalid" }, { "\xef\xbc\x91", "invalid" },   /* U+FF11 */
        { "18446744073709551616", "too large" },
    };

    (void)state;
    assert_refused(num_parse, bad, N(bad));
}

static void test_number_range(void **state)
{
    unsigned long long n = 99;

    (void)state;
    assert_null(num_parse("1", 1, 10, &n));
    assert_int_equal(n, 1);
    assert_null(num_parse("10", 1, 10, &n));
    assert_int_equal(n, 10);
    assert_string_equal(num_parse("0", 1, 10, &n), "too small");
    assert_string_equal(num_parse("11", 1, 10, &n), "too large");
    /* Past 64 bits is too large, even with a minimum above the cap. */
    assert_string_equal(num_parse("99999999999999999999", UINT64_MAX,
                                  UINT64_MAX, &n), "too large");
    assert_int_equal(n, 10);
}

/*
 * Sizes
 * =====
 */

/* Powers of 1024: a size is bytes of memory. */
static void test_size_suffixes_are_binary(void **state)
{
    static const struct accepted ok[] = {
        { "0", 0 }, { "1000", 1000 },
        { "1k", KiB }, { "1K", KiB }, { "1kB", KiB }, { "1KiB", KiB },
        { "3m", 3 * MiB }, { "3M", 3 * MiB }, { "3MB", 3 * MiB },
        { "3MiB", 3 * MiB }, { "2g", 2 * GiB }, { "2GiB", 2 * GiB },
        { "17179869183G", 17179869183ULL * GiB },       /* the last G */
        { "16777215k", 16777215 * KiB },
    };

    (void)state;
    assert_accepted(num_parse_size, ok, N(ok));
}

static void test_size_refusals(void **state)
{
    static const struct refused bad[] = {
        { "", "invalid" },
        { "k", "invalid" },
        { " 1k", "invalid" },
        { "+1k", "invalid" },
        { "1 k", "invalid (a number of bytes, or with k, M or G)" },
        { "1kk", "invalid (a number of bytes, or with k, M or G)" },
        { "1T", "invalid (a number of bytes, or with k, M or G)" },
        { "1ib", "invalid (a number of bytes, or with k, M or G)" },
        { "1Kib", "invalid (a number of bytes, or with k, M or G)" },
        { "1.5M", "invalid (a number of bytes, or with k, M or G)" },
        { "17179869184G", "too large" },        /* 2^64 */
        { "18446744073709551616", "too large" },
    };

    (void)state;
    assert_refused(num_parse_size, bad, N(bad));
}

/* The range is the bytes', after the suffix. */
static void test_size_range(void **state)
{
    unsigned long long bytes;

    (void)state;
    assert_null(num_parse_size("4k", 4096, 8192, &bytes));
    assert_null(num_parse_size("8192", 4096, 8192, &bytes));
    assert_string_equal(num_parse_size("4095", 4096, 8192, &bytes),
                        "too small");
    assert_string_equal(num_parse_size("9k", 4096, 8192, &bytes),
                        "too large");
    assert_string_equal(num_parse_size("1M", 4096, 8192, &bytes),
                        "too large");
}

/*
 * Lists
 * =====
 */

/* @arg as a list of 0 to @nr - 1 into 8 bytes, which must be @want. */
static void assert_list(const char *arg, unsigned long long nr,
                        uint64_t want)
{
    uint8_t map[8] = { 0 };
    char why[NUM_WHY_SIZE];
    uint64_t got = 0;
    unsigned int i;

    if ( num_parse_list(arg, nr, "CPUs", map, why, sizeof(why)) )
        fail_msg("\"%s\": %s", arg, why);
    for ( i = 0; i < 8; i++ )
        got |= (uint64_t)map[i] << (8 * i);
    if ( got != want )
        fail_msg("\"%s\": %#llx, not %#llx", arg, (unsigned long long)got,
                 (unsigned long long)want);
}

static void test_list_forms(void **state)
{
    (void)state;
    assert_list("0", 16, 0x1);
    assert_list("15", 16, 0x8000);
    assert_list("0-3,7", 16, 0x8f);
    assert_list("3-", 16, 0xfff8);                  /* to the last */
    assert_list("-3", 16, 0xf);                     /* from 0 */
    assert_list("-0", 16, 0x1);
    assert_list("15-", 16, 0x8000);
    assert_list("2-2", 16, 0x4);
    assert_list("1,1,0-1", 16, 0x3);                /* twice is once */
    assert_list("12-,-1", 16, 0xf003);
    assert_list("007-010", 16, 0x780);
    assert_list("0-", 1, 0x1);                      /* one item */
    assert_list("-0", 1, 0x1);
    assert_list("0-63", 64, UINT64_MAX);
    assert_list("40-", 64, 0xffffff0000000000ULL);
}

/* Bits are OR-ed into the map; none is set at or past @nr. */
static void test_list_adds_within_its_range(void **state)
{
    uint8_t map[3] = { 0x01, 0, 0xa0 };
    char why[NUM_WHY_SIZE];

    (void)state;
    assert_null(num_parse_list("9-", 12, "CPUs", map, why, sizeof(why)));
    assert_int_equal(map[0], 0x01);
    assert_int_equal(map[1], 0x0e);
    assert_int_equal(map[2], 0xa0);
}

static void test_list_refusals(void **state)
{
    static const struct refused bad[] = {
        { "", "empty item (CPUs 0 to 7)" },
        { ",", "empty item (CPUs 0 to 7)" },
        { "1,", "empty item (CPUs 0 to 7)" },
        { "1,,2", "empty item (CPUs 0 to 7)" },
        { "-", "-: invalid (CPUs 0 to 7)" },
        { "--1", "--1: invalid (CPUs 0 to 7)" },
        { "1--2", "1--2: invalid (CPUs 0 to 7)" },
        { "1-2-3", "1-2-3: invalid (CPUs 0 to 7)" },
        { " 1", " 1: invalid (CPUs 0 to 7)" },
        { "1 ", "1 : invalid (CPUs 0 to 7)" },
        { "0,+1", "+1: invalid (CPUs 0 to 7)" },
        { "+1-2", "+1-2: invalid (CPUs 0 to 7)" },
        { "1-+2", "1-+2: invalid (CPUs 0 to 7)" },
        { "1- 2", "1- 2: invalid (CPUs 0 to 7)" },
        { "0x3", "0x3: invalid (CPUs 0 to 7)" },
        { "all", "all: invalid (CPUs 0 to 7)" },
        { "5-2", "5-2: wrong order (CPUs 0 to 7)" },
        { "8", "8: too large (CPUs 0 to 7)" },
        { "0,6-8", "6-8: too large (CPUs 0 to 7)" },
        { "8-", "8-: too large (CPUs 0 to 7)" },
        { "9-3", "9-3: too large (CPUs 0 to 7)" },
        { "-18446744073709551616", "-1844674407370955...: too large (CPUs 0 "
                                   "to 7)" },
        { "1,a\nb", "a?b: invalid (CPUs 0 to 7)" },
        { "\xff", "?: invalid (CPUs 0 to 7)" },
    };
    size_t i;

    (void)state;
    for ( i = 0; i < N(bad); i++ )
    {
        uint8_t map[1] = { 0 };
        char why[NUM_WHY_SIZE];
        const char *got = num_parse_list(bad[i].arg, 8, "CPUs", map, why,
                                         sizeof(why));

        if ( !got || strcmp(got, bad[i].why) )
            fail_msg("\"%s\": %s, not %s", bad[i].arg,
                     got ? got : "accepted", bad[i].why);
    }
}

/* The reason is one line that fits NUM_WHY_SIZE, whatever the input. */
static void test_list_reason_is_short(void **state)
{
    char arg[4096], why[NUM_WHY_SIZE];
    uint8_t map[8192];

    (void)state;
    memset(arg, '9', sizeof(arg) - 1);
    arg[sizeof(arg) - 1] = '\0';
    assert_ptr_equal(num_parse_list(arg, UINT64_MAX / 2, "domains", map, why,
                                    sizeof(why)), why);
    assert_string_equal(why, "99999999999999999...: too large (domains 0 to "
                             "9223372036854775806)");
    assert_ptr_equal(num_parse_list("x", 65536, "domains", map, why,
                                    sizeof(why)), why);
    assert_string_equal(why, "x: invalid (domains 0 to 65535)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digits_up_to_2_64),
        cmocka_unit_test(test_number_accepts_digits),
        cmocka_unit_test(test_number_refuses_strtoul_spellings),
        cmocka_unit_test(test_number_range),
        cmocka_unit_test(test_size_suffixes_are_binary),
        cmocka_unit_test(test_size_refusals),
        cmocka_unit_test(test_size_range),
        cmocka_unit_test(test_list_forms),
        cmocka_unit_test(test_list_adds_within_its_range),
        cmocka_unit_test(test_list_refusals),
        cmocka_unit_test(test_list_reason_is_short),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
