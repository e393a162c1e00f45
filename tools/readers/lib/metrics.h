/*
 * metrics: xentrace-top's --metrics, the figures of its intervals as
 * OpenMetrics counters (the text format Prometheus scrapes), served over
 * HTTP by libmicrohttpd.
 *
 * Counters only go up: each interval's figures (analysis_cut()) are
 * added, per domain, to
 *
 *   xen_vcpu_exits_total{domain,reason}           HVM exits, Arm traps
 *   xen_vcpu_exit_seconds_total{domain,reason}    the time in them
 *   xen_hypercalls_total{domain,hypercall}        PV hypercalls, VMCALLs
 *   xen_interrupts_injected_total{domain,vector}
 *   xen_runstate_seconds_total{domain,state}      running ... unknown
 *   xen_lost_records_total{pcpu}
 *   xen_trace_seconds_total, xen_trace_intervals_total
 *
 * and per domain the trace names (xtfile.h, "Domains") an info series,
 * xen_domain_info{domain,name,uuid} 1, with the name it was last told (a
 * renamed domain's series takes the new name), so that a query joins a
 * counter to the name: ... * on (domain) group_left(name) xen_domain_info.
 *
 * and the runnable-to-running wait is a summary,
 * xen_runnable_wait_seconds{domain,quantile}: its 0.5 and 0.99 quantiles
 * of the last interval (to the sketch's error, sketch.h), with _count
 * and _sum over every interval (the sum from each interval's mean).  The
 * domain label is its number, or "idle"; every label's values are
 * bounded by what the analysis holds (domains, and the reasons, vectors
 * and hypercalls it keeps per table), never by time.
 *
 * The server answers GET /metrics (and /) from its own thread with the
 * text last published, which metrics_publish() replaces under a lock: the
 * figures are made and written by the caller's thread alone.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "analysis.h"

struct metrics;

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);

/* Add @interval's figures, at @hz TSC ticks a second: 0, or -1 (ENOMEM). */
int metrics_add(struct metrics *m, struct analysis *interval, uint64_t hz);

/* Every family, in OpenMetrics 1.0 text, "# EOF" last. */
void metrics_write(const struct metrics *m, FILE *f);

struct metrics_server;

/*
 * Serve on @where, "[ADDR:]PORT" (ADDR an IPv4 address: 127.0.0.1 if not
 * given, so that only this host can scrape it unless told; PORT 0 takes
 * a free one), no figures until the first metrics_publish().  NULL with
 * why in @why: a bad @where, or the bind's error.
 */
struct metrics_server *metrics_serve(const char *where, char *why,
                                     unsigned int size);
unsigned int metrics_port(const struct metrics_server *s);

/* Serve @m's figures as they are now. 0, or -1 (ENOMEM: the old stay). */
int metrics_publish(struct metrics_server *s, const struct metrics *m);

void metrics_stop(struct metrics_server *s);

#endif /* METRICS_H */
