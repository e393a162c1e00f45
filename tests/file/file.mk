# Tests of libxtfile that need no hypervisor: the writer.  Its batches are
# laid out by tests/common/batches.c, as bench/gen-trace's are.

FILE_TESTS := $(BUILD)/tests/test_writer
BATCHES    := tests/common/batches.c tests/common/batches.h

$(BUILD)/tests/test_writer: tests/file/test_writer.c $(BATCHES) \
                            tests/common/run_cmd.c tests/common/run_cmd.h \
                            $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(XTFILE_CFLAGS) -Itests/common $(LDFLAGS) -o $@ \
	    $< tests/common/batches.c tests/common/run_cmd.c $(XTFILE) \
	    $(XTFILE_LIBS) -lcmocka
