/*
 * libxtfile's periods of the masks in force (xtfile.h, "Masks"), filled
 * by the reader from their records.  Private to the library.
 */
#ifndef XTFILE_MASKS_H
#define XTFILE_MASKS_H

#include <stdbool.h>

#include "xtread.h"

struct masks {
    struct xt_mask_period *periods;     /* by TSC, the start's first */
    unsigned int nr;
    size_t cap;
    uint64_t dropped;           /* changes past XT_MASK_PERIODS_MAX */
    /* The mask being told, chunk by chunk, into periods[telling - 1]. */
    uint8_t cpus[(XT_CPUS_MAX + 7) / 8];
    unsigned int telling;       /* 0: none */
};

/* All zeros is an empty table. */
void masks_free(struct masks *m);

/*
 * Take @rec if it is a mask's record of a host of @nr_cpus CPUs (0: not
 * known): true if it was one.  A change for which there is no memory, or
 * no room, is counted in dropped.
 */
bool masks_take(struct masks *m, const struct xt_record *rec,
                unsigned int nr_cpus);

#endif /* XTFILE_MASKS_H */
