/*
 * libFuzzer target: any bytes as a trace for xentrace-summary.  Its tally
 * (tally.c), its analysis (analysis.c, tested further by fuzz_model) and
 * both of its outputs run on them, compiled in from
 * summary.c: the JSON must parse, neither may print a NaN or an infinity,
 * and the figures must add up (every record in one CPU, one event and one
 * time bin).
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
        for ( b = 0; b < t->nr_bins; b++ )
            by_bin += t->cpus[i].bins[b];
    }
    for ( i = 0; i < t->nr_events; i++ )
        by_event += t->events[i].total.records;
    CHECK(by_cpu == t->total.records);
    CHECK(by_event == t->total.records);
    CHECK(by_bin == t->total.records);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char damage_buf[256];
    const char *damage;
    struct tally t;
    struct xt_reader *r = tally_input(&t, data, size);
    struct analysis_options ao = { 0 };
    struct analysis *a;

    if ( !r )
        return 0;
    check_sums(&t);
    ao.hz = t.hz;
    a = analysis_run(r, NULL, &ao);
    if ( !a )
        abort();        /* out of memory: over -rss_limit_mb */
    damage = xt_reader_damage(r, damage_buf, sizeof(damage_buf));

    json_print(fuzz_out.f, &t, a, "fuzz\"\\\x01\xff.bin", damage);
    fflush(fuzz_out.f);
    CHECK(json_valid(fuzz_out.buf, fuzz_out.len));
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_reset(&fuzz_out);
    text_header(fuzz_out.f, &t, "fuzz.bin", damage, false);
    text_cpus(fuzz_out.f, &t);
    text_events(fuzz_out.f, &t);
    analysis_text(fuzz_out.f, a);
    text_rate(fuzz_out.f, &t);
    fflush(fuzz_out.f);
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_reset(&fuzz_out);
    analysis_free(a);
    tally_free(&t);
    xt_reader_close(r);
    return 0;
}
