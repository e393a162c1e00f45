/*
 * libFuzzer target: any bytes as a trace for xentrace-summary.  Its tally
 * (tally.c), its analysis (analysis.c, tested further by fuzz_model) and
 * both of its outputs run on them, compiled in from
 * summary.c: the JSON must parse, neither may print a NaN or an infinity,
 * and the figures must add up (every record in one CPU, one event and one
 * time bin), and be the same counted in the model's pass as in a walk,
 * on the input read as a file and as a stream.  With --interval (in intervals of a third of the span, in TSC order),
 * every interval's output is sound too, and the whole trace's figures are
 * those without it.  Compared with itself (--diff), it has changed in
 * nothing.
 */
#define main xentrace_summary_main
#include "summary.c"
#undef main

#include "fuzz_tally.h"


/* The records of each CPU, event and bin come to the total. */
static void check_sums(const struct tally *t)
{
    uint64_t by_cpu = 0, by_event = 0, by_bin = 0;
    unsigned int i, b;

    for ( i = 0; i < t->nr_cpus; i++ )
    {
        by_cpu += t->cpus[i].total.records;
        for ( b = 0; b < t->time.nr; b++ )
            by_bin += t->cpus[i].bins[b];
    }
    /* The metadata has its rows, but is not among Xen's records. */
    for ( i = 0; i < t->nr_events; i++ )
        if ( !xt_is_metadata(t->events[i].id) )
            by_event += t->events[i].total.records;
    CHECK(by_cpu == t->total.records);
    CHECK(by_event == t->total.records);
    CHECK(by_bin == t->total.records);
}

/*
 * The summary's counts, taken in the model's pass (tally_record()), are
 * the walk's (tally_run()); on @r indexed, or streamed, whose CPUs and
 * bins are learnt as the records come, in the model's CPU order
 * (@by_cpu, which a stream does not have) or TSC order.  The analysis's
 * JSON, malloc()ed, for the caller to compare.
 */
static char *check_one_pass(struct xt_reader *r, const struct tally *walked,
                            bool by_cpu)
{
    char *json = NULL;
    size_t len;
    FILE *f;
    struct model_options mo = { .by_cpu = by_cpu, .each = tally_record };
    struct analysis_options ao = { .hz = walked->hz };
    struct analysis *a;
    struct tally t;
    unsigned int i, e, b;

    if ( tally_begin(&t, r, walked->time.max, walked->hz) )
        abort();
    mo.each_arg = &t;
    a = analysis_run(r, &mo, &ao);
    if ( !a || tally_end(&t) )
        abort();        /* out of memory: over -rss_limit_mb */
    CHECK(t.total.records == walked->total.records);
    CHECK(t.total.bytes == walked->total.bytes);
    CHECK(t.nr_events == walked->nr_events);
    CHECK(t.nr_cpus == walked->nr_cpus && t.time.nr == walked->time.nr);
    for ( e = 0; e < t.nr_events; e++ )
        CHECK(t.events[e].id == walked->events[e].id &&
              t.events[e].total.records == walked->events[e].total.records);
    for ( i = 0; i < t.nr_cpus; i++ )
    {
        CHECK(t.cpus[i].cpu == walked->cpus[i].cpu);
        CHECK(t.cpus[i].total.bytes == walked->cpus[i].total.bytes);
        CHECK(t.cpus[i].lost_ticks == walked->cpus[i].lost_ticks);
        CHECK(t.cpus[i].lost_markers == walked->cpus[i].lost_markers);
        for ( b = 0; b < t.time.nr; b++ )
            CHECK(t.cpus[i].bins[b] == walked->cpus[i].bins[b]);
    }
    for ( b = 0; b < t.time.nr; b++ )
        CHECK(t.bin_losses[b].records == walked->bin_losses[b].records &&
              t.bin_losses[b].markers == walked->bin_losses[b].markers);
    if ( !(f = open_memstream(&json, &len)) )
        abort();
    analysis_json(f, a);
    fclose(f);
    analysis_free(a);
    tally_free(&t);
    return json;
}

static int no_tally(void *arg, const struct xt_record *rec)
{
    (void)arg;
    (void)rec;
    return 0;
}

static void json_line(void *arg, const char *line, size_t len,
                      unsigned int n)
{
    (void)arg;
    (void)n;
    CHECK(json_valid(line, len));
}

/*
 * --interval, in @format, of a third of the span or less: every JSON line
 * parses, with no NaN, and the whole trace's figures are analysis_run()'s.
 */
static void check_intervals(struct xt_reader *r, const struct tally *t,
                            enum format format, const char *whole,
                            unsigned int longest)
{
    struct model_options mo = { .each = no_tally };
    struct analysis_options ao = { .hz = t->hz, .longest = longest };
    struct intervals iv = {
        .f = fuzz_out.f, .format = format, .hz = t->hz,
        .cut.step = (t->last_tsc - t->first_tsc) / 3 + 1, .r = r,
    };
    struct analysis *a = run_intervals(r, &mo, &ao, &iv);

    if ( !a )
        abort();        /* out of memory: over -rss_limit_mb */
    fflush(fuzz_out.f);
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    if ( format == JSON )
        output_lines(&fuzz_out, json_line, NULL);
    output_reset(&fuzz_out);
    analysis_json(fuzz_out.f, a);
    fflush(fuzz_out.f);
    CHECK(!strcmp(fuzz_out.buf, whole));
    output_reset(&fuzz_out);
    analysis_free(a);
}

/*
 * --diff of the trace against itself, @top rows a table: sound, and
 * nothing changed (a change, "+1.0%", is only ever on an indented line;
 * a title, a domain's name, may hold any printable byte).
 */
static void unchanged_line(void *arg, const char *line, size_t len,
                           unsigned int n)
{
    (void)arg;
    (void)n;
    CHECK(line[0] != ' ' || !memchr(line, '%', len));
}

static void check_diff_self(struct analysis *a, uint64_t hz, unsigned int top)
{
    struct diff_side self = { .a = a, .name = "fuzz.bin", .hz = hz };

    if ( diff_print(fuzz_out.f, &self, &self, top) )
        abort();        /* out of memory: over -rss_limit_mb */
    fflush(fuzz_out.f);
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_lines(&fuzz_out, unchanged_line, NULL);
    output_reset(&fuzz_out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char damage_buf[256];
    const char *damage;
    struct tally t;
    struct xt_reader *r = tally_input(&t, data, size), *streamed;
    struct analysis_options ao = { 0 };
    struct analysis *a;
    char *whole;

    if ( !r )
        return 0;
    check_sums(&t);
    free(check_one_pass(r, &t, true));
    /*
     * A stream's counts are the file's.  (Its model is the file's in TSC
     * order on real traces, test_streams says; a hostile file's index
     * knows what a stream cannot yet: a record without a TSC before its
     * CPU's first, TSCs that fall across a CPU's batches, padding with a
     * TSC, and more that this target found.)
     */
    if ( (streamed = xt_reader_open_mem(data, size, XT_READ_STREAM)) )
    {
        free(check_one_pass(streamed, &t, false));
        xt_reader_close(streamed);
    }
    ao.hz = t.hz;
    ao.longest = 1 + size % 5;         /* --longest 1 to 5 */
    a = analysis_run(r, NULL, &ao);
    if ( !a )
        abort();        /* out of memory: over -rss_limit_mb */
    damage = xt_reader_damage(r, damage_buf, sizeof(damage_buf));

    json_print(fuzz_out.f, &t, a, r, "fuzz\"\\\x01\xff.bin", damage);
    fflush(fuzz_out.f);
    CHECK(json_valid(fuzz_out.buf, fuzz_out.len));
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_reset(&fuzz_out);
    text_header(fuzz_out.f, &t, "fuzz.bin", damage, false);
    text_domains(fuzz_out.f, r);
    text_masks(fuzz_out.f, r, t.hz);
    text_cpus(fuzz_out.f, &t);
    text_events(fuzz_out.f, &t, size % 4);     /* 0: every row; --top */
    analysis_text(fuzz_out.f, a);
    text_rate(fuzz_out.f, &t);
    fflush(fuzz_out.f);
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_reset(&fuzz_out);
    check_diff_self(a, t.hz, size % 4);
    analysis_json(fuzz_out.f, a);
    fflush(fuzz_out.f);
    whole = strdup(fuzz_out.buf);
    output_reset(&fuzz_out);
    if ( !whole )
        abort();
    check_intervals(r, &t, size & 1 ? JSON : size & 2 ? CSV : TEXT, whole,
                    ao.longest);
    free(whole);
    analysis_free(a);
    tally_free(&t);
    xt_reader_close(r);
    return 0;
}
