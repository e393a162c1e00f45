/*
 * libxtfile, the event catalogue: every event xentrace-ng knows, with its
 * payload's fields per Xen version, for decoding and naming records.  The
 * tables are generated from tools/trace-events/trace-events (as the event
 * numbers of trace-events.h are); xtread.h's xt_record_format() formats a
 * record with them.
 */
#ifndef XTEVENTS_H
#define XTEVENTS_H

#include <stddef.h>
#include <stdint.h>

enum xt_field_kind {
    XT_FIELD_U32,               /* one word, printed in decimal */
    XT_FIELD_X32,               /* one word, printed in hex */
    XT_FIELD_U64,               /* two words, low first, decimal */
    XT_FIELD_X64,               /* two words, low first, hex */
    XT_FIELD_DOMVCPU,           /* one word: domain << 16 | vcpu, "d1v0" */
    XT_FIELD_VCPUDOM,           /* one word: vcpu << 16 | domain, "d1v0" */
    XT_FIELD_S32,               /* one word, signed decimal */
    XT_FIELD_TEXT20,            /* five words: 20 bytes of text, as they lie
                                   in memory, zero-filled: "\"db-01\"" */
};

#define XT_TEXT_FIELD   20      /* bytes of an XT_FIELD_TEXT20 */

/*
 * Make @text (a text field of a record, a domain's name) fit to print as
 * it is, in text, JSON or CSV: each control character, '"' and '\\'
 * becomes '?'.
 */
void xt_text_printable(char *text);

/* The payload words a field of kind @kind takes. */
static inline unsigned int xt_field_words(enum xt_field_kind kind)
{
    return kind == XT_FIELD_U64 || kind == XT_FIELD_X64 ? 2 :
           kind == XT_FIELD_TEXT20 ? 5 : 1;
}

struct xt_field {
    const char *name;
    enum xt_field_kind kind;
    unsigned int name_len;      /* strlen(name) */
};

struct xt_event_desc {
    uint32_t id;                /* event (bits 0-27) */
    const char *name;           /* e.g. "TRC_SCHED_SWITCH" */
    unsigned int nr_fields;
    const struct xt_field *fields;
    unsigned int words;         /* payload words the fields take */
    unsigned int name_len;      /* strlen(name) */
    unsigned int min_words;     /* the words of its fields that are not
                                   optional: a record may end after them */
    uint32_t xen_min, xen_max;  /* the Xen versions (XT_XEN_VERSION) this
                                   layout is for, both included */
};

/*
 * Xen versions as xc_version(XENVER_version) returns them, and as the
 * TRC_XT_XEN_VERSION metadata record and xt_record.xen_version carry
 * them.  Where an event's payload changed between versions, the catalogue
 * has one layout per version range; a file whose version is unknown
 * (upstream's, without --xen-version) is read with 4.17's.
 */
#define XT_XEN_VERSION(major, minor) ((uint32_t)(major) << 16 | (minor))
#define XT_XEN_DEFAULT  XT_XEN_VERSION(4, 17)

/*
 * "4.20" (or "4.20.4": the patch level is ignored) into *@version: 0, or
 * -1 with EINVAL.  Each part is decimal digits only.
 */
int xt_xen_version_parse(const char *s, uint32_t *version);

/*
 * The description of @event as the hypervisor of @xen_version writes it
 * (0: XT_XEN_DEFAULT), or NULL if the catalogue does not know it there.
 * Scheduler runstate changes (TRC_SCHED_RUNSTATE_CHANGE | old << 8 |
 * new << 4) are one entry.
 */
const struct xt_event_desc *xt_event_find_xen(uint32_t event,
                                              uint32_t xen_version);

/* The same for XT_XEN_DEFAULT. */
const struct xt_event_desc *xt_event_find(uint32_t event);

/* The event the catalogue names @name ("TRC_SCHED_SWITCH"), or NULL. */
const struct xt_event_desc *xt_event_named(const char *name);

/*
 * An event given by the user, the @len bytes at @s: a name of the
 * catalogue, or a number (0x... or decimal) from 1 to 0x0fffffff, into
 * *@event.  NULL, or why not ("no such event (...)").
 */
const char *xt_event_parse(const char *s, size_t len, uint32_t *event);

/* The class of @event as a short word: "gen", "sched", "hvm"... or "?". */
const char *xt_event_class(uint32_t event);

/*
 * vCPU @vcpu of domain @dom as every reader names it, "d1v0", and Xen's
 * idle domain's as "idle-v3", at @p; returns the end.  Like decimal.h's
 * put_dec(), it may write 8 bytes past the end: @p needs 30 bytes.
 */
char *xt_put_vcpu(char *p, uint32_t dom, uint32_t vcpu);

/*
 * The classes event mask @mask lets through, as xentrace -e names them:
 * "sched,hvm", "all" for every one, "none"; into @buf of @size bytes (cut
 * if it does not fit).  Returns @buf.
 */
const char *xt_mask_classes(uint32_t mask, char *buf, size_t size);

#endif /* XTEVENTS_H */
