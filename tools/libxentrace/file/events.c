/*
 * libxentrace, the event catalogue: names and payloads of events
 * (xtread.h), from the tables gen-trace-events makes out of
 * tools/libxentrace/file/trace-events, and records formatted as text.
 *
 * Formatting is by hand, not printf: xentrace-dump formats every record
 * of files of gigabytes.
 */
#include <string.h>

#include "catalogue.h"
#include "decimal.h"
#include "xtread.h"

#define RUNSTATE_CHANGE     0x00021001u
#define RUNSTATE_MASK       0x00000ff0u   /* old << 8 | new << 4 */
#define HVM_CLASS           0x00080000u
#define HVM_NESTED          0x00000400u   /* TRC_HVM_NESTEDFLAG */

/* A lookup per record formatted: hashed, not a binary search. */
static const struct xt_event_desc *find_exact(uint32_t event)
{
    unsigned int mask = (1u << xt_event_hash_bits) - 1;
    unsigned int h = (event * XT_EVENT_HASH_MULT) >>
                     (32 - xt_event_hash_bits);

    for ( ; xt_event_hash[h]; h = (h + 1) & mask )
        if ( xt_event_descs[xt_event_hash[h] - 1].id == event )
            return &xt_event_descs[xt_event_hash[h] - 1];
    return NULL;
}

static bool is_runstate_change(uint32_t event)
{
    return (event & ~RUNSTATE_MASK) == RUNSTATE_CHANGE;
}

static bool is_nested_hvm(uint32_t event)
{
    return (event & 0x0fff0000u) == HVM_CLASS && (event & HVM_NESTED);
}

const struct xt_event_desc *xt_event_find(uint32_t event)
{
    const struct xt_event_desc *d = find_exact(event);

    if ( d )
        return d;
    if ( is_runstate_change(event) )
        return find_exact(RUNSTATE_CHANGE);
    if ( is_nested_hvm(event) )
        return find_exact(event & ~HVM_NESTED);
    return NULL;
}

const struct xt_event_desc *xt_event_table(size_t *n)
{
    *n = xt_nr_event_descs;
    return xt_event_descs;
}

const char *xt_event_class(uint32_t event)
{
    switch ( (event >> 16) & 0xfff )
    {
    case 0x001: return "gen";
    case 0x002: return "sched";
    case 0x004: return "dom0op";
    case 0x008: return "hvm";
    case 0x010: return "mem";
    case 0x020: return "pv";
    case 0x040: return "shadow";
    case 0x080: return "hw";
    case 0x800: return "guest";
    default:    return "?";
    }
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

/* "d1v0"; Xen's idle domain (DOMID_IDLE) as every reader names it. */
static char *put_dv(char *p, uint32_t dom, uint32_t vcpu)
{
    if ( dom == 0x7fff )
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
    switch ( rs )
    {
    case 0:  return put_lit(p, "running");
    case 1:  return put_lit(p, "runnable");
    case 2:  return put_lit(p, "blocked");
    case 3:  return put_lit(p, "offline");
    default: return put_lit(p, "?");
    }
}

/* Field @f from the words at @w, of which @left remain. */
static char *put_field(char *p, const struct xt_field *f, const uint32_t *w,
                       unsigned int left)
{
    unsigned int need = f->kind == XT_FIELD_U64 || f->kind == XT_FIELD_X64 ?
                        2 : 1;

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
        return put_dv(p, w[0] >> 16, w[0] & 0xffff);
    case XT_FIELD_VCPUDOM:
        return put_dv(p, w[0] & 0xffff, w[0] >> 16);
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
    const struct xt_event_desc *d = xt_event_find(rec->event);
    unsigned int i, word = 0, n = rec->nr_extra < 7 ? rec->nr_extra : 7;

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
        word += f->kind == XT_FIELD_U64 || f->kind == XT_FIELD_X64 ? 2 : 1;
    }
    if ( is_runstate_change(rec->event) )
    {
        *p++ = ' ';
        p = put_runstate(p, (rec->event >> 8) & 0xf);
        p = put_lit(p, "->");
        p = put_runstate(p, (rec->event >> 4) & 0xf);
    }
    return put_words(p, rec, word);
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
