# Tests of xentrace-summary, xentrace-export and xentrace-plot on files
# from gen-trace, against Debian's xenalyze and babeltrace2.  The tools
# under test are compiled in, so each build tree tests its own.

EXPORT_TEST := $(BUILD)/tests/test_export
READER_TESTS += $(EXPORT_TEST)

$(EXPORT_TEST): tests/readers/test_export.c tests/common/run_cmd.c \
                tests/common/run_cmd.h | $(GEN_TRACE) $(XT_READER_TOOLS) $(XT_DUMP)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common -DGEN_TRACE='"$(GEN_TRACE)"' \
	    -DSUMMARY='"$(XT_SUMMARY)"' -DEXPORT='"$(XT_EXPORT)"' \
	    -DPLOT='"$(XT_PLOT)"' -DDUMP='"$(XT_DUMP)"' \
	    -DCHECK='"tests/readers/check_export.py"' $(LDFLAGS) -o $@ \
	    tests/readers/test_export.c tests/common/run_cmd.c -lcmocka
