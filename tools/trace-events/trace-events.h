/*
 * Generated from tools/trace-events/trace-events by
 * tools/trace-events/gen-trace-events --defs: do not edit.
 *
 * Every number the tools know of the events, from the catalogue: each
 * event id, class and subclass, the classes Xen writes, the record
 * layouts and the runstate encoding.  Nothing else spells them.  Where
 * Xen's ABI (public/trace.h) names an id, its definition is Xen's and
 * test_catalogue checks that the two agree.  The layouts of other
 * events' payloads, per Xen version, are xtread.h's tables.
 */
#ifndef XT_TRACE_EVENTS_H
#define XT_TRACE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "public/trace.h"

/* The classes: xentrace -e's and the readers' keywords. */
#define XT_CLASS_GEN             0x0001f000u
#define XT_CLASS_SCHED           0x0002f000u
#define XT_CLASS_DOM0OP          0x0004f000u
#define XT_CLASS_HVM             0x0008f000u
#define XT_CLASS_MEM             0x0010f000u
#define XT_CLASS_PV              0x0020f000u
#define XT_CLASS_SHADOW          0x0040f000u
#define XT_CLASS_HW              0x0080f000u
#define XT_CLASS_ARM             0x00808000u
#define XT_CLASS_GUEST           0x0800f000u
#define XT_CLASS_ALL             0x0ffff000u

/* The subclasses Xen writes. */
#ifndef TRC_GEN
#define TRC_GEN 0x0001f000u
#endif
#ifndef TRC_SCHED_MIN
#define TRC_SCHED_MIN 0x00021000u
#endif
#ifndef TRC_SCHED_CLASS
#define TRC_SCHED_CLASS 0x00022000u
#endif
#ifndef TRC_SCHED_VERBOSE
#define TRC_SCHED_VERBOSE 0x00028000u
#endif
#ifndef TRC_DOM0_DOMOPS
#define TRC_DOM0_DOMOPS 0x00041000u
#endif
#ifndef TRC_HVM_ENTRYEXIT
#define TRC_HVM_ENTRYEXIT 0x00081000u
#endif
#ifndef TRC_HVM_HANDLER
#define TRC_HVM_HANDLER 0x00082000u
#endif
#ifndef TRC_HVM_EMUL
#define TRC_HVM_EMUL 0x00084000u
#endif
#ifndef TRC_MEM
#define TRC_MEM 0x0010f000u
#endif
#ifndef TRC_PV_ENTRY
#define TRC_PV_ENTRY 0x00201000u
#endif
#ifndef TRC_PV_SUBCALL
#define TRC_PV_SUBCALL 0x00202000u
#endif
#ifndef TRC_SHADOW
#define TRC_SHADOW 0x0040f000u
#endif
#ifndef TRC_HW_PM
#define TRC_HW_PM 0x00801000u
#endif
#ifndef TRC_HW_IRQ
#define TRC_HW_IRQ 0x00802000u
#endif
#ifndef TRC_HW_ARM
#define TRC_HW_ARM 0x00808000u
#endif
#ifndef TRC_GUEST
#define TRC_GUEST 0x0800f000u
#endif

/* The events. */
#ifndef TRC_LOST_RECORDS
#define TRC_LOST_RECORDS 0x0001f001u
#endif
#ifndef TRC_TRACE_WRAP_BUFFER
#define TRC_TRACE_WRAP_BUFFER 0x0001f002u
#endif
#ifndef TRC_TRACE_CPU_CHANGE
#define TRC_TRACE_CPU_CHANGE 0x0001f003u
#endif
#ifndef TRC_TRACE_IRQ
#define TRC_TRACE_IRQ 0x0001f004u
#endif
#ifndef TRC_XT_FORMAT
#define TRC_XT_FORMAT 0x0001f010u
#endif
#ifndef TRC_XT_TOOL
#define TRC_XT_TOOL 0x0001f011u
#endif
#ifndef TRC_XT_TSC_HZ
#define TRC_XT_TSC_HZ 0x0001f012u
#endif
#ifndef TRC_XT_CPUS
#define TRC_XT_CPUS 0x0001f013u
#endif
#ifndef TRC_XT_START
#define TRC_XT_START 0x0001f014u
#endif
#ifndef TRC_XT_XEN_VERSION
#define TRC_XT_XEN_VERSION 0x0001f015u
#endif
#ifndef TRC_XT_SKIPPED
#define TRC_XT_SKIPPED 0x0001f016u
#endif
#ifndef TRC_XT_DOMAIN
#define TRC_XT_DOMAIN 0x0001f017u
#endif
#ifndef TRC_XT_DOMAIN_NAME
#define TRC_XT_DOMAIN_NAME 0x0001f018u
#endif
#ifndef TRC_XT_MASKS
#define TRC_XT_MASKS 0x0001f019u
#endif
#ifndef TRC_XT_DOM_FILTER
#define TRC_XT_DOM_FILTER 0x0001f01au
#endif
#ifndef TRC_XT_EVENT_SWITCHES
#define TRC_XT_EVENT_SWITCHES 0x0001f01bu
#endif
#ifndef TRC_XT_DOM0
#define TRC_XT_DOM0 0x0001f01cu
#endif
#ifndef TRC_XT_DOM0_EVENT
#define TRC_XT_DOM0_EVENT 0x0001f01du
#endif
#ifndef TRC_XT_END
#define TRC_XT_END 0x0001f01fu
#endif
#ifndef TRC_SCHED_RUNSTATE_CHANGE
#define TRC_SCHED_RUNSTATE_CHANGE 0x00021001u
#endif
#ifndef TRC_SCHED_CONTINUE_RUNNING
#define TRC_SCHED_CONTINUE_RUNNING 0x00021002u
#endif
#ifndef TRC_CSCHED_SCHED_TASKLET
#define TRC_CSCHED_SCHED_TASKLET 0x00022001u
#endif
#ifndef TRC_CSCHED_ACCOUNT_START
#define TRC_CSCHED_ACCOUNT_START 0x00022002u
#endif
#ifndef TRC_CSCHED_ACCOUNT_STOP
#define TRC_CSCHED_ACCOUNT_STOP 0x00022003u
#endif
#ifndef TRC_CSCHED_STOLEN_VCPU
#define TRC_CSCHED_STOLEN_VCPU 0x00022004u
#endif
#ifndef TRC_CSCHED_PICKED_CPU
#define TRC_CSCHED_PICKED_CPU 0x00022005u
#endif
#ifndef TRC_CSCHED_TICKLE
#define TRC_CSCHED_TICKLE 0x00022006u
#endif
#ifndef TRC_CSCHED_BOOST_START
#define TRC_CSCHED_BOOST_START 0x00022007u
#endif
#ifndef TRC_CSCHED_BOOST_END
#define TRC_CSCHED_BOOST_END 0x00022008u
#endif
#ifndef TRC_CSCHED_SCHEDULE
#define TRC_CSCHED_SCHEDULE 0x00022009u
#endif
#ifndef TRC_CSCHED_RATELIMIT
#define TRC_CSCHED_RATELIMIT 0x0002200au
#endif
#ifndef TRC_CSCHED_STEAL_CHECK
#define TRC_CSCHED_STEAL_CHECK 0x0002200bu
#endif
#ifndef TRC_CSCHED2_TICK
#define TRC_CSCHED2_TICK 0x00022201u
#endif
#ifndef TRC_CSCHED2_RUNQ_POS
#define TRC_CSCHED2_RUNQ_POS 0x00022202u
#endif
#ifndef TRC_CSCHED2_CREDIT_BURN
#define TRC_CSCHED2_CREDIT_BURN 0x00022203u
#endif
#ifndef TRC_CSCHED2_CREDIT_ADD
#define TRC_CSCHED2_CREDIT_ADD 0x00022204u
#endif
#ifndef TRC_CSCHED2_TICKLE_CHECK
#define TRC_CSCHED2_TICKLE_CHECK 0x00022205u
#endif
#ifndef TRC_CSCHED2_TICKLE
#define TRC_CSCHED2_TICKLE 0x00022206u
#endif
#ifndef TRC_CSCHED2_CREDIT_RESET
#define TRC_CSCHED2_CREDIT_RESET 0x00022207u
#endif
#ifndef TRC_CSCHED2_SCHED_TASKLET
#define TRC_CSCHED2_SCHED_TASKLET 0x00022208u
#endif
#ifndef TRC_CSCHED2_UPDATE_LOAD
#define TRC_CSCHED2_UPDATE_LOAD 0x00022209u
#endif
#ifndef TRC_CSCHED2_RUNQ_ASSIGN
#define TRC_CSCHED2_RUNQ_ASSIGN 0x0002220au
#endif
#ifndef TRC_CSCHED2_UPDATE_VCPU_LOAD
#define TRC_CSCHED2_UPDATE_VCPU_LOAD 0x0002220bu
#endif
#ifndef TRC_CSCHED2_UPDATE_RUNQ_LOAD
#define TRC_CSCHED2_UPDATE_RUNQ_LOAD 0x0002220cu
#endif
#ifndef TRC_CSCHED2_TICKLE_NEW
#define TRC_CSCHED2_TICKLE_NEW 0x0002220du
#endif
#ifndef TRC_CSCHED2_RUNQ_MAX_WEIGHT
#define TRC_CSCHED2_RUNQ_MAX_WEIGHT 0x0002220eu
#endif
#ifndef TRC_CSCHED2_MIGRATE
#define TRC_CSCHED2_MIGRATE 0x0002220fu
#endif
#ifndef TRC_CSCHED2_LOAD_CHECK
#define TRC_CSCHED2_LOAD_CHECK 0x00022210u
#endif
#ifndef TRC_CSCHED2_LOAD_BALANCE
#define TRC_CSCHED2_LOAD_BALANCE 0x00022211u
#endif
#ifndef TRC_CSCHED2_PICKED_CPU
#define TRC_CSCHED2_PICKED_CPU 0x00022213u
#endif
#ifndef TRC_CSCHED2_RUNQ_CANDIDATE
#define TRC_CSCHED2_RUNQ_CANDIDATE 0x00022214u
#endif
#ifndef TRC_CSCHED2_SCHEDULE
#define TRC_CSCHED2_SCHEDULE 0x00022215u
#endif
#ifndef TRC_CSCHED2_RATELIMIT
#define TRC_CSCHED2_RATELIMIT 0x00022216u
#endif
#ifndef TRC_CSCHED2_RUNQ_CAND_CHECK
#define TRC_CSCHED2_RUNQ_CAND_CHECK 0x00022217u
#endif
#ifndef TRC_RTDS_TICKLE
#define TRC_RTDS_TICKLE 0x00022801u
#endif
#ifndef TRC_RTDS_RUNQ_PICK
#define TRC_RTDS_RUNQ_PICK 0x00022802u
#endif
#ifndef TRC_RTDS_BUDGET_BURN
#define TRC_RTDS_BUDGET_BURN 0x00022803u
#endif
#ifndef TRC_RTDS_BUDGET_REPLENISH
#define TRC_RTDS_BUDGET_REPLENISH 0x00022804u
#endif
#ifndef TRC_RTDS_SCHED_TASKLET
#define TRC_RTDS_SCHED_TASKLET 0x00022805u
#endif
#ifndef TRC_RTDS_SCHEDULE
#define TRC_RTDS_SCHEDULE 0x00022806u
#endif
#ifndef TRC_SNULL_PICKED_CPU
#define TRC_SNULL_PICKED_CPU 0x00022a01u
#endif
#ifndef TRC_SNULL_VCPU_ASSIGN
#define TRC_SNULL_VCPU_ASSIGN 0x00022a02u
#endif
#ifndef TRC_SNULL_VCPU_DEASSIGN
#define TRC_SNULL_VCPU_DEASSIGN 0x00022a03u
#endif
#ifndef TRC_SNULL_MIGRATE
#define TRC_SNULL_MIGRATE 0x00022a04u
#endif
#ifndef TRC_SNULL_SCHEDULE
#define TRC_SNULL_SCHEDULE 0x00022a05u
#endif
#ifndef TRC_SNULL_TASKLET
#define TRC_SNULL_TASKLET 0x00022a06u
#endif
#ifndef TRC_SCHED_DOM_ADD
#define TRC_SCHED_DOM_ADD 0x00028001u
#endif
#ifndef TRC_SCHED_DOM_REM
#define TRC_SCHED_DOM_REM 0x00028002u
#endif
#ifndef TRC_SCHED_SLEEP
#define TRC_SCHED_SLEEP 0x00028003u
#endif
#ifndef TRC_SCHED_WAKE
#define TRC_SCHED_WAKE 0x00028004u
#endif
#ifndef TRC_SCHED_YIELD
#define TRC_SCHED_YIELD 0x00028005u
#endif
#ifndef TRC_SCHED_BLOCK
#define TRC_SCHED_BLOCK 0x00028006u
#endif
#ifndef TRC_SCHED_SHUTDOWN
#define TRC_SCHED_SHUTDOWN 0x00028007u
#endif
#ifndef TRC_SCHED_CTL
#define TRC_SCHED_CTL 0x00028008u
#endif
#ifndef TRC_SCHED_ADJDOM
#define TRC_SCHED_ADJDOM 0x00028009u
#endif
#ifndef TRC_SCHED_SWITCH
#define TRC_SCHED_SWITCH 0x0002800au
#endif
#ifndef TRC_SCHED_S_TIMER_FN
#define TRC_SCHED_S_TIMER_FN 0x0002800bu
#endif
#ifndef TRC_SCHED_T_TIMER_FN
#define TRC_SCHED_T_TIMER_FN 0x0002800cu
#endif
#ifndef TRC_SCHED_DOM_TIMER_FN
#define TRC_SCHED_DOM_TIMER_FN 0x0002800du
#endif
#ifndef TRC_SCHED_SWITCH_INFPREV
#define TRC_SCHED_SWITCH_INFPREV 0x0002800eu
#endif
#ifndef TRC_SCHED_SWITCH_INFNEXT
#define TRC_SCHED_SWITCH_INFNEXT 0x0002800fu
#endif
#ifndef TRC_SCHED_SHUTDOWN_CODE
#define TRC_SCHED_SHUTDOWN_CODE 0x00028010u
#endif
#ifndef TRC_SCHED_SWITCH_INFCONT
#define TRC_SCHED_SWITCH_INFCONT 0x00028011u
#endif
#ifndef TRC_DOM0_DOM_ADD
#define TRC_DOM0_DOM_ADD 0x00041001u
#endif
#ifndef TRC_DOM0_DOM_REM
#define TRC_DOM0_DOM_REM 0x00041002u
#endif
#ifndef TRC_HVM_VMENTRY
#define TRC_HVM_VMENTRY 0x00081001u
#endif
#ifndef TRC_HVM_VMEXIT
#define TRC_HVM_VMEXIT 0x00081002u
#endif
#ifndef TRC_HVM_VMX_EXIT
#define TRC_HVM_VMX_EXIT 0x00081002u
#endif
#ifndef TRC_HVM_SVM_EXIT
#define TRC_HVM_SVM_EXIT 0x00081003u
#endif
#ifndef TRC_HVM_VMEXIT64
#define TRC_HVM_VMEXIT64 0x00081102u
#endif
#ifndef TRC_HVM_VMX_EXIT64
#define TRC_HVM_VMX_EXIT64 0x00081102u
#endif
#ifndef TRC_HVM_SVM_EXIT64
#define TRC_HVM_SVM_EXIT64 0x00081103u
#endif
#ifndef TRC_HVM_PF_XEN
#define TRC_HVM_PF_XEN 0x00082001u
#endif
#ifndef TRC_HVM_PF_INJECT
#define TRC_HVM_PF_INJECT 0x00082002u
#endif
#ifndef TRC_HVM_INJ_EXC
#define TRC_HVM_INJ_EXC 0x00082003u
#endif
#ifndef TRC_HVM_INJ_VIRQ
#define TRC_HVM_INJ_VIRQ 0x00082004u
#endif
#ifndef TRC_HVM_REINJ_VIRQ
#define TRC_HVM_REINJ_VIRQ 0x00082005u
#endif
#ifndef TRC_HVM_IO_READ
#define TRC_HVM_IO_READ 0x00082006u
#endif
#ifndef TRC_HVM_IO_WRITE
#define TRC_HVM_IO_WRITE 0x00082007u
#endif
#ifndef TRC_HVM_CR_READ
#define TRC_HVM_CR_READ 0x00082008u
#endif
#ifndef TRC_HVM_CR_WRITE
#define TRC_HVM_CR_WRITE 0x00082009u
#endif
#ifndef TRC_HVM_DR_READ
#define TRC_HVM_DR_READ 0x0008200au
#endif
#ifndef TRC_HVM_DR_WRITE
#define TRC_HVM_DR_WRITE 0x0008200bu
#endif
#ifndef TRC_HVM_MSR_READ
#define TRC_HVM_MSR_READ 0x0008200cu
#endif
#ifndef TRC_HVM_MSR_WRITE
#define TRC_HVM_MSR_WRITE 0x0008200du
#endif
#ifndef TRC_HVM_CPUID
#define TRC_HVM_CPUID 0x0008200eu
#endif
#ifndef TRC_HVM_INTR
#define TRC_HVM_INTR 0x0008200fu
#endif
#ifndef TRC_HVM_NMI
#define TRC_HVM_NMI 0x00082010u
#endif
#ifndef TRC_HVM_SMI
#define TRC_HVM_SMI 0x00082011u
#endif
#ifndef TRC_HVM_VMMCALL
#define TRC_HVM_VMMCALL 0x00082012u
#endif
#ifndef TRC_HVM_HLT
#define TRC_HVM_HLT 0x00082013u
#endif
#ifndef TRC_HVM_INVLPG
#define TRC_HVM_INVLPG 0x00082014u
#endif
#ifndef TRC_HVM_MCE
#define TRC_HVM_MCE 0x00082015u
#endif
#ifndef TRC_HVM_IOPORT_READ
#define TRC_HVM_IOPORT_READ 0x00082016u
#endif
#ifndef TRC_HVM_IOMEM_READ
#define TRC_HVM_IOMEM_READ 0x00082017u
#endif
#ifndef TRC_HVM_CLTS
#define TRC_HVM_CLTS 0x00082018u
#endif
#ifndef TRC_HVM_LMSW
#define TRC_HVM_LMSW 0x00082019u
#endif
#ifndef TRC_HVM_RDTSC
#define TRC_HVM_RDTSC 0x0008201au
#endif
#ifndef TRC_HVM_INTR_WINDOW
#define TRC_HVM_INTR_WINDOW 0x00082020u
#endif
#ifndef TRC_HVM_NPF
#define TRC_HVM_NPF 0x00082021u
#endif
#ifndef TRC_HVM_REALMODE_EMULATE
#define TRC_HVM_REALMODE_EMULATE 0x00082022u
#endif
#ifndef TRC_HVM_TRAP
#define TRC_HVM_TRAP 0x00082023u
#endif
#ifndef TRC_HVM_TRAP_DEBUG
#define TRC_HVM_TRAP_DEBUG 0x00082024u
#endif
#ifndef TRC_HVM_VLAPIC
#define TRC_HVM_VLAPIC 0x00082025u
#endif
#ifndef TRC_HVM_PF_XEN64
#define TRC_HVM_PF_XEN64 0x00082101u
#endif
#ifndef TRC_HVM_PF_INJECT64
#define TRC_HVM_PF_INJECT64 0x00082102u
#endif
#ifndef TRC_HVM_CR_READ64
#define TRC_HVM_CR_READ64 0x00082108u
#endif
#ifndef TRC_HVM_CR_WRITE64
#define TRC_HVM_CR_WRITE64 0x00082109u
#endif
#ifndef TRC_HVM_INVLPG64
#define TRC_HVM_INVLPG64 0x00082114u
#endif
#ifndef TRC_HVM_IOMEM_READ64
#define TRC_HVM_IOMEM_READ64 0x00082117u
#endif
#ifndef TRC_HVM_LMSW64
#define TRC_HVM_LMSW64 0x00082119u
#endif
#ifndef TRC_HVM_XCR_READ64
#define TRC_HVM_XCR_READ64 0x00082126u
#endif
#ifndef TRC_HVM_XCR_WRITE64
#define TRC_HVM_XCR_WRITE64 0x00082127u
#endif
#ifndef TRC_HVM_IOPORT_WRITE
#define TRC_HVM_IOPORT_WRITE 0x00082216u
#endif
#ifndef TRC_HVM_IOMEM_WRITE
#define TRC_HVM_IOMEM_WRITE 0x00082217u
#endif
#ifndef TRC_HVM_IOMEM_WRITE64
#define TRC_HVM_IOMEM_WRITE64 0x00082317u
#endif
#ifndef TRC_HVM_EMUL_HPET_START_TIMER
#define TRC_HVM_EMUL_HPET_START_TIMER 0x00084001u
#endif
#ifndef TRC_HVM_EMUL_PIT_START_TIMER
#define TRC_HVM_EMUL_PIT_START_TIMER 0x00084002u
#endif
#ifndef TRC_HVM_EMUL_RTC_START_TIMER
#define TRC_HVM_EMUL_RTC_START_TIMER 0x00084003u
#endif
#ifndef TRC_HVM_EMUL_LAPIC_START_TIMER
#define TRC_HVM_EMUL_LAPIC_START_TIMER 0x00084004u
#endif
#ifndef TRC_HVM_EMUL_HPET_STOP_TIMER
#define TRC_HVM_EMUL_HPET_STOP_TIMER 0x00084005u
#endif
#ifndef TRC_HVM_EMUL_PIT_STOP_TIMER
#define TRC_HVM_EMUL_PIT_STOP_TIMER 0x00084006u
#endif
#ifndef TRC_HVM_EMUL_RTC_STOP_TIMER
#define TRC_HVM_EMUL_RTC_STOP_TIMER 0x00084007u
#endif
#ifndef TRC_HVM_EMUL_LAPIC_STOP_TIMER
#define TRC_HVM_EMUL_LAPIC_STOP_TIMER 0x00084008u
#endif
#ifndef TRC_HVM_EMUL_PIT_TIMER_CB
#define TRC_HVM_EMUL_PIT_TIMER_CB 0x00084009u
#endif
#ifndef TRC_HVM_EMUL_LAPIC_TIMER_CB
#define TRC_HVM_EMUL_LAPIC_TIMER_CB 0x0008400au
#endif
#ifndef TRC_HVM_EMUL_PIC_INT_OUTPUT
#define TRC_HVM_EMUL_PIC_INT_OUTPUT 0x0008400bu
#endif
#ifndef TRC_HVM_EMUL_PIC_KICK
#define TRC_HVM_EMUL_PIC_KICK 0x0008400cu
#endif
#ifndef TRC_HVM_EMUL_PIC_INTACK
#define TRC_HVM_EMUL_PIC_INTACK 0x0008400du
#endif
#ifndef TRC_HVM_EMUL_PIC_POSEDGE
#define TRC_HVM_EMUL_PIC_POSEDGE 0x0008400eu
#endif
#ifndef TRC_HVM_EMUL_PIC_NEGEDGE
#define TRC_HVM_EMUL_PIC_NEGEDGE 0x0008400fu
#endif
#ifndef TRC_HVM_EMUL_PIC_PEND_IRQ_CALL
#define TRC_HVM_EMUL_PIC_PEND_IRQ_CALL 0x00084010u
#endif
#ifndef TRC_HVM_EMUL_LAPIC_PIC_INTR
#define TRC_HVM_EMUL_LAPIC_PIC_INTR 0x00084011u
#endif
#ifndef TRC_MEM_PAGE_GRANT_MAP
#define TRC_MEM_PAGE_GRANT_MAP 0x0010f001u
#endif
#ifndef TRC_MEM_PAGE_GRANT_UNMAP
#define TRC_MEM_PAGE_GRANT_UNMAP 0x0010f002u
#endif
#ifndef TRC_MEM_PAGE_GRANT_TRANSFER
#define TRC_MEM_PAGE_GRANT_TRANSFER 0x0010f003u
#endif
#ifndef TRC_MEM_SET_P2M_ENTRY
#define TRC_MEM_SET_P2M_ENTRY 0x0010f004u
#endif
#ifndef TRC_MEM_DECREASE_RESERVATION
#define TRC_MEM_DECREASE_RESERVATION 0x0010f005u
#endif
#ifndef TRC_MEM_POD_POPULATE
#define TRC_MEM_POD_POPULATE 0x0010f010u
#endif
#ifndef TRC_MEM_POD_ZERO_RECLAIM
#define TRC_MEM_POD_ZERO_RECLAIM 0x0010f011u
#endif
#ifndef TRC_MEM_POD_SUPERPAGE_SPLINTER
#define TRC_MEM_POD_SUPERPAGE_SPLINTER 0x0010f012u
#endif
#ifndef TRC_PV_HYPERCALL
#define TRC_PV_HYPERCALL 0x00201001u
#endif
#ifndef TRC_PV_TRAP
#define TRC_PV_TRAP 0x00201003u
#endif
#ifndef TRC_PV_PAGE_FAULT
#define TRC_PV_PAGE_FAULT 0x00201004u
#endif
#ifndef TRC_PV_FORCED_INVALID_OP
#define TRC_PV_FORCED_INVALID_OP 0x00201005u
#endif
#ifndef TRC_PV_EMULATE_PRIVOP
#define TRC_PV_EMULATE_PRIVOP 0x00201006u
#endif
#ifndef TRC_PV_EMULATE_4GB
#define TRC_PV_EMULATE_4GB 0x00201007u
#endif
#ifndef TRC_PV_MATH_STATE_RESTORE
#define TRC_PV_MATH_STATE_RESTORE 0x00201008u
#endif
#ifndef TRC_PV_PAGING_FIXUP
#define TRC_PV_PAGING_FIXUP 0x00201009u
#endif
#ifndef TRC_PV_GDT_LDT_MAPPING_FAULT
#define TRC_PV_GDT_LDT_MAPPING_FAULT 0x0020100au
#endif
#ifndef TRC_PV_PTWR_EMULATION
#define TRC_PV_PTWR_EMULATION 0x0020100bu
#endif
#ifndef TRC_PV_PTWR_EMULATION_PAE
#define TRC_PV_PTWR_EMULATION_PAE 0x0020100cu
#endif
#ifndef TRC_PV_HYPERCALL_V2
#define TRC_PV_HYPERCALL_V2 0x0020100du
#endif
#ifndef TRC_PV_HYPERCALL64
#define TRC_PV_HYPERCALL64 0x00201101u
#endif
#ifndef TRC_PV_TRAP64
#define TRC_PV_TRAP64 0x00201103u
#endif
#ifndef TRC_PV_PAGE_FAULT64
#define TRC_PV_PAGE_FAULT64 0x00201104u
#endif
#ifndef TRC_PV_FORCED_INVALID_OP64
#define TRC_PV_FORCED_INVALID_OP64 0x00201105u
#endif
#ifndef TRC_PV_EMULATE_PRIVOP64
#define TRC_PV_EMULATE_PRIVOP64 0x00201106u
#endif
#ifndef TRC_PV_EMULATE_4GB64
#define TRC_PV_EMULATE_4GB64 0x00201107u
#endif
#ifndef TRC_PV_MATH_STATE_RESTORE64
#define TRC_PV_MATH_STATE_RESTORE64 0x00201108u
#endif
#ifndef TRC_PV_PAGING_FIXUP64
#define TRC_PV_PAGING_FIXUP64 0x00201109u
#endif
#ifndef TRC_PV_GDT_LDT_MAPPING_FAULT64
#define TRC_PV_GDT_LDT_MAPPING_FAULT64 0x0020110au
#endif
#ifndef TRC_PV_PTWR_EMULATION64
#define TRC_PV_PTWR_EMULATION64 0x0020110bu
#endif
#ifndef TRC_PV_PTWR_EMULATION_PAE64
#define TRC_PV_PTWR_EMULATION_PAE64 0x0020110cu
#endif
#ifndef TRC_PV_HYPERCALL_SUBCALL
#define TRC_PV_HYPERCALL_SUBCALL 0x0020200eu
#endif
#ifndef TRC_SHADOW_NOT_SHADOW
#define TRC_SHADOW_NOT_SHADOW 0x0040f001u
#endif
#ifndef TRC_SHADOW_FAST_PROPAGATE
#define TRC_SHADOW_FAST_PROPAGATE 0x0040f002u
#endif
#ifndef TRC_SHADOW_FAST_MMIO
#define TRC_SHADOW_FAST_MMIO 0x0040f003u
#endif
#ifndef TRC_SHADOW_FALSE_FAST_PATH
#define TRC_SHADOW_FALSE_FAST_PATH 0x0040f004u
#endif
#ifndef TRC_SHADOW_MMIO
#define TRC_SHADOW_MMIO 0x0040f005u
#endif
#ifndef TRC_SHADOW_FIXUP
#define TRC_SHADOW_FIXUP 0x0040f006u
#endif
#ifndef TRC_SHADOW_DOMF_DYING
#define TRC_SHADOW_DOMF_DYING 0x0040f007u
#endif
#ifndef TRC_SHADOW_EMULATE
#define TRC_SHADOW_EMULATE 0x0040f008u
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_USER
#define TRC_SHADOW_EMULATE_UNSHADOW_USER 0x0040f009u
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ
#define TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ 0x0040f00au
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED
#define TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED 0x0040f00bu
#endif
#ifndef TRC_SHADOW_WRMAP_BF
#define TRC_SHADOW_WRMAP_BF 0x0040f00cu
#endif
#ifndef TRC_SHADOW_PREALLOC_UNPIN
#define TRC_SHADOW_PREALLOC_UNPIN 0x0040f00du
#endif
#ifndef TRC_SHADOW_RESYNC_FULL
#define TRC_SHADOW_RESYNC_FULL 0x0040f00eu
#endif
#ifndef TRC_SHADOW_RESYNC_ONLY
#define TRC_SHADOW_RESYNC_ONLY 0x0040f00fu
#endif
#ifndef TRC_SHADOW_NOT_SHADOW_PAE
#define TRC_SHADOW_NOT_SHADOW_PAE 0x0040f101u
#endif
#ifndef TRC_SHADOW_FAST_PROPAGATE_PAE
#define TRC_SHADOW_FAST_PROPAGATE_PAE 0x0040f102u
#endif
#ifndef TRC_SHADOW_FAST_MMIO_PAE
#define TRC_SHADOW_FAST_MMIO_PAE 0x0040f103u
#endif
#ifndef TRC_SHADOW_FALSE_FAST_PATH_PAE
#define TRC_SHADOW_FALSE_FAST_PATH_PAE 0x0040f104u
#endif
#ifndef TRC_SHADOW_MMIO_PAE
#define TRC_SHADOW_MMIO_PAE 0x0040f105u
#endif
#ifndef TRC_SHADOW_FIXUP_PAE
#define TRC_SHADOW_FIXUP_PAE 0x0040f106u
#endif
#ifndef TRC_SHADOW_DOMF_DYING_PAE
#define TRC_SHADOW_DOMF_DYING_PAE 0x0040f107u
#endif
#ifndef TRC_SHADOW_EMULATE_PAE
#define TRC_SHADOW_EMULATE_PAE 0x0040f108u
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_USER_PAE
#define TRC_SHADOW_EMULATE_UNSHADOW_USER_PAE 0x0040f109u
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ_PAE
#define TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ_PAE 0x0040f10au
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED_PAE
#define TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED_PAE 0x0040f10bu
#endif
#ifndef TRC_SHADOW_NOT_SHADOW64
#define TRC_SHADOW_NOT_SHADOW64 0x0040f201u
#endif
#ifndef TRC_SHADOW_FAST_PROPAGATE64
#define TRC_SHADOW_FAST_PROPAGATE64 0x0040f202u
#endif
#ifndef TRC_SHADOW_FAST_MMIO64
#define TRC_SHADOW_FAST_MMIO64 0x0040f203u
#endif
#ifndef TRC_SHADOW_FALSE_FAST_PATH64
#define TRC_SHADOW_FALSE_FAST_PATH64 0x0040f204u
#endif
#ifndef TRC_SHADOW_MMIO64
#define TRC_SHADOW_MMIO64 0x0040f205u
#endif
#ifndef TRC_SHADOW_FIXUP64
#define TRC_SHADOW_FIXUP64 0x0040f206u
#endif
#ifndef TRC_SHADOW_DOMF_DYING64
#define TRC_SHADOW_DOMF_DYING64 0x0040f207u
#endif
#ifndef TRC_SHADOW_EMULATE64
#define TRC_SHADOW_EMULATE64 0x0040f208u
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_USER64
#define TRC_SHADOW_EMULATE_UNSHADOW_USER64 0x0040f209u
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ64
#define TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ64 0x0040f20au
#endif
#ifndef TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED64
#define TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED64 0x0040f20bu
#endif
#ifndef TRC_PM_FREQ_CHANGE
#define TRC_PM_FREQ_CHANGE 0x00801001u
#endif
#ifndef TRC_PM_IDLE_ENTRY
#define TRC_PM_IDLE_ENTRY 0x00801002u
#endif
#ifndef TRC_PM_IDLE_EXIT
#define TRC_PM_IDLE_EXIT 0x00801003u
#endif
#ifndef TRC_HW_IRQ_MOVE_CLEANUP_DELAY
#define TRC_HW_IRQ_MOVE_CLEANUP_DELAY 0x00802001u
#endif
#ifndef TRC_HW_IRQ_MOVE_CLEANUP
#define TRC_HW_IRQ_MOVE_CLEANUP 0x00802002u
#endif
#ifndef TRC_HW_IRQ_BIND_VECTOR
#define TRC_HW_IRQ_BIND_VECTOR 0x00802003u
#endif
#ifndef TRC_HW_IRQ_CLEAR_VECTOR
#define TRC_HW_IRQ_CLEAR_VECTOR 0x00802004u
#endif
#ifndef TRC_HW_IRQ_MOVE_FINISH
#define TRC_HW_IRQ_MOVE_FINISH 0x00802005u
#endif
#ifndef TRC_HW_IRQ_ASSIGN_VECTOR
#define TRC_HW_IRQ_ASSIGN_VECTOR 0x00802006u
#endif
#ifndef TRC_HW_IRQ_UNMAPPED_VECTOR
#define TRC_HW_IRQ_UNMAPPED_VECTOR 0x00802007u
#endif
#ifndef TRC_HW_IRQ_HANDLED
#define TRC_HW_IRQ_HANDLED 0x00802008u
#endif
#ifndef TRC_ARM_TRAP
#define TRC_ARM_TRAP 0x00808001u
#endif
#ifndef TRC_ARM_TRAP_HVC
#define TRC_ARM_TRAP_HVC 0x00808002u
#endif
#ifndef TRC_ARM_TRAP_MMIO
#define TRC_ARM_TRAP_MMIO 0x00808003u
#endif
#ifndef TRC_ARM_RETURN
#define TRC_ARM_RETURN 0x00808004u
#endif
#ifndef TRC_ARM_IRQ
#define TRC_ARM_IRQ 0x00808005u
#endif
#ifndef TRC_ARM_VIRQ_INJECT
#define TRC_ARM_VIRQ_INJECT 0x00808006u
#endif

/*
 * Record layouts, from the catalogue's lines (the same in
 * xen/include/xen/trace-events.h and tools/trace-events/trace-events.h).
 */
#ifndef XT_TRACE_LAYOUTS
#define XT_TRACE_LAYOUTS

/* TRC_LOST_RECORDS: count:u32 lost_on:vd first_tsc:u64 */
#define XT_LOST_RECORDS_WORDS            4
#define XT_LOST_RECORDS_COUNT            0
#define XT_LOST_RECORDS_LOST_ON          1
#define XT_LOST_RECORDS_FIRST_TSC        2

/* TRC_TRACE_WRAP_BUFFER: no payload */
#define XT_TRACE_WRAP_BUFFER_WORDS       0

/* TRC_TRACE_CPU_CHANGE: cpu:u32 bytes:u32 */
#define XT_TRACE_CPU_CHANGE_WORDS        2
#define XT_TRACE_CPU_CHANGE_CPU          0
#define XT_TRACE_CPU_CHANGE_BYTES        1

/* TRC_TRACE_IRQ: vector:u32 tsc_in:u32 tsc_out:u32 */
#define XT_TRACE_IRQ_WORDS               3
#define XT_TRACE_IRQ_VECTOR              0
#define XT_TRACE_IRQ_TSC_IN              1
#define XT_TRACE_IRQ_TSC_OUT             2

/* A vd word: vcpu << 16 | domain; a dv word: domain << 16 | vcpu. */
#define XT_VD_WORD(vcpu, dom) ((uint32_t)(vcpu) << 16 | (uint16_t)(dom))
#define XT_VD_VCPU(w)         ((uint32_t)(w) >> 16)
#define XT_VD_DOM(w)          ((uint32_t)(w) & 0xffffu)
#define XT_DV_DOM(w)          ((uint32_t)(w) >> 16)
#define XT_DV_VCPU(w)         ((uint32_t)(w) & 0xffffu)

/*
 * TRC_SCHED_RUNSTATE_CHANGE | old << 8 | new << 4: the runstates (public/vcpu.h's
 * RUNSTATE_*) are in the event, not in the payload.
 */
#define XT_RUNSTATE_CHANGE        0x00021001u
#define XT_RUNSTATE_OLD_SHIFT     8
#define XT_RUNSTATE_NEW_SHIFT     4
#define XT_RUNSTATE_BITS          0xfu
#define XT_RUNSTATE_CHANGE_MASK   0xfffff00fu
#define XT_RUNSTATE_RUNNING       0
#define XT_RUNSTATE_RUNNABLE      1
#define XT_RUNSTATE_BLOCKED       2
#define XT_RUNSTATE_OFFLINE       3
#define XT_NR_RUNSTATES           4

#endif /* XT_TRACE_LAYOUTS */

/*
 * The domains a scheduler or domain-operation record names, for a
 * domain filter: the catalogue's dv, vd and domid fields of the
 * TRC_SCHED and TRC_DOM0OP events, into @dom; how many.  @words is
 * the payload's length: a field past it names nothing.
 */
#ifndef XT_RECORD_DOMAINS
#define XT_RECORD_DOMAINS
#define XT_RECORD_DOMAINS_MAX 2

static inline unsigned int xt_record_domains(
    uint32_t event, const uint32_t *d, unsigned int words,
    uint32_t dom[XT_RECORD_DOMAINS_MAX])
{
    unsigned int n = 0;

    event &= 0x0fffffffu;
    /* TRC_SCHED_RUNSTATE_CHANGE: its runstates are in the event. */
    if ( (event & 0x0ffff00fu) == 0x00021001u )
        event = 0x00021001u;
    switch ( event )
    {
    case 0x00021001u:   /* TRC_SCHED_RUNSTATE_CHANGE */
    case 0x00021002u:   /* TRC_SCHED_CONTINUE_RUNNING */
    case 0x0002200au:   /* TRC_CSCHED_RATELIMIT */
    case 0x00022202u:   /* TRC_CSCHED2_RUNQ_POS */
    case 0x00022203u:   /* TRC_CSCHED2_CREDIT_BURN */
    case 0x00022205u:   /* TRC_CSCHED2_TICKLE_CHECK */
    case 0x00022207u:   /* TRC_CSCHED2_CREDIT_RESET */
    case 0x0002220au:   /* TRC_CSCHED2_RUNQ_ASSIGN */
    case 0x0002220du:   /* TRC_CSCHED2_TICKLE_NEW */
    case 0x0002220fu:   /* TRC_CSCHED2_MIGRATE */
    case 0x00022214u:   /* TRC_CSCHED2_RUNQ_CANDIDATE */
    case 0x00022216u:   /* TRC_CSCHED2_RATELIMIT */
    case 0x00022217u:   /* TRC_CSCHED2_RUNQ_CAND_CHECK */
    case 0x00022802u:   /* TRC_RTDS_RUNQ_PICK */
    case 0x00022803u:   /* TRC_RTDS_BUDGET_BURN */
    case 0x00022804u:   /* TRC_RTDS_BUDGET_REPLENISH */
    case 0x00022a01u:   /* TRC_SNULL_PICKED_CPU */
    case 0x00022a02u:   /* TRC_SNULL_VCPU_ASSIGN */
    case 0x00022a03u:   /* TRC_SNULL_VCPU_DEASSIGN */
    case 0x00022a04u:   /* TRC_SNULL_MIGRATE */
        if ( words > 0 )
            dom[n++] = d[0] >> 16;
        break;
    case 0x00022002u:   /* TRC_CSCHED_ACCOUNT_START */
    case 0x00022003u:   /* TRC_CSCHED_ACCOUNT_STOP */
    case 0x00022005u:   /* TRC_CSCHED_PICKED_CPU */
    case 0x00022007u:   /* TRC_CSCHED_BOOST_START */
    case 0x00022008u:   /* TRC_CSCHED_BOOST_END */
    case 0x00028001u:   /* TRC_SCHED_DOM_ADD */
    case 0x00028002u:   /* TRC_SCHED_DOM_REM */
    case 0x00028003u:   /* TRC_SCHED_SLEEP */
    case 0x00028004u:   /* TRC_SCHED_WAKE */
    case 0x00028005u:   /* TRC_SCHED_YIELD */
    case 0x00028006u:   /* TRC_SCHED_BLOCK */
    case 0x00028007u:   /* TRC_SCHED_SHUTDOWN */
    case 0x00028009u:   /* TRC_SCHED_ADJDOM */
    case 0x0002800eu:   /* TRC_SCHED_SWITCH_INFPREV */
    case 0x0002800fu:   /* TRC_SCHED_SWITCH_INFNEXT */
    case 0x00028010u:   /* TRC_SCHED_SHUTDOWN_CODE */
    case 0x00028011u:   /* TRC_SCHED_SWITCH_INFCONT */
    case 0x00041001u:   /* TRC_DOM0_DOM_ADD */
    case 0x00041002u:   /* TRC_DOM0_DOM_REM */
        if ( words > 0 )
            dom[n++] = d[0];
        break;
    case 0x00022004u:   /* TRC_CSCHED_STOLEN_VCPU */
        if ( words > 1 )
            dom[n++] = d[1];
        break;
    case 0x0002220bu:   /* TRC_CSCHED2_UPDATE_VCPU_LOAD */
    case 0x00022213u:   /* TRC_CSCHED2_PICKED_CPU */
        if ( words > 2 )
            dom[n++] = d[2] >> 16;
        break;
    case 0x00022a05u:   /* TRC_SNULL_SCHEDULE */
        if ( words > 1 )
            dom[n++] = d[1] >> 16;
        break;
    case 0x0002800au:   /* TRC_SCHED_SWITCH */
        if ( words > 0 )
            dom[n++] = d[0];
        if ( words > 2 )
            dom[n++] = d[2];
        break;
    }

    return n;
}
#endif /* XT_RECORD_DOMAINS */

/* TRC_ARM_TRAP's ec, by value: the catalogue's value lines. */
#define XT_TRC_ARM_TRAP_EC_NAMES { \
    [0x00] = "UNKNOWN", \
    [0x01] = "WFI_WFE", \
    [0x03] = "CP15_32", \
    [0x04] = "CP15_64", \
    [0x05] = "CP14_32", \
    [0x06] = "CP14_DBG", \
    [0x07] = "FP_ASIMD", \
    [0x08] = "CP10", \
    [0x0c] = "CP14_64", \
    [0x0e] = "ILLEGAL_STATE", \
    [0x11] = "SVC32", \
    [0x12] = "HVC32", \
    [0x13] = "SMC32", \
    [0x15] = "SVC64", \
    [0x16] = "HVC64", \
    [0x17] = "SMC64", \
    [0x18] = "SYSREG", \
    [0x19] = "SVE", \
    [0x20] = "IABT", \
    [0x22] = "PC_ALIGN", \
    [0x24] = "DABT", \
    [0x26] = "SP_ALIGN", \
    [0x2f] = "SERROR", \
    [0x3c] = "BRK", \
}

/* The record that starts a batch of the file: {cpu, bytes}. */
#define XT_CPU_CHANGE_HDR (TRC_TRACE_CPU_CHANGE | \
                           XT_TRACE_CPU_CHANGE_WORDS << TRACE_EXTRA_SHIFT)

/* Whether @event is a runstate change (any old and new runstates). */
static inline bool xt_is_runstate_change(uint32_t event)
{
    return (event & XT_RUNSTATE_CHANGE_MASK) == XT_RUNSTATE_CHANGE;
}

static inline unsigned int xt_runstate_old(uint32_t event)
{
    return event >> XT_RUNSTATE_OLD_SHIFT & XT_RUNSTATE_BITS;
}

static inline unsigned int xt_runstate_new(uint32_t event)
{
    return event >> XT_RUNSTATE_NEW_SHIFT & XT_RUNSTATE_BITS;
}

/* "running", "runnable", "blocked", "offline", or "?". */
static inline const char *xt_runstate_name(unsigned int state)
{
    static const char *const names[XT_NR_RUNSTATES] = {
        "running",
        "runnable",
        "blocked",
        "offline",
    };

    return state < XT_NR_RUNSTATES ? names[state] : "?";
}

/*
 * The subclasses Xen writes in each class (the catalogue's subclass
 * lines), a bit per subclass, indexed by the class (event >>
 * TRC_CLS_SHIFT).  A table, so that a walk tests an event with one load
 * and no branch on its class.
 */
static const uint16_t xt_xen_subclasses[1u << 12] = {
    [0x001] = 0x8000,
    [0x002] = 0x0106,
    [0x004] = 0x0002,
    [0x008] = 0x0016,
    [0x010] = 0x8000,
    [0x020] = 0x0006,
    [0x040] = 0x8000,
    [0x080] = 0x0106,
    [0x800] = 0x8000,
};

/* Whether Xen writes events of @event's class and subclass. */
static inline bool xt_xen_writes(uint32_t event)
{
    return xt_xen_subclasses[event >> TRC_CLS_SHIFT & 0xfff] >>
           (event >> TRC_SUBCLS_SHIFT & 0xf) & 1;
}

/* Whether Xen writes events of @event's class (any of its subclasses). */
static inline bool xt_xen_class(uint32_t event)
{
    return xt_xen_subclasses[event >> TRC_CLS_SHIFT & 0xfff] != 0;
}

#endif /* XT_TRACE_EVENTS_H */
