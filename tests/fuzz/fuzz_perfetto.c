/*
 * libFuzzer target: any bytes as a trace file, exported to Perfetto
 * (tools/readers/lib/perfetto.c) with the model under it.  Neither
 * may crash nor read out of bounds (ASan, UBSan), and what comes out must
 * be a Trace: packets, each a field 1 of the length it says, that tile
 * the output, each made of whole fields of the wire types we write.  Odd
 * inputs are exported through filters, so that those paths run too.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "perfetto.h"
#include "view.h"
#include "xtread.h"

/* A varint at *@p before @end into *@v; false if it runs over. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    unsigned int shift = 0;

    *v = 0;
    while ( *p < end && shift < 64 )
    {
        uint8_t b = *(*p)++;

        *v |= (uint64_t)(b & 0x7f) << shift;
        if ( !(b & 0x80) )
            return 1;
        shift += 7;
    }
    return 0;
}

/* Fields of wire type 0 or 2 that end exactly at @end. */
static void check_fields(const uint8_t *p, const uint8_t *end)
{
    uint64_t key, v;

    while ( p < end )
    {
        if ( !varint(&p, end, &key) || key >> 3 == 0 )
            abort();
        if ( !varint(&p, end, &v) )
            abort();
        if ( (key & 7) == 2 )
        {
            if ( v > (uint64_t)(end - p) )
                abort();
            p += v;
        }
        else if ( (key & 7) != 0 )
            abort();
    }
}

static void check_trace(const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t n;

    while ( p < end )
    {
        if ( *p++ != (1 << 3 | 2) || !varint(&p, end, &n) ||
             n > (uint64_t)(end - p) )
            abort();
        check_fields(p, p + n);
        p += n;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct view_filter f = { .classes = VIEW_ALL };
    struct xt_reader *r = xt_reader_open_mem(data, size, 0);
    char why[128], *buf = NULL;
    size_t len = 0;
    static const struct cli no_options;
    uint64_t hz;
    FILE *out;
    int ret;

    if ( !r )
        return 0;
    /* The file's frequency or the default, or the one -H would give. */
    hz = size & 2 ? 1000 : cli_tsc_hz(&no_options, xt_reader_info(r), NULL);
    if ( size & 1 )
    {
        if ( !view_parse_domains(&f, "1,3-4", why, sizeof(why)) ||
             !view_parse_cpus(&f, "0-1", why, sizeof(why)) ||
             !view_parse_classes(&f, "sched,hvm", VIEW_ALL, why,
                                 sizeof(why)) )
            abort();
        const struct cli window = {
            .from = { .given = true, .seconds = 0.0001 },
            .to = { .given = true, .seconds = 0.5 },
        };

        cli_window(&window, r, hz, &f.from, &f.to);
    }
    out = open_memstream(&buf, &len);
    if ( !out )
        abort();
    ret = perfetto_export(r, out, &f, hz);
    if ( fclose(out) )
        abort();
    if ( ret == 0 )
        check_trace((const uint8_t *)buf, len);
    free(buf);
    view_filter_free(&f);
    xt_reader_close(r);
    return 0;
}
