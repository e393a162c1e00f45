/*
 * tally: one pass over a trace file's records (tally.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"
#include "hashtab.h"
#include "tally.h"
#include "tsc.h"

#define MAX_EVENTS          (1u << 16)

/* What a record of an event takes, beyond being counted. */
enum kind {
    KIND_COUNT,                 /* nothing */
    KIND_SKIP,                  /* not even that: pads, CPU changes */
    KIND_LOST,                  /* TRC_LOST_RECORDS */
    KIND_META,                  /* xentrace-ng's: in its event's row, not
                                   in a CPU's records nor in the rate */
};

static uint32_t hash32(uint32_t x)
{
    return x * 0x9e3779b1u;
}

/* The events by id, in tools/common's hash table. */
static uint64_t event_id(const void *base, unsigned int i)
{
    return ((const struct tally_event *)base)[i].id;
}

static uint64_t event_hash(const void *base, unsigned int i)
{
    return hashtab_hash(event_id(base, i));
}

static int event_index(struct tally *t, uint32_t id)
{
    unsigned int s;

    if ( hashtab_fit(&t->by_id, t->nr_events + 1, t->events, event_hash) )
        return -1;
    s = hashtab_find(&t->by_id, id, t->events, event_id);
    if ( hashtab_index(&t->by_id, s) )
        return hashtab_index(&t->by_id, s) - 1;
    if ( t->nr_events == MAX_EVENTS )
        return -1;
    if ( array_fit(&t->events, &t->events_cap, t->nr_events + 1,
                   sizeof(*t->events)) )
        return -1;
    t->events[t->nr_events] = (struct tally_event){
        .id = id, .class = xt_event_class(id), .first = UINT64_MAX,
    };
    hashtab_set(&t->by_id, s, t->nr_events);
    return t->nr_events++;
}

/*
 * Time bins
 */

/* Every array of bins: each CPU's, and the losses'. */
static uint64_t *bin_array(void *arg, unsigned int i, size_t *width)
{
    struct tally *t = arg;

    *width = 1;
    if ( i < t->nr_cpus )
    {
        /* Its bin's TSCs are about to change: find them again. */
        t->cpus[i].bin_start = t->cpus[i].bin_end = 0;
        return t->cpus[i].bins;
    }
    i -= t->nr_cpus;
    return i == 0 ? t->lost_in_bin : i == 1 ? t->marker_starts :
           i == 2 ? t->marker_ends : NULL;
}

/* The bin of @tsc, made to cover it. */
static unsigned int bin_at(struct tally *t, uint64_t tsc)
{
    return timebins_at(&t->time, tsc, bin_array, t);
}

static void note_first_tsc(struct tally_cpu *c)
{
    if ( c->first_tsc == TALLY_NO_TSC )
        c->first_tsc = c->tsc;
}

/*
 * Count @c's record at c->tsc in its bin, where it is not in the one
 * @c's last record was.  Before @c's first TSC it is untimed.
 */
static void bin_slow(struct tally *t, struct tally_cpu *c)
{
    if ( c->tsc == TALLY_NO_TSC )
    {
        c->untimed++;
        return;
    }
    note_first_tsc(c);
    c->bin = bin_at(t, c->tsc);
    timebins_bounds(&t->time, c->bin, &c->bin_start, &c->bin_end);
    c->bins[c->bin]++;
}

/*
 * The TRC_LOST_RECORDS @rec, on @c at c->tsc: its counts, and its time
 * bins'.  The bins a marker's span covers are counted at its ends, and
 * summed up by tally_end(), so that a long loss costs no more than a short
 * one.  A span that says it starts before @c's first TSC starts there,
 * so that a bad first-lost TSC cannot stretch the bins.
 */
static int lost_records(struct tally *t, struct tally_cpu *c,
                        const struct xt_record *rec)
{
    struct xt_lost lost;
    uint64_t from;
    unsigned int first, last;

    if ( !xt_record_lost(rec, &lost) )
        return 0;
    c->lost_markers++;
    c->lost_records += lost.count;
    if ( c->tsc == TALLY_NO_TSC )
    {
        t->untimed_losses.records += lost.count;
        t->untimed_losses.markers++;
        return 0;
    }
    note_first_tsc(c);
    c->lost_ticks += c->tsc > lost.first_tsc ? c->tsc - lost.first_tsc : 0;
    from = lost.first_tsc < c->first_tsc ? c->first_tsc :
           lost.first_tsc > c->tsc ? c->tsc : lost.first_tsc;
    bin_at(t, from);
    last = bin_at(t, c->tsc);
    first = timebins_index(&t->time, from) - t->time.lo;
    t->lost_in_bin[last] += lost.count;
    t->marker_starts[first]++;
    t->marker_ends[last]++;
    return 0;
}

/* @t's CPU of the reader's @index, added (with those before) if new. */
static struct tally_cpu *cpu_at(struct tally *t, unsigned int index)
{
    if ( index < t->nr_cpus )
        return &t->cpus[index];
    if ( array_fit(&t->cpus, &t->cpus_cap, index + 1, sizeof(*t->cpus)) )
        return NULL;
    for ( ; t->nr_cpus <= index; t->nr_cpus++ )
    {
        struct tally_cpu *c = &t->cpus[t->nr_cpus];

        *c = (struct tally_cpu){
            .cpu = xt_reader_cpu(t->reader, t->nr_cpus)->cpu,
            .tsc = TALLY_NO_TSC, .first_tsc = TALLY_NO_TSC,
            .bins = calloc(t->time.max, sizeof(uint64_t)),
        };
        if ( !c->bins )
            return NULL;
    }
    return &t->cpus[index];
}

/* What the pass needs, and the CPUs an indexed reader knows already. */
static int setup(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
                 uint64_t hz)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    unsigned int i;

    memset(t, 0, sizeof(*t));
    t->reader = r;
    t->info = info;
    t->dom0 = xt_reader_dom0(r);
    t->seen = malloc(sizeof(*t->seen) << TALLY_SEEN_BITS);
    if ( !t->seen )
        return -1;
    for ( i = 0; i < 1u << TALLY_SEEN_BITS; i++ )
        t->seen[i].id = t->seen[i].count_id = TALLY_SEEN_NONE;
    t->hz = hz ? hz : CLI_DEFAULT_HZ;
    t->time.max = nr_bins ? nr_bins : 1;
    t->lost_in_bin = calloc(t->time.max, sizeof(uint64_t));
    t->marker_starts = calloc(t->time.max, sizeof(uint64_t));
    t->marker_ends = calloc(t->time.max, sizeof(uint64_t));
    if ( !t->lost_in_bin || !t->marker_starts || !t->marker_ends )
        return -1;
    if ( info->nr_cpus && !cpu_at(t, info->nr_cpus - 1) )
        return -1;
    return 0;
}

static unsigned int seen_hash(uint32_t id)
{
    return hash32(id) >> (32 - TALLY_SEEN_BITS);
}

static enum kind kind_of(uint32_t id)
{
    if ( id == TRC_TRACE_WRAP_BUFFER || id == TRC_TRACE_CPU_CHANGE )
        return KIND_SKIP;
    if ( id == TRC_LOST_RECORDS )
        return KIND_LOST;
    if ( xt_is_metadata(id) )
        return KIND_META;
    return KIND_COUNT;
}

/* Make @id the event seen at its hash; NULL with ENOMEM. */
static const struct tally_seen *see(struct tally *t, uint32_t id)
{
    struct tally_seen *s = &t->seen[seen_hash(id)];
    enum kind kind = kind_of(id);
    int e = kind == KIND_SKIP ? 0 : event_index(t, id);

    if ( e < 0 )
        return NULL;
    *s = (struct tally_seen){
        .id = id, .index = e, .kind = kind,
        .count_id = kind == KIND_COUNT ? id : TALLY_SEEN_NONE,
    };
    return s;
}

/* The loss of the @n words at @w, @offset in the input, as a record. */
static int lost_at(struct tally *t, struct tally_cpu *c, const uint32_t *w,
                   unsigned int n, uint64_t offset)
{
    unsigned int head = TRC_HD_INCLUDES_CYCLE_COUNT(w[0]) ? 3 : 1, i;
    struct xt_record rec = {
        .offset = offset, .event = TRC_HD_TO_EVENT(w[0]), .tsc = c->tsc,
        .nr_extra = n - head,
    };

    for ( i = 0; i < rec.nr_extra; i++ )
        rec.extra[i] = w[head + i];
    return lost_records(t, c, &rec);
}

/* Make room in @c's counts for event @index; -1 with ENOMEM. */
static int grow_by_event(struct tally_cpu *c, uint32_t index)
{
    size_t cap = c->nr_by_event;

    if ( array_fit(&c->by_event, &cap, index + 1, sizeof(*c->by_event)) )
        return -1;
    c->nr_by_event = cap;
    return 0;
}

/*
 * Count a record of @n words at @offset, of event @index, on @c, and in
 * its time bin if @binned (Xen's records: not the metadata).
 */
static inline void count_record(struct tally *t, struct tally_cpu *c,
                                uint32_t index, unsigned int n,
                                uint64_t offset, bool binned)
{
    struct tally_count *e = &c->by_event[index];

    /* The first of its CPU's may be the first in the file. */
    if ( !e->records && offset < t->events[index].first )
        t->events[index].first = offset;
    e->records++;
    e->bytes += 4 * n;
    if ( !binned )
        return;
    if ( c->tsc - c->bin_start < c->bin_end - c->bin_start )
        c->bins[c->bin]++;
    else
        bin_slow(t, c);
}

/*
 * What a record of event @id needs before it is counted on @c: its
 * event's entry, and room for it in @c.  NULL with ENOMEM.
 */
static inline const struct tally_seen *seen_on(struct tally *t,
                                               struct tally_cpu *c,
                                               uint32_t id)
{
    const struct tally_seen *s = &t->seen[seen_hash(id)];

    if ( s->id != id && !(s = see(t, id)) )
        return NULL;
    if ( s->kind != KIND_SKIP && s->index >= c->nr_by_event &&
         grow_by_event(c, s->index) )
        return NULL;
    return s;
}

int tally_record(void *tally, const struct xt_record *rec)
{
    struct tally *t = tally;
    struct tally_cpu *c = cpu_at(t, rec->cpu_index);
    const struct tally_seen *s = &t->seen[seen_hash(rec->event)];
    unsigned int n = 1 + 2 * rec->has_tsc + rec->nr_extra;

    if ( !c )
        return -1;
    if ( xt_dom0_is_lane(t->dom0, rec->cpu) )
        return 0;                       /* not Xen's: counted on their own */
    if ( rec->has_tsc )
        c->tsc = rec->tsc;
    if ( s->count_id != rec->event || s->index >= c->nr_by_event )
    {
        if ( !(s = seen_on(t, c, rec->event)) )
            return -1;
        if ( s->kind == KIND_SKIP )
            return 0;
        if ( s->kind == KIND_LOST && lost_records(t, c, rec) )
            return -1;
    }
    count_record(t, c, s->index, n, rec->offset, s->kind != KIND_META);
    return 0;
}

/*
 * A batch being counted, by tally_run(), a record after another.  (Two
 * batches side by side, two chains of loads at once, were measured: no
 * faster, 227 against 214 ms of CPU for the plot of a 150 MiB trace.)
 */
struct lane {
    struct tally_cpu *c;
    const uint32_t *w;
    size_t len;
    size_t i;                   /* the next record */
    uint64_t offset;            /* of w[0] in the input */
};

enum step { STEP_ERROR = -1, STEP_END, STEP_ON };

/* step() for all but a known event of KIND_COUNT. */
static enum step step_slow(struct tally *t, struct lane *l)
{
    struct tally_cpu *c = l->c;
    const uint32_t *w = l->w + l->i;
    unsigned int n = xt_record_words(w[0]);
    const struct tally_seen *s = seen_on(t, c, TRC_HD_TO_EVENT(w[0]));
    uint64_t offset = l->offset + 4 * l->i;

    if ( !s )
        return STEP_ERROR;
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(w[0]) )
        memcpy(&c->tsc, w + 1, sizeof(c->tsc));
    if ( s->kind != KIND_SKIP )
        count_record(t, c, s->index, n, offset, s->kind != KIND_META);
    if ( s->kind == KIND_LOST && lost_at(t, c, w, n, offset) )
        return STEP_ERROR;
    l->i += n;
    return STEP_ON;
}

/*
 * Count @l's next record.  STEP_END at the end of its whole records.
 * Inline, so that the lane stays in registers.
 */
static inline __attribute__((always_inline)) enum step
step(struct tally *t, struct lane *l)
{
    struct tally_cpu *c = l->c;
    uint32_t hdr, id;
    unsigned int n;
    const struct tally_seen *s;

    if ( l->i >= l->len )
        return STEP_END;
    hdr = l->w[l->i];
    id = TRC_HD_TO_EVENT(hdr);
    n = xt_record_words(hdr);
    s = &t->seen[seen_hash(id)];
    if ( n > l->len - l->i )
        return STEP_END;
    if ( s->count_id != id || s->index >= c->nr_by_event )
        return step_slow(t, l);
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        memcpy(&c->tsc, l->w + l->i + 1, sizeof(c->tsc));
    count_record(t, c, s->index, n, l->offset + 4 * l->i, true);
    l->i += n;
    return STEP_ON;
}

/* Every batch in file order: 0, or -1 with errno. */
static int count_batches(struct tally *t, struct xt_iter *it)
{
    struct xt_batch b;
    int got;

    while ( (got = xt_iter_batch(it, &b)) > 0 )
    {
        struct lane l = {
            .c = cpu_at(t, b.cpu_index), .w = b.words, .len = b.len,
            .offset = b.offset,
        };
        enum step s;

        if ( !l.c )
            return -1;
        if ( xt_dom0_is_lane(t->dom0, b.cpu) )
            continue;                   /* not Xen's: counted on their own */
        while ( (s = step(t, &l)) == STEP_ON )
            ;
        if ( s == STEP_ERROR )
            return -1;
    }
    return got;
}

int tally_begin(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
                uint64_t hz)
{
    if ( setup(t, r, nr_bins, hz) )
    {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static int by_first(const void *pa, const void *pb)
{
    const struct tally_event *a = pa, *b = pb;

    return a->first < b->first ? -1 : a->first > b->first;
}

/*
 * The events in the order of their first record in the file, each CPU's
 * counts with them.
 */
static int put_in_order(struct tally *t)
{
    unsigned int e, i;
    uint32_t *was = malloc((t->nr_events ? t->nr_events : 1) * sizeof(*was));
    struct tally_count *by = malloc((t->nr_events ? t->nr_events : 1) *
                                    sizeof(*by));

    if ( !was || !by )
    {
        free(was);
        free(by);
        return -1;
    }
    /* @first is unique per event: keep the old index in @total for now. */
    for ( e = 0; e < t->nr_events; e++ )
        t->events[e].total.records = e;
    if ( t->nr_events > 1 )
        qsort(t->events, t->nr_events, sizeof(*t->events), by_first);
    for ( e = 0; e < t->nr_events; e++ )
    {
        was[e] = t->events[e].total.records;
        t->events[e].total.records = 0;
    }
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        struct tally_cpu *c = &t->cpus[i];

        for ( e = 0; e < t->nr_events; e++ )
            by[e] = was[e] < c->nr_by_event ? c->by_event[was[e]]
                                            : (struct tally_count){ 0 };
        if ( c->nr_by_event < t->nr_events &&
             grow_by_event(c, t->nr_events - 1) )
        {
            free(was);
            free(by);
            return -1;
        }
        if ( t->nr_events )
            memcpy(c->by_event, by, t->nr_events * sizeof(*by));
    }
    /* The hash of the events seen is of the old indices. */
    for ( e = 0; e < 1u << TALLY_SEEN_BITS; e++ )
        t->seen[e].id = t->seen[e].count_id = TALLY_SEEN_NONE;
    hashtab_free(&t->by_id);
    free(was);
    free(by);
    return 0;
}

static int by_number(const void *pa, const void *pb)
{
    const struct tally_cpu *a = pa, *b = pb;

    return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

/*
 * The bins' losses, from their counts per bin: a marker covers the bins
 * from the one it starts in to the one it ends in.  What came before any
 * TSC goes in the first bin.
 */
static int make_bin_losses(struct tally *t)
{
    uint64_t markers = 0;
    unsigned int b, i;

    if ( !t->time.nr )
        t->time.nr = 1;
    if ( !(t->bin_losses = calloc(t->time.nr, sizeof(*t->bin_losses))) )
        return -1;
    for ( b = 0; b < t->time.nr; b++ )
    {
        markers += t->marker_starts[b];
        t->bin_losses[b].records = t->lost_in_bin[b];
        t->bin_losses[b].markers = markers;
        markers -= t->marker_ends[b];
    }
    t->bin_losses[0].records += t->untimed_losses.records;
    t->bin_losses[0].markers += t->untimed_losses.markers;
    for ( i = 0; i < t->nr_cpus; i++ )
        t->cpus[i].bins[0] += t->cpus[i].untimed;
    free(t->lost_in_bin);
    free(t->marker_starts);
    free(t->marker_ends);
    t->lost_in_bin = t->marker_starts = t->marker_ends = NULL;
    return 0;
}

int tally_end(struct tally *t)
{
    unsigned int i, e;

    /* A stream's CPUs with batches but no records are known only now. */
    if ( (t->info->nr_cpus && !cpu_at(t, t->info->nr_cpus - 1)) ||
         put_in_order(t) || make_bin_losses(t) )
    {
        errno = ENOMEM;
        return -1;
    }
    /* A stream's CPUs came in the order they appeared. */
    if ( t->nr_cpus > 1 )
        qsort(t->cpus, t->nr_cpus, sizeof(*t->cpus), by_number);
    /* dom0's lanes are not Xen's CPUs (a damaged file may number them
       among them). */
    for ( i = e = 0; i < t->nr_cpus; i++ )
        if ( !xt_dom0_is_lane(t->dom0, t->cpus[i].cpu) )
            t->cpus[e++] = t->cpus[i];
        else
        {
            free(t->cpus[i].bins);
            free(t->cpus[i].by_event);
        }
    t->nr_cpus = e;
    /* A stream's range and origin are known only now. */
    cli_tsc_range(t->reader, &t->first_tsc, &t->last_tsc);
    t->origin = cli_origin(t->reader);
    t->bin_ticks = t->time.shift < 64 ? UINT64_C(1) << t->time.shift
                                     : UINT64_MAX;
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        struct tally_cpu *c = &t->cpus[i];

        for ( e = 0; e < c->nr_by_event && e < t->nr_events; e++ )
        {
            t->events[e].total.records += c->by_event[e].records;
            t->events[e].total.bytes += c->by_event[e].bytes;
            /* A CPU's records are Xen's (xtfile.h), not xentrace's. */
            if ( xt_is_metadata(t->events[e].id) )
                continue;
            c->total.records += c->by_event[e].records;
            c->total.bytes += c->by_event[e].bytes;
        }
        t->total.records += c->total.records;
        t->total.bytes += c->total.bytes;
    }
    return 0;
}

int tally_run(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
              uint64_t hz)
{
    struct xt_iter *it;
    int got;

    if ( tally_begin(t, r, nr_bins, hz) )
        return -1;
    if ( !(it = xt_iter_new(r, XT_ORDER_FILE, 0, 0)) )
        return -1;
    got = count_batches(t, it);
    xt_iter_free(it);
    if ( got < 0 )
    {
        errno = ENOMEM;
        return -1;
    }
    return tally_end(t);
}

void tally_free(struct tally *t)
{
    unsigned int i;

    for ( i = 0; t->cpus && i < t->nr_cpus; i++ )
    {
        free(t->cpus[i].by_event);
        free(t->cpus[i].bins);
    }
    free(t->cpus);
    free(t->seen);
    free(t->events);
    hashtab_free(&t->by_id);
    free(t->bin_losses);
    free(t->lost_in_bin);
    free(t->marker_starts);
    free(t->marker_ends);
    memset(t, 0, sizeof(*t));
}

void tally_bin_span(const struct tally *t, unsigned int b, uint64_t *start,
                    uint64_t *end)
{
    uint64_t last = t->last_tsc < UINT64_MAX ? t->last_tsc + 1 : UINT64_MAX;

    timebins_bounds(&t->time, b, start, end);
    if ( b == 0 && *start < t->first_tsc )
        *start = t->first_tsc;
    if ( b == t->time.nr - 1 && *end > last )
        *end = last;
    if ( *end <= *start )
        *end = *start + 1;      /* a trace of one TSC has a tick */
}

double tally_bin_seconds(const struct tally *t, unsigned int b)
{
    uint64_t start, end;

    tally_bin_span(t, b, &start, &end);
    return tsc_seconds_from(start, t->origin, t->hz);
}

double tally_bin_rate(const struct tally *t, unsigned int b,
                      uint64_t records)
{
    uint64_t start, end;

    tally_bin_span(t, b, &start, &end);
    return records / tsc_seconds(end - start, t->hz);
}
