# The reading benchmark (run-read): xentrace-summary and xentrace-dump
# against Debian's xenalyze, on files from gen-trace, a synthetic trace
# generator (xen-sim's workloads written through libxentrace's writer).

GEN_TRACE    := $(BUILD)/bench/gen-trace
WALK         := $(BUILD)/bench/walk

# xenalyze built from Debian's source, as make check-xen fetches it, out
# of tree and unchanged, when that source is here.
XENALYZE_TREE := $(lastword $(sort $(wildcard \
                   /var/cache/xentrace-ng/src/4.17.5*/tree)))
XENALYZE_SRC  := $(if $(XENALYZE_TREE),$(BUILD)/bench/xenalyze-source)

READ_ENV     = GEN_TRACE=$(GEN_TRACE) SUMMARY=$(XT_SUMMARY) DUMP=$(XT_DUMP) \
               RUSAGE=$(RUSAGE) WALK=$(WALK) XENALYZE_SRC=$(XENALYZE_SRC)
READ_DEPS    = $(GEN_TRACE) $(XT_SUMMARY) $(XT_DUMP) $(RUSAGE) $(WALK) \
               $(XENALYZE_SRC)

$(WALK): bench/walk.c $(LIBXT_HDR) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Itools/libxentrace -Itools/libxentrace/file \
	    $(LDFLAGS) -o $@ $< $(LIBXT) $(LIBXT_LIBS)

# Xen's tools build flags for it (tools/Rules.mk), without sanitizers.
$(BUILD)/bench/xenalyze-source: $(XENALYZE_TREE)/tools/xentrace/xenalyze.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fno-strict-aliasing -std=gnu99 -D__XEN_TOOLS__ \
	    -D_LARGEFILE_SOURCE -D_LARGEFILE64_SOURCE \
	    -I$(XENALYZE_TREE)/tools/xentrace -I$(XENALYZE_TREE)/tools/include \
	    -o $@ $< $(XENALYZE_TREE)/tools/xentrace/mread.c

$(GEN_TRACE): bench/gen-trace.c tools/xen-sim/workload.c \
              tools/xen-sim/workload.h $(XEN_HDRS) $(LIBXT_HDR) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Itools/xen-sim -Itools/libxentrace -Itools/libxentrace/file $(LDFLAGS) \
	    -o $@ bench/gen-trace.c tools/xen-sim/workload.c $(LIBXT) \
	    $(LIBXT_LIBS)

bench bench-smoke: $(READ_DEPS)
