/*
 * The readers' front end: what xentrace-dump, -summary, -export, -plot and
 * xentrace_format do alike, so that they do it the same way.
 *
 *   options    each reader lists its own in a table (letter, long name,
 *              argument, one line of help); cli_getopt() adds the common
 *              ones (-h/--help, -H/--cpu-hz), handles the shared ones a
 *              reader lists (-b, --from and --to, --xen-version), parses,
 *              checks the operands, and prints the usage and --help from
 *              the same table;
 *   errors     err(3)'s: "xentrace-dump: trace.bin: not a trace file", one
 *              line, on the standard error;
 *   statuses   0 read cleanly, 1 a usage or I/O error or not a trace,
 *              2 read but damaged (every reader's EXIT STATUS);
 *   input      cli_open() and cli_close(): the reader opened, refused with
 *              one line, its damage reported in one line at the end;
 *   output     a JSON string writer, the TSC frequency, the TSC range.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xtread.h"

#define CLI_EXIT_OK         0
#define CLI_EXIT_ERROR      1   /* usage, I/O, not a trace */

/* The TSC frequency when neither --cpu-hz nor the file gives one. */
#define CLI_DEFAULT_HZ      2400000000ULL   /* xenalyze's default */
#define CLI_MIN_HZ          1ULL
#define CLI_MAX_HZ          1000000000000ULL    /* 1000G */

/*
 * One option of a reader.  @ch is the short letter, or from CLI_LONG_ONLY
 * up for an option that has only @name; @arg names its argument (NULL: a
 * flag); @help is its line in --help.
 */
struct cli_option {
    int ch;
    const char *name;
    const char *arg;
    const char *help;
};

#define CLI_LONG_ONLY   256

/*
 * --xen-version x.y, for the readers that decode payloads, which put it in
 * their table: cli_getopt() parses it, cli_open() gives it to the reader.
 */
#define CLI_OPT_XEN_VERSION     (CLI_LONG_ONLY + 64)
#define CLI_XEN_VERSION_OPTION \
    { CLI_OPT_XEN_VERSION, "xen-version", "x.y", \
      "decode in this Xen's event layouts (4.17, 4.20...): by default " \
      "the file's, else 4.17's" }

/*
 * --from or --to, as written: seconds from the origin ("1.5", "-0.25"),
 * or a TSC ("tsc:10000000000").
 */
struct cli_when {
    bool given, is_tsc;
    double seconds;
    uint64_t tsc;
};

/*
 * Options that several readers take, handled by cli_getopt() for the
 * readers that put them in their table: -b/--bins (the time bins, into
 * cli.bins, which holds the reader's default until given), --from and
 * --to (the window, into cli.from and cli.to: see Time below).
 */
#define CLI_MAX_BINS            100000
#define CLI_BINS_OPTION(what) \
    { 'b', "bins", "bins", "bins of " what " (1 to 100000)" }
#define CLI_OPT_FROM            (CLI_LONG_ONLY + 65)
#define CLI_OPT_TO              (CLI_LONG_ONLY + 66)
#define CLI_WINDOW_OPTIONS \
    { CLI_OPT_FROM, "from", "t", "from t on: seconds from the capture's " \
      "start, or tsc:N" }, \
    { CLI_OPT_TO, "to", "t", "up to t: seconds from the capture's start, " \
      "or tsc:N" }

/*
 * -f/--follow: cli_open() follows the input (XT_READ_FOLLOW) for the
 * readers that put it in their table.
 */
#define CLI_FOLLOW_OPTION \
    { 'f', "follow", NULL, "follow a file being written, as tail -f" }

/*
 * --threads n: how many threads a reader of the model may use (relay.h:
 * two at most today); cli.threads, the online CPUs if not given.
 */
#define CLI_MAX_THREADS         1024
#define CLI_OPT_THREADS         (CLI_LONG_ONLY + 67)
#define CLI_THREADS_OPTION \
    { CLI_OPT_THREADS, "threads", "n", "threads to use (default: the " \
      "online CPUs); 2 or more read the file on a thread of its own" }

/* A reader's command line. */
struct cli {
    const struct cli_option *options;   /* its own, up to one with ch 0 */
    const char *operands;               /* for the usage: "[file]" */
    unsigned int min_operands, max_operands;

    /* Filled in by cli_getopt(). */
    uint64_t hz;                        /* -H/--cpu-hz; 0: not given */
    uint32_t xen_version;               /* --xen-version; 0: not given */
    unsigned int bins;                  /* -b: set the default before */
    bool follow;                        /* -f */
    unsigned int threads;               /* --threads, or the default */
    struct cli_when from, to;           /* --from, --to */
};

/*
 * getopt_long(3) over @c's options and the common ones: the next of @c's
 * own, or -1 at the end, once the operands (argv[optind] on) are counted.
 * It handles the common ones itself, and ends the program on a usage
 * error (one line, status 1) and on --help (the usage and the options on
 * the standard output, status 0).
 */
int cli_getopt(struct cli *c, int argc, char *argv[]);

/* Say @fmt (a usage error) in one line, and exit 1. */
void cli_usage_error(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

/*
 * The --cpu-hz grammar: a decimal number (tools/common/numbers.h's digits)
 * with an optional fraction and an optional suffix K, M or G (either
 * case), which must come to a whole number of Hz from CLI_MIN_HZ to
 * CLI_MAX_HZ: "2.4G", "2400M", "2400000000".  A frequency's suffixes are
 * SI, powers of 1000, unlike a size's.  @unit multiplies a number without a suffix (1 for Hz;
 * xentrace_format's -c takes MHz).  NULL with *@hz set, or why not, as
 * strtonum(3) says it: "invalid", "too small", "too large".
 */
const char *cli_parse_hz(const char *arg, uint64_t unit, uint64_t *hz);

/*
 * A number from @min to @max for option @opt ("-b"), as numbers.h's
 * num_parse() takes it (digits only), or exit 1 with one line saying why:
 * "-b 0: too small".
 */
unsigned long long cli_number(const char *opt, const char *arg,
                              unsigned long long min, unsigned long long max);

/*
 * A domain for option @opt, given by its id or by a name that @r's file
 * gives it (xtfile.h, "Domains": its first or its last, in a stream as
 * far as read), or exit 1 with one line.  An argument with a letter is
 * a name; one without, a number as cli_number() takes it.
 */
uint32_t cli_domain(const struct xt_reader *r, const char *opt,
                    const char *arg);

/*
 * A list of domains, "0,2-3,web-01": the same with each name given as its
 * id (cli_domain()), malloc'd.
 */
char *cli_domain_ids(const struct xt_reader *r, const char *opt,
                     const char *arg);

/*
 * Input
 * =====
 */

/* The name of @path in messages: the path, or "stdin" for "-". */
const char *cli_input_name(const char *path);

/*
 * Open @path ("-": the standard input) with xt_reader_open(), or exit 1
 * with one line: "prog: trace.bin: not a trace file", and "no records" for
 * an empty input.  @c's --xen-version, if given, overrides the file's; its
 * -f adds XT_READ_FOLLOW to @flags.
 */
struct xt_reader *cli_open(const struct cli *c, const char *path,
                           unsigned int flags);
/* The same, but NULL with errno (xt_reader_strerror()) where it fails. */
struct xt_reader *cli_try_open(const struct cli *c, const char *path,
                               unsigned int flags);

/*
 * @handler for the first SIGINT, SIGTERM and SIGHUP each (SA_RESETHAND: the
 * next one is the default's, and ends the program); one ignored at start
 * (nohup, a background job) stays ignored.
 */
void cli_on_end_signals(void (*handler)(int));

/*
 * For a streamed @r, after cli_open(): the first SIGINT, SIGTERM or SIGHUP
 * ends a followed input where it is (xt_reader_stop_following()), and
 * lets a pipe run to its end, which its writer (xentrace, given the same
 * signal by the terminal) closes; so the reader still prints what it
 * read.  A second one ends the program.  A signal ignored when it is
 * called stays ignored.  Nothing for an indexed @r.
 */
void cli_end_on_signal(struct xt_reader *r);

/*
 * Report @r's damage, if any, in one line on the standard error, and
 * batches a streamed TSC merge took out of order in another (call it once
 * the reader has read everything: a stream knows both only at its end),
 * and close it.  Returns the exit status, xt_reader_status():
 * XT_EXIT_DAMAGED or CLI_EXIT_OK.
 */
int cli_close(struct xt_reader *r, const char *path);

/*
 * The TSC frequency for times: -H's, else the file's, else
 * CLI_DEFAULT_HZ; *@assumed (if not NULL) says it is the last.
 */
uint64_t cli_tsc_hz(const struct cli *c, const struct xt_reader_info *info,
                    bool *assumed);

/*
 * Time
 * ====
 *
 * Every reader counts seconds from one origin, cli_origin(), and reads
 * --from and --to as seconds from it, so that "1.5" is one moment in the
 * summary, the exports and xentrace-dump -s alike.
 */

/*
 * Time 0: the capture's start (TRC_XT_START) where the file records it,
 * else the first TSC in the file (0 for a stream not read yet: the caller
 * takes its first record's).
 */
uint64_t cli_origin(struct xt_reader *r);

/*
 * @c's --from to --to at @hz from @r's origin, as the TSCs the model
 * takes (0, 0: all; a time before TSC 1 or past the last is clamped), or
 * a usage error if --to is not after --from, or if they are in seconds
 * and @r a stream whose origin is not known before its records (no
 * TRC_XT_START: upstream's).
 */
void cli_window(const struct cli *c, struct xt_reader *r, uint64_t hz,
                uint64_t *from_tsc, uint64_t *to_tsc);

/*
 * Intervals every @step TSC ticks from @origin, as xentrace-summary
 * --interval and xentrace-top -d cut the trace: interval k is
 * [origin + k * step, origin + (k + 1) * step), k < 0 before the origin.
 * cli_cuts_start() finds the one that holds @first (the trace's, or a
 * stream's once its first record is in), cli_cuts_next() moves to the
 * next; @end is where the current one ends (UINT64_MAX past the TSCs).
 * Unsigned arithmetic: a hostile file's TSCs may be anywhere.
 */
struct cli_cuts {
    uint64_t origin, step;
    int64_t k;
    uint64_t end;
};

void cli_cuts_start(struct cli_cuts *c, uint64_t first);
void cli_cuts_next(struct cli_cuts *c);

/*
 * Output
 * ======
 */

/*
 * The first and the last TSC of @r over every CPU; false, and both 0,
 * when no record carries one.
 */
bool cli_tsc_range(struct xt_reader *r, uint64_t *first, uint64_t *last);

/*
 * @s as a JSON string, quotes included: '"' and '\\' escaped, control
 * characters as \u00XX, bytes that are not UTF-8 as U+FFFD.
 */
void cli_json_string(FILE *f, const char *s);

/*
 * Flush @f (and close it unless it is stdout), or exit 1 naming @name: a
 * full disk or a closed pipe is an error, not a short output.
 */
void cli_close_output(FILE *f, const char *name);

#endif /* CLI_H */
