/* SPDX-License-Identifier: MIT */
/*
 * trace_cost: what a trace point costs the hypervisor.
 *
 * Boots the host build of xen/common/trace.c with two CPUs, each with a
 * large buffer, and times batches of trace points with CLOCK_MONOTONIC.
 * Every batch starts in an empty buffer and stays below its high-water
 * mark, so it measures the insert path, never the lost path nor the
 * VIRQ_TBUF tasklet.  After each batch the CPU's stats must show exactly
 * the batch's records (none where nothing is traced) and no loss, or the
 * run stops: the figures are those of successful inserts.  Between
 * batches, outside the timing, the benchmark plays dom0 and empties the
 * buffer by setting cons = prod in the t_buf it maps.
 *
 *   trace_cost [-b batch] [-I file] [-p pages] [-r reps]
 *	Times every case and prints a Markdown table, then one line
 *	"JSON {...}".  -I names a file of lines "case site-insns
 *	trace_var-insns", instructions per event measured by callgrind
 *	(bench/run-trace-cost), for the instructions column.
 *   trace_cost -c case [-b batch] [-n count] [-p pages]
 *	Runs count events of one case, checked but not reported, for
 *	callgrind: each case's trace point is alone in a function site_*().
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <host.h>
#include <asm/time.h>
#include <xen/lib.h>
#include <xen/trace.h>
#include <xen/trace-events.h>

#include "timing.h"

#define BENCH_CPUS	2	/* hypervisor CPUs, one per producer thread */
#define DEFAULT_PAGES	2048	/* 8 MiB per CPU */
#define DEFAULT_BATCH	100000
#define DEFAULT_COUNT	100000
#define DEFAULT_REPS	11
#define MIN_REPS	7
#define MAX_REC_BYTES	40	/* header, TSC, 7 words */
#define BUF_SLACK	(36 + 64) /* a wrap pad, and trace.c's LOST_RESERVE */

/* Scheduler events of 0, 3 and 7 words; "masked" allows only HVM ones. */
#define EV_0W		TRC_SCHED_YIELD
#define EV_3W		TRC_SCHED_SWITCH_INFPREV
#define EV_7W		TRC_SCHED_SWITCH_INFNEXT
#define MASK_OTHER	TRC_HVM

/*
 * The domain filter's cases: EV_3W names domain DOM_NAMED or DOM_OTHER in
 * its first word, and the benchmark runs in CPU 0's idle vCPU.
 */
#define DOM_NAMED	7
#define DOM_OTHER	8

enum site { SITE_RDTSC, SITE_0D, SITE_3D, SITE_3D_NAMED, SITE_3D_OTHER,
	SITE_GEN3, SITE_7W };
enum tracing { TRACING_OFF, TRACING_ON, TRACING_MASKED,
	TRACING_FILTER_IDLE,	/* the domain filter keeps the idle domain */
	TRACING_FILTER_NAMED,	/*   keeps DOM_NAMED */
	TRACING_SWITCH_OFF,	/* every class, EV_3W switched off */
	TRACING_SWITCH_ON };	/* only MASK_OTHER, EV_3W switched on */

struct bench_case {
	const char *name;	/* for -c, -I and the JSON */
	const char *label;	/* for the table */
	enum site site;
	enum tracing tracing;
	unsigned int threads;	/* 0: the main thread, as CPU 0 */
	unsigned int records;	/* records written per event: 0 or 1 */
};

static const struct bench_case cases[] = {
	{ "rdtsc", "rdtsc alone, for reference", SITE_RDTSC, TRACING_OFF,
	    0, 0 },
	{ "disabled", "TRACE_3D, tracing disabled", SITE_3D, TRACING_OFF,
	    0, 0 },
	{ "masked", "TRACE_3D, class masked out", SITE_3D, TRACING_MASKED,
	    0, 0 },
	{ "gen-disabled", "trc_sched_switch_infprev(), tracing disabled",
	    SITE_GEN3, TRACING_OFF, 0, 0 },
	{ "0w", "TRACE_0D, TSC", SITE_0D, TRACING_ON, 0, 1 },
	{ "3w", "TRACE_3D, TSC", SITE_3D, TRACING_ON, 0, 1 },
	{ "gen-3w", "trc_sched_switch_infprev(), TSC", SITE_GEN3, TRACING_ON,
	    0, 1 },
	{ "7w", "7 words, TSC", SITE_7W, TRACING_ON, 0, 1 },
	{ "3w-filter-current", "TRACE_3D, domain filter: kept as current's",
	    SITE_3D, TRACING_FILTER_IDLE, 0, 1 },
	{ "3w-filter-named", "TRACE_3D, domain filter: kept as it names one",
	    SITE_3D_NAMED, TRACING_FILTER_NAMED, 0, 1 },
	{ "3w-filter-out", "TRACE_3D, domain filter: dropped",
	    SITE_3D_OTHER, TRACING_FILTER_NAMED, 0, 0 },
	{ "3w-switched-on", "TRACE_3D, class masked out, event switched on",
	    SITE_3D, TRACING_SWITCH_ON, 0, 1 },
	{ "3w-switched-off", "TRACE_3D, event switched off", SITE_3D,
	    TRACING_SWITCH_OFF, 0, 0 },
	{ "3w-1thread", "TRACE_3D, 1 producer thread", SITE_3D, TRACING_ON,
	    1, 1 },
	{ "3w-2threads", "TRACE_3D, 2 producer threads, per thread", SITE_3D,
	    TRACING_ON, 2, 1 },
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* Instructions per event, from callgrind (-I). */
struct insns {
	double site;		/* the whole site_*() function */
	double trace_var;	/* __trace_var and its callees */
	bool known;
};

static unsigned int opt_pages = DEFAULT_PAGES;
static unsigned long opt_batch = DEFAULT_BATCH;
static unsigned int opt_reps = DEFAULT_REPS;

static volatile struct t_buf *t_bufs[BENCH_CPUS];
static unsigned int tbuf_pages;		/* opt_pages, as trace.c clamped it */
static uint32_t data_size;
static struct insns insns[NCASES];

/*
 * The trace points, each alone in a function that the compiler may neither
 * inline nor specialise: callgrind counts them (--toggle-collect=site_*)
 * and objdump shows them.
 */
#define SITE	__attribute__((noipa))

SITE static uint64_t
site_rdtsc(void)
{
	return get_cycles();
}

SITE static void
site_0d(void)
{
	TRACE_0D(EV_0W);
}

SITE static void
site_3d(uint32_t a, uint32_t b, uint32_t c)
{
	TRACE_3D(EV_3W, a, b, c);
}

/* The same event and words as site_3d(), by its generated call. */
SITE static void
site_gen3(uint32_t a, uint32_t b, uint32_t c)
{
	trc_sched_switch_infprev(a, b, c);
}

SITE static void
site_7w(uint32_t a)
{
	uint32_t d[7] = { a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6 };

	trace_var(EV_7W, true, sizeof(d), d);
}

/* @n events of @site.  noipa keeps every call, results unused or not. */
static void
emit(enum site site, uint32_t n)
{
	uint32_t i;

	switch (site) {
	case SITE_RDTSC:
		for (i = 0; i < n; i++)
			site_rdtsc();
		break;
	case SITE_0D:
		for (i = 0; i < n; i++)
			site_0d();
		break;
	case SITE_3D:
		for (i = 0; i < n; i++)
			site_3d(i, i + 1, i + 2);
		break;
	case SITE_3D_NAMED:
	case SITE_3D_OTHER:
		for (i = 0; i < n; i++)
			site_3d(site == SITE_3D_NAMED ? DOM_NAMED : DOM_OTHER, i,
			    i + 1);
		break;
	case SITE_GEN3:
		for (i = 0; i < n; i++)
			site_gen3(i, i + 1, i + 2);
		break;
	case SITE_7W:
		for (i = 0; i < n; i++)
			site_7w(i);
		break;
	}
}

static void
drop_console_line(const char *line)
{
	(void)line;
}

static void
tbuf_op(uint32_t cmd, uint32_t evt_mask, uint32_t size)
{
	struct xen_sysctl_tbuf_op op = { .cmd = cmd, .evt_mask = evt_mask,
	    .size = size };
	int rc;

	if ((rc = tb_control(&op)) != 0)
		errx(1, "tb_control(cmd %u): %s", cmd, strerror(-rc));
}

static void
set_tracing(enum tracing tracing)
{
	uint32_t listed = tracing == TRACING_FILTER_IDLE ? DOMID_IDLE :
	    DOM_NAMED;

	tbuf_op(XEN_SYSCTL_TBUFOP_dom_filter_commit, 0, 0);
	tbuf_op(XEN_SYSCTL_TBUFOP_event_switch, EV_3W,
	    tracing == TRACING_SWITCH_ON ? XEN_TBUF_EVENT_ON :
	    tracing == TRACING_SWITCH_OFF ? XEN_TBUF_EVENT_OFF :
	    XEN_TBUF_EVENT_MASKS);
	if (tracing == TRACING_OFF) {
		tbuf_op(XEN_SYSCTL_TBUFOP_disable, 0, 0);
		return;
	}
	if (tracing == TRACING_FILTER_IDLE || tracing == TRACING_FILTER_NAMED) {
		tbuf_op(XEN_SYSCTL_TBUFOP_dom_filter_stage, listed << 16 | listed,
		    1);
		tbuf_op(XEN_SYSCTL_TBUFOP_dom_filter_commit, 0, 1);
	}
	tbuf_op(XEN_SYSCTL_TBUFOP_set_evt_mask,
	    tracing == TRACING_MASKED || tracing == TRACING_SWITCH_ON ?
	    MASK_OTHER : TRC_ALL, 0);
	tbuf_op(XEN_SYSCTL_TBUFOP_enable, 0, 0);
}

static void *
map_machine(unsigned long mfn, unsigned long pages, int prot)
{
	void *va;

	va = mmap(NULL, pages * PAGE_SIZE, prot, MAP_SHARED,
	    host_machine_fd(), (off_t)mfn * PAGE_SIZE);
	if (va == MAP_FAILED)
		err(1, "mmap of mfn %#lx", mfn);
	return va;
}

/* Map each CPU's struct t_buf as dom0 finds it, through t_info. */
static void
map_buffers(void)
{
	struct xen_sysctl_tbuf_op op = { .cmd = XEN_SYSCTL_TBUFOP_get_info };
	const struct t_info *ti;
	unsigned int cpu;
	uint32_t mfn;

	if (tb_control(&op) != 0 || op.buffer_mfn == 0)
		errx(1, "no trace buffers after tbuf_size=%u", opt_pages);
	ti = map_machine(op.buffer_mfn, op.size / PAGE_SIZE, PROT_READ);
	tbuf_pages = ti->tbuf_size;
	data_size = tbuf_pages * PAGE_SIZE - sizeof(struct t_buf);
	for (cpu = 0; cpu < BENCH_CPUS; cpu++) {
		if (ti->mfn_offset[cpu] == 0)
			errx(1, "cpu %u has no trace buffer", cpu);
		mfn = ((const uint32_t *)ti)[ti->mfn_offset[cpu]];
		if (host_frame_sharing(mfn) != HOST_SHARED_RW)
			errx(1, "cpu %u: mfn %#x not shared read-write",
			    cpu, mfn);
		t_bufs[cpu] = map_machine(mfn, 1, PROT_READ | PROT_WRITE);
	}
}

static void
boot(void)
{
	char cmdline[32];
	struct host_config cfg = { .nr_cpus = BENCH_CPUS, .cmdline = cmdline };
	int rc;

	snprintf(cmdline, sizeof(cmdline), "tbuf_size=%u", opt_pages);
	host_set_console(drop_console_line);
	if ((rc = host_boot(&cfg)) != 0)
		errx(1, "host_boot: %s", strerror(-rc));
	map_buffers();

	/* From an empty buffer, a batch never reaches the high-water mark. */
	if (opt_batch * MAX_REC_BYTES + BUF_SLACK > data_size / 2)
		errx(1, "-b %lu: batch too large for %u pages per CPU",
		    opt_batch, tbuf_pages);
}

/* Consume everything, as dom0 would (C and D of public/trace.h). */
static void
drain(unsigned int cpu)
{
	volatile struct t_buf *b = t_bufs[cpu];

	__atomic_store_n(&b->cons, __atomic_load_n(&b->prod, __ATOMIC_ACQUIRE),
	    __ATOMIC_RELEASE);
}

static void
check_batch(const struct bench_case *c, unsigned int cpu, uint32_t n,
    const struct trace_cpu_stats *was)
{
	struct trace_cpu_stats now;
	unsigned long want = (unsigned long)n * c->records;

	trace_cpu_stats(cpu, &now);
	if (now.records - was->records != want || now.lost != was->lost ||
	    now.unbuffered != was->unbuffered || now.resyncs != was->resyncs)
		errx(1, "%s: cpu %u: %u events wrote %lu records, not %lu "
		    "(lost %lu, unbuffered %lu, resyncs %lu)", c->name, cpu,
		    n, now.records - was->records, want,
		    now.lost - was->lost, now.unbuffered - was->unbuffered,
		    now.resyncs - was->resyncs);
}

/*
 * @n events of @c on @cpu, which the calling thread runs as; checked, then
 * drained.  Returns ns per event.
 */
static double
run_batch(const void *arg, unsigned int cpu, uint32_t n)
{
	const struct bench_case *c = arg;
	struct trace_cpu_stats was;
	struct timespec t0, t1;

	trace_cpu_stats(cpu, &was);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	emit(c->site, n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	check_batch(c, cpu, n, &was);
	drain(cpu);
	return timing_ns_between(&t0, &t1) / n;
}

static const struct bench_case *
find_case(const char *name)
{
	size_t i;

	for (i = 0; i < NCASES; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	return NULL;
}

static void
read_insns(const char *path)
{
	const struct bench_case *c;
	char name[32];
	double site, trace_var;
	FILE *f;
	int n;

	if ((f = fopen(path, "r")) == NULL)
		err(1, "%s", path);
	while ((n = fscanf(f, "%31s %lf %lf", name, &site, &trace_var)) == 3) {
		if ((c = find_case(name)) == NULL)
			errx(1, "%s: unknown case %s", path, name);
		insns[c - cases] = (struct insns){ site, trace_var, true };
	}
	if (n != EOF)
		errx(1, "%s: lines must be \"case site-insns trace_var-insns\"",
		    path);
	fclose(f);
}

/*
 * Instructions per event for the table: of trace() or __trace_var() with
 * its callees where the case calls out, else of the whole site_*() function.
 */
static double
table_insns(const struct bench_case *c)
{
	const struct insns *in = &insns[c - cases];

	return c->tracing == TRACING_OFF ? in->site : in->trace_var;
}

static void
print_table(const struct result *res)
{
	size_t i;

	printf("| case | ns/event median | min | max | instructions |\n");
	printf("|---|---:|---:|---:|---:|\n");
	for (i = 0; i < NCASES; i++) {
		printf("| %s: %s | %.2f | %.2f | %.2f | ", cases[i].name,
		    cases[i].label, res[i].median, res[i].min, res[i].max);
		if (insns[i].known)
			printf("%.1f |\n", table_insns(&cases[i]));
		else
			printf("- |\n");
	}
}

static void
print_json_string(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= ' ')
			putchar(*s);
	}
	putchar('"');
}

static void
print_json_insns(const char *key, bool known, double value)
{
	if (known)
		printf(",\"%s\":%.2f", key, value);
	else
		printf(",\"%s\":null", key);
}

static void
cpu_model(char *buf, size_t len)
{
	char line[256], *p;
	FILE *f;

	snprintf(buf, len, "unknown");
	if ((f = fopen("/proc/cpuinfo", "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "model name", 10) != 0 ||
		    (p = strchr(line, ':')) == NULL)
			continue;
		p += 1 + strspn(p + 1, " \t");
		p[strcspn(p, "\n")] = '\0';
		snprintf(buf, len, "%s", p);
		break;
	}
	fclose(f);
}

static void
print_json(const struct result *res)
{
	char model[128];
	size_t i;

	cpu_model(model, sizeof(model));
	printf("JSON {\"bench\":\"trace_cost\",\"cpu\":");
	print_json_string(model);
	printf(",\"host_cpus\":%ld,\"tbuf_pages\":%u,\"batch\":%lu,"
	    "\"reps\":%u,\"unit\":\"ns/event\",\"cases\":{",
	    sysconf(_SC_NPROCESSORS_ONLN), tbuf_pages, opt_batch, opt_reps);
	for (i = 0; i < NCASES; i++) {
		printf("%s\"%s\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f",
		    i ? "," : "", cases[i].name, res[i].median, res[i].min,
		    res[i].max);
		print_json_insns("instructions", insns[i].known,
		    table_insns(&cases[i]));
		print_json_insns("site_instructions", insns[i].known,
		    insns[i].site);
		printf("}");
	}
	printf("}}\n");
}

/* Count mode: @count events of @c, in checked batches, for callgrind. */
static void
count_case(const struct bench_case *c, unsigned long count)
{
	unsigned long n;

	set_tracing(c->tracing);
	for (; count > 0; count -= n) {
		n = count < opt_batch ? count : opt_batch;
		run_batch(c, 0, n);
	}
}

static void
time_all(void)
{
	static double ns[TIMING_MAX_REPS * BENCH_CPUS];
	struct result res[NCASES];
	size_t i;

	for (i = 0; i < NCASES; i++) {
		set_tracing(cases[i].tracing);
		res[i] = timing_summarise(ns, timing_run(run_batch,
		    host_cpu_enter, &cases[i], cases[i].threads, opt_batch,
		    opt_reps, ns));
	}
	print_table(res);
	print_json(res);
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

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: trace_cost [-b batch] [-I file] [-p pages] [-r reps]\n"
	    "       trace_cost -c case [-b batch] [-n count] [-p pages]\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	const struct bench_case *one = NULL;
	const char *insns_path = NULL;
	unsigned long count = DEFAULT_COUNT;
	int ch;

	while ((ch = getopt(argc, argv, "I:b:c:n:p:r:")) != -1) {
		switch (ch) {
		case 'I':
			insns_path = optarg;
			break;
		case 'b':
			opt_batch = number(optarg, 1, UINT32_MAX, ch);
			break;
		case 'c':
			if ((one = find_case(optarg)) == NULL)
				errx(1, "-c %s: no such case", optarg);
			if (one->threads > 0)
				errx(1, "-c %s: runs threads", optarg);
			break;
		case 'n':
			count = number(optarg, 1, ULONG_MAX, ch);
			break;
		case 'p':
			opt_pages = number(optarg, 1, UINT16_MAX, ch);
			break;
		case 'r':
			opt_reps = number(optarg, MIN_REPS, TIMING_MAX_REPS, ch);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (one != NULL && insns_path != NULL))
		usage();

	timing_init();
	boot();
	if (insns_path != NULL)
		read_insns(insns_path);
	if (one != NULL)
		count_case(one, count);
	else
		time_all();
	return 0;
}
