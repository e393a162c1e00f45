/*
 * xentrace-top on files from gen-trace (bench/gen-trace.c):
 *
 * - --json, interval by interval, has the counts xentrace-summary --json
 *   --from tsc:A --to tsc:B gives for the same interval, exactly
 *   (tests/readers/check_top.py): runstate cycles, waits, exits by
 *   reason, hypercalls, injections per domain and vCPU, losses per pCPU
 *   (on a lossy trace, not the runstates and waits, which a loss's marker
 *   re-tells after the interval closed); the intervals tile the trace and
 *   their counts add up to the whole trace's;
 * - the same on a capture from xen-sim by our xentrace;
 * - -c and -e keep only the pCPUs' and the classes' records, as
 *   xentrace's masks would have;
 * - -b -n N and --json -n N print N intervals, and the text's figures are
 *   the JSON's;
 * - in a terminal (tmux), the screen shows the domains, the exit reasons
 *   and the losses, sorts by the column chosen, expands the vCPUs, holds
 *   its interval while paused and steps on after, shows one domain
 *   alone, redraws to a smaller terminal, and quits with status 0 on q (under ThreadSanitizer too: a report would make it 66);
 * - bad options, a stream, and the screen without a terminal, fail with
 *   status 1 and one line.
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

static char dir[] = "/tmp/test_top.XXXXXX";
static char sh_log[sizeof(dir) + 8];
static char tmux[64];           /* tmux on a server of this test's own */

#define sh(...)     run_sh(sh_log, __VA_ARGS__)

/* Lines of file @name in the test directory (0 if it cannot be read). */
static unsigned int lines_of(const char *name)
{
    char path[256];
    char *text;
    unsigned int n = 0;
    const char *p;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if ( !(text = read_file(path)) )
        return 0;
    for ( p = text; *p; p++ )
        n += *p == '\n';
    free(text);
    return n;
}

static bool file_has(const char *name, const char *what)
{
    char path[256];
    char *text;
    bool has;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if ( !(text = read_file(path)) )
        return false;
    has = strstr(text, what) != NULL;
    free(text);
    return has;
}

static int make_files(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sh_log, sizeof(sh_log), "%s/sh.log", dir);
    snprintf(tmux, sizeof(tmux), "tmux -L test_top_%d", (int)getpid());
    /* 4 pCPUs of HVM and PV guests, with losses (11 s at 2.4 GHz) and
       without (5 s); the first with its domains named. */
    return sh("%s -n -c 4 -s 20M -l 300 %s/t.bin && "
              "%s -c 4 -s 10M %s/clean.bin",
              GEN_TRACE, dir, GEN_TRACE, dir) ? -1 : 0;
}

static int remove_files(void **state)
{
    (void)state;
    sh("%s kill-server 2>/dev/null", tmux);
    return sh("rm -rf %s", dir);
}

/* ---- Batch ------------------------------------------------------------ */

/* Every figure the summary has, on a trace without losses. */
static void test_json_agrees_with_summary(void **state)
{
    (void)state;
    assert_int_equal(sh("%s --json -d 0.37 %s/clean.bin > %s/clean.jsonl",
                        TOP, dir, dir), 0);
    assert_true(lines_of("clean.jsonl") > 10);
    assert_int_equal(sh("python3 %s %s %s/clean.bin %s/clean.jsonl > "
                        "%s/check.log", CHECK, SUMMARY, dir, dir, dir), 0);
    assert_true(file_has("check.log", " intervals, 0 disagreements"));
}

/* All but what a later loss marker re-tells, on a lossy one. */
static void test_json_agrees_lossy(void **state)
{
    (void)state;
    assert_int_equal(sh("%s --json -d 1.5 %s/t.bin > %s/t.jsonl", TOP, dir,
                        dir), 0);
    /* 11.67 s in intervals of 1.5 s: 7 whole ones and the rest. */
    assert_int_equal(lines_of("t.jsonl"), 8);
    assert_int_equal(sh("python3 %s %s %s/t.bin %s/t.jsonl lossy > "
                        "%s/check.log", CHECK, SUMMARY, dir, dir, dir), 0);
    assert_true(file_has("check.log", "8 intervals, 0 disagreements"));
    /* The check can fail: without the last interval, nothing adds up. */
    assert_int_equal(sh("head -7 %s/t.jsonl > %s/short.jsonl", dir, dir), 0);
    assert_int_equal(sh("python3 %s %s %s/t.bin %s/short.jsonl lossy > "
                        "%s/check.log", CHECK, SUMMARY, dir, dir, dir), 1);
}

/* A capture of xen-sim's mixed workload by our xentrace, 3 s. */
static void test_xen_sim_capture(void **state)
{
    (void)state;
    assert_int_equal(sh("%s --pcpus 2 --workload mixed -- %s -D -e all -T 3 "
                        "%s/sim.bin > %s/sim.log 2>&1", XEN_SIM, XENTRACE, dir,
                        dir), 0);
    assert_int_equal(sh("%s --json -d 1 %s/sim.bin > %s/sim.jsonl", TOP, dir,
                        dir), 0);
    assert_true(lines_of("sim.jsonl") >= 3);
    assert_true(file_has("sim.jsonl", "\"name\":\"HLT\""));
    assert_int_equal(sh("python3 %s %s %s/sim.bin %s/sim.jsonl lossy > "
                        "%s/check.log", CHECK, SUMMARY, dir, dir, dir), 0);
    assert_true(file_has("check.log", " intervals, 0 disagreements"));
}

/* -c 0: pCPU 0's records only, its losses too; -e sched: no exits. */
static void test_masks(void **state)
{
    (void)state;
    assert_int_equal(sh("%s --json -n 1 -c 0 %s/t.bin > %s/c0.jsonl", TOP,
                        dir, dir), 0);
    assert_int_equal(sh("python3 -c 'import json,sys; l=json.load(open(sys."
                        "argv[1]))[\"lost\"]; sys.exit(not (l[0][\"records\"]"
                        " > 0 and all(p[\"records\"] == 0 for p in l[1:])))' "
                        "%s/c0.jsonl", dir), 0);
    assert_int_equal(sh("%s --json -n 1 -e sched %s/t.bin > %s/sched.jsonl",
                        TOP, dir, dir), 0);
    assert_int_equal(sh("python3 -c 'import json,sys; d=json.load(open(sys."
                        "argv[1]))[\"domains\"]; sys.exit(not (all(x[\"exits"
                        "\"][\"count\"] == 0 for x in d) and d[0][\"runstate_"
                        "cycles\"][\"running\"] > 0))' %s/sched.jsonl", dir),
                     0);
    /* -e twice adds up, as xentrace's. */
    assert_int_equal(sh("%s --json -n 1 -e sched -e hvm %s/t.bin > %s/e2 && "
                        "%s --json -n 1 -e sched,hvm %s/t.bin | cmp - %s/e2",
                        TOP, dir, dir, TOP, dir, dir), 0);
    /* -e all is no mask. */
    assert_int_equal(sh("head -2 %s/t.jsonl > %s/two.jsonl && %s --json -d 1.5 "
                        "-n 2 -e all %s/t.bin | cmp - %s/two.jsonl", dir, dir,
                        TOP, dir, dir), 0);
}

/* The same with losses shown: every pCPU of t.bin lost records. */
static void test_json_losses(void **state)
{
    (void)state;
    assert_int_equal(sh("%s --json -n 1 %s/t.bin > %s/one.jsonl", TOP, dir,
                        dir), 0);
    assert_int_equal(sh("python3 -c 'import json,sys; l=json.load(open(sys."
                        "argv[1]))[\"lost\"]; sys.exit(not (len(l) == 4 and "
                        "all(p[\"records\"] > 0 for p in l)))' %s/one.jsonl",
                        dir), 0);
}

static void test_batch_iterations(void **state)
{
    (void)state;
    assert_int_equal(sh("%s -b -n 2 %s/t.bin > %s/two.txt", TOP, dir, dir),
                     0);
    assert_int_equal(sh("test $(grep -c '^interval ' %s/two.txt) = 2", dir),
                     0);
    assert_true(file_has("two.txt", "interval 2: 2.000 to 4.000 s at "
                         "05:20:02 UTC (tsc 14800000000 to 19600000000)"));
    assert_true(file_has("two.txt", "LOST/s: p0 "));
    assert_true(file_has("two.txt", "d1 (web-01) exits:"));
    assert_int_equal(sh("%s --json -n 3 %s/t.bin > %s/three.jsonl", TOP, dir,
                        dir), 0);
    assert_int_equal(lines_of("three.jsonl"), 3);
    /* The text's exits/s of d1 in interval 1 are the JSON's count / 2 s. */
    assert_int_equal(sh("python3 -c 'import json,sys; j=json.loads(open(sys."
                        "argv[1]).readline()); d=[x for x in j[\"domains\"] if "
                        "x[\"domain\"] == 1][0]; print(\"%%.0f\" %% (d[\"exits\"]"
                        "[\"count\"] / j[\"seconds\"]))' %s/three.jsonl > "
                        "%s/rate && grep -q \"^d1 .* $(cat %s/rate) \" "
                        "%s/two.txt", dir, dir, dir, dir), 0);
}

/* ---- The screen, in tmux ----------------------------------------------- */

/* Capture the screen into @name until it has @what, for up to 10 s. */
static bool screen_has(const char *name, const char *what)
{
    int i;

    for ( i = 0; i < 100; i++ )
    {
        if ( sh("%s capture-pane -p -t top > %s/%s", tmux, dir, name) )
            return false;
        if ( file_has(name, what) )
            return true;
        usleep(100000);
    }
    return false;
}

static void keys(const char *k)
{
    assert_int_equal(sh("%s send-keys -t top %s", tmux, k), 0);
}

/* The screen's table sorted by @column within 10 s (check_top.py). */
static bool screen_sorted(const char *column)
{
    int i;

    for ( i = 0; i < 100; i++ )
    {
        if ( sh("%s capture-pane -p -t top > %s/sorted", tmux, dir) )
            return false;
        if ( !sh("python3 %s screen %s %s/sorted", CHECK, column, dir) )
            return true;
        usleep(100000);
    }
    return false;
}

/* The interval on screen @name (0: none). */
static unsigned int interval_on(const char *name)
{
    char path[256], *text, *at;
    unsigned int n = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if ( (text = read_file(path)) && (at = strstr(text, "\ninterval ")) )
        sscanf(at, "\ninterval %u:", &n);
    free(text);
    return n;
}

/*
 * f, then @domain: the screen shows the row @shows and, once settled, not
 * @gone.
 */
static void filter_to(const char *domain, const char *shows, const char *gone)
{
    keys("f");
    assert_true(screen_has("s5", "domain to show, id or name (empty: all):"));
    assert_int_equal(sh("%s send-keys -t top %s Enter", tmux, domain), 0);
    assert_true(screen_has("s6", shows));
    usleep(300000);
    assert_int_equal(sh("%s capture-pane -p -t top > %s/s6", tmux, dir), 0);
    assert_false(file_has("s6", gone));
}

static void test_screen(void **state)
{
    char next[32];
    unsigned int n;

    (void)state;
    assert_int_equal(sh("%s new-session -d -s top -x 120 -y 40 "
                        "'%s -d 2 %s/t.bin; echo status=$? > %s/status; "
                        "sleep 60'", tmux, TOP, dir, dir), 0);
    /* The first interval, its domains, d1's exits, the losses. */
    assert_true(screen_has("s1", "interval 1: 0.000 to 2.000 s"));
    assert_true(file_has("s1", "\nd1 "));
    assert_true(file_has("s1", "\nd0 "));
    assert_true(file_has("s1", "\nidle "));
    assert_true(file_has("s1", "LOST/s: p0 "));
    assert_true(file_has("s1", "EXTERNAL_INTERRUPT"));
    assert_true(file_has("s1", "HLT"));
    assert_false(file_has("s1", "d1v0"));
    /* Sorted by RUN% first. */
    assert_int_equal(sh("python3 %s screen RUN%% %s/s1", CHECK, dir), 0);
    /* Space pauses: the interval stays while the keys work. */
    keys("Space");
    assert_true(screen_has("s2", "[paused]"));
    n = interval_on("s2");
    assert_true(n >= 1);
    /* > sorts by RUNBL%, and again by BLOCK%. */
    keys("'>'");
    assert_true(screen_sorted("RUNBL%"));
    keys("'>'");
    assert_true(screen_sorted("BLOCK%"));
    /* e expands every domain into its vCPUs. */
    keys("e");
    assert_true(screen_has("s3", "  d1v0 "));
    assert_true(file_has("s3", "  d0v3 "));
    assert_int_equal(interval_on("s3"), n);
    /* Space again: a file steps on to the next interval. */
    keys("Space");
    snprintf(next, sizeof(next), "\ninterval %u: ", n + 1);
    assert_true(screen_has("s4", next));
    assert_false(file_has("s4", "[paused]"));
    /* f 3: domain 3 alone; f web-01: domain 1, by the name it shows. */
    filter_to("3", "\nd3 (db-01) ", "\nd1 ");
    assert_false(file_has("s6", "\nd0 "));
    filter_to("web-01", "\nd1 (web-01) ", "\nd3 ");
    filter_to("3", "\nd3 (db-01) ", "\nd1 ");
    /* A smaller terminal: the same screen, cut to it, keys on the last line. */
    assert_int_equal(sh("%s resize-window -t top -x 70 -y 15", tmux), 0);
    assert_true(screen_has("s7", "\nq quit  < > sort"));
    assert_int_equal(sh("head -1 %s/s7 | grep -q '^xentrace-top on ' && "
                        "sed -n 15p %s/s7 | grep -q '^q quit' && "
                        "grep -q '^d3 ' %s/s7", dir, dir, dir), 0);
    keys("q");
    assert_int_equal(sh("for i in $(seq 50); do test -s %s/status && "
                        "break; sleep 0.1; done; grep -qx status=0 "
                        "%s/status", dir, dir), 0);
    sh("%s kill-server", tmux);
}

/*
 * A terminal that hangs up ends the screen, on a stream too, whose reader
 * catches SIGHUP to read on to the end of the input: it does not spin on
 * a terminal that is gone.  It is the session's leader here, so the
 * hangup's SIGHUP is the one it gets.
 */
static void test_screen_hangup(void **state)
{
    (void)state;
    assert_int_equal(sh("%s new-session -d -s top -x 120 -y 40 "
                        "'echo $$ > %s/top.pid; exec %s -d 2 -f %s/t.bin'",
                        tmux, dir, TOP, dir), 0);
    assert_true(screen_has("hup", "\ninterval "));
    sh("%s kill-server", tmux);
    /*
     * Ended is gone or a zombie: with tmux's server gone, it waits for
     * whoever reaps orphans here, which may be slow or never.
     */
    assert_int_equal(sh("p=$(cat %s/top.pid); for i in $(seq 50); do "
                        "s=$(cut -d' ' -f3 /proc/$p/stat 2> /dev/null); "
                        "case $s in ''|Z) exit 0;; esac; sleep 0.1; done; "
                        "kill -9 $p; exit 1", dir), 0);
}

/* ---- Errors ------------------------------------------------------------ */

/* @args fail with status 1 and one line on the standard error. */
static void fails(const char *args)
{
    assert_int_equal(sh("%s %s > %s/out 2> %s/err", TOP, args, dir, dir), 1);
    assert_int_equal(lines_of("err"), 1);
    assert_int_equal(lines_of("out"), 0);
}

static void test_errors(void **state)
{
    static const char *const bad[] = {
        "",                             /* not a terminal, and no -b */
        "-b -d 0", "-b -d x", "-b -d -1", "-b -n 0", "-b -e nosuchclass",
        "-b -c 3-1", "-b --nosuch",
    };
    char args[512];
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        snprintf(args, sizeof(args), "%s %s/t.bin", bad[i], dir);
        fails(args);
    }
    fails("-b /nonexistent/t.bin");
    snprintf(args, sizeof(args), "-b %s/sh.log", dir);
    fails(args);                        /* not a trace */
}

/*
 * A stream gives the file's intervals: through a pipe, a gzip pipe, and
 * followed while written in 1 MiB steps (ended by SIGTERM once written,
 * as a shell's background job ignores SIGINT), and so does xentrace-top
 * reading what tee(1) passes on while it writes the file.
 */
static void test_streams(void **state)
{
    (void)state;
    assert_int_equal(sh("d=%s; %s --json -d 0.5 $d/t.bin > $d/file.json && "
                        "cat $d/t.bin | %s --json -d 0.5 - > $d/pipe.json && "
                        "gzip -1c $d/t.bin | %s --json -d 0.5 - > "
                        "$d/gzip.json && cmp $d/file.json $d/pipe.json && "
                        "cmp $d/file.json $d/gzip.json", dir, TOP, TOP, TOP),
                     0);
    assert_true(lines_of("file.json") > 10);
    assert_int_equal(sh("d=%s; : > $d/grow.bin; "
                        "%s --json -d 0.5 -f $d/grow.bin > $d/follow.json & "
                        "p=$!; n=$(( ($(stat -c %%s $d/t.bin) + 1048575) / "
                        "1048576 )); i=0; while [ $i -lt $n ]; do "
                        "dd if=$d/t.bin bs=1M skip=$i count=1 status=none "
                        ">> $d/grow.bin; sleep 0.05; i=$((i + 1)); done; "
                        "sleep 0.5; kill -TERM $p; wait $p && "
                        "cmp $d/file.json $d/follow.json", dir, TOP), 0);
    assert_int_equal(sh("d=%s; cat $d/t.bin | tee $d/teed.bin | %s --json "
                        "-d 0.5 - > $d/tee.json && cmp $d/t.bin $d/teed.bin "
                        "&& cmp $d/file.json $d/tee.json", dir, TOP), 0);
}

/* ---- The host, by a xentrace of its own (host.h) ------------------------ */

/* @script under xen-sim's mixed workload on 2 pCPUs; its exit status. */
static int under_sim(const char *script)
{
    return sh("%s --pcpus 2 --workload mixed -- sh -c '%s' > %s/sim-host.log "
              "2>&1", XEN_SIM, script, dir);
}

/*
 * With no file, the records are the host's, from the xentrace beside
 * xentrace-top, with its -e and -c: -n 3 intervals of HVM exits and
 * scheduling on pCPU 0 alone, then xentrace's exit table (what it took
 * and lost) on the standard error, and Xen's event mask as it was.
 */
static void test_host(void **state)
{
    char script[1024];

    (void)state;
    snprintf(script, sizeof(script), "%s --json -n 3 -d 0.5 -e hvm,sched "
             "-c 0 > %s/host.json 2> %s/host.err && %s", TOP, dir, dir,
             TBUF_MASK);
    assert_int_equal(under_sim(script), 0);
    assert_int_equal(lines_of("host.json"), 3);
    assert_true(file_has("host.json", "\"name\":\"HLT\""));
    assert_true(file_has("host.json", "\"lost\":[{\"cpu\":0,"));
    assert_false(file_has("host.json", "\"cpu\":1,"));
    assert_true(file_has("host.err", "\n  all "));
    assert_true(file_has("sim-host.log", "evt_mask 0xffff000\n"));
}

/*
 * What stops the host's capture is one line and status 1: no Xen here,
 * no xentrace, a consumer already running (xentrace's own line), -f with
 * no file.
 */
static void test_host_errors(void **state)
{
    char script[1024];

    (void)state;
    fails("-b");                                /* no Xen on this machine */
    assert_int_equal(sh("XENTRACE=%s/none %s -b > %s/out 2> %s/err", dir, TOP,
                        dir, dir), 1);
    assert_int_equal(lines_of("err"), 1);
    fails("-b -f");
    /* A usage error is found before anything starts: no server either. */
    fails("-b -f --metrics 256.0.0.1:9100");
    assert_true(file_has("err", "-f follows a file"));
    snprintf(script, sizeof(script), "%s -T 5 %s/first.bin & sleep 1; %s -b "
             "-n 1 > %s/out 2> %s/err; echo second=$?; wait", XENTRACE, dir,
             TOP, dir, dir);
    assert_int_equal(under_sim(script), 0);
    assert_true(file_has("sim-host.log", "second=1\n"));
    assert_int_equal(lines_of("err"), 1);
    assert_true(file_has("err", "xentrace: "));
    assert_int_equal(lines_of("out"), 0);
}

/*
 * The host on the screen: its domains and exits as they come, and q puts
 * the screen back, then xentrace's exit table, and the mask as it was.
 */
static void test_host_screen(void **state)
{
    (void)state;
    /* xen-sim's console (what "Xen" prints) is not the terminal's. */
    assert_int_equal(sh("%s new-session -d -s top -x 120 -y 40 "
                        "\"%s --pcpus 2 --workload mixed -- sh -c '%s -d 0.5 "
                        "> /dev/tty 2> %s/screen.err; echo status=\\$? > "
                        "%s/status; %s > %s/mask' > %s/sim-screen.log 2>&1; "
                        "sleep 60\"", tmux, XEN_SIM, TOP, dir, dir, TBUF_MASK,
                        dir, dir), 0);
    assert_true(screen_has("h1", ": Xen's trace buffers, every 0.5 s"));
    assert_true(screen_has("h2", "\nd1 "));
    assert_true(file_has("h2", "HLT"));
    assert_true(file_has("h2", "LOST/s: "));
    keys("q");
    assert_int_equal(sh("for i in $(seq 50); do test -s %s/mask && break; "
                        "sleep 0.1; done; grep -qx status=0 %s/status && "
                        "grep -qx 'evt_mask 0xffff000' %s/mask && grep -q "
                        "'^  all ' %s/screen.err", dir, dir, dir, dir), 0);
    sh("%s kill-server", tmux);
}

/*
 * --metrics, scraped by Debian's Prometheus every second while the trace
 * comes through a FIFO: once the intervals all but the last are printed
 * (the last closes with the input) and scraped, Prometheus' query API
 * gives per domain the exits, hypercalls and injections, per pCPU the
 * lost records, and the runstate seconds that --json printed, summed
 * (check_prometheus.py).
 */
static void test_metrics_scraped_by_prometheus(void **state)
{
    unsigned int port = 20000 + (getpid() % 10000) * 2;

    (void)state;
    assert_int_equal(sh("d=%s; P=%u; Q=%u; "
        "%s --json -d 0.5 $d/t.bin > $d/whole.json || exit 1; "
        "want=$(( $(wc -l < $d/whole.json) - 1 )); "
        "printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n"
        "  - job_name: xen\n    static_configs:\n"
        "      - targets: [\"127.0.0.1:%%s\"]\n' $P > $d/prom.yml; "
        "rm -f $d/fifo; mkfifo $d/fifo; "
        "%s --json -d 0.5 --metrics 127.0.0.1:$P - < $d/fifo > $d/prom.json "
        "& tp=$!; exec 3> $d/fifo; cat $d/t.bin >&3; "
        "prometheus --config.file=$d/prom.yml --storage.tsdb.path=$d/tsdb "
        "--web.listen-address=127.0.0.1:$Q > $d/prom.log 2>&1 & pp=$!; "
        "i=0; until curl -s \"http://127.0.0.1:$Q/api/v1/query?query="
        "xen_trace_intervals_total\" | grep -q \"\\\"$want\\\"\"; do "
        "i=$((i + 1)); [ $i -lt 90 ] || break; sleep 1; done; "
        "python3 %s $d/prom.json http://127.0.0.1:$Q; rc=$?; "
        "[ \"$(wc -l < $d/prom.json)\" -eq $want ] || rc=1; "
        "kill $pp; exec 3>&-; wait $tp || rc=1; wait $pp; exit $rc",
        dir, port, port + 1, TOP, TOP, CHECK_PROMETHEUS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_agrees_with_summary),
        cmocka_unit_test(test_json_agrees_lossy),
        cmocka_unit_test(test_xen_sim_capture),
        cmocka_unit_test(test_masks),
        cmocka_unit_test(test_json_losses),
        cmocka_unit_test(test_batch_iterations),
        cmocka_unit_test(test_screen),
        cmocka_unit_test(test_screen_hangup),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_host),
        cmocka_unit_test(test_host_errors),
        cmocka_unit_test(test_host_screen),
        cmocka_unit_test(test_metrics_scraped_by_prometheus),
    };

    return cmocka_run_group_tests(tests, make_files, remove_files);
}
