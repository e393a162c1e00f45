/*
 * xentrace_format: print a trace read from standard input with the rules
 * of a formats file, as Xen 4.17's Python xentrace_format does.
 *
 *   xentrace_format [-h] [-c MHz] [-H hz] formats-file [trace]
 *
 * Upstream's semantics, kept exactly (docs/man/xentrace_format.1):
 *   - the records come in the order of the file, without reordering;
 *   - the CPU is that of each TRC_TRACE_CPU_CHANGE record's batch;
 *   - every record, CPU-change and padding records included, is printed
 *     with the rule of its event, or rule 0 if it has none, or not at all;
 *   - a record without a TSC has tsc 0; reltsc is the TSC minus the
 *     previous TSC of the CPU, or 0;
 *   - "TSC stepped backward" lines, the TRC_TRACE_IRQ counters (shared by
 *     all vectors, as upstream's list of one dictionary makes them), and
 *     the hypercall argument bits masked off the first word.
 * A rule is Python %-formatting with the keys cpu, tsc, reltsc, event and
 * 1 to 7; rules are checked when the file is read, not when used.
 *
 * Unlike upstream, the trace is read through libxentrace's reader, as
 * every other reader reads it: input that is not a trace, of the other
 * byte order, gzip, or damaged is told as it is (cli_open()).
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"
#include "tsc.h"
#include "xtread.h"

#define MAX_WIDTH_DIGITS    3

/*
 * The values a rule can name: %(cpu), %(tsc), ..., %(1) to %(7), and
 * %(i1) to %(i7), the words as signed numbers (xentrace-ng's, for the
 * catalogue's i32 fields; upstream's tool has no such keys).
 */
enum key { K_CPU, K_TSC, K_RELTSC, K_EVENT, K_D1, K_I1 = K_D1 + 7,
           NR_KEYS = K_I1 + 7 };

/* A piece of a rule: literal text, then at most one conversion. */
struct piece {
    char *text;                 /* printed as is */
    bool has_conv;
    enum key key;
    char spec[32];              /* the printf conversion, e.g. "%08llx" */
    char conv;                  /* Python's: d i u x X o e E f F g G s r c */
};

struct rule {
    unsigned long long id;
    struct piece *pieces;
    unsigned int nr_pieces;
};

struct rules {
    struct rule *r;
    size_t n;
};

/* A value: an integer, or with -c the TSC as seconds. */
struct value {
    bool is_float;
    __int128 i;
    double f;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void oom(void)
{
    errx(CLI_EXIT_ERROR, "out of memory");
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if ( !p )
        oom();
    return p;
}

static bool key_of(const char *name, size_t len, enum key *k)
{
    static const char *const names[] = { "cpu", "tsc", "reltsc", "event" };
    unsigned int i;

    for ( i = 0; i < 4; i++ )
        if ( strlen(names[i]) == len && !memcmp(names[i], name, len) )
        {
            *k = i;
            return true;
        }
    if ( len == 1 && name[0] >= '1' && name[0] <= '7' )
    {
        *k = K_D1 + name[0] - '1';
        return true;
    }
    if ( len == 2 && name[0] == 'i' && name[1] >= '1' && name[1] <= '7' )
    {
        *k = K_I1 + name[1] - '1';
        return true;
    }
    return false;
}

/*
 * Parse one conversion at @s (after the '%'): "(key)flags width.prec
 * [hlL]conv".  Returns the end, or NULL with @why set.
 */
static const char *parse_conv(const char *s, struct piece *pc,
                              const char **why)
{
    const char *name, *start;
    size_t n, width, precision = 0;
    char *q = pc->spec;

    if ( *s != '(' )
    {
        *why = "conversion without a (key)";
        return NULL;
    }
    name = ++s;
    while ( *s && *s != ')' )
        s++;
    if ( !*s || !key_of(name, s - name, &pc->key) )
    {
        *why = "unknown key";
        return NULL;
    }
    start = ++s;
    s += strspn(s, "-+ #0");
    width = strspn(s, "0123456789");
    s += width;
    if ( *s == '.' )
    {
        s++;
        precision = strspn(s, "0123456789");
        s += precision;
    }
    n = s - start;
    s += strspn(s, "hlL");
    if ( !*s || !strchr("diuxXoeEfFgGsrc", *s) || n > 20 )
    {
        *why = "bad conversion";
        return NULL;
    }
    /* A width of 10^9 would print a gigabyte per record. */
    if ( width > MAX_WIDTH_DIGITS || precision > MAX_WIDTH_DIGITS )
    {
        *why = "width or precision over 999";
        return NULL;
    }
    *q++ = '%';
    memcpy(q, start, n);
    q += n;
    *q = '\0';
    pc->conv = *s;
    pc->has_conv = true;
    return s + 1;
}

static void free_rule(struct rule *rule)
{
    unsigned int i;

    for ( i = 0; i < rule->nr_pieces; i++ )
        free(rule->pieces[i].text);
    free(rule->pieces);
}

/* Cut @text into pieces; false with @why on a bad conversion. */
static bool compile_rule(const char *text, struct rule *rule,
                         const char **why)
{
    size_t cap = 0, len = strlen(text);
    char *lit = xmalloc(len + 1);
    size_t lit_len = 0;
    const char *s = text;

    rule->pieces = NULL;
    rule->nr_pieces = 0;
    for ( ;; )
    {
        struct piece *pc;

        while ( *s && !(*s == '%' && s[1] != '%') )
        {
            lit[lit_len++] = *s;
            s += *s == '%' ? 2 : 1;     /* "%%" is a '%' */
        }
        if ( array_fit(&rule->pieces, &cap, rule->nr_pieces + 1,
                       sizeof(*rule->pieces)) )
            oom();
        pc = &rule->pieces[rule->nr_pieces++];      /* zeroed */
        lit[lit_len] = '\0';
        pc->text = strdup(lit);
        if ( !pc->text )
            oom();
        lit_len = 0;
        if ( !*s )
            break;
        s = parse_conv(s + 1, pc, why);
        if ( !s )
        {
            free(lit);
            free_rule(rule);
            return false;
        }
    }
    free(lit);
    return true;
}

static int cmp_rule(const void *a, const void *b)
{
    unsigned long long x = ((const struct rule *)a)->id;
    unsigned long long y = ((const struct rule *)b)->id;

    return x < y ? -1 : x > y;
}

static void free_rules(struct rules *rules)
{
    size_t i;

    for ( i = 0; i < rules->n; i++ )
        free_rule(&rules->r[i]);
    free(rules->r);
    *rules = (struct rules){ NULL, 0 };
}

/*
 * Upstream: lines starting with '#' and empty lines are skipped; every
 * other line is "ID<white>RULE", else "Bad format file".  A later line for
 * the same ID wins.  False, with one line said, on a bad line.
 */
static bool read_rules(FILE *f, const char *path, struct rules *rules)
{
    char *line = NULL;
    size_t cap = 0, nr_cap = 0, lineno = 0;
    ssize_t len;
    bool ok = true;

    while ( (len = getline(&line, &cap, f)) >= 0 )
    {
        struct rule rule;
        char *end, *text;
        const char *why = "expected \"event-id rule\"";
        size_t i;

        lineno++;
        if ( line[0] == '#' || line[0] == '\n' )
            continue;
        if ( len > 0 && line[len - 1] == '\n' )
            line[--len] = '\0';
        errno = 0;
        rule.id = strtoull(line, &end, 0);
        text = end + strspn(end, " \t\v\f\r");
        if ( errno || end == line || text == end || !*text ||
             !compile_rule(text, &rule, &why) )
        {
            warnx("%s:%zu: Bad format file: %s", path, lineno, why);
            ok = false;
            break;
        }
        for ( i = 0; i < rules->n && rules->r[i].id != rule.id; i++ )
            ;
        if ( i == rules->n )
        {
            if ( array_fit(&rules->r, &nr_cap, rules->n + 1,
                           sizeof(*rules->r)) )
                oom();
            rules->n++;
        }
        else
            free_rule(&rules->r[i]);
        rules->r[i] = rule;
    }
    free(line);
    if ( ok && ferror(f) )
    {
        warn("%s", path);
        ok = false;
    }
    if ( !ok )
        free_rules(rules);
    else if ( rules->n )
        qsort(rules->r, rules->n, sizeof(*rules->r), cmp_rule);
    return ok;
}

static const struct rule *find_rule(const struct rules *rules,
                                    unsigned long long id)
{
    struct rule key = { .id = id };

    /* An empty formats file has no table to search (NULL). */
    if ( !rules->n )
        return NULL;
    return bsearch(&key, rules->r, rules->n, sizeof(*rules->r), cmp_rule);
}

/* Python's str() of a float: the shortest repr that reads back. */
static void put_float_str(FILE *out, const struct piece *pc, double v)
{
    char buf[64], spec[40];
    int prec;

    for ( prec = 1; prec < 17; prec++ )
    {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if ( strtod(buf, NULL) == v )
            break;
    }
    snprintf(buf, sizeof(buf), "%.*g", prec, v);
    if ( !strpbrk(buf, ".en") )
        strcat(buf, ".0");
    snprintf(spec, sizeof(spec), "%ss", pc->spec);
    fprintf(out, spec, buf);
}

static void put_int(FILE *out, const struct piece *pc, __int128 v)
{
    char spec[40], digits[48];
    char conv = pc->conv == 'i' || pc->conv == 'u' ? 'd' : pc->conv;
    unsigned long long mag;

    if ( v >= 0 && v <= INT64_MAX )
    {
        snprintf(spec, sizeof(spec), "%sll%c", pc->spec, conv);
        fprintf(out, spec, (long long)v);
        return;
    }
    if ( v > 0 )
    {
        snprintf(spec, sizeof(spec), "%sll%c", pc->spec,
                 conv == 'd' ? 'u' : conv);
        fprintf(out, spec, (unsigned long long)v);
        return;
    }
    /* Negative (a reltsc gone back): Python prints '%x' % -31 as "-1f". */
    mag = -v > (__int128)UINT64_MAX ? UINT64_MAX : (unsigned long long)-v;
    snprintf(spec, sizeof(spec), "-%%ll%c", conv == 'd' ? 'u' : conv);
    snprintf(digits, sizeof(digits), spec, mag);
    snprintf(spec, sizeof(spec), "%%%s%ss", strchr(pc->spec, '-') ? "-" : "",
             pc->spec + strspn(pc->spec, "%-+ #0"));
    fprintf(out, spec, digits);
}

/*
 * @v as an integer: Python 2 truncates a float for %d.  The only float is
 * a TSC in seconds, below 2^64: it fits.
 */
static __int128 value_int(const struct value *v)
{
    return v->is_float ? (__int128)trunc(v->f) : v->i;
}

static void put_value(FILE *out, const struct piece *pc,
                      const struct value *v)
{
    char spec[40];

    switch ( pc->conv )
    {
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
        snprintf(spec, sizeof(spec), "%s%c", pc->spec, pc->conv);
        fprintf(out, spec, v->is_float ? v->f : (double)v->i);
        return;
    case 'c':
        snprintf(spec, sizeof(spec), "%sc", pc->spec);
        fprintf(out, spec, (int)(unsigned char)value_int(v));
        return;
    case 's': case 'r':
        if ( v->is_float )
        {
            put_float_str(out, pc, v->f);
            return;
        }
        {
            struct piece dec = *pc;

            dec.conv = 'd';
            put_int(out, &dec, v->i);
        }
        return;
    default:
        put_int(out, pc, value_int(v));
    }
}

static void print_rule(FILE *out, const struct rule *rule,
                       const struct value vals[NR_KEYS])
{
    unsigned int i;

    for ( i = 0; i < rule->nr_pieces; i++ )
    {
        const struct piece *pc = &rule->pieces[i];

        fputs(pc->text, out);
        if ( pc->has_conv )
            put_value(out, pc, &vals[pc->key]);
    }
    fputc('\n', out);
}

/* What upstream keeps of a CPU. */
struct cpu_state {
    uint64_t last_tsc;
    bool seen;                  /* the CPU has had a record */
};

struct state {
    struct xt_reader *r;
    struct cpu_state *cpus;     /* by xt_record.cpu_index, grown as they come */
    size_t cpus_cap;
    uint64_t irq_count, irq_total, irq_max;     /* TRC_TRACE_IRQ */
};

/* The state of CPU @index (a stream learns its CPUs as it reads). */
static struct cpu_state *cpu_state(struct state *st, unsigned int index)
{
    if ( array_fit(&st->cpus, &st->cpus_cap, (size_t)index + 1,
                   sizeof(*st->cpus)) )
        oom();
    return &st->cpus[index];
}

/*
 * One record: false to stop (upstream's TRC_TRACE_IRQ with tsc_out <
 * tsc_in).  A record without a TSC has tsc 0, as upstream's; with @hz,
 * tsc is in seconds.
 */
static bool format_record(FILE *out, const struct rules *rules,
                          struct state *st, const struct xt_record *rec,
                          uint64_t hz)
{
    uint32_t event = rec->event, d[7];
    uint64_t tsc = rec->has_tsc ? rec->tsc : 0;
    struct value vals[NR_KEYS] = { 0 };
    const struct rule *rule;
    struct cpu_state *c = cpu_state(st, rec->cpu_index);
    uint64_t *last = &c->last_tsc;
    bool new_cpu = !c->seen;
    unsigned int i;

    memcpy(d, rec->extra, sizeof(d));
    if ( event == TRC_TRACE_IRQ )
    {
        if ( d[2] < d[1] )
            return false;
        st->irq_count++;
        st->irq_total += d[2] - d[1];
        if ( d[2] - d[1] > st->irq_max )
            st->irq_max = d[2] - d[1];
        d[1] = st->irq_count;
        d[2] = st->irq_total;
        d[3] = st->irq_max;
    }
    if ( event == TRC_PV_HYPERCALL_V2 || event == TRC_PV_HYPERCALL_SUBCALL )
        d[0] &= ~TRC_PV_HYPERCALL_V2_ARG_MASK;

    c->seen = true;
    if ( !new_cpu && rec->has_tsc && tsc < *last )
        fprintf(out, "TSC stepped backward cpu %u !  %" PRIu64 " %" PRIu64
                "\n", rec->cpu, tsc, *last);
    vals[K_RELTSC].i = *last > 0 && rec->has_tsc ? (__int128)tsc - *last : 0;
    if ( rec->has_tsc )
        *last = tsc;

    vals[K_CPU].i = rec->cpu;
    vals[K_EVENT].i = event;
    if ( hz )
    {
        vals[K_TSC].is_float = true;
        vals[K_TSC].f = tsc_seconds(tsc, hz);
    }
    else
        vals[K_TSC].i = tsc;
    for ( i = 0; i < 7; i++ )
    {
        vals[K_D1 + i].i = d[i];
        vals[K_I1 + i].i = (int32_t)d[i];
    }

    rule = find_rule(rules, event);
    if ( !rule )
        rule = find_rule(rules, 0);
    if ( rule )
        print_rule(out, rule, vals);
    return true;
}

/* Every record of @st->r, until a signal; false on ENOMEM. */
static bool format_trace(FILE *out, const struct rules *rules,
                         struct state *st, uint64_t hz)
{
    struct xt_iter *it = xt_iter_new(st->r, XT_ORDER_FILE, 0,
                                     XT_ITER_SPECIAL);
    struct xt_record rec;
    int got = 0;

    if ( !it )
        return false;
    while ( !interrupted && (got = xt_iter_next(it, &rec)) > 0 )
        if ( !format_record(out, rules, st, &rec, hz) )
            break;
    xt_iter_free(it);
    return got >= 0;
}

int main(int argc, char *argv[])
{
    static const struct cli_option options[] = {
        { 'c', "cpu-mhz", "MHz", "print %(tsc) as seconds at MHz (or -H)" },
        { 0, NULL, NULL, NULL },
    };
    struct cli cli = {
        .options = options, .operands = "formats-file [trace]",
        .min_operands = 1, .max_operands = 2,
    };
    struct rules rules = { 0 };
    struct state st = { 0 };
    struct sigaction sa = { .sa_handler = on_signal };
    const char *formats, *path, *why;
    uint64_t mhz_hz = 0;
    FILE *f;
    int ch, status;

    while ( (ch = cli_getopt(&cli, argc, argv)) != -1 )
        if ( ch == 'c' && (why = cli_parse_hz(optarg, 1000000, &mhz_hz)) )
            errx(CLI_EXIT_ERROR, "-c %s: %s", optarg, why);
    formats = argv[optind];
    path = optind + 1 < argc ? argv[optind + 1] : "-";

    if ( !(f = fopen(formats, "r")) )
        err(CLI_EXIT_ERROR, "%s", formats);
    if ( !read_rules(f, formats, &rules) )
        return CLI_EXIT_ERROR;
    fclose(f);
    st.r = cli_open(&cli, path, 0);

    /* As upstream: stop cleanly, output flushed, on these. */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    if ( !format_trace(stdout, &rules, &st, cli.hz ? cli.hz : mhz_hz) )
        oom();
    cli_close_output(stdout, "stdout");
    free_rules(&rules);
    free(st.cpus);
    status = cli_close(st.r, path);
    return interrupted ? CLI_EXIT_OK : status;
}
