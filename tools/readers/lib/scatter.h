/*
 * scatter: xenalyze's scatterplots, from the model's events, as pictures
 * and as data (xentrace-plot --scatter KIND).
 *
 * Point kinds, a point per event at its start (x), of a value (y), in a
 * series (its colour):
 *
 *   exits     each exit's time in Xen (a HLT's halted time left out), by
 *             reason: xenalyze's vmexit, extint-cycles and io plots;
 *   waits     each wait for a pCPU, runnable to running, by domain:
 *             its runstate-time plot, for the state that costs;
 *   to-halt   each injected interrupt's time from the entry after it to
 *             its vCPU's next halt, by domain: its wake-to-halt plot;
 *   irq       each IRQ Xen handled (TRC_HW_IRQ_HANDLED, Arm's
 *             TRC_ARM_IRQ), its number (511 and up in one row), by
 *             pCPU: its irq plot.
 *
 * Lane kinds, a lane per vCPU or pCPU over time, coloured by what filled
 * it:
 *
 *   runstate  each vCPU's runstate (running, runnable, blocked, offline,
 *             lost, unknown): its runstate plot;
 *   pcpu      each pCPU's running domain, idle, or lost: its pcpu plot
 *             turned around, so that contention shows.
 *
 * The SVG counts the points into cells of a time bin (timebins.h: a pipe
 * draws what its file draws) and a value bin (eight a power of two of
 * TSC ticks; one an IRQ), each cell drawn once with its count
 * (data-count) and a shade by count; a lane's bin takes the colour of
 * what filled most of its time.  Memory is the cells: bounded by the
 * bins, SCATTER_SERIES series apart and the lanes (vCPUs or pCPUs), not
 * by the trace's length.  With CSV, each point or lane interval is one
 * line, as the model closes it (not in time order).
 */
#ifndef SCATTER_H
#define SCATTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

#define SCATTER_SERIES      16      /* apart; the rest are one "other" */
#define SCATTER_MAX_BINS    1000    /* time bins at most */

enum scatter_kind {
    SCATTER_EXITS,
    SCATTER_WAITS,
    SCATTER_TO_HALT,
    SCATTER_IRQ,
    SCATTER_RUNSTATE,
    SCATTER_PCPU,
    SCATTER_KINDS
};

struct scatter_options {
    enum scatter_kind kind;
    unsigned int bins;          /* time bins, 1 to SCATTER_MAX_BINS */
    uint64_t hz;                /* TSC ticks per second */
    uint64_t origin;            /* the TSC of time 0 (cli_origin()) */
    bool svm;                   /* exit reasons are SVM's */
    FILE *csv;                  /* the points as CSV; NULL: the picture */
    const struct xt_reader *reader;     /* names the domains */
};

/* The kind called @name ("exits", ...); false if none is. */
bool scatter_kind_parse(const char *name, enum scatter_kind *kind);

/* Its name. */
const char *scatter_kind_name(enum scatter_kind kind);

/* NULL with errno (ENOMEM). */
struct scatter *scatter_new(const struct scatter_options *o);

/* Take one of the model's events (struct model_ops's event). */
void scatter_event(void *arg, const struct model_event *ev);

/* Whether taking an event ran out of memory (then the picture is not). */
bool scatter_failed(const struct scatter *s);

/* The picture, titled @title. */
void scatter_svg(FILE *f, const struct scatter *s, const char *title);

void scatter_free(struct scatter *s);

#endif /* SCATTER_H */
