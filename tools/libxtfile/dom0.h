/*
 * libxtfile's table of what a file says of dom0's lanes (xtfile.h, "Dom0's
 * kernel events"), filled by the reader from TRC_XT_DOM0 records.
 * Private to the library.
 */
#ifndef XTFILE_DOM0_H
#define XTFILE_DOM0_H

#include <stdbool.h>

#include "xtread.h"


struct dom0_pair {
    uint64_t tsc, ns;
};

struct dom0_table {
    struct xt_dom0_info info;
    struct xt_dom0_type *types;         /* [XT_DOM0_TYPES], once named */
    struct dom0_pair *pairs;            /* [XT_DOM0_PAIRS_MAX] */
    unsigned int nr_pairs;
};

void dom0_table_free(struct dom0_table *t);

/*
 * Take @rec if it is a TRC_XT_DOM0 record: true if it was one.  What the
 * lanes are and their names only from the file's first batch (@first):
 * a later telling would make a CPU a lane after its records were taken
 * as Xen's, and two readings of the file disagree.
 */
bool dom0_take(struct dom0_table *t, const struct xt_record *rec,
               bool first);

bool dom0_clock(const struct dom0_table *t, struct xt_dom0_clock *c);
const struct xt_dom0_type *dom0_type(const struct dom0_table *t,
                                     unsigned int type);

#endif /* XTFILE_DOM0_H */
