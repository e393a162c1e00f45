# Readers of trace files, on libxentrace's reader: xentrace-dump, and
# xentrace_format (upstream's tool, in C) with the formats file made from
# the event catalogue.

# The model of the machine (model.c), for the readers that need more than
# records: the dump, the summary's analysis (summary.mk).
MODEL_SRCS  := tools/xentrace/readers/model.c tools/xentrace/readers/merge.c
MODEL_HDRS  := tools/xentrace/readers/model.h tools/xentrace/readers/merge.h

XT_DUMP     := $(BUILD)/tools/xentrace/xentrace-dump
XT_FORMAT   := $(BUILD)/tools/xentrace/xentrace_format
XT_FORMATS  := $(BUILD)/tools/xentrace/formats
READERS     := $(XT_DUMP) $(XT_FORMAT) $(XT_FORMATS)

$(XT_DUMP): tools/xentrace/readers/dump.c tools/libxentrace/file/decimal.h $(LIBXT_RHDR) \
            $(LIBXT_HDR) $(LIBXT) $(MODEL_SRCS) $(MODEL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/libxentrace -Itools/libxentrace/file $(LDFLAGS) -o $@ $< \
	    $(MODEL_SRCS) $(LIBXT) $(LIBXT_LIBS)

$(XT_FORMAT): tools/xentrace/readers/xentrace_format.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< -lm

$(XT_FORMATS): tools/libxentrace/file/trace-events tools/libxentrace/file/gen-trace-events
	@mkdir -p $(@D)
	python3 tools/libxentrace/file/gen-trace-events --formats $@ $<
