# make soak: the accounting soak (tests/sim/soak.c), SOAK_RECORDS records
# through xen-sim's flood and our xentrace, each capture reconciled with
# the hypervisor's counts.  Not part of make check: .ci/run runs it.
SOAK_RECORDS ?= 100000000
SOAK         := $(BUILD)/tests/soak

$(SOAK): tests/sim/soak.c $(SIM_UTIL) $(SIM_UTIL_HDRS) | $(XEN_SIM) \
         $(XEN_SIM_LIBS) $(XENTRACE)
	@mkdir -p $(@D)
	$(CC) $(SIM_TEST_CFLAGS) -DXENTRACE='"$(XENTRACE)"' -Ixen/include \
	    -Itests/sim -Itests/common $(LDFLAGS) -o $@ tests/sim/soak.c \
	    $(SIM_UTIL) -lcmocka

soak: $(SOAK)
	@SOAK_RECORDS=$(SOAK_RECORDS) tests/run-tests $(SOAK)

.PHONY: soak
