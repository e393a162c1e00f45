/*
 * xentrace-summary --interval on files from gen-trace (bench/gen-trace.c),
 * with tests/readers/check_interval.py:
 *
 * - every interval reports what --from tsc:A --to tsc:B of its bounds
 *   reports, every figure on a loss-free file; on a lossy one every
 *   figure but those a later record re-tells (the runstates, placement,
 *   waits, migrations, exits' share of the running time and the unplaced
 *   counts: docs/reading-traces.md, "Intervals");
 * - the intervals follow each other, and their counts, the cycles of each
 *   and the time in each runstate sum to the whole trace's exactly; on a
 *   lossy file each vCPU's time over all its states does;
 * - --csv has its header and a row per vCPU per interval and for all,
 *   with the JSON's figures;
 * - text: a line per interval with its bounds in seconds from time 0,
 *   then the whole trace's output, which is what it is without
 *   --interval; intervals inside --from/--to start at the window;
 * - bad --interval values, and --json with --csv, fail with status 1 and
 *   one line.
 */
#define _GNU_SOURCE
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

#include "run_cmd.h"

static char dir[] = "/tmp/test_interval.XXXXXX";
static char sh_log[sizeof(dir) + 8];

#define sh(...)     run_sh(sh_log, __VA_ARGS__)

/* check_interval.py @what on @name.bin, in intervals of @seconds. */
static int check(const char *what, const char *name, const char *seconds,
                 const char *lossy)
{
    return sh("python3 %s %s %s %s/%s.bin %s %s", CHECK, what, SUMMARY, dir,
              name, seconds, lossy);
}

static void test_interval_is_its_window(void **state)
{
    (void)state;
    assert_int_equal(check("window", "g4", "0.25", ""), 0);
    assert_int_equal(check("window", "l4", "0.25", "lossy"), 0);
}

/* The check can fail: the lossy file's runstates are not its windows'. */
static void test_lossy_windows_differ(void **state)
{
    (void)state;
    assert_int_equal(check("window", "l4", "0.25", ""), 1);
}

static void test_intervals_sum_to_the_whole(void **state)
{
    (void)state;
    assert_int_equal(check("sum", "g4", "0.25", ""), 0);
    assert_int_equal(check("sum", "g4", "0.1", ""), 0);
    assert_int_equal(check("sum", "l4", "0.25", "lossy"), 0);
    assert_int_equal(check("sum", "g8", "0.3", ""), 0);
}

static void test_csv(void **state)
{
    (void)state;
    assert_int_equal(check("csv", "g4", "0.5", ""), 0);
    assert_int_equal(check("csv", "l4", "0.5", ""), 0);
}

/* @file's text: what the summary of @options on @name.bin printed. */
static char *summarise(const char *name, const char *options)
{
    char path[256];

    assert_int_equal(sh("%s %s %s/%s.bin > %s/out", SUMMARY, options, dir,
                        name, dir), 0);
    snprintf(path, sizeof(path), "%s/out", dir);
    return read_file(path);
}

static void test_text(void **state)
{
    char *whole, *cut, *at;

    (void)state;
    whole = summarise("g4", "");
    cut = summarise("g4", "--interval 0.5");
    /* gen-trace's files start at time 0, the capture's start. */
    assert_true(!strncmp(cut, "interval 0: 0.000000 s to 0.500000 s, ", 38));
    assert_non_null(strstr(cut, "\ninterval 3: 1.500000 s to 2.000000 s, "));
    assert_null(strstr(cut, "\ninterval 6: "));
    /* The whole trace last, as without --interval. */
    at = strstr(cut, "\n\n/tmp/");
    assert_non_null(at);
    assert_string_equal(at + 2, whole);
    free(whole);
    free(cut);

    cut = summarise("g4", "--interval 0.5 --from 0.7 --to 1.6");
    assert_true(!strncmp(cut, "interval 1: 0.700000 s to 1.000000 s, ", 38));
    assert_non_null(strstr(cut, "\ninterval 3: 1.500000 s to 1.600000 s, "));
    assert_null(strstr(cut, "\ninterval 4: "));
    free(cut);
}

static void test_bad_values(void **state)
{
    static const char *const bad[] = {
        "--interval 0", "--interval -1", "--interval x", "--interval ''",
        "--interval 0.5s", "--interval nan", "--interval inf",
        "--interval 1e-12", "--interval", "--interval 1 --json --csv",
    };
    unsigned int i;
    char path[256], *err;

    (void)state;
    snprintf(path, sizeof(path), "%s/err", dir);
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        assert_int_equal(sh("%s %s %s/g4.bin > /dev/null 2> %s", SUMMARY,
                            bad[i], dir, path), 1);
        err = read_file(path);
        assert_non_null(err);
        /* One line. */
        assert_true(strlen(err) > 0);
        assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
        free(err);
    }
}

static int setup(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sh_log, sizeof(sh_log), "%s/log", dir);
    /* Loss-free and lossy, 4 CPUs, about 2.7 s; 8 CPUs, about 1.3 s. */
    if ( sh("%s -s 4M -c 4 -S 3 %s/g4.bin", GEN_TRACE, dir) ||
         sh("%s -s 4M -c 4 -S 3 -l 200 %s/l4.bin", GEN_TRACE, dir) ||
         sh("%s -s 4M -c 8 -S 5 %s/g8.bin", GEN_TRACE, dir) )
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return sh("rm -rf %s", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interval_is_its_window),
        cmocka_unit_test(test_lossy_windows_differ),
        cmocka_unit_test(test_intervals_sum_to_the_whole),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_bad_values),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
