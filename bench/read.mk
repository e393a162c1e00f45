# The reading benchmark (run-read): xentrace-summary and xentrace-dump
# against Debian's xenalyze, on files from gen-trace, a synthetic trace
# generator (xen-sim's workloads written through libxentrace's writer).

GEN_TRACE    := $(BUILD)/bench/gen-trace
READ_ENV     = GEN_TRACE=$(GEN_TRACE) SUMMARY=$(XT_SUMMARY) DUMP=$(XT_DUMP) \
               RUSAGE=$(RUSAGE)
READ_DEPS    = $(GEN_TRACE) $(XT_SUMMARY) $(XT_DUMP) $(RUSAGE)

$(GEN_TRACE): bench/gen-trace.c tools/xen-sim/workload.c \
              tools/xen-sim/workload.h $(XEN_HDRS) $(LIBXT_HDR) $(LIBXT)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Itools/xen-sim -Itools/libxentrace -Itools/libxentrace/file $(LDFLAGS) \
	    -o $@ bench/gen-trace.c tools/xen-sim/workload.c $(LIBXT) \
	    $(LIBXT_LIBS)

bench bench-smoke: $(READ_DEPS)
