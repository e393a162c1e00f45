/*
 * Parsing xentrace's option arguments.  See options.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <public/trace.h>

#include "options.h"

/* From the event catalogue's class lines (gen-trace-events --classes). */
const struct evt_class evt_classes[] = {
#define XT_CLASS(name, mask, what)  { name, mask },
#include "trace-classes.h"
#undef XT_CLASS
    { NULL,     0 },
};

#define EVENT_BITS        0x0fffffffU     /* header bits 28-31 are not */
#define CLASS_BITS(m)     (((m) >> TRC_CLS_SHIFT) & 0xfff)
#define SUBCLASS_BITS(m)  (((m) >> TRC_SUBCLS_SHIFT) & 0xf)

/*
 * The decimal number at the start of @s, stopping at the first non-digit
 * (*end).  Only digits: no sign, no blanks, which strtoull would accept.
 */
static const char *leading_number(const char *s, unsigned long long *n,
                                  const char **end)
{
    char *stop;

    if ( !isdigit((unsigned char)*s) )
        return "invalid";
    errno = 0;
    *n = strtoull(s, &stop, 10);
    if ( errno == ERANGE )
        return "too large";
    *end = stop;
    return NULL;
}

static const char *check_range(unsigned long long n, unsigned long long min,
                               unsigned long long max)
{
    if ( n < min )
        return "too small";
    if ( n > max )
        return "too large";
    return NULL;
}

const char *parse_number(const char *arg, unsigned long long min,
                         unsigned long long max, unsigned long long *n)
{
    const char *end, *why;

    if ( (why = leading_number(arg, n, &end)) )
        return why;
    if ( *end )
        return "invalid";
    return check_range(*n, min, max);
}

/* The multiplier of a size suffix, or 0 if @s is not one. */
static unsigned long long size_unit(const char *s)
{
    static const char units[] = "kmg";
    const char *unit;

    if ( !*s )
        return 1;
    unit = strchr(units, tolower((unsigned char)*s));
    if ( !unit || !*unit )
        return 0;
    s++;
    if ( *s && strcmp(s, "B") && strcmp(s, "iB") )
        return 0;
    return 1ULL << (10 * (unit - units + 1));
}

const char *parse_size(const char *arg, unsigned long long min,
                       unsigned long long max, unsigned long long *bytes)
{
    unsigned long long n, unit;
    const char *end, *why;

    if ( (why = leading_number(arg, &n, &end)) )
        return why;
    if ( !(unit = size_unit(end)) )
        return "invalid (a number of bytes, or with k, M or G)";
    if ( n > max / unit )
        return "too large";
    *bytes = n * unit;
    return check_range(*bytes, min, max);
}

/* One element of an -e list: a keyword or a number. */
static const char *parse_evt_element(const char *s, size_t len, uint32_t *mask)
{
    const struct evt_class *c;
    char *end;
    unsigned long long n;

    for ( c = evt_classes; c->name; c++ )
        if ( strlen(c->name) == len && !strncmp(s, c->name, len) )
        {
            *mask = c->mask;
            return NULL;
        }

    if ( !isdigit((unsigned char)*s) )
        return "not a number or a class (see xentrace(8))";
    errno = 0;
    /* Only hex digits after "0x": strtoull() would take a second "0x". */
    if ( len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
         strspn(s + 2, "0123456789abcdefABCDEF") == len - 2 )
        n = strtoull(s + 2, &end, 16);
    else
        n = strtoull(s, &end, 10);
    if ( end != s + len )
        return "not a number or a class (see xentrace(8))";
    if ( errno == ERANGE || n > UINT32_MAX )
        return "too large";
    *mask = n;
    return NULL;
}

const char *parse_evt_mask(const char *arg, uint32_t *mask)
{
    const char *s = arg;
    uint32_t all = 0;

    for ( ;; )
    {
        size_t len = strcspn(s, ",");
        uint32_t one;
        const char *why;

        if ( len == 0 )
            return "invalid";
        if ( (why = parse_evt_element(s, len, &one)) )
            return why;
        all |= one;
        if ( !s[len] )
            break;
        s += len + 1;
    }

    all &= EVENT_BITS;
    if ( !CLASS_BITS(all) || !SUBCLASS_BITS(all) )
        return "selects no event (a mask needs a class and a subclass bit)";
    *mask = all;
    return NULL;
}

static void set_cpus(uint8_t *bitmap, unsigned int first, unsigned int last)
{
    unsigned int cpu;

    for ( cpu = first; cpu <= last; cpu++ )
        bitmap[cpu / 8] |= 1U << (cpu % 8);
}

static const char *no_such_cpu(unsigned long long cpu, unsigned int max_cpus)
{
    static char why[80];

    snprintf(why, sizeof(why), "no CPU %llu: the last is %u", cpu,
             max_cpus - 1);
    return why;
}

/* Hex of any width: digit i from the right holds CPUs 4i to 4i + 3. */
static const char *parse_cpu_hex(const char *hex, unsigned int max_cpus,
                                 uint8_t *bitmap)
{
    size_t digits = strlen(hex), i;

    if ( !digits )
        return "invalid";
    for ( i = 0; i < digits; i++ )
    {
        unsigned char c = hex[digits - 1 - i];
        unsigned int bits, b;

        if ( !isxdigit(c) )
            return "invalid";
        bits = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
        for ( b = 0; b < 4; b++ )
        {
            unsigned long long cpu = 4ULL * i + b;

            if ( !(bits & (1U << b)) )
                continue;
            if ( cpu >= max_cpus )
                return no_such_cpu(cpu, max_cpus);
            set_cpus(bitmap, cpu, cpu);
        }
    }
    return NULL;
}

/* One element of a list: N, N-M, -M or N-. */
static const char *parse_cpu_range(const char *s, size_t len,
                                   unsigned int max_cpus, uint8_t *bitmap)
{
    unsigned long long first = 0, last = max_cpus - 1;
    const char *end = s, *stop = s + len, *why;

    if ( *s != '-' )
    {
        if ( (why = leading_number(s, &first, &end)) )
            return why;
        if ( end == stop )
            last = first;
        else if ( *end != '-' )
            return "invalid";
    }
    if ( end < stop )                   /* at the '-' */
    {
        end++;
        if ( end < stop )
        {
            if ( (why = leading_number(end, &last, &end)) )
                return why;
        }
        else if ( s + 1 == stop )       /* "-" alone */
            return "invalid";
    }
    if ( end != stop )
        return "invalid";
    if ( first >= max_cpus )
        return no_such_cpu(first, max_cpus);
    if ( first > last )
        return "wrong order";
    if ( last >= max_cpus )
        return no_such_cpu(last, max_cpus);
    set_cpus(bitmap, first, last);
    return NULL;
}

static bool bitmap_empty(const uint8_t *bitmap, size_t bytes)
{
    size_t i;

    for ( i = 0; i < bytes; i++ )
        if ( bitmap[i] )
            return false;
    return true;
}

const char *parse_cpu_mask(const char *arg, unsigned int max_cpus,
                           uint8_t *bitmap)
{
    size_t bytes = (max_cpus + 7) / 8;
    const char *s = arg, *why = NULL;

    if ( max_cpus == 0 )
        return "the host has no CPU";
    memset(bitmap, 0, bytes);
    if ( !strcmp(arg, "all") )
        set_cpus(bitmap, 0, max_cpus - 1);
    else if ( arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X') )
        why = parse_cpu_hex(arg + 2, max_cpus, bitmap);
    else
        for ( ;; )
        {
            size_t len = strcspn(s, ",");

            if ( len == 0 )
                return "invalid";
            if ( (why = parse_cpu_range(s, len, max_cpus, bitmap)) )
                break;
            if ( !s[len] )
                break;
            s += len + 1;
        }

    if ( !why && bitmap_empty(bitmap, bytes) )
        why = "selects no CPU";
    return why;
}
