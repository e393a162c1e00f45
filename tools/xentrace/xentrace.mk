# xentrace: the capture daemon, on libxentrace (capture), libxtfile (the
# writer), Xen's libxenstore (the domains' names) and libtracefs with
# libtraceevent (--dom0: dom0's ftrace); and xentrace-ctl, which steers a
# running capture through its --control socket.

TRACEFS_CFLAGS := $(shell pkg-config --cflags libtracefs libtraceevent)
TRACEFS_LIBS   := $(shell pkg-config --libs libtracefs libtraceevent)

XENTRACE      := $(BUILD)/tools/xentrace/xentrace
XENTRACE_SRCS := tools/xentrace/xentrace.c tools/xentrace/options.c \
                 tools/xentrace/output.c tools/xentrace/pace.c \
                 tools/xentrace/take.c tools/xentrace/window.c \
                 tools/xentrace/naming.c tools/xentrace/control.c \
                 tools/xentrace/filter.c tools/xentrace/dom0.c \
                 tools/xentrace/ftrace.c
XENTRACE_HDRS := tools/xentrace/options.h tools/xentrace/output.h \
                 tools/xentrace/naming.h tools/xentrace/control.h \
                 tools/xentrace/pace.h tools/xentrace/take.h \
                 tools/xentrace/window.h tools/xentrace/filter.h \
                 tools/xentrace/dom0.h tools/xentrace/ftrace.h \
                 tools/xentrace/tsc.h \
                 $(COMMON_SRC)/numbers.h \
                 $(LIBXT_HDRS) $(XTFILE_HDRS)

$(XENTRACE): $(XENTRACE_SRCS) $(XENTRACE_HDRS) $(XT_CLASSES_H) $(LIBXT) \
             $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LIBXT_CFLAGS) $(XTFILE_CFLAGS) $(EVENTS_CFLAGS) \
	    $(COMMON_CFLAGS) $(TRACEFS_CFLAGS) -Ixen/include $(LDFLAGS) -o $@ $(XENTRACE_SRCS) $(LIBXT) $(XTFILE) \
	    $(LIBXT_LIBS) $(XTFILE_LIBS) -lxenstore $(TRACEFS_LIBS) -lpthread

XENTRACE_CTL  := $(BUILD)/tools/xentrace/xentrace-ctl

$(XENTRACE_CTL): tools/xentrace/ctl.c tools/xentrace/control.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ tools/xentrace/ctl.c
