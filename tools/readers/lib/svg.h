/*
 * svg: the readers' pictures, plain SVG 1.1 written by hand: plot areas
 * with axes whose ticks fall on round numbers (1, 2 or 5 times a power of
 * ten; on a log axis, the powers of ten), a title, a legend beside the
 * plot, and text escaped.  A picture has no scripts and no fonts of its
 * own, so that any viewer shows it as it is.
 */
#ifndef SVG_H
#define SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SVG_WIDTH       1000
#define SVG_HEIGHT      560     /* a picture of one plot area */
#define SVG_TOP         40      /* above the first plot area: the title */
#define SVG_BOTTOM      50      /* below the last: the x axis's ticks */
#define SVG_LEGEND_MAX  16      /* entries drawn; then "and N more" */

/* How an axis labels its ticks. */
enum svg_unit {
    SVG_PLAIN,                  /* 0.5, 20k, 1.5M */
    SVG_MICROSECONDS,           /* a value in us: 100 ns, 1 us, 10 ms, 1 s */
    SVG_ROWS,                   /* no ticks: the caller names its rows */
};

struct svg_axis {
    double lo, hi;              /* the values at its ends */
    bool log;                   /* log10 between them (lo > 0) */
    enum svg_unit unit;
    const char *label;          /* NULL: none */
};

/* A plot area of a picture, and its axes. */
struct svg_plot {
    FILE *f;
    struct svg_axis x, y;
    int left, top, width, height;   /* the area, px */
};

/* The picture's head (@height px, white) and its end. */
void svg_begin(FILE *f, int height);
void svg_end(FILE *f);

/* @s as SVG text: '<', '&' and '"' escaped, control bytes left out. */
void svg_text(FILE *f, const char *s);

/* The picture's title, above its first plot area. */
void svg_title(FILE *f, const char *title);

/*
 * The plot area of a picture of @height px that has one, with room on
 * the right for a legend if @legend.
 */
void svg_area(struct svg_plot *p, FILE *f, int height, bool legend);

/* Where a value falls in the plot area, px. */
double svg_x(const struct svg_plot *p, double x);
double svg_y(const struct svg_plot *p, double y);

/*
 * The area's frame, with the y axis's ticks and label, and the x axis's
 * if @x_axis (one of plot areas stacked has them under the lowest).
 */
void svg_frame(const struct svg_plot *p, bool x_axis);

/*
 * The legend, right of the area: @n entries, each a swatch of @colours[i]
 * and @names[i], of which SVG_LEGEND_MAX are drawn (the last place saying
 * how many more).
 */
void svg_legend(const struct svg_plot *p, const char *const *names,
                const char *const *colours, unsigned int n);

/*
 * Distinct colours for series 0, 1, ... (Tableau's ten but its red, kept
 * for losses; then hues spread around the wheel), written into @buf.
 */
const char *svg_colour(unsigned int i, char *buf, size_t size);

#endif /* SVG_H */
