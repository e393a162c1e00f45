# xen-sim, the simulated Xen host, and the drop-in Xen libraries that its
# dom0 programs load (libs/, in $(BUILD)/tools/xen-sim/libs beside it).

XEN_SIM      := $(BUILD)/tools/xen-sim/xen-sim
XEN_SIM_SRCS := tools/xen-sim/xen-sim.c tools/xen-sim/server.c \
                tools/xen-sim/store.c \
                $(wildcard tools/xen-sim/workload*.c)
XEN_SIM_HDRS := $(wildcard tools/xen-sim/*.h) $(COMMON_SRC)/numbers.h

$(XEN_SIM): $(XEN_SIM_SRCS) $(XEN_SIM_HDRS) $(HOST_SIM_LIB) $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(XEN_ENV) -DHOST_SETTABLE_TSC $(COMMON_CFLAGS) \
	    $(LDFLAGS) -o $@ $(XEN_SIM_SRCS) $(HOST_SIM_LIB) -lpthread

include tools/xen-sim/libs/libs.mk
