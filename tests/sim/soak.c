/*
 * Accounting soak: xen-sim floods 2 pCPUs flat out into small buffers and
 * our xentrace captures, round after round, until SOAK_RECORDS records
 * (environment; default 10^8) have passed the masks.  Each round's file
 * is checked against xen-sim's own counts, exactly, per CPU: every record
 * that passed is in the file or counted in a TRC_LOST_RECORDS marker
 * there, and written and lost agree with the hypervisor's.  Rounds cycle
 * through buffer sizes of 1, 2 and 8 pages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sim_util.h"

#define DEFAULT_RECORDS  100000000ULL
#define ROUND_SECONDS    "3"

static unsigned long long soak_records(void)
{
    const char *env = getenv("SOAK_RECORDS");
    char *end;
    unsigned long long n;

    if ( !env || !*env )
        return DEFAULT_RECORDS;
    n = strtoull(env, &end, 10);
    if ( *end || !n )
        fail_msg("SOAK_RECORDS=%s: not a positive number", env);
    return n;
}

static void test_soak_accounting(void **state)
{
    static const char *const pages[] = { "1", "2", "8" };
    unsigned long long want = soak_records(), passed = 0, written = 0;
    unsigned long long lost = 0, markers = 0, bytes = 0;
    unsigned int round;

    (void)state;
    for ( round = 0; passed < want; round++ )
    {
        const char *args[] = {
            "-S", pages[round % 3], "-e", "all", "-T", ROUND_SECONDS, NULL,
        };
        struct tf_summary file;
        struct sim_cpu cpus[NR_PCPUS];
        unsigned int cpu;

        sim_capture(XENTRACE, "flood", args, &file, cpus);
        sim_assert_accounted(&file, cpus);
        assert_int_equal(file.unaligned, 0);
        for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        {
            passed += cpus[cpu].passed;
            written += file.cpu[cpu].records;
            lost += file.cpu[cpu].lost;
            markers += file.cpu[cpu].markers;
        }
        bytes += file.bytes;
    }
    print_message("soak: %u rounds, %llu passed = %llu written + %llu lost "
                  "(%llu markers), %llu bytes of trace\n", round, passed,
                  written, lost, markers, bytes);
    printf("JSON {\"rounds\": %u, \"passed\": %llu, \"written\": %llu, "
           "\"lost\": %llu, \"markers\": %llu, \"bytes\": %llu}\n", round,
           passed, written, lost, markers, bytes);
    assert_int_equal(passed, written + lost);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_soak_accounting),
    };

    return cmocka_run_group_tests(tests, sim_setup, sim_teardown);
}
