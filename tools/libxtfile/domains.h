/*
 * libxtfile's table of the domains a file names (xtfile.h, "Domains"),
 * filled by the reader from their records.  Private to the library.
 */
#ifndef XTFILE_DOMAINS_H
#define XTFILE_DOMAINS_H

#include <stdbool.h>

#include "hashtab.h"
#include "xtread.h"

struct named;

struct domains {
    struct named *named;        /* in the order they were first told */
    size_t cap;
    struct hashtab by_id;
};

void domains_free(struct domains *t);

/*
 * Take @rec if it is a domain's record: true if it was one.  A record
 * for which there is no memory is dropped (the domain stays a number).
 */
bool domains_take(struct domains *t, const struct xt_record *rec);

const struct xt_domain_info *domains_find(const struct domains *t,
                                          uint32_t domid);
unsigned int domains_count(const struct domains *t);
const struct xt_domain_info *domains_at(const struct domains *t,
                                        unsigned int i);

#endif /* XTFILE_DOMAINS_H */
