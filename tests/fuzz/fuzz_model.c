/*
 * libFuzzer target: any bytes as a trace file, through the model of the
 * machine and the summary's analysis (tools/readers/lib/model.h,
 * analysis.h).  Neither may crash or read out of bounds (ASan, UBSan)
 * whatever the records say: CPU numbers, vCPUs, states, TSCs going
 * backwards, losses; and every vCPU's states must still sum to the span,
 * in full TSC order and in each pCPU's (model_options.by_cpu), which an
 * input's length picks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "model.h"
#include "xtread.h"

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
    return 0;
}
