/*
 * xentrace-summary, xentrace-export and xentrace-plot on files from
 * gen-trace (bench/gen-trace.c), whose per-CPU, per-event counts are known.
 *
 * - the summary's counts are exactly what gen-trace wrote, per CPU and
 *   event, losses included, at 8, 200 and 1024 CPUs;
 * - per CPU and class, its bytes are those of Debian's xenalyze's log
 *   volume summary (8 and 200 CPUs: xenalyze takes at most 256);
 * - babeltrace2 reads every CTF export and prints one event per record,
 *   each at the wall-clock time xentrace-dump -s gives it;
 * - the Chrome JSON parses, with threads named before use, vCPU runs, a
 *   slice per loss and no instant per record;
 * - every Perfetto export decodes with protoc against Perfetto's own
 *   protos (PERFETTO_PROTOS, default ../shared/oracles/perfetto-protos),
 *   and check_perfetto.py finds on the decoded text what the trace
 *   processor needs: threads declared before use, per pCPU scheduling in
 *   time order, no vCPU on two pCPUs, per vCPU states that tile the span,
 *   balanced slices, a slice per loss, the runs of the JSON (the model's
 *   runstates), the clock of xentrace-dump's header; and the filters
 *   keep what they say;
 * - the SVG is well formed, one series per CPU, one band per loss;
 * - truncated files are read up to the cut, with a warning;
 * - bad input and bad options fail with status 1 and one line.
 *
 * The JSON and SVG checks are tests/readers/check_export.py's, the
 * Perfetto ones tests/readers/check_perfetto.py's.
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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_cmd.h"

#define XENALYZE    "/usr/bin/xenalyze"
#define BABELTRACE  "/usr/bin/babeltrace2"
#define PROTOC      "/usr/bin/protoc"
#define CHECK_PERFETTO  "tests/readers/check_perfetto.py"
#define PERFETTO_PROTOS_DEFAULT "../shared/oracles/perfetto-protos"

static char dir[] = "/tmp/test_export.XXXXXX";

/* A shell command made from a format; its exit status (run_cmd.h). */
#define sh(...)     run_sh(sh_log, __VA_ARGS__)

static char sh_log[sizeof(dir) + 8];

/* The number that file @name@ext in the test directory starts with. */
static unsigned long long read_number(const char *name, const char *ext)
{
    char path[256];
    unsigned long long n = 0;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s%s", dir, name, ext);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%llu", &n), 1);
    fclose(f);
    return n;
}

/* Whether file @name in the test directory contains @text. */
static bool file_has(const char *name, const char *text)
{
    char path[256], line[4096];
    bool found = false;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "r");
    assert_non_null(f);
    while ( !found && fgets(line, sizeof(line), f) )
        found = strstr(line, text) != NULL;
    fclose(f);
    return found;
}

/* The records the exports carry, by xentrace-summary --json's @name.json. */
static unsigned long long summary_records(const char *name)
{
    assert_int_equal(sh("python3 %s carried %s/%s.json > %s/%s.records",
                        CHECK, dir, name, dir, name), 0);
    return read_number(name, ".records");
}

/* The TRC_LOST_RECORDS records of all CPUs. */
static unsigned long long summary_losses(const char *name)
{
    assert_int_equal(sh("python3 -c 'import json,sys; "
                        "print(sum(c[\"lost_markers\"] for c in "
                        "json.load(open(sys.argv[1]))[\"cpus\"]))' "
                        "%s/%s.json > %s/%s.losses", dir, name, dir, name),
                     0);
    return read_number(name, ".losses");
}

/*
 * The exit status of every reader on @name.bin: "cut" is truncated, read
 * but damaged.
 */
static int status_of(const char *name)
{
    return strcmp(name, "cut") ? 0 : 2;
}

static void summarise(const char *name)
{
    assert_int_equal(sh("%s --json %s/%s.bin > %s/%s.json 2> %s/%s.err",
                        SUMMARY, dir, name, dir, name, dir, name),
                     status_of(name));
}

/* ---- Files, made once ----------------------------------------------- */

static int make_files(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sh_log, sizeof(sh_log), "%s/sh.log", dir);
    /* 8 CPUs, busy, with losses; 200 CPUs; 1024 mostly idle CPUs. */
    if ( sh("%s -c 8 -s 2M -l 300 -C %s/c8.counts %s/c8.bin", GEN_TRACE,
            dir, dir) ||
         sh("%s -c 200 -B 16K -s 3M -l 50 -C %s/c200.counts %s/c200.bin",
            GEN_TRACE, dir, dir) ||
         sh("%s -c 1024 -w idle -B 4K -s 1M -l 1000 -C %s/c1024.counts "
            "%s/c1024.bin", GEN_TRACE, dir, dir) ||
         sh("%s -c 4 -s 1M -l 3000 %s/lossy.bin", GEN_TRACE, dir) )
        return -1;
    return 0;
}

static int remove_files(void **state)
{
    (void)state;
    return sh("rm -rf %s", dir);
}

/* ---- The summary ----------------------------------------------------- */

static void check_counts(const char *name)
{
    summarise(name);
    assert_int_equal(sh("python3 %s counts %s/%s.counts %s/%s.json > "
                        "%s/check.log", CHECK, dir, name, dir, name, dir), 0);
    assert_true(summary_losses(name) > 0);
}

static void test_summary_counts_8(void **state)
{
    (void)state;
    check_counts("c8");
}

static void test_summary_counts_200(void **state)
{
    (void)state;
    check_counts("c200");
}

static void test_summary_counts_1024(void **state)
{
    (void)state;
    check_counts("c1024");
    assert_true(file_has("c1024.json", "{\"cpu\":1023,"));
}

static void check_xenalyze(const char *name)
{
    summarise(name);
    assert_int_equal(sh("%s --summary %s/%s.bin > %s/%s.xen 2>/dev/null",
                        XENALYZE, dir, name, dir, name), 0);
    assert_int_equal(sh("python3 %s xenalyze %s/%s.xen %s/%s.json",
                        CHECK, dir, name, dir, name), 0);
}

static void test_summary_agrees_with_xenalyze_8(void **state)
{
    (void)state;
    check_xenalyze("c8");
}

static void test_summary_agrees_with_xenalyze_200(void **state)
{
    (void)state;
    check_xenalyze("c200");
}

/* The text output has every section, and per-vCPU runstate times. */
static void test_summary_text(void **state)
{
    (void)state;
    assert_int_equal(sh("%s %s/c8.bin > %s/c8.txt", SUMMARY, dir, dir), 0);
    assert_true(file_has("c8.txt", "records on 8 CPUs"));
    assert_true(file_has("c8.txt", "lost-marks"));
    assert_true(file_has("c8.txt", "vcpu runstates"));
    assert_true(file_has("c8.txt", "d1v0 "));
    assert_true(file_has("c8.txt", "events/s"));
    /*
     * The event table: most records first, each runstate change named by
     * its states; with --top 3, three rows and the others', which add up
     * to the whole table's records.
     */
    assert_int_equal(sh("sed -n '/^event /,/^$/p' %s/c8.txt | awk 'NR > 1 && "
                        "NF { if (NR > 2 && $(NF - 1) > last) exit 1; "
                        "last = $(NF - 1) }'", dir), 0);
    assert_int_equal(sh("test $(grep -c 'TRC_SCHED_RUNSTATE_CHANGE "
                        "[a-z]*->[a-z]* ' %s/c8.txt) -ge 3 && "
                        "test $(grep -c 'TRC_SCHED_RUNSTATE_CHANGE ' %s/c8.txt) "
                        "= $(grep -c 'TRC_SCHED_RUNSTATE_CHANGE [a-z]*->' "
                        "%s/c8.txt)", dir, dir, dir), 0);
    assert_int_equal(sh("%s --top 3 %s/c8.bin > %s/c8.top3", SUMMARY, dir,
                        dir), 0);
    assert_int_equal(sh("sed -n '/^event /,/^$/p' %s/c8.top3 > %s/c8.ev3 && "
                        "test $(grep -c '^0x' %s/c8.ev3) = 3 && "
                        "grep -q '(others)' %s/c8.ev3 && "
                        "sed -n '/^event /,/^$/p' %s/c8.txt > %s/c8.ev && "
                        "test $(awk 'NR > 1 && NF { s += $(NF - 1) } END "
                        "{ print s }' %s/c8.ev3) = $(awk 'NR > 1 && NF "
                        "{ s += $(NF - 1) } END { print s }' %s/c8.ev)", dir,
                        dir, dir, dir, dir, dir, dir, dir), 0);
}

/* ---- Exports and the plot -------------------------------------------- */

static void check_ctf(const char *name)
{
    assert_int_equal(sh("rm -rf %s/%s.ctf && %s --ctf %s/%s.ctf %s/%s.bin",
                        dir, name, EXPORT, dir, name, dir, name),
                     status_of(name));
    assert_int_equal(sh("%s %s/%s.ctf 2>/dev/null | wc -l > %s/%s.bt",
                        BABELTRACE, dir, name, dir, name), 0);
    summarise(name);
    assert_true(summary_records(name) > 0);
    assert_int_equal(read_number(name, ".bt"), summary_records(name));
}

static void test_ctf_8(void **state)
{
    (void)state;
    check_ctf("c8");
}

/* The CTF clock and xentrace-dump -s have one origin: the capture's start. */
static void test_ctf_origin(void **state)
{
    (void)state;
    check_ctf("c8");
    assert_int_equal(sh("%s --clock-seconds %s/c8.ctf > %s/c8.bts 2>/dev/null",
                        BABELTRACE, dir, dir), 0);
    assert_int_equal(sh("%s -s %s/c8.bin > %s/c8.dumps", DUMP, dir, dir), 0);
    assert_int_equal(sh("python3 %s ctf-times %s/c8.bts %s/c8.dumps", CHECK,
                        dir, dir), 0);
}

static void test_ctf_1024(void **state)
{
    (void)state;
    check_ctf("c1024");
}

/*
 * An export into the directory of an older one replaces its files: the
 * 8 CPUs' streams of c8 do not stay beside lossy's 4, which babeltrace2
 * would read as one trace.  A directory with anything else is refused,
 * and left as it was.
 */
static void test_ctf_over_an_older_export(void **state)
{
    (void)state;
    assert_int_equal(sh("rm -rf %s/over.ctf && %s --ctf %s/over.ctf %s/c8.bin "
                        "&& %s --ctf %s/over.ctf %s/lossy.bin", dir, EXPORT,
                        dir, dir, EXPORT, dir, dir), 0);
    assert_int_equal(sh("test $(ls %s/over.ctf | wc -l) = 5", dir), 0);
    assert_int_equal(sh("%s %s/over.ctf 2>/dev/null | wc -l > %s/over.bt",
                        BABELTRACE, dir, dir), 0);
    summarise("lossy");
    assert_int_equal(read_number("over", ".bt"), summary_records("lossy"));
    assert_int_equal(sh("touch %s/over.ctf/notes && ! %s --ctf %s/over.ctf "
                        "%s/c8.bin 2> %s/over.err && grep -qx '.*: holds "
                        "notes, which is not a CTF export.s: not writing into "
                        "it' %s/over.err && test $(wc -l < %s/over.err) = 1 "
                        "&& test $(ls %s/over.ctf | wc -l) = 6", dir, EXPORT,
                        dir, dir, dir, dir, dir, dir), 0);
}

/* @name.trace.json, made with @options, checked, for --domain @domain. */
static void check_chrome_with(const char *name, const char *options,
                              int domain)
{
    char dom[16] = "";

    summarise(name);
    if ( domain >= 0 )
        snprintf(dom, sizeof(dom), "%d", domain);
    assert_int_equal(sh("%s %s --json %s/%s.trace.json %s/%s.bin", EXPORT,
                        options, dir, name, dir, name), 0);
    assert_int_equal(sh("python3 %s chrome %s/%s.trace.json %s/%s.json %s",
                        CHECK, dir, name, dir, name, dom), 0);
}

static void check_chrome(const char *name)
{
    check_chrome_with(name, "", -1);
}

static void test_chrome_json_domain(void **state)
{
    (void)state;
    check_chrome_with("c8", "--domain 1", 1);
}

/* --records: every record too, with its fields. */
static void test_chrome_json_records(void **state)
{
    (void)state;
    summarise("c8");
    assert_int_equal(sh("%s --records --json %s/c8.rec.json %s/c8.bin", EXPORT,
                        dir, dir), 0);
    assert_int_equal(sh("python3 %s chrome-records %s/c8.rec.json %s/c8.json",
                        CHECK, dir, dir), 0);
}

/*
 * A trace that names its domains (gen-trace -n, as our xentrace on
 * xen-sim): every export says the names.  CTF's name pieces are text
 * that babeltrace2 prints as strings; the Chrome JSON's and Perfetto's
 * processes are "d1 (web-01)", and --domain takes a name.
 */
static void test_domains_named(void **state)
{
    const char *tp = trace_processor();
    char path[256];
    char *csv;

    (void)state;
    assert_int_equal(sh("%s -n -c 2 -s 1M %s/named.bin", GEN_TRACE, dir), 0);
    assert_int_equal(sh("%s --ctf %s/named.ctf %s/named.bin && %s "
                        "%s/named.ctf > %s/named.bt", EXPORT, dir, dir,
                        BABELTRACE, dir, dir), 0);
    assert_true(file_has("named.bt", "domid = 1, offset = 0, "
                         "text = \"web-01\" }"));
    assert_true(file_has("named.bt", "text = \"Domain-0\""));
    assert_int_equal(sh("%s --domain web-01 --json %s/named.json "
                        "--perfetto %s/named.pftrace %s/named.bin", EXPORT,
                        dir, dir, dir), 0);
    assert_true(file_has("named.json", "\"name\":\"process_name\","
                         "\"args\":{\"name\":\"d1 (web-01)\"}"));
    assert_false(file_has("named.json", "\"args\":{\"name\":\"d0"));
    if ( !tp )
        skip();
    assert_int_equal(sh("printf '%%s\\n' \"select 'p', name from process "
                        "where pid > 0 order by pid; select 's', name, value "
                        "from stats where value > 0 and severity in "
                        "('error', 'data_loss');\" > %s/named.sql && %s -q "
                        "%s/named.sql %s/named.pftrace > %s/named.csv "
                        "2>/dev/null", dir, tp, dir, dir, dir), 0);
    snprintf(path, sizeof(path), "%s/named.csv", dir);
    csv = read_file(path);
    assert_non_null(csv);
    if ( !strstr(csv, "\"p\",\"d1 (web-01)\"\n") || strstr(csv, "\"s\",") ||
         strstr(csv, "\"d0") )
        fail_msg("Perfetto's processes and errors:\n%s", csv);
    free(csv);
}

static void test_chrome_json_8(void **state)
{
    (void)state;
    check_chrome("c8");
}

static void test_chrome_json_1024(void **state)
{
    (void)state;
    check_chrome("c1024");
}

static void check_svg(const char *name)
{
    summarise(name);
    assert_int_equal(sh("%s -o %s/%s.svg %s/%s.bin", PLOT, dir, name, dir,
                        name), status_of(name));
    assert_int_equal(sh("python3 %s svg %s/%s.svg %s/%s.json", CHECK, dir,
                        name, dir, name), 0);
}

static void test_svg_8(void **state)
{
    (void)state;
    check_svg("c8");
}

static void test_svg_1024(void **state)
{
    (void)state;
    check_svg("c1024");
}

/* ---- Perfetto -------------------------------------------------------- */

static const char *perfetto_protos(void)
{
    const char *protos = getenv("PERFETTO_PROTOS");

    return protos && *protos ? protos : PERFETTO_PROTOS_DEFAULT;
}

/*
 * Perfetto's trace processor imports @out.pftrace with no error and no
 * data loss in its stats table.
 */
static void perfetto_imports(const char *out)
{
    const char *tp = trace_processor();

    if ( !tp )
        return;
    assert_int_equal(sh("echo \"select name, value from stats where value "
                        "> 0 and severity in ('error', 'data_loss');\" | "
                        "%s -q /dev/stdin %s/%s.pftrace 2>/dev/null > "
                        "%s/%s.stats && test $(wc -l < %s/%s.stats) = 1",
                        tp, dir, out, dir, out, dir, out), 0);
}

/*
 * Export @name.bin with @options to @out.pftrace and decode it with
 * protoc against Perfetto's protos, into @out.txt: protoc must say
 * nothing (it warns, and goes on, on a string that is not UTF-8); and
 * Perfetto imports it without an error.
 */
static void perfetto_decode(const char *name, const char *options,
                            const char *out)
{
    char protos[512], path[256];
    struct stat st;

    snprintf(protos, sizeof(protos), "%s/protos/perfetto/trace/trace.proto",
             perfetto_protos());
    if ( stat(protos, &st) )
        fail_msg("Perfetto's protos are not in %s: set PERFETTO_PROTOS",
                 perfetto_protos());
    assert_int_equal(sh("%s %s --perfetto %s/%s.pftrace %s/%s.bin", EXPORT,
                        options, dir, out, dir, name), status_of(name));
    assert_int_equal(sh("cd %s && %s -I . --decode=perfetto.protos.Trace "
                        "protos/perfetto/trace/trace.proto < %s/%s.pftrace "
                        "> %s/%s.txt 2> %s/%s.protoc", perfetto_protos(),
                        PROTOC, dir, out, dir, out, dir, out), 0);
    snprintf(path, sizeof(path), "%s/%s.protoc", dir, out);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
    perfetto_imports(out);
}

/* check_perfetto.py on @out.txt, with @checks. */
static int check_perfetto(const char *out, const char *checks)
{
    return sh("python3 %s %s/%s.txt %s > %s/%s.check", CHECK_PERFETTO, dir,
              out, checks, dir, out);
}

/*
 * The whole file: every loss the summary counts is a slice, the runs
 * are the JSON's, the clock is xentrace-dump's; and it is no larger than
 * the trace.
 */
static void check_perfetto_file(const char *name)
{
    struct stat in, out;
    char path[256];

    summarise(name);
    perfetto_decode(name, "", name);
    assert_int_equal(sh("%s --json %s/%s.trace.json %s/%s.bin", EXPORT, dir,
                        name, dir, name), 0);
    assert_int_equal(sh("%s %s/%s.bin | grep '^#' > %s/%s.head", DUMP, dir,
                        name, dir, name), 0);
    assert_int_equal(sh("python3 -c 'import json,sys; s=json.load(open("
                        "sys.argv[1])); print(sum(c[\"lost_markers\"] for c "
                        "in s[\"cpus\"]), sum(c[\"lost_records\"] for c in "
                        "s[\"cpus\"]))' %s/%s.json > %s/%s.lost", dir, name,
                        dir, name), 0);
    assert_int_equal(sh("read g l < %s/%s.lost && python3 %s %s/%s.txt "
                        "--gaps $g --lost $l --runs %s/%s.trace.json "
                        "--dump-header %s/%s.head > %s/%s.check", dir, name,
                        CHECK_PERFETTO, dir, name, dir, name, dir, name, dir,
                        name), 0);
    snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
    assert_int_equal(stat(path, &in), 0);
    snprintf(path, sizeof(path), "%s/%s.pftrace", dir, name);
    assert_int_equal(stat(path, &out), 0);
    assert_true(out.st_size <= in.st_size);
}

static void test_perfetto_8(void **state)
{
    (void)state;
    check_perfetto_file("c8");
}

static void test_perfetto_1024(void **state)
{
    (void)state;
    check_perfetto_file("c1024");
}

static void test_perfetto_lossy(void **state)
{
    (void)state;
    check_perfetto_file("lossy");
}

/* Each filter keeps what it says, and what is kept still holds. */
static void test_perfetto_filters(void **state)
{
    (void)state;
    perfetto_decode("c8", "--domain 1", "c8-dom");
    assert_int_equal(check_perfetto("c8-dom", "--domain 1"), 0);
    perfetto_decode("c8", "--cpu 3", "c8-cpu");
    assert_int_equal(check_perfetto("c8-cpu", "--cpu 3"), 0);
    perfetto_decode("c8", "--classes hvm,pv,hw", "c8-cls");
    assert_int_equal(check_perfetto("c8-cls", "--no-sched"), 0);
    /* gen-trace's capture starts at TSC 10^10, 2.4 GHz: 0.01 to 0.02 s. */
    perfetto_decode("c8", "--from 0.01 --to 0.02", "c8-win");
    assert_int_equal(check_perfetto("c8-win", "--window 4176666666 "
                                    "4186666667"), 0);
    /* And a filter that would let something through fails the check. */
    assert_int_equal(check_perfetto("c8-dom", "--domain 2"), 1);
    assert_int_equal(check_perfetto("c8", "--cpu 3"), 1);
}

/* ---- Damaged and bad input ------------------------------------------- */

/*
 * Cut inside the last batch: every tool reads up to the cut, warns once,
 * and exits 2 (read, but damaged); the exports hold what the summary
 * counts.
 */
static void test_truncated(void **state)
{
    struct stat st;
    char path[256];

    (void)state;
    snprintf(path, sizeof(path), "%s/c8.bin", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(sh("head -c %lld %s > %s/cut.bin", (long long)st.st_size
                        - 5000, path, dir), 0);
    summarise("cut");
    assert_true(file_has("cut.err", "xentrace-summary: "));
    assert_true(file_has("cut.err", "cut.bin: truncated"));
    assert_false(file_has("cut.json", "\"damage\":null"));
    summarise("c8");
    assert_true(summary_records("cut") < summary_records("c8"));
    check_ctf("cut");
    check_svg("cut");
    perfetto_decode("cut", "", "cut");
    assert_int_equal(check_perfetto("cut", ""), 0);
}

/* An empty file is refused: "no records", status 1. */
static void test_empty_file(void **state)
{
    static const char *const tools[] = { SUMMARY, PLOT, EXPORT " --json -" };
    unsigned int i;

    (void)state;
    assert_int_equal(sh(": > %s/empty.bin", dir), 0);
    for ( i = 0; i < 3; i++ )
    {
        assert_int_equal(sh("%s %s/empty.bin > /dev/null 2> %s/bad.err",
                            tools[i], dir, dir), 1);
        assert_true(file_has("bad.err", "empty.bin: no records"));
    }
}

/*
 * CPU 16382, the highest Xen can have (XT_CPUS_MAX - 1), beside CPU 0, a
 * TSC span of 2^64 - 1, a lost count of 0xffffffff: every reader reads it
 * (export once indexed an array by CPU number, sized by the highest plus
 * one).  A higher CPU's batch the reader skips as damage (test_readers).
 */
static void test_hostile_values(void **state)
{
    (void)state;
    assert_int_equal(sh("python3 -c 'import struct, sys\n"
                        "def rec(ev, tsc, x):\n"
                        "    return struct.pack(\"<IQ\", ev | len(x) << 28 | 1 << 31, tsc) + "
                        "b\"\".join(struct.pack(\"<I\", v) for v in x)\n"
                        "def batch(cpu, body):\n"
                        "    return struct.pack(\"<III\", 0x2001f003, cpu, len(body)) + body\n"
                        "sys.stdout.buffer.write("
                        "batch(16382, rec(0x00021011, 0, (1 << 16,)) + "
                        "rec(0x00021021, 2**64 - 1, (1 << 16,))) + "
                        "batch(0, rec(0x0001f001, 7, (0xffffffff, 0, 0, 0))))'"
                        " > %s/hostile.bin", dir), 0);
    summarise("hostile");
    assert_int_equal(summary_records("hostile"), 3);
    assert_int_equal(sh("%s --json %s/hostile.trace.json %s/hostile.bin",
                        EXPORT, dir, dir), 0);
    assert_int_equal(sh("rm -rf %s/hostile.ctf && %s --ctf %s/hostile.ctf "
                        "%s/hostile.bin", dir, EXPORT, dir, dir), 0);
    assert_int_equal(sh("test -f %s/hostile.ctf/stream_16382", dir), 0);
    assert_int_equal(sh("%s -o %s/hostile.svg %s/hostile.bin", PLOT, dir,
                        dir), 0);
}

static void test_not_a_trace(void **state)
{
    static const char *const tools[] = {
        SUMMARY, PLOT, EXPORT " --json -", EXPORT " --perfetto -",
    };
    unsigned int i;

    (void)state;
    assert_int_equal(sh("echo hello > %s/text.bin", dir), 0);
    for ( i = 0; i < sizeof(tools) / sizeof(tools[0]); i++ )
    {
        assert_int_equal(sh("%s %s/text.bin > /dev/null 2> %s/bad.err",
                            tools[i], dir, dir), 1);
        assert_true(file_has("bad.err", "text.bin: not a trace file"));
        assert_int_equal(sh("%s %s/missing.bin > /dev/null 2> %s/bad.err",
                            tools[i], dir, dir), 1);
        assert_true(file_has("bad.err", "missing.bin: No such file"));
    }
}

static void test_bad_options(void **state)
{
    (void)state;
    assert_int_equal(sh("%s -b 0 %s/c8.bin", SUMMARY, dir), 1);
    assert_int_equal(sh("%s --bogus %s/c8.bin", SUMMARY, dir), 1);
    assert_int_equal(sh("%s %s/c8.bin", EXPORT, dir), 1);
    assert_int_equal(sh("%s -H x --json - %s/c8.bin", EXPORT, dir), 1);
    assert_int_equal(sh("%s --domain x --perfetto - %s/c8.bin", EXPORT, dir),
                     1);
    assert_int_equal(sh("%s --domain 3-1 --perfetto - %s/c8.bin", EXPORT,
                        dir), 1);
    assert_int_equal(sh("%s --cpu 99999 --perfetto - %s/c8.bin", EXPORT,
                        dir), 1);
    assert_int_equal(sh("%s --classes foo --perfetto - %s/c8.bin", EXPORT,
                        dir), 1);
    assert_int_equal(sh("%s --from 2 --to 1 --perfetto - %s/c8.bin", EXPORT,
                        dir), 1);
    assert_int_equal(sh("%s --from x --perfetto - %s/c8.bin", EXPORT, dir),
                     1);
    assert_int_equal(sh("%s -b 100001 %s/c8.bin", PLOT, dir), 1);
    assert_int_equal(sh("%s %s/c8.bin %s/c8.bin", PLOT, dir, dir), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_counts_8),
        cmocka_unit_test(test_summary_counts_200),
        cmocka_unit_test(test_summary_counts_1024),
        cmocka_unit_test(test_summary_agrees_with_xenalyze_8),
        cmocka_unit_test(test_summary_agrees_with_xenalyze_200),
        cmocka_unit_test(test_summary_text),
        cmocka_unit_test(test_ctf_8),
        cmocka_unit_test(test_ctf_1024),
        cmocka_unit_test(test_ctf_over_an_older_export),
        cmocka_unit_test(test_ctf_origin),
        cmocka_unit_test(test_chrome_json_8),
        cmocka_unit_test(test_chrome_json_1024),
        cmocka_unit_test(test_chrome_json_domain),
        cmocka_unit_test(test_chrome_json_records),
        cmocka_unit_test(test_domains_named),
        cmocka_unit_test(test_perfetto_8),
        cmocka_unit_test(test_perfetto_1024),
        cmocka_unit_test(test_perfetto_lossy),
        cmocka_unit_test(test_perfetto_filters),
        cmocka_unit_test(test_svg_8),
        cmocka_unit_test(test_svg_1024),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_hostile_values),
        cmocka_unit_test(test_not_a_trace),
        cmocka_unit_test(test_bad_options),
    };

    return cmocka_run_group_tests(tests, make_files, remove_files);
}
