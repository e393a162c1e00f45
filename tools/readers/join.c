/*
 * xentrace-join: add dom0's kernel events from a trace-cmd trace.dat to a
 * capture of Xen's, as the lanes xentrace --dom0 would have recorded
 * (xtfile.h, "Dom0's kernel events"), into a new file.
 *
 * For a dom0 that records its ftrace with trace-cmd (record -C x86-tsc)
 * while xentrace records Xen: on x86-tsc, ftrace's timestamps are the
 * TSC, which a PV dom0 reads as Xen's, so the two are on one clock and
 * nothing is converted.  A trace.dat has no (TSC, CLOCK_MONOTONIC) pairs
 * to check that by, so the one check is that its TSCs and Xen's overlap:
 * a trace.dat on a clock in ns (local, mono, global) lies far below
 * Xen's TSCs on any host whose TSC runs faster than 1 GHz.
 *
 * libtracecmd reads the trace.dat (Debian's libtracecmd-dev: its format,
 * compressed sections and all, is trace-cmd's to know), and ftrace.c
 * makes the records.  The capture's batches are copied as they are; each
 * lane's events go after the batches of the epoch whose records reach
 * their TSC, so that every batch of an epoch covers the same stretch of
 * time, as upstream's readers want.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "ftrace.h"
#include "xtread.h"

/* A lane's batch: more of its events of an epoch go in the next. */
#define LANE_BYTES      (1u << 20)

struct lane {
    struct tep_record *next;            /* the next event, read ahead */
    struct ftrace_lane put;
};

struct dat {
    const char *path;
    const char *instance;               /* -B: NULL, the top buffer */
    struct tracecmd_input *file, *in;   /* the file, the buffer taken */
    struct tep_handle *tep;
    unsigned int cpus;
    struct ftrace *ftrace;
    uint64_t first_tsc, last_tsc, events;
    struct lane *lanes;
    uint8_t *batch;                     /* one lane's at a time */
    size_t len;                         /* bytes of records in it */
};

struct join {
    struct xt_reader *r;
    const char *path;
    uint64_t xen_first, xen_last;       /* Xen's records' TSCs */
    unsigned int first_lane;
    struct xt_iter *it;                 /* its batches, in file order */
    uint8_t *copy;                      /* a batch of its, copied */
    const char *out;
    int fd;
    struct xt_writer *w;
    bool *opened;                       /* the output, shared with the
                                           parent (join_apart()) */
};

static void __attribute__((noreturn)) usage(FILE *to, int status)
{
    fputs("usage: xentrace-join [-h] [-B instance] trace trace.dat output\n",
          to);
    if ( !status )
        fputs("  trace           a capture of xentrace's, without dom0's "
              "events\n"
              "  trace.dat       dom0's, from trace-cmd record -C x86-tsc\n"
              "  output          the capture with the trace.dat's events as "
              "dom0's\n"
              "  -B, --buffer instance\n"
              "                  take this buffer instance's events "
              "(trace-cmd record -B),\n"
              "                  not the top buffer's\n"
              "  -h, --help      print this help and exit\n", to);
    exit(status);
}

/*
 * The capture
 * ===========
 */

/* The capture, a file of xentrace-ng's without lanes; its span. */
static void open_capture(struct join *j)
{
    const struct xt_reader_info *info;
    unsigned int i;

    if ( !(j->r = xt_reader_open(j->path, 0)) )
        errx(1, "%s: %s", j->path, xt_reader_strerror(errno));
    info = xt_reader_info(j->r);
    if ( info->streamed )
        errx(1, "%s: not a file: its span is needed before it is copied",
             j->path);
    if ( !info->has_meta || !info->has_nr_cpus )
        errx(1, "%s: upstream's xentrace wrote it: dom0's lanes go after "
             "the CPUs that xentrace-ng's metadata counts", j->path);
    if ( !info->meta.nr_cpus || info->meta.nr_cpus >= XT_CPUS_MAX )
        errx(1, "%s: its metadata counts %" PRIu32 " CPUs", j->path,
             info->meta.nr_cpus);
    if ( xt_reader_dom0(j->r)->lanes )
        errx(1, "%s: holds dom0's events already", j->path);
    j->xen_first = UINT64_MAX;
    for ( i = 0; i < info->nr_cpus; i++ )
    {
        const struct xt_cpu_info *c = xt_reader_cpu(j->r, i);

        if ( !c->has_tsc )
            continue;
        if ( c->first_tsc < j->xen_first )
            j->xen_first = c->first_tsc;
        if ( c->last_tsc > j->xen_last )
            j->xen_last = c->last_tsc;
    }
    if ( j->xen_first > j->xen_last )
        errx(1, "%s: no record of Xen's has a TSC to put dom0's by", j->path);
    j->first_lane = info->meta.nr_cpus;
}

/* The newest TSC among a batch's records, or 0. */
static uint64_t batch_last_tsc(const struct xt_batch *b)
{
    uint64_t last = 0;
    size_t i;

    for ( i = 0; i < b->len; i += xt_record_words(b->words[i]) )
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(b->words[i]) )
        {
            uint64_t tsc = b->words[i + 1] |
                           (uint64_t)b->words[i + 2] << 32;

            if ( tsc > last )
                last = tsc;
        }
    return last;
}

/*
 * The trace.dat
 * =============
 */

static void free_record(struct tep_record **rec)
{
    if ( *rec )
        tracecmd_free_record(*rec);
    *rec = NULL;
}

/*
 * Look through every event once: the span, and a route for each event in
 * it, as the first batch names the generic ones before any is written.
 */
static void survey(struct dat *d)
{
    unsigned int cpu;

    d->first_tsc = UINT64_MAX;
    for ( cpu = 0; cpu < d->cpus; cpu++ )
    {
        struct tep_record *rec;

        for ( rec = tracecmd_read_cpu_first(d->in, cpu); rec;
              rec = tracecmd_read_data(d->in, cpu) )
        {
            struct tep_event *ev = tep_find_event(d->tep,
                                                  ftrace_event_id(d->ftrace,
                                                                  rec));

            if ( rec->ts < d->first_tsc )
                d->first_tsc = rec->ts;
            if ( rec->ts > d->last_tsc )
                d->last_tsc = rec->ts;
            d->events++;
            tracecmd_free_record(rec);
            if ( ev )
                ftrace_add(d->ftrace, ev);
        }
    }
}

/* The instances' names, "a, b", into @buf: what -B can take. */
static const char *instance_names(struct dat *d, char *buf, size_t size)
{
    int i, n = tracecmd_buffer_instances(d->file);
    size_t len = 0;

    buf[0] = '\0';
    for ( i = 0; i < n && len < size; i++ )
        len += snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                        tracecmd_buffer_instance_name(d->file, i));
    return buf;
}

/* The buffer -B names, or the top one; the others' are left out. */
static void take_buffer(struct dat *d)
{
    int i, n = tracecmd_buffer_instances(d->file);
    char names[256];

    d->in = d->file;
    for ( i = 0; d->instance && i < n; i++ )
        if ( !strcmp(tracecmd_buffer_instance_name(d->file, i), d->instance) &&
             !(d->in = tracecmd_buffer_instance_handle(d->file, i)) )
            errx(1, "%s: its buffer %s cannot be read", d->path, d->instance);
    if ( d->instance && d->in == d->file )
        errx(1, "%s: has no buffer instance %s%s%s", d->path, d->instance,
             n > 0 ? "; it has " : "", instance_names(d, names, sizeof(names)));
}

static void open_dat(struct dat *d)
{
    char names[256];
    bool others;
    int cpus;

    if ( !(d->file = tracecmd_open(d->path, 0)) )
        errx(1, "%s: not a trace.dat that libtracecmd reads", d->path);
    take_buffer(d);
    d->tep = tracecmd_get_tep(d->in);
    if ( (cpus = tep_get_cpus(d->tep)) <= 0 )
        errx(1, "%s: holds no CPU's events", d->path);
    d->cpus = cpus;
    d->ftrace = ftrace_new(d->tep, d->path, true);
    survey(d);
    /* the top buffer's taken: the instances' are left out */
    others = !d->instance && tracecmd_buffer_instances(d->file) > 0;
    if ( !d->events && !others )
        errx(1, "%s: holds no events", d->path);
    if ( !d->events )
        errx(1, "%s: holds no events in its top buffer; -B takes an "
             "instance's: %s", d->path, instance_names(d, names,
                                                       sizeof(names)));
    if ( others )
        warnx("%s: the events of its buffer instances (%s) are left out: "
              "-B takes one", d->path, instance_names(d, names,
                                                      sizeof(names)));
}

/* Room for its CPUs as lanes; on x86-tsc, or not (see the top). */
static void check_fit(const struct dat *d, const struct join *j)
{
    if ( d->cpus > XT_CPUS_MAX - j->first_lane )
        errx(1, "%s: holds %u CPUs' events, more than lanes can be after "
             "%s's %u CPUs", d->path, d->cpus, j->path, j->first_lane);
    if ( d->first_tsc <= j->xen_last && d->last_tsc >= j->xen_first )
        return;
    errx(1, "%s: its events (%" PRIu64 " to %" PRIu64 ") and Xen's (%"
         PRIu64 " to %" PRIu64 ") do not overlap: it was not recorded on "
         "x86-tsc (trace-cmd record -C x86-tsc) at the time of %s",
         d->path, d->first_tsc, d->last_tsc, j->xen_first, j->xen_last,
         j->path);
}

/*
 * Writing
 * =======
 */

/* Page-aligned memory for a batch of @bytes of records. */
static uint8_t *new_batch(size_t bytes)
{
    void *batch;
    int rc = posix_memalign(&batch, XT_PAGE, xt_batch_size(bytes));

    if ( rc )
    {
        errno = rc;
        err(1, "memory");
    }
    return batch;
}

static void start_lanes(struct dat *d)
{
    unsigned int cpu;

    if ( !(d->lanes = calloc(d->cpus, sizeof(*d->lanes))) )
        err(1, "memory");
    for ( cpu = 0; cpu < d->cpus; cpu++ )
        d->lanes[cpu].next = tracecmd_read_cpu_first(d->in, cpu);
    d->batch = new_batch(LANE_BYTES);
}

static void put_batch(struct join *j, unsigned int cpu, void *batch,
                      size_t bytes)
{
    if ( xt_writer_put(j->w, cpu, batch, bytes) )
        err(1, "%s", j->out);
}

static void lane_out(struct join *j, struct dat *d, unsigned int cpu)
{
    if ( !d->len )
        return;
    put_batch(j, j->first_lane + cpu, d->batch, d->len);
    d->len = 0;
}

static uint32_t *batch_end(struct dat *d)
{
    return (uint32_t *)(d->batch + XT_BATCH_HEAD + d->len);
}

/* Lane @cpu's events up to @tsc, in batches. */
static void lane_up_to(struct join *j, struct dat *d, unsigned int cpu,
                       uint64_t tsc)
{
    struct lane *l = &d->lanes[cpu];

    for ( ; l->next && l->next->ts <= tsc;
          free_record(&l->next), l->next = tracecmd_read_data(d->in, cpu) )
    {
        if ( d->len + 4 * FTRACE_PUT_WORDS > LANE_BYTES )
            lane_out(j, d, cpu);
        ftrace_missed(&l->put, l->next->missed_events);
        d->len += 4 * ftrace_put(d->ftrace, &l->put, l->next, l->next->ts,
                                 batch_end(d));
    }
    if ( tsc == UINT64_MAX )
        d->len += 4 * ftrace_put_lost(&l->put, l->put.last_tsc, batch_end(d));
    lane_out(j, d, cpu);
}

static void lanes_up_to(struct join *j, struct dat *d, uint64_t tsc)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < d->cpus; cpu++ )
        lane_up_to(j, d, cpu, tsc);
}

/*
 * A batch of the capture's, copied, in batches of COPY_BYTES at most: a
 * CPU's batches follow each other as its records do, and the memory is
 * not the input's to choose.
 */
#define COPY_BYTES      (1u << 20)

static void copy_batch(struct join *j, const struct xt_batch *b)
{
    size_t at = 0;

    if ( !j->copy )
        j->copy = new_batch(COPY_BYTES);
    while ( at < b->len )
    {
        size_t end = at;

        while ( end < b->len &&
                (end + xt_record_words(b->words[end]) - at) * 4 <= COPY_BYTES )
            end += xt_record_words(b->words[end]);
        memcpy(j->copy + XT_BATCH_HEAD, b->words + at, (end - at) * 4);
        put_batch(j, b->cpu, j->copy, (end - at) * 4);
        at = end;
    }
}

/* Whether @path is the file @st is of. */
static bool is_file(const char *path, const struct stat *st)
{
    struct stat other;

    return !stat(path, &other) && other.st_dev == st->st_dev &&
           other.st_ino == st->st_ino;
}

static int open_output(const struct join *j, const struct dat *d)
{
    struct stat out;
    int fd;

    if ( !stat(j->out, &out) &&
         (is_file(j->path, &out) || is_file(d->path, &out)) )
        errx(1, "%s: is one of the inputs", j->out);
    if ( (fd = open(j->out, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 )
        err(1, "%s", j->out);
    return fd;
}

/*
 * The capture's first batch, its metadata, with dom0's after; then every
 * batch, each epoch (a run of ascending CPUs) followed by the lanes'
 * events up to its newest TSC.
 */
static void write_joined(struct join *j, struct dat *d, int fd)
{
    struct xt_dom0_meta meta = {
        .first_lane = j->first_lane, .lanes = d->cpus,
        .clock = XT_DOM0_CLOCK_TRACE_DAT,
    };
    struct xt_writer_opts opts = { .dom0 = &meta };
    struct xt_batch b;
    unsigned int last_cpu = 0;
    uint64_t newest = 0;
    int got;

    if ( !(j->it = xt_iter_new(j->r, XT_ORDER_FILE, 0, 0)) )
        err(1, "memory");
    ftrace_types(d->ftrace, &meta);
    if ( xt_iter_batch(j->it, &b) != 1 )
        errx(1, "%s: its first batch cannot be read", j->path);
    opts.first_batch = b.words;
    opts.first_batch_words = b.len;
    if ( !(j->w = xt_writer_open(fd, &xt_reader_info(j->r)->meta, &opts)) )
        err(1, "%s", j->out);
    start_lanes(d);
    while ( (got = xt_iter_batch(j->it, &b)) == 1 )
    {
        uint64_t last = batch_last_tsc(&b);

        if ( b.cpu <= last_cpu )
            lanes_up_to(j, d, newest);
        copy_batch(j, &b);
        last_cpu = b.cpu;
        if ( last > newest )
            newest = last;
    }
    if ( got < 0 )
        err(1, "%s", j->path);
    lanes_up_to(j, d, UINT64_MAX);
}

/* What the output holds of dom0's, per CPU, as xentrace's exit table. */
static void print_lanes(const struct dat *d)
{
    uint64_t events = 0, lost = 0, formatless = 0;
    bool unknown = false;
    unsigned int cpu;

    printf("%8s %14s %12s\n", "dom0-cpu", "events", "lost");
    for ( cpu = 0; cpu < d->cpus; cpu++ )
    {
        const struct ftrace_lane *put = &d->lanes[cpu].put;

        printf("%8u %14" PRIu64 " %11" PRIu64 "%c\n", cpu, put->events,
               put->lost, put->lost_unknown ? '+' : ' ');
        events += put->events;
        lost += put->lost;
        unknown |= put->lost_unknown;
        formatless += put->untaken;
    }
    printf("%8s %14" PRIu64 " %11" PRIu64 "%c\n", "all", events, lost,
           unknown ? '+' : ' ');
    if ( formatless )
        warnx("%s: %" PRIu64 " events of no format it gives, counted lost",
              d->path, formatless);
}

static void free_dat(struct dat *d)
{
    unsigned int cpu;

    for ( cpu = 0; d->lanes && cpu < d->cpus; cpu++ )
        free_record(&d->lanes[cpu].next);
    free(d->lanes);
    free(d->batch);
    ftrace_free(d->ftrace);
    if ( d->in != d->file )
        tracecmd_close(d->in);
    tracecmd_close(d->file);
}

/* The capture's reader, unless it failed: the damage it found. */
static int free_join(struct join *j, bool read)
{
    char damage[256];
    int status = 0;

    xt_iter_free(j->it);
    free(j->copy);
    if ( j->r && read && xt_reader_damage(j->r, damage, sizeof(damage)) )
        warnx("%s: %s", j->path, damage);
    if ( j->r )
        status = xt_reader_status(j->r);
    xt_reader_close(j->r);
    return status;
}

/* The join, start to end: the exit status. */
static int join(struct join *j, struct dat *d)
{
    open_capture(j);
    open_dat(d);
    check_fit(d, j);
    j->fd = open_output(j, d);
    *j->opened = true;
    write_joined(j, d, j->fd);
    if ( xt_writer_close(j->w) || close(j->fd) )
        err(1, "%s", j->out);
    j->w = NULL;
    print_lanes(d);
    free_dat(d);
    return free_join(j, true);
}

/*
 * libtracecmd is not made for hostile files: fuzzing crashed it in a few
 * seconds (tracecmd_open_fd() closes a handle it half made, and reads
 * NULL), and on a file it cannot read it prints lines of its own
 * ("mmap: ...") whatever its log level.  So the join runs in a child
 * whose standard error comes here: its own lines pass, the library's
 * not; a crash is one line, and the output it began is removed.  A child
 * that failed without a line of its own (a sanitizer's report) has every
 * line passed.
 */
#define SAID_MAX        65536u          /* of the child's standard error */

struct said {
    char text[SAID_MAX + 1];
    size_t len;
};

/* What the child says, to its end; past SAID_MAX, dropped. */
static void hear(int from, struct said *said)
{
    char buf[4096];
    ssize_t n;

    while ( (n = read(from, buf, sizeof(buf))) != 0 )
    {
        size_t room = SAID_MAX - said->len;

        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 )
            break;
        memcpy(said->text + said->len, buf, (size_t)n < room ? (size_t)n
                                                             : room);
        said->len += (size_t)n < room ? (size_t)n : room;
    }
    said->text[said->len] = '\0';
}

/* A line of xentrace-join's own: err(3)'s "xentrace-join: ...". */
static bool ours(const char *line)
{
    size_t len = strlen(program_invocation_short_name);

    return !strncmp(line, program_invocation_short_name, len) &&
           !strncmp(line + len, ": ", 2);
}

/* Its lines: those of xentrace-join's, or @all; how many of ours. */
static unsigned int pass_on(const struct said *said, bool all)
{
    const char *line, *end;
    unsigned int n = 0;

    for ( line = said->text; *line; line = end )
    {
        end = strchrnul(line, '\n');
        end += *end == '\n';
        n += ours(line);
        if ( all || ours(line) )
            fwrite(line, 1, end - line, stderr);
    }
    return n;
}

static int join_apart(struct join *j, struct dat *d)
{
    static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
    static struct said said;
    unsigned int i;
    bool *opened = mmap(NULL, sizeof(*opened), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int pipes[2], status;
    pid_t pid;

    if ( opened == MAP_FAILED )
        err(1, "memory");
    j->opened = opened;
    if ( pipe(pipes) )
        err(1, "pipe");
    fflush(stdout);
    if ( (pid = fork()) < 0 )
        err(1, "fork");
    if ( !pid )
    {
        /* A crash is the child's death by its signal, whatever handler
           a runtime put there (a sanitizer's would exit 1 instead). */
        for ( i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++ )
            signal(deadly[i], SIG_DFL);
        if ( dup2(pipes[1], STDERR_FILENO) < 0 )
            err(1, "standard error");
        close(pipes[0]);
        close(pipes[1]);
        exit(join(j, d));
    }
    close(pipes[1]);
    hear(pipes[0], &said);
    while ( waitpid(pid, &status, 0) < 0 )
        if ( errno != EINTR )
            err(1, "waitpid");
    if ( WIFEXITED(status) )
    {
        if ( !pass_on(&said, false) && WEXITSTATUS(status) )
            pass_on(&said, true);
        return WEXITSTATUS(status);
    }
    if ( *opened )
        unlink(j->out);
    errx(1, "%s: the join crashed reading it (%s)%s", d->path,
         strsignal(WTERMSIG(status)), *opened ? "; output removed" : "");
}

int main(int argc, char *argv[])
{
    static const struct option longopts[] = {
        { "buffer", required_argument, NULL, 'B' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct join j = { 0 };
    struct dat d = { 0 };
    int ch;

    while ( (ch = getopt_long(argc, argv, "B:h", longopts, NULL)) != -1 )
        switch ( ch )
        {
        case 'B': d.instance = optarg; break;
        case 'h': usage(stdout, 0);
        default: usage(stderr, 1);
        }
    if ( argc - optind != 3 )
        usage(stderr, 1);
    j.path = argv[optind];
    d.path = argv[optind + 1];
    j.out = argv[optind + 2];
    /* The libraries' own messages: ours say what went wrong, once. */
    tracecmd_set_loglevel(TEP_LOG_NONE);
    tep_set_loglevel(TEP_LOG_NONE);
    return join_apart(&j, &d);
}
