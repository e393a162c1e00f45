/*
 * A dom0 program against xen-sim: linked with Debian's Xen libraries,
 * it runs itself under xen-sim, which loads the drop-in ones instead.
 * The control plane must refuse what Xen refuses, the way Xen's libraries
 * report it, and survive a client that dies holding VIRQ_TBUF.
 *
 * The tests run in order, on one simulated host: the first needs it with
 * no buffers yet.
 */
#define _GNU_SOURCE
#define XC_WANT_COMPAT_MAP_FOREIGN_API
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "under_sim.h"

#include <xenctrl.h>
#include <xenevtchn.h>
#include <xen/trace.h>

#define NR_PCPUS     2

static xc_interface *xch;

static int setup(void **state)
{
    (void)state;
    xch = xc_interface_open(NULL, NULL, 0);
    return xch ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return xc_interface_close(xch);
}

static int tbuf_op(uint32_t cmd)
{
    struct xen_sysctl sysctl = {
        .cmd = XEN_SYSCTL_tbuf_op,
        .interface_version = XEN_SYSCTL_INTERFACE_VERSION,
        .u.tbuf_op.cmd = cmd,
    };

    return xc_sysctl(xch, &sysctl);
}

static void test_physinfo(void **state)
{
    xc_physinfo_t info = { 0 };

    (void)state;
    assert_int_equal(xc_physinfo(xch, &info), 0);
    assert_int_equal(info.nr_cpus, NR_PCPUS);
    assert_int_equal(info.max_cpu_id, NR_PCPUS - 1);
    assert_int_equal(xc_get_max_cpus(xch), NR_PCPUS);
}

static void test_enable_before_allocation(void **state)
{
    (void)state;
    errno = 0;
    assert_int_equal(tbuf_op(XEN_SYSCTL_TBUFOP_enable), -1);
    assert_int_equal(errno, EINVAL);
}

static void test_set_size_is_one_shot(void **state)
{
    unsigned long mfn, size;

    (void)state;
    assert_int_equal(xc_tbuf_set_size(xch, 4), 0);
    errno = 0;
    assert_int_equal(xc_tbuf_set_size(xch, 8), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(xc_tbuf_set_size(xch, 4), -1);
    assert_int_equal(errno, EBUSY);

    /* xentrace's way: set_size's error ignored, then enable, get_info. */
    assert_int_equal(xc_tbuf_enable(xch, 32, &mfn, &size), 0);
    assert_true(mfn != 0);
    assert_int_equal(size, 4096);
}

static void test_frames_map_as_shared(void **state)
{
    unsigned long mfn, size;
    void *t_info;

    (void)state;
    assert_int_equal(xc_tbuf_enable(xch, 4, &mfn, &size), 0);

    t_info = xc_map_foreign_range(xch, DOMID_XEN, size, PROT_READ, mfn);
    assert_non_null(t_info);
    assert_int_equal(*(uint16_t *)t_info, 4);       /* tbuf_size */
    munmap(t_info, size);

    errno = 0;                          /* read-only: Xen says EBUSY */
    assert_null(xc_map_foreign_range(xch, DOMID_XEN, size,
                                     PROT_READ | PROT_WRITE, mfn));
    assert_int_equal(errno, EBUSY);

    errno = 0;                          /* frame 1 was never shared */
    assert_null(xc_map_foreign_range(xch, DOMID_XEN, 4096, PROT_READ, 1));
    assert_int_equal(errno, EPERM);
}

static void test_one_virq_binder(void **state)
{
    xenevtchn_handle *a = xenevtchn_open(NULL, 0);
    xenevtchn_handle *b = xenevtchn_open(NULL, 0);

    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    assert_true(xenevtchn_bind_virq(a, VIRQ_TBUF) >= 0);
    errno = 0;
    assert_int_equal(xenevtchn_bind_virq(b, VIRQ_TBUF), -1);
    assert_int_equal(errno, EEXIST);

    xenevtchn_close(a);
    assert_true(xenevtchn_bind_virq(b, VIRQ_TBUF) >= 0);
    xenevtchn_close(b);
}

/* A dom0 that dies holding VIRQ_TBUF leaves the host serving. */
static void test_client_dies_holding_the_virq(void **state)
{
    xenevtchn_handle *h;
    pid_t pid;
    int status;

    (void)state;
    pid = fork();
    assert_true(pid >= 0);
    if ( pid == 0 )
    {
        xenevtchn_handle *mine = xenevtchn_open(NULL, 0);

        _exit(mine && xenevtchn_bind_virq(mine, VIRQ_TBUF) >= 0 ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    h = xenevtchn_open(NULL, 0);
    assert_non_null(h);
    assert_true(xenevtchn_bind_virq(h, VIRQ_TBUF) >= 0);
    xenevtchn_close(h);
    test_physinfo(state);
}

/* Empty @cpu's buffer as dom0 does (xentrace -D): cons = prod. */
static void discard(unsigned long t_info_mfn, unsigned int cpu)
{
    const struct t_info *ti = xc_map_foreign_range(xch, DOMID_XEN, 4096,
                                                   PROT_READ, t_info_mfn);
    xen_pfn_t mfns[4];
    struct t_buf *buf;
    unsigned int i;

    assert_non_null(ti);
    assert_int_equal(ti->tbuf_size, 4);
    for ( i = 0; i < 4; i++ )
        mfns[i] = ((const uint32_t *)ti)[ti->mfn_offset[cpu] + i];
    buf = xc_map_foreign_pages(xch, DOMID_XEN, PROT_READ | PROT_WRITE, mfns,
                               4);
    assert_non_null(buf);
    __atomic_store_n(&buf->cons, __atomic_load_n(&buf->prod, __ATOMIC_ACQUIRE),
                     __ATOMIC_RELEASE);
    munmap(buf, 4 * 4096);
    munmap((void *)ti, 4096);
}

/*
 * Bound, with the buffers emptied, dom0 hears VIRQ_TBUF once one of them
 * fills past half, as xentrace waits for it.
 */
static void test_virq_arrives(void **state)
{
    xenevtchn_handle *h = xenevtchn_open(NULL, 0);
    struct pollfd pfd;
    unsigned long mfn, size;
    unsigned int cpu;
    int port;

    (void)state;
    assert_non_null(h);
    port = xenevtchn_bind_virq(h, VIRQ_TBUF);
    assert_true(port >= 0);
    assert_int_equal(xc_tbuf_enable(xch, 4, &mfn, &size), 0);
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        discard(mfn, cpu);

    pfd.fd = xenevtchn_fd(h);
    pfd.events = POLLIN;
    assert_int_equal(poll(&pfd, 1, 10000), 1);
    assert_int_equal(xenevtchn_pending(h), port);
    assert_int_equal(xenevtchn_unmask(h, port), 0);
    xenevtchn_close(h);
}

int main(int argc, char *argv[])
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_physinfo),
        cmocka_unit_test(test_enable_before_allocation),
        cmocka_unit_test(test_set_size_is_one_shot),
        cmocka_unit_test(test_frames_map_as_shared),
        cmocka_unit_test(test_one_virq_binder),
        cmocka_unit_test(test_client_dies_holding_the_virq),
        cmocka_unit_test(test_virq_arrives),
    };

    (void)argc;
    run_under_xen_sim(argv[0]);

    return cmocka_run_group_tests(tests, setup, teardown);
}
