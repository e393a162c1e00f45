# The trace-file readers beside xentrace: xentrace-summary, xentrace-export
# and xentrace-plot, on libxentrace's reader (xtread.h).

XT_SUMMARY    := $(BUILD)/tools/xentrace/xentrace-summary
XT_EXPORT     := $(BUILD)/tools/xentrace/xentrace-export
XT_PLOT       := $(BUILD)/tools/xentrace/xentrace-plot
XT_READER_TOOLS := $(XT_SUMMARY) $(XT_EXPORT) $(XT_PLOT)
READER_TOOL_CFLAGS := $(TOOL_CFLAGS) -Itools/libxentrace -Itools/libxentrace/file -Ixen/include
READER_TOOL_HDRS   := tools/libxentrace/file/xtread.h $(LIBXT_HDR)

ANALYSIS_SRCS := tools/xentrace/readers/analysis.c \
                 tools/xentrace/readers/sketch.c $(MODEL_SRCS)
ANALYSIS_HDRS := tools/xentrace/readers/analysis.h \
                 tools/xentrace/readers/sketch.h $(MODEL_HDRS)

$(XT_SUMMARY): tools/xentrace/readers/summary.c tools/xentrace/readers/tally.c \
            tools/xentrace/readers/tally.h $(ANALYSIS_SRCS) $(ANALYSIS_HDRS) \
            $(READER_TOOL_HDRS) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(READER_TOOL_CFLAGS) $(LDFLAGS) -o $@ tools/xentrace/readers/summary.c \
	    tools/xentrace/readers/tally.c $(ANALYSIS_SRCS) $(LIBXT) $(LIBXT_LIBS)

$(XT_PLOT): tools/xentrace/readers/plot.c tools/xentrace/readers/tally.c \
            tools/xentrace/readers/tally.h $(READER_TOOL_HDRS) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(READER_TOOL_CFLAGS) $(LDFLAGS) -o $@ tools/xentrace/readers/plot.c \
	    tools/xentrace/readers/tally.c $(LIBXT) $(LIBXT_LIBS)

$(XT_EXPORT): tools/xentrace/readers/export.c $(READER_TOOL_HDRS) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(READER_TOOL_CFLAGS) $(LDFLAGS) -o $@ tools/xentrace/readers/export.c \
	    $(LIBXT) $(LIBXT_LIBS)
