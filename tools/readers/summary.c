/*
 * xentrace-summary: what a trace file holds, in one pass.
 *
 *   xentrace-summary [-h] [-b bins] [-H hz] [--json | --csv] [--svm]
 *                    [--top n] [--domain d] [--cpu c] [--from t] [--to t]
 *                    [--interval seconds] [--longest n]
 *                    [--xen-version x.y] [file]
 *
 * Records and bytes per CPU and per event, losses per CPU with the time
 * they cover, and the event rate over time (tally.c); and what the model
 * of the machine (model.c) says of it: per domain and vCPU their
 * runstates, runnable latency, placement, HVM exits, hypercalls, I/O and
 * interrupts, per pCPU interrupts and C-states (analysis.c).  As text, or
 * as one JSON object with --json.  With --interval, the model's figures
 * of each interval first, as it closes; with --longest, the longest exits,
 * waits and hypercalls, one by one.  See xentrace-summary(1).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cli.h"
#include "diff.h"
#include "longest.h"
#include "merge.h"
#include "numbers.h"
#include "tally.h"
#include "tsc.h"

#define OPT_JSON        CLI_LONG_ONLY
#define DEFAULT_BINS    20

/* Whose event layouts and names the file has (xt_reader_xen_version()). */
static uint32_t xen_version;

static const char *event_name(uint32_t id)
{
    const struct xt_event_desc *d = xt_event_find_xen(id, xen_version);

    return d ? d->name : "?";
}

/* The class totals of one CPU: records and bytes per xt_event_class(). */
struct class_total {
    const char *name;
    struct tally_count count;
};

static unsigned int cpu_classes(const struct tally *t,
                                const struct tally_cpu *c,
                                struct class_total *out, unsigned int max)
{
    unsigned int e, k, n = 0;

    for ( e = 0; e < c->nr_by_event && e < t->nr_events; e++ )
    {
        if ( !c->by_event[e].records )
            continue;
        for ( k = 0; k < n && strcmp(out[k].name, t->events[e].class); k++ )
            continue;
        if ( k == n )
        {
            if ( n == max )
                continue;
            out[n++] = (struct class_total){ .name = t->events[e].class };
        }
        out[k].count.records += c->by_event[e].records;
        out[k].count.bytes += c->by_event[e].bytes;
    }
    return n;
}

/* Bytes of input: a stream's, once read, are those it held up to its end. */
static uint64_t input_size(const struct xt_reader_info *info)
{
    return info->streamed ? info->end : info->size;
}

/*
 * Text
 */

static void text_header(FILE *f, const struct tally *t, const char *path,
                        const char *damage, bool hz_assumed)
{
    const struct xt_reader_info *info = t->info;

    fprintf(f, "%s: %" PRIu64 " bytes, %" PRIu64 " records on %u CPUs, "
            "%.6f s at %.3f MHz%s\n", path, input_size(info), t->total.records,
            t->nr_cpus, tsc_seconds(t->last_tsc - t->first_tsc, t->hz),
            t->hz / 1e6, hz_assumed ? " (assumed)" : "");
    if ( info->has_meta )
        fprintf(f, "written by xentrace-ng %u.%u.%u, format %u\n",
                info->tool_version[0], info->tool_version[1],
                info->tool_version[2], info->format_version);
    if ( damage )
        fprintf(f, "damaged: %s\n", damage);
    if ( info->skips )
        fprintf(f, "skipped: %" PRIu64 " bytes in %" PRIu64 " places\n",
                info->skipped, info->skips);
}

/*
 * The domains the file names (xtfile.h, "Domains"): their names, UUIDs,
 * and the name they had first if renamed.  Nothing for upstream's files.
 */
static void text_domains(FILE *f, const struct xt_reader *r)
{
    unsigned int i, n = xt_reader_nr_domains(r);
    const struct xt_domain_info *d;
    char uuid[XT_UUID_TEXT];

    if ( !n )
        return;
    fprintf(f, "\n%-7s %-24s %-36s %s\n", "domain", "name", "uuid",
            "renamed");
    for ( i = 0; i < n; i++ )
    {
        if ( !(d = xt_reader_domain_at(r, i)) )
            continue;
        fprintf(f, "d%-6u %-24s %s", d->domain.domid, d->domain.name,
                xt_uuid_text(d->domain.uuid, uuid));
        if ( d->renames )
            fprintf(f, " %u time%s, first %s", d->renames,
                    d->renames == 1 ? "" : "s", d->first_name);
        fputc('\n', f);
    }
}

/*
 * The masks in force, from when (xtfile.h, "Masks"): a drop in a rate
 * where the masks changed is not the host going idle.  Nothing for a
 * file that tells none.
 */
static void text_masks(FILE *f, struct xt_reader *r, uint64_t hz)
{
    unsigned int i, n = xt_reader_nr_mask_periods(r);
    uint64_t origin = cli_origin(r);
    char classes[128], domains[80];

    if ( !n )
        return;
    fprintf(f, "\nmasks in force\n%12s  %-10s  %-30s %-16s %-16s %s\n",
            "from-s", "evt-mask", "classes", "cpus", "domains", "switched");
    for ( i = 0; i < n; i++ )
    {
        const struct xt_mask_period *p = xt_reader_mask_period(r, i);

        snprintf(domains, sizeof(domains), "%s%s", p->domains,
                 p->dom_filter_in_dom0 ? " (in dom0)" : "");
        fprintf(f, "%12.6f  0x%08" PRIx32 "  %-30s %-16s %-16s %s\n",
                p->tsc ? tsc_seconds_from(p->tsc, origin, hz) : 0.0,
                p->evt_mask, xt_mask_classes(p->evt_mask, classes,
                                             sizeof(classes)), p->cpus,
                domains, p->switches);
    }
    if ( xt_reader_masks_dropped(r) )
        fprintf(f, "(and %" PRIu64 " more changes, not kept)\n",
                xt_reader_masks_dropped(r));
}

/* Period @i of @r's masks, a JSON object, after @sep. */
static void json_mask(FILE *f, struct xt_reader *r, unsigned int i,
                      uint64_t hz, const char *sep)
{
    const struct xt_mask_period *p = xt_reader_mask_period(r, i);
    char classes[128];

    fprintf(f, "%s{\"from_seconds\":%.9f,\"evt_mask\":\"0x%08" PRIx32
            "\",\"classes\":\"%s\",\"cpus\":\"%s\",\"domains\":\"%s\","
            "\"domains_in_dom0\":%s,\"switched\":\"%s\"}", sep,
            p->tsc ? tsc_seconds_from(p->tsc, cli_origin(r), hz) : 0.0,
            p->evt_mask, xt_mask_classes(p->evt_mask, classes,
                                         sizeof(classes)), p->cpus,
            p->domains, p->dom_filter_in_dom0 ? "true" : "false",
            p->switches);
}

static void json_masks(FILE *f, struct xt_reader *r, uint64_t hz)
{
    unsigned int i;

    fprintf(f, ",\"masks\":[");
    for ( i = 0; i < xt_reader_nr_mask_periods(r); i++ )
        json_mask(f, r, i, hz, i ? "," : "");
    fprintf(f, "],\"masks_dropped\":%" PRIu64, xt_reader_masks_dropped(r));
}

/* Whether period @i of @r's masks was in force over [@first, @last]. */
static bool mask_in(struct xt_reader *r, unsigned int i, uint64_t first,
                    uint64_t last)
{
    const struct xt_mask_period *next = xt_reader_mask_period(r, i + 1);

    return xt_reader_mask_period(r, i)->tsc <= last &&
           (!next || next->tsc > first);
}

static void json_domains(FILE *f, const struct xt_reader *r)
{
    unsigned int i, n = xt_reader_nr_domains(r);
    const struct xt_domain_info *d;
    const char *sep = "";
    char uuid[XT_UUID_TEXT];

    fprintf(f, ",\"domain_names\":[");
    for ( i = 0; i < n; i++ )
    {
        if ( !(d = xt_reader_domain_at(r, i)) )
            continue;
        fprintf(f, "%s{\"domain\":%u,\"name\":", sep, d->domain.domid);
        cli_json_string(f, d->domain.name);
        fprintf(f, ",\"uuid\":\"%s\",\"renames\":%u,\"first_name\":",
                xt_uuid_text(d->domain.uuid, uuid), d->renames);
        cli_json_string(f, d->first_name);
        fputc('}', f);
        sep = ",";
    }
    fputc(']', f);
}

static void text_cpus(FILE *f, const struct tally *t)
{
    unsigned int i;

    fprintf(f, "\n%6s %12s %14s %10s %12s %10s\n", "cpu", "records", "bytes",
            "lost", "lost-marks", "lost-s");
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        const struct tally_cpu *c = &t->cpus[i];

        fprintf(f, "%6u %12" PRIu64 " %14" PRIu64 " %10" PRIu64 " %12" PRIu64
                " %10.6f\n", c->cpu, c->total.records, c->total.bytes,
                c->lost_records, c->lost_markers,
                tsc_seconds(c->lost_ticks, t->hz));
    }
}

/*
 * dom0's kernel events (xentrace --dom0): each lane's, and dom0's TSC
 * fitted against its CLOCK_MONOTONIC through the pairs, with its drift
 * from the rate the file's TSC figures use.
 */
static double drift_ppm(const struct xt_dom0_clock *c, uint64_t hz)
{
    return (c->tsc_per_ns * 1e9 / hz - 1) * 1e6;
}

static void text_dom0(FILE *f, const struct xt_reader *r, uint64_t hz)
{
    const struct xt_dom0_info *d = xt_reader_dom0(r);
    const struct xt_reader_info *in = xt_reader_info(r);
    struct xt_dom0_clock c;
    unsigned int i;

    if ( !d->lanes )
        return;
    fprintf(f, "\ndom0's kernel events, clock %s\n%9s %12s %10s\n",
            xt_dom0_clock_text(d->clock), "dom0-cpu", "events", "lost");
    for ( i = 0; i < in->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        if ( xt_reader_is_dom0_lane(r, ci->cpu) )
            fprintf(f, "%9u %12" PRIu64 " %10" PRIu64 "\n",
                    ci->cpu - d->first_lane, ci->dom0_events, ci->dom0_lost);
    }
    fprintf(f, "%9s %12" PRIu64 " %10" PRIu64 "\n", "all", in->dom0_events,
            in->dom0_lost);
    if ( d->clock == XT_DOM0_CLOCK_TRACE_DAT && !d->pairs )
        fprintf(f, "clock pairs: none, as a trace.dat has none; "
                "xentrace-join checked that its TSCs overlap Xen's\n");
    else if ( !xt_reader_dom0_clock(r, &c) )
        fprintf(f, "clock pairs: %" PRIu64 ", too few to fit\n", d->pairs);
    else
        fprintf(f, "clock pairs: %" PRIu64 "; dom0's TSC runs at %.6f MHz of "
                "its CLOCK_MONOTONIC, %+.3f ppm from %.6f MHz; the farthest "
                "pair is %.0f ns off\n", d->pairs, c.tsc_per_ns * 1e3,
                drift_ppm(&c, hz), hz / 1e6, c.stray_ns);
}

static void json_cpu_time(FILE *f, const char *key, uint64_t tsc,
                          uint64_t origin, uint64_t hz);

static void json_dom0(FILE *f, struct xt_reader *r, uint64_t hz)
{
    const struct xt_dom0_info *d = xt_reader_dom0(r);
    const struct xt_reader_info *in = xt_reader_info(r);
    struct xt_dom0_clock c;
    const char *sep = "";
    unsigned int i;

    if ( !d->lanes )
    {
        fprintf(f, ",\"dom0\":null");
        return;
    }
    fprintf(f, ",\"dom0\":{\"clock\":\"%s\",\"first_lane\":%" PRIu32
            ",\"events\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"pairs\":%"
            PRIu64 ",\"cpus\":[",
            xt_dom0_clock_name(d->clock),
            d->first_lane, in->dom0_events, in->dom0_lost, d->pairs);
    for ( i = 0; i < in->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        if ( !xt_reader_is_dom0_lane(r, ci->cpu) )
            continue;
        fprintf(f, "%s{\"cpu\":%u,\"events\":%" PRIu64 ",\"lost\":%"
                PRIu64, sep, ci->cpu - d->first_lane, ci->dom0_events,
                ci->dom0_lost);
        json_cpu_time(f, "from_seconds", ci->has_tsc ? ci->first_tsc
                                                     : TALLY_NO_TSC,
                      cli_origin(r), hz);
        json_cpu_time(f, "to_seconds", ci->has_tsc ? ci->last_tsc
                                                   : TALLY_NO_TSC,
                      cli_origin(r), hz);
        fputc('}', f);
        sep = ",";
    }
    if ( xt_reader_dom0_clock(r, &c) )
        fprintf(f, "],\"tsc_hz_fitted\":%.3f,\"drift_ppm\":%.3f,"
                "\"stray_ns\":%.0f}", c.tsc_per_ns * 1e9, drift_ppm(&c, hz),
                c.stray_ns);
    else
        fprintf(f, "],\"tsc_hz_fitted\":null,\"drift_ppm\":null,"
                "\"stray_ns\":null}");
}

/*
 * An event's name in the table: a runstate change's with its states, as
 * its rows are one entry of the catalogue.
 */
static const char *event_row_name(uint32_t id, char *buf, size_t size)
{
    if ( !xt_is_runstate_change(id) )
        return event_name(id);
    snprintf(buf, size, "%s %s->%s", event_name(id),
             xt_runstate_name(xt_runstate_old(id)),
             xt_runstate_name(xt_runstate_new(id)));
    return buf;
}

/* Most records first, then by event. */
static int by_records(const void *a, const void *b)
{
    const struct tally_event *x = *(const struct tally_event *const *)a;
    const struct tally_event *y = *(const struct tally_event *const *)b;

    if ( x->total.records != y->total.records )
        return x->total.records < y->total.records ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The events, most records first; with --top, @top of them, then the rest. */
static void text_events(FILE *f, const struct tally *t, unsigned int top)
{
    const struct tally_event **e = malloc((t->nr_events ? t->nr_events : 1) *
                                          sizeof(*e));
    struct tally_count rest = { 0 };
    unsigned int i, rows = top && top < t->nr_events ? top : t->nr_events;
    int width = 8;                      /* "(others)" */
    char name[96];

    if ( !e )
        err(CLI_EXIT_ERROR, "memory");
    for ( i = 0; i < t->nr_events; i++ )
        e[i] = &t->events[i];
    qsort(e, t->nr_events, sizeof(*e), by_records);
    for ( i = 0; i < rows; i++ )
    {
        int len = (int)strlen(event_row_name(e[i]->id, name, sizeof(name)));

        width = len > width ? len : width;
    }
    fprintf(f, "\n%-10s %-*s %-6s %12s %14s\n", "event", width, "name",
            "class", "records", "bytes");
    for ( i = 0; i < t->nr_events; i++ )
        if ( i < rows )
            fprintf(f, "0x%08" PRIx32 " %-*s %-6s %12" PRIu64 " %14" PRIu64
                    "\n", e[i]->id, width,
                    event_row_name(e[i]->id, name, sizeof(name)), e[i]->class,
                    e[i]->total.records, e[i]->total.bytes);
        else
        {
            rest.records += e[i]->total.records;
            rest.bytes += e[i]->total.bytes;
        }
    if ( rows < t->nr_events )
        fprintf(f, "%-10s %-*s %-6s %12" PRIu64 " %14" PRIu64 "\n", "",
                width, "(others)", "", rest.records, rest.bytes);
    free(e);
}

static uint64_t bin_records(const struct tally *t, unsigned int b)
{
    uint64_t n = 0;
    unsigned int i;

    for ( i = 0; i < t->nr_cpus; i++ )
        n += t->cpus[i].bins[b];
    return n;
}

static void text_rate(FILE *f, const struct tally *t)
{
    unsigned int b;

    fprintf(f, "\n%12s %14s\n", "from-s", "events/s");
    for ( b = 0; b < t->time.nr; b++ )
        fprintf(f, "%12.6f %14.0f\n", tally_bin_seconds(t, b),
                tally_bin_rate(t, b, bin_records(t, b)));
}

/*
 * A --domain or --cpu that no record matched leaves every table of the
 * model empty: said in a line, so that it is not taken for an idle host.
 */
static void say_unmatched(const struct analysis_options *ao,
                          const struct tally *t, struct analysis *a)
{
    struct analysis_rows rows;
    unsigned int i;
    bool cpu_seen = false;

    for ( i = 0; i < t->nr_cpus; i++ )
        cpu_seen |= t->cpus[i].cpu == ao->cpu;
    if ( ao->has_cpu && !cpu_seen )
        warnx("--cpu %" PRIu32 ": the trace has no record of pCPU %" PRIu32
              ": nothing to show", ao->cpu, ao->cpu);
    if ( !ao->has_domain )
        return;
    if ( analysis_rows(a, &rows) )
        err(CLI_EXIT_ERROR, "memory");
    if ( !rows.nr_vcpus && ao->has_cpu && cpu_seen )
        warnx("--domain %" PRIu32 ": no vCPU of domain %" PRIu32 " ran on "
              "pCPU %" PRIu32 ": nothing to show", ao->domain, ao->domain,
              ao->cpu);
    else if ( !rows.nr_vcpus && !ao->has_cpu )
        warnx("--domain %" PRIu32 ": no vCPU of domain %" PRIu32 " ran in "
              "the trace: nothing to show", ao->domain, ao->domain);
    analysis_rows_free(&rows);
}

/*
 * JSON
 */

/*
 * @c's first or last timed record, in the dump's seconds: where each CPU's
 * records end tells how far a figure that ends with them (xenalyze's) can
 * be from one that ends with the trace.
 */
static void json_cpu_time(FILE *f, const char *key, uint64_t tsc,
                          uint64_t origin, uint64_t hz)
{
    if ( tsc == TALLY_NO_TSC )
        fprintf(f, ",\"%s\":null", key);
    else
        fprintf(f, ",\"%s\":%.9f", key, tsc_seconds_from(tsc, origin, hz));
}

static void json_cpu(FILE *f, const struct tally *t, const struct tally_cpu *c,
                     uint64_t origin)
{
    struct class_total classes[16];
    unsigned int n = cpu_classes(t, c, classes, 16), k, e;
    const char *sep = "";

    fprintf(f, "{\"cpu\":%u,\"records\":%" PRIu64 ",\"bytes\":%" PRIu64
            ",\"lost_records\":%" PRIu64 ",\"lost_markers\":%" PRIu64
            ",\"lost_seconds\":%.9f", c->cpu, c->total.records,
            c->total.bytes, c->lost_records, c->lost_markers,
            tsc_seconds(c->lost_ticks, t->hz));
    json_cpu_time(f, "from_seconds", c->first_tsc, origin, t->hz);
    json_cpu_time(f, "to_seconds", c->tsc, origin, t->hz);
    fprintf(f, ",\"classes\":{");
    for ( k = 0; k < n; k++ )
        fprintf(f, "%s\"%s\":{\"records\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
                k ? "," : "", classes[k].name, classes[k].count.records,
                classes[k].count.bytes);
    fprintf(f, "},\"events\":{");
    for ( e = 0; e < c->nr_by_event && e < t->nr_events; e++ )
    {
        if ( !c->by_event[e].records )
            continue;
        fprintf(f, "%s\"0x%08" PRIx32 "\":%" PRIu64, sep, t->events[e].id,
                c->by_event[e].records);
        sep = ",";
    }
    fprintf(f, "}}");
}

static void json_print(FILE *f, const struct tally *t,
                       const struct analysis *a, struct xt_reader *r,
                       const char *path, const char *damage)
{
    const struct xt_reader_info *info = t->info;
    uint64_t origin = cli_origin(r);
    unsigned int i;

    fprintf(f, "{\"file\":");
    cli_json_string(f, path);
    fprintf(f, ",\"size\":%" PRIu64 ",\"records\":%" PRIu64
            ",\"bytes\":%" PRIu64 ",\"tsc_hz\":%" PRIu64
            ",\"seconds\":%.9f,\"skipped\":%" PRIu64 ",\"skips\":%" PRIu64
            ",\"damage\":", input_size(info), t->total.records, t->total.bytes,
            t->hz, tsc_seconds(t->last_tsc - t->first_tsc, t->hz),
            info->skipped, info->skips);
    if ( damage )
        cli_json_string(f, damage);
    else
        fprintf(f, "null");

    json_domains(f, r);
    json_masks(f, r, t->hz);
    json_dom0(f, r, t->hz);
    fprintf(f, ",\"cpus\":[");
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        fputs(i ? "," : "", f);
        json_cpu(f, t, &t->cpus[i], origin);
    }

    fprintf(f, "],\"events\":[");
    for ( i = 0; i < t->nr_events; i++ )
    {
        fprintf(f, "%s{\"id\":\"0x%08" PRIx32 "\",\"name\":", i ? "," : "",
                t->events[i].id);
        cli_json_string(f, event_name(t->events[i].id));
        fprintf(f, ",\"class\":\"%s\",\"records\":%" PRIu64
                ",\"bytes\":%" PRIu64 "}", t->events[i].class,
                t->events[i].total.records, t->events[i].total.bytes);
    }

    fprintf(f, "],");
    analysis_json(f, a);
    fprintf(f, ",\"rate\":{\"bin_seconds\":%.9f,\"from_seconds\":%.9f,"
            "\"events_per_second\":[", tsc_seconds(t->bin_ticks, t->hz),
            tally_bin_seconds(t, 0));
    for ( i = 0; i < t->time.nr; i++ )
        fprintf(f, "%s%.0f", i ? "," : "",
                tally_bin_rate(t, i, bin_records(t, i)));
    fprintf(f, "]}}\n");
}

/*
 * Intervals (--interval): the model's figures of [origin + k * step,
 * origin + (k + 1) * step), cut to the window, each printed as it closes.
 */

enum format { TEXT, JSON, CSV };

struct intervals {
    FILE *f;
    enum format format;
    uint64_t hz;
    struct cli_cuts cut;        /* in TSC */
    struct xt_reader *r;        /* the masks in force */
};

/* The masks in force over @a's interval: a line, "" if none is told. */
static void text_interval_masks(const struct intervals *iv,
                                const struct analysis *a)
{
    uint64_t first = analysis_first_tsc(a), last = analysis_last_tsc(a);
    unsigned int i, n = 0;
    char text[256];

    for ( i = 0; i < xt_reader_nr_mask_periods(iv->r); i++ )
    {
        const struct xt_mask_period *p = xt_reader_mask_period(iv->r, i);

        if ( !mask_in(iv->r, i, first, last) )
            continue;
        fprintf(iv->f, "%s %s", n++ ? ";" : "masks:",
                xt_mask_period_text(p, text, sizeof(text)));
        if ( p->tsc > first )
            fprintf(iv->f, " from %.6f s",
                    tsc_seconds_from(p->tsc, cli_origin(iv->r), iv->hz));
    }
    if ( n )
        fputc('\n', iv->f);
}

static void json_interval_masks(const struct intervals *iv,
                                const struct analysis *a)
{
    uint64_t first = analysis_first_tsc(a), last = analysis_last_tsc(a);
    unsigned int i, n = 0;

    fprintf(iv->f, "\"masks\":[");
    for ( i = 0; i < xt_reader_nr_mask_periods(iv->r); i++ )
        if ( mask_in(iv->r, i, first, last) )
            json_mask(iv->f, iv->r, i, iv->hz, n++ ? "," : "");
    fprintf(iv->f, "],");
}

/* --interval's seconds, or one line and exit 1. */
static double interval_seconds(const char *arg)
{
    double seconds;
    char *end;

    errno = 0;
    seconds = strtod(arg, &end);
    if ( errno || end == arg || *end || !(seconds > 0) )
        errx(CLI_EXIT_ERROR, "--interval %s: not a positive number of "
             "seconds", arg);
    return seconds;
}

/* ... as TSC ticks at @hz. */
static uint64_t interval_ticks(const char *arg, uint64_t hz)
{
    double ticks = interval_seconds(arg) * (double)hz;

    if ( ticks < 1 || ticks >= 0x1p63 )
        errx(CLI_EXIT_ERROR, "--interval %s: not between a TSC tick and "
             "2^63", arg);
    return (uint64_t)(ticks + 0.5);
}

static double seconds_from(const struct intervals *iv, uint64_t tsc)
{
    return (double)(int64_t)(tsc - iv->cut.origin) / (double)iv->hz;
}

static void interval_print(const struct intervals *iv,
                           const struct analysis *a)
{
    double from = seconds_from(iv, analysis_first_tsc(a));
    double to = seconds_from(iv, analysis_last_tsc(a));
    char head[96];

    switch ( iv->format )
    {
    case TEXT:
        fprintf(iv->f, "interval %" PRId64 ": %.6f s to %.6f s, %" PRIu64
                " records\n", iv->cut.k, from, to, analysis_records(a));
        text_interval_masks(iv, a);
        analysis_text(iv->f, a);
        fprintf(iv->f, "\n");
        break;
    case JSON:
        fprintf(iv->f, "{\"interval\":{\"index\":%" PRId64 ",\"from_seconds\":%.9f"
                ",\"to_seconds\":%.9f,\"from_tsc\":%" PRIu64
                ",\"to_tsc\":%" PRIu64 ",\"records\":%" PRIu64 "},", iv->cut.k,
                from, to, analysis_first_tsc(a), analysis_last_tsc(a),
                analysis_records(a));
        json_interval_masks(iv, a);
        analysis_json(iv->f, a);
        fprintf(iv->f, "}\n");
        break;
    case CSV:
        snprintf(head, sizeof(head), "%" PRId64 ",%.9f,%.9f", iv->cut.k, from, to);
        analysis_csv(iv->f, a, head);
        break;
    }
    /* For whoever watches: each interval as it closes. */
    fflush(iv->f);
}

/*
 * The model over @r in TSC order, cut at each interval's end, each
 * interval printed as it closes; then the whole trace's analysis.
 */
static struct analysis *run_intervals(struct xt_reader *r,
                                      const struct model_options *mo,
                                      const struct analysis_options *ao,
                                      struct intervals *iv)
{
    struct analysis *a = analysis_new(r, mo, ao), *cut;
    struct merge *g = a ? merge_new(r, NULL) : NULL;
    struct xt_record rec;
    bool begun = false;
    int got;

    if ( !g )
        goto fail;
    while ( (got = merge_next(g, &rec)) > 0 )
    {
        for ( ; begun && rec.tsc >= iv->cut.end &&
                iv->cut.end < analysis_last_tsc(a); cli_cuts_next(&iv->cut) )
        {
            if ( analysis_cut(a, iv->cut.end, &cut) )
                goto fail;
            interval_print(iv, cut);
        }
        if ( mo->each(mo->each_arg, &rec) || analysis_feed(a, &rec) )
            goto fail;
        /* Time 0 and the first TSC: a stream's are known from its first. */
        if ( !begun && rec.has_tsc )
        {
            begun = true;
            iv->cut.origin = cli_origin(r);
            cli_cuts_start(&iv->cut, analysis_first_tsc(a));
        }
    }
    if ( got < 0 || analysis_finish(a) ||
         analysis_cut(a, analysis_last_tsc(a), &cut) )
        goto fail;
    interval_print(iv, cut);
    merge_free(g);
    return a;

fail:
    merge_free(g);
    analysis_free(a);
    errno = ENOMEM;
    return NULL;
}

static void csv_print(const struct intervals *iv, const struct analysis *a)
{
    char head[96];

    snprintf(head, sizeof(head), "all,%.9f,%.9f",
             seconds_from(iv, analysis_first_tsc(a)),
             seconds_from(iv, analysis_last_tsc(a)));
    analysis_csv(iv->f, a, head);
}

enum { OPT_TOP = CLI_LONG_ONLY + 1, OPT_DOMAIN, OPT_CPU, OPT_SVM,
       OPT_INTERVAL, OPT_CSV, OPT_LONGEST, OPT_DIFF, OPT_INTERRUPT_RIPS };

/*
 * --diff: the trace at @path read with the options of @ao (the domain
 * given by name or id in @domain, found in this file), into @side.  The
 * reader stays open, as the figures name domains from it.
 */
static struct xt_reader *diff_read(const struct cli *cli, const char *path,
                                   const struct analysis_options *ao,
                                   const char *domain, struct diff_side *side)
{
    struct analysis_options o = *ao;
    struct model_options mo = { .by_cpu = true, .threads = cli->threads };
    struct xt_reader *r = cli_open(cli, path, 0);

    if ( domain )
        o.domain = cli_domain(r, "--domain", domain);
    o.hz = cli_tsc_hz(cli, xt_reader_info(r), &side->hz_assumed);
    o.origin = cli_origin(r);
    cli_window(cli, r, o.hz, &mo.from, &mo.to);
    side->name = cli_input_name(path);
    side->hz = o.hz;
    if ( !(side->a = analysis_run(r, &mo, &o)) )
        err(CLI_EXIT_ERROR, "%s", side->name);
    return r;
}

/* xentrace-summary --diff BEFORE AFTER: what changed (diff.h). */
static int diff(const struct cli *cli, const struct analysis_options *ao,
                const char *domain, char *const paths[2])
{
    struct diff_side sides[2];
    struct xt_reader *r[2];
    int status = 0;
    unsigned int i;

    if ( !strcmp(paths[0], "-") && !strcmp(paths[1], "-") )
        cli_usage_error("--diff: the standard input is one of the two "
                        "traces at most");
    for ( i = 0; i < 2; i++ )
        r[i] = diff_read(cli, paths[i], ao, domain, &sides[i]);
    if ( diff_print(stdout, &sides[0], &sides[1], ao->top) )
        err(CLI_EXIT_ERROR, "--diff");
    cli_close_output(stdout, "stdout");
    for ( i = 0; i < 2; i++ )
    {
        analysis_free(sides[i].a);
        status |= cli_close(r[i], paths[i]);
    }
    return status;
}

/* --interrupt-rips' vector: a code (numbers.h), 249 or 0xf9. */
static uint8_t rips_vector(const char *arg)
{
    unsigned long long v;
    const char *why = num_parse_code(arg, strlen(arg), 0, 255, &v);

    if ( why )
        errx(CLI_EXIT_ERROR, "--interrupt-rips %s: %s", arg, why);
    return v;
}

int main(int argc, char **argv)
{
    static const struct cli_option options[] = {
        CLI_BINS_OPTION("the event rate"),
        CLI_FOLLOW_OPTION,
        { OPT_JSON, "json", NULL, "JSON instead of text: an object (a line "
          "per interval first)" },
        { OPT_CSV, "csv", NULL, "CSV instead of text: a row per vCPU and "
          "interval" },
        { OPT_SVM, "svm", NULL, "exit reasons are SVM's, not VMX's" },
        { OPT_TOP, "top", "n", "only the n largest rows of each table" },
        { OPT_DOMAIN, "domain", "d", "only domain d: its id, or its name" },
        { OPT_CPU, "cpu", "c", "only pCPU c" },
        CLI_WINDOW_OPTIONS,
        { OPT_INTERVAL, "interval", "seconds", "first the model's tables "
          "of each interval of seconds, as it closes" },
        { OPT_LONGEST, "longest", "n", "also the n longest exits, waits and "
          "hypercalls, with when, where and the RIP" },
        { OPT_DIFF, "diff", NULL, "what changed from one trace to another: "
          "two files, before and after" },
        { OPT_INTERRUPT_RIPS, "interrupt-rips", "vector", "also the guest "
          "RIPs this vector's external interrupts came at" },
        CLI_XEN_VERSION_OPTION,
        CLI_THREADS_OPTION,
        { 0, NULL, NULL, NULL },
    };
    struct cli cli = {
        .options = options, .operands = "[file | before after]",
        .max_operands = 1,
        .bins = DEFAULT_BINS,
    };
    bool json = false, compare = false, assumed;
    const char *path, *name, *damage, *interval = NULL, *domain = NULL;
    struct intervals iv = { .f = stdout, .format = TEXT };
    struct analysis_options ao = { 0 };
    struct model_options mo = { .by_cpu = true };
    struct analysis *a;
    struct xt_reader *r;
    struct tally t;
    char damage_buf[256];
    int opt;

    while ( (opt = cli_getopt(&cli, argc, argv)) != -1 )
        switch ( opt )
        {
        case OPT_JSON:
            json = true;
            break;
        case OPT_TOP:
            ao.top = cli_number("--top", optarg, 1, UINT32_MAX);
            break;
        case OPT_DOMAIN:
            ao.has_domain = true;
            domain = optarg;
            break;
        case OPT_CPU:
            ao.has_cpu = true;
            ao.cpu = cli_number("--cpu", optarg, 0, UINT32_MAX - 1);
            break;
        case OPT_SVM:
            ao.svm = true;
            break;
        case OPT_INTERVAL:
            interval = optarg;
            interval_seconds(interval);
            break;
        case OPT_CSV:
            iv.format = CSV;
            break;
        case OPT_LONGEST:
            ao.longest = cli_number("--longest", optarg, 1, LONGEST_MAX);
            break;
        case OPT_INTERRUPT_RIPS:
            ao.has_rips_vector = true;
            ao.rips_vector = rips_vector(optarg);
            break;
        case OPT_DIFF:
            compare = true;
            cli.min_operands = cli.max_operands = 2;
            break;
        }
    if ( compare && (json || iv.format != TEXT || interval || ao.longest ||
                     cli.follow) )
        cli_usage_error("--diff is text of two finished traces: not with "
                        "--json, --csv, --interval, --longest or -f");
    if ( compare )
        return diff(&cli, &ao, domain, &argv[optind]);
    if ( json && iv.format == CSV )
        cli_usage_error("--json and --csv exclude each other");
    if ( ao.longest && iv.format == CSV )
        cli_usage_error("--longest is text or JSON: not with --csv");
    if ( json )
        iv.format = JSON;
    path = optind < argc ? argv[optind] : "-";
    name = cli_input_name(path);

    r = cli_open(&cli, path, 0);
    cli_end_on_signal(r);
    if ( domain )
        ao.domain = cli_domain(r, "--domain", domain);
    xen_version = xt_reader_xen_version(r);
    /* The counts are taken as the model reads the records: one pass. */
    if ( tally_begin(&t, r, cli.bins, cli_tsc_hz(&cli, xt_reader_info(r),
                                             &assumed)) )
        errx(CLI_EXIT_ERROR, "%s: %s", name, xt_reader_strerror(errno));
    ao.hz = t.hz;
    ao.origin = cli_origin(r);
    mo.each = tally_record;
    mo.each_arg = &t;
    mo.threads = cli.threads;
    /* Latencies across to dom0 take Xen's and dom0's in one order. */
    mo.by_cpu = !xt_reader_dom0(r)->lanes;
    cli_window(&cli, r, t.hz, &mo.from, &mo.to);
    iv.hz = t.hz;
    iv.r = r;
    if ( iv.format == CSV )
    {
        printf("interval,from_seconds,to_seconds,");
        analysis_csv_header(stdout);
    }
    if ( interval )
    {
        iv.cut.step = interval_ticks(interval, t.hz);
        a = run_intervals(r, &mo, &ao, &iv);
    }
    else
        a = analysis_run(r, &mo, &ao);
    if ( !a || tally_end(&t) )
        err(CLI_EXIT_ERROR, "%s", name);
    say_unmatched(&ao, &t, a);
    /* Damage inside batches is known once the records are read. */
    damage = xt_reader_damage(r, damage_buf, sizeof(damage_buf));
    if ( iv.format == CSV )
        csv_print(&iv, a);
    else if ( json )
        json_print(stdout, &t, a, r, name, damage);
    else
    {
        text_header(stdout, &t, name, damage, assumed);
        text_domains(stdout, r);
        text_masks(stdout, r, t.hz);
        text_cpus(stdout, &t);
        text_dom0(stdout, r, t.hz);
        text_events(stdout, &t, ao.top);
        analysis_text(stdout, a);
        text_rate(stdout, &t);
    }
    cli_close_output(stdout, "stdout");
    analysis_free(a);
    tally_free(&t);
    return cli_close(r, path);
}
