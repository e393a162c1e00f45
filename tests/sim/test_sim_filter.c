/*
 * Filtering at the source against xen-sim: the domain filter (xentrace
 * -d) in Xen (our trace.c's TBUFOP commands) and, for a Xen without them
 * (xen-sim --stock-xen), in dom0; and the per-event switches (--event).
 *
 * What a filter keeps is defined so that a filtered capture tells the
 * same of the listed domains as an unfiltered one does: the summary's
 * figures of each listed domain and of its vCPUs are the same with the
 * filter as without it, given the same records.  xen-sim --repeatable
 * gives them: the same records whatever the pace, stamped with simulated
 * time.  The figures are compared over a window inside every capture,
 * whose ends are then the same: the ends of a capture are by design not,
 * as a filter may drop the first and the last records.
 *
 * Also: nothing lost silently (the file holds what Xen wrote, and with
 * dom0's filter what it dropped is counted), the filter in the file and
 * the summary, Xen's filter turned off at exit, steered by xentrace-ctl,
 * and bad lists refused.  The switches: an event of a masked class on and
 * one of a traced class off, back at exit, steered, refused by a Xen
 * without them, and bad arguments.
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

#include <stdint.h>
#include <public/trace.h>

#include "sim_util.h"

#define LISTED          "1,3"           /* an HVM domain and a PV one */
#define WINDOW_FROM     "tsc:240000000" /* 0.1 s to 2 s of simulated time */
#define WINDOW_TO       "tsc:4800000000"

/* The three captures of the same records, made once for the tests. */
enum { UNFILTERED, IN_XEN, IN_DOM0, NR_CAPTURES };
static const char *const capture_name[] = { "unfiltered", "in-xen",
                                            "in-dom0" };
static char path[NR_CAPTURES][64], log_path[NR_CAPTURES][64];
static struct tf_summary file[NR_CAPTURES];
static struct sim_cpu cpus[NR_CAPTURES][NR_PCPUS];

/* Capture @which: 3 s of the mixed workload's records, the same each time. */
static void capture(unsigned int which)
{
    char *argv[32] = {
        XEN_SIM, "--pcpus", "2", "--workload", "mixed", "--repeatable",
        "--cmdline", "tbuf_size=256", "--stats", sim_stats,
    };
    unsigned int n = 10;

    if ( which == IN_DOM0 )
        argv[n++] = "--stock-xen";
    argv[n++] = "--";
    argv[n++] = XENTRACE;
    argv[n++] = "-e";
    argv[n++] = "all";
    argv[n++] = "-T";
    argv[n++] = "3";
    if ( which != UNFILTERED )
    {
        argv[n++] = "-d";
        argv[n++] = LISTED;
    }
    argv[n++] = path[which];
    argv[n] = NULL;
    snprintf(path[which], sizeof(path[which]), "%s.%s", sim_trace,
             capture_name[which]);
    snprintf(log_path[which], sizeof(log_path[which]), "%s.%s", sim_log,
             capture_name[which]);
    if ( run_cmd(argv, log_path[which]) )
    {
        sim_show_file(log_path[which], 60);
        fail_msg("the %s capture failed", capture_name[which]);
    }
    sim_read_stats(sim_stats, cpus[which]);
    if ( !tf_read(path[which], &file[which]) )
        fail_msg("%s: %s", path[which], file[which].error);
}

static int setup(void **state)
{
    unsigned int i;

    sim_setup(state);
    for ( i = 0; i < NR_CAPTURES; i++ )
        capture(i);
    return 0;
}

static int teardown(void **state)
{
    unsigned int i;

    for ( i = 0; i < NR_CAPTURES; i++ )
    {
        unlink(path[i]);
        unlink(log_path[i]);
    }
    return sim_teardown(state);
}

/*
 * The summary's figures of domain @domid in capture @which over the
 * window: its row and its vCPUs' rows of the JSON, from "domains" to
 * "pcpus", the per-pCPU figures after them being of every domain.
 */
static char *domain_figures(unsigned int which, const char *domid)
{
    char *argv[] = { XT_SUMMARY, "--json", "-H", "2.4G", "--domain",
                     (char *)domid, "--from", WINDOW_FROM, "--to", WINDOW_TO,
                     path[which], NULL };
    char *json = sim_output_of(argv), *from, *to;

    if ( !(from = strstr(json, "\"span_cycles\":")) ||
         !(from = strstr(from, ",\"domains\":[")) ||
         !(to = strstr(from, ",\"pcpus\":[")) )
        fail_msg("%s: no domains and vcpus in:\n%.2000s", path[which], json);
    *to = '\0';
    memmove(json, from, to - from + 1);
    return json;
}

/* Each listed domain's figures, filtered in @which, as unfiltered. */
static void assert_same_figures(unsigned int which)
{
    static const char *const listed[] = { "1", "3" };
    unsigned int i;

    for ( i = 0; i < 2; i++ )
    {
        char *want = domain_figures(UNFILTERED, listed[i]);
        char *got = domain_figures(which, listed[i]);

        if ( strcmp(want, got) )
            fail_msg("d%s, %s: the figures differ\nunfiltered: %.1500s\n"
                     "%s: %.1500s", listed[i], capture_name[which], want,
                     capture_name[which], got);
        assert_true(strstr(got, "\"running\":{\"count\":") != NULL);
        free(want);
        free(got);
    }
}

/* The filter keeps a part, and the file holds what Xen wrote. */
static void test_xen_filter(void **state)
{
    uint64_t all = sim_file_records(&file[UNFILTERED]);
    uint64_t kept = sim_file_records(&file[IN_XEN]);

    (void)state;
    print_message("unfiltered %llu records, -d " LISTED " in Xen %llu\n",
                  (unsigned long long)all, (unsigned long long)kept);
    assert_true(kept > all / 10 && kept < all * 2 / 3);
    sim_assert_accounted(&file[IN_XEN], cpus[IN_XEN]);
    assert_true(file[IN_XEN].dom_filters > 0);
    assert_same_figures(IN_XEN);
}

/* The exit table's "filtered out in dom0" line: its records. */
static uint64_t filtered_in_dom0(const char *log)
{
    char *text = sim_read_text(log), *at;
    unsigned long long n;

    if ( !(at = strstr(text, "filtered out in dom0 (-d): ")) ||
         sscanf(at, "filtered out in dom0 (-d): %llu records", &n) != 1 )
        fail_msg("%s: no line of what dom0 filtered out:\n%.2000s", log,
                 text);
    free(text);
    return n;
}

/*
 * With Xen's refusal, one line says dom0 filters; every record Xen wrote
 * is in the file or counted as filtered out; the figures are the same.
 */
static void test_dom0_filter(void **state)
{
    char *text = sim_read_text(log_path[IN_DOM0]), *first;
    uint64_t written = cpus[IN_DOM0][0].records + cpus[IN_DOM0][1].records;
    uint64_t kept = sim_file_records(&file[IN_DOM0]);
    uint64_t dropped = filtered_in_dom0(log_path[IN_DOM0]);

    (void)state;
    first = strstr(text, "xentrace: -d: Xen has no domain filter");
    assert_non_null(first);
    assert_null(strstr(first + 1, "xentrace: -d: Xen has no domain filter"));
    free(text);
    print_message("Xen wrote %llu: %llu in the file, %llu filtered out\n",
                  (unsigned long long)written, (unsigned long long)kept,
                  (unsigned long long)dropped);
    assert_int_equal(kept + dropped, written);
    assert_true(kept > written / 10 && kept < written * 2 / 3);
    assert_same_figures(IN_DOM0);
}

/* xen-sim running @argv: status 1, xentrace's one line @why, no file. */
static void assert_refused(char *const argv[], const char *why)
{
    char *text, want[256];

    unlink(sim_trace);
    assert_int_equal(run_cmd(argv, sim_log), 1);
    text = sim_read_text(sim_log);
    snprintf(want, sizeof(want), "\nxentrace: %s\nxen-sim: ", why);
    sim_assert_has(text, want);
    free(text);
    assert_int_not_equal(access(sim_trace, F_OK), 0);
}

/*
 * dom0 tells whose context a record is from the scheduler's runstate
 * changes: without them in the mask, xentrace refuses in one line, and
 * leaves no file.
 */
static void test_dom0_filter_needs_sched(void **state)
{
    char *argv[] = { XEN_SIM, "--pcpus", "2", "--stock-xen", "--",
                     XENTRACE, "-e", "pv", "-d", "3", "-T", "1", sim_trace,
                     NULL };

    (void)state;
    assert_refused(argv, "-d: Xen has no domain filter, and xentrace needs "
                   "the scheduler's records to filter in dom0: add sched "
                   "to -e");
}

/* The summary's masks table says which domains, and who filtered. */
static void test_filter_in_summary(void **state)
{
    char *xen[] = { XT_SUMMARY, path[IN_XEN], NULL };
    char *dom0[] = { XT_SUMMARY, "--json", path[IN_DOM0], NULL };
    char *text;

    (void)state;
    text = sim_output_of(xen);
    sim_assert_has(text, " all              " LISTED "              none\n");
    free(text);
    text = sim_output_of(dom0);
    sim_assert_has(text, "\"domains\":\"" LISTED "\","
                   "\"domains_in_dom0\":true,\"switched\":\"none\"}");
    free(text);
}

/* Xen's filter is off once xentrace -d exits: the next capture has all. */
static void test_filter_off_at_exit(void **state)
{
    char first[80], second[80];
    struct tf_summary a, b;

    (void)state;
    snprintf(first, sizeof(first), "%s.first", sim_trace);
    snprintf(second, sizeof(second), "%s.second", sim_trace);
    if ( run_sh(sim_log, "%s --pcpus 2 --workload mixed -- sh -c "
                "'%s -e all -d 3 -T 1 %s && %s -e all -T 1 %s'", XEN_SIM,
                XENTRACE, first, XENTRACE, second) )
    {
        sim_show_file(sim_log, 60);
        fail_msg("the two captures failed");
    }
    assert_true(tf_read(first, &a) && tf_read(second, &b));
    print_message("-d 3: %llu records; then unfiltered: %llu\n",
                  (unsigned long long)sim_file_records(&a),
                  (unsigned long long)sim_file_records(&b));
    assert_true(sim_file_records(&b) > 2 * sim_file_records(&a));
    assert_int_equal(b.dom_filters, 0);
    unlink(first);
    unlink(second);
}

/*
 * A change is stamped with the newest record taken before it was made:
 * records written between that pass and the change come after the stamp,
 * up to a pass later (-s, 100 ms by default).
 */
#define LATE_S  0.25

/*
 * A 3 s capture of xentrace ARGS through its --control socket, steered a
 * second in by xentrace-ctl STEER, then asked for --status: the two
 * answers, a line each.
 */
static char *steer_capture(const char *args, const char *steer)
{
    char ctl[80], out[80], *text;

    snprintf(ctl, sizeof(ctl), "%s.ctl", sim_trace);
    snprintf(out, sizeof(out), "%s.ctl-out", sim_trace);
    if ( run_sh(sim_log, "%s --pcpus 2 -- sh -c \"%s --control %s %s -T 3 "
                "%s & x=\\$!; i=0; while [ ! -S %s ] && [ \\$i -lt 50 ]; "
                "do sleep 0.1; i=\\$((i + 1)); done; sleep 1; %s -s %s %s > "
                "%s && %s -s %s --status >> %s; wait \\$x\"", XEN_SIM,
                XENTRACE, ctl, args, sim_trace, ctl, XENTRACE_CTL, ctl, steer,
                out, XENTRACE_CTL, ctl, out) )
    {
        sim_show_file(sim_log, 40);
        fail_msg("the steered capture failed");
    }
    text = sim_read_text(out);
    unlink(out);
    return text;
}

/*
 * When the second mask period, told as @was then @now (the end of each
 * period's JSON), starts.
 */
static double second_period(const char *was, const char *now)
{
    char *json[] = { XT_SUMMARY, "--json", sim_trace, NULL };
    char *text = sim_output_of(json), *at, want[256];
    double from;

    snprintf(want, sizeof(want), "%s},{\"from_seconds\":", was);
    if ( !(at = strstr(text, want)) ||
         sscanf(at + strlen(want), "%lf", &from) != 1 )
        fail_msg("no second mask period after %s in:\n%.2000s", was, text);
    snprintf(want, sizeof(want), "%s}]", now);
    sim_assert_has(at, want);
    free(text);
    return from;
}

/*
 * The records of the steered capture whose event starts with @prefix:
 * how many came before @changed, and when the last came.
 */
static unsigned int records_before(const char *prefix, double changed,
                                   double *last)
{
    char *dump[] = { XT_DUMP, "-s", sim_trace, NULL };
    char *text = sim_output_of(dump), *line, *at;
    unsigned int before = 0;
    double t;

    /* With -s, the dump's lines start with their seconds. */
    *last = 0;
    for ( line = text; line && *line; line = strchr(line, '\n'),
          line = line ? line + 1 : NULL )
        if ( sscanf(line, "%lf", &t) == 1 && (at = strstr(line, prefix)) &&
             at < strchr(line, '\n') )
        {
            before += t < changed;
            *last = t > *last ? t : *last;
        }
    free(text);
    return before;
}

/*
 * A capture steered to one domain a second in, by its name (xentrace-ctl
 * -d db-01, xen-sim's d3): the change told as a mask period, --status
 * saying so, and no HVM record (d1's and d2's, both HVM) once the change
 * has been made.
 */
static void test_filter_steered(void **state)
{
    char *text = steer_capture("-e all", "-d db-01");
    double changed, last;
    unsigned int before;

    (void)state;
    sim_assert_has(text, "domains 3\n");
    sim_assert_has(text, "event mask 0x0ffff000, domains 3, ");
    free(text);
    changed = second_period("\"domains\":\"all\",\"domains_in_dom0\":false,"
                            "\"switched\":\"none\"",
                            "\"domains\":\"3\",\"domains_in_dom0\":false,"
                            "\"switched\":\"none\"");
    before = records_before(" TRC_HVM_", changed, &last);
    print_message("domains 3 from %.3f s: %u HVM records before, the last "
                  "at %.3f s\n", changed, before, last);
    assert_true(changed > 0.5 && before > 1000);
    assert_true(last < changed + LATE_S);
}

/* Lines of @text with @name as a whole word (a record's event). */
static unsigned int count_event(const char *text, const char *name)
{
    char word[80];
    const char *at;
    unsigned int n = 0;

    snprintf(word, sizeof(word), " %s ", name);
    for ( at = text; (at = strstr(at, word)); at++ )
        n++;
    return n;
}

/*
 * -e sched with TRC_HVM_VMEXIT64 switched on and TRC_SCHED_SWITCH off: the
 * one HVM event and no switch record; the file holds what Xen wrote and
 * the summary names the switches; the next capture, after exit, has the
 * class mask's events again.
 */
static void test_event_switches(void **state)
{
    char second[80];
    char *summary[] = { XT_SUMMARY, sim_trace, NULL };
    char *dump[] = { XT_DUMP, sim_trace, NULL };
    char *again[] = { XT_DUMP, second, NULL };
    char *text;

    (void)state;
    snprintf(second, sizeof(second), "%s.second", sim_trace);
    if ( run_sh(sim_log, "%s --pcpus 2 -- sh -c '%s -e sched --event "
                "TRC_HVM_VMEXIT64=on --event TRC_SCHED_SWITCH=off -T 2 %s && "
                "%s -e sched -T 1 %s'", XEN_SIM, XENTRACE, sim_trace,
                XENTRACE, second) )
    {
        sim_show_file(sim_log, 40);
        fail_msg("the switched capture failed");
    }
    text = sim_output_of(dump);
    print_message("switched: %u TRC_HVM_VMEXIT64, %u TRC_SCHED_SWITCH, "
                  "%u TRC_SCHED_SWITCH_INFPREV\n",
                  count_event(text, "TRC_HVM_VMEXIT64"),
                  count_event(text, "TRC_SCHED_SWITCH"),
                  count_event(text, "TRC_SCHED_SWITCH_INFPREV"));
    assert_true(count_event(text, "TRC_HVM_VMEXIT64") > 100);
    assert_null(strstr(text, " TRC_HVM_VMENTRY "));
    assert_int_equal(count_event(text, "TRC_SCHED_SWITCH"), 0);
    assert_true(count_event(text, "TRC_SCHED_SWITCH_INFPREV") > 100);
    free(text);
    text = sim_output_of(summary);
    sim_assert_has(text, " all              +TRC_HVM_VMEXIT64,"
                   "-TRC_SCHED_SWITCH\n");
    free(text);

    text = sim_output_of(again);
    assert_int_equal(count_event(text, "TRC_HVM_VMEXIT64"), 0);
    assert_true(count_event(text, "TRC_SCHED_SWITCH") > 100);
    free(text);
    unlink(second);
}

/*
 * TRC_SCHED_WAKE switched off a second into a capture (xentrace-ctl
 * --event): a mask period says so, --status too, and no wake is traced
 * once the change is made.
 */
static void test_event_switch_steered(void **state)
{
    char *text = steer_capture("-e sched", "--event TRC_SCHED_WAKE=off");
    double changed, last;
    unsigned int before;

    (void)state;
    sim_assert_has(text, "event 0x00028004 off\n");
    sim_assert_has(text, ", switched -TRC_SCHED_WAKE, ");
    free(text);
    changed = second_period("\"switched\":\"none\"",
                            "\"switched\":\"-TRC_SCHED_WAKE\"");
    before = records_before(" TRC_SCHED_WAKE ", changed, &last);
    print_message("TRC_SCHED_WAKE off from %.3f s: %u before, the last at "
                  "%.3f s\n", changed, before, last);
    assert_true(before > 100);
    assert_true(last < changed + LATE_S);
}

/* A domain by a name xenstore does not have: one line, no file. */
static void test_unknown_domain_name(void **state)
{
    char *argv[] = { XEN_SIM, "--pcpus", "2", "--", XENTRACE, "-e", "all",
                     "-d", "0,web-99", "-T", "1", sim_trace, NULL };

    (void)state;
    assert_refused(argv, "-d 0,web-99: web-99: no domain of that name in "
                   "xenstore");
}

/* A Xen without switches: one line, status 1, no file. */
static void test_event_switches_refused(void **state)
{
    char *argv[] = { XEN_SIM, "--pcpus", "2", "--stock-xen", "--",
                     XENTRACE, "-e", "sched", "--event",
                     "TRC_HVM_VMEXIT64=on", "-T", "1", sim_trace, NULL };

    (void)state;
    assert_refused(argv, "--event: Xen has no per-event switches");
}

/* A bad list or switch: one line, status 1, before the host is touched. */
static void test_bad_domain_lists(void **state)
{
    static const char *const bad[][3] = {
        { "-d", "32768", "-d 32768: 32768: too large (domains 0 to 32767)" },
        { "-d", "3,7-5", "-d 3,7-5: 7-5: wrong order (domains 0 to 32767)" },
        { "-d", "", "-d : empty item (domains 0 to 32767)" },
        { "--event", "TRC_NO_SUCH=on", "--event TRC_NO_SUCH=on: no such "
          "event (a name of the catalogue, or a number)" },
        { "--event", "TRC_SCHED_WAKE", "--event TRC_SCHED_WAKE: not "
          "EVENT=on or EVENT=off" },
        { "--event", "TRC_SCHED_WAKE=mask", "--event TRC_SCHED_WAKE=mask: "
          "not EVENT=on or EVENT=off" },
        { "--event", "0x10000000=on", "--event 0x10000000=on: not an event "
          "(a name of the catalogue, or 1 to 0x0fffffff)" },
    };
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        char *argv[] = { XENTRACE, (char *)bad[i][0], (char *)bad[i][1],
                         sim_trace, NULL };
        char *text, want[128];

        assert_int_equal(run_cmd(argv, sim_log), 1);
        text = sim_read_text(sim_log);
        snprintf(want, sizeof(want), "xentrace: %s\n", bad[i][2]);
        assert_string_equal(text, want);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xen_filter),
        cmocka_unit_test(test_dom0_filter),
        cmocka_unit_test(test_dom0_filter_needs_sched),
        cmocka_unit_test(test_filter_in_summary),
        cmocka_unit_test(test_filter_off_at_exit),
        cmocka_unit_test(test_filter_steered),
        cmocka_unit_test(test_unknown_domain_name),
        cmocka_unit_test(test_event_switches),
        cmocka_unit_test(test_event_switch_steered),
        cmocka_unit_test(test_event_switches_refused),
        cmocka_unit_test(test_bad_domain_lists),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
