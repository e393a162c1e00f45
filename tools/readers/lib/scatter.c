/*
 * scatter: the model's events as scatterplots and lanes (scatter.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "scatter.h"
#include "svg.h"
#include "timebins.h"
#include "tsc.h"

#define OTHER           SCATTER_SERIES      /* the series of the rest */
#define NR_SERIES       (SCATTER_SERIES + 1)
#define SHOWN           10      /* series in their colours; the rest grey */
#define GREY            "#999999"
#define Y_PER_OCTAVE    8
#define Y_BINS          512     /* 8 an octave of 64; 512 vectors */
#define LANES_DRAWN     40
#define KEY_LOST        UINT64_MAX      /* the pcpu kind's lost series */
#define CSV_TIME_MAX    48      /* "-S.NNNNNNNNN", and put_dec()'s 8 past */

/* What one kind plots, and how its CSV lines read. */
struct kind {
    const char *name;
    bool lanes;
    const char *title;          /* after the trace's name */
    const char *y_label;
    const char *csv_header;
};

static const struct kind kinds[SCATTER_KINDS] = {
    [SCATTER_EXITS] = { "exits", false, "each exit's time in Xen, by reason",
                        "time in Xen", "seconds,vcpu,pcpu,reason,us,rip,vector" },
    [SCATTER_WAITS] = { "waits", false,
                        "each wait for a pCPU (runnable to running), "
                        "by domain", "wait",
                        "seconds,vcpu,pcpu,cause,us" },
    [SCATTER_TO_HALT] = { "to-halt", false,
                          "each injected interrupt's time to the halt, "
                          "by domain", "entry to halt",
                          "seconds,vcpu,vector,wake,us" },
    [SCATTER_IRQ] = { "irq", false, "each IRQ Xen handled, by pCPU",
                      "IRQ", "seconds,pcpu,irq" },
    [SCATTER_RUNSTATE] = { "runstate", true, "each vCPU's runstate",
                           "vCPU", "from_seconds,to_seconds,vcpu,state" },
    [SCATTER_PCPU] = { "pcpu", true, "what each pCPU ran, by domain",
                       "pCPU", "from_seconds,to_seconds,pcpu,vcpu" },
};

/* The runstate lanes' colours, by state. */
static const char *const state_colours[MODEL_STATES] = {
    [MODEL_RUNNING] = "#59a14f", [MODEL_RUNNABLE] = "#f28e2b",
    [MODEL_BLOCKED] = "#a0cbe8", [MODEL_OFFLINE] = "#bab0ac",
    [MODEL_LOST] = "#e15759", [MODEL_UNKNOWN] = "#e8e8e8",
};

struct series {
    uint64_t key;
    char name[MODEL_NAME_MAX];
    uint64_t count;             /* points, or ticks of lanes */
    uint64_t *cells;            /* points: bins.max x Y_BINS; or NULL */
};

struct lane {
    uint32_t who;               /* a vCPU (domvcpu) or a pCPU */
    uint64_t running;           /* ticks, to choose the lanes drawn */
    uint64_t *cells;            /* bins.max x NR_SERIES ticks */
};

struct scatter {
    struct scatter_options o;
    const struct kind *kind;
    struct timebins bins;
    struct series series[NR_SERIES];
    unsigned int nr_series;     /* apart, up to SCATTER_SERIES */
    struct lane *lanes;
    size_t lanes_cap;
    unsigned int nr_lanes;
    struct hashtab lane_of;
    uint64_t *lost;             /* bins.max: records lost, where marked */
    unsigned int y_lo, y_hi;    /* value bins with points */
    bool any_point, failed;
};

bool scatter_kind_parse(const char *name, enum scatter_kind *kind)
{
    unsigned int k;

    for ( k = 0; k < SCATTER_KINDS; k++ )
        if ( !strcmp(name, kinds[k].name) )
        {
            *kind = k;
            return true;
        }
    return false;
}

const char *scatter_kind_name(enum scatter_kind kind)
{
    return kinds[kind].name;
}

/*
 * Value bins: 0 to 7 exactly, then eight a power of two; the IRQs' bins
 * are the IRQs, 511 and up in the last.
 */
static unsigned int value_bin(const struct scatter *s, uint64_t v)
{
    unsigned int octave;

    if ( s->o.kind == SCATTER_IRQ )
        return v < Y_BINS ? v : Y_BINS - 1;
    if ( v < Y_PER_OCTAVE )
        return v;
    octave = 63 - __builtin_clzll(v);
    return octave * Y_PER_OCTAVE + ((v >> (octave - 3)) & 7);
}

/* The lowest value of bin @b (the highest, + 1, is bin b + 1's). */
static double bin_value(const struct scatter *s, unsigned int b)
{
    if ( s->o.kind == SCATTER_IRQ || b < Y_PER_OCTAVE )
        return b;
    return ldexp(Y_PER_OCTAVE + b % Y_PER_OCTAVE,
                 (int)(b / Y_PER_OCTAVE) - 3);
}

/* Every array of counts over the time bins: for timebins_at(). */
static uint64_t *bin_arrays(void *arg, unsigned int i, size_t *width)
{
    struct scatter *s = arg;
    unsigned int k;

    if ( i == 0 )
    {
        *width = 1;
        return s->lost;
    }
    i--;
    for ( k = 0; k < NR_SERIES; k++ )
        if ( s->series[k].cells && i-- == 0 )
        {
            *width = Y_BINS;
            return s->series[k].cells;
        }
    if ( i < s->nr_lanes )
    {
        *width = NR_SERIES;
        return s->lanes[i].cells;
    }
    return NULL;
}

static unsigned int time_bin(struct scatter *s, uint64_t tsc)
{
    return timebins_at(&s->bins, tsc, bin_arrays, s);
}

/* The series of @key, named by @name_of if new; OTHER if none is left. */
typedef void series_namer(const struct scatter *s, uint64_t key, char *buf,
                          size_t size);

static unsigned int series_of(struct scatter *s, uint64_t key,
                              series_namer *name_of)
{
    unsigned int k;

    for ( k = 0; k < s->nr_series; k++ )
        if ( s->series[k].key == key )
            return k;
    if ( s->nr_series == SCATTER_SERIES )
        return OTHER;
    s->series[k].key = key;
    name_of(s, key, s->series[k].name, sizeof(s->series[k].name));
    s->nr_series++;
    return k;
}

/* An exit's series: its reason, and whether SVM's (bit 32) or Arm's (33). */
static uint64_t exit_key(const struct model_event *ev)
{
    return ev->u.exit.reason | (uint64_t)ev->u.exit.svm << 32 |
           (uint64_t)ev->u.exit.arm << 33;
}

static void exit_name(const struct scatter *s, uint64_t key, char *buf,
                      size_t size)
{
    if ( key >> 33 )
        model_trap_label(buf, size, (uint32_t)key);
    else
        model_exit_label(buf, size, (uint32_t)key, s->o.svm || key >> 32);
}

static void domain_name(const struct scatter *s, uint64_t key, char *buf,
                        size_t size)
{
    if ( key == KEY_LOST )
        snprintf(buf, size, "lost");
    else
        model_domain_name(buf, size, s->o.reader, (uint32_t)key);
}

static void cpu_name(const struct scatter *s, uint64_t key, char *buf, size_t size)
{
    (void)s;
    snprintf(buf, size, "cpu%" PRIu64, key);
}

/* A point of series @k at @tsc, of value @v. */
static void point(struct scatter *s, unsigned int k, uint64_t tsc,
                  uint64_t v)
{
    struct series *se = &s->series[k];
    unsigned int t, y = value_bin(s, v);

    if ( !se->cells &&
         !(se->cells = calloc((size_t)s->bins.max * Y_BINS,
                              sizeof(uint64_t))) )
    {
        s->failed = true;
        return;
    }
    t = time_bin(s, tsc);
    se->cells[(size_t)t * Y_BINS + y]++;
    se->count++;
    s->y_lo = !s->any_point || y < s->y_lo ? y : s->y_lo;
    s->y_hi = !s->any_point || y > s->y_hi ? y : s->y_hi;
    s->any_point = true;
}

static uint64_t lane_key(const void *base, unsigned int i)
{
    return ((const struct lane *)base)[i].who;
}

static uint64_t lane_hash(const void *base, unsigned int i)
{
    return hashtab_hash(lane_key(base, i));
}

/* The lane of @who, made if new; NULL out of memory. */
static struct lane *lane_at(struct scatter *s, uint32_t who)
{
    unsigned int slot;
    struct lane *l;

    if ( hashtab_fit(&s->lane_of, s->nr_lanes + 1, s->lanes, lane_hash) )
        return NULL;
    slot = hashtab_find(&s->lane_of, who, s->lanes, lane_key);
    if ( hashtab_index(&s->lane_of, slot) )
        return &s->lanes[hashtab_index(&s->lane_of, slot) - 1];
    if ( array_fit(&s->lanes, &s->lanes_cap, s->nr_lanes + 1,
                   sizeof(*s->lanes)) )
        return NULL;
    l = &s->lanes[s->nr_lanes];
    if ( !(l->cells = calloc((size_t)s->bins.max * NR_SERIES,
                             sizeof(uint64_t))) )
        return NULL;
    l->who = who;
    hashtab_set(&s->lane_of, slot, s->nr_lanes++);
    return l;
}

/* [@start, @end) of lane @who in series @k, its ticks in each bin. */
static void lane_interval(struct scatter *s, uint32_t who, unsigned int k,
                          uint64_t start, uint64_t end)
{
    struct lane *l;
    unsigned int first, last, b;

    if ( end <= start )
        return;
    if ( !(l = lane_at(s, who)) )
    {
        s->failed = true;
        return;
    }
    /* Both ends covered first: the bins then stay as they are. */
    time_bin(s, start);
    last = time_bin(s, end - 1);
    first = time_bin(s, start);
    for ( b = first; b <= last; b++ )
    {
        uint64_t from, to;

        timebins_bounds(&s->bins, b, &from, &to);
        from = from > start ? from : start;
        to = to < end ? to : end;
        l->cells[(size_t)b * NR_SERIES + k] += to - from;
    }
    s->series[k].count += end - start;
    if ( k == MODEL_RUNNING || s->o.kind == SCATTER_PCPU )
        l->running += end - start;
}

static double seconds(const struct scatter *s, uint64_t tsc)
{
    return tsc_seconds_from(tsc, s->o.origin, s->o.hz);
}

static double us(const struct scatter *s, uint64_t ticks)
{
    return tsc_us(ticks, s->o.hz);
}

/*
 * A CSV's times, formatted by hand (tsc.h): a CSV has a line per point,
 * and printf's floating point was a quarter of its time.
 */
static const char *csv_seconds(char buf[CSV_TIME_MAX], const struct scatter *s,
                               uint64_t tsc)
{
    *tsc_put_seconds(buf, tsc, s->o.origin, s->o.hz) = '\0';
    return buf;
}

static const char *csv_us(char buf[CSV_TIME_MAX], const struct scatter *s,
                          uint64_t ticks)
{
    *tsc_put_us(buf, ticks, s->o.hz) = '\0';
    return buf;
}

/* The CSV line of a point kind's event. */
static void csv_point(const struct scatter *s, const struct model_event *ev,
                      uint64_t v)
{
    char who[MODEL_NAME_MAX], name[MODEL_NAME_MAX], t[CSV_TIME_MAX];
    uint32_t vector;

    model_vcpu_name(who, sizeof(who), ev->domvcpu);
    fprintf(s->o.csv, "%s,", csv_seconds(t, s, ev->start));
    switch ( s->o.kind )
    {
    case SCATTER_EXITS:
        exit_name(s, exit_key(ev), name, sizeof(name));
        fprintf(s->o.csv, "%s,%" PRIu32 ",%s,%s,0x%" PRIx64 ",", who,
                ev->pcpu, name, csv_us(t, s, v), ev->u.exit.rip);
        if ( model_exit_vector(ev, &vector) )
            fprintf(s->o.csv, "0x%02" PRIx32, vector);
        fputc('\n', s->o.csv);
        break;
    case SCATTER_WAITS:
        fprintf(s->o.csv, "%s,%" PRIu32 ",%s,%s\n", who, ev->pcpu,
                ev->u.runstate.cause == MODEL_CAUSE_WOKEN ? "woken" :
                ev->u.runstate.cause == MODEL_CAUSE_PREEMPTED ? "preempted"
                                                               : "other",
                csv_us(t, s, v));
        break;
    case SCATTER_TO_HALT:
        fprintf(s->o.csv, "%s,%" PRIu32 ",%d,%s\n", who,
                ev->u.to_halt.vector, ev->u.to_halt.wake, csv_us(t, s, v));
        break;
    case SCATTER_IRQ:
        fprintf(s->o.csv, "%" PRIu32 ",%" PRIu64 "\n", ev->pcpu, v);
        break;
    default:
        break;
    }
}

/*
 * A point kind's event: its series and value, if it is one of the
 * points (the summary's rule for each: whole where it ends, of a known
 * vCPU).
 */
static bool point_of(struct scatter *s, const struct model_event *ev,
                     unsigned int *k, uint64_t *v)
{
    switch ( s->o.kind )
    {
    case SCATTER_EXITS:
        if ( ev->type != MODEL_EV_EXIT || ev->goes_on ||
             ev->domvcpu == MODEL_VCPU_NONE )
            return false;
        *k = series_of(s, exit_key(ev), exit_name);
        *v = model_exit_in_xen(ev);
        return true;
    case SCATTER_WAITS:
        if ( !model_is_wait(ev) || ev->domvcpu == MODEL_VCPU_NONE ||
             ev->domvcpu >> 16 == MODEL_DOMID_IDLE )
            return false;
        *k = series_of(s, ev->domvcpu >> 16, domain_name);
        *v = ev->end - ev->began;
        return true;
    case SCATTER_TO_HALT:
        if ( ev->type != MODEL_EV_TO_HALT || ev->goes_on ||
             ev->domvcpu == MODEL_VCPU_NONE )
            return false;
        *k = series_of(s, ev->domvcpu >> 16, domain_name);
        *v = ev->end - ev->began;
        return true;
    case SCATTER_IRQ:
        if ( ev->type != MODEL_EV_IRQ || ev->pcpu == MODEL_CPU_NONE ||
             ev->u.irq.irq == UINT32_MAX )
            return false;
        *k = series_of(s, ev->pcpu, cpu_name);
        *v = ev->u.irq.irq;
        return true;
    default:
        return false;
    }
}

/* A lane kind's event: its lane, series and interval. */
static void take_lane(struct scatter *s, const struct model_event *ev)
{
    char who[MODEL_NAME_MAX], from[CSV_TIME_MAX], to[CSV_TIME_MAX];
    uint32_t lane;
    unsigned int k;

    if ( s->o.kind == SCATTER_RUNSTATE )
    {
        if ( ev->type != MODEL_EV_RUNSTATE || ev->domvcpu == MODEL_VCPU_NONE )
            return;
        lane = ev->domvcpu;
        k = ev->u.runstate.state;
    }
    else if ( ev->type == MODEL_EV_RUNSTATE &&
              ev->u.runstate.state == MODEL_RUNNING &&
              ev->pcpu != MODEL_CPU_NONE )
    {
        lane = ev->pcpu;
        k = series_of(s, ev->domvcpu >> 16, domain_name);
    }
    else if ( ev->type == MODEL_EV_LOST && ev->pcpu != MODEL_CPU_NONE )
    {
        lane = ev->pcpu;
        k = series_of(s, KEY_LOST, domain_name);
    }
    else
        return;
    lane_interval(s, lane, k, ev->start, ev->end);
    if ( !s->o.csv || ev->end <= ev->start )
        return;
    fprintf(s->o.csv, "%s,%s,", csv_seconds(from, s, ev->start),
            csv_seconds(to, s, ev->end));
    if ( s->o.kind == SCATTER_RUNSTATE )
        fprintf(s->o.csv, "%s,%s\n",
                model_vcpu_name(who, sizeof(who), lane),
                model_state_name(k));
    else
        fprintf(s->o.csv, "%" PRIu32 ",%s\n", lane,
                ev->type == MODEL_EV_LOST ? "lost"
                : model_vcpu_name(who, sizeof(who), ev->domvcpu));
}

void scatter_event(void *arg, const struct model_event *ev)
{
    struct scatter *s = arg;
    unsigned int k;
    uint64_t v;

    if ( ev->type == MODEL_EV_LOST && !ev->goes_on && !s->kind->lanes &&
         ev->pcpu != MODEL_CPU_NONE )
        s->lost[time_bin(s, ev->end)] += ev->u.lost.count;
    if ( s->kind->lanes )
        take_lane(s, ev);
    else if ( point_of(s, ev, &k, &v) )
    {
        point(s, k, ev->start, v);
        if ( s->o.csv )
            csv_point(s, ev, v);
    }
}

struct scatter *scatter_new(const struct scatter_options *o)
{
    struct scatter *s = calloc(1, sizeof(*s));
    unsigned int k;

    if ( !s )
        return NULL;
    s->o = *o;
    s->kind = &kinds[o->kind];
    s->bins.max = o->bins ? o->bins : 1;
    snprintf(s->series[OTHER].name, sizeof(s->series[OTHER].name), "other");
    if ( !(s->lost = calloc(s->bins.max, sizeof(uint64_t))) )
    {
        free(s);
        return NULL;
    }
    /* The runstate lanes' series are the states, in their order. */
    for ( k = 0; o->kind == SCATTER_RUNSTATE && k < MODEL_STATES; k++ )
    {
        s->series[k].key = k;
        snprintf(s->series[k].name, sizeof(s->series[k].name), "%s",
                 model_state_name(k));
        s->nr_series++;
    }
    if ( o->csv )
        fprintf(o->csv, "%s\n", s->kind->csv_header);
    return s;
}

bool scatter_failed(const struct scatter *s)
{
    return s->failed;
}

void scatter_free(struct scatter *s)
{
    unsigned int k;

    if ( !s )
        return;
    for ( k = 0; k < NR_SERIES; k++ )
        free(s->series[k].cells);
    for ( k = 0; k < s->nr_lanes; k++ )
        free(s->lanes[k].cells);
    free(s->lanes);
    hashtab_free(&s->lane_of);
    free(s->lost);
    free(s);
}

/*
 * The picture
 */

#define PANELS          6       /* point kinds: a plot area a series */
#define PANEL_HEIGHT    110     /* px */
#define PANEL_GAP       14

/* The x axis: the bins' seconds, from the origin if it is before them. */
static void time_axis(const struct scatter *s, struct svg_axis *x)
{
    uint64_t start, end, last;

    timebins_bounds(&s->bins, 0, &start, &end);
    timebins_bounds(&s->bins, s->bins.nr ? s->bins.nr - 1 : 0, &last, &end);
    *x = (struct svg_axis){
        .lo = seconds(s, start) < 0 ? seconds(s, start) : 0,
        .hi = seconds(s, end), .unit = SVG_PLAIN, .label = "time (s)",
    };
}

/* Series indices, most counted first, OTHER last if it has any. */
static unsigned int series_order(const struct scatter *s,
                                 unsigned int order[NR_SERIES])
{
    unsigned int n = 0, i, j;

    for ( i = 0; i < s->nr_series; i++ )
    {
        for ( j = n; j > 0 && s->series[order[j - 1]].count <
                              s->series[i].count; j-- )
            order[j] = order[j - 1];
        order[j] = i;
        n++;
    }
    if ( s->series[OTHER].count )
        order[n++] = OTHER;
    return n;
}

/* A band over each time bin whose records some pCPU lost. */
static void lost_bands(const struct scatter *s, const struct svg_plot *p)
{
    unsigned int b;

    fprintf(p->f, "<g class=\"losses\" fill=\"red\" fill-opacity=\"0.2\">\n");
    for ( b = 0; b < s->bins.nr; b++ )
    {
        uint64_t start, end;
        double x0, x1;

        if ( !s->lost[b] )
            continue;
        timebins_bounds(&s->bins, b, &start, &end);
        x0 = svg_x(p, seconds(s, start));
        x1 = svg_x(p, seconds(s, end));
        fprintf(p->f, "<rect class=\"lost\" data-records=\"%" PRIu64 "\" "
                "x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>"
                "%" PRIu64 " records lost</title></rect>\n", s->lost[b], x0,
                p->top, x1 - x0 > 1 ? x1 - x0 : 1, p->height, s->lost[b]);
    }
    fprintf(p->f, "</g>\n");
}

/* The y axis of a point kind: the bins with points, to whole decades. */
static void value_axis(const struct scatter *s, struct svg_axis *y)
{
    if ( s->o.kind == SCATTER_IRQ )
    {
        *y = (struct svg_axis){
            .lo = 0, .hi = s->any_point ? s->y_hi + 1 : 256,
            .unit = SVG_PLAIN,
        };
        return;
    }
    /* In microseconds; a value of 0 ticks sits at the bottom. */
    *y = (struct svg_axis){
        .lo = us(s, 1) * (s->y_lo ? bin_value(s, s->y_lo) : 0.5),
        .hi = us(s, 1) * bin_value(s, s->any_point ? s->y_hi + 1 : 1),
        .unit = SVG_MICROSECONDS, .log = true,
    };
    y->lo = pow(10, floor(log10(y->lo)));
    y->hi = pow(10, ceil(log10(y->hi)));
}

/* Where value bin @b's bottom (its lowest value) falls. */
static double value_y(const struct scatter *s, const struct svg_plot *p,
                      unsigned int b)
{
    return svg_y(p, p->y.log ? us(s, 1) * bin_value(s, b) : bin_value(s, b));
}

/*
 * The cells of the series @ks[0..n) together, in one plot area: each a
 * rectangle of the points in it, shaded by their count.
 */
static void panel_cells(const struct scatter *s, const struct svg_plot *p,
                        const unsigned int *ks, unsigned int n)
{
    uint64_t max = 1;
    unsigned int b, y, i;
    double log_max;

    for ( b = 0; b < s->bins.nr; b++ )
        for ( y = s->y_lo; y <= s->y_hi; y++ )
        {
            uint64_t c = 0;

            for ( i = 0; i < n; i++ )
                c += s->series[ks[i]].cells[(size_t)b * Y_BINS + y];
            max = c > max ? c : max;
        }
    log_max = log((double)max + 1);
    for ( b = 0; b < s->bins.nr; b++ )
    {
        uint64_t start, end;
        double x0, x1;

        timebins_bounds(&s->bins, b, &start, &end);
        x0 = svg_x(p, seconds(s, start));
        x1 = svg_x(p, seconds(s, end));
        for ( y = s->y_lo; y <= s->y_hi; y++ )
        {
            double y0 = value_y(s, p, y + 1), y1 = value_y(s, p, y);
            uint64_t c = 0;

            for ( i = 0; i < n; i++ )
                c += s->series[ks[i]].cells[(size_t)b * Y_BINS + y];
            if ( !c )
                continue;
            fprintf(p->f, "<rect data-count=\"%" PRIu64 "\" x=\"%.1f\" "
                    "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "fill-opacity=\"%.2f\"/>\n", c, x0, y0,
                    x1 - x0 > 1 ? x1 - x0 : 1, y1 - y0 > 1.5 ? y1 - y0 : 1.5,
                    0.3 + 0.7 * log((double)c + 1) / log_max);
        }
    }
}

/*
 * Plot area @i of a point kind: the series @ks[0..n) (one, or the rest
 * as "other"), named inside its top left corner with its points.
 */
static void panel(const struct scatter *s, struct svg_plot *p,
                  unsigned int i, const unsigned int *ks, unsigned int n,
                  bool last)
{
    const char *name = n == 1 ? s->series[ks[0]].name : "other";
    uint64_t points = 0;
    char colour[32];
    unsigned int k;

    for ( k = 0; k < n; k++ )
        points += s->series[ks[k]].count;
    p->top = SVG_TOP + i * (PANEL_HEIGHT + PANEL_GAP);
    p->height = PANEL_HEIGHT;
    svg_frame(p, last);
    lost_bands(s, p);
    fprintf(p->f, "<g class=\"series\" data-series=\"");
    svg_text(p->f, name);
    fprintf(p->f, "\" data-points=\"%" PRIu64 "\" fill=\"%s\">\n", points,
            n == 1 ? svg_colour(i, colour, sizeof(colour)) : GREY);
    panel_cells(s, p, ks, n);
    fprintf(p->f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"black\">",
            p->left + 6, p->top + 14);
    svg_text(p->f, name);
    fprintf(p->f, ": %" PRIu64 "</text>\n</g>\n", points);
}

/*
 * A point kind: a plot area per series, most points first, on one time
 * axis and one value axis, the series past PANELS - 1 together in the
 * last.
 */
static void points_svg(FILE *f, const struct scatter *s, struct svg_plot *p,
                       const char *title)
{
    unsigned int order[NR_SERIES], n = series_order(s, order), i;
    unsigned int panels = n > PANELS ? PANELS : n ? n : 1;

    value_axis(s, &p->y);
    svg_begin(f, SVG_TOP + panels * PANEL_HEIGHT + (panels - 1) * PANEL_GAP +
                 SVG_BOTTOM);
    svg_title(f, title);
    svg_area(p, f, SVG_HEIGHT, false);
    if ( !n )
    {
        p->height = PANEL_HEIGHT;
        svg_frame(p, true);
        return;
    }
    for ( i = 0; i < panels; i++ )
    {
        bool rest = i == PANELS - 1 && n > PANELS;

        p->y.label = i == (panels - 1) / 2 ? s->kind->y_label : NULL;
        panel(s, p, i, &order[i], rest ? n - i : 1, i == panels - 1);
    }
}

/* The lanes drawn: the busiest, in the order of their number. */
static int by_running(const void *pa, const void *pb)
{
    const struct lane *x = *(const struct lane *const *)pa;
    const struct lane *y = *(const struct lane *const *)pb;

    if ( x->running != y->running )
        return x->running < y->running ? 1 : -1;
    return x->who < y->who ? -1 : x->who > y->who;
}

static int by_who(const void *pa, const void *pb)
{
    const struct lane *x = *(const struct lane *const *)pa;
    const struct lane *y = *(const struct lane *const *)pb;

    return x->who < y->who ? -1 : x->who > y->who;
}

/* The lanes to draw into @drawn, of *@lanes that could be (not idle's). */
static unsigned int lanes_drawn(const struct scatter *s,
                                const struct lane **drawn,
                                unsigned int *lanes)
{
    unsigned int i, n = 0;

    for ( i = 0; i < s->nr_lanes; i++ )
        if ( s->o.kind == SCATTER_PCPU ||
             s->lanes[i].who >> 16 != MODEL_DOMID_IDLE )
            drawn[n++] = &s->lanes[i];
    qsort(drawn, n, sizeof(*drawn),
          s->o.kind == SCATTER_PCPU ? by_who : by_running);
    *lanes = n;
    if ( n > LANES_DRAWN )
        n = LANES_DRAWN;
    qsort(drawn, n, sizeof(*drawn), by_who);
    return n;
}

/* The series that filled most of lane @l's bin @b, or -1 if none. */
static int filled_most(const struct lane *l, unsigned int b)
{
    const uint64_t *c = &l->cells[(size_t)b * NR_SERIES];
    int best = -1;
    unsigned int k;

    for ( k = 0; k < NR_SERIES; k++ )
        if ( c[k] && (best < 0 || c[k] > c[best]) )
            best = k;
    return best;
}

/* Lane @l as row @row: a rectangle per run of bins of one series. */
static void lane_row(const struct scatter *s, const struct svg_plot *p,
                     const struct lane *l, unsigned int row, double height,
                     const char *const *colour_of)
{
    char name[MODEL_NAME_MAX];
    double top = p->top + row * height;
    unsigned int b, run;

    if ( s->o.kind == SCATTER_RUNSTATE )
        model_vcpu_name(name, sizeof(name), l->who);
    else
        snprintf(name, sizeof(name), "cpu%" PRIu32, l->who);
    fprintf(p->f, "<g class=\"lane\" data-lane=\"%s\"><text x=\"%d\" "
            "y=\"%.1f\" text-anchor=\"end\" font-size=\"%d\">%s</text>\n",
            name, p->left - 6, top + height / 2 + 4, height < 12 ? 9 : 12,
            name);
    for ( b = 0; b < s->bins.nr; b = run )
    {
        int k = filled_most(l, b);
        uint64_t start, end, last;
        double x0, x1;

        for ( run = b + 1; run < s->bins.nr && filled_most(l, run) == k;
              run++ )
            ;
        if ( k < 0 )
            continue;
        timebins_bounds(&s->bins, b, &start, &end);
        timebins_bounds(&s->bins, run - 1, &last, &end);
        x0 = svg_x(p, seconds(s, start));
        x1 = svg_x(p, seconds(s, end));
        fprintf(p->f, "<rect data-series=\"");
        svg_text(p->f, s->series[k].name);
        fprintf(p->f, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"%.1f\" fill=\"%s\"/>\n", x0, top + 1, x1 - x0,
                height - 2, colour_of[k]);
    }
    fprintf(p->f, "</g>\n");
}

/* A lane series' colour: a state's own, idle's and lost's, or the rank's. */
static const char *lane_colour(const struct scatter *s, unsigned int k,
                               unsigned int rank, char *buf, size_t size)
{
    if ( s->o.kind == SCATTER_RUNSTATE )
        return state_colours[k];
    if ( s->series[k].key == MODEL_DOMID_IDLE )
        return state_colours[MODEL_UNKNOWN];
    if ( s->series[k].key == KEY_LOST )
        return state_colours[MODEL_LOST];
    if ( k == OTHER )
        return GREY;
    return svg_colour(rank, buf, size);
}

static void lanes_svg(FILE *f, const struct scatter *s, struct svg_plot *p,
                      const char *title)
{
    const struct lane **drawn = calloc(s->nr_lanes + 1, sizeof(*drawn));
    const char *colour_of[NR_SERIES], *names[NR_SERIES], *colours[NR_SERIES];
    char bufs[NR_SERIES][32];
    unsigned int order[NR_SERIES], n = series_order(s, order), i, rows;
    unsigned int lanes = 0;
    double height;

    svg_begin(f, SVG_HEIGHT);
    svg_title(f, title);
    svg_area(p, f, SVG_HEIGHT, true);
    p->y = (struct svg_axis){ .lo = 0, .hi = 1, .unit = SVG_ROWS,
                              .label = s->kind->y_label };
    svg_frame(p, true);
    for ( i = 0; i < n; i++ )
    {
        colour_of[order[i]] = lane_colour(s, order[i], i, bufs[i],
                                          sizeof(bufs[i]));
        names[i] = s->series[order[i]].name;
        colours[i] = colour_of[order[i]];
    }
    rows = drawn ? lanes_drawn(s, drawn, &lanes) : 0;
    height = (double)p->height / (rows ? rows : 1);
    for ( i = 0; i < rows; i++ )
        lane_row(s, p, drawn[i], i, height, colour_of);
    svg_legend(p, names, colours, n);
    /* Under the legend: which lanes, if not all. */
    if ( rows < lanes )
        fprintf(f, "<g class=\"note\" font-size=\"11\"><text x=\"%d\" "
                "y=\"%d\">%u of %u %s</text><text x=\"%d\" y=\"%d\">"
                "(--csv has them all)</text></g>\n",
                p->left + p->width + 14, p->top + p->height - 16, rows,
                lanes, s->o.kind == SCATTER_PCPU ? "pCPUs" : "vCPUs",
                p->left + p->width + 14, p->top + p->height);
    free(drawn);
}

void scatter_svg(FILE *f, const struct scatter *s, const char *title)
{
    struct svg_plot p = { 0 };
    char full[512];

    time_axis(s, &p.x);
    snprintf(full, sizeof(full), "%s: %s", title, s->kind->title);
    if ( s->kind->lanes )
        lanes_svg(f, s, &p, full);
    else
        points_svg(f, s, &p, full);
    svg_end(f);
}
