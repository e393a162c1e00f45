/*
 * xentrace: capture Xen's trace buffers into a trace file.
 *
 *   capture thread (main)                  writer thread
 *   ---------------------                  -------------
 *   pass: every mapped CPU, ascending:     wait for a stage handed over
 *     window cons..prod, copy it into      (or for a second to pass)
 *     the filling stage, release it        add it to the xt_writer,
 *   hand the stage over (swap) when          counting its records
 *     about to block, when a CPU holds     flush when a CPU holds a batch,
 *     a batch, or each second               or each second: write(2)
 *   block on VIRQ_TBUF only after a
 *     pass that found nothing
 *
 * Blocking only after a pass that found nothing means that every pass
 * with records is followed by another before any wait: records whose
 * notification came (and was consumed) during a pass are taken then, not
 * a poll interval later.
 *
 * Draining never waits for the disk: the capture thread only copies into
 * memory, and hands the copy over with a swap under a mutex.  Only when
 * the writer falls a whole stage limit behind does the capture thread
 * wait for it; then Xen's buffers fill and Xen counts what it loses, in
 * lost-records markers as always.
 *
 * Three stages circulate, so their buffers are reused: the capture
 * thread's filling stage, the one handed over ("ready", under the lock),
 * and the one the writer thread is adding.
 *
 * Exit.  A signal (or -T) ends the pass in progress; then tracing is
 * disabled (a barrier in Xen: what was recorded is in the buffers, lost
 * counts included), one more pass drains every CPU, the writer closes the
 * file, and the masks go back as they were.  A fatal error exits through
 * err(3); restore_host(), an atexit handler, then disables tracing,
 * restores the masks and lets the writer close the file, which stays a
 * valid trace file up to its last complete batch.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <public/trace.h>

#include "libxentrace.h"
#include "options.h"

#define FILE_ALIGN       4096       /* batches start at multiples of this */
#define FLUSH_MS         1000       /* a reader sees data at least this often */
#define PROGRESS_MS      1000
#define TSC_MEASURE_NS   50000000L  /* measuring the TSC against the clock */
#define STAGE_MIN_LIMIT  (64UL << 20)

struct options {
    const char *cpu_spec;               /* -c; parsed once CPUs are known */
    bool discard;                       /* -D */
    uint32_t evt_mask;                  /* -e; 0: keep Xen's */
    unsigned long long ring_bytes;      /* -M; 0: write as we go */
    unsigned long long reserve_mb;      /* -r */
    unsigned int tbuf_pages;            /* -S */
    unsigned int poll_ms;               /* -s */
    unsigned int seconds;               /* -T; 0: until a signal */
    bool keep_tracing;                  /* -x */
    bool start_disabled;                /* -X */
    unsigned long long batch_bytes;     /* --batch-size */
    bool direct;                        /* --direct */
    bool quiet;                         /* --quiet */
    const char *file;                   /* NULL: standard output */
    const char *name;                   /* of the output, for messages */
};

/* Records copied from one CPU, each in a growing buffer. */
struct stage {
    struct stage_cpu {
        uint8_t *data;
        size_t len, cap;
    } *cpu;
    size_t bytes;                       /* of all CPUs */
    size_t largest;                     /* the largest len */
};

/* What the file holds from one CPU. */
struct cpu_count {
    uint64_t records;       /* other than pads and lost-records markers */
    uint64_t bytes;
    uint64_t lost;          /* the sum of its lost-records counts */
};

/* The writer thread and what it shares with the capture thread. */
struct output {
    unsigned int nr_cpus;
    size_t batch_bytes;
    struct xt_writer *w;                /* the writer thread's */
    pthread_t thread;
    bool running;                       /* the thread was started */

    pthread_mutex_t lock;
    pthread_cond_t cond;    /* ready filled or emptied, stop, error */
    struct stage ready;     /* under lock: handed over, not yet taken */
    bool stop;              /* under lock: nothing comes after ready */
    int error;              /* under lock: the writer failed with it */

    struct stage writing;               /* the writer thread's */
    struct cpu_count *count;            /* [nr_cpus], the writer thread's */
    uint64_t file_bytes, file_padding;  /* at close */
    /* Atomic: written by the writer thread, read for the progress line. */
    uint64_t total_records, total_bytes, total_lost;
};

/* The capture thread's side. */
struct capture {
    struct xt_host *h;
    unsigned int nr_cpus;
    struct stage filling;
    size_t stage_limit;         /* wait for the writer beyond this */
    bool *warned;               /* [nr_cpus]: a bad window was reported */
};

/* What start-up changed on the host, for restore_host() to undo. */
static struct {
    struct xt_host *h;
    bool disable;               /* disable tracing (set_size may enable it) */
    bool evt_mask_set;
    uint32_t saved_evt_mask;    /* in force before -e */
    bool cpu_mask_set;          /* -c: set every CPU back */
    struct output *out;         /* let the writer thread close the file */
    struct capture *cap;        /* whose filling stage it should take */
} host;

static volatile sig_atomic_t interrupted;

static void __attribute__((noreturn)) usage(FILE *to, int status)
{
    fprintf(to,
            "usage: xentrace [-DVXx] [-c cpu-mask] [-e evt-mask] [-M size] "
            "[-r MB]\n"
            "                [-S pages] [-s ms] [-T seconds] "
            "[--batch-size bytes]\n"
            "                [--direct] [--quiet] [file]\n");
    exit(status);
}

static unsigned long long number(char opt, const char *arg,
                                 unsigned long long min,
                                 unsigned long long max)
{
    unsigned long long n;
    const char *why = parse_number(arg, min, max, &n);

    if ( why )
        errx(1, "-%c %s: %s", opt, arg, why);
    return n;
}

static unsigned long long size(const char *opt, const char *arg,
                               unsigned long long min, unsigned long long max)
{
    unsigned long long n;
    const char *why = parse_size(arg, min, max, &n);

    if ( why )
        errx(1, "%s %s: %s", opt, arg, why);
    return n;
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

static void parse_options(int argc, char *argv[], struct options *o)
{
    enum { OPT_BATCH = 256, OPT_DIRECT, OPT_HELP, OPT_QUIET };
    static const struct option longopts[] = {
        { "cpu-mask",             required_argument, NULL, 'c' },
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
        { "direct",               no_argument,       NULL, OPT_DIRECT },
        { "help",                 no_argument,       NULL, OPT_HELP },
        { "quiet",                no_argument,       NULL, OPT_QUIET },
        { NULL, 0, NULL, 0 },
    };
    const char *why;
    uint32_t mask;
    int ch;

    *o = (struct options){
        .tbuf_pages = DEFAULT_TBUF_PAGES,
        .poll_ms = DEFAULT_POLL_MS,
    };

    while ( (ch = getopt_long(argc, argv, "c:De:M:r:S:s:T:VXx", longopts,
                              NULL)) != -1 )
        switch ( ch )
        {
        case 'c':
            o->cpu_spec = optarg;
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
            o->reserve_mb = number('r', optarg, 0, MAX_RESERVE_MB);
            break;
        case 'S':
            o->tbuf_pages = number('S', optarg, 1, MAX_TBUF_PAGES);
            break;
        case 's':
            o->poll_ms = number('s', optarg, 1, MAX_POLL_MS);
            break;
        case 'T':
            o->seconds = number('T', optarg, 1, MAX_SECONDS);
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
        case OPT_DIRECT:
            o->direct = true;
            break;
        case OPT_HELP:
            usage(stdout, 0);
        case OPT_QUIET:
            o->quiet = true;
            break;
        default:
            usage(stderr, 1);
        }
    argc -= optind;
    argv += optind;

    if ( argc > 1 || (o->direct && argc == 0) )
        usage(stderr, 1);
    o->file = argc ? argv[0] : NULL;
    if ( !o->batch_bytes )
        o->batch_bytes = default_batch_bytes(o->ring_bytes);
    o->name = o->file ? o->file : "standard output";
}

static uint64_t now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

/*
 * Stages
 * ======
 */

static void stage_init(struct stage *s, unsigned int nr_cpus)
{
    *s = (struct stage){ .cpu = calloc(nr_cpus, sizeof(*s->cpu)) };
    if ( !s->cpu )
        err(1, "staging memory");
}

static void stage_append(struct stage *s, unsigned int cpu, const void *data,
                         size_t len)
{
    struct stage_cpu *c = &s->cpu[cpu];

    if ( c->len + len > c->cap )
    {
        size_t cap = c->cap ? c->cap : 64 << 10;
        uint8_t *grown;

        while ( cap < c->len + len )
            cap *= 2;
        if ( !(grown = realloc(c->data, cap)) )
            err(1, "staging memory");
        c->data = grown;
        c->cap = cap;
    }
    memcpy(c->data + c->len, data, len);
    c->len += len;
    s->bytes += len;
    if ( c->len > s->largest )
        s->largest = c->len;
}

static void stage_clear(struct stage *s, unsigned int nr_cpus)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < nr_cpus; cpu++ )
        s->cpu[cpu].len = 0;
    s->bytes = s->largest = 0;
}

static void stage_free(struct stage *s, unsigned int nr_cpus)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < nr_cpus; cpu++ )
        free(s->cpu[cpu].data);
    free(s->cpu);
}

static void stage_swap(struct stage *a, struct stage *b)
{
    struct stage t = *a;

    *a = *b;
    *b = t;
}

/*
 * The writer thread
 * =================
 */

/* Count @len bytes of one CPU's records into @c. */
static void count_records(const uint8_t *p, size_t len, struct cpu_count *c)
{
    c->bytes += len;
    while ( len >= 4 )
    {
        uint32_t hdr, event, words, lost;
        size_t size;

        memcpy(&hdr, p, 4);
        words = TRC_HD_EXTRA(hdr);
        size = 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 8 : 0) + 4 * words;
        if ( size > len )       /* Xen writes whole records: not reached */
            break;
        event = TRC_HD_TO_EVENT(hdr);
        if ( event == TRC_LOST_RECORDS && words )
        {
            memcpy(&lost, p + size - 4 * words, 4);
            c->lost += lost;
        }
        else if ( event != TRC_TRACE_WRAP_BUFFER )
            c->records++;
        p += size;
        len -= size;
    }
}

/* Add what @s holds to the writer, counting it. */
static int add_stage(struct output *o, struct stage *s)
{
    uint64_t records = 0, lost = 0;
    unsigned int cpu;
    int rc = 0;

    for ( cpu = 0; cpu < o->nr_cpus; cpu++ )
    {
        struct stage_cpu *sc = &s->cpu[cpu];
        struct cpu_count before = o->count[cpu];

        if ( !sc->len )
            continue;
        if ( (rc = xt_writer_add(o->w, cpu, sc->data, sc->len)) )
            break;
        count_records(sc->data, sc->len, &o->count[cpu]);
        records += o->count[cpu].records - before.records;
        lost += o->count[cpu].lost - before.lost;
    }
    __atomic_fetch_add(&o->total_records, records, __ATOMIC_RELAXED);
    __atomic_fetch_add(&o->total_bytes, s->bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&o->total_lost, lost, __ATOMIC_RELAXED);
    stage_clear(s, o->nr_cpus);
    return rc;
}

/*
 * Under o->lock: wait until a stage is ready or the capture ends, or, if
 * the writer holds records, until their flush is due.
 */
static void wait_for_work(struct output *o, bool held, uint64_t flush_due)
{
    while ( !o->ready.bytes && !o->stop )
    {
        struct timespec until = {
            .tv_sec = flush_due / 1000,
            .tv_nsec = flush_due % 1000 * 1000000,
        };

        if ( !held )
            pthread_cond_wait(&o->cond, &o->lock);
        else if ( pthread_cond_timedwait(&o->cond, &o->lock, &until) ==
                  ETIMEDOUT )
            return;
    }
}

/* Flush and close the writer: the end of the file. */
static int close_writer(struct output *o)
{
    int rc = xt_writer_flush(o->w);

    o->file_bytes = xt_writer_bytes(o->w);
    o->file_padding = xt_writer_padding(o->w);
    if ( xt_writer_close(o->w) && !rc )
        rc = -1;
    o->w = NULL;
    return rc;
}

static void *write_out(void *arg)
{
    struct output *o = arg;
    uint64_t last_flush = now_ms();
    bool held = false, last;
    int rc, error;

    pthread_mutex_lock(&o->lock);
    do {
        wait_for_work(o, held, last_flush + FLUSH_MS);
        last = o->stop;
        stage_swap(&o->ready, &o->writing);
        pthread_cond_broadcast(&o->cond);           /* ready is free */
        pthread_mutex_unlock(&o->lock);

        held |= o->writing.bytes != 0;
        rc = add_stage(o, &o->writing);
        if ( !rc && last )
            rc = close_writer(o);
        else if ( !rc && held &&
                  (xt_writer_full(o->w) || now_ms() >= last_flush + FLUSH_MS) )
        {
            rc = xt_writer_flush(o->w);
            last_flush = now_ms();
            held = false;
        }
        error = rc ? (errno ? errno : EIO) : 0;

        pthread_mutex_lock(&o->lock);
        if ( error )
        {
            o->error = error;
            pthread_cond_broadcast(&o->cond);
        }
    } while ( !rc && !last );
    pthread_mutex_unlock(&o->lock);

    if ( rc && o->w )
        xt_writer_close(o->w);          /* frees it; the error is known */
    o->w = NULL;
    return NULL;
}

static void start_output(struct output *o)
{
    sigset_t block, old;
    pthread_condattr_t attr;

    stage_init(&o->ready, o->nr_cpus);
    stage_init(&o->writing, o->nr_cpus);
    if ( !(o->count = calloc(o->nr_cpus, sizeof(*o->count))) )
        err(1, "memory");
    pthread_mutex_init(&o->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&o->cond, &attr);
    pthread_condattr_destroy(&attr);

    /*
     * Signals are for the capture thread: they must interrupt its wait.
     * The writer thread's write(2)s to a pipe are not cut short by them.
     */
    sigfillset(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    errno = pthread_create(&o->thread, NULL, write_out, o);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if ( errno )
        err(1, "writer thread");
    o->running = true;
}

/*
 * Hand @filling to the writer thread if it has taken the last stage;
 * with @wait, wait for that.  Returns the writer's error, or 0.
 */
static int hand_over(struct output *o, struct stage *filling, bool wait)
{
    int error;

    pthread_mutex_lock(&o->lock);
    while ( wait && o->ready.bytes && !o->error )
        pthread_cond_wait(&o->cond, &o->lock);
    if ( !o->ready.bytes && filling->bytes )
    {
        stage_swap(filling, &o->ready);
        pthread_cond_broadcast(&o->cond);
    }
    error = o->error;
    pthread_mutex_unlock(&o->lock);
    return error;
}

/* Hand over the last stage and wait for the file to be closed. */
static int finish_output(struct output *o, struct stage *filling)
{
    hand_over(o, filling, true);
    pthread_mutex_lock(&o->lock);
    o->stop = true;
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
    pthread_join(o->thread, NULL);
    o->running = false;
    return o->error;
}

static void __attribute__((noreturn))
writer_failed(const struct options *opt, int error)
{
    if ( error == ENOSPC && opt->reserve_mb )
        errx(1, "stopping: less than %llu MB would be left on %s",
             opt->reserve_mb, opt->name);
    errno = error;
    err(1, "%s", opt->name);
}

/*
 * Capture
 * =======
 */

/*
 * One pass: copy every mapped CPU's window into the filling stage and
 * give its space back to Xen.  Returns whether any CPU had records.
 */
static bool drain_pass(struct capture *c)
{
    bool found = false;
    unsigned int cpu;

    for ( cpu = 0; cpu < c->nr_cpus; cpu++ )
    {
        struct xt_window win;
        long n;

        if ( !xt_cpu_mapped(c->h, cpu) )
            continue;
        n = xt_window(c->h, cpu, &win);
        if ( n < 0 )
        {
            /* The library has resynchronised the CPU: go on. */
            if ( !c->warned[cpu] )
                warnx("CPU %u: bad cons or prod in its trace buffer, "
                      "records dropped", cpu);
            c->warned[cpu] = true;
            continue;
        }
        if ( n == 0 )
            continue;
        stage_append(&c->filling, cpu, win.piece[0], win.len[0]);
        if ( win.len[1] )
            stage_append(&c->filling, cpu, win.piece[1], win.len[1]);
        xt_release(c->h, &win);
        found = true;
    }
    return found;
}

/* The live line on a terminal: rates over the last interval. */
static void show_progress(struct output *o, uint64_t *last_ms,
                          uint64_t *last_records, uint64_t *last_bytes)
{
    uint64_t now = now_ms();
    uint64_t records = __atomic_load_n(&o->total_records, __ATOMIC_RELAXED);
    uint64_t bytes = __atomic_load_n(&o->total_bytes, __ATOMIC_RELAXED);
    uint64_t lost = __atomic_load_n(&o->total_lost, __ATOMIC_RELAXED);
    double seconds = (now - *last_ms) / 1000.0;

    fprintf(stderr, "\r%12.0f records/s %9.1f MB/s %12llu lost ",
            (records - *last_records) / seconds,
            (bytes - *last_bytes) / seconds / 1e6, (unsigned long long)lost);
    *last_ms = now;
    *last_records = records;
    *last_bytes = bytes;
}

/* Drain until a signal (or -T) or a failed write. */
static void capture(struct capture *c, struct output *o,
                    const struct options *opt)
{
    bool progress = !opt->quiet && isatty(STDERR_FILENO);
    uint64_t last_handover = now_ms(), last_ms = now_ms();
    uint64_t last_records = 0, last_bytes = 0;
    int error;

    while ( !interrupted )
    {
        bool found = drain_pass(c);
        uint64_t now = now_ms();
        bool over = c->filling.bytes >= c->stage_limit;

        if ( !found || over || c->filling.largest >= o->batch_bytes ||
             now >= last_handover + FLUSH_MS )
        {
            if ( (error = hand_over(o, &c->filling, over)) )
                writer_failed(opt, error);
            last_handover = now;
        }
        if ( progress && now >= last_ms + PROGRESS_MS )
            show_progress(o, &last_ms, &last_records, &last_bytes);

        /* Block only after a pass that found nothing (see the top). */
        if ( !found && xt_wait(c->h, opt->poll_ms) < 0 && errno != EINTR )
            err(1, "waiting for VIRQ_TBUF");
    }
    if ( progress )
        fputc('\n', stderr);
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
    static const int sigs[] = { SIGHUP, SIGINT, SIGTERM, SIGALRM };
    struct sigaction sa = { .sa_handler = on_signal };
    size_t i;

    sigemptyset(&sa.sa_mask);
    for ( i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++ )
        sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);           /* a closed pipe: EPIPE, an error */
}

static uint8_t *all_cpus(unsigned int max_cpus)
{
    uint8_t *bitmap = malloc((max_cpus + 7) / 8);

    if ( !bitmap || parse_cpu_mask("all", max_cpus, bitmap) )
        err(1, "memory");
    return bitmap;
}

/* Each flag is cleared first: an error in here must not come back here. */
static void restore_masks(void)
{
    if ( host.evt_mask_set )
    {
        host.evt_mask_set = false;
        if ( xt_set_evt_mask(host.h, host.saved_evt_mask) )
            warn("cannot restore the event mask %#x", host.saved_evt_mask);
    }

    if ( host.cpu_mask_set )
    {
        unsigned int max_cpus = xt_max_cpus(host.h);
        uint8_t *bitmap;

        host.cpu_mask_set = false;
        bitmap = all_cpus(max_cpus);
        if ( xt_set_cpu_mask(host.h, bitmap, max_cpus) )
            warn("cannot set the CPU mask back to all CPUs");
        free(bitmap);
    }
}

/*
 * At exit after a fatal error: leave the host as we found it, except for
 * the buffers, which cannot be freed, and let the writer close the file.
 */
static void restore_host(void)
{
    if ( host.disable && xt_disable(host.h) )
        warn("cannot disable tracing");
    restore_masks();
    if ( host.out && host.out->running )
        finish_output(host.out, &host.cap->filling);
}

static int open_output(const struct options *o)
{
    int fd = STDOUT_FILENO, flags;
    off_t offset;

    if ( o->file )
    {
        fd = open(o->file, O_WRONLY | O_CREAT | O_TRUNC | O_LARGEFILE |
                           (o->direct ? O_DIRECT : 0), 0644);
        if ( fd < 0 && errno == EINVAL && o->direct )
            errx(1, "%s: the file system does not support --direct",
                 o->file);
        if ( fd < 0 )
            err(1, "%s", o->file);
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
    if ( offset > 0 && offset % FILE_ALIGN )
        errx(1, "%s: batches must start at a multiple of %d bytes: "
             "cannot append at offset %lld", o->name, FILE_ALIGN,
             (long long)offset);
    return fd;
}

static uint64_t read_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return 0;
#endif
}

/* The TSC's rate, measured against CLOCK_MONOTONIC; 0: no TSC. */
static uint64_t measure_tsc_hz(void)
{
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

/* Set -e and -c, remembering what restore_masks() must undo. */
static void set_masks(struct xt_host *h, const struct options *o,
                      const uint8_t *cpu_bitmap)
{
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
}

/*
 * Allocate the buffers (if they exist, Xen says EBUSY or EINVAL: they are
 * used as they are), enable tracing or with -X make sure it is off, map.
 */
static void start_tracing(struct xt_host *h, const struct options *o)
{
    unsigned int cpu;

    host.disable = !o->keep_tracing;
    if ( xt_set_size(h, o->tbuf_pages) && errno != EBUSY && errno != EINVAL )
        err(1, "cannot allocate trace buffers of %u pages", o->tbuf_pages);
    /* A successful set_size turns tracing on: -X turns it off again. */
    if ( o->start_disabled ? xt_disable(h) : xt_enable(h) )
        err(1, "cannot %s tracing", o->start_disabled ? "disable" : "enable");
    if ( xt_map_buffers(h) )
        err(1, "cannot map the trace buffers");
    if ( o->discard )
        for ( cpu = 0; cpu < xt_max_cpus(h); cpu++ )
            if ( xt_cpu_mapped(h, cpu) )
                xt_discard(h, cpu);
}

static void open_writer(struct output *out, int fd, unsigned int nr_cpus,
                        uint64_t tsc_hz, const struct options *o)
{
    struct xt_writer_opts wo = {
        .batch_bytes = o->batch_bytes,
        .ring_bytes = o->ring_bytes,
        .direct = o->direct,
        .reserve_bytes = o->reserve_mb << 20,
    };
    struct xt_metadata meta = { .tsc_hz = tsc_hz, .nr_cpus = nr_cpus };
    struct timespec now;

    meta.start_tsc = read_tsc();
    clock_gettime(CLOCK_REALTIME, &now);
    meta.start_sec = now.tv_sec;
    meta.start_nsec = now.tv_nsec;

    *out = (struct output){ .nr_cpus = nr_cpus,
                            .batch_bytes = o->batch_bytes };
    if ( !(out->w = xt_writer_open(fd, &meta, &wo)) )
        err(1, "%s", o->name);
}

static void print_counts(const struct output *out, const struct capture *c,
                         const struct options *o)
{
    struct cpu_count all = { 0 };
    unsigned int cpu;

    fprintf(stderr, "%5s %14s %16s %12s\n", "cpu", "records", "bytes",
            "lost");
    for ( cpu = 0; cpu < out->nr_cpus; cpu++ )
    {
        const struct cpu_count *n = &out->count[cpu];

        if ( !xt_cpu_mapped(c->h, cpu) )
            continue;
        fprintf(stderr, "%5u %14llu %16llu %12llu\n", cpu,
                (unsigned long long)n->records,
                (unsigned long long)n->bytes, (unsigned long long)n->lost);
        all.records += n->records;
        all.bytes += n->bytes;
        all.lost += n->lost;
    }
    fprintf(stderr, "%5s %14llu %16llu %12llu\n", "all",
            (unsigned long long)all.records, (unsigned long long)all.bytes,
            (unsigned long long)all.lost);
    fprintf(stderr, "%s: %llu bytes, %.2f%% padding%s\n", o->name,
            (unsigned long long)out->file_bytes,
            out->file_bytes ? 100.0 * out->file_padding / out->file_bytes : 0,
            o->ring_bytes ? " (-M: the file keeps the newest of them)" : "");
}

int main(int argc, char *argv[])
{
    struct options opt;
    struct capture cap;
    struct output out;
    uint8_t *cpu_bitmap;
    uint64_t tsc_hz;
    int fd, error;

    parse_options(argc, argv, &opt);
    catch_signals();

    if ( !(cap.h = xt_open()) )
        err(1, "cannot open Xen's interfaces");
    host.h = cap.h;
    atexit(restore_host);
    cpu_bitmap = parse_cpus(cap.h, &opt);
    /* First: a second consumer must fail before it changes anything. */
    if ( xt_bind_virq(cap.h) )
    {
        if ( errno == EEXIST )
            errx(1, "another trace consumer is running (VIRQ_TBUF is bound)");
        err(1, "cannot bind VIRQ_TBUF");
    }
    fd = open_output(&opt);
    tsc_hz = measure_tsc_hz();

    set_masks(cap.h, &opt, cpu_bitmap);
    free(cpu_bitmap);
    start_tracing(cap.h, &opt);

    cap.nr_cpus = xt_max_cpus(cap.h);
    stage_init(&cap.filling, cap.nr_cpus);
    cap.stage_limit = opt.batch_bytes * 2 > STAGE_MIN_LIMIT ?
                      opt.batch_bytes * 2 : STAGE_MIN_LIMIT;
    if ( !(cap.warned = calloc(cap.nr_cpus, sizeof(*cap.warned))) )
        err(1, "memory");
    open_writer(&out, fd, cap.nr_cpus, tsc_hz, &opt);
    start_output(&out);
    host.out = &out;
    host.cap = &cap;

    alarm(opt.seconds);
    capture(&cap, &out, &opt);

    /* Disable first, so that no CPU's records outrun the final pass. */
    if ( host.disable )
    {
        host.disable = false;           /* not again at exit */
        if ( xt_disable(cap.h) )
            err(1, "cannot disable tracing");
    }
    drain_pass(&cap);
    error = finish_output(&out, &cap.filling);
    host.out = NULL;
    if ( error )
        writer_failed(&opt, error);
    if ( opt.file && close(fd) )
        err(1, "%s", opt.name);
    restore_masks();

    print_counts(&out, &cap, &opt);

    stage_free(&cap.filling, cap.nr_cpus);
    stage_free(&out.ready, out.nr_cpus);
    stage_free(&out.writing, out.nr_cpus);
    free(out.count);
    free(cap.warned);
    xt_close(cap.h);
    return 0;
}
