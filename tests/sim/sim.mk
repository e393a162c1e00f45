# Integration tests against xen-sim: Debian's xentrace and ours, Debian's
# xenalyze, and dom0 programs linked with Debian's Xen libraries.  What
# they run (XEN_SIM, the xentrace under test) is compiled in, so each
# build tree tests its own.  Also make soak.

SIM_TEST_CFLAGS := $(TOOL_CFLAGS) -DXEN_SIM='"$(XEN_SIM)"' -Ixen/include \
                   -Itests/sim -Itests/common
SIM_UTIL        := tests/sim/sim_util.c tests/sim/tracefile.c \
                   tests/common/run_cmd.c
SIM_UTIL_HDRS   := tests/sim/sim_util.h tests/sim/tracefile.h \
                   tests/common/run_cmd.h
DEBIAN_XENTRACE := /usr/lib/xen-4.17/bin/xentrace

# One suite, the checks any xentrace must pass, against Debian's and ours.
SIM_CAPTURE     := $(BUILD)/tests/test_sim_capture_debian \
                   $(BUILD)/tests/test_sim_capture_ours
SIM_TESTS       := $(SIM_CAPTURE) $(BUILD)/tests/test_sim_control \
                   $(BUILD)/tests/test_sim_xentrace \
                   $(BUILD)/tests/test_sim_filter \
                   $(BUILD)/tests/test_sim_libxentrace \
                   $(BUILD)/tests/test_sim_faults \
                   $(BUILD)/tests/test_sim_dom0
THREADED_TESTS  += $(SIM_CAPTURE) $(BUILD)/tests/test_sim_control \
                   $(BUILD)/tests/test_sim_xentrace

$(BUILD)/tests/test_sim_capture_debian: XENTRACE_UNDER_TEST := $(DEBIAN_XENTRACE)
$(BUILD)/tests/test_sim_capture_ours: XENTRACE_UNDER_TEST := $(XENTRACE)
$(BUILD)/tests/test_sim_capture_ours: OURS := 1

$(SIM_CAPTURE): tests/sim/test_sim_capture.c $(SIM_UTIL) $(SIM_UTIL_HDRS) \
                | $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE_UNDER_TEST)"' \
	    -DOURS=$(if $(OURS),1,0) $(LDFLAGS) -o $@ $< $(SIM_UTIL) -lcmocka

# A dom0 program on Debian's libraries and <xen/trace.h>, not ours.
$(BUILD)/tests/test_sim_control: tests/sim/test_sim_control.c \
                                 tests/sim/under_sim.h | $(XEN_SIM) \
                                 $(XEN_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(filter-out -Ixen/include,$(SIM_TEST_CFLAGS)) $(LDFLAGS) -o $@ $< \
	    -lxenctrl -lxenevtchn -lcmocka

# A second dom0 process that writes over a CPU's buffer, on Debian's
# libraries and <xen/trace.h> (test_sim_faults), or maps it while -S
# would resize it (test_sim_xentrace).
SCRIBBLE := $(BUILD)/tests/scribble

$(SCRIBBLE): tests/sim/scribble.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< -lxenctrl -lxenforeignmemory

# What only our xentrace does; tbuf-mask reports the event mask it left.
TBUF_MASK := $(BUILD)/tests/tbuf-mask

$(TBUF_MASK): tests/sim/tbuf_mask.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< -lxenctrl

$(BUILD)/tests/test_sim_xentrace: tests/sim/test_sim_xentrace.c $(SIM_UTIL) \
                                  $(SIM_UTIL_HDRS) | $(XEN_SIM) \
                                  $(XEN_SIM_LIBS) $(XENTRACE) $(TBUF_MASK) \
                                  $(XT_SUMMARY) $(XT_DUMP) $(XT_EXPORT) \
                                  $(XENTRACE_CTL) $(SCRIBBLE)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE)"' \
	    -DTBUF_MASK='"$(TBUF_MASK)"' -DXT_SUMMARY='"$(XT_SUMMARY)"' \
	    -DSCRIBBLE='"$(SCRIBBLE)"' \
	    -DXT_DUMP='"$(XT_DUMP)"' -DXT_EXPORT='"$(XT_EXPORT)"' \
	    -DXENTRACE_CTL='"$(XENTRACE_CTL)"' \
	    $(LDFLAGS) -o $@ $< $(SIM_UTIL) \
	    -lcmocka

# The domain filter, in Xen and in dom0 (xentrace -d).
$(BUILD)/tests/test_sim_filter: tests/sim/test_sim_filter.c $(SIM_UTIL) \
                                $(SIM_UTIL_HDRS) | $(XEN_SIM) \
                                $(XEN_SIM_LIBS) $(XENTRACE) $(XT_SUMMARY) \
                                $(XT_DUMP) $(XENTRACE_CTL)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE)"' \
	    -DXT_SUMMARY='"$(XT_SUMMARY)"' -DXT_DUMP='"$(XT_DUMP)"' \
	    -DXENTRACE_CTL='"$(XENTRACE_CTL)"' $(LDFLAGS) -o $@ $< $(SIM_UTIL) \
	    -lcmocka

# xentrace --dom0: xen-sim's records and this host's ftrace on one clock.
$(BUILD)/tests/test_sim_dom0: tests/sim/test_sim_dom0.c $(SIM_UTIL) \
                              $(SIM_UTIL_HDRS) | $(XEN_SIM) $(XEN_SIM_LIBS) \
                              $(XENTRACE) $(XT_SUMMARY) $(XT_DUMP) \
                              $(XT_EXPORT) $(XT_JOIN)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE)"' \
	    -DXT_SUMMARY='"$(XT_SUMMARY)"' -DXT_DUMP='"$(XT_DUMP)"' \
	    -DXT_EXPORT='"$(XT_EXPORT)"' -DXT_JOIN='"$(XT_JOIN)"' \
	    -DCHECK_DOM0='"tests/readers/check_dom0.py"' \
	    -DAGREE='"tests/readers/agree-with-xenalyze"' $(LDFLAGS) -o $@ $< \
	    $(SIM_UTIL) -lcmocka

# libxentrace (capture) against xen-sim.
$(BUILD)/tests/test_sim_libxentrace: tests/sim/test_sim_libxentrace.c \
                                     tests/sim/under_sim.h $(LIBXT) \
                                     | $(XEN_SIM) $(XEN_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) $(LIBXT_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBXT) \
	    $(LIBXT_LIBS) -lcmocka

# A signal raised just before xentrace's first long wait (LD_PRELOAD;
# test_sim_faults).  Not built with the sanitizers: it only passes on.
LATE_SIGNAL := $(BUILD)/tests/late-signal.so

$(LATE_SIGNAL): tests/sim/late_signal.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $< -ldl

# Faults: kill -9, a full disk, exit signals, a host that drops a call or
# dies, a dom0 that scribbles (scribble, above); tbuf-state (tests/xen)
# tells whether tracing was left on.
$(BUILD)/tests/test_sim_faults: tests/sim/test_sim_faults.c $(SIM_UTIL) \
                                $(SIM_UTIL_HDRS) | $(XEN_SIM) $(XEN_SIM_LIBS) \
                                $(XENTRACE) $(BUILD)/tests/tbuf-state \
                                $(SCRIBBLE) $(LATE_SIGNAL)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE)"' \
	    -DTBUF_STATE='"$(BUILD)/tests/tbuf-state"' \
	    -DSCRIBBLE='"$(SCRIBBLE)"' -DLATE_SIGNAL='"$(LATE_SIGNAL)"' \
	    $(LDFLAGS) -o $@ $< $(SIM_UTIL) -lcmocka

# make soak: the accounting soak (tests/sim/soak.c), SOAK_RECORDS records
# through xen-sim's flood and our xentrace, each capture reconciled with
# the hypervisor's counts.  Not part of make check: .ci/run runs it.
SOAK_RECORDS ?= 100000000
SOAK         := $(BUILD)/tests/soak

$(SOAK): tests/sim/soak.c $(SIM_UTIL) $(SIM_UTIL_HDRS) | $(XEN_SIM) \
         $(XEN_SIM_LIBS) $(XENTRACE)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE)"' $(LDFLAGS) -o $@ \
	    $< $(SIM_UTIL) -lcmocka

soak: $(SOAK)
	@SOAK_RECORDS=$(SOAK_RECORDS) tests/run-tests $(SOAK)

.PHONY: soak

