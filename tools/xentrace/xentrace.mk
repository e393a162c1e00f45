# xentrace: the capture daemon, on libxentrace.

XENTRACE      := $(BUILD)/tools/xentrace/xentrace
XENTRACE_SRCS := $(wildcard tools/xentrace/*.c)
XENTRACE_HDRS := $(wildcard tools/xentrace/*.h) $(LIBXT_HDR)

$(XENTRACE): $(XENTRACE_SRCS) $(XENTRACE_HDRS) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/libxentrace -Ixen/include $(LDFLAGS) -o $@ \
	    $(XENTRACE_SRCS) $(LIBXT) $(LIBXT_LIBS)
