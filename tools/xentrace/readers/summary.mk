# The trace-file readers beside xentrace: xentrace-summary, xentrace-export
# and xentrace-plot, on libxentrace's reader (xtread.h).

XT_SUMMARY    := $(BUILD)/tools/xentrace/xentrace-summary
XT_EXPORT     := $(BUILD)/tools/xentrace/xentrace-export
XT_PLOT       := $(BUILD)/tools/xentrace/xentrace-plot
XT_READER_TOOLS := $(XT_SUMMARY) $(XT_EXPORT) $(XT_PLOT)
READER_TOOL_CFLAGS := $(TOOL_CFLAGS) -Itools/libxentrace -Ixen/include
READER_TOOL_HDRS   := tools/libxentrace/xtread.h $(LIBXT_HDR)

$(XT_SUMMARY): tools/xentrace/summary.c tools/xentrace/tally.c \
            tools/xentrace/tally.h $(READER_TOOL_HDRS) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(READER_TOOL_CFLAGS) $(LDFLAGS) -o $@ tools/xentrace/summary.c \
	    tools/xentrace/tally.c $(LIBXT) $(LIBXT_LIBS)

$(XT_PLOT): tools/xentrace/plot.c tools/xentrace/tally.c \
            tools/xentrace/tally.h $(READER_TOOL_HDRS) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(READER_TOOL_CFLAGS) $(LDFLAGS) -o $@ tools/xentrace/plot.c \
	    tools/xentrace/tally.c $(LIBXT) $(LIBXT_LIBS)

$(XT_EXPORT): tools/xentrace/export.c $(READER_TOOL_HDRS) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(READER_TOOL_CFLAGS) $(LDFLAGS) -o $@ tools/xentrace/export.c \
	    $(LIBXT) $(LIBXT_LIBS)
