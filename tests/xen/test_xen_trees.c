/*
 * Our three files in real Xen trees, as tests/xen/build-tree.sh and
 * build-xen.sh built them: one directory per tree under $XT_TREES, named
 * by its version (see call-site.sh for what each holds), for each version
 * in $XT_TREE_VERSIONS.  `make check` gives it 4.20.4 and 4.22.0 for x86
 * and those and Debian's 4.17 for arm64, `make check-xen` Debian's 4.17
 * and 4.20.4 for x86.
 *
 * A tree built for arm64 has "-arm64" after its version, in both.
 *
 * Each tree builds warning-free with Xen's -Werror; trace.o defines what
 * the tree links against, for the API the tree calls (4.17's only before
 * 4.19); init_trace_bufs() is a constructor from 4.21, where no one calls
 * it; tb_init_done is a bool, and a disabled trace point, TRACE_TIME() and
 * in 4.17 TRACE_3D(), tests it and branches: on x86 one compare of the
 * byte in memory and one branch; on arm64, a load-store machine, the
 * page of tb_init_done (adrp), a load of the byte, and one
 * compare-and-branch on it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_cmd.h"

#define PATH_BYTES 512

/* The trees this knows, and what each calls. */
struct tree {
    const char *version;
    bool api_4_17;            /* calls __trace_var() and TRACE_nD() */
    bool constructor;         /* runs init_trace_bufs() as a constructor */
};

static const struct tree trees[] = {
    { "4.17",   true,  false },
    { "4.20.4", false, false },
    { "4.22.0", false, true  },
};
#define NTREES (sizeof(trees) / sizeof(trees[0]))

/* One build of a tree: for x86_64, or for arm64. */
struct build {
    const struct tree *tree;
    bool arm64;
    char name[24];            /* its directory: the version, -arm64 */
};

#define MAX_BUILDS (2 * NTREES)

static const char *results;

static void path_of(char *path, const struct build *b, const char *file)
{
    snprintf(path, PATH_BYTES, "%s/%s/%s", results, b->name, file);
}

/* The whole of @file of @b, NUL-terminated; the test fails without it. */
static char *read_text(const struct build *b, const char *file)
{
    char path[PATH_BYTES], *text;

    path_of(path, b, file);
    if ( !(text = read_file(path)) )
        fail_msg("%s: missing (did the build of Xen %s succeed?)", path,
                 b->name);
    return text;
}

/* @symbol's line in nm -S output: "value size type name". */
static bool find_symbol(const char *nm, const char *symbol,
                        unsigned long *size, char *type)
{
    const char *line;
    char name[128];
    unsigned long value;

    for ( line = nm; line && *line; line = strchr(line, '\n'), line += !!line )
        if ( sscanf(line, "%lx %lx %c %127s", &value, size, type, name) == 4 &&
             !strcmp(name, symbol) )
            return true;
    return false;
}

static void assert_defines(const struct build *b, const char *nm,
                           const char *symbol, char want_type)
{
    unsigned long size;
    char type;

    if ( !find_symbol(nm, symbol, &size, &type) )
        fail_msg("Xen %s: trace.o does not define %s", b->name, symbol);
    if ( type != want_type )
        fail_msg("Xen %s: %s has type %c, not %c", b->name, symbol, type,
                 want_type);
}

/* make exited 0, and Xen's build printed no warning. */
static void test_builds_warning_free(void **state)
{
    const struct build *b = *state;
    char *rc = read_text(b, "build.rc"), *log = read_text(b, "build.log");
    const char *line;

    if ( atoi(rc) != 0 )
        fail_msg("Xen %s: build failed:\n%s", b->name,
                 strlen(log) > 3000 ? log + strlen(log) - 3000 : log);
    /* The compiler's and the linker's, not make's own about jobs. */
    for ( line = log; line; line = strchr(line, '\n'), line += !!line )
    {
        const char *warning = strstr(line, "warning:");
        const char *end = strchr(line, '\n');

        if ( warning && (!end || warning < end) && strncmp(line, "make", 4) )
            fail_msg("Xen %s: %.*s", b->name,
                     (int)(end ? end - line : 300), line);
    }
    free(rc);
    free(log);
}

/*
 * The symbols the tree links against, and none of the other API;
 * tb_init_done is a bool, one byte of data.
 */
static void test_link_contract(void **state)
{
    static const char *const functions[] = {
        "trace", "tb_control", "trace_will_trace_event", "__trace_hypercall",
        "init_trace_bufs",
    };
    const struct build *b = *state;
    char *nm = read_text(b, "nm.txt"), type;
    unsigned long size;
    unsigned int f;

    for ( f = 0; f < sizeof(functions) / sizeof(functions[0]); f++ )
        assert_defines(b, nm, functions[f], 'T');
    if ( b->tree->api_4_17 )
        assert_defines(b, nm, "__trace_var", 'T');
    else if ( find_symbol(nm, "__trace_var", &size, &type) )
        fail_msg("Xen %s: defines __trace_var, which 4.19 removed",
                 b->name);
    if ( !find_symbol(nm, "tb_init_done", &size, &type) || size != 1 )
        fail_msg("Xen %s: tb_init_done is not one byte", b->name);
    free(nm);
}

/* A constructor (in .init_array) exactly where the tree wants one. */
static void test_init_as_the_tree_wants(void **state)
{
    const struct build *b = *state;
    char *sections = read_text(b, "sections.txt");
    bool ctor = strstr(sections, " .init_array ") || strstr(sections, " .ctors ");

    if ( ctor != b->tree->constructor )
        fail_msg("Xen %s: trace.o %s a constructor", b->name,
                 ctor ? "has" : "lacks");
    free(sections);
}

/*
 * The first @n instructions of @function in objdump -dr output, each with
 * the symbol of the first relocation after it ("" if none).  Relocation
 * lines ("2: R_X86_64_PC32 sym") are not instructions.
 */
#define MAX_INSNS 3

struct insn {
    char op[64];
    char reloc[128];
};

static void read_insns(const struct build *b, const char *dis,
                       const char *function, struct insn *insn,
                       unsigned int n)
{
    char label[96];
    const char *line;
    unsigned int got = 0;

    memset(insn, 0, n * sizeof(*insn));
    snprintf(label, sizeof(label), "<%s>:", function);
    if ( !(line = strstr(dis, label)) )
        fail_msg("Xen %s: no %s in call-site.txt", b->name, function);
    for ( line = strchr(line, '\n'); line && line[1] != '\n';
          line = strchr(line + 1, '\n') )
    {
        char addr[32], word[64], sym[128] = "";

        if ( sscanf(line + 1, " %31[0-9a-f]: %63s %127s", addr, word,
                    sym) < 2 )
            continue;
        if ( !strncmp(word, "R_", 2) )
        {
            if ( got && !insn[got - 1].reloc[0] )
                snprintf(insn[got - 1].reloc, sizeof(insn[0].reloc), "%s",
                         sym);
            continue;
        }
        if ( got == n )
            break;
        snprintf(insn[got++].op, sizeof(insn[0].op), "%s", word);
    }
    assert_int_equal(got, n);
}

static bool on_flag(const struct insn *insn)
{
    return !strncmp(insn->reloc, "tb_init_done", 12);
}

/*
 * x86: a compare of the byte tb_init_done (the relocation after it names
 * it) and a conditional branch.
 */
static void assert_disabled_path_x86(const struct build *b, const char *dis,
                                     const char *function)
{
    struct insn insn[2];

    read_insns(b, dis, function, insn, 2);
    print_message("Xen %-12s %s: %s %s; %s\n", b->name, function,
                  insn[0].op, insn[0].reloc, insn[1].op);
    if ( strcmp(insn[0].op, "cmpb") || !on_flag(&insn[0]) )
        fail_msg("Xen %s: %s starts with %s on %s, not cmpb on tb_init_done",
                 b->name, function, insn[0].op, insn[0].reloc);
    if ( insn[1].op[0] != 'j' || !strcmp(insn[1].op, "jmp") )
        fail_msg("Xen %s: %s's second instruction is %s, not a branch on it",
                 b->name, function, insn[1].op);
}

/*
 * arm64: adrp of tb_init_done's page, ldrb of the byte (both relocations
 * name it), and a compare-and-branch on the register (cbz/cbnz, or
 * tbz/tbnz on bit 0).
 */
static void assert_disabled_path_arm64(const struct build *b,
                                       const char *dis, const char *function)
{
    struct insn insn[MAX_INSNS];
    const char *br;

    read_insns(b, dis, function, insn, 3);
    br = insn[2].op;
    print_message("Xen %-12s %s: %s %s; %s %s; %s\n", b->name, function,
                  insn[0].op, insn[0].reloc, insn[1].op, insn[1].reloc, br);
    if ( strcmp(insn[0].op, "adrp") || !on_flag(&insn[0]) ||
         strcmp(insn[1].op, "ldrb") || !on_flag(&insn[1]) )
        fail_msg("Xen %s: %s starts with %s on %s, %s on %s, not adrp and "
                 "ldrb of tb_init_done", b->name, function, insn[0].op,
                 insn[0].reloc, insn[1].op, insn[1].reloc);
    if ( strcmp(br, "cbz") && strcmp(br, "cbnz") && strcmp(br, "tbz") &&
         strcmp(br, "tbnz") )
        fail_msg("Xen %s: %s's third instruction is %s, not a branch on it",
                 b->name, function, br);
}

static void assert_disabled_path(const struct build *b, const char *dis,
                                 const char *function)
{
    if ( b->arm64 )
        assert_disabled_path_arm64(b, dis, function);
    else
        assert_disabled_path_x86(b, dis, function);
}

static void test_disabled_call_site(void **state)
{
    const struct build *b = *state;
    char *dis = read_text(b, "call-site.txt");

    assert_disabled_path(b, dis, "call_site_trace_time");
    if ( b->tree->api_4_17 )
        assert_disabled_path(b, dis, "call_site_trace_3d");
    free(dis);
}

static const struct tree *find_tree(const char *version)
{
    unsigned int i;

    for ( i = 0; i < NTREES; i++ )
        if ( !strcmp(trees[i].version, version) )
            return &trees[i];
    return NULL;
}

/* @name: a version, with "-arm64" after it for an arm64 build. */
static bool parse_build(struct build *b, const char *name)
{
    static const char arm64[] = "-arm64";
    char version[sizeof(b->name)];
    size_t len = strlen(name);

    if ( len >= sizeof(b->name) )
        return false;
    snprintf(b->name, sizeof(b->name), "%s", name);
    snprintf(version, sizeof(version), "%s", name);
    b->arm64 = len > strlen(arm64) &&
               !strcmp(name + len - strlen(arm64), arm64);
    if ( b->arm64 )
        version[len - strlen(arm64)] = '\0';
    return (b->tree = find_tree(version)) != NULL;
}

/* Every test on each build of $XT_TREE_VERSIONS, named for both. */
int main(void)
{
    static const struct { const char *name; CMUnitTestFunction fn; } kinds[] = {
        { "builds warning-free", test_builds_warning_free },
        { "link contract", test_link_contract },
        { "init_trace_bufs as the tree wants", test_init_as_the_tree_wants },
        { "disabled call site", test_disabled_call_site },
    };
    enum { NKINDS = sizeof(kinds) / sizeof(kinds[0]) };
    static struct build builds[MAX_BUILDS];
    static struct CMUnitTest tests[MAX_BUILDS * NKINDS];
    static char names[MAX_BUILDS * NKINDS][96];
    const char *versions = getenv("XT_TREE_VERSIONS");
    char list[256], *version;
    unsigned int n = 0, nbuilds = 0, k;

    if ( !(results = getenv("XT_TREES")) || !versions )
    {
        fprintf(stderr, "test_xen_trees: XT_TREES and XT_TREE_VERSIONS "
                "name no trees\n");
        return 1;
    }
    snprintf(list, sizeof(list), "%s", versions);
    for ( version = strtok(list, " "); version; version = strtok(NULL, " ") )
    {
        struct build *b = &builds[nbuilds];

        if ( nbuilds == MAX_BUILDS || !parse_build(b, version) )
        {
            fprintf(stderr, "test_xen_trees: Xen %s: not a build it knows\n",
                    version);
            return 1;
        }
        nbuilds++;
        for ( k = 0; k < NKINDS; k++, n++ )
        {
            snprintf(names[n], sizeof(names[n]), "Xen %s: %s", b->name,
                     kinds[k].name);
            tests[n] = (struct CMUnitTest){ names[n], kinds[k].fn, NULL,
                                            NULL, b };
        }
    }
    return _cmocka_run_group_tests("test_xen_trees", tests, n, NULL, NULL);
}
