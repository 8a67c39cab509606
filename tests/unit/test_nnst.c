/*
 * test_nnst.c - the .nnst importer on hand-built traces: ranges nest and
 * get their kinds from their names, steps come from START/STEP/STOP marks,
 * TSC timestamps are interpolated, unclosed ranges are closed, cross-thread
 * ranges, instants, counters, flows, memory, queues, samples, metadata and
 * lost counts arrive in the model, warmup events are dropped, and the
 * analyses run on the result (operators, modules, steps).
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

#include "analysis/analysis.h"
#include "format/nnst.h"
#include "format/nnst_writer.h"
#include "importers/nnst.h"
#include "nnstb.h"
#include "testutil.h"

#define RT 1700000000000000000LL /* header start_realtime_ns */
#define MONO 1000000LL		 /* header start_mono_ns */

enum {
	S_OUTER = 1,
	S_MM,
	S_MODULE,
	S_FWD,
	S_DL,
	S_Q,
	S_MARK,
	S_CNT,
	S_FLOW,
	S_ASYNC,
	S_DIMS,
	S_MLP,
	S_PSTEP,
	S_BWD,
	S_KINDOP,
	S_TYPE
};

static const char *const names[] = {
    NULL,
    "outer",
    "aten::mm",
    "nn.Module: Linear_0",
    "forward",
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
    "batch_queue",
    "epoch done",
    "loss",
    "fwdbwd",
    "async load",
    "input_dims:[[2, 3], [3, 4]]",
    "mlp::linear1",
    "ProfilerStep#7",
    "ConvolutionBackward0",
    "kind:cpu_op",
    "input_type:['float', 'long int']",
};

static void strings(struct nb *b)
{
	for (uint32_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		nb_string(b, i, names[i]);
}

/* Non-TSC trace (timestamps are CLOCK_MONOTONIC ns): model ts = mono + RT - MONO. */
static int64_t T(int64_t mono)
{
	return mono + RT - MONO;
}

/* nnscope.torch's "kind:cpu_op" mark makes the enclosing range an operator
 * (autograd nodes have no "ns::" in their names); it is not an instant and
 * does not turn a module into an operator. */
static void test_kind_op_mark(void **state)
{
	struct nb b = {0}, ev = {0};
	struct model m;
	const struct model_event *e;

	(void)state;
	nb_header(&b, 4242, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, 4243, "main");
	nb_ev(&ev, 1000, NNST_EV_PUSH, 0, S_BWD, -1, 0, 0);
	nb_ev(&ev, 1010, NNST_EV_MARK, 0, S_KINDOP, -1, 0, 0);
	nb_ev(&ev, 1020, NNST_EV_MARK, 0, S_DIMS, -1, 0, 0);
	nb_ev(&ev, 1100, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1200, NNST_EV_PUSH, 0, S_BWD, -1, 0, 0); /* no mark */
	nb_ev(&ev, 1300, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1400, NNST_EV_PUSH, 0, S_MODULE, -1, 0, 0);
	nb_ev(&ev, 1410, NNST_EV_MARK, 0, S_KINDOP, -1, 0, 0);
	nb_ev(&ev, 1500, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1600, NNST_EV_MARK, 0, S_KINDOP, -1, 0, 0); /* nothing open */
	nb_events(&b, 0, &ev);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	assert_int_equal(m.events.n, 3);
	e = tu_find_event(&m, "ConvolutionBackward0", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_CPU_OP);
	assert_int_equal(e->dur, 100);
	assert_string_equal(model_str(&m, m.op_args.v[e->extra].input_dims), "[[2, 3], [3, 4]]");
	e = tu_find_event(&m, "ConvolutionBackward0", 1);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_USER_ANNOTATION);
	e = tu_find_event(&m, "nn.Module: Linear_0", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_PYTHON_FUNCTION);
	assert_int_equal(m.instants.n, 1); /* only the mark outside any range */
	model_release(&m);
	nb_free(&b);
	nb_free(&ev);
}

/* nnscope.torch's "input_type:" mark gives the enclosing range its Input
 * type (beside input_dims: comm.c's bytes); it is not an instant. */
static void test_input_type_mark(void **state)
{
	struct nb b = {0}, ev = {0};
	struct model m;
	const struct model_event *e;

	(void)state;
	nb_header(&b, 4242, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, 4243, "main");
	nb_ev(&ev, 1000, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_ev(&ev, 1010, NNST_EV_MARK, 0, S_DIMS, -1, 0, 0);
	nb_ev(&ev, 1020, NNST_EV_MARK, 0, S_TYPE, -1, 0, 0);
	nb_ev(&ev, 1100, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1200, NNST_EV_PUSH, 0, S_MM, -1, 0, 0); /* type only */
	nb_ev(&ev, 1210, NNST_EV_MARK, 0, S_TYPE, -1, 0, 0);
	nb_ev(&ev, 1300, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	assert_int_equal(m.events.n, 2);
	assert_int_equal(m.instants.n, 0);
	e = tu_find_event(&m, "aten::mm", 0);
	assert_non_null(e);
	assert_string_equal(model_str(&m, m.op_args.v[e->extra].input_dims), "[[2, 3], [3, 4]]");
	assert_string_equal(model_str(&m, m.op_args.v[e->extra].input_type),
			    "['float', 'long int']");
	e = tu_find_event(&m, "aten::mm", 1);
	assert_non_null(e);
	assert_int_equal(m.op_args.v[e->extra].input_dims, 0);
	assert_string_equal(model_str(&m, m.op_args.v[e->extra].input_type),
			    "['float', 'long int']");
	model_release(&m);
	nb_free(&b);
	nb_free(&ev);
}

static void test_ranges_and_kinds(void **state)
{
	struct nb b = {0}, ev = {0};
	struct model m;
	const struct model_event *e;

	(void)state;
	nb_header(&b, 4242, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, 4243, "main");
	nb_ev(&ev, 2000000, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 2000100, NNST_EV_PUSH, 0, S_MODULE, -1, 0, 0);
	nb_ev(&ev, 2000200, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_ev(&ev, 2000210, NNST_EV_MARK, 0, S_DIMS, -1, 0, 0);
	nb_ev(&ev, 2000700, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 2000800, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 2000900, NNST_EV_PUSH, 0, S_MLP, -1, 0, 0);
	nb_ev(&ev, 2000950, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 2001000, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 2001100, NNST_EV_POP, 0, 0, -1, 0, 0); /* nothing open */
	nb_ev(&ev, 2001200, NNST_EV_PUSH, 0, S_DL, -1, 0, 0);
	nb_ev(&ev, 2001300, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	assert_int_equal(m.pid, 4242);
	assert_int_equal(m.mono_offset_ns, RT - MONO);
	assert_int_equal(m.events.n, 5);
	assert_int_equal(m.diag.ranges_unmatched, 1);
	assert_int_equal(m.threads.n, 1);
	assert_string_equal(model_str(&m, m.threads.v[0].pid), "4242");
	assert_string_equal(model_str(&m, m.threads.v[0].tid), "4243");
	assert_string_equal(model_str(&m, m.threads.v[0].name), "main");

	e = tu_find_event(&m, "forward", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_USER_ANNOTATION);
	assert_int_equal(e->ts, T(2000000));
	assert_int_equal(e->dur, 1000);
	e = tu_find_event(&m, "nn.Module: Linear_0", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_PYTHON_FUNCTION);
	assert_int_equal(e->dur, 700);
	assert_true(e->extra < m.op_args.n);
	assert_true(model_id_dec(&m, m.op_args.v[e->extra].py_module_id_enc) != MODEL_NONE);
	e = tu_find_event(&m, "aten::mm", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_CPU_OP);
	assert_int_equal(e->ts, T(2000200));
	assert_int_equal(e->dur, 500);
	assert_true(e->extra < m.op_args.n);
	assert_string_equal(model_str(&m, m.op_args.v[e->extra].input_dims), "[[2, 3], [3, 4]]");
	e = tu_find_event(&m, "mlp::linear1", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_CPU_OP);
	e = tu_find_event(&m, names[S_DL], 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_CPU_OP);
	assert_int_equal(m.instants.n, 0); /* the dims mark is not an instant */

	/* the analyses see operators and a module */
	{
		struct an_profile p;
		struct nns_err err;
		int found_mm = 0, found_mod = 0;

		assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
		for (size_t i = 0; i < p.ops.by_name.n; i++)
			found_mm |= strcmp(model_str(&m, p.ops.by_name.v[i].name), "aten::mm") == 0;
		for (size_t i = 0; i < p.modules.rows.n; i++)
			found_mod |=
			    strcmp(an_module_label(&m, &p.modules.rows.v[i]), "Linear_0") == 0;
		assert_true(found_mm);
		assert_true(found_mod);
		assert_int_equal(p.overview.steps.n, 1); /* no marks: step "0" */
		an_profile_release(&p);
	}
	model_release(&m);
	nb_free(&ev);
	nb_free(&b);
}

static void test_steps(void **state)
{
	struct nb b = {0}, ev = {0};
	struct model m;
	const struct model_event *e;
	struct an_profile p;
	struct nns_err err;

	(void)state;
	nb_header(&b, 10, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, 11, "main");
	nb_ev(&ev, 1000, NNST_EV_START, 0, 0, -1, 0, 0); /* opens step 0 */
	nb_ev(&ev, 1100, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 1900, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 2000, NNST_EV_STEP, 0, 0, -1, 1, 0);
	nb_ev(&ev, 2100, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 2900, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 3000, NNST_EV_STEP, 0, 0, -1, 2, 0);
	nb_ev(&ev, 3050, NNST_EV_STOP, 0, 0, -1, 1, 0); /* empty tail: no step 2 */
	/* a warmup window: nothing kept, no step */
	nb_ev(&ev, 4000, NNST_EV_STEP, NNST_EVF_WARMUP, 0, -1, 5, 0);
	nb_ev(&ev, 4100, NNST_EV_PUSH, NNST_EVF_WARMUP, S_MM, -1, 0, 0);
	nb_ev(&ev, 4200, NNST_EV_POP, NNST_EVF_WARMUP, 0, -1, 0, 0);
	nb_ev(&ev, 4300, NNST_EV_QUEUE, NNST_EVF_WARMUP, S_Q, -1, 1, 2);
	/* active again: step 6 until the trace ends */
	nb_ev(&ev, 5000, NNST_EV_START, 0, 0, -1, 6, 1);
	nb_ev(&ev, 5100, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 5600, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	assert_null(tu_find_event(&m, "aten::mm", 0));
	assert_int_equal(m.queues.n, 0);
	e = tu_find_event(&m, "ProfilerStep#0", 0);
	assert_non_null(e);
	assert_int_equal(e->ts, T(1000));
	assert_int_equal(e->dur, 1000);
	e = tu_find_event(&m, "ProfilerStep#1", 0);
	assert_non_null(e);
	assert_int_equal(e->ts, T(2000));
	assert_int_equal(e->dur, 1000);
	assert_null(tu_find_event(&m, "ProfilerStep#2", 0));
	assert_null(tu_find_event(&m, "ProfilerStep#5", 0));
	e = tu_find_event(&m, "ProfilerStep#6", 0);
	assert_non_null(e);
	assert_int_equal(e->ts, T(5000));
	assert_int_equal(e->dur, 600);
	assert_int_equal(m.instants.n, 3); /* start, stop, start */

	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	assert_int_equal(p.overview.steps.n, 3);
	assert_string_equal(p.overview.steps.v[0].name, "0");
	assert_string_equal(p.overview.steps.v[1].name, "1");
	assert_string_equal(p.overview.steps.v[2].name, "6");
	an_profile_release(&p);
	model_release(&m);
	nb_free(&ev);

	/* explicit ProfilerStep ranges: marks make no extra steps */
	nb_free(&b);
	nb_header(&b, 10, 0, RT, MONO, 0);
	strings(&b);
	nb_ev(&ev, 1000, NNST_EV_START, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1000, NNST_EV_PUSH, 0, S_PSTEP, -1, 0, 0);
	nb_ev(&ev, 1500, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 2000, NNST_EV_STEP, 0, 0, -1, 1, 0);
	nb_ev(&ev, 2500, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 2600, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	assert_non_null(tu_find_event(&m, "ProfilerStep#7", 0));
	assert_null(tu_find_event(&m, "ProfilerStep#0", 0));
	assert_null(tu_find_event(&m, "ProfilerStep#1", 0));
	/* a thread without a THREAD record gets a placeholder tid */
	assert_string_equal(model_str(&m, m.threads.v[0].tid), "thread 0");
	model_release(&m);
	nb_free(&ev);
	nb_free(&b);
}

/* A range open at a STOP ends there (its POP was not recorded); a POP
 * after the restart with nothing open is ignored. */
static void test_window_close(void **state)
{
	struct nb b = {0}, ev = {0}, ev2 = {0};
	struct model m;
	const struct model_event *e;

	(void)state;
	nb_header(&b, 1, 0, RT, MONO, 0);
	strings(&b);
	nb_ev(&ev, 1000, NNST_EV_START, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1010, NNST_EV_PUSH, 0, S_OUTER, -1, 0, 0);
	nb_ev(&ev, 1020, NNST_EV_BEGIN, 0, S_ASYNC, -1, 9, 0);
	nb_ev(&ev, 1100, NNST_EV_STOP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1200, NNST_EV_START, 0, 0, -1, 3, 1);
	nb_ev(&ev, 1210, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 1220, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1230, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	/* another thread whose range spans the stop, in a later chunk */
	nb_ev(&ev2, 1050, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_ev(&ev2, 1300, NNST_EV_MARK, 0, S_MARK, -1, 0, 0);
	nb_events(&b, 1, &ev2);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	e = tu_find_event(&m, "outer", 0);
	assert_non_null(e);
	assert_int_equal(e->dur, 90);
	e = tu_find_event(&m, "aten::mm", 0);
	assert_non_null(e);
	assert_int_equal(e->dur, 50);
	e = tu_find_event(&m, "async load", 0);
	assert_non_null(e);
	assert_int_equal(e->dur, 80);
	e = tu_find_event(&m, "forward", 0);
	assert_non_null(e);
	assert_int_equal(e->dur, 10);
	assert_int_equal(m.diag.ranges_unmatched, 1);
	assert_int_equal(m.diag.ranges_closed, 0);
	assert_non_null(tu_find_event(&m, "ProfilerStep#0", 0));
	assert_non_null(tu_find_event(&m, "ProfilerStep#3", 0));
	model_release(&m);
	nb_free(&ev);
	nb_free(&ev2);
	nb_free(&b);
}

static void test_tsc_clock(void **state)
{
	struct nb b = {0}, ev = {0};
	struct model m;
	const struct model_event *e;

	(void)state;
	/* TSC at 2 ticks per ns; start point tsc 10000 <-> mono 1000000 */
	nb_header(&b, 1, NNST_F_TSC, RT, MONO, 10000);
	strings(&b);
	nb_ev(&ev, 12000, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 16000, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	/* the calibration point arrives after the events that need it */
	nb_clock(&b, 30000, MONO + 10000, RT + 10000);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	e = tu_find_event(&m, "forward", 0);
	assert_non_null(e);
	assert_int_equal(e->ts, RT + 1000);
	assert_int_equal(e->dur, 2000);
	model_release(&m);
	nb_free(&ev);
	nb_free(&b);
}

static void test_unclosed_and_crash(void **state)
{
	struct nb b = {0}, ev = {0};
	struct model m;
	const struct model_event *e;

	(void)state;
	nb_header(&b, 1, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, 2, "main");
	nb_ev(&ev, 1000, NNST_EV_PUSH, 0, S_OUTER, -1, 0, 0);
	nb_ev(&ev, 1100, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 1500, NNST_EV_MARK, 0, S_MARK, -1, 0, 0);
	nb_events(&b, 0, &ev);
	/* no END: the process died */
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_ETRUNC);
	assert_true(m.diag.truncated);
	assert_int_equal(m.diag.ranges_closed, 2);
	assert_non_null(strstr(m.diag.first_problem, "END"));
	e = tu_find_event(&m, "outer", 0);
	assert_non_null(e);
	assert_int_equal(e->dur, 500); /* closed at the thread's last time */
	e = tu_find_event(&m, "forward", 0);
	assert_non_null(e);
	assert_int_equal(e->dur, 400);
	assert_int_equal(m.instants.n, 1);
	assert_string_equal(model_str(&m, m.instants.v[0].name), "epoch done");
	model_release(&m);

	/* a damaged tail: the same events, then half a chunk */
	nb_bytes(&b, "\x4e\x4e\x43\x4b\x03\x00\x00\x00\xff\x00", 10);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_ETRUNC);
	assert_true(m.diag.truncated);
	assert_non_null(strstr(m.diag.first_problem, "byte"));
	assert_int_equal(m.events.n, 2);
	model_release(&m);
	nb_free(&ev);
	nb_free(&b);
}

static void test_records(void **state)
{
	struct nb b = {0}, ev = {0}, ev2 = {0}, smp = {0};
	struct model m;
	const struct model_event *e;
	double v = 2.5;
	uint64_t bits;

	(void)state;
	memcpy(&bits, &v, sizeof(bits));
	nb_header(&b, 99, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, 100, "main");
	nb_thread(&b, 1, 101, "loader");
	nb_meta(&b, "rank", "3");
	nb_meta(&b, "world_size", "8");
	nb_meta(&b, "host", "node7");
	nb_meta(&b, "thread.102.name", "pin_memory");
	nb_ev(&ev, 1000, NNST_EV_BEGIN, 0, S_ASYNC, -1, 77, 0);
	nb_ev(&ev, 1100, NNST_EV_COUNTER, 0, S_CNT, -1, bits, 0);
	nb_ev(&ev, 1200, NNST_EV_FLOW, 0, S_FLOW, -1, 5, 's');
	nb_ev(&ev, 1300, NNST_EV_ALLOC, 0, 0, 0, 0xabc0, 4096);
	nb_ev(&ev, 1300, NNST_EV_MEMTOTAL, 0, 0, 0, 8192, (uint64_t)-1);
	nb_ev(&ev, 1400, NNST_EV_ALLOC, 0, 0, -1, 0xdef0, 100);
	nb_ev(&ev, 1500, NNST_EV_FREE, 0, 0, 0, 0xabc0, 4096);
	nb_ev(&ev, 1600, NNST_EV_QUEUE, 0, S_Q, -1, 0, 4);
	nb_ev(&ev, 1650, 200, 0, 0, -1, 0, 0); /* a newer event type */
	nb_events(&b, 0, &ev);
	nb_ev(&ev2, 1700, NNST_EV_END, 0, 0, -1, 77, 0);
	nb_ev(&ev2, 1800, NNST_EV_FLOW, 0, S_FLOW, -1, 5, 'f');
	nb_ev(&ev2, 1900, NNST_EV_QUEUE, 0, S_Q, -1, 3, 4);
	nb_ev(&ev2, 1950, NNST_EV_BEGIN, 0, S_ASYNC, -1, 78, 0); /* never ended */
	nb_events(&b, 1, &ev2);
	nb_sample(&smp, MONO + 500, 0, NNST_SAMPLE_MACHINE, 10, 5, 80, 5, 3, 100, 1 << 20);
	nb_sample(&smp, MONO + 500, 0, NNST_SAMPLE_PROCESS, 150, 20, 0, 0, 4, 0, 2048);
	nb_sample(&smp, MONO + 500, 102, NNST_SAMPLE_THREAD, 50, 1, 0, 0, 0, 0, 0);
	nb_sample(&smp, MONO + 500, 0, 99, 1, 1, 1, 1, 0, 0, 0); /* unknown kind */
	nb_chunk(&b, NNST_CHUNK_SAMPLES, smp.p, smp.n);
	nb_lost(&b, 0, 5);
	nb_lost(&b, 0, 12);
	nb_lost(&b, 1, 3);
	nb_lost(&b, NNST_THREAD_PROCESS, 2);
	nb_chunk(&b, 99, "future", 6); /* a newer chunk type */
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);

	assert_int_equal(m.dist_rank, 3);
	assert_int_equal(m.dist_world_size, 8);
	assert_string_equal(model_meta_get(&m, "host"), "node7");
	assert_int_equal(m.diag.events_lost, 12 + 3 + 2);
	assert_int_equal(m.diag.events_skipped, 2);

	e = tu_find_event(&m, "async load", 0);
	assert_non_null(e);
	assert_int_equal(e->ts, T(1000));
	assert_int_equal(e->dur, 700);
	assert_string_equal(model_str(&m, m.threads.v[e->thread].tid), "async");
	e = tu_find_event(&m, "async load", 1);
	assert_non_null(e);
	assert_int_equal(e->dur, 0); /* closed at the trace's last event */
	assert_int_equal(m.diag.ranges_closed, 1);

	assert_int_equal(m.counters.n, 1);
	assert_true(m.counters.v[0].value == 2.5);
	assert_string_equal(model_str(&m, m.counters.v[0].name), "loss");
	assert_int_equal(m.flows.n, 2);
	assert_int_equal(m.flows.v[0].kind, MF_FWDBWD);
	assert_int_equal(m.flows.v[0].ph, 's');
	assert_int_equal(m.flows.v[1].ph, 'f');
	assert_int_equal(m.flows.v[0].id, 5);

	assert_int_equal(m.mems.n, 3);
	assert_int_equal(m.mems.v[0].device_type, 1);
	assert_int_equal(m.mems.v[0].device_id, 0);
	assert_int_equal(m.mems.v[0].bytes, 4096);
	assert_int_equal(m.mems.v[0].addr, 0xabc0);
	assert_true(m.mems.v[0].flags & MODEL_MEM_HAS_TOTAL_ALLOC);
	assert_false(m.mems.v[0].flags & MODEL_MEM_HAS_TOTAL_RESERVED);
	assert_int_equal(m.mems.v[0].total_allocated, 8192);
	assert_int_equal(m.mems.v[1].device_type, 0);
	assert_int_equal(m.mems.v[1].device_id, -1);
	assert_false(m.mems.v[1].flags & MODEL_MEM_HAS_TOTAL_ALLOC);
	assert_int_equal(m.mems.v[2].bytes, -4096);

	assert_int_equal(m.queues.n, 2);
	assert_int_equal(m.queues.v[0].size, 0);
	assert_int_equal(m.queues.v[0].capacity, 4);
	assert_int_equal(m.queues.v[1].size, 3);
	assert_string_equal(model_str(&m, m.queues.v[1].name), "batch_queue");
	assert_string_equal(model_str(&m, m.threads.v[m.queues.v[1].thread].name), "loader");

	assert_int_equal(m.samples.n, 3);
	assert_int_equal(m.samples.v[0].kind, MS_MACHINE);
	assert_int_equal(m.samples.v[0].ts, T(MONO + 500));
	assert_true(m.samples.v[0].idle == 80);
	assert_int_equal(m.samples.v[0].running, 3);
	assert_int_equal(m.samples.v[1].rss_kb, 2048);
	assert_int_equal(m.samples.v[2].tid, 102);
	assert_true(m.samples.v[2].thread < m.threads.n);
	assert_string_equal(model_str(&m, m.threads.v[m.samples.v[2].thread].name), "pin_memory");
	model_release(&m);
	nb_free(&ev);
	nb_free(&ev2);
	nb_free(&smp);
	nb_free(&b);
}

/* An END in an earlier chunk than its BEGIN (the ending thread's chunk was
 * written first) still pairs; a later THREAD record renames the thread
 * (nvtxNameOsThread). */
static void test_end_before_begin(void **state)
{
	struct nb b = {0}, ev = {0}, ev2 = {0};
	struct model m;
	const struct model_event *e;

	(void)state;
	nb_header(&b, 99, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, 100, "main");
	nb_thread(&b, 1, 101, "worker");
	nb_ev(&ev2, 1700, NNST_EV_END, 0, 0, -1, 77, 0);
	nb_ev(&ev2, 1750, NNST_EV_END, 0, 0, -1, 90, 0); /* no BEGIN anywhere */
	nb_events(&b, 1, &ev2);
	nb_thread(&b, 0, 100, "nvtx-main");
	nb_ev(&ev, 1000, NNST_EV_BEGIN, 0, S_ASYNC, -1, 77, 0);
	nb_ev(&ev, 1800, NNST_EV_PUSH, 0, S_OUTER, -1, 0, 0);
	nb_ev(&ev, 1900, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	e = tu_find_event(&m, "async load", 0);
	assert_non_null(e);
	assert_int_equal(e->ts, T(1000));
	assert_int_equal(e->dur, 700);
	assert_null(tu_find_event(&m, "async load", 1));
	assert_int_equal(m.diag.ranges_closed, 0);
	assert_int_equal(m.diag.ranges_unmatched, 1);
	assert_non_null(e = tu_find_event(&m, "outer", 0));
	assert_string_equal(model_str(&m, m.threads.v[e->thread].name), "nvtx-main");
	model_release(&m);
	nb_free(&ev);
	nb_free(&ev2);
	nb_free(&b);
}

static void test_merge_keeps_rows(void **state)
{
	struct nb b = {0}, ev = {0};
	struct model m, dst;
	struct nns_err err;

	(void)state;
	nb_header(&b, 1, 0, RT, MONO, 0);
	strings(&b);
	nb_ev(&ev, 1600, NNST_EV_QUEUE, 0, S_Q, -1, 2, 4);
	nb_ev(&ev, 1700, NNST_EV_MARK, 0, S_MARK, -1, 0, 0);
	nb_events(&b, 0, &ev);
	nb_meta(&b, "host", "h");
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	/* into a non-empty model: rows are copied with their strings */
	assert_int_equal(model_init(&dst), 0);
	assert_int_not_equal(model_intern(&dst, "zzz", 3), STRPOOL_NONE);
	model_thread(&dst, model_intern(&dst, "9", 1), model_intern(&dst, "9", 1));
	m.finalized = 0;
	assert_int_equal(model_merge(&dst, &m, &err), NNS_OK);
	assert_int_equal(dst.queues.n, 1);
	assert_string_equal(model_str(&dst, dst.queues.v[0].name), "batch_queue");
	assert_int_equal(dst.instants.n, 1);
	assert_string_equal(model_str(&dst, dst.instants.v[0].name), "epoch done");
	assert_string_equal(model_meta_get(&dst, "host"), "h");
	assert_int_equal(dst.pid, 1);
	model_release(&dst);
	model_release(&m);
	nb_free(&ev);
	nb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranges_and_kinds),   cmocka_unit_test(test_kind_op_mark),
	    cmocka_unit_test(test_input_type_mark),    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_window_close),       cmocka_unit_test(test_tsc_clock),
	    cmocka_unit_test(test_unclosed_and_crash), cmocka_unit_test(test_records),
	    cmocka_unit_test(test_end_before_begin),   cmocka_unit_test(test_merge_keeps_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
