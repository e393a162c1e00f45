# Tests of reading trace files: libxtfile's reader, the event catalogue
# against Debian's <xen/trace.h>, the readers on a xen-sim capture checked
# against Debian's xenalyze, xentrace-summary, -export and -plot on files
# from gen-trace against xenalyze and babeltrace2, and that no reader
# links a Xen library.  The tools under test are compiled in, so each
# build tree tests its own.

READER_TESTS := $(BUILD)/tests/test_readers $(BUILD)/tests/test_export \
                $(BUILD)/tests/test_reader_links

# Every object-like TRC_ macro of Debian's header, for the catalogue test.
$(BUILD)/tests/trc_names.h: /usr/include/xen/trace.h
	@mkdir -p $(@D)
	awk '/^#define TRC_[A-Za-z0-9_]+[ \t]/ { \
	    printf "    { \"%s\", (unsigned long long)(%s) },\n", $$2, $$2 }' \
	    $< > $@

$(BUILD)/tests/test_readers: tests/readers/test_readers.c \
                             $(BUILD)/tests/trc_names.h tests/common/run_cmd.c \
                             tests/common/run_cmd.h tests/common/reader_cpu.h \
                             $(XTFILE) $(XTFILE_HDRS) \
                             | $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE) \
                               $(READERS) $(XT_FORMATS) $(RUSAGE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -DXEN_SIM='"$(XEN_SIM)"' \
	    -DXENTRACE='"$(XENTRACE)"' -DXT_DUMP='"$(XT_DUMP)"' \
	    -DXT_SUMMARY='"$(XT_SUMMARY)"' -DXT_EXPORT='"$(XT_EXPORT)"' \
	    -DXT_PLOT='"$(XT_PLOT)"' -DRUSAGE='"$(RUSAGE)"' \
	    -DXT_FORMAT='"$(XT_FORMAT)"' -DXT_FORMATS='"$(XT_FORMATS)"' \
	    $(XTFILE_CFLAGS) -Itests/common -I$(BUILD)/tests $(LDFLAGS) \
	    -o $@ $< tests/common/run_cmd.c $(XTFILE) $(XTFILE_LIBS) -lcmocka

$(BUILD)/tests/test_export: tests/readers/test_export.c tests/common/run_cmd.c \
                            tests/common/run_cmd.h | $(GEN_TRACE) $(READERS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN_TRACE='"$(GEN_TRACE)"' \
	    -DSUMMARY='"$(XT_SUMMARY)"' -DEXPORT='"$(XT_EXPORT)"' \
	    -DPLOT='"$(XT_PLOT)"' -DDUMP='"$(XT_DUMP)"' \
	    -DCHECK='"tests/readers/check_export.py"' $(LDFLAGS) -o $@ \
	    tests/readers/test_export.c tests/common/run_cmd.c -lcmocka

# Each reader, by ldd: no Xen library.
$(BUILD)/tests/test_reader_links: tests/readers/test_reader_links.c \
                                  tests/common/run_cmd.c \
                                  tests/common/run_cmd.h | $(READERS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common \
	    -DREADERS='$(foreach r,$(READERS),"$(r)",)' $(LDFLAGS) -o $@ \
	    $< tests/common/run_cmd.c -lcmocka

# The CTF export's typed fields against xentrace-dump, on a xen-sim capture.
CTF_FIELDS_TEST := $(BUILD)/tests/test_ctf_fields
READER_TESTS    += $(CTF_FIELDS_TEST)

$(CTF_FIELDS_TEST): tests/readers/test_ctf_fields.c tests/common/run_cmd.c \
                    tests/common/run_cmd.h | $(XEN_SIM) $(XEN_SIM_LIBS) \
                    $(XENTRACE) $(XT_EXPORT) $(XT_DUMP)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DXEN_SIM='"$(XEN_SIM)"' \
	    -DXENTRACE='"$(XENTRACE)"' -DEXPORT='"$(XT_EXPORT)"' \
	    -DXT_DUMP='"$(XT_DUMP)"' \
	    -DCHECK='"tests/readers/check_ctf_fields.py"' $(LDFLAGS) -o $@ \
	    tests/readers/test_ctf_fields.c tests/common/run_cmd.c -lcmocka

# The readers' front end (tools/readers/lib/cli.c) on every reader,
# and their --help against their man pages.
READER_TESTS += $(BUILD)/tests/test_front_end

$(BUILD)/tests/test_front_end: tests/readers/test_front_end.c \
                               tests/common/run_cmd.c tests/common/run_cmd.h \
                               | $(READERS) $(XENTRACE) $(XENTRACE_CTL) \
                                 $(XEN_SIM)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -DXT_DUMP='"$(XT_DUMP)"' -DXT_SUMMARY='"$(XT_SUMMARY)"' \
	    -DXT_EXPORT='"$(XT_EXPORT)"' -DXT_PLOT='"$(XT_PLOT)"' \
	    -DXT_FORMAT='"$(XT_FORMAT)"' -DXT_FORMATS='"$(XT_FORMATS)"' \
	    -DXT_TOP='"$(XT_TOP)"' -DXT_JOIN='"$(XT_JOIN)"' \
	    -DXENTRACE='"$(XENTRACE)"' -DXEN_SIM='"$(XEN_SIM)"' \
	    -DXENTRACE_CTL='"$(XENTRACE_CTL)"' \
	    -DSOURCE_DIR='"$(CURDIR)"' -Itests/common $(LDFLAGS) -o $@ $< \
	    tests/common/run_cmd.c -lcmocka

# xentrace-summary --interval against --from/--to and the whole trace.
READER_TESTS += $(BUILD)/tests/test_interval

$(BUILD)/tests/test_interval: tests/readers/test_interval.c \
                              tests/common/run_cmd.c tests/common/run_cmd.h \
                              | $(GEN_TRACE) $(XT_SUMMARY)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN_TRACE='"$(GEN_TRACE)"' \
	    -DSUMMARY='"$(XT_SUMMARY)"' \
	    -DCHECK='"tests/readers/check_interval.py"' $(LDFLAGS) -o $@ $< \
	    tests/common/run_cmd.c -lcmocka

# xentrace-summary and -plot on a file, a pipe, a gzip pipe and a
# followed file: the same figures.
READER_TESTS += $(BUILD)/tests/test_streams

$(BUILD)/tests/test_streams: tests/readers/test_streams.c \
                             tests/common/run_cmd.c tests/common/run_cmd.h \
                             | $(GEN_TRACE) $(XT_SUMMARY) $(XT_PLOT)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN_TRACE='"$(GEN_TRACE)"' \
	    -DSUMMARY='"$(XT_SUMMARY)"' -DPLOT='"$(XT_PLOT)"' $(LDFLAGS) \
	    -o $@ $< tests/common/run_cmd.c -lcmocka

# The readers on an Arm guest's traps (xen/patches/arm's records), in a
# trace made with libxtfile's writer; Perfetto's trace processor judges
# the export where it is (TRACE_PROCESSOR).
READER_TESTS += $(BUILD)/tests/test_arm

$(BUILD)/tests/test_arm: tests/readers/test_arm.c tests/common/batches.c \
                         tests/common/batches.h tests/common/run_cmd.c \
                         tests/common/run_cmd.h $(XTFILE) $(XTFILE_HDRS) \
                         | $(XT_SUMMARY) $(XT_EXPORT) $(XT_DUMP)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -DSUMMARY='"$(XT_SUMMARY)"' \
	    -DEXPORT='"$(XT_EXPORT)"' -DDUMP='"$(XT_DUMP)"' $(XTFILE_CFLAGS) \
	    -Itests/common \
	    $(LDFLAGS) -o $@ $< tests/common/batches.c tests/common/run_cmd.c \
	    $(XTFILE) $(XTFILE_LIBS) -lcmocka

# xentrace-top against the summary, interval by interval, on gen-trace's
# files and a xen-sim capture, and its screen driven in tmux.
READER_TESTS += $(BUILD)/tests/test_top

$(BUILD)/tests/test_top: tests/readers/test_top.c tests/common/run_cmd.c \
                         tests/common/run_cmd.h | $(GEN_TRACE) $(XT_TOP) \
                         $(XT_SUMMARY) $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE) \
                         $(TBUF_MASK)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN_TRACE='"$(GEN_TRACE)"' \
	    -DTOP='"$(XT_TOP)"' -DSUMMARY='"$(XT_SUMMARY)"' \
	    -DXEN_SIM='"$(XEN_SIM)"' -DXENTRACE='"$(XENTRACE)"' \
	    -DTBUF_MASK='"$(TBUF_MASK)"' \
	    -DCHECK='"tests/readers/check_top.py"' \
	    -DCHECK_PROMETHEUS='"tests/readers/check_prometheus.py"' \
	    $(LDFLAGS) -o $@ $< \
	    tests/common/run_cmd.c -lcmocka
# Its screen reads the trace on a thread: under ThreadSanitizer too.
THREADED_TESTS += $(BUILD)/tests/test_top

# The relay: a file read on a thread of its own gives the same records,
# and the readers the same bytes (so under ThreadSanitizer too).
RELAY_TEST := $(BUILD)/tests/test_relay
READER_TESTS += $(RELAY_TEST)
THREADED_TESTS += $(RELAY_TEST)

$(RELAY_TEST): tests/readers/test_relay.c $(MODEL_SRCS) $(MODEL_HDRS) \
               tests/common/run_cmd.c $(XTFILE) $(XTFILE_HDRS) \
               | $(GEN_TRACE) $(XT_SUMMARY) $(XT_PLOT) $(XT_DUMP)
	@mkdir -p $(@D)
	$(CC) $(READER_CFLAGS) -Itests/common -DGEN_TRACE='"$(GEN_TRACE)"' \
	    -DSUMMARY='"$(XT_SUMMARY)"' -DPLOT='"$(XT_PLOT)"' \
	    -DDUMP='"$(XT_DUMP)"' $(LDFLAGS) \
	    -o $@ $< $(MODEL_SRCS) tests/common/run_cmd.c $(XTFILE) \
	    $(XTFILE_LIBS) -lcmocka

# --metrics: the intervals' counters against the whole trace, the
# OpenMetrics text, and its server (a thread of libmicrohttpd's, so under
# ThreadSanitizer too).
METRICS_TEST := $(BUILD)/tests/test_metrics
READER_TESTS += $(METRICS_TEST)
THREADED_TESTS += $(METRICS_TEST)

$(METRICS_TEST): tests/readers/test_metrics.c $(METRICS_SRCS) $(METRICS_HDRS) \
                 $(ANALYSIS_SRCS) $(ANALYSIS_HDRS) tests/common/run_cmd.c \
                 $(XTFILE) | $(GEN_TRACE)
	@mkdir -p $(@D)
	$(CC) $(READER_CFLAGS) $(METRICS_CFLAGS) -Itests/common \
	    -DGEN_TRACE='"$(GEN_TRACE)"' $(LDFLAGS) -o $@ $< $(METRICS_SRCS) \
	    $(ANALYSIS_SRCS) tests/common/run_cmd.c $(XTFILE) $(XTFILE_LIBS) \
	    $(METRICS_LIBS) -lcmocka -lm
