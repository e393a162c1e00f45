/*
 * diff: what changed from one trace to another (xentrace-summary --diff),
 * per domain and per exit reason, hypercall and injected vector.
 *
 * Two traces seldom last as long, so they are compared by rates: a count
 * per second of its trace's span; a time as the mean number of vCPUs
 * spending it (ticks over the span: 1.5 is one and a half vCPUs the whole
 * time); a distribution by its mean and percentiles, in microseconds at
 * each trace's own TSC rate.  Domains are matched by name where a file
 * names them (a guest made again between two runs has a new id), else by
 * id; what only one trace has is shown as such.
 */
#ifndef DIFF_H
#define DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"

/* One trace of the two: its figures, name and TSC ticks per second. */
struct diff_side {
    struct analysis *a;
    const char *name;
    uint64_t hz;
    bool hz_assumed;            /* the file does not say it */
};

/*
 * Print what changed from @before to @after, up to @top rows per table
 * (0: all).  0, or -1 with ENOMEM.
 */
int diff_print(FILE *f, const struct diff_side *before,
               const struct diff_side *after, unsigned int top);

#endif /* DIFF_H */
