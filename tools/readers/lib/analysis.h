/*
 * analysis: what xentrace-summary says about the machine, from the
 * model's events (model.h): per domain and vCPU their runstates and
 * runnable latency, where they ran, their HVM exits, hypercalls, I/O and
 * MMIO, injected interrupts and PV events; per pCPU its interrupts,
 * C-states and losses.  docs/reading-traces.md explains each figure.
 *
 * Memory grows with vCPUs, pCPUs and the distinct reasons, ports,
 * addresses and vectors seen (each capped: the rest counted together),
 * never with the number of records.
 */
#ifndef ANALYSIS_H
#define ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

struct analysis;

struct analysis_options {
    uint64_t hz;                /* TSC ticks per second */
    unsigned int top;           /* rows per table; 0: all */
    bool svm;                   /* exit reasons are SVM's */
    bool has_domain;            /* only this domain's vCPUs: */
    uint32_t domain;
    bool has_cpu;               /* only this pCPU, and the vCPUs that ran
                                   on it: */
    uint32_t cpu;
};

/*
 * Run the model over @r and count: model_run(), in @mo's order (by_cpu
 * costs least); NULL with errno (ENOMEM).
 */
struct analysis *analysis_run(struct xt_reader *r,
                              const struct model_options *mo,
                              const struct analysis_options *o);
void analysis_free(struct analysis *a);

/*
 * For those who read the records themselves, and may cut the figures
 * into intervals as they come: analysis_new(), analysis_feed() every
 * record in TSC order (@mo's by_cpu and each are not used), and
 * analysis_finish() at the end.  -1 with errno (ENOMEM).
 */
struct analysis *analysis_new(struct xt_reader *r,
                              const struct model_options *mo,
                              const struct analysis_options *o);
int analysis_feed(struct analysis *a, const struct xt_record *rec);
int analysis_finish(struct analysis *a);

/*
 * End the current interval at @tsc, before feeding the first record at or
 * past it: *@interval is an analysis of [the last cut, or the start of
 * the trace or window, @tsc), which analysis_text() and analysis_json()
 * print as they print a whole trace, valid until the next cut or
 * analysis_free(@a).  After analysis_finish(), the cut hands out the last
 * interval, up to the end (a @tsc past it is taken as the end).  @a's own
 * figures, the whole trace's, do not change.
 *
 * An interval reports what a window (model_options from, to) of the same
 * bounds does, and the intervals add up to the whole: a runstate's time
 * is cut at the bounds and it is counted as an interval where it ends;
 * exits, waits, C-states, losses and injection latencies are counted
 * whole where they end; points where they are.  What an interval cannot
 * know when it ends, and a window (or the whole) learns from later
 * records, differs: see docs/reading-traces.md, "Intervals".
 */
int analysis_cut(struct analysis *a, uint64_t tsc, struct analysis **interval);

/* The span analysed: its first and last TSC, its length in TSC ticks. */
uint64_t analysis_first_tsc(const struct analysis *a);
uint64_t analysis_last_tsc(const struct analysis *a);
uint64_t analysis_span(const struct analysis *a);

/*
 * An interval's records, as the summary's header counts them (not the
 * metadata), in the window if there is one; 0 for a whole trace's.
 */
uint64_t analysis_records(const struct analysis *a);

/* Every section as text, or as members of a JSON object ("domains":...). */
void analysis_text(FILE *f, const struct analysis *a);
void analysis_json(FILE *f, const struct analysis *a);

/*
 * A row per vCPU (as --domain and --cpu show them), by domain and vCPU,
 * each after @head (the caller's first columns): its domain, vCPU, seconds in
 * each state, runnable waits with their p50 and p99, migrations, HVM
 * exits with their seconds, VMCALLs, PV hypercalls, interrupts injected,
 * Arm traps with their seconds.  analysis_csv_header() names them.
 */
void analysis_csv_header(FILE *f);
void analysis_csv(FILE *f, const struct analysis *a, const char *head);

#endif /* ANALYSIS_H */
