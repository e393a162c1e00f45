/*
 * libxtfile, the event catalogue: names and payloads of events
 * (xtread.h), from the tables gen-trace-events makes out of
 * tools/trace-events/trace-events, and records formatted as text.
 *
 * Formatting is by hand, not printf: xentrace-dump formats every record
 * of files of gigabytes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "catalogue.h"
#include "decimal.h"
#include "numbers.h"
#include "xtread.h"

/* The class bits of an event (12, one set for each of Xen's classes). */
static inline uint32_t class_of(uint32_t event)
{
    return event >> TRC_CLS_SHIFT & 0xfff;
}

/*
 * A lookup per record formatted: hashed, not a binary search.  The hash
 * leads to an id's first layout; the others follow it in the table.
 */
static const struct xt_event_desc *find_exact(uint32_t event,
                                              uint32_t xen_version)
{
    unsigned int mask = (1u << xt_event_hash_bits) - 1;
    unsigned int h = (event * XT_EVENT_HASH_MULT) >>
                     (32 - xt_event_hash_bits);
    const struct xt_event_desc *d, *end = xt_event_descs + xt_nr_event_descs;

    for ( ; xt_event_hash[h]; h = (h + 1) & mask )
        if ( xt_event_descs[xt_event_hash[h] - 1].id == event )
            break;
    if ( !xt_event_hash[h] )
        return NULL;
    for ( d = &xt_event_descs[xt_event_hash[h] - 1];
          d < end && d->id == event; d++ )
        if ( d->xen_min <= xen_version && xen_version <= d->xen_max )
            return d;
    return NULL;
}

static bool is_nested_hvm(uint32_t event)
{
    return class_of(event) == class_of(TRC_HVM) &&
           (event & TRC_HVM_NESTEDFLAG);
}

const struct xt_event_desc *xt_event_find_xen(uint32_t event,
                                              uint32_t xen_version)
{
    const struct xt_event_desc *d;

    if ( !xen_version )
        xen_version = XT_XEN_DEFAULT;
    if ( (d = find_exact(event, xen_version)) )
        return d;
    if ( xt_is_runstate_change(event) )
        return find_exact(TRC_SCHED_RUNSTATE_CHANGE, xen_version);
    if ( is_nested_hvm(event) )
        return find_exact(event & ~TRC_HVM_NESTEDFLAG, xen_version);
    return NULL;
}

const struct xt_event_desc *xt_event_find(uint32_t event)
{
    return xt_event_find_xen(event, XT_XEN_DEFAULT);
}

const struct xt_event_desc *xt_event_named(const char *name)
{
    size_t i;

    for ( i = 0; i < xt_nr_event_descs; i++ )
        if ( !strcmp(xt_event_descs[i].name, name) )
            return &xt_event_descs[i];
    return NULL;
}

const char *xt_event_parse(const char *s, size_t len, uint32_t *event)
{
    const struct xt_event_desc *d;
    unsigned long long n;
    const char *why;
    size_t i;

    for ( i = 0; i < xt_nr_event_descs; i++ )
    {
        d = &xt_event_descs[i];
        if ( d->name_len == len && !memcmp(d->name, s, len) )
        {
            *event = d->id;
            return NULL;
        }
    }
    if ( (why = num_parse_code(s, len, 1, 0x0fffffff, &n)) )
        return !strcmp(why, "invalid")
               ? "no such event (a name of the catalogue, or a number)"
               : "not an event (a name of the catalogue, or 1 to 0x0fffffff)";
    *event = n;
    return NULL;
}

/* The number at @s, up to @max, and where it ends; NULL if there is none. */
static const char *version_part(const char *s, unsigned long long max,
                                unsigned long long *n)
{
    bool over;
    const char *end = num_digits(s, n, &over);

    return end == s || num_check(*n, over, 0, max) ? NULL : end;
}

int xt_xen_version_parse(const char *s, uint32_t *version)
{
    unsigned long long major, minor, patch;
    const char *end = version_part(s, 0xffff, &major);

    if ( !end || *end != '.' ||
         !(end = version_part(end + 1, 0xffff, &minor)) )
        goto bad;
    if ( *end == '.' && !(end = version_part(end + 1, ULLONG_MAX, &patch)) )
        goto bad;
    if ( *end || !major )
        goto bad;
    *version = XT_XEN_VERSION(major, minor);
    return 0;

 bad:
    errno = EINVAL;
    return -1;
}

/* The catalogue's classes (gen-trace-events --classes), "all" excluded. */
static const struct {
    const char *name;
    uint32_t mask;
} classes[] = {
#define XT_CLASS(name, mask, what)  { name, mask },
#include "trace-classes.h"
#undef XT_CLASS
};

const char *xt_event_class(uint32_t event)
{
    size_t i;

    /* An event has one class bit; a mask with more (all) is no class. */
    for ( i = 0; i < sizeof(classes) / sizeof(classes[0]); i++ )
        if ( class_of(classes[i].mask) == class_of(event) )
            return classes[i].name;
    return "?";
}

const char *xt_mask_classes(uint32_t mask, char *buf, size_t size)
{
    size_t i, len = 0, n = 0, passed = 0;

    buf[0] = '\0';
    for ( i = 0; i < sizeof(classes) / sizeof(classes[0]); i++ )
    {
        uint32_t both = mask & classes[i].mask;

        /* "all" is no class of its own. */
        if ( __builtin_popcount(classes[i].mask >> TRC_CLS_SHIFT) > 1 )
            continue;
        n++;
        /* Xen lets an event through if a class bit and a subclass bit
           of the mask are its own (trace.c). */
        if ( !(both >> TRC_CLS_SHIFT) || !((both >> TRC_SUBCLS_SHIFT) & 0xf) )
            continue;
        passed++;
        if ( len < size )       /* else cut */
            len += snprintf(buf + len, size - len, "%s%s", len ? "," : "",
                            classes[i].name);
    }
    if ( passed == n )
        snprintf(buf, size, "all");
    else if ( !passed )
        snprintf(buf, size, "none");
    return buf;
}

/*
 * Writers into a buffer of at least XT_RECORD_FORMAT_MAX bytes: each
 * returns the end of what it wrote.  Some write fixed-size blocks past
 * that end (names with their padding, put_dec()'s 8 bytes), which later
 * text overwrites: no record's text comes near the buffer's end even
 * with them (gen-trace-events bounds the names).
 */

static char *put_mem(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* A string constant: its length is known at compile time. */
#define put_lit(p, s)   put_mem(p, s, sizeof(s) - 1)

static char *put_hex(char *p, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    /* Digits after the first, from the highest bit set. */
    unsigned int n = (63 - __builtin_clzll(v | 1)) / 4;
    char *end = p + 3 + n, *q = end;

    p[0] = '0';
    p[1] = 'x';
    while ( q > p + 2 )
    {
        *--q = digits[v & 0xf];
        v >>= 4;
    }
    return end;
}

char *xt_put_vcpu(char *p, uint32_t dom, uint32_t vcpu)
{
    if ( dom == XT_DOMID_IDLE )
    {
        p = put_lit(p, "idle-v");
        return put_dec(p, vcpu);
    }
    *p++ = 'd';
    p = put_dec(p, dom);
    *p++ = 'v';
    return put_dec(p, vcpu);
}

static char *put_runstate(char *p, unsigned int rs)
{
    const char *name = xt_runstate_name(rs);

    return put_mem(p, name, strlen(name));
}

void xt_text_printable(char *text)
{
    for ( ; *text; text++ )
        if ( (unsigned char)*text < 0x20 || *text == 0x7f || *text == '"' ||
             *text == '\\' )
            *text = '?';
}

/* Field @f from the words at @w, of which @left remain. */
static char *put_field(char *p, const struct xt_field *f, const uint32_t *w,
                       unsigned int left)
{
    unsigned int need = xt_field_words(f->kind);
    char text[XT_TEXT_FIELD + 1] = "";

    *p++ = ' ';
    memcpy(p, f->name, XT_FIELD_NAME_PAD);
    p += f->name_len;
    *p++ = '=';
    if ( left < need )
    {
        *p++ = '?';
        return p;
    }
    switch ( f->kind )
    {
    case XT_FIELD_U32:
        return put_dec(p, w[0]);
    case XT_FIELD_X32:
        return put_hex(p, w[0]);
    case XT_FIELD_S32:
        if ( (int32_t)w[0] < 0 )
        {
            *p++ = '-';
            return put_dec(p, -(int64_t)(int32_t)w[0]);
        }
        return put_dec(p, w[0]);
    case XT_FIELD_U64:
        return put_dec(p, w[0] | (uint64_t)w[1] << 32);
    case XT_FIELD_X64:
        return put_hex(p, w[0] | (uint64_t)w[1] << 32);
    case XT_FIELD_DOMVCPU:
        return xt_put_vcpu(p, XT_DV_DOM(w[0]), XT_DV_VCPU(w[0]));
    case XT_FIELD_VCPUDOM:
        return xt_put_vcpu(p, XT_VD_DOM(w[0]), XT_VD_VCPU(w[0]));
    case XT_FIELD_TEXT20:
        memcpy(text, w, XT_TEXT_FIELD);
        xt_text_printable(text);
        *p++ = '"';
        p = put_mem(p, text, strlen(text));
        *p++ = '"';
        return p;
    }
    *p++ = '?';
    return p;
}

/* Words from @from on, raw: " [ 0x1 0x2 ]". */
static char *put_words(char *p, const struct xt_record *rec, unsigned int from)
{
    unsigned int i, n = rec->nr_extra < 7 ? rec->nr_extra : 7;

    if ( from >= n )
        return p;
    p = put_lit(p, " [");
    for ( i = from; i < n; i++ )
    {
        *p++ = ' ';
        p = put_hex(p, rec->extra[i]);
    }
    return put_lit(p, " ]");
}

static char *put_record(char *p, const struct xt_record *rec)
{
    const struct xt_event_desc *d = xt_event_find_xen(rec->event,
                                                      rec->xen_version);
    unsigned int i, word = 0, n = rec->nr_extra < 7 ? rec->nr_extra : 7;

    if ( !d && (rec->event & XT_CLASS_ALL) == XT_CLASS_GUEST )
    {
        p += sprintf(p, XT_GUEST_EVENT_NAME, rec->event & ~XT_CLASS_ALL);
        return put_words(p, rec, 0);
    }
    if ( !d )
    {
        p = put_lit(p, "event ");
        p = put_hex(p, rec->event);
        return put_words(p, rec, 0);
    }
    memcpy(p, d->name, XT_EVENT_NAME_PAD);
    p += d->name_len;
    if ( d->id != rec->event && is_nested_hvm(rec->event) )
        p = put_lit(p, " nested");
    for ( i = 0; i < d->nr_fields; i++ )
    {
        const struct xt_field *f = &d->fields[i];
        unsigned int left = n > word ? n - word : 0;

        p = put_field(p, f, rec->extra + word, left);
        word += xt_field_words(f->kind);
    }
    if ( xt_is_runstate_change(rec->event) )
    {
        *p++ = ' ';
        p = put_runstate(p, xt_runstate_old(rec->event));
        p = put_lit(p, "->");
        p = put_runstate(p, xt_runstate_new(rec->event));
    }
    return put_words(p, rec, word);
}

bool xt_record_field(const struct xt_record *rec, const char *name,
                     uint32_t *word)
{
    const struct xt_event_desc *d = xt_event_find_xen(rec->event,
                                                      rec->xen_version);
    unsigned int i, at = 0;

    for ( i = 0; d && i < d->nr_fields && at < rec->nr_extra; i++ )
    {
        if ( !strcmp(d->fields[i].name, name) )
        {
            *word = rec->extra[at];
            return true;
        }
        at += xt_field_words(d->fields[i].kind);
    }
    return false;
}

/* Whether field @name is @what ("dom", "vcpu"), or "PREFIX_" @what. */
static bool field_is(const struct xt_field *f, const char *what,
                     size_t *prefix)
{
    size_t n = strlen(what);

    if ( f->name_len < n || strcmp(f->name + f->name_len - n, what) )
        return false;
    *prefix = f->name_len - n;
    return !*prefix || f->name[*prefix - 1] == '_';
}

unsigned int xt_record_vcpus(const struct xt_record *rec,
                             uint32_t out[XT_RECORD_VCPUS_MAX])
{
    const struct xt_event_desc *d = xt_event_find_xen(rec->event,
                                                      rec->xen_version);
    unsigned int i, word = 0, n = 0;

    for ( i = 0; d && i < d->nr_fields && n < XT_RECORD_VCPUS_MAX; i++ )
    {
        const struct xt_field *f = &d->fields[i], *next = f + 1;
        uint32_t w = rec->extra[word];
        size_t pre, next_pre;

        if ( word >= rec->nr_extra )
            break;
        if ( f->kind == XT_FIELD_DOMVCPU )
            out[n++] = w;
        else if ( f->kind == XT_FIELD_VCPUDOM )
            out[n++] = w << 16 | w >> 16;
        else if ( field_is(f, "dom", &pre) )
            out[n++] = (w & 0xffffu) << 16 |
                       (i + 1 < d->nr_fields && word + 1 < rec->nr_extra &&
                        field_is(next, "vcpu", &next_pre) &&
                        next_pre == pre && !strncmp(f->name, next->name, pre)
                        ? rec->extra[word + 1] & 0xffffu : XT_VCPU_ANY);
        word += xt_field_words(f->kind);
    }
    return n;
}

size_t xt_record_format(const struct xt_record *rec, char *buf, size_t size)
{
    char tmp[XT_RECORD_FORMAT_MAX];
    size_t len;

    if ( size >= XT_RECORD_FORMAT_MAX )
    {
        len = put_record(buf, rec) - buf;
        buf[len] = '\0';
        return len;
    }
    len = put_record(tmp, rec) - tmp;
    if ( size )
    {
        size_t n = len < size - 1 ? len : size - 1;

        memcpy(buf, tmp, n);
        buf[n] = '\0';
    }
    return len;
}
