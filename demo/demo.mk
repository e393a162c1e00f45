# make demo: install what is missing, build, and show the trace buffers.

DEMO := $(BUILD)/demo/trace-demo

$(DEMO): demo/trace-demo.c $(HOST_LIB) $(XEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -DCONFIG_TRACEBUFFER -include xen/config.h \
	    -Ixen/arch/host/include -Ixen/include -o $@ $< $(HOST_LIB) -lpthread
