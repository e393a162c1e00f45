/*
 * The tools' containers (tools/common): the growable array, the hash
 * table and the tournament tree, each against a plain model of what it
 * should hold.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "array.h"
#include "hashtab.h"
#include "tournament.h"

/*
 * array_fit
 * =========
 */

static void test_array_grows_and_zeroes(void **state)
{
    uint32_t *a = NULL;
    size_t cap = 0, i;

    (void)state;
    for ( i = 0; i < 100000; i++ )
    {
        assert_int_equal(array_fit(&a, &cap, i + 1, sizeof(*a)), 0);
        assert_true(cap >= i + 1);
        /* Room past what was asked for is zeroed. */
        assert_int_equal(a[cap - 1] | a[i], 0);
        a[i] = (uint32_t)i + 1;
    }
    assert_int_equal(cap, 131072);      /* 16, doubled */
    for ( i = 0; i < 100000; i++ )
        assert_int_equal(a[i], i + 1);
    free(a);
}

static void test_array_refuses_overflow(void **state)
{
    char *a = malloc(16);
    size_t cap = 16;

    (void)state;
    assert_non_null(a);
    errno = 0;
    assert_int_equal(array_fit(&a, &cap, SIZE_MAX / 4, 8), -1);
    assert_int_equal(errno, ENOMEM);
    assert_int_equal(cap, 16);          /* as it was */
    errno = 0;
    assert_int_equal(array_fit(&a, &cap, SIZE_MAX, 1), -1);
    assert_int_equal(errno, ENOMEM);
    assert_int_equal(array_fit(&a, &cap, 16, 1), 0);
    free(a);
}

/*
 * hashtab
 * =======
 */

static uint64_t key_at(const void *base, unsigned int i)
{
    return ((const uint64_t *)base)[i];
}

static uint64_t hash_at(const void *base, unsigned int i)
{
    return hashtab_hash(key_at(base, i));
}

/* Every key lands on its own element, a key not added on an empty slot. */
static void test_hashtab_numbers(void **state)
{
    enum { N = 100000 };
    uint64_t *keys = malloc(N * sizeof(*keys));
    struct hashtab t = { 0 };
    unsigned int i, s;

    (void)state;
    assert_non_null(keys);
    for ( i = 0; i < N; i++ )
    {
        /* Keys that share their low bits: CPU numbers, events. */
        uint64_t key = (uint64_t)i << 20 | 0x1f003;

        assert_int_equal(hashtab_fit(&t, i + 1, keys, hash_at), 0);
        assert_true(t.nr_slots >= 2 * (i + 1));
        s = hashtab_find(&t, key, keys, key_at);
        assert_int_equal(hashtab_index(&t, s), 0);
        keys[i] = key;
        hashtab_set(&t, s, i);
        assert_int_equal(t.nr, i + 1);
    }
    assert_int_equal(t.nr_slots, 262144);
    for ( i = 0; i < N; i++ )
    {
        s = hashtab_find(&t, keys[i], keys, key_at);
        assert_int_equal(hashtab_index(&t, s), i + 1);
        s = hashtab_find(&t, keys[i] + 1, keys, key_at);
        assert_int_equal(hashtab_index(&t, s), 0);
    }
    hashtab_free(&t);
    assert_null(t.slot);
    free(keys);
}

/* A look-up adds nothing, and needs no slots before the first fit. */
static void test_hashtab_get(void **state)
{
    uint64_t keys[3] = { 7, 7u << 20, 0 };
    struct hashtab t = { 0 };
    unsigned int i, s;

    (void)state;
    assert_int_equal(hashtab_get(&t, 7, keys, key_at), 0);
    assert_null(t.slot);
    for ( i = 0; i < 3; i++ )
    {
        assert_int_equal(hashtab_fit(&t, i + 1, keys, hash_at), 0);
        s = hashtab_find(&t, keys[i], keys, key_at);
        hashtab_set(&t, s, i);
    }
    for ( i = 0; i < 3; i++ )
        assert_int_equal(hashtab_get(&t, keys[i], keys, key_at), i + 1);
    assert_int_equal(hashtab_get(&t, 8, keys, key_at), 0);
    assert_int_equal(t.nr, 3);
    hashtab_free(&t);
}

static const char *const names[] = {
    "gen", "sched", "dom0op", "hvm", "mem", "pv", "shadow", "hw", "guest",
    "all", "", "a much longer name than the others have",
};
#define NR_NAMES (sizeof(names) / sizeof(names[0]))

static uint64_t name_hash_at(const void *base, unsigned int i)
{
    return hashtab_hash_string(((const char *const *)base)[i]);
}

static bool name_is(const void *base, unsigned int i, const void *key)
{
    return !strcmp(((const char *const *)base)[i], key);
}

static void test_hashtab_names(void **state)
{
    struct hashtab t = { 0 };
    unsigned int i, s;

    (void)state;
    /* FNV-1a's published values. */
    assert_true(hashtab_hash_string("") == 0xcbf29ce484222325ull);
    assert_true(hashtab_hash_string("a") == 0xaf63dc4c8601ec8cull);
    assert_true(hashtab_hash_string("foobar") == 0x85944171f73967e8ull);
    assert_int_equal(hashtab_build(&t, NR_NAMES, names, name_hash_at), 0);
    for ( i = 0; i < NR_NAMES; i++ )
    {
        s = hashtab_probe(&t, hashtab_hash_string(names[i]), names[i], names, name_is);
        assert_int_equal(hashtab_index(&t, s), i + 1);
    }
    s = hashtab_probe(&t, hashtab_hash_string("schedx"), "schedx", names, name_is);
    assert_int_equal(hashtab_index(&t, s), 0);
    hashtab_free(&t);
}

/*
 * tournament
 * ==========
 */

#define SOURCES 37
#define PER_SOURCE 500

struct sources {
    uint64_t tsc[SOURCES][PER_SOURCE];
    unsigned int next[SOURCES];
};

static tournament_key next_key(struct sources *src, unsigned int s)
{
    if ( src->next[s] == PER_SOURCE )
        return TOURNAMENT_DONE | s;
    return tournament_key_of(src->tsc[s][src->next[s]++], s);
}

static tournament_key first_key(void *arg, unsigned int s)
{
    return next_key(arg, s);
}

/* Sources of ascending TSCs with many ties come out merged, ties by source. */
static void test_tournament_merges(void **state)
{
    static struct sources src;
    struct tournament t = { 0 };
    uint64_t last_tsc = 0;
    unsigned int s, i, last_s = 0, n = 0;

    (void)state;
    srand(22);
    for ( s = 0; s < SOURCES; s++ )
        for ( i = 0, src.tsc[s][0] = rand() % 8; i + 1 < PER_SOURCE; i++ )
            src.tsc[s][i + 1] = src.tsc[s][i] + rand() % 4;
    assert_int_equal(tournament_start(&t, SOURCES, first_key, &src), 0);
    while ( !tournament_over(&t) )
    {
        uint64_t tsc = (uint64_t)(t.won[1] >> 32);

        s = tournament_source(&t);
        assert_true(tsc > last_tsc || (tsc == last_tsc && s >= last_s) ||
                    !n);
        last_tsc = tsc;
        last_s = s;
        n++;
        tournament_set(&t, s, next_key(&src, s));
    }
    assert_int_equal(n, SOURCES * PER_SOURCE);
    tournament_free(&t);
}

static tournament_key no_more(void *arg, unsigned int s)
{
    (void)arg;
    return TOURNAMENT_DONE | s;
}

/*
 * Any source may take a new key, not only the winner, and the tree may
 * grow: the winner is always the least key, as a scan finds it.
 */
static void test_tournament_any_source(void **state)
{
    static tournament_key keys[300];
    struct tournament t = { 0 };
    unsigned int n = 3, step, s, least;

    (void)state;
    srand(23);
    assert_int_equal(tournament_start(&t, n, no_more, NULL), 0);
    for ( s = 0; s < 300; s++ )
        keys[s] = TOURNAMENT_DONE | s;
    assert_true(tournament_over(&t));
    for ( step = 0; step < 20000; step++ )
    {
        if ( step % 100 == 99 && n < 300 )
        {
            n += 1 + rand() % 20;
            n = n > 300 ? 300 : n;
            assert_int_equal(tournament_grow(&t, n), 0);
        }
        s = rand() % n;
        keys[s] = rand() % 5 ? tournament_key_of(rand() % 1000, s)
                             : TOURNAMENT_DONE | s;
        tournament_set(&t, s, keys[s]);
        for ( least = 0, s = 1; s < n; s++ )
            if ( keys[s] < keys[least] )
                least = s;
        assert_true(t.won[1] == keys[least]);
        assert_int_equal(tournament_over(&t),
                         !!(keys[least] & TOURNAMENT_DONE));
        assert_int_equal(tournament_source(&t), least);
    }
    tournament_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_grows_and_zeroes),
        cmocka_unit_test(test_array_refuses_overflow),
        cmocka_unit_test(test_hashtab_numbers),
        cmocka_unit_test(test_hashtab_get),
        cmocka_unit_test(test_hashtab_names),
        cmocka_unit_test(test_tournament_merges),
        cmocka_unit_test(test_tournament_any_source),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
