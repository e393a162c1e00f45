# The event catalogue (trace-events) and its generator: every file that
# names an event is made from it.  The tools' header of every constant
# (trace-events.h), the hypervisor's typed calls and the class table of
# xentrace(8) are committed (`make generated`); the rest is
# made into $(EVENTS_DIR): libxtfile's C tables, the class keywords that
# xentrace -e and the readers take, and xentrace_format's formats file.

EVENTS_SRC     := tools/trace-events
EVENTS_DIR     := $(BUILD)/tools/trace-events
CATALOGUE      := $(EVENTS_SRC)/trace-events
GEN_EVENTS     := $(EVENTS_SRC)/gen-trace-events
XTFILE_EVENTS_C := $(EVENTS_DIR)/trace-events.c
XT_CLASSES_H   := $(EVENTS_DIR)/trace-classes.h
# What a program that includes a generated header compiles with.
EVENTS_CFLAGS  := -I$(EVENTS_DIR)
# Every event id, class, subclass, record layout and the runstate
# encoding, for the tools: xtfile.h includes it, so every program on
# libxtfile has it (-I$(EVENTS_SRC), in XTFILE_CFLAGS).
XT_EVENTS_H    := $(EVENTS_SRC)/trace-events.h

$(XTFILE_EVENTS_C): $(CATALOGUE) $(GEN_EVENTS)
	@mkdir -p $(@D)
	python3 $(GEN_EVENTS) --c $@ $<

$(XT_CLASSES_H): $(CATALOGUE) $(GEN_EVENTS)
	@mkdir -p $(@D)
	python3 $(GEN_EVENTS) --classes $@ $<

# Made from the catalogue but committed: the real Xen trees build with the
# trace calls' header (and its record layouts), the tools' header is read
# and installed where it is, as public/trace.h is, and the man page is
# read where it is.  `make generated` remakes them; test_catalogue checks
# that they are current.
XEN_TRACE_EVENTS_H := xen/include/xen/trace-events.h
XT_MAN_CLASSES     := docs/man/xentrace.8

generated:
	python3 $(GEN_EVENTS) --defs $(XT_EVENTS_H) $(CATALOGUE)
	python3 $(GEN_EVENTS) --header $(XEN_TRACE_EVENTS_H) $(CATALOGUE)
	python3 $(GEN_EVENTS) --man $(XT_MAN_CLASSES) $(CATALOGUE)

.PHONY: generated
