# libxtfile: trace files (xtfile.h: the records, the metadata and the
# writer; xtread.h: the reader and the event catalogue, whose tables
# gen-trace-events makes from trace-events).  Needs no Xen library, only
# zlib.  A static library for our tools, a shared one and a pkg-config
# file for others.

XTFILE_DIR     := $(BUILD)/tools/libxentrace/file
XTFILE         := $(XTFILE_DIR)/libxtfile.a
XTFILE_SO      := $(XTFILE_DIR)/libxtfile.so.1
XTFILE_PC      := $(XTFILE_DIR)/libxtfile.pc
XTFILE_HDRS    := tools/libxentrace/file/xtfile.h tools/libxentrace/file/xtread.h
XTFILE_PRIV    := tools/libxentrace/file/catalogue.h \
                  tools/libxentrace/file/decimal.h \
                  tools/libxentrace/file/tournament.h
XTFILE_EVENTS_C := $(XTFILE_DIR)/trace-events.c
# The catalogue and its generator; the classes (xentrace -e, the readers).
CATALOGUE      := tools/libxentrace/file/trace-events
GEN_EVENTS     := tools/libxentrace/file/gen-trace-events
XT_CLASSES_H   := $(XTFILE_DIR)/trace-classes.h
XTFILE_SRCS    := $(addprefix tools/libxentrace/file/,writer.c reader.c \
                                                      events.c)
XTFILE_OBJS    := $(patsubst tools/libxentrace/file/%.c,$(XTFILE_DIR)/%.o,\
                             $(XTFILE_SRCS)) $(XTFILE_DIR)/trace-events.o
# What a program on it compiles and links with: xtfile.h's "public/trace.h"
# is ours, whichever <xen/trace.h> the program means.
XTFILE_CFLAGS  := -Itools/libxentrace/file -iquote xen/include
XTFILE_LIBS    := -lz
# Where make install puts the public trace.h that xtfile.h includes.
XTFILE_ABI_DIR := xentrace-ng

$(XTFILE_DIR)/%.o: tools/libxentrace/file/%.c $(XTFILE_HDRS) $(XTFILE_PRIV) \
                   $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -fPIC $(XTFILE_CFLAGS) -c -o $@ $<

$(XTFILE_DIR)/events.o: $(XT_CLASSES_H)
$(XTFILE_DIR)/events.o: TOOL_CFLAGS += -I$(XTFILE_DIR)

$(XTFILE_EVENTS_C): $(CATALOGUE) $(GEN_EVENTS)
	@mkdir -p $(@D)
	python3 $(GEN_EVENTS) --c $@ $<

$(XT_CLASSES_H): $(CATALOGUE) $(GEN_EVENTS)
	@mkdir -p $(@D)
	python3 $(GEN_EVENTS) --classes $@ $<

# Made from the catalogue but committed: the real Xen trees build with the
# trace calls' header, and the man page is read where it is.  `make
# generated` remakes them; test_catalogue checks that they are current.
XEN_TRACE_EVENTS_H := xen/include/xen/trace-events.h
XT_MAN_CLASSES     := docs/man/xentrace.8

generated:
	python3 $(GEN_EVENTS) --header $(XEN_TRACE_EVENTS_H) $(CATALOGUE)
	python3 $(GEN_EVENTS) --man $(XT_MAN_CLASSES) $(CATALOGUE)

.PHONY: generated

$(XTFILE_DIR)/trace-events.o: $(XTFILE_EVENTS_C) $(XTFILE_HDRS) $(XTFILE_PRIV)
	$(CC) $(TOOL_CFLAGS) -fPIC $(XTFILE_CFLAGS) -c -o $@ $<

$(XTFILE): $(XTFILE_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(XTFILE_SO): $(XTFILE_OBJS)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(@F) -o $@ $^ $(XTFILE_LIBS)

$(XTFILE_PC): tools/libxentrace/file/xtfile.pc.in
	@mkdir -p $(@D)
	sed 's|@PREFIX@|$(PREFIX)|; s|@ABI_DIR@|$(XTFILE_ABI_DIR)|' $< > $@
