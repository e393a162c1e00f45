/*
 * merge: records in an order that keeps what matters of TSC order, for
 * the model (merge.h).
 *
 * On an indexed reader, with a sync list, each CPU has a cursor on its
 * batches in place (an XT_ORDER_CPU iterator's xt_iter_batch()).  The CPU whose next sync
 * record is earliest runs: it hands out that record and its records after
 * it, up to its next sync record, whose TSC then keys it in a tournament
 * of the CPUs again.  So the compares are per sync record, not per
 * record, and each run of records is read where it lies, a CPU at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "tournament.h"

#define PREFETCH_WORDS  128              /* 256 bytes ahead */
#define CLASS_OF(event) (((event) >> 16) & 0xfffu)  /* with the subclass */
#define CLASS_MASK      0x0fff0000u

/* A CPU's place in its records. */
struct cursor {
    const uint32_t *w;          /* its batch's words */
    size_t len, i;              /* words; the next record */
    uint64_t offset;            /* of w[0] in the input */
    struct xt_iter *it;         /* its CPU's batches */
    uint64_t tsc;               /* of its last record with one */
    unsigned int cpu;
    bool at_sync;               /* keyed by the sync record at @i */
};

struct merge {
    struct xt_iter *it;         /* the reader's merge by TSC, or NULL */
    struct xt_reader *r;
    uint32_t xen_version;
    struct merge_sync sync[MERGE_MAX_SYNC];
    unsigned int nr_sync;
    /*
     * The classes (with subclass) of the sync records, where every entry
     * names its class (its mask covers CLASS_MASK): a record of another
     * class is not one, at one test; !@by_class: the entries are tried.
     */
    bool by_class;
    uint8_t sync_class[(CLASS_OF(CLASS_MASK) + 1) / 8];
    unsigned int nr;            /* cursors */
    struct cursor *cursors;
    struct tournament tree;     /* of the cursors, by their sync record */
    unsigned int run;           /* the cursor handing out records */
};

static bool is_sync(const struct merge *g, uint32_t event)
{
    unsigned int i, cls = CLASS_OF(event);

    if ( g->by_class && !(g->sync_class[cls / 8] & 1u << cls % 8) )
        return false;
    for ( i = 0; i < g->nr_sync; i++ )
        if ( (event & g->sync[i].mask) == g->sync[i].value )
            return true;
    return false;
}

/*
 * Put @c on its next record that is not a pad or CPU change, entering its
 * CPU's next batches as needed: 1, 0 at its end, -1 with errno.
 */
static int settle(struct cursor *c)
{
    for ( ;; )
    {
        struct xt_batch b;
        int got;

        while ( c->i < c->len )
        {
            uint32_t hdr = c->w[c->i];
            uint32_t ev = TRC_HD_TO_EVENT(hdr);

            if ( xt_record_words(hdr) > c->len - c->i )
                break;
            if ( ev != TRC_TRACE_WRAP_BUFFER && ev != TRC_TRACE_CPU_CHANGE )
                return 1;
            if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) && c->len - c->i >= 3 )
                memcpy(&c->tsc, c->w + c->i + 1, sizeof(c->tsc));
            c->i += xt_record_words(hdr);
        }
        if ( (got = xt_iter_batch(c->it, &b)) <= 0 )
            return got;
        c->w = b.words;
        c->len = b.len;
        c->i = 0;
        c->offset = b.offset;
    }
}

/* @slot has the new key @key: the slot to run next (g->nr: none). */
static unsigned int replay(struct merge *g, unsigned int slot,
                           tournament_key key)
{
    tournament_set(&g->tree, slot, key);
    return tournament_over(&g->tree) ? g->nr : tournament_source(&g->tree);
}

/* Every CPU first hands out its records before its first sync one. */
static tournament_key first_key(void *g, unsigned int slot)
{
    (void)g;
    return tournament_key_of(0, slot);
}

/*
 * A cursor per CPU, on its batches: 0, or -1 with errno (ESPIPE: @r is a
 * stream, which has no CPU order).
 */
static int merge_start(struct merge *g, struct xt_reader *r)
{
    struct xt_iter *cpu_order = xt_iter_new(r, XT_ORDER_CPU, 0, 0);
    unsigned int s;

    /* Asked before the CPUs are: a stream may not have counted them. */
    if ( !cpu_order )
        return -1;
    xt_iter_free(cpu_order);
    g->nr = xt_reader_info(r)->nr_cpus;
    g->cursors = calloc(g->nr ? g->nr : 1, sizeof(*g->cursors));
    if ( !g->cursors )
        return -1;
    for ( s = 0; s < g->nr; s++ )
    {
        g->cursors[s].cpu = xt_reader_cpu(r, s)->cpu;
        g->cursors[s].it = xt_iter_new(r, XT_ORDER_CPU, g->cursors[s].cpu, 0);
        if ( !g->cursors[s].it )
            return -1;
    }
    if ( tournament_start(&g->tree, g->nr, first_key, g) )
    {
        errno = ENOMEM;
        return -1;
    }
    g->run = tournament_over(&g->tree) ? g->nr : tournament_source(&g->tree);
    return 0;
}

static void merge_stop(struct merge *g)
{
    unsigned int s;

    for ( s = 0; g->cursors && s < g->nr; s++ )
        xt_iter_free(g->cursors[s].it);
    free(g->cursors);
    g->cursors = NULL;
    tournament_free(&g->tree);
}

struct merge *merge_new(struct xt_reader *r, const struct merge_sync *sync)
{
    struct merge *g = calloc(1, sizeof(*g));

    if ( !g )
        return NULL;
    g->r = r;
    g->xen_version = xt_reader_xen_version(r);
    g->by_class = true;
    while ( sync && g->nr_sync < MERGE_MAX_SYNC && sync[g->nr_sync].mask )
    {
        unsigned int cls = CLASS_OF(sync[g->nr_sync].value);

        g->sync[g->nr_sync] = sync[g->nr_sync];
        g->sync_class[cls / 8] |= 1u << cls % 8;
        if ( (sync[g->nr_sync].mask & CLASS_MASK) != CLASS_MASK )
            g->by_class = false;
        g->nr_sync++;
    }
    if ( sync && !merge_start(g, r) )
        return g;
    if ( sync && errno != ESPIPE )
    {
        merge_free(g);
        return NULL;
    }
    /* A stream (gzip) has no CPU order: its merge by TSC is the order. */
    merge_stop(g);
    if ( !(g->it = xt_iter_new(r, XT_ORDER_TSC, 0, 0)) )
    {
        free(g);
        return NULL;
    }
    return g;
}

/* Four words, moved and masked as one (GNU C's vectors). */
typedef uint32_t words4 __attribute__((vector_size(16)));

/*
 * The 7 words at @w into @extra, those from @n on as 0: words 0-3 and
 * 3-6 as two vectors, each masked by a window on @keep (word i is kept
 * under an all-ones word if i < @n), where a loop of seven would move a
 * word at a time.
 */
static inline void copy_extra(uint32_t *extra, const uint32_t *w,
                              unsigned int n)
{
    static const uint32_t keep[14] = {
        ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0, 0, 0, 0, 0, 0, 0,
    };
    words4 lo, hi, keep_lo, keep_hi;

    memcpy(&lo, w, sizeof(lo));
    memcpy(&hi, w + 3, sizeof(hi));
    memcpy(&keep_lo, keep + 7 - n, sizeof(keep_lo));
    memcpy(&keep_hi, keep + 10 - n, sizeof(keep_hi));
    lo &= keep_lo;
    hi &= keep_hi;
    memcpy(extra, &lo, sizeof(lo));
    memcpy(extra + 3, &hi, sizeof(hi));
}

/* The record at @c into @rec, and @c past it. */
static void take(const struct merge *g, struct cursor *c, unsigned int slot,
                 struct xt_record *rec)
{
    const uint32_t *w = c->w + c->i;
    unsigned int n = xt_record_words(w[0]), head = 1, i;

    /*
     * The file was last read at open: bring its next lines in while this
     * record is taken (a CPU's run is short, so the hardware's prefetch
     * does not learn it).
     */
    __builtin_prefetch(w + PREFETCH_WORDS);
    rec->offset = c->offset + 4 * c->i;
    rec->event = TRC_HD_TO_EVENT(w[0]);
    rec->cpu = c->cpu;
    rec->cpu_index = slot;
    rec->has_tsc = TRC_HD_INCLUDES_CYCLE_COUNT(w[0]);
    rec->xen_version = g->xen_version;
    if ( rec->has_tsc )
    {
        memcpy(&c->tsc, w + 1, sizeof(c->tsc));
        head = 3;
    }
    rec->tsc = c->tsc;
    rec->nr_extra = n - head;
    /* Seven words at once where the batch has them, the rest masked. */
    if ( c->len - c->i >= head + 7 )
        copy_extra(rec->extra, w + head, rec->nr_extra);
    else
        for ( i = 0; i < 7; i++ )
            rec->extra[i] = i < rec->nr_extra ? w[head + i] : 0;
    c->i += n;
}

int merge_next(struct merge *g, struct xt_record *rec)
{
    if ( g->it )
        return xt_iter_next(g->it, rec);
    while ( g->run < g->nr )
    {
        unsigned int slot = g->run;
        struct cursor *c = &g->cursors[slot];
        uint32_t hdr;
        int got = settle(c);

        if ( got < 0 )
            return -1;
        if ( !got )
        {
            g->run = replay(g, slot, TOURNAMENT_DONE | slot);
            continue;
        }
        hdr = c->w[c->i];
        if ( is_sync(g, TRC_HD_TO_EVENT(hdr)) )
        {
            if ( !c->at_sync )
            {
                uint64_t tsc = c->tsc;

                if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
                    memcpy(&tsc, c->w + c->i + 1, sizeof(tsc));
                c->at_sync = true;
                g->run = replay(g, slot, tournament_key_of(tsc, slot));
                continue;
            }
            c->at_sync = false;
        }
        take(g, c, slot, rec);
        return 1;
    }
    return 0;
}

void merge_free(struct merge *g)
{
    if ( !g )
        return;
    xt_iter_free(g->it);
    merge_stop(g);
    free(g);
}
