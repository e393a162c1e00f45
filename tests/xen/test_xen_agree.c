/*
 * xentrace-summary against Debian's xenalyze --summary on the captures
 * of `make check-xen`'s boots (tests/xen/dom0-tests.sh: a PV dom0 of two
 * vCPUs under a load of process-spawning loops; $XT_RESULTS/BOOT/):
 *
 * - our xentrace's ours.bin and Debian's xentrace's debian.bin, both
 *   loss-free, on the stock and our hypervisors of Xen 4.17 and 4.20.4,
 *   and ours on the clamp boots: every figure both tools report agrees
 *   (tests/readers/agree-with-xenalyze, which runs check_agree.py and
 *   check_export.py: runstate counts, mean cycles and seconds per vCPU,
 *   guests' and idle, with the wake / preempt split; PV hypercalls per
 *   number, multicall entries, the other PV events; the pCPUs each vCPU
 *   ran on; the span; the bytes per CPU and class).  Counts agree
 *   exactly, mean cycles to the cycle, seconds to xenalyze's two
 *   decimals (check_agree.py says why).  Under QEMU's TCG there is no
 *   VT-x or SVM, so no HVM guest: the exit, I/O and injection figures
 *   are compared on xen-sim's captures only (tests/readers/test_agree.c).
 * - Debian's files have no metadata: both tools are given the TSC
 *   frequency and the Xen release the boot's console gave ("Detected
 *   2599.997 MHz processor.", on Arm the generic timer's "Freq: 62500
 *   KHz"; "Xen version 4.20.4").  Our files carry them, and they are the
 *   boot's.
 * - the same on the arm64 boots, where the figures are Arm's.
 * - each capture's Perfetto export, as Perfetto's trace processor imports
 *   it, holds the summary's runs, exits, hypercalls and losses
 *   (tests/readers/perfetto-agrees);
 * - the first capture of each boot follows the boot's tracing, which
 *   filled the buffers: it has losses, the summary counts them as the
 *   file holds them, and per vCPU the states, lost and unknown included,
 *   sum to the span; so do they on the SIGINT and -x captures.
 */
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "boots.h"
#include "run_cmd.h"
#include "tracefile.h"

#define PATH_BYTES  512
#define NR_CPUS     2           /* QEMU -smp 2, dom0_max_vcpus=2 */

static const char *results;

/* What the boot's console says of the machine. */
struct boot_facts {
    uint64_t tsc_hz;            /* Xen's cpu_khz, in Hz */
    char xen[16];               /* its release, major.minor */
};

/* The last @lines lines of @boot's console, for a log that has no more. */
static void print_console_tail(const char *boot, unsigned int lines)
{
    char path[PATH_BYTES], *log, *from;

    snprintf(path, sizeof(path), "%s/%s/serial.log", results, boot);
    if ( !(log = read_file(path)) )
        return;
    from = log + strlen(log);
    while ( from > log && lines )
        if ( *--from == '\n' && from[1] )
            lines--;
    print_message("%s: the console's end:\n%s", boot,
                  from + (*from == '\n'));
    free(log);
}

static char *read_boot_file(const char *boot, const char *file)
{
    char path[PATH_BYTES], *text;

    snprintf(path, sizeof(path), "%s/%s/%s", results, boot, file);
    if ( !(text = read_file(path)) )
    {
        print_console_tail(boot, 12);
        fail_msg("%s: missing (did the boot finish? see %s/%s/serial.log)",
                 path, results, boot);
    }
    return text;
}

static struct boot_facts read_boot_facts(const char *boot)
{
    struct boot_facts f = { 0 };
    char *log = read_boot_file(boot, "serial.log"), *at;
    unsigned long mhz, khz, major, minor;

    /* x86: the TSC's calibration; Arm: the generic timer's frequency. */
    if ( (at = strstr(log, "(XEN) Detected ")) &&
         sscanf(at, "(XEN) Detected %lu.%3lu MHz processor.", &mhz,
                &khz) == 2 )
        f.tsc_hz = (mhz * 1000 + khz) * 1000ULL;
    else if ( (at = strstr(log, "(XEN) Generic Timer IRQ:")) &&
              (at = strstr(at, " Freq: ")) &&
              sscanf(at, " Freq: %lu KHz", &khz) == 1 )
        f.tsc_hz = khz * 1000ULL;
    else
        fail_msg("%s: neither \"Detected N MHz processor.\" nor the "
                 "Generic Timer's \"Freq: N KHz\" in serial.log", boot);
    if ( !(at = strstr(log, "(XEN) Xen version ")) ||
         sscanf(at, "(XEN) Xen version %lu.%lu", &major, &minor) != 2 )
        fail_msg("%s: no Xen banner in serial.log", boot);
    snprintf(f.xen, sizeof(f.xen), "%lu.%lu", major, minor);
    free(log);
    return f;
}

/*
 * agree-with-xenalyze on @boot's @step.bin with @options; its output in
 * @step.agree, printed (how many figures agreed) or shown on failure.
 */
static void agree(const char *boot, const char *step, const char *options)
{
    char log[PATH_BYTES], name[64], *text;
    int rc;

    snprintf(log, sizeof(log), "%s/%s/%s.agree", results, boot, step);
    rc = run_sh(log, "%s %s %s %s/%s/%s.bin", AGREE, options, SUMMARY,
                results, boot, step);
    snprintf(name, sizeof(name), "%s.agree", step);
    text = read_boot_file(boot, name);
    if ( rc )
        fail_msg("%s %s: xentrace-summary and xenalyze differ:\n%.3000s",
                 boot, step, text);
    print_message("%s %s: %s", boot, step, text);
    free(text);
}

/* The records @step.bin lost, by the tests' own reading of the file. */
static uint64_t lost_in(const char *boot, const char *step)
{
    static struct tf_summary file;
    char path[PATH_BYTES];
    uint64_t lost = 0;
    unsigned int cpu;

    snprintf(path, sizeof(path), "%s/%s/%s.bin", results, boot, step);
    if ( !tf_read(path, &file) )
        fail_msg("%s: %s", path, file.error);
    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        lost += file.cpu[cpu].lost;
    return lost;
}

/* A Python expression over @step.bin's summary ("s"), as an integer. */
static long long summary_value(const char *boot, const char *step,
                               const char *options, const char *expr)
{
    char log[PATH_BYTES], name[64], *text;
    long long n;

    snprintf(name, sizeof(name), "%s.value", step);
    snprintf(log, sizeof(log), "%s/%s/%s", results, boot, name);
    assert_int_equal(run_sh(log, "%s --json %s %s/%s/%s.bin | python3 -c "
                            "'import json,sys; s = json.load(sys.stdin); "
                            "print(int(%s))'", SUMMARY, options, results,
                            boot, step, expr), 0);
    text = read_boot_file(boot, name);
    n = strtoll(text, NULL, 10);
    free(text);
    return n;
}

/* Our file says the boot's TSC frequency and Xen release. */
static void test_our_file_knows_the_host(void **state)
{
    const char *boot = *state;
    struct boot_facts host = read_boot_facts(boot);
    char log[PATH_BYTES], want[64], *text;
    long long hz = summary_value(boot, "ours", "", "s[\"tsc_hz\"]");

    if ( hz != (long long)host.tsc_hz )
        fail_msg("%s: ours.bin says the TSC runs at %lld Hz, Xen %" PRIu64,
                 boot, hz, host.tsc_hz);
    snprintf(log, sizeof(log), "%s/%s/ours.layouts", results, boot);
    /* Its place in the header: after "# started", which arm64's lacks. */
    assert_int_equal(run_sh(log, "%s %s/%s/ours.bin | sed -n "
                            "'/^# event layouts/p'", DUMP, results, boot), 0);
    text = read_boot_file(boot, "ours.layouts");
    snprintf(want, sizeof(want), "# event layouts of Xen %s (the file's "
             "hypervisor)\n", host.xen);
    assert_string_equal(text, want);
    free(text);
}

/* @step.bin lost nothing: around a loss xenalyze's figures are its own. */
static void assert_loss_free(const char *boot, const char *step)
{
    uint64_t lost = lost_in(boot, step);

    if ( lost )
        fail_msg("%s %s: %" PRIu64 " records lost, so not comparable with "
                 "xenalyze (was the host too busy for the tracer?)", boot,
                 step, lost);
}

/* Our capture: xenalyze is given the file's own TSC frequency. */
static void test_ours_agrees_with_xenalyze(void **state)
{
    const char *boot = *state;

    assert_loss_free(boot, "ours");
    agree(boot, "ours", "");
}

/* Debian's: no metadata, so the boot's frequency and release. */
static void test_debian_agrees_with_xenalyze(void **state)
{
    const char *boot = *state;
    struct boot_facts host = read_boot_facts(boot);
    char options[64];

    assert_loss_free(boot, "debian");
    snprintf(options, sizeof(options), "-H %" PRIu64 " -V %s", host.tsc_hz,
             host.xen);
    agree(boot, "debian", options);
}

/*
 * @step.bin's Perfetto export as Perfetto's trace processor imports it,
 * against its summary (tests/readers/perfetto-agrees): every vCPU's runs,
 * exits, hypercalls and losses.  Skipped without the trace processor.
 */
static void perfetto_agrees(const char *boot, const char *step)
{
    char log[PATH_BYTES], name[64], *text;
    int rc;

    if ( !trace_processor() )
        skip();
    snprintf(log, sizeof(log), "%s/%s/%s.perfetto", results, boot, step);
    rc = run_sh(log, "%s %s %s/%s/%s.bin", PERFETTO_AGREES, READERS, results,
                boot, step);
    snprintf(name, sizeof(name), "%s.perfetto", step);
    text = read_boot_file(boot, name);
    if ( rc )
        fail_msg("%s %s: Perfetto and the summary differ:\n%.3000s", boot,
                 step, text);
    print_message("%s %s: %s", boot, step, text);
    free(text);
}

static void test_ours_perfetto_agrees(void **state)
{
    perfetto_agrees(*state, "ours");
}

static void test_debian_perfetto_agrees(void **state)
{
    perfetto_agrees(*state, "debian");
}

/* The boot's first capture: losses, counted, and the states still tile. */
static void check_lossy(const char *boot, const char *step)
{
    uint64_t lost = lost_in(boot, step);

    assert_true(lost > 0);
    assert_int_equal(summary_value(boot, step, "", "sum(c[\"lost_records\"] "
                                   "for c in s[\"cpus\"])"), lost);
    assert_true(summary_value(boot, step, "", "sum(p[\"lost\"][\"gaps\"] "
                              "for p in s[\"pcpus\"])") > 0);
    agree(boot, step, "");
}

static void test_stock_first_capture_lost_accounted(void **state)
{
    check_lossy(*state, "masked");
}

static void test_ours_first_capture_lost_accounted(void **state)
{
    check_lossy(*state, "nomask");
}

/* Stopped by SIGINT, or with -x: the states sum to the span. */
static void test_sigint_capture(void **state)
{
    agree(*state, "sigint", "");
}

static void test_keep_capture(void **state)
{
    agree(*state, "keep", "");
}

/*
 * Emulated arm64
 */

/*
 * Xen's cpu_khz, which our files carry (test_our_file_knows_the_host), is
 * the generic timer's frequency, CNTFRQ_EL0, as dom0's kernel read it:
 * "arch_timer: cp15 timer(s) running at 62.50MHz (virt)."
 */
static void test_arm_cpu_khz_is_cntfrq(void **state)
{
    const char *boot = *state;
    struct boot_facts host = read_boot_facts(boot);
    char *dmesg = read_boot_file(boot, "dmesg.txt"), *at;
    unsigned long mhz, frac;

    if ( !(at = strstr(dmesg, "arch_timer: cp15 timer(s) running at ")) ||
         sscanf(at, "arch_timer: cp15 timer(s) running at %lu.%2luMHz", &mhz,
                &frac) != 2 )
        fail_msg("%s: no arch_timer rate in dmesg.txt", boot);
    print_message("%s: Xen's cpu_khz %" PRIu64 ", CNTFRQ %lu.%02lu MHz\n",
                  boot, host.tsc_hz / 1000, mhz, frac);
    /* dmesg gives 10 kHz; Xen's figure rounded to that must be it. */
    assert_int_equal((host.tsc_hz + 5000) / 10000, mhz * 100 + frac);
    free(dmesg);
}

/*
 * True seconds: ours.bin, a capture of -T 3 under a load that traces
 * without pause, spans 3 s of dom0's clock by the summary's reckoning at
 * the file's frequency, and no more than the uptime that passed around
 * it.  At an assumed 2.4 GHz it would span 0.08 s.
 */
static void test_arm_true_seconds(void **state)
{
    const char *boot = *state;
    char *wall = read_boot_file(boot, "ours.wall");
    double before, after;
    long long span_ms = summary_value(boot, "ours", "",
                                      "s[\"seconds\"] * 1000");

    if ( sscanf(wall, "%lf %lf", &before, &after) != 2 )
        fail_msg("%s/ours.wall: not two uptimes", boot);
    free(wall);
    print_message("%s: ours.bin spans %lld ms, dom0's clock %.0f ms\n", boot,
                  span_ms, (after - before) * 1000);
    assert_true(span_ms >= 2700);
    assert_true(span_ms <= (long long)((after - before) * 1000) + 10);
}

/*
 * Debian's xentrace writes no metadata: the summary says in its first
 * line that it assumes 2.4 GHz, and with the board's frequency (-H, as
 * the boot's console gave it) debian.bin, -T 3, spans dom0's 3 s.
 */
static void test_arm_upstream_file_clock(void **state)
{
    const char *boot = *state;
    struct boot_facts host = read_boot_facts(boot);
    char log[PATH_BYTES], options[32], *text, *wall;
    double before, after;
    long long span_ms;

    snprintf(log, sizeof(log), "%s/%s/debian.headline", results, boot);
    assert_int_equal(run_sh(log, "%s %s/%s/debian.bin | head -n 1", SUMMARY,
                            results, boot), 0);
    text = read_boot_file(boot, "debian.headline");
    if ( !strstr(text, " at 2400.000 MHz (assumed)") )
        fail_msg("%s: the summary of debian.bin does not say its clock is "
                 "assumed:\n%s", boot, text);
    free(text);
    snprintf(options, sizeof(options), "-H %" PRIu64, host.tsc_hz);
    span_ms = summary_value(boot, "debian", options, "s[\"seconds\"] * 1000");
    wall = read_boot_file(boot, "debian.wall");
    if ( sscanf(wall, "%lf %lf", &before, &after) != 2 )
        fail_msg("%s/debian.wall: not two uptimes", boot);
    free(wall);
    print_message("%s: debian.bin at %s spans %lld ms, dom0's clock %.0f ms\n",
                  boot, options, span_ms, (after - before) * 1000);
    assert_true(span_ms >= 2700);
    assert_true(span_ms <= (long long)((after - before) * 1000) + 10);
}

/*
 * In the arm64 dom0, Debian's arm64 xenalyze read our file, and our
 * arm64 xentrace-summary made of it exactly what ours on this x86 host
 * makes: the file reads the same on both.
 */
static void test_arm_dom0_reads(void **state)
{
    const char *boot = *state;
    char log[PATH_BYTES], summary[PATH_MAX], *rc, *xenalyze, *there, *here;

    rc = read_boot_file(boot, "ours.dom0-xenalyze.rc");
    xenalyze = read_boot_file(boot, "ours.dom0-xenalyze");
    if ( atoi(rc) || !strstr(xenalyze, "|-- Domain 0 --|") )
        fail_msg("%s: arm64 xenalyze --summary did not read ours.bin:\n"
                 "%.2000s", boot, xenalyze);
    free(rc);
    free(xenalyze);
    rc = read_boot_file(boot, "ours.dom0-summary.rc");
    assert_int_equal(atoi(rc), 0);
    free(rc);
    /* Run where dom0 ran it, on the same name: the JSON holds it. */
    assert_non_null(realpath(SUMMARY, summary));
    snprintf(log, sizeof(log), "%s/%s/ours.host-summary", results, boot);
    assert_int_equal(run_sh(log, "cd %s/%s && %s --json ours.bin", results,
                            boot, summary), 0);
    there = read_boot_file(boot, "ours.dom0-summary");
    here = read_boot_file(boot, "ours.host-summary");
    assert_string_equal(there, here);
    free(there);
    free(here);
}

/* How many records of @name @text (xentrace-dump's output) has. */
static unsigned long count_named(const char *text, const char *name)
{
    char pattern[64];
    const char *at;
    unsigned long n = 0;

    size_t len = (size_t)snprintf(pattern, sizeof(pattern), " %s", name);

    /* The name, then its fields or the end of its line. */
    for ( at = text; (at = strstr(at, pattern)); at++ )
        n += at[len] == ' ' || at[len] == '\n';
    return n;
}

/* How many TRC_ARM_TRAP records of exception class @ec @text has. */
static unsigned long count_traps(const char *text, unsigned int ec)
{
    const char *at;
    unsigned long n = 0;
    unsigned int got;

    for ( at = text; (at = strstr(at, " TRC_ARM_TRAP ec=")); at++ )
        if ( sscanf(at, " TRC_ARM_TRAP ec=%x", &got) == 1 && got == ec )
            n++;
    return n;
}

static void assert_traps(const char *boot, const char *name,
                         const char *text, unsigned int ec)
{
    unsigned long n = count_traps(text, ec);

    print_message("%s: %lu traps of class %#x in %s.bin\n", boot, n, ec,
                  name);
    if ( !n )
        fail_msg("%s: no trap of class %#x in %s.bin", boot, ec, name);
}

/* xentrace-dump's text of step @name's capture on @boot. */
static char *dump_of(const char *boot, const char *name)
{
    char log[PATH_BYTES], file[PATH_BYTES];

    snprintf(log, sizeof(log), "%s/%s/%s.dump", results, boot, name);
    assert_int_equal(run_sh(log, "%s %s/%s/%s.bin", DUMP, results, boot,
                            name), 0);
    snprintf(file, sizeof(file), "%s.dump", name);
    return read_boot_file(boot, file);
}

/*
 * Our Arm trace points (xen/patches/arm, applied to 4.20.4 for arm64): in
 * a capture of -e all under load, dom0's traps by ESR exception class,
 * system registers (0x18: a GICv3 SGI is one) and HVC64 (0x16) with its
 * hypercall (xentrace's own sysctl that ends tracing is one, written
 * before it takes effect); the returns to the guest; the physical IRQs Xen
 * took and the virtual ones it injected.  WFI/WFE (0x01) in the capture
 * of an idle dom0: under load its vCPUs seldom wait, and a 3 s capture
 * held 0 to 6 of them.  Emulated MMIO is counted, not required: under
 * this load dom0 does not touch the emulated GIC distributor
 * (test_arm_mmio makes it).
 */
static void test_arm_trace_points(void **state)
{
    static const char *const names[] = {
        "TRC_ARM_TRAP", "TRC_ARM_TRAP_HVC", "TRC_ARM_RETURN", "TRC_ARM_IRQ",
        "TRC_ARM_VIRQ_INJECT",
    };
    const char *boot = *state;
    char *text = dump_of(boot, "ours"), *idle = dump_of(boot, "idle");
    unsigned int i;

    for ( i = 0; i < sizeof(names) / sizeof(names[0]); i++ )
    {
        unsigned long n = count_named(text, names[i]);

        print_message("%s: %lu %s\n", boot, n, names[i]);
        if ( !n )
            fail_msg("%s: no %s in ours.bin", boot, names[i]);
    }
    assert_traps(boot, "ours", text, 0x16);
    assert_traps(boot, "ours", text, 0x18);
    assert_traps(boot, "idle", idle, 0x01);
    print_message("%s: %lu TRC_ARM_TRAP_MMIO\n", boot,
                  count_named(text, "TRC_ARM_TRAP_MMIO"));
    free(idle);
    free(text);
}

/*
 * Emulated MMIO on Arm (dom0-tests.sh's "mmio"): dom0 moved its
 * interrupts between its vCPUs while it was captured, and each move reads
 * and writes the GIC distributor, which Xen emulates.  Every
 * TRC_ARM_TRAP_MMIO follows the data abort that took the guest into Xen
 * (TRC_ARM_TRAP of class 0x24), and the summary's MMIO table, by address,
 * counts each of them once.
 */
static void test_arm_mmio(void **state)
{
    const char *boot = *state;
    char *moves = read_boot_file(boot, "mmio.load");
    char *text = dump_of(boot, "mmio");
    unsigned long mmio = count_named(text, "TRC_ARM_TRAP_MMIO");
    unsigned long aborts = count_traps(text, 0x24);
    long moved = strtol(moves, NULL, 10);
    long long table = summary_value(boot, "mmio", "",
        "sum(sum(r[\"count\"] for r in v[\"arm\"][\"mmio\"][\"addresses\"])"
        " + v[\"arm\"][\"mmio\"][\"others\"][\"count\"] "
        "for v in s[\"vcpus\"] if \"arm\" in v)");

    print_message("%s: %ld interrupt moves, %lu MMIO traps after %lu data "
                  "aborts, %lld in the summary\n", boot, moved, mmio, aborts,
                  table);
    if ( moved <= 0 )
        fail_msg("%s: dom0 moved none of its interrupts", boot);
    if ( !mmio )
        fail_msg("%s: no TRC_ARM_TRAP_MMIO in mmio.bin", boot);
    assert_true(aborts >= mmio);
    assert_int_equal(table, mmio);
    free(text);
    free(moves);
}

/* Lines of @text that end in " @name": the dump's records of that name. */
static unsigned long count_ending(const char *text, const char *name)
{
    char pattern[64];
    const char *at;
    unsigned long n = 0;

    snprintf(pattern, sizeof(pattern), " %s\n", name);
    for ( at = text; (at = strstr(at, pattern)); at++ )
        n++;
    return n;
}

/*
 * The trace points' cost step (dom0-tests.sh's "cost", on 4.20.4): every
 * capture ended well; each with the hypercall's trace points on (-e pv on
 * x86, -e arm on Arm) holds a record of each of the loop's 20,000
 * xen_version hypercalls (TRC_PV_HYPERCALL_V2, TRC_ARM_TRAP_HVC), each
 * with them masked off none; the loop timed 6 rounds each way.  What the
 * times say is bench/run-boot-cost's: no test holds a timing.
 */
static void test_trace_point_cost(void **state)
{
    static const char *const modes[] = { "masked", "on" };
    const char *boot = *state;
    unsigned int i, m;

    for ( m = 0; m < 2; m++ )
    {
        char name[64], *text, *line, *save;
        unsigned long rounds = 0;

        for ( i = 1; i <= 3; i++ )
        {
            unsigned long calls;

            snprintf(name, sizeof(name), "cost.%s.%u.rc", modes[m], i);
            text = read_boot_file(boot, name);
            if ( strcmp(text, "0\n") )
                fail_msg("%s: %s says %s", boot, name, text);
            free(text);
            snprintf(name, sizeof(name), "cost.%s.%u", modes[m], i);
            text = dump_of(boot, name);
            calls = count_ending(text, "xen_version");
            print_message("%s: %lu xen_version records in %s.bin\n", boot,
                          calls, name);
            if ( m ? calls < 20000 : calls != 0 )
                fail_msg("%s: %s.bin has %lu xen_version records", boot,
                         name, calls);
            free(text);
        }
        snprintf(name, sizeof(name), "cost.%s", modes[m]);
        text = read_boot_file(boot, name);
        for ( line = strtok_r(text, "\n", &save); line;
              line = strtok_r(NULL, "\n", &save) )
        {
            assert_true(strtod(line, NULL) > 0);
            rounds++;
        }
        assert_int_equal(rounds, 6);
        free(text);
    }
}

/*
 * A guest: the domain xl created ran; both captures of it are loss-free
 * and agree with xenalyze (test_ours_agrees_with_xenalyze and
 * test_debian_agrees_with_xenalyze on this boot too).  The guest
 * makes dom0's busy vCPUs migrate, so a capture may begin with one
 * running, or find one running on a pCPU whose records begin after it
 * was last seen waiting on the other: both tools start its running at
 * that pCPU's first record, and check_agree.py names what xenalyze's
 * residences make of it (docs/real-xen.md).
 */
static void test_domu_scheduled(void **state)
{
    const char *boot = *state;
    char *list = read_boot_file(boot, "domu.list");
    long long running;

    if ( !strstr(list, "\ndomu ") )
        fail_msg("%s: xl list shows no domu:\n%s", boot, list);
    free(list);
    running = summary_value(boot, "ours", "", "sum(v[\"runstates\"]"
                            "[\"running\"][\"cycles\"] for v in "
                            "s[\"vcpus\"] if v[\"domain\"] == 1)");
    print_message("%s: d1v0 ran %lld cycles in ours.bin\n", boot, running);
    assert_true(running > 0);
}

/*
 * The live view in a real dom0 (dom0-tests.sh's "live"): xentrace's
 * stream, kept by tee in live.bin, watched by xentrace-top --json.  It
 * ran to the end of the capture, showed dom0's two vCPUs in every
 * interval with runstates that sum to the interval (the last one holds
 * its last TSC: one tick less), and its counts are the summary's over
 * the same intervals of live.bin (check_top.py; on a capture with losses,
 * but for the runstates and waits a later marker re-tells).
 */
/*
 * xentrace-top's run @step in dom0 ended with status 0, and its intervals
 * in @step.top, at least @least, each show dom0's vCPUs with runstates
 * that sum to the interval (the last one holds its last TSC: one tick
 * less).
 */
static void check_dom0_view(const char *boot, const char *step,
                            unsigned int least)
{
    char file[64], log[PATH_BYTES], *rc;

    snprintf(file, sizeof(file), "%s.top.rc", step);
    rc = read_boot_file(boot, file);
    if ( atoi(rc) )
        fail_msg("%s: xentrace-top in dom0 failed (%s/%s/%s.err)", boot,
                 results, boot, step);
    free(rc);
    snprintf(log, sizeof(log), "%s/%s/%s.dom0-vcpus", results, boot, step);
    if ( run_sh(log, "python3 -c 'import json, sys\n"
                "n = 0\n"
                "for line in open(sys.argv[1]):\n"
                "    iv = json.loads(line)\n"
                "    span = iv[\"to_tsc\"] - iv[\"from_tsc\"] - iv[\"last\"]\n"
                "    d0 = [v for v in iv[\"vcpus\"] if v[\"domain\"] == 0]\n"
                "    assert len(d0) == %d, (iv[\"interval\"], len(d0))\n"
                "    for v in d0:\n"
                "        assert sum(v[\"runstate_cycles\"].values()) == span,"
                " (iv[\"interval\"], v)\n"
                "    n += 1\n"
                "assert n >= %u, n\n"
                "print(n, \"intervals\")' %s/%s/%s.top", NR_CPUS, least,
                results, boot, step) )
        fail_msg("%s: xentrace-top's dom0 vCPUs (%s)", boot, log);
}

static void test_live_view(void **state)
{
    const char *boot = *state;
    char log[PATH_BYTES];
    long long lost = summary_value(boot, "live", "",
                                   "sum(c[\"lost_records\"] for c in "
                                   "s[\"cpus\"])");

    check_dom0_view(boot, "live", 3);
    snprintf(log, sizeof(log), "%s/%s/live.check-top", results, boot);
    if ( run_sh(log, "python3 %s %s %s/%s/live.bin %s/%s/live.top %s",
                CHECK_TOP, SUMMARY, results, boot, results, boot,
                lost ? "lossy" : "") )
        fail_msg("%s: xentrace-top and the summary differ (%s)", boot, log);
}

/*
 * xentrace-top with no file in a real dom0 (dom0-tests.sh's "host"): its
 * own xentrace took the host's records, -n 3 intervals of them showed
 * dom0's vCPUs, xentrace's exit table followed, and the event mask that
 * -e sched replaced is Xen's again: the one the step before ("live") left,
 * TRC_ALL, since Debian's xentrace in the "debian" step did not put back
 * the boot's tevt_mask=.
 */
static void test_host_view(void **state)
{
    const char *boot = *state;
    char *top = read_boot_file(boot, "host.top");
    char *err = read_boot_file(boot, "host.err");
    char *after = read_boot_file(boot, "host.state");
    char *before = read_boot_file(boot, "live.state");
    unsigned int lines = 0;
    const char *p;

    check_dom0_view(boot, "host", 3);
    for ( p = top; *p; p++ )
        lines += *p == '\n';
    assert_int_equal(lines, 3);
    if ( !strstr(err, "\n  all ") )
        fail_msg("%s: no exit table of xentrace's in host.err", boot);
    assert_int_equal(strncmp(after, before, strcspn(before, "\n") + 1), 0);
    free(top);
    free(err);
    free(after);
    free(before);
}

/*
 * Xen's scheduler and dom0's on one clock in a real dom0 (dom0-tests.sh's
 * "timeline": xentrace --dom0 sched,irq, dom0 idle but for a process busy
 * and asleep by turns): the exit table's counts are the file's, every
 * dom0 sched_switch on dom0's CPU N lies inside an interval in which Xen
 * ran d0vN, the busy process was switched in and out, the summary found
 * chains from Xen's wake of a dom0 vCPU to a dom0 task, Perfetto reads
 * dom0's CPUs as a second machine, with flows from Xen's wakes to dom0's
 * IRQs, babeltrace2 its CTF with dom0's stream class, and xenalyze still
 * reads the file as the summary does.
 *
 * The clocks' bounds.  dom0's TSC is Xen's: the switches inside Xen's
 * runs show it to the microsecond.  Its CLOCK_MONOTONIC is Xen's system
 * time, which Xen keeps on the emulated platform timer by rescaling the
 * TSC each second; under QEMU's TCG the two drift apart, by 691 ppm and
 * 4.4 ms at most over the 3 s in the first boots measured.  A TSC that
 * dom0 read at another rate than Xen's (scaled, emulated) would be off by
 * percents: DRIFT_PPM 10000 tells it from TCG's noise, and STRAY_NS 20 ms
 * (under 1% of the capture) a broken pair from a rescale.
 */
#define DRIFT_PPM "10000"
#define STRAY_NS  "20000000"
static void test_dom0_timeline(void **state)
{
    const char *boot = *state;
    char log[PATH_BYTES], bin[PATH_BYTES], tp[2 * PATH_BYTES] = "", *pid;
    char *rc = read_boot_file(boot, "timeline.rc");

    if ( atoi(rc) )
        fail_msg("%s: xentrace --dom0 in dom0 failed (%s/%s/timeline.err)",
                 boot, results, boot);
    free(rc);
    snprintf(bin, sizeof(bin), "%s/%s/timeline.bin", results, boot);
    snprintf(log, sizeof(log), "%s/%s/timeline.check", results, boot);
    pid = read_boot_file(boot, "timeline.pid");
    if ( trace_processor() )
        snprintf(tp, sizeof(tp), "--perfetto %s %s.pftrace", trace_processor(),
                 bin);
    if ( run_sh(log, "%s --json %s > %s.json && %s %s > %s.dump && "
                "rm -rf %s.ctf && %s/xentrace-export --perfetto %s.pftrace "
                "--ctf %s.ctf %s && "
                "%s -s %s > %s.dump-s && "
                "%s/xentrace-plot --scatter runstate --csv %s > %s.csv && "
                "python3 %s %s/%s/timeline.err %s.json %s.dump "
                "--inside %s.csv %s.dump-s %d --clock " DRIFT_PPM " "
                STRAY_NS " --ctf %s.ctf %s && python3 -c 'import json,sys; "
                "c = json.load(open(sys.argv[1]))[\"crossing\"]; "
                "sys.exit(not c or not c[\"rows\"])' %s.json",
                SUMMARY, bin, bin, DUMP, bin, bin, bin, READERS, bin, bin,
                bin, DUMP, bin, bin, READERS, bin, bin, CHECK_DOM0, results,
                boot, bin, bin, bin, bin, atoi(pid), bin, tp, bin) )
        fail_msg("%s: dom0's events and Xen's disagree (%s)", boot, log);
    snprintf(log, sizeof(log), "%s/%s/timeline.agree", results, boot);
    if ( run_sh(log, "%s %s %s", AGREE, SUMMARY, bin) )
        fail_msg("%s: xenalyze does not read timeline.bin as the summary "
                 "does (%s)", boot, log);
    free(pid);
}

/*
 * The same with dom0's events from trace-cmd (dom0-tests.sh's
 * "timeline-dat": trace-cmd record -C x86-tsc beside xentrace -e sched),
 * joined here by xentrace-join: each dom0 CPU's events are those trace-cmd
 * report reads, the file says its clock is a trace.dat's, every dom0
 * sched_switch lies inside a run of its vCPU (the TSC is Xen's: no pairs
 * are needed for that), the busy process was switched in and out, and
 * xenalyze reads the joined file as the summary does.
 */
static void test_dom0_timeline_dat(void **state)
{
    const char *boot = *state;
    char log[PATH_BYTES], bin[PATH_BYTES], out[PATH_BYTES], *pid;
    char *rc = read_boot_file(boot, "timeline-dat.rc");
    char *dat_rc = read_boot_file(boot, "timeline-dat.dat.rc");

    if ( atoi(rc) || atoi(dat_rc) )
        fail_msg("%s: xentrace (%s) or trace-cmd (%s) in dom0 failed "
                 "(%s/%s/timeline-dat.err, .tc)", boot, rc, dat_rc, results,
                 boot);
    free(rc);
    free(dat_rc);
    snprintf(bin, sizeof(bin), "%s/%s/timeline-dat", results, boot);
    snprintf(out, sizeof(out), "%s/%s/timeline-dat.joined", results, boot);
    snprintf(log, sizeof(log), "%s/%s/timeline-dat.check", results, boot);
    pid = read_boot_file(boot, "timeline-dat.pid");
    if ( run_sh(log, "%s/xentrace-join %s.bin %s.dat %s > %s.table && "
                "trace-cmd report %s.dat > %s.report 2> /dev/null && "
                "%s --json %s > %s.json && %s %s > %s.dump && "
                "%s -s %s > %s.dump-s && "
                "%s/xentrace-plot --scatter runstate --csv %s > %s.csv && "
                "python3 %s %s.table %s.json %s.dump --dat %s.report "
                "--inside %s.csv %s.dump-s %d",
                READERS, bin, bin, out, out, bin, bin, SUMMARY, out, out,
                DUMP, out, out, DUMP, out, out, READERS, out, out,
                CHECK_DOM0, out, out, out, bin, out, out, atoi(pid)) )
        fail_msg("%s: the joined trace.dat and Xen's disagree (%s)", boot,
                 log);
    snprintf(log, sizeof(log), "%s/%s/timeline-dat.agree", results, boot);
    if ( run_sh(log, "%s %s %s", AGREE, SUMMARY, out) )
        fail_msg("%s: xenalyze does not read the joined file as the "
                 "summary does (%s)", boot, log);
    free(pid);
}

/*
 * The xen_version records of dump @text, and of them those on a CPU
 * before its first record that says what runs there (a runstate change
 * to running, a switch, a vCPU that continues running): dom0's filter
 * keeps those by design (tools/xentrace/filter.c).
 */
static unsigned long count_calls(const char *text, unsigned long *unknown)
{
    bool known[NR_CPUS] = { false };
    const char *line;
    unsigned long calls = 0;
    unsigned int cpu;

    *unknown = 0;
    for ( line = text; line && *line; line = strchr(line, '\n'),
          line = line ? line + 1 : NULL )
    {
        size_t len = strcspn(line, "\n");
        char one[512];

        snprintf(one, sizeof(one), "%.*s", (int)len, line);
        if ( sscanf(one, "%*s cpu%u", &cpu) != 1 || cpu >= NR_CPUS )
            continue;
        if ( strstr(one, " TRC_SCHED_SWITCH ") ||
             strstr(one, " TRC_SCHED_CONTINUE_RUNNING ") ||
             (strstr(one, " TRC_SCHED_RUNSTATE_CHANGE ") &&
              strstr(one, "->running")) )
            known[cpu] = true;
        else if ( len > 12 && !strcmp(one + len - 12, " xen_version") )
        {
            calls++;
            *unknown += !known[cpu];
        }
    }
    return calls;
}

/*
 * The domain filter on a real host (dom0-tests.sh's "filter"): around
 * hypercall-loop's 10,000 xen_version hypercalls, all in dom0's context,
 * -d 0 keeps a record of each (and a few of dom0's other calls) and -d 7
 * none, but, with dom0's filter, those of a CPU before the first of its
 * records that says what runs there.  The file tells the filter: Xen's
 * with ours, dom0's on a stock Xen, which xentrace says in one line.  Two
 * captures of a real host never hold the same records, so the figures'
 * equality with an unfiltered capture is test_sim_filter's (xen-sim
 * --repeatable); here a workload whose records are known is counted
 * instead.
 */
static void test_domain_filter(void **state)
{
    const char *boot = *state;
    bool stock = strstr(boot, "debian-xen") || strstr(boot, "stock");
    unsigned int d;

    for ( d = 0; d <= 7; d += 7 )
    {
        char name[32], json[PATH_BYTES], want[96], *text;
        unsigned long calls, unknown;

        snprintf(name, sizeof(name), "filter.d%u.rc", d);
        text = read_boot_file(boot, name);
        if ( strcmp(text, "0\n") )
            fail_msg("%s: %s says %s", boot, name, text);
        free(text);
        snprintf(name, sizeof(name), "filter.d%u.err", d);
        text = read_boot_file(boot, name);
        if ( !strstr(text, "-d: Xen has no domain filter: filtering in "
                           "dom0") != !stock )
            fail_msg("%s: %s %s the line of dom0's filter:\n%s", boot,
                     name, stock ? "lacks" : "has", text);
        free(text);

        snprintf(name, sizeof(name), "filter.d%u", d);
        text = dump_of(boot, name);
        calls = count_calls(text, &unknown);
        free(text);
        print_message("%s: -d %u: %lu xen_version records, %lu before "
                      "their CPU's first scheduler record\n", boot, d, calls,
                      unknown);
        /* Only dom0's filter keeps what it cannot yet tell apart. */
        if ( d ? calls != (stock ? unknown : 0)
               : calls < 10000 || calls > 10100 )
            fail_msg("%s: -d %u kept %lu xen_version records", boot, d,
                     calls);

        snprintf(json, sizeof(json), "%s/%s/%s.json", results, boot, name);
        assert_int_equal(run_sh(json, "%s --json %s/%s/%s.bin", SUMMARY,
                                results, boot, name), 0);
        text = read_file(json);
        snprintf(want, sizeof(want), "\"domains\":\"%u\",\"domains_in_dom0\""
                 ":%s,\"switched\":\"none\"}", d, stock ? "true" : "false");
        if ( !text || !strstr(text, want) )
            fail_msg("%s: no %s in %s", boot, want, json);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        ON_STOCK(test_our_file_knows_the_host),
        ON_OURS(test_our_file_knows_the_host),
        ON_CLAMP(test_our_file_knows_the_host),
        ON_STOCK(test_ours_agrees_with_xenalyze),
        ON_OURS(test_ours_agrees_with_xenalyze),
        ON_CLAMP(test_ours_agrees_with_xenalyze),
        ON_STOCK(test_debian_agrees_with_xenalyze),
        ON_OURS(test_debian_agrees_with_xenalyze),
        ON_STOCK(test_ours_perfetto_agrees),
        ON_OURS(test_ours_perfetto_agrees),
        ON_CLAMP(test_ours_perfetto_agrees),
        ON_DOMU(test_ours_perfetto_agrees),
        ON_STOCK(test_debian_perfetto_agrees),
        ON_STOCK(test_stock_first_capture_lost_accounted),
        ON_OURS(test_ours_first_capture_lost_accounted),
        ON_STOCK(test_sigint_capture),
        ON_OURS(test_sigint_capture),
        ON_STOCK(test_keep_capture),
        ON(test_live_view, "our-xen"),
        ON(test_live_view, "our-xen-4.20"),
        ON(test_host_view, "our-xen"),
        ON(test_host_view, "our-xen-4.20"),
        ON(test_dom0_timeline, "our-xen"),
        ON(test_dom0_timeline, "our-xen-4.20"),
        ON(test_dom0_timeline_dat, "our-xen"),
        ON(test_dom0_timeline_dat, "our-xen-4.20"),
        ON_ARM(test_arm_cpu_khz_is_cntfrq),
        ON_ARM(test_arm_true_seconds),
        ON_ARM(test_arm_dom0_reads),
        ON_ARM(test_arm_upstream_file_clock),
        ON_DOMU(test_domu_scheduled),
        ON_DOMU(test_ours_agrees_with_xenalyze),
        ON_DOMU(test_debian_agrees_with_xenalyze),
        ON(test_arm_trace_points, "arm64-our-xen-4.20"),
        ON(test_arm_mmio, "arm64-our-xen-4.20"),
        ON(test_domain_filter, "debian-xen"),
        ON(test_domain_filter, "stock-4.20"),
        ON(test_domain_filter, "our-xen"),
        ON(test_domain_filter, "our-xen-4.20"),
        ON(test_domain_filter, "arm64-our-xen-4.20"),
        ON(test_trace_point_cost, "cost"),
        ON(test_trace_point_cost, "arm64-cost"),
    };

    if ( !(results = getenv("XT_RESULTS")) )
    {
        fprintf(stderr, "test_xen_agree: XT_RESULTS names no results "
                "directory\n");
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
