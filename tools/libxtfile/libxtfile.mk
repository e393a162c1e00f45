# libxtfile: trace files (xtfile.h: the records, the metadata and the
# writer; xtread.h: the reader; xtevents.h: the event catalogue, whose
# tables tools/trace-events makes).  Needs no Xen library, only zlib.  A
# static library for our tools, a shared one and a pkg-config file for
# others.

XTFILE_SRC     := tools/libxtfile
XTFILE_DIR     := $(BUILD)/tools/libxtfile
XTFILE         := $(XTFILE_DIR)/libxtfile.a
XTFILE_SO      := $(XTFILE_DIR)/libxtfile.so.1
XTFILE_PC      := $(XTFILE_DIR)/libxtfile.pc
XTFILE_HDRS    := $(addprefix $(XTFILE_SRC)/,xtfile.h xtread.h xtevents.h) \
                  $(XT_EVENTS_H)
XTFILE_PRIV    := $(addprefix $(XTFILE_SRC)/,catalogue.h dom0.h domains.h \
                                  masks.h put.h) \
                  $(COMMON_HDRS)
XTFILE_SRCS    := $(addprefix $(XTFILE_SRC)/,writer.c reader.c events.c \
                                domains.c dom0.c masks.c)
XTFILE_OBJS    := $(patsubst $(XTFILE_SRC)/%.c,$(XTFILE_DIR)/%.o,\
                             $(XTFILE_SRCS)) $(XTFILE_DIR)/trace-events.o
# What a program on it compiles and links with: xtfile.h's "public/trace.h"
# is ours, whichever <xen/trace.h> the program means, and its
# "trace-events.h" the catalogue's.
XTFILE_CFLAGS  := -I$(XTFILE_SRC) -I$(EVENTS_SRC) -iquote xen/include
XTFILE_LIBS    := -lz
# Where make install puts the public trace.h that xtfile.h includes.
XTFILE_ABI_DIR := xentrace-ng

$(XTFILE_DIR)/%.o: $(XTFILE_SRC)/%.c $(XTFILE_HDRS) $(XTFILE_PRIV) \
                   $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -fPIC $(XTFILE_CFLAGS) $(COMMON_CFLAGS) -c -o $@ $<

$(XTFILE_DIR)/events.o: $(XT_CLASSES_H)
$(XTFILE_DIR)/events.o: TOOL_CFLAGS += $(EVENTS_CFLAGS)

$(XTFILE_DIR)/trace-events.o: $(XTFILE_EVENTS_C) $(XTFILE_HDRS) $(XTFILE_PRIV)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -fPIC $(XTFILE_CFLAGS) -c -o $@ $<

$(XTFILE): $(XTFILE_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(XTFILE_SO): $(XTFILE_OBJS)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(@F) -o $@ $^ $(XTFILE_LIBS)

$(XTFILE_PC): $(XTFILE_SRC)/xtfile.pc.in
	@mkdir -p $(@D)
	sed 's|@PREFIX@|$(PREFIX)|; s|@ABI_DIR@|$(XTFILE_ABI_DIR)|' $< > $@
