/*
 * xentrace_format: print a trace read from standard input with the rules
 * of a formats file, as Xen 4.17's Python xentrace_format does.
 *
 *   xentrace_format [-c MHz] FORMATS < trace
 *
 * Upstream's semantics, kept exactly (docs/man/xentrace_format.1):
 *   - the input is read as a flat stream of records, as it arrives (so a
 *     live "xentrace | xentrace_format" works), without reordering;
 *   - the CPU is taken from each TRC_TRACE_CPU_CHANGE record's first word;
 *   - every record, CPU-change and padding records included, is printed
 *     with the rule of its event, or rule 0 if it has none, or not at all;
 *   - a record without a TSC has tsc 0; reltsc is the TSC minus the
 *     previous TSC of the CPU, or 0;
 *   - "TSC stepped backward" lines, the TRC_TRACE_IRQ counters (shared by
 *     all vectors, as upstream's list of one dictionary makes them), and
 *     the hypercall argument bits masked off the first word.
 * A rule is Python %-formatting with the keys cpu, tsc, reltsc, event and
 * 1 to 7; rules are checked when the file is read, not when used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xtfile.h"

/* Upstream's TRC_TRACE_IRQ, which only its formats file names. */
#define TRACE_IRQ           (TRC_GEN + 4)

static const char *prog = "xentrace_format";

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
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(1);
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
    size_t n;
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
    s += strspn(s, "0123456789");
    if ( *s == '.' )
    {
        s++;
        s += strspn(s, "0123456789");
    }
    n = s - start;
    s += strspn(s, "hlL");
    if ( !*s || !strchr("diuxXoeEfFgGsrc", *s) || n > 20 )
    {
        *why = "bad conversion";
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

/* Cut @text into pieces; false with @why on a bad conversion. */
static bool compile_rule(const char *text, struct rule *rule,
                         const char **why)
{
    size_t cap = 8, len = strlen(text);
    char *lit = xmalloc(len + 1);
    size_t lit_len = 0;
    const char *s = text;

    rule->pieces = xmalloc(cap * sizeof(*rule->pieces));
    rule->nr_pieces = 0;
    for ( ;; )
    {
        struct piece *pc;

        while ( *s && !(*s == '%' && s[1] != '%') )
        {
            lit[lit_len++] = *s;
            s += *s == '%' ? 2 : 1;     /* "%%" is a '%' */
        }
        if ( rule->nr_pieces == cap )
        {
            cap *= 2;
            rule->pieces = realloc(rule->pieces, cap * sizeof(*rule->pieces));
            if ( !rule->pieces )
                oom();
        }
        pc = &rule->pieces[rule->nr_pieces++];
        memset(pc, 0, sizeof(*pc));
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
            return false;
        }
    }
    free(lit);
    return true;
}

static void free_rule(struct rule *rule)
{
    unsigned int i;

    for ( i = 0; i < rule->nr_pieces; i++ )
        free(rule->pieces[i].text);
    free(rule->pieces);
}

static int cmp_rule(const void *a, const void *b)
{
    unsigned long long x = ((const struct rule *)a)->id;
    unsigned long long y = ((const struct rule *)b)->id;

    return x < y ? -1 : x > y;
}

/*
 * Upstream: lines starting with '#' and empty lines are skipped; every
 * other line is "ID<white>RULE", else "Bad format file".  A later line for
 * the same ID wins.
 */
static void read_rules(const char *path, struct rules *rules)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, nr_cap = 0, lineno = 0;
    ssize_t len;

    if ( !f )
    {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        exit(1);
    }
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
            fprintf(stderr, "%s: %s:%zu: Bad format file: %s\n", prog, path,
                    lineno, why);
            exit(1);
        }
        for ( i = 0; i < rules->n && rules->r[i].id != rule.id; i++ )
            ;
        if ( i == rules->n )
        {
            if ( rules->n == nr_cap )
            {
                nr_cap = nr_cap ? nr_cap * 2 : 64;
                rules->r = realloc(rules->r, nr_cap * sizeof(*rules->r));
                if ( !rules->r )
                    oom();
            }
            rules->n++;
        }
        else
            free_rule(&rules->r[i]);
        rules->r[i] = rule;
    }
    free(line);
    fclose(f);
    qsort(rules->r, rules->n, sizeof(*rules->r), cmp_rule);
}

static const struct rule *find_rule(const struct rules *rules,
                                    unsigned long long id)
{
    struct rule key = { .id = id };

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
        fprintf(out, spec, (int)(unsigned char)(v->is_float ? v->f : v->i));
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
        /* Python 2 truncates a float for %d. */
        put_int(out, pc, v->is_float ? (__int128)trunc(v->f) : v->i);
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

/* Read exactly @len bytes; false at the end of the input or on a signal. */
static bool read_all(void *buf, size_t len, size_t *got)
{
    *got = 0;
    while ( *got < len && !interrupted )
    {
        ssize_t n = read(STDIN_FILENO, (char *)buf + *got, len - *got);

        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 )
        {
            fprintf(stderr, "%s: stdin: %s\n", prog, strerror(errno));
            exit(1);
        }
        if ( n == 0 )
            break;
        *got += n;
    }
    return *got == len;
}

struct state {
    uint32_t cpu;
    uint64_t *last_tsc;         /* per CPU */
    size_t nr_last;
    uint64_t irq_count, irq_total, irq_max;     /* TRC_TRACE_IRQ */
};

static uint64_t *last_tsc_of(struct state *st, uint32_t cpu, bool *new_cpu)
{
    *new_cpu = cpu >= st->nr_last;
    if ( *new_cpu )
    {
        size_t n = (size_t)cpu + 1;

        st->last_tsc = realloc(st->last_tsc, n * sizeof(*st->last_tsc));
        if ( !st->last_tsc )
            oom();
        memset(st->last_tsc + st->nr_last, 0,
               (n - st->nr_last) * sizeof(*st->last_tsc));
        st->nr_last = n;
    }
    return &st->last_tsc[cpu];
}

/* One record: false to stop (upstream's TRC_TRACE_IRQ with tsc_out < tsc_in). */
static bool format_record(FILE *out, const struct rules *rules,
                          struct state *st, uint32_t hdr, bool has_tsc,
                          uint64_t tsc, uint32_t d[7], unsigned int mhz)
{
    uint32_t event = TRC_HD_TO_EVENT(hdr);
    struct value vals[NR_KEYS] = { 0 };
    const struct rule *rule;
    uint64_t *last;
    bool new_cpu;
    unsigned int i;

    if ( event == TRC_TRACE_CPU_CHANGE )
        st->cpu = d[0];
    if ( event == TRACE_IRQ )
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

    last = last_tsc_of(st, st->cpu, &new_cpu);
    if ( !new_cpu && has_tsc && tsc < *last )
        fprintf(out, "TSC stepped backward cpu %" PRIu32 " !  %" PRIu64
                " %" PRIu64 "\n", st->cpu, tsc, *last);
    vals[K_RELTSC].i = *last > 0 && has_tsc ? (__int128)tsc - *last : 0;
    if ( has_tsc )
        *last = tsc;

    vals[K_CPU].i = st->cpu;
    vals[K_EVENT].i = event;
    if ( mhz )
    {
        vals[K_TSC].is_float = true;
        vals[K_TSC].f = tsc / (mhz * 1000000.0);
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

static void usage(void)
{
    fprintf(stderr, "usage: %s [-c MHz] formats-file < trace\n", prog);
    exit(1);
}

int main(int argc, char *argv[])
{
    struct rules rules = { 0 };
    struct state st = { 0 };
    struct sigaction sa = { .sa_handler = on_signal };
    unsigned long mhz = 0;
    uint64_t offset = 0;
    char *end;
    int ch;

    while ( (ch = getopt(argc, argv, "c:")) != -1 )
        switch ( ch )
        {
        case 'c':
            errno = 0;
            mhz = strtoul(optarg, &end, 10);
            if ( errno || end == optarg || *end || mhz == 0 || mhz > 1000000 )
            {
                fprintf(stderr, "%s: -c %s: not a frequency in MHz\n", prog,
                        optarg);
                return 1;
            }
            break;
        default:
            usage();
        }
    if ( argc - optind != 1 )
        usage();
    read_rules(argv[optind], &rules);

    /* As upstream: stop cleanly, output flushed, on these. */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    while ( !interrupted )
    {
        uint32_t hdr, d[7] = { 0 };
        uint64_t tsc = 0;
        unsigned int n;
        size_t got, size;
        bool has_tsc;
        unsigned char body[36];

        if ( !read_all(&hdr, 4, &got) )
        {
            if ( got )
                fprintf(stderr, "%s: stdin: truncated: %zu bytes at offset %"
                        PRIu64 " not read\n", prog, got, offset);
            break;
        }
        has_tsc = TRC_HD_INCLUDES_CYCLE_COUNT(hdr);
        n = TRC_HD_EXTRA(hdr);
        size = (has_tsc ? 8 : 0) + 4 * n;
        if ( !read_all(body, size, &got) )
        {
            if ( !interrupted )
                fprintf(stderr, "%s: stdin: truncated: %zu bytes at offset %"
                        PRIu64 " not read\n", prog, got + 4, offset);
            break;
        }
        if ( has_tsc )
            memcpy(&tsc, body, 8);
        memcpy(d, body + (has_tsc ? 8 : 0), 4 * n);
        offset += 4 + size;
        if ( !format_record(stdout, &rules, &st, hdr, has_tsc, tsc, d, mhz) )
            break;
    }
    for ( size_t i = 0; i < rules.n; i++ )
        free_rule(&rules.r[i]);
    free(rules.r);
    free(st.last_tsc);
    if ( fflush(stdout) == EOF )
    {
        fprintf(stderr, "%s: write: %s\n", prog, strerror(errno));
        return 1;
    }
    return 0;
}
