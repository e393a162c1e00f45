/*
 * hypercall-loop CALLS ROUNDS: what a hypercall from dom0 costs with the
 * trace points it passes set as they are (tests/xen/dom0-tests.sh's
 * "cost" step): CALLS xen_version hypercalls (XENVER_version, hypercall
 * 17 on every architecture), ROUNDS times, each round's nanoseconds per
 * call on a line of its own.  Built against Debian's libxen-dev, as
 * tbuf-state is.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <xenctrl.h>

#define MAX_CALLS   10000000UL
#define MAX_ROUNDS  1000UL

static unsigned long count(const char *arg, unsigned long max)
{
    char *end;
    unsigned long n = strtoul(arg, &end, 10);

    if ( *arg < '0' || *arg > '9' || *end || n == 0 || n > max )
        errx(1, "%s: a number from 1 to %lu", arg, max);
    return n;
}

static double now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char *argv[])
{
    unsigned long calls, rounds, round, call;
    xc_interface *xch;

    if ( argc != 3 )
        errx(1, "usage: hypercall-loop CALLS ROUNDS");
    calls = count(argv[1], MAX_CALLS);
    rounds = count(argv[2], MAX_ROUNDS);
    if ( !(xch = xc_interface_open(NULL, NULL, 0)) )
        err(1, "xc_interface_open");
    for ( round = 0; round < rounds; round++ )
    {
        double start = now_ns();

        for ( call = 0; call < calls; call++ )
            if ( xc_version(xch, XENVER_version, NULL) < 0 )
                err(1, "xen_version");
        printf("%.1f\n", (now_ns() - start) / calls);
    }
    xc_interface_close(xch);
    return 0;
}
