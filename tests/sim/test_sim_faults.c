/*
 * Faults against our xentrace under xen-sim (docs/reliability.md): kill -9
 * at random points, a disk that fills at random points, the exit signals
 * under flood, a host that drops a call or dies, upstream's defects that
 * a capture could repeat, and a second dom0 process that writes over a
 * buffer.  Each checks that the file is whole up to
 * its last batch and that Debian's xenalyze reads it.
 *
 * xen-sim serves on a socket of its own here (no -- COMMAND), so one host
 * outlives many xentraces, and xentrace's exit can be told from xen-sim's.
 * The random points come from a seed that each test prints; FAULT_SEED=N
 * in the environment runs the same points again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <stdint.h>
#include <public/trace.h>

#include "sim_util.h"

#define KILL_RUNS       60      /* kill -9s, 50-1500 ms into a capture */
#define ENOSPC_RUNS     6       /* tmpfs of 4 KiB to 1 MiB */
#define MAX_CALLS       64      /* more requests than xentrace makes */
#define HANG_MS         30000   /* a dom0 still running then has hung */
#define PAGE            4096
#define TBUF_BYTES      (32 * PAGE)     /* xentrace's -S default */

static char host_socket[80], xt_err[80], scratch[80];
static unsigned int seed;
static pid_t host_pid, xt_pid;          /* still running, or 0 */
static char tmpfs_dir[64];              /* still mounted, or "" */

/* Paths beside sim_trace, in the directory that sim_setup() made. */
static int setup(void **state)
{
    const char *env = getenv("FAULT_SEED");
    int dirlen;

    if ( sim_setup(state) )
        return -1;
    dirlen = strrchr(sim_trace, '/') - sim_trace;
    snprintf(host_socket, sizeof(host_socket), "%.*s/sock", dirlen,
             sim_trace);
    snprintf(xt_err, sizeof(xt_err), "%.*s/xentrace.err", dirlen, sim_trace);
    snprintf(scratch, sizeof(scratch), "%.*s/scratch", dirlen, sim_trace);
    seed = env ? strtoul(env, NULL, 0) : (unsigned int)time(NULL);
    return 0;
}

/* After each test, even a failed one: end what it left running. */
static int end_leftovers(void **state)
{
    pid_t *pids[] = { &xt_pid, &host_pid };
    unsigned int i;

    (void)state;
    for ( i = 0; i < 2; i++ )
        if ( *pids[i] > 0 )
        {
            kill(*pids[i], SIGKILL);
            waitpid(*pids[i], NULL, 0);
            *pids[i] = 0;
        }
    unlink(host_socket);
    if ( *tmpfs_dir )
    {
        umount2(tmpfs_dir, MNT_DETACH);
        rmdir(tmpfs_dir);
        *tmpfs_dir = '\0';
    }
    return 0;
}

static int teardown(void **state)
{
    unlink(xt_err);
    unlink(scratch);
    return sim_teardown(state);
}

/* A number from @lo to @hi, from the seeded sequence. */
static unsigned int pick(unsigned int lo, unsigned int hi)
{
    return lo + rand_r(&seed) % (hi - lo + 1);
}

static void sleep_ms(unsigned int ms)
{
    struct timespec t = { ms / 1000, ms % 1000 * 1000000L };

    while ( nanosleep(&t, &t) && errno == EINTR )
        ;
}

/* Start @argv with stdout and stderr to @log and, if @dom0, as dom0. */
static pid_t spawn(char *const argv[], const char *log, bool dom0)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if ( pid == 0 )
    {
        char libs[256];
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        snprintf(libs, sizeof(libs), "%.*s/libs",
                 (int)(strrchr(XEN_SIM, '/') - XEN_SIM), XEN_SIM);
        if ( dom0 && (setenv("XEN_SIM_SOCKET", host_socket, 1) ||
                      setenv("LD_LIBRARY_PATH", libs, 1)) )
            _exit(126);
        if ( fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 )
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* @pid has been waited for: end_leftovers() must not kill it. */
static void forget(pid_t pid)
{
    if ( pid == host_pid )
        host_pid = 0;
    if ( pid == xt_pid )
        xt_pid = 0;
}

/*
 * Wait for @pid, which must end by itself: one still running after
 * HANG_MS has hung, and fails the test.  Returns its wait status.
 */
static int wait_exit(pid_t pid, const char *what)
{
    unsigned int waited;
    int status;

    for ( waited = 0; waited < HANG_MS; waited += 10 )
    {
        if ( waitpid(pid, &status, WNOHANG) == pid )
        {
            forget(pid);
            return status;
        }
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    forget(pid);
    fail_msg("%s did not exit within %u ms: it hangs", what, HANG_MS);
    return -1;
}

/*
 * xen-sim serving on host_socket, its CPUs running @workload, until
 * stop_host(); @close_after as its --close-after, 0 for none.
 */
static pid_t start_host(const char *workload, unsigned long close_after,
                        const char *tsc_skew)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    char n[24];
    char *argv[16] = {
        XEN_SIM, "--pcpus", "2", "--workload", (char *)workload, "--stats",
        sim_stats, "--socket", host_socket,
    };
    unsigned int argc = 9;
    unsigned int waited;
    pid_t pid;

    snprintf(n, sizeof(n), "%lu", close_after);
    if ( close_after )
    {
        argv[argc++] = "--close-after";
        argv[argc++] = n;
    }
    if ( tsc_skew )
    {
        argv[argc++] = "--tsc-skew";
        argv[argc++] = (char *)tsc_skew;
    }
    unlink(host_socket);
    pid = host_pid = spawn(argv, sim_log, false);

    /* Serving once a connection is accepted; the probe is dropped. */
    strcpy(addr.sun_path, host_socket);
    for ( waited = 0; waited < HANG_MS; waited += 10 )
    {
        int sock = socket(AF_UNIX, SOCK_STREAM, 0);
        int rc = connect(sock, (struct sockaddr *)&addr, sizeof(addr));

        close(sock);
        if ( !rc )
            return pid;
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    forget(pid);
    sim_show_file(sim_log, 20);
    fail_msg("xen-sim did not start serving");
    return -1;
}

/* SIGTERM: xen-sim stops its CPUs, writes sim_stats and exits 0. */
static void stop_host(pid_t pid)
{
    kill(pid, SIGTERM);
    assert_int_equal(wait_exit(pid, "xen-sim"), 0);
}

/* Start our xentrace on the host with @opts (NULL-ended), into @trace. */
static pid_t start_xentrace(const char *const *opts, const char *trace)
{
    char *argv[16] = { XENTRACE };
    unsigned int n = 1;

    while ( *opts )
        argv[n++] = (char *)*opts++;
    argv[n++] = (char *)trace;
    argv[n] = NULL;
    unlink(trace);
    return xt_pid = spawn(argv, xt_err, true);
}

/*
 * Wait until xentrace has created @trace: from then on it catches the exit
 * signals (a slow start, under a sanitizer on a busy machine, took more
 * than the 100 ms a test waited before its signal, which then killed it).
 */
static void wait_started(const char *trace)
{
    unsigned int waited;

    for ( waited = 0; access(trace, F_OK); waited += 5 )
    {
        if ( waited >= HANG_MS )
            fail_msg("xentrace did not create %s", trace);
        sleep_ms(5);
    }
}

/* Run our xentrace to its end; returns its exit status (128+sig). */
static int run_xentrace(const char *const *opts, const char *trace)
{
    int status = wait_exit(start_xentrace(opts, trace), "xentrace");

    return WIFEXITED(status) ? WEXITSTATUS(status)
                             : 128 + WTERMSIG(status);
}

/* The first line of xentrace's stderr that is its own, or "". */
static void first_own_line(char *line, size_t size)
{
    FILE *f = fopen(xt_err, "r");

    *line = '\0';
    assert_non_null(f);
    while ( fgets(line, size, f) && strncmp(line, "xentrace: ", 10) )
        *line = '\0';
    fclose(f);
}

/*
 * @trace is whole: a valid file of whole pages, or, if @cut may have
 * ended it in a batch, valid up to file->complete.
 */
static void check_file(const char *trace, bool cut, struct tf_summary *file)
{
    if ( !tf_read(trace, file) &&
         (!cut || strncmp(file->error, "file ends inside a window", 25)) )
        fail_msg("%s: %s", trace, file->error);
    assert_int_equal(file->unaligned, 0);
    assert_int_equal(file->complete % PAGE, 0);
    if ( !cut )
        assert_int_equal(file->bytes, file->complete);
}

/*
 * xenalyze --summary reads @trace to its end: exit 0, nothing fatal, and
 * unless @unexpected_ok, no record it did not expect.
 */
static void xenalyze_reads(const char *trace, bool unexpected_ok)
{
    char *argv[] = { XENALYZE, "--summary", (char *)trace, NULL };
    int rc = run_cmd(argv, sim_summary);
    char *text = sim_read_text(sim_summary);
    bool fatal = strstr(text, "FATAL") ||
                 (!unexpected_ok && strstr(text, "Unexpected"));

    free(text);                         /* before fail_msg() jumps */
    if ( rc || fatal )
    {
        sim_show_file(sim_summary, 40);
        fail_msg("xenalyze --summary %s: status %d", trace, rc);
    }
}

static void assert_xenalyze_reads(const char *trace)
{
    xenalyze_reads(trace, false);
}

/* The host's tracing is off: no consumer runs, and no prod moves. */
static void assert_tracing_off(void)
{
    char *argv[] = { TBUF_STATE, NULL };
    int status = wait_exit(spawn(argv, scratch, true), "tbuf-state");
    char *text = sim_read_text(scratch);
    bool off = strstr(text, "tracing off\n");

    free(text);
    if ( status || !off )
    {
        sim_show_file(scratch, 20);
        fail_msg("tracing was left on");
    }
}

/*
 * 1. kill -9
 * ==========
 *
 * Killed 50-1500 ms after it created its file (the writer thread writes
 * the first batches once records are a second old, unless half its pool
 * fills first), with one of several option sets, written with O_DIRECT
 * (the default, where the test's directory takes it) or through the page
 * cache (--buffered): the file is valid up to its last batch (a batch is
 * one write(2), which SIGKILL may cut), and cut back there xenalyze reads
 * it.  Each next xentrace binds VIRQ_TBUF again and runs, and a last
 * clean one leaves tracing off.
 */
static void test_kill9_at_random_points(void **state)
{
    static const char *const opt_sets[][8] = {
        { "-e", "all", NULL },
        { "-D", "--batch-size", "4k", "-e", "all", NULL },
        { "-s", "10", "--batch-size", "8k", "-e", "all", NULL },
        { "--batch-size", "4k", "-e", "all", NULL },
        { "-M", "256k", "-e", "all", NULL },
        { "--buffered", "--batch-size", "4k", "-e", "all", NULL },
    };
    const unsigned int nr_sets = sizeof(opt_sets) / sizeof(opt_sets[0]);
    static const char *const clean[] = { "-e", "all", "-T", "1", NULL };
    unsigned int run, cut = 0, read = 0;
    uint64_t bytes = 0, records = 0;
    struct tf_summary file;
    pid_t host;

    (void)state;
    print_message("seed %u\n", seed);
    host = start_host("mixed", 0, NULL);
    for ( run = 0; run < KILL_RUNS; run++ )
    {
        const char *const *opts = opt_sets[pick(0, nr_sets - 1)];
        pid_t xt = start_xentrace(opts, sim_trace);
        char *err;
        bool said;
        int status;

        wait_started(sim_trace);
        sleep_ms(pick(50, 1500));
        kill(xt, SIGKILL);
        status = wait_exit(xt, "xentrace");
        err = sim_read_text(xt_err);
        said = *err;
        free(err);
        if ( !WIFSIGNALED(status) || said )
        {
            sim_show_file(xt_err, 20);
            fail_msg("run %u: xentrace did not run until killed", run);
        }

        check_file(sim_trace, true, &file);
        cut += file.bytes != file.complete;
        bytes += file.complete;
        records += sim_file_records(&file);
        if ( file.complete )
        {
            assert_int_equal(truncate(sim_trace, file.complete), 0);
            assert_xenalyze_reads(sim_trace);
            read++;
        }
    }

    assert_int_equal(run_xentrace(clean, sim_trace), 0);
    check_file(sim_trace, false, &file);
    assert_true(sim_file_records(&file) > 0);
    assert_xenalyze_reads(sim_trace);
    assert_tracing_off();
    stop_host(host);
    print_message("%u kills: %u cut inside a batch, %u read by xenalyze, "
                  "%llu bytes and %llu records kept\n", KILL_RUNS, cut, read,
                  (unsigned long long)bytes, (unsigned long long)records);
}

/*
 * 2. A full disk
 * ==============
 *
 * A tmpfs of 4 KiB to 1 MiB fills at a different batch each run, every
 * other run written with --buffered, the others by the default path
 * (O_DIRECT, which tmpfs takes from Linux 6.6):
 * one line, exit 1, tracing off, the file whole and readable, and after
 * the line the exit table, whose counts are the file's exactly, wherever
 * the disk filled.
 */
static void test_enospc_at_random_points(void **state)
{
    static const char *const opts[] = { "-e", "all", "-T", "30", NULL };
    static const char *const buffered[] = { "--buffered", "-e", "all", "-T",
                                            "30", NULL };
    char *dir = tmpfs_dir, trace[96], want[160], mount_opts[32];
    struct tf_summary file;
    struct table t;
    unsigned int run;
    pid_t host;

    (void)state;
    print_message("seed %u\n", seed);
    strcpy(dir, "/tmp/test_sim_faults.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(trace, sizeof(trace), "%s/trace.bin", dir);
    snprintf(want, sizeof(want), "xentrace: %s: No space left on device\n",
             trace);
    host = start_host("flood", 0, NULL);
    for ( run = 0; run < ENOSPC_RUNS; run++ )
    {
        unsigned int size = (run ? pick(1, 256) : 1) * PAGE;
        char *out;
        bool said;

        snprintf(mount_opts, sizeof(mount_opts), "size=%u", size);
        if ( mount("tmpfs", dir, "tmpfs", 0, mount_opts) )
        {
            stop_host(host);
            rmdir(dir);
            *dir = '\0';
            skip();                     /* not root */
        }
        assert_int_equal(run_xentrace(run % 2 ? buffered : opts, trace), 1);
        out = sim_read_text(xt_err);
        said = !strncmp(out, want, strlen(want));
        free(out);
        if ( !said )
        {
            sim_show_file(xt_err, 20);
            fail_msg("tmpfs of %u bytes: not the one-line error first",
                     size);
        }

        check_file(trace, false, &file);
        read_table(xt_err, trace, &t);
        assert_table_counts(&t, &file);
        assert_int_equal(t.file_bytes, file.bytes);
        print_message("tmpfs of %7u bytes%s: %7llu written, %llu records\n",
                      size, run % 2 ? ", --buffered" : "",
                      (unsigned long long)file.bytes,
                      (unsigned long long)sim_file_records(&file));
        assert_true(file.bytes > 0 && file.bytes <= size);
        assert_xenalyze_reads(trace);
        assert_tracing_off();
        unlink(trace);
        assert_int_equal(umount(dir), 0);
    }
    stop_host(host);
    rmdir(dir);
    *dir = '\0';
}

/*
 * 3. Exit signals under flood
 * ===========================
 *
 * SIGTERM, SIGINT and SIGHUP at a random point while every CPU floods its
 * buffers: per CPU, what passed the masks is in the file or counted lost
 * there, exactly, so the exit path itself lost nothing.
 *
 * With a CPU whose records come late for their TSCs, too.  Xen reads the
 * TSC before it writes a record and publishes prod after; a CPU that
 * stalls in between (an SMI; in xen-sim, a CPU thread that the host's
 * scheduler takes off a busy machine for a few ms) publishes records
 * older than what the other CPUs have published since.  Its last batch
 * can then follow batches of other CPUs newer than its last record, and
 * xenalyze 4.17, having finished that CPU's stream, took the batch for a
 * CPU coming online and read it twice ("FATAL: sevt.old_runstate running,
 * but d4v0 runstate blocked!", about 1 run in 60 on a loaded machine).
 * xentrace ends every CPU's stream at the newest TSC (TRC_XT_END).  A
 * CPU 0 TSC 120M cycles behind the other's makes every record of it late:
 * without TRC_XT_END, about half of these runs failed.
 */
#define LATE_RUNS       8
#define LATE_SKEW       "0:-120000000"

/* @sig after 100-400 ms of flood: all accounted, and xenalyze reads it. */
static void signal_under_flood(int sig, const char *tsc_skew)
{
    static const char *const opts[] = { "-e", "all", NULL };
    struct sim_cpu cpus[NR_PCPUS];
    struct tf_summary file;
    pid_t host = start_host("flood", 0, tsc_skew);
    pid_t xt = start_xentrace(opts, sim_trace);
    unsigned int delay = pick(100, 400);
    int status;

    wait_started(sim_trace);
    sleep_ms(delay);
    kill(xt, sig);
    status = wait_exit(xt, "xentrace");
    if ( status )
    {
        sim_show_file(xt_err, 20);
        fail_msg("%s: xentrace's status %#x", strsignal(sig), status);
    }
    stop_host(host);

    print_message("%s after %u ms%s:\n", strsignal(sig), delay,
                  tsc_skew ? ", CPU 0's records late" : "");
    sim_read_stats(sim_stats, cpus);
    check_file(sim_trace, false, &file);
    sim_assert_accounted(&file, cpus);
    assert_xenalyze_reads(sim_trace);
}

static void test_exit_signals_lose_nothing(void **state)
{
    static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
    unsigned int i;

    (void)state;
    print_message("seed %u\n", seed);
    for ( i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++ )
        signal_under_flood(sigs[i], NULL);
}

static void test_exit_with_late_records(void **state)
{
    unsigned int run;

    (void)state;
    print_message("seed %u\n", seed);
    for ( run = 0; run < LATE_RUNS; run++ )
        signal_under_flood(SIGTERM, LATE_SKEW);
}

/*
 * A signal after xentrace last looked for one and before it waits: with
 * -s 3600000 (ms, the longest) and tracing off (-X), nothing else ends
 * that wait for an hour.
 * late-signal (LD_PRELOAD) raises SIGTERM as the first long ppoll(2)
 * begins; xentrace must see it there, and exit as for any signal.
 */
#define LATE_SIGNAL_MS  5000

static void test_signal_before_the_wait(void **state)
{
    static const char *const opts[] = { "-X", "-s", "3600000", NULL };
    pid_t host = start_host("idle", 0, NULL);
    unsigned int waited;
    pid_t xt;
    char *err;
    bool raised = false;
    bool asan_options = getenv("ASAN_OPTIONS");
    int status;

    (void)state;
    /* The sanitizers' runtime need not come first: the shim only passes on. */
    assert_int_equal(setenv("LD_PRELOAD", LATE_SIGNAL, 1), 0);
    if ( !asan_options )
        setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 1);
    xt = start_xentrace(opts, sim_trace);
    unsetenv("LD_PRELOAD");
    if ( !asan_options )
        unsetenv("ASAN_OPTIONS");
    for ( waited = 0; !raised && waited < HANG_MS; waited += 10 )
    {
        sleep_ms(10);
        err = sim_read_text(xt_err);
        raised = strstr(err, "late-signal: SIGTERM before the wait");
        free(err);
    }
    if ( !raised )
        fail_msg("xentrace never waited for a second or more");
    for ( waited = 0; waited < LATE_SIGNAL_MS; waited += 10 )
    {
        if ( waitpid(xt, &status, WNOHANG) == xt )
            break;
        sleep_ms(10);
    }
    if ( waited >= LATE_SIGNAL_MS )
        fail_msg("xentrace still waits %u ms after a SIGTERM that came "
                 "before its wait", LATE_SIGNAL_MS);
    forget(xt);
    stop_host(host);
    if ( !WIFEXITED(status) || WEXITSTATUS(status) )
    {
        sim_show_file(xt_err, 20);
        fail_msg("xentrace's status %#x", status);
    }
}

/*
 * 4. The host fails
 * =================
 *
 * xen-sim --close-after N drops the connection that sends the Nth request
 * without answering: every request xentrace makes, in turn, from opening
 * Xen's interfaces to restoring the masks.  xentrace exits, says why,
 * and leaves a whole file.
 */
static void test_host_drops_each_call(void **state)
{
    static const char *const opts[] = { "-e", "all", "-T", "1", NULL };
    unsigned int n, failed = 0;
    struct tf_summary file;
    char line[256];

    (void)state;
    for ( n = 1; n <= MAX_CALLS; n++ )
    {
        pid_t host = start_host("mixed", n, NULL);
        int rc = run_xentrace(opts, sim_trace);
        struct stat st;

        stop_host(host);
        first_own_line(line, sizeof(line));
        print_message("request %2u dropped: exit %d, %s", n, rc,
                      *line ? line : "no error\n");
        if ( rc == 0 && !*line )
            break;                      /* past xentrace's last request */
        if ( (rc != 0 && rc != 1) ||
             !strstr(line, ": Connection reset by peer\n") )
        {
            sim_show_file(xt_err, 20);
            fail_msg("request %u dropped: no clear error", n);
        }
        failed += rc == 1;
        if ( stat(sim_trace, &st) || !st.st_size )
            continue;                   /* before the first batch */
        check_file(sim_trace, false, &file);
        assert_xenalyze_reads(sim_trace);
    }
    assert_true(n <= MAX_CALLS);
    assert_true(failed > 0);
}

/*
 * xen-sim killed under xentrace, 200-500 ms in: xentrace's wait for
 * VIRQ_TBUF sees the connection go (drop-in libxenevtchn), and xentrace
 * exits 1 with that as its first error, leaving a whole file.
 */
static void test_host_dies_under_xentrace(void **state)
{
    static const char *const opts[] = { "-e", "all", NULL };
    struct tf_summary file;
    char line[256];
    pid_t host, xt;
    int status;

    (void)state;
    print_message("seed %u\n", seed);
    host = start_host("mixed", 0, NULL);
    xt = start_xentrace(opts, sim_trace);
    wait_started(sim_trace);
    sleep_ms(pick(200, 500));
    kill(host, SIGKILL);
    waitpid(host, NULL, 0);
    forget(host);
    status = wait_exit(xt, "xentrace, its host dead,");
    first_own_line(line, sizeof(line));
    if ( !WIFEXITED(status) || WEXITSTATUS(status) != 1 ||
         strcmp(line, "xentrace: waiting for VIRQ_TBUF: "
                "Connection reset by peer\n") )
    {
        sim_show_file(xt_err, 20);
        fail_msg("xentrace's status %#x, first error: %s", status, line);
    }
    check_file(sim_trace, false, &file);
    assert_true(sim_file_records(&file) > 0);
    assert_xenalyze_reads(sim_trace);
}

/*
 * 6. Upstream's defects (UPSTREAM-FACTS.md 3.11, 5.8)
 * ===================================================
 */

/* -t is documented upstream but not implemented: ours refuses it. */
static void test_t_option_is_refused(void **state)
{
    char *argv[] = { XENTRACE, "-t", "1", sim_trace, NULL };
    char *out;
    bool said;

    (void)state;
    assert_int_equal(run_cmd(argv, sim_log), 1);
    out = sim_read_text(sim_log);
    said = strstr(out, "invalid option -- 't'") && strstr(out, "usage: xentrace");
    free(out);
    assert_true(said);
}

/* Flushes in @path: runs of batches with rising CPU numbers, at least. */
static unsigned int count_epochs(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint32_t rec[3];
    unsigned int epochs = 0;
    int64_t last_cpu = -1;

    assert_non_null(f);
    while ( fread(rec, sizeof(rec), 1, f) == 1 )
    {
        epochs += rec[1] <= last_cpu;
        last_cpu = rec[1];
        assert_int_equal(fseek(f, rec[2], SEEK_CUR), 0);
    }
    fclose(f);
    return epochs + (last_cpu >= 0);
}

/*
 * -M with ring sizes of any 4-byte multiple from the smallest up, and the
 * smallest batches: upstream's -M wrote a CPU-change record past the end
 * of its ring when one landed within 8 bytes of it.  Ours keeps whole
 * batches; the file is whole, within a flush of the size, and readable.
 */
static void test_flight_recorder_ring_ends(void **state)
{
    char ring[24];
    const char *const opts[] = {
        "-M", ring, "--batch-size", "4k", "-e", "all", NULL,
    };
    struct tf_summary file;
    unsigned int run;
    pid_t host;

    (void)state;
    print_message("seed %u\n", seed);
    host = start_host("flood", 0, NULL);
    for ( run = 0; run < 4; run++ )
    {
        unsigned int size = 65536 + 4 * pick(0, 16384), epochs;
        pid_t xt;

        snprintf(ring, sizeof(ring), "%u", size);
        xt = start_xentrace(opts, sim_trace);
        wait_started(sim_trace);
        sleep_ms(pick(200, 500));
        kill(xt, SIGINT);
        if ( wait_exit(xt, "xentrace -M") )
        {
            sim_show_file(xt_err, 20);
            fail_msg("-M %u: xentrace failed", size);
        }
        check_file(sim_trace, false, &file);
        epochs = count_epochs(sim_trace);
        print_message("-M %u: kept %llu bytes, %u flushes\n", size,
                      (unsigned long long)file.bytes, epochs);
        /*
         * At least the ring's size (flood makes far more in 200 ms), and
         * less than one flush more: a 4 KiB batch and a buffer's window
         * per CPU, and the metadata's page.
         */
        assert_true(sim_file_records(&file) > 0);
        assert_true(file.bytes >= size);
        assert_true(file.bytes <=
                    size + NR_PCPUS * (4096 + TBUF_BYTES + PAGE) + PAGE);
        assert_xenalyze_reads(sim_trace);
    }
    stop_host(host);
}

/*
 * 5. A scribbling dom0
 * ====================
 *
 * Another dom0 process (tests/sim/scribble.c, on Debian's libraries)
 * writes over CPU 1's buffer: before the capture it leaves cons in the
 * middle of the records with random bytes from there to prod, and during
 * it, every few milliseconds, moves cons back or on and fills what lies
 * between cons and prod with random bytes.  xentrace writes a valid file,
 * skips what is not Xen's and says so: in its exit table, on stderr, and
 * in TRC_XT_SKIPPED markers that add up to the table's figure.  CPU 0,
 * untouched, is accounted for exactly, and xenalyze reads the file: exit
 * 0, nothing FATAL.  (It warns of records "Unexpected" for the vCPU it
 * takes to be running after a gap, when xentrace's guess at that vCPU,
 * in the lost-records marker that mends the gap, is wrong; it guesses
 * so itself after Xen's markers.)
 */
#define SCRIBBLED_CPU   1
#define SCRIBBLE_MS     "1000"

static void run_scribble(const char *when, const char *ms)
{
    char cpu[8], n[16], log[96];
    char *argv[] = { SCRIBBLE, (char *)when, cpu, n, (char *)ms, NULL };

    snprintf(cpu, sizeof(cpu), "%u", SCRIBBLED_CPU);
    snprintf(n, sizeof(n), "%u", pick(1, 1u << 30));
    snprintf(log, sizeof(log), "%s.scribble", xt_err);
    if ( wait_exit(spawn(argv, log, true), "scribble") )
    {
        sim_show_file(log, 10);
        unlink(log);
        fail_msg("scribble %s failed", when);
    }
    unlink(log);
}

/* The skipped bytes of CPU @cpu in xentrace's exit table. */
static unsigned long long table_skipped(unsigned int cpu)
{
    char *text = sim_read_text(xt_err), want[16], *line;
    unsigned long long skipped = ~0ULL;

    snprintf(want, sizeof(want), "\n%5u ", cpu);
    if ( (line = strstr(text, want)) )
        sscanf(line, " %*u %*u %*u %*u %*u %llu", &skipped);
    free(text);
    return skipped;
}

static void test_scribbling_dom0(void **state)
{
    static const char *const opts[] = { "-e", "all", NULL };
    struct sim_cpu cpus[NR_PCPUS];
    struct tf_summary file;
    pid_t host, xt;
    char *err;
    bool said;

    (void)state;
    print_message("seed %u\n", seed);
    host = start_host("mixed", 0, NULL);
    run_scribble("before", NULL);
    xt = start_xentrace(opts, sim_trace);
    wait_started(sim_trace);
    run_scribble("during", SCRIBBLE_MS);
    sleep_ms(200);
    kill(xt, SIGTERM);
    if ( wait_exit(xt, "xentrace") )
    {
        sim_show_file(xt_err, 20);
        fail_msg("xentrace failed");
    }
    stop_host(host);

    sim_read_stats(sim_stats, cpus);
    check_file(sim_trace, false, &file);
    print_message("CPU %u: %llu bytes skipped in %llu places\n",
                  SCRIBBLED_CPU,
                  (unsigned long long)file.cpu[SCRIBBLED_CPU].skipped,
                  (unsigned long long)file.cpu[SCRIBBLED_CPU].skips);
    assert_int_equal(file.cpu[0].records, cpus[0].records);
    assert_int_equal(file.cpu[0].lost, cpus[0].lost);
    assert_int_equal(file.cpu[0].skips, 0);
    assert_true(file.cpu[SCRIBBLED_CPU].skips > 0);
    assert_true(file.cpu[SCRIBBLED_CPU].records <=
                cpus[SCRIBBLED_CPU].records);
    assert_int_equal(table_skipped(0), 0);
    assert_int_equal(table_skipped(SCRIBBLED_CPU),
                     file.cpu[SCRIBBLED_CPU].skipped);
    err = sim_read_text(xt_err);
    said = strstr(err, "CPU 1: ") && strstr(err, "not Xen's records");
    free(err);
    assert_true(said);
    xenalyze_reads(sim_trace, true);
}

#define FAULT_TEST(test) cmocka_unit_test_teardown(test, end_leftovers)

int main(void)
{
    const struct CMUnitTest tests[] = {
        FAULT_TEST(test_kill9_at_random_points),
        FAULT_TEST(test_enospc_at_random_points),
        FAULT_TEST(test_exit_signals_lose_nothing),
        FAULT_TEST(test_exit_with_late_records),
        FAULT_TEST(test_signal_before_the_wait),
        FAULT_TEST(test_host_drops_each_call),
        FAULT_TEST(test_host_dies_under_xentrace),
        FAULT_TEST(test_t_option_is_refused),
        FAULT_TEST(test_flight_recorder_ring_ends),
        FAULT_TEST(test_scribbling_dom0),
    };

    /* FAULT_TEST=name (a glob): run only those tests. */
    if ( getenv("FAULT_TEST") )
        cmocka_set_test_filter(getenv("FAULT_TEST"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
