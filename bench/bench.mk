# Benchmarks.  Each prints a Markdown table and one "JSON {...}" line; see
# bench/README.md.  They report figures, they never fail on one.
#
#   make bench         the full run; the JSON also goes to bench/results/
#   make bench-smoke   one tiny run of each benchmark, to keep them working

TRACE_COST   := $(BUILD)/bench/trace_cost
BENCH_CFLAGS := $(TOOL_CFLAGS) -DCONFIG_TRACEBUFFER -include xen/config.h \
                -Ixen/arch/host/include -Ixen/include

# Valgrind cannot run a sanitizer build: such runs skip the instruction counts.
BENCH_ENV    := TRACE_COST=$(TRACE_COST) CALLGRIND=$(if $(SAN),no,yes)

$(TRACE_COST): bench/trace_cost.c $(XEN_HDRS) $(HOST_LIB)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $(LDFLAGS) -o $@ $< $(HOST_LIB) -lpthread

# The capture benchmark (run-capture): our xentrace against Debian's, as
# dom0s of the same xen-sim workload; rusage measures a tracer's CPU.
RUSAGE       := $(BUILD)/bench/rusage
CAPTURE_ENV  := XEN_SIM=$(XEN_SIM) OURS=$(XENTRACE) RUSAGE=$(RUSAGE)
CAPTURE_DEPS := $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE) $(RUSAGE)

bench: $(TRACE_COST) $(CAPTURE_DEPS)
	@$(BENCH_ENV) bench/run-trace-cost
	@$(CAPTURE_ENV) bench/run-capture
	@$(READ_ENV) bench/run-read

bench-smoke: $(TRACE_COST) $(CAPTURE_DEPS)
	@$(BENCH_ENV) bench/run-trace-cost --smoke
	@$(CAPTURE_ENV) bench/run-capture --smoke
	@$(READ_ENV) bench/run-read --smoke

$(RUSAGE): bench/rusage.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $<

.PHONY: bench-smoke
