# Unit tests (cmocka).  Each tests/unit/test_NAME.c is one program linked
# with the host build of the hypervisor.  THREADED_TESTS also run under
# TSan: this folder's, and those the other folders' makefiles add.

UNIT_SRCS      := $(wildcard tests/unit/test_*.c)
UNIT_TESTS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
UNIT_OBJS      := $(UNIT_TESTS:=.o)
THREADED_TESTS := $(BUILD)/tests/test_property
UNIT_HELPERS   := $(BUILD)/tests/host_util.o
TEST_LIBS      := -lcmocka -lpthread

$(BUILD)/tests/%.o: tests/unit/%.c $(XEN_HDRS) tests/unit/host_util.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(UNIT_HELPERS) $(HOST_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LIBS)

# test_abi compares two tables of ABI facts that tests/unit/gen-abi-probe
# generates from the headers themselves: ours, and Debian's (libxen-dev).
# The shims' constants to check are the ones our shims define, on both sides.
ABI_PROBE        := tests/unit/gen-abi-probe
ABI_SHIM_ROOT    := xen/arch/host/include
ABI_SHIM_HDRS    := $(ABI_SHIM_ROOT)/public/xen.h $(ABI_SHIM_ROOT)/public/sysctl.h
ABI_FLAGS_ours   := -Ixen/include -I$(ABI_SHIM_ROOT)
ABI_FLAGS_debian := -D__XEN_TOOLS__

$(BUILD)/tests/abi_ours.c: $(ABI_PROBE) xen/include/public/trace.h \
                           $(ABI_SHIM_HDRS)
	@mkdir -p $(@D)
	CC='$(CC)' $(ABI_PROBE) ours public/trace.h public/sysctl.h \
	    $(ABI_SHIM_ROOT) $(TOOL_CFLAGS) $(ABI_FLAGS_ours) >$@.tmp
	@mv $@.tmp $@

$(BUILD)/tests/abi_debian.c: $(ABI_PROBE) /usr/include/xen/trace.h \
                             /usr/include/xen/sysctl.h $(ABI_SHIM_HDRS)
	@mkdir -p $(@D)
	CC='$(CC)' $(ABI_PROBE) debian xen/trace.h xen/sysctl.h \
	    $(ABI_SHIM_ROOT) $(TOOL_CFLAGS) $(ABI_FLAGS_debian) >$@.tmp
	@mv $@.tmp $@

$(BUILD)/tests/abi_%.o: $(BUILD)/tests/abi_%.c
	$(CC) $(TOOL_CFLAGS) $(ABI_FLAGS_$*) -c -o $@ $<

$(BUILD)/tests/test_abi: $(BUILD)/tests/abi_ours.o $(BUILD)/tests/abi_debian.o

# Kept for the next build: the objects and the probes' tables.
.SECONDARY: $(UNIT_OBJS) $(addprefix $(BUILD)/tests/abi_,ours.c debian.c \
                                     ours.o debian.o)

# test_notrace checks the producer API of a Xen built without tracing.  Its
# stubs name parameters they do not use, which Xen's -Wall allows.
$(BUILD)/tests/test_notrace.o: TEST_CFLAGS += -UCONFIG_TRACEBUFFER \
                                             -Wno-unused-parameter

# test_wide_counts presets Xen's internal counts through trace_inside.c,
# which compiles trace.c itself: it links the host objects, not the
# library, whose trace.o would clash.
$(BUILD)/tests/trace_inside.o: tests/unit/trace_inside.c \
                               tests/unit/trace_inside.h xen/common/trace.c \
                               $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XEN_CFLAGS) -c -o $@ $<

$(BUILD)/tests/test_wide_counts: $(BUILD)/tests/test_wide_counts.o \
                                 $(UNIT_HELPERS) $(BUILD)/tests/trace_inside.o \
                                 $(HOST_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LIBS)

# test_trace_events: every generated trc_*() call (gen-trace-events --calls
# puts them in one table) against libxtfile's decoding of its record.
TRACE_CALLS_C := $(BUILD)/tests/trace_calls.c

$(TRACE_CALLS_C): $(CATALOGUE) $(GEN_EVENTS)
	@mkdir -p $(@D)
	python3 $(GEN_EVENTS) --calls $@ $<

$(BUILD)/tests/trace_calls.o: $(TRACE_CALLS_C) tests/unit/trace_calls.h $(XEN_HDRS)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<

$(BUILD)/tests/test_trace_events.o: TEST_CFLAGS += $(XTFILE_CFLAGS)
$(BUILD)/tests/test_trace_events.o: tests/unit/trace_calls.h $(XTFILE_HDRS)
$(BUILD)/tests/test_trace_events: $(BUILD)/tests/trace_calls.o $(XTFILE)
$(BUILD)/tests/test_trace_events: TEST_LIBS += $(XTFILE_LIBS)
