/*
 * metrics.c, xentrace-top's --metrics: a gen-trace file cut into
 * intervals, each added to the counters, must give per domain the whole
 * trace's exits, exit time, hypercalls, injections, runstate time and
 * losses (the intervals add up to the whole: analysis.h); the text is
 * OpenMetrics (each family once, its samples together, "# EOF" last),
 * with each named domain's name and UUID in xen_domain_info; and
 * the server gives that text over HTTP (curl), a 404 elsewhere, refuses a
 * bad address in one line, and serves while its figures are published
 * from another thread (run under ThreadSanitizer too).
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "metrics.h"
#include "run_cmd.h"
#include "tsc.h"

static char dir[] = "/tmp/test_metrics.XXXXXX";
static char trace[sizeof(dir) + 16], log_path[sizeof(dir) + 8];

struct cut {
    struct xt_reader *r;
    struct analysis *whole;
    struct metrics *m;
    uint64_t hz;
    unsigned int intervals;
};

/* Feed every record, cutting every @ticks, each interval to the metrics. */
static void cut_trace(struct cut *c, uint64_t ticks)
{
    struct analysis_options ao = { 0 };
    struct analysis *iv;
    struct xt_iter *it;
    struct xt_record rec;
    uint64_t next = 0;

    c->r = xt_reader_open(trace, 0);
    assert_non_null(c->r);
    c->hz = ao.hz = xt_reader_info(c->r)->meta.tsc_hz;
    assert_true(c->hz > 0);
    c->whole = analysis_new(c->r, NULL, &ao);
    c->m = metrics_new();
    assert_non_null(c->whole);
    assert_non_null(c->m);
    it = xt_iter_new(c->r, XT_ORDER_TSC, 0, 0);
    assert_non_null(it);
    while ( xt_iter_next(it, &rec) > 0 )
    {
        if ( !next )
            next = rec.tsc + ticks;
        for ( ; rec.tsc >= next; next += ticks )
        {
            assert_int_equal(analysis_cut(c->whole, next, &iv), 0);
            assert_int_equal(metrics_add(c->m, iv, c->hz), 0);
            c->intervals++;
        }
        assert_int_equal(analysis_feed(c->whole, &rec), 0);
    }
    xt_iter_free(it);
    assert_int_equal(analysis_finish(c->whole), 0);
    assert_int_equal(analysis_cut(c->whole, UINT64_MAX, &iv), 0);
    assert_int_equal(metrics_add(c->m, iv, c->hz), 0);
    c->intervals++;
}

static void cut_free(struct cut *c)
{
    metrics_free(c->m);
    analysis_free(c->whole);
    xt_reader_close(c->r);
}

/* The exposition as text, malloc()ed. */
static char *exposition(const struct metrics *m)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);

    assert_non_null(f);
    metrics_write(m, f);
    assert_int_equal(fclose(f), 0);
    return text;
}

/* The value of the sample whose line starts with @series, or NAN. */
static double value_of(const char *text, const char *series)
{
    size_t n = strlen(series);
    const char *p;

    for ( p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL )
        if ( !strncmp(p, series, n) && p[n] == ' ' )
            return strtod(p + n + 1, NULL);
    return NAN;
}

static int setup(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(trace, sizeof(trace), "%s/gen.bin", dir);
    snprintf(log_path, sizeof(log_path), "%s/log", dir);
    /* No losses: a loss re-tells time before a cut (docs/reading-traces.md,
       "Intervals"), so that only counts would add up exactly. */
    return run_sh(log_path, "%s -n -c 4 -s 6M -S 5 %s", GEN_TRACE, trace);
}

static int teardown(void **state)
{
    (void)state;
    return run_sh("/dev/null", "rm -rf %s", dir);
}

/* Per domain, the counters are the whole trace's figures. */
static void test_counters_add_up_to_the_whole(void **state)
{
    static struct analysis_count rows[4096];
    struct analysis_rows whole;
    struct cut c = { 0 };
    char *text, series[256];
    unsigned int d, i, n, checked = 0;

    (void)state;
    cut_trace(&c, 240000000);           /* 0.1 s at 2.4 GHz */
    assert_true(c.intervals > 3);
    text = exposition(c.m);
    assert_int_equal(analysis_rows(c.whole, &whole), 0);
    for ( d = 0; d < whole.nr_domains; d++ )
    {
        const struct analysis_row *r = whole.domains[d];
        uint32_t dom = analysis_row_domvcpu(r) >> 16;
        char name[16];

        if ( dom == MODEL_DOMID_IDLE )
            snprintf(name, sizeof(name), "idle");
        else
            snprintf(name, sizeof(name), "%u", dom);
        n = analysis_row_table(c.whole, r, ANALYSIS_EXITS, rows, 4096, NULL);
        for ( i = 0; i < n; i++ )
        {
            snprintf(series, sizeof(series),
                     "xen_vcpu_exits_total{domain=\"%s\",reason=\"%s\"}",
                     name, rows[i].name);
            assert_true(value_of(text, series) == rows[i].count);
            snprintf(series, sizeof(series), "xen_vcpu_exit_seconds_total"
                     "{domain=\"%s\",reason=\"%s\"}", name, rows[i].name);
            assert_true(fabs(value_of(text, series) -
                             tsc_seconds(rows[i].ticks - rows[i].halted,
                                         c.hz)) < 1e-6);
            checked++;
        }
        n = analysis_row_table(c.whole, r, ANALYSIS_HYPERCALLS, rows, 4096,
                               NULL);
        for ( i = 0; i < n; i++, checked++ )
        {
            snprintf(series, sizeof(series), "xen_hypercalls_total"
                     "{domain=\"%s\",hypercall=\"%s\"}", name, rows[i].name);
            assert_true(value_of(text, series) == rows[i].count);
        }
        snprintf(series, sizeof(series), "xen_runstate_seconds_total"
                 "{domain=\"%s\",state=\"running\"}", name);
        assert_true(fabs(value_of(text, series) -
                         tsc_seconds(analysis_row_state(r, MODEL_RUNNING),
                                     c.hz)) < 1e-6);
    }
    assert_true(checked > 10);
    snprintf(series, sizeof(series), "xen_trace_intervals_total");
    assert_true(value_of(text, series) == c.intervals);
    analysis_rows_free(&whole);
    free(text);
    cut_free(&c);
}

/* OpenMetrics: a family's TYPE once, its samples after it, "# EOF" last. */
static void test_text_is_openmetrics(void **state)
{
    struct cut c = { 0 };
    char *text, *line, *save = NULL, family[128] = "";
    unsigned int types = 0;

    (void)state;
    cut_trace(&c, 480000000);
    text = exposition(c.m);
    assert_non_null(strstr(text, "# EOF\n"));
    assert_string_equal(strstr(text, "# EOF\n"), "# EOF\n");
    for ( line = strtok_r(text, "\n", &save); line;
          line = strtok_r(NULL, "\n", &save) )
    {
        if ( !strncmp(line, "# TYPE ", 7) )
        {
            sscanf(line + 7, "%127s", family);
            types++;
            continue;
        }
        if ( line[0] == '#' )
            continue;
        /* Each sample is of the family last declared. */
        assert_int_equal(strncmp(line, family, strlen(family)), 0);
        assert_non_null(strchr(line, ' '));
    }
    assert_int_equal(types, 10);
    free(text);
    /* The domains' names and UUIDs, as gen-trace -n gives them. */
    text = exposition(c.m);
    assert_true(value_of(text, "xen_domain_info{domain=\"1\",name=\"web-01\","
                         "uuid=\"5ba1d000-0000-4000-8000-000000000001\"}") == 1);
    assert_true(value_of(text, "xen_domain_info{domain=\"0\",name=\"Domain-0\","
                         "uuid=\"00000000-0000-0000-0000-000000000000\"}") == 1);
    assert_null(strstr(text, "xen_domain_info{domain=\"idle\""));
    free(text);
    cut_free(&c);
}

struct publisher {
    struct metrics_server *s;
    struct metrics *m;
    unsigned int rounds;
};

static void *publish_often(void *arg)
{
    struct publisher *p = arg;
    unsigned int i;

    for ( i = 0; i < p->rounds; i++ )
        assert_int_equal(metrics_publish(p->s, p->m), 0);
    return NULL;
}

static void test_served_over_http(void **state)
{
    struct cut c = { 0 };
    struct publisher p;
    pthread_t t;
    char why[128], *text, *got, path[sizeof(dir) + 16];
    unsigned int port;

    (void)state;
    cut_trace(&c, 480000000);
    p = (struct publisher){ .m = c.m, .rounds = 200 };
    p.s = metrics_serve("127.0.0.1:0", why, sizeof(why));
    assert_non_null(p.s);
    port = metrics_port(p.s);
    assert_true(port > 0);
    assert_int_equal(metrics_publish(p.s, c.m), 0);
    /* Served while published from another thread. */
    assert_int_equal(pthread_create(&t, NULL, publish_often, &p), 0);
    assert_int_equal(run_sh(log_path, "for i in 1 2 3 4 5; do curl -sf "
                            "http://127.0.0.1:%u/metrics > /dev/null || "
                            "exit 1; done", port), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    snprintf(path, sizeof(path), "%s/got", dir);
    assert_int_equal(run_sh(log_path, "curl -sf -D %s/headers "
                            "http://127.0.0.1:%u/metrics > %s", dir, port,
                            path), 0);
    text = exposition(c.m);
    got = read_file(path);
    assert_string_equal(got, text);
    assert_int_equal(run_sh(log_path, "grep -qi '^content-type: "
                            "application/openmetrics-text' %s/headers", dir),
                     0);
    /* Elsewhere: not found. */
    assert_int_equal(run_sh(log_path, "curl -s -o /dev/null -w '%%{http_code}'"
                            " http://127.0.0.1:%u/x | grep -qx 404", port), 0);
    metrics_stop(p.s);
    free(got);
    free(text);
    cut_free(&c);
}

static void test_bad_addresses(void **state)
{
    static const char *const bad[] = {
        "", "x", "70000", "-1", "1.2.3:80", "localhost:80", "127.0.0.1:",
        "127.0.0.1:80x",
    };
    char why[128];
    unsigned int i;

    (void)state;
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        why[0] = '\0';
        assert_null(metrics_serve(bad[i], why, sizeof(why)));
        assert_true(why[0] != '\0' && !strchr(why, '\n'));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_add_up_to_the_whole),
        cmocka_unit_test(test_text_is_openmetrics),
        cmocka_unit_test(test_served_over_http),
        cmocka_unit_test(test_bad_addresses),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
