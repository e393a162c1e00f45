/*
 * libFuzzer target: any bytes as a trace file.  The reader must neither
 * crash nor read out of bounds (ASan, UBSan), and what it says must hold
 * together: every iterator, of records and of batches, gives the records the
 * index counted, a streamed reader of the same bytes says what the
 * indexed one says, and so does xentrace-summary's tally, which walks two
 * batches at once, and counts every record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"
#include "reader_cpu.h"
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
    while ( xt_iter_next(it, &rec) > 0 )
    {
        xt_record_format(&rec, text, sizeof(text));
        xt_record_format(&rec, text, 16);
        xt_record_lost(&rec, &lost);
        n++;
    }
    xt_iter_free(it);
    return n;
}

/* Every batch of @r in @order (for @cpu), each whole records; theirs. */
static uint64_t walk_batches(struct xt_reader *r, enum xt_order order,
                             unsigned int cpu)
{
    struct xt_iter *it = xt_iter_new(r, order, cpu, 0);
    struct xt_batch b;
    uint64_t n = 0;
    size_t at;
    int got;

    if ( !it )
        abort();
    while ( (got = xt_iter_batch(it, &b)) > 0 )
    {
        for ( at = 0; at < b.len; at += xt_record_words(b.words[at]) )
        {
            uint32_t event = TRC_HD_TO_EVENT(b.words[at]);

            n += event != TRC_TRACE_WRAP_BUFFER &&
                 event != TRC_TRACE_CPU_CHANGE;
        }
        if ( at != b.len || ((uintptr_t)b.words & 3) )
            abort();
    }
    if ( got )
        abort();
    xt_iter_free(it);
    return n;
}

/* @data streamed in @order, against @r indexed. */
static void compare_stream(struct xt_reader *r, const uint8_t *data,
                           size_t size, enum xt_order order)
{
    struct xt_reader *st = xt_reader_open_mem(data, size, XT_READ_STREAM);
    const struct xt_reader_info *a = xt_reader_info(r), *b;
    char wa[256], wb[256];
    const char *da, *db;
    unsigned int i;

    if ( !st )
        abort();
    b = xt_reader_info(st);
    if ( walk(st, order, 0, 0) != a->records + a->metadata + a->dom0_events +
                                  a->dom0_lost_markers )
        abort();
    da = xt_reader_damage(r, wa, sizeof(wa));
    db = xt_reader_damage(st, wb, sizeof(wb));
    if ( (da == NULL) != (db == NULL) || (da && strcmp(da, db)) ||
         a->end != b->end || a->damage != b->damage ||
         a->damage_offset != b->damage_offset || a->missing != b->missing ||
         a->skipped != b->skipped || a->batches != b->batches ||
         a->nr_cpus != b->nr_cpus || a->max_cpu != b->max_cpu ||
         a->records != b->records || a->metadata != b->metadata ||
         a->dom0_events != b->dom0_events || a->dom0_lost != b->dom0_lost ||
         a->dom0_lost_markers != b->dom0_lost_markers ||
         a->pads != b->pads ||
         a->lost_records != b->lost_records )
        abort();
    for ( i = 0; i < a->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ca = xt_reader_cpu(r, i);
        const struct xt_cpu_info *cb = cpu_info(st, ca->cpu);

        if ( !cb || ca->batches != cb->batches || ca->bytes != cb->bytes ||
             ca->has_tsc != cb->has_tsc || ca->first_tsc != cb->first_tsc ||
             ca->last_tsc != cb->last_tsc )
            abort();
    }
    xt_reader_close(st);
}

/*
 * The tally of @r against its counts: Xen's records, not the metadata, on
 * Xen's CPUs, not dom0's lanes (whatever a damaged file has put in them).
 */
static void compare_tally(struct xt_reader *r)
{
    const struct xt_reader_info *a = xt_reader_info(r);
    unsigned int i, lanes = 0;
    uint64_t in_lanes = 0;
    struct tally t;

    for ( i = 0; i < a->nr_cpus; i++ )
        if ( xt_reader_is_dom0_lane(r, xt_reader_cpu(r, i)->cpu) )
        {
            lanes++;
            in_lanes += xt_reader_cpu(r, i)->records;
        }
    if ( tally_run(&t, r, 7, 0) )
        abort();
    if ( t.total.records != a->records - in_lanes ||
         t.nr_cpus != a->nr_cpus - lanes )
        abort();
    for ( i = 0; i < t.nr_cpus; i++ )
        if ( t.cpus[i].total.records != cpu_info(r, t.cpus[i].cpu)->records )
            abort();
    tally_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xt_reader *r = xt_reader_open_mem(data, size, 0);
    const struct xt_reader_info *in;
    char warn[256];
    uint64_t given, per_cpu = 0;
    unsigned int i;

    if ( !r )
    {
        /* Refused indexed, refused streamed. */
        if ( xt_reader_open_mem(data, size, XT_READ_STREAM) )
            abort();
        return 0;
    }
    in = xt_reader_info(r);
    xt_reader_damage(r, warn, sizeof(warn));
    /* Iterators give the metadata and dom0's events too: all but CPU
       changes and pads. */
    given = in->records + in->metadata + in->dom0_events +
            in->dom0_lost_markers;
    if ( walk(r, XT_ORDER_TSC, 0, 0) != given ||
         walk(r, XT_ORDER_FILE, 0, 0) != given ||
         walk(r, XT_ORDER_TSC, 0, XT_ITER_SPECIAL) <
             given + in->pads + in->batches )
        abort();
    for ( i = 0; i < in->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        /* gzip is streamed: no per-CPU order. */
        if ( !in->gzip &&
             walk_batches(r, XT_ORDER_CPU, ci->cpu) !=
                 walk(r, XT_ORDER_CPU, ci->cpu, 0) )
            abort();
        if ( !in->gzip )
            per_cpu += walk(r, XT_ORDER_CPU, ci->cpu, 0);
    }
    if ( !in->gzip && per_cpu != given )
        abort();
    if ( walk_batches(r, XT_ORDER_FILE, 0) != given )
        abort();
    compare_stream(r, data, size, XT_ORDER_FILE);
    compare_stream(r, data, size, XT_ORDER_TSC);
    compare_tally(r);
    xt_reader_close(r);
    return 0;
}
