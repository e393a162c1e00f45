/*
 * xen/arch/host and xen-sim, built for arm64 with Debian's cross compiler
 * (make check's arm64-host), though their tests run on x86 here: the
 * program is an arm64 one, and Xen-as-a-process counts time with the
 * generic timer's virtual count and publishes records behind arm64's
 * barriers (xen/arch/host/include/asm/), not with x86's TSC.
 * $XT_ARM64_XEN_SIM names the program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_cmd.h"

#define EM_AARCH64      183             /* elf.h's, for any host */

static const char *xen_sim;

static void test_is_an_arm64_program(void **state)
{
    unsigned char elf[20];
    FILE *f = fopen(xen_sim, "rb");

    (void)state;
    if ( !f )
        fail_msg("%s: not built", xen_sim);
    assert_int_equal(fread(elf, 1, sizeof(elf), f), sizeof(elf));
    fclose(f);
    assert_memory_equal(elf, "\177ELF", 4);
    assert_int_equal(elf[18] | elf[19] << 8, EM_AARCH64);
}

/*
 * Its machine code reads the virtual count, and orders the records before
 * prod with a store barrier (trace.c's smp_wmb()).
 */
static void test_clock_and_barriers_are_arm64s(void **state)
{
    char log[] = "/tmp/test_arm64_host.XXXXXX";
    char *dis;
    int fd = mkstemp(log);

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(run_sh(log, "aarch64-linux-gnu-objdump -d %s", xen_sim),
                     0);
    dis = read_file(log);
    unlink(log);
    assert_non_null(dis);
    assert_non_null(strstr(dis, "cntvct_el0"));
    assert_non_null(strstr(dis, "dmb\tishst"));
    assert_null(strstr(dis, "rdtsc"));
    free(dis);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_an_arm64_program),
        cmocka_unit_test(test_clock_and_barriers_are_arm64s),
    };

    if ( !(xen_sim = getenv("XT_ARM64_XEN_SIM")) )
    {
        fprintf(stderr, "test_arm64_host: XT_ARM64_XEN_SIM names no program\n");
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
