# make demo: a capture from the simulated host, as a Xen user makes one.

demo:
	@.ci/install-deps
	@$(MAKE) --no-print-directory $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE)
	@XEN_SIM=$(XEN_SIM) XENTRACE=$(XENTRACE) OUT=$(BUILD)/demo demo/run

.PHONY: demo
