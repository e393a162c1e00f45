/*
 * xentrace --dom0: dom0's own kernel events beside Xen's, on one clock.
 *
 * What Xen's trace cannot show is what dom0's Linux did with it: the
 * backend thread that a notification woke, the event channel's IRQ
 * handler, QEMU.  Linux records that in ftrace; this file takes it from
 * there, through libtracefs (the tracefs instance, its per-CPU raw
 * buffers) and libtraceevent (the events' formats, and kbuffer for the
 * ring buffer's pages), Debian's libraries for the job.
 *
 * The clock.  A PV dom0 reads the host's TSC natively under Xen's default
 * TSC mode, and ftrace's x86-tsc clock is that TSC: dom0's events and
 * Xen's records are then on one timebase with nothing converted.  That is
 * checked, not assumed: xentrace records pairs of (TSC, CLOCK_MONOTONIC)
 * at the start, each second and at the end, and the readers fit one
 * against the other.  Where x86-tsc is not there, ftrace's mono clock is
 * put on the TSC through the newest pair and the TSC's rate, and the
 * file says so (XT_DOM0_CLOCK_MONO).
 *
 * The records.  Each dom0 CPU has a lane, a stream of its own after the
 * pCPUs' (xtfile.h, "Dom0's kernel events"), so that its events, which
 * ftrace keeps in order per CPU, stay in TSC order.  ftrace.c makes the
 * records, and counts what ftrace lost (its buffer overran: kbuffer's
 * missed events) in them.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "dom0.h"
#include "ftrace.h"
#include "tsc.h"

#define PAGES_A_PASS    256u            /* per lane: the rest waits */
#define PAIR_MS         1000u
#define RATE_MS         20u             /* mono: the second pair's wait */

/* --dom0's keywords, each a list of SYSTEM:EVENT ("xen:*": the system). */
static const struct keyword {
    const char *name;
    const char *events;
} keywords[] = {
    { "sched", "sched:sched_switch,sched:sched_waking" },
    { "irq", "irq:irq_handler_entry,irq:irq_handler_exit" },
    { "softirq", "irq:softirq_entry,irq:softirq_exit" },
    { "xen", "xen:*" },
    { "all", "sched,irq,softirq,xen?" },
};

struct lane {
    struct tracefs_cpu *tcpu;           /* NULL: the CPU is offline */
    struct ftrace_lane put;
    uint64_t overrun;                   /* ftrace's own count, at the end */
};

struct dom0 {
    struct tracefs_instance *inst;
    struct tep_handle *tep;
    struct kbuffer *kbuf;
    void *page;
    int page_size;
    unsigned int first_lane, nr_lanes;
    struct lane *lanes;
    struct ftrace *ftrace;
    uint32_t clock;
    uint64_t pair_tsc, pair_ns, pair_ms;        /* the newest pair */
    uint64_t first_tsc, first_ns;               /* and the first */
};

/*
 * Parsing --dom0
 * ==============
 */

static const struct keyword *find_keyword(const char *name, size_t len)
{
    size_t i;

    for ( i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++ )
        if ( strlen(keywords[i].name) == len &&
             !strncmp(keywords[i].name, name, len) )
            return &keywords[i];
    return NULL;
}

/* One SYSTEM:EVENT, @len bytes at @name: plausible as ftrace names. */
static bool event_name(const char *name, size_t len)
{
    const char *colon = memchr(name, ':', len);
    size_t i;

    if ( !colon || colon == name || colon == name + len - 1 ||
         len > XT_DOM0_NAME_MAX )
        return false;
    for ( i = 0; i < len; i++ )
        if ( name + i != colon && name[i] != '_' && name[i] != '*' &&
             !(name[i] >= 'a' && name[i] <= 'z') &&
             !(name[i] >= 'A' && name[i] <= 'Z') &&
             !(name[i] >= '0' && name[i] <= '9') )
            return false;
    return true;
}

const char *dom0_parse(const char *spec)
{
    const char *p = spec;

    if ( !*spec )
        return "names no event";
    while ( *p )
    {
        size_t len = strcspn(p, ",");

        if ( !find_keyword(p, len) && !event_name(p, len) )
            return "not a keyword (sched, irq, softirq, xen, all) or "
                   "SYSTEM:EVENT";
        p += len + (p[len] == ',');
    }
    return NULL;
}

/*
 * Starting
 * ========
 */

/* Enable SYSTEM:EVENT and route it; false if the kernel has no such. */
static bool add_event(struct dom0 *d, const char *system, const char *name)
{
    struct tep_event *ev = tep_find_event_by_name(d->tep, system, name);

    if ( !ev )
        return false;
    if ( ftrace_takes(d->ftrace, ev->id) )
        return true;                    /* named twice */
    if ( tracefs_event_enable(d->inst, system, name) )
        err(1, "--dom0: cannot enable %s:%s", system, name);
    ftrace_add(d->ftrace, ev);
    return true;
}

/* Every event of @system; false if it has none. */
static bool add_system(struct dom0 *d, const char *system)
{
    char **events = tracefs_system_events(NULL, system);
    bool any = events && events[0];
    char **e;

    for ( e = events; e && *e; e++ )
        add_event(d, system, *e);
    tracefs_list_free(events);
    return any;
}

/* @name, @len bytes: a keyword or SYSTEM:EVENT ("?" at the end: if any). */
static void add_spec(struct dom0 *d, const char *name, size_t len);

static void add_list(struct dom0 *d, const char *list)
{
    while ( *list )
    {
        size_t len = strcspn(list, ",");

        add_spec(d, list, len);
        list += len + (list[len] == ',');
    }
}

static void add_spec(struct dom0 *d, const char *name, size_t len)
{
    const struct keyword *k = find_keyword(name, len);
    bool optional = len && name[len - 1] == '?';
    char buf[XT_DOM0_NAME_MAX + 1], *colon;

    if ( k )
        return add_list(d, k->events);
    if ( optional )
        len--;
    snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
    if ( (k = find_keyword(buf, len)) )
    {
        /* a keyword that may be missing: the kernel may have no xen: */
        char *events = strdup(k->events), *star;

        if ( !events )
            err(1, "memory");
        if ( (star = strstr(events, ":*")) )
            *star = '\0';
        if ( star )
            add_system(d, events);
        free(events);
        return;
    }
    colon = strchr(buf, ':');
    *colon = '\0';
    if ( !strcmp(colon + 1, "*") ? add_system(d, buf)
                                 : add_event(d, buf, colon + 1) )
        return;
    if ( !optional )
        errx(1, "--dom0: dom0's kernel has no event %s:%s", buf, colon + 1);
}

/*
 * The TSC and CLOCK_MONOTONIC, read together: the clock between two reads
 * of the TSC, taken at their midpoint; the closest of PAIR_TRIES reads, as
 * dom0's vCPU may be descheduled between two.
 */
#define PAIR_TRIES 5

static void read_pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    unsigned int i;

    for ( i = 0; i < PAIR_TRIES; i++ )
    {
        struct timespec t;
        uint64_t c0 = read_tsc(), c1;

        clock_gettime(CLOCK_MONOTONIC, &t);
        c1 = read_tsc();
        if ( c1 - c0 >= best )
            continue;
        best = c1 - c0;
        *tsc = c0 + (c1 - c0) / 2;
        *ns = (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
    }
}

/*
 * x86-tsc where ftrace has it, unless @mono, else mono, put on the TSC by
 * the pairs.
 */
static void set_clock(struct dom0 *d, bool mono)
{
    if ( !mono &&
         tracefs_instance_file_write(d->inst, "trace_clock", "x86-tsc") > 0 )
        d->clock = XT_DOM0_CLOCK_TSC;
    else if ( tracefs_instance_file_write(d->inst, "trace_clock", "mono") > 0 )
        d->clock = XT_DOM0_CLOCK_MONO;
    else
        err(1, "--dom0: cannot set ftrace's clock");
}

static void open_lanes(struct dom0 *d)
{
    unsigned int cpu, open = 0;

    d->nr_lanes = sysconf(_SC_NPROCESSORS_CONF);
    if ( !(d->lanes = calloc(d->nr_lanes, sizeof(*d->lanes))) )
        err(1, "memory");
    for ( cpu = 0; cpu < d->nr_lanes; cpu++ )
        if ( (d->lanes[cpu].tcpu = tracefs_cpu_open(d->inst, cpu, true)) )
        {
            open++;
            if ( !d->page_size )
                d->page_size = tracefs_cpu_read_size(d->lanes[cpu].tcpu);
        }
    if ( !open || d->page_size <= 0 )
        err(1, "--dom0: cannot open ftrace's buffers");
    if ( !(d->page = malloc(d->page_size)) ||
         !(d->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
                                   KBUFFER_ENDIAN_SAME_AS_HOST)) )
        err(1, "memory");
}

struct dom0 *dom0_start(const char *spec, bool mono, unsigned int first_lane,
                        struct xt_dom0_meta *meta, struct dom0 **started)
{
    struct dom0 *d = calloc(1, sizeof(*d));
    char name[32];

    if ( !d )
        err(1, "memory");
    *started = d;
    if ( !read_tsc() )
        errx(1, "--dom0: xentrace cannot read Xen's TSC here");
    if ( !tracefs_tracing_dir() )
        errx(1, "--dom0: no tracefs (mount -t tracefs nodev "
                "/sys/kernel/tracing)");
    snprintf(name, sizeof(name), "xentrace-ng-%ld", (long)getpid());
    if ( !(d->inst = tracefs_instance_create(name)) )
        err(1, "--dom0: cannot make a tracefs instance");
    if ( !(d->tep = tracefs_local_events(NULL)) )
        err(1, "--dom0: cannot read ftrace's event formats");
    d->ftrace = ftrace_new(d->tep, "--dom0", false);
    set_clock(d, mono);
    add_list(d, spec);
    open_lanes(d);
    d->first_lane = first_lane;
    read_pair(&d->first_tsc, &d->first_ns);
    if ( d->clock == XT_DOM0_CLOCK_MONO )
    {
        struct timespec rate = { .tv_nsec = RATE_MS * 1000000 };

        while ( nanosleep(&rate, &rate) && errno == EINTR )
            ;
    }
    read_pair(&d->pair_tsc, &d->pair_ns);
    d->pair_ms = d->pair_ns / 1000000;
    if ( tracefs_trace_on(d->inst) )
        err(1, "--dom0: cannot start ftrace");
    *meta = (struct xt_dom0_meta){
        .first_lane = first_lane, .lanes = d->nr_lanes, .clock = d->clock,
        .pair_tsc = d->first_tsc, .pair_ns = d->first_ns,
    };
    ftrace_types(d->ftrace, meta);
    return d;
}

unsigned int dom0_lanes(const struct dom0 *d)
{
    return d->nr_lanes;
}

/* A page's events, each 8 bytes at least, at most a record each, and one
   LOST record before any of them; a pair besides. */
size_t dom0_pass_bytes(const struct dom0 *d)
{
    return ((size_t)d->page_size / 8 + 1) * 4 * XT_DOM0_EVENT_WORDS +
           4 * XT_DOM0_PAIR_WORDS;
}

/*
 * Taking
 * ======
 */

/*
 * ftrace's timestamp @ts on the TSC: itself with x86-tsc; mono's from the
 * newest pair, at the rate between the first pair and it.  Pairs are read
 * to tens of ns each, so the rate is good to a few ppm over the RATE_MS
 * after the first (before the capture starts), and to a small fraction of
 * one from the next second on; the file's TSC rate, which xentrace
 * measures over 0.1 s where Xen does not say it, can be some 50 ppm off
 * (xen-sim).
 */
static uint64_t event_tsc(const struct dom0 *d, uint64_t ts)
{
    int64_t since = (int64_t)(ts - d->pair_ns);

    if ( d->clock == XT_DOM0_CLOCK_TSC )
        return ts;
    return d->pair_tsc + (__int128)since * (d->pair_tsc - d->first_tsc) /
                         (int64_t)(d->pair_ns - d->first_ns);
}

/* What @put put since @before, into @k's counts. */
static void count_into(struct chunk *k, const struct ftrace_lane *put,
                       const struct ftrace_lane *before)
{
    k->count.records += put->events - before->events;
    k->count.lost += put->lost - before->lost;
}

/* One page of ftrace's into @k: returns the newest TSC put. */
static uint64_t take_page(struct dom0 *d, struct lane *l, struct chunk *k)
{
    struct ftrace_lane before = l->put;
    unsigned long long ts;
    void *data;

    kbuffer_load_subbuffer(d->kbuf, d->page);
    ftrace_missed(&l->put, kbuffer_missed_events(d->kbuf));
    for ( data = kbuffer_read_event(d->kbuf, &ts); data;
          data = kbuffer_next_event(d->kbuf, &ts) )
    {
        struct tep_record rec = {
            .ts = ts, .data = data, .size = kbuffer_event_size(d->kbuf),
        };

        k->len += 4 * ftrace_put(d->ftrace, &l->put, &rec, event_tsc(d, ts),
                                 (uint32_t *)chunk_end(k));
    }
    count_into(k, &l->put, &before);
    return l->put.last_tsc;
}

/* Lane @i's pages, @flush: the last, partial ones too.  False: no writer. */
static bool take_lane_pages(struct dom0 *d, struct take *t, unsigned int i,
                            uint64_t now, bool flush)
{
    struct lane *l = &d->lanes[i];
    unsigned int pages;

    for ( pages = 0; l->tcpu && (flush || pages < PAGES_A_PASS); pages++ )
    {
        struct chunk *k;
        int n = flush ? tracefs_cpu_flush(l->tcpu, d->page)
                      : tracefs_cpu_read(l->tcpu, d->page, true);

        if ( n <= 0 )
            break;
        if ( !(k = take_lane(t, i, now)) )
            return false;
        take_lane_filled(t, k, take_page(d, l, k));
    }
    return true;
}

/* A pair, in lane 0's stream (without a TSC: it orders nothing). */
static bool put_pair(struct dom0 *d, struct take *t, uint64_t now)
{
    struct chunk *k = take_lane(t, 0, now);

    if ( !k )
        return false;
    read_pair(&d->pair_tsc, &d->pair_ns);
    d->pair_ms = d->pair_ns / 1000000;
    k->len += 4 * xt_dom0_pair_put(d->pair_tsc, d->pair_ns,
                                   (uint32_t *)chunk_end(k));
    take_lane_filled(t, k, 0);
    return true;
}

bool dom0_pass(struct dom0 *d, struct take *t, uint64_t now)
{
    unsigned int i;

    for ( i = 0; i < d->nr_lanes; i++ )
        if ( !take_lane_pages(d, t, i, now, false) )
            return false;
    /* @now is CLOCK_MONOTONIC's, as the pairs' */
    if ( now >= d->pair_ms + PAIR_MS )
        return put_pair(d, t, now);
    return true;
}

/* ftrace's overrun count of lane @cpu's buffer, from its stats. */
static uint64_t overrun(struct dom0 *d, unsigned int cpu)
{
    char file[64], *stats, *at;
    unsigned long long n = 0;

    snprintf(file, sizeof(file), "per_cpu/cpu%u/stats", cpu);
    if ( !(stats = tracefs_instance_file_read(d->inst, file, NULL)) )
        return 0;
    if ( (at = strstr(stats, "overrun:")) )
        sscanf(at, "overrun: %llu", &n);
    free(stats);
    return n;
}

void dom0_stop(struct dom0 *d, struct take *t)
{
    unsigned int i;

    tracefs_trace_off(d->inst);
    for ( i = 0; i < d->nr_lanes; i++ )
    {
        struct ftrace_lane *put = &d->lanes[i].put, before;
        struct chunk *k;

        if ( !take_lane_pages(d, t, i, 0, true) )
            return;
        before = *put;
        d->lanes[i].overrun = overrun(d, i);
        /* Lost at the very end: marked at the lane's last TSC. */
        if ( !put->pending && !put->pending_unknown )
            continue;
        if ( !(k = take_lane(t, i, 0)) )
            return;
        k->len += 4 * ftrace_put_lost(put, put->last_tsc,
                                      (uint32_t *)chunk_end(k));
        count_into(k, put, &before);
    }
    put_pair(d, t, 0);
}

void dom0_print(const struct dom0 *d, const struct output *o, FILE *to)
{
    unsigned int i;

    fprintf(to, "%8s %14s %12s %14s\n", "dom0-cpu", "events", "lost",
            "ftrace-overrun");
    for ( i = 0; i < d->nr_lanes; i++ )
    {
        const struct lane *l = &d->lanes[i];
        const struct chunk_count *n = output_written(o, d->first_lane + i);

        if ( !l->tcpu )
            continue;
        fprintf(to, "%8u %14" PRIu64 " %11" PRIu64 "%c %14" PRIu64 "\n", i,
                n->records, n->lost, l->put.lost_unknown ? '+' : ' ',
                l->overrun);
    }
    if ( d->clock == XT_DOM0_CLOCK_MONO )
        fputs("dom0's ftrace has no x86-tsc clock: its mono clock was put "
              "on the TSC\n", to);
}

void dom0_free(struct dom0 *d)
{
    unsigned int i;

    if ( !d )
        return;
    for ( i = 0; i < d->nr_lanes; i++ )
        if ( d->lanes[i].tcpu )
            tracefs_cpu_close(d->lanes[i].tcpu);
    ftrace_free(d->ftrace);
    free(d->lanes);
    free(d->page);
    if ( d->kbuf )
        kbuffer_free(d->kbuf);
    tep_free(d->tep);
    if ( d->inst )
    {
        tracefs_instance_destroy(d->inst);
        tracefs_instance_free(d->inst);
    }
    free(d);
}
