/*
 * The round trip of the generated trace calls: for every event of the
 * catalogue that Xen code may write, its trc_*() call (xen/trace-events.h)
 * in the host build writes a record whose decoding by the reader
 * (xt_event_find()'s fields, as every reader decodes them) gives back the
 * values passed, with a TSC where the catalogue says so.  Each call is made
 * with random values, and with every bit of every parameter set.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host_util.h"
#include "trace_calls.h"
#include "catalogue.h"          /* the catalogue's tables, libxtfile's */
#include "xtread.h"

#define MAX_PARAMS   16
#define ROUNDS       8           /* random value sets per call */

static struct tu_buf buf;

static int setup(void **state)
{
    (void)state;
    tu_boot(1, "tbuf_size=16");
    assert_int_equal(tu_set_evt_mask(TRC_ALL), 0);
    assert_int_equal(tu_enable(), 0);
    tu_map_buf(0, &buf);
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The parameters' kinds, split: "u32 dom vcpu" */
static unsigned int split_kinds(const char *params, char kinds[][8])
{
    unsigned int n = 0;
    const char *p = params;

    while ( *p )
    {
        size_t len = strcspn(p, " ");

        assert_true(n < MAX_PARAMS && len < 8);
        memcpy(kinds[n], p, len);
        kinds[n++][len] = '\0';
        p += len + (p[len] == ' ');
    }
    return n;
}

/* A value for a parameter of @kind: @random masked to what the type holds. */
static uint64_t value_for(const char *kind, uint64_t random)
{
    if ( !strncmp(kind, "rs", 2) )
        return random & 0xf;
    if ( !strcmp(kind, "dom") || !strcmp(kind, "vcpu") )
        return random & 0xffff;
    if ( !strcmp(kind, "u64") || !strcmp(kind, "x64") )
        return random;
    return random & 0xffffffffu;
}

/* The event id the call must write: the catalogue's, with its rs fields. */
static uint32_t expected_event(const struct trc_call *c, char kinds[][8],
                               unsigned int n, const uint64_t *v)
{
    uint32_t event = c->event;
    unsigned int i;

    for ( i = 0; i < n; i++ )
        if ( !strncmp(kinds[i], "rs", 2) )
            event |= (uint32_t)v[i] << atoi(kinds[i] + 2);
    return event;
}

/*
 * The values the reader decodes from @rec, one per parameter, in the
 * parameters' order (a dv or vd field is its domain, then its vCPU).
 */
static unsigned int reader_values(const struct tu_rec *rec, uint64_t *out)
{
    const struct xt_event_desc *d = xt_event_find(rec->event);
    unsigned int i, word = 0, n = 0;

    assert_non_null(d);
    assert_int_equal(rec->words, d->words);
    for ( i = 0; i < d->nr_fields; i++ )
    {
        const uint32_t *w = rec->data + word;

        switch ( d->fields[i].kind )
        {
        case XT_FIELD_U32:
        case XT_FIELD_X32:
            out[n++] = w[0];
            word++;
            break;
        case XT_FIELD_S32:
            out[n++] = (uint32_t)(int32_t)w[0];
            word++;
            break;
        case XT_FIELD_U64:
        case XT_FIELD_X64:
            out[n++] = w[0] | (uint64_t)w[1] << 32;
            word += 2;
            break;
        case XT_FIELD_DOMVCPU:
            out[n++] = w[0] >> 16;
            out[n++] = w[0] & 0xffff;
            word++;
            break;
        case XT_FIELD_VCPUDOM:
            out[n++] = w[0] & 0xffff;
            out[n++] = w[0] >> 16;
            word++;
            break;
        case XT_FIELD_TEXT20:       /* the generator refuses it here */
            fail_msg("%s: a text field in an event Xen writes", d->name);
        }
    }
    return n;
}

static void round_trip(const struct trc_call *c, uint64_t (*pick)(void))
{
    char kinds[MAX_PARAMS][8];
    uint64_t v[MAX_PARAMS], got[MAX_PARAMS];
    unsigned int i, n = split_kinds(c->params, kinds), m, payload = 0;
    struct tu_rec rec;

    for ( i = 0; i < n; i++ )
        v[i] = value_for(kinds[i], pick());
    c->call(v);
    assert_int_equal(tu_drain(&buf, &rec, 1), 1);
    assert_int_equal(tu_unconsumed(&buf), 0);

    assert_int_equal(rec.event, expected_event(c, kinds, n, v));
    assert_int_equal(rec.has_tsc, c->tsc);
    m = reader_values(&rec, got);
    for ( i = 0; i < n; i++ )
    {
        if ( !strncmp(kinds[i], "rs", 2) )
            continue;
        if ( payload >= m || got[payload] != v[i] )
            fail_msg("event %#x: parameter %u (%s) is %#llx, read back %#llx",
                     c->event, i, kinds[i], (unsigned long long)v[i],
                     payload < m ? (unsigned long long)got[payload] : 0ULL);
        payload++;
    }
    assert_int_equal(payload, m);
}

static uint64_t all_ones(void)
{
    return ~0ULL;
}

static void test_every_call_round_trips(void **state)
{
    size_t i;
    unsigned int r;

    (void)state;
    assert_true(nr_trc_calls > 200);
    for ( i = 0; i < nr_trc_calls; i++ )
    {
        round_trip(&trc_calls[i], all_ones);
        for ( r = 0; r < ROUNDS; r++ )
            round_trip(&trc_calls[i], next_random);
    }
}

/* Every event of the catalogue has a call, except those Xen never writes. */
static void test_every_event_has_a_call(void **state)
{
    size_t n, i, j, calls = 0;
    const struct xt_event_desc *d = xt_event_descs;

    (void)state;
    n = xt_nr_event_descs;
    for ( i = 0; i < n; i++ )
    {
        bool found = false;

        /* The calls write 4.17's layouts; others have none. */
        if ( d[i].xen_min > XT_XEN_DEFAULT || d[i].xen_max < XT_XEN_DEFAULT )
            continue;
        for ( j = 0; j < nr_trc_calls; j++ )
            found |= trc_calls[j].event == d[i].id;
        /* TRC_GEN: the buffers' own records and xentrace's metadata. */
        assert_true(found != ((d[i].id & 0x0fff0000) == (TRC_GEN & 0x0fff0000)));
        calls += found;
    }
    assert_int_equal(calls, nr_trc_calls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_call_round_trips),
        cmocka_unit_test(test_every_event_has_a_call),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
