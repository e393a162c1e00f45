/*
 * xentrace --dom0: dom0's own kernel events, from its ftrace through
 * libtracefs, into lanes beside Xen's CPUs (xtfile.h, "Dom0's kernel
 * events").  See dom0.c.
 */
#ifndef DOM0_H
#define DOM0_H

#include <stdint.h>
#include <stdio.h>

#include "take.h"
#include "xtfile.h"

struct dom0;

/*
 * --dom0's list, checked before anything starts: keywords (sched, irq,
 * softirq, xen, all) and SYSTEM:EVENT names, separated by commas.  NULL,
 * or a short reason.
 */
const char *dom0_parse(const char *spec);

/*
 * Start recording @spec's events in a tracefs instance of our own, on the
 * TSC (with @mono, on ftrace's mono clock put on the TSC, as where it has
 * no x86-tsc), into lanes from CPU @first_lane: exits through
 * errx(3) with one line where it cannot (no tracefs, no privilege, an
 * event the kernel lacks, no TSC), having set *@started first, for the
 * exit's dom0_free() to remove the instance.  @meta is filled for the
 * writer's first batch and stays valid until dom0_free().
 */
struct dom0 *dom0_start(const char *spec, bool mono, unsigned int first_lane,
                        struct xt_dom0_meta *meta, struct dom0 **started);

/* dom0's CPUs: the lanes. */
unsigned int dom0_lanes(const struct dom0 *d);

/* Bytes of records a lane takes at most in one go: take_start()'s. */
size_t dom0_pass_bytes(const struct dom0 *d);

/*
 * A pass at @now (ms): what ftrace holds into the lanes' chunks, and a
 * clock pair once a second.  False if the writer has failed.
 */
bool dom0_pass(struct dom0 *d, struct take *t, uint64_t now);

/*
 * The capture ends: take what ftrace holds still, the last pair, and
 * stop recording.  Then dom0_print() says per lane what the file holds
 * (@o's counts: a lost count with "+" had losses ftrace did not count)
 * and ftrace's own overrun count, to @to.
 */
void dom0_stop(struct dom0 *d, struct take *t);
void dom0_print(const struct dom0 *d, const struct output *o, FILE *to);

/* Remove the tracefs instance, at exit whatever happened. */
void dom0_free(struct dom0 *d);

#endif /* DOM0_H */
