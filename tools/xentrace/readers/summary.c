/*
 * xentrace-summary: what a trace file holds, in one pass.
 *
 *   xentrace-summary [--json] [--svm] [-b bins] [-H hz] [--top n]
 *                    [--domain d] [--cpu c] [--from t] [--to t]
 *                    [--xen-version x.y] file
 *
 * Records and bytes per CPU and per event, losses per CPU with the time
 * they cover, and the event rate over time (tally.c); and what the model
 * of the machine (model.c) says of it: per domain and vCPU their
 * runstates, runnable latency, placement, HVM exits, hypercalls, I/O and
 * interrupts, per pCPU interrupts and C-states (analysis.c).  As text, or
 * as one JSON object with --json.  See xentrace-summary(1).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "tally.h"

#define DEFAULT_BINS    20
#define MAX_BINS        100000

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

/*
 * Text
 */

static void text_header(const struct tally *t, const char *path,
                        const char *damage, bool hz_given)
{
    const struct xt_reader_info *info = t->info;

    printf("%s: %" PRIu64 " bytes, %" PRIu64 " records on %u CPUs, "
           "%.6f s at %.3f MHz%s\n", path, info->size, t->total.records,
           t->nr_cpus, tally_seconds(t, t->last_tsc - t->first_tsc),
           t->hz / 1e6, hz_given || info->has_tsc_hz ? "" : " (assumed)");
    if ( info->has_meta )
        printf("written by xentrace-ng %u.%u.%u, format %u\n",
               info->tool_version[0], info->tool_version[1],
               info->tool_version[2], info->format_version);
    if ( damage )
        printf("damaged: %s\n", damage);
}

static void text_cpus(const struct tally *t)
{
    unsigned int i;

    printf("\n%6s %12s %14s %10s %12s %10s\n", "cpu", "records", "bytes",
           "lost", "lost-marks", "lost-s");
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        const struct tally_cpu *c = &t->cpus[i];

        printf("%6u %12" PRIu64 " %14" PRIu64 " %10" PRIu64 " %12" PRIu64
               " %10.6f\n", c->cpu, c->total.records, c->total.bytes,
               c->lost_records, c->lost_markers,
               tally_seconds(t, c->lost_ticks));
    }
}

static void text_events(const struct tally *t)
{
    unsigned int e;

    printf("\n%-10s %-32s %-6s %12s %14s\n", "event", "name", "class",
           "records", "bytes");
    for ( e = 0; e < t->nr_events; e++ )
        printf("0x%08" PRIx32 " %-32s %-6s %12" PRIu64 " %14" PRIu64 "\n",
               t->events[e].id, event_name(t->events[e].id),
               t->events[e].class, t->events[e].total.records,
               t->events[e].total.bytes);
}

static uint64_t bin_records(const struct tally *t, unsigned int b)
{
    uint64_t n = 0;
    unsigned int i;

    for ( i = 0; i < t->nr_cpus; i++ )
        n += t->cpus[i].bins[b];
    return n;
}

static void text_rate(const struct tally *t)
{
    double width = tally_seconds(t, t->bin_ticks);
    unsigned int b;

    printf("\n%12s %14s\n", "from-s", "events/s");
    for ( b = 0; b < t->nr_bins; b++ )
        printf("%12.6f %14.0f\n", b * width, bin_records(t, b) / width);
}

/*
 * JSON
 */

static void json_string(const char *s)
{
    putchar('"');
    for ( ; *s; s++ )
    {
        if ( *s == '"' || *s == '\\' )
            printf("\\%c", *s);
        else if ( (unsigned char)*s < 0x20 )
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void json_cpu(const struct tally *t, const struct tally_cpu *c)
{
    struct class_total classes[16];
    unsigned int n = cpu_classes(t, c, classes, 16), k, e;
    const char *sep = "";

    printf("{\"cpu\":%u,\"records\":%" PRIu64 ",\"bytes\":%" PRIu64
           ",\"lost_records\":%" PRIu64 ",\"lost_markers\":%" PRIu64
           ",\"lost_seconds\":%.9f,\"classes\":{", c->cpu, c->total.records,
           c->total.bytes, c->lost_records, c->lost_markers,
           tally_seconds(t, c->lost_ticks));
    for ( k = 0; k < n; k++ )
        printf("%s\"%s\":{\"records\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
               k ? "," : "", classes[k].name, classes[k].count.records,
               classes[k].count.bytes);
    printf("},\"events\":{");
    for ( e = 0; e < c->nr_by_event && e < t->nr_events; e++ )
    {
        if ( !c->by_event[e].records )
            continue;
        printf("%s\"0x%08" PRIx32 "\":%" PRIu64, sep, t->events[e].id,
               c->by_event[e].records);
        sep = ",";
    }
    printf("}}");
}

static void json_print(const struct tally *t, const struct analysis *a,
                       const char *path, const char *damage)
{
    const struct xt_reader_info *info = t->info;
    unsigned int i;

    printf("{\"file\":");
    json_string(path);
    printf(",\"size\":%" PRIu64 ",\"records\":%" PRIu64 ",\"bytes\":%" PRIu64
           ",\"tsc_hz\":%" PRIu64 ",\"seconds\":%.9f,\"damage\":",
           info->size, t->total.records, t->total.bytes, t->hz,
           tally_seconds(t, t->last_tsc - t->first_tsc));
    if ( damage )
        json_string(damage);
    else
        printf("null");

    printf(",\"cpus\":[");
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        printf(i ? "," : "");
        json_cpu(t, &t->cpus[i]);
    }

    printf("],\"events\":[");
    for ( i = 0; i < t->nr_events; i++ )
    {
        printf("%s{\"id\":\"0x%08" PRIx32 "\",\"name\":", i ? "," : "",
               t->events[i].id);
        json_string(event_name(t->events[i].id));
        printf(",\"class\":\"%s\",\"records\":%" PRIu64 ",\"bytes\":%" PRIu64
               "}", t->events[i].class, t->events[i].total.records,
               t->events[i].total.bytes);
    }

    printf("],");
    fflush(stdout);
    analysis_json(stdout, a);
    printf(",\"rate\":{\"bin_seconds\":%.9f,\"events_per_second\":[",
           tally_seconds(t, t->bin_ticks));
    for ( i = 0; i < t->nr_bins; i++ )
        printf("%s%.0f", i ? "," : "",
               bin_records(t, i) / tally_seconds(t, t->bin_ticks));
    printf("]}}\n");
}

/*
 * Options
 */

static void usage(void)
{
    fprintf(stderr, "usage: xentrace-summary [--json] [--svm] [-b bins] "
            "[-H hz] [--top n]\n"
            "                        [--domain d] [--cpu c] [--from t] "
            "[--to t] [--xen-version x.y] file\n");
    exit(1);
}

static unsigned long long number(const char *s, const char *what,
                                 unsigned long long min,
                                 unsigned long long max)
{
    unsigned long long n;
    char *end;

    errno = 0;
    n = strtoull(s, &end, 10);
    if ( errno || end == s || *end || s[0] == '-' || n < min || n > max )
        errx(1, "bad %s: %s", what, s);
    return n;
}

/*
 * A --from or --to: seconds from the trace's first TSC ("1.5"), or a TSC
 * ("tsc:10000000000").
 */
struct when {
    bool given, tsc;
    double seconds;
    uint64_t at;
};

static struct when when(const char *s, const char *what)
{
    struct when w = { .given = true };
    char *end;

    errno = 0;
    if ( !strncmp(s, "tsc:", 4) )
    {
        w.tsc = true;
        w.at = number(s + 4, what, 0, UINT64_MAX);
        return w;
    }
    w.seconds = strtod(s, &end);
    if ( errno || end == s || *end || !(w.seconds >= 0) )
        errx(1, "bad %s: %s", what, s);
    return w;
}

static uint64_t when_tsc(const struct when *w, uint64_t first, uint64_t hz)
{
    if ( w->tsc )
        return w->at;
    return first + (uint64_t)(w->seconds * hz + 0.5);
}

/* The trace's first TSC over all CPUs, for --from and --to in seconds. */
static uint64_t first_tsc(struct xt_reader *r)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    uint64_t first = UINT64_MAX;
    unsigned int i;

    for ( i = 0; i < info->nr_cpus; i++ )
        if ( xt_reader_cpu(r, i)->has_tsc &&
             xt_reader_cpu(r, i)->first_tsc < first )
            first = xt_reader_cpu(r, i)->first_tsc;
    return first == UINT64_MAX ? 0 : first;
}

enum { OPT_JSON = 256, OPT_TOP, OPT_DOMAIN, OPT_CPU, OPT_FROM, OPT_TO,
       OPT_SVM };

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "bins", required_argument, NULL, 'b' },
        { "cpu-hz", required_argument, NULL, 'H' },
        { "json", no_argument, NULL, OPT_JSON },
        { "top", required_argument, NULL, OPT_TOP },
        { "domain", required_argument, NULL, OPT_DOMAIN },
        { "cpu", required_argument, NULL, OPT_CPU },
        { "from", required_argument, NULL, OPT_FROM },
        { "to", required_argument, NULL, OPT_TO },
        { "svm", no_argument, NULL, OPT_SVM },
        { "xen-version", required_argument, NULL, 'X' },
        { NULL, 0, NULL, 0 },
    };
    unsigned int bins = DEFAULT_BINS;
    unsigned long long hz = 0;
    bool json = false;
    struct analysis_options ao = { 0 };
    struct model_options mo = { 0 };
    struct when from = { 0 }, to = { 0 };
    struct analysis *a;
    struct xt_reader *r;
    struct tally t;
    char damage_buf[256];
    const char *damage;
    int opt;

    while ( (opt = getopt_long(argc, argv, "b:H:", longopts, NULL)) != -1 )
    {
        switch ( opt )
        {
        case 'b':
            bins = number(optarg, "bin count", 1, MAX_BINS);
            break;
        case 'H':
            hz = number(optarg, "TSC frequency", 1, UINT64_MAX);
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_TOP:
            ao.top = number(optarg, "row count", 1, UINT32_MAX);
            break;
        case OPT_DOMAIN:
            ao.has_domain = true;
            ao.domain = number(optarg, "domain", 0, 0xffff);
            break;
        case OPT_CPU:
            ao.has_cpu = true;
            ao.cpu = number(optarg, "CPU", 0, UINT32_MAX - 1);
            break;
        case OPT_FROM:
            from = when(optarg, "--from");
            break;
        case OPT_TO:
            to = when(optarg, "--to");
            break;
        case OPT_SVM:
            ao.svm = true;
            break;
        case 'X':
            if ( xt_xen_version_parse(optarg, &xen_version) )
                errx(1, "bad Xen version: %s (4.17, 4.20...)", optarg);
            break;
        default:
            usage();
        }
    }
    if ( optind != argc - 1 )
        usage();

    r = xt_reader_open(argv[optind], XT_READ_BATCHES);
    if ( !r )
        errx(1, "%s: %s", argv[optind], xt_reader_strerror(errno));
    xt_reader_set_xen_version(r, xen_version);
    xen_version = xt_reader_xen_version(r);
    if ( tally_run(&t, r, bins, hz) )
        err(1, "%s", argv[optind]);
    ao.hz = t.hz;
    if ( from.given )
        mo.from = when_tsc(&from, first_tsc(r), t.hz);
    if ( to.given )
        mo.to = when_tsc(&to, first_tsc(r), t.hz);
    if ( to.given && mo.to <= mo.from )
        errx(1, "--to is not after --from");
    a = analysis_run(r, &mo, &ao);
    if ( !a )
        err(1, "%s", argv[optind]);
    damage = xt_reader_damage(r, damage_buf, sizeof(damage_buf));
    if ( damage )
        warnx("%s: %s", argv[optind], damage);

    if ( json )
        json_print(&t, a, argv[optind], damage);
    else
    {
        text_header(&t, argv[optind], damage, hz != 0);
        text_cpus(&t);
        text_events(&t);
        fflush(stdout);
        analysis_text(stdout, a);
        text_rate(&t);
    }
    if ( fflush(stdout) || ferror(stdout) )
        err(1, "stdout");
    analysis_free(a);
    tally_free(&t);
    xt_reader_close(r);
    return 0;
}
