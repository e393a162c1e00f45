/*
 * The readers on an Arm guest's traps (xen/patches/arm's records): a
 * trace written with libxtfile's writer, whose traps, MMIO accesses and
 * interrupts are known, at a 1 MHz counter so that a cycle is a
 * microsecond and the sketch's figures below 64 are exact.
 *
 * - xentrace-summary's "Arm guest traps": per vCPU and domain the count,
 *   mean, p50 and max cycles of each exception class, named from the
 *   catalogue; HVC traps by hypercall; MMIO by address with count, cycles
 *   and mean, the rest summed past --top; the injection latency from the
 *   physical IRQ to the guest's entry, its count, p50 and max; the same
 *   in --json;
 * - a trace without Arm records has no such section, nor "arm" member;
 * - xentrace-dump notes a trap's vCPU and class, and its return's length;
 * - xentrace-export --perfetto has a slice per trap on the vCPU's track,
 *   named by its class, and Perfetto's trace processor
 *   (TRACE_PROCESSOR, default ../shared/oracles/perfetto-tp) imports it
 *   with no error;
 * - the records a guest writes itself (TRC_GUEST, HVMOP_xentrace), which
 *   stop xenalyze: the summary counts them per vCPU and domain by the
 *   guest's event, the dump names them with their words, and the Perfetto
 *   export has an instant for each on the vCPU's track.
 */
#define _GNU_SOURCE
#include <fcntl.h>
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

#include "batches.h"
#include "run_cmd.h"
#include "xtfile.h"

#define HZ          1000000u    /* a cycle is a microsecond */
#define IDLE        0x7fffu
#define DV(d, v)    ((uint32_t)(d) << 16 | (v))
#define GIC         0x08000000u /* guest-physical addresses */
#define UART        0x09000000u
#define EC_WFI      0x01u       /* ESR_EL2.EC */
#define EC_HVC64    0x16u
#define EC_DABT     0x24u
#define SCHED_OP    29u         /* __HYPERVISOR_sched_op */
#define XENALYZE    "/usr/bin/xenalyze"

static char dir[] = "/tmp/test_arm.XXXXXX";
static char sh_log[sizeof(dir) + 8];

#define sh(...)     run_sh(sh_log, __VA_ARGS__)

/* ---- The trace ------------------------------------------------------- */

struct cpu_records {
    uint32_t w[512];
    size_t n;
};

static struct cpu_records cpus[2];

static void rec(unsigned int cpu, uint32_t event, uint64_t tsc,
                unsigned int n, ...)
{
    struct cpu_records *c = &cpus[cpu];
    va_list ap;
    unsigned int i;

    assert_true(c->n + 3 + n <= sizeof(c->w) / sizeof(c->w[0]));
    c->w[c->n++] = event | n << TRACE_EXTRA_SHIFT | 1u << 31;
    c->w[c->n++] = tsc;
    c->w[c->n++] = tsc >> 32;
    va_start(ap, n);
    for ( i = 0; i < n; i++ )
        c->w[c->n++] = va_arg(ap, uint32_t);
    va_end(ap);
}

static void run_vcpu(unsigned int cpu, uint32_t vcpu, uint64_t tsc)
{
    rec(cpu, TRC_SCHED_SWITCH, tsc, 4, IDLE, cpu, 1u, vcpu);
    rec(cpu, XT_RUNSTATE_CHANGE |
             XT_RUNSTATE_RUNNABLE << XT_RUNSTATE_OLD_SHIFT |
             XT_RUNSTATE_RUNNING << XT_RUNSTATE_NEW_SHIFT, tsc, 1,
        DV(1, vcpu));
}

/* A trap of class @ec at @tsc, taking @cycles to the return. */
static void trap(unsigned int cpu, uint32_t ec, uint64_t tsc, uint64_t cycles)
{
    rec(cpu, TRC_ARM_TRAP, tsc, 4, ec, 0u, 0x40001000u, 0u);
    rec(cpu, TRC_ARM_RETURN, tsc + cycles, 0);
}

static void mmio(unsigned int cpu, uint32_t gpa, bool write, uint64_t tsc,
                 uint64_t cycles)
{
    rec(cpu, TRC_ARM_TRAP, tsc, 4, EC_DABT, 0u, 0x40002000u, 0u);
    rec(cpu, TRC_ARM_TRAP_MMIO, tsc + 1, 4, gpa, 0u, (uint32_t)write, 4u);
    rec(cpu, TRC_ARM_RETURN, tsc + cycles, 0);
}

/*
 * d1v0 runs on pCPU 0 and d1v1 on pCPU 1 from TSC 100 to 1000:
 *   d1v0  WFI_WFE 30; DABT 20 (GIC write), 40 (GIC write), 10 (UART read);
 *         HVC64 50 (sched_op); interrupts injected 12 and 20 cycles after
 *         the physical IRQ;
 *   d1v1  DABT 60 (GIC write); an interrupt injected from pCPU 0's IRQ,
 *         entered on pCPU 1 30 cycles after it.
 */
static void arm_records(void)
{
    mmio(1, GIC, true, 150, 60);
    trap(0, EC_WFI, 200, 30);
    mmio(0, GIC, true, 300, 20);
    mmio(0, GIC, true, 400, 40);
    mmio(0, UART, false, 500, 10);
    rec(0, TRC_ARM_TRAP, 600, 4, EC_HVC64, 0u, 0x40003000u, 0u);
    rec(0, TRC_ARM_TRAP_HVC, 601, 1, SCHED_OP);
    rec(0, TRC_ARM_RETURN, 650, 0);
    rec(0, TRC_ARM_IRQ, 700, 1, 27u);
    rec(0, TRC_ARM_VIRQ_INJECT, 705, 2, DV(1, 0), 27u);
    rec(0, TRC_ARM_RETURN, 712, 0);
    rec(0, TRC_ARM_IRQ, 800, 1, 33u);
    rec(0, TRC_ARM_VIRQ_INJECT, 802, 2, DV(1, 1), 48u);
    rec(0, TRC_ARM_RETURN, 810, 0);     /* d1v0 has none pending */
    rec(1, TRC_ARM_RETURN, 830, 0);     /* d1v1 enters with 48 */
    rec(0, TRC_ARM_IRQ, 900, 1, 27u);
    rec(0, TRC_ARM_VIRQ_INJECT, 901, 2, DV(1, 0), 27u);
    rec(0, TRC_ARM_RETURN, 920, 0);
    rec(0, TRC_ARM_RETURN, 1000, 0);
    rec(1, TRC_ARM_RETURN, 1000, 0);
}

/*
 * Records d1v0 (pCPU 0) and d1v1 (pCPU 1) write of their own, with
 * HVMOP_xentrace: TRC_GUEST and the guest's event, 0x001 twice and 0x002.
 */
static void guest_records(void)
{
    rec(0, TRC_GUEST | 0x001, 200, 2, 0xdeadu, 0xbeefu);
    rec(0, TRC_GUEST | 0x001, 300, 0);
    rec(1, TRC_GUEST | 0x002, 400, 1, 7u);
}

enum records { PLAIN, ARM, GUEST };

/* The trace, with the Arm records above, the guests' own, or neither. */
static void write_trace(const char *path, enum records what)
{
    struct xt_metadata meta = { .tsc_hz = HZ, .nr_cpus = 2 };
    struct batches *b = batches_new(2, 1u << 16);
    struct xt_writer *w;
    unsigned int c;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    assert_true(fd >= 0);
    assert_non_null(b);
    memset(cpus, 0, sizeof(cpus));
    run_vcpu(0, 0, 100);
    run_vcpu(1, 1, 100);
    if ( what == GUEST )
        guest_records();
    if ( what == ARM )
        arm_records();
    else
    {
        rec(0, TRC_SCHED_CONTINUE_RUNNING, 1000, 1, DV(1, 0));
        rec(1, TRC_SCHED_CONTINUE_RUNNING, 1000, 1, DV(1, 1));
    }
    w = xt_writer_open(fd, &meta, NULL);
    assert_non_null(w);
    for ( c = 0; c < 2; c++ )
        assert_int_equal(batches_add(b, c, cpus[c].w, cpus[c].n * 4), 0);
    assert_int_equal(batches_put(b, w), 0);
    assert_int_equal(xt_writer_close(w), 0);
    assert_int_equal(close(fd), 0);
    batches_free(b);
}

static int setup(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sh_log, sizeof(sh_log), "%s/sh.log", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return run_sh("/dev/null", "rm -rf %s", dir);
}

/* ---- What the summary says ------------------------------------------ */

/* Whether @path has a line with every one of the words of @words. */
static bool has_line(const char *path, const char *words)
{
    char *text = read_file(path), *line, *save = NULL;
    bool found = false;

    assert_non_null(text);
    for ( line = strtok_r(text, "\n", &save); line && !found;
          line = strtok_r(NULL, "\n", &save) )
    {
        char *want = strdup(words), *word, *ws = NULL;
        const char *at = line;

        assert_non_null(want);
        found = true;
        /* In order, each a whole column. */
        for ( word = strtok_r(want, " ", &ws); word && found;
              word = strtok_r(NULL, " ", &ws) )
        {
            size_t len = strlen(word);
            const char *hit = at;

            while ( (hit = strstr(hit, word)) &&
                    ((hit > line && hit[-1] != ' ') ||
                     (hit[len] && hit[len] != ' ')) )
                hit++;
            found = hit != NULL;
            if ( hit )
                at = hit + len;
        }
        free(want);
    }
    free(text);
    return found;
}

/* The summary with @opts of a trace written now, of records @what. */
static const char *summary(enum records what, const char *opts,
                           const char *out)
{
    static char path[64];

    snprintf(path, sizeof(path), "%s/arm.bin", dir);
    write_trace(path, what);
    assert_int_equal(sh("%s %s %s/arm.bin > %s/%s", SUMMARY, opts, dir, dir,
                        out), 0);
    snprintf(path, sizeof(path), "%s/%s", dir, out);
    return path;
}

/*
 * The rows of the vCPU's traps table: class, count, seconds in Xen and
 * halted, %run, %span, mean, p50, p90, p99, max cycles.  d1v0 runs 900
 * cycles, the span; no trap here waits for an interrupt.
 */
static void test_traps(void **state)
{
    const char *path = summary(ARM, "", "arm.txt");

    (void)state;
    assert_true(has_line(path, "Arm guest traps, per domain then per vCPU, most costly first"));
    assert_true(has_line(path, "d1v0 traps:"));
    assert_true(has_line(path, "class count in-xen-s halted-s %run %span "
                               "mean-cyc p50-cyc p90-cyc p99-cyc max-cyc"));
    /* DABT: 20 + 40 + 10 of 900 running */
    assert_true(has_line(path, "DABT 3 0.000070 0.000000 7.78 7.78 23 20 40 "
                               "40 40"));
    assert_true(has_line(path, "HVC64 1 0.000050 0.000000 5.56 5.56 50 50 50 "
                               "50 50"));
    assert_true(has_line(path, "WFI_WFE 1 0.000030 0.000000 3.33 3.33 30 30 "
                               "30 30 30"));
    /* d1, both vCPUs: 1800 running in a span of 900 */
    assert_true(has_line(path, "d1 traps:"));
    assert_true(has_line(path, "DABT 4 0.000130 0.000000 7.22 14.44 32 20 60 "
                               "60 60"));
    assert_true(has_line(path, "d1v0 HVC traps by hypercall:"));
    assert_true(has_line(path, "sched_op 1 0.000050"));
}

static void test_mmio_by_address(void **state)
{
    const char *path = summary(ARM, "", "arm.txt");

    (void)state;
    assert_true(has_line(path, "d1 MMIO by address:"));
    assert_true(has_line(path, "address count seconds cycles mean-cyc"));
    assert_true(has_line(path, "0x008000000 write 3 0.000120 120 40"));
    assert_true(has_line(path, "0x009000000 read 1 0.000010 10 10"));
    /* --top 1: the UART's access is with the rest, summed */
    path = summary(ARM, "--top 1", "top1.txt");
    assert_true(has_line(path, "0x008000000 write 3 0.000120 120 40"));
    assert_false(has_line(path, "0x009000000 read"));
    assert_true(has_line(path, "(others) 1 0.000010 10 10"));
}

/* 12 and 20 us for d1v0, 30 for d1v1: p50 and max of each. */
static void test_injection_latency(void **state)
{
    const char *path = summary(ARM, "", "arm.txt");

    (void)state;
    assert_true(has_line(path, "interrupt injection, physical IRQ to guest "
                               "entry (us)"));
    assert_true(has_line(path, "d1 irq-entry 3 20.7 20.0 30.0 30.0 30.0"));
    assert_true(has_line(path, "d1v0 irq-entry 2 16.0 12.0 20.0 20.0 20.0"));
    assert_true(has_line(path, "d1v1 irq-entry 1 30.0 30.0 30.0 30.0 30.0"));
    /* The physical IRQs are pCPU 0's, by number. */
    assert_true(has_line(path, "p0 interrupts by irq:"));
    assert_true(has_line(path, "27 2"));
}

/* A Python expression over the summary's JSON (j), printed. */
static void json_is(const char *expr, const char *want)
{
    char out[64], *got;

    assert_int_equal(sh("python3 -c 'import json,sys; j=json.load(open("
                        "sys.argv[1])); v={n[\"name\"]: n for n in "
                        "j[\"domains\"] + j[\"vcpus\"]}; print(%s)' "
                        "%s/arm.json > %s/value", expr, dir, dir), 0);
    snprintf(out, sizeof(out), "%s/value", dir);
    got = read_file(out);
    assert_non_null(got);
    got[strcspn(got, "\n")] = 0;
    assert_string_equal(got, want);
    free(got);
}

static void test_json(void **state)
{
    (void)state;
    summary(ARM, "--json", "arm.json");
    json_is("[(t[\"name\"], t[\"count\"], t[\"mean_cycles\"], "
            "t[\"p50_cycles\"], t[\"max_cycles\"]) for t in "
            "v[\"d1v0\"][\"arm\"][\"traps\"]]",
            "[('DABT', 3, 23, 20, 40), ('HVC64', 1, 50, 50, 50), "
            "('WFI_WFE', 1, 30, 30, 30)]");
    json_is("[(a[\"gpa\"], a[\"write\"], a[\"count\"], a[\"cycles\"], "
            "a[\"mean_cycles\"]) for a in v[\"d1\"][\"arm\"][\"mmio\"]"
            "[\"addresses\"]]",
            "[(134217728, True, 3, 120, 40), (150994944, False, 1, 10, 10)]");
    json_is("v[\"d1\"][\"arm\"][\"mmio\"][\"others\"]",
            "{'count': 0, 'cycles': 0}");
    json_is("[v[\"d1\"][\"arm\"][\"inject_latency\"][k] for k in "
            "(\"count\", \"p50_us\", \"max_us\")]", "[3, 20.0, 30.0]");
    json_is("v[\"d1v0\"][\"arm\"][\"hvcs\"][0][\"name\"]", "sched_op");
}

/* A trace of no Arm record: no Arm section, no "arm" member. */
static void test_no_arm_records(void **state)
{
    const char *path = summary(PLAIN, "", "arm.txt");

    (void)state;
    assert_true(has_line(path, "guests, per domain then per vCPU, most costly first"));
    assert_false(has_line(path, "Arm guest traps"));
    assert_false(has_line(path, "interrupt injection"));
    summary(PLAIN, "--json", "arm.json");
    json_is("any(\"arm\" in n for n in v.values())", "False");
}

/* The dump names a trap's class and vCPU, and its return its length. */
static void test_dump_notes(void **state)
{
    char path[64], *text;

    (void)state;
    snprintf(path, sizeof(path), "%s/arm.bin", dir);
    write_trace(path, ARM);
    assert_int_equal(sh("%s %s > %s/dump.txt", DUMP, path, dir), 0);
    snprintf(path, sizeof(path), "%s/dump.txt", dir);
    assert_true(has_line(path, "300 cpu0 TRC_ARM_TRAP ec=0x24 iss=0x0 "
                               "pc=0x40002000 | d1v0 DABT"));
    assert_true(has_line(path, "601 cpu0 TRC_ARM_TRAP_HVC nr=29 | d1v0 "
                               "sched_op"));
    assert_true(has_line(path, "320 cpu0 TRC_ARM_RETURN | d1v0 20.000us"));
    /* A return that closes no trap: the vCPU only. */
    text = read_file(path);
    assert_non_null(text);
    assert_non_null(strstr(text, " 712 cpu0  TRC_ARM_RETURN | d1v0\n"));
    free(text);
}

/* ---- The Perfetto export -------------------------------------------- */

/*
 * The trace of records @what exported to arm.pftrace, and the trace
 * processor to read it with; the test is skipped where there is none.
 */
static const char *export_perfetto(enum records what)
{
    const char *tp = trace_processor();
    char path[64];

    snprintf(path, sizeof(path), "%s/arm.bin", dir);
    write_trace(path, what);
    assert_int_equal(sh("%s --perfetto %s/arm.pftrace %s/arm.bin", EXPORT,
                        dir, dir), 0);
    if ( !tp )
        skip();
    return tp;
}

static void test_perfetto_slices(void **state)
{
    const char *tp = export_perfetto(ARM);
    char path[64], *csv;

    (void)state;
    assert_int_equal(sh("printf '%%s\\n' \"select t.name, s.name, count(*), "
                        "sum(s.dur) from slice s join thread_track k on "
                        "s.track_id = k.id join thread t using(utid) where "
                        "s.name in ('DABT', 'HVC64', 'WFI_WFE') group by "
                        "t.name, s.name order by t.name, s.name;\" > "
                        "%s/q.sql && %s -q %s/q.sql %s/arm.pftrace > "
                        "%s/slices.csv 2>/dev/null", dir, tp, dir, dir, dir),
                     0);
    snprintf(path, sizeof(path), "%s/slices.csv", dir);
    csv = read_file(path);
    assert_non_null(csv);
    /* 1 MHz: a cycle is 1000 ns */
    assert_non_null(strstr(csv, "\"d1v0\",\"DABT\",3,70000\n"));
    assert_non_null(strstr(csv, "\"d1v0\",\"HVC64\",1,50000\n"));
    assert_non_null(strstr(csv, "\"d1v0\",\"WFI_WFE\",1,30000\n"));
    assert_non_null(strstr(csv, "\"d1v1\",\"DABT\",1,60000\n"));
    free(csv);
    assert_int_equal(sh("echo \"select name, idx, value from stats where "
                        "value > 0 and severity in ('error', 'data_loss');\" "
                        "> %s/stats.sql && %s -q %s/stats.sql %s/arm.pftrace "
                        "> %s/stats.csv 2>/dev/null", dir, tp, dir, dir, dir),
                     0);
    snprintf(path, sizeof(path), "%s/stats.csv", dir);
    csv = read_file(path);
    assert_non_null(csv);
    /* The header line alone: no problem found. */
    assert_string_equal(csv, "\"name\",\"idx\",\"value\"\n");
    free(csv);
}

/* ---- A guest's own records ------------------------------------------ */

/*
 * Counted per vCPU and domain by the guest's event, named in the dump
 * with their words, an instant each in Perfetto; xenalyze stops at the
 * first ("unexpected number bits(0) in evt.main", exit 1).
 */
static void test_guest_records(void **state)
{
    const char *tp;
    char path[64], *csv;

    (void)state;
    summary(GUEST, "--json", "arm.json");
    json_is("[(e[\"name\"], e[\"count\"]) for e in v[\"d1v0\"][\"guest\"]]",
            "[('TRC_GUEST+0x001', 2)]");
    json_is("[(e[\"name\"], e[\"count\"]) for e in v[\"d1v1\"][\"guest\"]]",
            "[('TRC_GUEST+0x002', 1)]");
    json_is("sorted(e[\"count\"] for e in v[\"d1\"][\"guest\"])", "[1, 2]");
    assert_int_equal(sh("%s %s/arm.bin > %s/dump.txt", DUMP, dir, dir), 0);
    snprintf(path, sizeof(path), "%s/dump.txt", dir);
    assert_true(has_line(path, "200 cpu0 TRC_GUEST+0x001 [ 0xdead 0xbeef ]"));
    assert_true(has_line(path, "400 cpu1 TRC_GUEST+0x002 [ 0x7 ]"));
    assert_int_not_equal(sh("%s --summary %s/arm.bin > /dev/null 2>&1",
                            XENALYZE, dir), 0);

    tp = export_perfetto(GUEST);
    assert_int_equal(sh("printf '%%s\\n' \"select t.name, s.name, count(*) "
                        "from slice s join thread_track k on s.track_id = "
                        "k.id join thread t using(utid) where s.name like "
                        "'TRC_GUEST%%' group by t.name, s.name order by "
                        "t.name;\" > %s/q.sql && %s -q %s/q.sql "
                        "%s/arm.pftrace > %s/guest.csv 2>/dev/null", dir, tp,
                        dir, dir, dir), 0);
    snprintf(path, sizeof(path), "%s/guest.csv", dir);
    csv = read_file(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\"d1v0\",\"TRC_GUEST+0x001\",2\n"));
    assert_non_null(strstr(csv, "\"d1v1\",\"TRC_GUEST+0x002\",1\n"));
    free(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traps),
        cmocka_unit_test(test_mmio_by_address),
        cmocka_unit_test(test_injection_latency),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_no_arm_records),
        cmocka_unit_test(test_dump_notes),
        cmocka_unit_test(test_perfetto_slices),
        cmocka_unit_test(test_guest_records),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
