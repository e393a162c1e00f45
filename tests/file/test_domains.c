/*
 * libxtfile's domain records (xtfile.h, "Domains"): what the writer puts
 * in the first batch and what xt_domain_put() puts in a stream come back
 * from the reader, from a file and from a pipe; names are cut and made
 * printable; records that are not a whole telling name nothing.  The
 * masks' records ("Masks") come back as periods, their CPUs as text.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "xtread.h"

#define NR_DOMAINS 40           /* more than one page of first batch */
#define TSC0       1000000ull

static const struct xt_metadata meta = {
    .tsc_hz = 1000000000, .nr_cpus = 1, .start_tsc = TSC0,
    .start_sec = 1700000000, .xen_version = 4 << 16 | 20,
};

static void domain_at(unsigned int i, struct xt_domain *d)
{
    *d = (struct xt_domain){ .domid = i * 3 };
    snprintf(d->name, sizeof(d->name), "guest-%u", i);
    d->uuid[0] = 0x5b;
    d->uuid[15] = i;
}

/* @len bytes of records in a page-aligned batch for CPU 0, then @w's. */
static void put_batch(struct xt_writer *w, const uint32_t *words, size_t len)
{
    uint8_t *buf = NULL;

    assert_int_equal(posix_memalign((void **)&buf, XT_PAGE,
                                    xt_batch_size(len)), 0);
    memcpy(buf + XT_BATCH_HEAD, words, len);
    assert_int_equal(xt_writer_put(w, 0, buf, len), 0);
    free(buf);
}

/* A record with a TSC: header, TSC, @n words. */
static size_t record(uint32_t *p, uint32_t event, uint64_t tsc,
                     const uint32_t *words, unsigned int n)
{
    p[0] = event | n << TRACE_EXTRA_SHIFT | TRC_HD_CYCLE_FLAG;
    p[1] = (uint32_t)tsc;
    p[2] = tsc >> 32;
    memcpy(p + 3, words, n * 4);
    return 3 + n;
}

/*
 * A file at @path: NR_DOMAINS domains at the start, a name of the most
 * bytes among them, then a batch of Xen's records around the
 * renaming of domain 3 with a name that needs making printable.
 */
static void write_file(const char *path)
{
    struct xt_domain d[NR_DOMAINS], renamed;
    struct xt_writer_opts wo = { .domains = d, .nr_domains = NR_DOMAINS };
    uint32_t words[256], payload = 7;
    uint64_t tsc = TSC0 + 100;
    size_t n = 0;
    unsigned int i;
    struct xt_writer *w;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    assert_true(fd >= 0);
    for ( i = 0; i < NR_DOMAINS; i++ )
        domain_at(i, &d[i]);
    memset(d[2].name, 'x', XT_DOMAIN_NAME_MAX);    /* d6: the longest */
    assert_non_null(w = xt_writer_open(fd, &meta, &wo));
    n += record(words + n, TRC_SCHED_YIELD, tsc, &payload, 1);
    domain_at(1, &renamed);
    strcpy(renamed.name, "db-\"02\"\n");
    n += xt_domain_put(&renamed, &tsc, words + n);
    n += record(words + n, TRC_SCHED_YIELD, tsc + 10, &payload, 1);
    put_batch(w, words, n * 4);
    assert_int_equal(xt_writer_close(w), 0);
    assert_int_equal(close(fd), 0);
}

static void assert_domains(const struct xt_reader *r)
{
    const struct xt_domain_info *d;
    char uuid[XT_UUID_TEXT];

    assert_int_equal(xt_reader_nr_domains(r), NR_DOMAINS);
    assert_non_null(d = xt_reader_domain(r, 0));
    assert_string_equal(d->domain.name, "guest-0");
    assert_string_equal(xt_uuid_text(d->domain.uuid, uuid),
                        "5b000000-0000-0000-0000-000000000000");
    assert_int_equal(d->renames, 0);
    assert_int_equal(d->named_tsc, 0);
    assert_non_null(d = xt_reader_domain(r, 6));
    assert_int_equal(strlen(d->domain.name), XT_DOMAIN_NAME_MAX);
    assert_non_null(d = xt_reader_domain(r, 3 * (NR_DOMAINS - 1)));
    assert_string_equal(xt_uuid_text(d->domain.uuid, uuid),
                        "5b000000-0000-0000-0000-000000000027");
    assert_null(xt_reader_domain(r, 1));
}

static void assert_renamed(const struct xt_reader *r)
{
    const struct xt_domain_info *d = xt_reader_domain(r, 3);

    assert_non_null(d);
    assert_string_equal(d->domain.name, "db-?02??");
    assert_string_equal(d->first_name, "guest-1");
    assert_int_equal(d->renames, 1);
    assert_int_equal(d->named_tsc, TSC0 + 100);
}

/* A seekable file: every domain, the renaming too, once it is open. */
static void test_file_names_its_domains(void **state)
{
    char path[] = "/tmp/xt-domains.XXXXXX";
    struct xt_reader *r;
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    write_file(path);
    assert_non_null(r = xt_reader_open(path, 0));
    assert_domains(r);
    assert_renamed(r);
    xt_reader_close(r);
    unlink(path);
}

/* A stream: the first batch's domains at open, the renaming once read. */
static void test_stream_names_its_domains(void **state)
{
    char path[] = "/tmp/xt-domains.XXXXXX";
    struct xt_iter *it;
    struct xt_record rec;
    struct xt_reader *r;
    int fd = mkstemp(path), pipe_fd[2];
    pid_t cat;

    (void)state;
    assert_true(fd >= 0);
    close(fd);
    write_file(path);
    assert_int_equal(pipe(pipe_fd), 0);
    if ( !(cat = fork()) )
    {
        dup2(pipe_fd[1], STDOUT_FILENO);
        close(pipe_fd[0]);
        execlp("cat", "cat", path, (char *)NULL);
        _exit(127);
    }
    close(pipe_fd[1]);
    assert_non_null(r = xt_reader_open_fd(pipe_fd[0], 0));
    assert_domains(r);
    assert_non_null(it = xt_iter_new(r, XT_ORDER_TSC, 0, 0));
    while ( xt_iter_next(it, &rec) > 0 )
        ;
    assert_renamed(r);
    xt_iter_free(it);
    xt_reader_close(r);
    close(pipe_fd[0]);
    unlink(path);
}

/*
 * Records that are no whole telling name nothing: a piece with no
 * TRC_XT_DOMAIN before it, a piece at an offset not due or twice, a
 * domain id past 16 bits, a name whose last piece never comes.
 */
static void test_broken_tellings_name_nothing(void **state)
{
    char path[] = "/tmp/xt-domains.XXXXXX";
    uint32_t words[256], head[6] = { 5 }, piece[7] = { 5, 0, 0x41414141 };
    uint32_t big[6] = { 0x10000, 0, 0, 0, 0, 0 };
    uint64_t tsc = TSC0;
    struct xt_reader *r;
    struct xt_writer *w;
    size_t n = 0;
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    assert_non_null(w = xt_writer_open(fd, &meta, NULL));
    n += record(words + n, TRC_XT_DOMAIN_NAME, tsc, piece, 7);
    head[5] = 30;                               /* two pieces */
    n += record(words + n, TRC_XT_DOMAIN, tsc, head, 6);
    piece[1] = 7;                               /* not a piece's offset */
    n += record(words + n, TRC_XT_DOMAIN_NAME, tsc, piece, 7);
    piece[1] = 0;
    n += record(words + n, TRC_XT_DOMAIN_NAME, tsc, piece, 7);
    n += record(words + n, TRC_XT_DOMAIN_NAME, tsc, piece, 7);   /* twice */
    n += record(words + n, TRC_XT_DOMAIN, tsc, big, 6);
    put_batch(w, words, n * 4);
    assert_int_equal(xt_writer_close(w), 0);
    close(fd);
    assert_non_null(r = xt_reader_open(path, 0));
    assert_null(xt_reader_domain(r, 5));
    assert_null(xt_reader_domain(r, 0x10000));
    assert_null(xt_reader_domain_at(r, 0));
    xt_reader_close(r);
    unlink(path);
}

/*
 * The masks of the start, then two changes, the second telling a host of
 * 200 CPUs in two records, a domain filter of five ranges in two and six
 * events switched in two, and the third period's CPUs cut to 64 bytes of
 * text, its filter and switches gone.
 */
static void test_masks_come_back_as_periods(void **state)
{
    static const struct xt_metadata many = {
        .tsc_hz = 1000000000, .nr_cpus = 200, .start_tsc = TSC0,
        .start_sec = 1700000000,
    };
    char path[] = "/tmp/xt-masks.XXXXXX";
    uint8_t cpus[25];
    struct xt_writer_opts wo = { .cpu_mask = cpus, .evt_mask = 0x0002f000 };
    const struct xt_dom_filter doms = {
        .nr = 5, .in_dom0 = true,
        .range = { 0, 3 << 16 | 3, 7 << 16 | 9, 11 << 16 | 12, 13 << 16 | 14 },
    };
    const struct xt_event_switches sw = {
        .nr = 6,
        .sw = { TRC_HVM_VMEXIT64 | XT_EVENT_ON, TRC_SCHED_SWITCH, 0x0008f0f0,
                0x0008f0f1, 0x0008f0f2, 0x0008f0f3 | XT_EVENT_ON },
    };
    const struct xt_masks_more more = { .doms = &doms, .switches = &sw };
    const struct xt_mask_period *p;
    uint32_t words[256];
    uint64_t tsc = TSC0 + 100;
    struct xt_reader *r;
    struct xt_writer *w;
    unsigned int cpu;
    size_t n;
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    memset(cpus, 0xff, sizeof(cpus));
    assert_non_null(w = xt_writer_open(fd, &many, &wo));
    memset(cpus, 0, sizeof(cpus));
    cpus[0] = 0x0f;                                 /* 0-3 */
    cpus[199 / 8] = 1u << 199 % 8;                  /* 199 */
    n = xt_masks_put(0x000af000, cpus, 200, &more, &tsc, words);
    tsc += 50;
    for ( cpu = 0; cpu < 200; cpu += 2 )            /* every other */
        cpus[cpu / 8] |= 1u << cpu % 8;
    n += xt_masks_put(0x000af000, cpus, 200, NULL, &tsc, words + n);
    put_batch(w, words, n * 4);
    assert_int_equal(xt_writer_close(w), 0);
    close(fd);
    assert_non_null(r = xt_reader_open(path, 0));
    assert_int_equal(xt_reader_nr_mask_periods(r), 3);
    assert_non_null(p = xt_reader_mask_period(r, 0));
    assert_int_equal(p->tsc, 0);
    assert_int_equal(p->evt_mask, 0x0002f000);
    assert_string_equal(p->cpus, "all");
    assert_non_null(p = xt_reader_mask_period(r, 1));
    assert_int_equal(p->tsc, TSC0 + 100);
    assert_int_equal(p->evt_mask, 0x000af000);
    assert_string_equal(p->cpus, "0-3,199");
    assert_string_equal(p->domains, "0,3,7-9,11-12,13-14");
    assert_true(p->dom_filter_in_dom0);
    assert_string_equal(p->switches, "+TRC_HVM_VMEXIT64,-TRC_SCHED_SWITCH,"
                        "-0x0008f0f0,-0x0008f0f1,-0x0008f0f2,+0x0008f0f3");
    assert_non_null(p = xt_reader_mask_period(r, 2));
    assert_true(strlen(p->cpus) < sizeof(p->cpus));
    assert_int_equal(strncmp(p->cpus, "0-4,6,8,10,", 11), 0);
    assert_string_equal(p->cpus + strlen(p->cpus) - 4, ",...");
    assert_string_equal(p->domains, "all");
    assert_string_equal(p->switches, "none");
    assert_null(xt_reader_mask_period(r, 3));
    assert_int_equal(xt_reader_masks_dropped(r), 0);
    xt_reader_close(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_names_its_domains),
        cmocka_unit_test(test_stream_names_its_domains),
        cmocka_unit_test(test_broken_tellings_name_nothing),
        cmocka_unit_test(test_masks_come_back_as_periods),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
