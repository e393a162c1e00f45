/*
 * xentrace-top: what a Xen host's vCPUs do, interval by interval, as
 * top(1) shows processes.
 *
 *   xentrace-top [-bfh] [-c cpus] [-d seconds] [-e mask] [-H hz] [-n n]
 *                [--json] [--metrics [addr:]port] [--svm]
 *                [--xen-version x.y] [file]
 *
 * It reads a trace file once, in TSC order, into the summary's analysis,
 * cuts it every -d seconds of the trace's own time, and shows per domain,
 * and per vCPU when expanded, its runstates as shares of the interval,
 * its wait for a pCPU, its exits by reason, hypercalls and injected
 * interrupts, and per pCPU the records lost.  Every figure is the
 * summary's (analysis.h, "Reading the figures"): xentrace-summary
 * --from/--to over the same interval gives the same counts, but for what
 * a later loss marker re-tells.  Full screen (ncurses) on a terminal; -b
 * prints text per interval, --json one JSON object per interval, and
 * --metrics serves the intervals' counters to Prometheus (metrics.h).  A
 * stream (xentrace - | xentrace-top -, or -f) is read as a file is; on
 * the screen its reader is a thread that never waits for the screen, and
 * each interval shows as it closes.  With no file, the stream is this
 * host's, from a xentrace of its own (host.h).  See xentrace-top(1).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>
#include <public/trace.h>       /* TRC_CLS_SHIFT..., as xentrace's -e */

#include "analysis.h"
#include "cli.h"
#include "host.h"
#include "metrics.h"
#include "numbers.h"
#include "options.h"            /* xentrace's -e and -c grammar */
#include "tsc.h"

#define DEFAULT_DELAY   2.0     /* -d, seconds */
#define MAX_DELAY       86400.0
#define MIN_DELAY       0.001
#define TOP_EXITS       8       /* reasons per row in text and on screen */
#define TOP_CALLS       8
#define JSON_ROWS       64      /* entries per table in JSON */

/* What the command line asks, and what the input says. */
struct top {
    const char *path, *name;
    bool host;                  /* no file: this host's, by xentrace */
    bool batch, json, svm;
    unsigned long long count;   /* -n; 0: until the end */
    double delay;               /* -d */
    bool has_evt_mask;
    uint32_t evt_mask;          /* -e */
    uint8_t *cpus;              /* -c: bitmap of XT_CPUS_MAX; NULL: all */

    struct xt_reader *r;
    uint64_t hz, origin, ticks; /* ticks: of an interval */
    const struct xt_metadata *start;    /* the wall clock at a TSC, or
                                           NULL if the file has none */
    bool live;                  /* a stream: shown as it comes */
    struct metrics *metrics;    /* --metrics: the counters, */
    struct metrics_server *server;  /* and where they are served */
};

/*
 * The figures of a row as shown, copied out of the interval's analysis
 * (which the next cut reuses), so that the screen can keep them.
 */
struct figures {
    uint32_t domvcpu;
    char name[MODEL_NAME_MAX];  /* analysis_row_name() */
    unsigned int nr_vcpus;      /* a domain's; 0 for a vCPU */
    double state[MODEL_STATES]; /* % of the interval (a domain: of one
                                   vCPU's, so up to nr_vcpus * 100) */
    struct analysis_dist wait;
    uint64_t exits, hypercalls, injected;   /* counts */
    unsigned int nr_exits, nr_calls;
    struct analysis_count exit[TOP_EXITS];  /* the costliest */
    struct analysis_count call[TOP_CALLS];  /* the most made */
};

/* One closed interval, [from, to) in TSC (the last one: [from, to]). */
struct frame {
    unsigned int index;         /* from 1 */
    uint64_t from, to, origin;
    char when[32];              /* "at 05:20:00 UTC", or "" */
    uint64_t records;           /* read in it */
    bool last;                  /* the trace ended in it */
    unsigned int nr_lost;       /* pCPUs */
    struct analysis_lost *lost;
    unsigned int nr_domains, nr_vcpus;
    struct figures *fig;        /* the domains, then the vCPUs */
};

/*
 * Reading: the records into the analysis, cut into intervals
 * ==========================================================
 */

/* Whether -e and -c let @rec through, as Xen's masks would have. */
static bool wanted(const struct top *t, const struct xt_record *rec)
{
    uint32_t both;

    if ( t->cpus && !(t->cpus[rec->cpu / 8] & (1u << (rec->cpu % 8))) )
        return false;
    /* Losses and metadata pass any event mask: they say what is missing. */
    if ( !t->has_evt_mask ||
         (rec->event >> TRC_CLS_SHIFT) == (TRC_GEN >> TRC_CLS_SHIFT) )
        return true;
    both = rec->event & t->evt_mask;
    return (both >> TRC_CLS_SHIFT) && ((both >> TRC_SUBCLS_SHIFT) & 0xf);
}

static void figures_of(const struct analysis *iv,
                       const struct analysis_row *row, unsigned int nr_vcpus,
                       struct figures *f)
{
    uint64_t span = analysis_span(iv);
    unsigned int s;

    memset(f, 0, sizeof(*f));
    f->domvcpu = analysis_row_domvcpu(row);
    analysis_row_name(iv, row, f->name, sizeof(f->name));
    f->nr_vcpus = nr_vcpus;
    for ( s = 0; s < MODEL_STATES; s++ )
        f->state[s] = span ? 100.0 * analysis_row_state(row, s) / span : 0;
    if ( analysis_row_wait(row, &f->wait) )
        err(CLI_EXIT_ERROR, "analysis");
    f->nr_exits = analysis_row_table(iv, row, ANALYSIS_EXITS, f->exit,
                                     TOP_EXITS, &f->exits);
    f->nr_calls = analysis_row_table(iv, row, ANALYSIS_HYPERCALLS, f->call,
                                     TOP_CALLS, &f->hypercalls);
    analysis_row_table(iv, row, ANALYSIS_INJECTED, NULL, 0, &f->injected);
}

/* " at 05:20:00 UTC" for @tsc, where the file says when it started. */
static void wall_clock(char *buf, size_t size, const struct top *t,
                       uint64_t tsc)
{
    time_t sec;
    struct tm tm;

    buf[0] = '\0';
    if ( !t->start || tsc < t->start->start_tsc )
        return;
    sec = t->start->start_sec +
          (time_t)(tsc_seconds(tsc - t->start->start_tsc, t->hz) +
                   t->start->start_nsec / 1e9);
    if ( gmtime_r(&sec, &tm) )
        strftime(buf, size, " at %H:%M:%S UTC", &tm);
}

/* The frame of interval @index, @iv (of @rows). */
static struct frame *frame_of(const struct top *t, unsigned int index,
                              const struct analysis *iv,
                              const struct analysis_rows *rows)
{
    struct frame *fr = calloc(1, sizeof(*fr));
    unsigned int i, nd = rows->nr_domains;

    if ( !fr || !(fr->lost = calloc(analysis_nr_pcpus(iv) + 1,
                                    sizeof(*fr->lost))) ||
         !(fr->fig = calloc(nd + rows->nr_vcpus + 1, sizeof(*fr->fig))) )
        err(CLI_EXIT_ERROR, "%s", t->name);
    fr->index = index;
    fr->from = analysis_first_tsc(iv);
    fr->to = analysis_last_tsc(iv);
    fr->origin = t->origin;
    wall_clock(fr->when, sizeof(fr->when), t, fr->from);
    fr->records = analysis_records(iv);
    fr->nr_lost = analysis_nr_pcpus(iv);
    for ( i = 0; i < fr->nr_lost; i++ )
        analysis_pcpu_lost(iv, i, &fr->lost[i]);
    fr->nr_domains = nd;
    fr->nr_vcpus = rows->nr_vcpus;
    for ( i = 0; i < nd; i++ )
        figures_of(iv, rows->domains[i], rows->domain_vcpus[i], &fr->fig[i]);
    for ( i = 0; i < rows->nr_vcpus; i++ )
        figures_of(iv, rows->vcpus[i], 0, &fr->fig[nd + i]);
    return fr;
}

static void frame_free(struct frame *fr)
{
    if ( !fr )
        return;
    free(fr->lost);
    free(fr->fig);
    free(fr);
}

/*
 * Where an interval goes as it closes: @iv is valid during the call only;
 * false stops the reading.
 */
typedef bool emit_fn(void *arg, const struct top *t, unsigned int index,
                     struct analysis *iv, bool last);

/* --metrics: add interval @iv to the counters, and serve them. */
static void publish(const struct top *t, struct analysis *iv)
{
    if ( t->metrics && (metrics_add(t->metrics, iv, t->hz) ||
                        metrics_publish(t->server, t->metrics)) )
        err(CLI_EXIT_ERROR, "--metrics");
}

/*
 * Read the trace in TSC order into the analysis, and cut it at each
 * origin + k * d: intervals [origin + k * d, origin + (k + 1) * d), the
 * first from the trace's first TSC, the last to its last (inclusive), as
 * xentrace-summary --from and --to take them.  0, or -1 with errno (a
 * read error, ENOMEM).
 */
static int run_intervals(struct top *t, emit_fn *emit, void *arg)
{
    struct analysis_options ao = { .hz = t->hz, .svm = t->svm };
    struct model_options mo = { 0 };
    struct analysis *a = analysis_new(t->r, &mo, &ao), *iv;
    struct xt_iter *it = a ? xt_iter_new(t->r, XT_ORDER_TSC, 0, 0) : NULL;
    struct cli_cuts cut = { .step = t->ticks };
    unsigned int index = 1;
    struct xt_record rec;
    bool begun = false;
    int got, ret = -1;

    if ( !it )
        goto out;
    while ( (got = xt_iter_next(it, &rec)) > 0 )
    {
        for ( ; begun && rec.tsc >= cut.end &&
                cut.end < analysis_last_tsc(a); cli_cuts_next(&cut) )
        {
            if ( analysis_cut(a, cut.end, &iv) )
                goto out;
            publish(t, iv);
            if ( !emit(arg, t, index++, iv, false) )
                goto stop;
        }
        if ( !wanted(t, &rec) )
            continue;
        if ( analysis_feed(a, &rec) )
            goto out;
        /* Time 0 and the first TSC: a stream's are known from its first. */
        if ( !begun && rec.has_tsc )
        {
            begun = true;
            t->origin = cut.origin = cli_origin(t->r);
            cli_cuts_start(&cut, analysis_first_tsc(a));
        }
    }
    if ( got < 0 || analysis_finish(a) ||
         analysis_cut(a, analysis_last_tsc(a), &iv) )
        goto out;
    publish(t, iv);
    emit(arg, t, index, iv, true);
stop:
    ret = 0;
out:
    xt_iter_free(it);
    analysis_free(a);
    return ret;
}

/*
 * The figures as text
 * ===================
 */

static double per_second(const struct frame *fr, uint64_t n, uint64_t hz)
{
    double s = tsc_seconds(fr->to - fr->from, hz);

    return s > 0 ? n / s : 0;
}

/*
 * The columns of the table, which the screen sorts by.
 */
enum column {
    COL_NAME, COL_VCPUS, COL_RUN, COL_RUNNABLE, COL_BLOCKED, COL_OFFLINE,
    COL_LOST, COL_UNKNOWN, COL_P50, COL_P99, COL_EXITS, COL_CALLS, COL_INJ,
    COL_TOP_EXIT, NR_COLUMNS
};

static const struct {
    const char *head;
    int width;                  /* negative: left-aligned */
} columns[NR_COLUMNS] = {
    [COL_NAME] = { "NAME", -18 }, [COL_VCPUS] = { "VCPUS", 5 },
    [COL_RUN] = { "RUN%", 6 }, [COL_RUNNABLE] = { "RUNBL%", 6 },
    [COL_BLOCKED] = { "BLOCK%", 6 }, [COL_OFFLINE] = { "OFFL%", 6 },
    [COL_LOST] = { "LOST%", 6 }, [COL_UNKNOWN] = { "UNKN%", 6 },
    [COL_P50] = { "WAITp50", 9 }, [COL_P99] = { "WAITp99", 9 },
    [COL_EXITS] = { "EXITS/s", 9 }, [COL_CALLS] = { "HCALLS/s", 9 },
    [COL_INJ] = { "INJ/s", 8 }, [COL_TOP_EXIT] = { "TOP-EXIT", -18 },
};

static const enum model_state column_state[NR_COLUMNS] = {
    [COL_RUN] = MODEL_RUNNING, [COL_RUNNABLE] = MODEL_RUNNABLE,
    [COL_BLOCKED] = MODEL_BLOCKED, [COL_OFFLINE] = MODEL_OFFLINE,
    [COL_LOST] = MODEL_LOST, [COL_UNKNOWN] = MODEL_UNKNOWN,
};

static const char *top_exit(const struct figures *f)
{
    return f->nr_exits ? f->exit[0].name : "-";
}

/* A column's value, to sort by (COL_NAME, COL_TOP_EXIT: by name). */
static double column_value(const struct figures *f, enum column c,
                           uint64_t hz)
{
    switch ( c )
    {
    case COL_VCPUS:     return f->nr_vcpus;
    case COL_P50:       return tsc_seconds(f->wait.p50, hz);
    case COL_P99:       return tsc_seconds(f->wait.p99, hz);
    case COL_EXITS:     return f->exits;
    case COL_CALLS:     return f->hypercalls;
    case COL_INJ:       return f->injected;
    case COL_NAME:
    case COL_TOP_EXIT:
    case NR_COLUMNS:    return 0;
    default:            return f->state[column_state[c]];
    }
}

/* One cell of @f into @buf, as wide as its column. */
static void format_cell(char *buf, size_t size, const struct frame *fr,
                        const struct figures *f, enum column c, uint64_t hz)
{
    int w = columns[c].width;

    switch ( c )
    {
    case COL_NAME:
        /* Cut to the column, so that a long name moves no other. */
        snprintf(buf, size, "%s%-*.*s", f->nr_vcpus ? "" : "  ",
                 f->nr_vcpus ? -w : -w - 2, f->nr_vcpus ? -w : -w - 2,
                 f->name);
        break;
    case COL_VCPUS:
        if ( f->nr_vcpus )
            snprintf(buf, size, "%*u", w, f->nr_vcpus);
        else
            snprintf(buf, size, "%*s", w, "");
        break;
    case COL_P50:
    case COL_P99:
        if ( f->wait.count )
            snprintf(buf, size, "%*.1fus", w - 2,
                     1e6 * column_value(f, c, hz));
        else
            snprintf(buf, size, "%*s", w, "-");
        break;
    case COL_EXITS:
        snprintf(buf, size, "%*.0f", w, per_second(fr, f->exits, hz));
        break;
    case COL_CALLS:
        snprintf(buf, size, "%*.0f", w, per_second(fr, f->hypercalls, hz));
        break;
    case COL_INJ:
        snprintf(buf, size, "%*.0f", w, per_second(fr, f->injected, hz));
        break;
    case COL_TOP_EXIT:
        snprintf(buf, size, "%s", top_exit(f));
        break;
    case NR_COLUMNS:
        buf[0] = '\0';
        break;
    default:
        snprintf(buf, size, "%*.1f", w, column_value(f, c, hz));
        break;
    }
}

/* The table's line of @f, or its head if @f is NULL. */
static void format_line(char *buf, size_t size, const struct frame *fr,
                        const struct figures *f, uint64_t hz)
{
    size_t len = 0;
    unsigned int c;

    buf[0] = '\0';
    for ( c = 0; c < NR_COLUMNS && len + 1 < size; c++ )
    {
        char cell[64];

        if ( f )
            format_cell(cell, sizeof(cell), fr, f, c, hz);
        else
            snprintf(cell, sizeof(cell), "%*s",
                     c == COL_TOP_EXIT ? 0 : columns[c].width,
                     columns[c].head);
        len += snprintf(buf + len, size - len, "%s%s", c ? " " : "", cell);
    }
}

/* The interval's header: when, and its records. */
static void format_when(char *buf, size_t size, const struct frame *fr,
                        uint64_t hz)
{
    snprintf(buf, size, "interval %u: %.3f to %.3f s%s (tsc %" PRIu64 " to %"
             PRIu64 ")%s, %.0f records/s", fr->index,
             tsc_seconds(fr->from - fr->origin, hz),
             tsc_seconds(fr->to - fr->origin, hz), fr->when, fr->from, fr->to,
             fr->last ? ", the last" : "", per_second(fr, fr->records, hz));
}

/* The records lost per second on each pCPU that lost any. */
static void format_lost(char *buf, size_t size, const struct frame *fr,
                        uint64_t hz)
{
    size_t len = snprintf(buf, size, "LOST/s:");
    unsigned int i;
    bool any = false;

    for ( i = 0; i < fr->nr_lost && len < size; i++ )
    {
        if ( !fr->lost[i].records )
            continue;
        any = true;
        len += snprintf(buf + len, size - len, " p%u %.0f", fr->lost[i].cpu,
                        per_second(fr, fr->lost[i].records, hz));
    }
    if ( !any && len < size )
        snprintf(buf + len, size - len, " none");
}

/*
 * Batch: text
 * ===========
 */

static void text_details(FILE *f, const struct frame *fr,
                         const struct figures *fg, uint64_t hz)
{
    double span = fr->to - fr->from;
    unsigned int i;

    if ( fg->nr_exits )
        fprintf(f, "%s exits:\n  %-20s %10s %7s %10s %10s\n", fg->name,
                "reason", "per-s", "%time", "mean-cyc", "max-cyc");
    for ( i = 0; i < fg->nr_exits; i++ )
    {
        const struct analysis_count *e = &fg->exit[i];

        fprintf(f, "  %-20s %10.0f %7.2f %10" PRIu64 " %10" PRIu64 "\n",
                e->name, per_second(fr, e->count, hz),
                span ? 100.0 * analysis_count_in_xen(e) / span : 0,
                analysis_count_in_xen(e) / e->count, e->max);
    }
    if ( fg->nr_calls )
        fprintf(f, "%s hypercalls:\n  %-20s %10s\n", fg->name, "name",
                "per-s");
    for ( i = 0; i < fg->nr_calls; i++ )
        fprintf(f, "  %-20s %10.0f\n", fg->call[i].name,
                per_second(fr, fg->call[i].count, hz));
}

static void text_frame(FILE *f, const struct frame *fr, uint64_t hz)
{
    unsigned int d, v, nd = fr->nr_domains;
    char line[512];

    format_when(line, sizeof(line), fr, hz);
    fprintf(f, "%s\n", line);
    format_lost(line, sizeof(line), fr, hz);
    fprintf(f, "%s\n", line);
    format_line(line, sizeof(line), fr, NULL, hz);
    fprintf(f, "%s\n", line);
    for ( d = 0; d < nd; d++ )
    {
        format_line(line, sizeof(line), fr, &fr->fig[d], hz);
        fprintf(f, "%s\n", line);
        for ( v = 0; v < fr->nr_vcpus; v++ )
        {
            if ( fr->fig[nd + v].domvcpu >> 16 != fr->fig[d].domvcpu >> 16 )
                continue;
            format_line(line, sizeof(line), fr, &fr->fig[nd + v], hz);
            fprintf(f, "%s\n", line);
        }
    }
    for ( d = 0; d < nd; d++ )
        text_details(f, fr, &fr->fig[d], hz);
    fprintf(f, "\n");
}

/*
 * Batch: JSON, one object per interval
 * ====================================
 */

static void json_table(FILE *f, const struct analysis *iv,
                       const struct analysis_row *row, enum analysis_table tb,
                       const char *member)
{
    struct analysis_count e[JSON_ROWS];
    unsigned int i, n;
    uint64_t total;

    n = analysis_row_table(iv, row, tb, e, JSON_ROWS, &total);
    fprintf(f, ",\"%s\":{\"count\":%" PRIu64 ",\"top\":[", member, total);
    for ( i = 0; i < n; i++ )
    {
        fprintf(f, "%s{\"key\":%" PRIu64 ",\"name\":", i ? "," : "",
                e[i].key);
        cli_json_string(f, e[i].name);
        fprintf(f, ",\"count\":%" PRIu64 ",\"cycles\":%" PRIu64, e[i].count,
                e[i].ticks);
        if ( tb == ANALYSIS_EXITS )
            fprintf(f, ",\"halted_cycles\":%" PRIu64 ",\"max_cycles\":%"
                    PRIu64, e[i].halted, e[i].max);
        fprintf(f, "}");
    }
    fprintf(f, "]}");
}

static void json_row(FILE *f, const struct analysis *iv,
                     const struct analysis_row *row, unsigned int nr_vcpus,
                     uint64_t hz)
{
    uint32_t dv = analysis_row_domvcpu(row);
    struct analysis_dist w;
    char name[MODEL_NAME_MAX];
    unsigned int s;

    fprintf(f, "{\"domain\":%u", dv >> 16);
    if ( (dv & 0xffff) != 0xffff )
        fprintf(f, ",\"vcpu\":%u", dv & 0xffff);
    else
        fprintf(f, ",\"vcpus\":%u", nr_vcpus);
    fprintf(f, ",\"name\":");
    cli_json_string(f, analysis_row_name(iv, row, name, sizeof(name)));
    fprintf(f, ",\"runstate_cycles\":{");
    for ( s = 0; s < MODEL_STATES; s++ )
        fprintf(f, "%s\"%s\":%" PRIu64, s ? "," : "", model_state_name(s),
                analysis_row_state(row, s));
    if ( analysis_row_wait(row, &w) )
        err(CLI_EXIT_ERROR, "analysis");
    fprintf(f, "},\"wait\":{\"count\":%" PRIu64 ",\"mean_us\":%.3f"
            ",\"p50_us\":%.3f,\"p99_us\":%.3f,\"max_us\":%.3f}", w.count,
            1e6 * tsc_seconds(w.mean, hz), 1e6 * tsc_seconds(w.p50, hz),
            1e6 * tsc_seconds(w.p99, hz), 1e6 * tsc_seconds(w.max, hz));
    json_table(f, iv, row, ANALYSIS_EXITS, "exits");
    json_table(f, iv, row, ANALYSIS_HYPERCALLS, "hypercalls");
    json_table(f, iv, row, ANALYSIS_INJECTED, "injected");
    fprintf(f, "}");
}

static void json_interval(FILE *f, const struct top *t, unsigned int index,
                          const struct analysis *iv, bool last,
                          const struct analysis_rows *rows)
{
    uint64_t from = analysis_first_tsc(iv), to = analysis_last_tsc(iv);
    unsigned int i;

    /* [from_tsc, to_tsc) always: the last interval holds its last TSC. */
    if ( last )
        to++;

    fprintf(f, "{\"interval\":%u,\"from_tsc\":%" PRIu64 ",\"to_tsc\":%" PRIu64
            ",\"from_s\":%.9f,\"seconds\":%.9f,\"last\":%s,\"records\":%"
            PRIu64 ",\"lost\":[", index, from, to,
            tsc_seconds(from - t->origin, t->hz),
            tsc_seconds(to - from, t->hz), last ? "true" : "false",
            analysis_records(iv));
    for ( i = 0; i < analysis_nr_pcpus(iv); i++ )
    {
        struct analysis_lost l;

        analysis_pcpu_lost(iv, i, &l);
        fprintf(f, "%s{\"cpu\":%u,\"records\":%" PRIu64 ",\"gaps\":%" PRIu64
                ",\"seconds\":%.9f}", i ? "," : "", l.cpu, l.records, l.gaps,
                tsc_seconds(l.ticks, t->hz));
    }
    fprintf(f, "],\"domains\":[");
    for ( i = 0; i < rows->nr_domains; i++ )
    {
        fputs(i ? "," : "", f);
        json_row(f, iv, rows->domains[i], rows->domain_vcpus[i], t->hz);
    }
    fprintf(f, "],\"vcpus\":[");
    for ( i = 0; i < rows->nr_vcpus; i++ )
    {
        fputs(i ? "," : "", f);
        json_row(f, iv, rows->vcpus[i], 0, t->hz);
    }
    fprintf(f, "]}\n");
}

static bool batch_emit(void *arg, const struct top *t, unsigned int index,
                       struct analysis *iv, bool last)
{
    struct analysis_rows rows;

    (void)arg;
    if ( analysis_rows(iv, &rows) )
        err(CLI_EXIT_ERROR, "%s", t->name);
    if ( t->json )
        json_interval(stdout, t, index, iv, last, &rows);
    else
    {
        struct frame *fr = frame_of(t, index, iv, &rows);

        fr->last = last;
        text_frame(stdout, fr, t->hz);
        frame_free(fr);
    }
    analysis_rows_free(&rows);
    /* A live stream's interval goes out as it closes. */
    if ( fflush(stdout) )
        err(CLI_EXIT_ERROR, "stdout");
    return !t->count || index < t->count;
}

/*
 * The screen
 * ==========
 *
 * A thread reads the trace and hands each interval over as it closes;
 * the main thread draws the latest and takes the keys, so that neither
 * waits for the other: a live stream is read on while the screen is
 * paused, a finished file is stepped through one interval each -d
 * seconds of the wall clock.
 */

struct handover {
    pthread_mutex_t lock;
    pthread_cond_t taken;
    struct frame *ready;        /* closed, not yet taken */
    bool ended;
    int error;                  /* the reader's errno, once ended */
    unsigned long long dropped; /* live: closed while another waited */
    int wake[2];                /* a byte for each handover */
};

struct screen {
    struct top *t;
    struct handover h;
    struct frame *fr;           /* shown, sorted */
    unsigned long long dropped; /* the handover's, as last taken */
    int error;                  /* the reader's, once it ended */
    bool paused, all_expanded, ended;
    bool *expanded;             /* by domain id */
    enum column sort;
    bool reverse;
    bool has_filter;
    uint32_t filter;            /* only this domain */
    unsigned int selected;      /* line of the table */
    uint32_t selected_domvcpu;
    struct timespec next_step;  /* a file: when the next interval shows */
};

/* Hand @fr over: a live stream's replaces one not yet taken. */
static void hand_over(struct handover *h, struct frame *fr)
{
    pthread_mutex_lock(&h->lock);
    if ( h->ready )
    {
        /*
         * A live stream goes on whatever the screen does (else the
         * capture behind it loses records); a file waits its turn.
         */
        frame_free(h->ready);
        h->dropped++;
    }
    h->ready = fr;
    pthread_mutex_unlock(&h->lock);
    if ( write(h->wake[1], "", 1) < 0 && errno != EAGAIN )
        err(CLI_EXIT_ERROR, "wake");
}

static bool screen_emit(void *arg, const struct top *t, unsigned int index,
                        struct analysis *iv, bool last)
{
    struct handover *h = arg;
    struct analysis_rows rows;
    struct frame *fr;

    if ( analysis_rows(iv, &rows) )
        err(CLI_EXIT_ERROR, "%s", t->name);
    fr = frame_of(t, index, iv, &rows);
    fr->last = last;
    analysis_rows_free(&rows);
    /* A file's next interval waits until the screen has taken this one. */
    pthread_mutex_lock(&h->lock);
    while ( !t->live && h->ready )
        pthread_cond_wait(&h->taken, &h->lock);
    pthread_mutex_unlock(&h->lock);
    hand_over(h, fr);
    return true;
}

static void *reader_thread(void *arg)
{
    struct screen *s = arg;
    struct handover *h = &s->h;
    int error = run_intervals(s->t, screen_emit, h) ? errno : 0;

    pthread_mutex_lock(&h->lock);
    h->ended = true;
    h->error = error;
    pthread_mutex_unlock(&h->lock);
    if ( write(h->wake[1], "", 1) < 0 && errno != EAGAIN )
        err(CLI_EXIT_ERROR, "wake");
    return NULL;
}

static int cmp_figures(const struct figures *x, const struct figures *y,
                       enum column c, uint64_t hz)
{
    double a = column_value(x, c, hz), b = column_value(y, c, hz);
    bool xi = x->domvcpu >> 16 == MODEL_DOMID_IDLE;
    bool yi = y->domvcpu >> 16 == MODEL_DOMID_IDLE;
    int r;

    if ( xi != yi )
        return xi ? 1 : -1;         /* idle last, as the summary has it */
    if ( c == COL_TOP_EXIT && (r = strcmp(top_exit(x), top_exit(y))) )
        return r;
    if ( c != COL_NAME && c != COL_TOP_EXIT && a != b )
        return a < b ? 1 : -1;      /* the largest first */
    return x->domvcpu < y->domvcpu ? -1 : x->domvcpu > y->domvcpu;
}

static struct screen *sort_screen;

static int sort_cmp(const void *pa, const void *pb)
{
    int r = cmp_figures(pa, pb, sort_screen->sort, sort_screen->t->hz);

    return sort_screen->reverse ? -r : r;
}

/* The shown interval's domains, and its vCPUs, each sorted. */
static void screen_sort(struct screen *s)
{
    struct frame *fr = s->fr;

    sort_screen = s;
    qsort(fr->fig, fr->nr_domains, sizeof(*fr->fig), sort_cmp);
    qsort(fr->fig + fr->nr_domains, fr->nr_vcpus, sizeof(*fr->fig),
          sort_cmp);
}

static void screen_take(struct screen *s, struct frame *fr)
{
    frame_free(s->fr);
    s->fr = fr;
    screen_sort(s);
}

/* The table's lines: each domain, and its vCPUs if expanded. */
static unsigned int screen_lines(const struct screen *s,
                                 const struct figures **lines,
                                 unsigned int max)
{
    const struct figures *fig = s->fr->fig;
    unsigned int d, v, n = 0, nd = s->fr->nr_domains;

    for ( d = 0; d < nd && n < max; d++ )
    {
        uint32_t dom = fig[d].domvcpu >> 16;

        if ( s->has_filter && dom != s->filter )
            continue;
        lines[n++] = &fig[d];
        if ( !s->all_expanded && !s->expanded[dom] )
            continue;
        for ( v = 0; v < s->fr->nr_vcpus && n < max; v++ )
            if ( fig[nd + v].domvcpu >> 16 == dom )
                lines[n++] = &fig[nd + v];
    }
    return n;
}

static void draw_head(struct screen *s, int cols)
{
    char line[512], lost[512];
    char host[64];

    if ( gethostname(host, sizeof(host)) )
        snprintf(host, sizeof(host), "?");
    host[sizeof(host) - 1] = '\0';
    snprintf(line, sizeof(line), "xentrace-top on %s: %s, every %g s of "
             "trace time%s%s", host, s->t->name, s->t->delay,
             s->paused ? "  [paused]" : "",
             s->ended ? "  [end of trace]" : "");
    mvprintw(0, 0, "%.*s", cols, line);
    if ( !s->fr )
    {
        mvprintw(1, 0, "waiting for the first interval to close...");
        return;
    }
    format_when(line, sizeof(line), s->fr, s->t->hz);
    mvprintw(1, 0, "%.*s", cols, line);
    format_lost(lost, sizeof(lost), s->fr, s->t->hz);
    /* A loss in bold reverse, so that no one reads it as idleness. */
    if ( strcmp(lost, "LOST/s: none") )
        attron(A_BOLD | A_REVERSE);
    mvprintw(2, 0, "%.*s", cols, lost);
    attroff(A_BOLD | A_REVERSE);
    if ( s->dropped && (int)strlen(lost) < cols )
    {
        snprintf(line, sizeof(line), "  (%llu intervals closed while paused "
                 "or busy, not shown)", s->dropped);
        printw("%.*s", cols - (int)strlen(lost), line);
    }
}

static void draw_table(struct screen *s, int rows, int cols)
{
    const struct figures *lines[512];
    unsigned int n = screen_lines(s, lines, 512), i;
    char line[512];
    int y = 4, c, x;

    /* The head, the sort column underlined. */
    move(y, 0);
    for ( c = 0, x = 0; c < NR_COLUMNS; c++ )
    {
        int w = columns[c].width < 0 ? -columns[c].width : columns[c].width;

        if ( x >= cols )
            break;
        attron(A_REVERSE);
        if ( c == (int)s->sort )
            attron(A_BOLD | A_UNDERLINE);
        mvprintw(y, x, "%*s", columns[c].width, columns[c].head);
        attroff(A_BOLD | A_UNDERLINE);
        printw(" ");
        attroff(A_REVERSE);
        x += w + 1;
    }
    if ( s->selected >= n )
        s->selected = n ? n - 1 : 0;
    for ( i = 0; i < n && y + 1 + (int)i < rows; i++ )
    {
        format_line(line, sizeof(line), s->fr, lines[i], s->t->hz);
        if ( i == s->selected )
        {
            attron(A_REVERSE);
            s->selected_domvcpu = lines[i]->domvcpu;
        }
        mvprintw(y + 1 + i, 0, "%.*s", cols, line);
        attroff(A_REVERSE);
    }
}

/*
 * The selected row's exits, and its hypercalls beside them (alone if it
 * has no exits), below the table; each line cut to the screen's width.
 */
static void draw_details(struct screen *s, int top, int rows, int cols)
{
    const struct figures *lines[512], *f;
    unsigned int n = screen_lines(s, lines, 512), i;
    double span = s->fr->to - s->fr->from;
    uint64_t hz = s->t->hz;
    char line[256];
    int y = top, len, width;

    if ( !n || y + 2 >= rows )
        return;
    f = lines[s->selected];
    width = strlen(f->name) > 10 ? (int)strlen(f->name) : 10;
    len = snprintf(line, sizeof(line), "%-*s ", width, f->name);
    if ( f->nr_exits )
        len += snprintf(line + len, sizeof(line) - len,
                        "%-18s %9s %6s %9s %10s   ", "EXIT", "/s", "%time",
                        "mean-cyc", "max-cyc");
    if ( f->nr_calls )
        snprintf(line + len, sizeof(line) - len, "%-18s %9s", "HYPERCALL",
                 "/s");
    attron(A_BOLD);
    mvprintw(y++, 0, "%.*s", cols, line);
    attroff(A_BOLD);
    for ( i = 0; (i < f->nr_exits || i < f->nr_calls) && y < rows; i++, y++ )
    {
        const struct analysis_count *e = &f->exit[i], *c = &f->call[i];

        len = snprintf(line, sizeof(line), "%-*s ", width, "");
        if ( i < f->nr_exits )
            len += snprintf(line + len, sizeof(line) - len,
                            "%-18s %9.0f %6.2f %9" PRIu64 " %10" PRIu64 "   ",
                            e->name, per_second(s->fr, e->count, hz),
                            span ? 100.0 * analysis_count_in_xen(e) / span : 0,
                            analysis_count_in_xen(e) / e->count, e->max);
        else if ( f->nr_exits )
            len += snprintf(line + len, sizeof(line) - len, "%*s", 60, "");
        if ( i < f->nr_calls )
            snprintf(line + len, sizeof(line) - len, "%-18s %9.0f", c->name,
                     per_second(s->fr, c->count, hz));
        mvprintw(y, 0, "%.*s", cols, line);
    }
}

static void draw(struct screen *s)
{
    int rows, cols;
    const struct figures *lines[512];
    unsigned int n;

    getmaxyx(stdscr, rows, cols);
    erase();
    draw_head(s, cols);
    if ( s->fr )
    {
        n = screen_lines(s, lines, 512);
        draw_table(s, rows - 1, cols);
        draw_details(s, 4 + 2 + (int)n, rows - 1, cols);
    }
    attron(A_REVERSE);
    mvprintw(rows - 1, 0, "%-*.*s", cols, cols,
             "q quit  < > sort  r reverse  up/down select  Enter expand  "
             "e expand all  f filter  space pause");
    attroff(A_REVERSE);
    refresh();
}

/*
 * The domain of @fr whose row is named "dN (@name)": the name the trace
 * gives it now (the reader's table is the reading thread's).
 */
static bool domain_named(const struct frame *fr, const char *name,
                         uint32_t *dom)
{
    size_t len = strlen(name);
    unsigned int i;

    for ( i = 0; fr && i < fr->nr_domains; i++ )
    {
        const char *open = strchr(fr->fig[i].name, '(');

        if ( open && !strncmp(open + 1, name, len) &&
             !strcmp(open + 1 + len, ")") )
        {
            *dom = fr->fig[i].domvcpu >> 16;
            return true;
        }
    }
    return false;
}

/* 'f': a domain to show alone, by id or name, or all again. */
static void ask_filter(struct screen *s)
{
    int rows, cols;
    char buf[XT_DOMAIN_NAME_MAX + 1];
    unsigned long long dom;

    getmaxyx(stdscr, rows, cols);
    (void)cols;
    nodelay(stdscr, FALSE);
    echo();
    curs_set(1);
    move(rows - 1, 0);
    clrtoeol();
    printw("domain to show, id or name (empty: all): ");
    if ( getnstr(buf, sizeof(buf) - 1) == ERR )
        buf[0] = '\0';
    noecho();
    curs_set(0);
    nodelay(stdscr, TRUE);
    if ( (s->has_filter = buf[0] && !num_parse(buf, 0, 0x7fff, &dom)) )
        s->filter = dom;
    else
        s->has_filter = buf[0] && domain_named(s->fr, buf, &s->filter);
    s->selected = 0;
}

/* A key: false to quit. */
static bool take_key(struct screen *s, int ch)
{
    switch ( ch )
    {
    case 'q':
        return false;
    case '<':
        s->sort = s->sort ? s->sort - 1 : NR_COLUMNS - 1;
        break;
    case '>':
        s->sort = (s->sort + 1) % NR_COLUMNS;
        break;
    case 'r':
        s->reverse = !s->reverse;
        break;
    case KEY_UP:
        if ( s->selected )
            s->selected--;
        break;
    case KEY_DOWN:
        s->selected++;
        break;
    case '\n':
    case KEY_ENTER:
        if ( s->fr )
            s->expanded[s->selected_domvcpu >> 16] =
                !s->expanded[s->selected_domvcpu >> 16];
        break;
    case 'e':
        s->all_expanded = !s->all_expanded;
        break;
    case 'f':
        ask_filter(s);
        break;
    case ' ':
        s->paused = !s->paused;
        break;
    default:
        return true;
    }
    if ( s->fr )
        screen_sort(s);
    return true;
}

static bool time_passed(const struct timespec *when)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > when->tv_sec ||
           (now.tv_sec == when->tv_sec && now.tv_nsec >= when->tv_nsec);
}

static int ms_until(const struct timespec *when)
{
    struct timespec now;
    long long ms;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (when->tv_sec - now.tv_sec) * 1000LL +
         (when->tv_nsec - now.tv_nsec) / 1000000;
    return ms < 0 ? 0 : ms > 1000 ? 1000 : (int)ms;
}

/* Take the interval waiting, if it is time to show one. */
static void screen_poll(struct screen *s)
{
    struct frame *fr;
    struct handover *h = &s->h;
    char drain[64];

    bool now;

    while ( read(h->wake[0], drain, sizeof(drain)) > 0 )
        continue;
    now = !s->paused &&
          (s->t->live || !s->fr || time_passed(&s->next_step));
    pthread_mutex_lock(&h->lock);
    fr = now ? h->ready : NULL;
    if ( fr )
        h->ready = NULL;
    s->ended = h->ended && !h->ready;
    s->dropped = h->dropped;
    s->error = h->error;
    pthread_cond_signal(&h->taken);
    pthread_mutex_unlock(&h->lock);
    if ( !fr )
        return;
    screen_take(s, fr);
    clock_gettime(CLOCK_MONOTONIC, &s->next_step);
    s->next_step.tv_sec += (time_t)s->t->delay;
    s->next_step.tv_nsec += (long)((s->t->delay - floor(s->t->delay)) * 1e9);
    if ( s->next_step.tv_nsec >= 1000000000L )
    {
        s->next_step.tv_sec++;
        s->next_step.tv_nsec -= 1000000000L;
    }
}

/* At any exit, the terminal as it was. */
static void end_screen(void)
{
    if ( !isendwin() )
        endwin();
}

static void run_screen(struct top *t)
{
    static struct screen s;
    sigset_t winch, old;
    pthread_t reader;
    FILE *tty;
    SCREEN *sc;
    int ch;

    /* The keys come from the terminal: the standard input may be the
       trace. */
    if ( !(tty = fopen("/dev/tty", "r")) )
        err(CLI_EXIT_ERROR, "/dev/tty");
    s.t = t;
    s.sort = COL_RUN;
    if ( !(s.expanded = calloc(0x10000, sizeof(*s.expanded))) ||
         pipe(s.h.wake) || fcntl(s.h.wake[0], F_SETFL, O_NONBLOCK) ||
         fcntl(s.h.wake[1], F_SETFL, O_NONBLOCK) )
        err(CLI_EXIT_ERROR, "screen");
    pthread_mutex_init(&s.h.lock, NULL);
    pthread_cond_init(&s.h.taken, NULL);
    if ( !(sc = newterm(NULL, stdout, tty)) )
        errx(CLI_EXIT_ERROR, "TERM=%s: not a terminal ncurses knows",
             getenv("TERM") ? getenv("TERM") : "");
    set_term(sc);
    atexit(end_screen);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);

    /* SIGWINCH (KEY_RESIZE) is the screen's: the reader does not take it. */
    sigemptyset(&winch);
    sigaddset(&winch, SIGWINCH);
    pthread_sigmask(SIG_BLOCK, &winch, &old);
    /* Never joined: it may wait for input that never comes (below). */
    if ( (errno = pthread_create(&reader, NULL, reader_thread, &s)) ||
         (errno = pthread_detach(reader)) )
        err(CLI_EXIT_ERROR, "reader");
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    draw(&s);
    for ( ;; )
    {
        struct pollfd pfd[2] = {
            { .fd = fileno(tty), .events = POLLIN },
            { .fd = s.h.wake[0], .events = POLLIN },
        };
        int timeout = !t->live && s.fr ? ms_until(&s.next_step) : 1000;

        if ( poll(pfd, 2, timeout) < 0 && errno != EINTR )
            err(CLI_EXIT_ERROR, "poll");
        /* The terminal hung up: a stream caught its SIGHUP (above). */
        if ( pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL) )
            goto quit;
        while ( (ch = getch()) != ERR )
            if ( ch == '\r' ? !take_key(&s, '\n') : !take_key(&s, ch) )
                goto quit;
        screen_poll(&s);
        if ( s.error )
        {
            /* The reader's error, in one line, on the terminal restored. */
            endwin();
            errno = s.error;
            err(CLI_EXIT_ERROR, "%s", t->name);
        }
        draw(&s);
    }
quit:
    endwin();
    /*
     * The reader may wait for input that never comes (-f, an idle pipe):
     * it ends with the process.
     */
    cli_close_output(stdout, "stdout");
    exit(t->host && host_stop(false) ? CLI_EXIT_ERROR : CLI_EXIT_OK);
}

/*
 * Options
 * =======
 */

static double parse_delay(const char *arg)
{
    char *end;
    double d;

    errno = 0;
    d = strtod(arg, &end);
    if ( errno || end == arg || *end || !(d >= MIN_DELAY) ||
         !(d <= MAX_DELAY) || arg[0] == '-' || arg[0] == '+' ||
         arg[0] == ' ' )
        cli_usage_error("-d %s: seconds from %g to %g", arg, MIN_DELAY,
                        MAX_DELAY);
    return d;
}

enum { OPT_JSON = CLI_LONG_ONLY, OPT_SVM, OPT_METRICS };

/* xentrace's options for the host's capture (host.h): -D, then -e and -c. */
struct capture_options {
    const char *arg[HOST_OPTIONS + 1];
    unsigned int n;
};

static void capture_option(struct capture_options *o, const char *opt,
                           const char *arg)
{
    if ( o->n + 2 > HOST_OPTIONS - 1 )
        cli_usage_error("%s %s: too many -e and -c", opt, arg);
    o->arg[o->n++] = opt;
    o->arg[o->n++] = arg;
}

/*
 * The host's records, by a xentrace of its own with the same -e and -c:
 * the masks are Xen's, so the records need no filter of ours.
 */
static void open_host(struct top *t, const struct cli *c,
                      struct capture_options *o)
{
    o->arg[o->n++] = "-";
    o->arg[o->n] = NULL;
    host_start(o->arg, !t->batch);
    t->r = host_open(c);
    t->path = t->name;
    t->has_evt_mask = false;
    free(t->cpus);
    t->cpus = NULL;
}

int main(int argc, char **argv)
{
    static const struct cli_option options[] = {
        { 'b', "batch", NULL, "text per interval, not the screen" },
        { 'c', "cpu-mask", "cpus", "only these pCPUs' records, as "
          "xentrace -c: 0-3,7, 0x..., all" },
        { 'd', "delay", "seconds", "an interval of this much trace time "
          "(default 2)" },
        { 'e', "evt-mask", "mask", "only these events, as xentrace -e: "
          "sched,hvm, 0x..." },
        CLI_FOLLOW_OPTION,
        { 'n', "iterations", "n", "stop after n intervals" },
        { OPT_JSON, "json", NULL, "one JSON object per interval (batch)" },
        { OPT_SVM, "svm", NULL, "exit reasons are SVM's, not VMX's" },
        { OPT_METRICS, "metrics", "[addr:]port", "serve the counters to "
          "Prometheus (OpenMetrics) there; addr 127.0.0.1 unless given" },
        CLI_XEN_VERSION_OPTION,
        { 0, NULL, NULL, NULL },
    };
    struct cli cli = {
        .options = options, .operands = "[file]", .max_operands = 1,
    };
    static struct top t = { .delay = DEFAULT_DELAY };
    static struct capture_options capture = { .arg = { "-D" }, .n = 1 };
    const char *why, *metrics_at = NULL;
    char no_server[128];
    bool host_failed;
    uint32_t mask;
    int opt, status;

    while ( (opt = cli_getopt(&cli, argc, argv)) != -1 )
        switch ( opt )
        {
        case 'b':
            t.batch = true;
            break;
        case 'c':
            if ( !t.cpus && !(t.cpus = calloc(XT_CPUS_MAX / 8 + 1, 1)) )
                err(CLI_EXIT_ERROR, "-c");
            if ( (why = parse_cpu_mask(optarg, XT_CPUS_MAX, t.cpus)) )
                cli_usage_error("-c %s: %s", optarg, why);
            capture_option(&capture, "-c", optarg);
            break;
        case 'd':
            t.delay = parse_delay(optarg);
            break;
        case 'e':       /* as xentrace: each -e adds its classes */
            if ( (why = parse_evt_mask(optarg, &mask)) )
                cli_usage_error("-e %s: %s", optarg, why);
            t.evt_mask |= mask;
            t.has_evt_mask = true;
            capture_option(&capture, "-e", optarg);
            break;
        case 'n':
            t.count = cli_number("-n", optarg, 1, UINT32_MAX);
            break;
        case OPT_JSON:
            t.json = t.batch = true;
            break;
        case OPT_SVM:
            t.svm = true;
            break;
        case OPT_METRICS:
            metrics_at = optarg;
            break;
        }
    t.host = optind == argc;
    if ( t.host && cli.follow )
        cli_usage_error("-f follows a file: name it");
    t.path = t.host ? NULL : argv[optind];
    t.name = t.host ? "Xen's trace buffers" : cli_input_name(t.path);
    if ( !t.batch && !isatty(STDOUT_FILENO) )
        errx(CLI_EXIT_ERROR, "the standard output is not a terminal: -b "
             "for text, --json for JSON lines");

    if ( metrics_at &&
         (!(t.metrics = metrics_new()) ||
          !(t.server = metrics_serve(metrics_at, no_server,
                                     sizeof(no_server)))) )
        errx(CLI_EXIT_ERROR, "--metrics %s: %s", metrics_at,
             t.metrics ? no_server : strerror(ENOMEM));
    if ( t.host )
        open_host(&t, &cli, &capture);
    else
    {
        t.r = cli_open(&cli, t.path, 0);
        cli_end_on_signal(t.r);
    }
    t.hz = cli_tsc_hz(&cli, xt_reader_info(t.r), NULL);
    t.origin = cli_origin(t.r);
    if ( xt_reader_info(t.r)->has_start )
        t.start = &xt_reader_info(t.r)->meta;
    t.ticks = llround(t.delay * t.hz);
    t.live = xt_reader_info(t.r)->streamed;
    if ( t.ticks == 0 )
        cli_usage_error("-d %g: less than a TSC tick", t.delay);

    if ( !t.batch )
        run_screen(&t);
    if ( run_intervals(&t, batch_emit, NULL) )
        err(CLI_EXIT_ERROR, "%s", t.name);
    cli_close_output(stdout, "stdout");
    metrics_stop(t.server);
    metrics_free(t.metrics);
    free(t.cpus);
    /* Before the stream is closed: xentrace writes its last records. */
    host_failed = t.host && host_stop(true);
    status = cli_close(t.r, t.path);
    return host_failed ? CLI_EXIT_ERROR : status;
}
