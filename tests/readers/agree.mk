# xentrace-summary's analysis against Debian's xenalyze --summary, on
# xen-sim captures and gen-trace files, and its lost-time accounting
# (tests/readers/test_agree.c, tests/readers/check_agree.py), --diff
# against each trace's own summary (tests/readers/check_diff.py), and the
# plot's scatterplots and Perfetto's reading of the export against it
# (tests/readers/check_scatter.py, perfetto-agrees); the
# model's parts, and --longest's heap, on their own
# (tests/readers/test_model.c).  The fuzz target of the model is
# tests/fuzz/fuzz.mk's.

AGREE_TEST := $(BUILD)/tests/test_agree
MODEL_TEST := $(BUILD)/tests/test_model
READER_TESTS += $(AGREE_TEST) $(MODEL_TEST)

$(AGREE_TEST): tests/readers/test_agree.c tests/common/run_cmd.c \
               tests/common/run_cmd.h | $(GEN_TRACE) $(XT_SUMMARY) \
                                        $(XT_DUMP) $(XT_PLOT) $(XT_EXPORT) \
                                        $(XEN_SIM) \
                                        $(XEN_SIM_LIBS) $(XENTRACE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN_TRACE='"$(GEN_TRACE)"' \
	    -DSUMMARY='"$(XT_SUMMARY)"' -DDUMP='"$(XT_DUMP)"' \
	    -DPLOT='"$(XT_PLOT)"' -DREADERS='"$(READER_OUT)"' \
	    -DXEN_SIM='"$(XEN_SIM)"' \
	    -DXENTRACE='"$(XENTRACE)"' \
	    -DCHECK='"tests/readers/check_agree.py"' \
	    -DCHECK_DIFF='"tests/readers/check_diff.py"' \
	    -DCHECK_SCATTER='"tests/readers/check_scatter.py"' \
	    -DCHECK_CROSSING='"tests/readers/check_crossing.py"' \
	    -DPERFETTO_AGREES='"tests/readers/perfetto-agrees"' \
	    -DAGREE_WITH_XENALYZE='"tests/readers/agree-with-xenalyze"' \
	    $(LDFLAGS) -o $@ \
	    tests/readers/test_agree.c tests/common/run_cmd.c -lcmocka

$(MODEL_TEST): tests/readers/test_model.c $(MODEL_SRCS) $(MODEL_HDRS) \
               $(READER_DIR)/sketch.c $(READER_DIR)/sketch.h \
               $(READER_DIR)/longest.c $(READER_DIR)/longest.h $(XTFILE) \
               $(XTFILE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(READER_CFLAGS) $(LDFLAGS) -o $@ $< $(MODEL_SRCS) \
	    $(READER_DIR)/sketch.c $(READER_DIR)/longest.c $(XTFILE) \
	    $(XTFILE_LIBS) -lcmocka
