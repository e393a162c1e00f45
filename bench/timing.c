/* SPDX-License-Identifier: MIT */
/* Timing batches of trace points: see timing.h. */
#define _GNU_SOURCE
#include <err.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

struct producer {
	pthread_t thread;
	unsigned int cpu;
	timing_batch_fn *batch;
	timing_enter_fn *enter;
	const void *c;
	uint32_t n;
	unsigned int reps;
	double ns[TIMING_MAX_REPS];
};

static cpu_set_t usable_cpus;		/* as at start, before any pinning */
static pthread_barrier_t start_line;

/* Run the calling thread on the @n-th usable host CPU, if there is one. */
static void
pin(unsigned int n)
{
	cpu_set_t one;
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &usable_cpus) || n-- > 0)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
		return;
	}
}

void
timing_init(void)
{
	if (sched_getaffinity(0, sizeof(usable_cpus), &usable_cpus) != 0)
		err(1, "sched_getaffinity");
	pin(0);
}

double
timing_ns_between(const struct timespec *t0, const struct timespec *t1)
{
	return (t1->tv_sec - t0->tv_sec) * 1e9 + (t1->tv_nsec - t0->tv_nsec);
}

static void *
producer_main(void *arg)
{
	struct producer *p = arg;
	unsigned int r;

	pin(p->cpu);
	if (p->enter != NULL)
		p->enter(p->cpu);
	p->batch(p->c, p->cpu, p->n);			/* warm-up */
	for (r = 0; r < p->reps; r++) {
		pthread_barrier_wait(&start_line);
		p->ns[r] = p->batch(p->c, p->cpu, p->n);
	}
	return NULL;
}

static unsigned int
run_threads(struct producer *proto, unsigned int threads, double *ns)
{
	struct producer p[TIMING_MAX_THREADS];
	unsigned int i, r, count = 0;
	int rc;

	pthread_barrier_init(&start_line, NULL, threads);
	for (i = 0; i < threads; i++) {
		p[i] = *proto;
		p[i].cpu = i;
		if ((rc = pthread_create(&p[i].thread, NULL, producer_main,
		    &p[i])) != 0)
			errx(1, "pthread_create: %s", strerror(rc));
	}
	for (i = 0; i < threads; i++) {
		pthread_join(p[i].thread, NULL);
		for (r = 0; r < p[i].reps; r++)
			ns[count++] = p[i].ns[r];
	}
	pthread_barrier_destroy(&start_line);
	return count;
}

unsigned int
timing_run(timing_batch_fn *batch, timing_enter_fn *enter, const void *c,
    unsigned int threads, uint32_t n, unsigned int reps, double *ns)
{
	struct producer proto = { .batch = batch, .enter = enter, .c = c,
	    .n = n, .reps = reps };
	unsigned int r;

	if (threads > 0)
		return run_threads(&proto, threads, ns);
	batch(c, 0, n);					/* warm-up */
	for (r = 0; r < reps; r++)
		ns[r] = batch(c, 0, n);
	return reps;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct result
timing_summarise(double *ns, unsigned int n)
{
	struct result res;

	qsort(ns, n, sizeof(*ns), cmp_double);
	res.median = n % 2 ? ns[n / 2] : (ns[n / 2 - 1] + ns[n / 2]) / 2;
	res.min = ns[0];
	res.max = ns[n - 1];
	return res;
}
