# make check: our three files built into the hypervisor of each Xen tree of
# XEN_TREES for x86_64 and of XEN_ARM_TREES for arm64
# (tests/xen/build-tree.sh), and of Debian's 4.17 source for arm64
# (tests/xen/build-xen.sh), all cached under XEN_CACHE, and what came out
# checked by test_xen_trees.  The results are copied to
# $(BUILD)/xen-trees/VERSION (VERSION-arm64).

XEN_TREES_DIR  := $(BUILD)/xen-trees
XEN_TREES_TEST := $(BUILD)/tests/test_xen_trees

$(XEN_TREES_TEST): tests/xen/test_xen_trees.c tests/common/run_cmd.c \
                   tests/common/run_cmd.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common $(LDFLAGS) -o $@ \
	    tests/xen/test_xen_trees.c tests/common/run_cmd.c -lcmocka

xen-trees:
	@rm -rf $(XEN_TREES_DIR)
	@mkdir -p $(XEN_TREES_DIR)
	@for v in $(XEN_TREES); do \
	    out=$$(tests/xen/build-tree.sh $(XEN_SRC) $(XEN_CACHE) $$v) && \
	    cp -r "$$out" $(XEN_TREES_DIR)/$$v || exit 1; \
	done
	@for v in $(XEN_ARM_TREES); do \
	    out=$$(tests/xen/build-tree.sh --arch arm64 $(XEN_SRC) \
	           $(XEN_CACHE) $$v) && \
	    cp -r "$$out" $(XEN_TREES_DIR)/$$v-arm64 || exit 1; \
	done
	@out=$$(tests/xen/build-xen.sh $(XEN_CACHE) arm64) && \
	    cp -r "$$out.d" $(XEN_TREES_DIR)/4.17-arm64

# xen/arch/host and xen-sim cross-built for arm64, which test_arm64_host
# checks (their tests run on x86 here).
ARM64_HOST      := $(BUILD)/arm64-host
ARM64_XEN_SIM   := $(ARM64_HOST)/tools/xen-sim/xen-sim
ARM64_HOST_TEST := $(BUILD)/tests/test_arm64_host

$(ARM64_HOST_TEST): tests/xen/test_arm64_host.c tests/common/run_cmd.c \
                    tests/common/run_cmd.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itests/common $(LDFLAGS) -o $@ \
	    tests/xen/test_arm64_host.c tests/common/run_cmd.c -lcmocka

arm64-host:
	@$(MAKE) --no-print-directory BUILD=$(ARM64_HOST) \
	    CC=aarch64-linux-gnu-gcc $(ARM64_XEN_SIM)

# What test_xen_trees is given to check.
XEN_TREES_BUILT := $(XEN_TREES) $(addsuffix -arm64,$(XEN_ARM_TREES) 4.17)

.PHONY: xen-trees arm64-host
