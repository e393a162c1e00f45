/*
 * xentrace: the domain filter in dom0, for a Xen without one (Xen 4.22
 * and older answer its TBUFOP commands -EINVAL).  It keeps what Xen's
 * keeps (public/trace.h): the records written in a listed domain's
 * context, the TRC_SCHED and TRC_DOM0OP records that name a listed
 * domain (xt_record_domains(), the same function trace.c calls), and the
 * TRC_GEN records.  The file is then as small, but Xen's buffers fill as
 * if nothing were filtered, and lose as much.
 *
 * Xen knows whose context a record is written in; dom0 goes by each
 * CPU's own records, as the readers' model does: from a runstate change
 * to running written on a CPU, a switch record's next vCPU, or a vCPU
 * that continues running, that vCPU's domain runs there.  A record is
 * judged by the domain running when it was written, so a change to
 * running is judged by its CPU's previous domain, as in Xen (the
 * scheduler writes it before it switches).  Until a CPU's first such
 * record, what runs there is not known, and its records are kept.
 */
#include <err.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

#define NOT_KNOWN   UINT32_MAX

struct dom_filter {
    uint8_t listed[XT_DOM_IDS / 8];
    uint32_t *running;          /* [nr_cpus]: its domain, or NOT_KNOWN */
};

bool dom_filter_sees_context(uint32_t evt_mask)
{
    uint32_t both = evt_mask & TRC_SCHED_MIN;

    return (both >> TRC_CLS_SHIFT) && (both >> TRC_SUBCLS_SHIFT & 0xf);
}

struct dom_filter *dom_filter_new(const struct xt_dom_filter *doms,
                                  unsigned int nr_cpus)
{
    struct dom_filter *f = calloc(1, sizeof(*f));
    unsigned int i, id;

    if ( !f || !(f->running = malloc(nr_cpus * sizeof(*f->running))) )
        err(1, "memory");
    for ( i = 0; i < nr_cpus; i++ )
        f->running[i] = NOT_KNOWN;
    for ( i = 0; i < doms->nr; i++ )
        for ( id = doms->range[i] >> 16;
              id <= (doms->range[i] & 0xffff) && id < XT_DOM_IDS; id++ )
            f->listed[id / 8] |= 1u << id % 8;
    return f;
}

void dom_filter_free(struct dom_filter *f)
{
    if ( f )
        free(f->running);
    free(f);
}

static bool listed(const struct dom_filter *f, uint32_t domid)
{
    return domid < XT_DOM_IDS && f->listed[domid / 8] & 1u << domid % 8;
}

/*
 * The domain that runs on the CPU after record @event, @d, as the model
 * reads it (a runstate change to running, a switch's next, a vCPU that
 * continues running); or @now's.
 */
static uint32_t runs_after(uint32_t event, const uint32_t *d,
                           unsigned int words, uint32_t now)
{
    if ( (event & XT_RUNSTATE_CHANGE_MASK) == XT_RUNSTATE_CHANGE &&
         (event >> XT_RUNSTATE_NEW_SHIFT & XT_RUNSTATE_BITS) ==
         XT_RUNSTATE_RUNNING && words >= 1 )
        return XT_DV_DOM(d[0]);
    if ( event == TRC_SCHED_SWITCH && words >= 3 )
        return d[2];
    if ( event == TRC_SCHED_CONTINUE_RUNNING && words >= 1 )
        return XT_DV_DOM(d[0]);
    return now;
}

static bool keeps(const struct dom_filter *f, uint32_t event,
                  const uint32_t *d, unsigned int words, uint32_t running)
{
    uint32_t dom[XT_RECORD_DOMAINS_MAX];
    unsigned int i, n;

    if ( event >> TRC_CLS_SHIFT == TRC_GEN >> TRC_CLS_SHIFT )
        return true;
    if ( running == NOT_KNOWN || listed(f, running) )
        return true;
    n = xt_record_domains(event, d, words, dom);
    for ( i = 0; i < n; i++ )
        if ( listed(f, dom[i]) )
            return true;
    return false;
}

size_t dom_filter_records(struct dom_filter *f, unsigned int cpu,
                          uint8_t *p, size_t len,
                          struct chunk_count *dropped)
{
    size_t at = 0, kept = 0;

    while ( at < len )
    {
        uint32_t hdr, d[TRACE_EXTRA_MAX] = { 0 }, event;
        unsigned int words, tsc_bytes, size;

        memcpy(&hdr, p + at, sizeof(hdr));
        event = TRC_HD_TO_EVENT(hdr);
        words = TRC_HD_EXTRA(hdr);
        tsc_bytes = TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 8 : 0;
        size = 4 + tsc_bytes + 4 * words;
        memcpy(d, p + at + 4 + tsc_bytes, 4 * words);

        if ( keeps(f, event, d, words, f->running[cpu]) )
        {
            memmove(p + kept, p + at, size);
            kept += size;
        }
        else
        {
            dropped->records++;
            dropped->bytes += size;
        }
        f->running[cpu] = runs_after(event, d, words, f->running[cpu]);
        at += size;
    }
    return kept;
}
