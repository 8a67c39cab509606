/*
 * test_steptrace.c - the step trace (src/analysis/steptrace.c) on
 * hand-computed Kineto traces: DataLoader, forward, backward on the
 * autograd thread, Optimizer.step; a step without backward (optimizer
 * start, else the last operator); a backward kernel ending after its host
 * op; a trace without steps; a step whose adjusted start passes its first
 * operator (clamping); operators ahead of the DataLoader; steptrace.json
 * read back with jansson; and invariants on real traces of ../shared when
 * present.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "importers/kineto.h"
#include "output/output.h"
#include "testutil.h"

static void load(const char *json, struct model *m, struct an_profile *p)
{
	struct nns_err err;

	model_init(m);
	assert_int_equal(kineto_load_buffer(json, strlen(json), "test", m, NULL, &err), NNS_OK);
	assert_int_equal(an_profile_compute(p, m, &err), NNS_OK);
}

static void done(struct model *m, struct an_profile *p)
{
	an_profile_release(p);
	model_release(m);
}

/* Every row: parts >= 0, summing exactly to end - start; averages match. */
static void check_invariants(const struct an_profile *p)
{
	const struct an_steptrace *st = &p->steptrace;
	double s[4] = {0, 0, 0, 0};

	assert_int_equal(st->steps.n, p->overview.steps.n);
	for (size_t i = 0; i < st->steps.n; i++) {
		const struct an_steptrace_row *r = &st->steps.v[i];

		assert_string_equal(r->name, p->overview.steps.v[i].name);
		assert_true(r->start == p->overview.steps.v[i].start);
		assert_true(r->end == p->overview.steps.v[i].end);
		assert_true(r->iteration_interval >= 0);
		assert_true(r->fp_bp >= 0);
		assert_true(r->tail >= 0);
		assert_true(r->iteration_interval + r->fp_bp + r->tail == r->end - r->start);
		s[0] += (double)r->iteration_interval;
		s[1] += (double)r->fp_bp;
		s[2] += (double)r->tail;
		s[3] += (double)(r->end - r->start);
	}
	if (st->steps.n) {
		double n = (double)st->steps.n;
		assert_true(fabs(st->avg_interval - s[0] / n) < 1e-6);
		assert_true(fabs(st->avg_fp_bp - s[1] / n) < 1e-6);
		assert_true(fabs(st->avg_tail - s[2] / n) < 1e-6);
		assert_true(fabs(st->avg_total - s[3] / n) < 1e-6);
	}
}

static void expect_row(const struct an_profile *p, size_t i, const char *name, int64_t interval_us,
		       int64_t fp_bp_us, int64_t tail_us)
{
	const struct an_steptrace_row *r;

	assert_true(i < p->steptrace.steps.n);
	r = &p->steptrace.steps.v[i];
	assert_string_equal(r->name, name);
	assert_int_equal(r->iteration_interval, interval_us * 1000);
	assert_int_equal(r->fp_bp, fp_bp_us * 1000);
	assert_int_equal(r->tail, tail_us * 1000);
}

#define CPU(name, tid, ts, dur, ext)                                                               \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid           \
	",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"External id\":" #ext "}}"
#define LAUNCH(tid, ts, dur, ext, corr)                                                            \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"          \
	"\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"External id\":" #ext         \
	",\"correlation\":" #corr "}}"
#define KERNEL(name, ts, dur, corr)                                                                \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts   \
	",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr ",\"device\":0,\"stream\":7}}"

/* One training step, times in us:
 *   ProfilerStep#1                      [100, 1100)
 *   enumerate(DataLoader)#...__next__   [110, 310)  (aten::stack inside)
 *   aten::to                            [320, 340)  <- first operator
 *   aten::linear > aten::addmm          [350, 500)  kernel [400, 450)
 *   evaluate_function: AddmmBackward0   [550, 800)  on the autograd thread,
 *     > AddmmBackward0 > aten::mm       kernel [650, BWD_KERNEL_END)
 *   Optimizer.step#SGD.step             [850, 1000)
 * interval 320 - 100, fp_bp to the end of backward (800, or the kernel's
 * end when later), tail the rest. One event a line: */
/* clang-format off */
#define STEP_TRACE(bwd_kernel_dur)                                                                 \
	"{\"schemaVersion\":1,\"traceEvents\":["                                                   \
	CPU("ProfilerStep#1", 1, 100, 1000, 1) ","                                                 \
	CPU("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 110, 200, 2) ","     \
	CPU("aten::stack", 1, 150, 100, 3) ","                                                     \
	CPU("aten::to", 1, 320, 20, 4) ","                                                         \
	CPU("aten::linear", 1, 350, 150, 5) ","                                                    \
	CPU("aten::addmm", 1, 360, 120, 6) ","                                                     \
	LAUNCH(1, 370, 10, 6, 1) ","                                                               \
	KERNEL("gemm_fwd", 400, 50, 1) ","                                                         \
	CPU("autograd::engine::evaluate_function: AddmmBackward0", 2, 550, 250, 7) ","             \
	CPU("AddmmBackward0", 2, 560, 230, 8) ","                                                  \
	CPU("aten::mm", 2, 570, 210, 9) ","                                                        \
	LAUNCH(2, 600, 10, 9, 2) ","                                                               \
	KERNEL("gemm_bwd", 650, bwd_kernel_dur, 2) ","                                             \
	CPU("Optimizer.step#SGD.step", 1, 850, 150, 10) "]}"
/* clang-format on */

static void test_full_step(void **state)
{
	struct model m;
	struct an_profile p;
	(void)state;

	load(STEP_TRACE(100), &m, &p); /* backward kernel [650, 750): before 800 */
	assert_int_equal(p.overview.steps.n, 1);
	expect_row(&p, 0, "1", 220, 480, 300);
	check_invariants(&p);
	assert_true(p.steptrace.avg_total == 1000000.0);
	assert_true(p.steptrace.avg_interval == 220000.0);
	done(&m, &p);
}

static void test_backward_kernel_after_host_op(void **state)
{
	struct model m;
	struct an_profile p;
	(void)state;

	/* backward kernel [650, 1050): ends after its op (800) -> fp_bp to 1050 */
	load(STEP_TRACE(400), &m, &p);
	expect_row(&p, 0, "1", 220, 730, 50);
	check_invariants(&p);
	done(&m, &p);

	/* [650, 1200): past the host step, which the device adjustment extends
	 * to 1200: no tail left */
	load(STEP_TRACE(550), &m, &p);
	assert_int_equal(p.overview.steps.v[0].end - p.overview.steps.v[0].start, 1100000);
	expect_row(&p, 0, "1", 220, 880, 0);
	check_invariants(&p);
	done(&m, &p);
}

/* Step 1: no backward -> FP ends at Optimizer.step (zero_grad is not it,
 * and, being no data loading, it is the first operator). Step 2: no
 * backward, no optimizer -> FP ends with the last operator. */
/* clang-format off */
static const char NO_BACKWARD[] =
    "{\"schemaVersion\":1,\"traceEvents\":["
    CPU("ProfilerStep#1", 1, 0, 1000, 1) ","
    CPU("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 10, 90, 2) ","
    CPU("Optimizer.zero_grad#SGD.zero_grad", 1, 105, 10, 3) ","
    CPU("aten::linear", 1, 120, 280, 4) ","
    CPU("aten::addmm", 1, 130, 200, 5) ","
    CPU("Optimizer.step#SGD.step", 1, 600, 300, 6) ","
    CPU("ProfilerStep#2", 1, 1000, 1000, 7) ","
    CPU("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1000, 100, 8) ","
    CPU("aten::linear", 1, 1100, 200, 9) "]}";
/* clang-format on */

static void test_no_backward(void **state)
{
	struct model m;
	struct an_profile p;
	(void)state;

	load(NO_BACKWARD, &m, &p);
	assert_int_equal(p.overview.steps.n, 2);
	expect_row(&p, 0, "1", 105, 495, 400);
	expect_row(&p, 1, "2", 100, 200, 700);
	check_invariants(&p);
	assert_true(p.steptrace.avg_interval == 102500.0);
	done(&m, &p);
}

/* No ProfilerStep: one step "0" over the CPU operators [0, 400). The main
 * thread is the one that loads data, not the pin-memory-like thread 2 whose
 * operator starts first. */
/* clang-format off */
static const char NO_STEPS[] = "{\"schemaVersion\":1,\"traceEvents\":["
    CPU("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 0, 50, 1) ","
    CPU("aten::copy_", 2, 5, 15, 2) ","
    CPU("aten::mm", 1, 60, 140, 3) ","
    CPU("MmBackward0", 1, 210, 90, 4) ","
    CPU("aten::mm", 1, 220, 70, 5) ","
    CPU("Optimizer.step#SGD.step", 1, 310, 90, 6) "]}";
/* clang-format on */

static void test_no_steps(void **state)
{
	struct model m;
	struct an_profile p;
	(void)state;

	load(NO_STEPS, &m, &p);
	assert_int_equal(p.overview.steps.n, 1);
	expect_row(&p, 0, "0", 60, 240, 100);
	check_invariants(&p);
	done(&m, &p);
}

/* Small operators ahead of the DataLoader (metric zeros, as in PyTorch's
 * ResNet examples) are part of the wait for data: FP starts at the first
 * operator after the step's data, [0, 1000) ->
 *   aten::zeros [5, 15), DataLoader [20, 300), aten::to [310, 320),
 *   aten::conv2d [330, 500), ConvolutionBackward0 [520, 700),
 *   Optimizer.step [720, 900), then a DataLoader prefetch [900, 950) after
 *   the optimizer step, which is not this step's wait. */
/* clang-format off */
static const char AHEAD_OF_DATA[] = "{\"schemaVersion\":1,\"traceEvents\":["
    CPU("ProfilerStep#4", 1, 0, 1000, 1) ","
    CPU("aten::zeros", 1, 5, 10, 2) ","
    CPU("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 20, 280, 3) ","
    CPU("aten::to", 1, 310, 10, 4) ","
    CPU("aten::conv2d", 1, 330, 170, 5) ","
    CPU("autograd::engine::evaluate_function: ConvolutionBackward0", 1, 520, 180, 6) ","
    CPU("Optimizer.step#SGD.step", 1, 720, 180, 7) ","
    CPU("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 900, 50, 8) "]}";
/* clang-format on */

static void test_ops_ahead_of_data(void **state)
{
	struct model m;
	struct an_profile p;
	(void)state;

	load(AHEAD_OF_DATA, &m, &p);
	expect_row(&p, 0, "4", 310, 390, 300);
	check_invariants(&p);
	done(&m, &p);
}

/* Nothing but data loading: all of it is iteration interval. */
/* clang-format off */
static const char ONLY_DATA[] = "{\"schemaVersion\":1,\"traceEvents\":["
    CPU("ProfilerStep#3", 1, 0, 100, 1) ","
    CPU("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 10, 50, 2) ","
    CPU("aten::stack", 1, 20, 30, 3) "]}";
/* clang-format on */

static void test_only_data(void **state)
{
	struct model m;
	struct an_profile p;
	(void)state;

	load(ONLY_DATA, &m, &p);
	expect_row(&p, 0, "3", 100, 0, 0);
	check_invariants(&p);
	done(&m, &p);
}

/* Step 1's kernel [150, 1060) runs into step 2 [1000, 2000): step 2 starts
 * at 1060 after device adjustment, past its first operator (1010) and its
 * own backward (host end 1050): interval clamps to 0, FP+BP to 0. */
/* clang-format off */
static const char SPILL[] = "{\"schemaVersion\":1,\"traceEvents\":["
    CPU("ProfilerStep#1", 1, 0, 1000, 1) ","
    CPU("aten::mm", 1, 100, 100, 2) ","
    LAUNCH(1, 120, 10, 2, 1) ","
    KERNEL("k1", 150, 910, 1) ","
    CPU("ProfilerStep#2", 1, 1000, 1000, 3) ","
    CPU("aten::mm", 1, 1010, 20, 4) ","
    CPU("MmBackward0", 1, 1030, 20, 5) ","
    LAUNCH(1, 1035, 5, 5, 2) ","
    KERNEL("k2", 1100, 100, 2) ","
    CPU("aten::mm", 1, 1500, 100, 6) ","
    LAUNCH(1, 1510, 5, 6, 3) ","
    KERNEL("k3", 1520, 100, 3) "]}";
/* clang-format on */

static void test_clamped(void **state)
{
	struct model m;
	struct an_profile p;
	(void)state;

	load(SPILL, &m, &p);
	assert_int_equal(p.overview.steps.n, 2);
	assert_int_equal(p.overview.steps.v[1].start, 1060000);
	/* step 2: FP from 1060 (clamped) to the backward kernel's end 1200 */
	expect_row(&p, 1, "2", 0, 140, 800);
	check_invariants(&p);
	done(&m, &p);
}

static void test_json(void **state)
{
	struct model m;
	struct an_profile p;
	struct jsonw w;
	json_error_t je;
	json_t *j, *steps, *s0, *avg;
	char *out;
	size_t len;
	(void)state;

	load(NO_BACKWARD, &m, &p);
	assert_int_equal(jsonw_init_mem(&w, 0, 2), 0);
	out_json_steptrace(&w, &p);
	assert_int_equal(jsonw_finish(&w, NULL), NNS_OK);
	out = jsonw_take(&w, &len);
	jsonw_release(&w);
	j = json_loads(out, 0, &je);
	assert_non_null(j);
	steps = json_object_get(j, "steps");
	assert_int_equal(json_array_size(steps), 2);
	s0 = json_array_get(steps, 0);
	assert_string_equal(json_string_value(json_object_get(s0, "name")), "1");
	assert_true(json_number_value(json_object_get(s0, "start_us")) == 0.0);
	assert_true(json_number_value(json_object_get(s0, "end_us")) == 1000.0);
	assert_true(json_number_value(json_object_get(s0, "iteration_interval_us")) == 105.0);
	assert_true(json_number_value(json_object_get(s0, "fp_bp_us")) == 495.0);
	assert_true(json_number_value(json_object_get(s0, "tail_us")) == 400.0);
	assert_true(json_number_value(json_object_get(s0, "total_us")) == 1000.0);
	avg = json_object_get(j, "average");
	assert_true(json_number_value(json_object_get(avg, "iteration_interval_us")) == 102.5);
	assert_true(json_number_value(json_object_get(avg, "fp_bp_us")) == 347.5);
	assert_true(json_number_value(json_object_get(avg, "tail_us")) == 550.0);
	assert_true(json_number_value(json_object_get(avg, "total_us")) == 1000.0);
	json_decref(j);
	free(out);
	done(&m, &p);
}

/* Pseudo-random steps on two threads with launches and kernels, built with
 * the model API: whatever the layout, the invariants hold. */
static void add(struct model *m, int kind, const char *name, const char *pid, const char *tid,
		int64_t ts, int64_t dur, int64_t ext, int64_t corr)
{
	struct model_event e;

	model_event_init(&e);
	e.kind = (uint8_t)kind;
	e.name = model_intern(m, name, strlen(name));
	e.thread =
	    model_thread(m, model_intern(m, pid, strlen(pid)), model_intern(m, tid, strlen(tid)));
	e.ts = ts;
	e.dur = dur;
	assert_int_equal(model_event_ids(m, &e, ext, corr), 0);
	if (model_kind_is_device(kind))
		e.device = 0;
	assert_true(model_add_event(m, &e) >= 0);
}

static void test_random_invariants(void **state)
{
	static const char *const names[] = {
	    "aten::mm",
	    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
	    "MmBackward0",
	    "Optimizer.step#SGD.step",
	    "Optimizer.zero_grad#SGD.zero_grad",
	    "autograd::engine::evaluate_function: MmBackward0",
	    "aten::to"};
	uint64_t seed = 12345;
	(void)state;

	for (int round = 0; round < 20; round++) {
		struct model m;
		struct an_profile p;
		struct nns_err err;
		int64_t t = 0, ext = 1, corr = 1;
		int steps = 1 + round % 5;

		model_init(&m);
		for (int s = 0; s < steps; s++) {
			int64_t len = 5000, at;
			char sname[32];
			snprintf(sname, sizeof(sname), "ProfilerStep#%d", s);
			if (round % 7 != 3) /* some rounds have no steps at all */
				add(&m, MK_USER_ANNOTATION, sname, "1", "1", t, len, MODEL_NONE,
				    MODEL_NONE);
			at = t;
			for (int k = 0; k < 12; k++) {
				int64_t dur;
				const char *tid;
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				dur = 10 + (int64_t)((seed >> 33) % 400);
				tid = (seed >> 20) % 4 == 0 ? "2" : "1";
				if (at + dur > t + len)
					break;
				add(&m, MK_CPU_OP, names[(seed >> 40) % 7], "1", tid, at, dur, ext,
				    MODEL_NONE);
				if ((seed >> 50) % 2) {
					add(&m, MK_RUNTIME, "cudaLaunchKernel", "1", tid, at + 1, 2,
					    ext, corr);
					/* kernels may run long, into the next step */
					add(&m, MK_KERNEL, "k", "0", "stream 7", at + 5,
					    1 + (int64_t)((seed >> 8) % 3000), ext, corr);
					corr++;
				}
				ext++;
				at += dur + (int64_t)((seed >> 12) % 50);
			}
			t += len;
		}
		assert_int_equal(model_finalize(&m, &err), NNS_OK);
		assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
		assert_true(p.steptrace.steps.n >= 1);
		check_invariants(&p);
		done(&m, &p);
	}
}

/* The first trace of ../shared/data/kineto/<dir>, analysed into *p (and
 * *m); 0 with a printed message when there is none. */
static int load_real(const char *dir, glob_t *g, struct model *m, struct an_profile *p)
{
	char pat[1024];
	struct kineto_opts o = {.threads = 0};
	struct nns_err err;

	snprintf(pat, sizeof(pat), "%s/data/kineto/%s/*.pt.trace.json.gz", tu_shared_dir(), dir);
	if (glob(pat, 0, NULL, g) != 0 || g->gl_pathc == 0) {
		printf("SKIP: no trace matches %s\n", pat);
		globfree(g);
		return 0;
	}
	model_init(m);
	assert_int_equal(kineto_load_file(g->gl_pathv[0], m, &o, &err), NNS_OK);
	assert_int_equal(an_profile_compute(p, m, &err), NNS_OK);
	globfree(g);
	return 1;
}

/* Real ResNet-50 traces: invariants only. With num_workers=0 the training
 * loop loads every batch itself, so the wait for data is a real share of
 * the step, and a larger one than with 4 loader workers. */
static void test_real_trace(void **state)
{
	glob_t g;
	struct model m, m4;
	struct an_profile p, p4;
	double share0;
	(void)state;

	if (!load_real("resnet50_num_workers_0", &g, &m, &p))
		skip();
	assert_true(p.steptrace.steps.n > 1);
	check_invariants(&p);
	for (size_t i = 0; i < p.steptrace.steps.n; i++) {
		const struct an_steptrace_row *r = &p.steptrace.steps.v[i];
		/* every step trains: forward and backward take time */
		assert_true(r->fp_bp > 0);
		/* the batch is loaded at the start of the step: most of that
		 * DataLoader time is waited before the forward */
		assert_true(r->iteration_interval >= p.overview.steps.v[i].cost[AN_DATALOADER] / 2);
	}
	share0 = p.steptrace.avg_interval / p.steptrace.avg_total;
	assert_true(share0 > 0.01 && share0 < 0.9);
	assert_true(p.steptrace.avg_fp_bp > 0.05 * p.steptrace.avg_total);
	if (load_real("resnet50_num_workers_4", &g, &m4, &p4)) {
		check_invariants(&p4);
		assert_true(p4.steptrace.avg_interval / p4.steptrace.avg_total < share0);
		done(&m4, &p4);
	}
	done(&m, &p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_step),
	    cmocka_unit_test(test_backward_kernel_after_host_op),
	    cmocka_unit_test(test_no_backward),
	    cmocka_unit_test(test_no_steps),
	    cmocka_unit_test(test_ops_ahead_of_data),
	    cmocka_unit_test(test_only_data),
	    cmocka_unit_test(test_clamped),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_random_invariants),
	    cmocka_unit_test(test_real_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
