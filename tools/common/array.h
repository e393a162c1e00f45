/*
 * array: the one growable array of xentrace-ng's tools.  The caller keeps
 * the pointer and its capacity; array_fit() makes room by doubling, so
 * that n appends cost O(n) copies in all.  Private to the tools; not
 * installed.
 */
#ifndef XT_ARRAY_H
#define XT_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make room for @need elements of @size bytes in the array at *@arr,
 * which has room for *@cap: at least 16, doubling, the new elements
 * zeroed.  0, or -1 with errno ENOMEM and the array as it was.
 */
static inline int array_fit(void *arr, size_t *cap, size_t need, size_t size)
{
    void **p = arr;
    size_t n = *cap ? *cap : 16;
    char *bigger;

    if ( need <= *cap )
        return 0;
    while ( n < need )
    {
        if ( n > SIZE_MAX / 2 )
            goto nomem;
        n *= 2;
    }
    if ( n > SIZE_MAX / size )
        goto nomem;
    bigger = realloc(*p, n * size);
    if ( !bigger )
        goto nomem;
    memset(bigger + *cap * size, 0, (n - *cap) * size);
    *p = bigger;
    *cap = n;
    return 0;

 nomem:
    errno = ENOMEM;
    return -1;
}

#endif /* XT_ARRAY_H */
