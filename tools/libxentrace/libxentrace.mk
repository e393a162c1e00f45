# libxentrace: capture from Xen's trace buffers through Xen's libraries, and
# write trace files.  A static library for our tools, a shared one and a
# pkg-config file for others (make install puts them with the header).

LIBXT_DIR   := $(BUILD)/tools/libxentrace
LIBXT       := $(LIBXT_DIR)/libxentrace.a
LIBXT_SO    := $(LIBXT_DIR)/libxentrace.so.1
LIBXT_SRCS  := tools/libxentrace/capture.c tools/libxentrace/writer.c
LIBXT_HDR   := tools/libxentrace/libxentrace.h
LIBXT_LIBS  := -lxenctrl -lxenforeignmemory -lxenevtchn -lpthread
LIBXT_PC    := $(LIBXT_DIR)/libxentrace.pc

$(LIBXT_DIR)/%.o: tools/libxentrace/%.c $(LIBXT_HDR)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -fPIC -Itools/libxentrace -Ixen/include -c -o $@ $<

$(LIBXT): $(patsubst tools/libxentrace/%.c,$(LIBXT_DIR)/%.o,$(LIBXT_SRCS))
	@rm -f $@
	ar rcs $@ $^

$(LIBXT_SO): $(patsubst tools/libxentrace/%.c,$(LIBXT_DIR)/%.o,$(LIBXT_SRCS))
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(@F) -o $@ $^ $(LIBXT_LIBS)

$(LIBXT_PC): tools/libxentrace/libxentrace.pc.in
	@mkdir -p $(@D)
	sed 's|@PREFIX@|$(PREFIX)|' $< > $@
