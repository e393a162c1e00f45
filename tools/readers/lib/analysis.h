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
    unsigned int longest;       /* the N longest exits, waits and
                                   hypercalls (longest.h); 0: none */
    uint64_t origin;            /* with them, the TSC of time 0 */
    bool has_rips_vector;       /* --interrupt-rips: where the guests */
    uint8_t rips_vector;        /* were when this vector's external
                                   interrupts came: their RIPs */
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

/*
 * Reading the figures
 * ===================
 *
 * For a reader that lays the figures out its own way (xentrace-top):
 * the same rows the text and JSON above print, read one by one, so that
 * each figure is computed here and only here.
 *
 * A row is one vCPU's figures, or one domain's (its vCPUs' summed: vcpu
 * 0xffff in its domvcpu).  analysis_rows() makes the rows that the
 * options show (--domain, --cpu), each list most running time first,
 * idle last; they stay valid until analysis_rows_free().
 */
struct analysis_row;

struct analysis_rows {
    const struct analysis_row **domains;
    const unsigned int *domain_vcpus;   /* vCPUs summed in domains[i] */
    unsigned int nr_domains;
    const struct analysis_row **vcpus;
    unsigned int nr_vcpus;
    void *priv;
};

/* 0, or -1 with ENOMEM (then analysis_rows_free() all the same). */
int analysis_rows(struct analysis *a, struct analysis_rows *rows);
void analysis_rows_free(struct analysis_rows *rows);

/* Its domain << 16 | vcpu; vcpu 0xffff for a domain's row. */
uint32_t analysis_row_domvcpu(const struct analysis_row *r);

/*
 * Domain @domid's name and UUID, where @a's trace tells them (xtfile.h,
 * "Domains"), as far as read; else NULL.  The reading thread's.
 */
const struct xt_domain_info *analysis_domain(const struct analysis *a,
                                             uint32_t domid);

/*
 * Its name, as the summary's tables give it: a domain's "d14 (web-01)"
 * where the file names it (model_domain_name()), a vCPU's "d14v0".
 */
const char *analysis_row_name(const struct analysis *a,
                              const struct analysis_row *r, char *buf,
                              size_t size);

/* TSC ticks in runstate @s (per vCPU they sum to the span). */
uint64_t analysis_row_state(const struct analysis_row *r,
                            enum model_state s);

/*
 * The runnable-to-running wait, woken and preempted together (the
 * summary's "runnable to running" table by cause): how many, and their
 * mean, median, 99th percentile (to the sketch's error, sketch.h) and
 * longest in ticks.  0, or -1 with ENOMEM.
 */
struct analysis_dist {
    uint64_t count, mean, p50, p99, max;
};

int analysis_row_wait(const struct analysis_row *r, struct analysis_dist *d);

/* The keyed tables of a row. */
enum analysis_table {
    ANALYSIS_EXITS,             /* HVM exits by reason, or Arm traps by
                                   exception class: with ticks and max */
    ANALYSIS_HYPERCALLS,        /* PV hypercalls, and HVM VMCALL exits,
                                   by hypercall (a domain with vCPUs of
                                   both kinds: an op in each, apart) */
    ANALYSIS_INJECTED,          /* interrupts injected, by vector (HVM)
                                   or virtual IRQ (Arm) */
};

struct analysis_count {
    uint64_t key;
    char name[32];              /* as the summary names it */
    uint64_t count, ticks;      /* ticks: time in the exit (exits, and
                                   VMCALLs); 0 for PV hypercalls */
    uint64_t halted;            /* exits: of ticks, those blocked (HLT,
                                   WFI), none of Xen's */
    uint64_t max;               /* exits: the longest time in Xen, in
                                   ticks, */
    uint64_t p50, p99;          /* and its median and 99th percentile (to
                                   the sketch's error, sketch.h) */
};

/* The time Xen spent in exits @e: not the time a halted vCPU waited. */
static inline uint64_t analysis_count_in_xen(const struct analysis_count *e)
{
    return e->ticks - e->halted;
}

/*
 * Up to @max of @r's entries of table @t into @out, most costly first
 * (ticks, then count); returns how many.  *@total (if not NULL) gets the
 * count of every entry, those not returned and those the table had no
 * room for included.
 */
unsigned int analysis_row_table(const struct analysis *a,
                                const struct analysis_row *r,
                                enum analysis_table t,
                                struct analysis_count *out, unsigned int max,
                                uint64_t *total);

/* How many entries @r's table @t has: what analysis_row_table() can give. */
unsigned int analysis_row_table_size(const struct analysis_row *r,
                                     enum analysis_table t);

/* The pCPUs, in ascending order, and what each lost. */
unsigned int analysis_nr_pcpus(const struct analysis *a);

struct analysis_lost {
    uint32_t cpu;
    uint64_t records, gaps, ticks;
};

void analysis_pcpu_lost(const struct analysis *a, unsigned int i,
                        struct analysis_lost *l);

#endif /* ANALYSIS_H */
