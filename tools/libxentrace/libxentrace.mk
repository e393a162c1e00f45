# libxentrace: capture from Xen's trace buffers through Xen's libraries
# (libxenctrl, libxenforeignmemory, libxenevtchn).  A static library for
# xentrace, a shared one and a pkg-config file for others (make install
# puts them with the header).  Trace files are libxtfile's (tools/libxtfile).

LIBXT_DIR    := $(BUILD)/tools/libxentrace
LIBXT        := $(LIBXT_DIR)/libxentrace.a
LIBXT_SO     := $(LIBXT_DIR)/libxentrace.so.1
LIBXT_PC     := $(LIBXT_DIR)/libxentrace.pc
LIBXT_HDRS   := tools/libxentrace/libxentrace.h
LIBXT_OBJS   := $(LIBXT_DIR)/capture.o
# What a program on it compiles and links with.
LIBXT_CFLAGS := -Itools/libxentrace
LIBXT_LIBS   := -lxenctrl -lxenforeignmemory -lxenevtchn

$(LIBXT_DIR)/%.o: tools/libxentrace/%.c $(LIBXT_HDRS) $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -fPIC $(LIBXT_CFLAGS) -Ixen/include -c -o $@ $<

$(LIBXT): $(LIBXT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(LIBXT_SO): $(LIBXT_OBJS)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(@F) -o $@ $^ $(LIBXT_LIBS)

$(LIBXT_PC): tools/libxentrace/libxentrace.pc.in
	@mkdir -p $(@D)
	sed 's|@PREFIX@|$(PREFIX)|' $< > $@
