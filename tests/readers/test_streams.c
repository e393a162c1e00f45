/*
 * xentrace-summary and xentrace-plot on streams: the same records give
 * the same figures from a file, a pipe, a gzip pipe and a followed file
 * (the whole of the summary's JSON but the input's name, and the plot's
 * SVG), for traces from gen-trace (bench/gen-trace.c) with losses and
 * with many small batches.  On a stream the first SIGTERM (or SIGINT)
 * lets a pipe run to its end and prints what was read; the second ends
 * the program.
 * --from/--to in TSCs cut a stream as they cut the file.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_cmd.h"

static char dir[] = "/tmp/test_streams.XXXXXX";
static char sh_log[sizeof(dir) + 8];

#define sh(...)     run_sh(sh_log, __VA_ARGS__)

/* The inputs: gen-trace's options for each. */
static const struct input {
    const char *name;
    const char *gen;
} inputs[] = {
    { "lossy", "-c 8 -l 300 -s 24M -S 7" },
    { "small-batches", "-c 3 -B 16K -s 6M -S 11" },
};

static int setup(void **state)
{
    unsigned int i;

    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sh_log, sizeof(sh_log), "%s/log", dir);
    for ( i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++ )
        if ( sh("%s %s %s/%s.bin", GEN_TRACE, inputs[i].gen, dir,
                inputs[i].name) )
            return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return run_sh("/dev/null", "rm -rf %s", dir);
}

/* Whether files @a and @b in the test directory hold the same bytes. */
static void assert_same(const char *a, const char *b)
{
    if ( sh("cmp %s/%s %s/%s", dir, a, dir, b) )
        fail_msg("%s and %s differ (%s)", a, b, sh_log);
}

/*
 * The summary's JSON of @in read as @how: "file", "pipe", "gzip" (a gzip
 * pipe), "follow" (a file written in 1 MiB steps while the summary
 * follows it, ended by SIGINT once written); into @in.@how.json, with the
 * input's name left out.
 */
static void summarise(const char *in, const char *how, const char *opts)
{
    const char *unname = "sed 's/^{\"file\":\"[^\"]*\"/{\"file\":\"\"/'";
    int status;

    if ( !strcmp(how, "file") )
        status = sh("%s %s --json %s/%s.bin | %s > %s/%s.%s.json", SUMMARY,
                    opts, dir, in, unname, dir, in, how);
    else if ( !strcmp(how, "pipe") )
        status = sh("cat %s/%s.bin | %s %s --json - | %s > %s/%s.%s.json",
                    dir, in, SUMMARY, opts, unname, dir, in, how);
    else if ( !strcmp(how, "gzip") )
        status = sh("gzip -1c %s/%s.bin | %s %s --json - | %s > "
                    "%s/%s.%s.json", dir, in, SUMMARY, opts, unname, dir,
                    in, how);
    else
        status = sh("d=%s; : > $d/grow.bin && "
                    "(%s %s --json -f $d/grow.bin > $d/follow.out & p=$!; "
                    "n=$(( ($(stat -c %%s $d/%s.bin) + 1048575) / 1048576 ));"
                    " i=0; while [ $i -lt $n ]; do dd if=$d/%s.bin bs=1M "
                    "skip=$i count=1 status=none >> $d/grow.bin; sleep 0.05;"
                    " i=$((i + 1)); done; sleep 0.5; kill -TERM $p; wait $p) "
                    "&& %s < $d/follow.out > $d/%s.%s.json", dir, SUMMARY,
                    opts, in, in, unname, in, how);
    assert_int_equal(status, 0);
}

static void test_summary_same_from_any_input(void **state)
{
    static const char *const hows[] = { "pipe", "gzip", "follow" };
    unsigned int i, h;
    char a[64], b[64];

    (void)state;
    for ( i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++ )
    {
        summarise(inputs[i].name, "file", "");
        for ( h = 0; h < 3; h++ )
        {
            summarise(inputs[i].name, hows[h], "");
            snprintf(a, sizeof(a), "%s.file.json", inputs[i].name);
            snprintf(b, sizeof(b), "%s.%s.json", inputs[i].name, hows[h]);
            assert_same(a, b);
        }
    }
    /* The losses are in it, and so is a rate of more than one bin. */
    assert_int_equal(sh("grep -q '\"lost_records\":[1-9]' "
                        "%s/lossy.file.json", dir), 0);
    assert_int_equal(sh("grep -q '\"events_per_second\":\\[[0-9]*,' "
                        "%s/lossy.file.json", dir), 0);
}

/* Other bins, and a window in TSCs, from a pipe as from the file. */
static void test_summary_options_on_a_pipe(void **state)
{
    static const char *const opts[] = {
        "-b 7", "-b 1", "--from tsc:12000000000 --to tsc:18000000000",
    };
    unsigned int o;

    (void)state;
    for ( o = 0; o < sizeof(opts) / sizeof(opts[0]); o++ )
    {
        summarise("lossy", "file", opts[o]);
        summarise("lossy", "pipe", opts[o]);
        assert_same("lossy.file.json", "lossy.pipe.json");
    }
    /* -b 7 gives from 4 to 7 bins. */
    summarise("lossy", "pipe", "-b 7");
    assert_int_equal(sh("grep -Eq '\"events_per_second\":\\[([0-9]+,){3,6}"
                        "[0-9]+\\]' %s/lossy.pipe.json", dir), 0);
}

static void test_plot_same_from_a_pipe(void **state)
{
    (void)state;
    assert_int_equal(sh("d=%s; %s $d/lossy.bin | sed \"s|$d/lossy.bin|stdin|\""
                        " > $d/file.svg && cat $d/lossy.bin | %s - > "
                        "$d/pipe.svg && gzip -1c $d/lossy.bin | %s - > "
                        "$d/gzip.svg", dir, PLOT, PLOT, PLOT), 0);
    assert_same("file.svg", "pipe.svg");
    assert_same("file.svg", "gzip.svg");
    assert_int_equal(sh("grep -q 'class=\"lost\"' %s/pipe.svg", dir), 0);
}

/*
 * A pipe that stays open after its trace: the first SIGTERM does not end
 * the summary, which prints the whole trace once the pipe closes; a
 * second one ends it.
 */
static void test_signal_on_a_pipe(void **state)
{
    (void)state;
    assert_int_equal(sh("d=%s; ((cat $d/small-batches.bin; sleep 2) | "
                        "%s --json - > $d/held.out & p=$!; sleep 0.5; "
                        "kill -TERM $p; wait $p) && "
                        "sed 's/^{\"file\":\"[^\"]*\"/{\"file\":\"\"/' "
                        "$d/held.out > $d/held.json", dir, SUMMARY), 0);
    summarise("small-batches", "file", "");
    assert_same("small-batches.file.json", "held.json");
    assert_int_equal(sh("d=%s; (cat $d/small-batches.bin; sleep 5) | "
                        "%s - > $d/twice.out & p=$!; sleep 0.5; "
                        "kill -TERM $p; sleep 0.2; kill -TERM $p; wait $p; "
                        "echo $? > $d/twice.status", dir, SUMMARY), 0);
    assert_int_equal(sh("grep -qx 143 %s/twice.status", dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_same_from_any_input),
        cmocka_unit_test(test_summary_options_on_a_pipe),
        cmocka_unit_test(test_plot_same_from_a_pipe),
        cmocka_unit_test(test_signal_on_a_pipe),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
