# The drop-in Xen libraries that dom0 programs load to run against xen-sim
# (tools/xen-sim/libs/): Debian's SONAMEs and symbol versions, so that an
# unmodified binary finds them first with LD_LIBRARY_PATH=$(XEN_SIM_LIBDIR).
# Only the SONAME files are built: nothing links against them.

XEN_SIM_LIBDIR := $(BUILD)/tools/xen-sim/libs
XEN_SIM_LIBS   := $(XEN_SIM_LIBDIR)/libxenctrl.so.4.17 \
                  $(XEN_SIM_LIBDIR)/libxenforeignmemory.so.1 \
                  $(XEN_SIM_LIBDIR)/libxenevtchn.so.1 \
                  $(XEN_SIM_LIBDIR)/libxenstore.so.4

XS_LIB_SRC     := tools/xen-sim/libs
XS_LIB_OBJDIR  := $(XEN_SIM_LIBDIR)/obj
XS_LIB_HDRS    := tools/xen-sim/protocol.h $(wildcard $(XS_LIB_SRC)/*.h)

# They are loaded into programs built without sanitizers, and a sanitizer
# runtime must come first in a process: they never take $(SAN_FLAGS).
XS_LIB_CFLAGS  := $(filter-out $(SAN_FLAGS),$(TOOL_CFLAGS)) -fPIC \
                  -fvisibility=hidden -pthread
XS_LIB_LDFLAGS  = -shared -pthread -Wl,-z,defs -Wl,-soname,$(@F) \
                  -Wl,--version-script,$(filter %.map,$^)

$(XS_LIB_OBJDIR)/%.o: $(XS_LIB_SRC)/%.c $(XS_LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XS_LIB_CFLAGS) -c -o $@ $<

$(XEN_SIM_LIBDIR)/libxenctrl.so.4.17: $(XS_LIB_SRC)/libxenctrl.map \
        $(addprefix $(XS_LIB_OBJDIR)/,xenctrl.o foreign.o client.o)
$(XEN_SIM_LIBDIR)/libxenforeignmemory.so.1: \
        $(XS_LIB_SRC)/libxenforeignmemory.map \
        $(addprefix $(XS_LIB_OBJDIR)/,xenforeignmemory.o foreign.o client.o)
$(XEN_SIM_LIBDIR)/libxenevtchn.so.1: $(XS_LIB_SRC)/libxenevtchn.map \
        $(addprefix $(XS_LIB_OBJDIR)/,xenevtchn.o client.o)
$(XEN_SIM_LIBDIR)/libxenstore.so.4: $(XS_LIB_SRC)/libxenstore.map \
        $(addprefix $(XS_LIB_OBJDIR)/,xenstore.o client.o)

$(XEN_SIM_LIBS):
	$(CC) $(XS_LIB_LDFLAGS) -o $@ $(filter %.o,$^)
