/*
 * view: the filters, threads, names and time xentrace-export's timeline
 * exports share.  view.h says what they are.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "numbers.h"
#include "view.h"

#define NR_DOMIDS       0x10000u

/* --classes' classes, named by xt_event_class(). */
static const uint32_t classes[] = {
    XT_CLASS_GEN, XT_CLASS_SCHED, XT_CLASS_DOM0OP, XT_CLASS_HVM,
    XT_CLASS_MEM, XT_CLASS_PV, XT_CLASS_SHADOW, XT_CLASS_HW, XT_CLASS_GUEST,
};

#define NR_CLASSES      (sizeof(classes) / sizeof(classes[0]))
/* The class bits of an event or a class mask. */
#define CLASS_OF(ev)    (((ev) & XT_CLASS_ALL) >> TRC_CLS_SHIFT)

/*
 * A list of numbers.h's grammar ("0,2-3", "4-") of items below @limit,
 * OR-ed into *@map (allocated on first use).
 */
static bool parse_list(uint8_t **map, uint32_t limit, const char *arg,
                       const char *what, char *why, unsigned int size)
{
    if ( !*map && !(*map = calloc(limit / 8 + 1, 1)) )
    {
        snprintf(why, size, "%s", strerror(errno));
        return false;
    }
    return !num_parse_list(arg, limit, what, *map, why, size);
}

bool view_parse_domains(struct view_filter *f, const char *arg,
                        char *why, unsigned int size)
{
    return parse_list(&f->domains, NR_DOMIDS, arg, "domains", why, size);
}

void view_parse_domain_names(struct view_filter *f, const struct xt_reader *r,
                             const char *const *lists, unsigned int n)
{
    unsigned int i;
    char why[128];

    for ( i = 0; i < n; i++ )
    {
        char *ids = cli_domain_ids(r, "--domain", lists[i]);

        if ( !view_parse_domains(f, ids, why, sizeof(why)) )
            errx(CLI_EXIT_ERROR, "--domain %s: %s", lists[i], why);
        free(ids);
    }
}

bool view_parse_cpus(struct view_filter *f, const char *arg,
                     char *why, unsigned int size)
{
    f->nr_cpus = VIEW_MAX_PCPUS;
    return parse_list(&f->cpus, VIEW_MAX_PCPUS, arg, "CPUs", why, size);
}

bool view_parse_classes(struct view_filter *f, const char *arg,
                        uint32_t offered, char *why, unsigned int size)
{
    const char *p = arg;

    f->classes = 0;
    while ( *p )
    {
        size_t n = strcspn(p, ",");
        unsigned int i, k;

        for ( i = 0; i < NR_CLASSES; i++ )
            if ( (classes[i] & offered) == classes[i] &&
                 strlen(xt_event_class(classes[i])) == n &&
                 !strncmp(p, xt_event_class(classes[i]), n) )
                break;
        if ( i == NR_CLASSES )
        {
            int len = snprintf(why, size, "bad class list: %s (classes:",
                               arg);

            for ( i = k = 0;
                  i < NR_CLASSES && len >= 0 && (unsigned)len < size; i++ )
                if ( (classes[i] & offered) == classes[i] )
                    len += snprintf(why + len, size - len, "%s %s",
                                    k++ ? "," : "",
                                    xt_event_class(classes[i]));
            if ( len >= 0 && (unsigned)len < size )
                snprintf(why + len, size - len, ")");
            return false;
        }
        f->classes |= classes[i];
        p += n + (p[n] == ',');
    }
    if ( !f->classes )
    {
        snprintf(why, size, "bad class list: %s", arg);
        return false;
    }
    return true;
}

void view_filter_free(struct view_filter *f)
{
    free(f->domains);
    free(f->cpus);
    f->domains = f->cpus = NULL;
}

bool view_domain_wanted(const struct view_filter *f, uint32_t domvcpu)
{
    uint32_t dom = domvcpu >> 16;

    if ( domvcpu == MODEL_VCPU_NONE || dom == MODEL_DOMID_IDLE )
        return true;
    return dom <= VIEW_MAX_DOMID &&
           (!f->domains || num_list_has(f->domains, dom));
}

bool view_cpu_wanted(const struct view_filter *f, uint32_t pcpu)
{
    return !f->cpus || (pcpu < f->nr_cpus && num_list_has(f->cpus, pcpu));
}

static uint32_t class_of(const struct model_event *ev)
{
    switch ( ev->type )
    {
    case MODEL_EV_RUNSTATE:
    case MODEL_EV_SWITCH:
    case MODEL_EV_WAKE:
    case MODEL_EV_DOMAIN:
        return XT_CLASS_SCHED;
    case MODEL_EV_EXIT:
        return ev->u.exit.arm ? XT_CLASS_ARM : XT_CLASS_HVM;
    case MODEL_EV_INJECT:
        return ev->u.inject.arm ? XT_CLASS_ARM : XT_CLASS_HVM;
    case MODEL_EV_TO_HALT:
        return XT_CLASS_HVM;
    case MODEL_EV_INJECT_LATENCY:
        return XT_CLASS_ARM;
    case MODEL_EV_HYPERCALL:
        return ev->u.hypercall.hvm ? XT_CLASS_HVM : XT_CLASS_PV;
    case MODEL_EV_PV:
        return XT_CLASS_PV;
    case MODEL_EV_GUEST:
        return XT_CLASS_GUEST;
    case MODEL_EV_MEM:
        return XT_CLASS_MEM;
    case MODEL_EV_IRQ:
    case MODEL_EV_CSTATE:
        return XT_CLASS_HW;
    case MODEL_EV_LOST:
        break;
    }
    return VIEW_ALL;
}

bool view_class_wanted(const struct view_filter *f, uint32_t class)
{
    return CLASS_OF(class) & CLASS_OF(f->classes);
}

bool view_wants(const struct view_filter *f, const struct model_event *ev)
{
    if ( ev->type == MODEL_EV_LOST )
        return view_cpu_wanted(f, ev->pcpu);
    if ( !view_class_wanted(f, class_of(ev)) )
        return false;
    /* A switch is the pCPU's: one to a vCPU left out shows as "other". */
    if ( ev->type != MODEL_EV_SWITCH && !view_domain_wanted(f, ev->domvcpu) )
        return false;
    return ev->pcpu == MODEL_CPU_NONE || view_cpu_wanted(f, ev->pcpu);
}

bool view_record_wanted(const struct view_filter *f,
                        const struct xt_record *rec)
{
    if ( !view_cpu_wanted(f, rec->cpu) )
        return false;
    /* An event is of one class: its class bits, one of the filter's. */
    return f->classes == VIEW_ALL ||
           (CLASS_OF(rec->event) && !(CLASS_OF(rec->event) &
                                      ~CLASS_OF(f->classes)));
}

uint32_t view_pid(uint32_t domvcpu)
{
    return ((domvcpu >> 16) + 1) << 16;
}

uint32_t view_tid(uint32_t domvcpu)
{
    if ( domvcpu >> 16 == MODEL_DOMID_IDLE )
        return 0;
    return view_pid(domvcpu) + (domvcpu & 0xffff);
}

uint32_t view_unknown_tid(uint32_t pcpu)
{
    return VIEW_XEN_PID + 1 + 2 * pcpu;
}

uint32_t view_other_tid(uint32_t pcpu)
{
    return VIEW_XEN_PID + 2 + 2 * pcpu;
}

static uint64_t set_hash(const void *keys, unsigned int i)
{
    return hashtab_hash(view_set_key(keys, i));
}

int32_t view_set_insert(struct view_set *s, uint32_t key, bool *added)
{
    unsigned int i;

    if ( s->nr == INT32_MAX ||
         hashtab_fit(&s->index, s->nr + 1, s->keys, set_hash) ||
         array_fit(&s->keys, &s->cap, s->nr + 1, sizeof(*s->keys)) )
        return -1;
    i = hashtab_find(&s->index, key, s->keys, view_set_key);
    s->keys[s->nr] = key;
    hashtab_set(&s->index, i, s->nr);
    *added = true;
    return s->nr++;
}

void view_set_free(struct view_set *s)
{
    free(s->keys);
    hashtab_free(&s->index);
    *s = (struct view_set){ 0 };
}

const char *view_point_name(char *buf, unsigned int size,
                            const struct model_event *ev)
{
    const struct xt_event_desc *d;

    switch ( ev->type )
    {
    case MODEL_EV_HYPERCALL:
        return model_hypercall_label(buf, size, ev->u.hypercall.op);
    case MODEL_EV_INJECT:
        snprintf(buf, size, "inject 0x%02x", ev->u.inject.vector);
        break;
    case MODEL_EV_GUEST:
        snprintf(buf, size, XT_GUEST_EVENT_NAME, ev->u.guest.event);
        break;
    default:
        d = xt_event_find(ev->u.pv.event);
        if ( d )
            snprintf(buf, size, "%s", d->name);
        else
            snprintf(buf, size, "0x%08" PRIx32, ev->u.pv.event);
        break;
    }
    return buf;
}

const char *view_irq_name(char *buf, unsigned int size, uint32_t vector,
                          uint32_t irq)
{
    if ( vector != UINT32_MAX )
        snprintf(buf, size, "vector 0x%02x", vector);
    else
        snprintf(buf, size, "irq %u", irq);
    return buf;
}


