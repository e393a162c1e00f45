/*
 * The readers' front end (tools/readers/lib/cli.c), as a user meets
 * it, on every reader alike: xentrace-dump, -summary, -export, -plot and
 * xentrace_format.
 *
 * - -h and --help print the usage on stdout and exit 0 (xentrace and
 *   xen-sim too), and the usage's options are the man page's SYNOPSIS's,
 *   and its option list the man page's OPTIONS; xentrace lists every
 *   option of its usage so too, with its range;
 * - --cpu-hz takes 2.4G, 2400M and 2400000000, and refuses the rest with
 *   strtonum(3)'s words, the same in every reader;
 * - exit 0 on a clean read, 2 on a damaged one, 1 on a usage or I/O error
 *   or an input that is not a trace, always with one line on stderr;
 * - the standard input is read when no trace is named;
 * - what the readers' fuzz targets found stays fixed.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_cmd.h"

#define EV_CPU_CHANGE   0x0001f003u
#define EV_SCHED_WAKE   0x00028004u
#define EV_TO_RUNNING   (0x00021001u | 1 << 8)      /* runnable->running */
#define TSC_FLAG        0x80000000u

static char dir[] = "/tmp/test_front_end.XXXXXX";

/* A reader; @run reads the trace named after it (%s: the reader). */
struct reader {
    const char *name;
    const char *path;
    const char *run;
};

static const struct reader readers[] = {
    { "xentrace-dump", XT_DUMP, "%s" },
    { "xentrace-summary", XT_SUMMARY, "%s" },
    { "xentrace-export", XT_EXPORT, "%s --json -" },
    { "xentrace-plot", XT_PLOT, "%s" },
    { "xentrace_format", XT_FORMAT, "%s " XT_FORMATS },
    { "xentrace-top", XT_TOP, "%s -b" },
};

#define NR_READERS  (sizeof(readers) / sizeof(readers[0]))

/* A shell command made from a format; its exit status (run_cmd.h). */
#define sh(...)     run_sh(sh_log, __VA_ARGS__)

static char sh_log[sizeof(dir) + 8];

/* The command that runs reader @r, into @cmd. */
static const char *reader_command(const struct reader *r, char cmd[512])
{
    snprintf(cmd, 512, r->run, r->path);
    return cmd;
}

/*
 * Reader @r on the trace @file of the test directory, then @options
 * (getopt permutes them), its stdout and stderr in "out" and "err" there.
 */
static int run_reader(const struct reader *r, const char *options,
                      const char *file)
{
    char cmd[512];

    return sh("%s %s/%s %s > %s/out 2> %s/err", reader_command(r, cmd), dir,
              file, options, dir, dir);
}

/* File @name of the test directory, NUL-terminated (free it). */
static char *slurp(const char *name)
{
    char path[256], *text;
    size_t len;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "r");
    assert_non_null(f);
    text = calloc(1, 1 << 20);
    assert_non_null(text);
    len = fread(text, 1, (1 << 20) - 1, f);
    text[len] = '\0';
    fclose(f);
    return text;
}

/* stderr of the last run is one line, "@name: ...@what...". */
static void assert_one_line(const char *name, const char *what)
{
    char *err = slurp("err");
    char *nl = strchr(err, '\n');

    if ( !nl || nl[1] || strncmp(err, name, strlen(name)) ||
         err[strlen(name)] != ':' || !strstr(err, what) )
        fail_msg("%s: expected one line with \"%s\", got \"%s\"", name, what,
                 err);
    free(err);
}

static void assert_no_stderr(const char *name)
{
    char *err = slurp("err");

    if ( *err )
        fail_msg("%s: stderr \"%s\"", name, err);
    free(err);
}

/*
 * Traces
 * ======
 */

struct trace {
    uint32_t w[1024];
    size_t n;
    size_t batch;               /* its CPU-change record's index */
};

static void end_batch(struct trace *t)
{
    if ( t->n )
        t->w[t->batch + 2] = (t->n - t->batch - 3) * 4;
}

static void batch(struct trace *t, uint32_t cpu)
{
    end_batch(t);
    t->batch = t->n;
    t->w[t->n++] = EV_CPU_CHANGE | 2u << 28;
    t->w[t->n++] = cpu;
    t->w[t->n++] = 0;
}

static void rec(struct trace *t, uint32_t event, uint64_t tsc, uint32_t d)
{
    t->w[t->n++] = event | TSC_FLAG | 1u << 28;
    t->w[t->n++] = tsc;
    t->w[t->n++] = tsc >> 32;
    t->w[t->n++] = d;
}

/* @t in the test directory as @name, its last @cut bytes cut off. */
static void save(struct trace *t, const char *name, size_t cut)
{
    char path[256];
    FILE *f;

    end_batch(t);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(t->w, 1, t->n * 4 - cut, f), t->n * 4 - cut);
    assert_int_equal(fclose(f), 0);
}

/* Two CPUs, a few wake-ups: clean.bin, and cut.bin cut inside a record. */
static int make_traces(void **state)
{
    struct trace t = { .n = 0 };
    unsigned int i;

    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sh_log, sizeof(sh_log), "%s/sh.log", dir);
    for ( i = 0; i < 4; i++ )
    {
        batch(&t, i & 1);
        rec(&t, EV_SCHED_WAKE, 1000 + i * 100, 1 << 16);
        rec(&t, EV_SCHED_WAKE, 1050 + i * 100, 2 << 16);
    }
    save(&t, "clean.bin", 0);
    save(&t, "cut.bin", 6);
    return sh("gzip -c %s/clean.bin > %s/clean.bin.gz && "
              "echo hello > %s/text.bin && : > %s/empty.bin && "
              "perl -0777 -pe '$_ = pack(\"N*\", unpack(\"V*\", $_))' "
              "%s/clean.bin > %s/swapped.bin", dir, dir, dir, dir, dir, dir);
}

static int remove_traces(void **state)
{
    (void)state;
    return sh("rm -rf %s", dir);
}

/*
 * Help
 * ====
 */

/* Every program with a man page: the readers, xentrace, xen-sim. */
struct program {
    const char *name, *path, *man;
};

static const struct program programs[] = {
    { "xentrace-dump", XT_DUMP, "docs/man/xentrace-dump.1" },
    { "xentrace-summary", XT_SUMMARY, "docs/man/xentrace-summary.1" },
    { "xentrace-export", XT_EXPORT, "docs/man/xentrace-export.1" },
    { "xentrace-plot", XT_PLOT, "docs/man/xentrace-plot.1" },
    { "xentrace_format", XT_FORMAT, "docs/man/xentrace_format.1" },
    { "xentrace-top", XT_TOP, "docs/man/xentrace-top.1" },
    { "xentrace-join", XT_JOIN, "docs/man/xentrace-join.1" },
    { "xentrace", XENTRACE, "docs/man/xentrace.8" },
    { "xentrace-ctl", XENTRACE_CTL, "docs/man/xentrace-ctl.8" },
    { "xen-sim", XEN_SIM, "docs/man/xen-sim.1" },
};

static void test_help_on_stdout(void **state)
{
    static const char *const flags[] = { "-h", "--help" };
    unsigned int i, f;

    (void)state;
    for ( i = 0; i < sizeof(programs) / sizeof(programs[0]); i++ )
        for ( f = 0; f < 2; f++ )
        {
            char usage[64], *out;

            if ( sh("%s %s > %s/out 2> %s/err", programs[i].path, flags[f],
                    dir, dir) )
                fail_msg("%s %s: not status 0", programs[i].name, flags[f]);
            assert_no_stderr(programs[i].name);
            out = slurp("out");
            snprintf(usage, sizeof(usage), "usage: %s ", programs[i].name);
            if ( strncmp(out, usage, strlen(usage)) )
                fail_msg("%s %s: \"%s\"", programs[i].name, flags[f], out);
            free(out);
        }
}

/* Add option @opt ("-a", "--all") to the space-separated set @set. */
static void add_option(char *set, size_t size, const char *opt, size_t len)
{
    char word[64];

    snprintf(word, sizeof(word), " %.*s ", (int)len, opt);
    if ( !strstr(set, word) )
        snprintf(set + strlen(set), size - strlen(set), "%s", word + 1);
}

/* Sort the words of @set, so that two sets compare as strings. */
static int cmp_word(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_set(char *set)
{
    char *words[128], copy[2048], *w, *save;
    unsigned int n = 0, i;

    snprintf(copy, sizeof(copy), "%s", set);
    for ( w = strtok_r(copy, " ", &save); w && n < 128;
          w = strtok_r(NULL, " ", &save) )
        words[n++] = w;
    qsort(words, n, sizeof(words[0]), cmp_word);
    *set = '\0';
    for ( i = 0; i < n; i++ )
        sprintf(set + strlen(set), "%s ", words[i]);
}

/*
 * The options of a usage message: "[-ahrs]" is four flags, "[-H hz]" and
 * "[--json]" one each, "[-c cpu-mask]" one; and those a command must
 * choose one of, "-e mask | --stop".
 */
static void usage_options(const char *usage, char *set, size_t size)
{
    const char *p;

    for ( p = usage; (p = strpbrk(p, "[ ")); p++ )
    {
        if ( p[1] != '-' )
            continue;
        const char *opt = p + 1;
        size_t len = strcspn(opt, " ]|\n");

        if ( opt[1] == '-' )
        {
            if ( len > 2 )
                add_option(set, size, opt, len);
            continue;
        }
        if ( opt[len] == ' ' )      /* a letter with an argument */
        {
            add_option(set, size, opt, 2);
            continue;
        }
        for ( opt++; *opt && *opt != ']'; opt++ )
        {
            char flag[3] = { '-', *opt, 0 };

            add_option(set, size, flag, 2);
        }
    }
}

/*
 * The options of a man page's SYNOPSIS: ".Op Fl ahrs", ".Op Fl H Ar hz",
 * ".Op Fl -json".
 */
static void synopsis_options(const char *man, char *set, size_t size)
{
    const char *p = strstr(man, "\n.Sh SYNOPSIS"), *end;

    assert_non_null(p);
    end = strstr(p + 1, "\n.Sh ");
    assert_non_null(end);
    for ( ; (p = strstr(p, "Fl ")) && p < end; p += 3 )
    {
        const char *opt = p + 3;
        size_t len = strcspn(opt, " \n");
        bool has_arg = !strncmp(opt + len, " Ar", 3);

        if ( opt[0] == '-' )
        {
            char word[64];

            if ( len > 1 )
            {
                snprintf(word, sizeof(word), "-%.*s", (int)len, opt);
                add_option(set, size, word, len + 1);
            }
            continue;
        }
        for ( ; len; opt++, len-- )
        {
            char flag[3] = { '-', *opt, 0 };

            add_option(set, size, flag, 2);
            if ( has_arg )
                break;
        }
    }
}

/*
 * The usage lines of a --help: the first, "usage: NAME ...", and those
 * that go on from the column after NAME.
 */
static void usage_lines(char *help)
{
    const char *name_end = strchr(help + strlen("usage: "), ' ');
    size_t column = name_end ? (size_t)(name_end - help) + 1 : 0;
    char *nl = help;

    while ( (nl = strchr(nl, '\n')) && column &&
            strspn(nl + 1, " ") == column )
        nl++;
    if ( nl )
        nl[1] = '\0';
}

static void test_help_matches_man_page(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(programs) / sizeof(programs[0]); i++ )
    {
        char from_help[2048] = "", from_man[2048] = "", path[256], *text;

        assert_int_equal(sh("%s --help > %s/help", programs[i].path, dir), 0);
        text = slurp("help");
        usage_lines(text);
        usage_options(text, from_help, sizeof(from_help));
        free(text);
        snprintf(path, sizeof(path), "%s/%s", SOURCE_DIR, programs[i].man);
        assert_int_equal(sh("cp %s %s/man", path, dir), 0);
        text = slurp("man");
        synopsis_options(text, from_man, sizeof(from_man));
        free(text);
        sort_set(from_help);
        sort_set(from_man);
        if ( strcmp(from_help, from_man) )
            fail_msg("%s: usage has %s, the SYNOPSIS of %s %s",
                     programs[i].name, from_help, programs[i].man, from_man);
    }
}

/* The width of --help's column of option names (cli.c's help()). */
#define NAMES_COLUMN    22

/*
 * The names of the option that a --help list @line gives in its first
 * @width columns ("  -a, --all  ...", "      --json file  ..."), into
 * @shortopt (0: none), @longopt and @arg ("": none); false for a line
 * that names none.
 */
static bool help_option(const char *line, int width, char *shortopt,
                        char longopt[32], char arg[32])
{
    char names[64];

    snprintf(names, sizeof(names), "%.*s", width, line);
    *arg = '\0';
    if ( sscanf(names, " -%c, --%31s %31s", shortopt, longopt, arg) >= 2 )
        return true;
    *shortopt = '\0';
    *arg = '\0';
    return sscanf(names, " --%31s %31s", longopt, arg) >= 1;
}

/*
 * Each option of a reader's --help list ("  -a, --all", "      --json
 * file") is an ".It Fl a , Fl -all" or ".It Fl -json Ar file" of its man
 * page's OPTIONS.
 */
static void test_option_list_matches_man_page(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < NR_READERS; i++ )
    {
        char path[256], *help, *man, *line, *save;

        assert_int_equal(sh("%s --help > %s/help", readers[i].path, dir), 0);
        snprintf(path, sizeof(path), "%s/%s", SOURCE_DIR, programs[i].man);
        assert_int_equal(sh("cp %s %s/man", path, dir), 0);
        help = slurp("help");
        man = slurp("man");
        for ( line = strtok_r(help, "\n", &save); line;
              line = strtok_r(NULL, "\n", &save) )
        {
            char shortopt, longopt[32], arg[32], want[128];

            /* "  -a, --all     help" or "      --json file  help" */
            if ( strncmp(line, "  ", 2) || strlen(line) < NAMES_COLUMN + 2 ||
                 !help_option(line, NAMES_COLUMN + 2, &shortopt, longopt,
                              arg) )
                continue;
            if ( shortopt )
                snprintf(want, sizeof(want), ".It Fl %c%s%s , Fl -%s",
                         shortopt, *arg ? " Ar " : "", arg, longopt);
            else
                snprintf(want, sizeof(want), ".It Fl -%s%s%s", longopt,
                         *arg ? " Ar " : "", arg);
            if ( !strstr(man, want) )
                fail_msg("%s: \"%s\" is not in its man page", readers[i].name,
                         want);
        }
        free(help);
        free(man);
    }
}

/* xentrace @args exits 1 with "xentrace: @why" alone on stderr. */
static void assert_xentrace_refuses(const char *args, const char *why)
{
    char *err;

    assert_int_equal(sh("%s %s 2> %s/err", XENTRACE, args, dir), 1);
    err = slurp("err");
    if ( strncmp(err, "xentrace: ", 10) || strncmp(err + 10, why, strlen(why))
         || strcmp(err + 10 + strlen(why), "\n") )
        fail_msg("xentrace %s said: %s", args, err);
    free(err);
}

/* The width of xentrace --help's column of option names (xentrace.c). */
#define XENTRACE_NAMES  29

/*
 * xentrace's --help lists every option of its usage, each an ".It Fl c Ar
 * cpu-mask , Fl -cpu-mask Ns = Ns Ar cpu-mask" of xentrace(8) (upstream's
 * spelling), and gives the range of each number it takes.
 */
static void test_xentrace_option_list(void **state)
{
    char from_usage[2048] = "", from_list[2048] = "", *help, *man, *line;
    char *save;

    (void)state;
    assert_int_equal(sh("%s --help > %s/help", XENTRACE, dir), 0);
    assert_int_equal(sh("cp %s/docs/man/xentrace.8 %s/man", SOURCE_DIR, dir),
                     0);
    help = slurp("help");
    man = slurp("man");
    /* A number's range, in the list and in the error (below). */
    assert_non_null(strstr(help, "(1 to 65535; 32)\n"));
    assert_non_null(strstr(help, "(64k to 1024G)\n"));
    for ( line = strtok_r(help, "\n", &save); line;
          line = strtok_r(NULL, "\n", &save) )
    {
        char shortopt, longopt[32], arg[32], want[160], flag[3] = "-";

        if ( !strncmp(line, "usage: ", 7) || line[strspn(line, " ")] == '[' )
        {
            usage_options(line, from_usage, sizeof(from_usage));
            continue;
        }
        if ( !help_option(line, XENTRACE_NAMES, &shortopt, longopt, arg) )
            continue;
        flag[1] = shortopt;
        if ( shortopt )
            add_option(from_list, sizeof(from_list), flag, 2);
        snprintf(want, sizeof(want), "--%s", longopt);
        if ( !shortopt )
            add_option(from_list, sizeof(from_list), want, strlen(want));
        if ( shortopt && *arg )
            snprintf(want, sizeof(want), ".It Fl %c Ar %s , Fl -%s Ns = Ns "
                     "Ar %s\n", shortopt, arg, longopt, arg);
        else if ( shortopt )
            snprintf(want, sizeof(want), ".It Fl %c , Fl -%s\n", shortopt,
                     longopt);
        else
            snprintf(want, sizeof(want), ".It Fl -%s%s%s\n", longopt,
                     *arg ? " Ns = Ns Ar " : "", arg);
        if ( !strstr(man, want) )
            fail_msg("xentrace: \"%.*s\" is not in xentrace(8)",
                     (int)strlen(want) - 1, want);
    }
    sort_set(from_usage);
    sort_set(from_list);
    if ( strcmp(from_usage, from_list) )
        fail_msg("xentrace: usage has %s, its list %s", from_usage,
                 from_list);
    free(help);
    free(man);
    assert_xentrace_refuses("-S 0", "-S 0: too small (1 to 65535 pages)");
    assert_xentrace_refuses("-M 2T", "-M 2T: invalid (a number of bytes, or "
                            "with k, M or G)");
    assert_xentrace_refuses("-M 1025G", "-M 1025G: too large (64k to 1024G "
                            "bytes)");
}

/*
 * --cpu-hz
 * ========
 */

/* xentrace-dump's header says the frequency it takes. */
static void assert_hz(const char *arg, const char *hz)
{
    char options[128], want[64], *out;

    snprintf(options, sizeof(options), "--cpu-hz '%s'", arg);
    if ( run_reader(&readers[0], options, "clean.bin") )
        fail_msg("--cpu-hz %s: refused", arg);
    out = slurp("out");
    snprintf(want, sizeof(want), "TSC %s Hz\n", hz);
    if ( !strstr(out, want) )
        fail_msg("--cpu-hz %s: not %s Hz", arg, hz);
    free(out);
}

static void assert_bad_hz(const char *arg, const char *why)
{
    char options[128], want[128];

    snprintf(options, sizeof(options), "-H '%s'", arg);
    assert_int_equal(run_reader(&readers[0], options, "clean.bin"), 1);
    snprintf(want, sizeof(want), "--cpu-hz %s: %s", arg, why);
    assert_one_line("xentrace-dump", want);
}

static void test_cpu_hz_grammar(void **state)
{
    (void)state;
    assert_hz("2.4G", "2400000000");
    assert_hz("2400M", "2400000000");
    assert_hz("2400000000", "2400000000");
    assert_hz("2.4g", "2400000000");
    assert_hz("2400000k", "2400000000");
    assert_hz("2.000000001G", "2000000001");
    assert_hz("1", "1");
    assert_hz("1000G", "1000000000000");

    assert_bad_hz("", "invalid");
    assert_bad_hz("2.4Q", "invalid");
    assert_bad_hz("G", "invalid");
    assert_bad_hz("2.4GG", "invalid");
    assert_bad_hz(" 2G", "invalid");
    assert_bad_hz("+2G", "invalid");
    assert_bad_hz("-2G", "invalid");
    assert_bad_hz("2e9", "invalid");
    assert_bad_hz("0x10", "invalid");
    assert_bad_hz("0", "too small");
    assert_bad_hz("0.5", "not a whole number of Hz");
    assert_bad_hz("2.0000000001G", "not a whole number of Hz");
    assert_bad_hz("1001G", "too large");
    assert_bad_hz("18446744073709551616", "too large");
    assert_bad_hz("99999999999999999999999999G", "too large");
}

/* Every reader takes -H and --cpu-hz alike, and refuses alike. */
static void test_cpu_hz_every_reader(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < NR_READERS; i++ )
    {
        assert_int_equal(run_reader(&readers[i], "-H 2.4G", "clean.bin"), 0);
        assert_int_equal(run_reader(&readers[i], "--cpu-hz=2400M",
                                    "clean.bin"), 0);
        assert_int_equal(run_reader(&readers[i], "--cpu-hz 2.4Q",
                                    "clean.bin"), 1);
        assert_one_line(readers[i].name, "--cpu-hz 2.4Q: invalid");
    }
}

/*
 * Exit statuses and errors
 * ========================
 */

static void test_clean_read_is_0(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < NR_READERS; i++ )
    {
        assert_int_equal(run_reader(&readers[i], "", "clean.bin"), 0);
        assert_no_stderr(readers[i].name);
        assert_int_equal(run_reader(&readers[i], "", "clean.bin.gz"), 0);
        assert_no_stderr(readers[i].name);
    }
}

static void test_damaged_read_is_2(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < NR_READERS; i++ )
    {
        assert_int_equal(run_reader(&readers[i], "", "cut.bin"), 2);
        assert_one_line(readers[i].name, "cut.bin: truncated at offset 160, "
                        "the last batch lacks 6 bytes");
    }
}

/* Every reader on @file with @options: status 1, and one line @why. */
struct refusal {
    const char *file, *options, *why;
};

static void assert_refused(const struct refusal *cases, unsigned int n)
{
    unsigned int i, c;

    for ( i = 0; i < NR_READERS; i++ )
        for ( c = 0; c < n; c++ )
        {
            assert_int_equal(run_reader(&readers[i], cases[c].options,
                                        cases[c].file), 1);
            assert_one_line(readers[i].name, cases[c].why);
        }
}

/* Bad input and usage errors: status 1, and one line that says which. */
static void test_refusals_are_1(void **state)
{
    /* Options after the trace: the last has no argument to take. */
    static const struct refusal bad[] = {
        { "text.bin", "", "text.bin: not a trace file" },
        { "swapped.bin", "",
          "swapped.bin: trace file of the other byte order" },
        { "empty.bin", "", "empty.bin: no records" },
        { "missing.bin", "", "missing.bin: No such file or directory" },
        { "clean.bin", "-Z", "-Z: unknown option; see " },
        { "clean.bin", "--bogus", "--bogus: unknown option; see " },
        { "clean.bin", "--cpu-hz", "--cpu-hz needs an argument; see " },
        { "clean.bin", "-H", "-H needs an argument; see " },
        { "clean.bin", "more.bin", "more.bin: unexpected operand; see " },
    };

    (void)state;
    assert_refused(bad, sizeof(bad) / sizeof(bad[0]));
}

/* -b is summary's and plot's, with the same bounds and words. */
static void test_bins_alike(void **state)
{
    static const unsigned int with_bins[] = { 1, 3 };
    unsigned int i;

    (void)state;
    for ( i = 0; i < 2; i++ )
    {
        const struct reader *r = &readers[with_bins[i]];

        assert_int_equal(run_reader(r, "-b 7", "clean.bin"), 0);
        assert_int_equal(run_reader(r, "--bins 100000", "clean.bin"), 0);
        assert_int_equal(run_reader(r, "-b 0", "clean.bin"), 1);
        assert_one_line(r->name, "-b 0: too small");
        assert_int_equal(run_reader(r, "-b 100001", "clean.bin"), 1);
        assert_one_line(r->name, "-b 100001: too large");
        assert_int_equal(run_reader(r, "-b 1x", "clean.bin"), 1);
        assert_one_line(r->name, "-b 1x: invalid");
    }
}

/*
 * Numbers and lists are tools/common/numbers.h's grammar: digits only,
 * and for export's --domain and --cpu also N- and -M.  Blanks and "+",
 * which strtoul() let through before, are refused in one line that names
 * the item and the range.
 */
static void test_numbers_and_lists(void **state)
{
    static const struct refusal bad[] = {
        { "clean.bin", "--domain '1, 2'",
          "--domain 1, 2:  2: invalid (domains 0 to 65535)" },
        { "clean.bin", "--domain +1-2",
          "--domain +1-2: +1-2: invalid (domains 0 to 65535)" },
        { "clean.bin", "--cpu 0,1-+2",
          "--cpu 0,1-+2: 1-+2: invalid (CPUs 0 to 32765)" },
        { "clean.bin", "--cpu 3-1",
          "--cpu 3-1: 3-1: wrong order (CPUs 0 to 32765)" },
        { "clean.bin", "--domain 65536",
          "--domain 65536: 65536: too large (domains 0 to 65535)" },
    };
    char *all, *open_ended;
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        assert_int_equal(run_reader(&readers[2], bad[i].options,
                                    bad[i].file), 1);
        assert_one_line("xentrace-export", bad[i].why);
    }
    assert_int_equal(run_reader(&readers[1], "--top ' 5'", "clean.bin"), 1);
    assert_one_line("xentrace-summary", "--top  5: invalid");
    assert_int_equal(run_reader(&readers[1], "--top +5", "clean.bin"), 1);
    assert_one_line("xentrace-summary", "--top +5: invalid");

    /* N- is N to the last, -M is 0 to M. */
    assert_int_equal(run_reader(&readers[2], "--domain 0-65535 --cpu 0-32765",
                                "clean.bin"), 0);
    all = slurp("out");
    assert_int_equal(run_reader(&readers[2], "--domain 0- --cpu -32765",
                                "clean.bin"), 0);
    open_ended = slurp("out");
    assert_string_equal(all, open_ended);
    free(all);
    free(open_ended);
}

/* A full disk is an error, not a short output. */
static void test_write_error_is_1(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < NR_READERS; i++ )
    {
        char cmd[512];

        assert_int_equal(sh("%s %s/clean.bin > /dev/full 2> %s/err",
                            reader_command(&readers[i], cmd), dir, dir), 1);
        assert_one_line(readers[i].name, "No space left on device");
    }
    /* The export's Perfetto trace too, to a file or the standard output. */
    assert_int_equal(sh("%s --perfetto /dev/full %s/clean.bin 2> %s/err",
                        XT_EXPORT, dir, dir), 1);
    assert_one_line("xentrace-export", ": /dev/full: No space left on device");
    assert_int_equal(sh("%s --perfetto - %s/clean.bin > /dev/full 2> %s/err",
                        XT_EXPORT, dir, dir), 1);
    assert_one_line("xentrace-export", "No space left on device");
}

/*
 * A filter that no record matches says so in one line, and the reader
 * still exits 0 with its (empty) tables: the summary's --domain and
 * --cpu, the dump's filters, and --from or --to outside a file's records
 * in the summary, the export and the dump.  One that matches says
 * nothing.
 */
static void test_filters_that_match_nothing(void **state)
{
    struct trace t = { .n = 0 };
    static const struct {
        unsigned int reader;            /* in readers[] */
        const char *options, *says;
    } cases[] = {
        { 1, "--domain 99", "--domain 99: no vCPU of domain 99 ran in the "
                            "trace: nothing to show" },
        { 1, "--cpu 7", "--cpu 7: the trace has no record of pCPU 7: "
                        "nothing to show" },
        { 1, "--from 99", "--from: after the trace's last record, at " },
        { 2, "--to tsc:999", "--to: before the trace's first record, at " },
        { 2, "--from 99", "--from: after the trace's last record, at " },
        { 0, "--domain 99", "--domain 99: no record matches: nothing to "
                            "show" },
        { 0, "--cpu 7", "--cpu 7: no record matches: nothing to show" },
        { 0, "--domain 1 --vcpu 3", "--domain 1 --vcpu 3: no record "
                                    "matches: nothing to show" },
        { 0, "--event TRC_SCHED_SWITCH --classes hvm",
          "--event TRC_SCHED_SWITCH --classes hvm: no record matches" },
        { 0, "--from 99", "--from: after the trace's last record, at " },
    };
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(cases) / sizeof(cases[0]); i++ )
    {
        const struct reader *r = &readers[cases[i].reader];

        assert_int_equal(run_reader(r, cases[i].options, "clean.bin"), 0);
        assert_one_line(r->name, cases[i].says);
    }
    /* clean.bin's vCPUs are woken, and never run; runs.bin's d1v0 runs. */
    assert_int_equal(run_reader(&readers[1], "--domain 1 --cpu 0",
                                "clean.bin"), 0);
    assert_one_line("xentrace-summary", "--domain 1: no vCPU of domain 1 ran "
                    "on pCPU 0: nothing to show");
    batch(&t, 0);
    rec(&t, EV_TO_RUNNING, 100, 1 << 16);
    rec(&t, EV_SCHED_WAKE, 200, 2 << 16);
    save(&t, "runs.bin", 0);
    assert_int_equal(run_reader(&readers[1], "--domain 1 --cpu 0",
                                "runs.bin"), 0);
    assert_no_stderr("xentrace-summary");
    assert_int_equal(run_reader(&readers[0], "--domain 0 --cpu 0",
                                "clean.bin"), 0);
    assert_no_stderr("xentrace-dump");
}

/*
 * '-' is the standard input for every reader, and so is no file, but for
 * xentrace-top's, which is the host's (test_top.c).
 */
static void test_stdin_without_a_trace(void **state)
{
    unsigned int i;

    (void)state;
    for ( i = 0; i < NR_READERS; i++ )
    {
        const char *stdin_is = strcmp(readers[i].name, "xentrace-top") ? ""
                                                                        : "-";
        char cmd[512];

        reader_command(&readers[i], cmd);
        assert_int_equal(sh("%s %s < %s/clean.bin > %s/out 2> %s/err", cmd,
                            stdin_is, dir, dir, dir), 0);
        assert_no_stderr(readers[i].name);
        assert_int_equal(sh("%s - < %s/text.bin > %s/out 2> %s/err", cmd, dir,
                            dir, dir), 1);
        assert_one_line(readers[i].name, "stdin: not a trace file");
    }
}

/*
 * What the fuzz targets found (tests/fuzz/corpus/NAME/found-*)
 * ===========================================================
 */

/* A TSC span of 2^64 - 1 made the tally's bins 0 ticks wide: rates inf. */
static void test_tsc_span_of_2_64(void **state)
{
    struct trace t = { .n = 0 };
    char *out;

    (void)state;
    batch(&t, 0);
    rec(&t, EV_SCHED_WAKE, 0, 1);
    rec(&t, EV_SCHED_WAKE, UINT64_MAX, 1);
    save(&t, "span.bin", 0);
    assert_int_equal(run_reader(&readers[1], "--json -b 1", "span.bin"), 0);
    assert_int_equal(sh("python3 -c 'import json, sys; json.load(sys.stdin)' "
                        "< %s/out", dir), 0);
    assert_int_equal(run_reader(&readers[3], "-b 1", "span.bin"), 0);
    out = slurp("out");
    assert_null(strstr(out, "nan"));
    assert_null(strstr(out, "inf"));
    free(out);
}

/*
 * xentrace-export --json kept its vCPU slices in an array by CPU number.
 * A CPU number no Xen has (above 16382) never reaches it: the reader
 * skips that batch as damage, counts it and says so in one line, and the
 * export exits 2, as on any damaged input.
 */
static void test_export_cpu_0xffffffff(void **state)
{
    struct trace t = { .n = 0 };
    char *err;

    (void)state;
    batch(&t, 0xffffffffu);
    rec(&t, EV_TO_RUNNING, 100, 1 << 16);
    rec(&t, EV_SCHED_WAKE, 200, 1);
    save(&t, "cpu-max.bin", 0);
    assert_int_equal(run_reader(&readers[2], "", "cpu-max.bin"), 2);
    err = slurp("err");
    assert_non_null(strstr(err, "(a CPU number no Xen has)"));
    assert_null(strchr(strchr(err, '\n') + 1, '\n'));
    free(err);
}

/* xentrace_format: a float for %c, and an empty formats file. */
static void test_format_rules_found(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(sh("printf '0x%08x <%%%%(tsc)c>\\n' > %s/c.formats",
                        EV_SCHED_WAKE, dir), 0);
    assert_int_equal(sh("%s -c 0.001 %s/c.formats %s/clean.bin > %s/out",
                        XT_FORMAT, dir, dir, dir), 0);
    out = slurp("out");
    /* TSCs 1000 to 1350 at 1 kHz are 1.0 to 1.35 s: char 1. */
    assert_string_equal(out, "<\001>\n<\001>\n<\001>\n<\001>\n"
                             "<\001>\n<\001>\n<\001>\n<\001>\n");
    free(out);

    assert_int_equal(sh(": > %s/empty.formats", dir), 0);
    assert_int_equal(sh("%s %s/empty.formats %s/clean.bin > %s/out 2> %s/err",
                        XT_FORMAT, dir, dir, dir, dir), 0);
    out = slurp("out");
    assert_string_equal(out, "");
    free(out);

    assert_int_equal(sh("printf '0 %%%%(1)1000d\\n' > %s/wide.formats", dir),
                     0);
    assert_int_equal(sh("%s %s/wide.formats %s/clean.bin > %s/out 2> %s/err",
                        XT_FORMAT, dir, dir, dir, dir), 1);
    assert_one_line("xentrace_format", "wide.formats:1: Bad format file: "
                    "width or precision over 999");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_on_stdout),
        cmocka_unit_test(test_help_matches_man_page),
        cmocka_unit_test(test_option_list_matches_man_page),
        cmocka_unit_test(test_xentrace_option_list),
        cmocka_unit_test(test_cpu_hz_grammar),
        cmocka_unit_test(test_cpu_hz_every_reader),
        cmocka_unit_test(test_clean_read_is_0),
        cmocka_unit_test(test_damaged_read_is_2),
        cmocka_unit_test(test_refusals_are_1),
        cmocka_unit_test(test_bins_alike),
        cmocka_unit_test(test_numbers_and_lists),
        cmocka_unit_test(test_write_error_is_1),
        cmocka_unit_test(test_filters_that_match_nothing),
        cmocka_unit_test(test_stdin_without_a_trace),
        cmocka_unit_test(test_tsc_span_of_2_64),
        cmocka_unit_test(test_export_cpu_0xffffffff),
        cmocka_unit_test(test_format_rules_found),
    };

    return cmocka_run_group_tests(tests, make_traces, remove_traces);
}
