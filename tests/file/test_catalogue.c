/*
 * The event catalogue and what gen-trace-events makes of it:
 *
 * - the committed files made from it (the hypervisor's trace calls,
 *   xen/include/xen/trace-events.h, the tools' constants,
 *   tools/trace-events/trace-events.h, and the class table of
 *   xentrace(8)) are what the generator makes now;
 * - Xen's ABI header, xen/include/public/trace.h, gives every name it
 *   shares with the catalogue the catalogue's value, and the check says
 *   which name when one differs;
 * - no C file under tools/ and xen/ spells an event id, a class or
 *   subclass mask or the runstate encoding outside the generated headers
 *   (check-literals), and the scan finds each kind where it is planted;
 * - the generator refuses a catalogue with duplicate ids, names or
 *   fields, more than 7 words or an unknown kind, with the line;
 * - a trace call with the wrong arguments, to an event the catalogue
 *   lacks, or of a 64-bit value to a 32-bit field (with -Wconversion)
 *   does not compile under Xen's flags, for that reason, while right
 *   calls compile even with -Wconversion;
 * - the formats file has a rule per runstate change and prints signed
 *   fields as signed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_cmd.h"

static char dir[] = "/tmp/test_catalogue.XXXXXX";

static char sh_log[sizeof(dir) + 8];

/* A shell command's status; its output goes to dir/sh.log. */
#define sh(...) run_sh(sh_log, __VA_ARGS__)

/* Whether dir/sh.log has @s. */
static bool log_has(const char *s)
{
    char text[16384];
    size_t n;
    FILE *f = fopen(sh_log, "r");

    assert_non_null(f);
    n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    if ( !strstr(text, s) )
        print_message("%s has not \"%s\":\n%s\n", sh_log, s, text);
    return strstr(text, s) != NULL;
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    if ( !mkdtemp(dir) )
        return -1;
    snprintf(sh_log, sizeof(sh_log), "%s/sh.log", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return sh("rm -rf %s", dir);
}

/*
 * Committed, generated files
 * ==========================
 */

static void test_trace_calls_header_is_current(void **state)
{
    (void)state;
    assert_int_equal(sh("python3 %s --header %s/trace-events.h %s && "
                        "diff -u " XEN_TRACE_EVENTS_H " %s/trace-events.h",
                        GEN, dir, CATALOGUE, dir), 0);
}

static void test_tools_header_is_current(void **state)
{
    (void)state;
    assert_int_equal(sh("python3 %s --defs %s/defs.h %s && "
                        "diff -u " XT_EVENTS_H " %s/defs.h",
                        GEN, dir, CATALOGUE, dir), 0);
}

/* Whether public/trace.h agrees with the catalogue at @catalogue. */
static int abi_check(const char *catalogue)
{
    return sh("python3 %s --abi-check %s/abi.c %s && "
              "cc -fsyntax-only -iquote xen/include %s/abi.c",
              GEN, dir, catalogue, dir);
}

static void test_abi_header_agrees(void **state)
{
    char moved[sizeof(dir) + 8];

    (void)state;
    assert_int_equal(abi_check(CATALOGUE), 0);
    /* The same check fails, naming it, on an id that differs. */
    snprintf(moved, sizeof(moved), "%s/moved", dir);
    assert_int_equal(sh("sed 's/^0x0002800a  TRC_SCHED_SWITCH /"
                        "0x0002803a  TRC_SCHED_SWITCH /' %s > %s",
                        CATALOGUE, moved), 0);
    assert_int_not_equal(sh("cmp -s %s %s", CATALOGUE, moved), 0);
    assert_int_not_equal(abi_check(moved), 0);
    assert_true(log_has("TRC_SCHED_SWITCH: public/trace.h and the "
                        "catalogue differ"));
}

/* Whether check-literals finds nothing in @dirs; its lines in sh.log. */
static int check_literals(const char *dirs)
{
    return sh("python3 " CHECK_LITERALS " %s %s", CATALOGUE, dirs);
}

static void test_no_event_numbers_elsewhere(void **state)
{
    (void)state;
    if ( check_literals("tools xen") )
    {
        char text[8192];
        size_t n;
        FILE *f = fopen(sh_log, "r");

        assert_non_null(f);
        n = fread(text, 1, sizeof(text) - 1, f);
        fclose(f);
        text[n] = '\0';
        print_message("the catalogue's numbers, spelled by hand (use "
                      "tools/trace-events/trace-events.h):\n%s", text);
        fail();
    }
}

static void test_literal_scan_finds_each_kind(void **state)
{
    char scan[sizeof(dir) + 8];

    (void)state;
    snprintf(scan, sizeof(scan), "%s/scan", dir);
    assert_int_equal(sh("mkdir -p %s", scan), 0);
    write_file("scan/planted.c",
               "/* 0x0002800a in a comment is fine */\n"
               "int a = 0x0002800a;\n"
               "#define TRC_SCHED_SWITCH 1\n"
               "#define IRQ (TRC_GEN + 4)\n"
               "int old(unsigned int event) { return (event >> 8) & 0xf; }\n"
               "int fine = 0x1234;\n");
    assert_int_equal(check_literals(scan), 1);
    assert_true(log_has("planted.c:2: event number 0x0002800a"));
    assert_true(log_has("planted.c:3: defines TRC_SCHED_SWITCH again"));
    assert_true(log_has("planted.c:4: event id as a sum"));
    assert_true(log_has("planted.c:5: runstate encoding by hand"));
    assert_false(log_has("planted.c:1:"));
    assert_false(log_has("planted.c:6:"));
}

static void test_man_class_table_is_current(void **state)
{
    (void)state;
    assert_int_equal(sh("cp " MAN_PAGE " %s/xentrace.8 && "
                        "python3 %s --man %s/xentrace.8 %s && "
                        "diff -u " MAN_PAGE " %s/xentrace.8",
                        dir, GEN, dir, CATALOGUE, dir), 0);
}

/*
 * The generator's refusals
 * ========================
 */

/* The generator on a catalogue of @lines: its status; output in sh.log. */
static int generate(const char *lines)
{
    write_file("cat", lines);
    return sh("python3 %s --c %s/cat.c %s/cat", GEN, dir, dir);
}

static void refused(const char *lines, const char *why)
{
    assert_int_equal(generate(lines), 1);
    assert_true(log_has(why));
}

static void test_generator_refuses_bad_catalogues(void **state)
{
    (void)state;
    assert_int_equal(generate("class  sched  0x0002f000  scheduler\n"
                              "subclass  TRC_SCHED_MIN  0x00021000\n"
                              "subclass  TRC_SCHED_VERBOSE  0x00028000\n"
                              "0x00028001  TRC_A  a:u32 b:x64  notsc\n"
                              "0x00021001  TRC_B  o:rs@8 n:rs@4 v:dv\n"), 0);
    refused("subclass  TRC_SCHED_MIN  0x00021000\n"
            "0x00028001  TRC_A\n", "cat: TRC_A is in no subclass line");
    refused("subclass  TRC_X  0x00061000\n",
            "cat:1: subclass mask 0x61000 needs one class bit");
    refused("0x00028001  TRC_A\n0x00028001  TRC_B\n",
            "cat:2: duplicate id 0x28001 (line 1)");
    refused("0x00028001  TRC_A\n0x00028002  TRC_A\n",
            "cat:2: duplicate name TRC_A (line 1)");
    refused("0x00028001  TRC_A\n0x00028002  A\n",
            "cat:2: duplicate call trc_a (line 1)");
    refused("0x00028001  TRC_A  a:u32 a:x32\n", "cat:1: duplicate field 'a'");
    refused("0x00028001  TRC_A  v:dv v_dom:u32\n",
            "cat:1: duplicate field 'v_dom'");
    refused("0x00028001  TRC_A  a:u64 b:u64 c:u64 e:u64\n",
            "cat:1: TRC_A takes 8 words, more than 7");
    refused("0x00028001  TRC_A  a:u16\n", "cat:1: bad field 'a:u16': "
            "unknown kind 'u16'");
    refused("0x00028001  TRC_A  a:u32  timed\n",
            "cat:1: bad property 'timed'");
    refused("0x00028101  TRC_A  a:rs@8\n", "cat:1: bad field 'a:rs@8'");
    refused("0x00028001  TRC_A  int:u32\n", "cat:1: bad field 'int:u32'");
    refused("class  sched  0x0002f000  scheduler\n"
            "class  sched  0x0004f000  again\n",
            "cat:2: duplicate class sched (line 1)");
    refused("subclass  TRC_SCHED_VERBOSE  0x00028000\n"
            "0x00028001  TRC_A  a:u32\n"
            "value  TRC_A  a  0x01  ONE\n"
            "value  TRC_A  a  0x01  AGAIN\n",
            "cat:4: duplicate value TRC_A a 0x1 (line 3)");
    refused("subclass  TRC_SCHED_VERBOSE  0x00028000\n"
            "0x00028001  TRC_A  a:u64\n"
            "value  TRC_A  a  0x01  ONE\n",
            "cat:3: TRC_A has no one-word field 'a'");
    refused("value  TRC_A  a  0x100  BIG\n",
            "cat:1: value 0x100 is more than 0xff");
    refused("value  TRC_A  a  0x01  TWO WORDS\n",
            "cat:1: expected \"value EVENT FIELD VALUE NAME\"");
}

/*
 * Calls that must not compile
 * ===========================
 */

/* A translation unit of xen/ code around @body; 0 if it compiles. */
static int compile(const char *body, const char *extra_flags)
{
    char text[4096];

    snprintf(text, sizeof(text),
             "#include <xen/trace-events.h>\n\n"
             "void traced(uint64_t wide, uint32_t narrow);\n"
             "void traced(uint64_t wide, uint32_t narrow)\n"
             "{\n%s}\n", body);
    write_file("tu.c", text);
    return sh("LC_ALL=C %s %s -c -o /dev/null %s/tu.c", XEN_CC, extra_flags,
              dir);
}

static void test_right_calls_compile(void **state)
{
    (void)state;
    /* The whole header is clean even with -Wconversion. */
    assert_int_equal(compile("    trc_sched_switch(narrow, 1, 2, 3);\n"
                             "    trc_hvm_npf(wide, wide, narrow, 0);\n"
                             "    trc_csched2_credit_burn(1, 0, -250, "
                             "INT32_MIN, narrow);\n"
                             "    trc_hvm_vmentry();\n",
                             "-Wconversion -Wsign-conversion"), 0);
}

static void test_wrong_arity_fails(void **state)
{
    (void)state;
    assert_int_not_equal(compile("    trc_sched_switch(1, 2, 3, 4, 5);\n",
                                 ""), 0);
    assert_true(log_has("too many arguments to function "
                        "'trc_sched_switch'"));
    assert_int_not_equal(compile("    trc_sched_switch(1, 2, 3);\n", ""), 0);
    assert_true(log_has("too few arguments to function 'trc_sched_switch'"));
}

static void test_unknown_event_fails(void **state)
{
    (void)state;
    assert_int_not_equal(compile("    trc_sched_no_such_event(1);\n", ""), 0);
    assert_true(log_has("implicit declaration of function "
                        "'trc_sched_no_such_event'"));
}

static void test_wide_value_to_narrow_field_fails(void **state)
{
    (void)state;
    /* TRC_SCHED_SWITCH's prev_dom is u32. */
    assert_int_equal(compile("    trc_sched_switch(narrow, 1, 2, 3);\n",
                             "-Wconversion"), 0);
    assert_int_not_equal(compile("    trc_sched_switch(wide, 1, 2, 3);\n",
                                 "-Wconversion"), 0);
    assert_true(log_has("conversion from 'uint64_t'"));
    assert_true(log_has("to 'uint32_t'"));
    assert_true(log_has("may change value [-Werror=conversion]"));
}

/*
 * The formats file
 * ================
 */

/* Xen's records as upstream's xentrace writes them, for xentrace_format. */
static void put_words(FILE *f, const uint32_t *w, size_t n)
{
    assert_int_equal(fwrite(w, sizeof(*w), n, f), n);
}

static void test_formats_runstates_and_signed(void **state)
{
    static const char *const pairs[] = {
        "running_to_runnable", "running_to_blocked", "running_to_offline",
        "runnable_to_running", "runnable_to_blocked", "runnable_to_offline",
        "blocked_to_running", "blocked_to_runnable", "blocked_to_offline",
        "offline_to_running", "offline_to_runnable", "offline_to_blocked",
    };
    /* CPU change, then TSC'd records: header, TSC (low, high), words. */
    static const uint32_t cpu[] = { 0x0001f003 | 2u << 28, 1, (7 + 4) * 4 };
    static const uint32_t burn[] = {
        0x00022203 | 4u << 28 | 1u << 31, 1000, 0,
        0x00030001, (uint32_t)-250, (uint32_t)INT32_MIN, 750,
    };
    static const uint32_t change[] = {
        0x00021021 | 1u << 28 | 1u << 31, 2000, 0, 0x00030001,
    };
    char path[256];
    unsigned int i;
    FILE *f;

    (void)state;
    for ( i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++ )
    {
        assert_int_equal(sh("grep -c ' %s  \\[ vcpu = ' " XT_FORMATS, pairs[i]),
                         0);
        assert_true(log_has("1\n"));
    }

    snprintf(path, sizeof(path), "%s/upstream.bin", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    put_words(f, cpu, 3);
    put_words(f, burn, 7);
    put_words(f, change, 4);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(sh(XT_FORMAT " " XT_FORMATS " < %s", path), 0);
    assert_true(log_has("csched2_credit_burn  [ vcpu = 0x00030001, "
                        "credit = -250, budget = -2147483648, "
                        "delta = 750 ]"));
    assert_true(log_has("running_to_blocked  [ vcpu = 0x00030001 ]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_calls_header_is_current),
        cmocka_unit_test(test_tools_header_is_current),
        cmocka_unit_test(test_abi_header_agrees),
        cmocka_unit_test(test_no_event_numbers_elsewhere),
        cmocka_unit_test(test_literal_scan_finds_each_kind),
        cmocka_unit_test(test_man_class_table_is_current),
        cmocka_unit_test(test_generator_refuses_bad_catalogues),
        cmocka_unit_test(test_right_calls_compile),
        cmocka_unit_test(test_wrong_arity_fails),
        cmocka_unit_test(test_unknown_event_fails),
        cmocka_unit_test(test_wide_value_to_narrow_field_fails),
        cmocka_unit_test(test_formats_runstates_and_signed),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
