/*
 * Lists of domains given by number or by name, "0,2-3,web-01", as the
 * readers' --domain and xentrace's -d take them: each item with a letter
 * is a name, which the caller's lookup turns into its id; numbers and
 * ranges stay as they are, for numbers.h's list parser.
 */
#ifndef NAMES_H
#define NAMES_H

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether list item @item is a name: it has a letter. */
static inline bool names_is_name(const char *item)
{
    for ( ; *item; item++ )
        if ( isalpha((unsigned char)*item) )
            return true;
    return false;
}

/*
 * @arg with each name replaced by the id @lookup gives it (false: no such
 * name), malloc'd.  NULL without memory (errno ENOMEM), or if a name is
 * not known: then *@unknown is that name, malloc'd.
 */
static inline char *names_to_ids(const char *arg,
                                 bool (*lookup)(void *ctx, const char *name,
                                                uint32_t *id),
                                 void *ctx, char **unknown)
{
    /* An id is at most 10 digits, and no name is shorter than 1 byte. */
    char *ids = malloc(11 * strlen(arg) + 1), *out = ids;
    const char *item = arg;

    *unknown = NULL;
    if ( !ids )
        return NULL;
    *out = '\0';
    while ( *item )
    {
        size_t len = strcspn(item, ",");
        char *one = strndup(item, len);
        uint32_t id;

        if ( !one )
        {
            free(ids);
            return NULL;
        }
        if ( !names_is_name(one) )
            out = stpcpy(out, one);     /* ids and ranges, checked later */
        else if ( lookup(ctx, one, &id) )
            out += sprintf(out, "%" PRIu32, id);
        else
        {
            *unknown = one;
            free(ids);
            return NULL;
        }
        free(one);
        item += len;
        if ( *item == ',' )
            *out++ = *item++;
        *out = '\0';
    }
    return ids;
}

#endif /* NAMES_H */
