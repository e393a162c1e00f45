# xentrace: the capture daemon, on libxentrace.

XENTRACE      := $(BUILD)/tools/xentrace/xentrace
XENTRACE_SRCS := tools/xentrace/xentrace.c tools/xentrace/options.c \
                 tools/xentrace/output.c
XENTRACE_HDRS := tools/xentrace/options.h tools/xentrace/output.h $(LIBXT_HDR)

$(XENTRACE): $(XENTRACE_SRCS) $(XENTRACE_HDRS) $(XT_CLASSES_H) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/libxentrace -I$(LIBXT_DIR) -Ixen/include \
	    $(LDFLAGS) -o $@ \
	    $(XENTRACE_SRCS) $(LIBXT) $(LIBXT_LIBS)
