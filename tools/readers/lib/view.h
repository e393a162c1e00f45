/*
 * view: what xentrace-export's timeline exports (Perfetto, Chrome JSON)
 * share: which of the model's events a user asked for (--domain, --cpu,
 * --from/--to, --classes), the threads and processes the machine is shown
 * as, their names, and time.
 *
 * Domain d is the process of pid 65536 * (d + 1), its vCPU v the thread
 * of tid 65536 * (d + 1) + v: stable across exports, and the domain's pid
 * is the tid of its vCPU 0, as a Linux process's is its main thread's.
 * The idle domain's vCPUs are the idle task, tid 0 ("swapper/N" on pCPU
 * N).  Xen itself is the process of pid VIEW_XEN_PID, whose threads
 * stand for what ran on a pCPU when no vCPU can be named: "unknown/N"
 * (after a loss, before the first switch, after a pCPU's last record)
 * and "other/N" (a vCPU of a domain --domain left out, or of a domain id
 * above VIEW_MAX_DOMID other than the idle domain's: Xen's reserved ids,
 * which have no vCPUs, in a record that says otherwise).
 */
#ifndef VIEW_H
#define VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "hashtab.h"
#include "model.h"
#include "xtread.h"

#define VIEW_XEN_PID    0x7fff0000u
#define VIEW_MAX_PCPUS  0x7ffeu         /* pseudo-threads fit below 2^31 */
#define VIEW_MAX_DOMID  0x7fefu         /* below DOMID_FIRST_RESERVED */

/*
 * The classes --classes names: the event catalogue's, by their masks
 * (their keywords are the catalogue's too, xt_event_class()):
 * scheduling (runstates, switches, wake-ups), HVM (exits, VMCALLs,
 * injections), PV (hypercalls, traps), hardware (interrupts, C-states),
 * and the records guests write themselves (TRC_GUEST).
 */
#define VIEW_ALL    (XT_CLASS_SCHED | XT_CLASS_HVM | XT_CLASS_PV | \
                     XT_CLASS_HW | XT_CLASS_GUEST)
/* And every class a record can be of: the dump's --classes. */
#define VIEW_RECORD_CLASSES (VIEW_ALL | XT_CLASS_GEN | XT_CLASS_DOM0OP | \
                             XT_CLASS_MEM | XT_CLASS_SHADOW)

struct view_filter {
    uint64_t from, to;          /* TSC window [from, to); 0, 0: all */
    uint32_t classes;           /* XT_CLASS_* of VIEW_ALL */
    uint8_t *domains;           /* bitmap by domid; NULL: all */
    uint8_t *cpus;              /* bitmap by pCPU, nr_cpus bits; NULL: all */
    unsigned int nr_cpus;
};

/*
 * Parsers of the options' arguments into @f: domain and CPU lists in the
 * grammar of tools/common/numbers.h ("0,2-3", "4-"), several adding up;
 * class names, of those in @offered (VIEW_ALL or VIEW_RECORD_CLASSES).
 * false, with a message in @why, if the argument is bad: for
 * a list, the bad item and the range ("x: invalid (domains 0 to 65535)"),
 * which the caller puts after the option and its argument.
 */
bool view_parse_domains(struct view_filter *f, const char *arg,
                        char *why, unsigned int size);
bool view_parse_cpus(struct view_filter *f, const char *arg,
                     char *why, unsigned int size);
/*
 * --domain's lists, given @n times (at most VIEW_MAX_DOMAIN_OPTIONS), of
 * ids, ranges or the names the file @r gives its domains, into @f; exits
 * with one line on a bad one.
 */
#define VIEW_MAX_DOMAIN_OPTIONS 16
void view_parse_domain_names(struct view_filter *f, const struct xt_reader *r,
                             const char *const *lists, unsigned int n);
bool view_parse_classes(struct view_filter *f, const char *arg,
                        uint32_t offered, char *why, unsigned int size);
void view_filter_free(struct view_filter *f);

bool view_domain_wanted(const struct view_filter *f, uint32_t domvcpu);
bool view_cpu_wanted(const struct view_filter *f, uint32_t pcpu);
/* Class @class (XT_CLASS_SCHED...) is one the filter keeps. */
bool view_class_wanted(const struct view_filter *f, uint32_t class);

/* The event is one the filter keeps (losses always are). */
bool view_wants(const struct view_filter *f, const struct model_event *ev);
/* A record's class is one the filter keeps (for the rate counters). */
bool view_record_wanted(const struct view_filter *f,
                        const struct xt_record *rec);

/*
 * Every CPU number a reader hands out (below XT_CPUS_MAX: libxtfile skips
 * and counts a batch of another) has a pseudo-thread on the timelines.
 */
_Static_assert(XT_CPUS_MAX <= VIEW_MAX_PCPUS, "a pCPU without a thread");

/* Threads */
uint32_t view_pid(uint32_t domvcpu);
uint32_t view_tid(uint32_t domvcpu);
uint32_t view_unknown_tid(uint32_t pcpu);
uint32_t view_other_tid(uint32_t pcpu);


/*
 * A set of 32-bit keys (the vCPUs met so far, an export's event classes),
 * each with its index in the order they were added.  view_set_add()
 * gives the index, and says through @added whether @key is new; -1 with
 * ENOMEM.  view_set_insert() is its part for a new key.
 */
struct view_set {
    uint32_t *keys;             /* by index: in the order added */
    size_t cap;
    unsigned int nr;
    struct hashtab index;       /* key -> index in keys */
};

static inline uint64_t view_set_key(const void *keys, unsigned int i)
{
    return ((const uint32_t *)keys)[i];
}

int32_t view_set_insert(struct view_set *s, uint32_t key, bool *added);

/* Inline, the look-up: the CTF export asks it for every record. */
static inline int32_t view_set_add(struct view_set *s, uint32_t key,
                                   bool *added)
{
    unsigned int i = hashtab_get(&s->index, key, s->keys, view_set_key);

    *added = false;
    return i ? (int32_t)(i - 1) : view_set_insert(s, key, added);
}

void view_set_free(struct view_set *s);

/* A point event's (hypercall, PV, injection): "memory_op", "inject 0xec". */
const char *view_point_name(char *buf, unsigned int size,
                            const struct model_event *ev);

/* An interrupt: "vector 0xf9", or "irq 122" where the vector is not known. */
const char *view_irq_name(char *buf, unsigned int size, uint32_t vector,
                          uint32_t irq);


#endif /* VIEW_H */
