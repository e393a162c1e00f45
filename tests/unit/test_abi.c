/* SPDX-License-Identifier: MIT */
/*
 * Our public trace ABI is Xen 4.17's: xen/include/public/trace.h and the
 * host shims of public/xen.h and public/sysctl.h against the headers of
 * Debian's libxen-dev.
 *
 * No expected value is written here.  tests/unit/gen-abi-probe tables what
 * each side's headers define (every macro, structure layouts), once
 * compiled against ours and once against Debian's; these tests compare the
 * two tables fact by fact and name every difference.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

/* As gen-abi-probe emits it. */
struct abi_fact {
	const char *name;
	unsigned long long value;
	unsigned long long (*probe)(void);	/* if set, measures value */
};

/* One side's table of one kind of fact. */
struct abi_table {
	const char *side;
	const struct abi_fact *facts;
	size_t count;
};

extern const struct abi_fact abi_ours_trace[], abi_ours_layout[],
    abi_ours_shim[];
extern const size_t abi_ours_trace_count, abi_ours_layout_count,
    abi_ours_shim_count;
extern const struct abi_fact abi_debian_trace[], abi_debian_layout[],
    abi_debian_shim[];
extern const size_t abi_debian_trace_count, abi_debian_layout_count,
    abi_debian_shim_count;

#define OURS(kind) \
	(&(struct abi_table){ "our headers", abi_ours_##kind, abi_ours_##kind##_count })
#define DEBIAN(kind) \
	(&(struct abi_table){ "Debian's headers", abi_debian_##kind, \
	    abi_debian_##kind##_count })

static const struct abi_fact *
find_fact(const struct abi_table *table, const char *name)
{
	size_t i;

	for (i = 0; i < table->count; i++)
		if (strcmp(table->facts[i].name, name) == 0)
			return &table->facts[i];
	return NULL;
}

static unsigned long long
fact_value(const struct abi_fact *fact)
{
	return fact->probe != NULL ? fact->probe() : fact->value;
}

/* Report each fact that HAS has and LACKS has not; return how many. */
static unsigned int
report_missing(const struct abi_table *has, const struct abi_table *lacks)
{
	unsigned int missing = 0;
	size_t i;

	for (i = 0; i < has->count; i++) {
		if (find_fact(lacks, has->facts[i].name) != NULL)
			continue;
		print_error("%s: in %s, not in %s\n",
		    has->facts[i].name, has->side, lacks->side);
		missing++;
	}
	return missing;
}

/* Report each fact whose value differs between A and B; return how many. */
static unsigned int
report_mismatches(const struct abi_table *a, const struct abi_table *b)
{
	const struct abi_fact *fa, *fb;
	unsigned int mismatches = 0;
	size_t i;

	for (i = 0; i < a->count; i++) {
		fa = &a->facts[i];
		fb = find_fact(b, fa->name);
		if (fb == NULL || fact_value(fa) == fact_value(fb))
			continue;
		print_error("%s: %#llx in %s, %#llx in %s\n", fa->name,
		    fact_value(fa), a->side, fact_value(fb), b->side);
		mismatches++;
	}
	return mismatches;
}

static void
assert_same_names(const struct abi_table *a, const struct abi_table *b)
{
	/* An empty table would match anything: the generator found nothing. */
	assert_true(a->count > 0);
	assert_true(b->count > 0);
	assert_int_equal(report_missing(a, b) + report_missing(b, a), 0);
}

static void
assert_same_values(const struct abi_table *a, const struct abi_table *b)
{
	assert_int_equal(report_mismatches(a, b), 0);
}

/* trace.h defines the same macros, function-like ones included. */
static void
test_trace_names_match(void **state)
{
	(void)state;
	assert_same_names(OURS(trace), DEBIAN(trace));
}

/* ... with the same values, function-like ones on every sample. */
static void
test_trace_values_match(void **state)
{
	(void)state;
	assert_same_values(OURS(trace), DEBIAN(trace));
}

/* struct t_rec, t_buf and t_info: sizes, offsets, bitfield placement. */
static void
test_trace_layout_matches(void **state)
{
	(void)state;
	assert_same_names(OURS(layout), DEBIAN(layout));
	assert_same_values(OURS(layout), DEBIAN(layout));
}

/* Every constant our xen.h/sysctl.h shims define, and their structures. */
static void
test_shims_match(void **state)
{
	(void)state;
	assert_same_names(OURS(shim), DEBIAN(shim));
	assert_same_values(OURS(shim), DEBIAN(shim));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_names_match),
		cmocka_unit_test(test_trace_values_match),
		cmocka_unit_test(test_trace_layout_matches),
		cmocka_unit_test(test_shims_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
