/*
 * libFuzzer target: what xentrace-join takes from a trace-cmd trace.dat
 * that is its own work, on any bytes: an event's format (the trace.dat
 * carries them, so they are as hostile as its records), parsed by
 * libtraceevent and routed by ftrace.c as a typed or generic event, and
 * records of that event, with any sizes, timestamps and missed counts,
 * made dom0's records by ftrace.c into lanes through the writer.  The
 * file written must read back undamaged, its lanes' events and losses
 * exactly those ftrace.c counted, no more events than records given.
 *
 * The input: a byte choosing the event's system (sched, irq, timer, or
 * one of no known event), a 16-bit length and the format's text, then
 * records, each {cpu (0-3), size, missed (signed), ts step (16 bits)}
 * and size bytes of the record.
 *
 * The trace.dat's container is libtracecmd's to read, and it is not made
 * for hostile files: it crashed within seconds when fuzzed whole, in ways
 * that do not repeat from run to run.  Nor is libtraceevent's parser of
 * formats: it crashes on some.  xentrace-join reads the file in a child
 * process, which test_sim_dom0 checks on a file that crashes libtracecmd;
 * this target leaves the container out, and parses each format in a
 * child first, leaving one that crashes the parser to the library.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static jmp_buf refused;

static void quiet(const char *fmt, ...)
{
    (void)fmt;
}

/* ftrace.c's refusals (errx), taken back: the program would exit. */
#define err(status, ...)    (quiet(__VA_ARGS__), longjmp(refused, 1))
#define errx(status, ...)   (quiet(__VA_ARGS__), longjmp(refused, 1))
#include "ftrace.c"
#undef err
#undef errx

#include "check_output.h"
#include "xtread.h"

#define LANES           4u
#define BATCH_BYTES     (64u * 1024)

static const char *const systems[] = { "sched", "irq", "timer", "fuzz" };

static int out_fd;
static char out_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if ( (out_fd = memfd_create("joined", 0)) < 0 )
        abort();
    snprintf(out_path, sizeof(out_path), "/proc/self/fd/%d", out_fd);
    tep_set_loglevel(TEP_LOG_NONE);
    return 0;
}

struct input {
    const uint8_t *p, *end;
};

static bool take(struct input *in, void *to, size_t n)
{
    if ( (size_t)(in->end - in->p) < n )
        return false;
    memcpy(to, in->p, n);
    in->p += n;
    return true;
}

/* The lanes written and read back: the counts must be ftrace.c's. */
struct run {
    struct tep_handle *tep;
    struct ftrace *ftrace;
    struct ftrace_lane lanes[LANES];
    uint8_t *batch[LANES];
    size_t len[LANES];
    struct xt_writer *w;
    uint64_t given;
};

static void lane_out(struct run *r, unsigned int cpu)
{
    if ( r->len[cpu] )
        CHECK(!xt_writer_put(r->w, 1 + cpu, r->batch[cpu], r->len[cpu]));
    r->len[cpu] = 0;
}

/* One record of the input's, as join.c's lane_up_to() takes it. */
static void put_record(struct run *r, unsigned int cpu, uint64_t ts,
                       long long missed, void *data, unsigned int size)
{
    struct tep_record rec = {
        .ts = ts, .data = data, .size = size, .missed_events = missed,
    };
    uint32_t *at;

    if ( r->len[cpu] + 4 * FTRACE_PUT_WORDS > BATCH_BYTES )
        lane_out(r, cpu);
    at = (uint32_t *)(r->batch[cpu] + XT_BATCH_HEAD + r->len[cpu]);
    ftrace_missed(&r->lanes[cpu], missed);
    r->len[cpu] += 4 * ftrace_put(r->ftrace, &r->lanes[cpu], &rec, ts, at);
    r->given++;
}

static void put_records(struct run *r, struct input *in)
{
    uint8_t head[5], data[256];
    uint64_t ts = 0;
    unsigned int cpu;

    while ( take(in, head, sizeof(head)) && take(in, data, head[1]) )
    {
        void *rec;

        ts += head[3] | head[4] << 8;
        /* a step of 0xffff goes back: ftrace.c must count it lost */
        if ( (head[3] & head[4]) == 0xff )
            ts -= 0x20000;
        /* exactly the record's bytes: a read past them is ASan's */
        if ( !(rec = malloc(head[1] ? head[1] : 1)) )
            abort();
        memcpy(rec, data, head[1]);
        put_record(r, head[0] % LANES, ts, (int8_t)head[2], rec, head[1]);
        free(rec);
    }
    for ( cpu = 0; cpu < LANES; cpu++ )
    {
        struct ftrace_lane *l = &r->lanes[cpu];
        uint32_t *at = (uint32_t *)(r->batch[cpu] + XT_BATCH_HEAD +
                                    r->len[cpu]);

        r->len[cpu] += 4 * ftrace_put_lost(l, l->last_tsc, at);
        lane_out(r, cpu);
    }
}

static void check_read_back(const struct run *r)
{
    struct xt_reader *rd = xt_reader_open(out_path, 0);
    const struct xt_reader_info *info;
    uint64_t events = 0, lost = 0;
    unsigned int cpu;

    CHECK(rd);
    info = xt_reader_info(rd);
    CHECK(info->damage == XT_DAMAGE_NONE);
    CHECK(xt_reader_dom0(rd)->lanes == LANES);
    for ( cpu = 0; cpu < LANES; cpu++ )
    {
        events += r->lanes[cpu].events;
        lost += r->lanes[cpu].lost;
    }
    CHECK(info->dom0_events == events);
    CHECK(info->dom0_lost == lost);
    CHECK(events <= r->given);
    xt_reader_close(rd);
}

/* Whether libtraceevent crashes parsing @format: in a child, quietly. */
static bool parser_crashes(const char *system, const char *format,
                           size_t len)
{
    static const int deadly[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
    pid_t pid = fork();
    int status;

    if ( pid < 0 )
        abort();
    if ( !pid )
    {
        struct tep_handle *tep = tep_alloc();
        unsigned int i;

        /* Dying here is the answer, not a crash for libFuzzer to keep. */
        for ( i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++ )
            signal(deadly[i], SIG_DFL);
        __sanitizer_set_death_callback(NULL);
        close(STDERR_FILENO);
        tep_parse_event(tep, format, len, system);
        _exit(0);
    }
    while ( waitpid(pid, &status, 0) != pid )
        if ( errno != EINTR )           /* libFuzzer's SIGALRM */
            abort();
    return !WIFEXITED(status) || WEXITSTATUS(status);
}

static void run_input(struct run *r, struct input *in, const char *system,
                      const char *format, size_t len)
{
    const struct xt_metadata meta = { .nr_cpus = 1, .tsc_hz = 1000000000 };
    struct xt_dom0_meta dom0 = {
        .first_lane = 1, .lanes = LANES, .clock = XT_DOM0_CLOCK_TRACE_DAT,
    };
    struct xt_writer_opts opts = { .dom0 = &dom0 };
    struct tep_event *ev;

    if ( parser_crashes(system, format, len) ||
         tep_parse_event(r->tep, format, len, system) ||
         !(ev = tep_get_first_event(r->tep)) )
        return;
    ftrace_add(r->ftrace, ev);
    ftrace_types(r->ftrace, &dom0);
    if ( ftruncate(out_fd, 0) || lseek(out_fd, 0, SEEK_SET) )
        abort();
    CHECK(r->w = xt_writer_open(out_fd, &meta, &opts));
    put_records(r, in);
    CHECK(!xt_writer_close(r->w));
    r->w = NULL;
    check_read_back(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Static: ftrace_add() may leave by longjmp(). */
    static struct run r;
    struct input in = { data, data + size };
    uint8_t which;
    uint16_t len;
    unsigned int cpu;

    if ( !take(&in, &which, 1) || !take(&in, &len, 2) ||
         (size_t)(in.end - in.p) < len )
        return 0;
    memset(&r, 0, sizeof(r));
    if ( !(r.tep = tep_alloc()) )
        abort();
    r.ftrace = ftrace_new(r.tep, "fuzz", true);
    for ( cpu = 0; cpu < LANES; cpu++ )
        if ( posix_memalign((void **)&r.batch[cpu], XT_PAGE,
                            xt_batch_size(BATCH_BYTES)) )
            abort();
    in.p += len;
    if ( !setjmp(refused) )
        run_input(&r, &in, systems[which % 4], (const char *)in.p - len,
                  len);
    if ( r.w )
        xt_writer_close(r.w);
    for ( cpu = 0; cpu < LANES; cpu++ )
        free(r.batch[cpu]);
    ftrace_free(r.ftrace);
    tep_free(r.tep);
    return 0;
}
