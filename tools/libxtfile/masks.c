/*
 * libxtfile: the masks in force (xtfile.h, "Masks"): their records for
 * the writer, and the reader's periods of them.
 */
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "masks.h"
#include "put.h"
#include "xtevents.h"
#include "xtfile.h"

static uint32_t *put_dom_filter(uint32_t *p, const struct xt_dom_filter *d,
                                const uint64_t *tsc)
{
    unsigned int first, i;

    for ( first = 0; d && first < d->nr && first < XT_DOM_RANGES_MAX;
          first += XT_DOM_RANGES_RECORD )
    {
        uint32_t rec[7] = { d->nr, first, d->in_dom0 };

        for ( i = 0; i < XT_DOM_RANGES_RECORD && first + i < d->nr; i++ )
            rec[3 + i] = d->range[first + i];
        p = put_record(p, TRC_XT_DOM_FILTER, tsc, rec, 7);
    }
    return p;
}

static uint32_t *put_switches(uint32_t *p, const struct xt_event_switches *s,
                              const uint64_t *tsc)
{
    unsigned int first, i;

    for ( first = 0; s && first < s->nr && first < XT_EVENT_SWITCHES_MAX;
          first += XT_EVENT_SWITCHES_RECORD )
    {
        uint32_t rec[7] = { s->nr, first };

        for ( i = 0; i < XT_EVENT_SWITCHES_RECORD && first + i < s->nr; i++ )
            rec[2 + i] = s->sw[first + i];
        p = put_record(p, TRC_XT_EVENT_SWITCHES, tsc, rec, 7);
    }
    return p;
}

size_t xt_masks_put(uint32_t evt_mask, const uint8_t *cpus,
                    unsigned int nr_cpus, const struct xt_masks_more *more,
                    const uint64_t *tsc, uint32_t *words)
{
    uint32_t *p = words;
    unsigned int first, cpu;

    for ( first = 0; first < nr_cpus; first += XT_MASK_CPUS )
    {
        uint32_t rec[7] = { evt_mask, first };

        for ( cpu = first; cpu < nr_cpus && cpu < first + XT_MASK_CPUS; cpu++ )
            if ( cpus[cpu / 8] & 1u << cpu % 8 )
                rec[2 + (cpu - first) / 32] |= 1u << (cpu - first) % 32;
        p = put_record(p, TRC_XT_MASKS, tsc, rec, 7);
    }
    if ( more )
        p = put_switches(put_dom_filter(p, more->doms, tsc), more->switches,
                         tsc);
    return p - words;
}

/*
 * The reader's periods
 * ====================
 */

void masks_free(struct masks *m)
{
    unsigned int i;

    for ( i = 0; i < m->nr; i++ )
        free(m->periods[i].bits);
    free(m->periods);
    *m = (struct masks){ 0 };
}

static bool has_cpu(const uint8_t *cpus, unsigned int cpu)
{
    return cpus[cpu / 8] & 1u << cpu % 8;
}

/* @cpus of @nr_cpus as "0-3,7", "all", or cut with ",..." to fit @size. */
static void cpus_text(char *text, size_t size, const uint8_t *cpus,
                      unsigned int nr_cpus)
{
    unsigned int cpu, last, len = 0, all = 1;

    for ( cpu = 0; cpu < nr_cpus; cpu++ )
        all &= has_cpu(cpus, cpu);
    if ( all && nr_cpus )
    {
        snprintf(text, size, "all");
        return;
    }
    text[0] = '\0';
    for ( cpu = 0; cpu < nr_cpus; cpu = last + 1 )
    {
        char range[32];
        int n;

        if ( !has_cpu(cpus, cpu) )
        {
            last = cpu;
            continue;
        }
        for ( last = cpu; last + 1 < nr_cpus && has_cpu(cpus, last + 1); )
            last++;
        n = last == cpu ? snprintf(range, sizeof(range), "%s%u",
                                   len ? "," : "", cpu)
                        : snprintf(range, sizeof(range), "%s%u-%u",
                                   len ? "," : "", cpu, last);
        if ( len + n + 4 > size )
        {
            snprintf(text + len, size - len, ",...");
            return;
        }
        memcpy(text + len, range, n + 1);
        len += n;
    }
    if ( !len )
        snprintf(text, size, "none");
}

/* A new period at @tsc (0: the start's), in TSC order: its index + 1, or
   0 if there is no room. */
static unsigned int new_period(struct masks *m, uint64_t tsc,
                               uint32_t evt_mask)
{
    unsigned int i;

    if ( m->nr == XT_MASK_PERIODS_MAX ||
         array_fit(&m->periods, &m->cap, m->nr + 1, sizeof(*m->periods)) )
    {
        m->dropped++;
        return 0;
    }
    for ( i = m->nr; i > 0 && m->periods[i - 1].given.tsc > tsc; i-- )
        m->periods[i] = m->periods[i - 1];
    m->periods[i] = (struct mask_period){
        .given = { .tsc = tsc, .evt_mask = evt_mask },
    };
    m->nr++;
    return i + 1;
}

/* Chunk @rec of @p's mask: its CPUs' bits.  False without memory. */
static bool take_chunk(struct mask_period *p, const struct xt_record *rec)
{
    uint32_t first = rec->extra[1];
    unsigned int bit, nr_bits = first + XT_MASK_CPUS;

    if ( nr_bits > p->nr_bits )
    {
        uint8_t *bits = realloc(p->bits, (nr_bits + 7) / 8);

        if ( !bits )
            return false;
        memset(bits + (p->nr_bits + 7) / 8, 0,
               (nr_bits + 7) / 8 - (p->nr_bits + 7) / 8);
        p->bits = bits;
        p->nr_bits = nr_bits;
    }
    for ( bit = 0; bit < XT_MASK_CPUS; bit++ )
        if ( rec->extra[2 + bit / 32] & 1u << bit % 32 )
            p->bits[(first + bit) / 8] |= 1u << (first + bit) % 8;
    return true;
}

/*
 * Item @piece of a list in @buf (@*len bytes so far): after a comma but
 * the first; false, and ",..." instead, if it leaves too little room.
 */
static bool append_item(char *buf, size_t size, size_t *len,
                        const char *piece)
{
    size_t n = strlen(piece) + !!*len;

    if ( *len + n + 5 > size )
    {
        snprintf(buf + *len, size - *len, ",...");
        return false;
    }
    *len += snprintf(buf + *len, size - *len, "%s%s", *len ? "," : "",
                     piece);
    return true;
}

const char *xt_dom_filter_text(const struct xt_dom_filter *doms, char *buf,
                               size_t size)
{
    size_t len = 0;
    unsigned int i;
    char one[16];

    snprintf(buf, size, "all");
    for ( i = 0; doms && i < doms->nr; i++ )
    {
        uint32_t first = doms->range[i] >> 16, last = doms->range[i] & 0xffff;

        if ( first == last )
            snprintf(one, sizeof(one), "%u", first);
        else
            snprintf(one, sizeof(one), "%u-%u", first, last);
        if ( !append_item(buf, size, &len, one) )
            break;
    }
    return buf;
}

const char *xt_event_switches_text(const struct xt_event_switches *s,
                                   char *buf, size_t size)
{
    size_t len = 0;
    unsigned int i;
    char one[64];

    snprintf(buf, size, "none");
    for ( i = 0; s && i < s->nr; i++ )
    {
        uint32_t event = s->sw[i] & ~XT_EVENT_ON;
        const struct xt_event_desc *d = xt_event_find(event);
        char sign = s->sw[i] & XT_EVENT_ON ? '+' : '-';

        if ( d )
            snprintf(one, sizeof(one), "%c%s", sign, d->name);
        else
            snprintf(one, sizeof(one), "%c0x%08x", sign, event);
        if ( !append_item(buf, size, &len, one) )
            break;
    }
    return buf;
}

/*
 * Whether @rec, {nr, first, ...}, tells @p's next @per items, up to @max,
 * after the @have it has told: the next record of @p, the period being
 * told (NULL: none).
 */
static bool next_chunk(const struct mask_period *p,
                       const struct xt_record *rec, unsigned int max,
                       unsigned int per, unsigned int have)
{
    uint64_t tsc = rec->has_tsc ? rec->tsc : 0;
    uint32_t nr = rec->extra[0], first = rec->extra[1];

    return p && p->given.tsc == tsc && rec->nr_extra >= 7 && nr <= max &&
           !(first % per) && first < nr && first == have;
}

/* A record of the switches of the period being told. */
static void take_switches(struct mask_period *p, const struct xt_record *rec)
{
    uint32_t i;

    if ( !next_chunk(p, rec, XT_EVENT_SWITCHES_MAX, XT_EVENT_SWITCHES_RECORD,
                     p ? p->switches.nr : 0) )
        return;
    for ( i = 0; i < XT_EVENT_SWITCHES_RECORD &&
                 p->switches.nr < rec->extra[0]; i++ )
        p->switches.sw[p->switches.nr++] = rec->extra[2 + i];
}

/* A record of the domain filter of the period being told. */
static void take_dom_filter(struct mask_period *p,
                            const struct xt_record *rec)
{
    uint32_t i;

    if ( !next_chunk(p, rec, XT_DOM_RANGES_MAX, XT_DOM_RANGES_RECORD,
                     p ? p->doms.nr : 0) )
        return;
    p->doms.in_dom0 = rec->extra[2];
    for ( i = 0; i < XT_DOM_RANGES_RECORD && p->doms.nr < rec->extra[0]; i++ )
        p->doms.range[p->doms.nr++] = rec->extra[3 + i];
}

bool masks_take(struct masks *m, const struct xt_record *rec)
{
    uint64_t tsc = rec->has_tsc ? rec->tsc : 0;
    struct mask_period *p;
    uint32_t first;

    p = m->telling ? &m->periods[m->telling - 1] : NULL;
    if ( rec->event == TRC_XT_DOM_FILTER )
    {
        take_dom_filter(p, rec);
        return true;
    }
    if ( rec->event == TRC_XT_EVENT_SWITCHES )
    {
        take_switches(p, rec);
        return true;
    }
    if ( rec->event != TRC_XT_MASKS )
        return false;
    first = rec->extra[1];
    if ( rec->nr_extra < 7 || first % XT_MASK_CPUS || first >= XT_CPUS_MAX )
        return true;                    /* not a chunk of a mask */
    if ( !first )
    {
        /* The start's masks are told once: a second telling is none. */
        m->telling = 0;
        if ( !tsc && m->nr && !m->periods[0].given.tsc )
            return true;
        m->telling = new_period(m, tsc, rec->extra[0]);
    }
    p = m->telling ? &m->periods[m->telling - 1] : NULL;
    if ( !p || p->given.tsc != tsc || p->given.evt_mask != rec->extra[0] )
        return true;                    /* no first chunk before it */
    if ( !take_chunk(p, rec) )
        m->dropped++;
    return true;
}

const struct xt_mask_period *masks_at(const struct masks *m, unsigned int i,
                                      unsigned int nr_cpus)
{
    struct mask_period *p = i < m->nr ? &m->periods[i] : NULL;

    if ( !p )
        return NULL;
    if ( !nr_cpus || nr_cpus > p->nr_bits )
        nr_cpus = p->nr_bits;
    cpus_text(p->given.cpus, sizeof(p->given.cpus), p->bits, nr_cpus);
    xt_dom_filter_text(&p->doms, p->given.domains, sizeof(p->given.domains));
    xt_event_switches_text(&p->switches, p->given.switches,
                           sizeof(p->given.switches));
    p->given.dom_filter_in_dom0 = p->doms.nr && p->doms.in_dom0;
    return &p->given;
}

const char *xt_mask_period_text(const struct xt_mask_period *p, char *buf,
                                size_t size)
{
    char classes[128];
    int n = snprintf(buf, size, "events %s, CPUs %s",
                     xt_mask_classes(p->evt_mask, classes, sizeof(classes)),
                     p->cpus);

    if ( n >= 0 && (size_t)n < size && strcmp(p->domains, "all") )
        n += snprintf(buf + n, size - n, ", domains %s%s", p->domains,
                      p->dom_filter_in_dom0 ? " (in dom0)" : "");
    if ( n >= 0 && (size_t)n < size && strcmp(p->switches, "none") )
        snprintf(buf + n, size - n, ", switched %s", p->switches);
    return buf;
}
