/*
 * libFuzzer target: any bytes as a trace file.  The reader must neither
 * crash nor read out of bounds (ASan, UBSan), and what it says must hold
 * together: every iterator gives the records the index counted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xtread.h"

static uint64_t walk(struct xt_reader *r, enum xt_order order,
                     unsigned int cpu, unsigned int flags)
{
    struct xt_iter *it = xt_iter_new(r, order, cpu, flags);
    struct xt_record rec;
    struct xt_lost lost;
    char text[XT_RECORD_FORMAT_MAX];
    uint64_t n = 0;

    if ( !it )
        abort();
    while ( xt_iter_next(it, &rec) )
    {
        xt_record_format(&rec, text, sizeof(text));
        xt_record_format(&rec, text, 16);
        xt_record_lost(&rec, &lost);
        n++;
    }
    xt_iter_free(it);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xt_reader *r = xt_reader_open_mem(data, size, 0);
    const struct xt_reader_info *in;
    char warn[256];
    uint64_t per_cpu = 0;
    unsigned int i;

    if ( !r )
        return 0;
    in = xt_reader_info(r);
    xt_reader_damage(r, warn, sizeof(warn));
    if ( walk(r, XT_ORDER_TSC, 0, 0) != in->records ||
         walk(r, XT_ORDER_FILE, 0, 0) != in->records ||
         walk(r, XT_ORDER_TSC, 0, XT_ITER_SPECIAL) <
             in->records + in->pads + in->batches )
        abort();
    for ( i = 0; i < in->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        if ( xt_reader_cpu_by_id(r, ci->cpu) != ci )
            abort();
        per_cpu += walk(r, XT_ORDER_CPU, ci->cpu, 0);
    }
    if ( per_cpu != in->records )
        abort();
    xt_reader_close(r);
    return 0;
}
