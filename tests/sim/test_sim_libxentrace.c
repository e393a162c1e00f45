/*
 * libxentrace's capture half against xen-sim: linked with Debian's Xen
 * libraries, it runs itself under xen-sim, which loads the drop-in ones
 * instead.  The library must pass on Xen's answers as Xen's libraries
 * report them, hand out windows of whole records, and survive a hostile
 * cons or prod.
 *
 * The tests run in order, on one simulated host (2 pCPUs, the mixed
 * workload): the first needs it with no buffers yet.  Besides the
 * library's handle, the test maps the buffers itself (peek_*), as any
 * other dom0 process could, to look at and tamper with cons and prod.
 *
 * Waits are bounded so that a broken library fails instead of hanging;
 * no bound is a claim about speed.
 */
#define _GNU_SOURCE
#define XC_WANT_COMPAT_MAP_FOREIGN_API
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>

#include "under_sim.h"

#include <xenctrl.h>
#include <public/trace.h>     /* ours: the same ABI as xen/trace.h */

#include "libxentrace.h"

#define NR_PCPUS        2
#define PAGES           4
#define DATA_SIZE       (PAGES * 4096 - 8)
#define WIDE_BITS       256             /* a CPU map wider than the host */
#define VIRQ_WAIT_MS    10000           /* failure bound, not a target */
#define MS              1000000LL       /* nanoseconds */

static struct xt_host *host;            /* the library under test */
static xc_interface *xch;               /* the test's own view */
static struct t_buf *peek[NR_PCPUS];    /* its own mapping of each buffer */

static int setup(void **state)
{
    (void)state;
    host = xt_open();
    xch = xc_interface_open(NULL, NULL, 0);
    return host && xch ? 0 : -1;
}

static int teardown(void **state)
{
    unsigned int cpu;

    (void)state;
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        if ( peek[cpu] )
            munmap(peek[cpu], PAGES * 4096);
    xt_close(host);
    return xc_interface_close(xch);
}

/*
 * The test's own mappings
 * =======================
 */

static void peek_map(void)
{
    struct xen_sysctl sysctl = {
        .cmd = XEN_SYSCTL_tbuf_op,
        .interface_version = XEN_SYSCTL_INTERFACE_VERSION,
        .u.tbuf_op.cmd = XEN_SYSCTL_TBUFOP_get_info,
    };
    const struct t_info *ti;
    xen_pfn_t mfns[PAGES];
    unsigned int cpu, i;

    assert_int_equal(xc_sysctl(xch, &sysctl), 0);
    ti = xc_map_foreign_range(xch, DOMID_XEN, sysctl.u.tbuf_op.size,
                              PROT_READ, sysctl.u.tbuf_op.buffer_mfn);
    assert_non_null(ti);
    assert_int_equal(ti->tbuf_size, PAGES);
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
    {
        for ( i = 0; i < PAGES; i++ )
            mfns[i] = ((const uint32_t *)ti)[ti->mfn_offset[cpu] + i];
        peek[cpu] = xc_map_foreign_pages(xch, DOMID_XEN,
                                         PROT_READ | PROT_WRITE, mfns, PAGES);
        assert_non_null(peek[cpu]);
    }
    munmap((void *)ti, sysctl.u.tbuf_op.size);
}

static uint32_t peek_cons(unsigned int cpu)
{
    return __atomic_load_n(&peek[cpu]->cons, __ATOMIC_ACQUIRE);
}

static uint32_t peek_prod(unsigned int cpu)
{
    return __atomic_load_n(&peek[cpu]->prod, __ATOMIC_ACQUIRE);
}

static void poke_cons(unsigned int cpu, uint32_t cons)
{
    __atomic_store_n(&peek[cpu]->cons, cons, __ATOMIC_RELEASE);
}

static void poke_prod(unsigned int cpu, uint32_t prod)
{
    __atomic_store_n(&peek[cpu]->prod, prod, __ATOMIC_RELEASE);
}

static uint32_t unconsumed(uint32_t prod, uint32_t cons)
{
    return prod >= cons ? prod - cons : prod + 2 * DATA_SIZE - cons;
}

/*
 * Helpers
 * =======
 */

static long window_len(unsigned int cpu)
{
    struct xt_window w;
    long len = xt_window(host, cpu, &w);

    assert_true(len >= 0);
    return len;
}

/* Stop tracing and restart it: afterwards no CPU is mid-record. */
static void quiesce(void)
{
    assert_int_equal(xt_disable(host), 0);
    assert_int_equal(xt_enable(host), 0);
}

/*
 * Empty every buffer and wait for VIRQ_TBUF: some buffer has filled past
 * half.  A notification sent before the discard may be what wakes us, so
 * retry (a few times: each needs a crossing in the instant between two
 * calls) until a buffer is really that full.  Returns the fullest CPU.
 */
static unsigned int discard_and_wait(void)
{
    unsigned int attempt, cpu, fullest = 0;
    long len, most;

    for ( attempt = 0; attempt < 5; attempt++ )
    {
        for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
            assert_int_equal(xt_discard(host, cpu), 0);
        assert_int_equal(xt_wait_ns(host, VIRQ_WAIT_MS * MS, NULL), 1);

        most = 0;
        for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        {
            len = window_len(cpu);
            if ( len > most )
            {
                most = len;
                fullest = cpu;
            }
        }
        if ( most >= DATA_SIZE / 2 )
            return fullest;
    }
    fail_msg("VIRQ_TBUF came, but no buffer was half full");
    return 0;
}

/*
 * Walk the records of one piece: each header must be a Xen event (some
 * class bit set), and the records must tile the piece exactly, none
 * running past its end.  Returns the number of records.
 */
static unsigned int check_records(const void *piece, uint32_t len)
{
    const unsigned char *p = piece;
    unsigned int records = 0;
    uint32_t off = 0, hdr, size;

    while ( off < len )
    {
        assert_true(len - off >= sizeof(hdr));
        memcpy(&hdr, p + off, sizeof(hdr));
        assert_true(TRC_HD_TO_EVENT(hdr) & 0x0fff0000);
        size = 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 8 : 0) +
               4 * TRC_HD_EXTRA(hdr);
        assert_true(size <= len - off);
        off += size;
        records++;
    }
    assert_int_equal(off, len);

    return records;
}

/*
 * The tests
 * =========
 */

static void test_open_before_buffers(void **state)
{
    struct xt_window w;

    (void)state;
    assert_int_equal(xt_max_cpus(host), NR_PCPUS);

    errno = 0;
    assert_int_equal(xt_map_buffers(host), -1);
    assert_int_equal(errno, ENODATA);
    errno = 0;
    assert_int_equal(xt_enable(host), -1);     /* no buffers: Xen's EINVAL */
    assert_int_equal(errno, EINVAL);

    assert_false(xt_cpu_mapped(host, 0));
    assert_int_equal(xt_data_size(host), 0);
    errno = 0;
    assert_int_equal(xt_window(host, 0, &w), -1);
    assert_int_equal(errno, ENODATA);
    errno = 0;
    assert_int_equal(xt_window(host, NR_PCPUS, &w), -1);
    assert_int_equal(errno, EINVAL);
}

static void test_set_size_is_one_shot(void **state)
{
    (void)state;
    assert_int_equal(xt_set_size(host, PAGES), 0);
    errno = 0;
    assert_int_equal(xt_set_size(host, PAGES), -1);
    assert_int_equal(errno, EBUSY);
    errno = 0;
    assert_int_equal(xt_set_size(host, 2 * PAGES), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(xt_set_size(host, 0), -1);
    assert_int_equal(errno, EINVAL);
}

static void test_evt_mask_round_trip(void **state)
{
    uint32_t saved, mask;

    (void)state;
    assert_int_equal(xt_get_evt_mask(host, &saved), 0);
    assert_int_equal(saved, TRC_ALL);          /* Xen's boot default */

    assert_int_equal(xt_set_evt_mask(host, TRC_SCHED | TRC_HVM), 0);
    assert_int_equal(xt_get_evt_mask(host, &mask), 0);
    assert_int_equal(mask, TRC_SCHED | TRC_HVM);

    assert_int_equal(xt_set_evt_mask(host, saved), 0);
    assert_int_equal(xt_get_evt_mask(host, &mask), 0);
    assert_int_equal(mask, saved);
}

static void test_map_buffers(void **state)
{
    (void)state;
    assert_int_equal(xt_map_buffers(host), 0);
    assert_true(xt_cpu_mapped(host, 0));
    assert_true(xt_cpu_mapped(host, 1));
    assert_false(xt_cpu_mapped(host, NR_PCPUS));
    assert_int_equal(xt_data_size(host), DATA_SIZE);
    assert_int_equal(xt_buf_pages(host), PAGES);

    assert_int_equal(xt_map_buffers(host), 0); /* again: nothing to do */
    assert_int_equal(xt_data_size(host), DATA_SIZE);

    peek_map();
}

/* Bound and emptied, the buffers fill and VIRQ_TBUF says so. */
static void test_virq_when_half_full(void **state)
{
    unsigned int cpu;

    (void)state;
    assert_int_equal(xt_enable(host), 0);
    assert_int_equal(xt_bind_virq(host), 0);
    assert_int_equal(xt_bind_virq(host), 0);   /* already ours */

    cpu = discard_and_wait();
    assert_true(window_len(cpu) >= DATA_SIZE / 2);
}

/*
 * Consume for a while: every window is whole records, and a window that
 * wraps is cut at the end of the data area, where Xen's padding ends a
 * record, and goes on from its start.
 */
static void test_windows_hold_whole_records(void **state)
{
    unsigned int round, cpu, wraps = 0, records = 0;
    struct xt_window w;
    long len;

    (void)state;
    for ( round = 0; round < 1000 && wraps < 4; round++ )
    {
        assert_true(xt_wait_ns(host, 1000 * MS, NULL) >= 0);
        for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        {
            len = xt_window(host, cpu, &w);
            assert_true(len >= 0);
            assert_int_equal(w.cpu, cpu);
            assert_int_equal(w.len[0] + w.len[1], len);
            assert_true(len <= DATA_SIZE);
            records += check_records(w.piece[0], w.len[0]);
            if ( w.len[1] )
            {
                assert_ptr_equal(w.piece[1], (const char *)w.piece[0] +
                                             w.len[0] - DATA_SIZE);
                records += check_records(w.piece[1], w.len[1]);
                wraps++;
            }
            xt_release(host, &w);
        }
    }
    assert_true(wraps >= 4);
    assert_true(records > 0);
    assert_int_equal(xt_resyncs(host, 0), 0);
    assert_int_equal(xt_resyncs(host, 1), 0);
}

/* With tracing stopped, a window is exactly cons..prod; release eats it. */
static void test_release_moves_cons(void **state)
{
    struct xt_window w;
    unsigned int cpu;
    uint32_t prod, cons;

    (void)state;
    assert_int_equal(xt_disable(host), 0);
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
    {
        prod = peek_prod(cpu);
        cons = peek_cons(cpu);
        assert_int_equal(xt_window(host, cpu, &w), unconsumed(prod, cons));
        assert_int_equal(w.prod, prod);

        xt_release(host, &w);
        assert_int_equal(peek_cons(cpu), prod);
        assert_int_equal(window_len(cpu), 0);
    }
    assert_int_equal(xt_enable(host), 0);
}

/*
 * Another dom0 process scribbles on cons and prod (tracing stopped, so
 * that Xen does not repair cons first).  Each bad index is EIO once and a
 * resync; then the CPU is empty and capture goes on.
 */
static void test_hostile_indices(void **state)
{
    struct xt_window w;
    uint32_t prod;

    (void)state;
    assert_int_equal(xt_disable(host), 0);

    /* Each bad cons below would pass every check but its own. */
    prod = peek_prod(0);                        /* misaligned, 2 behind */
    poke_cons(0, (prod + 2 * DATA_SIZE - 2) % (2 * DATA_SIZE));
    errno = 0;
    assert_int_equal(xt_window(host, 0, &w), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(xt_resyncs(host, 0), 1);
    assert_int_equal(peek_cons(0), prod);
    assert_int_equal(window_len(0), 0);

    prod = peek_prod(1);                        /* out of range */
    poke_cons(1, prod + 2 * DATA_SIZE);
    errno = 0;
    assert_int_equal(xt_window(host, 1, &w), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(xt_resyncs(host, 1), 1);
    assert_int_equal(peek_cons(1), prod);
    assert_int_equal(window_len(1), 0);

    prod = peek_prod(0);                        /* ahead of prod */
    poke_cons(0, (prod + 4) % (2 * DATA_SIZE));
    errno = 0;
    assert_int_equal(xt_window(host, 0, &w), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(xt_resyncs(host, 0), 2);
    assert_int_equal(peek_cons(0), prod);

    /* A bad prod is not copied into cons; Xen stores its own again. */
    prod = peek_prod(1);
    poke_prod(1, 2 * DATA_SIZE + 8);
    errno = 0;
    assert_int_equal(xt_window(host, 1, &w), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(xt_resyncs(host, 1), 2);
    assert_int_equal(peek_cons(1), prod);
    /* Nor by -D's discard, which says it could not. */
    errno = 0;
    assert_int_equal(xt_discard(host, 1), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(peek_cons(1), prod);
    poke_prod(1, prod);
    assert_int_equal(window_len(1), 0);
    assert_int_equal(xt_discard(host, 1), 0);

    assert_int_equal(xt_enable(host), 0);
    discard_and_wait();
    assert_int_equal(xt_resyncs(host, 0), 2);
    assert_int_equal(xt_resyncs(host, 1), 2);
}

/*
 * Only the CPUs in the mask trace: with only @traced on, it crosses half
 * full, again and again, while the other's window stays empty.
 */
static void check_only_cpu_traces(unsigned int traced)
{
    unsigned int round;

    quiesce();
    for ( round = 0; round < 3; round++ )
    {
        assert_int_equal(discard_and_wait(), traced);
        assert_int_equal(window_len(!traced), 0);
    }
}

static void test_cpu_mask_full_width(void **state)
{
    uint8_t map[WIDE_BITS / 8] = { 0 };

    (void)state;
    errno = 0;
    assert_int_equal(xt_set_cpu_mask(host, NULL, 8), -1);
    assert_int_equal(errno, EINVAL);

    /* CPU 1, and CPU 255, which this host has not: Xen ignores it. */
    map[0] = 1 << 1;
    map[WIDE_BITS / 8 - 1] = 0x80;
    assert_int_equal(xt_set_cpu_mask(host, map, WIDE_BITS), 0);
    check_only_cpu_traces(1);

    /* Bits past nr_bits are not CPUs, even in the last byte. */
    map[0] = 0xff;
    assert_int_equal(xt_set_cpu_mask(host, map, 1), 0);
    check_only_cpu_traces(0);

    memset(map, 0xff, sizeof(map));
    assert_int_equal(xt_set_cpu_mask(host, map, WIDE_BITS), 0);
}

static void on_alarm(int sig)
{
    (void)sig;
}

/* Xen has one VIRQ_TBUF binder; a handle without it just sleeps. */
static void test_second_consumer(void **state)
{
    struct sigaction sa = { .sa_handler = on_alarm };
    struct itimerval soon = { .it_value.tv_usec = 50000 };
    struct xt_host *other = xt_open();

    (void)state;
    assert_non_null(other);
    errno = 0;
    assert_int_equal(xt_bind_virq(other), -1);
    assert_int_equal(errno, EEXIST);

    assert_int_equal(xt_wait_ns(other, 10 * MS, NULL), 0);

    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
    assert_int_equal(setitimer(ITIMER_REAL, &soon, NULL), 0);
    errno = 0;
    assert_int_equal(xt_wait_ns(other, -1, NULL), -1);
    assert_int_equal(errno, EINTR);
    xt_close(other);

    assert_int_equal(xt_bind_virq(host), 0);   /* still ours */
    discard_and_wait();
}

int main(int argc, char *argv[])
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_before_buffers),
        cmocka_unit_test(test_set_size_is_one_shot),
        cmocka_unit_test(test_evt_mask_round_trip),
        cmocka_unit_test(test_map_buffers),
        cmocka_unit_test(test_virq_when_half_full),
        cmocka_unit_test(test_windows_hold_whole_records),
        cmocka_unit_test(test_release_moves_cons),
        cmocka_unit_test(test_hostile_indices),
        cmocka_unit_test(test_cpu_mask_full_width),
        cmocka_unit_test(test_second_consumer),
    };

    (void)argc;
    run_under_xen_sim(argv[0]);

    return cmocka_run_group_tests(tests, setup, teardown);
}
