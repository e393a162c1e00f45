# The readers of trace files, on libxtfile alone (no Xen library):
# xentrace-dump, -summary, -export, -plot, -top, and xentrace_format
# (upstream's tool, in C) with the formats file made from the event
# catalogue.  Each is one file here; what they share is in lib/.

READER_SRC  := tools/readers
READER_OUT  := $(BUILD)/tools/readers
XT_DUMP     := $(READER_OUT)/xentrace-dump
XT_SUMMARY  := $(READER_OUT)/xentrace-summary
XT_EXPORT   := $(READER_OUT)/xentrace-export
XT_PLOT     := $(READER_OUT)/xentrace-plot
XT_FORMAT   := $(READER_OUT)/xentrace_format
XT_TOP      := $(READER_OUT)/xentrace-top
XT_JOIN     := $(READER_OUT)/xentrace-join
XT_FORMATS  := $(READER_OUT)/formats
READERS     := $(XT_DUMP) $(XT_SUMMARY) $(XT_EXPORT) $(XT_PLOT) $(XT_FORMAT) \
               $(XT_TOP) $(XT_JOIN)

READER_DIR    := $(READER_SRC)/lib
READER_CFLAGS := $(TOOL_CFLAGS) $(XTFILE_CFLAGS) $(COMMON_CFLAGS) \
                 -I$(READER_DIR)
TALLY_SRCS    := $(READER_DIR)/tally.c $(READER_DIR)/tally.h \
                 $(READER_DIR)/timebins.c $(READER_DIR)/timebins.h
# The readers' front end, which every reader links, and their one TSC to
# time conversion.
READER_CLI    := $(READER_DIR)/cli.c $(READER_DIR)/cli.h $(READER_DIR)/tsc.h \
                 $(COMMON_SRC)/numbers.h

# The model of the machine (model.h), for the readers that need more than
# records: the dump, and the summary's analysis.
MODEL_SRCS    := $(READER_DIR)/model.c $(READER_DIR)/merge.c \
                 $(READER_DIR)/relay.c
MODEL_HDRS    := $(READER_DIR)/model.h $(READER_DIR)/merge.h \
                 $(READER_DIR)/relay.h
ANALYSIS_SRCS := $(READER_DIR)/analysis.c $(READER_DIR)/sketch.c \
                 $(READER_DIR)/longest.c $(READER_DIR)/crossing.c \
                 $(MODEL_SRCS)
ANALYSIS_HDRS := $(READER_DIR)/analysis.h $(READER_DIR)/sketch.h \
                 $(READER_DIR)/longest.h $(READER_DIR)/crossing.h \
                 $(MODEL_HDRS)

# xentrace-top's --metrics: OpenMetrics served by libmicrohttpd (Debian's
# libmicrohttpd-dev: an HTTP server is not ours to write).
METRICS_SRCS   := $(READER_DIR)/metrics.c
METRICS_HDRS   := $(READER_DIR)/metrics.h
METRICS_CFLAGS := $(shell pkg-config --cflags libmicrohttpd)
METRICS_LIBS   := $(shell pkg-config --libs libmicrohttpd) -lpthread

# The timeline exports (Perfetto, Chrome JSON) on the model.
EXPORT_SRCS   := $(READER_DIR)/perfetto.c $(READER_DIR)/pbwrite.c \
                 $(READER_DIR)/view.c $(MODEL_SRCS)
EXPORT_HDRS   := $(READER_DIR)/perfetto.h $(READER_DIR)/pbwrite.h \
                 $(READER_DIR)/view.h $(MODEL_HDRS)

$(XT_DUMP): $(READER_SRC)/dump.c $(READER_DIR)/view.c $(READER_DIR)/view.h \
            $(MODEL_SRCS) $(MODEL_HDRS)
$(XT_SUMMARY): $(READER_SRC)/summary.c $(TALLY_SRCS) $(ANALYSIS_SRCS) \
               $(ANALYSIS_HDRS) $(READER_DIR)/diff.c $(READER_DIR)/diff.h
$(XT_EXPORT): $(READER_SRC)/export.c $(EXPORT_SRCS) $(EXPORT_HDRS)
# The plot's pictures: the event rate (tally.c), and xenalyze's
# scatterplots from the model (scatter.c), drawn by svg.c.
$(XT_PLOT): $(READER_SRC)/plot.c $(TALLY_SRCS) $(READER_DIR)/scatter.c \
            $(READER_DIR)/scatter.h $(READER_DIR)/svg.c $(READER_DIR)/svg.h \
            $(MODEL_SRCS) $(MODEL_HDRS)
$(XT_FORMAT): $(READER_SRC)/xentrace_format.c

# The live view: the summary's analysis on a screen (ncurses, Debian's
# libncurses-dev), read by a thread of its own; -e and -c parsed by
# xentrace's own parsers, so that the grammar is one, and with no file
# passed to a xentrace of its own (host.c).
$(XT_TOP): $(READER_SRC)/top.c $(ANALYSIS_SRCS) $(ANALYSIS_HDRS) \
           $(METRICS_SRCS) $(METRICS_HDRS) \
           $(READER_DIR)/host.c $(READER_DIR)/host.h \
           tools/xentrace/options.c tools/xentrace/options.h $(XT_CLASSES_H)
$(XT_TOP): READER_CFLAGS += -Itools/xentrace $(EVENTS_CFLAGS) -Ixen/include \
                            $(shell pkg-config --cflags ncurses)
$(XT_TOP): READER_CFLAGS += $(METRICS_CFLAGS)
$(XT_TOP): READER_LIBS := $(shell pkg-config --libs ncurses) $(METRICS_LIBS)

# A trace-cmd trace.dat joined to a capture: read by libtracecmd
# (Debian's libtracecmd-dev, trace-cmd's own reader of its format), its
# events made records by xentrace --dom0's ftrace.c.
$(XT_JOIN): $(READER_SRC)/join.c tools/xentrace/ftrace.c \
            tools/xentrace/ftrace.h
$(XT_JOIN): READER_CFLAGS += -Itools/xentrace \
                            $(shell pkg-config --cflags libtracecmd)
$(XT_JOIN): READER_LIBS := $(shell pkg-config --libs libtracecmd) \
                           $(TRACEFS_LIBS)

$(READERS): $(READER_CLI) $(COMMON_HDRS) $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(READER_CFLAGS) $(LDFLAGS) -o $@ $(filter %.c,$^) $(XTFILE) \
	    $(XTFILE_LIBS) $(READER_LIBS) -lm

$(XT_FORMATS): $(CATALOGUE) $(GEN_EVENTS)
	@mkdir -p $(@D)
	python3 $(GEN_EVENTS) --formats $@ $<
