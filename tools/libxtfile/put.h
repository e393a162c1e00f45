/*
 * libxtfile's one writer of a record xentrace-ng makes (metadata, a
 * domain's, the masks'): its header, its TSC unless @tsc is NULL, then
 * @nr words.  Returns where the next record goes.  Private to the
 * library.
 */
#ifndef XTFILE_PUT_H
#define XTFILE_PUT_H

#include <string.h>

#include "xtfile.h"

static inline uint32_t *put_record(uint32_t *p, uint32_t event,
                                   const uint64_t *tsc,
                                   const uint32_t *words, unsigned int nr)
{
    *p++ = event | nr << TRACE_EXTRA_SHIFT | (tsc ? TRC_HD_CYCLE_FLAG : 0);
    if ( tsc )
    {
        *p++ = (uint32_t)*tsc;
        *p++ = (uint32_t)(*tsc >> 32);
    }
    memcpy(p, words, nr * 4);
    return p + nr;
}

#endif /* XTFILE_PUT_H */
