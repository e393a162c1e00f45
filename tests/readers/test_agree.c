/*
 * xentrace-summary's analysis against Debian's xenalyze --summary, and its
 * lost and unknown accounting.
 *
 * - on loss-free captures of xen-sim's mixed workload with 2 and 8 pCPUs
 *   (captures that start mid-run: the host runs before xentrace starts),
 *   and on a loss-free gen-trace file of 8 pCPUs, every figure both tools
 *   report per vCPU, guests' and idle, agrees: runstate counts, mean
 *   cycles and seconds (with the wake / preempt split), exit counts and
 *   mean cycles per reason and per VMCALL hypercall, I/O ports and MMIO
 *   addresses (the VGA console's aside), the RIPs of the most frequent
 *   external interrupt vector, injected vectors, PV hypercalls and
 *   events, the pCPUs each ran on, the span;
 *   and per pCPU, the time running and idle of --report-pcpu
 *   (tests/readers/check_agree.py says how, and names the differences by
 *   design); tests/xen/test_xen_agree.c does the same on real Xen;
 * - on lossy files (xen-sim's flood, gen-trace with losses), per vCPU
 *   the time in every state, lost and unknown included, is the span, and
 *   some of it is lost;
 * - each vCPU's running, blocked and offline intervals' percentiles are
 *   those of the intervals between its runstate changes in the dump;
 * - --longest lists the lengths of the exits, VMCALLs and waits that the
 *   dump's records give, longest first;
 * - the memory operations done for each domain are the dump's TRC_MEM
 *   records that name it;
 * - --from/--to cut the span, --domain and --cpu the vCPUs shown, --top
 *   the rows;
 * - --diff's figures are each trace's own summary's;
 * - xentrace-plot --scatter's points and intervals are the summary's;
 * - so are the Perfetto export's, as Perfetto's trace processor reads it.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_cmd.h"

#define XENALYZE    "/usr/bin/xenalyze"


static char dir[] = "/tmp/test_agree.XXXXXX";

/*
 * Run a shell command made from @fmt; returns its exit status.  What a
 * failing command said goes to the standard error (the checker's
 * differences).
 */
static int sh(const char *fmt, ...)
{
    char cmd[4096], log[256], show[512];
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    va_list ap;
    int status;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    snprintf(log, sizeof(log), "%s/sh.log", dir);
    status = run_cmd(argv, log);
    if ( status )
    {
        snprintf(show, sizeof(show), "head -n 20 %s >&2", log);
        if ( system(show) )
            fprintf(stderr, "(cannot show %s)\n", log);
    }
    return status;
}

/* A Python expression over the summary @name.json, as "s", printed. */
static long long json_value(const char *name, const char *expr)
{
    char path[256];
    long long n = -1;
    FILE *f;

    assert_int_equal(sh("python3 -c 'import json,sys; "
                        "s = json.load(open(sys.argv[1])); print(int(%s))' "
                        "%s/%s.json > %s/%s.value", expr, dir, name, dir,
                        name), 0);
    snprintf(path, sizeof(path), "%s/%s.value", dir, name);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lld", &n), 1);
    fclose(f);
    return n;
}

static int capture(const char *name, const char *pcpus, const char *workload)
{
    return sh("%s --pcpus %s --workload %s -- %s -D -e all -T 1 %s/%s.bin",
              XEN_SIM, pcpus, workload, XENTRACE, dir, name);
}

/*
 * A capture without losses: on a busy machine xentrace may fall behind
 * the simulated host and lose records (counted, as it must), so a few
 * tries are allowed.
 */
static int capture_loss_free(const char *name, const char *pcpus)
{
    unsigned int try;

    for ( try = 0; try < 5; try++ )
        if ( !capture(name, pcpus, "mixed") &&
             !sh("%s --json %s/%s.bin | python3 -c 'import json,sys; "
                 "sys.exit(sum(c[\"lost_records\"] for c in "
                 "json.load(sys.stdin)[\"cpus\"]) != 0)'", SUMMARY, dir,
                 name) )
            return 0;
    return -1;
}

static int make_files(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    if ( capture_loss_free("sim2", "2") || capture_loss_free("sim8", "8") ||
         capture("flood", "2", "flood") ||
         sh("%s -c 8 -s 2M %s/gen8.bin", GEN_TRACE, dir) ||
         sh("%s -c 8 -s 2M -l 300 %s/lossy8.bin", GEN_TRACE, dir) )
        return -1;
    return 0;
}

static int remove_files(void **state)
{
    (void)state;
    return sh("rm -rf %s", dir);
}

static void summarise(const char *name, const char *options)
{
    assert_int_equal(sh("%s --json %s %s/%s.bin > %s/%s.json", SUMMARY,
                        options, dir, name, dir, name), 0);
}

/*
 * Loss-free: the file says so, then every common figure agrees, as
 * agree-with-xenalyze checks it on real Xen (its --summary with the MMIO
 * addresses and a vector's interrupt RIPs, its --report-pcpu, the bytes
 * per CPU and class).
 */
static void check_xenalyze(const char *name)
{
    summarise(name, "");
    assert_int_equal(json_value(name, "sum(c[\"lost_records\"] for c in "
                                "s[\"cpus\"])"), 0);
    assert_int_equal(sh("%s %s %s/%s.bin", AGREE_WITH_XENALYZE, SUMMARY, dir,
                        name), 0);
}

static void test_sim_2_agrees_with_xenalyze(void **state)
{
    (void)state;
    check_xenalyze("sim2");
}

static void test_sim_8_agrees_with_xenalyze(void **state)
{
    (void)state;
    check_xenalyze("sim8");
}

static void test_gen_8_agrees_with_xenalyze(void **state)
{
    (void)state;
    check_xenalyze("gen8");
}

/* The intervals' percentiles against the dump's runstate changes. */
static void check_intervals(const char *name)
{
    summarise(name, "");
    assert_int_equal(sh("%s %s/%s.bin > %s/%s.dump", DUMP, dir, name, dir,
                        name), 0);
    assert_int_equal(sh("python3 %s intervals %s/%s.dump %s/%s.json", CHECK,
                        dir, name, dir, name), 0);
}

static void test_intervals_match_the_records(void **state)
{
    (void)state;
    check_intervals("sim2");
    check_intervals("gen8");
}

/* The memory operations per domain against the dump's TRC_MEM records. */
static void test_memory_operations_match_the_records(void **state)
{
    (void)state;
    summarise("sim8", "");
    assert_int_equal(sh("%s %s/sim8.bin > %s/sim8.dump && python3 %s mem "
                        "%s/sim8.dump %s/sim8.json", DUMP, dir, dir, CHECK,
                        dir, dir), 0);
}

/* --longest's lists against the dump's exits and runstate changes. */
static void check_longest(const char *name)
{
    assert_int_equal(sh("%s --json --longest 100000 %s/%s.bin > "
                        "%s/%s.long.json && %s --json --longest 7 %s/%s.bin "
                        "> %s/%s.short.json && %s %s/%s.bin > %s/%s.dump",
                        SUMMARY, dir, name, dir, name, SUMMARY, dir, name,
                        dir, name, DUMP, dir, name, dir, name), 0);
    assert_int_equal(sh("python3 %s longest %s/%s.dump %s/%s.long.json "
                        "%s/%s.short.json", CHECK, dir, name, dir, name, dir,
                        name), 0);
}

static void test_longest_match_the_records(void **state)
{
    (void)state;
    check_longest("sim2");
    check_longest("sim8");
}

/*
 * Past xenalyze's 256 pCPUs (MAX_CPUS: it stops at pCPU 257): a
 * gen-trace file of 4096, every one of them with records in the summary.
 */
static void test_4096_pcpus(void **state)
{
    (void)state;
    assert_int_equal(sh("%s -c 4096 -s 16M %s/g4096.bin", GEN_TRACE, dir),
                     0);
    summarise("g4096", "");
    assert_int_equal(json_value("g4096", "len(s[\"pcpus\"])"), 4096);
    assert_int_equal(json_value("g4096", "sum(c[\"records\"] > 0 for c in "
                                "s[\"cpus\"])"), 4096);
    assert_int_equal(sh("! %s --summary %s/g4096.bin > %s/x.out 2>&1 && "
                        "grep -q 'cpu 257 > MAX_CPUS 256' %s/x.out",
                        XENALYZE, dir, dir, dir), 0);
    assert_int_equal(sh("rm %s/g4096.bin %s/x.out", dir, dir), 0);
}

/* Lossy: the states still sum to the span, and time is booked lost. */
static void check_lost(const char *name)
{
    summarise(name, "");
    assert_true(json_value(name, "sum(c[\"lost_records\"] for c in "
                           "s[\"cpus\"])") > 0);
    assert_int_equal(sh("python3 %s span %s/%s.json", CHECK, dir, name), 0);
    assert_true(json_value(name, "sum(v[\"runstates\"][\"lost\"][\"cycles\"] "
                           "for v in s[\"vcpus\"])") > 0);
    assert_true(json_value(name, "sum(p[\"lost\"][\"gaps\"] "
                           "for p in s[\"pcpus\"])") > 0);
}

static void test_flood_lost_time_is_accounted(void **state)
{
    (void)state;
    check_lost("flood");
}

static void test_gen_lossy_lost_time_is_accounted(void **state)
{
    (void)state;
    check_lost("lossy8");
}

/* Loss-free files have no lost time, and unknown only at the edges. */
static void test_loss_free_has_no_lost_time(void **state)
{
    (void)state;
    summarise("sim8", "");
    assert_int_equal(sh("python3 %s span %s/sim8.json", CHECK, dir), 0);
    assert_int_equal(json_value("sim8", "sum(v[\"runstates\"][\"lost\"]"
                                "[\"cycles\"] for v in s[\"vcpus\"])"), 0);
    assert_int_equal(json_value("sim8", "s[\"unplaced\"][\"mismatches\"]"), 0);
}

static void test_window_cuts_the_span(void **state)
{
    long long whole, cut;

    (void)state;
    summarise("gen8", "");
    whole = json_value("gen8", "s[\"span_cycles\"]");
    summarise("gen8", "--from 0.1 --to 0.3");
    cut = json_value("gen8", "s[\"span_cycles\"]");
    /* 2.4 GHz, the file's metadata: 0.2 s. */
    assert_true(whole > 720000000LL);
    assert_int_equal(cut, 480000000LL);
    assert_int_equal(sh("python3 %s span %s/gen8.json", CHECK, dir), 0);
}

static void test_filters(void **state)
{
    (void)state;
    summarise("sim8", "--domain 1");
    assert_true(json_value("sim8", "len(s[\"vcpus\"])") > 0);
    assert_int_equal(json_value("sim8", "len([v for v in s[\"vcpus\"] "
                                "if v[\"domain\"] != 1])"), 0);
    assert_int_equal(json_value("sim8", "len(s[\"domains\"])"), 1);
    summarise("sim8", "--cpu 3");
    assert_int_equal(json_value("sim8", "len(s[\"pcpus\"])"), 1);
    assert_int_equal(json_value("sim8", "len([v for v in s[\"vcpus\"] "
                                "if 3 not in [p[\"key\"] for p in "
                                "v[\"pcpus\"]]])"), 0);
    summarise("sim8", "--top 2");
    assert_int_equal(json_value("sim8", "len(s[\"vcpus\"])"), 2);
    assert_true(json_value("sim8", "max(len(v[\"exits\"]) for v in "
                           "s[\"domains\"])") <= 2);
}

/*
 * Sorted by cost: exits by Xen's cycles (halted ones not), most first;
 * no share above the whole.
 */
static void test_sorted_by_cost(void **state)
{
    (void)state;
    summarise("sim8", "");
    assert_int_equal(json_value("sim8", "all(e[\"exits\"] == sorted("
                                "e[\"exits\"], key=lambda x: "
                                "x[\"halted_cycles\"] - x[\"cycles\"]) "
                                "for e in s[\"vcpus\"] + s[\"domains\"])"), 1);
    assert_true(json_value("sim8", "sum(x[\"halted_cycles\"] > 0 for e in "
                           "s[\"vcpus\"] for x in e[\"exits\"])") > 0);
    /* No exit, HLT's included, takes more than its vCPU's running time. */
    assert_int_equal(json_value("sim8", "all(x[\"share_running\"] <= 1 for e "
                                "in s[\"vcpus\"] + s[\"domains\"] for x in "
                                "e[\"exits\"])"), 1);
    assert_true(json_value("sim8", "sum(len(v[\"exits\"]) for v in "
                           "s[\"vcpus\"])") > 0);
}

/*
 * --diff BEFORE AFTER: each figure is its trace's own summary's, the
 * changes theirs (check_diff.py).  A trace against itself changes
 * nothing; one whose domains are unnamed (gen-trace's) is matched by id;
 * a domain named otherwise in the other trace is in one of the two only.
 */
static void check_diff(const char *before, const char *after)
{
    summarise(before, "");
    summarise(after, "");
    assert_int_equal(sh("%s --diff %s/%s.bin %s/%s.bin > %s/diff.txt && "
                        "python3 %s %s/diff.txt %s/%s.json %s/%s.json",
                        SUMMARY, dir, before, dir, after, dir, CHECK_DIFF, dir,
                        dir, before, dir, after), 0);
}

static void test_diff_matches_each_summary(void **state)
{
    (void)state;
    check_diff("sim2", "sim8");
    check_diff("sim2", "sim2");
    assert_int_equal(sh("! grep '%%$' %s/diff.txt", dir), 0);
    check_diff("sim2", "gen8");
    assert_int_equal(sh("grep -qx 'd1 (web-01), after d1' %s/diff.txt", dir),
                     0);
    assert_int_equal(sh("%s --pcpus 2 --workload mixed --rename "
                        "1=web-02@0.1 -- %s -D -e all -T 1 %s/renamed.bin",
                        XEN_SIM, XENTRACE, dir), 0);
    check_diff("sim2", "renamed");
    assert_int_equal(sh("grep -qx 'd1 (web-01): only before' %s/diff.txt && "
                        "grep -qx 'd1 (web-02): only after' %s/diff.txt",
                        dir, dir), 0);
}

/*
 * xentrace-plot --scatter, every kind: each point and interval of the
 * picture and of its CSV is one the summary counts (check_scatter.py), on
 * loss-free captures, a lossy one and a gen-trace file; from a pipe the
 * picture is the file's (but for the title, which names the input).
 */
static void check_scatter(const char *name)
{
    static const char *const kinds[] = {
        "exits", "waits", "to-halt", "irq", "runstate", "pcpu",
    };
    unsigned int k;

    summarise(name, "");
    for ( k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++ )
        assert_int_equal(sh("%s --scatter %s -o %s/%s.svg %s/%s.bin && "
                            "%s --scatter %s --csv %s/%s.bin > %s/%s.csv && "
                            "python3 %s %s %s/%s.svg %s/%s.csv %s/%s.json",
                            PLOT, kinds[k], dir, name, dir, name, PLOT,
                            kinds[k], dir, name, dir, name, CHECK_SCATTER,
                            kinds[k], dir, name, dir, name, dir, name), 0);
}

static void test_scatter_matches_the_summary(void **state)
{
    (void)state;
    check_scatter("sim2");
    check_scatter("sim8");
    check_scatter("flood");
    check_scatter("gen8");
    assert_int_equal(sh("%s --scatter waits %s/sim2.bin | sed 4d > %s/f.svg "
                        "&& cat %s/sim2.bin | %s --scatter waits | sed 4d | "
                        "cmp - %s/f.svg", PLOT, dir, dir, dir, PLOT, dir), 0);
}

/*
 * The Perfetto export as Perfetto's own trace processor imports it: no
 * error; each vCPU's runs, exits, hypercalls and injections, each pCPU's
 * losses, the to-halt counters, the summary's (perfetto-agrees runs
 * check_tp.py, which names where the runs differ by design).  Skipped
 * without the trace processor.
 */
static void check_perfetto(const char *name)
{
    assert_int_equal(sh("%s %s %s/%s.bin", PERFETTO_AGREES, READERS, dir,
                        name), 0);
}

static void test_perfetto_agrees_with_the_summary(void **state)
{
    (void)state;
    if ( !trace_processor() )
        skip();
    check_perfetto("sim2");
    check_perfetto("sim8");
    check_perfetto("flood");
    check_perfetto("gen8");
}

/*
 * Latencies across to dom0 (xentrace --dom0's lanes): sim2 with two lanes
 * added, whose IRQs and tasks follow dom0's vCPUs' runs at known offsets
 * (check_crossing.py): the summary finds every chain, with each stage's
 * largest time as made, and Xen's figures stay as they were.
 */
static void test_crossing_finds_the_chains(void **state)
{
    (void)state;
    assert_int_equal(sh("python3 %s %s %s %s/sim2.bin %s/crossed.bin",
                        CHECK_CROSSING, SUMMARY, DUMP, dir, dir), 0);
}

static void test_bad_options(void **state)
{
    (void)state;
    assert_int_equal(sh("%s --csv %s/sim2.bin", PLOT, dir), 1);
    assert_int_equal(sh("%s --scatter exit %s/sim2.bin", PLOT, dir), 1);
    assert_int_equal(sh("%s --scatter exits -b 1001 %s/sim2.bin", PLOT, dir),
                     1);
    assert_int_equal(sh("%s --diff %s/sim2.bin", SUMMARY, dir), 1);
    assert_int_equal(sh("%s --diff --json %s/sim2.bin %s/sim8.bin", SUMMARY,
                        dir, dir), 1);
    assert_int_equal(sh("%s --diff - - < %s/sim2.bin", SUMMARY, dir), 1);
    assert_int_equal(sh("%s %s/sim2.bin %s/sim8.bin", SUMMARY, dir, dir), 1);
    assert_int_equal(sh("%s --top 0 %s/sim2.bin", SUMMARY, dir), 1);
    assert_int_equal(sh("%s --interrupt-rips 256 %s/sim2.bin", SUMMARY, dir),
                     1);
    assert_int_equal(sh("%s --interrupt-rips 0x %s/sim2.bin", SUMMARY, dir),
                     1);
    assert_int_equal(sh("%s --domain 65536 %s/sim2.bin", SUMMARY, dir), 1);
    assert_int_equal(sh("%s --from x %s/sim2.bin", SUMMARY, dir), 1);
    assert_int_equal(sh("%s --from 2 --to 1 %s/sim2.bin", SUMMARY, dir), 1);
    assert_int_equal(sh("%s --to tsc: %s/sim2.bin", SUMMARY, dir), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_2_agrees_with_xenalyze),
        cmocka_unit_test(test_sim_8_agrees_with_xenalyze),
        cmocka_unit_test(test_gen_8_agrees_with_xenalyze),
        cmocka_unit_test(test_intervals_match_the_records),
        cmocka_unit_test(test_longest_match_the_records),
        cmocka_unit_test(test_memory_operations_match_the_records),
        cmocka_unit_test(test_4096_pcpus),
        cmocka_unit_test(test_flood_lost_time_is_accounted),
        cmocka_unit_test(test_gen_lossy_lost_time_is_accounted),
        cmocka_unit_test(test_loss_free_has_no_lost_time),
        cmocka_unit_test(test_window_cuts_the_span),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_sorted_by_cost),
        cmocka_unit_test(test_diff_matches_each_summary),
        cmocka_unit_test(test_scatter_matches_the_summary),
        cmocka_unit_test(test_perfetto_agrees_with_the_summary),
        cmocka_unit_test(test_crossing_finds_the_chains),
        cmocka_unit_test(test_bad_options),
    };

    return cmocka_run_group_tests(tests, make_files, remove_files);
}
