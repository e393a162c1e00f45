/* Reading a trace file: see tracefile.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdint.h>
#include <public/trace.h>

#include "tracefile.h"

static bool fail(struct tf_summary *s, const char *why, long off)
{
    snprintf(s->error, sizeof(s->error), "%s at offset %ld", why, off);
    return false;
}

/* The size of the record whose header is @hdr. */
static uint32_t record_size(uint32_t hdr)
{
    return 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 8 : 0) +
           4 * TRC_HD_EXTRA(hdr);
}

/* xentrace-ng's metadata: TRC_GEN + 0x10 .. 0x1f (xtfile.h). */
#define TRC_XT_END      0x0001f01f
#define TRC_XT_SKIPPED  0x0001f016
#define TRC_XT_DOMAIN   0x0001f017
#define TRC_XT_DOMAIN_NAME 0x0001f018
#define TRC_XT_MASKS    0x0001f019
#define TRC_XT_DOM_FILTER 0x0001f01a
static bool is_metadata(uint32_t event)
{
    return (event & ~0xfU) == TRC_GEN + 0x10;
}

static void count(struct tf_summary *s, struct tf_cpu *c, uint32_t event,
                  const uint32_t *rec, uint32_t size)
{
    if ( event == TRC_TRACE_WRAP_BUFFER )
    {
        s->pad_bytes += size;
        return;
    }
    c->after_end += c->ends != 0;
    if ( event == TRC_XT_END )
    {
        c->ends++;
        return;
    }
    if ( event == TRC_XT_SKIPPED )
    {
        c->skips++;
        c->skipped += rec[size / 4 - 2];    /* {bytes, why} at the end */
        return;
    }
    if ( event == TRC_XT_DOMAIN || event == TRC_XT_DOMAIN_NAME )
    {
        s->domains += event == TRC_XT_DOMAIN;
        return;
    }
    if ( event == TRC_XT_MASKS )
    {
        s->masks++;
        return;
    }
    if ( event == TRC_XT_DOM_FILTER )
    {
        s->dom_filters++;
        return;
    }
    if ( is_metadata(event) )
    {
        s->meta++;
        return;
    }
    if ( event == TRC_LOST_RECORDS )
    {
        c->markers++;
        c->marker_bytes += size;
        c->lost += rec[3];          /* header, TSC, then the count */
        return;
    }
    c->records++;
    c->bytes += size;
    c->classes |= event >> TRC_CLS_SHIFT;
}

bool tf_read(const char *path, struct tf_summary *s)
{
    FILE *f = fopen(path, "rb");
    uint32_t rec[10], window = 0;
    struct tf_cpu *cur = NULL;
    long off = 0;

    memset(s, 0, sizeof(*s));
    if ( !f )
        return fail(s, "cannot open", 0);

    while ( fread(rec, 4, 1, f) == 1 )
    {
        uint32_t size = record_size(rec[0]), event = TRC_HD_TO_EVENT(rec[0]);

        if ( size > 4 && fread(rec + 1, size - 4, 1, f) != 1 )
            break;
        if ( event == TRC_TRACE_CPU_CHANGE )
        {
            if ( window || size != 12 || rec[1] >= TF_MAX_CPUS )
                return fclose(f), fail(s, "bad cpu change", off);
            cur = &s->cpu[rec[1]];
            cur->windows++;
            window = rec[2];
            if ( off % 4096 )
                s->unaligned++;
        }
        else
        {
            if ( !cur || size > window )
                return fclose(f), fail(s, "record outside a window", off);
            window -= size;
            count(s, cur, event, rec, size);
        }
        off += size;
        if ( !window )
            s->complete = off;
    }
    fclose(f);
    s->bytes = off;
    if ( window )
        return fail(s, "file ends inside a window", off);

    return true;
}
