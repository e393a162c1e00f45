/*
 * A reader of trace files links no Xen library: ldd on each reader shows
 * none of libxenctrl, libxenforeignmemory, libxenevtchn (nor any other
 * libxen*), so the readers run on a machine without Xen's tools.  That
 * ldd sees the C library proves it read the binary.
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

static const char *const readers[] = { READERS };

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;

    assert_non_null(f);
    n = getdelim(&text, &cap, '\0', f);
    fclose(f);
    assert_true(n >= 0);
    return text;
}

static void test_no_reader_links_xen(void **state)
{
    char log[] = "/tmp/test_reader_links.XXXXXX";
    size_t i;
    int fd = mkstemp(log);

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    for ( i = 0; i < sizeof(readers) / sizeof(readers[0]); i++ )
    {
        char *argv[] = { "/usr/bin/ldd", (char *)readers[i], NULL };
        char *text;
        int rc = run_cmd(argv, log);

        text = slurp(log);
        if ( rc || !strstr(text, "libc.so") )
            fail_msg("ldd %s exited %d:\n%s", readers[i], rc, text);
        if ( strstr(text, "libxen") )
            fail_msg("%s links a Xen library:\n%s", readers[i], text);
        print_message("%s: no Xen library\n", readers[i]);
        free(text);
    }
    unlink(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_reader_links_xen),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
