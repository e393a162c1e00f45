/*
 * A CPU's counts from libxtfile's reader by its number, for the tests:
 * the reader lists CPUs by index (xt_reader_cpu()), which is all its
 * tools need.
 */
#ifndef READER_CPU_H
#define READER_CPU_H

#include <stddef.h>

#include "xtread.h"

/* CPU @cpu's counts, or NULL if it has no batch. */
static inline const struct xt_cpu_info *cpu_info(const struct xt_reader *r,
                                                 unsigned int cpu)
{
    const struct xt_cpu_info *ci;
    unsigned int i;

    for ( i = 0; (ci = xt_reader_cpu(r, i)); i++ )
        if ( ci->cpu == cpu )
            return ci;
    return NULL;
}

#endif /* READER_CPU_H */
