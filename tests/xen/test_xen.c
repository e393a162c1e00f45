/*
 * The host half of `make check-xen`: what tests/xen/dom0-tests.sh left in
 * a real dom0 under Xen 4.17 and 4.20.4, one directory per boot under
 * $XT_RESULTS:
 *
 *   debian-xen    Debian's hypervisor, tbuf_size=32
 *   our-xen       Debian's Xen built with our trace.c, tbuf_size=32
 *                 tevt_mask=0x0002f000
 *   clamp         ours again, tbuf_size=100000
 *   stock-4.20, our-xen-4.20, clamp-4.20
 *                 the same three on Xen 4.20.4 (stock: Xen's own trace.c)
 *   arm64-debian-xen, arm64-our-xen, arm64-our-xen-4.20
 *                 on emulated arm64: Debian's 4.17, and ours in 4.17 and
 *                 4.20.4, as the x86 boots of the same names
 *   arm64-domu    ours in 4.17 on arm64, tbuf_size=32, with a guest
 *
 * Our xentrace's files are well formed, page aligned and hold exactly the
 * per-CPU records and lost counts it reports; Debian's xenalyze reads
 * them, and the files of Debian's xentrace; -e and -c select what is
 * captured and are put back; -T and SIGINT leave tracing off (and -x on,
 * which shows the probe can tell); tbuf_size= and tevt_mask= take effect
 * and an oversized tbuf_size= is clamped with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <stdint.h>
#include <public/trace.h>

#include "boots.h"
#include "run_cmd.h"
#include "tracefile.h"

#define XENALYZE      "/usr/bin/xenalyze"
#define NR_CPUS       2          /* QEMU -smp 2, dom0_max_vcpus=2 */
#define TBUF_PAGES    32         /* tbuf_size= of debian-xen and our-xen */
#define TEVT_MASK     0x0002f000 /* tevt_mask= of our-xen */
#define CLAMP_ASKED   100000     /* tbuf_size= of clamp */
#define PATH_BYTES    512

/* What tbuf-state printed. */
struct tbuf_state {
    unsigned int evt_mask, tinfo_bytes, pages, buffers;
    bool on;
};

/* The per-CPU counts our xentrace prints at exit. */
struct reported {
    unsigned long long records[NR_CPUS], lost[NR_CPUS];
};

static const char *results;

static void path_of(char *path, const char *boot, const char *file)
{
    snprintf(path, PATH_BYTES, "%s/%s/%s", results, boot, file);
}

/* The whole of @boot/@file, NUL-terminated; the test fails without it. */
static char *read_text(const char *boot, const char *file)
{
    char path[PATH_BYTES], *text;

    path_of(path, boot, file);
    if ( !(text = read_file(path)) )
        fail_msg("%s: missing (did the boot finish? see %s/%s/serial.log)",
                 path, results, boot);
    return text;
}

static int read_rc(const char *boot, const char *step)
{
    char file[64], *text;
    int rc;

    snprintf(file, sizeof(file), "%s.rc", step);
    text = read_text(boot, file);
    rc = atoi(text);
    free(text);
    return rc;
}

static struct tbuf_state read_state(const char *boot, const char *step)
{
    struct tbuf_state s;
    char file[64], *text, on[4] = "";

    snprintf(file, sizeof(file), "%s.state", step);
    text = read_text(boot, file);
    if ( sscanf(text, "evt_mask %x tinfo_bytes %u pages %u buffers %u "
                "tracing %3s", &s.evt_mask, &s.tinfo_bytes, &s.pages,
                &s.buffers, on) != 5 )
        fail_msg("%s/%s: not tbuf-state output:\n%s", boot, file, text);
    free(text);
    s.on = !strcmp(on, "on");
    return s;
}

/* The "cpu records bytes lost" lines of our xentrace's standard error. */
static struct reported read_reported(const char *boot, const char *step)
{
    struct reported r = { 0 };
    char file[64], *text, *line;
    unsigned int cpu, found = 0;
    unsigned long long records, bytes, lost;

    snprintf(file, sizeof(file), "%s.err", step);
    text = read_text(boot, file);
    for ( line = strtok(text, "\n"); line; line = strtok(NULL, "\n") )
        if ( sscanf(line, "%u %llu %llu %llu", &cpu, &records, &bytes,
                    &lost) == 4 && cpu < NR_CPUS )
        {
            r.records[cpu] = records;
            r.lost[cpu] = lost;
            found++;
        }
    free(text);
    assert_int_equal(found, NR_CPUS);
    return r;
}

static bool log_has(const char *boot, const char *file, const char *what)
{
    char *text = read_text(boot, file);
    bool found = strstr(text, what);

    free(text);
    return found;
}

/* @step's trace file, which must be well formed. */
static void read_trace(const char *boot, const char *step,
                       struct tf_summary *file)
{
    char path[PATH_BYTES], name[64];

    snprintf(name, sizeof(name), "%s.bin", step);
    path_of(path, boot, name);
    if ( !tf_read(path, file) )
        fail_msg("%s: %s", path, file->error);
}

/*
 * A capture by our xentrace: exit 0, a well-formed file of page-aligned
 * batches after the six metadata records, every CPU's stream ended by
 * TRC_XT_END, and every CPU's records (Xen's, lost-records markers
 * included, as xentrace counts them) and lost count exactly as reported.
 */
static void assert_our_capture(const char *boot, const char *step,
                               struct tf_summary *file)
{
    struct reported said;
    unsigned int cpu;

    assert_int_equal(read_rc(boot, step), 0);
    read_trace(boot, step, file);
    said = read_reported(boot, step);
    assert_int_equal(file->unaligned, 0);
    assert_int_equal(file->bytes % 4096, 0);
    assert_int_equal(file->meta, 6);
    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
    {
        assert_int_equal(file->cpu[cpu].records + file->cpu[cpu].markers,
                         said.records[cpu]);
        assert_int_equal(file->cpu[cpu].ends,
                         file->cpu[cpu].records || file->cpu[cpu].markers);
        assert_int_equal(file->cpu[cpu].after_end, 0);
        assert_int_equal(file->cpu[cpu].lost, said.lost[cpu]);
    }
}

/* xenalyze --summary reads @step's file and finds dom0 on both CPUs. */
static void assert_xenalyze_reads(const char *boot, const char *step)
{
    char trace[PATH_BYTES], summary[PATH_BYTES], name[64], *text;
    char *argv[] = { XENALYZE, "--summary", trace, NULL };

    snprintf(name, sizeof(name), "%s.bin", step);
    path_of(trace, boot, name);
    snprintf(name, sizeof(name), "%s.summary", step);
    path_of(summary, boot, name);
    assert_int_equal(run_cmd(argv, summary), 0);
    text = read_text(boot, name);
    if ( !strstr(text, "|-- Domain 0 --|") || !strstr(text, " - cpu 0 -") ||
         !strstr(text, " - cpu 1 -") )
        fail_msg("%s: xenalyze --summary did not read it:\n%.2000s",
                 trace, text);
    free(text);
}

static void assert_both_cpus_traced(const struct tf_summary *file)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        assert_true(file->cpu[cpu].records > 0);
}

/* Only the classes of @mask (and TRC_GEN's own records) on any CPU. */
static void assert_only_classes(const struct tf_summary *file, uint32_t mask)
{
    uint32_t allowed = (mask | TRC_GEN) >> TRC_CLS_SHIFT;
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        if ( file->cpu[cpu].classes & ~allowed )
            fail_msg("cpu %u has records of classes %#x, mask %#x", cpu,
                     file->cpu[cpu].classes << TRC_CLS_SHIFT, mask);
}

static void assert_tracing_off(const char *boot, const char *step)
{
    if ( read_state(boot, step).on )
        fail_msg("%s: tracing still on after %s", boot, step);
}

/* The load's processes during @step, and the tracer's CPU seconds. */
static void read_cost(const char *boot, const char *step,
                      unsigned long *load, double *cpu_s)
{
    char file[64], *text, *last;
    double elapsed, user, sys;

    snprintf(file, sizeof(file), "%s.load", step);
    text = read_text(boot, file);
    *load = strtoul(text, NULL, 10);
    free(text);
    snprintf(file, sizeof(file), "%s.time", step);
    text = read_text(boot, file);
    last = strrchr(text, '\n');        /* after "Command exited with ..." */
    while ( last && last > text && last[-1] != '\n' )
        last--;
    if ( !last || sscanf(last, "%lf %lf %lf", &elapsed, &user, &sys) != 3 )
        fail_msg("%s/%s: not \"elapsed user system\":\n%s", boot, file,
                 text);
    free(text);
    *cpu_s = user + sys;
}

/* What @step captured on each CPU, for the record. */
static void print_capture(const char *boot, const char *step,
                          const struct tf_summary *file)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        print_message("%s %-6s cpu %u: %8llu records %8llu lost\n", boot,
                      step, cpu, (unsigned long long)file->cpu[cpu].records,
                      (unsigned long long)file->cpu[cpu].lost);
}

/*
 * Ours and Debian's xentrace under the same load, one after the other:
 * what each captured, printed, not compared (the load varies with what
 * else the host runs).
 */
static void compare_tracers(const char *boot)
{
    static const char *const steps[] = { "ours", "debian" };
    unsigned int i;

    for ( i = 0; i < 2; i++ )
    {
        struct tf_summary file;
        unsigned long load;
        double cpu_s;

        read_trace(boot, steps[i], &file);
        read_cost(boot, steps[i], &load, &cpu_s);
        print_capture(boot, steps[i], &file);
        print_message("%s %-6s load %lu processes, tracer %.2f CPU s, "
                      "%llu bytes\n", boot, steps[i], load, cpu_s,
                      (unsigned long long)file.bytes);
    }
}

/* Debian's xentrace's capture: exit 0, both CPUs, and xenalyze reads it. */
static void assert_debian_capture(const char *boot)
{
    struct tf_summary file;

    assert_int_equal(read_rc(boot, "debian"), 0);
    read_trace(boot, "debian", &file);
    assert_both_cpus_traced(&file);
    assert_xenalyze_reads(boot, "debian");
}

/* The boot ran the Xen release it was given. */
static void test_xen_version(void **state)
{
    const char *boot = *state;
    char banner[64];

    snprintf(banner, sizeof(banner), " Xen version %s",
             strstr(boot, "-4.20") ? "4.20.4 " : "4.17.");
    if ( !log_has(boot, "serial.log", banner) )
        fail_msg("%s: no \"%s\" in its serial.log", boot, banner);
}

/*
 * A stock hypervisor, with Xen's own trace.c: Debian's 4.17, 4.20.4
 */

/* It is Xen's trace.c that runs: ours would say how many pages it made. */
static void test_stock_xen_runs_xens_trace_c(void **state)
{
    const char *boot = *state;

    assert_false(log_has(boot, "serial.log", "pages per CPU, t_info at mfn"));
}

static void test_stock_xen_tbuf_size(void **state)
{
    const char *boot = *state;
    struct tbuf_state s = read_state(boot, "boot");

    assert_int_equal(s.pages, TBUF_PAGES);
    assert_int_equal(s.buffers, NR_CPUS);
    assert_true(s.on);          /* tbuf_size= starts tracing at boot */
}

static void test_stock_xen_our_capture(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "ours", &file);
    assert_both_cpus_traced(&file);
    assert_xenalyze_reads(boot, "ours");
}

static void test_stock_xen_debian_capture(void **state)
{
    const char *boot = *state;

    assert_debian_capture(boot);
    compare_tracers(boot);
}

static void test_stock_xen_masks(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "masked", &file);     /* -e sched -c 1 */
    assert_int_equal(file.cpu[0].records, 0);
    assert_true(file.cpu[1].records > 0);
    assert_only_classes(&file, TRC_SCHED);
    assert_int_equal(read_state(boot, "masked").evt_mask,
                     read_state(boot, "boot").evt_mask);
}

static void test_stock_xen_T_disables(void **state)
{
    const char *boot = *state;

    assert_tracing_off(boot, "ours");
    assert_tracing_off(boot, "debian");
}

static void test_stock_xen_sigint_disables(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "sigint", &file);
    assert_both_cpus_traced(&file);
    assert_tracing_off(boot, "sigint");
}

/* -x leaves tracing on, and tbuf-state sees it: the checks above can fail. */
static void test_stock_xen_x_keeps_tracing(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "keep", &file);
    assert_true(read_state(boot, "keep").on);
}

/* -S 8 on the boot's buffers: a stock Xen keeps them; xentrace says why. */
static void test_stock_xen_keeps_size(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "resize", &file);
    assert_int_equal(read_state(boot, "resize").pages, TBUF_PAGES);
    assert_true(log_has(boot, "resize.err", "of 32 pages a CPU: they keep "
                        "that size until Xen restarts"));
    assert_false(log_has(boot, "serial.log", "xentrace: resized"));
}

/*
 * Our hypervisor
 */

static void test_our_xen_runs_our_trace_c(void **state)
{
    const char *boot = *state;
    char banner[64];

    snprintf(banner, sizeof(banner), "xentrace: %u pages per CPU",
             TBUF_PAGES);
    assert_true(log_has(boot, "serial.log", banner));
}

static void test_our_xen_tbuf_size(void **state)
{
    const char *boot = *state;
    struct tbuf_state s = read_state(boot, "boot");

    assert_int_equal(s.pages, TBUF_PAGES);
    assert_int_equal(s.buffers, NR_CPUS);
    assert_true(s.tinfo_bytes >= 4096);
    assert_true(s.on);
}

/* Without -e, the boot's mask selects; -e all is put back to it. */
static void test_our_xen_tevt_mask(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_int_equal(read_state(boot, "boot").evt_mask, TEVT_MASK);
    assert_our_capture(boot, "nomask", &file);
    assert_true(file.cpu[0].records + file.cpu[1].records > 0);
    assert_only_classes(&file, TEVT_MASK);
    assert_int_equal(read_state(boot, "nomask").evt_mask, TEVT_MASK);
    assert_int_equal(read_state(boot, "ours").evt_mask, TEVT_MASK);
}

static void test_our_xen_our_capture(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "ours", &file);
    assert_both_cpus_traced(&file);
    assert_xenalyze_reads(boot, "ours");
    assert_tracing_off(boot, "nomask");
    assert_tracing_off(boot, "ours");
}

static void test_our_xen_debian_capture(void **state)
{
    const char *boot = *state;

    assert_debian_capture(boot);
    assert_tracing_off(boot, "debian");
    compare_tracers(boot);
}

static void test_our_xen_sigint_disables(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "sigint", &file);
    assert_tracing_off(boot, "sigint");
}

/*
 * -S 8 on the boot's buffers of 32 pages: resized, said on Xen's console
 * only, the capture made on them read; -S 32 puts them back.
 */
static void test_our_xen_resizes(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "resize", &file);
    assert_both_cpus_traced(&file);
    assert_xenalyze_reads(boot, "resize");
    assert_int_equal(read_state(boot, "resize").pages, 8);
    assert_false(log_has(boot, "resize.err", "xentrace: -S"));
    assert_true(log_has(boot, "serial.log",
                        "xentrace: resized from 32 to 8 pages per CPU"));
    assert_our_capture(boot, "resize.back", &file);
    assert_int_equal(read_state(boot, "resize.back").pages, TBUF_PAGES);
    assert_tracing_off(boot, "resize.back");
}

/* tbuf_size= beyond what t_info can describe: clamped, and said so. */
static void test_clamp(void **state)
{
    const char *boot = *state;
    struct tbuf_state s = read_state(boot, "boot");
    char message[96];

    assert_int_equal(s.buffers, NR_CPUS);
    assert_true(s.pages > 0 && s.pages < CLAMP_ASKED);
    snprintf(message, sizeof(message),
             "xentrace: requested number of %u pages reduced to %u",
             CLAMP_ASKED, s.pages);
    if ( !log_has(boot, "serial.log", message) )
        fail_msg("no \"%s\" in %s/%s/serial.log", message, results, boot);
}

static void test_clamp_our_capture(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "ours", &file);
    assert_both_cpus_traced(&file);
    assert_xenalyze_reads(boot, "ours");
    assert_tracing_off(boot, "ours");
    print_capture(boot, "ours", &file);
}

/* With a guest (arm64-domu): both tracers' captures, ours exactly. */
static void test_domu_captures(void **state)
{
    const char *boot = *state;
    struct tf_summary file;

    assert_our_capture(boot, "ours", &file);
    assert_both_cpus_traced(&file);
    assert_xenalyze_reads(boot, "ours");
    assert_tracing_off(boot, "ours");
    assert_debian_capture(boot);
    compare_tracers(boot);
}

/*
 * With a guest (arm64-domu): the file names dom0 and the guest as
 * xenstore does, the guest with the UUID that xl lists, and tells the
 * guest's renaming (xl rename, a second and a half into the capture).
 */
static void test_domu_named(void **state)
{
    const char *boot = *state;
    char *list = read_text(boot, "domu.list");
    char *summary = read_text(boot, "ours.dom0-summary");
    char *line = strstr(list, "\ndomu "), uuid[40], want[256];
    unsigned int domid;

    if ( !line || sscanf(line, "\ndomu %u %*u %*u %*s %*f %39s", &domid,
                         uuid) != 2 )
        fail_msg("%s: no domu with its UUID in xl list -v:\n%s", boot, list);
    if ( !strstr(summary, "\"domain_names\":[{\"domain\":0,\"name\":"
                          "\"Domain-0\"") )
        fail_msg("%s: dom0 is not named Domain-0:\n%.2000s", boot, summary);
    snprintf(want, sizeof(want), "{\"domain\":%u,\"name\":\"domu-renamed\","
             "\"uuid\":\"%s\",\"renames\":1,\"first_name\":\"domu\"}",
             domid, uuid);
    if ( !strstr(summary, want) )
        fail_msg("%s: no %s in:\n%.2000s", boot, want, summary);
    free(list);
    free(summary);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        ON_STOCK(test_xen_version),
        ON_OURS(test_xen_version),
        ON_CLAMP(test_xen_version),
        ON_STOCK(test_stock_xen_runs_xens_trace_c),
        ON_STOCK(test_stock_xen_tbuf_size),
        ON_STOCK(test_stock_xen_our_capture),
        ON_STOCK(test_stock_xen_debian_capture),
        ON_STOCK(test_stock_xen_masks),
        ON_STOCK(test_stock_xen_T_disables),
        ON_STOCK(test_stock_xen_sigint_disables),
        ON_STOCK(test_stock_xen_x_keeps_tracing),
        ON_STOCK(test_stock_xen_keeps_size),
        ON_OURS(test_our_xen_runs_our_trace_c),
        ON_OURS(test_our_xen_tbuf_size),
        ON_OURS(test_our_xen_tevt_mask),
        ON_OURS(test_our_xen_our_capture),
        ON_OURS(test_our_xen_debian_capture),
        ON_OURS(test_our_xen_sigint_disables),
        ON_OURS(test_our_xen_resizes),
        ON_CLAMP(test_clamp),
        ON_CLAMP(test_clamp_our_capture),
        ON(test_xen_version, "arm64-domu"),
        ON(test_domu_named, "arm64-domu"),
        ON(test_domu_captures, "arm64-domu"),
    };

    if ( !(results = getenv("XT_RESULTS")) )
    {
        fprintf(stderr, "test_xen: XT_RESULTS names no results directory\n");
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
