# The catalogue against the real hypervisor (tests/xen-events): Xen's own
# trees built with probe-trace.h, every trace call's event and size
# checked against tools/trace-events/trace-events.  make check takes
# the shipped 4.20.4 and 4.22.0 trees (XEN_SRC, xen/xen.mk); make check-xen adds
# Debian's 4.17 source (check-xen-events.sh).  The trees and the lists
# found are kept under XEN_EVENTS_CACHE.

XEN_EVENTS_CACHE ?= $(XEN_CACHE)/xen-events
XEN_EVENTS_TREES := $(XEN_SRC)/xen-4.20.4.tar.xz $(XEN_SRC)/xen-4.22.0.tar.xz
XEN_EVENTS_TEST  := $(BUILD)/tests/test_xen_events

READER_TESTS += $(XEN_EVENTS_TEST)

$(XEN_EVENTS_TEST): tests/xen-events/test_xen_events.c tests/common/run_cmd.c \
                    tests/common/run_cmd.h $(XTFILE) $(XTFILE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -DXEN_EVENTS='"tests/xen-events/xen-events"' \
	    -DXEN_EVENTS_CACHE='"$(XEN_EVENTS_CACHE)"' \
	    -DXEN_SOURCES='"$(XEN_EVENTS_TREES)"' \
	    $(XTFILE_CFLAGS) -Itests/common $(LDFLAGS) \
	    -o $@ $< tests/common/run_cmd.c $(XTFILE) $(XTFILE_LIBS) -lcmocka

# The catalogue's per-version layouts, the Xen version in the metadata and
# the readers' --xen-version.
XEN_VERSIONS_TEST := $(BUILD)/tests/test_xen_versions

READER_TESTS += $(XEN_VERSIONS_TEST)

$(XEN_VERSIONS_TEST): tests/xen-events/test_xen_versions.c tests/common/run_cmd.c \
                      tests/common/run_cmd.h $(BATCHES) $(XTFILE) $(XTFILE_HDRS) \
                      | $(XT_DUMP) $(XT_SUMMARY) $(XT_EXPORT)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -DXT_DUMP='"$(XT_DUMP)"' -DXT_SUMMARY='"$(XT_SUMMARY)"' \
	    -DXT_EXPORT='"$(XT_EXPORT)"' \
	    -DGEN_TRACE_EVENTS='"$(GEN_EVENTS)"' \
	    $(XTFILE_CFLAGS) -Itests/common $(LDFLAGS) \
	    -o $@ $< tests/common/run_cmd.c tests/common/batches.c $(XTFILE) \
	    $(XTFILE_LIBS) -lcmocka
