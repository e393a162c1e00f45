/*
 * Built without CONFIG_TRACEBUFFER, as Xen can be (EXPERT): the producer
 * API must still compile, trace points must cost nothing and evaluate
 * nothing, and the control operation says -ENOSYS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <xen/lib.h>
#include <xen/trace.h>

#ifdef CONFIG_TRACEBUFFER
#error "test_notrace must be built without CONFIG_TRACEBUFFER"
#endif

static void test_trace_points_evaluate_nothing(void **state)
{
    unsigned int evaluated = 0;

    (void)state;
    TRACE_1D(TRC_SCHED_SWITCH, evaluated++);
    TRACE_6D(TRC_SCHED_SWITCH, evaluated++, 2, 3, 4, 5, evaluated++);
    TRACE_0D(TRC_HVM_HLT);
    trace_var(TRC_HVM_HLT, true, 0, NULL);
    TRACE(TRC_SCHED_SWITCH, evaluated++, 2, 3, 4, 5, 6, evaluated++);
    TRACE_TIME(TRC_SCHED_SWITCH, evaluated++);
    TRACE_TIME(TRC_HVM_HLT);
    trace(TRC_HVM_HLT, 0, NULL);
    trace_time(TRC_HVM_HLT, 0, NULL);
    assert_int_equal(evaluated, 0);
    assert_false(tb_init_done);
    assert_int_equal(trace_will_trace_event(TRC_SCHED_SWITCH), 0);
}

static void test_control_is_not_implemented(void **state)
{
    struct xen_sysctl_tbuf_op op = { .cmd = XEN_SYSCTL_TBUFOP_get_info };
    struct trace_cpu_stats stats = { .records = 1 };

    (void)state;
    assert_int_equal(tb_control(&op), -ENOSYS);
    trace_cpu_stats(0, &stats);
    assert_int_equal(stats.records, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_points_evaluate_nothing),
        cmocka_unit_test(test_control_is_not_implemented),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
