/*
 * svg: axes, ticks and legends for the readers' pictures (svg.h).
 */
#include <math.h>
#include <string.h>

#include "svg.h"

#define TICKS_WANTED    5       /* about this many on a linear axis */
#define LEFT            90      /* px: the y axis's ticks and label */
#define RIGHT           30
#define LEGEND_WIDTH    170     /* beside the plot */
#define LEGEND_LINE     18
#define TICK_SPACING    22      /* px between labelled ticks, at least */

void svg_begin(FILE *f, int height)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            SVG_WIDTH, height, SVG_WIDTH, height);
}

void svg_end(FILE *f)
{
    fprintf(f, "</svg>\n");
}

void svg_text(FILE *f, const char *s)
{
    for ( ; *s; s++ )
    {
        if ( *s == '<' )
            fputs("&lt;", f);
        else if ( *s == '&' )
            fputs("&amp;", f);
        else if ( *s == '"' )
            fputs("&quot;", f);
        else if ( (unsigned char)*s >= 0x20 && *s != 0x7f )
            fputc(*s, f);
    }
}

/* Where @v falls on @a, from 0 (lo) to 1 (hi). */
static double fraction(const struct svg_axis *a, double v)
{
    double lo = a->lo, hi = a->hi;

    if ( a->log )
    {
        lo = log10(lo);
        hi = log10(hi);
        v = v > 0 ? log10(v) : lo;
    }
    return hi > lo ? (v - lo) / (hi - lo) : 0;
}

double svg_x(const struct svg_plot *p, double x)
{
    return p->left + p->width * fraction(&p->x, x);
}

double svg_y(const struct svg_plot *p, double y)
{
    return p->top + p->height * (1 - fraction(&p->y, y));
}

/* A round step for about TICKS_WANTED ticks over @range: 1, 2, 5 x 10^k. */
static double round_step(double range)
{
    double raw = range / TICKS_WANTED, mag = pow(10, floor(log10(raw)));
    double norm = raw / mag;

    return (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
}

/* @v at @step's precision, with no trailing zeros, in @buf. */
static void plain_number(char *buf, size_t size, double v, double step)
{
    int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    char *end;

    snprintf(buf, size, "%.*f", decimals, v);
    if ( strchr(buf, '.') )
    {
        for ( end = buf + strlen(buf) - 1; *end == '0'; end-- )
            *end = '\0';
        if ( *end == '.' )
            *end = '\0';
    }
    if ( !strcmp(buf, "-0") )
        strcpy(buf, "0");
}

/* A tick's label: 20k, 1.5M; 10 ns, 100 us, 2 ms, 1 s. */
struct scale {
    double scale;
    const char *suffix;
};

static void tick_label(char *buf, size_t size, const struct svg_axis *a,
                       double v, double step)
{
    static const struct scale si[] = {
        { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" }, { 1, "" },
    }, times[] = {
        { 1e6, " s" }, { 1e3, " ms" }, { 1, " \xc2\xb5s" }, { 1e-3, " ns" },
    };
    const struct scale *scale = a->unit == SVG_MICROSECONDS ? times : si;
    unsigned int i, n = 4;
    double top = fabs(a->log ? v : (fabs(a->lo) > fabs(a->hi) ? a->lo
                                                              : a->hi));

    if ( v == 0 )
    {
        snprintf(buf, size, "0");
        return;
    }
    for ( i = 0; i < n - 1 && top < scale[i].scale; i++ )
        ;
    plain_number(buf, size, v / scale[i].scale,
                 a->log ? 1 : step / scale[i].scale);
    strncat(buf, scale[i].suffix, size - strlen(buf) - 1);
}

/*
 * A tick at @v, labelled at @step's precision (a log axis's: every
 * decade's own) unless @step is 0.
 */
static void tick(const struct svg_plot *p, bool x_axis, double v,
                 double step)
{
    int bottom = p->top + p->height;
    char label[32] = "";

    if ( step )
        tick_label(label, sizeof(label), x_axis ? &p->x : &p->y, v, step);
    if ( x_axis )
        fprintf(p->f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                "stroke=\"none\">%s</text>\n", svg_x(p, v), bottom,
                svg_x(p, v), bottom + 5, svg_x(p, v), bottom + 20, label);
    else
        fprintf(p->f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                "stroke=\"none\">%s</text>\n", p->left - 5, svg_y(p, v),
                p->left, svg_y(p, v), p->left - 8, svg_y(p, v) + 4, label);
}

/* An axis's ticks: round values on a linear one, decades on a log one. */
static void ticks(const struct svg_plot *p, bool x_axis)
{
    const struct svg_axis *a = x_axis ? &p->x : &p->y;
    double step, first;
    int i, k;

    if ( a->unit == SVG_ROWS )
        return;
    if ( a->log )
    {
        int first = (int)ceil(log10(a->lo) - 1e-9);
        int last = (int)floor(log10(a->hi) + 1e-9);
        /* Decades too close for a label each: every n-th labelled. */
        int every = (int)ceil(TICK_SPACING * (last - first + 1.0) /
                              (x_axis ? p->width : p->height));

        for ( k = first; k <= last; k++ )
            tick(p, x_axis, pow(10, k),
                 (k - first) % (every ? every : 1) ? 0 : 1);
        return;
    }
    if ( !(a->hi > a->lo) )
    {
        tick(p, x_axis, a->lo,
             a->lo ? pow(10, floor(log10(fabs(a->lo)))) : 1);
        return;
    }
    step = round_step(a->hi - a->lo);
    first = ceil(a->lo / step - 1e-9) * step;
    for ( i = 0; first + i * step <= a->hi + step * 1e-9; i++ )
        tick(p, x_axis, first + i * step, step);
}

void svg_title(FILE *f, const char *title)
{
    fprintf(f, "<text class=\"title\" x=\"%d\" y=\"24\" font-size=\"16\">",
            LEFT);
    svg_text(f, title);
    fprintf(f, "</text>\n");
}

void svg_area(struct svg_plot *p, FILE *f, int height, bool legend)
{
    p->f = f;
    p->left = LEFT;
    p->top = SVG_TOP;
    p->width = SVG_WIDTH - LEFT - (legend ? LEGEND_WIDTH : RIGHT);
    p->height = height - SVG_TOP - SVG_BOTTOM;
}

void svg_frame(const struct svg_plot *p, bool x_axis)
{
    fprintf(p->f, "<g class=\"axes\" stroke=\"black\" fill=\"none\">"
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></g>\n",
            p->left, p->top, p->width, p->height);
    fprintf(p->f, "<g class=\"ticks\" font-size=\"12\" stroke=\"black\">\n");
    if ( x_axis )
        ticks(p, true);
    ticks(p, false);
    fprintf(p->f, "</g>\n<g class=\"labels\" font-size=\"13\">");
    if ( x_axis && p->x.label )
    {
        fprintf(p->f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
                p->left + p->width / 2, p->top + p->height + 40);
        svg_text(p->f, p->x.label);
        fprintf(p->f, "</text>");
    }
    if ( p->y.label )
    {
        fprintf(p->f, "<text transform=\"translate(16,%d) rotate(-90)\" "
                "text-anchor=\"middle\">", p->top + p->height / 2);
        svg_text(p->f, p->y.label);
        fprintf(p->f, "</text>");
    }
    fprintf(p->f, "</g>\n");
}

void svg_legend(const struct svg_plot *p, const char *const *names,
                const char *const *colours, unsigned int n)
{
    int x = p->left + p->width + 14, y = p->top;
    unsigned int i;

    fprintf(p->f, "<g class=\"legend\" font-size=\"12\">\n");
    for ( i = 0; i < n; i++, y += LEGEND_LINE )
    {
        if ( i == SVG_LEGEND_MAX - 1 && n > SVG_LEGEND_MAX )
        {
            fprintf(p->f, "<text x=\"%d\" y=\"%d\">and %u more</text>\n",
                    x, y + 10, n - i);
            break;
        }
        fprintf(p->f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
                "fill=\"%s\"/><text class=\"entry\" x=\"%d\" y=\"%d\">", x,
                y, colours[i], x + 18, y + 10);
        svg_text(p->f, names[i]);
        fprintf(p->f, "</text>\n");
    }
    fprintf(p->f, "</g>\n");
}

const char *svg_colour(unsigned int i, char *buf, size_t size)
{
    /* Tableau's ten but its red, which the pictures keep for losses. */
    static const char *const tableau[] = {
        "#4e79a7", "#f28e2b", "#76b7b2", "#59a14f", "#edc948",
        "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    };

    if ( i < sizeof(tableau) / sizeof(tableau[0]) )
        snprintf(buf, size, "%s", tableau[i]);
    else
        snprintf(buf, size, "hsl(%u,60%%,45%%)", 30 + (i * 137) % 300);
    return buf;
}
