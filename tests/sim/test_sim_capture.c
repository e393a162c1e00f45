/*
 * Debian's unmodified xentrace captures from xen-sim, and the trace file
 * accounts for every record the hypervisor let through: per CPU, records
 * in the file plus the counts of its lost-records markers equal what
 * xen-sim's hypervisor counted as passing the masks.
 *
 * Captures here run without xentrace's -D: -D throws away what the
 * buffers hold when xentrace starts, records that passed the masks after
 * set_size turned tracing on, so no file could account for them.
 * test_xenalyze_reads_a_capture uses -D, as people do.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <stdint.h>
#include <public/trace.h>

#include "tracefile.h"

#define XENTRACE     "/usr/lib/xen-4.17/bin/xentrace"
#define XENALYZE     "/usr/bin/xenalyze"
#define NR_PCPUS     2

struct sim_cpu {
    unsigned long long emitted, passed, records, lost, unbuffered, bytes;
};

static char dir[] = "/tmp/test_sim_capture.XXXXXX";
static char trace[64], stats[64], log_file[64], summary[64];

static int setup(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(trace, sizeof(trace), "%s/trace.bin", dir);
    snprintf(stats, sizeof(stats), "%s/stats.json", dir);
    snprintf(log_file, sizeof(log_file), "%s/run.log", dir);
    snprintf(summary, sizeof(summary), "%s/summary.txt", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(trace);
    unlink(stats);
    unlink(log_file);
    unlink(summary);
    return rmdir(dir);
}

/* Run @argv with stdout and stderr to @log; returns the exit status. */
static int run(char *const argv[], const char *log)
{
    pid_t pid = fork();
    int status;

    assert_true(pid >= 0);
    if ( pid == 0 )
    {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        if ( fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 )
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* xen-sim's per-CPU figures, from its --stats file. */
static void read_stats(const char *path, struct sim_cpu cpus[NR_PCPUS])
{
    FILE *f = fopen(path, "r");
    char line[512];
    unsigned int cpu, found = 0;

    assert_non_null(f);
    while ( fgets(line, sizeof(line), f) )
    {
        struct sim_cpu c;

        if ( sscanf(line, " {\"cpu\": %u, \"emitted\": %llu, \"passed\": "
                    "%llu, \"records\": %llu, \"lost\": %llu, "
                    "\"unbuffered\": %llu, \"resyncs\": %*u, \"bytes\": "
                    "%llu}", &cpu, &c.emitted, &c.passed, &c.records,
                    &c.lost, &c.unbuffered, &c.bytes) != 7 )
            continue;
        assert_true(cpu < NR_PCPUS);
        cpus[cpu] = c;
        found++;
    }
    fclose(f);
    assert_int_equal(found, NR_PCPUS);
}

/* Show the first @max lines of @path, to explain a failure. */
static void show_file(const char *path, unsigned int max)
{
    FILE *f = fopen(path, "r");
    char line[512];

    while ( f && max-- && fgets(line, sizeof(line), f) )
        print_error("%s", line);
    if ( f )
        fclose(f);
}

/*
 * Capture with xen-sim running @workload and Debian's xentrace with
 * @xentrace_args; fills @file's summary and @cpus, and checks that both
 * exited 0.
 */
static void capture(const char *workload, const char *const *xentrace_args,
                    struct tf_summary *file, struct sim_cpu cpus[NR_PCPUS])
{
    char *argv[32] = {
        XEN_SIM, "--pcpus", "2", "--workload", (char *)workload,
        "--stats", stats, "--", XENTRACE,
    };
    unsigned int n = 9;
    int rc;

    while ( *xentrace_args )
        argv[n++] = (char *)*xentrace_args++;
    argv[n++] = trace;
    argv[n] = NULL;

    rc = run(argv, log_file);
    if ( rc )
        show_file(log_file, 100);
    assert_int_equal(rc, 0);
    read_stats(stats, cpus);
    if ( !tf_read(trace, file) )
        fail_msg("%s: %s", trace, file->error);
}

/* Every record that passed is in the file or counted lost there. */
static void assert_accounted(const struct tf_summary *file,
                             const struct sim_cpu cpus[NR_PCPUS])
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
    {
        const struct tf_cpu *c = &file->cpu[cpu];

        print_message("cpu %u: passed %llu = file %llu + lost %llu "
                      "(%llu markers); xen-sim: written %llu, lost %llu\n",
                      cpu, cpus[cpu].passed,
                      (unsigned long long)c->records,
                      (unsigned long long)c->lost,
                      (unsigned long long)c->markers,
                      cpus[cpu].records, cpus[cpu].lost);
        assert_int_equal(cpus[cpu].unbuffered, 0);
        assert_int_equal(c->records, cpus[cpu].records);
        assert_int_equal(c->lost, cpus[cpu].lost);
        assert_int_equal(c->records + c->lost, cpus[cpu].passed);
    }
}

static void test_mixed_capture_is_complete(void **state)
{
    static const char *const args[] = { "-e", "all", "-T", "3", NULL };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    capture("mixed", args, &file, cpus);
    assert_true(cpus[0].passed > 1000 && cpus[1].passed > 1000);
    assert_accounted(&file, cpus);
}

/* Flat out into 2-page buffers: records are lost, and all counted. */
static void test_flood_loses_and_says_so(void **state)
{
    static const char *const args[] = {
        "-S", "2", "-e", "all", "-T", "2", NULL,
    };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    capture("flood", args, &file, cpus);
    assert_true(file.cpu[0].markers > 0 && file.cpu[1].markers > 0);
    assert_accounted(&file, cpus);
}

/* -e and -c set through Debian's xentrace reach the hypervisor. */
static void test_masks_take_effect(void **state)
{
    static const char *const args[] = {
        "-e", "0x0002f000", "-c", "0x1", "-T", "2", NULL,
    };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];

    (void)state;
    capture("mixed", args, &file, cpus);
    assert_true(file.cpu[0].records > 0);
    assert_int_equal(file.cpu[0].classes & ~(TRC_SCHED >> 16), 0);
    assert_int_equal(file.cpu[1].records, 0);
    assert_int_equal(cpus[1].passed, 0);
    assert_accounted(&file, cpus);
}

static void test_xenalyze_reads_a_capture(void **state)
{
    static const char *const args[] = { "-D", "-e", "all", "-T", "3", NULL };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];
    char *argv[] = { XENALYZE, "--summary", trace, NULL };
    char *text;
    FILE *f;
    long len;

    (void)state;
    capture("mixed", args, &file, cpus);
    assert_int_equal(run(argv, summary), 0);

    f = fopen(summary, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    text = calloc(1, len + 1);
    assert_true(fread(text, 1, len, f) == (size_t)len);
    fclose(f);

    if ( !strstr(text, "|-- Domain 0 --|") || !strstr(text, "-- v0 --") )
    {
        show_file(summary, 60);
        fail_msg("xenalyze --summary does not show the simulated domains");
    }
    assert_non_null(strstr(text, "|-- Domain 1 --|"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_capture_is_complete),
        cmocka_unit_test(test_flood_loses_and_says_so),
        cmocka_unit_test(test_masks_take_effect),
        cmocka_unit_test(test_xenalyze_reads_a_capture),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
