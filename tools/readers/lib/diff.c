/*
 * xentrace-summary --diff: two analyses side by side (diff.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "model.h"

enum { BEFORE, AFTER, SIDES };

/* One trace's domains, and which of them the other trace has. */
struct side {
    const struct diff_side *in;
    struct analysis_rows rows;
    double span;                /* in TSC ticks */
    bool *matched;              /* of rows.domains */
};

/* A domain of either trace or both: NULL on the side that lacks it. */
struct pair {
    const struct analysis_row *row[SIDES];
};

/* One key of a table (a reason, hypercall, vector) in either or both. */
struct entry_pair {
    const struct analysis_count *e[SIDES];
    double cost;                /* the larger side's, for the order */
};

static uint32_t domid_of(const struct analysis_row *r)
{
    return analysis_row_domvcpu(r) >> 16;
}

/* Its name if @s's file names domain @r, else NULL. */
static const char *named(const struct side *s, const struct analysis_row *r)
{
    const struct xt_domain_info *d = analysis_domain(s->in->a, domid_of(r));

    return d && d->domain.name[0] ? d->domain.name : NULL;
}

/*
 * The domain of @other that @r of @s is: the one of the same name where
 * both files name them, else (pass 2) the one of the same id where either
 * file names none of the two.  -1 if none unmatched.
 */
static int find_domain(const struct side *s, const struct analysis_row *r,
                       const struct side *other, bool by_name)
{
    const char *name = named(s, r);
    unsigned int i;

    for ( i = 0; i < other->rows.nr_domains; i++ )
    {
        const struct analysis_row *o = other->rows.domains[i];
        const char *oname = named(other, o);

        if ( other->matched[i] )
            continue;
        if ( by_name ? name && oname && !strcmp(name, oname)
                     : (!name || !oname) && domid_of(r) == domid_of(o) )
            return (int)i;
    }
    return -1;
}

/*
 * The domains of both traces, paired: before's in its order (most running
 * first), then those that only after has.  *@n gets how many.
 */
static struct pair *pair_domains(struct side sides[SIDES], unsigned int *n)
{
    struct side *b = &sides[BEFORE], *a = &sides[AFTER];
    struct pair *pairs = calloc(b->rows.nr_domains + a->rows.nr_domains + 1,
                                sizeof(*pairs));
    unsigned int i, pass;

    if ( !pairs )
        return NULL;
    for ( i = 0; i < b->rows.nr_domains; i++ )
        pairs[i].row[BEFORE] = b->rows.domains[i];
    for ( pass = 0; pass < 2; pass++ )
        for ( i = 0; i < b->rows.nr_domains; i++ )
        {
            int k;

            if ( b->matched[i] ||
                 (k = find_domain(b, b->rows.domains[i], a, pass == 0)) < 0 )
                continue;
            b->matched[i] = a->matched[k] = true;
            pairs[i].row[AFTER] = a->rows.domains[k];
        }
    *n = b->rows.nr_domains;
    for ( i = 0; i < a->rows.nr_domains; i++ )
        if ( !a->matched[i] )
            pairs[(*n)++].row[AFTER] = a->rows.domains[i];
    return pairs;
}

/*
 * The change from @v[BEFORE] to @v[AFTER], where @has says which side has
 * the thing measured at all.
 */
static const char *change(char *buf, size_t size, const double v[SIDES],
                          const bool has[SIDES])
{
    if ( !has[BEFORE] )
        return "only after";
    if ( !has[AFTER] )
        return "only before";
    if ( v[BEFORE] == v[AFTER] )
        return "=";
    if ( v[BEFORE] == 0 )
        return "from 0";
    snprintf(buf, size, "%+.1f%%", (v[AFTER] - v[BEFORE]) / v[BEFORE] * 100);
    return buf;
}

/* @v, or "-" where its side lacks the thing. */
static const char *value(char *buf, size_t size, double v, bool has,
                         const char *format)
{
    if ( !has )
        return "-";
    snprintf(buf, size, format, v);
    return buf;
}

/* One figure of a domain, both sides and the change, as @format. */
static void figure(FILE *f, const char *what, const char *format,
                   const double v[SIDES], const bool has[SIDES])
{
    char b[32], a[32], c[32];

    if ( v[BEFORE] == 0 && v[AFTER] == 0 )
        return;
    fprintf(f, "  %-32s %12s %12s %12s\n", what,
            value(b, sizeof(b), v[BEFORE], has[BEFORE], format),
            value(a, sizeof(a), v[AFTER], has[AFTER], format),
            change(c, sizeof(c), v, has));
}

static double us(uint64_t ticks, const struct side *s)
{
    return (double)ticks * 1e6 / (double)s->in->hz;
}

/* A domain's own figures: its vCPUs' time running and waiting, waits. */
static int domain_figures(FILE *f, const struct side sides[SIDES],
                          const struct pair *p)
{
    struct analysis_dist wait[SIDES] = { { 0 } };
    double running[SIDES] = { 0 }, runnable[SIDES] = { 0 };
    double waits[SIDES] = { 0 }, p50[SIDES] = { 0 }, p99[SIDES] = { 0 };
    bool has[SIDES];
    unsigned int i;

    for ( i = 0; i < SIDES; i++ )
    {
        const struct analysis_row *r = p->row[i];

        has[i] = r;
        if ( !r )
            continue;
        if ( analysis_row_wait(r, &wait[i]) )
            return -1;
        running[i] = analysis_row_state(r, MODEL_RUNNING) / sides[i].span;
        runnable[i] = analysis_row_state(r, MODEL_RUNNABLE) / sides[i].span;
        waits[i] = wait[i].count * (double)sides[i].in->hz / sides[i].span;
        p50[i] = us(wait[i].p50, &sides[i]);
        p99[i] = us(wait[i].p99, &sides[i]);
    }
    if ( domid_of(p->row[p->row[BEFORE] ? BEFORE : AFTER]) ==
         MODEL_DOMID_IDLE )
    {
        /* Its vCPUs are the pCPUs: running, they are idle; else busy. */
        figure(f, "pCPUs idle (mean)", "%.4g", running, has);
        return 0;
    }
    figure(f, "vCPUs running (mean)", "%.4g", running, has);
    figure(f, "vCPUs waiting to run (mean)", "%.4g", runnable, has);
    figure(f, "waits to run /s", "%.1f", waits, has);
    figure(f, "wait p50 us", "%.2f", p50, has);
    figure(f, "wait p99 us", "%.2f", p99, has);
    return 0;
}

/* Per second of its trace's span. */
static double rate(uint64_t count, const struct side *s)
{
    return count * (double)s->in->hz / s->span;
}

/* An entry's weight in the order: exits by time in Xen, others by count. */
static double entry_cost(const struct analysis_count *e, const struct side *s,
                         enum analysis_table t)
{
    if ( !e )
        return 0;
    return t == ANALYSIS_EXITS ? analysis_count_in_xen(e) / s->span
                               : rate(e->count, s);
}

static int by_cost(const void *pa, const void *pb)
{
    const struct entry_pair *x = pa, *y = pb;

    return x->cost < y->cost ? 1 : x->cost > y->cost ? -1 : 0;
}

/*
 * The entries of @e[BEFORE] and @e[AFTER] paired by key and name (a
 * domain with PV and HVM vCPUs has an op of each: each is matched to the
 * first of its kind not yet taken), costliest first.
 */
static struct entry_pair *pair_entries(const struct side sides[SIDES],
                                       enum analysis_table t,
                                       struct analysis_count *e[SIDES],
                                       const unsigned int n[SIDES],
                                       unsigned int *nr)
{
    struct entry_pair *pairs = calloc(n[BEFORE] + n[AFTER] + 1,
                                      sizeof(*pairs));
    bool *taken = calloc(n[AFTER] + 1, sizeof(*taken));
    unsigned int i, k;

    if ( !pairs || !taken )
    {
        free(pairs);
        free(taken);
        return NULL;
    }
    for ( i = 0; i < n[BEFORE]; i++ )
    {
        pairs[i].e[BEFORE] = &e[BEFORE][i];
        for ( k = 0; k < n[AFTER]; k++ )
            if ( !taken[k] && e[AFTER][k].key == e[BEFORE][i].key &&
                 !strcmp(e[AFTER][k].name, e[BEFORE][i].name) )
            {
                taken[k] = true;
                pairs[i].e[AFTER] = &e[AFTER][k];
                break;
            }
    }
    *nr = n[BEFORE];
    for ( k = 0; k < n[AFTER]; k++ )
        if ( !taken[k] )
            pairs[(*nr)++].e[AFTER] = &e[AFTER][k];
    free(taken);
    for ( i = 0; i < *nr; i++ )
    {
        double b = entry_cost(pairs[i].e[BEFORE], &sides[BEFORE], t);
        double a = entry_cost(pairs[i].e[AFTER], &sides[AFTER], t);

        pairs[i].cost = b > a ? b : a;
    }
    qsort(pairs, *nr, sizeof(*pairs), by_cost);
    return pairs;
}

/* A table's title: the key's column and what is compared. */
static const char *const table_titles[] = {
    [ANALYSIS_EXITS] = "exit",
    [ANALYSIS_HYPERCALLS] = "hypercall",
    [ANALYSIS_INJECTED] = "injected",
};

static void entry_header(FILE *f, enum analysis_table t)
{
    fprintf(f, "\n  %-24s %10s %10s %12s", table_titles[t], "/s before",
            "after", "change");
    if ( t == ANALYSIS_EXITS )
        fprintf(f, " %10s %8s %12s %10s %8s", "in-Xen us", "after",
                "change", "p99 us", "after");
    fputc('\n', f);
}

/* One key's line: its rate, and an exit's mean and p99 time in Xen. */
static void entry_line(FILE *f, const struct side sides[SIDES],
                       const struct entry_pair *p, enum analysis_table t)
{
    double per_s[SIDES] = { 0 }, mean[SIDES] = { 0 }, p99[SIDES] = { 0 };
    bool has[SIDES];
    char v[4][32], c[2][32];
    unsigned int i;

    for ( i = 0; i < SIDES; i++ )
    {
        const struct analysis_count *e = p->e[i];

        has[i] = e;
        if ( !e )
            continue;
        per_s[i] = rate(e->count, &sides[i]);
        mean[i] = e->count ? us(analysis_count_in_xen(e), &sides[i]) /
                             e->count : 0;
        p99[i] = us(e->p99, &sides[i]);
    }
    fprintf(f, "  %-24s %10s %10s %12s",
            (p->e[BEFORE] ? p->e[BEFORE] : p->e[AFTER])->name,
            value(v[0], sizeof(v[0]), per_s[BEFORE], has[BEFORE], "%.1f"),
            value(v[1], sizeof(v[1]), per_s[AFTER], has[AFTER], "%.1f"),
            change(c[0], sizeof(c[0]), per_s, has));
    if ( t == ANALYSIS_EXITS )
        fprintf(f, " %10s %8s %12s %10s %8s",
                value(v[2], sizeof(v[2]), mean[BEFORE], has[BEFORE], "%.2f"),
                value(v[3], sizeof(v[3]), mean[AFTER], has[AFTER], "%.2f"),
                has[BEFORE] && has[AFTER] ? change(c[1], sizeof(c[1]), mean,
                                                   has) : "",
                value(v[0], sizeof(v[0]), p99[BEFORE], has[BEFORE], "%.2f"),
                value(v[1], sizeof(v[1]), p99[AFTER], has[AFTER], "%.2f"));
    fputc('\n', f);
}

/* Table @t of domain pair @p, up to @top keys (0: all). */
static int table(FILE *f, const struct side sides[SIDES],
                 const struct pair *p, enum analysis_table t,
                 unsigned int top)
{
    struct analysis_count *e[SIDES] = { NULL };
    unsigned int n[SIDES] = { 0 }, nr = 0, i;
    struct entry_pair *pairs = NULL;
    int ret = -1;

    for ( i = 0; i < SIDES; i++ )
    {
        const struct analysis_row *r = p->row[i];
        unsigned int size = r ? analysis_row_table_size(r, t) : 0;

        if ( !(e[i] = calloc(size + 1, sizeof(*e[i]))) )
            goto out;
        if ( r )
            n[i] = analysis_row_table(sides[i].in->a, r, t, e[i], size, NULL);
        if ( n[i] < size )
            goto out;           /* it could not make room */
    }
    if ( !(pairs = pair_entries(sides, t, e, n, &nr)) )
        goto out;
    if ( nr )
        entry_header(f, t);
    for ( i = 0; i < nr && (!top || i < top); i++ )
        entry_line(f, sides, &pairs[i], t);
    if ( i < nr )
        fprintf(f, "  (%u more)\n", nr - i);
    ret = 0;
 out:
    free(pairs);
    free(e[BEFORE]);
    free(e[AFTER]);
    return ret;
}

/* The title of pair @p: its name, or both where they differ. */
static void domain_title(FILE *f, const struct side sides[SIDES],
                         const struct pair *p)
{
    char name[SIDES][MODEL_NAME_MAX];
    unsigned int i;

    for ( i = 0; i < SIDES; i++ )
        if ( p->row[i] )
            analysis_row_name(sides[i].in->a, p->row[i], name[i],
                              sizeof(name[i]));
    if ( !p->row[AFTER] )
        fprintf(f, "\n%s: only before\n", name[BEFORE]);
    else if ( !p->row[BEFORE] )
        fprintf(f, "\n%s: only after\n", name[AFTER]);
    else if ( strcmp(name[BEFORE], name[AFTER]) )
        fprintf(f, "\n%s, after %s\n", name[BEFORE], name[AFTER]);
    else
        fprintf(f, "\n%s\n", name[BEFORE]);
    fprintf(f, "  %-32s %12s %12s %12s\n", "", "before", "after", "change");
}

static int print_pair(FILE *f, const struct side sides[SIDES],
                      const struct pair *p, unsigned int top)
{
    static const enum analysis_table tables[] = {
        ANALYSIS_EXITS, ANALYSIS_HYPERCALLS, ANALYSIS_INJECTED,
    };
    unsigned int i;

    domain_title(f, sides, p);
    if ( domain_figures(f, sides, p) )
        return -1;
    for ( i = 0; i < sizeof(tables) / sizeof(tables[0]); i++ )
        if ( table(f, sides, p, tables[i], top) )
            return -1;
    return 0;
}

static void header(FILE *f, const struct side sides[SIDES])
{
    unsigned int i;

    for ( i = 0; i < SIDES; i++ )
        fprintf(f, "%-7s %s: %.6f s at %.3f MHz%s\n",
                i == BEFORE ? "before" : "after", sides[i].in->name,
                sides[i].span / (double)sides[i].in->hz,
                sides[i].in->hz / 1e6,
                sides[i].in->hz_assumed ? " (assumed)" : "");
    fprintf(f, "(counts per second of each trace; times as the mean number "
            "of vCPUs spending them)\n");
}

int diff_print(FILE *f, const struct diff_side *before,
               const struct diff_side *after, unsigned int top)
{
    struct side sides[SIDES] = { { .in = before }, { .in = after } };
    struct pair *pairs = NULL;
    unsigned int i, n = 0;
    int ret = -1;

    for ( i = 0; i < SIDES; i++ )
    {
        uint64_t span = analysis_span(sides[i].in->a);

        sides[i].span = span ? (double)span : 1;
        if ( analysis_rows(sides[i].in->a, &sides[i].rows) ||
             !(sides[i].matched = calloc(sides[i].rows.nr_domains + 1,
                                         sizeof(bool))) )
            goto out;
    }
    if ( !(pairs = pair_domains(sides, &n)) )
        goto out;
    header(f, sides);
    for ( i = 0; i < n; i++ )
        if ( print_pair(f, sides, &pairs[i], top) )
            goto out;
    ret = 0;
 out:
    free(pairs);
    for ( i = 0; i < SIDES; i++ )
    {
        analysis_rows_free(&sides[i].rows);
        free(sides[i].matched);
    }
    if ( ret )
        errno = ENOMEM;
    return ret;
}
