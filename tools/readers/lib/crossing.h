/*
 * crossing: latencies across the boundary between Xen and dom0's kernel,
 * in a capture with dom0's events (xentrace --dom0), from Xen waking a
 * dom0 vCPU to the dom0 task that its interrupt woke running:
 *
 *   wake   Xen wakes d0vN
 *   run    Xen runs d0vN: that wake's wait for a pCPU ends, as the
 *          summary's waits are (model_is_wait(): a runnable interval
 *          from the wake to the runstate change to running)
 *   irq    dom0's CPU N enters an IRQ handler (irq_handler_entry), after
 *          the run: the event channel's, or a timer's
 *   task   a task that dom0's CPU N woke (sched_waking) after that entry,
 *          before the next, runs (sched_switch to it, on any dom0 CPU)
 *
 * So "why did this notification take 543 us once and 10 us usually" is
 * answered per IRQ and task: the chains, and p50, p99 and max of each
 * stage and of the whole.  A chain whose vCPU blocks before its IRQ (or
 * loses records), or whose CPU's next chain wakes a task before its task
 * runs, is dropped, and counted.
 *
 * The stages come in TSC order from the model: dom0's CPU N can enter a
 * handler only once Xen has run d0vN, so the runnable interval, which the
 * model closes at the runstate change to running, comes before.
 * Memory: a chain and a waiting task per dom0 CPU, and at most
 * CROSSING_ROWS rows (then the rest as one, "other").
 */
#ifndef CROSSING_H
#define CROSSING_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "xtread.h"

#define CROSSING_ROWS 256

struct crossing;

/* For @r's dom0 lanes; NULL with errno (ENOMEM). */
struct crossing *crossing_new(const struct xt_reader *r);
void crossing_free(struct crossing *c);

/* The model's events of dom0's vCPUs, and dom0's own in TSC order. */
int crossing_event(struct crossing *c, const struct model_event *ev);
int crossing_dom0(struct crossing *c, const struct xt_record *rec);

/* The table, most chains first: text (times in us), or a JSON member. */
void crossing_text(FILE *f, const struct crossing *c, uint64_t hz);
void crossing_json(FILE *f, const struct crossing *c, uint64_t hz);

#endif /* CROSSING_H */
