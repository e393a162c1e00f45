# make check-xen: our xentrace in a real dom0 and our trace.c in the real
# Xen 4.17, booted in QEMU from Debian's packages (docs/real-xen.md).
# XEN_CACHE keeps the packages and the hypervisor built between runs.

XEN_CACHE   ?= /var/cache/xentrace-ng
XEN_RESULTS := $(BUILD)/xen-results
TBUF_STATE  := $(BUILD)/tests/tbuf-state
XEN_TEST    := $(BUILD)/tests/test_xen

# A dom0 program: on Debian's libxenctrl, like Debian's xentrace.
$(TBUF_STATE): tests/xen/tbuf_state.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< -lxenctrl

$(XEN_TEST): tests/xen/test_xen.c tests/sim/tracefile.c tests/sim/tracefile.h \
             tests/common/run_cmd.c tests/common/run_cmd.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ixen/include -Itests/sim -Itests/common $(LDFLAGS) \
	    -o $@ tests/xen/test_xen.c tests/sim/tracefile.c \
	    tests/common/run_cmd.c -lcmocka

check-xen: $(XENTRACE) $(TBUF_STATE) $(XEN_TEST) $(XEN_EVENTS_TEST)
	@tests/xen/check-xen.sh $(XEN_CACHE) $(XENTRACE) $(TBUF_STATE) $(XEN_RESULTS)
	@XT_RESULTS=$(XEN_RESULTS) XEN_CACHE=$(XEN_CACHE) XEN_EVENTS_TEST=$(XEN_EVENTS_TEST) \
	    tests/run-tests $(XEN_TEST) tests/xen-events/check-xen-events.sh

.PHONY: check-xen
