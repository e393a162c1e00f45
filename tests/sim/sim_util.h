/*
 * Test utilities for captures from xen-sim: run a dom0 trace tool under it
 * and reconcile the file with the hypervisor's counts.  Paths live in a
 * private directory that sim_setup() makes and sim_teardown() removes.
 */
#ifndef SIM_UTIL_H
#define SIM_UTIL_H

#include "run_cmd.h"
#include "tracefile.h"

#define NR_PCPUS     2
#define XENALYZE     "/usr/bin/xenalyze"

/* xen-sim's figures for one CPU (its --stats file). */
struct sim_cpu {
    unsigned long long emitted, passed, records, lost, unbuffered, bytes;
};

extern char sim_trace[], sim_stats[], sim_log[], sim_summary[];

int sim_setup(void **state);
int sim_teardown(void **state);

/* Show the first @max lines of @path, to explain a failure. */
void sim_show_file(const char *path, unsigned int max);

/* The whole of @path, NUL-terminated; free() it. */
char *sim_read_text(const char *path);

void sim_read_stats(const char *path, struct sim_cpu cpus[NR_PCPUS]);

/*
 * Capture into sim_trace with xen-sim running @workload on NR_PCPUS and
 * @xentrace with @args as its dom0; fills @file's summary and @cpus, and
 * checks that both exited 0.
 */
void sim_capture(const char *xentrace, const char *workload,
                 const char *const *args, struct tf_summary *file,
                 struct sim_cpu cpus[NR_PCPUS]);

/* xenalyze --summary of sim_trace exits 0 and shows the simulated host. */
void sim_assert_xenalyze_reads(void);

/*
 * A file of our xentrace's: whole pages, every batch at a page offset, the
 * six metadata records, and every CPU's stream ended by one TRC_XT_END.
 */
void sim_assert_ours_whole(const struct tf_summary *file);

/* Every record that passed is in the file or counted lost there. */
void sim_assert_accounted(const struct tf_summary *file,
                          const struct sim_cpu cpus[NR_PCPUS]);

/* xentrace's exit table, as it printed it on its standard error. */
struct table {
    unsigned long long records, bytes, lost, resyncs, skipped;
    unsigned long long file_bytes;      /* its line about the file */
    unsigned long long passed_bytes;    /* -M: what came through */
    bool has_header;
};

/* The exit table in @log, with its line about @trace; fails without. */
void read_table(const char *log, const char *trace, struct table *t);

/*
 * The table counts what the file holds: every record Xen wrote,
 * lost-records markers too, and their bytes; no resync, nothing skipped.
 */
void assert_table_counts(const struct table *t,
                         const struct tf_summary *file);

/* What @argv prints (into sim_summary); fails the test if it fails. */
char *sim_output_of(char *const argv[]);

/* Fails the test, showing @text, unless @want is in it. */
void sim_assert_has(const char *text, const char *want);

/* The records of Xen's in @file, every CPU's. */
uint64_t sim_file_records(const struct tf_summary *file);

#endif /* SIM_UTIL_H */
