# The readers of trace files, on libxtfile alone (no Xen library):
# xentrace-dump, -summary, -export, -plot, and xentrace_format (upstream's
# tool, in C) with the formats file made from the event catalogue.

XT_DUMP     := $(BUILD)/tools/xentrace/xentrace-dump
XT_SUMMARY  := $(BUILD)/tools/xentrace/xentrace-summary
XT_EXPORT   := $(BUILD)/tools/xentrace/xentrace-export
XT_PLOT     := $(BUILD)/tools/xentrace/xentrace-plot
XT_FORMAT   := $(BUILD)/tools/xentrace/xentrace_format
XT_FORMATS  := $(BUILD)/tools/xentrace/formats
READERS     := $(XT_DUMP) $(XT_SUMMARY) $(XT_EXPORT) $(XT_PLOT) $(XT_FORMAT)

READER_DIR    := tools/xentrace/readers
READER_CFLAGS := $(TOOL_CFLAGS) $(XTFILE_CFLAGS) -I$(READER_DIR)
TALLY_SRCS    := $(READER_DIR)/tally.c $(READER_DIR)/tally.h

$(XT_DUMP): $(READER_DIR)/dump.c tools/libxentrace/file/decimal.h
$(XT_SUMMARY): $(READER_DIR)/summary.c $(TALLY_SRCS)
$(XT_EXPORT): $(READER_DIR)/export.c
$(XT_PLOT): $(READER_DIR)/plot.c $(TALLY_SRCS)
$(XT_FORMAT): $(READER_DIR)/xentrace_format.c

$(READERS): $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(READER_CFLAGS) $(LDFLAGS) -o $@ $(filter %.c,$^) $(XTFILE) \
	    $(XTFILE_LIBS) -lm

$(XT_FORMATS): $(CATALOGUE) $(GEN_EVENTS)
	@mkdir -p $(@D)
	python3 $(GEN_EVENTS) --formats $@ $<
