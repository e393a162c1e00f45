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
