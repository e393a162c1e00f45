/*
 * xentrace-plot: events per second per CPU over time, as an SVG.
 *
 *   xentrace-plot [-h] [-b bins] [-H hz] [-o file.svg] [trace]
 *
 * One polyline per CPU (class "cpu", data-cpu its number), and a red band
 * (class "lost") over the time each TRC_LOST_RECORDS says its CPU lost
 * records in.  Plain SVG 1.1 written by hand.  See xentrace-plot(1).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "tally.h"
#include "tsc.h"

#define DEFAULT_BINS    200
#define WIDTH           960     /* the whole picture, px */
#define HEIGHT          540
#define LEFT            80      /* margins around the plot area */
#define RIGHT           20
#define TOP             40
#define BOTTOM          50
#define TICKS           5

struct plot {
    FILE *f;
    const struct tally *t;
    double start, seconds;      /* the x axis: from the origin, as every
                                   reader counts (or the first bin if it
                                   is earlier) to the last bin's end */
    double max_rate;            /* the y axis: 0 to this */
};

static double x_of(const struct plot *p, double s)
{
    double span = p->seconds - p->start;

    return LEFT + (WIDTH - LEFT - RIGHT) * (span > 0 ? (s - p->start) / span
                                                     : 0);
}

static double y_of(const struct plot *p, double rate)
{
    return HEIGHT - BOTTOM -
           (HEIGHT - TOP - BOTTOM) * (p->max_rate > 0 ? rate / p->max_rate
                                                      : 0);
}

static double bin_rate(const struct tally *t, const struct tally_cpu *c,
                       unsigned int b)
{
    return tally_bin_rate(t, b, c->bins[b]);
}

/* Where bin @b ends, in seconds from the origin. */
static double bin_end_seconds(const struct tally *t, unsigned int b)
{
    uint64_t start, end;

    tally_bin_span(t, b, &start, &end);
    return tally_bin_seconds(t, b) + tsc_seconds(end - start, t->hz);
}

static void axes(const struct plot *p, const char *title)
{
    unsigned int i;

    fprintf(p->f, "<text x=\"%d\" y=\"24\" font-size=\"16\">", LEFT);
    for ( ; *title; title++ )
    {
        if ( *title == '<' )
            fputs("&lt;", p->f);
        else if ( *title == '&' )
            fputs("&amp;", p->f);
        else
            fputc(*title, p->f);
    }
    fprintf(p->f, ": events/s per CPU</text>\n");
    fprintf(p->f, "<g class=\"axes\" stroke=\"black\">\n"
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n"
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n",
            LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM,
            LEFT, TOP, LEFT, HEIGHT - BOTTOM);
    fprintf(p->f, "<g class=\"ticks\" font-size=\"12\">\n");
    for ( i = 0; i <= TICKS; i++ )
    {
        double s = p->start + (p->seconds - p->start) * i / TICKS;
        double r = p->max_rate * i / TICKS;

        fprintf(p->f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
                "%.3g</text>\n", x_of(p, s), HEIGHT - BOTTOM + 18, s);
        fprintf(p->f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">"
                "%.3g</text>\n", LEFT - 6, y_of(p, r) + 4, r);
    }
    fprintf(p->f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
            "time (s)</text>\n</g>\n", (LEFT + WIDTH - RIGHT) / 2,
            HEIGHT - 12);
}

/* A band over each time bin that lost records, on any CPU. */
static void lost_bands(const struct plot *p)
{
    const struct tally *t = p->t;
    unsigned int b;

    fprintf(p->f, "<g class=\"losses\" fill=\"red\" fill-opacity=\"0.3\">\n");
    for ( b = 0; b < t->time.nr; b++ )
    {
        const struct tally_bin_loss *l = &t->bin_losses[b];
        double x0 = x_of(p, tally_bin_seconds(t, b));
        double x1 = x_of(p, bin_end_seconds(t, b));

        if ( !l->markers )
            continue;
        fprintf(p->f, "<rect class=\"lost\" data-markers=\"%" PRIu64 "\" "
                "x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\"><title>"
                "%" PRIu64 " records lost (%" PRIu64 " markers)</title>"
                "</rect>\n", l->markers, x0, TOP, x1 - x0 > 1 ? x1 - x0 : 1,
                HEIGHT - TOP - BOTTOM, l->records, l->markers);
    }
    fprintf(p->f, "</g>\n");
}

static void series(const struct plot *p)
{
    const struct tally *t = p->t;
    unsigned int i, b;

    fprintf(p->f, "<g class=\"series\" fill=\"none\" stroke-width=\"1\">\n");
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        const struct tally_cpu *c = &t->cpus[i];

        fprintf(p->f, "<polyline class=\"cpu\" data-cpu=\"%u\" "
                "stroke=\"hsl(%u,70%%,45%%)\" points=\"", c->cpu,
                i * 360 / t->nr_cpus);
        for ( b = 0; b < t->time.nr; b++ )
            fprintf(p->f, "%s%.1f,%.1f", b ? " " : "",
                    x_of(p, (tally_bin_seconds(t, b) +
                             bin_end_seconds(t, b)) / 2),
                    y_of(p, bin_rate(t, c, b)));
        fprintf(p->f, "\"><title>CPU %u</title></polyline>\n", c->cpu);
    }
    fprintf(p->f, "</g>\n");
}

static void plot(FILE *f, const struct tally *t, const char *title)
{
    struct plot p = { .f = f, .t = t };
    unsigned int i, b;

    p.start = tally_bin_seconds(t, 0) < 0 ? tally_bin_seconds(t, 0) : 0;
    p.seconds = bin_end_seconds(t, t->time.nr - 1);
    for ( i = 0; i < t->nr_cpus; i++ )
        for ( b = 0; b < t->time.nr; b++ )
            if ( bin_rate(t, &t->cpus[i], b) > p.max_rate )
                p.max_rate = bin_rate(t, &t->cpus[i], b);

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            WIDTH, HEIGHT, WIDTH, HEIGHT);
    axes(&p, title);
    lost_bands(&p);
    series(&p);
    fprintf(f, "</svg>\n");
}

int main(int argc, char **argv)
{
    static const struct cli_option options[] = {
        CLI_BINS_OPTION("the time axis"),
        CLI_FOLLOW_OPTION,
        { 'o', "output", "file.svg",
          "write to file.svg, not the standard output" },
        { 0, NULL, NULL, NULL },
    };
    struct cli cli = {
        .options = options, .operands = "[trace]", .max_operands = 1,
        .bins = DEFAULT_BINS,
    };
    const char *out = NULL, *path;
    struct xt_reader *r;
    struct tally t;
    FILE *f = stdout;
    int opt;

    while ( (opt = cli_getopt(&cli, argc, argv)) != -1 )
        switch ( opt )
        {
        case 'o':
            out = optarg;
            break;
        }
    path = optind < argc ? argv[optind] : "-";

    r = cli_open(&cli, path, 0);
    cli_end_on_signal(r);
    if ( tally_run(&t, r, cli.bins, cli_tsc_hz(&cli, xt_reader_info(r), NULL)) )
        errx(CLI_EXIT_ERROR, "%s: %s", cli_input_name(path),
             xt_reader_strerror(errno));
    if ( out && !(f = fopen(out, "w")) )
        err(CLI_EXIT_ERROR, "%s", out);
    plot(f, &t, cli_input_name(path));
    cli_close_output(f, out ? out : "stdout");
    tally_free(&t);
    return cli_close(r, path);
}
