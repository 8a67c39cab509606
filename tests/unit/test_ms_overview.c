/*
 * test_ms_overview.c - the generic overview of a MindSpore (Ascend) device
 * (issue 22): on a hand-written profiler directory, with values computed by
 * hand below,
 *   - model_class_of: HCCL and MindSpore all-reduce stream names are
 *     communication, look-alikes are not;
 *   - ms_load_device: the step trace's steps become the model's steps,
 *     placed by min_cycle_counter_<dev>.txt or, without it, by
 *     output_timeline_data_<dev>.txt's first AI Core op;
 *   - the overview: communication rows are communication, one device (the
 *     AI Core pid 1 of device 0 too), an NPU, no GPU advice;
 *   - ms_profile_keep_steps: the step trace cut to steps, its summary again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/an_gpu.h"
#include "analysis/an_ms.h"
#include "analysis/analysis.h"
#include "importers/ms_load.h"

static void test_class_of(void **st)
{
	(void)st;
	assert_int_equal(model_class_of(MK_KERNEL, "stream_520_parallel_0"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "stream_3_1"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "hcom_allReduce__360_0_1"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "HcomAllReduce"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "AllReduce-op12"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "Default/network/AllGather-op88"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "Gradients/Broadcast-op3"), MC_COMM);
	/* look-alikes stay computation */
	assert_int_equal(model_class_of(MK_KERNEL, "BroadcastTo-op5"), MC_COMPUTE);
	assert_int_equal(model_class_of(MK_KERNEL, "StreamSend-op3"), MC_COMPUTE);
	assert_int_equal(model_class_of(MK_KERNEL, "Send"), MC_COMPUTE);
	assert_int_equal(model_class_of(MK_KERNEL, "stream_x_1"), MC_COMPUTE);
	assert_int_equal(model_class_of(MK_KERNEL, "MatMul-op1"), MC_COMPUTE);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Device 0, its AI Core under pid 1 (as profiler/'s timeline has it).
 * Base 1,000,000 counts (10 ns) = ts 0. Steps: 1 = counts +5,000..+100,000
 * = 50..1000 us; 2 = +100,000..+200,000 = 1000..2000 us.
 * Step 1: MatMul 100-150, Add 300-320 (kernel 70), the all-reduce stream
 * 160-260 (communication 100), other 950 - 170 = 780.
 * Step 2: GetNext (AI CPU) 1100-1110 (kernel 10), AllReduce-op3 1200-1250
 * (communication 50), other 1000 - 60 = 940. */
static const char *TIMELINE =
    "[{\"name\":\"MatMul-op1\",\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":100,\"dur\":50},"
    "{\"name\":\"Add-op2\",\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":300,\"dur\":20},"
    "{\"name\":\"stream_7_parallel_0\",\"ph\":\"X\",\"pid\":10000,\"tid\":7,\"ts\":160,"
    "\"dur\":100},"
    "{\"name\":\"GetNext\",\"ph\":\"X\",\"pid\":9000,\"tid\":0,\"ts\":1100,\"dur\":10},"
    "{\"name\":\"AllReduce-op3\",\"ph\":\"X\",\"pid\":10000,\"tid\":9,\"ts\":1200,"
    "\"dur\":50}]";
static const char *STEPS =
    "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,"
    "tail\n"
    "1,1005000,1100000,95000,1005000,1090000,0,85000,10000\n"
    "2,1100000,1200000,100000,1102000,1190000,2000,88000,10000\n"
    "-,1052500,1150000,97500,1053500,1140000,1000,86500,10000\n";

static void make_dir(char *dir, int with_counter)
{
	strcpy(dir, "/tmp/nns-msov-XXXXXX");
	assert_non_null(mkdtemp(dir));
	put(dir, "timeline_display_0.json", TIMELINE);
	put(dir, "step_trace_raw_0_detail_time.csv", STEPS);
	if (with_counter)
		put(dir, "min_cycle_counter_0.txt", "1000000.0");
	else /* MatMul, the first AI Core op, at 1,010,000 counts = 10.1 ms = ts 100 us */
		put(dir, "output_timeline_data_0.txt",
		    "op_name, stream_id, start_time(ms), duration(ms)\n"
		    "Default/Add-op2,5,10.3,0.02\nDefault/MatMul-op1,5,10.1,0.05\n");
}

static void rm_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void check_device(const char *dir)
{
	char path[512];
	struct model m;
	struct an_profile p;
	struct nns_err err;
	const struct an_step *s;

	snprintf(path, sizeof(path), "%s/timeline_display_0.json", dir);
	nns_err_clear(&err);
	assert_int_equal(ms_load_device(&m, path, NULL, &err), NNS_OK);
	assert_string_equal(an_device_kind(&m), "NPU");
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	assert_int_equal(p.overview.steps.n, 2);
	s = &p.overview.steps.v[0];
	assert_string_equal(s->name, "1");
	assert_int_equal(s->start, 50000);
	assert_int_equal(s->end, 1000000);
	assert_int_equal(s->cost[AN_KERNEL], 70000);
	assert_int_equal(s->cost[AN_COMM], 100000);
	assert_int_equal(s->cost[AN_OTHER], 780000);
	s = &p.overview.steps.v[1];
	assert_string_equal(s->name, "2");
	assert_int_equal(s->cost[AN_KERNEL], 10000);
	assert_int_equal(s->cost[AN_COMM], 50000);
	assert_int_equal(s->cost[AN_OTHER], 940000);
	/* one device (AI Core pid 1, AI CPU 9000, communication 10000 of
	 * device 0), and no GPU advice although it is 8 % busy */
	assert_int_equal(p.devices_used, 1);
	assert_int_equal(p.gpus.n, 1);
	assert_int_equal(p.gpus.v[0].id, 0);
	for (size_t i = 0; i < p.advice.items.n; i++) {
		assert_string_not_equal(p.advice.items.v[i].id, "gpu_utilization");
		assert_string_not_equal(p.advice.items.v[i].id, "amp");
	}
	/* MindInsight's step-trace proposal: average interval 1000 counts =
	 * 0.01 ms, not above 0.5 ms, so none */
	assert_int_equal(an_ms_attach(&p, &err), NNS_OK);
	assert_non_null(p.ms);
	for (size_t i = 0; i < p.advice.items.n; i++)
		assert_string_not_equal(p.advice.items.v[i].id, "step_trace-iter_interval");
	/* --steps 2-2: the step-trace table keeps step 2 and a new average
	 * (step 2 itself): total 100000 counts = 1.0 ms, fp_bp 0.88 ms (88 %) */
	ms_profile_keep_steps(p.ms, 2, 2);
	assert_int_equal(p.ms->steps.n, 2);
	assert_string_equal(p.ms->steps.v[0].name, "2");
	assert_true(p.ms->sum.total_ms == 1.0);
	assert_true(p.ms->sum.fp_bp_ms == 0.88);
	assert_true(p.ms->sum.fp_bp_pct == 88.0);
	assert_int_equal(p.ms->sum.total_steps, 1);
	an_profile_release(&p);
	model_release(&m);
}

static void test_steps_by_counter(void **st)
{
	char dir[64];

	(void)st;
	make_dir(dir, 1);
	check_device(dir);
	rm_dir(dir);
}

static void test_steps_by_timeline_data(void **st)
{
	char dir[64];

	(void)st;
	make_dir(dir, 0);
	check_device(dir);
	rm_dir(dir);
}

/* ms_profile_keep_steps leaves step 1 out of the average when other steps
 * are kept, as MindSpore's average row does: steps 1-2 average = step 2. */
static void test_keep_steps_first(void **st)
{
	char dir[64], path[512];
	struct model m;
	struct an_profile p;
	struct nns_err err;

	(void)st;
	make_dir(dir, 1);
	snprintf(path, sizeof(path), "%s/timeline_display_0.json", dir);
	nns_err_clear(&err);
	assert_int_equal(ms_load_device(&m, path, NULL, &err), NNS_OK);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	assert_int_equal(an_ms_attach(&p, &err), NNS_OK);
	ms_profile_keep_steps(p.ms, 1, 2);
	assert_int_equal(p.ms->steps.n, 3);
	assert_true(p.ms->sum.total_ms == 1.0);
	assert_int_equal(p.ms->sum.total_steps, 2);
	an_profile_release(&p);
	model_release(&m);
	rm_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_class_of),
	    cmocka_unit_test(test_steps_by_counter),
	    cmocka_unit_test(test_steps_by_timeline_data),
	    cmocka_unit_test(test_keep_steps_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
