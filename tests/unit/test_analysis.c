/*
 * test_analysis.c - hand-computed cases for the analyses, built directly
 * with the model API, covering where nnscope deliberately differs from
 * tb_plugin: GPU-side step copies, cuda_driver launches, PyTorch 2.x
 * collective kernels, sub-microsecond traces, traces without GPU events,
 * launches without external ids (correlated by containment), and device
 * work with no launch before the first step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "mbuild.h"

#include <stdio.h>
#include <string.h>

static void ev(struct model *m, int kind, const char *name, const char *tid, int64_t ts,
	       int64_t dur, int64_t ext, int64_t corr)
{
	struct model_event e;
	int gpu = model_kind_is_device(kind) || kind == MK_GPU_ANNOTATION;

	model_event_init(&e);
	e.kind = (uint8_t)kind;
	e.name = model_intern(m, name, strlen(name));
	e.thread = mb_thr(m, gpu ? "0" : "100", tid);
	e.ts = ts;
	e.dur = dur;
	assert_int_equal(model_event_ids(m, &e, ext, corr), 0);
	if (model_kind_is_device(kind))
		e.device = 0;
	assert_true(model_add_event(m, &e) >= 0);
}

static void compute(struct model *m, struct an_profile *p)
{
	struct nns_err err;
	assert_int_equal(model_finalize(m, &err), 0);
	assert_int_equal(an_profile_compute(p, m, &err), 0);
}

/* 3 CPU steps of 100 us, each with a GPU-side copy: still 3 steps, avg 100 us
 * (tb_plugin found 5 steps and an average of 60). */
static void test_gpu_step_copies(void **st)
{
	struct model m;
	struct an_profile p;
	int i;
	(void)st;

	model_init(&m);
	for (i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof(name), "ProfilerStep#%d", i + 1);
		ev(&m, MK_USER_ANNOTATION, name, "1", i * 100000, 100000, MODEL_NONE, MODEL_NONE);
		ev(&m, MK_GPU_ANNOTATION, name, "stream 7", i * 100000 + 5000, 90000, MODEL_NONE,
		   MODEL_NONE);
		ev(&m, MK_CPU_OP, "aten::mm", "1", i * 100000 + 1000, 20000, 10 + i, MODEL_NONE);
		ev(&m, MK_RUNTIME, "cudaLaunchKernel", "1", i * 100000 + 2000, 5000, 10 + i,
		   500 + i);
		ev(&m, MK_KERNEL, "gemm", "stream 7", i * 100000 + 10000, 30000, 10 + i, 500 + i);
	}
	compute(&m, &p);
	assert_int_equal(p.overview.steps.n, 3);
	assert_true(p.overview.avg_total == 100000.0);
	/* GPU annotations are not CPU Exec. The op [1,21) us loses its launch
	 * [2,7) to Runtime and [10,21) to the kernel: CPU Exec = 1 + 3 us */
	assert_int_equal(p.overview.steps.v[0].cost[AN_CPUOP], 1000 + 3000);
	assert_int_equal(p.overview.steps.v[0].cost[AN_KERNEL], 30000);
	assert_int_equal(p.overview.steps.v[0].cost[AN_RUNTIME], 5000);
	an_profile_release(&p);
	model_release(&m);
}

/* Device work with no launch in the trace, ending inside the first step, is
 * not "before the first step" (issue 18: a step of 100,298 us of host time
 * came out as 135 us). Two steps of 100 ms (us below):
 *   nccl-like kernel with no launch [50,000, 99,000) on stream 8
 *   step 1 host [0, 100,000): op [99,400, 99,900) launches [99,500, 99,600)
 *     -> gemm [99,865, 100,000)
 *   step 2 host [100,000, 200,000): the same shape 100,000 later
 * Step 1 = [0, 100,000): 100,000 us (tb_plugin: [99,000, 100,000) = 1,000);
 * a kernel launched before step 1 would still move it: see 06 in
 * tests/golden/test_tbplugin_cases.c. */
static void test_first_step_unlaunched_work(void **st)
{
	struct model m;
	struct an_profile p;
	(void)st;

	model_init(&m);
	ev(&m, MK_KERNEL, "ncclDevKernel_AllReduce", "stream 8", 50000000, 49000000, MODEL_NONE,
	   MODEL_NONE);
	for (int i = 0; i < 2; i++) {
		int64_t o = i * 100000000LL;
		ev(&m, MK_USER_ANNOTATION, i ? "ProfilerStep#2" : "ProfilerStep#1", "1", o,
		   100000000, MODEL_NONE, MODEL_NONE);
		ev(&m, MK_CPU_OP, "aten::mm", "1", o + 99400000, 500000, 10 + i, MODEL_NONE);
		ev(&m, MK_RUNTIME, "cudaLaunchKernel", "1", o + 99500000, 100000, 10 + i, 500 + i);
		ev(&m, MK_KERNEL, "gemm", "stream 7", o + 99865000, 135000, 10 + i, 500 + i);
	}
	compute(&m, &p);
	assert_int_equal(p.overview.steps.n, 2);
	assert_int_equal(p.overview.steps.v[0].start, 0);
	assert_int_equal(p.overview.steps.v[0].end - p.overview.steps.v[0].start, 100000000);
	assert_int_equal(p.overview.steps.v[1].end - p.overview.steps.v[1].start, 100000000);
	an_profile_release(&p);
	model_release(&m);
}

/* The last step is kept with fewer device events than the one before
 * (issue 18: tb_plugin's 0.8x rule dropped the trace's last step); a
 * trailing step with no device work at all (torch.profiler's schedule
 * opens one after the last) is still dropped.
 *   steps 1, 2 [0,100), [100,200) us: two launches + kernels each
 *   step 3 [200,300): one launch + kernel (1 < 0.8 x 2)
 *   step 4 [300,310): no device work
 * 3 steps analysed, 1 dropped. */
static void test_last_step_kept(void **st)
{
	struct model m;
	struct an_profile p;
	(void)st;

	model_init(&m);
	for (int i = 0; i < 4; i++) {
		char name[32];
		int64_t o = i * 100000LL;
		snprintf(name, sizeof(name), "ProfilerStep#%d", i + 1);
		ev(&m, MK_USER_ANNOTATION, name, "1", o, i == 3 ? 10000 : 100000, MODEL_NONE,
		   MODEL_NONE);
		for (int k = 0; k < (i < 2 ? 2 : i == 2 ? 1 : 0); k++) {
			ev(&m, MK_CPU_OP, "aten::mm", "1", o + 1000 + k * 20000, 10000,
			   10 + i * 2 + k, MODEL_NONE);
			ev(&m, MK_RUNTIME, "cudaLaunchKernel", "1", o + 2000 + k * 20000, 1000,
			   10 + i * 2 + k, 500 + i * 2 + k);
			ev(&m, MK_KERNEL, "gemm", "stream 7", o + 5000 + k * 20000, 10000,
			   10 + i * 2 + k, 500 + i * 2 + k);
		}
	}
	compute(&m, &p);
	assert_int_equal(p.overview.steps.n, 3);
	assert_string_equal(p.overview.steps.v[2].name, "3");
	assert_int_equal(p.overview.steps_dropped, 1);
	an_profile_release(&p);
	model_release(&m);
}

/* Kernels launched through cuLaunchKernel (cuda_driver) reach their op. */
static void test_driver_launch(void **st)
{
	struct model m;
	struct an_profile p;
	size_t i;
	const struct an_op_row *r = NULL;
	(void)st;

	model_init(&m);
	ev(&m, MK_CPU_OP, "triton_op", "1", 0, 50000, 7, MODEL_NONE);
	ev(&m, MK_DRIVER, "cuLaunchKernel", "1", 10000, 10000, 7, 900);
	ev(&m, MK_KERNEL, "triton_poi_fused", "stream 7", 30000, 40000, 7, 900);
	compute(&m, &p);
	for (i = 0; i < p.ops.by_name.n; i++)
		if (strcmp(model_str(&m, p.ops.by_name.v[i].name), "triton_op") == 0)
			r = &p.ops.by_name.v[i];
	assert_non_null(r);
	assert_int_equal(r->dev_self, 40000);
	assert_int_equal(r->host_self, 40000);
	assert_int_equal(p.kernels.by_properties.n, 1);
	an_profile_release(&p);
	model_release(&m);
}

/* PyTorch 2.x: the NCCL kernel's external id is its correlation id, yet it
 * is communication, not computation. */
static void test_nccl_kernel_by_name(void **st)
{
	struct model m;
	struct an_profile p;
	(void)st;

	model_init(&m);
	ev(&m, MK_USER_ANNOTATION, "ProfilerStep#1", "1", 0, 100000, MODEL_NONE, MODEL_NONE);
	ev(&m, MK_USER_ANNOTATION, "nccl:all_reduce", "1", 1000, 10000, 3, MODEL_NONE);
	ev(&m, MK_RUNTIME, "cudaLaunchKernel", "1", 2000, 2000, 3, 77);
	ev(&m, MK_KERNEL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "stream 9", 20000, 50000, 77,
	   77);
	compute(&m, &p);
	assert_int_equal(p.overview.steps.n, 1);
	assert_int_equal(p.overview.steps.v[0].cost[AN_KERNEL], 0);
	/* Communication outranks Runtime: op [1,11) us + kernel [20,70) us */
	assert_int_equal(p.overview.steps.v[0].cost[AN_COMM], 10000 + 50000);
	assert_int_equal(p.overview.steps.v[0].cost[AN_RUNTIME], 0);
	assert_true(p.overview.has_communication);
	an_profile_release(&p);
	model_release(&m);
}

/* A trace 300 ns long (tb_plugin crashed: 0 utilization buckets). */
static void test_sub_microsecond(void **st)
{
	struct model m;
	struct an_profile p;
	(void)st;

	model_init(&m);
	ev(&m, MK_CPU_OP, "aten::add", "1", 1000, 300, 1, MODEL_NONE);
	ev(&m, MK_RUNTIME, "cudaLaunchKernel", "1", 1100, 50, 1, 5);
	ev(&m, MK_KERNEL, "add_kernel", "stream 7", 1200, 100, 1, 5);
	compute(&m, &p);
	assert_int_equal(p.overview.steps.n, 1);
	assert_int_equal(p.gpus.n, 1);
	assert_true(p.gpus.v[0].util_buckets.n >= 2);
	assert_int_equal(p.overview.steps.v[0].end - p.overview.steps.v[0].start, 300);
	an_profile_release(&p);
	model_release(&m);
}

/* No GPU events at all: one step, CPU Exec and Other only, no GPU rows. */
static void test_cpu_only(void **st)
{
	struct model m;
	struct an_profile p;
	(void)st;

	model_init(&m);
	ev(&m, MK_CPU_OP, "aten::conv2d", "1", 0, 1000, 1, MODEL_NONE);
	ev(&m, MK_CPU_OP, "aten::relu", "1", 3000, 1000, 2, MODEL_NONE);
	compute(&m, &p);
	assert_int_equal(p.overview.steps.n, 1);
	assert_string_equal(p.overview.steps.v[0].name, "0");
	assert_int_equal(p.overview.steps.v[0].cost[AN_CPUOP], 2000);
	assert_int_equal(p.overview.steps.v[0].cost[AN_OTHER], 2000);
	assert_int_equal(p.gpus.n, 0);
	assert_int_equal(p.kernels.by_name.n, 0);
	assert_int_equal(p.ops.by_name.n, 2);
	an_profile_release(&p);
	model_release(&m);
}

/* Launches with no external id (nnscope's own traces) attach to the
 * innermost op of their thread that contains them. */
static void test_containment(void **st)
{
	struct model m;
	struct an_profile p;
	size_t i;
	int64_t outer = -1, inner = -1;
	(void)st;

	model_init(&m);
	ev(&m, MK_CPU_OP, "outer", "1", 0, 100, MODEL_NONE, MODEL_NONE);
	ev(&m, MK_CPU_OP, "inner", "1", 10, 50, MODEL_NONE, MODEL_NONE);
	ev(&m, MK_RUNTIME, "cudaLaunchKernel", "1", 20, 10, MODEL_NONE, 1);
	ev(&m, MK_RUNTIME, "cudaLaunchKernel", "1", 70, 10, MODEL_NONE, 2);
	ev(&m, MK_KERNEL, "k1", "stream 7", 40, 5, MODEL_NONE, 1);
	ev(&m, MK_KERNEL, "k2", "stream 7", 90, 7, MODEL_NONE, 2);
	compute(&m, &p);
	for (i = 0; i < p.ops.by_name.n; i++) {
		if (strcmp(model_str(&m, p.ops.by_name.v[i].name), "outer") == 0)
			outer = p.ops.by_name.v[i].dev_self;
		if (strcmp(model_str(&m, p.ops.by_name.v[i].name), "inner") == 0)
			inner = p.ops.by_name.v[i].dev_self;
	}
	assert_int_equal(inner, 5);
	assert_int_equal(outer, 7);
	an_profile_release(&p);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpu_step_copies),
	    cmocka_unit_test(test_first_step_unlaunched_work),
	    cmocka_unit_test(test_last_step_kept),
	    cmocka_unit_test(test_driver_launch),
	    cmocka_unit_test(test_nccl_kernel_by_name),
	    cmocka_unit_test(test_sub_microsecond),
	    cmocka_unit_test(test_cpu_only),
	    cmocka_unit_test(test_containment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
