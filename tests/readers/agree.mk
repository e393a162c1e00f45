# xentrace-summary's analysis against Debian's xenalyze --summary, on
# xen-sim captures and gen-trace files, and its lost-time accounting
# (tests/readers/test_agree.c, tests/readers/check_agree.py).

AGREE_TEST := $(BUILD)/tests/test_agree
READER_TESTS += $(AGREE_TEST)

$(AGREE_TEST): tests/readers/test_agree.c tests/common/run_cmd.c \
               tests/common/run_cmd.h | $(GEN_TRACE) $(XT_SUMMARY) \
                                        $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN_TRACE='"$(GEN_TRACE)"' \
	    -DSUMMARY='"$(XT_SUMMARY)"' -DXEN_SIM='"$(XEN_SIM)"' \
	    -DXENTRACE='"$(XENTRACE)"' \
	    -DCHECK='"tests/readers/check_agree.py"' $(LDFLAGS) -o $@ \
	    tests/readers/test_agree.c tests/common/run_cmd.c -lcmocka

# The model's parts on their own: the sketch, the merge, the model.
MODEL_TEST := $(BUILD)/tests/test_model
READER_TESTS += $(MODEL_TEST)

$(MODEL_TEST): tests/readers/test_model.c $(MODEL_SRCS) $(MODEL_HDRS) \
               tools/xentrace/readers/sketch.c tools/xentrace/readers/sketch.h \
               $(LIBXT) $(LIBXT_RHDR)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/libxentrace -Itools/libxentrace/file \
	    -Itools/xentrace/readers $(LDFLAGS) -o $@ $< $(MODEL_SRCS) \
	    tools/xentrace/readers/sketch.c $(LIBXT) $(LIBXT_LIBS) -lcmocka

# libFuzzer: any bytes through the model and the analysis
# (tests/fuzz/fuzz_model.c), run as the reader's target is (readers.mk).
FUZZ_MODEL        := $(BUILD)/tests/fuzz_model
FUZZ_MODEL_CHECK  := $(BUILD)/tests/fuzz_model_check
FUZZ_MODEL_SRCS   := tests/fuzz/fuzz_model.c tools/libxentrace/file/reader.c \
                     tools/libxentrace/file/events.c $(LIBXT_EVENTS_C) \
                     $(ANALYSIS_SRCS)
READER_TESTS      += $(FUZZ_MODEL_CHECK)

$(FUZZ_MODEL): $(FUZZ_MODEL_SRCS) $(ANALYSIS_HDRS) $(LIBXT_RHDR) $(LIBXT_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -Wall -Wextra -Werror \
	    -Itools/libxentrace -Itools/libxentrace/file \
	    -Itools/xentrace/readers -o $@ $(FUZZ_MODEL_SRCS) -lz

$(FUZZ_MODEL_CHECK): tests/fuzz/run-fuzz $(FUZZ_MODEL) FORCE
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec %s %s %s %s %s\n' $(CURDIR)/tests/fuzz/run-fuzz \
	    $(CURDIR)/$(FUZZ_MODEL) $(FUZZ_CHECK_SECONDS) \
	    $(CURDIR)/tests/fuzz/corpus/model $(CURDIR)/$(FUZZ_ARTIFACTS) > $@
	chmod +x $@

fuzz-model: $(FUZZ_MODEL)
	tests/fuzz/run-fuzz $(FUZZ_MODEL) $(FUZZ_SECONDS) \
	    tests/fuzz/corpus/model $(FUZZ_ARTIFACTS)

.PHONY: fuzz-model
