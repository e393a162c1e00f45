/*
 * ftrace's events as dom0's records: see ftrace.h.
 *
 * The scheduler's, IRQs' and softirqs' events have records of their own
 * kind, with the fields the readers need; any other event keeps its
 * first numeric fields, under a generic type the file names.  An event
 * ftrace lost, or one older than its lane's last, is counted in an
 * XT_DOM0_LOST record before the next event: every event is in the file
 * or counted there.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace.h"

#define TYPE_IDS        65536u          /* ftrace's event ids: 16 bits */
#define COMMON_BYTES    8               /* type, flags, preempt count, pid */

/* The typed events: their kind, and the fields each reads. */
static const struct typed {
    const char *system, *event;
    uint32_t kind;
    const char *arg;                    /* into the 24 bits; NULL: none */
    const char *values[2];
    const char *text;
} typed[] = {
    { "sched", "sched_switch", XT_DOM0_SWITCH, "prev_state",
      { "prev_pid", "next_pid" }, "next_comm" },
    { "sched", "sched_waking", XT_DOM0_WAKING, "target_cpu",
      { "pid" }, "comm" },
    { "irq", "irq_handler_entry", XT_DOM0_IRQ_ENTRY, NULL, { "irq" },
      "name" },
    { "irq", "irq_handler_exit", XT_DOM0_IRQ_EXIT, "ret", { "irq" }, NULL },
    { "irq", "softirq_entry", XT_DOM0_SOFTIRQ_ENTRY, "vec", { NULL }, NULL },
    { "irq", "softirq_exit", XT_DOM0_SOFTIRQ_EXIT, "vec", { NULL }, NULL },
};
#define NR_TYPED (sizeof(typed) / sizeof(typed[0]))

/* How an event id is taken: which typed entry, or which generic type. */
struct route {
    const struct typed *typed;
    struct tep_format_field *arg, *values[XT_DOM0_FIELDS], *text;
    unsigned int nr_values;
    uint32_t type;                      /* XT_DOM0_EVENT's */
};

struct ftrace {
    struct tep_handle *tep;
    const char *who;
    struct tep_format_field *type;      /* common_type, once known */
    bool all_asked;                     /* see ftrace_new() */
    struct route **route;               /* [TYPE_IDS]: NULL if not taken */
    struct xt_dom0_type types[XT_DOM0_TYPES];
    unsigned int nr_types;
};

struct ftrace *ftrace_new(struct tep_handle *tep, const char *who,
                          bool all_asked)
{
    struct ftrace *f = calloc(1, sizeof(*f));

    if ( !f || !(f->route = calloc(TYPE_IDS, sizeof(*f->route))) )
        err(1, "memory");
    f->tep = tep;
    f->who = who;
    f->all_asked = all_asked;
    return f;
}

void ftrace_free(struct ftrace *f)
{
    unsigned int i;

    if ( !f )
        return;
    for ( i = 0; i < TYPE_IDS; i++ )
        free(f->route[i]);
    free(f->route);
    free(f);
}

/*
 * Routing
 * =======
 */

static struct route *new_route(void)
{
    struct route *r = calloc(1, sizeof(*r));

    if ( !r )
        err(1, "memory");
    return r;
}

static struct route *route_typed(const struct ftrace *f, struct tep_event *ev,
                                 const struct typed *t)
{
    struct tep_format_field *arg = t->arg ? tep_find_field(ev, t->arg) : NULL;
    struct tep_format_field *text = t->text ? tep_find_field(ev, t->text)
                                            : NULL;
    struct tep_format_field *values[2] = { NULL };
    struct route *r;
    unsigned int i;

    for ( i = 0; i < 2 && t->values[i]; i++ )
        if ( !(values[i] = tep_find_field(ev, t->values[i])) )
            errx(1, "%s: %s:%s has no field %s", f->who, t->system, t->event,
                 t->values[i]);
    if ( (t->arg && !arg) || (t->text && !text) )
        errx(1, "%s: %s:%s is not as xentrace knows it", f->who, t->system,
             t->event);
    r = new_route();
    r->typed = t;
    r->arg = arg;
    r->text = text;
    for ( i = 0; i < 2 && values[i]; i++ )
        r->values[r->nr_values++] = values[i];
    return r;
}

/* A numeric field a generic event keeps: not an array, not a string. */
static bool numeric(const struct tep_format_field *field)
{
    return !(field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC |
                             TEP_FIELD_IS_STRING)) && field->size <= 8;
}

static struct route *route_generic(struct ftrace *f, struct tep_event *ev)
{
    struct tep_format_field **fields = tep_event_fields(ev), **field;
    struct xt_dom0_type *type = &f->types[f->nr_types];
    struct route *r;

    if ( f->nr_types == XT_DOM0_TYPES )
        errx(1, "%s: more than %u events besides sched, irq and softirq",
             f->who, XT_DOM0_TYPES);
    if ( !fields )
        err(1, "memory");
    r = new_route();
    snprintf(type->name, sizeof(type->name), "%s:%s", ev->system, ev->name);
    for ( field = fields; *field && r->nr_values < XT_DOM0_FIELDS; field++ )
        if ( numeric(*field) )
        {
            snprintf(type->field[r->nr_values], sizeof(type->field[0]), "%s",
                     (*field)->name);
            r->values[r->nr_values++] = *field;
        }
    free(fields);
    r->type = f->nr_types++;
    return r;
}

void ftrace_add(struct ftrace *f, struct tep_event *ev)
{
    size_t i;

    if ( ev->id < 0 || (unsigned int)ev->id >= TYPE_IDS || f->route[ev->id] )
        return;
    for ( i = 0; i < NR_TYPED; i++ )
        if ( !strcmp(typed[i].system, ev->system) &&
             !strcmp(typed[i].event, ev->name) )
        {
            f->route[ev->id] = route_typed(f, ev, &typed[i]);
            return;
        }
    f->route[ev->id] = route_generic(f, ev);
}

bool ftrace_takes(const struct ftrace *f, int id)
{
    return id >= 0 && (unsigned int)id < TYPE_IDS && f->route[id];
}

void ftrace_types(const struct ftrace *f, struct xt_dom0_meta *meta)
{
    meta->nr_types = f->nr_types;
    meta->types = f->types;
}

/*
 * Putting
 * =======
 */

static uint32_t field_u32(struct tep_format_field *field, const void *data)
{
    unsigned long long v = 0;

    tep_read_number_field(field, data, &v);
    return (uint32_t)v;
}

/*
 * A string field: a fixed array, or a __data_loc one (IRQs' names), cut
 * to the record's @size: a trace.dat's bytes are not to be trusted.
 */
static void field_text(struct tep_format_field *field, const void *data,
                       int size, char *text, size_t room)
{
    const char *from = (const char *)data + field->offset;
    const char *end = (const char *)data + size;
    int len = field->size;

    if ( field->flags & TEP_FIELD_IS_DYNAMIC )
    {
        uint32_t loc = field_u32(field, data);

        from = (const char *)data + (loc & 0xffff) +
               (field->flags & TEP_FIELD_IS_RELATIVE
                ? field->offset + field->size : 0);
        len = loc >> 16;
    }
    if ( from < (const char *)data || from > end || len < 0 ||
         len > end - from )
        len = 0;
    snprintf(text, room, "%.*s", (int)strnlen(from, len), from);
}

/* A number field past the record's end reads as 0, not beyond it. */
static bool field_inside(const struct tep_format_field *field, int size)
{
    return field->offset >= 0 && field->size >= 0 &&
           field->offset + field->size <= size;
}

static uint32_t value(struct tep_format_field *field, const void *data,
                      int size)
{
    return field_inside(field, size) ? field_u32(field, data) : 0;
}

static void make_event(const struct route *r, const void *data, int size,
                       struct xt_dom0_event *e)
{
    unsigned int i;

    *e = (struct xt_dom0_event){
        .kind = r->typed ? r->typed->kind : XT_DOM0_EVENT,
        .arg = r->typed ? (r->arg ? value(r->arg, data, size) : 0) : r->type,
        .nr = r->nr_values,
    };
    for ( i = 0; i < r->nr_values; i++ )
        e->v[i] = value(r->values[i], data, size);
    if ( r->text && field_inside(r->text, size) )
        field_text(r->text, data, size, e->text, sizeof(e->text));
}

void ftrace_missed(struct ftrace_lane *l, long long missed)
{
    if ( missed > 0 )
        l->pending += missed;
    else if ( missed < 0 )
        l->pending_unknown = true;
}

size_t ftrace_put_lost(struct ftrace_lane *l, uint64_t tsc, uint32_t *words)
{
    struct xt_dom0_event e = { .kind = XT_DOM0_LOST, .nr = 2 };

    if ( !l->pending && !l->pending_unknown )
        return 0;
    /* A count of 0 says ftrace lost some without saying how many. */
    e.v[0] = (uint32_t)l->pending;
    e.v[1] = (uint32_t)(l->pending >> 32);
    l->lost += l->pending;
    l->lost_unknown |= l->pending_unknown;
    l->pending = 0;
    l->pending_unknown = false;
    return xt_dom0_event_put(&e, tsc, words);
}

int ftrace_event_id(struct ftrace *f, struct tep_record *rec)
{
    struct tep_event *first = tep_get_first_event(f->tep);

    if ( !f->type && first )
        f->type = tep_find_common_field(first, "common_type");
    if ( !f->type || !field_inside(f->type, rec->size) )
        return -1;
    return tep_data_type(f->tep, rec);
}

size_t ftrace_put(struct ftrace *f, struct ftrace_lane *l,
                  struct tep_record *rec, uint64_t tsc, uint32_t *words)
{
    int id = ftrace_event_id(f, rec);
    struct xt_dom0_event e;
    size_t n;

    if ( !ftrace_takes(f, id) )
    {
        l->untaken++;
        l->pending += f->all_asked;
        return 0;
    }
    if ( tsc < l->last_tsc || rec->size < COMMON_BYTES )
    {
        l->pending++;                   /* out of order, or cut: never seen */
        return 0;
    }
    make_event(f->route[id], rec->data, rec->size, &e);
    n = ftrace_put_lost(l, tsc, words);
    n += xt_dom0_event_put(&e, tsc, words + n);
    l->events++;
    l->last_tsc = tsc;
    return n;
}
