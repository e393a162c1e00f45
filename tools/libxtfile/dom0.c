/*
 * libxtfile: dom0's kernel events (xtfile.h, "Dom0's kernel events"):
 * their records for xentrace, and their reading for the readers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dom0.h"
#include "put.h"
#include "xtevents.h"
#include "xtfile.h"

/* Words of each kind's payload: fixed, but for XT_DOM0_EVENT (1 + n). */
static const unsigned int event_words[XT_DOM0_KINDS] = {
    [XT_DOM0_SWITCH] = 3 + XT_DOM0_COMM / 4,
    [XT_DOM0_WAKING] = 2 + XT_DOM0_COMM / 4,
    [XT_DOM0_IRQ_ENTRY] = 2 + XT_DOM0_IRQ_NAME / 4,
    [XT_DOM0_IRQ_EXIT] = 2,
    [XT_DOM0_SOFTIRQ_ENTRY] = 1,
    [XT_DOM0_SOFTIRQ_EXIT] = 1,
    [XT_DOM0_EVENT] = 1,
    [XT_DOM0_LOST] = 3,
};

/* Bytes of text after the values, for the kinds that have it. */
static unsigned int text_bytes(uint32_t kind)
{
    switch ( kind )
    {
    case XT_DOM0_SWITCH:
    case XT_DOM0_WAKING:
        return XT_DOM0_COMM;
    case XT_DOM0_IRQ_ENTRY:
        return XT_DOM0_IRQ_NAME;
    default:
        return 0;
    }
}

/* The clocks' names, short and as the readers state them. */
static const struct {
    const char *name, *text;
} clocks[] = {
    [XT_DOM0_CLOCK_TSC] = { "x86-tsc", "x86-tsc" },
    [XT_DOM0_CLOCK_MONO] = { "mono", "mono, put on the TSC" },
    [XT_DOM0_CLOCK_TRACE_DAT] = { "trace.dat",
                                  "x86-tsc, from a trace-cmd trace.dat" },
};

static bool known_clock(uint32_t clock)
{
    return clock < sizeof(clocks) / sizeof(clocks[0]) && clocks[clock].name;
}

const char *xt_dom0_clock_name(uint32_t clock)
{
    return known_clock(clock) ? clocks[clock].name : "unknown";
}

const char *xt_dom0_clock_text(uint32_t clock)
{
    return known_clock(clock) ? clocks[clock].text : "unknown";
}

const char *xt_dom0_kind_name(uint32_t kind)
{
    static const char *const names[XT_DOM0_KINDS] = {
        [XT_DOM0_SWITCH] = "sched_switch",
        [XT_DOM0_WAKING] = "sched_waking",
        [XT_DOM0_IRQ_ENTRY] = "irq_handler_entry",
        [XT_DOM0_IRQ_EXIT] = "irq_handler_exit",
        [XT_DOM0_SOFTIRQ_ENTRY] = "softirq_entry",
        [XT_DOM0_SOFTIRQ_EXIT] = "softirq_exit",
        [XT_DOM0_EVENT] = "event",
        [XT_DOM0_LOST] = "lost",
    };

    return kind < XT_DOM0_KINDS && names[kind] ? names[kind] : "?";
}

size_t xt_dom0_event_put(const struct xt_dom0_event *e, uint64_t tsc,
                         uint32_t *words)
{
    uint32_t payload[7] = { e->kind << 24 | (e->arg & 0xffffff) };
    unsigned int values = event_words[e->kind] - 1 -
                          text_bytes(e->kind) / 4;

    if ( e->kind == XT_DOM0_EVENT )
        values = e->nr < XT_DOM0_FIELDS ? e->nr : XT_DOM0_FIELDS;
    memcpy(&payload[1], e->v, values * 4);
    memcpy(&payload[1 + values], e->text,
           strnlen(e->text, text_bytes(e->kind)));
    return put_record(words, TRC_XT_DOM0_EVENT, &tsc, payload,
                      1 + values + text_bytes(e->kind) / 4) - words;
}

int xt_dom0_event_get(const uint32_t *extra, unsigned int n,
                      struct xt_dom0_event *e)
{
    unsigned int text;

    memset(e, 0, sizeof(*e));
    if ( !n )
        return -1;
    e->kind = extra[0] >> 24;
    e->arg = extra[0] & 0xffffff;
    if ( !e->kind || e->kind >= XT_DOM0_KINDS || n < event_words[e->kind] )
        return -1;
    text = text_bytes(e->kind);
    e->nr = e->kind == XT_DOM0_EVENT ? n - 1 : event_words[e->kind] - 1 - text / 4;
    memcpy(e->v, &extra[1], e->nr * 4);
    memcpy(e->text, &extra[1 + e->nr], text);
    e->text[text] = '\0';
    xt_text_printable(e->text);
    return 0;
}

/* @name's pieces, as XT_DOM0_NAME records of @type and @field. */
static uint32_t *put_name(uint32_t *p, unsigned int type, unsigned int field,
                          const char *name)
{
    size_t len = strnlen(name, XT_DOM0_NAME_MAX), off;

    for ( off = 0; off < len; off += XT_DOM0_NAME_PIECE )
    {
        uint32_t piece[7] = { XT_DOM0_NAME, type << 8 | field, off };
        size_t n = len - off < XT_DOM0_NAME_PIECE ? len - off
                                                  : XT_DOM0_NAME_PIECE;

        memcpy(&piece[3], name + off, n);
        p = put_record(p, TRC_XT_DOM0, NULL, piece, 7);
    }
    return p;
}

size_t xt_dom0_pair_put(uint64_t tsc, uint64_t ns, uint32_t *words)
{
    const uint32_t pair[5] = { XT_DOM0_PAIR, (uint32_t)tsc,
                               (uint32_t)(tsc >> 32), (uint32_t)ns,
                               (uint32_t)(ns >> 32) };

    return put_record(words, TRC_XT_DOM0, NULL, pair, 5) - words;
}

size_t xt_dom0_meta_put(const struct xt_dom0_meta *m, uint32_t *words)
{
    const uint32_t lanes[4] = { XT_DOM0_LANES, m->first_lane, m->lanes,
                                m->clock };
    uint32_t *p = put_record(words, TRC_XT_DOM0, NULL, lanes, 4);
    unsigned int t, f;

    if ( m->pair_tsc )
        p += xt_dom0_pair_put(m->pair_tsc, m->pair_ns, p);
    for ( t = 0; t < m->nr_types && t < XT_DOM0_TYPES; t++ )
    {
        p = put_name(p, t, XT_DOM0_EVENT_FIELD, m->types[t].name);
        for ( f = 0; f < XT_DOM0_FIELDS; f++ )
            p = put_name(p, t, f, m->types[t].field[f]);
    }
    return p - words;
}

/*
 * The reader's table
 * ==================
 */

void dom0_table_free(struct dom0_table *t)
{
    free(t->pairs);
    free(t->types);
}

/* A piece of a name: into the type's name or field, at its offset. */
static void take_name(struct dom0_table *t, const uint32_t *x)
{
    unsigned int type = x[1] >> 8 & 0xff, field = x[1] & 0xff;
    uint32_t off = x[2];
    char *name;

    if ( type >= XT_DOM0_TYPES || off % XT_DOM0_NAME_PIECE ||
         off >= XT_DOM0_NAME_MAX ||
         (field != XT_DOM0_EVENT_FIELD && field >= XT_DOM0_FIELDS) )
        return;
    if ( !t->types && !(t->types = calloc(XT_DOM0_TYPES, sizeof(*t->types))) )
        return;                         /* no memory: the type stays a number */
    name = field == XT_DOM0_EVENT_FIELD ? t->types[type].name
                                        : t->types[type].field[field];
    memcpy(name + off, &x[3],
           XT_DOM0_NAME_MAX - off < XT_DOM0_NAME_PIECE ? XT_DOM0_NAME_MAX - off
                                                       : XT_DOM0_NAME_PIECE);
    xt_text_printable(name);
    if ( type >= t->info.nr_types )
        t->info.nr_types = type + 1;
}

/* A pair; once the table is full, the newest takes the last place. */
static void take_pair(struct dom0_table *t, const uint32_t *x)
{
    struct dom0_pair p = { x[1] | (uint64_t)x[2] << 32,
                           x[3] | (uint64_t)x[4] << 32 };

    if ( !t->pairs && !(t->pairs = calloc(XT_DOM0_PAIRS_KEPT,
                                          sizeof(*t->pairs))) )
        return;
    t->pairs[t->nr_pairs < XT_DOM0_PAIRS_KEPT ? t->nr_pairs
                                             : XT_DOM0_PAIRS_KEPT - 1] = p;
    if ( t->nr_pairs < XT_DOM0_PAIRS_KEPT )
        t->nr_pairs++;
    t->info.pairs++;
}

bool dom0_take(struct dom0_table *t, const struct xt_record *rec, bool first)
{
    const uint32_t *x = rec->extra;

    if ( rec->event != TRC_XT_DOM0 )
        return false;
    if ( rec->nr_extra >= 4 && x[0] == XT_DOM0_LANES && first &&
         !t->info.lanes &&
         x[2] && x[1] < XT_CPUS_MAX && x[2] <= XT_CPUS_MAX - x[1] )
    {
        t->info.first_lane = x[1];
        t->info.lanes = x[2];
        t->info.clock = x[3];
    }
    else if ( rec->nr_extra >= 7 && x[0] == XT_DOM0_NAME && first )
        take_name(t, x);
    else if ( rec->nr_extra >= 5 && x[0] == XT_DOM0_PAIR )
        take_pair(t, x);
    return true;
}

/*
 * The least-squares line through the pairs, each taken from the first (so
 * that doubles hold the spans exactly), and how far the farthest pair
 * lies from it, in ns.
 */
bool dom0_clock(const struct dom0_table *t, struct xt_dom0_clock *c)
{
    const struct dom0_pair *p = t->pairs;
    double sx = 0, sy = 0, sxx = 0, sxy = 0, mx, my, a, b, var;
    unsigned int i, n = t->nr_pairs;

    for ( i = 0; i < n; i++ )
    {
        double x = (double)(int64_t)(p[i].ns - p[0].ns);
        double y = (double)(int64_t)(p[i].tsc - p[0].tsc);

        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    if ( n < 2 )
        return false;
    mx = sx / n;
    my = sy / n;
    if ( (var = sxx - n * mx * mx) <= 0 )
        return false;
    b = (sxy - n * mx * my) / var;
    a = my - b * mx;
    if ( b <= 0 )
        return false;
    c->tsc_per_ns = b;
    c->stray_ns = 0;
    for ( i = 0; i < n; i++ )
    {
        double x = (double)(int64_t)(p[i].ns - p[0].ns);
        double y = (double)(int64_t)(p[i].tsc - p[0].tsc);
        double off = (y - (a + b * x)) / b;

        if ( off < 0 )
            off = -off;
        if ( off > c->stray_ns )
            c->stray_ns = off;
    }
    return true;
}

const struct xt_dom0_type *dom0_type(const struct dom0_table *t,
                                     unsigned int type)
{
    return t->types && type < t->info.nr_types && t->types[type].name[0]
           ? &t->types[type] : NULL;
}

/*
 * Text
 * ====
 */

/* Linux's task states in sched_switch's prev_state, "R" for 0: a bit a
   letter (TASK_REPORT), then "+" for a preempted task's higher bit. */
static void state_text(uint32_t state, char *buf)
{
    static const char letters[] = "SDTtXZPI";
    unsigned int i;
    char *p = buf;

    for ( i = 0; i < 8; i++ )
        if ( state & (1u << i) )
            *p++ = letters[i];
    if ( p == buf )
        *p++ = 'R';
    if ( state >> 8 )
        *p++ = '+';
    *p = '\0';
}

static const char *softirq_name(uint32_t vec)
{
    static const char *const names[] = {
        "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
        "SCHED", "HRTIMER", "RCU",
    };

    return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "?";
}

/* A generic event: its type's name and fields where the file names them. */
static size_t generic_text(const struct xt_dom0_type *type,
                           const struct xt_dom0_event *e, char *buf,
                           size_t size)
{
    size_t n;
    unsigned int i;

    n = type ? (size_t)snprintf(buf, size, "%s", type->name)
             : (size_t)snprintf(buf, size, "event type=%" PRIu32, e->arg);
    for ( i = 0; i < e->nr && n < size; i++ )
        n += snprintf(buf + n, size - n, " %s=%" PRIu32,
                      type && type->field[i][0] ? type->field[i] : "?",
                      e->v[i]);
    return n;
}

size_t xt_dom0_text(const struct xt_dom0_event *e,
                    const struct xt_dom0_type *type, char *buf, size_t size)
{
    char state[16];
    uint64_t lost = e->v[0] | (uint64_t)e->v[1] << 32;

    switch ( e->kind )
    {
    case XT_DOM0_SWITCH:
        state_text(e->arg, state);
        return snprintf(buf, size, "sched_switch prev_pid=%" PRIu32
                        " prev_state=%s ==> next_comm=%s next_pid=%" PRIu32,
                        e->v[0], state, e->text, e->v[1]);
    case XT_DOM0_WAKING:
        return snprintf(buf, size, "sched_waking comm=%s pid=%" PRIu32
                        " target_cpu=%" PRIu32, e->text, e->v[0], e->arg);
    case XT_DOM0_IRQ_ENTRY:
        return snprintf(buf, size, "irq_handler_entry irq=%" PRIu32
                        " name=%s", e->v[0], e->text);
    case XT_DOM0_IRQ_EXIT:
        return snprintf(buf, size, "irq_handler_exit irq=%" PRIu32
                        " ret=%s", e->v[0], e->arg ? "handled" : "unhandled");
    case XT_DOM0_SOFTIRQ_ENTRY:
    case XT_DOM0_SOFTIRQ_EXIT:
        return snprintf(buf, size, "%s vec=%" PRIu32 " [action=%s]",
                        xt_dom0_kind_name(e->kind), e->arg,
                        softirq_name(e->arg));
    case XT_DOM0_EVENT:
        return generic_text(type, e, buf, size);
    case XT_DOM0_LOST:
        return lost ? snprintf(buf, size, "lost %" PRIu64 " events", lost)
                    : snprintf(buf, size, "lost events (ftrace did not "
                               "count them)");
    default:
        return snprintf(buf, size, "?");
    }
}
