# make demo: a capture from the simulated host, as a Xen user makes one,
# shown with every reader the README names.

demo:
	@.ci/install-deps
	@$(MAKE) --no-print-directory $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE) \
	    $(READERS) $(XT_FORMATS)
	@XEN_SIM=$(XEN_SIM) XENTRACE=$(XENTRACE) READERS=$(BUILD)/tools/readers \
	    OUT=$(BUILD)/demo demo/run

.PHONY: demo
