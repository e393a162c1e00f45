# xentrace-ng: top-level build.  Everything is built under $(BUILD).
#
#   make               build the hypervisor-side objects and the tests
#   make check         run every test, the multi-threaded ones also under
#                      ThreadSanitizer, and each benchmark once at a tiny
#                      size; the last line is "N passed, N failed"
#   make check-asan    the same, built with AddressSanitizer + UBSan
#   make check-tsan    the multi-threaded tests alone, with ThreadSanitizer
#   make check-xen     boot the real Xen 4.17 in QEMU (Debian's and one
#                      built with our trace.c) and trace it from dom0
#   make bench         run the benchmarks, each against its peer (tables,
#                      JSON lines, bench/results/latest.{json,md,svg})
#   make bench-publish put the latest results in docs/benchmarks.md and
#                      README.md
#   make soak          the accounting soak: SOAK_RECORDS (10^8) records
#                      through xen-sim and xentrace, every one accounted
#   make fuzz-NAME     run a fuzz target (reader, options, hostile-dom0)
#                      for FUZZ_SECONDS
#   make demo          install what is missing, build, show a trace

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

# Hypervisor code: the flags Xen 4.17 builds xen/common/ with, minus what
# only makes sense without libc (-nostdinc, -fno-builtin).  No floating
# point: -mgeneral-regs-only rejects any use of it.
XEN_WARN    := -Wall -Werror -Wdeclaration-after-statement -Wvla \
               -Wstrict-prototypes -Wredundant-decls
XEN_CFLAGS  := -std=gnu99 $(OPT) -g $(XEN_WARN) -mgeneral-regs-only \
               -fno-strict-aliasing $(SAN_FLAGS) \
               -DCONFIG_TRACEBUFFER -include xen/config.h \
               -Ixen/arch/host/include -Ixen/include

# Tests see the hypervisor through its public and producer headers.
TEST_CFLAGS := $(TOOL_CFLAGS) -DCONFIG_TRACEBUFFER -include xen/config.h \
               -Ixen/arch/host/include -Ixen/include -Itests/unit

all:

include xen/xen.mk
include tests/unit/unit.mk
include tools/xen-sim/xen-sim.mk
include tools/libxentrace/libxentrace.mk
include tools/xentrace/xentrace.mk
include tools/xentrace/readers/readers.mk
include tools/xentrace/readers/summary.mk
include tests/sim/sim.mk
include tests/sim/soak.mk
include tests/tools/tools.mk
include tests/xen/xen.mk
include bench/bench.mk
include bench/read.mk
include tests/readers/export.mk
include tests/readers/agree.mk
include tests/readers/readers.mk
include tests/fuzz/fuzz.mk
include demo/demo.mk

all: $(HOST_LIB) $(UNIT_TESTS) $(XEN_SIM) $(XEN_SIM_LIBS) $(LIBXT) $(LIBXT_SO) \
     $(XENTRACE) $(TOOL_TESTS) $(SIM_TESTS) $(XT_READER_TOOLS) $(READERS) \
     $(READER_TESTS) $(FUZZ_TESTS)

TSAN_TESTS := $(addprefix build/tsan/tests/,$(notdir $(THREADED_TESTS)))

check: all tsan-tests bench-smoke
	@tests/run-tests $(UNIT_TESTS) $(TOOL_TESTS) $(SIM_TESTS) $(READER_TESTS) \
	    $(FUZZ_TESTS) $(TSAN_TESTS)

check-unit: all
	@tests/run-tests $(UNIT_TESTS) $(TOOL_TESTS) $(SIM_TESTS) $(READER_TESTS) \
	    $(FUZZ_TESTS)

check-asan:
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=address check-unit

check-tsan: tsan-tests
	@tests/run-tests $(TSAN_TESTS)

tsan-tests:
	@$(MAKE) --no-print-directory BUILD=build/tsan SAN=thread $(TSAN_TESTS)

# Install the dom0 side: xentrace, libxentrace (header, libraries,
# pkg-config file), the trace-file readers, xentrace_format's formats file
# and the man pages.  DESTDIR for staging.
READER_PROGS := $(filter-out $(XT_FORMATS),$(READERS)) $(XT_READER_TOOLS)

install: $(XENTRACE) $(LIBXT) $(LIBXT_SO) $(LIBXT_PC) $(READER_PROGS) \
         $(XT_FORMATS)
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man8 \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/xentrace
	install -m 755 $(XENTRACE) $(DESTDIR)$(PREFIX)/sbin/xentrace
	install -m 644 $(LIBXT) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBXT_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libxentrace.so.1 $(DESTDIR)$(PREFIX)/lib/libxentrace.so
	install -m 644 $(LIBXT_HDR) $(LIBXT_RHDR) $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIBXT_PC) $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 docs/man/xentrace.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 755 $(READER_PROGS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(patsubst %,docs/man/%.1,$(notdir $(READER_PROGS))) \
	    $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(XT_FORMATS) $(DESTDIR)$(PREFIX)/share/xentrace/

clean:
	rm -rf build

.PHONY: all check check-unit check-asan check-tsan tsan-tests bench demo \
        install clean
