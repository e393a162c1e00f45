# Integration tests against xen-sim: Debian's xentrace and xenalyze, and a
# dom0 program linked with Debian's Xen libraries.  XEN_SIM, the simulator
# under test, is compiled in, so each build tree tests its own.

SIM_TESTS       := $(BUILD)/tests/test_sim_capture $(BUILD)/tests/test_sim_control
SIM_TEST_CFLAGS := $(TOOL_CFLAGS) -DXEN_SIM='"$(XEN_SIM)"'

SIM_UTIL        := tests/sim/sim_util.c tests/sim/tracefile.c \
                   tests/common/run_cmd.c
SIM_UTIL_HDRS   := tests/sim/sim_util.h tests/sim/tracefile.h \
                   tests/common/run_cmd.h

$(BUILD)/tests/test_sim_capture: tests/sim/test_sim_capture.c $(SIM_UTIL) \
                                 $(SIM_UTIL_HDRS) | $(XEN_SIM) $(XEN_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -Ixen/include -Itests/sim -Itests/common $(LDFLAGS) -o $@ \
	    tests/sim/test_sim_capture.c $(SIM_UTIL) -lcmocka

$(BUILD)/tests/test_sim_control: tests/sim/test_sim_control.c tests/sim/under_sim.h \
                                 | $(XEN_SIM) $(XEN_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -Itests/sim $(LDFLAGS) -o $@ $< \
	    -lxenctrl -lxenevtchn -lcmocka

# Our xentrace under xen-sim; tbuf-mask reports the event mask it left.
TBUF_MASK := $(BUILD)/tests/tbuf-mask
SIM_TESTS += $(BUILD)/tests/test_sim_xentrace

$(TBUF_MASK): tests/sim/tbuf_mask.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< -lxenctrl

$(BUILD)/tests/test_sim_xentrace: tests/sim/test_sim_xentrace.c $(SIM_UTIL) \
                                  $(SIM_UTIL_HDRS) | $(XEN_SIM) \
                                  $(XEN_SIM_LIBS) $(XENTRACE) $(TBUF_MASK)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE)"' \
	    -DTBUF_MASK='"$(TBUF_MASK)"' -Ixen/include -Itests/sim -Itests/common $(LDFLAGS) \
	    -o $@ tests/sim/test_sim_xentrace.c $(SIM_UTIL) -lcmocka

# libxentrace's capture half against xen-sim.
SIM_TESTS += $(BUILD)/tests/test_sim_libxentrace

$(BUILD)/tests/test_sim_libxentrace: tests/sim/test_sim_libxentrace.c \
                                     tests/sim/under_sim.h $(LIBXT) \
                                     | $(XEN_SIM) $(XEN_SIM_LIBS)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -Itests/sim -Itools/libxentrace -Itools/libxentrace/file -Ixen/include \
	    $(LDFLAGS) -o $@ $< $(LIBXT) $(LIBXT_LIBS) -lcmocka

# Faults: kill -9, a full disk, exit signals, a host that drops a call or
# dies; tbuf-state (tests/xen) tells whether tracing was left on.
SIM_TESTS += $(BUILD)/tests/test_sim_faults

$(BUILD)/tests/test_sim_faults: tests/sim/test_sim_faults.c $(SIM_UTIL) \
                                $(SIM_UTIL_HDRS) | $(XEN_SIM) $(XEN_SIM_LIBS) \
                                $(XENTRACE) $(BUILD)/tests/tbuf-state
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE)"' \
	    -DTBUF_STATE='"$(BUILD)/tests/tbuf-state"' -Ixen/include -Itests/sim \
	    -Itests/common $(LDFLAGS) -o $@ tests/sim/test_sim_faults.c $(SIM_UTIL) \
	    -lcmocka
