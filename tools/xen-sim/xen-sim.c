/*
 * xen-sim: a simulated Xen host that dom0 programs capture traces from.
 *
 * It boots the hypervisor's trace buffers (xen/common/trace.c on the host
 * environment) with a Xen command line, runs each physical CPU as a thread
 * emitting a workload's events, and serves the tracing part of Xen's
 * interface on a UNIX socket (server.c): XEN_SYSCTL_tbuf_op, physinfo,
 * foreign mappings of the frames Xen shares, and VIRQ_TBUF.  Drop-in
 * libxenctrl, libxenforeignmemory and libxenevtchn (libs/) speak that
 * socket, so a dom0 program linked against Xen's libraries runs against
 * the simulator unchanged:
 *
 *   xen-sim [options] -- /usr/lib/xen-4.17/bin/xentrace -e all -T 3 t.bin
 *
 * With a command, xen-sim runs it as dom0 (with $XEN_SIM_SOCKET set and
 * the drop-in libraries first on $LD_LIBRARY_PATH) and exits with its
 * status once the CPUs have stopped.  Without one, it serves until killed
 * or until --duration has passed.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <host.h>
#include <xen/trace.h>

#include "numbers.h"
#include "protocol.h"
#include "server.h"
#include "store.h"
#include "workload.h"

#define DEFAULT_PCPUS     2
#define DEFAULT_WORKLOAD  "mixed"
#define PACE_NS           1000000L     /* pacing slice: 1 ms */

struct options {
    unsigned int pcpus;
    const char *cmdline;
    const struct workload *workload;
    unsigned long rate;          /* events/s per CPU; 0: flat out */
    unsigned long duration;      /* seconds; 0: until the command ends */
    const char *socket;
    const char *stats;
    unsigned long close_after;   /* fault injection: 0, or a request */
    bool repeatable;             /* --repeatable */
    bool stock_xen;              /* --stock-xen */
    unsigned int skew_cpu;       /* --tsc-skew: this CPU's TSC is off */
    long long skew_cycles;       /*   by this many cycles; 0: none */
    unsigned int rename_domid;   /* --rename: this domain is renamed */
    const char *rename_to;       /*   to this (NULL: none) */
    unsigned long rename_ms;     /*   this long after the CPUs start */
    const char *notify;          /* --notify: the FIFO dom0's side reads */
    char **command;
};

/* One physical CPU's thread. */
struct pcpu {
    pthread_t thread;
    unsigned int cpu;
    unsigned long rate;
    struct wl_cpu wl;
    const struct workload *workload;
    int64_t tsc_offset;          /* --tsc-skew */
    uint64_t emitted;            /* trace calls made */
    int notify_fd;               /* --notify's FIFO on pCPU 0; -1: none */
    uint64_t notify_at;          /*   the next, in CLOCK_MONOTONIC ns */
};

static volatile sig_atomic_t stop_signal;
static int cpus_stop;           /* atomic: the CPU threads must stop */

/* The usage and the workloads on @to; exit with @status. */
static void __attribute__((noreturn)) usage(FILE *to, int status)
{
    const struct workload *const *w;

    fprintf(to,
            "usage: xen-sim [-h] [--pcpus N] [--cmdline \"XEN OPTIONS\"] "
            "[--workload NAME]\n"
            "               [--rate EVENTS_PER_S|max] [--duration S] "
            "[--socket PATH]\n"
            "               [--stats FILE] [--close-after N] "
            "[--tsc-skew CPU:CYCLES]\n"
            "               [--rename DOMID=NAME@SECONDS] [--repeatable] "
            "[--stock-xen]\n"
            "               [--notify FIFO]\n"
            "               [-- COMMAND [ARG ...]]\n"
            "workloads:\n");
    for ( w = workloads; *w; w++ )
        fprintf(to, "  %-8s %s\n", (*w)->name, (*w)->summary);
    exit(status);
}

static unsigned long number(const char *opt, const char *arg,
                            unsigned long min, unsigned long max)
{
    unsigned long long n;

    if ( num_parse(arg, min, max, &n) )
        errx(1, "%s %s: not a number from %lu to %lu", opt, arg, min, max);
    return n;
}

/* --tsc-skew CPU:CYCLES: numbers.h's numbers, the cycles after a sign. */
static void parse_skew(const char *arg, struct options *o)
{
    unsigned long long cpu, cycles;
    bool over;
    const char *s = num_digits(arg, &cpu, &over);
    bool negative = *s == ':' && s[1] == '-';

    if ( s == arg || *s != ':' || num_check(cpu, over, 0, UINT_MAX) ||
         num_parse(s + 1 + negative, 1, LLONG_MAX, &cycles) )
        errx(1, "--tsc-skew %s: not CPU:CYCLES (cycles not 0)", arg);
    o->skew_cpu = cpu;
    o->skew_cycles = negative ? -(long long)cycles : (long long)cycles;
}

/* --rename DOMID=NAME@SECONDS: seconds in milliseconds' steps. */
static void parse_rename(char *arg, struct options *o)
{
    unsigned long long domid, ms;
    char *eq = strchr(arg, '='), *at = strrchr(arg, '@');
    double seconds;
    char end;

    if ( !eq || !at || at < eq + 2 )
        errx(1, "--rename %s: not DOMID=NAME@SECONDS", arg);
    *eq = *at = '\0';
    if ( num_parse(arg, 0, 0x7fef, &domid) ||
         sscanf(at + 1, "%lf%c", &seconds, &end) != 1 || !(seconds >= 0) ||
         seconds > 86400 )
        errx(1, "--rename %s=%s@%s: not DOMID=NAME@SECONDS (a domain id "
             "below 0x7ff0, seconds up to 86400)", arg, eq + 1, at + 1);
    ms = (unsigned long long)(seconds * 1000);
    o->rename_domid = domid;
    o->rename_to = eq + 1;
    o->rename_ms = ms;
}

static void parse_options(int argc, char *argv[], struct options *o)
{
    static const struct option longopts[] = {
        { "close-after", required_argument, NULL, 'C' },
        { "cmdline",  required_argument, NULL, 'c' },
        { "duration", required_argument, NULL, 'd' },
        { "pcpus",    required_argument, NULL, 'p' },
        { "rate",     required_argument, NULL, 'r' },
        { "rename",   required_argument, NULL, 'R' },
        { "notify",   required_argument, NULL, 'N' },
        { "repeatable", no_argument,     NULL, 'P' },
        { "stock-xen", no_argument,      NULL, 'X' },
        { "socket",   required_argument, NULL, 's' },
        { "stats",    required_argument, NULL, 'S' },
        { "tsc-skew", required_argument, NULL, 't' },
        { "workload", required_argument, NULL, 'w' },
        { "help",     no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *rate = NULL;
    int ch;

    *o = (struct options){ .pcpus = DEFAULT_PCPUS, .cmdline = "" };
    o->workload = workload_find(DEFAULT_WORKLOAD);

    while ( (ch = getopt_long(argc, argv, "+h", longopts, NULL)) != -1 )
        switch ( ch )
        {
        case 'C':
            o->close_after = number("--close-after", optarg, 1, ULONG_MAX);
            break;
        case 'c': o->cmdline = optarg; break;
        case 'd': o->duration = number("--duration", optarg, 1, 86400); break;
        case 'p': o->pcpus = number("--pcpus", optarg, 1, 256); break;
        case 'r': rate = optarg; break;
        case 'R': parse_rename(optarg, o); break;
        case 'N': o->notify = optarg; break;
        case 'P': o->repeatable = true; break;
        case 'X': o->stock_xen = true; break;
        case 's': o->socket = optarg; break;
        case 'S': o->stats = optarg; break;
        case 't': parse_skew(optarg, o); break;
        case 'w':
            o->workload = workload_find(optarg);
            if ( !o->workload )
                errx(1, "--workload %s: no such workload", optarg);
            break;
        case 'h':
            usage(stdout, 0);
        default:
            usage(stderr, 1);
        }

    if ( o->workload->unpaced || (rate && !strcmp(rate, "max")) )
        o->rate = 0;
    else if ( rate )
        o->rate = number("--rate (or max)", rate, 1, 100000000);
    else
        o->rate = o->workload->default_rate;

    if ( o->skew_cycles && o->skew_cpu >= o->pcpus )
        errx(1, "--tsc-skew: no CPU %u (--pcpus %u)", o->skew_cpu, o->pcpus);
    if ( optind < argc )
        o->command = argv + optind;
    else if ( !o->socket )
        errx(1, "no command to run: --socket is needed to serve others");
}

/*
 * CPUs
 * ====
 */

static bool cpus_stopping(void)
{
    return __atomic_load_n(&cpus_stop, __ATOMIC_ACQUIRE);
}

static uint64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * --notify: every NOTIFY_NS, what a device's interrupt for dom0 does: Xen
 * handles it (wl_notify()'s record), then dom0's side wakes, a byte down
 * the FIFO whose reader the host's scheduler wakes.  With xentrace
 * --dom0 on the host, the host's ftrace shows that wake-up after Xen's
 * record, on the same TSC (tests/sim/test_sim_dom0.c).
 */
#define NOTIFY_NS 50000000u

static void notify_due(struct pcpu *p)
{
    uint64_t now = now_ns();

    if ( p->notify_fd < 0 || now < p->notify_at )
        return;
    p->notify_at = now + NOTIFY_NS;
    wl_notify(&p->wl);
    p->emitted++;
    if ( write(p->notify_fd, "", 1) < 0 && errno != EAGAIN )
        warn("--notify");
}

/*
 * Emit the workload's events, @rate a second (0: flat out), until told to
 * stop.  A paced CPU catches up on events it is late for, one slice at a
 * time, and sleeps when it is ahead.
 */
static void *run_pcpu(void *arg)
{
    struct pcpu *p = arg;
    uint64_t start;

    host_cpu_enter(p->cpu);
    host_set_tsc_offset(p->tsc_offset);
    /* Repeatable: from the first record on, whenever tracing starts. */
    while ( p->wl.repeatable && !tb_init_done && !cpus_stopping() )
    {
        struct timespec slice = { .tv_nsec = PACE_NS };

        nanosleep(&slice, NULL);
    }
    start = now_ns();
    while ( !cpus_stopping() )
    {
        uint64_t due = p->rate ? (now_ns() - start) * p->rate / 1000000000ULL
                               : p->emitted + 64;

        if ( p->emitted >= due )
        {
            struct timespec slice = { .tv_nsec = PACE_NS };

            nanosleep(&slice, NULL);
            continue;
        }
        while ( p->emitted < due && !cpus_stopping() )
        {
            p->emitted += p->workload->step(&p->wl);
            host_process_softirqs();
        }
        notify_due(p);
    }
    host_set_current(NULL);

    return NULL;
}

static struct pcpu *start_pcpus(const struct options *o)
{
    struct pcpu *pcpus = calloc(o->pcpus, sizeof(*pcpus));
    unsigned int cpu;

    if ( !pcpus )
        err(1, "calloc");
    for ( cpu = 0; cpu < o->pcpus; cpu++ )
    {
        struct pcpu *p = &pcpus[cpu];

        p->cpu = cpu;
        p->rate = o->rate;
        p->workload = o->workload;
        p->tsc_offset = cpu == o->skew_cpu ? o->skew_cycles : 0;
        p->notify_fd = -1;
        /* O_RDWR: a FIFO's open waits for no reader, and never fails */
        if ( !cpu && o->notify &&
             (p->notify_fd = open(o->notify, O_RDWR | O_NONBLOCK)) < 0 )
            err(1, "--notify %s", o->notify);
        o->workload->init(&p->wl, cpu, o->pcpus, 0x5eed0000 + cpu);
        p->wl.repeatable = o->repeatable;
        errno = pthread_create(&p->thread, NULL, run_pcpu, p);
        if ( errno )
            err(1, "pthread_create");
    }

    return pcpus;
}

static void stop_pcpus(struct pcpu *pcpus, unsigned int n)
{
    unsigned int cpu;

    __atomic_store_n(&cpus_stop, 1, __ATOMIC_RELEASE);
    for ( cpu = 0; cpu < n; cpu++ )
        pthread_join(pcpus[cpu].thread, NULL);
}

/*
 * Statistics
 * ==========
 *
 * "passed" is what passed the masks while tracing was on, by the
 * hypervisor's own count: written, lost for want of room, or dropped on a
 * CPU without a buffer.  A consumer should find each written record in
 * its file and each lost one in a lost-records marker.
 */

static void print_stats(FILE *f, const struct options *o,
                        const struct pcpu *pcpus)
{
    unsigned int cpu;

    fprintf(f, "xen-sim: %u pCPUs, workload %s\n"
            "  cpu      emitted       passed      written         lost"
            "        bytes\n", o->pcpus, o->workload->name);
    for ( cpu = 0; cpu < o->pcpus; cpu++ )
    {
        struct trace_cpu_stats s;

        trace_cpu_stats(cpu, &s);
        fprintf(f, "  %3u %12llu %12lu %12lu %12lu %12lu\n", cpu,
                (unsigned long long)pcpus[cpu].emitted,
                s.records + s.lost + s.unbuffered, s.records, s.lost,
                s.bytes);
    }
}

static void write_stats_json(const char *path, const struct options *o,
                             const struct pcpu *pcpus)
{
    FILE *f = fopen(path, "w");
    unsigned int cpu;

    if ( !f )
        err(1, "%s", path);
    fprintf(f, "{\"pcpus\": %u, \"workload\": \"%s\", \"cpus\": [",
            o->pcpus, o->workload->name);
    for ( cpu = 0; cpu < o->pcpus; cpu++ )
    {
        struct trace_cpu_stats s;

        trace_cpu_stats(cpu, &s);
        fprintf(f, "%s\n  {\"cpu\": %u, \"emitted\": %llu, \"passed\": %lu, "
                "\"records\": %lu, \"lost\": %lu, \"unbuffered\": %lu, "
                "\"resyncs\": %lu, \"bytes\": %lu}", cpu ? "," : "", cpu,
                (unsigned long long)pcpus[cpu].emitted,
                s.records + s.lost + s.unbuffered, s.records, s.lost,
                s.unbuffered, s.resyncs, s.bytes);
    }
    fprintf(f, "\n]}\n");
    if ( fclose(f) )
        err(1, "%s", path);
}

/*
 * dom0
 * ====
 */

/* The drop-in libraries live in libs/ beside the xen-sim binary. */
static char *libs_dir(void)
{
    char exe[PATH_MAX], *dir;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if ( n < 0 )
        err(1, "/proc/self/exe");
    exe[n] = '\0';
    if ( asprintf(&dir, "%s/libs", dirname(exe)) < 0 )
        err(1, "asprintf");
    return dir;
}

static pid_t start_dom0(char **command, const char *socket)
{
    const char *old = getenv("LD_LIBRARY_PATH");
    char *libs = libs_dir(), *path;
    pid_t pid;

    if ( asprintf(&path, "%s%s%s", libs, old ? ":" : "", old ? old : "") < 0 )
        err(1, "asprintf");
    pid = fork();
    if ( pid < 0 )
        err(1, "fork");
    if ( pid == 0 )
    {
        setenv(XS_SOCKET_ENV, socket, 1);
        setenv("LD_LIBRARY_PATH", path, 1);
        execvp(command[0], command);
        err(127, "%s", command[0]);
    }
    free(path);
    free(libs);

    return pid;
}

/* The exit status a shell would give for @status. */
static int exit_status(int status)
{
    if ( WIFEXITED(status) )
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

static void note_signal(int sig)
{
    stop_signal = sig;
}

/*
 * Wait for dom0 to exit, or for --duration (then the CPUs stop, and dom0
 * is still waited for), or without dom0 for a signal.  A signal to
 * xen-sim is passed on to dom0, once, and xen-sim waits for it to finish
 * its exit path (a terminal's ^C reaches both anyway).
 */
static int wait_for_end(pid_t dom0, const struct options *o,
                        struct pcpu *pcpus)
{
    uint64_t deadline = o->duration ? now_ns() + o->duration * 1000000000ULL
                                    : UINT64_MAX;
    bool stopped = false, forwarded = false;
    int status = 0;

    for ( ; ; )
    {
        struct timespec tick = { .tv_nsec = 10000000 };

        if ( dom0 > 0 && waitpid(dom0, &status, WNOHANG) == dom0 )
            break;
        if ( dom0 > 0 && stop_signal && !forwarded )
        {
            kill(dom0, stop_signal);
            forwarded = true;
        }
        if ( dom0 <= 0 && stop_signal )
            break;
        if ( !stopped && now_ns() >= deadline )
        {
            stop_pcpus(pcpus, o->pcpus);
            stopped = true;
            if ( dom0 <= 0 )
                break;
        }
        nanosleep(&tick, NULL);
    }
    if ( !stopped )
        stop_pcpus(pcpus, o->pcpus);

    return dom0 > 0 ? exit_status(status) : 0;
}

/* A socket path of our own, for a dom0 that xen-sim starts itself. */
static char *private_socket(void)
{
    char tmpl[] = "/tmp/xen-sim.XXXXXX", *dir, *path;

    dir = mkdtemp(tmpl);
    if ( !dir || asprintf(&path, "%s/socket", dir) < 0 )
        err(1, "mkdtemp");
    return path;
}

/* --rename: what the toolstack's xl rename does, in the host's xenstore. */
static void *rename_later(void *arg)
{
    const struct options *o = arg;
    struct timespec t = { .tv_sec = o->rename_ms / 1000,
                          .tv_nsec = o->rename_ms % 1000 * 1000000 };

    while ( nanosleep(&t, &t) && errno == EINTR )
        ;
    if ( store_rename(o->rename_domid, o->rename_to) )
        warnx("--rename: no domain %u", o->rename_domid);
    return NULL;
}

static void start_rename(struct options *o)
{
    pthread_t t;

    if ( (errno = pthread_create(&t, NULL, rename_later, o)) ||
         (errno = pthread_detach(t)) )
        err(1, "--rename: thread");
}

int main(int argc, char *argv[])
{
    struct options o;
    struct host_config cfg = { 0 };
    struct sigaction sa = { .sa_handler = note_signal };
    struct pcpu *pcpus;
    char *socket;
    pid_t dom0 = 0;
    int rc, status;

    parse_options(argc, argv, &o);

    cfg.nr_cpus = o.pcpus;
    cfg.cmdline = o.cmdline;
    rc = host_boot(&cfg);
    if ( rc )
        errx(1, "cannot boot with \"%s\": %s", o.cmdline, strerror(-rc));

    store_init();
    socket = o.socket ? strdup(o.socket) : private_socket();
    server_close_after(o.close_after);
    if ( o.stock_xen )
        server_stock_tbuf_ops();
    if ( server_start(socket) )
        err(1, "%s", socket);

    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    pcpus = start_pcpus(&o);
    if ( o.rename_to )
        start_rename(&o);
    if ( o.command )
        dom0 = start_dom0(o.command, socket);
    status = wait_for_end(dom0, &o, pcpus);

    server_stop();
    print_stats(stderr, &o, pcpus);
    if ( o.stats )
        write_stats_json(o.stats, &o, pcpus);
    if ( !o.socket )
        rmdir(dirname(socket));
    free(socket);
    free(pcpus);

    return status;
}
