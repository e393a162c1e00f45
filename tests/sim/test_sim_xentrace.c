/*
 * What only our xentrace does, against xen-sim (the checks any xentrace
 * passes are test_sim_capture.c's): Debian's xenalyze reads a
 * flight-recorder dump and a file cut by kill -9; masks are put back at
 * exit; a second consumer, a full disk and a disk reserve end it cleanly,
 * the last two with the exit table of the file they leave; "-" is the standard output; an output
 * stalled for seconds loses nothing; --realtime, and its refusal;
 * xen-sim's numbers; and the domains' names from xen-sim's xenstore.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <stdint.h>
#include <public/trace.h>

#include "sim_util.h"


/* The sanitizers make mlockall() do nothing, successfully. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MLOCK_WORKS 0
#else
#define MLOCK_WORKS 1
#endif

/* -M: only the newest data, from an epoch boundary, readable. */
static void test_flight_recorder(void **state)
{
    static const char *const args[] = {
        "-D", "-M", "256k", "-e", "all", "-T", "3", NULL,
    };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];
    struct stat st;
    struct table t;

    (void)state;
    sim_capture(XENTRACE, "mixed", args, &file, cpus);
    assert_int_equal(stat(sim_trace, &st), 0);
    read_table(sim_log, sim_trace, &t);
    print_message("-M 256k kept %lld bytes of %llu\n", (long long)st.st_size,
                  t.passed_bytes);
    /*
     * At least -M's size, and less than one epoch more, an epoch being
     * per CPU at most a batch (32k: an eighth of -M) and a window of
     * its buffer (128k), pages rounded up; and the metadata's page.
     */
    assert_true(st.st_size >= 256 * 1024 + 4096);
    assert_true(st.st_size < 256 * 1024 + 4096 +
                             NR_PCPUS * (32 + 128 + 4) * 1024);
    /* The size it says is the file's; what came through is more. */
    assert_int_equal(t.file_bytes, st.st_size);
    assert_true(t.passed_bytes > (unsigned long long)st.st_size);
    /* Its counts are those of what the file kept. */
    assert_table_counts(&t, &file);
    assert_true(file.cpu[0].records + file.cpu[1].records > 0);
    sim_assert_ours_whole(&file);
    sim_assert_xenalyze_reads();
}

/* --direct: O_DIRECT writes, the same file; skipped where unsupported. */
static void test_direct_io(void **state)
{
    static const char *const args[] = {
        "--direct", "-e", "all", "-T", "2", NULL,
    };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];
    int fd = open(sim_trace, O_WRONLY | O_CREAT | O_DIRECT, 0644);

    (void)state;
    if ( fd < 0 )
        skip();                 /* tmpfs and some others refuse O_DIRECT */
    close(fd);
    sim_capture(XENTRACE, "mixed", args, &file, cpus);
    sim_assert_accounted(&file, cpus);
    sim_assert_ours_whole(&file);
    sim_assert_xenalyze_reads();
}

/*
 * Run a dom0 shell script under xen-sim, at @rate events a second per CPU
 * (NULL: mixed's own); its output goes to sim_log, the hypervisor's counts
 * to sim_stats.
 */
static int run_script_at(const char *rate, const char *script)
{
    char *argv[] = {
        XEN_SIM, "--pcpus", "2", "--workload", "mixed", "--stats", sim_stats,
        "--rate", (char *)rate, "--", "/bin/sh", "-c", (char *)script, NULL,
    };

    if ( !rate )
        memmove(argv + 7, argv + 9, 5 * sizeof(*argv));
    return run_cmd(argv, sim_log);
}

static int run_script(const char *script)
{
    return run_script_at(NULL, script);
}

/*
 * The file descriptor flags of xentrace's output, captured with
 * @options into sim_trace, or through a FIFO of that name's that cat
 * copies to sim_trace; stopped by SIGINT once it has written records.
 */
static unsigned long output_flags(const char *options, bool fifo)
{
    char *flags_file, *script;
    unsigned long flags;
    FILE *f;

    assert_true(asprintf(&flags_file, "%s.flags", sim_trace) > 0);
    assert_true(asprintf(&script,
        "rm -f %1$s %1$s.fifo; out=%1$s; "
        "if [ %4$d = 1 ]; then mkfifo %1$s.fifo; cat %1$s.fifo > %1$s & "
        "out=%1$s.fifo; fi; "
        "%2$s %3$s -e all -T 30 $out & pid=$!; n=0; "
        "while [ $(stat -c %%s %1$s 2>/dev/null || echo 0) -le 4096 ] && "
        "[ $n -lt 250 ]; do sleep 0.1; n=$((n + 1)); done; "
        "for fd in /proc/$pid/fd/*; do [ \"$(readlink $fd)\" = $out ] && "
        "sed -n 's/^flags:[[:space:]]*//p' /proc/$pid/fdinfo/${fd##*/}; "
        "done > %5$s; kill -INT $pid; wait; rm -f %1$s.fifo", sim_trace,
        XENTRACE, options, fifo, flags_file) > 0);
    assert_int_equal(run_script(script), 0);
    f = fopen(flags_file, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lo", &flags), 1);
    fclose(f);
    unlink(flags_file);
    free(flags_file);
    free(script);
    return flags;
}

/*
 * The default write path: O_DIRECT where the file is regular and its
 * file system takes it, the page cache with --buffered, and never on a
 * FIFO, where O_DIRECT would make each write a packet.  Each file whole.
 */
static void test_default_path(void **state)
{
    static const struct {
        const char *name, *options;
        bool fifo, direct;
    } cases[] = {
        { "a regular file", "", false, true },
        { "--buffered", "--buffered", false, false },
        { "a FIFO", "", true, false },
    };
    struct tf_summary file;
    int fd = open(sim_trace, O_WRONLY | O_CREAT | O_DIRECT, 0644);
    unsigned int i;

    (void)state;
    if ( fd < 0 )
        skip();                 /* file systems that refuse O_DIRECT */
    close(fd);
    for ( i = 0; i < sizeof(cases) / sizeof(cases[0]); i++ )
    {
        unsigned long flags = output_flags(cases[i].options, cases[i].fifo);

        print_message("%s: flags %#lo\n", cases[i].name, flags);
        assert_int_equal(!!(flags & O_DIRECT), cases[i].direct);
        tf_read(sim_trace, &file);
        sim_assert_ours_whole(&file);
    }
}

/*
 * kill -9 mid-capture: the file is whole up to its last complete batch.
 * A batch is one write(2), which SIGKILL may still cut short; xenalyze
 * (Debian's, for its own files too) fails on a batch cut in the middle,
 * so it reads the file up to there, as a user would cut it.
 */
static void test_killed_capture_is_readable(void **state)
{
    struct tf_summary file;
    char *script;

    (void)state;
    /*
     * Killed once it has written records, not only its metadata page: on
     * a loaded machine (a sanitizer's build) that takes more than 2 s.
     */
    assert_true(asprintf(&script, "rm -f %s; %s -D -e all -T 30 %s & "
                         "pid=$!; n=0; while [ $(stat -c %%s %s 2>/dev/null "
                         "|| echo 0) -le 4096 ] && [ $n -lt 250 ]; do "
                         "sleep 0.1; n=$((n + 1)); done; sleep 1; "
                         "kill -9 $pid; wait $pid; exit 0", sim_trace,
                         XENTRACE, sim_trace, sim_trace) > 0);
    assert_int_equal(run_script(script), 0);
    free(script);

    tf_read(sim_trace, &file);
    print_message("killed: %llu bytes, whole up to %llu\n",
                  (unsigned long long)file.bytes,
                  (unsigned long long)file.complete);
    assert_true(file.complete > 0 && file.complete % 4096 == 0);
    assert_int_equal(truncate(sim_trace, file.complete), 0);
    sim_assert_xenalyze_reads();
}

/* The event mask in force before xentrace is in force after it. */
static void test_event_mask_is_restored(void **state)
{
    char *script, *out;

    (void)state;
    assert_true(asprintf(&script, "%s -e sched -T 1 %s && %s",
                         XENTRACE, sim_trace, TBUF_MASK) > 0);
    assert_int_equal(run_script(script), 0);
    free(script);
    out = sim_read_text(sim_log);
    if ( !strstr(out, "evt_mask 0xffff000\n") )
    {
        sim_show_file(sim_log, 40);
        fail_msg("the event mask was not restored to TRC_ALL");
    }
    free(out);
}

/* A second consumer is refused, clearly; the first goes on. */
static void test_second_consumer_is_refused(void **state)
{
    char *script, *out, *second;

    (void)state;
    assert_true(asprintf(&second, "%s.2", sim_trace) > 0);
    assert_true(asprintf(&script, "%s -e all -T 3 %s & sleep 1; "
                         "%s -T 1 %s; echo second=$?; wait $!",
                         XENTRACE, sim_trace, XENTRACE, second) > 0);
    assert_int_equal(run_script(script), 0);
    free(script);
    out = sim_read_text(sim_log);
    if ( !strstr(out, "second=1\n") || !strstr(out, "VIRQ_TBUF") )
    {
        sim_show_file(sim_log, 40);
        fail_msg("the second xentrace was not refused clearly");
    }
    free(out);
    unlink(second);
    free(second);
}

/*
 * "xentrace @opts FILE" with FILE on a tmpfs of @size mounted on @dir (the
 * test is skipped if it cannot be), and its status echoed: sim_log's
 * text.  FILE's name at *@trace, for remove_tmpfs().
 */
static char *run_on_tmpfs(char *dir, const char *size, const char *opts,
                          char **trace)
{
    char mount_opts[32], *script;

    assert_non_null(mkdtemp(dir));
    snprintf(mount_opts, sizeof(mount_opts), "size=%s", size);
    if ( mount("tmpfs", dir, "tmpfs", 0, mount_opts) )
    {
        rmdir(dir);
        skip();
    }
    assert_true(asprintf(trace, "%s/trace.bin", dir) > 0);
    assert_true(asprintf(&script, "%s %s %s; echo rc=$?", XENTRACE, opts,
                         *trace) > 0);
    assert_int_equal(run_script(script), 0);
    free(script);
    return sim_read_text(sim_log);
}

static void remove_tmpfs(char *dir, char *trace)
{
    unlink(trace);
    free(trace);
    umount(dir);
    rmdir(dir);
}

/*
 * A file system that fills up: a one-line error, exit 1, a file that is
 * whole up to its last batch, and the exit table, which counts that file
 * and not what was taken from Xen but never written.
 */
static void test_full_disk(void **state)
{
    char dir[] = "/tmp/test_full_disk.XXXXXX", *out, *trace;
    struct tf_summary file;
    struct table t;

    (void)state;
    out = run_on_tmpfs(dir, "512k", "-e all -T 20", &trace);
    if ( !strstr(out, "rc=1\n") || !strstr(out, "No space left on device") )
    {
        sim_show_file(sim_log, 40);
        fail_msg("a full disk did not stop xentrace with its error");
    }
    if ( !tf_read(trace, &file) )
        fail_msg("%s: %s", trace, file.error);
    assert_true(file.bytes > 0 && file.bytes % 4096 == 0);
    read_table(sim_log, trace, &t);
    assert_table_counts(&t, &file);
    assert_int_equal(t.file_bytes, file.bytes);
    free(out);
    remove_tmpfs(dir, trace);
}

/* -r: stop before the disk is full, however little is free. */
static void test_disk_reserve(void **state)
{
    char *script, *out;
    struct tf_summary file;

    (void)state;
    assert_true(asprintf(&script, "%s -r 100000000 -e all -T 5 %s; "
                         "echo rc=$?", XENTRACE, sim_trace) > 0);
    assert_int_equal(run_script(script), 0);
    free(script);
    out = sim_read_text(sim_log);
    if ( !strstr(out, "rc=1\n") || !strstr(out, "would be left") )
    {
        sim_show_file(sim_log, 40);
        fail_msg("-r did not stop xentrace before the disk filled");
    }
    free(out);
    if ( !tf_read(sim_trace, &file) )
        fail_msg("%s: %s", sim_trace, file.error);
}

/*
 * xentrace-summary's records and bytes of every CPU, from its JSON: the
 * sums, and how many CPUs it found.
 */
static unsigned int summary_counts(unsigned long long *records,
                                   unsigned long long *bytes)
{
    char *argv[] = { XT_SUMMARY, "--json", sim_trace, NULL };
    char *text, *at;
    unsigned int n = 0;

    assert_int_equal(run_cmd(argv, sim_summary), 0);
    text = sim_read_text(sim_summary);
    *records = *bytes = 0;
    /* Its "lost" section names the CPUs again, without these. */
    for ( at = strstr(text, "\"cpus\":["); at && (at = strstr(at, "{\"cpu\":"));
          at++ )
    {
        unsigned long long r, b;

        if ( sscanf(at, "{\"cpu\":%*u,\"records\":%llu,\"bytes\":%llu", &r,
                    &b) != 2 )
            continue;
        *records += r;
        *bytes += b;
        n++;
    }
    free(text);
    return n;
}

/*
 * The exit table counts what the file holds, markers as records, and its
 * bytes are those records' (not pads): the summary's figures.  xen-sim
 * counts what Xen wrote, not its own lost-records markers, a named
 * difference of the markers' bytes.
 */
static void test_exit_table(void **state)
{
    static const char *const args[] = {
        "-S", "2", "-e", "all", "-T", "2", NULL,
    };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];
    unsigned long long records = 0, bytes = 0, marker_bytes = 0, xen = 0;
    unsigned long long summary_records, summary_bytes;
    struct table t;
    unsigned int cpu;

    (void)state;
    sim_capture(XENTRACE, "flood", args, &file, cpus);
    read_table(sim_log, sim_trace, &t);
    assert_true(file.cpu[0].markers > 0);
    assert_table_counts(&t, &file);
    assert_int_equal(t.file_bytes, file.bytes);
    for ( cpu = 0; cpu < NR_PCPUS; cpu++ )
    {
        records += file.cpu[cpu].records + file.cpu[cpu].markers;
        bytes += file.cpu[cpu].bytes;
        marker_bytes += file.cpu[cpu].marker_bytes;
        xen += cpus[cpu].bytes;
    }
    assert_int_equal(summary_counts(&summary_records, &summary_bytes),
                     NR_PCPUS);
    assert_int_equal(summary_records, records);
    assert_int_equal(summary_bytes, bytes + marker_bytes);
    assert_int_equal(xen, bytes);
}

/*
 * -r stopping a capture on a small file system: the message, exit 1, and
 * still the exit table, which counts the file it leaves, not what was
 * taken after the reserve was reached.
 */
static void test_disk_reserve_mid_capture(void **state)
{
    char dir[] = "/tmp/test_reserve.XXXXXX", *out, *trace;
    struct tf_summary file;
    struct table t;

    (void)state;
    out = run_on_tmpfs(dir, "4m", "-r 2 -e all -T 20", &trace);
    if ( !strstr(out, "rc=1\n") || !strstr(out, "would be left") )
    {
        sim_show_file(sim_log, 40);
        fail_msg("-r did not stop xentrace mid-capture");
    }
    free(out);
    if ( !tf_read(trace, &file) )
        fail_msg("%s: %s", trace, file.error);
    read_table(sim_log, trace, &t);
    assert_true(file.bytes > 4096);
    assert_table_counts(&t, &file);
    assert_int_equal(t.file_bytes, file.bytes);
    remove_tmpfs(dir, trace);
}

/* Run @script under xen-sim, with @extra (an option of its, or ""). */
static char *script_log(const char *extra, const char *script)
{
    char *argv[] = {
        XEN_SIM, "--pcpus", "2", "--workload", "mixed", (char *)extra, "--",
        "/bin/sh", "-c", (char *)script, NULL,
    };
    char *out;

    if ( !*extra )
        memmove(argv + 5, argv + 6, 5 * sizeof(*argv));
    assert_int_equal(run_cmd(argv, sim_log), 0);
    out = sim_read_text(sim_log);
    if ( !strstr(out, "rc=0\n") )
    {
        sim_show_file(sim_log, 40);
        fail_msg("a capture on buffers of another size failed");
    }
    return out;
}

/* The one "xentrace: -S" line of @out, between @after and @before. */
static void assert_one_size_line(const char *out, const char *after,
                                 const char *before, const char *want)
{
    const char *line = strstr(out, "xentrace: -S ");

    assert_non_null(line);
    assert_true(line > strstr(out, after));
    assert_true(!before || line < strstr(out, before));
    if ( strncmp(line, want, strlen(want)) )
        fail_msg("not \"%s\":\n%s", want, line);
    assert_null(strstr(line + 1, "xentrace: -S "));
}

/*
 * -S when Xen's buffers exist.  Of the same size, nothing to say.  Of
 * another: our Xen resizes them, as nothing maps them, and says so on its
 * console; while another program maps them (scribble), or on a Xen that
 * cannot resize (--stock-xen), one line says what they are and why they
 * stay, and the capture goes on with them.  Without -S, nothing: the
 * default asks for no size.
 */
static void test_buffers_of_another_size(void **state)
{
    static const char resized[] =
        "(XEN) xentrace: resized from 2 to 8 pages per CPU\n";
    static const char mapped[] = "xentrace: -S 4: Xen's trace buffers "
        "exist, of 8 pages a CPU: another program has them mapped, so they "
        "keep that size\n";
    static const char stock[] = "xentrace: -S 8: Xen's trace buffers exist, "
        "of 2 pages a CPU: they keep that size until Xen restarts "
        "(tbuf_size= at boot)\n";
    char *script, *out;
    const char *line;

    (void)state;
    assert_true(asprintf(&script, "X='%s -e all -T 1 %s'; "
                         "$X -S 2 2> /dev/null && echo == same && $X -S 2 && "
                         "echo == other && $X -S 8 && echo == default && "
                         "$X && echo == mapped && "
                         "{ %s during 1 1 3000 & sleep 1; } "
                         "&& $X -S 4 && wait && echo rc=$?", XENTRACE,
                         sim_trace, SCRIBBLE) > 0);
    out = script_log("", script);
    line = strstr(out, resized);
    assert_non_null(line);
    assert_true(line > strstr(out, "== other\n"));
    assert_true(line < strstr(out, "== default\n"));
    assert_null(strstr(line + 1, "(XEN) xentrace: resized"));
    assert_one_size_line(out, "== mapped\n", NULL, mapped);
    free(out);
    free(script);

    assert_true(asprintf(&script, "X='%s -e all -T 1 %s'; "
                         "$X -S 2 2> /dev/null && echo == other && $X -S 8 && "
                         "echo == default && $X && echo rc=$?", XENTRACE,
                         sim_trace) > 0);
    out = script_log("--stock-xen", script);
    assert_null(strstr(out, "(XEN) xentrace: resized"));
    assert_one_size_line(out, "== other\n", "== default\n", stock);
    free(out);
    free(script);
}

/*
 * At exit, a line where the table needs working out: a capture that lost
 * 1% or more of what was traced says how much, from the table's figures,
 * and what keeps more; one that wrote no record of Xen's says why it may
 * be; one that lost nothing says nothing more.
 */
static void test_exit_advice(void **state)
{
    static const char *const flood[] = { "-S", "2", "-e", "all", "-T", "1",
                                         NULL };
    static const char *const none[] = { "-e", "dom0op", "-T", "1", NULL };
    static const char *const clean[] = { "-e", "sched", "-T", "1", NULL };
    struct tf_summary file;
    struct sim_cpu cpus[NR_PCPUS];
    struct table t;
    char *out, want[128], *line;

    (void)state;
    sim_capture(XENTRACE, "flood", flood, &file, cpus);
    read_table(sim_log, sim_trace, &t);
    assert_true(t.lost * 100 >= (t.records + t.lost));
    snprintf(want, sizeof(want), "xentrace: %.1f%% of the records traced "
             "were lost (%llu): larger buffers", 100.0 * t.lost /
             (t.records + t.lost), t.lost);
    out = sim_read_text(sim_log);
    if ( !(line = strstr(out, want)) )
    {
        sim_show_file(sim_log, 20);
        fail_msg("no \"%s\"", want);
    }
    assert_non_null(strstr(line, "--realtime keep more\n"));
    free(out);

    /* The mixed workload creates no domain. */
    sim_capture(XENTRACE, "mixed", none, &file, cpus);
    out = sim_read_text(sim_log);
    if ( !strstr(out, "xentrace: no record of Xen's was written: no event "
                      "passed the masks (-e, -c), or tracing was off "
                      "(-X)\n") )
    {
        sim_show_file(sim_log, 20);
        fail_msg("nothing traced: no line that says so");
    }
    free(out);

    sim_capture(XENTRACE, "mixed", clean, &file, cpus);
    read_table(sim_log, sim_trace, &t);
    assert_int_equal(t.lost, 0);
    /* xentrace's own lines; xen-sim's console says "(XEN) xentrace: ". */
    out = sim_read_text(sim_log);
    assert_true(strncmp(out, "xentrace: ", 10) &&
                !strstr(out, "\nxentrace: "));
    free(out);
}

/* "-" is the standard output, not a file of that name. */
static void test_dash_is_stdout(void **state)
{
    char *script, *dash;
    struct tf_summary file;
    struct stat st;

    (void)state;
    assert_true(asprintf(&dash, "%s.d/-", sim_trace) > 0);
    assert_true(asprintf(&script, "x=$(realpath %s) && mkdir %s.d && "
                         "cd %s.d && $x -e all -T 1 - > %s", XENTRACE,
                         sim_trace, sim_trace, sim_trace) > 0);
    assert_int_equal(run_script(script), 0);
    assert_int_equal(stat(dash, &st), -1);
    if ( !tf_read(sim_trace, &file) )
        fail_msg("%s: %s", sim_trace, file.error);
    sim_assert_ours_whole(&file);
    assert_true(file.cpu[0].records > 0);
    *strrchr(dash, '/') = 0;
    assert_int_equal(rmdir(dash), 0);
    free(dash);
    free(script);
}

/*
 * The output stalled for 3 s (a pipe nobody reads): the capture thread
 * goes on copying into the pool (about 0.6 MB of its 16 MB), the writer
 * catches up, and nothing is lost.
 *
 * At a quarter of mixed's rate: a CPU's 3 s of records are still more
 * than twice its 128 KiB buffer, so a capture that waited for its output
 * would lose some, and the buffer holds 1.3 s, not 0.3 s, of start-up.
 * Under ThreadSanitizer on a loaded machine, the first pass comes 0.4 to
 * 0.7 s after set_size turned tracing on, stall or not: at mixed's rate
 * that lost hundreds to thousands of records in the first second.
 */
static void test_stalled_output_loses_nothing(void **state)
{
    struct sim_cpu cpus[NR_PCPUS];
    struct tf_summary file;
    char *script;

    (void)state;
    assert_true(asprintf(&script, "%s -e all -T 6 - | "
                         "{ sleep 3; cat > %s; }", XENTRACE, sim_trace) > 0);
    assert_int_equal(run_script_at("5000", script), 0);
    free(script);
    sim_read_stats(sim_stats, cpus);
    if ( !tf_read(sim_trace, &file) )
        fail_msg("%s: %s", sim_trace, file.error);
    assert_int_equal(cpus[0].lost + cpus[1].lost, 0);
    sim_assert_accounted(&file, cpus);
    sim_assert_ours_whole(&file);
}

/*
 * The scheduling policy and priority of each of xentrace's threads as
 * "thread PRIORITY POLICY" lines (/proc's stat, fields 40 and 41), and
 * its locked memory, 1 s into a capture with @opts; then the file is
 * sim_trace, sim_log's text is returned.
 */
static char *threads_of_capture(const char *opts)
{
    char *script;

    assert_true(asprintf(&script, "%s %s -e all -T 3 %s & pid=$!; sleep 1; "
                         "for t in /proc/$pid/task/*; do "
                         "echo thread $(cut -d' ' -f40,41 $t/stat); done; "
                         "grep VmLck /proc/$pid/status; wait $pid; "
                         "echo rc=$?", XENTRACE, opts, sim_trace) > 0);
    assert_int_equal(run_script(script), 0);
    free(script);
    return sim_read_text(sim_log);
}

/*
 * --realtime: the capture thread at SCHED_FIFO (policy 1) priority 10,
 * the writer thread under it at 9, memory locked; a capture that
 * accounts for every record.
 */
static void test_realtime(void **state)
{
    unsigned long long locked_kb = 0;
    struct sim_cpu cpus[NR_PCPUS];
    struct tf_summary file;
    char *out, *lck;

    (void)state;
    if ( !MLOCK_WORKS )
        skip();
    out = threads_of_capture("--realtime");
    if ( strstr(out, "cannot run at SCHED_FIFO") )
        skip();                 /* a container without CAP_SYS_NICE */
    if ( !strstr(out, "thread 10 1\n") || !strstr(out, "thread 9 1\n") ||
         !strstr(out, "rc=0\n") || !(lck = strstr(out, "VmLck:")) ||
         sscanf(lck, "VmLck: %llu", &locked_kb) != 1 || !locked_kb )
    {
        sim_show_file(sim_log, 40);
        fail_msg("--realtime: not the capture thread at SCHED_FIFO 10 and "
                 "the writer at 9, memory locked");
    }
    free(out);
    sim_read_stats(sim_stats, cpus);
    if ( !tf_read(sim_trace, &file) )
        fail_msg("%s: %s", sim_trace, file.error);
    sim_assert_accounted(&file, cpus);
    sim_assert_ours_whole(&file);
}

/*
 * Without --realtime, both threads (capture, writer) at the normal
 * policy, nothing locked.
 */
static void test_normal_priority_by_default(void **state)
{
    char *out = threads_of_capture("");
    char *second = strstr(out, "thread 0 0\n");

    (void)state;
    if ( !second || !strstr(second + 1, "thread 0 0\n") ||
         !strstr(out, "VmLck:\t       0 kB\n") || !strstr(out, "rc=0\n") )
    {
        sim_show_file(sim_log, 40);
        fail_msg("without --realtime, a thread at another policy, or memory "
                 "locked");
    }
    free(out);
}

/*
 * --realtime where it is not permitted (no CAP_SYS_NICE, RLIMIT_RTPRIO
 * 0; no CAP_IPC_LOCK, RLIMIT_MEMLOCK 0): one line each, exit 1, before
 * anything is changed (the file is not even created).
 */
static void test_realtime_refused(void **state)
{
    static const char *const refusals[][2] = {
        { "setpriv --bounding-set=-sys_nice",
          "xentrace: --realtime: cannot run at SCHED_FIFO priority 10: "
          "Operation not permitted\nrc=1\n" },
        { "prlimit --memlock=0 setpriv --bounding-set=-ipc_lock",
          "xentrace: --realtime: cannot lock memory: "
          "Operation not permitted\nrc=1\n" },
    };
    /* The last, mlockall()'s, only where it works. */
    unsigned int i, n = sizeof(refusals) / sizeof(refusals[0]) - !MLOCK_WORKS;

    (void)state;
    for ( i = 0; i < n; i++ )
    {
        char *script, *out;
        struct stat st;

        unlink(sim_trace);
        assert_true(asprintf(&script, "ulimit -r 0; %s %s --realtime -T 1 %s "
                             "2>&1; echo rc=$?", refusals[i][0], XENTRACE,
                             sim_trace) > 0);
        assert_int_equal(run_script(script), 0);
        free(script);
        out = sim_read_text(sim_log);
        if ( !strstr(out, refusals[i][1]) || !stat(sim_trace, &st) )
        {
            sim_show_file(sim_log, 40);
            fail_msg("%s: not refused in one line, before the file",
                     refusals[i][0]);
        }
        free(out);
    }
}

/*
 * xen-sim's numbers are tools/common/numbers.h's: digits only.  A blank or
 * a '+', which its strtoul() let through, and a CPU past 32 bits, which
 * it cut to CPU 0, are refused in one line, exit 1, before the host
 * boots.
 */
static void test_sim_numbers_are_digits(void **state)
{
    static const char *const refusals[][3] = {
        { "--pcpus", " 2",
          "xen-sim: --pcpus  2: not a number from 1 to 256\n" },
        { "--pcpus", "+2",
          "xen-sim: --pcpus +2: not a number from 1 to 256\n" },
        { "--rate", "1 ", "xen-sim: --rate (or max) 1 : not a number from 1 "
          "to 100000000\n" },
        { "--tsc-skew", "1:+5",
          "xen-sim: --tsc-skew 1:+5: not CPU:CYCLES (cycles not 0)\n" },
        { "--tsc-skew", " 1:5",
          "xen-sim: --tsc-skew  1:5: not CPU:CYCLES (cycles not 0)\n" },
        { "--tsc-skew", "4294967296:5",
          "xen-sim: --tsc-skew 4294967296:5: not CPU:CYCLES (cycles not "
          "0)\n" },
    };
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++ )
    {
        char *argv[] = { XEN_SIM, (char *)refusals[i][0],
                         (char *)refusals[i][1], "--", "true", NULL };
        char *out;

        assert_int_equal(run_cmd(argv, sim_log), 1);
        out = sim_read_text(sim_log);
        if ( strcmp(out, refusals[i][2]) )
            fail_msg("%s '%s': \"%s\"", refusals[i][0], refusals[i][1], out);
        free(out);
    }
}

/* The text of command @argv, which must exit 0, via sim_summary. */
/*
 * The domains' names (xtfile.h, "Domains"): xen-sim's xenstore names its
 * five domains and renames d3 a second into the capture.  The file tells
 * the five in its first batch and the renaming in a CPU's stream, at a
 * TSC of that second; the summary shows the names and takes one for
 * --domain, the first or the last; xenalyze still reads the file.
 */
static void test_domains_named(void **state)
{
    char *capture[] = { XEN_SIM, "--pcpus", "2", "--workload", "mixed",
                        "--rename", "3=db-02@1", "--", XENTRACE, "-e", "all",
                        "-T", "3", sim_trace, NULL };
    char *json[] = { XT_SUMMARY, "--json", sim_trace, NULL };
    char *by_id[] = { XT_SUMMARY, "--domain", "3", sim_trace, NULL };
    char *by_first[] = { XT_SUMMARY, "--domain", "db-01", sim_trace, NULL };
    char *by_last[] = { XT_SUMMARY, "--domain", "db-02", sim_trace, NULL };
    char *dump[] = { XT_DUMP, "-s", sim_trace, NULL };
    char *text, *id, *line;
    struct tf_summary file;
    double at = -1;

    (void)state;
    if ( run_cmd(capture, sim_log) )
    {
        sim_show_file(sim_log, 40);
        fail_msg("the capture failed");
    }
    assert_true(tf_read(sim_trace, &file));
    assert_int_equal(file.meta, 6);
    assert_int_equal(file.domains, 5 + 1);

    text = sim_output_of(json);
    sim_assert_has(text, "\"domain_names\":[{\"domain\":0,\"name\":\"Domain-0\","
               "\"uuid\":\"00000000-0000-0000-0000-000000000000\","
               "\"renames\":0,\"first_name\":\"Domain-0\"}");
    sim_assert_has(text, "{\"domain\":3,\"name\":\"db-02\",\"uuid\":"
               "\"5ba1d000-0000-4000-8000-000000000003\",\"renames\":1,"
               "\"first_name\":\"db-01\"}");
    free(text);

    id = sim_output_of(by_id);
    sim_assert_has(id, "\nd3 (db-02) ");
    text = sim_output_of(by_first);
    assert_string_equal(text, id);
    free(text);
    text = sim_output_of(by_last);
    assert_string_equal(text, id);
    free(text);
    free(id);

    /* The renaming in the stream: a record with a TSC, after a second. */
    text = sim_output_of(dump);
    for ( line = text; (line = strstr(line, "TRC_XT_DOMAIN domid=3 ")); line++ )
    {
        char *start = line, cpu[16];

        while ( start > text && start[-1] != '\n' )
            start--;
        /* "SECONDS cpuN[*] ...": a star for no TSC, the first batch's. */
        if ( sscanf(start, "%*f %15s", cpu) == 1 && !strchr(cpu, '*') )
            assert_int_equal(sscanf(start, "%lf", &at), 1);
    }
    free(text);
    print_message("the renaming is told at %.3f s\n", at);
    assert_true(at >= 0.5 && at <= 3.0);
    sim_assert_xenalyze_reads();
}

/*
 * A capture steered through its control socket (xentrace --control,
 * xentrace-ctl): the event mask widened a second in, told in the stream,
 * HVM records only after that, and a slice for each mask in Perfetto;
 * another user refused by the socket's mode and, with the mode opened, by
 * its credentials; --status; --stop ends the capture long before -T, and
 * the socket goes with it.
 */
static void test_steered_capture(void **state)
{
    char dir[256], path[300];
    char *json[] = { XT_SUMMARY, "--json", sim_trace, NULL };
    char *text, *at;
    const char *tp;
    double changed, first_hvm = -1, span;

    (void)state;
    snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(sim_trace, '/') -
                                             sim_trace), sim_trace);
    if ( geteuid() )
        skip();                         /* another user: setpriv */
    /* The sanitizers' options name files that nobody may not read. */
    if ( run_sh(sim_log, "d=%s; c=$d/ctl; nobody='env -u TSAN_OPTIONS "
        "-u ASAN_OPTIONS -u UBSAN_OPTIONS setpriv --reuid=65534 "
        "--regid=65534 --clear-groups'; %s --pcpus 2 -- sh -c \""
        "%s --control $c -e sched -T 8 %s 2> $d/xt.err & x=\\$!; "
        "i=0; while [ ! -S $c ] && [ \\$i -lt 50 ]; do sleep 0.1; "
        "i=\\$((i + 1)); done; sleep 1; "
        "%s -s $c -e sched,hvm > $d/ctl.out 2>&1 || exit 2; "
        "chmod 755 $d; $nobody %s -s $c --status > $d/mode.out 2>&1 && exit 3; "
        "chmod 666 $c; $nobody %s -s $c --status > $d/cred.out 2>&1 && exit 4; "
        "chmod 700 $d; sleep 0.5; %s -s $c --status >> $d/ctl.out 2>&1 || "
        "exit 5; %s -s $c --stop >> $d/ctl.out 2>&1 || exit 6; wait \\$x\"",
        dir, XEN_SIM, XENTRACE, sim_trace, XENTRACE_CTL, XENTRACE_CTL,
        XENTRACE_CTL, XENTRACE_CTL, XENTRACE_CTL) )
    {
        sim_show_file(sim_log, 40);
        fail_msg("the steered capture failed");
    }
    snprintf(path, sizeof(path), "%s/ctl.out", dir);
    text = sim_read_text(path);
    sim_assert_has(text, "event mask 0x000af000\n");
    sim_assert_has(text, "event mask 0x000af000, ");
    sim_assert_has(text, "stopping\n");
    free(text);
    snprintf(path, sizeof(path), "%s/mode.out", dir);
    text = sim_read_text(path);
    sim_assert_has(text, "Permission denied");
    free(text);
    snprintf(path, sizeof(path), "%s/cred.out", dir);
    text = sim_read_text(path);
    sim_assert_has(text, "xentrace-ctl: only root or the capture's user may "
               "steer it\n");
    free(text);
    snprintf(path, sizeof(path), "%s/ctl", dir);
    assert_int_not_equal(access(path, F_OK), 0);

    /* The masks in force: the start's, and the change, a second in. */
    text = sim_output_of(json);
    sim_assert_has(text, "\"masks\":[{\"from_seconds\":0.000000000,"
               "\"evt_mask\":\"0x0002f000\",\"classes\":\"sched\","
               "\"cpus\":\"all\",\"domains\":\"all\",\"domains_in_dom0\":"
               "false,\"switched\":\"none\"},{\"from_seconds\":");
    at = strstr(text, "},{\"from_seconds\":");
    at += strlen("},{\"from_seconds\":");
    assert_int_equal(sscanf(at, "%lf", &changed), 1);
    sim_assert_has(at, "\"evt_mask\":\"0x000af000\",\"classes\":"
               "\"sched,hvm\",\"cpus\":\"all\",\"domains\":\"all\","
               "\"domains_in_dom0\":false,\"switched\":\"none\"}],"
               "\"masks_dropped\":0");
    at = strstr(text, "\"seconds\":");
    assert_int_equal(sscanf(at, "\"seconds\":%lf", &span), 1);
    free(text);
    print_message("event mask changed at %.3f s, stopped at %.3f s\n",
                  changed, span);
    assert_true(changed >= 0.5 && changed < span && span < 6);

    /* The interval the change falls in says so; the first does not. */
    assert_int_equal(run_sh(sim_summary, "%s --interval 0.5 %s | grep "
                            "'^masks: '", XT_SUMMARY, sim_trace), 0);
    text = sim_read_text(sim_summary);
    sim_assert_has(text, "masks: events sched, CPUs all\n");
    sim_assert_has(text, "masks: events sched, CPUs all; events sched,hvm, "
               "CPUs all from ");
    sim_assert_has(text, "masks: events sched,hvm, CPUs all\n");
    free(text);

    /* No HVM record before the change. */
    assert_int_equal(run_sh(sim_summary, "%s -s %s | grep -m1 ' TRC_HVM_' | "
                            "cut -c1-14", XT_DUMP, sim_trace), 0);
    text = sim_read_text(sim_summary);
    assert_int_equal(sscanf(text, "%lf", &first_hvm), 1);
    free(text);
    assert_true(first_hvm >= changed);

    /* Perfetto: a slice per period on a track of the masks' own. */
    if ( (tp = trace_processor()) )
    {
        assert_int_equal(run_sh(sim_log, "%s --perfetto %s/m.pftrace %s && "
            "printf '%%s\\n' \"select s.name from slice s join track t on "
            "s.track_id = t.id where t.name = 'xentrace masks' order by "
            "s.ts; select 'error', name from stats where value > 0 and "
            "severity in ('error', 'data_loss');\" > %s/m.sql && %s -q "
            "%s/m.sql %s/m.pftrace > %s 2>/dev/null", XT_EXPORT, dir,
            sim_trace, dir, tp, dir, dir, sim_summary), 0);
        text = sim_read_text(sim_summary);
        if ( !strstr(text, "\"events sched, CPUs all\"\n"
                           "\"events sched,hvm, CPUs all\"\n") ||
             strstr(text, "\"error\",") )
            fail_msg("Perfetto's masks track:\n%s", text);
        free(text);
    }
    run_sh(sim_log, "rm -f %s/ctl.out %s/mode.out %s/cred.out %s/xt.err "
           "%s/m.pftrace %s/m.sql", dir, dir, dir, dir, dir, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flight_recorder),
        cmocka_unit_test(test_direct_io),
        cmocka_unit_test(test_default_path),
        cmocka_unit_test(test_killed_capture_is_readable),
        cmocka_unit_test(test_event_mask_is_restored),
        cmocka_unit_test(test_second_consumer_is_refused),
        cmocka_unit_test(test_full_disk),
        cmocka_unit_test(test_disk_reserve),
        cmocka_unit_test(test_exit_table),
        cmocka_unit_test(test_disk_reserve_mid_capture),
        cmocka_unit_test(test_dash_is_stdout),
        cmocka_unit_test(test_buffers_of_another_size),
        cmocka_unit_test(test_exit_advice),
        cmocka_unit_test(test_stalled_output_loses_nothing),
        cmocka_unit_test(test_realtime),
        cmocka_unit_test(test_normal_priority_by_default),
        cmocka_unit_test(test_realtime_refused),
        cmocka_unit_test(test_sim_numbers_are_digits),
        cmocka_unit_test(test_domains_named),
        cmocka_unit_test(test_steered_capture),
    };

    return cmocka_run_group_tests(tests, sim_setup, sim_teardown);
}
