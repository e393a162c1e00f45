# Tests of the dom0 tools that need no hypervisor: the trace-file writer
# and xentrace's option parsers.

TOOL_TESTS := $(BUILD)/tests/test_writer $(BUILD)/tests/test_xentrace_options

$(BUILD)/tests/test_writer: tests/tools/test_writer.c tests/common/run_cmd.c \
                            tests/common/run_cmd.h $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/libxentrace -Itools/libxentrace/file -Ixen/include -Itests/common \
	    $(LDFLAGS) -o $@ $< tests/common/run_cmd.c $(LIBXT) $(LIBXT_LIBS) \
	    -lcmocka

$(BUILD)/tests/test_xentrace_options: tests/tools/test_xentrace_options.c \
                                      tools/xentrace/options.c \
                                      tools/xentrace/options.h \
                                      $(XT_CLASSES_H)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/xentrace -I$(LIBXT_DIR) -Ixen/include \
	    $(LDFLAGS) -o $@ \
	    tests/tools/test_xentrace_options.c tools/xentrace/options.c -lcmocka

# tests/unit/test_trace_events (built by unit.mk's rules, with these
# additions, here where the library is known): every generated trc_*() call (gen-trace-events --calls
# puts them in one table) against the reader's decoding of its record.
TRACE_CALLS_C := $(BUILD)/tests/trace_calls.c

$(TRACE_CALLS_C): $(CATALOGUE) $(GEN_EVENTS)
	@mkdir -p $(@D)
	python3 $(GEN_EVENTS) --calls $@ $<

$(BUILD)/tests/trace_calls.o: $(TRACE_CALLS_C) tests/unit/trace_calls.h $(XEN_HDRS)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<

$(BUILD)/tests/test_trace_events.o: TEST_CFLAGS += -Itools/libxentrace \
                                    -Itools/libxentrace/file
$(BUILD)/tests/test_trace_events.o: tests/unit/trace_calls.h $(LIBXT_RHDR)
$(BUILD)/tests/test_trace_events: $(BUILD)/tests/trace_calls.o $(LIBXT)
$(BUILD)/tests/test_trace_events: TEST_LIBS += $(LIBXT_LIBS)

# test_catalogue: the generator, the files made from the catalogue, and
# trace calls compiled as xen/ code is.
CATALOGUE_TEST := $(BUILD)/tests/test_catalogue
TOOL_TESTS     += $(CATALOGUE_TEST)

$(CATALOGUE_TEST): tests/tools/test_catalogue.c tests/common/run_cmd.c \
                   tests/common/run_cmd.h | $(XT_FORMAT) $(XT_FORMATS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN='"$(GEN_EVENTS)"' \
	    -DCATALOGUE='"$(CATALOGUE)"' \
	    -DXEN_TRACE_EVENTS_H='"$(XEN_TRACE_EVENTS_H)"' \
	    -DMAN_PAGE='"$(XT_MAN_CLASSES)"' \
	    -DXEN_CC='"$(CC) $(XEN_CFLAGS)"' -DXT_FORMAT='"$(XT_FORMAT)"' \
	    -DXT_FORMATS='"$(XT_FORMATS)"' $(LDFLAGS) -o $@ \
	    tests/tools/test_catalogue.c tests/common/run_cmd.c -lcmocka
