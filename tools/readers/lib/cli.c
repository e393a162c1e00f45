/*
 * The readers' front end (cli.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "names.h"
#include "tsc.h"
#include "numbers.h"

#define MAX_OPTIONS     32
#define USAGE_COLUMNS   79

static const struct cli_option common[] = {
    { 'H', "cpu-hz", "hz", "TSC ticks per second: 2.4G, 2400M or 2400000000" },
    { 'h', "help", NULL, "print this help and exit" },
    { 0, NULL, NULL, NULL },
};

/* @c's options, then the common ones; NULL past the last. */
static const struct cli_option *option_at(const struct cli *c, unsigned int i)
{
    unsigned int own = 0;

    while ( c->options && c->options[own].ch )
        own++;
    if ( i < own )
        return &c->options[i];
    i -= own;
    return i < sizeof(common) / sizeof(common[0]) - 1 ? &common[i] : NULL;
}

void cli_usage_error(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", program_invocation_short_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; see %s --help\n", program_invocation_short_name);
    exit(CLI_EXIT_ERROR);
}

/* Append @word to the usage line at @col, wrapping under @indent. */
static unsigned int put_word(FILE *f, const char *word, unsigned int col,
                             unsigned int indent)
{
    size_t len = strlen(word);

    if ( col > indent && col + 1 + len > USAGE_COLUMNS )
    {
        fprintf(f, "\n%*s", (int)indent, "");
        col = indent;
    }
    else if ( col > indent )
    {
        fputc(' ', f);
        col++;
    }
    fputs(word, f);
    return col + len;
}

/*
 * "usage: xentrace-dump [-ahrs] [-H hz] [file]": the flags with a letter
 * together, then the letters with an argument, the long-only options and
 * the operands, in their tables' order.
 */
static void put_usage(FILE *f, const struct cli *c)
{
    const struct cli_option *o;
    char flags[MAX_OPTIONS + 4] = "[-", word[128];
    unsigned int indent, col, i, n = 2;

    col = indent = fprintf(f, "usage: %s ", program_invocation_short_name);
    for ( i = 0; (o = option_at(c, i)); i++ )
        if ( o->ch < CLI_LONG_ONLY && !o->arg && n < MAX_OPTIONS + 2 )
            flags[n++] = o->ch;
    /* Sorted, as in man pages: upper case first, then lower. */
    for ( i = 3; i < n; i++ )
    {
        unsigned int j;
        char ch = flags[i];

        for ( j = i; j > 2 && flags[j - 1] > ch; j-- )
            flags[j] = flags[j - 1];
        flags[j] = ch;
    }
    flags[n++] = ']';
    flags[n] = '\0';
    col = put_word(f, flags, col, indent);
    for ( i = 0; (o = option_at(c, i)); i++ )
        if ( o->ch < CLI_LONG_ONLY && o->arg )
        {
            snprintf(word, sizeof(word), "[-%c %s]", o->ch, o->arg);
            col = put_word(f, word, col, indent);
        }
    for ( i = 0; (o = option_at(c, i)); i++ )
        if ( o->ch >= CLI_LONG_ONLY )
        {
            snprintf(word, sizeof(word), o->arg ? "[--%s %s]" : "[--%s]",
                     o->name, o->arg);
            col = put_word(f, word, col, indent);
        }
    if ( c->operands )
        put_word(f, c->operands, col, indent);
    fputc('\n', f);
}

static void __attribute__((noreturn)) help(const struct cli *c)
{
    const struct cli_option *o;
    unsigned int i;

    put_usage(stdout, c);
    for ( i = 0; (o = option_at(c, i)); i++ )
    {
        char names[64];

        if ( o->ch < CLI_LONG_ONLY )
            snprintf(names, sizeof(names), "-%c, --%s%s%s", o->ch, o->name,
                     o->arg ? " " : "", o->arg ? o->arg : "");
        else
            snprintf(names, sizeof(names), "    --%s%s%s", o->name,
                     o->arg ? " " : "", o->arg ? o->arg : "");
        printf("  %-22s %s\n", names, o->help);
    }
    cli_close_output(stdout, "stdout");
    exit(CLI_EXIT_OK);
}

/* getopt_long()'s tables from @c's options and the common ones. */
static void getopt_tables(const struct cli *c, struct option *longopts,
                          char *optstring)
{
    const struct cli_option *o;
    unsigned int i, n = 0;

    /* ':' first: a missing argument is told from an unknown option. */
    *optstring++ = ':';
    for ( i = 0; (o = option_at(c, i)) && n < MAX_OPTIONS; i++ )
    {
        longopts[n++] = (struct option){
            .name = o->name, .val = o->ch,
            .has_arg = o->arg ? required_argument : no_argument,
        };
        if ( o->ch >= CLI_LONG_ONLY )
            continue;
        *optstring++ = o->ch;
        if ( o->arg )
            *optstring++ = ':';
    }
    *optstring = '\0';
    longopts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/*
 * The option that lacks its argument, as it was written: "--cpu-hz" or
 * "-H" (getopt_long() has just passed it).
 */
static void __attribute__((noreturn)) missing_argument(char *argv[])
{
    const char *arg = argv[optind - 1];

    if ( !strncmp(arg, "--", 2) )
        cli_usage_error("%.*s needs an argument", (int)strcspn(arg, "="),
                        arg);
    cli_usage_error("-%c needs an argument", optopt);
}

static void parse_when(const char *opt, const char *arg, struct cli_when *w);

static unsigned int online_cpus(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);

    return online < 1 ? 1 : online > CLI_MAX_THREADS ? CLI_MAX_THREADS
                                                     : online;
}

int cli_getopt(struct cli *c, int argc, char *argv[])
{
    struct option longopts[MAX_OPTIONS + 1];
    char optstring[2 * MAX_OPTIONS + 2];
    const char *why;
    int ch, n;

    getopt_tables(c, longopts, optstring);
    opterr = 0;
    for ( ;; )
    {
        ch = getopt_long(argc, argv, optstring, longopts, NULL);
        switch ( ch )
        {
        case 'h':
            help(c);
        case 'H':
            if ( (why = cli_parse_hz(optarg, 1, &c->hz)) )
                errx(CLI_EXIT_ERROR, "--cpu-hz %s: %s", optarg, why);
            continue;
        case CLI_OPT_XEN_VERSION:
            if ( xt_xen_version_parse(optarg, &c->xen_version) )
                errx(CLI_EXIT_ERROR, "--xen-version %s: not a Xen version "
                     "(4.17, 4.20...)", optarg);
            continue;
        case 'b':
            /* A reader whose -b is not CLI_BINS_OPTION takes it itself
               (xentrace-top's batch mode, as top's). */
            if ( !optarg )
                return ch;
            c->bins = cli_number("-b", optarg, 1, CLI_MAX_BINS);
            continue;
        case 'f':
            c->follow = true;
            continue;
        case CLI_OPT_FROM:
            parse_when("--from", optarg, &c->from);
            continue;
        case CLI_OPT_TO:
            parse_when("--to", optarg, &c->to);
            continue;
        case CLI_OPT_THREADS:
            c->threads = cli_number("--threads", optarg, 1, CLI_MAX_THREADS);
            continue;
        case '?':
            if ( optopt )
                cli_usage_error("-%c: unknown option", optopt);
            cli_usage_error("%s: unknown option", argv[optind - 1]);
        case ':':
            missing_argument(argv);
        case -1:
            if ( !c->threads )
                c->threads = online_cpus();
            n = argc - optind;
            if ( n < (int)c->min_operands )
                cli_usage_error("missing operand");
            if ( n > (int)c->max_operands )
                cli_usage_error("%s: unexpected operand",
                                argv[optind + c->max_operands]);
            return -1;
        default:
            return ch;
        }
    }
}

/* @s with the suffix scale of @c (K, M, G), or 0 if it is none. */
static uint64_t suffix_scale(char ch)
{
    switch ( ch )
    {
    case 'K': case 'k': return 1000;
    case 'M': case 'm': return 1000000;
    case 'G': case 'g': return 1000000000;
    }
    return 0;
}

const char *cli_parse_hz(const char *arg, uint64_t unit, uint64_t *hz)
{
    /* 10^18: 18 fraction digits cover any scale exactly. */
    const uint64_t frac_max = 1000000000000000000ULL;
    unsigned __int128 frac = 0, frac_div = 1, v;
    unsigned long long whole;
    bool over;
    const char *s = num_digits(arg, &whole, &over);
    bool digits = s != arg;

    if ( *s == '.' )
        for ( s++; *s >= '0' && *s <= '9'; s++, digits = true )
        {
            if ( frac_div < frac_max )
            {
                frac = frac * 10 + (*s - '0');
                frac_div *= 10;
            }
            else if ( *s != '0' )
                return "not a whole number of Hz";
        }
    if ( suffix_scale(*s) )
        unit = suffix_scale(*s++);
    if ( !digits || *s )
        return "invalid";
    if ( over )
        return "too large";
    if ( frac * unit % frac_div )
        return "not a whole number of Hz";
    v = (unsigned __int128)whole * unit + frac * unit / frac_div;
    if ( v < CLI_MIN_HZ )
        return "too small";
    if ( v > CLI_MAX_HZ )
        return "too large";
    *hz = v;
    return NULL;
}

unsigned long long cli_number(const char *opt, const char *arg,
                              unsigned long long min, unsigned long long max)
{
    unsigned long long n;
    const char *why = num_parse(arg, min, max, &n);

    if ( why )
        errx(CLI_EXIT_ERROR, "%s %s: %s", opt, arg, why);
    return n;
}

/* The domain @r's file names @name, first or last: false if none. */
static bool named_domain(void *ctx, const char *name, uint32_t *domid)
{
    const struct xt_reader *r = ctx;
    const struct xt_domain_info *d;
    unsigned int i;

    for ( i = 0; i < xt_reader_nr_domains(r); i++ )
        if ( (d = xt_reader_domain_at(r, i)) &&
             (!strcmp(d->domain.name, name) || !strcmp(d->first_name, name)) )
        {
            *domid = d->domain.domid;
            return true;
        }
    return false;
}

uint32_t cli_domain(const struct xt_reader *r, const char *opt,
                    const char *arg)
{
    uint32_t domid;

    /* A number is refused, if it is not one, in the numbers' words. */
    if ( !names_is_name(arg) )
        return cli_number(opt, arg, 0, 0xffff);
    if ( !named_domain((void *)r, arg, &domid) )
        errx(CLI_EXIT_ERROR, "%s %s: no domain of the trace has that name",
             opt, arg);
    return domid;
}

char *cli_domain_ids(const struct xt_reader *r, const char *opt,
                     const char *arg)
{
    char *unknown, *ids = names_to_ids(arg, named_domain, (void *)r,
                                       &unknown);

    if ( unknown )
        errx(CLI_EXIT_ERROR, "%s %s: no domain of the trace has that name",
             opt, unknown);
    if ( !ids )
        err(CLI_EXIT_ERROR, "memory");
    return ids;
}

/*
 * Input
 * =====
 */

const char *cli_input_name(const char *path)
{
    return !path || !strcmp(path, "-") ? "stdin" : path;
}

static struct xt_reader *reader_to_end;

static void end_input(int sig)
{
    (void)sig;
    xt_reader_stop_following(reader_to_end);
}

void cli_on_end_signals(void (*handler)(int))
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa = { .sa_handler = handler,
                            .sa_flags = SA_RESETHAND }, was;
    unsigned int i;

    /* One ignored (nohup, a shell's background job) stays so. */
    for ( i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++ )
        if ( !sigaction(sigs[i], NULL, &was) && was.sa_handler != SIG_IGN )
            sigaction(sigs[i], &sa, NULL);
}

void cli_end_on_signal(struct xt_reader *r)
{
    if ( !xt_reader_info(r)->streamed )
        return;
    reader_to_end = r;
    cli_on_end_signals(end_input);
}

/*
 * The one place that opens a trace for a reader program.  The reader
 * tells why it cannot (errno); an empty input is a trace of nothing, which
 * no reader can show.
 */
struct xt_reader *cli_try_open(const struct cli *c, const char *path,
                               unsigned int flags)
{
    struct xt_reader *r = xt_reader_open(path, flags |
                                         (c->follow ? XT_READ_FOLLOW : 0));

    if ( r )
        xt_reader_set_xen_version(r, c->xen_version);
    return r;
}

struct xt_reader *cli_open(const struct cli *c, const char *path,
                           unsigned int flags)
{
    struct xt_reader *r = cli_try_open(c, path, flags);

    if ( !r )
        errx(CLI_EXIT_ERROR, "%s: %s", cli_input_name(path),
             xt_reader_strerror(errno));
    return r;
}

int cli_close(struct xt_reader *r, const char *path)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    char damage[256];
    int status = xt_reader_status(r);

    if ( xt_reader_damage(r, damage, sizeof(damage)) )
        warnx("%s: %s", cli_input_name(path), damage);
    if ( info->late_batches )
        warnx("%s: %" PRIu64 " batches came after later records had gone "
              "out (past the %u MiB reorder window, or after a pause of the "
              "input), the first at offset %" PRIu64 ": merged out of TSC "
              "order", cli_input_name(path), info->late_batches,
              XT_MERGE_WINDOW >> 20, info->late_offset);
    xt_reader_close(r);
    return status;
}

uint64_t cli_tsc_hz(const struct cli *c, const struct xt_reader_info *info,
                    bool *assumed)
{
    uint64_t hz = c && c->hz ? c->hz
                  : info->has_tsc_hz ? info->meta.tsc_hz : 0;

    if ( assumed )
        *assumed = !hz;
    return hz ? hz : CLI_DEFAULT_HZ;
}

/*
 * Time
 * ====
 */

uint64_t cli_origin(struct xt_reader *r)
{
    const struct xt_reader_info *in = xt_reader_info(r);
    uint64_t first, last;

    if ( in->has_start )
        return in->meta.start_tsc;
    cli_tsc_range(r, &first, &last);
    return first;
}

static void parse_when(const char *opt, const char *arg, struct cli_when *w)
{
    char *end;

    *w = (struct cli_when){ .given = true };
    if ( !strncmp(arg, "tsc:", 4) )
    {
        w->is_tsc = true;
        w->tsc = cli_number(opt, arg + 4, 0, UINT64_MAX);
        return;
    }
    errno = 0;
    w->seconds = strtod(arg, &end);
    if ( errno || end == arg || *end || w->seconds != w->seconds )
        errx(CLI_EXIT_ERROR, "%s %s: invalid", opt, arg);
}

/* @w as a TSC: its own, or its seconds from @origin within 1 and UINT64_MAX. */
static uint64_t when_tsc(const struct cli_when *w, uint64_t origin,
                         uint64_t hz)
{
    double ticks = w->seconds * (double)hz;

    if ( w->is_tsc )
        return w->tsc;
    if ( ticks <= -(double)origin )
        return 1;
    if ( ticks >= (double)(UINT64_MAX - origin) )
        return UINT64_MAX;
    return ticks < 0 ? origin - (uint64_t)-ticks : origin + (uint64_t)ticks;
}

/*
 * Whether --to is after --from as the user gave them.  Two times in seconds
 * are compared as seconds: near either end of the TSC's range both can
 * saturate to one TSC, and that window is empty, not misordered.
 */
static bool window_ordered(const struct cli_when *from,
                           const struct cli_when *to,
                           uint64_t from_tsc, uint64_t to_tsc)
{
    if ( from->given && !from->is_tsc && !to->is_tsc )
        return to->seconds > from->seconds;
    return to_tsc > from_tsc;
}

/*
 * A window that a file's records all fall outside shows nothing: said in
 * a line, so that an empty table is not taken for an idle host.  (A
 * stream's span is not known before its end.)
 */
static void window_outside(struct xt_reader *r, const struct cli_when *from,
                           const struct cli_when *to, uint64_t from_tsc,
                           uint64_t to_tsc, uint64_t origin, uint64_t hz)
{
    uint64_t first, last;

    if ( xt_reader_info(r)->streamed || !cli_tsc_range(r, &first, &last) )
        return;
    if ( from->given && from_tsc > last )
        warnx("--from: after the trace's last record, at %.6f s: nothing "
              "to show", tsc_seconds_from(last, origin, hz));
    else if ( to->given && to_tsc <= first )
        warnx("--to: before the trace's first record, at %.6f s: nothing "
              "to show", tsc_seconds_from(first, origin, hz));
}

void cli_window(const struct cli *c, struct xt_reader *r, uint64_t hz,
                uint64_t *from_tsc, uint64_t *to_tsc)
{
    const struct cli_when *from = &c->from, *to = &c->to;
    const struct xt_reader_info *info = xt_reader_info(r);
    uint64_t origin = cli_origin(r);

    if ( info->streamed && !info->has_start &&
         ((from->given && !from->is_tsc) || (to->given && !to->is_tsc)) )
        cli_usage_error("--from and --to in seconds need the capture's "
                        "start, which this stream does not record: give "
                        "tsc:N");
    *from_tsc = from->given ? when_tsc(from, origin, hz) : 0;
    *to_tsc = to->given ? when_tsc(to, origin, hz) : 0;
    if ( to->given && !window_ordered(from, to, *from_tsc, *to_tsc) )
        cli_usage_error("--to is not after --from");
    window_outside(r, from, to, *from_tsc, *to_tsc, origin, hz);
    if ( to->given && !from->given )
        *from_tsc = 1;          /* the model takes 0, 0 as "all" */
}

void cli_cuts_start(struct cli_cuts *c, uint64_t first)
{
    bool after = first >= c->origin;
    uint64_t d = after ? first - c->origin : c->origin - first;
    uint64_t q = d / c->step, r = d % c->step;

    if ( q > INT64_MAX - 1 )
        q = INT64_MAX - 1;
    c->k = after ? (int64_t)q : -(int64_t)q - (r != 0);
    c->end = first + (after ? c->step - r : r ? r : c->step);
    if ( c->end <= first )
        c->end = UINT64_MAX;
}

void cli_cuts_next(struct cli_cuts *c)
{
    uint64_t end = c->end + c->step;

    if ( c->k < INT64_MAX )
        c->k++;
    c->end = end > c->end ? end : UINT64_MAX;
}

/*
 * Output
 * ======
 */

bool cli_tsc_range(struct xt_reader *r, uint64_t *first, uint64_t *last)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    const struct xt_cpu_info *ci;
    bool any = false;
    unsigned int i;

    *first = *last = 0;
    for ( i = 0; i < info->nr_cpus; i++ )
    {
        ci = xt_reader_cpu(r, i);
        /* The trace's span is Xen's: dom0's lanes are not in it. */
        if ( !ci->has_tsc || xt_reader_is_dom0_lane(r, ci->cpu) )
            continue;
        if ( !any || ci->first_tsc < *first )
            *first = ci->first_tsc;
        if ( !any || ci->last_tsc > *last )
            *last = ci->last_tsc;
        any = true;
    }
    return any;
}

/* The length of the UTF-8 sequence at @s, or 0 if it is not one. */
static unsigned int utf8_length(const unsigned char *s)
{
    unsigned int n, i;
    uint32_t cp;

    if ( s[0] < 0x80 )
        return 1;
    if ( s[0] >= 0xc2 && s[0] <= 0xdf )
        n = 2, cp = s[0] & 0x1f;
    else if ( s[0] >= 0xe0 && s[0] <= 0xef )
        n = 3, cp = s[0] & 0x0f;
    else if ( s[0] >= 0xf0 && s[0] <= 0xf4 )
        n = 4, cp = s[0] & 0x07;
    else
        return 0;
    for ( i = 1; i < n; i++ )
    {
        if ( (s[i] & 0xc0) != 0x80 )
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* Overlong forms, surrogates and past U+10FFFF are not UTF-8. */
    if ( (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
         (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff )
        return 0;
    return n;
}

void cli_json_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned int n;

    fputc('"', f);
    while ( *p )
    {
        if ( *p == '"' || *p == '\\' )
            fprintf(f, "\\%c", *p);
        else if ( *p < 0x20 || *p == 0x7f )
            fprintf(f, "\\u%04x", *p);
        else if ( !(n = utf8_length(p)) )
            fputs("\\ufffd", f);
        else
        {
            fwrite(p, 1, n, f);
            p += n;
            continue;
        }
        p++;
    }
    fputc('"', f);
}

void cli_close_output(FILE *f, const char *name)
{
    bool failed = ferror(f);

    if ( (f == stdout ? fflush(f) : fclose(f)) || failed )
        err(CLI_EXIT_ERROR, "%s", name);
}
