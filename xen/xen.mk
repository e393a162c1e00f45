# The hypervisor side, built for the host: xen/common/trace.c exactly as it
# builds in the Xen tree, plus the host environment (xen/arch/host) that
# provides the few Xen internal APIs it uses.

# The Xen trees besides Debian's 4.17 that our files must fit: release
# tarballs, unmodified, in XEN_SRC.  test_abi checks our public header
# against theirs; make check builds our files in them (tests/xen/trees.mk).
XEN_SRC   ?= $(abspath ../shared/xen-src)
XEN_TREES := 4.20.4 4.22.0
# The same trees, built for arm64 with Debian's cross compiler.
XEN_ARM_TREES := 4.20.4 4.22.0

HOST_SRCS := $(wildcard xen/arch/host/*.c)
HOST_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(HOST_SRCS))
XEN_OBJS  := $(BUILD)/xen/common/trace.o
HOST_LIB  := $(BUILD)/xen/libxenhost.a
XEN_HDRS  := $(wildcard xen/include/*/*.h xen/arch/host/include/*.h \
                        xen/arch/host/include/*/*.h)

$(BUILD)/xen/common/%.o: xen/common/%.c $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XEN_CFLAGS) -c -o $@ $<

$(BUILD)/xen/arch/host/%.o: xen/arch/host/%.c $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Wno-unused-parameter $(XEN_ENV) -c -o $@ $<

$(HOST_LIB): $(XEN_OBJS) $(HOST_OBJS)
	@rm -f $@
	ar rcs $@ $^

# xen-sim's: the same, with a TSC that a CPU may set (host_set_tsc()), for
# its --repeatable records.  Kept apart so that what the tests and the
# benchmarks time reads the TSC as Xen does, with nothing before it.
HOST_SIM_DIR := $(BUILD)/xen/sim
HOST_SIM_LIB := $(HOST_SIM_DIR)/libxenhost.a
HOST_SIM_OBJS := $(HOST_SIM_DIR)/common/trace.o \
                 $(patsubst %.c,$(HOST_SIM_DIR)/%.o,$(notdir $(HOST_SRCS)))

$(HOST_SIM_DIR)/common/%.o: xen/common/%.c $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XEN_CFLAGS) -DHOST_SETTABLE_TSC -c -o $@ $<

$(HOST_SIM_DIR)/%.o: xen/arch/host/%.c $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Wno-unused-parameter $(XEN_ENV) \
	    -DHOST_SETTABLE_TSC -c -o $@ $<

$(HOST_SIM_LIB): $(HOST_SIM_OBJS)
	@rm -f $@
	ar rcs $@ $^
