/*
 * The catalogue against the real hypervisor: every trace call of a Xen
 * source tree, as its compiler sees it (xen-events builds the tree with
 * probe-trace.h), must be an event the catalogue knows for that Xen
 * version, with a layout of the record's size.  Prints, per tree, the
 * table of events and sizes found against the catalogue, and the call
 * sites whose event is computed at run time.
 *
 * The trees are XT_XEN_SOURCES (paths separated by spaces), or the
 * shipped tarballs of XEN_SOURCES; each is one test.  The version is the
 * one in the file's name (xen-4.20.4.tar.xz, xen_4.17.5+72-...-1.dsc).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_cmd.h"
#include "xtread.h"

#define MAX_SOURCES 8
#define MAX_SITES   1024

struct site {
    uint32_t event;
    int bytes;                  /* -1: computed at run time */
    bool known_event;           /* false: computed at run time */
    bool tsc;
    char where[128];
};

static char tmpdir[] = "/tmp/test_xen_events.XXXXXX";

/* The Xen version in @path's file name, "xen-4.20.4.tar.xz". */
static uint32_t version_of(const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char buf[16];
    size_t n = 0;
    uint32_t v;

    assert_true(strncmp(base, "xen-", 4) == 0 || strncmp(base, "xen_", 4) == 0);
    base += 4;
    while ( n < sizeof(buf) - 1 && (isdigit((unsigned char)base[n]) ||
                                    base[n] == '.') )
    {
        buf[n] = base[n];
        n++;
    }
    buf[n] = '\0';
    if ( n && buf[n - 1] == '.' )
        buf[n - 1] = '\0';
    assert_int_equal(xt_xen_version_parse(buf, &v), 0);
    return v;
}

static size_t read_sites(const char *path, struct site *s)
{
    FILE *f = fopen(path, "r");
    char line[256], ev[16], bytes[16], tsc[8];
    size_t n = 0;

    assert_non_null(f);
    while ( fgets(line, sizeof(line), f) )
    {
        if ( line[0] == '#' )
            continue;
        assert_true(n < MAX_SITES);
        assert_int_equal(sscanf(line, "%15s %15s %7s %127s", ev, bytes, tsc,
                                s[n].where), 4);
        s[n].known_event = strcmp(ev, "?") != 0;
        s[n].event = s[n].known_event ? strtoul(ev, NULL, 16) : 0;
        s[n].bytes = strcmp(bytes, "?") ? atoi(bytes) : -1;
        s[n].tsc = strcmp(tsc, "tsc") == 0;
        n++;
    }
    fclose(f);
    return n;
}

/* Whether the catalogue's layout @d fits a payload of @bytes. */
static bool fits(const struct xt_event_desc *d, int bytes)
{
    /* Xen 4.17 rounds a payload up to whole words; 4.18 on refuse others. */
    unsigned int words = (bytes + 3) / 4;

    return bytes < 0 || (d->min_words <= words && words <= d->words);
}

static int by_event(const void *a, const void *b)
{
    const struct site *x = a, *y = b;

    if ( x->known_event != y->known_event )
        return x->known_event ? -1 : 1;
    if ( x->event != y->event )
        return x->event < y->event ? -1 : 1;
    return x->bytes - y->bytes;
}

/*
 * One row per event and size: "| 0x0002800a | TRC_SCHED_SWITCH | 16 | 4 |
 * 3 | ok |"; then the sites of run-time events.  The number of rows that
 * do not match.
 */
static unsigned int print_table(const char *name, uint32_t xen,
                                struct site *s, size_t n)
{
    unsigned int bad = 0, events = 0;
    size_t i, j;

    qsort(s, n, sizeof(*s), by_event);
    printf("%s (layouts of Xen %u.%u): %zu call sites\n", name, xen >> 16,
           xen & 0xffff, n);
    printf("| event | catalogue name | bytes | catalogue words | sites | |\n"
           "|---|---|---|---|---|---|\n");
    for ( i = 0; i < n && s[i].known_event; i = j )
    {
        const struct xt_event_desc *d = xt_event_find_xen(s[i].event, xen);
        const char *verdict = !d ? "NOT IN CATALOGUE"
                              : fits(d, s[i].bytes) ? "ok" : "SIZE MISMATCH";
        char words[16] = "-", bytes[16];

        for ( j = i; j < n && s[j].known_event && s[j].event == s[i].event &&
                     s[j].bytes == s[i].bytes; j++ )
            ;
        if ( d && d->min_words != d->words )
            snprintf(words, sizeof(words), "%u-%u", d->min_words, d->words);
        else if ( d )
            snprintf(words, sizeof(words), "%u", d->words);
        if ( i == 0 || s[i].event != s[i - 1].event )
            events++;
        if ( s[i].bytes < 0 )
            snprintf(bytes, sizeof(bytes), "?");
        else
            snprintf(bytes, sizeof(bytes), "%d", s[i].bytes);
        printf("| 0x%08x | %s | %s | %s | %zu | %s |\n", s[i].event,
               d ? d->name : "?", bytes, words, j - i, verdict);
        if ( strcmp(verdict, "ok") )
        {
            printf("    %s: first at %s\n", verdict, s[i].where);
            bad++;
        }
    }
    printf("%u events; computed at run time (not checked):\n", events);
    for ( ; i < n; i++ )
    {
        if ( s[i].bytes < 0 )
            printf("    %s, bytes ?\n", s[i].where);
        else
            printf("    %s, bytes %d\n", s[i].where, s[i].bytes);
    }
    return bad;
}

static void test_tree(void **state)
{
    const char *source = *state;
    const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
    uint32_t xen = version_of(source);
    char out[512], log[512];
    char *argv[] = { XEN_EVENTS, XEN_EVENTS_CACHE, (char *)source, out,
                     NULL };
    static struct site sites[MAX_SITES];
    size_t n;
    int rc;

    snprintf(out, sizeof(out), "%s/%s.events", tmpdir, base);
    snprintf(log, sizeof(log), "%s/%s.log", tmpdir, base);
    rc = run_cmd(argv, log);
    if ( rc )
    {
        char cmd[600];

        snprintf(cmd, sizeof(cmd), "tail -n 30 '%s'", log);
        (void)!system(cmd);
    }
    assert_int_equal(rc, 0);
    n = read_sites(out, sites);
    assert_true(n > 0);
    assert_int_equal(print_table(base, xen, sites, n), 0);
}

int main(void)
{
    struct CMUnitTest tests[MAX_SOURCES];
    const char *env = getenv("XT_XEN_SOURCES");
    char *list = strdup(env && *env ? env : XEN_SOURCES), *tok;
    char cmd[64];
    size_t n = 0;
    int rc;

    if ( !mkdtemp(tmpdir) )
        return 1;
    for ( tok = strtok(list, " "); tok && n < MAX_SOURCES;
          tok = strtok(NULL, " ") )
    {
        tests[n] = (struct CMUnitTest){
            .name = strrchr(tok, '/') ? strrchr(tok, '/') + 1 : tok,
            .test_func = test_tree, .initial_state = tok,
        };
        n++;
    }
    rc = _cmocka_run_group_tests("xen_events", tests, n, NULL, NULL);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    (void)!system(cmd);
    free(list);
    return rc;
}
