/*
 * merge: records merged by TSC from the batches in place (merge.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

#define TSC_FLAG    0x80000000u
#define EVENT_MASK  0x0fffffffu
#define NO_BATCH    UINT64_MAX

/* A CPU's place in its records: the batch it is in, and the record. */
struct cursor {
    unsigned int cpu;
    uint64_t batch;             /* index, NO_BATCH at the end */
    const uint32_t *w;
    size_t len, i;
    uint64_t offset;            /* of w[0] in the input */
    uint32_t *copy;             /* the batch's words, if not in place */
    uint64_t tsc;               /* of its next record */
};

struct merge {
    struct xt_reader *r;
    uint32_t xen_version;       /* for every record (xt_reader_xen_version()) */
    struct merge_sync sync[MERGE_MAX_SYNC];
    unsigned int nr_sync;
    struct cursor *run;         /* yielding its records up to a sync one */
    uint64_t *next;             /* per batch: the next batch of its CPU */
    unsigned int nr;            /* cursors in the heap */
    struct cursor *cursors;
    struct cursor **heap;       /* by (tsc, cpu) */
};

static bool before(const struct cursor *a, const struct cursor *b)
{
    return a->tsc < b->tsc || (a->tsc == b->tsc && a->cpu < b->cpu);
}

static void sift_down(struct merge *g, unsigned int i)
{
    struct cursor *c = g->heap[i];

    for ( ;; )
    {
        unsigned int k = 2 * i + 1;

        if ( k >= g->nr )
            break;
        if ( k + 1 < g->nr && before(g->heap[k + 1], g->heap[k]) )
            k++;
        if ( !before(g->heap[k], c) )
            break;
        g->heap[i] = g->heap[k];
        i = k;
    }
    g->heap[i] = c;
}

/* The TSC of @c's record at @c->i: its own, or the last one's. */
static void peek_tsc(struct cursor *c)
{
    const uint32_t *w = c->w + c->i;

    if ( w[0] & TSC_FLAG )
        memcpy(&c->tsc, w + 1, sizeof(c->tsc));
}

/* Start @c on batch @i; -1 with ENOMEM. */
static int enter_batch(struct merge *g, struct cursor *c, uint64_t i)
{
    struct xt_batch b;

    if ( xt_reader_batch(g->r, i, &b) <= 0 )
        return -1;
    c->batch = i;
    c->len = b.len;
    c->i = 0;
    c->offset = b.offset;
    c->w = b.words;
    if ( !b.in_place )
    {
        /* A copy the reader overwrites at its next call: keep our own. */
        uint32_t *copy = realloc(c->copy, (b.len ? b.len : 1) * 4);

        if ( !copy )
            return -1;
        memcpy(copy, b.words, b.len * 4);
        c->copy = copy;
        c->w = copy;
    }
    return 0;
}

/*
 * Move @c to a whole record that is not padding, entering its CPU's next
 * batches as needed: 1, 0 at the end of its records, -1 with ENOMEM.
 */
static inline int settle(struct merge *g, struct cursor *c)
{
    for ( ;; )
    {
        uint64_t next;

        while ( c->i < c->len )
        {
            uint32_t hdr = c->w[c->i];
            unsigned int n = xt_record_words(hdr);

            if ( n > c->len - c->i )
                break;              /* damage: the batch ends here */
            if ( (hdr & EVENT_MASK) != TRC_TRACE_WRAP_BUFFER )
            {
                peek_tsc(c);
                return 1;
            }
            c->i += n;
        }
        xt_reader_walked(g->r, c->batch, c->i);
        next = g->next[c->batch];
        if ( next == NO_BATCH )
            return 0;
        if ( enter_batch(g, c, next) )
            return -1;
    }
}

static inline bool is_sync(const struct merge *g, uint32_t event)
{
    unsigned int i;

    for ( i = 0; i < g->nr_sync; i++ )
        if ( (event & g->sync[i].mask) == g->sync[i].value )
            return true;
    return false;
}

struct merge *merge_new(struct xt_reader *r, const struct merge_sync *sync)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    struct merge *g = calloc(1, sizeof(*g));
    uint64_t *last = NULL, i;
    struct xt_batch b;
    unsigned int k;
    int got;

    if ( !g )
        return NULL;
    g->r = r;
    g->xen_version = xt_reader_xen_version(r);
    while ( g->nr_sync < MERGE_MAX_SYNC && sync[g->nr_sync].mask )
    {
        g->sync[g->nr_sync] = sync[g->nr_sync];
        g->nr_sync++;
    }
    g->cursors = calloc(info->nr_cpus ? info->nr_cpus : 1,
                        sizeof(*g->cursors));
    g->heap = calloc(info->nr_cpus ? info->nr_cpus : 1, sizeof(*g->heap));
    g->next = malloc((info->batches ? info->batches : 1) * sizeof(*g->next));
    last = malloc((info->nr_cpus ? info->nr_cpus : 1) * sizeof(*last));
    if ( !g->cursors || !g->heap || !g->next || !last )
        goto fail;
    for ( k = 0; k < info->nr_cpus; k++ )
    {
        g->cursors[k] = (struct cursor){
            .cpu = xt_reader_cpu(r, k)->cpu, .batch = NO_BATCH,
        };
        last[k] = NO_BATCH;
    }
    /* Chain each CPU's batches, in file order. */
    for ( i = 0; i < info->batches && (got = xt_reader_batch(r, i, &b)) > 0;
          i++ )
    {
        g->next[i] = NO_BATCH;
        if ( last[b.cpu_index] == NO_BATCH )
            g->cursors[b.cpu_index].batch = i;
        else
            g->next[last[b.cpu_index]] = i;
        last[b.cpu_index] = i;
    }
    for ( k = 0; k < info->nr_cpus; k++ )
    {
        struct cursor *c = &g->cursors[k];
        int s;

        if ( c->batch == NO_BATCH )
            continue;
        if ( enter_batch(g, c, c->batch) || (s = settle(g, c)) < 0 )
            goto fail;
        if ( s )
            g->heap[g->nr++] = c;
    }
    free(last);
    for ( k = g->nr / 2; k-- > 0; )
        sift_down(g, k);
    return g;

fail:
    free(last);
    merge_free(g);
    errno = ENOMEM;
    return NULL;
}

int merge_next(struct merge *g, struct xt_record *rec)
{
    struct cursor *c = g->run;
    const uint32_t *w;
    unsigned int n, head, i;
    int s;

    /*
     * The heap's top is the CPU whose next sync record (or, at first, its
     * next record) is earliest.  It runs: its records up to its next sync
     * record, which then keys it in the heap again.
     */
    if ( !c )
    {
        if ( !g->nr )
            return 0;
        c = g->run = g->heap[0];
    }
    w = c->w + c->i;
    n = xt_record_words(w[0]);
    head = w[0] & TSC_FLAG ? 3 : 1;
    rec->offset = c->offset + 4 * c->i;
    rec->tsc = c->tsc;
    rec->event = w[0] & EVENT_MASK;
    rec->cpu = c->cpu;
    rec->has_tsc = head == 3;
    rec->nr_extra = n - head;
    rec->xen_version = g->xen_version;
    /* Seven words at once where the batch has them: a fixed-size copy. */
    if ( c->len - c->i >= head + 7 )
        memcpy(rec->extra, w + head, sizeof(rec->extra));
    else
        for ( i = 0; i < rec->nr_extra; i++ )
            rec->extra[i] = w[head + i];
    for ( i = rec->nr_extra; i < 7; i++ )
        rec->extra[i] = 0;
    c->i += n;
    if ( (s = settle(g, c)) < 0 )
        return -1;
    if ( !s )
    {
        g->heap[0] = g->heap[--g->nr];
        if ( g->nr )
            sift_down(g, 0);
        g->run = NULL;
    }
    else if ( is_sync(g, c->w[c->i]) )
    {
        sift_down(g, 0);
        g->run = NULL;
    }
    return 1;
}

void merge_free(struct merge *g)
{
    unsigned int k;

    if ( !g )
        return;
    for ( k = 0; g->cursors && k < xt_reader_info(g->r)->nr_cpus; k++ )
        free(g->cursors[k].copy);
    free(g->cursors);
    free(g->heap);
    free(g->next);
    free(g);
}
