/*
 * xentrace: capture Xen's trace buffers into a trace file.
 *
 *   capture thread (main, take.c)          writer thread (output.c)
 *   -----------------------------          ------------------------
 *   pass: every mapped CPU's window        once half the pool is queued
 *     cons..prod; copy them into the         (or a flush or the end
 *     CPUs' chunks, checking them as         comes), take the oldest 1 MiB
 *     they are copied; release them        write them as batches, in one
 *   once a chunk holds a batch, or           writev(2); give them back
 *     records are a second old: queue      again while 1 MiB is queued
 *     every CPU's chunk, ascending
 *   wait for VIRQ_TBUF, or until the
 *     busiest buffer reaches the aim
 *
 * No notification is missed by waiting after a pass: one that Xen sent
 * during the pass stays pending on the event channel, and the wait
 * returns at once.  How long the wait is, a timer aimed at the moment the
 * busiest buffer reaches a fill that adapts to the rate and to losses
 * seen, is pace.c's.  The writer thread is woken once half its pool is
 * queued, by the epoch queued because records were a second old,
 * or when records queued are a second old; not for each batch.
 *
 * What it buys (bench/run-capture's fixed rates, mixed workload, 2
 * pCPUs, -S 32, medians of 5 runs of 3 s beside Debian's xentrace, on a
 * quiet 2-core machine; docs/benchmarks.md): at 1 M records/s per CPU
 * 358 wake-ups a second against Debian's 354 (895 before the timer aimed
 * at a fill), none lost in 5 runs of 5, as Debian's, under chrt -f 10
 * and --realtime too; at 2 M 1311 wake-ups against 617, 3.5k records
 * lost a run against Debian's 0 (3 clean runs of 5), under chrt -f none
 * in 5 of 5, as Debian's; at 4 M 169k lost against 73k, under chrt -f
 * 1.2k against 2.8k, --realtime 213.  The capture thread wakes once per
 * notification, as Debian's does, where it runs on time; the writer
 * thread, at half its pool queued, about 10 times a second at 1 M.  After
 * a late pass it wakes earlier: tried and left, a margin that counts only
 * what came in while the capture thread ran on time (what a pass finds
 * past half after the notification, or past what the rate gave since its
 * timer was due, taken for the scheduler's lateness) cut the wake-ups to
 * 368, 692 and 3336 a second at 1, 2 and 4 M (against 385, 1263, 3714),
 * but lost 4.4x the records at 2 M, 1.9x at 4 M and 20x under chrt -f at
 * 4 M: where the producers take the CPUs, waking earlier after a late
 * pass is what keeps the records.  --realtime runs the capture thread at
 * SCHED_FIFO 10 and the writer at 9, memory locked.
 *
 * Chunks are queued a whole pass's worth at a time, every CPU's in
 * ascending order, so that the file is made of epochs (one batch per CPU
 * with records, covering the same passes).  xenalyze 4.17 depends on
 * it: written a CPU at a time as each filled, a file with busy and quiet
 * CPUs led it to take a CPU's late batch for a new CPU and fail.
 *
 * Every window is checked as it is copied (take.c, window.c): the
 * buffers are shared pages that any dom0 process can write, and what is
 * not Xen's records (a cons moved into a record, bytes written over) is
 * skipped to where Xen's records provably resume, counted, and marked in
 * the file (TRC_XT_SKIPPED, and a lost-records record for xenalyze),
 * instead of being written as records that readers then reject.
 *
 * The data path.  What is written is bytes xentrace checked in its own
 * memory: written straight from the shared pages, they could change
 * between the check and the kernel's copy.  So the copy out of Xen's
 * buffers stays, as the one pass over the data, and the rest is cut
 * around it:
 *
 *   - the check is fused with the copy, 16 KiB at a time, each step
 *     walked while it is in the L1 cache, and every CPU's window of a
 *     pass together, two walks side by side (a walk is a chain of
 *     dependent loads, one a record; two chains run at once), and a
 *     window alone as two halves, split where its records seem to start
 *     again (window.c): the check of a window alone 0.12 -> 0.08 CPU-s
 *     per GB at 32 pages, 0.14 -> 0.10 at 8192.  Walked after the whole
 *     copy, an 8192-page buffer's window was out of the cache again:
 *     copy, walk and write were three passes over DRAM;
 *   - the chunks copied into are the batches, whole pages, page-aligned,
 *     so they are written as they are, several in one writev(2) of 1 MiB
 *     or more; with O_DIRECT (by default, where the file system takes
 *     it: open_output()), the same writes go past the page cache, and
 *     the copy into the chunks is the staging copy O_DIRECT needs anyway
 *     (Xen's data starts 8 bytes into its page).  Chunks in transparent
 *     huge pages cut O_DIRECT's CPU per GB by 6-13%, but lost records at
 *     1 M records/s per CPU in 2 runs of 5 where 4 KiB pages lost none
 *     (under chrt -f and --realtime too): with defrag at madvise, a
 *     first touch may compact memory before it returns.  Not taken.
 *
 * What it costs, CPU-s per GB written (flood on 2 simulated pCPUs, 32,
 * 1024 and 8192 pages, medians of 5 captures of 1 s, taking turns, on a
 * quiet 2-core machine, so ratios within the run only; bench/capture_floor
 * for the floors, on a ring of real records flushed from the cache): the
 * copy alone 0.11-0.16, with the check 0.19-0.25, so the check 0.08-0.10;
 * a bare writev(2) of the ring's windows 0.29-0.32 to tmpfs, 0.23-0.31 to
 * ext4; xentrace's path without the simulated host, through the page
 * cache, 0.47-0.52 and 0.41-0.46, with O_DIRECT on ext4 0.27-0.32.  The
 * issue's designs cost no less: (a) check each window in the ring, then
 * write it from there (not safe: another process can change it between
 * the two) 0.41-0.46 and 0.36-0.42; (b) write from the ring, then check
 * the file's page-cache copy through a mapping 0.40-0.50 and 0.37-0.41;
 * (c) copy and check straight into the file's pages through a mapping, no
 * second copy, 0.54-0.59 and 0.65-2.5: tmpfs must zero each page it
 * maps, which a whole-page write(2) spares it, and ext4 must reserve each
 * page it dirties.  Walking the ring where it is, the check waits on DRAM
 * a record at a time; the copy brings each 16 KiB into the cache in one
 * sweep first.  The capture, by default (O_DIRECT where the file system
 * takes it): on ext4 0.32-0.48 against Debian's 0.26-0.76, 0.61-1.22x
 * (0.74-1.35 through the page cache, --buffered); on tmpfs 0.63-0.95
 * against 0.32-0.48, 1.6-2.1x, where O_DIRECT changes nothing (6 captures
 * each way: 0.72-0.81 and 0.72-0.75).  The rest, beyond the floors, is
 * what the producers sharing the cores cost both tracers (each wakes
 * about 4,500 times a second flat out at 32 pages).
 *
 * The copy and the check, 0.19-0.25 together, are the price of a file
 * that xenalyze reads whatever another process did to the shared pages;
 * so capture to tmpfs cannot reach 0.9x Debian's, which writes the ring
 * as it is: a bare writev(2) of the same bytes is already 0.6-0.9x its
 * capture, and ours adds the copy and the check to one.  On a disk,
 * O_DIRECT takes away the page cache's copy, which pays for them.  At a
 * fixed rate of 1 M records a second per CPU, perf(1) puts 16% of
 * xentrace's CPU in the copy and 15% in the check.
 *
 * Draining never waits for the disk: the capture thread only copies into
 * chunks of memory, laid out as the batches they will be written as.
 * Only when the writer falls a whole pool of chunks behind does the
 * capture thread wait for it; then Xen's buffers fill and Xen counts
 * what it loses, in lost-records markers as always.
 *
 * Exit.  A signal (or -T) ends the pass in progress; then tracing is
 * disabled (a barrier in Xen: what was recorded is in the buffers, lost
 * counts included), one more pass drains every CPU, the writer closes the
 * file, the event mask goes back as it was and, after -c, the CPU mask
 * to all CPUs, Xen's default: Xen cannot say what it was (get_info
 * returns no CPU mask), so a mask another program set is not kept.  A
 * failed write (a full disk, -r's reserve, a closed pipe) ends the
 * capture the same way, without the last pass, and exits 1 after its one
 * line and the exit table, which counts what the file holds (but after a
 * closed pipe: no file is left to describe).  A fatal error
 * exits through err(3); restore_host(), an atexit handler, then disables
 * tracing, puts the masks back so and lets the writer close the file,
 * which stays a valid trace file up to its last complete batch.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "control.h"
#include "dom0.h"
#include "libxentrace.h"
#include "names.h"
#include "naming.h"
#include "numbers.h"
#include "options.h"
#include "output.h"
#include "pace.h"
#include "take.h"
#include "tsc.h"
#include "window.h"
#include "xtevents.h"
#include "xtfile.h"

#define PROGRESS_MS      1000
#define TSC_MEASURE_NS   50000000L  /* measuring the TSC against the clock */
#define POOL_BYTES       (16UL << 20)   /* chunks, unless more CPUs need more */
#define RT_PRIORITY      10         /* --realtime: SCHED_FIFO, under IRQs */
#define RT_WRITER        9          /* --realtime: the writer's, under it */
#define LOST_WARN_PERCENT 1         /* at exit, a loss worth a line */

struct options {
    const char *cpu_spec;               /* -c; parsed once CPUs are known */
    struct xt_dom_filter doms;          /* -d; none: every domain */
    const char *doms_named;             /* -d with names, for xenstore */
    struct xt_event_switches switches;  /* --event */
    bool discard;                       /* -D */
    uint32_t evt_mask;                  /* -e; 0: keep Xen's */
    unsigned long long ring_bytes;      /* -M; 0: write as we go */
    unsigned long long reserve_mb;      /* -r */
    unsigned int tbuf_pages;            /* -S */
    bool tbuf_pages_given;              /*   given, not the default */
    unsigned int poll_ms;               /* -s */
    unsigned int seconds;               /* -T; 0: until a signal */
    bool keep_tracing;                  /* -x */
    bool start_disabled;                /* -X */
    unsigned long long batch_bytes;     /* --batch-size */
    bool direct;                        /* --direct: O_DIRECT or fail */
    bool buffered;                      /* --buffered: never O_DIRECT */
    bool quiet;                         /* --quiet */
    bool realtime;                      /* --realtime */
    const char *control;                /* --control: its socket */
    const char *dom0;                   /* --dom0's events; NULL: none */
    bool dom0_mono;                     /* --dom0-clock mono */
    const char *file;                   /* NULL: standard output */
    const char *name;                   /* of the output, for messages */
};

/* The capture thread's side. */
struct capture {
    struct take take;           /* the buffers, into chunks: take.c */
    const struct options *opt;
    struct pacing pace;
    struct naming *naming;      /* the domains' names; NULL: none */
    struct control *control;    /* --control; NULL: none */
    struct dom0 *dom0;          /* --dom0; NULL: none */
    struct xt_dom0_meta dom0_meta;
    /* The masks in force (xtfile.h, "Masks"), and whether a change waits
       to be told in the stream. */
    uint32_t evt_mask;
    uint8_t *cpu_mask;          /* a bitmap of the host's CPUs */
    struct xt_dom_filter doms;  /* none: every domain */
    struct xt_event_switches switches;
    bool masks_due;
};

/* What start-up changed on the host, for restore_host() to undo. */
static struct {
    struct xt_host *h;
    bool disable;               /* disable tracing (set_size may enable it) */
    bool evt_mask_set;
    uint32_t saved_evt_mask;    /* in force before -e */
    bool cpu_mask_set;          /* -c: set every CPU back */
    bool dom_filter_set;        /* -d: turn Xen's filter off */
    const struct xt_event_switches *switches;   /* each back to the mask */
    struct capture *cap;        /* let the writer thread close the file */
    struct control *control;    /* --control's socket, to remove */
    struct dom0 *dom0;          /* --dom0's tracefs instance, to remove */
    bool gone;                  /* the connection to the host is lost */
    bool fatal;                 /* exiting after a fatal error */
} host;

static volatile sig_atomic_t interrupted;

/* The signals that end a capture; blocked but while it waits. */
static const int exit_signals[] = { SIGHUP, SIGINT, SIGTERM, SIGALRM };
#define NR_EXIT_SIGNALS  (sizeof(exit_signals) / sizeof(exit_signals[0]))

static const char synopsis[] =
    "usage: xentrace [-DVXhx] [-c cpu-mask] [-d domains] [-e evt-mask] "
    "[-M size]\n"
    "                [-r MB] [-S pages] [-s ms] [-T seconds] "
    "[--batch-size bytes]\n"
    "                [--buffered | --direct] [--control path] "
    "[--dom0 events]\n"
    "                [--dom0-clock clock] [--event switch] [--quiet] "
    "[--realtime]\n"
    "                [file]\n";

/* -@opt's @arg from @min to @max @unit, or its error and range. */
static unsigned long long number(char opt, const char *arg,
                                 unsigned long long min,
                                 unsigned long long max, const char *unit)
{
    unsigned long long n;
    const char *why = num_parse(arg, min, max, &n);

    if ( why )
        errx(1, "-%c %s: %s (%llu to %llu %s)", opt, arg, why, min, max,
             unit);
    return n;
}

/* @bytes as a size argument spells it: 64k, 256M, 1024G. */
static const char *size_text(unsigned long long bytes, char buf[32])
{
    static const char suffix[] = "kMG";
    int i = -1;

    while ( i < 2 && bytes && !(bytes % 1024) )
    {
        bytes /= 1024;
        i++;
    }
    snprintf(buf, 32, "%llu%.*s", bytes, i >= 0, i >= 0 ? &suffix[i] : "");
    return buf;
}

static unsigned long long size(const char *opt, const char *arg,
                               unsigned long long min, unsigned long long max)
{
    unsigned long long n;
    const char *why = num_parse_size(arg, min, max, &n);
    char lo[32], hi[32];

    /* "invalid" says what a size is; a size out of range, the range. */
    if ( why && !strncmp(why, "invalid", 7) )
        errx(1, "%s %s: %s", opt, arg, why);
    if ( why )
        errx(1, "%s %s: %s (%s to %s bytes)", opt, arg, why,
             size_text(min, lo), size_text(max, hi));
    return n;
}

#define NAMES_WIDTH     29      /* "  -x, --dont-disable-tracing " */

/* One option of --help: its @names, then what it does, @fmt. */
static void __attribute__((format(printf, 3, 4)))
option(FILE *to, const char *names, const char *fmt, ...)
{
    va_list ap;

    if ( strlen(names) < NAMES_WIDTH )
        fprintf(to, "%-*s", NAMES_WIDTH, names);
    else
        fprintf(to, "%s\n%*s", names, NAMES_WIDTH, "");
    va_start(ap, fmt);
    vfprintf(to, fmt, ap);
    va_end(ap);
    fputc('\n', to);
}

/* The options, what each does and takes, as xentrace(8) lists them. */
static void print_options(FILE *to)
{
    char lo[32], hi[32], dflt[32];

    option(to, "  -c, --cpu-mask cpu-mask",
           "trace only these CPUs: all, 0xHEX, or a list such as 0-3,8");
    option(to, "  -d, --domains domains",
           "trace only these domains: ids or xenstore's names, such as "
           "0,3-5,web-01 (at most %u ranges)", XT_DOM_RANGES_MAX);
    option(to, "  -D, --discard-buffers",
           "drop what the buffers hold at the start");
    option(to, "  -e, --evt-mask evt-mask",
           "trace only these classes: names such as sched,hvm, or a mask");
    option(to, "  -M, --memory-buffer size",
           "keep the newest size bytes, written at the end (%s to %s)",
           size_text(MIN_RING_BYTES, lo), size_text(MAX_RING_BYTES, hi));
    option(to, "  -r, --reserve-disk-space MB",
           "stop before less than MB would be left on the disk (0 to %llu)",
           MAX_RESERVE_MB);
    option(to, "  -S, --trace-buf-size pages",
           "pages of Xen's buffer a CPU; given, resizes Xen's buffers "
           "where it can (1 to %u; %u)",
           MAX_TBUF_PAGES, DEFAULT_TBUF_PAGES);
    option(to, "  -s, --poll-sleep ms",
           "the longest wait between passes (1 to %u; %u)", MAX_POLL_MS,
           DEFAULT_POLL_MS);
    option(to, "  -T, --time-interval seconds",
           "stop after seconds (1 to %u)", MAX_SECONDS);
    option(to, "  -V, --version", "print the version and exit");
    option(to, "  -X, --start-disabled",
           "leave tracing off: take what is traced once it is turned on");
    option(to, "  -x, --dont-disable-tracing", "leave tracing on at the end");
    option(to, "      --batch-size bytes",
           "records a CPU's batch holds before it is written (%s to %s; %s)",
           size_text(MIN_BATCH_BYTES, lo), size_text(MAX_BATCH_BYTES, hi),
           size_text(DEFAULT_BATCH_BYTES, dflt));
    option(to, "      --buffered",
           "write the file through the page cache, not with O_DIRECT");
    option(to, "      --control path",
           "take xentrace-ctl's requests on this socket (mode 0600)");
    option(to, "      --direct",
           "write the file with O_DIRECT, or fail where it cannot be "
           "(the default tries it)");
    option(to, "      --dom0 events",
           "also record dom0's kernel events, on the TSC: sched, irq, "
           "softirq, xen, all, or SYSTEM:EVENT names");
    option(to, "      --dom0-clock clock",
           "ftrace's clock for --dom0: x86-tsc (the default where it has "
           "it), or mono, put on the TSC");
    option(to, "      --event switch",
           "EVENT=on: trace the event (a name or number) whatever -e says; "
           "EVENT=off: never (up to %u)", XT_EVENT_SWITCHES_MAX);
    option(to, "      --quiet", "no progress line on a terminal");
    option(to, "      --realtime", "run at SCHED_FIFO, memory locked");
    option(to, "  -h, --help", "print this help and exit");
}

static void __attribute__((noreturn)) usage(FILE *to, int status)
{
    fputs(synopsis, to);
    if ( !status )
        print_options(to);
    exit(status);
}

/*
 * 256 KiB batches keep padding near 1%.  A flight recorder keeps whole
 * flushes, so its batches are smaller: an eighth of the ring, so that it
 * holds several flushes and its newest data is close to -M's size.
 */
static unsigned long long default_batch_bytes(unsigned long long ring_bytes)
{
    unsigned long long b = ring_bytes / 8 & ~(MIN_BATCH_BYTES - 1);

    if ( !ring_bytes || b > DEFAULT_BATCH_BYTES )
        return DEFAULT_BATCH_BYTES;
    return b < MIN_BATCH_BYTES ? MIN_BATCH_BYTES : b;
}

/* Whether a list of domains names one, rather than all by number. */
static bool has_names(const char *list)
{
    char *copy = strdup(list), *item, *save;
    bool named = false;

    if ( !copy )
        err(1, "memory");
    for ( item = strtok_r(copy, ",", &save); item && !named;
          item = strtok_r(NULL, ",", &save) )
        named = names_is_name(item);
    free(copy);
    return named;
}

/* The domain xenstore names @name, at the start or since (naming.c). */
static bool xenstore_domain(void *ctx, const char *name, uint32_t *domid)
{
    unsigned int i, n = 0;
    const struct xt_domain *d = ctx ? naming_domains(ctx, &n) : NULL;

    for ( i = 0; i < n; i++ )
        if ( !strcmp(d[i].name, name) )
        {
            *domid = d[i].domid;
            return true;
        }
    return false;
}

/*
 * A list of domains by number or by name (xenstore's, through @naming)
 * into @doms: NULL, or why not, as a line's end (into @why_buf).
 */
static const char *parse_named_domains(struct naming *naming,
                                       const char *arg,
                                       struct xt_dom_filter *doms,
                                       char *why_buf, size_t size)
{
    char *unknown, *ids = names_to_ids(arg, xenstore_domain, naming,
                                       &unknown);
    const char *why;

    if ( unknown )
    {
        snprintf(why_buf, size, "%s: %s", unknown, naming
                 ? "no domain of that name in xenstore"
                 : "no xenstore to ask for names");
        free(unknown);
        return why_buf;
    }
    if ( !ids )
        err(1, "memory");
    why = parse_domains(ids, doms);
    free(ids);
    return why;
}

/*
 * --event's EVENT=on|off, and xentrace-ctl's, which may also say
 * EVENT=mask: the event by the catalogue's name or as a number (0x...
 * or decimal), into @event and @state (XEN_TBUF_EVENT_*); NULL, or why
 * not.
 */
static const char *parse_switch(const char *arg, uint32_t *event,
                                unsigned int *state)
{
    static const char *const states[] = {
        [XEN_TBUF_EVENT_OFF] = "off", [XEN_TBUF_EVENT_ON] = "on",
        [XEN_TBUF_EVENT_MASKS] = "mask",
    };
    const char *eq = strrchr(arg, '=');

    if ( !eq || eq == arg )
        return "not EVENT=on or EVENT=off";
    for ( *state = 0; *state < 3 && strcmp(eq + 1, states[*state]); )
        ++*state;
    if ( *state == 3 )
        return "not EVENT=on or EVENT=off";
    return xt_event_parse(arg, eq - arg, event);
}

/* @event's switch to @state in @s, as Xen keeps it; false if full. */
static bool note_switch(struct xt_event_switches *s, uint32_t event,
                        unsigned int state)
{
    unsigned int i;

    for ( i = 0; i < s->nr && (s->sw[i] & ~XT_EVENT_ON) != event; i++ )
        ;
    if ( i < s->nr )
        s->sw[i] = s->sw[--s->nr];
    if ( state == XEN_TBUF_EVENT_MASKS )
        return true;
    if ( s->nr == XT_EVENT_SWITCHES_MAX )
        return false;
    s->sw[s->nr++] = event | (state == XEN_TBUF_EVENT_ON ? XT_EVENT_ON : 0);
    return true;
}

/* --event EVENT=on|off, once per event. */
static void add_switch(struct options *o, const char *arg)
{
    unsigned int state;
    uint32_t event;
    const char *why = parse_switch(arg, &event, &state);

    if ( !why && state == XEN_TBUF_EVENT_MASKS )
        why = "not EVENT=on or EVENT=off";
    if ( why )
        errx(1, "--event %s: %s", arg, why);
    if ( !note_switch(&o->switches, event, state) )
        errx(1, "--event %s: more than %u events switched", arg,
             XT_EVENT_SWITCHES_MAX);
}

static void parse_options(int argc, char *argv[], struct options *o)
{
    enum { OPT_BATCH = 256, OPT_BUFFERED, OPT_CONTROL, OPT_DIRECT, OPT_QUIET,
           OPT_REALTIME, OPT_EVENT, OPT_DOM0, OPT_DOM0_CLOCK };
    static const struct option longopts[] = {
        { "cpu-mask",             required_argument, NULL, 'c' },
        { "domains",              required_argument, NULL, 'd' },
        { "discard-buffers",      no_argument,       NULL, 'D' },
        { "evt-mask",             required_argument, NULL, 'e' },
        { "memory-buffer",        required_argument, NULL, 'M' },
        { "reserve-disk-space",   required_argument, NULL, 'r' },
        { "trace-buf-size",       required_argument, NULL, 'S' },
        { "poll-sleep",           required_argument, NULL, 's' },
        { "time-interval",        required_argument, NULL, 'T' },
        { "version",              no_argument,       NULL, 'V' },
        { "start-disabled",       no_argument,       NULL, 'X' },
        { "dont-disable-tracing", no_argument,       NULL, 'x' },
        { "batch-size",           required_argument, NULL, OPT_BATCH },
        { "buffered",             no_argument,       NULL, OPT_BUFFERED },
        { "control",              required_argument, NULL, OPT_CONTROL },
        { "direct",               no_argument,       NULL, OPT_DIRECT },
        { "help",                 no_argument,       NULL, 'h' },
        { "quiet",                no_argument,       NULL, OPT_QUIET },
        { "realtime",             no_argument,       NULL, OPT_REALTIME },
        { "event",                required_argument, NULL, OPT_EVENT },
        { "dom0",                 required_argument, NULL, OPT_DOM0 },
        { "dom0-clock",           required_argument, NULL, OPT_DOM0_CLOCK },
        { NULL, 0, NULL, 0 },
    };
    const char *why;
    uint32_t mask;
    int ch;

    *o = (struct options){
        .tbuf_pages = DEFAULT_TBUF_PAGES,
        .poll_ms = DEFAULT_POLL_MS,
    };

    while ( (ch = getopt_long(argc, argv, "c:d:De:hM:r:S:s:T:VXx", longopts,
                              NULL)) != -1 )
        switch ( ch )
        {
        case 'c':
            o->cpu_spec = optarg;
            break;
        case 'd':
            /* Names wait for xenstore (start_masks()); numbers not. */
            o->doms_named = has_names(optarg) ? optarg : NULL;
            if ( !o->doms_named && (why = parse_domains(optarg, &o->doms)) )
                errx(1, "-d %s: %s", optarg, why);
            break;
        case 'D':
            o->discard = true;
            break;
        case 'e':
            /* Several -e add up, as upstream's keywords do. */
            if ( (why = parse_evt_mask(optarg, &mask)) )
                errx(1, "-e %s: %s", optarg, why);
            o->evt_mask |= mask;
            break;
        case 'M':
            o->ring_bytes = size("-M", optarg, MIN_RING_BYTES,
                                 MAX_RING_BYTES);
            break;
        case 'r':
            o->reserve_mb = number('r', optarg, 0, MAX_RESERVE_MB, "MB");
            break;
        case 'S':
            o->tbuf_pages = number('S', optarg, 1, MAX_TBUF_PAGES, "pages");
            o->tbuf_pages_given = true;
            break;
        case 's':
            o->poll_ms = number('s', optarg, 1, MAX_POLL_MS, "ms");
            break;
        case 'T':
            o->seconds = number('T', optarg, 1, MAX_SECONDS, "seconds");
            break;
        case 'V':
            printf("xentrace (xentrace-ng) %s\n", XT_VERSION);
            exit(0);
        case 'X':
            o->start_disabled = true;
            break;
        case 'x':
            o->keep_tracing = true;
            break;
        case OPT_BATCH:
            o->batch_bytes = size("--batch-size", optarg, MIN_BATCH_BYTES,
                                  MAX_BATCH_BYTES);
            break;
        case OPT_BUFFERED:
            o->buffered = true;
            break;
        case OPT_CONTROL:
            o->control = optarg;
            break;
        case OPT_DIRECT:
            o->direct = true;
            break;
        case 'h':
            usage(stdout, 0);
        case OPT_QUIET:
            o->quiet = true;
            break;
        case OPT_EVENT:
            add_switch(o, optarg);
            break;
        case OPT_DOM0:
            if ( (why = dom0_parse(optarg)) )
                errx(1, "--dom0 %s: %s", optarg, why);
            o->dom0 = optarg;
            break;
        case OPT_DOM0_CLOCK:
            if ( strcmp(optarg, "x86-tsc") && strcmp(optarg, "mono") )
                errx(1, "--dom0-clock %s: not x86-tsc or mono", optarg);
            o->dom0_mono = !strcmp(optarg, "mono");
            break;
        case OPT_REALTIME:
            o->realtime = true;
            break;
        default:
            usage(stderr, 1);
        }
    argc -= optind;
    argv += optind;

    if ( argc > 1 )
        usage(stderr, 1);
    /* "-" is the standard output, as no file is. */
    o->file = argc && strcmp(argv[0], "-") ? argv[0] : NULL;
    if ( (o->direct && !o->file) || (o->direct && o->buffered) )
        usage(stderr, 1);
    if ( !o->batch_bytes )
        o->batch_bytes = default_batch_bytes(o->ring_bytes);
    o->name = o->file ? o->file : "standard output";
}

static uint64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static uint64_t now_ms(void)
{
    return now_ns() / 1000000;
}

/* Whether @error is -r's stop (the reserve reached) rather than a fault. */
static bool reserve_reached(const struct options *opt, int error)
{
    return error == ENOSPC && opt->reserve_mb;
}

/* Say why the file could not be written: one line. */
static void writer_failed(const struct options *opt, int error)
{
    if ( reserve_reached(opt, error) )
        warnx("stopping: less than %llu MB would be left on %s",
              opt->reserve_mb, opt->name);
    else
    {
        errno = error;
        warn("%s", opt->name);
    }
}

/*
 * Capture
 * =======
 */

/* The sum of every CPU's counts. */
static struct cpu_count count_all(const struct capture *c)
{
    struct cpu_count all = { 0 };
    unsigned int cpu;

    for ( cpu = 0; cpu < c->take.nr_cpus; cpu++ )
    {
        const struct cpu_count *n = &c->take.check[cpu].count;

        all.records += n->records;
        all.bytes += n->bytes;
        all.lost += n->lost;
        all.skipped += n->skipped;
    }
    return all;
}

/* The live line on a terminal: rates since @last, at @last_ms. */
static void show_progress(const struct capture *c, uint64_t *last_ms,
                          struct cpu_count *last)
{
    uint64_t now = now_ms();
    struct cpu_count all = count_all(c);
    double seconds = (now - *last_ms) / 1000.0;

    fprintf(stderr, "\r%12.0f records/s %9.1f MB/s %12llu lost ",
            (all.records - last->records) / seconds,
            (all.bytes - last->bytes) / seconds / 1e6,
            (unsigned long long)all.lost);
    if ( all.skipped )
        fprintf(stderr, "%llu bytes skipped ",
                (unsigned long long)all.skipped);
    *last_ms = now;
    *last = all;
}

/*
 * The exit signals blocked, from the test of interrupted to the wait
 * that lets them in, @wait_mask (see capture()); *@wait_mask is the mask
 * found, without them, for the waits and to set back.
 */
static void block_exit_signals(sigset_t *wait_mask)
{
    sigset_t block;
    unsigned int i;

    sigemptyset(&block);
    for ( i = 0; i < NR_EXIT_SIGNALS; i++ )
        sigaddset(&block, exit_signals[i]);
    if ( (errno = pthread_sigmask(SIG_BLOCK, &block, wait_mask)) )
        err(1, "cannot block the exit signals");
    for ( i = 0; i < NR_EXIT_SIGNALS; i++ )
        sigdelset(wait_mask, exit_signals[i]);
}

/*
 * After a pass that waits for none: let an exit signal that came in be
 * caught, so that a flood that never leaves time to wait still ends at a
 * signal.
 */
static void take_exit_signal(const sigset_t *wait_mask)
{
    sigset_t pending, blocked;
    unsigned int i;

    if ( sigpending(&pending) )
        err(1, "sigpending");
    for ( i = 0; i < NR_EXIT_SIGNALS; i++ )
        if ( sigismember(&pending, exit_signals[i]) )
            break;
    if ( i == NR_EXIT_SIGNALS )
        return;
    if ( pthread_sigmask(SIG_SETMASK, wait_mask, &blocked) ||
         pthread_sigmask(SIG_SETMASK, &blocked, NULL) )
        errx(1, "cannot change the signal mask");
}

/* The domain filter to tell in the file: NULL if every domain. */
static const struct xt_dom_filter *dom_filter(const struct capture *c)
{
    return c->doms.nr ? &c->doms : NULL;
}

/* What the file tells with the masks. */
static struct xt_masks_more masks_more(const struct capture *c)
{
    return (struct xt_masks_more){
        .doms = dom_filter(c),
        .switches = c->switches.nr ? &c->switches : NULL,
    };
}

/*
 * A domain created or renamed since the last pass, told in the stream:
 * one a pass (put_domain()), the next at the next.
 */
static void tell_domain(struct capture *c, uint64_t now)
{
    const struct xt_domain *d;

    if ( !c->naming )
        return;
    naming_poll(c->naming);
    if ( (d = naming_next(c->naming)) && put_domain(&c->take, d, now) )
        naming_told(c->naming);
}

/* @req's CPU mask, set on the host and in force from now. */
static void set_cpu_mask(struct capture *c, struct control_request *req)
{
    unsigned int max_cpus = c->take.nr_cpus;
    uint8_t *bitmap = malloc((max_cpus + 7) / 8);
    const char *why;

    if ( !bitmap )
        err(1, "memory");
    if ( (why = parse_cpu_mask(req->arg, max_cpus, bitmap)) )
        control_reply(req, "error: cpu-mask %s: %s", req->arg, why);
    else if ( (host.cpu_mask_set = true,
               xt_set_cpu_mask(c->take.h, bitmap, max_cpus)) )
        control_reply(req, "error: cannot set the CPU mask: %s",
                      strerror(errno));
    else
    {
        memcpy(c->cpu_mask, bitmap, (max_cpus + 7) / 8);
        c->masks_due = true;
        control_reply(req, "ok: CPU mask %s", req->arg);
    }
    free(bitmap);
}

/* @req's event mask, set on the host and in force from now. */
static void set_evt_mask(struct capture *c, struct control_request *req)
{
    const char *why;
    uint32_t mask;

    if ( (why = parse_evt_mask(req->arg, &mask)) )
        control_reply(req, "error: evt-mask %s: %s", req->arg, why);
    else if ( c->take.filter && !dom_filter_sees_context(mask) )
        control_reply(req, "error: evt-mask %s: the domain filter in dom0 "
                      "needs the scheduler's records", req->arg);
    /* Put back at exit, as -e's is. */
    else if ( !host.evt_mask_set &&
              xt_get_evt_mask(c->take.h, &host.saved_evt_mask) )
        control_reply(req, "error: cannot read the event mask: %s",
                      strerror(errno));
    else if ( (host.evt_mask_set = true, xt_set_evt_mask(c->take.h, mask)) )
        control_reply(req, "error: cannot set the event mask: %s",
                      strerror(errno));
    else
    {
        c->evt_mask = mask;
        c->masks_due = true;
        control_reply(req, "ok: event mask 0x%08x", mask);
    }
}

/*
 * @req's domain filter ("all": none), in force from now: Xen's, or if it
 * has none the same filter applied in dom0, as -d does.
 */
static void set_domains(struct capture *c, struct control_request *req)
{
    struct xt_dom_filter doms = { 0 };
    const char *why;
    char text[64], why_buf[128];

    if ( strcmp(req->arg, "all") &&
         (why = parse_named_domains(c->naming, req->arg, &doms, why_buf,
                                    sizeof(why_buf))) )
    {
        control_reply(req, "error: domains %s: %s", req->arg, why);
        return;
    }
    doms.in_dom0 = !xt_has_dom_filter(c->take.h);
    if ( doms.in_dom0 && doms.nr && !dom_filter_sees_context(c->evt_mask) )
    {
        control_reply(req, "error: domains %s: Xen has no domain filter, "
                      "and filtering in dom0 needs the scheduler's records: "
                      "add sched to the event mask", req->arg);
        return;
    }
    if ( !doms.in_dom0 &&
         (host.dom_filter_set = true,
          xt_set_dom_filter(c->take.h, doms.nr ? doms.range : NULL, doms.nr)) )
    {
        control_reply(req, "error: cannot set the domain filter: %s",
                      strerror(errno));
        return;
    }
    dom_filter_free(c->take.filter);
    c->take.filter = doms.in_dom0 && doms.nr
                     ? dom_filter_new(&doms, c->take.nr_cpus) : NULL;
    c->doms = doms;
    c->masks_due = true;
    control_reply(req, "ok: domains %s%s",
                  xt_dom_filter_text(&doms, text, sizeof(text)),
                  doms.in_dom0 && doms.nr ? " (in dom0: Xen has no filter)"
                                          : "");
}

/* @req's event switch, on the host and in force from now. */
static void set_switch(struct capture *c, struct control_request *req)
{
    struct xt_event_switches next = c->switches;
    unsigned int state;
    uint32_t event;
    const char *why = parse_switch(req->arg, &event, &state);

    if ( why )
        control_reply(req, "error: event %s: %s", req->arg, why);
    else if ( !note_switch(&next, event, state) )
        control_reply(req, "error: event %s: more than %u events switched",
                      req->arg, XT_EVENT_SWITCHES_MAX);
    else if ( xt_switch_event(c->take.h, event, state) )
        control_reply(req, "error: event %s: %s", req->arg, errno == EINVAL
                      ? "Xen has no per-event switches" : strerror(errno));
    else
    {
        c->switches = next;
        c->masks_due = true;
        control_reply(req, "ok: event 0x%08x %s", event,
                      state == XEN_TBUF_EVENT_ON ? "on" :
                      state == XEN_TBUF_EVENT_OFF ? "off"
                                                  : "as the mask says");
    }
}

/*
 * xentrace-ctl's requests that came (control.h), carried out between
 * passes.  A change of mask is told in the stream (put_masks()) at once,
 * with the TSC of a record taken before it; two changes between two
 * passes are told as the last, and one that finds no record yet is told
 * at the first pass that takes one.
 */
static void steer(struct capture *c, uint64_t now)
{
    struct control_request req;
    struct cpu_count all;
    struct xt_masks_more more;
    char text[64], switched[160];

    while ( c->control && control_next(c->control, &req) )
        switch ( req.op )
        {
        case CONTROL_EVT_MASK:
            set_evt_mask(c, &req);
            break;
        case CONTROL_CPU_MASK:
            set_cpu_mask(c, &req);
            break;
        case CONTROL_DOMAINS:
            set_domains(c, &req);
            break;
        case CONTROL_EVENT:
            set_switch(c, &req);
            break;
        case CONTROL_FLUSH:
            take_flush(&c->take, now);
            control_reply(&req, "ok: flushed");
            break;
        case CONTROL_STOP:
            interrupted = 1;
            control_reply(&req, "ok: stopping");
            break;
        case CONTROL_STATUS:
            all = count_all(c);
            control_reply(&req, "ok: event mask 0x%08x, domains %s, "
                          "switched %s, %llu records, %llu lost",
                          c->evt_mask,
                          xt_dom_filter_text(dom_filter(c), text,
                                             sizeof(text)),
                          xt_event_switches_text(&c->switches, switched,
                                                 sizeof(switched)),
                          (unsigned long long)all.records,
                          (unsigned long long)all.lost);
            break;
        }
    more = masks_more(c);
    if ( c->masks_due && put_masks(&c->take, c->evt_mask, c->cpu_mask, &more,
                                   now) )
        c->masks_due = false;
}

/*
 * Drain until a signal (or -T) or a failed write.  The exit signals are
 * blocked but in the wait, which lets them in (ppoll(2)'s mask): so one
 * that comes after the test of interrupted cuts the wait short, instead
 * of being seen only when it ends, up to -s later.  Only here: blocked
 * through start-up, they could not cut short a call that hangs there
 * (an open(2) of a FIFO that no one reads).
 */
static void capture(struct capture *c)
{
    bool progress = !c->opt->quiet && isatty(STDERR_FILENO);
    uint64_t last_ms = now_ms();
    struct cpu_count last = { 0 };
    sigset_t wait_mask;

    block_exit_signals(&wait_mask);
    while ( !interrupted )
    {
        uint64_t began = now_ns(), now = began / 1000000, wait;
        uint32_t largest = drain_pass(&c->take, now);

        if ( c->dom0 )
            dom0_pass(c->dom0, &c->take, now);
        push_due(&c->take, now);
        if ( output_error(c->take.out) )
            break;
        tell_domain(c, now);
        steer(c, now);
        if ( progress && now >= last_ms + PROGRESS_MS )
            show_progress(c, &last_ms, &last);

        /* Another pass at once if Xen is outrunning us (see pace.c). */
        if ( !(wait = pace_next_wait(&c->pace, began, largest,
                                     count_all(c).lost)) )
            take_exit_signal(&wait_mask);
        else if ( xt_wait_ns(c->take.h, wait, &wait_mask) < 0 &&
                  errno != EINTR )
            err(1, "waiting for VIRQ_TBUF");
    }
    if ( (errno = pthread_sigmask(SIG_SETMASK, &wait_mask, NULL)) )
        err(1, "cannot unblock the exit signals");
    if ( progress )
        fputc('\n', stderr);
}

/*
 * Tell the domains still due, an epoch each, queue every chunk and wait
 * for the file to be closed.
 */
static int finish_capture(struct capture *c)
{
    const struct xt_domain *d;

    while ( c->naming && (d = naming_next(c->naming)) &&
            put_domain(&c->take, d, 0) )
    {
        naming_told(c->naming);
        push_epoch(&c->take, 0, false);
    }
    push_epoch(&c->take, 0, true);
    push_end(&c->take);
    return output_finish(c->take.out);
}

/*
 * Start-up and exit
 * =================
 */

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/*
 * No SA_RESTART: the signal must cut the capture thread's wait short.
 * Nor SA_RESETHAND: a ^C often arrives twice, from the terminal and
 * passed on by a wrapper (sudo, xen-sim), and must not kill the exit path.
 */
static void catch_signals(void)
{
    struct sigaction sa = { .sa_handler = on_signal };
    size_t i;

    sigemptyset(&sa.sa_mask);
    for ( i = 0; i < NR_EXIT_SIGNALS; i++ )
        if ( sigaction(exit_signals[i], &sa, NULL) )
            err(1, "cannot catch %s", strsignal(exit_signals[i]));
    /* A closed pipe: EPIPE, an error. */
    sa.sa_handler = SIG_IGN;
    if ( sigaction(SIGPIPE, &sa, NULL) )
        err(1, "cannot ignore SIGPIPE");
}

/* --realtime: the calling thread at SCHED_FIFO @priority. */
static void set_realtime(int priority)
{
    struct sched_param param = { .sched_priority = priority };

    errno = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    if ( errno )
        err(1, "--realtime: cannot run at SCHED_FIFO priority %d", priority);
}

/*
 * --realtime, before anything changes on the host, so that a refusal
 * (EPERM: no CAP_SYS_NICE or CAP_IPC_LOCK, nor the rlimits) is a line
 * and nothing else.  Memory is locked as it is first touched, not as it
 * is mapped: the writer thread's stack, mapped once tracing is on, is
 * 8 MB that would otherwise be zeroed before the first pass.  The
 * priority is the writer thread's until it has been started, so that it
 * inherits that; then the capture thread goes above it.
 */
static void start_realtime(void)
{
    set_realtime(RT_PRIORITY);
    set_realtime(RT_WRITER);
    if ( mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) )
        err(1, "--realtime: cannot lock memory");
}

static uint8_t *all_cpus(unsigned int max_cpus)
{
    uint8_t *bitmap = malloc((max_cpus + 7) / 8);

    if ( !bitmap || parse_cpu_mask("all", max_cpus, bitmap) )
        err(1, "memory");
    return bitmap;
}

/*
 * A call to Xen failed with @error: say so.  If the connection to the
 * host is gone (xen-sim died), nothing more is tried, and after a fatal
 * error, which said so already, nothing more is said.
 */
static void host_call_failed(int error, const char *what)
{
    if ( error == ECONNRESET || error == EPIPE || error == ENOTCONN )
    {
        host.gone = true;
        if ( host.fatal )
            return;
    }
    errno = error;
    warn("%s", what);
}

/*
 * Put back the event mask found at start-up, and after -c set the CPU
 * mask to all CPUs: Xen's interface cannot read the CPU mask, so what it
 * was is not known.  Returns false if something could not be put back.
 * Each flag is cleared first: an error in here must not come back here.
 */
static bool restore_masks(void)
{
    bool ok = true;
    unsigned int i;

    if ( host.evt_mask_set && !host.gone )
    {
        host.evt_mask_set = false;
        if ( xt_set_evt_mask(host.h, host.saved_evt_mask) )
        {
            host_call_failed(errno, "cannot restore the event mask");
            ok = false;
        }
    }

    for ( i = 0; host.switches && i < host.switches->nr && !host.gone; i++ )
        if ( xt_switch_event(host.h, host.switches->sw[i] & ~XT_EVENT_ON,
                             XEN_TBUF_EVENT_MASKS) )
        {
            host_call_failed(errno, "cannot switch an event back to the "
                             "event mask");
            ok = false;
            break;
        }
    host.switches = NULL;

    if ( host.dom_filter_set && !host.gone )
    {
        host.dom_filter_set = false;
        if ( xt_set_dom_filter(host.h, NULL, 0) )
        {
            host_call_failed(errno, "cannot turn the domain filter off");
            ok = false;
        }
    }

    if ( host.cpu_mask_set && !host.gone )
    {
        unsigned int max_cpus = xt_max_cpus(host.h);
        uint8_t *bitmap;

        host.cpu_mask_set = false;
        bitmap = all_cpus(max_cpus);
        if ( xt_set_cpu_mask(host.h, bitmap, max_cpus) )
        {
            host_call_failed(errno,
                             "cannot set the CPU mask back to all CPUs");
            ok = false;
        }
        free(bitmap);
    }
    return ok;
}

/* Disable tracing, if start-up enabled it; false if that failed. */
static bool disable_tracing(void)
{
    if ( !host.disable || host.gone )
        return true;
    host.disable = false;               /* not again at exit */
    if ( !xt_disable(host.h) )
        return true;
    host_call_failed(errno, "cannot disable tracing");
    return false;
}

/*
 * At exit after a fatal error: tracing off, the masks back as
 * restore_masks() can put them (the CPU mask to all CPUs), the buffers
 * left, as they cannot be freed; and let the writer close the file.
 */
static void restore_host(void)
{
    host.fatal = true;
    control_close(host.control);
    disable_tracing();
    restore_masks();
    if ( host.cap && output_running(host.cap->take.out) )
        finish_capture(host.cap);
    dom0_free(host.dom0);
}

/*
 * Write past the page cache where the file system can: the batches are
 * page-aligned whole pages already, and a named regular file written so
 * costs xentrace about half the CPU a GB (docs/benchmarks.md).  Only a
 * regular file: on a FIFO, O_DIRECT would make the pipe's writes packets.
 * Set after the open, as fcntl(2) is where Linux says whether the file
 * system takes it (EINVAL).
 */
static void set_direct(int fd, const struct options *o)
{
    struct stat st;
    int flags = fcntl(fd, F_GETFL);

    if ( o->buffered )
        return;
    if ( flags < 0 || fstat(fd, &st) )
        err(1, "%s", o->file);
    if ( !S_ISREG(st.st_mode) )
    {
        if ( o->direct )
            errx(1, "%s: --direct needs a regular file", o->file);
        return;
    }
    if ( !fcntl(fd, F_SETFL, flags | O_DIRECT) )
        return;
    if ( errno != EINVAL )
        err(1, "%s", o->file);
    if ( o->direct )
        errx(1, "%s: the file system does not support --direct", o->file);
}

static int open_output(const struct options *o)
{
    int fd = STDOUT_FILENO, flags;
    off_t offset;

    if ( o->file )
    {
        fd = open(o->file, O_WRONLY | O_CREAT | O_TRUNC | O_LARGEFILE, 0644);
        if ( fd < 0 )
            err(1, "%s", o->file);
        set_direct(fd, o);
    }
    if ( isatty(fd) )
        errx(1, "cannot write a trace to a terminal");
    /*
     * Appending (>>): the writer cuts the file back to the end of its
     * last batch on an error, so it must know where its data starts.
     */
    flags = fcntl(fd, F_GETFL);
    if ( flags >= 0 && (flags & O_APPEND) &&
         (fcntl(fd, F_SETFL, flags & ~O_APPEND) ||
          lseek(fd, 0, SEEK_END) < 0) )
        err(1, "%s", o->name);
    offset = lseek(fd, 0, SEEK_CUR);
    if ( offset > 0 && offset % XT_PAGE )
        errx(1, "%s: batches must start at a multiple of %u bytes: "
             "cannot append at offset %lld", o->name, XT_PAGE,
             (long long)offset);
    return fd;
}

/*
 * The TSC's rate where Xen does not say it (xen-sim); 0: no TSC.  On
 * arm64 the generic timer's frequency, which the architecture gives
 * (CNTFRQ_EL0, readable from user space): Xen's trace counter and
 * xen-sim's run at it.  On x86, measured against CLOCK_MONOTONIC.
 */
static uint64_t measure_tsc_hz(void)
{
#if defined(__aarch64__)
    uint64_t hz;

    __asm__ __volatile__ ( "mrs %0, cntfrq_el0" : "=r" (hz) );
    return hz & 0xffffffffu;   /* bits 63-32 are RES0 */
#else
    struct timespec t0, t1, pause = { .tv_nsec = TSC_MEASURE_NS };
    uint64_t c0, c1, ns;

    if ( !read_tsc() )
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    c0 = read_tsc();
    while ( nanosleep(&pause, &pause) && errno == EINTR )
        ;
    c1 = read_tsc();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ns = (t1.tv_sec - t0.tv_sec) * 1000000000ULL + t1.tv_nsec - t0.tv_nsec;
    return ns ? (unsigned __int128)(c1 - c0) * 1000000000ULL / ns : 0;
#endif
}

/* -c, checked against the host's CPUs; NULL without -c. */
static uint8_t *parse_cpus(struct xt_host *h, const struct options *o)
{
    unsigned int max_cpus = xt_max_cpus(h);
    uint8_t *bitmap;
    const char *why;

    if ( !o->cpu_spec )
        return NULL;
    if ( !(bitmap = malloc((max_cpus + 7) / 8)) )
        err(1, "memory");
    if ( (why = parse_cpu_mask(o->cpu_spec, max_cpus, bitmap)) )
        errx(1, "-c %s: %s", o->cpu_spec, why);
    return bitmap;
}

/*
 * The masks in force once set_masks() has set -e and -c: for the file's
 * first batch, and what the control channel changes.  An event mask that
 * Xen does not give (no buffers yet) is 0: the file tells no masks then.
 */
static void start_masks(struct capture *c, struct xt_host *h,
                        const uint8_t *cpu_bitmap)
{
    unsigned int max_cpus = xt_max_cpus(h);
    char why_buf[128];
    const char *why;

    c->evt_mask = c->opt->evt_mask;
    if ( !c->evt_mask && xt_get_evt_mask(h, &c->evt_mask) )
        c->evt_mask = 0;
    c->cpu_mask = all_cpus(max_cpus);
    if ( cpu_bitmap )
        memcpy(c->cpu_mask, cpu_bitmap, (max_cpus + 7) / 8);
    c->doms = c->opt->doms;
    if ( c->opt->doms_named &&
         (why = parse_named_domains(c->naming, c->opt->doms_named, &c->doms,
                                    why_buf, sizeof(why_buf))) )
        errx(1, "-d %s: %s", c->opt->doms_named, why);
    if ( c->doms.nr && !xt_has_dom_filter(h) )
    {
        c->doms.in_dom0 = true;
        if ( !dom_filter_sees_context(c->evt_mask) )
            errx(1, "-d: Xen has no domain filter, and xentrace needs the "
                 "scheduler's records to filter in dom0: add sched to -e");
        warnx("-d: Xen has no domain filter: filtering in dom0, so Xen's "
              "buffers fill, and lose records, as if unfiltered");
    }
    /* Asking Xen to leave an event to the mask changes nothing. */
    c->switches = c->opt->switches;
    if ( c->switches.nr &&
         xt_switch_event(h, c->switches.sw[0] & ~XT_EVENT_ON,
                         XEN_TBUF_EVENT_MASKS) )
        errx(1, "--event: %s", errno == EINVAL
             ? "Xen has no per-event switches" : strerror(errno));
}

/* Set -e and -c, remembering what restore_masks() must undo. */
static void set_masks(struct xt_host *h, const struct options *o,
                      const uint8_t *cpu_bitmap,
                      const struct xt_dom_filter *doms,
                      const struct xt_event_switches *switches)
{
    unsigned int i;

    if ( o->evt_mask )
    {
        if ( xt_get_evt_mask(h, &host.saved_evt_mask) )
            err(1, "cannot read the event mask");
        host.evt_mask_set = true;
        if ( xt_set_evt_mask(h, o->evt_mask) )
            err(1, "cannot set the event mask");
    }
    if ( cpu_bitmap )
    {
        host.cpu_mask_set = true;
        if ( xt_set_cpu_mask(h, cpu_bitmap, xt_max_cpus(h)) )
            err(1, "cannot set the CPU mask");
    }
    if ( doms->nr && !doms->in_dom0 )
    {
        host.dom_filter_set = true;
        if ( xt_set_dom_filter(h, doms->range, doms->nr) )
            err(1, "cannot set the domain filter");
    }
    host.switches = switches;
    for ( i = 0; i < switches->nr; i++ )
        if ( xt_switch_event(h, switches->sw[i] & ~XT_EVENT_ON,
                             switches->sw[i] & XT_EVENT_ON
                             ? XEN_TBUF_EVENT_ON : XEN_TBUF_EVENT_OFF) )
            err(1, "cannot switch event 0x%08x",
                switches->sw[i] & ~XT_EVENT_ON);
}

/*
 * Buffers of another size exist and -S asked for @pages: resize them,
 * tracing off first, as our Xen can when nothing maps them.  NULL once
 * done, or why they keep their size.
 */
static const char *resize_buffers(struct xt_host *h, unsigned int pages)
{
    if ( xt_disable(h) )
        err(1, "cannot disable tracing");
    if ( !xt_resize(h, pages) )
        return NULL;
    switch ( errno )
    {
    case EINVAL:
        return "they keep that size until Xen restarts (tbuf_size= at boot)";
    case EBUSY:
        return "another program has them mapped, so they keep that size";
    case ENOMEM:
        return "Xen has no memory for the new size, so they keep theirs";
    default:
        err(1, "cannot resize the trace buffers to %u pages", pages);
    }
}

/*
 * Allocate the buffers (if they exist, Xen says EBUSY, or EINVAL if they
 * are of another size: an -S that asked for another size resizes them
 * where Xen can, or is told why not; without -S they are used as they
 * are), enable tracing or with -X make sure it is off, map.  Resizing
 * drops what the old buffers held, as -D would.
 */
static void start_tracing(struct xt_host *h, const struct options *o)
{
    unsigned int cpu;
    const char *kept = NULL;

    host.disable = !o->keep_tracing;
    if ( xt_set_size(h, o->tbuf_pages) )
    {
        if ( errno != EBUSY && errno != EINVAL )
            err(1, "cannot allocate trace buffers of %u pages",
                o->tbuf_pages);
        if ( errno == EINVAL && o->tbuf_pages_given )
            kept = resize_buffers(h, o->tbuf_pages);
    }
    /* A successful set_size turns tracing on: -X turns it off again. */
    if ( o->start_disabled ? xt_disable(h) : xt_enable(h) )
        err(1, "cannot %s tracing", o->start_disabled ? "disable" : "enable");
    if ( xt_map_buffers(h) )
        err(1, "cannot map the trace buffers");
    if ( kept && xt_buf_pages(h) != o->tbuf_pages )
        warnx("-S %u: Xen's trace buffers exist, of %u pages a CPU: %s",
              o->tbuf_pages, xt_buf_pages(h), kept);
    /* A bad prod is Xen's to put right: the capture resyncs the CPU. */
    if ( o->discard )
        for ( cpu = 0; cpu < xt_max_cpus(h); cpu++ )
            if ( xt_cpu_mapped(h, cpu) && xt_discard(h, cpu) )
                warnx("CPU %u: bad prod in its trace buffer: -D cannot "
                      "discard its records", cpu);
}

static struct xt_writer *open_writer(int fd, struct xt_host *h,
                                     uint64_t tsc_hz,
                                     const struct capture *c)
{
    const struct options *o = c->opt;
    struct xt_masks_more more = masks_more(c);
    struct xt_writer_opts wo = {
        .reserve_bytes = o->reserve_mb << 20,
        .evt_mask = c->evt_mask,
        .cpu_mask = c->evt_mask ? c->cpu_mask : NULL,
        .more = &more,
        .dom0 = c->dom0 ? &c->dom0_meta : NULL,
    };
    /* The readers decode the file in this version's layouts. */
    struct xt_metadata meta = {
        .tsc_hz = tsc_hz,
        .nr_cpus = xt_max_cpus(h),
        .xen_version = xt_xen_version(h),
    };
    struct xt_writer *w;
    struct timespec now;

    if ( c->naming )
        wo.domains = naming_domains(c->naming, &wo.nr_domains);
    meta.start_tsc = read_tsc();
    clock_gettime(CLOCK_REALTIME, &now);
    meta.start_sec = now.tv_sec;
    meta.start_nsec = now.tv_nsec;

    if ( !(w = xt_writer_open(fd, &meta, &wo)) )
    {
        writer_failed(o, errno);
        exit(1);
    }
    return w;
}

/* The machine's memory, in bytes; 0 if it does not say. */
static uint64_t memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

    return pages > 0 && page > 0 ? (uint64_t)pages * page : 0;
}

/*
 * Start the writer thread.  A chunk holds a batch and one buffer's worth
 * more, with a window's marks (take.c's chunk_room); every CPU may hold
 * one while two are written, whatever POOL_BYTES says.  With large
 * buffers on many CPUs (-S 65535, 256 MB a CPU) that can be more memory
 * than the machine has.  A chunk's pages are touched only as far as the
 * windows copied into it reach, so a capture whose buffers never fill
 * needs far less, and Xen's largest buffers are captured in a small dom0
 * (make check-xen's clamp boots): said in one line, not refused.
 */
static void start_output(struct capture *c, struct xt_writer *w)
{
    unsigned int cpu, nr_mapped = 0;
    uint64_t need, have = memory_bytes();

    for ( cpu = 0; cpu < c->take.nr_cpus; cpu++ )
        nr_mapped += xt_cpu_mapped(c->take.h, cpu);
    need = output_pool_bytes(c->take.chunk_room, POOL_BYTES,
                             nr_mapped + c->take.nr_lanes + 2);
    if ( have && need > have / 2 )
        warnx("trace buffers of %u KB on %u CPUs may need up to %llu MB of "
              "memory to capture, more than half of this machine's %llu MB: "
              "if they fill, a smaller -S is safer",
              xt_data_size(c->take.h) >> 10, nr_mapped,
              (unsigned long long)(need >> 20),
              (unsigned long long)(have >> 20));
    c->take.out = output_start(w, c->take.nr_cpus + c->take.nr_lanes,
                               c->take.chunk_room, POOL_BYTES,
                               nr_mapped + c->take.nr_lanes + 2,
                               c->opt->ring_bytes);
    if ( !c->take.out )
        err(1, "writer thread");
}

/*
 * The exit table: per CPU what the file holds of its records, how often
 * the library resynchronised it (a bad cons or prod), and the bytes
 * skipped because they were not Xen's records; then the file.  Returns
 * the sum of every CPU's records.
 */
static struct chunk_count print_counts(const struct capture *c)
{
    const struct options *o = c->opt;
    uint64_t file_bytes = output_file_bytes(c->take.out);
    struct chunk_count all = { 0 };
    unsigned long resyncs = 0;
    uint64_t skipped = 0;
    unsigned int cpu;

    fprintf(stderr, "%5s %14s %16s %12s %8s %12s\n", "cpu", "records",
            "bytes", "lost", "resyncs", "skipped");
    for ( cpu = 0; cpu < c->take.nr_cpus; cpu++ )
    {
        const struct chunk_count *n = output_written(c->take.out, cpu);
        uint64_t cpu_skipped = c->take.check[cpu].count.skipped;

        if ( !xt_cpu_mapped(c->take.h, cpu) )
            continue;
        chunk_count_add(&all, n);
        resyncs += xt_resyncs(c->take.h, cpu);
        skipped += cpu_skipped;
        fprintf(stderr, "%5u %14llu %16llu %12llu %8lu %12llu\n", cpu,
                (unsigned long long)n->records,
                (unsigned long long)n->bytes, (unsigned long long)n->lost,
                xt_resyncs(c->take.h, cpu), (unsigned long long)cpu_skipped);
    }
    fprintf(stderr, "%5s %14llu %16llu %12llu %8lu %12llu\n", "all",
            (unsigned long long)all.records, (unsigned long long)all.bytes,
            (unsigned long long)all.lost, resyncs,
            (unsigned long long)skipped);
    fprintf(stderr, "%s: %llu bytes, %.2f%% padding", o->name,
            (unsigned long long)file_bytes,
            file_bytes ? 100.0 * output_file_padding(c->take.out) / file_bytes : 0);
    if ( o->ring_bytes )
        fprintf(stderr, " (-M: the newest of %llu bytes of batches)",
                (unsigned long long)output_passed_bytes(c->take.out));
    fputc('\n', stderr);
    if ( c->take.filter || c->take.filtered.records )
        fprintf(stderr, "filtered out in dom0 (-d): %llu records, %llu "
                "bytes\n", (unsigned long long)c->take.filtered.records,
                (unsigned long long)c->take.filtered.bytes);
    return all;
}

/*
 * What the table says that should not need working out: a capture that
 * wrote no record of Xen's, or whose file lost LOST_WARN_PERCENT of them
 * or more, says so, and what to change.
 */
static void advise(const struct chunk_count *all)
{
    uint64_t traced = all->records + all->lost;

    if ( !all->records )
        warnx("no record of Xen's was written: no event passed the masks "
              "(-e, -c), or tracing was off (-X)");
    else if ( all->lost * 100 >= traced * LOST_WARN_PERCENT )
        warnx("%.1f%% of the records traced were lost (%llu): larger "
              "buffers (tbuf_size= at boot, or -S where Xen has none yet), "
              "fewer events (-e, -c) or --realtime keep more",
              100.0 * all->lost / traced, (unsigned long long)all->lost);
}

int main(int argc, char *argv[])
{
    struct options opt;
    struct capture cap = { .opt = &opt };
    struct chunk_count all = { 0 };
    struct xt_host *h;
    struct xt_writer *w;
    uint8_t *cpu_bitmap;
    uint64_t tsc_hz;
    int fd, error;
    bool failed;

    parse_options(argc, argv, &opt);
    catch_signals();
    if ( opt.realtime )
        start_realtime();

    if ( !(h = xt_open()) )
        err(1, "cannot open Xen's interfaces");
    host.h = h;
    atexit(restore_host);
    cpu_bitmap = parse_cpus(h, &opt);
    /* First: a second consumer must fail before it changes anything. */
    if ( xt_bind_virq(h) )
    {
        if ( errno == EEXIST )
            errx(1, "another trace consumer is running (VIRQ_TBUF is bound)");
        err(1, "cannot bind VIRQ_TBUF");
    }
    if ( opt.control )
        cap.control = host.control = control_open(opt.control);
    /* Before the file: -d may refuse the masks, or name no domain. */
    cap.naming = naming_open();
    start_masks(&cap, h, cpu_bitmap);
    fd = open_output(&opt);
    /*
     * Xen's own calibration: in a loaded dom0, the vCPU descheduled
     * between reading the clock and the TSC skews a measurement (by up
     * to 4% in check-xen's boots).
     */
    if ( !(tsc_hz = xt_tsc_hz(h)) )
        tsc_hz = measure_tsc_hz();
    if ( opt.dom0 )
        cap.dom0 = dom0_start(opt.dom0, opt.dom0_mono, xt_max_cpus(h),
                              &cap.dom0_meta, &host.dom0);
    /* The metadata goes out now: -r refuses it before the host changes. */
    w = open_writer(fd, h, tsc_hz, &cap);

    set_masks(h, &opt, cpu_bitmap, &cap.doms, &cap.switches);
    free(cpu_bitmap);
    start_tracing(h, &opt);

    take_start(&cap.take, h, opt.batch_bytes,
               cap.dom0 ? dom0_lanes(cap.dom0) : 0,
               cap.dom0 ? dom0_pass_bytes(cap.dom0) : 0);
    if ( cap.doms.in_dom0 )
        cap.take.filter = dom_filter_new(&cap.doms, cap.take.nr_cpus);
    pace_start(&cap.pace, xt_data_size(h), opt.poll_ms);
    start_output(&cap, w);
    host.cap = &cap;
    if ( opt.realtime )
        set_realtime(RT_PRIORITY);      /* above the writer thread */

    alarm(opt.seconds);
    capture(&cap);

    /*
     * Disable first, so that no CPU's records outrun the final pass; if
     * that fails, the pass still takes what the buffers hold.
     */
    failed = !disable_tracing();
    if ( !output_error(cap.take.out) )
        drain_pass(&cap.take, now_ms());
    if ( cap.dom0 && !output_error(cap.take.out) )
        dom0_stop(cap.dom0, &cap.take);
    error = finish_capture(&cap);
    host.cap = NULL;
    if ( opt.file && close(fd) && !error )
        error = errno;
    if ( error )
        writer_failed(&opt, error);
    failed |= !restore_masks();

    /*
     * The table describes the file left behind, after a failed write too
     * (its line first); not what went into a pipe that was closed.
     */
    if ( error != EPIPE )
    {
        all = print_counts(&cap);
        if ( cap.dom0 )
            dom0_print(cap.dom0, cap.take.out, stderr);
    }
    if ( !error )
        advise(&all);
    failed |= error != 0;

    output_free(cap.take.out);
    take_free(&cap.take);
    dom0_free(cap.dom0);
    host.dom0 = cap.dom0 = NULL;
    naming_close(cap.naming);
    control_close(host.control);
    host.control = cap.control = NULL;
    free(cap.cpu_mask);
    xt_close(h);
    return failed;
}
