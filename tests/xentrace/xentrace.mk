# Tests of xentrace that need no hypervisor: its option parsers, its
# check of what the buffers held, its output queue (the writer thread,
# -M's ring) on libxtfile's writer, and its pacing.

XENTRACE_TESTS := $(BUILD)/tests/test_xentrace_options \
                  $(BUILD)/tests/test_window $(BUILD)/tests/test_output \
                  $(BUILD)/tests/test_pace $(BUILD)/tests/test_take

$(BUILD)/tests/test_xentrace_options: tests/xentrace/test_xentrace_options.c \
                                      tools/xentrace/options.c \
                                      tools/xentrace/options.h \
                                      $(COMMON_SRC)/numbers.h $(XT_CLASSES_H) \
                                      $(XTFILE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/xentrace $(EVENTS_CFLAGS) $(COMMON_CFLAGS) \
	    $(XTFILE_CFLAGS) -Ixen/include \
	    $(LDFLAGS) -o $@ \
	    tests/xentrace/test_xentrace_options.c tools/xentrace/options.c \
	    -lcmocka

$(BUILD)/tests/test_window: tests/xentrace/test_window.c \
                            tools/xentrace/window.c tools/xentrace/window.h \
                            $(XTFILE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/xentrace $(XTFILE_CFLAGS) $(LDFLAGS) -o $@ \
	    tests/xentrace/test_window.c tools/xentrace/window.c -lcmocka

$(BUILD)/tests/test_output: tests/xentrace/test_output.c \
                            tools/xentrace/output.c tools/xentrace/output.h \
                            $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/xentrace $(XTFILE_CFLAGS) $(LDFLAGS) -o $@ \
	    tests/xentrace/test_output.c tools/xentrace/output.c $(XTFILE) \
	    $(XTFILE_LIBS) -lpthread -lcmocka

THREADED_TESTS += $(BUILD)/tests/test_output

$(BUILD)/tests/test_pace: tests/xentrace/test_pace.c tools/xentrace/pace.c \
                          tools/xentrace/pace.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/xentrace $(LDFLAGS) -o $@ \
	    tests/xentrace/test_pace.c tools/xentrace/pace.c -lcmocka

$(BUILD)/tests/test_take: tests/xentrace/test_take.c tools/xentrace/take.c \
                          tools/xentrace/take.h tools/xentrace/window.c \
                          tools/xentrace/filter.c tools/xentrace/filter.h \
                          tools/xentrace/window.h tools/xentrace/output.h \
                          $(LIBXT_HDRS) $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/xentrace $(LIBXT_CFLAGS) $(XTFILE_CFLAGS) \
	    $(LDFLAGS) -o $@ tests/xentrace/test_take.c tools/xentrace/take.c \
	    tools/xentrace/window.c tools/xentrace/filter.c $(XTFILE) \
	    $(XTFILE_LIBS) -lcmocka
