/*
 * Per-version event layouts: the catalogue's "@4.18-" lines, the Xen
 * version in a file's metadata (TRC_XT_XEN_VERSION) and the readers'
 * --xen-version.  A file is decoded in the layouts of the Xen that wrote
 * it, or of 4.17 when it does not say.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batches.h"
#include "run_cmd.h"
#include "xtread.h"

#define V(major, minor)         XT_XEN_VERSION(major, minor)
#define EV_VMEXIT               0x00081002u
#define EV_SVM_EXIT             0x00081003u
#define EV_NESTED               0x00000400u
#define EV_DECREASE_RESERVATION 0x0010f005u
#define EV_HVM_INTR             0x0008200fu

static char dir[] = "/tmp/test_xen_versions.XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[64];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd);
}

static void test_parse(void **state)
{
    static const char *const bad[] = {
        "", "4", "4.", "4.x", "x.17", "4.17.", "4.17x", "0.1", "65536.0",
        "4.65536", "-4.17", "4..17", " 4.17", "+4.17", "4.17.+4",
        "4.20.18446744073709551616",
    };
    uint32_t v = 0;
    size_t i;

    (void)state;
    assert_int_equal(xt_xen_version_parse("4.17", &v), 0);
    assert_int_equal(v, 0x00040011);
    assert_int_equal(xt_xen_version_parse("4.20.4", &v), 0);
    assert_int_equal(v, V(4, 20));
    assert_int_equal(xt_xen_version_parse("04.020.70000", &v), 0);
    assert_int_equal(v, V(4, 20));
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        v = 7;
        assert_int_equal(xt_xen_version_parse(bad[i], &v), -1);
        assert_int_equal(v, 7);
    }
}

static const char *name(uint32_t event, uint32_t xen)
{
    const struct xt_event_desc *d = xt_event_find_xen(event, xen);

    return d ? d->name : "none";
}

/* 4.19 renamed VMEXIT and added SVM's exits: same ids, other names. */
static void test_renamed_and_new(void **state)
{
    (void)state;
    assert_string_equal(name(EV_VMEXIT, V(4, 17)), "TRC_HVM_VMEXIT");
    assert_string_equal(name(EV_VMEXIT, V(4, 18)), "TRC_HVM_VMEXIT");
    assert_string_equal(name(EV_VMEXIT, V(4, 19)), "TRC_HVM_VMX_EXIT");
    assert_string_equal(name(EV_VMEXIT, V(4, 22)), "TRC_HVM_VMX_EXIT");
    assert_string_equal(name(EV_SVM_EXIT, V(4, 17)), "none");
    assert_string_equal(name(EV_SVM_EXIT, V(4, 20)), "TRC_HVM_SVM_EXIT");
    assert_string_equal(name(EV_SVM_EXIT | EV_NESTED, V(4, 20)),
                        "TRC_HVM_SVM_EXIT");
    /* 0 and xt_event_find() mean 4.17. */
    assert_ptr_equal(xt_event_find_xen(EV_VMEXIT, 0),
                     xt_event_find_xen(EV_VMEXIT, XT_XEN_DEFAULT));
    assert_ptr_equal(xt_event_find(EV_VMEXIT),
                     xt_event_find_xen(EV_VMEXIT, V(4, 17)));
}

/* A record formatted as @xen's hypervisor writes it. */
static void format_as(uint32_t xen, uint32_t event, unsigned int n,
                      const uint32_t *words, char *buf)
{
    struct xt_record rec = { .event = event, .nr_extra = n,
                             .xen_version = xen };

    memcpy(rec.extra, words, 4 * n);
    xt_record_format(&rec, buf, XT_RECORD_FORMAT_MAX);
}

/* 4.18 widened TRC_MEM_*'s domain and order to a word each. */
static void test_changed_layout(void **state)
{
    static const uint32_t words[] = { 0x1000, 0, 0x00090003, 0 };
    static const uint32_t wide[] = { 0x1000, 0, 9, 3 };
    char buf[XT_RECORD_FORMAT_MAX];

    (void)state;
    format_as(V(4, 17), EV_DECREASE_RESERVATION, 4, words, buf);
    assert_string_equal(buf, "TRC_MEM_DECREASE_RESERVATION gfn=0x1000 "
                             "dom_order=0x90003 pad=0x0");
    format_as(V(4, 20), EV_DECREASE_RESERVATION, 4, wide, buf);
    assert_string_equal(buf, "TRC_MEM_DECREASE_RESERVATION gfn=0x1000 "
                             "dom=9 order=3");
    /* Unknown (0): 4.17's. */
    format_as(0, EV_DECREASE_RESERVATION, 4, words, buf);
    assert_non_null(strstr(buf, "dom_order=0x90003"));
}

/* TRC_HVM_INTR's vector is optional: SVM writes none, VMX one word. */
static void test_optional_field(void **state)
{
    const struct xt_event_desc *d = xt_event_find(EV_HVM_INTR);
    static const uint32_t vector = 0x30;
    char buf[XT_RECORD_FORMAT_MAX];

    (void)state;
    assert_non_null(d);
    assert_int_equal(d->min_words, 0);
    assert_int_equal(d->words, 1);
    format_as(0, EV_HVM_INTR, 1, &vector, buf);
    assert_string_equal(buf, "TRC_HVM_INTR vector=0x30");
}

/*
 * A file of one CPU: a VMEXIT and a TRC_MEM_DECREASE_RESERVATION in 4.20's
 * layout, with @xen in its metadata.
 */
static void write_trace(const char *path, uint32_t xen)
{
    const uint32_t recs[] = {
        EV_VMEXIT | 2u << 28, 0x1e, 0xc1326738,
        EV_DECREASE_RESERVATION | 4u << 28, 0x1000, 0, 9, 3,
    };
    struct xt_metadata meta = { .nr_cpus = 1, .xen_version = xen };
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    struct batches *b = batches_new(1, 4096);
    struct xt_writer *w;

    assert_true(fd >= 0);
    assert_non_null(b);
    w = xt_writer_open(fd, &meta, NULL);
    assert_non_null(w);
    assert_int_equal(batches_add(b, 0, recs, sizeof(recs)), 0);
    assert_int_equal(batches_put(b, w), 0);
    batches_free(b);
    assert_int_equal(xt_writer_close(w), 0);
    assert_int_equal(close(fd), 0);
}

/* The version of the file's records: the last seen. */
static uint32_t records_version(struct xt_reader *r)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_FILE, 0, 0);
    struct xt_record rec;
    uint32_t v = 0;

    assert_non_null(it);
    while ( xt_iter_next(it, &rec) )
        v = rec.xen_version;
    xt_iter_free(it);
    return v;
}

static void test_metadata(void **state)
{
    char path[256];
    struct xt_reader *r;

    (void)state;
    snprintf(path, sizeof(path), "%s/t420.bin", dir);
    write_trace(path, V(4, 20));
    r = xt_reader_open(path, 0);
    assert_non_null(r);
    assert_int_equal(xt_reader_info(r)->meta.xen_version, V(4, 20));
    assert_int_equal(xt_reader_xen_version(r), V(4, 20));
    assert_int_equal(records_version(r), V(4, 20));
    /* --xen-version overrides the file; 0 goes back to it. */
    xt_reader_set_xen_version(r, V(4, 17));
    assert_int_equal(records_version(r), V(4, 17));
    xt_reader_set_xen_version(r, 0);
    assert_int_equal(records_version(r), V(4, 20));
    xt_reader_close(r);

    /* A file that does not say: 4.17. */
    snprintf(path, sizeof(path), "%s/t0.bin", dir);
    write_trace(path, 0);
    r = xt_reader_open(path, 0);
    assert_non_null(r);
    assert_int_equal(xt_reader_info(r)->meta.xen_version, 0);
    assert_int_equal(xt_reader_xen_version(r), XT_XEN_DEFAULT);
    assert_int_equal(records_version(r), XT_XEN_DEFAULT);
    xt_reader_close(r);
}

/* Run @argv; its output in *@out (freed by the caller); its status. */
static int run(char *const argv[], char **out)
{
    char log[256];
    FILE *f;
    long len;
    int rc;

    snprintf(log, sizeof(log), "%s/out.txt", dir);
    rc = run_cmd(argv, log);
    f = fopen(log, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    *out = calloc(1, len + 1);
    assert_int_equal(fread(*out, 1, len, f), (size_t)len);
    fclose(f);
    return rc;
}

/* @argv exits 0 and prints each of @want (NULL-terminated), not @unwanted. */
static void assert_prints(char *const argv[], const char *const want[],
                          const char *unwanted)
{
    char *out;

    assert_int_equal(run(argv, &out), 0);
    for ( ; *want; want++ )
        if ( !strstr(out, *want) )
            fail_msg("%s: no \"%s\" in:\n%.2000s", argv[0], *want, out);
    if ( unwanted && strstr(out, unwanted) )
        fail_msg("%s: \"%s\" in:\n%.2000s", argv[0], unwanted, out);
    free(out);
}

static void test_readers(void **state)
{
    char path[256], *out;

    (void)state;
    snprintf(path, sizeof(path), "%s/t0.bin", dir);
    write_trace(path, 0);
    {
        char *argv[] = { XT_DUMP, path, NULL };
        const char *want[] = {
            "# event layouts of Xen 4.17 (not in the file: the default)",
            "TRC_HVM_VMEXIT exit_reason=0x1e", "dom_order=0x9 pad=0x3", NULL,
        };

        assert_prints(argv, want, NULL);
    }
    {
        char *argv[] = { XT_DUMP, "--xen-version", "4.20.4", path, NULL };
        const char *want[] = {
            "# event layouts of Xen 4.20 (--xen-version)",
            "TRC_HVM_VMX_EXIT exit_reason=0x1e", "dom=9 order=3", NULL,
        };

        assert_prints(argv, want, NULL);
    }
    {
        char *argv[] = { XT_SUMMARY, "--xen-version", "4.20", path, NULL };
        const char *want[] = { "TRC_HVM_VMX_EXIT", NULL };

        assert_prints(argv, want, "TRC_HVM_VMEXIT");
    }
    {
        char *dump[] = { XT_DUMP, "--xen-version", "4", path, NULL };
        char *summary[] = { XT_SUMMARY, "--xen-version", "x", path, NULL };
        char *export[] = { XT_EXPORT, "--xen-version", "4.", "--json",
                           "/dev/null", path, NULL };

        assert_int_equal(run(dump, &out), 1);
        assert_string_equal(out, "xentrace-dump: --xen-version 4: not a Xen "
                                 "version (4.17, 4.20...)\n");
        free(out);
        /* The readers' one front end says it the same way. */
        assert_int_equal(run(summary, &out), 1);
        assert_string_equal(out, "xentrace-summary: --xen-version x: not a "
                                 "Xen version (4.17, 4.20...)\n");
        free(out);
        assert_int_equal(run(export, &out), 1);
        assert_string_equal(out, "xentrace-export: --xen-version 4.: not a "
                                 "Xen version (4.17, 4.20...)\n");
        free(out);
    }
}

/* gen-trace-events on a catalogue of @text: its status, its message. */
static int generate(const char *text, char **out)
{
    char cat[256];
    char *argv[] = { GEN_TRACE_EVENTS, "--c", "/dev/null", cat, NULL };
    FILE *f;

    snprintf(cat, sizeof(cat), "%s/trace-events", dir);
    f = fopen(cat, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return run(argv, out);
}

static void test_generator(void **state)
{
    static const struct {
        const char *catalogue, *error;
    } bad[] = {
        { "0x00081002 A @-4.18 x:u32\n0x00081002 A @4.18- x:u32\n",
          ":2: duplicate id 0x81002 (line 1)" },
        { "0x00081002 A x:u32\n0x00081002 B @4.19- x:u32\n",
          ":2: duplicate id 0x81002 (line 1)" },
        { "0x00081002 A @-4.18\n0x00081003 A @4.19-\n",
          ":2: duplicate name A (line 1)" },
        { "0x00081002 A @-4.18\n0x00081003 a @4.19-\n",
          ":2: duplicate call trc_a (line 1)" },
        { "0x00081002 A @4.18 x:u32\n", "bad version range '@4.18'" },
        { "0x00081002 A @- x:u32\n", "bad version range '@-'" },
        { "0x00081002 A @4.20-4.18 x:u32\n", "empty version range" },
        { "0x00081002 A @4-4.18 x:u32\n", "bad Xen version '4'" },
        { "0x00081002 A x:u32? y:u32\n", "field 'y' after an optional one" },
        { "0x00081002 A x:u32 x:u32\n", "duplicate field 'x'" },
    };
    char *out;
    size_t i;

    (void)state;
    assert_int_equal(generate("subclass TRC_HVM_ENTRYEXIT 0x00081000\n"
                              "0x00081002 A @-4.18 x:u32\n"
                              "0x00081002 B @4.19- x:u32 y:x64?\n", &out), 0);
    free(out);
    for ( i = 0; i < sizeof(bad) / sizeof(bad[0]); i++ )
    {
        assert_int_not_equal(generate(bad[i].catalogue, &out), 0);
        if ( !strstr(out, bad[i].error) )
            fail_msg("%s: got \"%s\", not \"%s\"", bad[i].catalogue, out,
                     bad[i].error);
        free(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_renamed_and_new),
        cmocka_unit_test(test_changed_layout),
        cmocka_unit_test(test_optional_field),
        cmocka_unit_test(test_metadata),
        cmocka_unit_test(test_readers),
        cmocka_unit_test(test_generator),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
