/*
 * libFuzzer target: any bytes as a trace file.  The reader must neither
 * crash nor read out of bounds (ASan, UBSan), and what it says must hold
 * together: every iterator gives the records the index counted, and a
 * reader opened with XT_READ_BATCHES, once its batches are walked, says
 * what the indexing reader says; so does xentrace-summary's tally, which
 * walks two batches at once, and counts every record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"
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

/* Walk every batch of @r as xentrace-summary does; its records. */
static uint64_t walk_batches(struct xt_reader *r)
{
    struct xt_batch b;
    uint64_t i, n = 0;
    int got;

    for ( i = 0; (got = xt_reader_batch(r, i, &b)) > 0; i++ )
    {
        size_t w = 0;

        if ( xt_reader_cpu(r, b.cpu_index)->cpu != b.cpu )
            abort();
        while ( w < b.len && xt_record_words(b.words[w]) <= b.len - w )
        {
            uint32_t event = b.words[w] & 0x0fffffffu;

            n += event != TRC_TRACE_WRAP_BUFFER && event != TRC_TRACE_CPU_CHANGE;
            w += xt_record_words(b.words[w]);
        }
        xt_reader_walked(r, i, w);
        xt_reader_walked(r, i, 0);      /* once per batch counts */
    }
    if ( got < 0 || i != xt_reader_info(r)->batches )
        abort();
    return n;
}

/* @lazy, opened with XT_READ_BATCHES and walked, against @r. */
static void compare(struct xt_reader *r, struct xt_reader *lazy)
{
    const struct xt_reader_info *a = xt_reader_info(r);
    const struct xt_reader_info *b = xt_reader_info(lazy);
    char wa[256], wb[256];
    const char *da, *db;
    unsigned int i;

    if ( walk_batches(lazy) != a->records )
        abort();
    da = xt_reader_damage(r, wa, sizeof(wa));
    db = xt_reader_damage(lazy, wb, sizeof(wb));
    if ( (da == NULL) != (db == NULL) || (da && strcmp(da, db)) ||
         a->size != b->size || a->end != b->end || a->damage != b->damage ||
         a->damage_offset != b->damage_offset || a->missing != b->missing ||
         a->batches != b->batches || a->nr_cpus != b->nr_cpus ||
         a->max_cpu != b->max_cpu || b->records || b->pads )
        abort();
    for ( i = 0; i < a->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ca = xt_reader_cpu(r, i);
        const struct xt_cpu_info *cb = xt_reader_cpu(lazy, i);

        if ( ca->cpu != cb->cpu || ca->batches != cb->batches ||
             ca->bytes != cb->bytes || ca->has_tsc != cb->has_tsc ||
             ca->first_tsc != cb->first_tsc || ca->last_tsc != cb->last_tsc )
            abort();
    }
    if ( xt_iter_new(lazy, XT_ORDER_FILE, 0, 0) )
        abort();
}

/* The tally of @lazy, opened with XT_READ_BATCHES, against @r. */
static void compare_tally(struct xt_reader *r, struct xt_reader *lazy)
{
    const struct xt_reader_info *a = xt_reader_info(r);
    const struct xt_reader_info *b = xt_reader_info(lazy);
    struct tally t;
    unsigned int i;

    if ( tally_run(&t, lazy, 7, 0) )
        abort();
    if ( t.total.records != a->records || t.nr_cpus != a->nr_cpus ||
         b->damage != a->damage || b->damage_offset != a->damage_offset )
        abort();
    for ( i = 0; i < t.nr_cpus; i++ )
        if ( t.cpus[i].total.records != xt_reader_cpu(r, i)->records )
            abort();
    tally_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xt_reader *r = xt_reader_open_mem(data, size, 0), *lazy;
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
    lazy = xt_reader_open_mem(data, size, XT_READ_BATCHES);
    if ( !lazy )
        abort();
    compare(r, lazy);
    xt_reader_close(lazy);
    lazy = xt_reader_open_mem(data, size, XT_READ_BATCHES);
    if ( !lazy )
        abort();
    compare_tally(r, lazy);
    xt_reader_close(lazy);
    xt_reader_close(r);
    return 0;
}
