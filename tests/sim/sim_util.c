/* Test utilities for captures from xen-sim: see sim_util.h. */
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

#include "sim_util.h"

static char dir[] = "/tmp/test_sim.XXXXXX";
char sim_trace[64], sim_stats[64], sim_log[64], sim_summary[64];

int sim_setup(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sim_trace, sizeof(sim_trace), "%s/trace.bin", dir);
    snprintf(sim_stats, sizeof(sim_stats), "%s/stats.json", dir);
    snprintf(sim_log, sizeof(sim_log), "%s/run.log", dir);
    snprintf(sim_summary, sizeof(sim_summary), "%s/summary.txt", dir);
    return 0;
}

int sim_teardown(void **state)
{
    (void)state;
    unlink(sim_trace);
    unlink(sim_stats);
    unlink(sim_log);
    unlink(sim_summary);
    return rmdir(dir);
}

void sim_read_stats(const char *path, struct sim_cpu cpus[NR_PCPUS])
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

void sim_show_file(const char *path, unsigned int max)
{
    FILE *f = fopen(path, "r");
    char line[512];

    while ( f && max-- && fgets(line, sizeof(line), f) )
        print_error("%s", line);
    if ( f )
        fclose(f);
}

char *sim_read_text(const char *path)
{
    char *text = read_file(path);

    assert_non_null(text);
    return text;
}

void sim_capture(const char *xentrace, const char *workload,
                 const char *const *args, struct tf_summary *file,
                 struct sim_cpu cpus[NR_PCPUS])
{
    char *argv[32] = {
        XEN_SIM, "--pcpus", "2", "--workload", (char *)workload,
        "--stats", sim_stats, "--", (char *)xentrace,
    };
    unsigned int n = 9;
    int rc;

    while ( *args )
        argv[n++] = (char *)*args++;
    argv[n++] = sim_trace;
    argv[n] = NULL;

    rc = run_cmd(argv, sim_log);
    if ( rc )
        sim_show_file(sim_log, 100);
    assert_int_equal(rc, 0);
    sim_read_stats(sim_stats, cpus);
    if ( !tf_read(sim_trace, file) )
        fail_msg("%s: %s", sim_trace, file->error);
}

void sim_assert_ours_whole(const struct tf_summary *file)
{
    unsigned int cpu;

    assert_int_equal(file->unaligned, 0);
    assert_int_equal(file->bytes % 4096, 0);
    assert_int_equal(file->meta, 6);
    for ( cpu = 0; cpu < TF_MAX_CPUS; cpu++ )
    {
        const struct tf_cpu *c = &file->cpu[cpu];

        assert_int_equal(c->ends, c->records || c->markers);
        assert_int_equal(c->after_end, 0);
    }
}

void sim_assert_accounted(const struct tf_summary *file,
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

void sim_assert_xenalyze_reads(void)
{
    char *argv[] = { XENALYZE, "--summary", sim_trace, NULL };
    char *text;

    assert_int_equal(run_cmd(argv, sim_summary), 0);
    text = sim_read_text(sim_summary);
    if ( !strstr(text, "|-- Domain 0 --|") || !strstr(text, "-- v0 --") ||
         !strstr(text, "|-- Domain 1 --|") || strstr(text, "Unexpected") )
    {
        sim_show_file(sim_summary, 60);
        free(text);
        fail_msg("xenalyze --summary did not read the file");
    }
    free(text);
}

void read_table(const char *log, const char *trace, struct table *t)
{
    char *text = sim_read_text(log), *line, *file_line = NULL;
    char want[300];

    *t = (struct table){ 0 };
    t->has_header = strstr(text, "  cpu        records") &&
                    strstr(text, "resyncs      skipped\n");
    line = strstr(text, "\n  all ");
    if ( !line || sscanf(line, " all %llu %llu %llu %llu %llu", &t->records,
                         &t->bytes, &t->lost, &t->resyncs,
                         &t->skipped) != 5 )
    {
        sim_show_file(log, 40);
        fail_msg("no exit table");
    }
    /* After the table: an error line before it may name the file too. */
    snprintf(want, sizeof(want), "\n%s: ", trace);
    if ( !(file_line = strstr(line, want)) ||
         sscanf(file_line + strlen(want), "%llu bytes", &t->file_bytes) != 1 )
    {
        sim_show_file(log, 40);
        fail_msg("no line about the file");
    }
    if ( (line = strstr(file_line, "-M: the newest of ")) )
        sscanf(line, "-M: the newest of %llu", &t->passed_bytes);
    free(text);
}

void assert_table_counts(const struct table *t,
                         const struct tf_summary *file)
{
    unsigned long long records = 0, bytes = 0, lost = 0;
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
    {
        records += file->cpu[cpu].records + file->cpu[cpu].markers;
        bytes += file->cpu[cpu].bytes + file->cpu[cpu].marker_bytes;
        lost += file->cpu[cpu].lost;
    }
    assert_true(t->has_header);
    assert_int_equal(t->records, records);
    assert_int_equal(t->bytes, bytes);
    assert_int_equal(t->lost, lost);
    assert_int_equal(t->resyncs, 0);
    assert_int_equal(t->skipped, 0);
}

char *sim_output_of(char *const argv[])
{
    if ( run_cmd(argv, sim_summary) )
    {
        sim_show_file(sim_summary, 20);
        fail_msg("%s failed", argv[0]);
    }
    return sim_read_text(sim_summary);
}

void sim_assert_has(const char *text, const char *want)
{
    if ( !strstr(text, want) )
        fail_msg("no \"%s\" in:\n%.3000s", want, text);
}

uint64_t sim_file_records(const struct tf_summary *file)
{
    uint64_t n = 0;
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
        n += file->cpu[cpu].records;
    return n;
}
