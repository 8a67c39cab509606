/*
 * test_modules.c - unit tests of the module view (src/analysis/modules.c):
 * rows per (name, module id), occurrences, direct child operators, host and
 * device totals and selfs, avg_duration and the parent hierarchy.
 */
#include "analysis/analysis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static uint32_t str(struct model *m, const char *s)
{
	return model_intern(m, s, strlen(s));
}

static uint32_t thr(struct model *m, const char *pid, const char *tid)
{
	return model_thread(m, str(m, pid), str(m, tid));
}

static void ev(struct model *m, uint32_t th, int kind, const char *name, int64_t ts, int64_t dur,
	       int64_t ext, int64_t corr)
{
	struct model_event e;
	model_event_init(&e);
	e.name = str(m, name);
	e.thread = th;
	e.kind = (uint8_t)kind;
	e.ts = ts;
	e.dur = dur;
	e.ext_id = ext;
	e.corr = corr;
	if (kind == MK_KERNEL) {
		struct model_dev_args a;
		int64_t x;
		model_dev_args_init(&a);
		x = model_add_dev_args(m, &a);
		assert_true(x >= 0);
		e.extra = (uint32_t)x;
		e.device = 0;
	}
	assert_true(model_add_event(m, &e) >= 0);
}

static void module(struct model *m, uint32_t th, const char *name, int64_t id, int64_t ts, int64_t dur)
{
	struct model_event e;
	struct model_op_args a;
	int64_t x;

	model_op_args_init(&a);
	a.py_module_id = id;
	x = model_add_op_args(m, &a);
	assert_true(x >= 0);
	model_event_init(&e);
	e.name = str(m, name);
	e.thread = th;
	e.kind = MK_PYTHON_FUNCTION;
	e.ts = ts;
	e.dur = dur;
	e.extra = (uint32_t)x;
	assert_true(model_add_event(m, &e) >= 0);
}

static void compute(struct an_profile *p, struct model *m)
{
	struct nns_err err;
	memset(p, 0, sizeof(*p));
	p->m = m;
	assert_int_equal(model_finalize(m, &err), 0);
	assert_int_equal(an_steps_compute(p, &err), 0);
	assert_int_equal(an_breakdown_compute(p, &err), 0);
	assert_int_equal(an_optree_compute(p, &err), 0);
	assert_int_equal(an_modules_compute(p, &err), 0);
}

static void test_module_stats(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t, s;
	const struct an_module_row *net, *lin, *relu;

	(void)state;
	model_init(&m);
	t = thr(&m, "1", "1");
	s = thr(&m, "0", "stream 7");
	module(&m, t, "nn.Module: Net_0", 1, 0, 1000);
	module(&m, t, "nn.Module: Linear_0", 2, 100, 300);
	ev(&m, t, MK_CPU_OP, "aten::linear", 110, 280, 10, MODEL_NONE);
	ev(&m, t, MK_CPU_OP, "aten::addmm", 120, 260, 11, MODEL_NONE);
	ev(&m, t, MK_RUNTIME, "cudaLaunchKernel", 130, 10, 11, 100);
	ev(&m, s, MK_KERNEL, "gemm", 500, 100, 11, 100);
	module(&m, t, "nn.Module: Linear_0", 2, 500, 200);
	ev(&m, t, MK_CPU_OP, "aten::linear", 510, 180, 12, MODEL_NONE);
	ev(&m, t, MK_RUNTIME, "cudaLaunchKernel", 520, 10, 12, 101);
	ev(&m, s, MK_KERNEL, "gemm", 700, 50, 12, 101);
	ev(&m, t, MK_CPU_OP, "aten::relu", 800, 100, 13, MODEL_NONE);
	ev(&m, t, MK_RUNTIME, "cudaLaunchKernel", 810, 10, 13, 102);
	ev(&m, s, MK_KERNEL, "relu_kernel", 900, 20, 13, 102);
	module(&m, t, "nn.Module: ReLU_0", 3, 950, 30);
	/* a python function without module id is not a module */
	ev(&m, t, MK_PYTHON_FUNCTION, "helper", 960, 5, MODEL_NONE, MODEL_NONE);
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
	t1 = thr(&m, "1", "1");
	t2 = thr(&m, "1", "2");
	ev(&m, t1, MK_USER_ANNOTATION, "ProfilerStep#3", 0, 1000, MODEL_NONE, MODEL_NONE);
	module(&m, t1, "nn.Module: Seq_0", 5, 10, 500);
	module(&m, t1, "nn.Module: Block", 6, 20, 200);
	module(&m, t1, "nn.Module: Block", 6, 30, 100); /* recursion */
	module(&m, t1, "nn.Module: Block", 7, 300, 100);
	module(&m, t2, "nn.Module: Block", 7, 0, 10);
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
		assert_true(p.modules.rows.v[i].parent == MODEL_NOIDX || p.modules.rows.v[i].parent < i);
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
	t = thr(&m, "1", "1");
	ev(&m, t, MK_CPU_OP, "aten::add", 0, 10, 1, MODEL_NONE);
	compute(&p, &m);
	assert_int_equal(p.modules.rows.n, 0);
	an_profile_release(&p);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_module_stats),
		cmocka_unit_test(test_hierarchy),
		cmocka_unit_test(test_no_modules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
