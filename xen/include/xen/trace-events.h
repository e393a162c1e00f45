/*
 * Generated from tools/trace-events/trace-events by
 * tools/trace-events/gen-trace-events: do not edit.
 *
 * The hypervisor's trace calls, one per event of the catalogue:
 * trc_NAME() writes event TRC_NAME with the catalogue's fields, packed as
 * its kinds say (u64 low word first; dv domain << 16 | vcpu), timed unless
 * the catalogue says notsc.  A call to an event the catalogue lacks, or
 * with the wrong arguments, does not compile.  Disabled, a call costs one
 * load and one branch (tb_init_done); its arguments are evaluated.
 */
#ifndef __XEN_TRACE_EVENTS_H__
#define __XEN_TRACE_EVENTS_H__

#include <xen/trace.h>

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

/* TRC_SCHED_RUNSTATE_CHANGE */
static inline void trc_sched_runstate_change(unsigned int old,
                                             unsigned int new,
                                             uint16_t vcpu_dom,
                                             uint16_t vcpu_vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu };

        trace_time(0x00021001U | (old & 0xfU) << 8 | (new & 0xfU) << 4,
                   sizeof(d), d);
    }
}

/* TRC_SCHED_CONTINUE_RUNNING */
static inline void trc_sched_continue_running(uint16_t vcpu_dom,
                                              uint16_t vcpu_vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu };

        trace_time(0x00021002U, sizeof(d), d);
    }
}

/* TRC_CSCHED_SCHED_TASKLET */
static inline void trc_csched_sched_tasklet(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00022001U, 0, NULL);
}

/* TRC_CSCHED_ACCOUNT_START */
static inline void trc_csched_account_start(uint32_t dom, uint32_t vcpu,
                                            uint32_t active)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { dom, vcpu, active };

        trace_time(0x00022002U, sizeof(d), d);
    }
}

/* TRC_CSCHED_ACCOUNT_STOP */
static inline void trc_csched_account_stop(uint32_t dom, uint32_t vcpu,
                                           uint32_t active)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { dom, vcpu, active };

        trace_time(0x00022003U, sizeof(d), d);
    }
}

/* TRC_CSCHED_STOLEN_VCPU */
static inline void trc_csched_stolen_vcpu(uint32_t from, uint32_t dom,
                                          uint32_t vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { from, dom, vcpu };

        trace_time(0x00022004U, sizeof(d), d);
    }
}

/* TRC_CSCHED_PICKED_CPU */
static inline void trc_csched_picked_cpu(uint32_t dom, uint32_t vcpu,
                                         uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { dom, vcpu, cpu };

        trace_time(0x00022005U, sizeof(d), d);
    }
}

/* TRC_CSCHED_TICKLE */
static inline void trc_csched_tickle(uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { cpu };

        trace_time(0x00022006U, sizeof(d), d);
    }
}

/* TRC_CSCHED_BOOST_START */
static inline void trc_csched_boost_start(uint32_t dom, uint32_t vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { dom, vcpu };

        trace_time(0x00022007U, sizeof(d), d);
    }
}

/* TRC_CSCHED_BOOST_END */
static inline void trc_csched_boost_end(uint32_t dom, uint32_t vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { dom, vcpu };

        trace_time(0x00022008U, sizeof(d), d);
    }
}

/* TRC_CSCHED_SCHEDULE */
static inline void trc_csched_schedule(uint32_t cpu_tasklet_idle)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { cpu_tasklet_idle };

        trace_time(0x00022009U, sizeof(d), d);
    }
}

/* TRC_CSCHED_RATELIMIT */
static inline void trc_csched_ratelimit(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                        uint32_t runtime)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            runtime,
        };

        trace_time(0x0002200aU, sizeof(d), d);
    }
}

/* TRC_CSCHED_STEAL_CHECK */
static inline void trc_csched_steal_check(uint32_t peer_cpu, uint32_t checked)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { peer_cpu, checked };

        trace_time(0x0002200bU, sizeof(d), d);
    }
}

/* TRC_CSCHED2_TICK */
static inline void trc_csched2_tick(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00022201U, 0, NULL);
}

/* TRC_CSCHED2_RUNQ_POS */
static inline void trc_csched2_runq_pos(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                        uint32_t pos)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            pos,
        };

        trace_time(0x00022202U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_CREDIT_BURN */
static inline void trc_csched2_credit_burn(uint16_t vcpu_dom,
                                           uint16_t vcpu_vcpu, int32_t credit,
                                           int32_t budget, uint32_t delta)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            (uint32_t)credit,
            (uint32_t)budget,
            delta,
        };

        trace_time(0x00022203U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_CREDIT_ADD */
static inline void trc_csched2_credit_add(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00022204U, 0, NULL);
}

/* TRC_CSCHED2_TICKLE_CHECK */
static inline void trc_csched2_tickle_check(uint16_t vcpu_dom,
                                            uint16_t vcpu_vcpu, int32_t credit,
                                            uint32_t score)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            (uint32_t)credit,
            score,
        };

        trace_time(0x00022205U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_TICKLE */
static inline void trc_csched2_tickle(uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { cpu };

        trace_time(0x00022206U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_CREDIT_RESET */
static inline void trc_csched2_credit_reset(uint16_t vcpu_dom,
                                            uint16_t vcpu_vcpu,
                                            int32_t credit_start,
                                            int32_t credit_end)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            (uint32_t)credit_start,
            (uint32_t)credit_end,
        };

        trace_time(0x00022207U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_SCHED_TASKLET */
static inline void trc_csched2_sched_tasklet(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00022208U, 0, NULL);
}

/* TRC_CSCHED2_UPDATE_LOAD */
static inline void trc_csched2_update_load(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00022209U, 0, NULL);
}

/* TRC_CSCHED2_RUNQ_ASSIGN */
static inline void trc_csched2_runq_assign(uint16_t vcpu_dom,
                                           uint16_t vcpu_vcpu, uint32_t rq_id)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            rq_id,
        };

        trace_time(0x0002220aU, sizeof(d), d);
    }
}

/* TRC_CSCHED2_UPDATE_VCPU_LOAD */
static inline void trc_csched2_update_vcpu_load(uint64_t vcpuload,
                                                uint16_t vcpu_dom,
                                                uint16_t vcpu_vcpu,
                                                uint32_t wshift)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)vcpuload,
            (uint32_t)(vcpuload >> 32),
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            wshift,
        };

        trace_time(0x0002220bU, sizeof(d), d);
    }
}

/* TRC_CSCHED2_UPDATE_RUNQ_LOAD */
static inline void trc_csched2_update_runq_load(uint64_t rq_avgload,
                                                uint64_t b_avgload,
                                                uint32_t load_id_shift,
                                                uint32_t pad)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)rq_avgload,
            (uint32_t)(rq_avgload >> 32),
            (uint32_t)b_avgload,
            (uint32_t)(b_avgload >> 32),
            load_id_shift,
            pad,
        };

        trace_time(0x0002220cU, sizeof(d), d);
    }
}

/* TRC_CSCHED2_TICKLE_NEW */
static inline void trc_csched2_tickle_new(uint16_t vcpu_dom,
                                          uint16_t vcpu_vcpu,
                                          uint32_t processor, int32_t credit)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            processor,
            (uint32_t)credit,
        };

        trace_time(0x0002220dU, sizeof(d), d);
    }
}

/* TRC_CSCHED2_RUNQ_MAX_WEIGHT */
static inline void trc_csched2_runq_max_weight(uint32_t rq_weight)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { rq_weight };

        trace_time(0x0002220eU, sizeof(d), d);
    }
}

/* TRC_CSCHED2_MIGRATE */
static inline void trc_csched2_migrate(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                       uint32_t rq_trq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            rq_trq,
        };

        trace_time(0x0002220fU, sizeof(d), d);
    }
}

/* TRC_CSCHED2_LOAD_CHECK */
static inline void trc_csched2_load_check(uint32_t lrq_orq, uint32_t delta)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { lrq_orq, delta };

        trace_time(0x00022210U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_LOAD_BALANCE */
static inline void trc_csched2_load_balance(uint64_t l_bavgload,
                                            uint64_t o_bavgload,
                                            uint32_t lrq_orq, uint32_t pad)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)l_bavgload,
            (uint32_t)(l_bavgload >> 32),
            (uint32_t)o_bavgload,
            (uint32_t)(o_bavgload >> 32),
            lrq_orq,
            pad,
        };

        trace_time(0x00022211U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_PICKED_CPU */
static inline void trc_csched2_picked_cpu(uint64_t b_avgload,
                                          uint16_t vcpu_dom,
                                          uint16_t vcpu_vcpu, uint32_t rq_cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)b_avgload,
            (uint32_t)(b_avgload >> 32),
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            rq_cpu,
        };

        trace_time(0x00022213U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_RUNQ_CANDIDATE */
static inline void trc_csched2_runq_candidate(uint16_t vcpu_dom,
                                              uint16_t vcpu_vcpu,
                                              int32_t tickled_cpu,
                                              int32_t credit)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            (uint32_t)tickled_cpu,
            (uint32_t)credit,
        };

        trace_time(0x00022214U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_SCHEDULE */
static inline void trc_csched2_schedule(uint32_t rq_cpu, uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { rq_cpu, flags };

        trace_time(0x00022215U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_RATELIMIT */
static inline void trc_csched2_ratelimit(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                         uint32_t runtime)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            runtime,
        };

        trace_time(0x00022216U, sizeof(d), d);
    }
}

/* TRC_CSCHED2_RUNQ_CAND_CHECK */
static inline void trc_csched2_runq_cand_check(uint16_t vcpu_dom,
                                               uint16_t vcpu_vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu };

        trace_time(0x00022217U, sizeof(d), d);
    }
}

/* TRC_RTDS_TICKLE */
static inline void trc_rtds_tickle(uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { cpu };

        trace_time(0x00022801U, sizeof(d), d);
    }
}

/* TRC_RTDS_RUNQ_PICK */
static inline void trc_rtds_runq_pick(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                      uint64_t cur_deadline,
                                      uint64_t cur_budget)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[5] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            (uint32_t)cur_deadline,
            (uint32_t)(cur_deadline >> 32),
            (uint32_t)cur_budget,
            (uint32_t)(cur_budget >> 32),
        };

        trace_time(0x00022802U, sizeof(d), d);
    }
}

/* TRC_RTDS_BUDGET_BURN */
static inline void trc_rtds_budget_burn(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                        uint64_t cur_budget, int32_t delta,
                                        uint32_t priority_level,
                                        uint32_t has_extratime)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            (uint32_t)cur_budget,
            (uint32_t)(cur_budget >> 32),
            (uint32_t)delta,
            priority_level,
            has_extratime,
        };

        trace_time(0x00022803U, sizeof(d), d);
    }
}

/* TRC_RTDS_BUDGET_REPLENISH */
static inline void trc_rtds_budget_replenish(uint16_t vcpu_dom,
                                             uint16_t vcpu_vcpu,
                                             uint32_t priority_level,
                                             uint64_t cur_deadline,
                                             uint64_t cur_budget)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            priority_level,
            (uint32_t)cur_deadline,
            (uint32_t)(cur_deadline >> 32),
            (uint32_t)cur_budget,
            (uint32_t)(cur_budget >> 32),
        };

        trace_time(0x00022804U, sizeof(d), d);
    }
}

/* TRC_RTDS_SCHED_TASKLET */
static inline void trc_rtds_sched_tasklet(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00022805U, 0, NULL);
}

/* TRC_RTDS_SCHEDULE */
static inline void trc_rtds_schedule(uint32_t cpu_flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { cpu_flags };

        trace_time(0x00022806U, sizeof(d), d);
    }
}

/* TRC_SNULL_PICKED_CPU */
static inline void trc_snull_picked_cpu(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                        uint32_t new_cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            new_cpu,
        };

        trace_time(0x00022a01U, sizeof(d), d);
    }
}

/* TRC_SNULL_VCPU_ASSIGN */
static inline void trc_snull_vcpu_assign(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                         uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            cpu,
        };

        trace_time(0x00022a02U, sizeof(d), d);
    }
}

/* TRC_SNULL_VCPU_DEASSIGN */
static inline void trc_snull_vcpu_deassign(uint16_t vcpu_dom,
                                           uint16_t vcpu_vcpu, uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            cpu,
        };

        trace_time(0x00022a03U, sizeof(d), d);
    }
}

/* TRC_SNULL_MIGRATE */
static inline void trc_snull_migrate(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                     uint32_t new_cpu_cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            new_cpu_cpu,
        };

        trace_time(0x00022a04U, sizeof(d), d);
    }
}

/* TRC_SNULL_SCHEDULE */
static inline void trc_snull_schedule(uint32_t cpu_tasklet, uint16_t vcpu_dom,
                                      uint16_t vcpu_vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            cpu_tasklet,
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
        };

        trace_time(0x00022a05U, sizeof(d), d);
    }
}

/* TRC_SNULL_TASKLET */
static inline void trc_snull_tasklet(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00022a06U, 0, NULL);
}

/* TRC_SCHED_DOM_ADD */
static inline void trc_sched_dom_add(uint32_t dom)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { dom };

        trace_time(0x00028001U, sizeof(d), d);
    }
}

/* TRC_SCHED_DOM_REM */
static inline void trc_sched_dom_rem(uint32_t dom)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { dom };

        trace_time(0x00028002U, sizeof(d), d);
    }
}

/* TRC_SCHED_SLEEP */
static inline void trc_sched_sleep(uint32_t dom, uint32_t vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { dom, vcpu };

        trace_time(0x00028003U, sizeof(d), d);
    }
}

/* TRC_SCHED_WAKE */
static inline void trc_sched_wake(uint32_t dom, uint32_t vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { dom, vcpu };

        trace_time(0x00028004U, sizeof(d), d);
    }
}

/* TRC_SCHED_YIELD */
static inline void trc_sched_yield(uint32_t dom, uint32_t vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { dom, vcpu };

        trace_time(0x00028005U, sizeof(d), d);
    }
}

/* TRC_SCHED_BLOCK */
static inline void trc_sched_block(uint32_t dom, uint32_t vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { dom, vcpu };

        trace_time(0x00028006U, sizeof(d), d);
    }
}

/* TRC_SCHED_SHUTDOWN */
static inline void trc_sched_shutdown(uint32_t dom, uint32_t vcpu,
                                      uint32_t reason)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { dom, vcpu, reason };

        trace_time(0x00028007U, sizeof(d), d);
    }
}

/* TRC_SCHED_CTL */
static inline void trc_sched_ctl(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00028008U, 0, NULL);
}

/* TRC_SCHED_ADJDOM */
static inline void trc_sched_adjdom(uint32_t dom)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { dom };

        trace_time(0x00028009U, sizeof(d), d);
    }
}

/* TRC_SCHED_SWITCH */
static inline void trc_sched_switch(uint32_t prev_dom, uint32_t prev_vcpu,
                                    uint32_t next_dom, uint32_t next_vcpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { prev_dom, prev_vcpu, next_dom, next_vcpu };

        trace_time(0x0002800aU, sizeof(d), d);
    }
}

/* TRC_SCHED_S_TIMER_FN */
static inline void trc_sched_s_timer_fn(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x0002800bU, 0, NULL);
}

/* TRC_SCHED_T_TIMER_FN */
static inline void trc_sched_t_timer_fn(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x0002800cU, 0, NULL);
}

/* TRC_SCHED_DOM_TIMER_FN */
static inline void trc_sched_dom_timer_fn(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x0002800dU, 0, NULL);
}

/* TRC_SCHED_SWITCH_INFPREV */
static inline void trc_sched_switch_infprev(uint32_t dom, uint32_t vcpu,
                                            uint32_t runtime)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { dom, vcpu, runtime };

        trace_time(0x0002800eU, sizeof(d), d);
    }
}

/* TRC_SCHED_SWITCH_INFNEXT */
static inline void trc_sched_switch_infnext(uint32_t dom, uint32_t vcpu,
                                            uint32_t waited, uint32_t slice)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { dom, vcpu, waited, slice };

        trace_time(0x0002800fU, sizeof(d), d);
    }
}

/* TRC_SCHED_SHUTDOWN_CODE */
static inline void trc_sched_shutdown_code(uint32_t dom, uint32_t vcpu,
                                           uint32_t reason)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { dom, vcpu, reason };

        trace_time(0x00028010U, sizeof(d), d);
    }
}

/* TRC_SCHED_SWITCH_INFCONT */
static inline void trc_sched_switch_infcont(uint32_t dom, uint32_t vcpu,
                                            uint32_t runtime, uint32_t slice)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { dom, vcpu, runtime, slice };

        trace_time(0x00028011U, sizeof(d), d);
    }
}

/* TRC_DOM0_DOM_ADD */
static inline void trc_dom0_dom_add(uint32_t dom)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { dom };

        trace_time(0x00041001U, sizeof(d), d);
    }
}

/* TRC_DOM0_DOM_REM */
static inline void trc_dom0_dom_rem(uint32_t dom)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { dom };

        trace_time(0x00041002U, sizeof(d), d);
    }
}

/* TRC_HVM_VMENTRY */
static inline void trc_hvm_vmentry(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00081001U, 0, NULL);
}

/* TRC_HVM_VMEXIT */
static inline void trc_hvm_vmexit(uint32_t exit_reason, uint32_t rip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { exit_reason, rip };

        trace_time(0x00081002U, sizeof(d), d);
    }
}

/* TRC_HVM_VMEXIT64 */
static inline void trc_hvm_vmexit64(uint32_t exit_reason, uint64_t rip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { exit_reason, (uint32_t)rip, (uint32_t)(rip >> 32) };

        trace_time(0x00081102U, sizeof(d), d);
    }
}

/* TRC_HVM_PF_XEN */
static inline void trc_hvm_pf_xen(uint32_t error, uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { error, va };

        trace(0x00082001U, sizeof(d), d);
    }
}

/* TRC_HVM_PF_INJECT */
static inline void trc_hvm_pf_inject(uint32_t error, uint32_t cr2)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { error, cr2 };

        trace(0x00082002U, sizeof(d), d);
    }
}

/* TRC_HVM_INJ_EXC */
static inline void trc_hvm_inj_exc(uint32_t vector, uint32_t error)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { vector, error };

        trace(0x00082003U, sizeof(d), d);
    }
}

/* TRC_HVM_INJ_VIRQ */
static inline void trc_hvm_inj_virq(uint32_t vector, uint32_t fake)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { vector, fake };

        trace(0x00082004U, sizeof(d), d);
    }
}

/* TRC_HVM_REINJ_VIRQ */
static inline void trc_hvm_reinj_virq(uint32_t vector)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { vector };

        trace(0x00082005U, sizeof(d), d);
    }
}

/* TRC_HVM_IO_READ */
static inline void trc_hvm_io_read(uint32_t port, uint32_t size)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { port, size };

        trace(0x00082006U, sizeof(d), d);
    }
}

/* TRC_HVM_IO_WRITE */
static inline void trc_hvm_io_write(uint32_t port, uint32_t size)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { port, size };

        trace(0x00082007U, sizeof(d), d);
    }
}

/* TRC_HVM_CR_READ */
static inline void trc_hvm_cr_read(uint32_t cr, uint32_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { cr, value };

        trace(0x00082008U, sizeof(d), d);
    }
}

/* TRC_HVM_CR_WRITE */
static inline void trc_hvm_cr_write(uint32_t cr, uint32_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { cr, value };

        trace(0x00082009U, sizeof(d), d);
    }
}

/* TRC_HVM_DR_READ */
static inline void trc_hvm_dr_read(void)
{
    if ( unlikely(tb_init_done) )
        trace(0x0008200aU, 0, NULL);
}

/* TRC_HVM_DR_WRITE */
static inline void trc_hvm_dr_write(void)
{
    if ( unlikely(tb_init_done) )
        trace(0x0008200bU, 0, NULL);
}

/* TRC_HVM_MSR_READ */
static inline void trc_hvm_msr_read(uint32_t msr, uint64_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { msr, (uint32_t)value, (uint32_t)(value >> 32) };

        trace(0x0008200cU, sizeof(d), d);
    }
}

/* TRC_HVM_MSR_WRITE */
static inline void trc_hvm_msr_write(uint32_t msr, uint64_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { msr, (uint32_t)value, (uint32_t)(value >> 32) };

        trace(0x0008200dU, sizeof(d), d);
    }
}

/* TRC_HVM_CPUID */
static inline void trc_hvm_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t eax,
                                 uint32_t ebx, uint32_t ecx, uint32_t edx)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = { leaf, subleaf, eax, ebx, ecx, edx };

        trace(0x0008200eU, sizeof(d), d);
    }
}

/* TRC_HVM_INTR */
static inline void trc_hvm_intr(uint32_t vector)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { vector };

        trace(0x0008200fU, sizeof(d), d);
    }
}

/* TRC_HVM_NMI */
static inline void trc_hvm_nmi(void)
{
    if ( unlikely(tb_init_done) )
        trace(0x00082010U, 0, NULL);
}

/* TRC_HVM_SMI */
static inline void trc_hvm_smi(void)
{
    if ( unlikely(tb_init_done) )
        trace(0x00082011U, 0, NULL);
}

/* TRC_HVM_VMMCALL */
static inline void trc_hvm_vmmcall(uint32_t func)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { func };

        trace(0x00082012U, sizeof(d), d);
    }
}

/* TRC_HVM_HLT */
static inline void trc_hvm_hlt(uint32_t intpending)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { intpending };

        trace(0x00082013U, sizeof(d), d);
    }
}

/* TRC_HVM_INVLPG */
static inline void trc_hvm_invlpg(uint32_t invlpga, uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { invlpga, va };

        trace(0x00082014U, sizeof(d), d);
    }
}

/* TRC_HVM_MCE */
static inline void trc_hvm_mce(void)
{
    if ( unlikely(tb_init_done) )
        trace(0x00082015U, 0, NULL);
}

/* TRC_HVM_IOPORT_READ */
static inline void trc_hvm_ioport_read(uint32_t port, uint32_t data)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { port, data };

        trace(0x00082016U, sizeof(d), d);
    }
}

/* TRC_HVM_IOMEM_READ */
static inline void trc_hvm_iomem_read(uint32_t addr, uint32_t data)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { addr, data };

        trace(0x00082017U, sizeof(d), d);
    }
}

/* TRC_HVM_CLTS */
static inline void trc_hvm_clts(void)
{
    if ( unlikely(tb_init_done) )
        trace(0x00082018U, 0, NULL);
}

/* TRC_HVM_LMSW */
static inline void trc_hvm_lmsw(uint32_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { value };

        trace(0x00082019U, sizeof(d), d);
    }
}

/* TRC_HVM_RDTSC */
static inline void trc_hvm_rdtsc(uint64_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)value, (uint32_t)(value >> 32) };

        trace(0x0008201aU, sizeof(d), d);
    }
}

/* TRC_HVM_INTR_WINDOW */
static inline void trc_hvm_intr_window(uint32_t vector, uint32_t source,
                                       uint32_t intr)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { vector, source, intr };

        trace(0x00082020U, sizeof(d), d);
    }
}

/* TRC_HVM_NPF */
static inline void trc_hvm_npf(uint64_t gpa, uint64_t mfn,
                               uint32_t qualification, uint32_t p2mt)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)gpa,
            (uint32_t)(gpa >> 32),
            (uint32_t)mfn,
            (uint32_t)(mfn >> 32),
            qualification,
            p2mt,
        };

        trace(0x00082021U, sizeof(d), d);
    }
}

/* TRC_HVM_REALMODE_EMULATE */
static inline void trc_hvm_realmode_emulate(void)
{
    if ( unlikely(tb_init_done) )
        trace(0x00082022U, 0, NULL);
}

/* TRC_HVM_TRAP */
static inline void trc_hvm_trap(uint32_t vector)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { vector };

        trace(0x00082023U, sizeof(d), d);
    }
}

/* TRC_HVM_TRAP_DEBUG */
static inline void trc_hvm_trap_debug(uint32_t exit_qualification)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { exit_qualification };

        trace(0x00082024U, sizeof(d), d);
    }
}

/* TRC_HVM_VLAPIC */
static inline void trc_hvm_vlapic(void)
{
    if ( unlikely(tb_init_done) )
        trace(0x00082025U, 0, NULL);
}

/* TRC_HVM_PF_XEN64 */
static inline void trc_hvm_pf_xen64(uint32_t error, uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { error, (uint32_t)va, (uint32_t)(va >> 32) };

        trace(0x00082101U, sizeof(d), d);
    }
}

/* TRC_HVM_PF_INJECT64 */
static inline void trc_hvm_pf_inject64(uint32_t error, uint64_t cr2)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { error, (uint32_t)cr2, (uint32_t)(cr2 >> 32) };

        trace(0x00082102U, sizeof(d), d);
    }
}

/* TRC_HVM_CR_READ64 */
static inline void trc_hvm_cr_read64(uint32_t cr, uint64_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { cr, (uint32_t)value, (uint32_t)(value >> 32) };

        trace(0x00082108U, sizeof(d), d);
    }
}

/* TRC_HVM_CR_WRITE64 */
static inline void trc_hvm_cr_write64(uint32_t cr, uint64_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { cr, (uint32_t)value, (uint32_t)(value >> 32) };

        trace(0x00082109U, sizeof(d), d);
    }
}

/* TRC_HVM_INVLPG64 */
static inline void trc_hvm_invlpg64(uint32_t invlpga, uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { invlpga, (uint32_t)va, (uint32_t)(va >> 32) };

        trace(0x00082114U, sizeof(d), d);
    }
}

/* TRC_HVM_IOMEM_READ64 */
static inline void trc_hvm_iomem_read64(uint64_t addr, uint32_t data)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { (uint32_t)addr, (uint32_t)(addr >> 32), data };

        trace(0x00082117U, sizeof(d), d);
    }
}

/* TRC_HVM_LMSW64 */
static inline void trc_hvm_lmsw64(uint64_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)value, (uint32_t)(value >> 32) };

        trace(0x00082119U, sizeof(d), d);
    }
}

/* TRC_HVM_XCR_READ64 */
static inline void trc_hvm_xcr_read64(uint32_t xcr, uint64_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { xcr, (uint32_t)value, (uint32_t)(value >> 32) };

        trace(0x00082126U, sizeof(d), d);
    }
}

/* TRC_HVM_XCR_WRITE64 */
static inline void trc_hvm_xcr_write64(uint32_t xcr, uint64_t value)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { xcr, (uint32_t)value, (uint32_t)(value >> 32) };

        trace(0x00082127U, sizeof(d), d);
    }
}

/* TRC_HVM_IOPORT_WRITE */
static inline void trc_hvm_ioport_write(uint32_t port, uint32_t data)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { port, data };

        trace(0x00082216U, sizeof(d), d);
    }
}

/* TRC_HVM_IOMEM_WRITE */
static inline void trc_hvm_iomem_write(uint32_t addr, uint32_t data)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { addr, data };

        trace(0x00082217U, sizeof(d), d);
    }
}

/* TRC_HVM_IOMEM_WRITE64 */
static inline void trc_hvm_iomem_write64(uint64_t addr, uint32_t data)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { (uint32_t)addr, (uint32_t)(addr >> 32), data };

        trace(0x00082317U, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_HPET_START_TIMER */
static inline void trc_hvm_emul_hpet_start_timer(uint32_t timer, uint32_t irq,
                                                 uint64_t delta,
                                                 uint64_t period)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            timer,
            irq,
            (uint32_t)delta,
            (uint32_t)(delta >> 32),
            (uint32_t)period,
            (uint32_t)(period >> 32),
        };

        trace_time(0x00084001U, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_PIT_START_TIMER */
static inline void trc_hvm_emul_pit_start_timer(uint32_t delta,
                                                uint32_t period)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { delta, period };

        trace_time(0x00084002U, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_RTC_START_TIMER */
static inline void trc_hvm_emul_rtc_start_timer(uint32_t delta,
                                                uint32_t period)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { delta, period };

        trace_time(0x00084003U, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_LAPIC_START_TIMER */
static inline void trc_hvm_emul_lapic_start_timer(uint64_t delta,
                                                  uint64_t period,
                                                  uint32_t irq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[5] = {
            (uint32_t)delta,
            (uint32_t)(delta >> 32),
            (uint32_t)period,
            (uint32_t)(period >> 32),
            irq,
        };

        trace_time(0x00084004U, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_HPET_STOP_TIMER */
static inline void trc_hvm_emul_hpet_stop_timer(uint32_t timer)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { timer };

        trace_time(0x00084005U, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_PIT_STOP_TIMER */
static inline void trc_hvm_emul_pit_stop_timer(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00084006U, 0, NULL);
}

/* TRC_HVM_EMUL_RTC_STOP_TIMER */
static inline void trc_hvm_emul_rtc_stop_timer(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00084007U, 0, NULL);
}

/* TRC_HVM_EMUL_LAPIC_STOP_TIMER */
static inline void trc_hvm_emul_lapic_stop_timer(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00084008U, 0, NULL);
}

/* TRC_HVM_EMUL_PIT_TIMER_CB */
static inline void trc_hvm_emul_pit_timer_cb(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00084009U, 0, NULL);
}

/* TRC_HVM_EMUL_LAPIC_TIMER_CB */
static inline void trc_hvm_emul_lapic_timer_cb(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x0008400aU, 0, NULL);
}

/* TRC_HVM_EMUL_PIC_INT_OUTPUT */
static inline void trc_hvm_emul_pic_int_output(uint32_t int_output,
                                               uint32_t is_master,
                                               uint32_t irq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { int_output, is_master, irq };

        trace_time(0x0008400bU, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_PIC_KICK */
static inline void trc_hvm_emul_pic_kick(uint32_t irq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { irq };

        trace_time(0x0008400cU, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_PIC_INTACK */
static inline void trc_hvm_emul_pic_intack(uint32_t is_master, uint32_t irq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { is_master, irq };

        trace_time(0x0008400dU, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_PIC_POSEDGE */
static inline void trc_hvm_emul_pic_posedge(uint32_t irq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { irq };

        trace_time(0x0008400eU, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_PIC_NEGEDGE */
static inline void trc_hvm_emul_pic_negedge(uint32_t irq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { irq };

        trace_time(0x0008400fU, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_PIC_PEND_IRQ_CALL */
static inline void trc_hvm_emul_pic_pend_irq_call(uint32_t accept_pic_intr,
                                                  uint32_t int_output)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { accept_pic_intr, int_output };

        trace_time(0x00084010U, sizeof(d), d);
    }
}

/* TRC_HVM_EMUL_LAPIC_PIC_INTR */
static inline void trc_hvm_emul_lapic_pic_intr(uint32_t i8259_target,
                                               uint32_t accept_pic_intr)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { i8259_target, accept_pic_intr };

        trace_time(0x00084011U, sizeof(d), d);
    }
}

/* TRC_MEM_PAGE_GRANT_MAP */
static inline void trc_mem_page_grant_map(uint32_t dom)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { dom };

        trace_time(0x0010f001U, sizeof(d), d);
    }
}

/* TRC_MEM_PAGE_GRANT_UNMAP */
static inline void trc_mem_page_grant_unmap(uint32_t dom)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { dom };

        trace_time(0x0010f002U, sizeof(d), d);
    }
}

/* TRC_MEM_PAGE_GRANT_TRANSFER */
static inline void trc_mem_page_grant_transfer(uint32_t dom)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { dom };

        trace_time(0x0010f003U, sizeof(d), d);
    }
}

/* TRC_MEM_SET_P2M_ENTRY */
static inline void trc_mem_set_p2m_entry(uint64_t gfn, uint64_t mfn,
                                         uint32_t p2mt, uint32_t dom_order)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)gfn,
            (uint32_t)(gfn >> 32),
            (uint32_t)mfn,
            (uint32_t)(mfn >> 32),
            p2mt,
            dom_order,
        };

        trace(0x0010f004U, sizeof(d), d);
    }
}

/* TRC_MEM_DECREASE_RESERVATION */
static inline void trc_mem_decrease_reservation(uint64_t gfn,
                                                uint32_t dom_order,
                                                uint32_t pad)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)gfn,
            (uint32_t)(gfn >> 32),
            dom_order,
            pad,
        };

        trace(0x0010f005U, sizeof(d), d);
    }
}

/* TRC_MEM_POD_POPULATE */
static inline void trc_mem_pod_populate(uint64_t gfn, uint64_t mfn,
                                        uint32_t dom_order, uint32_t pad)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)gfn,
            (uint32_t)(gfn >> 32),
            (uint32_t)mfn,
            (uint32_t)(mfn >> 32),
            dom_order,
            pad,
        };

        trace(0x0010f010U, sizeof(d), d);
    }
}

/* TRC_MEM_POD_ZERO_RECLAIM */
static inline void trc_mem_pod_zero_reclaim(uint64_t gfn, uint64_t mfn,
                                            uint32_t dom_order, uint32_t pad)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)gfn,
            (uint32_t)(gfn >> 32),
            (uint32_t)mfn,
            (uint32_t)(mfn >> 32),
            dom_order,
            pad,
        };

        trace(0x0010f011U, sizeof(d), d);
    }
}

/* TRC_MEM_POD_SUPERPAGE_SPLINTER */
static inline void trc_mem_pod_superpage_splinter(uint64_t gfn, uint32_t dom,
                                                  uint32_t pad)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { (uint32_t)gfn, (uint32_t)(gfn >> 32), dom, pad };

        trace(0x0010f012U, sizeof(d), d);
    }
}

/* TRC_PV_HYPERCALL */
static inline void trc_pv_hypercall(uint32_t eip, uint32_t eax)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { eip, eax };

        trace_time(0x00201001U, sizeof(d), d);
    }
}

/* TRC_PV_TRAP */
static inline void trc_pv_trap(uint32_t eip, uint32_t trap)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { eip, trap };

        trace_time(0x00201003U, sizeof(d), d);
    }
}

/* TRC_PV_PAGE_FAULT */
static inline void trc_pv_page_fault(uint32_t eip, uint32_t addr,
                                     uint32_t error)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { eip, addr, error };

        trace_time(0x00201004U, sizeof(d), d);
    }
}

/* TRC_PV_FORCED_INVALID_OP */
static inline void trc_pv_forced_invalid_op(uint32_t eip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { eip };

        trace_time(0x00201005U, sizeof(d), d);
    }
}

/* TRC_PV_EMULATE_PRIVOP */
static inline void trc_pv_emulate_privop(uint32_t eip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { eip };

        trace_time(0x00201006U, sizeof(d), d);
    }
}

/* TRC_PV_EMULATE_4GB */
static inline void trc_pv_emulate_4gb(uint32_t eip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { eip };

        trace_time(0x00201007U, sizeof(d), d);
    }
}

/* TRC_PV_MATH_STATE_RESTORE */
static inline void trc_pv_math_state_restore(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00201008U, 0, NULL);
}

/* TRC_PV_PAGING_FIXUP */
static inline void trc_pv_paging_fixup(uint32_t eip, uint32_t addr)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { eip, addr };

        trace_time(0x00201009U, sizeof(d), d);
    }
}

/* TRC_PV_GDT_LDT_MAPPING_FAULT */
static inline void trc_pv_gdt_ldt_mapping_fault(uint32_t eip, uint32_t offset)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { eip, offset };

        trace_time(0x0020100aU, sizeof(d), d);
    }
}

/* TRC_PV_PTWR_EMULATION */
static inline void trc_pv_ptwr_emulation(uint64_t npte, uint32_t addr,
                                         uint32_t eip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { (uint32_t)npte, (uint32_t)(npte >> 32), addr, eip };

        trace_time(0x0020100bU, sizeof(d), d);
    }
}

/* TRC_PV_PTWR_EMULATION_PAE */
static inline void trc_pv_ptwr_emulation_pae(uint64_t npte, uint32_t addr,
                                             uint32_t eip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { (uint32_t)npte, (uint32_t)(npte >> 32), addr, eip };

        trace_time(0x0020100cU, sizeof(d), d);
    }
}

/* TRC_PV_HYPERCALL_V2 */
static inline void trc_pv_hypercall_v2(uint32_t op_args)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { op_args };

        trace_time(0x0020100dU, sizeof(d), d);
    }
}

/* TRC_PV_HYPERCALL64 */
static inline void trc_pv_hypercall64(uint64_t rip, uint32_t eax)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { (uint32_t)rip, (uint32_t)(rip >> 32), eax };

        trace_time(0x00201101U, sizeof(d), d);
    }
}

/* TRC_PV_TRAP64 */
static inline void trc_pv_trap64(uint64_t rip, uint32_t trap)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { (uint32_t)rip, (uint32_t)(rip >> 32), trap };

        trace_time(0x00201103U, sizeof(d), d);
    }
}

/* TRC_PV_PAGE_FAULT64 */
static inline void trc_pv_page_fault64(uint64_t rip, uint64_t addr,
                                       uint32_t error)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[5] = {
            (uint32_t)rip,
            (uint32_t)(rip >> 32),
            (uint32_t)addr,
            (uint32_t)(addr >> 32),
            error,
        };

        trace_time(0x00201104U, sizeof(d), d);
    }
}

/* TRC_PV_FORCED_INVALID_OP64 */
static inline void trc_pv_forced_invalid_op64(uint64_t rip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)rip, (uint32_t)(rip >> 32) };

        trace_time(0x00201105U, sizeof(d), d);
    }
}

/* TRC_PV_EMULATE_PRIVOP64 */
static inline void trc_pv_emulate_privop64(uint64_t rip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)rip, (uint32_t)(rip >> 32) };

        trace_time(0x00201106U, sizeof(d), d);
    }
}

/* TRC_PV_EMULATE_4GB64 */
static inline void trc_pv_emulate_4gb64(uint64_t rip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)rip, (uint32_t)(rip >> 32) };

        trace_time(0x00201107U, sizeof(d), d);
    }
}

/* TRC_PV_MATH_STATE_RESTORE64 */
static inline void trc_pv_math_state_restore64(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00201108U, 0, NULL);
}

/* TRC_PV_PAGING_FIXUP64 */
static inline void trc_pv_paging_fixup64(uint64_t rip, uint64_t addr)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)rip,
            (uint32_t)(rip >> 32),
            (uint32_t)addr,
            (uint32_t)(addr >> 32),
        };

        trace_time(0x00201109U, sizeof(d), d);
    }
}

/* TRC_PV_GDT_LDT_MAPPING_FAULT64 */
static inline void trc_pv_gdt_ldt_mapping_fault64(uint64_t rip,
                                                  uint64_t offset)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)rip,
            (uint32_t)(rip >> 32),
            (uint32_t)offset,
            (uint32_t)(offset >> 32),
        };

        trace_time(0x0020110aU, sizeof(d), d);
    }
}

/* TRC_PV_PTWR_EMULATION64 */
static inline void trc_pv_ptwr_emulation64(uint64_t npte, uint64_t addr,
                                           uint64_t rip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)npte,
            (uint32_t)(npte >> 32),
            (uint32_t)addr,
            (uint32_t)(addr >> 32),
            (uint32_t)rip,
            (uint32_t)(rip >> 32),
        };

        trace_time(0x0020110bU, sizeof(d), d);
    }
}

/* TRC_PV_PTWR_EMULATION_PAE64 */
static inline void trc_pv_ptwr_emulation_pae64(uint64_t npte, uint64_t addr,
                                               uint64_t rip)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)npte,
            (uint32_t)(npte >> 32),
            (uint32_t)addr,
            (uint32_t)(addr >> 32),
            (uint32_t)rip,
            (uint32_t)(rip >> 32),
        };

        trace_time(0x0020110cU, sizeof(d), d);
    }
}

/* TRC_PV_HYPERCALL_SUBCALL */
static inline void trc_pv_hypercall_subcall(uint32_t op_args)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { op_args };

        trace_time(0x0020200eU, sizeof(d), d);
    }
}

/* TRC_SHADOW_NOT_SHADOW */
static inline void trc_shadow_not_shadow(uint32_t gl1e, uint32_t va,
                                         uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { gl1e, va, flags };

        trace(0x0040f001U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FAST_PROPAGATE */
static inline void trc_shadow_fast_propagate(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f002U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FAST_MMIO */
static inline void trc_shadow_fast_mmio(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f003U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FALSE_FAST_PATH */
static inline void trc_shadow_false_fast_path(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f004U, sizeof(d), d);
    }
}

/* TRC_SHADOW_MMIO */
static inline void trc_shadow_mmio(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f005U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FIXUP */
static inline void trc_shadow_fixup(uint32_t gl1e, uint32_t va, uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { gl1e, va, flags };

        trace(0x0040f006U, sizeof(d), d);
    }
}

/* TRC_SHADOW_DOMF_DYING */
static inline void trc_shadow_domf_dying(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f007U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE */
static inline void trc_shadow_emulate(uint32_t gl1e, uint32_t write_val,
                                      uint32_t va, uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { gl1e, write_val, va, flags };

        trace(0x0040f008U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_USER */
static inline void trc_shadow_emulate_unshadow_user(uint32_t gfn, uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { gfn, va };

        trace(0x0040f009U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ */
static inline void trc_shadow_emulate_unshadow_evtinj(uint32_t gfn,
                                                      uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { gfn, va };

        trace(0x0040f00aU, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED */
static inline void trc_shadow_emulate_unshadow_unhandled(uint32_t gfn,
                                                         uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { gfn, va };

        trace(0x0040f00bU, sizeof(d), d);
    }
}

/* TRC_SHADOW_WRMAP_BF */
static inline void trc_shadow_wrmap_bf(uint64_t gfn)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)gfn, (uint32_t)(gfn >> 32) };

        trace(0x0040f00cU, sizeof(d), d);
    }
}

/* TRC_SHADOW_PREALLOC_UNPIN */
static inline void trc_shadow_prealloc_unpin(uint64_t gfn)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)gfn, (uint32_t)(gfn >> 32) };

        trace(0x0040f00dU, sizeof(d), d);
    }
}

/* TRC_SHADOW_RESYNC_FULL */
static inline void trc_shadow_resync_full(uint64_t gfn)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)gfn, (uint32_t)(gfn >> 32) };

        trace(0x0040f00eU, sizeof(d), d);
    }
}

/* TRC_SHADOW_RESYNC_ONLY */
static inline void trc_shadow_resync_only(uint64_t gfn)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)gfn, (uint32_t)(gfn >> 32) };

        trace(0x0040f00fU, sizeof(d), d);
    }
}

/* TRC_SHADOW_NOT_SHADOW_PAE */
static inline void trc_shadow_not_shadow_pae(uint64_t gl1e, uint32_t va,
                                             uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { (uint32_t)gl1e, (uint32_t)(gl1e >> 32), va, flags };

        trace(0x0040f101U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FAST_PROPAGATE_PAE */
static inline void trc_shadow_fast_propagate_pae(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f102U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FAST_MMIO_PAE */
static inline void trc_shadow_fast_mmio_pae(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f103U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FALSE_FAST_PATH_PAE */
static inline void trc_shadow_false_fast_path_pae(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f104U, sizeof(d), d);
    }
}

/* TRC_SHADOW_MMIO_PAE */
static inline void trc_shadow_mmio_pae(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f105U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FIXUP_PAE */
static inline void trc_shadow_fixup_pae(uint64_t gl1e, uint32_t va,
                                        uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { (uint32_t)gl1e, (uint32_t)(gl1e >> 32), va, flags };

        trace(0x0040f106U, sizeof(d), d);
    }
}

/* TRC_SHADOW_DOMF_DYING_PAE */
static inline void trc_shadow_domf_dying_pae(uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { va };

        trace(0x0040f107U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_PAE */
static inline void trc_shadow_emulate_pae(uint64_t gl1e, uint64_t write_val,
                                          uint32_t va, uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = {
            (uint32_t)gl1e,
            (uint32_t)(gl1e >> 32),
            (uint32_t)write_val,
            (uint32_t)(write_val >> 32),
            va,
            flags,
        };

        trace(0x0040f108U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_USER_PAE */
static inline void trc_shadow_emulate_unshadow_user_pae(uint64_t gfn,
                                                        uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { (uint32_t)gfn, (uint32_t)(gfn >> 32), va };

        trace(0x0040f109U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ_PAE */
static inline void trc_shadow_emulate_unshadow_evtinj_pae(uint64_t gfn,
                                                          uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { (uint32_t)gfn, (uint32_t)(gfn >> 32), va };

        trace(0x0040f10aU, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED_PAE */
static inline void trc_shadow_emulate_unshadow_unhandled_pae(uint64_t gfn,
                                                             uint32_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { (uint32_t)gfn, (uint32_t)(gfn >> 32), va };

        trace(0x0040f10bU, sizeof(d), d);
    }
}

/* TRC_SHADOW_NOT_SHADOW64 */
static inline void trc_shadow_not_shadow64(uint64_t gl1e, uint64_t va,
                                           uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[5] = {
            (uint32_t)gl1e,
            (uint32_t)(gl1e >> 32),
            (uint32_t)va,
            (uint32_t)(va >> 32),
            flags,
        };

        trace(0x0040f201U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FAST_PROPAGATE64 */
static inline void trc_shadow_fast_propagate64(uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)va, (uint32_t)(va >> 32) };

        trace(0x0040f202U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FAST_MMIO64 */
static inline void trc_shadow_fast_mmio64(uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)va, (uint32_t)(va >> 32) };

        trace(0x0040f203U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FALSE_FAST_PATH64 */
static inline void trc_shadow_false_fast_path64(uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)va, (uint32_t)(va >> 32) };

        trace(0x0040f204U, sizeof(d), d);
    }
}

/* TRC_SHADOW_MMIO64 */
static inline void trc_shadow_mmio64(uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)va, (uint32_t)(va >> 32) };

        trace(0x0040f205U, sizeof(d), d);
    }
}

/* TRC_SHADOW_FIXUP64 */
static inline void trc_shadow_fixup64(uint64_t gl1e, uint64_t va,
                                      uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[5] = {
            (uint32_t)gl1e,
            (uint32_t)(gl1e >> 32),
            (uint32_t)va,
            (uint32_t)(va >> 32),
            flags,
        };

        trace(0x0040f206U, sizeof(d), d);
    }
}

/* TRC_SHADOW_DOMF_DYING64 */
static inline void trc_shadow_domf_dying64(uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { (uint32_t)va, (uint32_t)(va >> 32) };

        trace(0x0040f207U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE64 */
static inline void trc_shadow_emulate64(uint64_t gl1e, uint64_t write_val,
                                        uint64_t va, uint32_t flags)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[7] = {
            (uint32_t)gl1e,
            (uint32_t)(gl1e >> 32),
            (uint32_t)write_val,
            (uint32_t)(write_val >> 32),
            (uint32_t)va,
            (uint32_t)(va >> 32),
            flags,
        };

        trace(0x0040f208U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_USER64 */
static inline void trc_shadow_emulate_unshadow_user64(uint64_t gfn,
                                                      uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)gfn,
            (uint32_t)(gfn >> 32),
            (uint32_t)va,
            (uint32_t)(va >> 32),
        };

        trace(0x0040f209U, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_EVTINJ64 */
static inline void trc_shadow_emulate_unshadow_evtinj64(uint64_t gfn,
                                                        uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)gfn,
            (uint32_t)(gfn >> 32),
            (uint32_t)va,
            (uint32_t)(va >> 32),
        };

        trace(0x0040f20aU, sizeof(d), d);
    }
}

/* TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED64 */
static inline void trc_shadow_emulate_unshadow_unhandled64(uint64_t gfn,
                                                           uint64_t va)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = {
            (uint32_t)gfn,
            (uint32_t)(gfn >> 32),
            (uint32_t)va,
            (uint32_t)(va >> 32),
        };

        trace(0x0040f20bU, sizeof(d), d);
    }
}

/* TRC_PM_FREQ_CHANGE */
static inline void trc_pm_freq_change(uint32_t old_mhz, uint32_t new_mhz)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = { old_mhz, new_mhz };

        trace_time(0x00801001U, sizeof(d), d);
    }
}

/* TRC_PM_IDLE_ENTRY */
static inline void trc_pm_idle_entry(uint32_t cstate, uint32_t tick,
                                     uint32_t expected_us,
                                     uint32_t predicted_us)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { cstate, tick, expected_us, predicted_us };

        trace_time(0x00801002U, sizeof(d), d);
    }
}

/* TRC_PM_IDLE_EXIT */
static inline void trc_pm_idle_exit(uint32_t cstate, uint32_t tick,
                                    uint32_t irq0, uint32_t irq1,
                                    uint32_t irq2, uint32_t irq3)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[6] = { cstate, tick, irq0, irq1, irq2, irq3 };

        trace_time(0x00801003U, sizeof(d), d);
    }
}

/* TRC_HW_IRQ_MOVE_CLEANUP_DELAY */
static inline void trc_hw_irq_move_cleanup_delay(uint32_t irq, uint32_t vector,
                                                 uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { irq, vector, cpu };

        trace_time(0x00802001U, sizeof(d), d);
    }
}

/* TRC_HW_IRQ_MOVE_CLEANUP */
static inline void trc_hw_irq_move_cleanup(uint32_t irq, uint32_t vector,
                                           uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { irq, vector, cpu };

        trace_time(0x00802002U, sizeof(d), d);
    }
}

/* TRC_HW_IRQ_BIND_VECTOR */
static inline void trc_hw_irq_bind_vector(uint32_t irq, uint32_t vector,
                                          uint32_t cpu_mask)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { irq, vector, cpu_mask };

        trace_time(0x00802003U, sizeof(d), d);
    }
}

/* TRC_HW_IRQ_CLEAR_VECTOR */
static inline void trc_hw_irq_clear_vector(uint32_t irq, uint32_t vector,
                                           uint32_t cpu_mask)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { irq, vector, cpu_mask };

        trace_time(0x00802004U, sizeof(d), d);
    }
}

/* TRC_HW_IRQ_MOVE_FINISH */
static inline void trc_hw_irq_move_finish(uint32_t irq, uint32_t vector,
                                          uint32_t cpu)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { irq, vector, cpu };

        trace_time(0x00802005U, sizeof(d), d);
    }
}

/* TRC_HW_IRQ_ASSIGN_VECTOR */
static inline void trc_hw_irq_assign_vector(uint32_t irq, uint32_t vector,
                                            uint32_t cpu_mask)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { irq, vector, cpu_mask };

        trace_time(0x00802006U, sizeof(d), d);
    }
}

/* TRC_HW_IRQ_UNMAPPED_VECTOR */
static inline void trc_hw_irq_unmapped_vector(uint32_t vector)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { vector };

        trace_time(0x00802007U, sizeof(d), d);
    }
}

/* TRC_HW_IRQ_HANDLED */
static inline void trc_hw_irq_handled(uint32_t irq, uint32_t tsc_in,
                                      uint32_t tsc_out)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[3] = { irq, tsc_in, tsc_out };

        trace_time(0x00802008U, sizeof(d), d);
    }
}

/* TRC_ARM_TRAP */
static inline void trc_arm_trap(uint32_t ec, uint32_t iss, uint64_t pc)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { ec, iss, (uint32_t)pc, (uint32_t)(pc >> 32) };

        trace_time(0x00808001U, sizeof(d), d);
    }
}

/* TRC_ARM_TRAP_HVC */
static inline void trc_arm_trap_hvc(uint32_t nr)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { nr };

        trace_time(0x00808002U, sizeof(d), d);
    }
}

/* TRC_ARM_TRAP_MMIO */
static inline void trc_arm_trap_mmio(uint64_t gpa, uint32_t write,
                                     uint32_t size)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[4] = { (uint32_t)gpa, (uint32_t)(gpa >> 32), write, size };

        trace_time(0x00808003U, sizeof(d), d);
    }
}

/* TRC_ARM_RETURN */
static inline void trc_arm_return(void)
{
    if ( unlikely(tb_init_done) )
        trace_time(0x00808004U, 0, NULL);
}

/* TRC_ARM_IRQ */
static inline void trc_arm_irq(uint32_t irq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[1] = { irq };

        trace_time(0x00808005U, sizeof(d), d);
    }
}

/* TRC_ARM_VIRQ_INJECT */
static inline void trc_arm_virq_inject(uint16_t vcpu_dom, uint16_t vcpu_vcpu,
                                       uint32_t virq)
{
    if ( unlikely(tb_init_done) )
    {
        uint32_t d[2] = {
            (uint32_t)vcpu_dom << 16 | (uint32_t)vcpu_vcpu,
            virq,
        };

        trace_time(0x00808006U, sizeof(d), d);
    }
}

#endif /* __XEN_TRACE_EVENTS_H__ */
