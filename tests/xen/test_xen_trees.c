/*
 * Our three files in real Xen trees, as tests/xen/build-tree.sh and
 * build-xen.sh built them: one directory per tree under $XT_TREES, named
 * by its version (see call-site.sh for what each holds), for each version
 * in $XT_TREE_VERSIONS.  `make check` gives it 4.20.4 and 4.22.0, `make
 * check-xen` Debian's 4.17 and 4.20.4.
 *
 * Each tree builds warning-free with Xen's -Werror; trace.o defines what
 * the tree links against, for the API the tree calls (4.17's only before
 * 4.19); init_trace_bufs() is a constructor from 4.21, where no one calls
 * it; tb_init_done is a bool, and a disabled trace point, TRACE_TIME() and
 * in 4.17 TRACE_3D(), is one compare and one branch.
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

static const char *results;

static void path_of(char *path, const struct tree *t, const char *file)
{
    snprintf(path, PATH_BYTES, "%s/%s/%s", results, t->version, file);
}

/* The whole of @file of @t, NUL-terminated; the test fails without it. */
static char *read_text(const struct tree *t, const char *file)
{
    char path[PATH_BYTES], *text;

    path_of(path, t, file);
    if ( !(text = read_file(path)) )
        fail_msg("%s: missing (did the build of Xen %s succeed?)", path,
                 t->version);
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

static void assert_defines(const struct tree *t, const char *nm,
                           const char *symbol, char want_type)
{
    unsigned long size;
    char type;

    if ( !find_symbol(nm, symbol, &size, &type) )
        fail_msg("Xen %s: trace.o does not define %s", t->version, symbol);
    if ( type != want_type )
        fail_msg("Xen %s: %s has type %c, not %c", t->version, symbol, type,
                 want_type);
}

/* make exited 0, and Xen's build printed no warning. */
static void test_builds_warning_free(void **state)
{
    const struct tree *t = *state;
    char *rc = read_text(t, "build.rc"), *log = read_text(t, "build.log");
    const char *line;

    if ( atoi(rc) != 0 )
        fail_msg("Xen %s: build failed:\n%s", t->version,
                 strlen(log) > 3000 ? log + strlen(log) - 3000 : log);
    /* The compiler's and the linker's, not make's own about jobs. */
    for ( line = log; line; line = strchr(line, '\n'), line += !!line )
    {
        const char *warning = strstr(line, "warning:");
        const char *end = strchr(line, '\n');

        if ( warning && (!end || warning < end) && strncmp(line, "make", 4) )
            fail_msg("Xen %s: %.*s", t->version,
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
    const struct tree *t = *state;
    char *nm = read_text(t, "nm.txt"), type;
    unsigned long size;
    unsigned int f;

    for ( f = 0; f < sizeof(functions) / sizeof(functions[0]); f++ )
        assert_defines(t, nm, functions[f], 'T');
    if ( t->api_4_17 )
        assert_defines(t, nm, "__trace_var", 'T');
    else if ( find_symbol(nm, "__trace_var", &size, &type) )
        fail_msg("Xen %s: defines __trace_var, which 4.19 removed",
                 t->version);
    if ( !find_symbol(nm, "tb_init_done", &size, &type) || size != 1 )
        fail_msg("Xen %s: tb_init_done is not one byte", t->version);
    free(nm);
}

/* A constructor (in .init_array) exactly where the tree wants one. */
static void test_init_as_the_tree_wants(void **state)
{
    const struct tree *t = *state;
    char *sections = read_text(t, "sections.txt");
    bool ctor = strstr(sections, " .init_array ") || strstr(sections, " .ctors ");

    if ( ctor != t->constructor )
        fail_msg("Xen %s: trace.o %s a constructor", t->version,
                 ctor ? "has" : "lacks");
    free(sections);
}

/*
 * The first two instructions of @function in objdump -dr output: a
 * compare of the byte tb_init_done (the relocation that follows it names
 * it) and a conditional branch.  Relocation lines ("2: R_X86_64_PC32
 * sym") are not instructions.
 */
static void assert_disabled_path(const struct tree *t, const char *dis,
                                 const char *function)
{
    char label[96], insn[2][64] = { "", "" }, first_reloc[128] = "";
    const char *line;
    unsigned int n = 0;

    snprintf(label, sizeof(label), "<%s>:", function);
    if ( !(line = strstr(dis, label)) )
        fail_msg("Xen %s: no %s in call-site.txt", t->version, function);
    for ( line = strchr(line, '\n'); line && line[1] != '\n' && n < 2;
          line = strchr(line + 1, '\n') )
    {
        char addr[32], word[64], sym[128] = "";

        if ( sscanf(line + 1, " %31[0-9a-f]: %63s %127s", addr, word,
                    sym) < 2 )
            continue;
        if ( !strncmp(word, "R_", 2) )
        {
            if ( n == 1 && !first_reloc[0] )
                snprintf(first_reloc, sizeof(first_reloc), "%s", sym);
            continue;
        }
        snprintf(insn[n++], sizeof(insn[0]), "%s", word);
    }
    assert_int_equal(n, 2);
    print_message("Xen %-6s %s: %s %s; %s\n", t->version, function, insn[0],
                  first_reloc, insn[1]);
    if ( strcmp(insn[0], "cmpb") || strncmp(first_reloc, "tb_init_done", 12) )
        fail_msg("Xen %s: %s starts with %s on %s, not cmpb on tb_init_done",
                 t->version, function, insn[0], first_reloc);
    if ( insn[1][0] != 'j' || !strcmp(insn[1], "jmp") )
        fail_msg("Xen %s: %s's second instruction is %s, not a branch on it",
                 t->version, function, insn[1]);
}

static void test_disabled_call_site(void **state)
{
    const struct tree *t = *state;
    char *dis = read_text(t, "call-site.txt");

    assert_disabled_path(t, dis, "call_site_trace_time");
    if ( t->api_4_17 )
        assert_disabled_path(t, dis, "call_site_trace_3d");
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

/* Every test on each tree of $XT_TREE_VERSIONS, named for both. */
int main(void)
{
    static const struct { const char *name; CMUnitTestFunction fn; } kinds[] = {
        { "builds warning-free", test_builds_warning_free },
        { "link contract", test_link_contract },
        { "init_trace_bufs as the tree wants", test_init_as_the_tree_wants },
        { "disabled call site", test_disabled_call_site },
    };
    const unsigned int nkinds = sizeof(kinds) / sizeof(kinds[0]);
    struct CMUnitTest tests[NTREES * sizeof(kinds) / sizeof(kinds[0])];
    static char names[NTREES * sizeof(kinds) / sizeof(kinds[0])][96];
    const char *versions = getenv("XT_TREE_VERSIONS");
    char list[256], *version;
    unsigned int n = 0, k;

    if ( !(results = getenv("XT_TREES")) || !versions )
    {
        fprintf(stderr, "test_xen_trees: XT_TREES and XT_TREE_VERSIONS "
                "name no trees\n");
        return 1;
    }
    snprintf(list, sizeof(list), "%s", versions);
    for ( version = strtok(list, " "); version; version = strtok(NULL, " ") )
    {
        const struct tree *t = find_tree(version);

        if ( !t )
        {
            fprintf(stderr, "test_xen_trees: Xen %s: not a tree it knows\n",
                    version);
            return 1;
        }
        for ( k = 0; k < nkinds && n < NTREES * nkinds; k++, n++ )
        {
            snprintf(names[n], sizeof(names[n]), "Xen %s: %s", t->version,
                     kinds[k].name);
            tests[n] = (struct CMUnitTest){ names[n], kinds[k].fn, NULL,
                                            NULL, (void *)t };
        }
    }
    return _cmocka_run_group_tests("test_xen_trees", tests, n, NULL, NULL);
}
