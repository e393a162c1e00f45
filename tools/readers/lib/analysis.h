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

/* Run the model over @r and count; NULL with errno (ENOMEM). */
struct analysis *analysis_run(struct xt_reader *r,
                              const struct model_options *mo,
                              const struct analysis_options *o);
void analysis_free(struct analysis *a);

/* The span analysed, in TSC ticks. */
uint64_t analysis_span(const struct analysis *a);

/* Every section as text, or as members of a JSON object ("domains":...). */
void analysis_text(FILE *f, const struct analysis *a);
void analysis_json(FILE *f, const struct analysis *a);

#endif /* ANALYSIS_H */
