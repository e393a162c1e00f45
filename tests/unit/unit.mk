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

# test_abi compares tables of ABI facts that tests/unit/gen-abi-probe
# generates from the headers themselves: ours, Debian's (libxen-dev, 4.17),
# and those of each tree of XEN_TREES, unpacked from its tarball into
# $(BUILD)/xen-public/VERSION.  The shims' constants to check are the ones
# our shims define, on every side.
ABI_PROBE        := tests/unit/gen-abi-probe
ABI_SHIM_ROOT    := xen/arch/host/include
ABI_SHIM_HDRS    := $(ABI_SHIM_ROOT)/public/xen.h $(ABI_SHIM_ROOT)/public/sysctl.h
ABI_FLAGS_ours   := -Ixen/include -I$(ABI_SHIM_ROOT)
ABI_FLAGS_debian := -D__XEN_TOOLS__
ABI_SIDE_ours    := ours
ABI_SIDE_debian  := debian
ABI_HDRS_ours    := public/trace.h public/sysctl.h
ABI_HDRS_debian  := xen/trace.h xen/sysctl.h

# A release's public headers, straight from its tarball.
$(BUILD)/xen-public/%/.unpacked: $(XEN_SRC)/xen-%.tar.xz
	@rm -rf $(@D)
	@mkdir -p $(@D)
	tar -xJf $< -C $(@D) --strip-components=3 xen-$*/xen/include/public
	@touch $@

define abi_release
ABI_FLAGS_$(1) := -D__XEN_TOOLS__ -I$(BUILD)/xen-public/$(1)
ABI_SIDE_$(1)  := xen_$(subst .,_,$(1))
ABI_HDRS_$(1)  := public/trace.h public/sysctl.h
$(BUILD)/tests/abi_$(1).c: $(BUILD)/xen-public/$(1)/.unpacked
endef
$(foreach v,$(XEN_TREES),$(eval $(call abi_release,$(v))))

$(BUILD)/tests/abi_ours.c: xen/include/public/trace.h
$(BUILD)/tests/abi_debian.c: /usr/include/xen/trace.h /usr/include/xen/sysctl.h
$(BUILD)/tests/abi_%.c: $(ABI_PROBE) $(ABI_SHIM_HDRS)
	@mkdir -p $(@D)
	CC='$(CC)' $(ABI_PROBE) $(ABI_SIDE_$*) $(ABI_HDRS_$*) \
	    $(ABI_SHIM_ROOT) $(TOOL_CFLAGS) $(ABI_FLAGS_$*) >$@.tmp
	@mv $@.tmp $@

$(BUILD)/tests/abi_%.o: $(BUILD)/tests/abi_%.c
	$(CC) $(TOOL_CFLAGS) $(ABI_FLAGS_$*) -c -o $@ $<

ABI_SIDES := ours debian $(XEN_TREES)
$(BUILD)/tests/test_abi: $(patsubst %,$(BUILD)/tests/abi_%.o,$(ABI_SIDES))

# Kept for the next build: the objects and the probes' tables.
.SECONDARY: $(UNIT_OBJS) $(foreach s,$(ABI_SIDES),$(BUILD)/tests/abi_$(s).c \
                                                 $(BUILD)/tests/abi_$(s).o)

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
