/*
 * numbers: the one grammar of the numbers, sizes and lists that
 * xentrace-ng's tools take as arguments: xentrace's options, the readers'
 * (tools/readers/lib/cli.c, view.c, and libxtfile's --xen-version) and
 * xen-sim's.  Private to the tools; not installed.
 *
 *   number  unsigned decimal digits, nothing else: no sign, no blank, no
 *           "+", no "0x"; leading zeros are fine (007 is 7).  One that
 *           does not fit 64 bits is too large, never wrapped.
 *   size    where an option takes bytes (xentrace -M, --batch-size): a
 *           number with an optional suffix k, M or G in either case,
 *           which may be followed by B or iB.  The suffixes are powers of
 *           1024, because a size is bytes of memory: 64k is 65536, and
 *           400M, 400MB and 400MiB are the same.  Options that count
 *           something else (xentrace -S pages, -r MB) take a number.
 *   list    comma-separated items, each N, N-M (N to M, N <= M), -M (0 to
 *           M) or N- (N to the last the caller allows): "0-3,7", "4-".
 *           The same item twice is the same as once.
 *   code    where an option takes an event or an event mask (xentrace -e,
 *           --event) or an interrupt vector (xentrace-summary
 *           --interrupt-rips): a number, or "0x" (or "0X") and hex digits
 *           only.
 *
 * A frequency is not a size: the readers' --cpu-hz counts Hz with SI
 * suffixes (K is 1000) and takes fractions ("2.4G"); cli_parse_hz() is
 * that grammar, on num_digits().
 *
 * strtoul(3) is not the grammar: it skips blanks, takes a sign and wraps
 * "-1" to ULONG_MAX.  The readers' lists and xen-sim's numbers accepted
 * such spellings (" 1", "+1", "1- 2") by accident until they shared this
 * grammar; they are refused now.
 *
 * Each parser returns NULL, or why not, as strtonum(3) says it:
 * "invalid", "too small", "too large"; a list's reason names the item and
 * the range.  None prints or exits: callers say "xentrace: -S 0: too
 * small".
 */
#ifndef XT_NUMBERS_H
#define XT_NUMBERS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Room for the reason of num_parse_list(). */
#define NUM_WHY_SIZE    96

/*
 * The decimal digits at @s as *@n, and the first character after them
 * (@s itself if there is none).  *@over says whether they pass 64 bits;
 * *@n is then ULLONG_MAX.
 */
static inline const char *num_digits(const char *s, unsigned long long *n,
                                     bool *over)
{
    unsigned long long v = 0;

    *over = false;
    for ( ; *s >= '0' && *s <= '9'; s++ )
        if ( !*over && (__builtin_mul_overflow(v, 10, &v) ||
                        __builtin_add_overflow(v, *s - '0', &v)) )
            *over = true;
    *n = *over ? ULLONG_MAX : v;
    return s;
}

/* Why @n (past 64 bits if @over) is not from @min to @max, or NULL. */
static inline const char *num_check(unsigned long long n, bool over,
                                    unsigned long long min,
                                    unsigned long long max)
{
    if ( over || n > max )
        return "too large";
    if ( n < min )
        return "too small";
    return NULL;
}

/* A number from @min to @max into *@n, like strtonum(3). */
static inline const char *num_parse(const char *arg, unsigned long long min,
                                    unsigned long long max,
                                    unsigned long long *n)
{
    unsigned long long v;
    bool over;
    const char *end = num_digits(arg, &v, &over), *why;

    if ( end == arg || *end )
        return "invalid";
    if ( (why = num_check(v, over, min, max)) )
        return why;
    *n = v;
    return NULL;
}

/* The value of hex digit @c, or -1. */
static inline int num_hex_digit(char c)
{
    if ( c >= '0' && c <= '9' )
        return c - '0';
    if ( (c | 0x20) >= 'a' && (c | 0x20) <= 'f' )
        return (c | 0x20) - 'a' + 10;
    return -1;
}

/* A code, the @len bytes at @s, from @min to @max into *@n. */
static inline const char *num_parse_code(const char *s, size_t len,
                                         unsigned long long min,
                                         unsigned long long max,
                                         unsigned long long *n)
{
    unsigned long long v = 0;
    bool over = false;
    const char *end, *why;
    size_t i;

    if ( len > 2 && s[0] == '0' && (s[1] | 0x20) == 'x' )
    {
        for ( i = 2; i < len && num_hex_digit(s[i]) >= 0; i++ )
            if ( !over && v >> 60 )
                over = true;
            else if ( !over )
                v = v << 4 | num_hex_digit(s[i]);
        end = s + i;
    }
    else
        end = num_digits(s, &v, &over);
    if ( !len || end != s + len )
        return "invalid";
    if ( (why = num_check(over ? ULLONG_MAX : v, over, min, max)) )
        return why;
    *n = v;
    return NULL;
}

/* The multiplier of a size suffix ("", k, M, G, then "", B or iB), or 0. */
static inline unsigned long long num_size_unit(const char *s)
{
    unsigned int shift;

    switch ( *s )
    {
    case '\0':          return 1;
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default:            return 0;
    }
    s++;
    if ( *s && strcmp(s, "B") && strcmp(s, "iB") )
        return 0;
    return 1ULL << shift;
}

/* A size from @min to @max bytes into *@bytes. */
static inline const char *num_parse_size(const char *arg,
                                         unsigned long long min,
                                         unsigned long long max,
                                         unsigned long long *bytes)
{
    unsigned long long n, unit;
    bool over;
    const char *end = num_digits(arg, &n, &over), *why;

    if ( end == arg )
        return "invalid";
    if ( !(unit = num_size_unit(end)) )
        return "invalid (a number of bytes, or with k, M or G)";
    if ( over || n > max / unit )
        return "too large";
    if ( (why = num_check(n * unit, false, min, max)) )
        return why;
    *bytes = n * unit;
    return NULL;
}

/*
 * The item of @len characters at @s, N, N-M, -M or N-, as the range
 * *@first to *@last within 0 to @last_allowed.
 */
static inline const char *num_parse_item(const char *s, size_t len,
                                         unsigned long long last_allowed,
                                         unsigned long long *first,
                                         unsigned long long *last)
{
    const char *stop = s + len, *end = s, *second;
    bool over_first = false, over_last = false;

    *first = 0;
    *last = last_allowed;
    if ( *s != '-' )
    {
        end = num_digits(s, first, &over_first);
        if ( end == s )
            return "invalid";
        *last = *first;
        over_last = over_first;
    }
    if ( end < stop && *end == '-' )
    {
        second = end + 1;
        end = num_digits(second, last, &over_last);
        if ( end == second )
        {
            if ( second == s + 1 )      /* "-" alone */
                return "invalid";
            *last = last_allowed;       /* N- */
        }
    }
    if ( end != stop )
        return "invalid";
    if ( over_first || *first > last_allowed )
        return "too large";
    if ( *first > *last )
        return "wrong order";
    if ( over_last || *last > last_allowed )
        return "too large";
    return NULL;
}

/*
 * @len characters of @item into @shown, of at least NUM_SHOWN + 1 bytes,
 * as a reason shows them: one short line, whatever the input.  A long
 * item is cut and ends in "...", and a byte that is not printable ASCII
 * is a '?'.
 */
#define NUM_SHOWN       20

static inline void num_show(char *shown, const char *item, size_t len)
{
    size_t n = len > NUM_SHOWN ? NUM_SHOWN - 3 : len, i;

    for ( i = 0; i < n; i++ )
        shown[i] = item[i] >= 0x20 && item[i] < 0x7f ? item[i] : '?';
    strcpy(shown + n, len > n ? "..." : "");
}

/*
 * A list of items from 0 to @nr - 1 (@nr > 0), OR-ed into @bitmap of
 * (@nr + 7) / 8 bytes: bit i of byte i / 8 for item i.  @what names the
 * items in the reason, written to @why of @size bytes (NUM_WHY_SIZE is
 * enough), such as "9-12: too large (CPUs 0 to 7)"; the bitmap then holds
 * the items before the bad one.  NULL, or @why.
 */
static inline const char *num_parse_list(const char *arg,
                                         unsigned long long nr,
                                         const char *what, uint8_t *bitmap,
                                         char *why, size_t size)
{
    const char *item = arg;

    for ( ;; )
    {
        size_t len = strcspn(item, ",");
        unsigned long long first, last, i;
        const char *reason;
        char shown[NUM_SHOWN + 1];

        if ( !len )
        {
            snprintf(why, size, "empty item (%s 0 to %llu)", what, nr - 1);
            return why;
        }
        if ( (reason = num_parse_item(item, len, nr - 1, &first, &last)) )
        {
            num_show(shown, item, len);
            snprintf(why, size, "%s: %s (%s 0 to %llu)", shown, reason, what,
                     nr - 1);
            return why;
        }
        for ( i = first; i <= last; i++ )
            bitmap[i / 8] |= 1U << (i % 8);
        if ( !item[len] )
            return NULL;
        item += len + 1;
    }
}

/* Whether num_parse_list() put item @i in @bitmap. */
static inline bool num_list_has(const uint8_t *bitmap, unsigned long long i)
{
    return bitmap[i / 8] & 1u << i % 8;
}

#endif /* XT_NUMBERS_H */
