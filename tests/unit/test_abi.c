/* SPDX-License-Identifier: MIT */
/*
 * Our public trace ABI is that of every Xen release we build in:
 * xen/include/public/trace.h against the public/trace.h of Debian's
 * libxen-dev (Xen 4.17) and of the Xen 4.20.4 and 4.22.0 source trees
 * (unpacked from $(XEN_SRC) at build time), and the host shims of
 * public/xen.h and public/sysctl.h against Debian's.
 *
 * No expected value is written here.  tests/unit/gen-abi-probe tables what
 * each side's headers define (every macro, structure layouts), once
 * compiled against ours and once against each release's; these tests
 * compare the tables fact by fact and name every difference.  Ours is the
 * union of the releases: 4.19 renamed TRC_HVM_VMEXIT, and we keep both
 * names.
 */

#include <stdarg.h>
#include <stdbool.h>
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

/* One side's headers: its three tables. */
struct abi_side {
	struct abi_table trace, layout, shim;
};

#define DECLARE_SIDE(name) \
	extern const struct abi_fact abi_##name##_trace[], \
	    abi_##name##_layout[], abi_##name##_shim[]; \
	extern const size_t abi_##name##_trace_count, \
	    abi_##name##_layout_count, abi_##name##_shim_count

DECLARE_SIDE(ours);
DECLARE_SIDE(debian);
DECLARE_SIDE(xen_4_20_4);
DECLARE_SIDE(xen_4_22_0);

#define TABLE(label, name, kind) \
	{ label, abi_##name##_##kind, abi_##name##_##kind##_count }
#define SIDE(label, name) { TABLE(label, name, trace), \
	TABLE(label, name, layout), TABLE(label, name, shim) }

static struct abi_side ours, debian, releases[3];
#define NRELEASES (sizeof(releases) / sizeof(releases[0]))

/* The releases' interface versions differ by design: 4.21 raised sysctl's. */
static const char *const interface_versions[] = {
	"XEN_SYSCTL_INTERFACE_VERSION", "__XEN_LATEST_INTERFACE_VERSION__",
};

static int
set_up(void **state)
{
	(void)state;
	ours = (struct abi_side)SIDE("our headers", ours);
	debian = (struct abi_side)SIDE("Debian's 4.17 headers", debian);
	releases[0] = debian;
	releases[1] = (struct abi_side)SIDE("Xen 4.20.4's headers", xen_4_20_4);
	releases[2] = (struct abi_side)SIDE("Xen 4.22.0's headers", xen_4_22_0);
	return 0;
}

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

/* Every macro of each release's trace.h, function-like ones included. */
static void
test_trace_names_cover_every_release(void **state)
{
	unsigned int missing = 0;
	size_t i;

	(void)state;
	for (i = 0; i < NRELEASES; i++) {
		assert_true(releases[i].trace.count > 0);
		missing += report_missing(&releases[i].trace, &ours.trace);
	}
	assert_int_equal(missing, 0);
}

/*
 * Our own commands of XEN_SYSCTL_tbuf_op (public/trace.h), which no
 * release has by design: an additive extension.
 */
static const char *const extensions[] = {
	"XEN_SYSCTL_TBUFOP_dom_filter_stage",
	"XEN_SYSCTL_TBUFOP_dom_filter_commit",
	"XEN_SYSCTL_TBUFOP_event_switch",
	"XEN_SYSCTL_TBUFOP_resize",
	"XEN_TBUF_EVENT_OFF",
	"XEN_TBUF_EVENT_ON",
	"XEN_TBUF_EVENT_MASKS",
};

static bool
is_extension(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++)
		if (strcmp(name, extensions[i]) == 0)
			return true;
	return false;
}

/* ... and none that no release has, but our extensions. */
static void
test_trace_names_all_from_a_release(void **state)
{
	unsigned int invented = 0;
	size_t i, r;

	(void)state;
	assert_true(ours.trace.count > 0);
	for (i = 0; i < ours.trace.count; i++) {
		for (r = 0; r < NRELEASES; r++)
			if (find_fact(&releases[r].trace,
			    ours.trace.facts[i].name) != NULL)
				break;
		if (r < NRELEASES)
			continue;
		if (is_extension(ours.trace.facts[i].name)) {
			print_message("%s: in %s, in no release, by design\n",
			    ours.trace.facts[i].name, ours.trace.side);
			continue;
		}
		print_error("%s: in %s, in no release\n",
		    ours.trace.facts[i].name, ours.trace.side);
		invented++;
	}
	assert_int_equal(invented, 0);
}

/* ... with each release's values, function-like ones on every sample. */
static void
test_trace_values_match(void **state)
{
	unsigned int mismatches = 0;
	size_t i;

	(void)state;
	for (i = 0; i < NRELEASES; i++)
		mismatches += report_mismatches(&ours.trace, &releases[i].trace);
	assert_int_equal(mismatches, 0);
}

/* Renamed events keep their value under the new name. */
static void
test_renamed_events_alike(void **state)
{
	static const char *const renamed[][2] = {
		{ "TRC_HVM_VMEXIT", "TRC_HVM_VMX_EXIT" },
		{ "TRC_HVM_VMEXIT64", "TRC_HVM_VMX_EXIT64" },
	};
	const struct abi_fact *old, *new;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
		old = find_fact(&debian.trace, renamed[i][0]);
		new = find_fact(&releases[1].trace, renamed[i][1]);
		assert_non_null(old);
		assert_non_null(new);
		assert_null(find_fact(&releases[1].trace, renamed[i][0]));
		assert_int_equal(fact_value(old), fact_value(new));
	}
}

/* struct t_rec, t_buf and t_info: sizes, offsets, bitfield placement. */
static void
test_trace_layout_matches(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NRELEASES; i++) {
		assert_same_names(&ours.layout, &releases[i].layout);
		assert_same_values(&ours.layout, &releases[i].layout);
	}
}

/* Every constant our xen.h/sysctl.h shims define, and their structures. */
static void
test_shims_match(void **state)
{
	(void)state;
	assert_same_names(&ours.shim, &debian.shim);
	assert_same_values(&ours.shim, &debian.shim);
}

static int
is_interface_version(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(interface_versions) /
	    sizeof(interface_versions[0]); i++)
		if (strcmp(name, interface_versions[i]) == 0)
			return 1;
	return 0;
}

/*
 * The shims' constants and struct xen_sysctl_tbuf_op are the same in the
 * later releases, but for the interface versions, which are named.
 */
static void
test_shims_match_later_releases(void **state)
{
	const struct abi_fact *fa, *fb;
	unsigned int mismatches = 0;
	size_t r, i;

	(void)state;
	for (r = 1; r < NRELEASES; r++) {
		assert_same_names(&ours.shim, &releases[r].shim);
		for (i = 0; i < ours.shim.count; i++) {
			fa = &ours.shim.facts[i];
			fb = find_fact(&releases[r].shim, fa->name);
			if (fact_value(fa) == fact_value(fb))
				continue;
			if (is_interface_version(fa->name)) {
				print_message("%s: %#llx in %s, %#llx in %s, "
				    "by design\n", fa->name, fact_value(fa),
				    ours.shim.side, fact_value(fb),
				    releases[r].shim.side);
				continue;
			}
			print_error("%s: %#llx in %s, %#llx in %s\n",
			    fa->name, fact_value(fa), ours.shim.side,
			    fact_value(fb), releases[r].shim.side);
			mismatches++;
		}
	}
	assert_int_equal(mismatches, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_names_cover_every_release),
		cmocka_unit_test(test_trace_names_all_from_a_release),
		cmocka_unit_test(test_trace_values_match),
		cmocka_unit_test(test_renamed_events_alike),
		cmocka_unit_test(test_trace_layout_matches),
		cmocka_unit_test(test_shims_match),
		cmocka_unit_test(test_shims_match_later_releases),
	};

	return cmocka_run_group_tests(tests, set_up, NULL);
}
