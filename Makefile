# xentrace-ng: top-level build.  Everything is built under $(BUILD).
#
#   make               build the hypervisor-side objects and the tests
#   make check         run every test, the multi-threaded ones also under
#                      ThreadSanitizer, and each benchmark once at a tiny
#                      size, and build our xen/ files into the hypervisor
#                      of Xen 4.20.4 and 4.22.0; the last line is
#                      "N passed, N failed"
#   make check-asan    the same, built with AddressSanitizer + UBSan
#   make check-tsan    the multi-threaded tests alone, with ThreadSanitizer
#   make check-xen     boot the real Xen 4.17 and 4.20.4 in QEMU (stock,
#                      and built with our trace.c) and trace them from dom0
#   make bench         run the benchmarks, each against its peer (tables,
#                      JSON lines, bench/results/latest.{json,md,svg})
#   make bench-publish put the latest results in docs/benchmarks.md and
#                      README.md
#   make soak          the accounting soak: SOAK_RECORDS (10^8) records
#                      through xen-sim and xentrace, every one accounted
#   make fuzz-NAME     run a fuzz target (reader, options, hostile-dom0,
#                      dump, summary, export, plot, format)
#                      for FUZZ_SECONDS
#   make demo          install what is missing, build, show a trace
#   make generated     remake the committed files made from the event
#                      catalogue (xen/include/xen/trace-events.h, the
#                      class table of docs/man/xentrace.8)

BUILD      ?= build
PREFIX     ?= /usr/local
CC         ?= cc
SAN        ?=
OPT        ?= -O2

ifeq ($(SAN),address)
SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer
else ifeq ($(SAN),thread)
SAN_FLAGS  := -fsanitize=thread
endif

# Tools and tests: C11, every warning an error.
TOOL_CFLAGS := -std=gnu11 $(OPT) -g -Wall -Wextra -Werror $(SAN_FLAGS)
LDFLAGS     += $(SAN_FLAGS)

# The host environment: what code of Xen's, or code that calls into it,
# compiles with outside Xen's tree (xen/arch/host/: Xen as a process).
XEN_ENV     := -DCONFIG_TRACEBUFFER -include xen/config.h \
               -Ixen/arch/host/include -Ixen/include

# Hypervisor code: the flags Xen 4.17 builds xen/common/ with, minus what
# only makes sense without libc (-nostdinc, -fno-builtin).  No floating
# point: -mgeneral-regs-only rejects any use of it.
XEN_WARN    := -Wall -Werror -Wdeclaration-after-statement -Wvla \
               -Wstrict-prototypes -Wredundant-decls
XEN_CFLAGS  := -std=gnu99 $(OPT) -g $(XEN_WARN) -mgeneral-regs-only \
               -fno-strict-aliasing $(SAN_FLAGS) $(XEN_ENV)

# Tests see the hypervisor through its public and producer headers.
TEST_CFLAGS := $(TOOL_CFLAGS) $(XEN_ENV) -Itests/unit

all:

# Along the data path: the catalogue every part names events from and
# what the tools share, then the producer, the simulated host, capture, the file, the readers; then the
# tests.  (The file's library comes before xentrace, which writes with it.)
include tools/trace-events/trace-events.mk
include tools/common/common.mk
include xen/xen.mk
include tools/xen-sim/xen-sim.mk
include tools/libxentrace/libxentrace.mk
include tools/libxtfile/libxtfile.mk
include tools/xentrace/xentrace.mk
include tools/readers/readers.mk
include tests/unit/unit.mk
include tests/common/common.mk
include tests/file/file.mk
include tests/xentrace/xentrace.mk
# Before the tests of the readers, which run its gen-trace.
include bench/bench.mk
include tests/sim/sim.mk
include tests/readers/readers.mk
include tests/readers/agree.mk
include tests/fuzz/fuzz.mk
include tests/xen-events/xen-events.mk
include tests/xen/trees.mk
include tests/xen/xen.mk
include demo/demo.mk

TESTS := $(UNIT_TESTS) $(COMMON_TESTS) $(FILE_TESTS) $(XENTRACE_TESTS) $(SIM_TESTS) \
         $(READER_TESTS) $(FUZZ_TESTS)

all: $(HOST_LIB) $(XEN_SIM) $(XEN_SIM_LIBS) $(LIBXT) $(LIBXT_SO) $(XTFILE) \
     $(XTFILE_SO) $(XENTRACE) $(XENTRACE_CTL) $(READERS) $(XT_FORMATS) \
     $(TESTS)

# The sanitizer builds live inside $(BUILD), each in a tree of its own.
TSAN_BUILD := $(BUILD)/tsan
TSAN_TESTS := $(addprefix $(TSAN_BUILD)/tests/,$(notdir $(THREADED_TESTS)))

check: all tsan-tests bench-smoke xen-trees $(XEN_TREES_TEST) arm64-host \
       $(ARM64_HOST_TEST)
	@XT_TREES=$(XEN_TREES_DIR) XT_TREE_VERSIONS="$(XEN_TREES_BUILT)" \
	    XT_ARM64_XEN_SIM=$(ARM64_XEN_SIM) tests/run-tests $(TESTS) \
	    $(TSAN_TESTS) $(XEN_TREES_TEST) $(ARM64_HOST_TEST)

check-unit: all
	@tests/run-tests $(TESTS)

check-asan:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan SAN=address check-unit

check-tsan: tsan-tests
	@tests/run-tests $(TSAN_TESTS)

tsan-tests:
	@$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) SAN=thread $(TSAN_TESTS)

# Install the dom0 side: xentrace and libxentrace (capture), libxtfile
# (trace files; with the public trace.h its header includes), each with
# its headers, libraries and pkg-config file, the readers, xentrace_format's
# formats file and the man pages.  DESTDIR for staging.
DEST := $(DESTDIR)$(PREFIX)

install: $(XENTRACE) $(XENTRACE_CTL) $(LIBXT) $(LIBXT_SO) $(LIBXT_PC) \
         $(XTFILE) $(XTFILE_SO) \
         $(XTFILE_PC) $(READERS) $(XT_FORMATS)
	install -d $(DEST)/sbin $(DEST)/lib/pkgconfig $(DEST)/include \
	    $(DEST)/include/$(XTFILE_ABI_DIR)/public $(DEST)/share/man/man8 \
	    $(DEST)/bin $(DEST)/share/man/man1 $(DEST)/share/xentrace
	install -m 755 $(XENTRACE) $(DEST)/sbin/xentrace
	install -m 755 $(XENTRACE_CTL) $(DEST)/sbin/xentrace-ctl
	install -m 644 $(LIBXT) $(XTFILE) $(DEST)/lib/
	install -m 755 $(LIBXT_SO) $(XTFILE_SO) $(DEST)/lib/
	ln -sf $(notdir $(LIBXT_SO)) $(DEST)/lib/libxentrace.so
	ln -sf $(notdir $(XTFILE_SO)) $(DEST)/lib/libxtfile.so
	install -m 644 $(LIBXT_HDRS) $(filter-out $(XT_EVENTS_H),$(XTFILE_HDRS)) \
	    $(DEST)/include/
	install -m 644 $(XT_EVENTS_H) $(DEST)/include/$(XTFILE_ABI_DIR)/
	install -m 644 xen/include/public/trace.h \
	    $(DEST)/include/$(XTFILE_ABI_DIR)/public/
	install -m 644 $(LIBXT_PC) $(XTFILE_PC) $(DEST)/lib/pkgconfig/
	install -m 644 docs/man/xentrace.8 docs/man/xentrace-ctl.8 \
	    $(DEST)/share/man/man8/
	install -m 755 $(READERS) $(DEST)/bin/
	install -m 644 $(patsubst %,docs/man/%.1,$(notdir $(READERS))) \
	    $(DEST)/share/man/man1/
	install -m 644 $(XT_FORMATS) $(DEST)/share/xentrace/

clean:
	rm -rf $(BUILD)

.PHONY: all check check-unit check-asan check-tsan tsan-tests bench demo \
        install clean
