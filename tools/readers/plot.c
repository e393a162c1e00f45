/*
 * xentrace-plot: a trace as a picture, SVG.
 *
 *   xentrace-plot [-fh] [-b bins] [-o file] [-H hz] [--scatter kind [--csv]]
 *                 [--svm] [--xen-version x.y] [trace]
 *
 * By default, events per second per CPU over time: one polyline per CPU
 * (class "cpu", data-cpu its number), and a red band (class "lost") over
 * each time bin in which some TRC_LOST_RECORDS says its CPU lost records.
 * With --scatter, one of xenalyze's scatterplots from the model of the
 * machine (scatter.h): exits, waits, to-halt, irq, runstate or pcpu; with
 * --csv, its points as CSV instead.  See xentrace-plot(1).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "model.h"
#include "scatter.h"
#include "svg.h"
#include "tally.h"
#include "tsc.h"

#define DEFAULT_BINS    200
#define LOST_COLOUR     "#e15759"

/* Where bin @b ends, in seconds from the origin. */
static double bin_end_seconds(const struct tally *t, unsigned int b)
{
    uint64_t start, end;

    tally_bin_span(t, b, &start, &end);
    return tally_bin_seconds(t, b) + tsc_seconds(end - start, t->hz);
}

static double bin_rate(const struct tally *t, const struct tally_cpu *c,
                       unsigned int b)
{
    return tally_bin_rate(t, b, c->bins[b]);
}

/* A band over each time bin that lost records, on any CPU. */
static void lost_bands(const struct svg_plot *p, const struct tally *t)
{
    unsigned int b;

    fprintf(p->f, "<g class=\"losses\" fill=\"%s\" fill-opacity=\"0.3\">\n",
            LOST_COLOUR);
    for ( b = 0; b < t->time.nr; b++ )
    {
        const struct tally_bin_loss *l = &t->bin_losses[b];
        double x0 = svg_x(p, tally_bin_seconds(t, b));
        double x1 = svg_x(p, bin_end_seconds(t, b));

        if ( !l->markers )
            continue;
        fprintf(p->f, "<rect class=\"lost\" data-markers=\"%" PRIu64 "\" "
                "x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\"><title>"
                "%" PRIu64 " records lost (%" PRIu64 " markers)</title>"
                "</rect>\n", l->markers, x0, p->top, x1 - x0 > 1 ? x1 - x0 : 1,
                p->height, l->records, l->markers);
    }
    fprintf(p->f, "</g>\n");
}

static void series(const struct svg_plot *p, const struct tally *t)
{
    unsigned int i, b;
    char colour[32];

    fprintf(p->f, "<g class=\"series\" fill=\"none\" stroke-width=\"1\">\n");
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        const struct tally_cpu *c = &t->cpus[i];

        fprintf(p->f, "<polyline class=\"cpu\" data-cpu=\"%u\" "
                "stroke=\"%s\" points=\"", c->cpu,
                svg_colour(i, colour, sizeof(colour)));
        for ( b = 0; b < t->time.nr; b++ )
            fprintf(p->f, "%s%.1f,%.1f", b ? " " : "",
                    svg_x(p, (tally_bin_seconds(t, b) +
                              bin_end_seconds(t, b)) / 2),
                    svg_y(p, bin_rate(t, c, b)));
        fprintf(p->f, "\"><title>cpu%u</title></polyline>\n", c->cpu);
    }
    fprintf(p->f, "</g>\n");
}

/* The legend: the losses' colour if the trace has any, and each CPU's. */
static void legend(const struct svg_plot *p, const struct tally *t)
{
    const char *names[SVG_LEGEND_MAX], *colours[SVG_LEGEND_MAX];
    char name[SVG_LEGEND_MAX][16], colour[SVG_LEGEND_MAX][32];
    unsigned int i, n = 0;
    bool lost = false;

    for ( i = 0; i < t->time.nr; i++ )
        lost |= t->bin_losses[i].markers > 0;
    if ( lost )
    {
        names[n] = "records lost";
        colours[n++] = LOST_COLOUR;
    }
    /* Past the legend's room, its last place says how many more. */
    for ( i = 0; i < t->nr_cpus && n < SVG_LEGEND_MAX; i++, n++ )
    {
        snprintf(name[n], sizeof(name[n]), "cpu%u", t->cpus[i].cpu);
        names[n] = name[n];
        colours[n] = svg_colour(i, colour[n], sizeof(colour[n]));
    }
    svg_legend(p, names, colours, lost + t->nr_cpus);
}

static void plot(FILE *f, const struct tally *t, const char *title)
{
    struct svg_plot p = { 0 };
    char full[512];
    unsigned int i, b;

    p.x = (struct svg_axis){
        .lo = tally_bin_seconds(t, 0) < 0 ? tally_bin_seconds(t, 0) : 0,
        .hi = bin_end_seconds(t, t->time.nr - 1), .label = "time (s)",
    };
    p.y = (struct svg_axis){ .label = "events/s" };
    for ( i = 0; i < t->nr_cpus; i++ )
        for ( b = 0; b < t->time.nr; b++ )
            if ( bin_rate(t, &t->cpus[i], b) > p.y.hi )
                p.y.hi = bin_rate(t, &t->cpus[i], b);
    p.y.hi *= 1.05;             /* the highest line clear of the frame */
    snprintf(full, sizeof(full), "%s: events/s per CPU", title);
    svg_begin(f, SVG_HEIGHT);
    svg_title(f, full);
    svg_area(&p, f, SVG_HEIGHT, true);
    svg_frame(&p, true);
    lost_bands(&p, t);
    series(&p, t);
    legend(&p, t);
    svg_end(f);
}

/* --scatter: the model's events into @s, as the summary reads them. */
static int scatter_run(struct xt_reader *r, struct scatter *s,
                       unsigned int threads)
{
    struct model_options mo = { .by_cpu = true, .threads = threads };
    struct model_ops ops = { .event = scatter_event };
    struct model *m = model_new(r, &mo, &ops, s);
    int ret;

    if ( !m )
        return -1;
    ret = model_run(m);
    model_free(m);
    if ( !ret && scatter_failed(s) )
    {
        errno = ENOMEM;
        ret = -1;
    }
    return ret;
}

enum { OPT_SCATTER = CLI_LONG_ONLY, OPT_CSV, OPT_SVM };

int main(int argc, char **argv)
{
    static const struct cli_option options[] = {
        CLI_BINS_OPTION("the time axis"),
        CLI_FOLLOW_OPTION,
        { 'o', "output", "file",
          "write to file, not the standard output" },
        { OPT_SCATTER, "scatter", "kind", "a scatterplot of the model's: "
          "exits, waits, to-halt, irq, runstate or pcpu" },
        { OPT_CSV, "csv", NULL, "with --scatter, its points as CSV" },
        { OPT_SVM, "svm", NULL, "exit reasons are SVM's, not VMX's" },
        CLI_XEN_VERSION_OPTION,
        CLI_THREADS_OPTION,
        { 0, NULL, NULL, NULL },
    };
    struct cli cli = {
        .options = options, .operands = "[trace]", .max_operands = 1,
        .bins = DEFAULT_BINS,
    };
    struct scatter_options so = { 0 };
    const char *out = NULL, *path, *kind = NULL;
    struct scatter *s = NULL;
    struct xt_reader *r;
    struct tally t;
    FILE *f = stdout;
    bool csv = false;
    int opt;

    while ( (opt = cli_getopt(&cli, argc, argv)) != -1 )
        switch ( opt )
        {
        case 'o':
            out = optarg;
            break;
        case OPT_SCATTER:
            kind = optarg;
            if ( !scatter_kind_parse(kind, &so.kind) )
                cli_usage_error("--scatter %s: not exits, waits, to-halt, "
                                "irq, runstate or pcpu", kind);
            break;
        case OPT_CSV:
            csv = true;
            break;
        case OPT_SVM:
            so.svm = true;
            break;
        }
    if ( csv && !kind )
        cli_usage_error("--csv is the points of a --scatter");
    if ( kind && cli.bins > SCATTER_MAX_BINS )
        cli_usage_error("-b %u: a scatterplot has %u bins at most", cli.bins,
                        SCATTER_MAX_BINS);
    path = optind < argc ? argv[optind] : "-";

    r = cli_open(&cli, path, 0);
    cli_end_on_signal(r);
    if ( out && !(f = fopen(out, "w")) )
        err(CLI_EXIT_ERROR, "%s", out);
    if ( kind )
    {
        so.bins = cli.bins;
        so.hz = cli_tsc_hz(&cli, xt_reader_info(r), NULL);
        so.origin = cli_origin(r);
        so.csv = csv ? f : NULL;
        so.reader = r;
        if ( !(s = scatter_new(&so)) || scatter_run(r, s, cli.threads) )
            errx(CLI_EXIT_ERROR, "%s: %s", cli_input_name(path),
                 xt_reader_strerror(errno));
        if ( !csv )
            scatter_svg(f, s, cli_input_name(path));
        scatter_free(s);
    }
    else
    {
        if ( tally_run(&t, r, cli.bins, cli_tsc_hz(&cli, xt_reader_info(r),
                                                   NULL)) )
            errx(CLI_EXIT_ERROR, "%s: %s", cli_input_name(path),
                 xt_reader_strerror(errno));
        plot(f, &t, cli_input_name(path));
        tally_free(&t);
    }
    cli_close_output(f, out ? out : "stdout");
    return cli_close(r, path);
}
