# libxentrace: capture from Xen's trace buffers through Xen's libraries, and
# write trace files.  A static library for our tools, a shared one and a
# pkg-config file for others (make install puts them with the header).

LIBXT_DIR   := $(BUILD)/tools/libxentrace
LIBXT       := $(LIBXT_DIR)/libxentrace.a
LIBXT_SO    := $(LIBXT_DIR)/libxentrace.so.1
LIBXT_SRCS  := tools/libxentrace/capture/capture.c tools/libxentrace/file/writer.c \
               tools/libxentrace/file/reader.c tools/libxentrace/file/events.c
LIBXT_HDR   := tools/libxentrace/libxentrace.h
LIBXT_LIBS  := -lxenctrl -lxenforeignmemory -lxenevtchn -lpthread -lz
# The reader's API (reading trace files), and the event catalogue's tables
# that tools/libxentrace/file/gen-trace-events makes.
LIBXT_RHDR  := tools/libxentrace/file/xtread.h
LIBXT_EVENTS_C := $(LIBXT_DIR)/trace-events.c
LIBXT_OBJS  := $(patsubst tools/libxentrace/%.c,$(LIBXT_DIR)/%.o,$(LIBXT_SRCS)) \
               $(LIBXT_DIR)/trace-events.o
LIBXT_PC    := $(LIBXT_DIR)/libxentrace.pc

$(LIBXT_DIR)/%.o: tools/libxentrace/%.c $(LIBXT_HDR)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -fPIC -Itools/libxentrace -Itools/libxentrace/file -Ixen/include -c -o $@ $<

$(LIBXT_DIR)/file/reader.o $(LIBXT_DIR)/file/events.o: $(LIBXT_RHDR)
$(LIBXT_DIR)/file/events.o: tools/libxentrace/file/decimal.h tools/libxentrace/file/catalogue.h

$(LIBXT_EVENTS_C): tools/libxentrace/file/trace-events tools/libxentrace/file/gen-trace-events
	@mkdir -p $(@D)
	python3 tools/libxentrace/file/gen-trace-events --c $@ $<

$(LIBXT_DIR)/trace-events.o: $(LIBXT_EVENTS_C) $(LIBXT_RHDR) $(LIBXT_HDR) \
                             tools/libxentrace/file/catalogue.h
	$(CC) $(TOOL_CFLAGS) -fPIC -Itools/libxentrace -Itools/libxentrace/file -c -o $@ $<

$(LIBXT): $(LIBXT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(LIBXT_SO): $(LIBXT_OBJS)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(@F) -o $@ $^ $(LIBXT_LIBS)

$(LIBXT_PC): tools/libxentrace/libxentrace.pc.in
	@mkdir -p $(@D)
	sed 's|@PREFIX@|$(PREFIX)|' $< > $@
