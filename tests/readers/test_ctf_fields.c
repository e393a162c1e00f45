/*
 * The CTF export's fields are the catalogue's: for every record of a
 * mixed xen-sim capture, babeltrace2 prints the same field names and
 * values as xentrace-dump (tests/readers/check_ctf_fields.py compares).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "run_cmd.h"

#define BABELTRACE  "/usr/bin/babeltrace2"

static char dir[] = "/tmp/test_ctf_fields.XXXXXX";

static char sh_log[sizeof(dir) + 8];

/* A shell command's status; its output goes to dir/sh.log. */
#define sh(...) run_sh(sh_log, __VA_ARGS__)

static int setup(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sh_log, sizeof(sh_log), "%s/sh.log", dir);
    return sh("%s --pcpus 2 --workload mixed -- %s -D -e all -T 1 %s/t.bin",
              XEN_SIM, XENTRACE, dir);
}

static int teardown(void **state)
{
    (void)state;
    return sh("rm -rf %s", dir);
}

static void test_babeltrace_fields_are_dumps(void **state)
{
    (void)state;
    assert_int_equal(sh("%s --ctf %s/ctf %s/t.bin", EXPORT, dir, dir), 0);
    assert_int_equal(sh("%s %s/ctf > %s/bt.txt", BABELTRACE, dir, dir), 0);
    assert_int_equal(sh("%s -r %s/t.bin > %s/dump.txt", XT_DUMP, dir, dir),
                     0);
    assert_int_equal(sh("python3 %s %s/bt.txt %s/dump.txt", CHECK, dir, dir),
                     0);
    /* Typed fields, not words: a dv field, a signed one. */
    assert_int_equal(sh("grep -q 'TRC_SCHED_SWITCH: .* prev_dom = [0-9]*, "
                        "prev_vcpu = ' %s/bt.txt", dir), 0);
    assert_int_equal(sh("grep -q 'TRC_CSCHED2_CREDIT_BURN: .* vcpu = { vcpu "
                        "= [0-9]*, dom = [0-9]* }, credit = -\\?[0-9]*, "
                        "budget = -2147483648' %s/bt.txt", dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_babeltrace_fields_are_dumps),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
