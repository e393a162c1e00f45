/*
 * libFuzzer target: xentrace's option parsers (tools/xentrace/options.c)
 * and the grammar of numbers, sizes and lists they share with the other
 * tools (tools/common/numbers.h).
 *
 * Input: byte 0 picks the parser (CPU mask, event mask, number, size,
 * domain filter), byte 1 its limits (for a CPU mask, a
 * host of 1 + byte 1 CPUs); the rest is the argument, up to the first
 * NUL, in a buffer of exactly its size (so that ASan sees any read past
 * the terminator).  Each parser is compared with a model written here
 * from the descriptions in options.h and numbers.h alone: both must
 * accept the same arguments and give the same value.  On top of that:
 * a CPU mask never sets a bit at or beyond max_cpus and never writes past
 * its (max_cpus + 7) / 8 bytes, a number or size is within [min, max],
 * and a reason is one short line.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <public/trace.h>

#include "numbers.h"
#include "options.h"
#include "xtfile.h"

/* A reason is a short, non-empty line. */
static void check_reason(const char *why)
{
    size_t len = strlen(why);

    if ( !len || len > 100 || strchr(why, '\n') )
        abort();
}

/* A decimal number of @len digits, false if not all digits or too large. */
static bool model_decimal(const char *s, size_t len, unsigned long long *n)
{
    unsigned long long v = 0;
    size_t i;

    if ( !len )
        return false;
    for ( i = 0; i < len; i++ )
    {
        if ( !isdigit((unsigned char)s[i]) )
            return false;
        if ( __builtin_mul_overflow(v, 10, &v) ||
             __builtin_add_overflow(v, s[i] - '0', &v) )
            return false;
    }
    *n = v;
    return true;
}

static bool model_hex(const char *s, size_t len, unsigned long long *n)
{
    unsigned long long v = 0;
    size_t i;

    if ( !len )
        return false;
    for ( i = 0; i < len; i++ )
    {
        unsigned char c = s[i];

        if ( !isxdigit(c) || v >> 60 )
            return false;
        v = v << 4 | (isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
    }
    *n = v;
    return true;
}

static void fuzz_number(const char *arg, unsigned long long min,
                        unsigned long long max)
{
    unsigned long long n = 0, want;
    const char *why = num_parse(arg, min, max, &n);
    bool ok = model_decimal(arg, strlen(arg), &want) &&
              want >= min && want <= max;

    if ( why )
        check_reason(why);
    if ( !why != ok || (ok && (n != want || n < min || n > max)) )
        abort();
}

/* Suffixes of a size: "", then k, m, g in either case, then "", B or iB. */
static unsigned long long model_unit(const char *s)
{
    unsigned int shift;

    if ( !*s )
        return 1;
    switch ( *s++ )
    {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: return 0;
    }
    if ( *s && strcmp(s, "B") && strcmp(s, "iB") )
        return 0;
    return 1ULL << shift;
}

static void fuzz_size(const char *arg, unsigned long long min,
                      unsigned long long max)
{
    unsigned long long bytes = 0, n, unit, want;
    const char *why = num_parse_size(arg, min, max, &bytes);
    size_t digits = strspn(arg, "0123456789");
    bool ok = model_decimal(arg, digits, &n) &&
              (unit = model_unit(arg + digits)) &&
              !__builtin_mul_overflow(n, unit, &want) &&
              want >= min && want <= max;

    if ( why )
        check_reason(why);
    if ( !why != ok || (ok && (bytes != want || bytes < min || bytes > max)) )
        abort();
}

static bool model_evt_element(const char *s, size_t len, uint32_t *mask)
{
    const struct evt_class *c;
    unsigned long long n;

    for ( c = evt_classes; c->name; c++ )
        if ( strlen(c->name) == len && !memcmp(s, c->name, len) )
        {
            *mask = c->mask;
            return true;
        }
    if ( len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') )
    {
        if ( !model_hex(s + 2, len - 2, &n) )
            return false;
    }
    else if ( !model_decimal(s, len, &n) )
        return false;
    if ( n > UINT32_MAX )
        return false;
    *mask = n;
    return true;
}

static void fuzz_evt_mask(const char *arg)
{
    uint32_t mask = 0xdeadbeef, want = 0, one;
    const char *why = parse_evt_mask(arg, &mask), *s = arg;
    bool ok = true;

    for ( ;; )
    {
        size_t len = strcspn(s, ",");

        if ( !model_evt_element(s, len, &one) )
        {
            ok = false;
            break;
        }
        want |= one;
        if ( !s[len] )
            break;
        s += len + 1;
    }
    want &= 0x0fffffff;
    if ( !((want >> TRC_CLS_SHIFT) & 0xfff) ||
         !((want >> TRC_SUBCLS_SHIFT) & 0xf) )
        ok = false;

    if ( why )
        check_reason(why);
    if ( !why != ok || (ok && mask != want) )
        abort();
}

static void set_bit(uint8_t *bitmap, unsigned long long cpu)
{
    bitmap[cpu / 8] |= 1U << (cpu % 8);
}

/* One element of a CPU list: N, N-M, -M or N-. */
static bool model_cpu_range(const char *s, size_t len, unsigned int max_cpus,
                            uint8_t *bitmap)
{
    const char *dash = memchr(s, '-', len);
    unsigned long long first = 0, last = max_cpus - 1, cpu;

    if ( !dash )
    {
        if ( !model_decimal(s, len, &first) )
            return false;
        last = first;
    }
    else
    {
        size_t before = dash - s, after = len - before - 1;

        if ( before + after == 0 ||
             (before && !model_decimal(s, before, &first)) ||
             (after && !model_decimal(dash + 1, after, &last)) )
            return false;
    }
    if ( first > last || last >= max_cpus )
        return false;
    for ( cpu = first; cpu <= last; cpu++ )
        set_bit(bitmap, cpu);
    return true;
}

static bool model_cpu_mask(const char *arg, unsigned int max_cpus,
                           uint8_t *bitmap)
{
    size_t bytes = (max_cpus + 7) / 8, i;
    const char *s = arg;

    if ( !strcmp(arg, "all") )
    {
        for ( i = 0; i < max_cpus; i++ )
            set_bit(bitmap, i);
        return true;
    }
    if ( arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X') )
    {
        size_t digits = strlen(arg + 2);

        if ( !digits )
            return false;
        for ( i = 0; i < digits; i++ )
        {
            unsigned long long v;
            unsigned int b;

            if ( !model_hex(arg + 2 + digits - 1 - i, 1, &v) )
                return false;
            for ( b = 0; b < 4; b++ )
                if ( v & (1U << b) )
                {
                    if ( 4 * i + b >= max_cpus )
                        return false;
                    set_bit(bitmap, 4 * i + b);
                }
        }
    }
    else
        for ( ;; )
        {
            size_t len = strcspn(s, ",");

            if ( !model_cpu_range(s, len, max_cpus, bitmap) )
                return false;
            if ( !s[len] )
                break;
            s += len + 1;
        }
    for ( i = 0; i < bytes; i++ )
        if ( bitmap[i] )
            return true;
    return false;
}

static void fuzz_cpu_mask(const char *arg, unsigned int max_cpus)
{
    size_t bytes = (max_cpus + 7) / 8, i;
    uint8_t *got = malloc(bytes), *want = calloc(1, bytes);
    const char *why;
    bool ok;

    if ( !got || !want )
        abort();
    memset(got, 0xa5, bytes);
    why = parse_cpu_mask(arg, max_cpus, got);
    ok = model_cpu_mask(arg, max_cpus, want);
    if ( why )
        check_reason(why);
    if ( !why != ok || (ok && memcmp(got, want, bytes)) )
        abort();
    for ( i = max_cpus; !why && i < 8 * bytes; i++ )
        if ( got[i / 8] & (1U << (i % 8)) )
            abort();
    free(got);
    free(want);
}

/*
 * A domain filter: its ranges ascending, apart, within the ids, no more
 * than XT_DOM_RANGES_MAX, and together the ids of numbers.h's list.
 */
static void fuzz_domains(const char *arg)
{
    static uint8_t ids[XT_DOM_IDS / 8];
    struct xt_dom_filter doms;
    char why[NUM_WHY_SIZE];
    const char *reason = parse_domains(arg, &doms);
    unsigned int i, id, next = 0;

    memset(ids, 0, sizeof(ids));
    if ( reason )
    {
        check_reason(reason);
        return;
    }
    if ( !doms.nr || doms.nr > XT_DOM_RANGES_MAX ||
         num_parse_list(arg, XT_DOM_IDS, "domains", ids, why, sizeof(why)) )
        abort();
    for ( i = 0; i < doms.nr; i++ )
    {
        unsigned int first = doms.range[i] >> 16;
        unsigned int last = doms.range[i] & 0xffff;

        if ( first > last || last >= XT_DOM_IDS || (i && first <= next) )
            abort();
        for ( id = next; id < first; id++ )
            if ( ids[id / 8] & 1u << id % 8 )
                abort();
        for ( id = first; id <= last; id++ )
            if ( !(ids[id / 8] & 1u << id % 8) )
                abort();
        next = last + 1;
    }
    for ( id = next; id < XT_DOM_IDS; id++ )
        if ( ids[id / 8] & 1u << id % 8 )
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned long long limits[][2] = {
        { 0, UINT64_MAX }, { 1, 65535 }, { 64 << 10, 1ULL << 40 },
        { 4 << 10, 256 << 20 }, { 0, 0 }, { 7, 7 }, { 1, 31536000 },
        { 1ULL << 32, UINT64_MAX },
    };
    const unsigned long long *lim;
    size_t len;
    char *arg;

    if ( size < 2 )
        return 0;
    lim = limits[data[1] % 8];
    len = strnlen((const char *)data + 2, size - 2);
    arg = malloc(len + 1);
    if ( !arg )
        abort();
    memcpy(arg, data + 2, len);
    arg[len] = '\0';

    switch ( data[0] % 5 )
    {
    case 0: fuzz_cpu_mask(arg, 1 + data[1]); break;
    case 1: fuzz_evt_mask(arg); break;
    case 2: fuzz_number(arg, lim[0], lim[1]); break;
    case 3: fuzz_size(arg, lim[0], lim[1]); break;
    case 4: fuzz_domains(arg); break;
    }
    free(arg);
    return 0;
}
