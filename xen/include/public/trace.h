/* SPDX-License-Identifier: MIT */
/******************************************************************************
 * include/public/trace.h
 *
 * The trace buffer ABI shared by Xen and its dom0 consumers (xentrace,
 * xenalyze, xenbaked).  Every constant and layout here is identical to
 * those of Xen 4.17, 4.20 and 4.22, which differ only in names (see the HVM
 * events); tests/unit/test_abi.c proves it against each release's header.
 *
 * Records
 * -------
 * A record is a 32-bit header word, an optional 64-bit TSC and 0-7 payload
 * words, so it is 4 to 40 bytes long, a multiple of 4 and 4-byte aligned.
 *
 *   31 30   28 27                                 0
 *   +-+------+------------------------------------+
 *   |T| extra|              event                 |   T: TSC follows
 *   +-+------+------------------------------------+
 *   [ tsc_lo, tsc_hi ]          if T
 *   [ extra_u32[0 .. extra-1] ]
 *
 * An event is [27:16] class bitmap | [15:12] subclass bitmap | [11:0] minor.
 *
 * Buffers
 * -------
 * Each CPU owns one buffer of t_info->tbuf_size pages.  The first 8 bytes of
 * its first page are a struct t_buf; the data area of
 * data_size = tbuf_size * PAGE_SIZE - 8 bytes follows.  cons and prod are
 * byte offsets counted modulo 2 * data_size, so that "full" (prod - cons ==
 * data_size) differs from "empty" (prod == cons); the data offset of an
 * index is index % data_size.  No record straddles the end of the data area:
 * Xen pads the tail with one TRC_TRACE_WRAP_BUFFER record of 4 to 36 bytes.
 *
 * The pages of a buffer need not be contiguous.  Their MFNs are listed in
 * the read-only t_info area: CPU c has tbuf_size uint32_t MFNs starting at
 * ((uint32_t *)t_info)[t_info->mfn_offset[c]], and mfn_offset[c] == 0 means
 * CPU c has no buffer.
 *
 * Ordering (Xen writes prod and the records, the consumer writes cons):
 *
 *   Xen (producer)                   consumer (xentrace)
 *   if ( room, by LOAD ->cons )      LOAD ->prod
 *            (A)                     smp_rmb()          (C)
 *     STORE records                  LOAD records
 *     smp_wmb()          (B)         smp_mb()           (D)
 *     STORE ->prod                   STORE ->cons
 *
 *   A pairs with D: Xen does not overwrite records before the consumer has
 *   finished reading them.  A is a control dependency: no store to the
 *   data area is issued until the room check on cons has resolved.
 *   B pairs with C: the consumer never reads a record before it is whole.
 *
 * The consumer maps the buffers read-write, so Xen treats cons and the data
 * area as untrusted: it reads cons once per record, checks it, and never
 * reads the data area back.
 */

#ifndef __XEN_PUBLIC_TRACE_H__
#define __XEN_PUBLIC_TRACE_H__

#define TRACE_EXTRA_MAX    7    /* payload words in one record */
#define TRACE_EXTRA_SHIFT 28    /* header bits 28-30: payload words */

/* Trace classes: a bitmap in bits 27-16, a subclass bitmap in bits 15-12. */
#define TRC_CLS_SHIFT 16
#define TRC_GEN      0x0001f000    /* trace infrastructure */
#define TRC_SCHED    0x0002f000    /* scheduler */
#define TRC_DOM0OP   0x0004f000    /* dom0 domain operations */
#define TRC_HVM      0x0008f000    /* HVM guests */
#define TRC_MEM      0x0010f000    /* memory management */
#define TRC_PV       0x0020f000    /* PV guests */
#define TRC_SHADOW   0x0040f000    /* shadow paging */
#define TRC_HW       0x0080f000    /* hardware: power management, IRQs */
#define TRC_GUEST    0x0800f000    /* injected by guests (HVMOP_xentrace) */
#define TRC_ALL      0x0ffff000

/* Decoding the header word. */
#define TRC_HD_TO_EVENT(x) ((x)&0x0fffffff)
#define TRC_HD_CYCLE_FLAG (1UL<<31)
#define TRC_HD_INCLUDES_CYCLE_COUNT(x) ( !!( (x) & TRC_HD_CYCLE_FLAG ) )
#define TRC_HD_EXTRA(x)    (((x)>>TRACE_EXTRA_SHIFT)&TRACE_EXTRA_MAX)

#define TRC_SUBCLS_SHIFT 12

/* HVM subclasses. */
#define TRC_HVM_ENTRYEXIT   0x00081000   /* VM entry and exit */
#define TRC_HVM_HANDLER     0x00082000   /* exit handlers */
#define TRC_HVM_EMUL        0x00084000   /* emulated devices */

/* Scheduler subclasses. */
#define TRC_SCHED_MIN       0x00021000   /* runstate changes only */
#define TRC_SCHED_CLASS     0x00022000   /* scheduler-specific */
#define TRC_SCHED_VERBOSE   0x00028000   /* everything else */

/*
 * Scheduler-specific events (TRC_SCHED_CLASS) spend the top 3 bits of the
 * minor number on the scheduler's ID and the low 9 on the event, so up to 8
 * schedulers can have up to 512 events each.
 */
#define TRC_SCHED_ID_BITS 3
#define TRC_SCHED_ID_SHIFT (TRC_SUBCLS_SHIFT - TRC_SCHED_ID_BITS)
#define TRC_SCHED_ID_MASK (((1UL<<TRC_SCHED_ID_BITS) - 1) << TRC_SCHED_ID_SHIFT)
#define TRC_SCHED_EVT_MASK (~(TRC_SCHED_ID_MASK))

#define TRC_SCHED_CSCHED   0
#define TRC_SCHED_CSCHED2  1
/* 2 was SEDF, since removed. */
#define TRC_SCHED_ARINC653 3
#define TRC_SCHED_RTDS     4
#define TRC_SCHED_SNULL    5

#define TRC_SCHED_CLASS_EVT(_c, _e) \
  ( ( TRC_SCHED_CLASS | \
      ((TRC_SCHED_##_c << TRC_SCHED_ID_SHIFT) & TRC_SCHED_ID_MASK) ) + \
    ((_e) & TRC_SCHED_EVT_MASK) )

#define TRC_DOM0_DOMOPS     0x00041000   /* domain creation and removal */

#define TRC_HW_PM           0x00801000   /* power management */
#define TRC_HW_IRQ          0x00802000   /* interrupt handling */

/*
 * Events of the trace infrastructure itself.
 *
 * TRC_LOST_RECORDS: written by Xen, with a TSC, before the first record
 *   that fits after some did not.  Payload (4 words):
 *   { uint32_t lost; uint16_t domid; uint16_t vcpuid; uint64_t first_tsc; }
 *   where domid/vcpuid name what runs when recording resumes and first_tsc
 *   is the TSC of the first record lost.
 * TRC_TRACE_WRAP_BUFFER: Xen's padding up to the end of the data area.
 * TRC_TRACE_CPU_CHANGE: never written by Xen.  xentrace writes it into the
 *   trace file, without a TSC, ahead of each batch of one CPU's records:
 *   { uint32_t cpu; uint32_t bytes_that_follow; }
 */
#define TRC_LOST_RECORDS        (TRC_GEN + 1)
#define TRC_TRACE_WRAP_BUFFER  (TRC_GEN + 2)
#define TRC_TRACE_CPU_CHANGE    (TRC_GEN + 3)

#define TRC_SCHED_RUNSTATE_CHANGE   (TRC_SCHED_MIN + 1)
#define TRC_SCHED_CONTINUE_RUNNING  (TRC_SCHED_MIN + 2)
#define TRC_SCHED_DOM_ADD        (TRC_SCHED_VERBOSE +  1)
#define TRC_SCHED_DOM_REM        (TRC_SCHED_VERBOSE +  2)
#define TRC_SCHED_SLEEP          (TRC_SCHED_VERBOSE +  3)
#define TRC_SCHED_WAKE           (TRC_SCHED_VERBOSE +  4)
#define TRC_SCHED_YIELD          (TRC_SCHED_VERBOSE +  5)
#define TRC_SCHED_BLOCK          (TRC_SCHED_VERBOSE +  6)
#define TRC_SCHED_SHUTDOWN       (TRC_SCHED_VERBOSE +  7)
#define TRC_SCHED_CTL            (TRC_SCHED_VERBOSE +  8)
#define TRC_SCHED_ADJDOM         (TRC_SCHED_VERBOSE +  9)
#define TRC_SCHED_SWITCH         (TRC_SCHED_VERBOSE + 10)
#define TRC_SCHED_S_TIMER_FN     (TRC_SCHED_VERBOSE + 11)
#define TRC_SCHED_T_TIMER_FN     (TRC_SCHED_VERBOSE + 12)
#define TRC_SCHED_DOM_TIMER_FN   (TRC_SCHED_VERBOSE + 13)
#define TRC_SCHED_SWITCH_INFPREV (TRC_SCHED_VERBOSE + 14)
#define TRC_SCHED_SWITCH_INFNEXT (TRC_SCHED_VERBOSE + 15)
#define TRC_SCHED_SHUTDOWN_CODE  (TRC_SCHED_VERBOSE + 16)
#define TRC_SCHED_SWITCH_INFCONT (TRC_SCHED_VERBOSE + 17)

#define TRC_DOM0_DOM_ADD         (TRC_DOM0_DOMOPS + 1)
#define TRC_DOM0_DOM_REM         (TRC_DOM0_DOMOPS + 2)

#define TRC_MEM_PAGE_GRANT_MAP      (TRC_MEM + 1)
#define TRC_MEM_PAGE_GRANT_UNMAP    (TRC_MEM + 2)
#define TRC_MEM_PAGE_GRANT_TRANSFER (TRC_MEM + 3)
#define TRC_MEM_SET_P2M_ENTRY       (TRC_MEM + 4)
#define TRC_MEM_DECREASE_RESERVATION (TRC_MEM + 5)
#define TRC_MEM_POD_POPULATE        (TRC_MEM + 16)
#define TRC_MEM_POD_ZERO_RECLAIM    (TRC_MEM + 17)
#define TRC_MEM_POD_SUPERPAGE_SPLINTER (TRC_MEM + 18)

#define TRC_PV_ENTRY   0x00201000 /* hypervisor entry points for PV guests */
#define TRC_PV_SUBCALL 0x00202000 /* sub-calls of a multicall */

#define TRC_PV_HYPERCALL             (TRC_PV_ENTRY +  1)
#define TRC_PV_TRAP                  (TRC_PV_ENTRY +  3)
#define TRC_PV_PAGE_FAULT            (TRC_PV_ENTRY +  4)
#define TRC_PV_FORCED_INVALID_OP     (TRC_PV_ENTRY +  5)
#define TRC_PV_EMULATE_PRIVOP        (TRC_PV_ENTRY +  6)
#define TRC_PV_EMULATE_4GB           (TRC_PV_ENTRY +  7)
#define TRC_PV_MATH_STATE_RESTORE    (TRC_PV_ENTRY +  8)
#define TRC_PV_PAGING_FIXUP          (TRC_PV_ENTRY +  9)
#define TRC_PV_GDT_LDT_MAPPING_FAULT (TRC_PV_ENTRY + 10)
#define TRC_PV_PTWR_EMULATION        (TRC_PV_ENTRY + 11)
#define TRC_PV_PTWR_EMULATION_PAE    (TRC_PV_ENTRY + 12)
#define TRC_PV_HYPERCALL_V2          (TRC_PV_ENTRY + 13)
#define TRC_PV_HYPERCALL_SUBCALL     (TRC_PV_SUBCALL + 14)

/*
 * TRC_PV_HYPERCALL_V2 and TRC_PV_HYPERCALL_SUBCALL record a few chosen
 * arguments.  Word 0 holds the hypercall number in bits 19-0 and, in the
 * 2-bit fields A0..A5 at bits 21-20 .. 31-30, whether argument i is absent
 * (00), present as 32 bits (01) or as 64 bits (10).  The present arguments
 * follow in order, a 64-bit one low word first.  TRC_64_FLAG is never set
 * on these records.
 */
#define TRC_PV_HYPERCALL_V2_ARG_32(i) (0x1 << (20 + 2*(i)))
#define TRC_PV_HYPERCALL_V2_ARG_64(i) (0x2 << (20 + 2*(i)))
#define TRC_PV_HYPERCALL_V2_ARG_MASK  (0xfff00000)

#define TRC_SHADOW_NOT_SHADOW                 (TRC_SHADOW +  1)
#define TRC_SHADOW_FAST_PROPAGATE             (TRC_SHADOW +  2)
#define TRC_SHADOW_FAST_MMIO                  (TRC_SHADOW +  3)
#define TRC_SHADOW_FALSE_FAST_PATH            (TRC_SHADOW +  4)
#define TRC_SHADOW_MMIO                       (TRC_SHADOW +  5)
#define TRC_SHADOW_FIXUP                      (TRC_SHADOW +  6)
#define TRC_SHADOW_DOMF_DYING                 (TRC_SHADOW +  7)
#define TRC_SHADOW_EMULATE                    (TRC_SHADOW +  8)
#define TRC_SHADOW_EMULATE_UNSHADOW_USER      (TRC_SHADOW +  9)
#define TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ    (TRC_SHADOW + 10)
#define TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED (TRC_SHADOW + 11)
#define TRC_SHADOW_WRMAP_BF                   (TRC_SHADOW + 12)
#define TRC_SHADOW_PREALLOC_UNPIN             (TRC_SHADOW + 13)
#define TRC_SHADOW_RESYNC_FULL                (TRC_SHADOW + 14)
#define TRC_SHADOW_RESYNC_ONLY                (TRC_SHADOW + 15)

/*
 * HVM events.  The 64-bit variants carry 64-bit addresses.  Xen 4.19
 * renamed the VM exit TRC_HVM_VMX_EXIT, as it gave SVM's its own event;
 * both names are here, for the callers of either.
 */
#define TRC_HVM_NESTEDFLAG      (0x400)
#define TRC_HVM_VMENTRY         (TRC_HVM_ENTRYEXIT + 0x01)
#define TRC_HVM_VMX_EXIT        (TRC_HVM_ENTRYEXIT + 0x02)
#define TRC_HVM_VMX_EXIT64      (TRC_HVM_ENTRYEXIT + TRC_64_FLAG + 0x02)
#define TRC_HVM_SVM_EXIT        (TRC_HVM_ENTRYEXIT + 0x03)
#define TRC_HVM_SVM_EXIT64      (TRC_HVM_ENTRYEXIT + TRC_64_FLAG + 0x03)
#define TRC_HVM_VMEXIT          TRC_HVM_VMX_EXIT     /* Xen 4.17's name */
#define TRC_HVM_VMEXIT64        TRC_HVM_VMX_EXIT64
#define TRC_HVM_PF_XEN          (TRC_HVM_HANDLER + 0x01)
#define TRC_HVM_PF_XEN64        (TRC_HVM_HANDLER + TRC_64_FLAG + 0x01)
#define TRC_HVM_PF_INJECT       (TRC_HVM_HANDLER + 0x02)
#define TRC_HVM_PF_INJECT64     (TRC_HVM_HANDLER + TRC_64_FLAG + 0x02)
#define TRC_HVM_INJ_EXC         (TRC_HVM_HANDLER + 0x03)
#define TRC_HVM_INJ_VIRQ        (TRC_HVM_HANDLER + 0x04)
#define TRC_HVM_REINJ_VIRQ      (TRC_HVM_HANDLER + 0x05)
#define TRC_HVM_IO_READ         (TRC_HVM_HANDLER + 0x06)
#define TRC_HVM_IO_WRITE        (TRC_HVM_HANDLER + 0x07)
#define TRC_HVM_CR_READ         (TRC_HVM_HANDLER + 0x08)
#define TRC_HVM_CR_READ64       (TRC_HVM_HANDLER + TRC_64_FLAG + 0x08)
#define TRC_HVM_CR_WRITE        (TRC_HVM_HANDLER + 0x09)
#define TRC_HVM_CR_WRITE64      (TRC_HVM_HANDLER + TRC_64_FLAG + 0x09)
#define TRC_HVM_DR_READ         (TRC_HVM_HANDLER + 0x0A)
#define TRC_HVM_DR_WRITE        (TRC_HVM_HANDLER + 0x0B)
#define TRC_HVM_MSR_READ        (TRC_HVM_HANDLER + 0x0C)
#define TRC_HVM_MSR_WRITE       (TRC_HVM_HANDLER + 0x0D)
#define TRC_HVM_CPUID           (TRC_HVM_HANDLER + 0x0E)
#define TRC_HVM_INTR            (TRC_HVM_HANDLER + 0x0F)
#define TRC_HVM_NMI             (TRC_HVM_HANDLER + 0x10)
#define TRC_HVM_SMI             (TRC_HVM_HANDLER + 0x11)
#define TRC_HVM_VMMCALL         (TRC_HVM_HANDLER + 0x12)
#define TRC_HVM_HLT             (TRC_HVM_HANDLER + 0x13)
#define TRC_HVM_INVLPG          (TRC_HVM_HANDLER + 0x14)
#define TRC_HVM_INVLPG64        (TRC_HVM_HANDLER + TRC_64_FLAG + 0x14)
#define TRC_HVM_MCE             (TRC_HVM_HANDLER + 0x15)
#define TRC_HVM_IOPORT_READ     (TRC_HVM_HANDLER + 0x16)
#define TRC_HVM_IOMEM_READ      (TRC_HVM_HANDLER + 0x17)
#define TRC_HVM_CLTS            (TRC_HVM_HANDLER + 0x18)
#define TRC_HVM_LMSW            (TRC_HVM_HANDLER + 0x19)
#define TRC_HVM_LMSW64          (TRC_HVM_HANDLER + TRC_64_FLAG + 0x19)
#define TRC_HVM_RDTSC           (TRC_HVM_HANDLER + 0x1a)
#define TRC_HVM_INTR_WINDOW     (TRC_HVM_HANDLER + 0x20)
#define TRC_HVM_NPF             (TRC_HVM_HANDLER + 0x21)
#define TRC_HVM_REALMODE_EMULATE (TRC_HVM_HANDLER + 0x22)
#define TRC_HVM_TRAP             (TRC_HVM_HANDLER + 0x23)
#define TRC_HVM_TRAP_DEBUG       (TRC_HVM_HANDLER + 0x24)
#define TRC_HVM_VLAPIC           (TRC_HVM_HANDLER + 0x25)
#define TRC_HVM_XCR_READ64      (TRC_HVM_HANDLER + TRC_64_FLAG + 0x26)
#define TRC_HVM_XCR_WRITE64     (TRC_HVM_HANDLER + TRC_64_FLAG + 0x27)

#define TRC_HVM_IOPORT_WRITE    (TRC_HVM_HANDLER + 0x216)
#define TRC_HVM_IOMEM_WRITE     (TRC_HVM_HANDLER + 0x217)

/* Emulated devices. */
#define TRC_HVM_EMUL_HPET_START_TIMER  (TRC_HVM_EMUL + 0x1)
#define TRC_HVM_EMUL_PIT_START_TIMER   (TRC_HVM_EMUL + 0x2)
#define TRC_HVM_EMUL_RTC_START_TIMER   (TRC_HVM_EMUL + 0x3)
#define TRC_HVM_EMUL_LAPIC_START_TIMER (TRC_HVM_EMUL + 0x4)
#define TRC_HVM_EMUL_HPET_STOP_TIMER   (TRC_HVM_EMUL + 0x5)
#define TRC_HVM_EMUL_PIT_STOP_TIMER    (TRC_HVM_EMUL + 0x6)
#define TRC_HVM_EMUL_RTC_STOP_TIMER    (TRC_HVM_EMUL + 0x7)
#define TRC_HVM_EMUL_LAPIC_STOP_TIMER  (TRC_HVM_EMUL + 0x8)
#define TRC_HVM_EMUL_PIT_TIMER_CB      (TRC_HVM_EMUL + 0x9)
#define TRC_HVM_EMUL_LAPIC_TIMER_CB    (TRC_HVM_EMUL + 0xA)
#define TRC_HVM_EMUL_PIC_INT_OUTPUT    (TRC_HVM_EMUL + 0xB)
#define TRC_HVM_EMUL_PIC_KICK          (TRC_HVM_EMUL + 0xC)
#define TRC_HVM_EMUL_PIC_INTACK        (TRC_HVM_EMUL + 0xD)
#define TRC_HVM_EMUL_PIC_POSEDGE       (TRC_HVM_EMUL + 0xE)
#define TRC_HVM_EMUL_PIC_NEGEDGE       (TRC_HVM_EMUL + 0xF)
#define TRC_HVM_EMUL_PIC_PEND_IRQ_CALL (TRC_HVM_EMUL + 0x10)
#define TRC_HVM_EMUL_LAPIC_PIC_INTR    (TRC_HVM_EMUL + 0x11)

/* Power management. */
#define TRC_PM_FREQ_CHANGE      (TRC_HW_PM + 0x01)
#define TRC_PM_IDLE_ENTRY       (TRC_HW_PM + 0x02)
#define TRC_PM_IDLE_EXIT        (TRC_HW_PM + 0x03)

/* Interrupts. */
#define TRC_HW_IRQ_MOVE_CLEANUP_DELAY (TRC_HW_IRQ + 0x1)
#define TRC_HW_IRQ_MOVE_CLEANUP       (TRC_HW_IRQ + 0x2)
#define TRC_HW_IRQ_BIND_VECTOR        (TRC_HW_IRQ + 0x3)
#define TRC_HW_IRQ_CLEAR_VECTOR       (TRC_HW_IRQ + 0x4)
#define TRC_HW_IRQ_MOVE_FINISH        (TRC_HW_IRQ + 0x5)
#define TRC_HW_IRQ_ASSIGN_VECTOR      (TRC_HW_IRQ + 0x6)
#define TRC_HW_IRQ_UNMAPPED_VECTOR    (TRC_HW_IRQ + 0x7)
#define TRC_HW_IRQ_HANDLED            (TRC_HW_IRQ + 0x8)

/*
 * Some events (TRC_PV_TRAP, TRC_HVM_IOMEM_READ, ...) exist in a 32-bit and
 * a 64-bit address layout; this bit of the minor number tells them apart.
 */
#define TRC_64_FLAG 0x100

/* One record, at its largest.  In a buffer, records are packed tightly. */
struct t_rec {
    uint32_t event:28;
    uint32_t extra_u32:3;         /* payload words that follow */
    uint32_t cycles_included:1;   /* u.cycles (with TSC) or u.nocycles */
    union {
        struct {
            uint32_t cycles_lo, cycles_hi; /* TSC, low word first */
            uint32_t extra_u32[7];
        } cycles;
        struct {
            uint32_t extra_u32[7];
        } nocycles;
    } u;
};

/*
 * Head of each CPU's buffer; the data area follows it.  With data_size X
 * (not a power of 2), 0 <= cons, prod < 2 * X.  Counting modulo X would
 * break when the 32-bit counter wraps: ((2^32 - 1) % X + 1) % X != 2^32 % X.
 */
struct t_buf {
    uint32_t cons;   /* next byte to consume; written by the consumer */
    uint32_t prod;   /* next byte to produce; written by Xen */
};

/*
 * Directory of the buffers, shared read-only.  The MFN lists follow the
 * header; mfn_offset[] counts uint32_t words from the start of t_info.
 */
struct t_info {
    uint16_t tbuf_size;     /* pages in each CPU's buffer */
    uint16_t mfn_offset[];  /* per CPU: first word of its MFN list, 0 = none */
};

/*
 * xentrace-ng's commands of XEN_SYSCTL_tbuf_op, beside public/sysctl.h's
 * XEN_SYSCTL_TBUFOP_*: additive, so a Xen without them answers -EINVAL,
 * and Xen's own commands are unchanged.  They take scalars only, in the
 * fields of struct xen_sysctl_tbuf_op named below.
 *
 * The domain filter.  Off, as at boot, it keeps every record that passes
 * the event and CPU masks.  On, it keeps of those only
 *  - the records written in the context of a listed domain (current's);
 *  - the TRC_SCHED and TRC_DOM0OP records that name a listed domain in
 *    their payload, wherever they are written (xen/trace-events.h's
 *    xt_record_domains(), from the event catalogue);
 *  - the TRC_GEN records.
 * A record the filter drops is neither written nor counted as lost.  The
 * buffers' own records (lost records, padding) are always written.
 *
 * XEN_SYSCTL_TBUFOP_dom_filter_stage
 *   size = 1: add the domain ids evt_mask >> 16 to evt_mask & 0xffff to
 *   the staged list; -EINVAL unless first <= last <= DOMID_IDLE.
 *   size = 0: empty the staged list.
 * XEN_SYSCTL_TBUFOP_dom_filter_commit
 *   size = 1: the staged list becomes the filter, which is then on;
 *   size = 0: the filter is off.  Each record sees the filter before or
 *   after the commit, never a mix.  The staged list is then empty.
 *
 * Per-event switches, beside the event mask.  An event switched on is
 * traced whatever the event mask says; one switched off never is; the
 * others as the mask says.  An event is its 28 bits (a runstate change's
 * old and new states ignored).  At most 64 events are switched at once.
 *
 * XEN_SYSCTL_TBUFOP_event_switch
 *   evt_mask = the event; size = XEN_TBUF_EVENT_OFF, _ON, or _MASKS (the
 *   event mask decides again).  -EINVAL for an event of 0 or with bits
 *   above 27, or another size; -ENOSPC if 64 events are switched already.
 *
 * Resizing.  XEN_SYSCTL_TBUFOP_set_size is one shot, as in Xen: buffers
 * once made keep their size, whatever size a later set_size asks for.
 *
 * XEN_SYSCTL_TBUFOP_resize
 *   size = pages per CPU, limited as set_size limits it: new buffers of
 *   that size replace the old, empty, at a new t_info (get_info tells
 *   it), and tracing stays off.  Without buffers, it makes them, and
 *   tracing stays off (set_size turns it on).  -EBUSY while tracing is
 *   on, or while any domain has a page of the buffers or of t_info
 *   mapped: the old buffers are then kept, as they were.  -ENOMEM: the
 *   old are kept.  -EINVAL for 0 pages.  Records lost and not yet told
 *   are told in the new buffers.
 */
#endif /* __XEN_PUBLIC_TRACE_H__ */

/*
 * Outside the guard: a dom0 tool may have had Xen's own trace.h, which
 * has the same guard, through xenctrl.h before this one.
 */
#ifndef XEN_SYSCTL_TBUFOP_dom_filter_stage
#define XEN_SYSCTL_TBUFOP_dom_filter_stage   0x78740001  /* "xt" */
#define XEN_SYSCTL_TBUFOP_dom_filter_commit  0x78740002
#define XEN_SYSCTL_TBUFOP_event_switch       0x78740003
#define XEN_SYSCTL_TBUFOP_resize             0x78740004
#define XEN_TBUF_EVENT_OFF    0
#define XEN_TBUF_EVENT_ON     1
#define XEN_TBUF_EVENT_MASKS  2
#endif

/*
 * Local variables:
 * mode: C
 * c-file-style: "BSD"
 * c-basic-offset: 4
 * tab-width: 4
 * indent-tabs-mode: nil
 * End:
 */
