/*
 * libxtfile: domains' names and UUIDs (xtfile.h, "Domains"): their
 * records for the writer, and the reader's table of them.
 */
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "domains.h"
#include "put.h"
#include "xtfile.h"

size_t xt_domain_put(const struct xt_domain *d, const uint64_t *tsc,
                     uint32_t *words)
{
    size_t len = strnlen(d->name, XT_DOMAIN_NAME_MAX);
    uint32_t head[6] = { d->domid };
    uint32_t *p = words;
    size_t off;
    unsigned int i;

    for ( i = 0; i < 16; i++ )
        head[1 + i / 4] |= (uint32_t)d->uuid[i] << (24 - 8 * (i % 4));
    head[5] = len;
    p = put_record(p, TRC_XT_DOMAIN, tsc, head, 6);
    for ( off = 0; off < len; off += XT_DOMAIN_PIECE )
    {
        uint32_t piece[7] = { d->domid, off };
        size_t n = len - off < XT_DOMAIN_PIECE ? len - off : XT_DOMAIN_PIECE;

        memcpy(&piece[2], d->name + off, n);
        p = put_record(p, TRC_XT_DOMAIN_NAME, tsc, piece, 7);
    }
    return p - words;
}

const char *xt_uuid_text(const uint8_t uuid[16], char buf[XT_UUID_TEXT])
{
    char *p = buf;
    unsigned int i;

    for ( i = 0; i < 16; i++ )
        p += sprintf(p, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ?
                                  "-" : "", uuid[i]);
    return buf;
}

/*
 * The reader's table
 * ==================
 */

#define PIECES ((XT_DOMAIN_NAME_MAX + XT_DOMAIN_PIECE - 1) / XT_DOMAIN_PIECE)

struct named {
    struct xt_domain_info info;
    /* The name being told: its length, and the pieces come so far. */
    char telling[XT_DOMAIN_NAME_MAX + 1];
    uint32_t telling_bytes;
    uint8_t pieces_due;         /* bit i: piece i still to come */
    bool told;                  /* a name was told whole before */
};

static uint64_t domid_of(const void *base, unsigned int i)
{
    return ((const struct named *)base)[i].info.domain.domid;
}

static uint64_t hash_of(const void *base, unsigned int i)
{
    return hashtab_hash(domid_of(base, i));
}

static struct named *find(const struct domains *t, uint32_t domid)
{
    unsigned int i = hashtab_get(&t->by_id, domid, t->named, domid_of);

    return i ? &t->named[i - 1] : NULL;
}

static struct named *find_or_add(struct domains *t, uint32_t domid)
{
    struct named *n = find(t, domid);
    unsigned int s;

    if ( n )
        return n;
    if ( array_fit(&t->named, &t->cap, t->by_id.nr + 1, sizeof(*t->named)) ||
         hashtab_fit(&t->by_id, t->by_id.nr + 1, t->named, hash_of) )
        return NULL;
    s = hashtab_find(&t->by_id, domid, t->named, domid_of);
    n = &t->named[t->by_id.nr];
    memset(n, 0, sizeof(*n));
    n->info.domain.domid = domid;
    hashtab_set(&t->by_id, s, t->by_id.nr);
    return n;
}


/* The last piece came: the name is the domain's now. */
static void name_told(struct named *n, uint64_t tsc)
{
    struct xt_domain_info *in = &n->info;

    n->telling[n->telling_bytes] = '\0';
    xt_text_printable(n->telling);
    if ( !n->told )
        memcpy(in->first_name, n->telling, sizeof(in->first_name));
    else if ( strcmp(in->domain.name, n->telling) )
        in->renames++;
    memcpy(in->domain.name, n->telling, sizeof(in->domain.name));
    in->named_tsc = tsc;
    n->told = true;
}

static void take_domain(struct named *n, const struct xt_record *rec)
{
    unsigned int i;

    for ( i = 0; i < 16; i++ )
        n->info.domain.uuid[i] = rec->extra[1 + i / 4] >> (24 - 8 * (i % 4));
    n->telling_bytes = rec->extra[5] < XT_DOMAIN_NAME_MAX ?
                       rec->extra[5] : XT_DOMAIN_NAME_MAX;
    memset(n->telling, 0, sizeof(n->telling));
    n->pieces_due = (1u << ((n->telling_bytes + XT_DOMAIN_PIECE - 1) /
                            XT_DOMAIN_PIECE)) - 1;
    if ( !n->pieces_due )
        name_told(n, rec->has_tsc ? rec->tsc : 0);
}

static void take_piece(struct named *n, const struct xt_record *rec)
{
    uint32_t off = rec->extra[1], piece = off / XT_DOMAIN_PIECE;
    uint32_t bytes;

    if ( off % XT_DOMAIN_PIECE || piece >= PIECES ||
         !(n->pieces_due & 1u << piece) )
        return;                         /* not one this name waits for */
    bytes = n->telling_bytes - off < XT_DOMAIN_PIECE ?
            n->telling_bytes - off : XT_DOMAIN_PIECE;
    memcpy(n->telling + off, &rec->extra[2], bytes);
    n->pieces_due &= ~(1u << piece);
    if ( !n->pieces_due )
        name_told(n, rec->has_tsc ? rec->tsc : 0);
}

bool domains_take(struct domains *t, const struct xt_record *rec)
{
    struct named *n;

    if ( rec->event != TRC_XT_DOMAIN && rec->event != TRC_XT_DOMAIN_NAME )
        return false;
    if ( rec->nr_extra < (rec->event == TRC_XT_DOMAIN ? 6u : 7u) ||
         rec->extra[0] > 0xffff || !(n = find_or_add(t, rec->extra[0])) )
        return true;
    if ( rec->event == TRC_XT_DOMAIN )
        take_domain(n, rec);
    else
        take_piece(n, rec);
    return true;
}

const struct xt_domain_info *domains_find(const struct domains *t,
                                          uint32_t domid)
{
    const struct named *n = find(t, domid);

    return n && n->told ? &n->info : NULL;
}

unsigned int domains_count(const struct domains *t)
{
    return t->by_id.nr;
}

const struct xt_domain_info *domains_at(const struct domains *t,
                                        unsigned int i)
{
    return i < t->by_id.nr && t->named[i].told ? &t->named[i].info : NULL;
}

void domains_free(struct domains *t)
{
    free(t->named);
    hashtab_free(&t->by_id);
    *t = (struct domains){ 0 };
}
