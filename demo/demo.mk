# make demo: a capture from the simulated host, as a Xen user makes one.

demo:
	@.ci/install-deps
	@$(MAKE) --no-print-directory $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE) \
	    $(XT_SUMMARY) $(XT_DUMP) $(XT_PLOT) $(XT_EXPORT)
	@XEN_SIM=$(XEN_SIM) XENTRACE=$(XENTRACE) READERS=$(BUILD)/tools/xentrace \
	    OUT=$(BUILD)/demo demo/run

.PHONY: demo
