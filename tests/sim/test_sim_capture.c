/*
 * The checks any xentrace must pass against xen-sim, run against
 * Debian's unmodified one (OURS 0) and ours (OURS 1), XENTRACE: the trace
 * file accounts for every record the hypervisor let through (per CPU,
 * records in the file plus the counts of its lost-records markers equal
 * what xen-sim's hypervisor counted as passing the masks), under a flood
 * too; -e and -c reach the hypervisor; xenalyze reads the file.  Ours
 * also writes batches at page offsets with little padding, and the
 * metadata: what only ours does is in test_sim_xentrace.c.
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

#define MAX_PAD_SHARE  50        /* padding below 1/50 = 2% of the file */

/* Ours: whole pages, the metadata, every CPU's stream ended. */
static void assert_ours_aligned(const struct tf_summary *file)
{
    if ( OURS )
        sim_assert_ours_whole(file);
}

static void test_mixed_capture_is_complete(void **state)
{
    static const char *const args[] = { "-e", "all", "-T", "3", NULL };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    sim_capture(XENTRACE, "mixed", args, &file, cpus);
    assert_true(cpus[0].passed > 1000 && cpus[1].passed > 1000);
    sim_assert_accounted(&file, cpus);
    assert_ours_aligned(&file);
    print_message("padding: %llu of %llu bytes\n",
                  (unsigned long long)file.pad_bytes,
                  (unsigned long long)file.bytes);
    if ( OURS )
        assert_true(file.pad_bytes * MAX_PAD_SHARE < file.bytes);
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
    assert_ours_aligned(&file);
}

/* -e and -c reach the hypervisor: the scheduler's class, on CPU 1 only. */
static void test_masks_take_effect(void **state)
{
    static const char *const args[] = {
        "-e", "0x0002f000", "-c", "0x2", "-T", "2", NULL,
    };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    sim_capture(XENTRACE, "mixed", args, &file, cpus);
    assert_true(file.cpu[1].records > 0);
    assert_int_equal(file.cpu[1].classes & ~(TRC_SCHED >> 16), 0);
    assert_int_equal(file.cpu[0].records, 0);
    assert_int_equal(cpus[0].passed, 0);
    sim_assert_accounted(&file, cpus);
}

static void test_xenalyze_reads_a_capture(void **state)
{
    static const char *const args[] = { "-D", "-e", "all", "-T", "3", NULL };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    sim_capture(XENTRACE, "mixed", args, &file, cpus);
    sim_assert_xenalyze_reads();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_capture_is_complete),
        cmocka_unit_test(test_flood_loses_and_says_so),
        cmocka_unit_test(test_masks_take_effect),
        cmocka_unit_test(test_xenalyze_reads_a_capture),
    };

    print_message("xentrace under test: %s\n", XENTRACE);
    return cmocka_run_group_tests(tests, sim_setup, sim_teardown);
}
