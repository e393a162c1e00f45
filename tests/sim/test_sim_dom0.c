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
    return 0;
}

static int teardown(void **state)
{
    unlink(fifo);
    unlink(json);
    unlink(dump);
    unlink(pftrace);
    if ( run_sh(sim_summary, "rm -rf %s", ctf) )
        return -1;
    unlink(sim_summary);
    return sim_teardown(state);
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
    int status;

    if ( !have_tracefs() )
    {
        print_message("no tracefs with x86-tsc here: skipped\n");
        skip();
    }
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
    assert_int_equal(run_sh(sim_summary, "%s --json %s > %s", XT_SUMMARY,
                            sim_trace, json), 0);
    assert_int_equal(run_sh(sim_summary, "%s %s > %s", XT_DUMP, sim_trace,
                            dump), 0);
    assert_int_equal(run_sh(sim_summary, "%s --perfetto %s --ctf %s %s",
                            XT_EXPORT, pftrace, ctf, sim_trace), 0);
    /* Perfetto's own reading of dom0's machine, where it is here. */
    if ( trace_processor() )
        snprintf(check, sizeof(check), "--perfetto %s %s", trace_processor(),
                 pftrace);
    if ( run_sh(sim_summary, "python3 %s %s %s %s --notified %d --ctf %s %s",
                CHECK_DOM0, sim_log, json, dump, (int)reader, ctf, check) )
    {
        sim_show_file(sim_summary, 30);
        fail_msg("check_dom0.py");
    }
    if ( run_sh(sim_summary, "%s %s %s", AGREE, XT_SUMMARY, sim_trace) )
    {
        sim_show_file(sim_summary, 30);
        fail_msg("xenalyze does not read the capture as the summary does");
    }
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
    if ( !have_tracefs() )
    {
        print_message("no tracefs with x86-tsc here: skipped\n");
        skip();
    }
    assert_int_not_equal(run_cmd(no_event, sim_log), 0);
    log = sim_read_text(sim_log);
    sim_assert_has(log, "xentrace: --dom0: dom0's kernel has no event "
                        "nosuch:event\n");
    free(log);
    assert_no_instance();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cause_then_effect),
        cmocka_unit_test(test_mono_clock),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
