# Tests of reading trace files: libxentrace's reader, the event catalogue
# against Debian's <xen/trace.h>, xentrace-dump and xentrace_format on a
# xen-sim capture checked against Debian's xenalyze.

READER_TESTS += $(BUILD)/tests/test_readers

# Every object-like TRC_ macro of Debian's header, for the catalogue test.
$(BUILD)/tests/trc_names.h: /usr/include/xen/trace.h
	@mkdir -p $(@D)
	awk '/^#define TRC_[A-Za-z0-9_]+[ \t]/ { \
	    printf "    { \"%s\", (unsigned long long)(%s) },\n", $$2, $$2 }' \
	    $< > $@

$(BUILD)/tests/test_readers: tests/readers/test_readers.c \
                             $(BUILD)/tests/trc_names.h tests/common/run_cmd.c \
                             tests/common/run_cmd.h $(LIBXT) $(LIBXT_RHDR) \
                             | $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE) $(READERS) \
                               $(XT_SUMMARY)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -DXEN_SIM='"$(XEN_SIM)"' \
	    -DXENTRACE='"$(XENTRACE)"' -DXT_DUMP='"$(XT_DUMP)"' \
	    -DXT_SUMMARY='"$(XT_SUMMARY)"' \
	    -DXT_FORMAT='"$(XT_FORMAT)"' -DXT_FORMATS='"$(XT_FORMATS)"' \
	    -Itools/libxentrace -Itools/libxentrace/file -Itests/common -I$(BUILD)/tests $(LDFLAGS) \
	    -o $@ $< tests/common/run_cmd.c $(LIBXT) $(LIBXT_LIBS) -lcmocka

# The readers' front end (tools/xentrace/readers/cli.c) on every reader,
# and their --help against their man pages.
READER_TESTS += $(BUILD)/tests/test_front_end

$(BUILD)/tests/test_front_end: tests/readers/test_front_end.c \
                               tests/common/run_cmd.c tests/common/run_cmd.h \
                               | $(READERS) $(XT_READER_TOOLS) $(XENTRACE) \
                                 $(XEN_SIM)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -DXT_DUMP='"$(XT_DUMP)"' -DXT_SUMMARY='"$(XT_SUMMARY)"' \
	    -DXT_EXPORT='"$(XT_EXPORT)"' -DXT_PLOT='"$(XT_PLOT)"' \
	    -DXT_FORMAT='"$(XT_FORMAT)"' -DXT_FORMATS='"$(XT_FORMATS)"' \
	    -DXENTRACE='"$(XENTRACE)"' -DXEN_SIM='"$(XEN_SIM)"' \
	    -DSOURCE_DIR='"$(CURDIR)"' -Itests/common $(LDFLAGS) -o $@ $< \
	    tests/common/run_cmd.c -lcmocka

# Fuzzing the reader with libFuzzer (clang).  make fuzz-reader runs it for
# FUZZ_SECONDS on the seed corpus (new inputs go to a temporary directory);
# make check runs it for FUZZ_CHECK_SECONDS as one test.  Inputs that crash
# it are kept in FUZZ_ARTIFACTS.
FUZZ_CC            ?= clang
FUZZ_SECONDS       ?= 60
FUZZ_CHECK_SECONDS ?= 10
FUZZ_READER        := $(BUILD)/tests/fuzz_reader
FUZZ_READER_CHECK  := $(BUILD)/tests/fuzz_reader_check
FUZZ_ARTIFACTS     := $(BUILD)/tests/fuzz-artifacts
FUZZ_READER_SRCS   := tests/fuzz/fuzz_reader.c tools/libxentrace/file/reader.c \
                      tools/libxentrace/file/events.c $(LIBXT_EVENTS_C) \
                      tools/xentrace/readers/tally.c tools/xentrace/readers/cli.c
READER_TESTS       += $(FUZZ_READER_CHECK)

$(FUZZ_READER): $(FUZZ_READER_SRCS) $(LIBXT_RHDR) $(LIBXT_HDR) \
                tools/xentrace/readers/tally.h tools/xentrace/readers/cli.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -Itools/libxentrace -Itools/libxentrace/file -Itools/xentrace -Itools/xentrace/readers -o $@ \
	    $(FUZZ_READER_SRCS) -lz

# A wrapper that tests/run-tests can run: it prints cmocka's summary line.
$(FUZZ_READER_CHECK): tests/fuzz/run-fuzz $(FUZZ_READER) FORCE
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec %s %s %s %s %s\n' $(CURDIR)/tests/fuzz/run-fuzz \
	    $(CURDIR)/$(FUZZ_READER) $(FUZZ_CHECK_SECONDS) \
	    $(CURDIR)/tests/fuzz/corpus/reader $(CURDIR)/$(FUZZ_ARTIFACTS) > $@
	chmod +x $@

fuzz-reader: $(FUZZ_READER)
	tests/fuzz/run-fuzz $(FUZZ_READER) $(FUZZ_SECONDS) \
	    tests/fuzz/corpus/reader $(FUZZ_ARTIFACTS)

FORCE:

.PHONY: fuzz-reader FORCE
