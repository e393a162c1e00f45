/*
 * xen/include/xen/trace.h for the catalogue check (tests/xen-events):
 * Xen's own header, renamed trace-xen.h by xen-events, with every entry
 * point of its producer API wrapped so that each call also leaves, in the
 * object's .xt_probe section, the event and payload size the compiler
 * sees there.  The objects are read back, never linked or run.
 *
 * A record is four 32-bit words and the call's file, NUL-terminated:
 * event, bytes, flags (XT_PROBE_*), line.  Where the compiler cannot
 * reduce the event or the size to a constant, the flag says so and the
 * word is 0: the call site is still listed, by file and line.
 *
 * Entry points: trace(), trace_time() and __trace_hypercall() (4.19 on;
 * TRACE() and TRACE_TIME() are macros over trace()), or __trace_var(),
 * trace_var() and __trace_hypercall() (4.17; TRACE_nD() and
 * asm/hvm/trace.h's HVMTRACE_*() are macros over __trace_var()).  The
 * wrappers are macros, so __FILE__ and __LINE__ are the caller's; the
 * file defining the functions (common/trace.c) is not built with it.
 */
#ifndef XT_PROBE_TRACE_H
#define XT_PROBE_TRACE_H

#include <xen/trace-xen.h>

#define XT_PROBE_EVENT_RUNTIME  1u  /* event not a compile-time constant */
#define XT_PROBE_BYTES_RUNTIME  2u  /* size not a compile-time constant */
#define XT_PROBE_CYCLES         4u  /* the record carries the TSC */

#define XT_PROBE_STR_(x) #x
#define XT_PROBE_STR(x) XT_PROBE_STR_(x)

#define XT_PROBE_ASM(ev, bytes, flags)                                  \
    asm volatile ( ".pushsection .xt_probe, \"\", @progbits\n\t"        \
                   ".balign 4\n\t"                                      \
                   ".long %c0, %c1, %c2, " XT_PROBE_STR(__LINE__) "\n\t"\
                   ".asciz \"" __FILE__ "\"\n\t"                        \
                   ".popsection"                                        \
                   :: "i" (ev), "i" (bytes), "i" (flags) )

/* Record one call; cycles is a constant 0 or 1, or anything else. */
#define XT_PROBE(ev, bytes, cycles)                                     \
    do {                                                                \
        if ( __builtin_constant_p(ev) && __builtin_constant_p(bytes) )  \
            XT_PROBE_ASM((uint32_t)(ev), (uint32_t)(bytes),             \
                         XT_PROBE_CYCLES_FLAG(cycles));                 \
        else if ( __builtin_constant_p(ev) )                            \
            XT_PROBE_ASM((uint32_t)(ev), 0,                             \
                         XT_PROBE_CYCLES_FLAG(cycles) |                 \
                         XT_PROBE_BYTES_RUNTIME);                       \
        else if ( __builtin_constant_p(bytes) )                         \
            XT_PROBE_ASM(0, (uint32_t)(bytes),                          \
                         XT_PROBE_CYCLES_FLAG(cycles) |                 \
                         XT_PROBE_EVENT_RUNTIME);                       \
        else                                                            \
            XT_PROBE_ASM(0, 0, XT_PROBE_CYCLES_FLAG(cycles) |           \
                         XT_PROBE_EVENT_RUNTIME | XT_PROBE_BYTES_RUNTIME); \
    } while ( 0 )

/* A cycles argument the compiler cannot fold counts as "with TSC". */
#define XT_PROBE_CYCLES_FLAG(cycles)                                    \
    (__builtin_constant_p(cycles) && !(cycles) ? 0 : XT_PROBE_CYCLES)

#ifdef TRACE_0D                 /* Xen 4.17's API */

#define __trace_var(ev, cycles, extra, data)                            \
    ({ XT_PROBE(ev, extra, cycles); (__trace_var)(ev, cycles, extra, data); })
#define trace_var(ev, cycles, extra, data)                              \
    ({ XT_PROBE(ev, extra, cycles); (trace_var)(ev, cycles, extra, data); })

#else                           /* 4.19's: the cycles flag in the event */

#define trace(ev, extra, data)                                          \
    ({ XT_PROBE(ev, extra, 0); (trace)(ev, extra, data); })
#define trace_time(ev, extra, data)                                     \
    ({ XT_PROBE(ev, extra, 1); (trace_time)(ev, extra, data); })

#endif

/* The size depends on the hypercall: one word, and up to five more. */
#define __trace_hypercall(ev, op, args)                                 \
    ({                                                                  \
        if ( __builtin_constant_p(ev) )                                 \
            XT_PROBE_ASM((uint32_t)(ev), 0,                             \
                         XT_PROBE_CYCLES | XT_PROBE_BYTES_RUNTIME);     \
        else                                                            \
            XT_PROBE_ASM(0, 0, XT_PROBE_CYCLES | XT_PROBE_EVENT_RUNTIME | \
                         XT_PROBE_BYTES_RUNTIME);                       \
        (__trace_hypercall)(ev, op, args);                              \
    })

#endif /* XT_PROBE_TRACE_H */
