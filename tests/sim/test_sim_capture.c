/*
 * Debian's unmodified xentrace captures from xen-sim, and the trace file
 * accounts for every record the hypervisor let through: per CPU, records
 * in the file plus the counts of its lost-records markers equal what
 * xen-sim's hypervisor counted as passing the masks.
 *
 * Captures here run without xentrace's -D: -D throws away what the
 * buffers hold when xentrace starts, records that passed the masks after
 * set_size turned tracing on, so no file could account for them.
 * test_xenalyze_reads_a_capture uses -D, as people do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <stdint.h>
#include <public/trace.h>

#include "sim_util.h"

#define XENTRACE     "/usr/lib/xen-4.17/bin/xentrace"

static void test_mixed_capture_is_complete(void **state)
{
    static const char *const args[] = { "-e", "all", "-T", "3", NULL };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    sim_capture(XENTRACE, "mixed", args, &file, cpus);
    assert_true(cpus[0].passed > 1000 && cpus[1].passed > 1000);
    sim_assert_accounted(&file, cpus);
}

/* Flat out into 2-page buffers: records are lost, and all counted. */
static void test_flood_loses_and_says_so(void **state)
{
    static const char *const args[] = {
        "-S", "2", "-e", "all", "-T", "2", NULL,
    };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    sim_capture(XENTRACE, "flood", args, &file, cpus);
    assert_true(file.cpu[0].markers > 0 && file.cpu[1].markers > 0);
    sim_assert_accounted(&file, cpus);
}

/* -e and -c set through Debian's xentrace reach the hypervisor. */
static void test_masks_take_effect(void **state)
{
    static const char *const args[] = {
        "-e", "0x0002f000", "-c", "0x1", "-T", "2", NULL,
    };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    sim_capture(XENTRACE, "mixed", args, &file, cpus);
    assert_true(file.cpu[0].records > 0);
    assert_int_equal(file.cpu[0].classes & ~(TRC_SCHED >> 16), 0);
    assert_int_equal(file.cpu[1].records, 0);
    assert_int_equal(cpus[1].passed, 0);
    sim_assert_accounted(&file, cpus);
}

static void test_xenalyze_reads_a_capture(void **state)
{
    static const char *const args[] = { "-D", "-e", "all", "-T", "3", NULL };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];
    char *argv[] = { XENALYZE, "--summary", sim_trace, NULL };
    char *text;

    (void)state;
    sim_capture(XENTRACE, "mixed", args, &file, cpus);
    assert_int_equal(run_cmd(argv, sim_summary), 0);
    text = sim_read_text(sim_summary);

    if ( !strstr(text, "|-- Domain 0 --|") || !strstr(text, "-- v0 --") )
    {
        sim_show_file(sim_summary, 60);
        fail_msg("xenalyze --summary does not show the simulated domains");
    }
    assert_non_null(strstr(text, "|-- Domain 1 --|"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_capture_is_complete),
        cmocka_unit_test(test_flood_loses_and_says_so),
        cmocka_unit_test(test_masks_take_effect),
        cmocka_unit_test(test_xenalyze_reads_a_capture),
    };

    return cmocka_run_group_tests(tests, sim_setup, sim_teardown);
}
