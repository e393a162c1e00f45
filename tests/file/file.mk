# Tests of libxtfile that need no hypervisor: the writer, and the event
# catalogue's generator.  The writer's batches are laid out by
# tests/common/batches.c, as bench/gen-trace's are.

FILE_TESTS := $(BUILD)/tests/test_writer $(BUILD)/tests/test_catalogue \
              $(BUILD)/tests/test_domains $(BUILD)/tests/test_dom0
BATCHES    := tests/common/batches.c tests/common/batches.h

$(BUILD)/tests/test_writer: tests/file/test_writer.c $(BATCHES) \
                            tests/common/run_cmd.c tests/common/run_cmd.h \
                            $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(XTFILE_CFLAGS) -Itests/common $(LDFLAGS) -o $@ \
	    $< tests/common/batches.c tests/common/run_cmd.c $(XTFILE) \
	    $(XTFILE_LIBS) -lcmocka

$(BUILD)/tests/test_domains: tests/file/test_domains.c $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(XTFILE_CFLAGS) $(LDFLAGS) -o $@ $< $(XTFILE) \
	    $(XTFILE_LIBS) -lcmocka

$(BUILD)/tests/test_dom0: tests/file/test_dom0.c $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(XTFILE_CFLAGS) $(LDFLAGS) -o $@ $< $(XTFILE) \
	    $(XTFILE_LIBS) -lcmocka -lm

# test_catalogue: the generator, the files made from the catalogue, and
# trace calls compiled as xen/ code is.
$(BUILD)/tests/test_catalogue: tests/file/test_catalogue.c tests/common/run_cmd.c \
                               tests/common/run_cmd.h | $(XT_FORMAT) $(XT_FORMATS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN='"$(GEN_EVENTS)"' \
	    -DCATALOGUE='"$(CATALOGUE)"' \
	    -DXEN_TRACE_EVENTS_H='"$(XEN_TRACE_EVENTS_H)"' \
	    -DXT_EVENTS_H='"$(XT_EVENTS_H)"' \
	    -DCHECK_LITERALS='"$(EVENTS_SRC)/check-literals"' \
	    -DMAN_PAGE='"$(XT_MAN_CLASSES)"' \
	    -DXEN_CC='"$(CC) $(XEN_CFLAGS)"' -DXT_FORMAT='"$(XT_FORMAT)"' \
	    -DXT_FORMATS='"$(XT_FORMATS)"' $(LDFLAGS) -o $@ \
	    tests/file/test_catalogue.c tests/common/run_cmd.c -lcmocka
