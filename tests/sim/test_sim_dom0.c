/*
 * xentrace --dom0 against xen-sim and this host's own ftrace.  xen-sim's
 * TSC is the host's, and the host's ftrace with the x86-tsc clock is dom0's
 * in the sense that matters: a second source on the same clock.  xen-sim
 * --notify makes the causal chain a Xen host has when a device interrupt
 * reaches a dom0 backend: Xen's record, then a byte down a FIFO that a
 * host process reads.  The capture must show the record, then that
 * process waking, every time (check_dom0.py), account for every event as
 * the exit table says, stay readable by Debian's xenalyze, put dom0's
 * CPUs on a second machine in Perfetto and a second stream class in CTF.
 * The same for a trace.dat that trace-cmd took of the host's ftrace
 * while xentrace recorded xen-sim alone, joined by xentrace-join.
 *
 * The test mounts tracefs where it is not; without tracefs or privilege
 * it skips, saying why.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim_util.h"

#define TRACEFS "/sys/kernel/tracing"

static char fifo[96], json[96], dump[96], pftrace[96], ctf[96], check[512];
static char dat[96], joined[96], report[96], instance[96];

/* tracefs with the x86-tsc clock, mounted if need be: false if not here. */
static bool have_tracefs(void)
{
    char clocks[512] = "";
    FILE *f;

    if ( access(TRACEFS "/trace_clock", R_OK) )
        mount("nodev", TRACEFS, "tracefs", 0, NULL);
    if ( !(f = fopen(TRACEFS "/trace_clock", "r")) )
        return false;
    if ( !fgets(clocks, sizeof(clocks), f) )
        clocks[0] = '\0';
    fclose(f);
    return strstr(clocks, "x86-tsc") != NULL;
}

/* No tracefs instance of ours is left behind. */
static void assert_no_instance(void)
{
    DIR *d = opendir(TRACEFS "/instances");
    struct dirent *e;

    assert_non_null(d);
    while ( (e = readdir(d)) )
        if ( !strncmp(e->d_name, "xentrace-ng-", 12) )
            fail_msg("tracefs instance %s left behind", e->d_name);
    closedir(d);
}

/* A process that reads @fifo until its end: xen-sim --notify's dom0 side. */
static pid_t start_reader(void)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if ( !pid )
    {
        char buf[64];
        int fd = open(fifo, O_RDONLY);

        while ( fd >= 0 && read(fd, buf, sizeof(buf)) > 0 )
            ;
        _exit(0);
    }
    return pid;
}

static int setup(void **state)
{
    if ( sim_setup(state) )
        return -1;
    snprintf(fifo, sizeof(fifo), "%s.fifo", sim_trace);
    snprintf(json, sizeof(json), "%s.json", sim_trace);
    snprintf(dump, sizeof(dump), "%s.dump", sim_trace);
    snprintf(pftrace, sizeof(pftrace), "%s.pftrace", sim_trace);
    snprintf(ctf, sizeof(ctf), "%s.ctf", sim_trace);
    snprintf(dat, sizeof(dat), "%s.dat", sim_trace);
    snprintf(joined, sizeof(joined), "%s.joined", sim_trace);
    snprintf(report, sizeof(report), "%s.report", sim_trace);
    snprintf(instance, sizeof(instance), TRACEFS "/instances/xt-join-test-%d",
             (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    unlink(fifo);
    unlink(json);
    unlink(dump);
    unlink(pftrace);
    unlink(dat);
    unlink(joined);
    unlink(report);
    rmdir(instance);
    if ( run_sh(sim_summary, "rm -rf %s", ctf) )
        return -1;
    unlink(sim_summary);
    return sim_teardown(state);
}

/* Run xen-sim --notify with @argv after its "--", its reader beside. */
static pid_t capture_notified(char *argv[])
{
    pid_t reader;
    int status;

    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    reader = start_reader();
    if ( run_cmd(argv, sim_log) )
    {
        kill(reader, SIGKILL);
        sim_show_file(sim_log, 40);
        fail_msg("the capture failed");
    }
    kill(reader, SIGTERM);
    assert_int_equal(waitpid(reader, &status, 0), reader);
    return reader;
}

/*
 * @file, with lanes, read by every reader and checked by check_dom0.py
 * against @table (the exit table of what wrote it) and @more of its
 * options, @reader being the process the notifications woke.
 */
static void check_lanes(const char *file, const char *table, pid_t reader,
                        const char *more)
{
    assert_int_equal(run_sh(sim_summary, "%s --json %s > %s", XT_SUMMARY,
                            file, json), 0);
    assert_int_equal(run_sh(sim_summary, "%s %s > %s", XT_DUMP, file, dump),
                     0);
    assert_int_equal(run_sh(sim_summary, "%s --perfetto %s --ctf %s %s",
                            XT_EXPORT, pftrace, ctf, file), 0);
    /* Perfetto's own reading of dom0's machine, where it is here. */
    check[0] = '\0';
    if ( trace_processor() )
        snprintf(check, sizeof(check), "--perfetto %s %s", trace_processor(),
                 pftrace);
    if ( run_sh(sim_summary, "python3 %s %s %s %s --notified %d --ctf %s "
                "%s %s", CHECK_DOM0, table, json, dump, (int)reader, ctf,
                check, more) )
    {
        sim_show_file(sim_summary, 30);
        fail_msg("check_dom0.py");
    }
    if ( run_sh(sim_summary, "%s %s %s", AGREE, XT_SUMMARY, file) )
    {
        sim_show_file(sim_summary, 30);
        fail_msg("xenalyze does not read the capture as the summary does");
    }
    assert_int_equal(run_sh(sim_summary, "rm -rf %s", ctf), 0);
}

static void need_tracefs(void)
{
    if ( !have_tracefs() )
    {
        print_message("no tracefs with x86-tsc here: skipped\n");
        skip();
    }
}

/* A capture with ftrace's @clock, checked (see the top). */
static void cause_then_effect(const char *clock)
{
    char *argv[] = {
        XEN_SIM, "--pcpus", "2", "--workload", "mixed", "--notify", fifo,
        "--", XENTRACE, "--dom0", "sched,irq,softirq", "--dom0-clock",
        (char *)clock, "-e", "all", "-T", "2", sim_trace, NULL,
    };
    pid_t reader;

    need_tracefs();
    reader = capture_notified(argv);
    check_lanes(sim_trace, sim_log, reader, "");
    assert_no_instance();
}

static void test_cause_then_effect(void **state)
{
    (void)state;
    cause_then_effect("x86-tsc");
}

/*
 * The same on ftrace's mono clock, which xentrace puts on the TSC through
 * the pairs, as on a kernel without x86-tsc: as exact, to the order of a
 * notification and the wake-up some microseconds after it.
 */
static void test_mono_clock(void **state)
{
    (void)state;
    cause_then_effect("mono");
}

/* Bad lists and events the kernel lacks: one line, exit 1, nothing left. */
static void test_refused(void **state)
{
    char *bad_list[] = { XENTRACE, "--dom0", "sched,,irq", sim_trace, NULL };
    char *no_event[] = {
        XEN_SIM, "--pcpus", "2", "--", XENTRACE, "--dom0",
        "sched,nosuch:event", "-T", "1", sim_trace, NULL,
    };
    char *log;

    (void)state;
    assert_int_equal(run_cmd(bad_list, sim_log), 1);
    log = sim_read_text(sim_log);
    sim_assert_has(log, "xentrace: --dom0 sched,,irq: not a keyword");
    free(log);
    need_tracefs();
    assert_int_not_equal(run_cmd(no_event, sim_log), 0);
    log = sim_read_text(sim_log);
    sim_assert_has(log, "xentrace: --dom0: dom0's kernel has no event "
                        "nosuch:event\n");
    free(log);
    assert_no_instance();
}

/* @value into the tracefs file @name of the test's instance. */
static void instance_write(const char *name, const char *value)
{
    char path[160];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", instance, name);
    assert_non_null(f = fopen(path, "w"));
    assert_true(fputs(value, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

/* xentrace-join with @args: one line @says, and exit 1. */
static void join_says(const char *args, const char *says)
{
    char *log;

    assert_int_equal(run_sh(sim_log, "%s %s", XT_JOIN, args), 1);
    log = sim_read_text(sim_log);
    sim_assert_has(log, says);
    if ( strchr(log, '\n') != strrchr(log, '\n') )
        fail_msg("more than a line: %s", log);
    free(log);
}

/*
 * What xentrace-join refuses, after test_join's files: each in one line,
 * and nothing written but for a full disk's valid start.
 */
#define CRASH_DAT "tests/sim/libtracecmd-crash.dat"

static void join_refused(void)
{
    const char *name = strrchr(instance, '/') + 1;
    char args[512], says[512], *log;

    join_says("", "usage: xentrace-join");
    snprintf(args, sizeof(args), "%s %s %s", dat, dat, joined);
    snprintf(says, sizeof(says), "xentrace-join: %s: not a trace file", dat);
    join_says(args, says);
    snprintf(args, sizeof(args), "%s %s %s", sim_trace, sim_trace, joined);
    snprintf(says, sizeof(says), "xentrace-join: %s: not a trace.dat that "
             "libtracecmd reads", sim_trace);
    join_says(args, says);
    snprintf(args, sizeof(args), "-B %s %s %s %s", name, joined, dat, report);
    snprintf(says, sizeof(says), "xentrace-join: %s: holds dom0's events "
             "already", joined);
    join_says(args, says);
    snprintf(args, sizeof(args), "%s %s %s", sim_trace, dat, joined);
    snprintf(says, sizeof(says), "xentrace-join: %s: holds no events in its "
             "top buffer; -B takes an instance's: %s\n", dat, name);
    join_says(args, says);
    snprintf(args, sizeof(args), "-B nosuch %s %s %s", sim_trace, dat,
             joined);
    snprintf(says, sizeof(says), "xentrace-join: %s: has no buffer instance "
             "nosuch; it has %s\n", dat, name);
    join_says(args, says);
    snprintf(args, sizeof(args), "-B %s %s %s %s", name, sim_trace, dat, dat);
    snprintf(says, sizeof(says), "xentrace-join: %s: is one of the inputs",
             dat);
    join_says(args, says);
    snprintf(args, sizeof(args), "-B %s %s %s /dev/full", name, sim_trace,
             dat);
    join_says(args, "xentrace-join: /dev/full: No space left on device\n");
    /*
     * A file fuzzing made, on which libtracecmd 3.1.6 crashes: one line,
     * no output left; a libtracecmd that reads or refuses it, one line.
     */
    unlink(joined);
    assert_int_equal(run_sh(sim_log, "%s %s %s %s", XT_JOIN, sim_trace,
                            CRASH_DAT, joined), 1);
    log = sim_read_text(sim_log);
    if ( strncmp(log, "xentrace-join: " CRASH_DAT ": ", 15 +
                 strlen(CRASH_DAT) + 2) ||
         strchr(log, '\n') != log + strlen(log) - 1 ||
         (!strstr(log, "the join crashed reading it") &&
          !strstr(log, "not a trace.dat that libtracecmd reads")) )
        fail_msg("not one line of why: %s", log);
    free(log);
    assert_int_not_equal(access(joined, F_OK), 0);
    /* A trace.dat on ftrace's mono clock: ns, not the TSC. */
    assert_int_equal(mkdir(instance, 0755), 0);
    instance_write("trace_clock", "mono");
    instance_write("set_event", "sched:sched_switch");
    instance_write("tracing_on", "1");
    assert_int_equal(run_sh(sim_summary, "sleep 0.2; trace-cmd extract -B %s "
                            "-o %s", name, dat), 0);
    rmdir(instance);
    snprintf(args, sizeof(args), "-B %s %s %s %s", name, sim_trace, dat,
             joined);
    join_says(args, "do not overlap: it was not recorded on x86-tsc "
                    "(trace-cmd record -C x86-tsc)");
}

/*
 * trace-cmd's trace.dat of the host's ftrace, in an instance of the
 * test's own on x86-tsc, while xentrace records xen-sim alone; joined,
 * the file must read as --dom0's does (check_lanes()), with the
 * trace.dat's every event, as trace-cmd reads it, in its lanes.
 */
static void test_join(void **state)
{
    char *argv[] = {
        XEN_SIM, "--pcpus", "2", "--workload", "mixed", "--notify", fifo,
        "--", XENTRACE, "-e", "all", "-T", "2", sim_trace, NULL,
    };
    char more[160];
    pid_t reader;

    (void)state;
    need_tracefs();
    if ( run_sh(sim_summary, "command -v trace-cmd") )
    {
        print_message("no trace-cmd here: skipped\n");
        skip();
    }
    rmdir(instance);
    assert_int_equal(mkdir(instance, 0755), 0);
    instance_write("trace_clock", "x86-tsc");
    instance_write("set_event", "sched:sched_switch sched:sched_waking "
                   "irq:irq_handler_entry irq:irq_handler_exit "
                   "irq:softirq_entry irq:softirq_exit");
    instance_write("tracing_on", "1");
    reader = capture_notified(argv);
    instance_write("tracing_on", "0");
    assert_int_equal(run_sh(sim_summary, "trace-cmd extract -B %s -o %s",
                            strrchr(instance, '/') + 1, dat), 0);
    rmdir(instance);
    assert_int_equal(run_sh(sim_summary, "trace-cmd report %s > %s", dat,
                            report), 0);
    if ( run_sh(sim_log, "%s -B %s %s %s %s", XT_JOIN,
                strrchr(instance, '/') + 1, sim_trace, dat, joined) )
    {
        sim_show_file(sim_log, 10);
        fail_msg("xentrace-join failed");
    }
    snprintf(more, sizeof(more), "--dat %s", report);
    check_lanes(joined, sim_log, reader, more);
    join_refused();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cause_then_effect),
        cmocka_unit_test(test_mono_clock),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
