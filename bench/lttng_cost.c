/* SPDX-License-Identifier: MIT */
/*
 * lttng_cost: what an LTTng-UST tracepoint costs, timed as trace_cost
 * times our trace points, for bench/run-lttng to set side by side.
 *
 * The events (bench/lttng_tp.h) carry trace_cost's payloads: 0, 3 and 7
 * 32-bit words, each with LTTng's timestamp.  Like trace_cost, it times
 * batches of tracepoints with CLOCK_MONOTONIC after a warm-up batch, on
 * the first usable host CPU, or with one or two threads pinned to one
 * host CPU each, and reports the median, min and max ns per event.
 *
 * It must run under an LTTng session that records xt_bench:w0, w3 and
 * w7, and not w3_off (the "disabled" case): it checks that the session
 * enabled exactly those before timing.  It prints a Markdown table, then
 * one line "JSON {...}" whose "events" is the number of events it emitted
 * on enabled tracepoints: the session must have recorded that many, which
 * run-lttng checks in the trace.
 *
 *   lttng_cost [-b batch] [-r reps]
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_tp.h"
#include "timing.h"

#define DEFAULT_BATCH	100000
#define DEFAULT_REPS	11
#define MIN_REPS	7

enum site { SITE_0W, SITE_3W, SITE_3W_OFF, SITE_7W };

struct bench_case {
	const char *name;	/* as trace_cost names its case */
	const char *label;
	enum site site;
	unsigned int threads;	/* 0: the main thread */
	bool enabled;		/* the session records it */
};

static const struct bench_case cases[] = {
	{ "disabled", "xt_bench:w3, not enabled in the session", SITE_3W_OFF,
	    0, false },
	{ "0w", "0 words, timestamp", SITE_0W, 0, true },
	{ "3w", "3 words, timestamp", SITE_3W, 0, true },
	{ "7w", "7 words, timestamp", SITE_7W, 0, true },
	{ "3w-1thread", "3 words, 1 producer thread", SITE_3W, 1, true },
	{ "3w-2threads", "3 words, 2 producer threads, per thread", SITE_3W,
	    2, true },
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

static unsigned long opt_batch = DEFAULT_BATCH;
static unsigned int opt_reps = DEFAULT_REPS;
static unsigned long events_emitted;	/* on enabled tracepoints */

/* Each tracepoint alone in a function, as trace_cost's site_*(). */
#define SITE	__attribute__((noipa))

SITE static void
site_0w(void)
{
	lttng_ust_tracepoint(xt_bench, w0);
}

SITE static void
site_3w(uint32_t a, uint32_t b, uint32_t c)
{
	lttng_ust_tracepoint(xt_bench, w3, a, b, c);
}

SITE static void
site_3w_off(uint32_t a, uint32_t b, uint32_t c)
{
	lttng_ust_tracepoint(xt_bench, w3_off, a, b, c);
}

SITE static void
site_7w(uint32_t a)
{
	uint32_t d[7] = { a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6 };

	lttng_ust_tracepoint(xt_bench, w7, d);
}

static void
emit(enum site site, uint32_t n)
{
	uint32_t i;

	switch (site) {
	case SITE_0W:
		for (i = 0; i < n; i++)
			site_0w();
		break;
	case SITE_3W:
		for (i = 0; i < n; i++)
			site_3w(i, i + 1, i + 2);
		break;
	case SITE_3W_OFF:
		for (i = 0; i < n; i++)
			site_3w_off(i, i + 1, i + 2);
		break;
	case SITE_7W:
		for (i = 0; i < n; i++)
			site_7w(i);
		break;
	}
}

/* @n events of @c; returns ns per event.  Any thread: @cpu is not used. */
static double
run_batch(const void *arg, unsigned int cpu, uint32_t n)
{
	const struct bench_case *c = arg;
	struct timespec t0, t1;

	(void)cpu;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	emit(c->site, n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (c->enabled)
		__atomic_fetch_add(&events_emitted, n, __ATOMIC_RELAXED);
	return timing_ns_between(&t0, &t1) / n;
}

/* A benchmark of tracepoints that record nothing would be worthless. */
static void
check_session(void)
{
	if (!lttng_ust_tracepoint_enabled(xt_bench, w0) ||
	    !lttng_ust_tracepoint_enabled(xt_bench, w3) ||
	    !lttng_ust_tracepoint_enabled(xt_bench, w7))
		errx(1, "no LTTng session records xt_bench:w0, w3 and w7");
	if (lttng_ust_tracepoint_enabled(xt_bench, w3_off))
		errx(1, "an LTTng session records xt_bench:w3_off");
}

static void
print_table(const struct result *res)
{
	size_t i;

	printf("| case | ns/event median | min | max |\n");
	printf("|---|---:|---:|---:|\n");
	for (i = 0; i < NCASES; i++)
		printf("| %s: %s | %.2f | %.2f | %.2f |\n", cases[i].name,
		    cases[i].label, res[i].median, res[i].min, res[i].max);
}

static void
print_json(const struct result *res)
{
	size_t i;

	printf("JSON {\"bench\":\"lttng_cost\",\"batch\":%lu,\"reps\":%u,"
	    "\"events\":%lu,\"unit\":\"ns/event\",\"cases\":{", opt_batch,
	    opt_reps, events_emitted);
	for (i = 0; i < NCASES; i++)
		printf("%s\"%s\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f}",
		    i ? "," : "", cases[i].name, res[i].median, res[i].min,
		    res[i].max);
	printf("}}\n");
}

static unsigned long
number(const char *s, unsigned long min, unsigned long max, int opt)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v < min ||
	    v > max)
		errx(1, "-%c %s: not a number in %lu..%lu", opt, s, min, max);
	return v;
}

int
main(int argc, char **argv)
{
	static double ns[TIMING_MAX_REPS * TIMING_MAX_THREADS];
	struct result res[NCASES];
	size_t i;
	int ch;

	while ((ch = getopt(argc, argv, "b:r:")) != -1) {
		switch (ch) {
		case 'b':
			opt_batch = number(optarg, 1, UINT32_MAX, ch);
			break;
		case 'r':
			opt_reps = number(optarg, MIN_REPS, TIMING_MAX_REPS, ch);
			break;
		default:
			fprintf(stderr, "usage: lttng_cost [-b batch] "
			    "[-r reps]\n");
			exit(1);
		}
	}
	if (optind != argc)
		errx(1, "%s: unexpected argument", argv[optind]);

	timing_init();
	check_session();
	for (i = 0; i < NCASES; i++)
		res[i] = timing_summarise(ns, timing_run(run_batch, NULL,
		    &cases[i], cases[i].threads, opt_batch, opt_reps, ns));
	print_table(res);
	print_json(res);
	return 0;
}
