/*
 * Parsing xentrace's option arguments.  See options.h.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <public/trace.h>

#include "numbers.h"
#include "options.h"
#include "xtfile.h"

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

/* One element of an -e list: a keyword or a number. */
static const char *parse_evt_element(const char *s, size_t len, uint32_t *mask)
{
    const struct evt_class *c;
    const char *why;
    unsigned long long n;

    for ( c = evt_classes; c->name; c++ )
        if ( strlen(c->name) == len && !strncmp(s, c->name, len) )
        {
            *mask = c->mask;
            return NULL;
        }

    if ( (why = num_parse_code(s, len, 0, UINT32_MAX, &n)) )
        return strcmp(why, "invalid") ? why
                                      : "not a number or a class (see "
                                        "xentrace(8))";
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

/* CPU @cpu of a hex mask, beyond the host's. */
static const char *no_such_cpu(unsigned long long cpu, unsigned int max_cpus)
{
    static char why[NUM_WHY_SIZE];

    snprintf(why, sizeof(why), "CPU %llu: too large (CPUs 0 to %u)", cpu,
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
        int bits = num_hex_digit(hex[digits - 1 - i]);
        unsigned int b;

        if ( bits < 0 )
            return "invalid";
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
    static char list_why[NUM_WHY_SIZE];
    size_t bytes = (max_cpus + 7) / 8;
    const char *why = NULL;

    if ( max_cpus == 0 )
        return "the host has no CPU";
    memset(bitmap, 0, bytes);
    if ( !strcmp(arg, "all") )
        set_cpus(bitmap, 0, max_cpus - 1);
    else if ( arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X') )
        why = parse_cpu_hex(arg + 2, max_cpus, bitmap);
    else
        why = num_parse_list(arg, max_cpus, "CPUs", bitmap, list_why,
                             sizeof(list_why));

    if ( !why && bitmap_empty(bitmap, bytes) )
        why = "selects no CPU";
    return why;
}

static bool has_id(const uint8_t *bitmap, unsigned int id)
{
    return bitmap[id / 8] & 1u << id % 8;
}

const char *parse_domains(const char *arg, struct xt_dom_filter *doms)
{
    static char why[NUM_WHY_SIZE];
    static uint8_t bitmap[XT_DOM_IDS / 8];
    const char *reason;
    unsigned int id, last;

    memset(bitmap, 0, sizeof(bitmap));
    if ( (reason = num_parse_list(arg, XT_DOM_IDS, "domains", bitmap, why,
                                  sizeof(why))) )
        return reason;
    *doms = (struct xt_dom_filter){ 0 };
    for ( id = 0; id < XT_DOM_IDS; id = last + 1 )
    {
        last = id;
        if ( !has_id(bitmap, id) )
            continue;
        while ( last + 1 < XT_DOM_IDS && has_id(bitmap, last + 1) )
            last++;
        if ( doms->nr == XT_DOM_RANGES_MAX )
            return "more than 64 ranges";
        doms->range[doms->nr++] = id << 16 | last;
    }
    return doms->nr ? NULL : "selects no domain";
}
