# More libFuzzer targets, run the way the reader's is (tests/readers/
# readers.mk: FUZZ_CC, FUZZ_SECONDS, FUZZ_CHECK_SECONDS, FUZZ_ARTIFACTS,
# tests/fuzz/run-fuzz):
#   fuzz_options       xentrace's option parsers against a model of them
#   fuzz_hostile_dom0  trace.c's buffers against a dom0 that writes anything
#   fuzz_perfetto      xentrace-export --perfetto (and the model) on any file
# make fuzz-NAME runs one for FUZZ_SECONDS on tests/fuzz/corpus/NAME;
# make check runs each for FUZZ_CHECK_SECONDS as one test.

FUZZ_FLAGS     := -g -O1 -fsanitize=fuzzer,address,undefined \
                  -fno-sanitize-recover=all
FUZZ_OBJ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
                  -fno-sanitize-recover=all
FUZZ_TESTS     := $(BUILD)/tests/fuzz_options_check \
                  $(BUILD)/tests/fuzz_hostile_dom0_check \
                  $(BUILD)/tests/fuzz_perfetto_check

$(BUILD)/tests/fuzz_options: tests/fuzz/fuzz_options.c \
                             tools/xentrace/options.c tools/xentrace/options.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wall -Wextra -Werror -Itools/xentrace \
	    -Ixen/include -o $@ tests/fuzz/fuzz_options.c tools/xentrace/options.c

FUZZ_PERFETTO_SRCS := tests/fuzz/fuzz_perfetto.c tools/xentrace/readers/perfetto.c \
                      tools/xentrace/readers/pbwrite.c tools/xentrace/readers/view.c \
                      tools/xentrace/readers/model.c tools/libxentrace/file/reader.c \
                      tools/libxentrace/file/events.c $(LIBXT_EVENTS_C)

$(BUILD)/tests/fuzz_perfetto: $(FUZZ_PERFETTO_SRCS) $(LIBXT_RHDR) $(LIBXT_HDR) \
                              tools/xentrace/readers/perfetto.h \
                              tools/xentrace/readers/pbwrite.h \
                              tools/xentrace/readers/view.h \
                              tools/xentrace/readers/model.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -std=gnu11 -Wall -Wextra -Werror -Itools/libxentrace \
	    -Itools/libxentrace/file -Itools/xentrace/readers -o $@ \
	    $(FUZZ_PERFETTO_SRCS) -lz

# The host build of the hypervisor, instrumented for coverage: trace.c
# through tests/unit/trace_inside.c, which lets the target see Xen's prod.
FUZZ_HOST_DIR  := $(BUILD)/tests/fuzz-host
FUZZ_HOST_OBJS := $(patsubst xen/arch/host/%.c,$(FUZZ_HOST_DIR)/%.o,$(HOST_SRCS)) \
                  $(FUZZ_HOST_DIR)/trace_inside.o
FUZZ_XEN_FLAGS := -DCONFIG_TRACEBUFFER -include xen/config.h \
                  -Ixen/arch/host/include -Ixen/include

$(FUZZ_HOST_DIR)/%.o: xen/arch/host/%.c $(XEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_OBJ_FLAGS) -std=gnu11 -Wall -Wextra -Werror \
	    -Wno-unused-parameter $(FUZZ_XEN_FLAGS) -c -o $@ $<

$(FUZZ_HOST_DIR)/trace_inside.o: tests/unit/trace_inside.c \
                                 tests/unit/trace_inside.h xen/common/trace.c \
                                 $(XEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_OBJ_FLAGS) -std=gnu99 $(XEN_WARN) -mgeneral-regs-only \
	    -fno-strict-aliasing $(FUZZ_XEN_FLAGS) -c -o $@ $<

$(BUILD)/tests/fuzz_hostile_dom0: tests/fuzz/fuzz_hostile_dom0.c \
                                  tests/unit/trace_inside.h $(FUZZ_HOST_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -std=gnu11 -Wall -Wextra -Werror \
	    $(FUZZ_XEN_FLAGS) -Itests/unit -o $@ $< $(FUZZ_HOST_OBJS) -lpthread

# Wrappers that tests/run-tests can run, as for the reader.
$(BUILD)/tests/fuzz_%_check: tests/fuzz/run-fuzz $(BUILD)/tests/fuzz_% FORCE
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec %s %s %s %s %s\n' $(CURDIR)/tests/fuzz/run-fuzz \
	    $(CURDIR)/$(BUILD)/tests/fuzz_$* $(FUZZ_CHECK_SECONDS) \
	    $(CURDIR)/tests/fuzz/corpus/$* $(CURDIR)/$(FUZZ_ARTIFACTS) > $@
	chmod +x $@

fuzz-options: $(BUILD)/tests/fuzz_options
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/options \
	    $(FUZZ_ARTIFACTS)

fuzz-hostile-dom0: $(BUILD)/tests/fuzz_hostile_dom0
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/hostile_dom0 \
	    $(FUZZ_ARTIFACTS)

fuzz-perfetto: $(BUILD)/tests/fuzz_perfetto
	tests/fuzz/run-fuzz $< $(FUZZ_SECONDS) tests/fuzz/corpus/perfetto \
	    $(FUZZ_ARTIFACTS)

.PHONY: fuzz-options fuzz-hostile-dom0 fuzz-perfetto
