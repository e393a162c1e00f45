/* SPDX-License-Identifier: MIT */
/*
 * How trace_cost and lttng_cost time their trace points, the same way for
 * both: CLOCK_MONOTONIC around each batch, a warm-up batch first, then
 * the timed ones, on the calling thread or on several threads, pinned
 * one to a host CPU each and let go together; median, min and max.
 */
#ifndef TIMING_H
#define TIMING_H

#include <stdint.h>
#include <time.h>

#define TIMING_MAX_THREADS	2
#define TIMING_MAX_REPS		1001

struct result {
	double median, min, max;	/* ns per event */
};

/* One batch of @n events of case @c, run as CPU @cpu: ns per event. */
typedef double timing_batch_fn(const void *c, unsigned int cpu, uint32_t n);

/* Before a producer thread's first batch (the main thread's is CPU 0). */
typedef void timing_enter_fn(unsigned int cpu);

/* Note the host CPUs usable, and run the calling thread on the first. */
void timing_init(void);

double timing_ns_between(const struct timespec *t0,
    const struct timespec *t1);

/*
 * @reps timed batches of @n events of @c after a warm-up batch: on the
 * calling thread as CPU 0 if @threads is 0, else on @threads threads at
 * the same time (@enter, if not NULL, starts each).  Fills @ns with one
 * sample per thread and batch, and returns how many.
 */
unsigned int timing_run(timing_batch_fn *batch, timing_enter_fn *enter,
    const void *c, unsigned int threads, uint32_t n, unsigned int reps,
    double *ns);

/* Sorts @ns. */
struct result timing_summarise(double *ns, unsigned int n);

#endif /* TIMING_H */
