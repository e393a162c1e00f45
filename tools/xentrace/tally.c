/*
 * tally: one pass over a trace file's records (tally.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

#define RUNSTATE_MASK       0x0ffff00fu     /* the event without old, new */
#define RUNSTATE_CHANGE     0x00021001u     /* TRC_SCHED_RUNSTATE_CHANGE */
#define MAX_EVENTS          (1u << 16)

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
    unsigned int i = hash32(key) & (nr_slots - 1);

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
        .domvcpu = domvcpu, .state = TALLY_RUNSTATES,
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
static int runstate_change(struct tally *t, const struct xt_record *rec)
{
    struct tally_vcpu *v = vcpu_of(t, rec->extra[0]);
    unsigned int old = (rec->event >> 8) & 0xf, new = (rec->event >> 4) & 0xf;

    if ( !v )
        return -1;
    if ( v->state < TALLY_RUNSTATES && old < TALLY_RUNSTATES &&
         rec->tsc >= v->since )
        v->ticks[old] += rec->tsc - v->since;
    v->state = new;
    v->since = rec->tsc;
    v->changes++;
    return 0;
}

static int lost_records(struct tally *t, struct tally_cpu *c,
                        const struct xt_record *rec)
{
    struct xt_lost lost;
    uint64_t ticks;

    if ( !xt_record_lost(rec, &lost) )
        return 0;
    if ( grow(&t->losses, &t->losses_cap, t->nr_losses + 1,
              sizeof(*t->losses)) )
        return -1;
    ticks = rec->tsc > lost.first_tsc ? rec->tsc - lost.first_tsc : 0;
    t->losses[t->nr_losses++] = (struct tally_loss){
        .cpu = c->cpu, .count = lost.count,
        .first_tsc = lost.first_tsc, .tsc = rec->tsc,
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
    t->hz = hz ? hz : info->has_tsc_hz && info->meta.tsc_hz ?
            info->meta.tsc_hz : TALLY_DEFAULT_HZ;
    t->nr_cpus = info->nr_cpus;
    t->nr_bins = nr_bins ? nr_bins : 1;
    t->cpus = calloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*t->cpus));
    t->cpu_index = calloc(info->max_cpu + 1, sizeof(*t->cpu_index));
    if ( !t->cpus || !t->cpu_index )
        return -1;
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        t->cpus[i].cpu = ci->cpu;
        t->cpu_index[ci->cpu] = i;
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

static int count_record(struct tally *t, const struct xt_record *rec)
{
    struct tally_cpu *c = &t->cpus[t->cpu_index[rec->cpu]];
    uint64_t bytes = 4 + (rec->has_tsc ? 8 : 0) + 4 * rec->nr_extra;
    int e = event_index(t, rec->event);

    if ( e < 0 )
        return -1;
    if ( (unsigned int)e >= c->nr_by_event )
    {
        size_t cap = c->nr_by_event;

        if ( grow(&c->by_event, &cap, e + 1, sizeof(*c->by_event)) )
            return -1;
        c->nr_by_event = cap;
    }
    c->by_event[e].records++;
    c->by_event[e].bytes += bytes;
    c->total.records++;
    c->total.bytes += bytes;
    c->bins[bin_of(t, c, rec->tsc)]++;

    if ( (rec->event & RUNSTATE_MASK) == RUNSTATE_CHANGE && rec->nr_extra )
        return runstate_change(t, rec);
    if ( rec->event == XT_EV_LOST_RECORDS )
        return lost_records(t, c, rec);
    return 0;
}

int tally_run(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
              uint64_t hz)
{
    struct xt_iter *it;
    struct xt_record rec;
    unsigned int i, e;
    int rc = 0;

    if ( setup(t, r, nr_bins, hz) )
        return -1;
    it = xt_iter_new(r, XT_ORDER_FILE, 0, 0);
    if ( !it )
        return -1;
    while ( xt_iter_next(it, &rec) > 0 )
        if ( (rc = count_record(t, &rec)) )
            break;
    xt_iter_free(it);
    if ( rc )
    {
        errno = ENOMEM;
        return -1;
    }

    /* The vCPUs stay in their last state to the end of the trace. */
    for ( i = 0; i < t->nr_vcpus; i++ )
    {
        struct tally_vcpu *v = &t->vcpus[i];

        if ( v->state < TALLY_RUNSTATES && t->last_tsc > v->since )
            v->ticks[v->state] += t->last_tsc - v->since;
    }
    for ( i = 0; i < t->nr_cpus; i++ )
    {
        struct tally_cpu *c = &t->cpus[i];

        for ( e = 0; e < c->nr_by_event && e < t->nr_events; e++ )
        {
            t->events[e].total.records += c->by_event[e].records;
            t->events[e].total.bytes += c->by_event[e].bytes;
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
    free(t->cpu_index);
    free(t->events);
    free(t->event_slot);
    free(t->vcpus);
    free(t->vcpu_slot);
    free(t->losses);
    memset(t, 0, sizeof(*t));
}

double tally_seconds(const struct tally *t, uint64_t ticks)
{
    return (double)ticks / t->hz;
}

const char *tally_runstate_name(unsigned int state)
{
    static const char *const names[TALLY_RUNSTATES] = {
        "running", "runnable", "blocked", "offline",
    };

    return state < TALLY_RUNSTATES ? names[state] : "?";
}
