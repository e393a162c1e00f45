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
                                      tools/xentrace/options.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/xentrace -Ixen/include $(LDFLAGS) -o $@ \
	    tests/tools/test_xentrace_options.c tools/xentrace/options.c -lcmocka
