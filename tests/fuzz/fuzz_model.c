/*
 * libFuzzer target: any bytes as a trace file, through the model of the
 * machine and the summary's analysis (tools/readers/lib/model.h,
 * analysis.h).  Neither may crash or read out of bounds (ASan, UBSan)
 * whatever the records say: CPU numbers, vCPUs, states, TSCs going
 * backwards, losses; and every vCPU's states must still sum to the span,
 * in full TSC order and in each pCPU's (model_options.by_cpu), which an
 * input's length picks.  Then the analysis cut into intervals at TSCs the
 * input picks (analysis_cut(), as xentrace-summary --interval), in a
 * window or not: the intervals' counts must sum to the whole trace's.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "merge.h"
#include "model.h"
#include "xtread.h"

#define MAX_CUTS    8

struct sums {
    uint64_t vcpus[64];         /* a few vCPUs' states, by a small hash */
    uint32_t ids[64];
};

static void take(void *arg, const struct model_event *ev)
{
    struct sums *s = arg;
    unsigned int h = ev->domvcpu % 64;

    if ( ev->end < ev->start )
        abort();
    if ( ev->type != MODEL_EV_RUNSTATE )
        return;
    if ( s->vcpus[h] && s->ids[h] != ev->domvcpu )
        return;                 /* another vCPU has the slot */
    s->ids[h] = ev->domvcpu;
    s->vcpus[h] += ev->end - ev->start;
}

/* Blank @buf's JSON objects named @member (of runstates: no deeper). */
static void blank(char *buf, const char *member)
{
    char *p, *end;

    for ( p = buf; (p = strstr(p, member)) && (end = strstr(p, "}}")); )
        memset(p, ' ', end + 2 - p);
}

/*
 * The sum of every count in @a's JSON: of runstate intervals, waits,
 * exits, hypercalls, injections, interrupts, C-states, and the gaps and
 * records lost, and the unplaced, but those before each interval's own
 * first run; UINT64_MAX if it cannot be made.
 */
static uint64_t json_counts(const struct analysis *a)
{
    static const char *const keys[] = {
        "\"count\":", "\"gaps\":", "\"records\":", "\"orphan_hvm\":",
        "\"exits_dropped\":", "\"mismatches\":",
    };
    char *buf = NULL;
    size_t len = 0, k;
    FILE *f = open_memstream(&buf, &len);
    uint64_t n = 0;
    const char *p;

    if ( !f )
        return UINT64_MAX;
    analysis_json(f, a);
    if ( fclose(f) || strstr(buf, "\"analysis\":null") )
    {
        free(buf);
        return UINT64_MAX;
    }
    blank(buf, "\"before_first_run\":");
    for ( k = 0; k < sizeof(keys) / sizeof(keys[0]); k++ )
        for ( p = buf; (p = strstr(p, keys[k])); p += strlen(keys[k]) )
            n += strtoull(p + strlen(keys[k]), NULL, 10);
    free(buf);
    return n;
}

/* The analysis of @r cut at @nr TSCs picked by @pick, in @mo's window. */
static void cut_and_sum(struct xt_reader *r, const struct model_options *mo,
                        const uint8_t *pick, unsigned int nr)
{
    struct analysis_options ao = { .hz = 2400000000u };
    struct analysis *a = analysis_new(r, mo, &ao), *iv;
    struct merge *g = a ? merge_new(r, NULL) : NULL;
    uint64_t cuts[MAX_CUTS], first, span, sum = 0, n;
    struct xt_record rec;
    unsigned int i, next = 0;
    int got;

    if ( !g )
        goto out;
    first = analysis_first_tsc(a);
    span = analysis_span(a);
    /* Ascending, anywhere in the span, two at one TSC if they like. */
    for ( i = 0; i < nr; i++ )
        cuts[i] = first + span / nr * i + (span / nr / 256) * pick[i];
    while ( (got = merge_next(g, &rec)) > 0 )
    {
        for ( ; next < nr && rec.tsc >= cuts[next]; next++ )
        {
            if ( analysis_cut(a, cuts[next], &iv) )
                goto out;
            if ( (n = json_counts(iv)) == UINT64_MAX )
                goto out;
            sum += n;
        }
        if ( analysis_feed(a, &rec) )
            goto out;
    }
    if ( got || analysis_finish(a) || analysis_cut(a, UINT64_MAX, &iv) ||
         (n = json_counts(iv)) == UINT64_MAX )
        goto out;
    sum += n;
    if ( (n = json_counts(a)) != UINT64_MAX && n != sum )
        abort();
out:
    merge_free(g);
    analysis_free(a);
}

/* The trace's first and last TSC, as cli_tsc_range() has them. */
static int trace_range(struct xt_reader *r, uint64_t *first,
                          uint64_t *last)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    unsigned int i;
    int any = 0;

    for ( i = 0; i < info->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        if ( !ci->has_tsc )
            continue;
        if ( !any || ci->first_tsc < *first )
            *first = ci->first_tsc;
        if ( !any || ci->last_tsc > *last )
            *last = ci->last_tsc;
        any = 1;
    }
    return any && *last - *first >= 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct model_ops ops = { .event = take };
    struct analysis_options ao = { .hz = 2400000000u, .top = 5 };
    struct model_options mo = { .by_cpu = size & 1 };
    struct xt_reader *r = xt_reader_open_mem(data, size, 0);
    static struct sums s;
    struct model *m;
    struct analysis *a;
    FILE *null;
    unsigned int i;

    if ( !r )
        return 0;
    memset(&s, 0, sizeof(s));
    m = model_new(r, &mo, &ops, &s);
    if ( m && !model_run(m) )
        for ( i = 0; i < 64; i++ )
            if ( s.vcpus[i] &&
                 s.vcpus[i] != model_last_tsc(m) - model_first_tsc(m) )
                abort();
    model_free(m);
    xt_reader_close(r);

    r = xt_reader_open_mem(data, size, 0);
    if ( !r )
        abort();
    mo.by_cpu = !mo.by_cpu;
    a = analysis_run(r, &mo, &ao);
    null = fopen("/dev/null", "w");
    if ( a && null )
    {
        analysis_text(null, a);
        analysis_json(null, a);
    }
    if ( null )
        fclose(null);
    analysis_free(a);
    xt_reader_close(r);

    if ( size < MAX_CUTS + 1 || !(r = xt_reader_open_mem(data, size, 0)) )
        return 0;
    mo = (struct model_options){ 0 };
    if ( size & 2 )
    {
        uint64_t first, last;

        if ( trace_range(r, &first, &last) )
        {
            mo.from = first + (last - first) / 4;
            mo.to = last - (last - first) / 4;
        }
    }
    cut_and_sum(r, &mo, data + size - MAX_CUTS, 1 + data[0] % MAX_CUTS);
    xt_reader_close(r);
    return 0;
}
