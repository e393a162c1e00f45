# make check-xen: our xentrace in a real dom0 and our trace.c in the real
# Xen 4.17 and 4.20.4, booted in QEMU with Debian's dom0 packages
# (docs/real-xen.md).  XEN_CACHE keeps the packages and the hypervisors
# built between runs.

XEN_CACHE   ?= /var/cache/xentrace-ng
XEN_RESULTS := $(BUILD)/xen-results
TBUF_STATE  := $(BUILD)/tests/tbuf-state
HCALL_LOOP  := $(BUILD)/tests/hypercall-loop
XEN_TEST    := $(BUILD)/tests/test_xen
XEN_AGREE_TEST := $(BUILD)/tests/test_xen_agree

# Dom0 programs: on Debian's libxenctrl, like Debian's xentrace.
$(TBUF_STATE): tests/xen/tbuf_state.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< -lxenctrl

$(HCALL_LOOP): tests/xen/hypercall_loop.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< -lxenctrl

$(XEN_TEST): tests/xen/test_xen.c tests/xen/boots.h tests/sim/tracefile.c \
             tests/sim/tracefile.h tests/common/run_cmd.c tests/common/run_cmd.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ixen/include -Itests/sim -Itests/common $(LDFLAGS) \
	    -o $@ tests/xen/test_xen.c tests/sim/tracefile.c \
	    tests/common/run_cmd.c -lcmocka

# The summary against xenalyze on the boots' captures.
$(XEN_AGREE_TEST): tests/xen/test_xen_agree.c tests/xen/boots.h tests/sim/tracefile.c \
                   tests/sim/tracefile.h tests/common/run_cmd.c \
                   tests/common/run_cmd.h | $(XT_SUMMARY) $(XT_DUMP) $(XT_JOIN) \
                                            $(XT_EXPORT) $(XT_PLOT)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ixen/include -Itests/sim -Itests/common \
	    -DAGREE='"tests/readers/agree-with-xenalyze"' \
	    -DPERFETTO_AGREES='"tests/readers/perfetto-agrees"' \
	    -DREADERS='"$(READER_OUT)"' \
	    -DCHECK_TOP='"tests/readers/check_top.py"' \
	    -DCHECK_DOM0='"tests/readers/check_dom0.py"' \
	    -DSUMMARY='"$(XT_SUMMARY)"' -DDUMP='"$(XT_DUMP)"' $(LDFLAGS) \
	    -o $@ tests/xen/test_xen_agree.c tests/sim/tracefile.c \
	    tests/common/run_cmd.c -lcmocka

# The arm64 dom0's programs, under their own names in ARM_DOM0:
# check-xen.sh makes this with BUILD, CC and LDFLAGS of Debian's cross
# compiler and the arm64 packages fetch-debs.sh unpacked.
ARM_DOM0 ?= $(BUILD)/dom0

# Not xentrace-top, nor xentrace-join: the arm64 root has neither ncurses
# and libmicrohttpd nor libtracecmd (check-xen's live and timeline steps
# run on x86).
ARM_DOM0_READERS := $(filter-out $(XT_TOP) $(XT_JOIN),$(READERS))

arm64-dom0: $(XENTRACE) $(TBUF_STATE) $(HCALL_LOOP) $(ARM_DOM0_READERS)
	@mkdir -p $(ARM_DOM0)
	@cp $^ $(ARM_DOM0)/

check-xen: $(XENTRACE) $(TBUF_STATE) $(HCALL_LOOP) $(XEN_TEST) \
           $(XEN_AGREE_TEST) $(XEN_TREES_TEST) $(XEN_EVENTS_TEST) $(XT_TOP)
	@XT_TOP=$(XT_TOP) XT_HCALL_LOOP=$(HCALL_LOOP) tests/xen/check-xen.sh $(XEN_CACHE) $(XEN_SRC) $(XENTRACE) $(TBUF_STATE) \
	    $(XEN_RESULTS) $(BUILD)/arm64
	@XT_RESULTS=$(XEN_RESULTS) XT_TREES=$(XEN_RESULTS)/trees \
	    XT_TREE_VERSIONS="4.17 4.20.4" XEN_CACHE=$(XEN_CACHE) \
	    XEN_EVENTS_TEST=$(XEN_EVENTS_TEST) \
	    tests/run-tests $(XEN_TEST) $(XEN_AGREE_TEST) $(XEN_TREES_TEST) \
	    tests/xen-events/check-xen-events.sh

.PHONY: check-xen arm64-dom0
