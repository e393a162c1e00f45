# libFuzzer targets (clang), each with a seed corpus in
# tests/fuzz/corpus/NAME:
#   fuzz_reader        libxtfile's reader, and the readers' tally
#   fuzz_model         the model of the machine and the summary's analysis
#   fuzz_options       xentrace's option parsers against a model of them
#   fuzz_hostile_dom0  trace.c's buffers against a dom0 that writes anything
#   fuzz_perfetto      xentrace-export --perfetto (and the model) on any file
#   fuzz_dump, fuzz_summary, fuzz_export, fuzz_plot, fuzz_format
#                      each reader's own logic and output on any trace
#                      (and for xentrace_format, any formats file)
#   fuzz_window        xentrace's check of what a CPU's buffer held
#   fuzz_join          xentrace-join's own part of a trace.dat: any event
#                      format and records, made lanes by ftrace.c
# make fuzz-NAME runs one for FUZZ_SECONDS (new inputs go to a temporary
# directory); make check runs each for FUZZ_CHECK_SECONDS as one test.
# Inputs that crash one are kept in FUZZ_ARTIFACTS.

FUZZ_CC            ?= clang
FUZZ_SECONDS       ?= 60
FUZZ_CHECK_SECONDS ?= 10
FUZZ_ARTIFACTS     := $(BUILD)/tests/fuzz-artifacts

FUZZ_FLAGS     := -g -O1 -fsanitize=fuzzer,address,undefined \
                  -fno-sanitize-recover=all
FUZZ_OBJ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
                  -fno-sanitize-recover=all
FUZZ_PROGRAMS  := dump summary export plot format
FUZZ_TESTS     := $(BUILD)/tests/fuzz_reader_check \
                  $(BUILD)/tests/fuzz_model_check \
                  $(BUILD)/tests/fuzz_options_check \
                  $(BUILD)/tests/fuzz_hostile_dom0_check \
                  $(BUILD)/tests/fuzz_window_check \
                  $(BUILD)/tests/fuzz_perfetto_check \
                  $(BUILD)/tests/fuzz_join_check \
                  $(patsubst %,$(BUILD)/tests/fuzz_%_check,$(FUZZ_PROGRAMS))

FUZZ_READER_SRCS := tests/fuzz/fuzz_reader.c \
                    $(filter-out %/writer.c,$(XTFILE_SRCS)) $(XTFILE_EVENTS_C) \
                    $(READER_DIR)/tally.c $(READER_DIR)/timebins.c \
                    $(READER_DIR)/cli.c

$(BUILD)/tests/fuzz_reader: $(FUZZ_READER_SRCS) $(XTFILE_HDRS) $(XTFILE_PRIV) \
                            $(READER_DIR)/tally.h tests/common/reader_cpu.h \
                            $(READER_DIR)/cli.h $(XT_CLASSES_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(XTFILE_CFLAGS) $(EVENTS_CFLAGS) \
	    -I$(READER_DIR) $(COMMON_CFLAGS) -Itests/common \
	    -o $@ $(FUZZ_READER_SRCS) -lz

FUZZ_MODEL_SRCS := tests/fuzz/fuzz_model.c \
                   $(filter-out %/writer.c,$(XTFILE_SRCS)) $(XTFILE_EVENTS_C) \
                   $(ANALYSIS_SRCS)

$(BUILD)/tests/fuzz_model: $(FUZZ_MODEL_SRCS) $(XTFILE_HDRS) $(XTFILE_PRIV) \
                           $(ANALYSIS_HDRS) $(XT_CLASSES_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wall -Wextra -Werror $(XTFILE_CFLAGS) \
	    $(EVENTS_CFLAGS) -I$(READER_DIR) $(COMMON_CFLAGS) \
	    -o $@ $(FUZZ_MODEL_SRCS) -lz

$(BUILD)/tests/fuzz_options: tests/fuzz/fuzz_options.c \
                             tools/xentrace/options.c tools/xentrace/options.h \
                             $(COMMON_SRC)/numbers.h $(XT_CLASSES_H) \
                             $(XTFILE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wall -Wextra -Werror -Itools/xentrace \
	    $(EVENTS_CFLAGS) $(COMMON_CFLAGS) $(XTFILE_CFLAGS) -Ixen/include \
	    -o $@ tests/fuzz/fuzz_options.c \
	    tools/xentrace/options.c

# The readers' targets compile their reader in (tests/fuzz/fuzz_NAME.c
# includes its .c, main renamed), with the file library and the front end.
FUZZ_READER_LIB  := $(filter-out %/writer.c,$(XTFILE_SRCS)) $(XTFILE_EVENTS_C) \
                    $(READER_DIR)/cli.c tests/fuzz/check_output.c
FUZZ_READER_HDRS := $(XTFILE_HDRS) $(XTFILE_PRIV) $(XT_CLASSES_H) \
                    $(READER_DIR)/cli.h \
                    $(READER_DIR)/tally.h tests/fuzz/check_output.h \
                    tests/fuzz/fuzz_tally.h

# A reader's own .c is compiled in through its target's #include; the
# other sources it needs (the model, the exports) are linked.
FUZZ_READER_OWN := $(patsubst %,$(READER_SRC)/%.c,dump summary export plot \
                                                  xentrace_format)

$(BUILD)/tests/fuzz_dump:    $(READER_SRC)/dump.c \
                             tools/common/decimal.h $(READER_DIR)/view.c \
                             $(READER_DIR)/view.h $(MODEL_SRCS) $(MODEL_HDRS)
$(BUILD)/tests/fuzz_summary: $(READER_SRC)/summary.c \
                             $(READER_DIR)/tally.c $(READER_DIR)/diff.c \
                             $(READER_DIR)/timebins.c \
                             $(READER_DIR)/diff.h \
                             $(ANALYSIS_SRCS) $(ANALYSIS_HDRS)
$(BUILD)/tests/fuzz_export:  $(READER_SRC)/export.c \
                             $(EXPORT_SRCS) $(EXPORT_HDRS)
$(BUILD)/tests/fuzz_plot:    $(READER_SRC)/plot.c \
                             $(READER_DIR)/tally.c $(READER_DIR)/timebins.c \
                             $(READER_DIR)/scatter.c $(READER_DIR)/scatter.h \
                             $(READER_DIR)/svg.c $(READER_DIR)/svg.h \
                             $(MODEL_SRCS) $(MODEL_HDRS)
$(BUILD)/tests/fuzz_format:  $(READER_SRC)/xentrace_format.c

$(patsubst %,$(BUILD)/tests/fuzz_%,$(FUZZ_PROGRAMS)): $(BUILD)/tests/fuzz_%: \
        tests/fuzz/fuzz_%.c $(FUZZ_READER_LIB) $(FUZZ_READER_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -std=gnu11 -Wall -Wextra -Werror \
	    $(XTFILE_CFLAGS) $(EVENTS_CFLAGS) -I$(READER_DIR) $(COMMON_CFLAGS) \
	    -I$(READER_SRC) -Itests/fuzz -o $@ $< \
	    $(filter-out $< $(FUZZ_READER_OWN),$(filter %.c,$^)) -lz -lm

FUZZ_PERFETTO_SRCS := tests/fuzz/fuzz_perfetto.c \
                      $(filter-out %/writer.c,$(XTFILE_SRCS)) $(XTFILE_EVENTS_C) \
                      $(EXPORT_SRCS) $(READER_DIR)/cli.c

$(BUILD)/tests/fuzz_perfetto: $(FUZZ_PERFETTO_SRCS) $(XTFILE_HDRS) $(XTFILE_PRIV) \
                              $(EXPORT_HDRS) $(XT_CLASSES_H) \
                              $(READER_DIR)/cli.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wall -Wextra -Werror $(XTFILE_CFLAGS) \
	    $(EVENTS_CFLAGS) -I$(READER_DIR) $(COMMON_CFLAGS) \
	    -o $@ $(FUZZ_PERFETTO_SRCS) -lz

$(BUILD)/tests/fuzz_window: tests/fuzz/fuzz_window.c tools/xentrace/window.c \
                            tools/xentrace/window.h $(XTFILE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wall -Wextra -Werror -Itools/xentrace \
	    $(XTFILE_CFLAGS) -o $@ tests/fuzz/fuzz_window.c tools/xentrace/window.c

$(BUILD)/tests/fuzz_join: tests/fuzz/fuzz_join.c tools/xentrace/ftrace.c \
                          tools/xentrace/ftrace.h $(XTFILE_SRCS) \
                          $(XTFILE_EVENTS_C) $(XTFILE_HDRS) $(XTFILE_PRIV) \
                          $(XT_CLASSES_H) $(READER_CLI) \
                          tests/fuzz/check_output.c tests/fuzz/check_output.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -std=gnu11 -Wall -Wextra -Werror \
	    $(XTFILE_CFLAGS) $(EVENTS_CFLAGS) $(COMMON_CFLAGS) -I$(READER_DIR) \
	    -Itools/xentrace -Itests/fuzz $(TRACEFS_CFLAGS) -o $@ $< \
	    $(XTFILE_SRCS) $(XTFILE_EVENTS_C) tests/fuzz/check_output.c \
	    $(READER_DIR)/cli.c $(TRACEFS_LIBS) -lz -lm

# The host build of the hypervisor, instrumented for coverage: trace.c
# through tests/unit/trace_inside.c, which lets the target see Xen's prod.
FUZZ_HOST_DIR  := $(BUILD)/tests/fuzz-host
FUZZ_HOST_OBJS := $(patsubst xen/arch/host/%.c,$(FUZZ_HOST_DIR)/%.o,$(HOST_SRCS)) \
                  $(FUZZ_HOST_DIR)/trace_inside.o

$(FUZZ_HOST_DIR)/%.o: xen/arch/host/%.c $(XEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_OBJ_FLAGS) -std=gnu11 -Wall -Wextra -Werror \
	    -Wno-unused-parameter $(XEN_ENV) -c -o $@ $<

$(FUZZ_HOST_DIR)/trace_inside.o: tests/unit/trace_inside.c \
                                 tests/unit/trace_inside.h xen/common/trace.c \
                                 $(XEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_OBJ_FLAGS) -std=gnu99 $(XEN_WARN) -mgeneral-regs-only \
	    -fno-strict-aliasing $(XEN_ENV) -c -o $@ $<

$(BUILD)/tests/fuzz_hostile_dom0: tests/fuzz/fuzz_hostile_dom0.c \
                                  tests/unit/trace_inside.h $(FUZZ_HOST_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -std=gnu11 -Wall -Wextra -Werror \
	    $(XEN_ENV) -Itests/unit -o $@ $< $(FUZZ_HOST_OBJS) -lpthread

# Wrappers that tests/run-tests can run: they print cmocka's summary line.
$(BUILD)/tests/fuzz_%_check: tests/fuzz/run-fuzz $(BUILD)/tests/fuzz_% FORCE
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec %s %s %s %s %s\n' $(CURDIR)/tests/fuzz/run-fuzz \
	    $(CURDIR)/$(BUILD)/tests/fuzz_$* $(FUZZ_CHECK_SECONDS) \
	    $(CURDIR)/tests/fuzz/corpus/$* $(CURDIR)/$(FUZZ_ARTIFACTS) > $@
	chmod +x $@

fuzz-reader: $(BUILD)/tests/fuzz_reader
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/reader \
	    $(FUZZ_ARTIFACTS)

fuzz-model: $(BUILD)/tests/fuzz_model
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/model \
	    $(FUZZ_ARTIFACTS)

fuzz-options: $(BUILD)/tests/fuzz_options
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/options \
	    $(FUZZ_ARTIFACTS)

fuzz-window: $(BUILD)/tests/fuzz_window
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/window \
	    $(FUZZ_ARTIFACTS)

fuzz-hostile-dom0: $(BUILD)/tests/fuzz_hostile_dom0
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/hostile_dom0 \
	    $(FUZZ_ARTIFACTS)

fuzz-join: $(BUILD)/tests/fuzz_join
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/join \
	    $(FUZZ_ARTIFACTS)

fuzz-perfetto: $(BUILD)/tests/fuzz_perfetto
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/perfetto \
	    $(FUZZ_ARTIFACTS)

$(patsubst %,fuzz-%,$(FUZZ_PROGRAMS)): fuzz-%: $(BUILD)/tests/fuzz_%
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/$* \
	    $(FUZZ_ARTIFACTS)

FORCE:

.PHONY: fuzz-reader fuzz-model fuzz-options fuzz-hostile-dom0 fuzz-window \
        fuzz-perfetto fuzz-join FORCE $(patsubst %,fuzz-%,$(FUZZ_PROGRAMS))
