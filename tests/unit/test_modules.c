/*
 * test_modules.c - unit tests of the module view (src/analysis/modules.c):
 * rows per (name, module id), occurrences, direct child operators, host and
 * device totals and selfs, avg_duration and the parent hierarchy, and the
 * "<module>.backward" rows built from fwdbwd flows.
 */
#include "analysis/analysis.h"
#include "mbuild.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* The passes an_profile_compute runs up to the module view. */
static void compute_all(struct an_profile *p, struct model *m)
{
	static const mb_pass passes[] = {
	    an_steps_compute, an_optree_compute,  an_breakdown_compute, an_comm_compute,
	    an_ops_compute,   an_kernels_compute, an_modules_compute,	NULL};
	mb_compute(p, m, 1, passes);
}

static const char *row_name(const struct model *m, const struct an_module_row *r, int strip,
			    char *buf, size_t n)
{
	an_module_name(m, r, strip, buf, n);
	return buf;
}

static void compute(struct an_profile *p, struct model *m)
{
	static const mb_pass passes[] = {an_steps_compute, an_breakdown_compute, an_optree_compute,
					 an_modules_compute, NULL};
	mb_compute(p, m, 1, passes);
}

static void test_module_stats(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t, s;
	const struct an_module_row *net, *lin, *relu;

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "1");
	s = mb_thr(&m, "0", "stream 7");
	mb_module(&m, t, "nn.Module: Net_0", 1, 0, 1000);
	mb_module(&m, t, "nn.Module: Linear_0", 2, 100, 300);
	mb_ev(&m, t, MK_CPU_OP, "aten::linear", 110, 280, 10, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "aten::addmm", 120, 260, 11, MODEL_NONE);
	mb_ev(&m, t, MK_RUNTIME, "cudaLaunchKernel", 130, 10, 11, 100);
	mb_ev(&m, s, MK_KERNEL, "gemm", 500, 100, 11, 100);
	mb_module(&m, t, "nn.Module: Linear_0", 2, 500, 200);
	mb_ev(&m, t, MK_CPU_OP, "aten::linear", 510, 180, 12, MODEL_NONE);
	mb_ev(&m, t, MK_RUNTIME, "cudaLaunchKernel", 520, 10, 12, 101);
	mb_ev(&m, s, MK_KERNEL, "gemm", 700, 50, 12, 101);
	mb_ev(&m, t, MK_CPU_OP, "aten::relu", 800, 100, 13, MODEL_NONE);
	mb_ev(&m, t, MK_RUNTIME, "cudaLaunchKernel", 810, 10, 13, 102);
	mb_ev(&m, s, MK_KERNEL, "relu_kernel", 900, 20, 13, 102);
	mb_module(&m, t, "nn.Module: ReLU_0", 3, 950, 30);
	/* a python function without module id is not a module */
	mb_ev(&m, t, MK_PYTHON_FUNCTION, "helper", 960, 5, MODEL_NONE, MODEL_NONE);
	compute(&p, &m);

	assert_int_equal(p.modules.rows.n, 3);
	net = &p.modules.rows.v[0];
	lin = &p.modules.rows.v[1];
	relu = &p.modules.rows.v[2];
	assert_string_equal(an_module_label(&m, net), "Net_0");
	assert_string_equal(model_str(&m, lin->name), "nn.Module: Linear_0");
	assert_string_equal(an_module_label(&m, relu), "ReLU_0");

	assert_int_equal(net->module_id, 1);
	assert_int_equal(net->parent, MODEL_NOIDX);
	assert_int_equal(net->occurrences, 1);
	assert_int_equal(net->operators, 1);
	assert_int_equal(net->host_total, 1000);
	assert_int_equal(net->host_self, 1000 - 300 - 200 - 100 - 30);
	assert_int_equal(net->dev_total, 170);
	assert_int_equal(net->dev_self, 20);
	assert_true(net->avg_duration == 170.0);

	assert_int_equal(lin->module_id, 2);
	assert_int_equal(lin->parent, 0);
	assert_int_equal(lin->occurrences, 2);
	assert_int_equal(lin->operators, 2);
	assert_int_equal(lin->host_total, 500);
	assert_int_equal(lin->host_self, 40);
	assert_int_equal(lin->dev_total, 150);
	assert_int_equal(lin->dev_self, 150);
	assert_true(lin->avg_duration == 75.0);

	assert_int_equal(relu->parent, 0);
	assert_int_equal(relu->occurrences, 1);
	assert_int_equal(relu->operators, 0);
	assert_int_equal(relu->dev_total, 0);
	assert_true(relu->avg_duration == 30.0); /* host average when no device time */

	an_profile_release(&p);
	model_release(&m);
}

/* Same name with two module ids are two rows; a module re-entered inside
 * itself keeps the outer module's parent; modules on two threads merge. */
static void test_hierarchy(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t1, t2;
	size_t i;

	(void)state;
	model_init(&m);
	t1 = mb_thr(&m, "1", "1");
	t2 = mb_thr(&m, "1", "2");
	mb_ev(&m, t1, MK_USER_ANNOTATION, "ProfilerStep#3", 0, 1000, MODEL_NONE, MODEL_NONE);
	mb_module(&m, t1, "nn.Module: Seq_0", 5, 10, 500);
	mb_module(&m, t1, "nn.Module: Block", 6, 20, 200);
	mb_module(&m, t1, "nn.Module: Block", 6, 30, 100); /* recursion */
	mb_module(&m, t1, "nn.Module: Block", 7, 300, 100);
	mb_module(&m, t2, "nn.Module: Block", 7, 0, 10);
	compute(&p, &m);

	assert_int_equal(p.modules.rows.n, 3);
	assert_int_equal(p.modules.rows.v[0].module_id, 5);
	assert_int_equal(p.modules.rows.v[0].parent, MODEL_NOIDX);
	assert_int_equal(p.modules.rows.v[1].module_id, 6);
	assert_int_equal(p.modules.rows.v[1].parent, 0);
	assert_int_equal(p.modules.rows.v[1].occurrences, 2);
	assert_int_equal(p.modules.rows.v[2].module_id, 7);
	assert_int_equal(p.modules.rows.v[2].parent, 0);
	assert_int_equal(p.modules.rows.v[2].occurrences, 2);
	assert_int_equal(p.modules.rows.v[2].host_total, 110);
	for (i = 0; i < p.modules.rows.n; i++)
		assert_true(p.modules.rows.v[i].parent == MODEL_NOIDX ||
			    p.modules.rows.v[i].parent < i);
	an_profile_release(&p);
	model_release(&m);
}

static void test_no_modules(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t;

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "1");
	mb_ev(&m, t, MK_CPU_OP, "aten::add", 0, 10, 1, MODEL_NONE);
	compute(&p, &m);
	assert_int_equal(p.modules.rows.n, 0);
	an_profile_release(&p);
	model_release(&m);
}

#define EVAL "autograd::engine::evaluate_function: "
#define ACCUMULATE EVAL "torch::autograd::AccumulateGrad"

/*
 * Forward on the main thread, inside ProfilerStep#1:
 *   Net_0 (id 1) 100..1100
 *     Linear_0 (id 2) 200..500   aten::linear 210 (fwdbwd id 1)
 *     aten::relu 600             (fwdbwd id 2)
 *     Linear_0 (id 2) 800..1000  aten::linear 810 (fwdbwd id 3)
 *     ReLU_0 (id 3) 1050..1080   no operators: no backward row
 * Backward on the autograd thread, each flow ending on the node below an
 * evaluate_function root:
 *   E1 2000..2300 (id 3; kernel 40) + AccumulateGrad 2300..2350
 *   E2 2400..2500 (id 2; kernel 20)
 *   E3 2600..2800 (id 1; kernel 60) + AccumulateGrad 2850..2880, 2900..2920
 * So Linear_0.backward = {E3 group} (2600..2920) and {E1 group}
 * (2000..2350); Net_0.backward = E2 plus both, 2000..2920.
 */
static void test_backward_modules(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t, b, s;
	const struct an_module_row *net, *lin;
	char buf[128];

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "1");
	b = mb_thr(&m, "1", "2");
	s = mb_thr(&m, "0", "stream 7");
	mb_ev(&m, t, MK_USER_ANNOTATION, "ProfilerStep#1", 0, 10000, MODEL_NONE, MODEL_NONE);
	mb_module_py(&m, t, "nn.Module: Net_0", 1, 10, 1, 100, 1000);
	mb_module_py(&m, t, "nn.Module: Linear_0", 2, 11, 10, 200, 300);
	mb_ev(&m, t, MK_CPU_OP, "aten::linear", 210, 280, 10, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "aten::addmm", 220, 260, 11, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "aten::relu", 600, 100, 12, MODEL_NONE);
	mb_module_py(&m, t, "nn.Module: Linear_0", 2, 12, 10, 800, 200);
	mb_ev(&m, t, MK_CPU_OP, "aten::linear", 810, 180, 13, MODEL_NONE);
	mb_module_py(&m, t, "nn.Module: ReLU_0", 3, 13, 10, 1050, 30);

	mb_ev(&m, b, MK_CPU_OP, EVAL "AddmmBackward0", 2000, 300, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, "AddmmBackward0", 2010, 280, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, "aten::mm", 2020, 100, 20, MODEL_NONE);
	mb_ev(&m, b, MK_RUNTIME, "cudaLaunchKernel", 2030, 10, 20, 200);
	mb_ev(&m, b, MK_CPU_OP, ACCUMULATE, 2300, 50, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, EVAL "ReluBackward0", 2400, 100, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, "ReluBackward0", 2410, 80, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, "aten::threshold_backward", 2420, 50, 21, MODEL_NONE);
	mb_ev(&m, b, MK_RUNTIME, "cudaLaunchKernel", 2430, 5, 21, 201);
	mb_ev(&m, b, MK_CPU_OP, EVAL "AddmmBackward0", 2600, 200, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, "AddmmBackward0", 2610, 150, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, "aten::mm", 2620, 100, 22, MODEL_NONE);
	mb_ev(&m, b, MK_RUNTIME, "cudaLaunchKernel", 2630, 10, 22, 202);
	mb_ev(&m, b, MK_CPU_OP, ACCUMULATE, 2850, 30, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, ACCUMULATE, 2900, 20, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, s, MK_KERNEL, "gemm", 3000, 40, 20, 200);
	mb_ev(&m, s, MK_KERNEL, "relu_bwd", 3100, 20, 21, 201);
	mb_ev(&m, s, MK_KERNEL, "gemm", 3200, 60, 22, 202);

	mb_fwdbwd_flow(&m, t, 's', 1, 210);
	mb_fwdbwd_flow(&m, t, 's', 2, 600);
	mb_fwdbwd_flow(&m, t, 's', 3, 810);
	mb_fwdbwd_flow(&m, t, 's', 4, 220); /* no 'f': ignored */
	mb_fwdbwd_flow(&m, b, 'f', 3, 2010);
	mb_fwdbwd_flow(&m, b, 'f', 2, 2410);
	mb_fwdbwd_flow(&m, b, 'f', 1, 2610);
	compute_all(&p, &m);

	assert_int_equal(p.modules.rows.n, 5);
	assert_string_equal(row_name(&m, &p.modules.rows.v[0], 1, buf, sizeof(buf)), "Net_0");
	assert_string_equal(row_name(&m, &p.modules.rows.v[1], 1, buf, sizeof(buf)), "Linear_0");
	assert_string_equal(row_name(&m, &p.modules.rows.v[2], 1, buf, sizeof(buf)), "ReLU_0");
	assert_int_equal(p.modules.rows.v[0].backward, 0);
	assert_int_equal(p.modules.rows.v[0].host_total, 1000); /* forward rows unchanged */
	assert_int_equal(p.modules.rows.v[1].occurrences, 2);

	net = &p.modules.rows.v[3];
	lin = &p.modules.rows.v[4];
	assert_string_equal(row_name(&m, net, 1, buf, sizeof(buf)), "Net_0.backward");
	assert_string_equal(row_name(&m, net, 0, buf, sizeof(buf)), "nn.Module: Net_0.backward");
	assert_string_equal(row_name(&m, lin, 1, buf, sizeof(buf)), "Linear_0.backward");
	assert_int_equal(net->backward, 1);
	assert_int_equal(net->module_id, 1);
	assert_int_equal(net->parent, MODEL_NOIDX);
	assert_int_equal(net->occurrences, 1);
	assert_int_equal(net->operators, 1); /* E2 */
	assert_int_equal(net->host_total, 2920 - 2000);
	assert_int_equal(net->host_self, 920 - 100 - 320 - 350);
	assert_int_equal(net->dev_total, 20 + 60 + 40);
	assert_int_equal(net->dev_self, 20);
	assert_true(net->avg_duration == 120.0);

	assert_int_equal(lin->backward, 1);
	assert_int_equal(lin->module_id, 2);
	assert_int_equal(lin->parent, 3);
	assert_int_equal(lin->occurrences, 2);
	assert_int_equal(lin->operators, 3 + 2);
	assert_int_equal(lin->host_total, 320 + 350);
	assert_int_equal(lin->host_self, (320 - 200 - 30 - 20) + (350 - 300 - 50));
	assert_int_equal(lin->dev_total, 60 + 40);
	assert_int_equal(lin->dev_self, 100);
	assert_true(lin->avg_duration == 50.0);
	an_profile_release(&p);
	model_release(&m);
}

/* Edge cases: a flow ending on a root's own start still finds it; a
 * leading AccumulateGrad is a group of its own; a module below an operator
 * is not a top-level module, so it gets no backward row; the last 's' of
 * an id counts. */
static void test_backward_edges(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t, b;
	const struct an_module_row *r;
	char buf[128];

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "1");
	b = mb_thr(&m, "1", "2");
	mb_module_py(&m, t, "nn.Module: A", 1, 1, 0, 100, 400);
	mb_ev(&m, t, MK_CPU_OP, "aten::add", 150, 50, 1, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "aten::mul", 300, 50, 2, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "aten::wrapper", 600, 300, 3, MODEL_NONE);
	mb_module_py(&m, t, "nn.Module: C", 9, 2, 0, 650, 200);
	mb_ev(&m, t, MK_CPU_OP, "aten::sub", 700, 10, 4, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, ACCUMULATE, 1000, 10, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, EVAL "MulBackward0", 1100, 100, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, EVAL "AddBackward0", 1300, 50, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, b, MK_CPU_OP, "AddBackward0", 1310, 30, MODEL_NONE, MODEL_NONE);
	mb_fwdbwd_flow(&m, t, 's', 1, 5000); /* superseded by the next 's' of id 1 */
	mb_fwdbwd_flow(&m, t, 's', 1, 150);
	mb_fwdbwd_flow(&m, b, 'f', 1, 1100);
	mb_fwdbwd_flow(&m, t, 's', 2, 300);
	mb_fwdbwd_flow(&m, b, 'f', 2, 1310);
	mb_fwdbwd_flow(&m, t, 's', 3, 700);
	mb_fwdbwd_flow(&m, b, 'f', 3, 1000);
	compute_all(&p, &m);

	assert_int_equal(p.modules.rows.n, 3);
	assert_string_equal(row_name(&m, &p.modules.rows.v[1], 1, buf, sizeof(buf)), "C");
	r = &p.modules.rows.v[2];
	assert_string_equal(row_name(&m, r, 1, buf, sizeof(buf)), "A.backward");
	assert_int_equal(r->parent, MODEL_NOIDX);
	assert_int_equal(r->occurrences, 1);
	assert_int_equal(r->operators, 2);
	assert_int_equal(r->host_total, 1350 - 1100);
	assert_int_equal(r->host_self, 250 - 100 - 50);
	assert_int_equal(r->dev_total, 0);
	assert_true(r->avg_duration == 250.0);
	an_profile_release(&p);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_module_stats),   cmocka_unit_test(test_hierarchy),
	    cmocka_unit_test(test_no_modules),	   cmocka_unit_test(test_backward_modules),
	    cmocka_unit_test(test_backward_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
