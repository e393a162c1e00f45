# Readers of trace files, on libxentrace's reader: xentrace-dump, and
# xentrace_format (upstream's tool, in C) with the formats file made from
# the event catalogue.

XT_DUMP     := $(BUILD)/tools/xentrace/xentrace-dump
XT_FORMAT   := $(BUILD)/tools/xentrace/xentrace_format
XT_FORMATS  := $(BUILD)/tools/xentrace/formats
READERS     := $(XT_DUMP) $(XT_FORMAT) $(XT_FORMATS)

$(XT_DUMP): tools/xentrace/readers/dump.c tools/libxentrace/file/decimal.h \
            tools/xentrace/readers/view.h tools/xentrace/readers/model.h $(LIBXT_RHDR) \
            $(LIBXT_HDR) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/libxentrace -Itools/libxentrace/file $(LDFLAGS) -o $@ $< $(LIBXT) \
	    $(LIBXT_LIBS)

$(XT_FORMAT): tools/xentrace/readers/xentrace_format.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< -lm

$(XT_FORMATS): tools/libxentrace/file/trace-events tools/libxentrace/file/gen-trace-events
	@mkdir -p $(@D)
	python3 tools/libxentrace/file/gen-trace-events --formats $@ $<
