/*
 * tally: one pass over a trace file's records (tally.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

#define MAX_EVENTS          (1u << 16)

/* What a record of an event takes, beyond being counted. */
enum kind {
    KIND_COUNT,                 /* nothing */
    KIND_SKIP,                  /* not even that: pads, CPU changes */
    KIND_RUNSTATE,              /* a runstate change */
    KIND_LOST,                  /* TRC_LOST_RECORDS */
};

static uint32_t hash32(uint32_t x)
{
    return x * 0x9e3779b1u;
}

static int grow(void *pp, size_t *cap, size_t need, size_t size)
{
    void **p = pp;
    size_t n = *cap ? *cap : 16;
    void *q;

    if ( need <= *cap )
        return 0;
    while ( n < need )
        n *= 2;
    q = realloc(*p, n * size);
    if ( !q )
        return -1;
    memset((char *)q + *cap * size, 0, (n - *cap) * size);
    *p = q;
    *cap = n;
    return 0;
}

/*
 * Open-addressing hash of @key to index + 1 in @slot (power-of-two size);
 * the key is the first member of each element of @base.
 */
static uint32_t *find_slot(uint32_t *slot, unsigned int nr_slots,
                           uint32_t key, const void *base, size_t size)
{
    /* The top bits: a product's low bits are only the key's low bits. */
    unsigned int i = hash32(key) >> (32 - __builtin_ctz(nr_slots));

    while ( slot[i] &&
            *(const uint32_t *)((const char *)base +
                                (slot[i] - 1) * size) != key )
        i = (i + 1) & (nr_slots - 1);
    return &slot[i];
}

/* Double a hash's slots and re-insert every key; -1 with ENOMEM. */
static int rehash(uint32_t **slot, unsigned int *nr_slots, unsigned int nr,
                  const void *base, size_t size)
{
    unsigned int n = *nr_slots ? *nr_slots * 2 : 64, i;
    uint32_t *s = calloc(n, sizeof(*s));

    if ( !s )
        return -1;
    for ( i = 0; i < nr; i++ )
        *find_slot(s, n, *(const uint32_t *)((const char *)base + i * size),
                   base, size) = i + 1;
    free(*slot);
    *slot = s;
    *nr_slots = n;
    return 0;
}

static int event_index(struct tally *t, uint32_t id)
{
    uint32_t *s;

    if ( t->event_slots )
    {
        s = find_slot(t->event_slot, t->event_slots, id, t->events,
                      sizeof(*t->events));
        if ( *s )
            return *s - 1;
    }
    if ( t->nr_events == MAX_EVENTS )
        return -1;
    if ( grow(&t->events, &t->events_cap, t->nr_events + 1,
              sizeof(*t->events)) )
        return -1;
    t->events[t->nr_events] = (struct tally_event){
        .id = id, .class = xt_event_class(id),
    };
    t->nr_events++;
    if ( t->nr_events * 2 > t->event_slots )
    {
        if ( rehash(&t->event_slot, &t->event_slots, t->nr_events,
                    t->events, sizeof(*t->events)) )
            return -1;
    }
    else
        *find_slot(t->event_slot, t->event_slots, id, t->events,
                   sizeof(*t->events)) = t->nr_events;
    return t->nr_events - 1;
}

static struct tally_vcpu *vcpu_of(struct tally *t, uint32_t domvcpu)
{
    uint32_t *s;

    if ( t->vcpu_slots )
    {
        s = find_slot(t->vcpu_slot, t->vcpu_slots, domvcpu, t->vcpus,
                      sizeof(*t->vcpus));
        if ( *s )
            return &t->vcpus[*s - 1];
    }
    if ( grow(&t->vcpus, &t->vcpus_cap, t->nr_vcpus + 1, sizeof(*t->vcpus)) )
        return NULL;
    t->vcpus[t->nr_vcpus] = (struct tally_vcpu){
        .domvcpu = domvcpu, .state = XT_NR_RUNSTATES,
    };
    t->nr_vcpus++;
    if ( t->nr_vcpus * 2 > t->vcpu_slots )
    {
        if ( rehash(&t->vcpu_slot, &t->vcpu_slots, t->nr_vcpus, t->vcpus,
                    sizeof(*t->vcpus)) )
            return NULL;
    }
    else
        *find_slot(t->vcpu_slot, t->vcpu_slots, domvcpu, t->vcpus,
                   sizeof(*t->vcpus)) = t->nr_vcpus;
    return &t->vcpus[t->nr_vcpus - 1];
}

/*
 * A runstate change: the time since the vCPU's last change goes to the
 * state it left.  Its first change only says where it is.
 */
static int runstate_change(struct tally *t, const struct tally_later *sp)
{
    struct tally_vcpu *v;
    unsigned int old = (sp->event >> 8) & 0xf, new = (sp->event >> 4) & 0xf;

    if ( !sp->nr_extra )
        return 0;
    v = vcpu_of(t, sp->extra[0]);
    if ( !v )
        return -1;
    if ( v->state < XT_NR_RUNSTATES && old < XT_NR_RUNSTATES &&
         sp->tsc >= v->since )
        v->ticks[old] += sp->tsc - v->since;
    v->state = new;
    v->since = sp->tsc;
    v->changes++;
    return 0;
}

static int lost_records(struct tally *t, const struct tally_later *sp)
{
    struct tally_cpu *c = sp->cpu;
    struct xt_record rec = {
        .event = sp->event, .nr_extra = sp->nr_extra, .tsc = sp->tsc,
    };
    struct xt_lost lost;
    uint64_t ticks;

    memcpy(rec.extra, sp->extra, sizeof(sp->extra));
    if ( !xt_record_lost(&rec, &lost) )
        return 0;
    if ( grow(&t->losses, &t->losses_cap, t->nr_losses + 1,
              sizeof(*t->losses)) )
        return -1;
    ticks = sp->tsc > lost.first_tsc ? sp->tsc - lost.first_tsc : 0;
    t->losses[t->nr_losses++] = (struct tally_loss){
        .cpu = c->cpu, .count = lost.count,
        .first_tsc = lost.first_tsc, .tsc = sp->tsc,
    };
    c->lost_markers++;
    c->lost_records += lost.count;
    c->lost_ticks += ticks;
    return 0;
}

/* Per-CPU state, sized from the reader's index before the pass. */
static int setup(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
                 uint64_t hz)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    unsigned int i;
    bool any_tsc = false;

    memset(t, 0, sizeof(*t));
    t->info = info;
    t->seen = malloc(sizeof(*t->seen) << TALLY_SEEN_BITS);
    if ( !t->seen )
        return -1;
    for ( i = 0; i < 1u << TALLY_SEEN_BITS; i++ )
        t->seen[i].id = t->seen[i].count_id = TALLY_SEEN_NONE;
    t->hz = hz ? hz : info->has_tsc_hz && info->meta.tsc_hz ?
            info->meta.tsc_hz : TALLY_DEFAULT_HZ;
    t->nr_cpus = info->nr_cpus;
    t->nr_bins = nr_bins ? nr_bins : 1;
    t->cpus = calloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*t->cpus));
    if ( !t->cpus )
        return -1;
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        t->cpus[i].cpu = ci->cpu;
        t->cpus[i].bins = calloc(t->nr_bins, sizeof(uint64_t));
        if ( !t->cpus[i].bins )
            return -1;
        if ( !ci->has_tsc )
            continue;
        if ( !any_tsc || ci->first_tsc < t->first_tsc )
            t->first_tsc = ci->first_tsc;
        if ( !any_tsc || ci->last_tsc > t->last_tsc )
            t->last_tsc = ci->last_tsc;
        any_tsc = true;
    }
    t->bin_ticks = (t->last_tsc - t->first_tsc) / t->nr_bins + 1;
    return 0;
}

/*
 * The time bin of @tsc on CPU @c.  A CPU's TSCs rise, so most records fall
 * in the bin of the record before: that saves a division per record.
 */
static unsigned int bin_of(const struct tally *t, struct tally_cpu *c,
                           uint64_t tsc)
{
    uint64_t bin;

    if ( tsc >= c->bin_start && tsc < c->bin_end )
        return c->bin;
    bin = tsc > t->first_tsc ? (tsc - t->first_tsc) / t->bin_ticks : 0;
    if ( bin >= t->nr_bins )
        bin = t->nr_bins - 1;
    c->bin = bin;
    c->bin_start = bin ? t->first_tsc + bin * t->bin_ticks : 0;
    c->bin_end = bin == t->nr_bins - 1 ?
                 UINT64_MAX : t->first_tsc + (bin + 1) * t->bin_ticks;
    return bin;
}

static unsigned int seen_hash(uint32_t id)
{
    return hash32(id) >> (32 - TALLY_SEEN_BITS);
}

static enum kind kind_of(uint32_t id)
{
    if ( id == TRC_TRACE_WRAP_BUFFER || id == TRC_TRACE_CPU_CHANGE )
        return KIND_SKIP;
    if ( xt_is_runstate_change(id) )
        return KIND_RUNSTATE;
    if ( id == TRC_LOST_RECORDS )
        return KIND_LOST;
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

/* What a runstate change or loss needs of the @n words at @w. */
static void special_at(struct tally_later *sp, struct tally_cpu *c,
                       enum kind kind, const uint32_t *w, unsigned int n,
                       uint64_t tsc)
{
    unsigned int head = TRC_HD_INCLUDES_CYCLE_COUNT(w[0]) ? 3 : 1, i;

    sp->cpu = c;
    sp->kind = kind;
    sp->event = TRC_HD_TO_EVENT(w[0]);
    sp->nr_extra = n - head < 4 ? n - head : 4;
    sp->tsc = tsc;
    for ( i = 0; i < 4; i++ )
        sp->extra[i] = i < sp->nr_extra ? w[head + i] : 0;
}

static int count_special(struct tally *t, const struct tally_later *sp)
{
    return sp->kind == KIND_RUNSTATE ? runstate_change(t, sp)
                                     : lost_records(t, sp);
}

/*
 * A runstate change or loss of a batch that is counted beside an earlier
 * one: it waits for that one to end, as its order with the earlier one's
 * matters.
 */
static int defer_special(struct tally *t, const struct tally_later *sp)
{
    if ( grow(&t->later, &t->later_cap, t->nr_later + 1, sizeof(*t->later)) )
        return -1;
    t->later[t->nr_later++] = *sp;
    return 0;
}

static int count_deferred(struct tally *t)
{
    size_t i;

    for ( i = 0; i < t->nr_later; i++ )
        if ( count_special(t, &t->later[i]) )
            return -1;
    t->nr_later = 0;
    return 0;
}

/* Make room in @c's counts for event @index; -1 with ENOMEM. */
static int grow_by_event(struct tally_cpu *c, uint32_t index)
{
    size_t cap = c->nr_by_event;

    if ( grow(&c->by_event, &cap, index + 1, sizeof(*c->by_event)) )
        return -1;
    c->nr_by_event = cap;
    return 0;
}

/*
 * A batch being counted.  Two batches of different CPUs are counted side
 * by side, a record of each in turn: walking a batch is a chain of loads,
 * each record's header giving where the next one is, and two chains run
 * in the time of one.  Their records change only their own CPU's counts,
 * except that the later batch waits for the earlier one before it adds an
 * event (the events are in order of appearance) and defers its runstate
 * changes and losses: the result is that of one batch after the other.
 */
struct lane {
    struct tally_cpu *c;
    const uint32_t *w;
    size_t len;
    size_t i;                   /* the next record */
    bool first;                 /* no batch before it is still counted */
};

enum step { STEP_ERROR = -1, STEP_END, STEP_ON, STEP_WAIT };

/* Count the @n words at @w, an event of index @index, on @c. */
static inline void count_record(const struct tally *t, struct tally_cpu *c,
                                uint32_t index, const uint32_t *w,
                                unsigned int n)
{
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(w[0]) )
        memcpy(&c->tsc, w + 1, sizeof(c->tsc));
    c->by_event[index].records++;
    c->by_event[index].bytes += 4 * n;
    if ( c->tsc - c->bin_start >= c->bin_end - c->bin_start )
        bin_of(t, c, c->tsc);
    c->bins[c->bin]++;
}

/* step() for all but a known event of KIND_COUNT. */
static enum step step_slow(struct tally *t, struct lane *l,
                           const struct tally_seen *s)
{
    struct tally_cpu *c = l->c;
    const uint32_t *w = l->w + l->i;
    uint32_t id = TRC_HD_TO_EVENT(w[0]);
    unsigned int n = xt_record_words(w[0]);

    if ( s->id != id )
    {
        if ( !l->first )
            return STEP_WAIT;
        if ( !(s = see(t, id)) )
            return STEP_ERROR;
    }
    if ( s->kind != KIND_SKIP )
    {
        if ( s->index >= c->nr_by_event && grow_by_event(c, s->index) )
            return STEP_ERROR;
        count_record(t, c, s->index, w, n);
    }
    if ( s->kind == KIND_RUNSTATE || s->kind == KIND_LOST )
    {
        struct tally_later sp;

        special_at(&sp, c, s->kind, w, n, c->tsc);
        if ( (l->first ? count_special : defer_special)(t, &sp) )
            return STEP_ERROR;
    }
    l->i += n;
    return STEP_ON;
}

/*
 * Count @l's next record.  STEP_END at the end of its whole records (@l->i
 * is where they end), STEP_WAIT where it must wait for the earlier batch.
 * Inline, so that the lanes stay in registers.
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
        return step_slow(t, l, s);
    count_record(t, c, s->index, l->w + l->i, n);
    l->i += n;
    return STEP_ON;
}

/* Count @a's records, then @b's (NULL: none), @b beside @a where it can. */
static int count_lanes(struct tally *t, struct lane *a, struct lane *b)
{
    enum step sa = STEP_ON, sb = STEP_END;

    if ( b )
        do
        {
            sa = step(t, a);
            sb = step(t, b);
        } while ( sa == STEP_ON && sb == STEP_ON );
    while ( sa == STEP_ON )
        sa = step(t, a);
    if ( sa == STEP_ERROR || sb == STEP_ERROR )
        return -1;
    if ( !b )
        return 0;
    b->first = true;
    if ( count_deferred(t) )
        return -1;
    while ( sb != STEP_END )
        if ( (sb = step(t, b)) == STEP_ERROR )
            return -1;
    return 0;
}

static void lane_start(struct tally *t, struct lane *l, const struct xt_batch *b)
{
    *l = (struct lane){
        .c = &t->cpus[b->cpu_index], .w = b->words, .len = b->len,
        .first = true,
    };
}

/*
 * Every batch, two by two where the first is in place (fetching the second
 * would overwrite a copy) and the two are of different CPUs.
 */
static int count_batches(struct tally *t, struct xt_reader *r)
{
    struct xt_batch ba, bb;
    struct lane a, b;
    uint64_t i = 0;
    int got;

    while ( (got = xt_reader_batch(r, i, &ba)) > 0 )
    {
        bool pair;

        lane_start(t, &a, &ba);
        pair = ba.in_place && xt_reader_batch(r, i + 1, &bb) > 0 &&
               bb.cpu_index != ba.cpu_index;
        if ( pair )
        {
            lane_start(t, &b, &bb);
            b.first = false;
        }
        if ( count_lanes(t, &a, pair ? &b : NULL) )
            return -1;
        xt_reader_walked(r, i++, a.i);
        if ( pair )
            xt_reader_walked(r, i++, b.i);
    }
    return got;
}

int tally_run(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
              uint64_t hz)
{
    unsigned int i, e;

    if ( setup(t, r, nr_bins, hz) || count_batches(t, r) )
    {
        errno = ENOMEM;
        return -1;
    }

    /* The vCPUs stay in their last state to the end of the trace. */
    for ( i = 0; i < t->nr_vcpus; i++ )
    {
        struct tally_vcpu *v = &t->vcpus[i];

        if ( v->state < XT_NR_RUNSTATES && t->last_tsc > v->since )
            v->ticks[v->state] += t->last_tsc - v->since;
    }
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        struct tally_cpu *c = &t->cpus[i];

        for ( e = 0; e < c->nr_by_event && e < t->nr_events; e++ )
        {
            t->events[e].total.records += c->by_event[e].records;
            t->events[e].total.bytes += c->by_event[e].bytes;
            c->total.records += c->by_event[e].records;
            c->total.bytes += c->by_event[e].bytes;
        }
        t->total.records += c->total.records;
        t->total.bytes += c->total.bytes;
    }
    return 0;
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
    free(t->event_slot);
    free(t->vcpus);
    free(t->vcpu_slot);
    free(t->losses);
    free(t->later);
    memset(t, 0, sizeof(*t));
}

double tally_seconds(const struct tally *t, uint64_t ticks)
{
    return (double)ticks / t->hz;
}

