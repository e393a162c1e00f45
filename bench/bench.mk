# Benchmarks.  Each prints a Markdown table and one "JSON {...}" line; see
# bench/README.md.  They report figures, they never fail on one.
#
#   make bench         the full run (bench/run-all): every table, and
#                      bench/results/latest.{json,md,svg} combining them
#   make bench-publish copy the latest results to docs/benchmarks.{md,svg}
#                      and README.md's headline table, to commit
#   make bench-smoke   one tiny run of each benchmark, to keep them working

TRACE_COST   := $(BUILD)/bench/trace_cost
BENCH_CFLAGS := $(TOOL_CFLAGS) $(XEN_ENV)

# Valgrind cannot run a sanitizer build: such runs skip the instruction counts.
BENCH_ENV    := TRACE_COST=$(TRACE_COST) CALLGRIND=$(if $(SAN),no,yes)

# Both cost benchmarks time their trace points with bench/timing.c.
TIMING_SRCS  := bench/timing.c bench/timing.h

$(TRACE_COST): bench/trace_cost.c $(TIMING_SRCS) $(XEN_HDRS) $(HOST_LIB)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $(LDFLAGS) -o $@ $< bench/timing.c $(HOST_LIB) \
	    -lpthread

# The capture benchmark (run-capture): our xentrace against Debian's, as
# dom0s of the same xen-sim workload; rusage measures a tracer's CPU, and
# capture_floor the data path's floors on records from gen-trace.
RUSAGE       := $(BUILD)/bench/rusage
CAPTURE_FLOOR := $(BUILD)/bench/capture_floor
CAPTURE_ENV  := XEN_SIM=$(XEN_SIM) OURS=$(XENTRACE) RUSAGE=$(RUSAGE) \
                CAPTURE_FLOOR=$(CAPTURE_FLOOR) GEN_TRACE=$(GEN_TRACE)
CAPTURE_DEPS := $(XEN_SIM) $(XEN_SIM_LIBS) $(XENTRACE) $(RUSAGE) \
                $(CAPTURE_FLOOR) $(GEN_TRACE)

# The floors run xentrace's own check (window.c) and writer (libxtfile).
$(CAPTURE_FLOOR): bench/capture_floor.c tools/xentrace/window.c \
                  tools/xentrace/window.h $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(XTFILE_CFLAGS) $(EVENTS_CFLAGS) -Itools/xentrace \
	    -iquote xen/include $(LDFLAGS) -o $@ bench/capture_floor.c \
	    tools/xentrace/window.c $(XTFILE) $(XTFILE_LIBS)

# The producer against LTTng-UST (run-lttng): lttng_cost is built where
# liblttng-ust-dev is installed; elsewhere run-lttng leaves LTTng out.
LTTNG_COST   := $(BUILD)/bench/lttng_cost
HAVE_LTTNG   := $(shell printf '\043include <lttng/tracepoint.h>\n' | \
                  $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
LTTNG_DEPS   := $(if $(HAVE_LTTNG),$(LTTNG_COST))

$(LTTNG_COST): bench/lttng_cost.c bench/lttng_tp.h $(TIMING_SRCS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Ibench $(LDFLAGS) -o $@ $< bench/timing.c \
	    -llttng-ust -ldl -lpthread

# The reading benchmark (run-read): xentrace-summary and xentrace-dump
# against Debian's xenalyze, on files from gen-trace, a synthetic trace
# generator (xen-sim's workloads put through libxtfile's writer in
# epochs of batches, by tests/common/batches.c).
GEN_TRACE    := $(BUILD)/bench/gen-trace
WALK         := $(BUILD)/bench/walk

# xenalyze built from Debian's source, as make check-xen fetches it, out
# of tree, when that source is here, with MREAD_MAPS (its cache of 2 MiB
# mmap windows, 8 of them in mread.h) raised to XENALYZE_MAPS, so that at
# many pCPUs it is not timed page-faulting.
# The raised one is built from a scratch copy of xenalyze's files under
# $(BUILD), in which sed changes that one #define; nothing of xenalyze's
# source is kept in the tree.
XENALYZE_TREE := $(lastword $(sort $(wildcard \
                   /var/cache/xentrace-ng/src/4.17.5*/tree)))
XENALYZE_RAISED := $(if $(XENALYZE_TREE),$(BUILD)/bench/xenalyze-raised)
XENALYZE_MAPS := 512
XENALYZE_FILES := xenalyze.c mread.c mread.h analyze.h pv.h

# A real-Xen capture for run-read: the one make check-xen leaves, if any.
REAL_TRACE   ?= $(wildcard $(BUILD)/xen-results/our-xen-4.20/ours.bin)

READ_ENV     = GEN_TRACE=$(GEN_TRACE) SUMMARY=$(XT_SUMMARY) DUMP=$(XT_DUMP) \
               PLOT=$(XT_PLOT) RUSAGE=$(RUSAGE) WALK=$(WALK) \
               XENALYZE_RAISED=$(XENALYZE_RAISED) \
               XENALYZE_MAPS=$(XENALYZE_MAPS) REAL_TRACE=$(REAL_TRACE)
READ_DEPS    = $(GEN_TRACE) $(XT_SUMMARY) $(XT_DUMP) $(XT_PLOT) $(RUSAGE) \
               $(WALK) $(XENALYZE_RAISED)

# The reader's bare walk, for run-read's equal-work table.
$(WALK): bench/walk.c $(XTFILE_HDRS) $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(XTFILE_CFLAGS) $(LDFLAGS) -o $@ $< $(XTFILE) \
	    $(XTFILE_LIBS)

# Xen's tools build flags for it (tools/Rules.mk), without sanitizers.
XENALYZE_CC = $(CC) -O2 -g -fno-strict-aliasing -std=gnu99 -D__XEN_TOOLS__ \
	    -D_LARGEFILE_SOURCE -D_LARGEFILE64_SOURCE

$(BUILD)/bench/xenalyze-raised: $(XENALYZE_TREE)/tools/xentrace/xenalyze.c \
                                bench/bench.mk
	@rm -rf $@.d && mkdir -p $@.d
	cp $(addprefix $(XENALYZE_TREE)/tools/xentrace/,$(XENALYZE_FILES)) $@.d/
	sed -i 's/^#define MREAD_MAPS [0-9]*$$/#define MREAD_MAPS $(XENALYZE_MAPS)/' \
	    $@.d/mread.h
	grep -q '^#define MREAD_MAPS $(XENALYZE_MAPS)$$' $@.d/mread.h
	$(XENALYZE_CC) -I$@.d -I$(XENALYZE_TREE)/tools/include \
	    -o $@ $@.d/xenalyze.c $@.d/mread.c

$(GEN_TRACE): bench/gen-trace.c tools/xen-sim/workload.c \
              tools/xen-sim/workload.h $(XEN_HDRS) $(BATCHES) $(XTFILE_HDRS) \
              $(XTFILE)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Itools/xen-sim $(XTFILE_CFLAGS) -Itests/common \
	    $(LDFLAGS) -o $@ bench/gen-trace.c tools/xen-sim/workload.c \
	    tests/common/batches.c $(XTFILE) $(XTFILE_LIBS)

# The live-view benchmark (run-live): xentrace-top, and the bare walk,
# reading our xentrace's pipe, against xentrace writing the same workload
# to tmpfs.
LIVE_ENV     = TOP=$(XT_TOP) WALK=$(WALK)
LIVE_DEPS    = $(XT_TOP) $(WALK) $(CAPTURE_DEPS)

# The trace points' cost on the booted hosts (run-boot-cost): what make
# check-xen's cost boots left in $(XEN_RESULTS), read by the summary.
BOOT_COST_ENV = XEN_RESULTS=$(XEN_RESULTS) XT_SUMMARY=$(XT_SUMMARY)

ALL_BENCH_ENV = $(BENCH_ENV) $(CAPTURE_ENV) $(READ_ENV) $(LIVE_ENV) \
                $(BOOT_COST_ENV) LTTNG_COST=$(LTTNG_COST)
BENCH_DEPS    = $(TRACE_COST) $(CAPTURE_DEPS) $(LTTNG_DEPS) $(READ_DEPS) \
                $(LIVE_DEPS) $(XT_SUMMARY)

bench: $(BENCH_DEPS)
	@$(ALL_BENCH_ENV) bench/run-all

bench-smoke: $(BENCH_DEPS)
	@$(ALL_BENCH_ENV) bench/run-all --smoke

bench-publish:
	@bench/report --publish bench/results

$(RUSAGE): bench/rusage.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $<

.PHONY: bench-smoke bench-publish
