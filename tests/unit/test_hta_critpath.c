/*
 * test_hta_critpath.c - HTA's critical path (src/analysis/hta_critpath*.c)
 * on hand-computed Kineto traces: a CPU-bound step (the path runs through
 * host ops), a GPU-bound step whose blocking call has no cuda_sync record
 * (fallback link), a cudaStreamSynchronize with its "Stream Sync" record
 * (the CPU waits for one stream only), a cross-stream CUDA event wait
 * ("Stream Wait Event" with wait_on_* args), step selection, zero-length
 * and overhanging events, critical_path.json read back with jansson, and
 * invariants on the real traces of ../shared when present; the diff of
 * operator and kernel counts and durations (HTA trace_diff).
 *
 * Times in the traces are microseconds; the model holds ns (x1000).
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
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/hta_critpath.h"
#include "importers/kineto.h"
#include "output/output.h"
#include "kineto_doc.h"
#include "testutil.h"

#define US 1000 /* ns per us */

static void load(const char *json, struct model *m, struct an_profile *p)
{
	assert_int_equal(tu_kineto_profile(json, m, p), 0);
}

static void done(struct model *m, struct an_profile *p, struct hcp_result *r)
{
	if (r)
		hcp_release(r);
	an_profile_release(p);
	model_release(m);
}

static void run(const struct an_profile *p, const char *step, struct hcp_result *r)
{
	struct hcp_opts o = {step};
	struct nns_err err;

	assert_int_equal(hcp_compute(r, p, &o, &err), NNS_OK);
}

/* Weighted classes sum to total, all classes to span. */
static void check_sums(const struct hcp_result *r)
{
	int64_t w = 0;

	for (int c = 0; c < HCP_C__N; c++) {
		assert_true(r->by_class[c] >= 0);
		if (c != HCP_C_SYNC && c != HCP_C_IDLE)
			w += r->by_class[c];
	}
	assert_true(w == r->total);
	assert_true(r->total + r->by_class[HCP_C_SYNC] + r->by_class[HCP_C_IDLE] == r->span);
}

static const char *seg_name(const struct an_profile *p, const struct hcp_seg *s)
{
	return model_str(p->m, p->m->events.v[s->ev].name);
}

/* Path edge i is of type t, attributed to name, from..to (us), weight w. */
static void expect_seg(const struct an_profile *p, const struct hcp_result *r, size_t i, int type,
		       const char *name, int64_t from, int64_t to, int64_t w)
{
	const struct hcp_seg *s;

	assert_true(i < r->path.n);
	s = &r->path.v[i];
	if (s->type != type || strcmp(seg_name(p, s), name) != 0 || s->from != from * US ||
	    s->to != to * US || s->weight != w * US)
		fail_msg(
		    "segment %zu: got type %d %s %lld..%lld w %lld, want type %d %s %lld..%lld "
		    "w %lld",
		    i, s->type, seg_name(p, s), (long long)s->from, (long long)s->to,
		    (long long)s->weight, type, name, (long long)from * US, (long long)to * US,
		    (long long)w * US);
}

/* ---- CPU-bound ------------------------------------------------------------------
 *   ProfilerStep#1 [0, 100)
 *   A [0, 40) > cudaLaunchKernel [10, 15) corr 1 -> k1 on stream 7 [20, 30)
 *   B [50, 100)
 * Host chain: A.s -10-> launch.s -5-> launch.e -25-> A.e -dep-> B.s -50-> B.e
 * = 90; through the kernel: A.s -10-> launch.s -10-> k1.s -10-> k1.e = 30.
 * Path 90 us of host time; the 10 us gap A.e -> B.s is idle; span 100. */
/* clang-format off */
static const char cpu_bound[] = HDR
	STEP(1, 0, 100) ","
	CPU("A", 0, 40) ","
	RT("cudaLaunchKernel", 10, 5, 1) ","
	KERNEL("k1", 7, 20, 10, 1) ","
	CPU("B", 50, 50) "]}";
/* clang-format on */

static void test_cpu_bound(void **state)
{
	struct model m;
	struct an_profile p;
	struct hcp_result r;
	(void)state;

	load(cpu_bound, &m, &p);
	run(&p, NULL, &r);
	assert_true(r.ok);
	assert_string_equal(r.step, "1");
	assert_int_equal(r.total, 90 * US);
	assert_int_equal(r.span, 100 * US);
	assert_int_equal(r.by_class[HCP_C_CPU], 90 * US);
	assert_int_equal(r.by_class[HCP_C_IDLE], 10 * US);
	assert_int_equal(r.by_class[HCP_C_KERNEL], 0);
	assert_int_equal(r.by_class[HCP_C_LAUNCH], 0);
	check_sums(&r);
	/* 4 host events (A, launch, B) + k1 = 4 events, 8 nodes */
	assert_int_equal(r.nodes, 8);
	assert_int_equal(r.path.n, 5);
	expect_seg(&p, &r, 0, HCP_E_OP, "A", 0, 10, 10);
	expect_seg(&p, &r, 1, HCP_E_OP, "cudaLaunchKernel", 10, 15, 5);
	expect_seg(&p, &r, 2, HCP_E_OP, "A", 15, 40, 25); /* (end, end): the parent */
	expect_seg(&p, &r, 3, HCP_E_DEP, "A", 40, 50, 0);
	expect_seg(&p, &r, 4, HCP_E_OP, "B", 50, 100, 50);
	assert_int_equal(r.path_start, 0);
	assert_int_equal(r.path_end, 100 * US);
	done(&m, &p, &r);
}

/* ---- GPU-bound, blocking call without a cuda_sync record (older Kineto) ----------
 *   ProfilerStep#1 [0, 100)
 *   A [0, 20) > launch1 [2, 4) corr 1 -> k1 stream 7 [5, 45)
 *             > launch2 [6, 8) corr 2 -> k2 stream 7 [50, 90)
 *   cudaDeviceSynchronize [30, 95) corr 3 (blocking: its span weighs 0)
 *   C [96, 100)
 * k1: stream idle at launch -> launch delay 2 -> 5 (3); k2: k1 still queued
 * at launch2 (45 > 6) -> kernel-kernel delay 45 -> 50 (5). k2 ends inside
 * the sync call -> sync edge k2.e -> sync.e (fallback).
 * Path: A.s -2-> launch1.s -3-> k1.s -40-> k1.e -5-> k2.s -40-> k2.e
 *       -sync(gap 5)-> sync.e -dep(gap 1)-> C.s -4-> C.e
 * total 2+3+40+5+40+4 = 94 = cpu 6 + launch 3 + kernel 80 + kk 5;
 * sync 5, idle 1, span 100. The host chain alone: 20 + 0 + 4 = 24. */
/* clang-format off */
static const char gpu_bound[] = HDR
	STEP(1, 0, 100) ","
	CPU("A", 0, 20) ","
	RT("cudaLaunchKernel", 2, 2, 1) ","
	RT("cudaLaunchKernel", 6, 2, 2) ","
	KERNEL("k1", 7, 5, 40, 1) ","
	KERNEL("k2", 7, 50, 40, 2) ","
	RT("cudaDeviceSynchronize", 30, 65, 3) ","
	CPU("C", 96, 4) "]}";
/* clang-format on */

static void test_gpu_bound_fallback_sync(void **state)
{
	struct model m;
	struct an_profile p;
	struct hcp_result r;
	(void)state;

	load(gpu_bound, &m, &p);
	run(&p, NULL, &r);
	assert_true(r.ok);
	assert_int_equal(r.total, 94 * US);
	assert_int_equal(r.by_class[HCP_C_CPU], 6 * US);
	assert_int_equal(r.by_class[HCP_C_LAUNCH], 3 * US);
	assert_int_equal(r.by_class[HCP_C_KERNEL], 80 * US);
	assert_int_equal(r.by_class[HCP_C_KK], 5 * US);
	assert_int_equal(r.by_class[HCP_C_SYNC], 5 * US);
	assert_int_equal(r.by_class[HCP_C_IDLE], 1 * US);
	assert_int_equal(r.span, 100 * US);
	check_sums(&r);
	assert_int_equal(r.sync_events, 0);
	assert_int_equal(r.sync_fallbacks, 1);
	assert_int_equal(r.edges_by_type[HCP_E_SYNC], 1);
	assert_int_equal(r.path.n, 8);
	expect_seg(&p, &r, 0, HCP_E_OP, "A", 0, 2, 2);
	expect_seg(&p, &r, 1, HCP_E_LAUNCH, "cudaLaunchKernel", 2, 5, 3);
	expect_seg(&p, &r, 2, HCP_E_OP, "k1", 5, 45, 40);
	expect_seg(&p, &r, 3, HCP_E_KK, "k1", 45, 50, 5);
	expect_seg(&p, &r, 4, HCP_E_OP, "k2", 50, 90, 40);
	expect_seg(&p, &r, 5, HCP_E_SYNC, "k2", 90, 95, 0);
	expect_seg(&p, &r, 6, HCP_E_DEP, "cudaDeviceSynchronize", 95, 96, 0);
	expect_seg(&p, &r, 7, HCP_E_OP, "C", 96, 100, 4);
	done(&m, &p, &r);
}

/* ---- cudaStreamSynchronize with its "Stream Sync" record --------------------------
 *   A [0, 10) > launch1 [1, 2) corr 1 -> k1 stream 7 [5, 45)
 *             > launch2 [3, 4) corr 2 -> k2 stream 8 [6, 30)
 *   cudaStreamSynchronize [20, 50) corr 3; record "Stream Sync" on stream 7
 *   C [55, 60)
 * The record links only stream 7's last kernel: k1.e -> sync.e.
 * Path A.s -1-> launch1.s -4-> k1.s -40-> k1.e -sync 5-> sync.e -idle 5->
 * C.s -5-> C.e: total 50 (cpu 6, launch 4, kernel 40), span 60.
 * Via k2: 1+1+1+3+24 = 30; host alone: 10 + 5 = 15. */
/* clang-format off */
#define SYNC_REC(name, stream, ts, dur, corr, extra)                                               \
	"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream     \
	",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"cuda_sync_kind\":\"" name "\",\"device\":0," \
	"\"stream\":" #stream ",\"correlation\":" #corr extra "}}"
#define STREAM_SYNC_TRACE(rec) HDR                                                                 \
	STEP(1, 0, 60) ","                                                                         \
	CPU("A", 0, 10) ","                                                                        \
	RT("cudaLaunchKernel", 1, 1, 1) ","                                                        \
	RT("cudaLaunchKernel", 3, 1, 2) ","                                                        \
	KERNEL("k1", 7, 5, 40, 1) ","                                                              \
	KERNEL("k2", 8, 6, 24, 2) ","                                                              \
	RT("cudaStreamSynchronize", 20, 30, 3) rec ","                                             \
	CPU("C", 55, 5) "]}"

static const char stream_sync[] =
	STREAM_SYNC_TRACE("," SYNC_REC("Stream Sync", 7, 20, 30, 3, ""));
static const char stream_sync_norec[] = STREAM_SYNC_TRACE("");
/* clang-format on */

static void test_stream_sync_record(void **state)
{
	struct model m;
	struct an_profile p;
	struct hcp_result r;
	(void)state;

	load(stream_sync, &m, &p);
	run(&p, NULL, &r);
	assert_true(r.ok);
	assert_int_equal(r.sync_events, 1);
	assert_int_equal(r.sync_fallbacks, 0);
	assert_int_equal(r.edges_by_type[HCP_E_SYNC], 1); /* stream 7 only */
	assert_int_equal(r.total, 50 * US);
	assert_int_equal(r.by_class[HCP_C_CPU], 6 * US);
	assert_int_equal(r.by_class[HCP_C_LAUNCH], 4 * US);
	assert_int_equal(r.by_class[HCP_C_KERNEL], 40 * US);
	assert_int_equal(r.by_class[HCP_C_SYNC], 5 * US);
	assert_int_equal(r.by_class[HCP_C_IDLE], 5 * US);
	assert_int_equal(r.span, 60 * US);
	check_sums(&r);
	assert_int_equal(r.path.n, 6);
	expect_seg(&p, &r, 0, HCP_E_OP, "A", 0, 1, 1);
	expect_seg(&p, &r, 1, HCP_E_LAUNCH, "cudaLaunchKernel", 1, 5, 4);
	expect_seg(&p, &r, 2, HCP_E_OP, "k1", 5, 45, 40);
	expect_seg(&p, &r, 3, HCP_E_SYNC, "k1", 45, 50, 0);
	expect_seg(&p, &r, 4, HCP_E_DEP, "cudaStreamSynchronize", 50, 55, 0);
	expect_seg(&p, &r, 5, HCP_E_OP, "C", 55, 60, 5);
	done(&m, &p, &r);

	/* Without the record the fallback links every stream whose last
	 * kernel ended during the call: k1 (45) and k2 (30) -> 2 edges; the
	 * path is the same. */
	load(stream_sync_norec, &m, &p);
	run(&p, NULL, &r);
	assert_int_equal(r.sync_events, 0);
	assert_int_equal(r.sync_fallbacks, 1);
	assert_int_equal(r.edges_by_type[HCP_E_SYNC], 2);
	assert_int_equal(r.total, 50 * US);
	done(&m, &p, &r);
}

/* ---- cross-stream CUDA event wait --------------------------------------------------
 *   A [0, 20) > launch1 [1, 2) corr 1 -> k1 stream 7 [5, 50)
 *             > cudaEventRecord [3, 4) corr 2
 *             > cudaStreamWaitEvent [5, 6) corr 3 (record "Stream Wait Event"
 *               on stream 8: wait_on_stream 7, record corr 2)
 *             > launch2 [7, 8) corr 4 -> k2 stream 8 [52, 70)
 *   B [25, 30)
 * The record's previous launch on stream 7 is launch1 -> k1; the wait's next
 * launch on stream 8 is launch2 -> k2: sync edge k1.e -> k2.s, and no launch
 * edge for k2 (k1 ends after launch2). Path A.s -1-> launch1.s -4-> k1.s
 * -45-> k1.e -sync 2-> k2.s -18-> k2.e: total 68 (cpu 1, launch 4, kernel
 * 63), sync 2, span 70. Host alone: 20 + 5 = 25. */
/* clang-format off */
static const char event_wait[] = HDR
	STEP(1, 0, 70) ","
	CPU("A", 0, 20) ","
	RT("cudaLaunchKernel", 1, 1, 1) ","
	RT("cudaEventRecord", 3, 1, 2) ","
	RT("cudaStreamWaitEvent", 5, 1, 3) ","
	RT("cudaLaunchKernel", 7, 1, 4) ","
	KERNEL("k1", 7, 5, 45, 1) ","
	KERNEL("k2", 8, 52, 18, 4) ","
	SYNC_REC("Stream Wait Event", 8, 5, 1, 3,
		 ",\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":2") ","
	CPU("B", 25, 5) "]}";
/* clang-format on */

static void test_event_wait(void **state)
{
	struct model m;
	struct an_profile p;
	struct hcp_result r;
	(void)state;

	load(event_wait, &m, &p);
	run(&p, NULL, &r);
	assert_true(r.ok);
	assert_int_equal(r.sync_events, 1);
	assert_int_equal(r.edges_by_type[HCP_E_SYNC], 1);
	assert_int_equal(r.edges_by_type[HCP_E_LAUNCH], 1); /* k1 only */
	assert_int_equal(r.total, 68 * US);
	assert_int_equal(r.by_class[HCP_C_CPU], 1 * US);
	assert_int_equal(r.by_class[HCP_C_LAUNCH], 4 * US);
	assert_int_equal(r.by_class[HCP_C_KERNEL], 63 * US);
	assert_int_equal(r.by_class[HCP_C_SYNC], 2 * US);
	assert_int_equal(r.span, 70 * US);
	check_sums(&r);
	assert_int_equal(r.path.n, 5);
	expect_seg(&p, &r, 3, HCP_E_SYNC, "k1", 50, 52, 0);
	expect_seg(&p, &r, 4, HCP_E_OP, "k2", 52, 70, 18);
	done(&m, &p, &r);
}

/* ---- step selection, zero-length and overhanging events ----------------------------
 * Two steps; step 2 [100, 200): X [100, 150) > Y [120, 160) overhangs X by
 * 10 (the edge Y.e -> X.e would be -10: clamped to 0), Z [150, 150) has no
 * duration (left out). Path X.s -20-> Y.s -40-> Y.e -0-> X.e: 60.
 * Step 1 [0, 100): W [0, 30): 30. */
/* clang-format off */
static const char two_steps[] = HDR
	STEP(1, 0, 100) ","
	STEP(2, 100, 100) ","
	CPU("W", 0, 30) ","
	CPU("X", 100, 50) ","
	CPU("Y", 120, 40) ","
	CPU("Z", 150, 0) "]}";
/* clang-format on */

static void test_steps_and_edges(void **state)
{
	struct model m;
	struct an_profile p;
	struct hcp_result r;
	(void)state;

	load(two_steps, &m, &p);
	run(&p, NULL, &r);
	assert_true(r.ok);
	assert_string_equal(r.step, "1");
	assert_int_equal(r.total, 30 * US);
	assert_int_equal(r.nsteps, 2);
	hcp_release(&r);

	run(&p, "ProfilerStep#2", &r);
	assert_true(r.ok);
	assert_string_equal(r.step, "2");
	assert_int_equal(r.step_index, 1);
	assert_int_equal(r.nodes, 4); /* X, Y; not Z */
	assert_int_equal(r.clamped, 1);
	assert_int_equal(r.total, 60 * US);
	check_sums(&r);
	hcp_release(&r);

	run(&p, "2", &r);
	assert_true(r.ok);
	assert_int_equal(r.total, 60 * US);
	hcp_release(&r);

	run(&p, "7", &r);
	assert_false(r.ok);
	assert_non_null(strstr(r.reason, "no step named '7'"));
	done(&m, &p, &r);
}

/* A trace without ProfilerStep: one step "0" over the CPU ops (steps.c). */
static void test_no_steps(void **state)
{
	static const char t[] = HDR CPU("A", 10, 5) "," CPU("B", 20, 5) "]}";
	struct model m;
	struct an_profile p;
	struct hcp_result r;
	(void)state;

	load(t, &m, &p);
	run(&p, NULL, &r);
	assert_true(r.ok);
	assert_string_equal(r.step, "0");
	assert_int_equal(r.total, 10 * US);		  /* A + B */
	assert_int_equal(r.by_class[HCP_C_IDLE], 5 * US); /* 15 -> 20 */
	done(&m, &p, &r);
}

/* critical_path.json of the GPU-bound trace, read back. */
static void test_json(void **state)
{
	struct model m;
	struct an_profile p;
	struct jsonw w;
	json_t *root, *b, *segs;
	json_error_t je;
	char *out;
	size_t len;
	(void)state;

	load(gpu_bound, &m, &p);
	assert_int_equal(jsonw_init_mem(&w, 1 << 20, 0), 0);
	out_json_critical_path(&w, &p);
	assert_int_equal(jsonw_finish(&w, NULL), 0);
	out = jsonw_take(&w, &len);
	jsonw_release(&w);
	root = json_loads(out, 0, &je);
	assert_non_null(root);
	assert_true(json_is_true(json_object_get(root, "ok")));
	assert_string_equal(json_string_value(json_object_get(root, "step")), "1");
	assert_true(fabs(json_number_value(json_object_get(root, "total_us")) - 94) < 1e-9);
	assert_true(fabs(json_number_value(json_object_get(root, "span_us")) - 100) < 1e-9);
	b = json_object_get(root, "breakdown");
	assert_true(fabs(json_number_value(json_object_get(b, "kernel_us")) - 80) < 1e-9);
	assert_true(fabs(json_number_value(json_object_get(b, "sync_wait_us")) - 5) < 1e-9);
	segs = json_object_get(root, "segments");
	assert_int_equal(json_array_size(segs), 8);
	assert_string_equal(json_string_value(json_object_get(json_array_get(segs, 1), "edge")),
			    "critical_path_kernel_launch_delay");
	assert_string_equal(json_string_value(json_object_get(json_array_get(segs, 2), "name")),
			    "k1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(segs, 2), "tid")),
			    "7");
	/* A, launch1 (launch edge ends), k1, k2, the sync call, C */
	assert_int_equal(json_array_size(json_object_get(root, "critical_ids")), 6);
	/* edges between two events: launch, kernel-kernel, sync, dependency */
	assert_int_equal(json_array_size(json_object_get(root, "arrows")), 4);
	json_decref(root);
	free(out);
	done(&m, &p, NULL);
}

/* The overlaid Chrome trace of the GPU-bound step: its 8 events (the step
 * annotation, A, two launches, k1, k2, the sync call, C), the 6 path events
 * with "critical": 1, and HTA's default arrows: the launch, sync and
 * dependency edges of the path (not the kernel-kernel one) = 3 flows, 6
 * endpoints. */
static void test_overlay(void **state)
{
	char dir[] = "/tmp/nns_cp_XXXXXX", path[512];
	struct model m;
	struct an_profile p;
	struct nns_err err;
	json_t *root, *evs, *e;
	json_error_t je;
	size_t i, nx = 0, ncrit = 0, nflow = 0;
	(void)state;

	assert_non_null(mkdtemp(dir));
	load(gpu_bound, &m, &p);
	assert_int_equal(out_write_critical_path(dir, dir, "w.critical.json", &p, &err), NNS_OK);
	{ /* a step the trace lacks, asked of another profile (one answer each) */
		struct model m9;
		struct an_profile p9;

		load(gpu_bound, &m9, &p9);
		p9.opts.critpath_step = "ProfilerStep#9";
		assert_int_equal(out_write_critical_path(dir, dir, "x.json", &p9, &err),
				 NNS_EINVAL);
		done(&m9, &p9, NULL);
	}
	snprintf(path, sizeof(path), "%s/w.critical.json", dir);
	root = json_load_file(path, 0, &je);
	assert_non_null(root);
	evs = json_object_get(root, "traceEvents");
	json_array_foreach(evs, i, e)
	{
		const char *ph = json_string_value(json_object_get(e, "ph"));
		if (strcmp(ph, "X") == 0) {
			nx++;
			ncrit += json_integer_value(
				     json_object_get(json_object_get(e, "args"), "critical")) == 1;
		} else if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {
			nflow++;
		}
	}
	assert_int_equal(nx, 8);
	assert_int_equal(ncrit, 6);
	assert_int_equal(nflow, 6);
	json_decref(root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/critical_path.json", dir);
	root = json_load_file(path, 0, &je);
	assert_non_null(root);
	assert_true(fabs(json_number_value(json_object_get(root, "total_us")) - 94) < 1e-9);
	json_decref(root);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	done(&m, &p, NULL);
}

/* Real traces: every step's path sums up and stays inside the trace. */
static void test_real_traces(void **state)
{
	char pat[1024];
	glob_t g;
	size_t i, s;
	(void)state;

	snprintf(pat, sizeof(pat), "%s/data/kineto/*/*.json*", tu_shared_dir());
	if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		printf("SKIP: no trace matches %s\n", pat);
		globfree(&g);
		skip();
	}
	for (i = 0; i < g.gl_pathc; i++) {
		struct kineto_opts o = {.threads = 1};
		struct model m;
		struct an_profile p;
		struct nns_err err;

		model_init(&m);
		assert_int_equal(kineto_load_file(g.gl_pathv[i], &m, &o, &err), NNS_OK);
		assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
		for (s = 0; s < p.overview.steps.n; s++) {
			struct hcp_result r;

			run(&p, p.overview.steps.v[s].name, &r);
			if (!r.ok) {
				printf("%s step %s: %s\n", g.gl_pathv[i],
				       p.overview.steps.v[s].name, r.reason);
				hcp_release(&r);
				continue;
			}
			check_sums(&r);
			assert_true(r.total > 0);
			assert_true(r.path_start >= r.step_start);
			assert_true(r.path_end <= m.max_end);
			assert_true(r.path_end - r.path_start == r.span);
			assert_true(r.path_dropped == 0);
			hcp_release(&r);
		}
		done(&m, &p, NULL);
	}
	globfree(&g);
}

/* ---- HTA trace_diff --------------------------------------------------------------
 * Base, step 1 [0, 100): A x2 (10 + 20), B (5), C (7); kernels k1 (10),
 *   k2 x2 (8 + 8, the second launched at 60 but running at 120, after the
 *   step); after the step: D [150, 160) and a k1 launched at 150 (left out).
 * Exp, step 1 [0, 100): A (40), B (5), E (3); kernels k1 x2 (10 + 15), k3 (4).
 * Operators: A 2 -> 1 decreased (dur 30 -> 40, +10), B unchanged, C removed
 * (-7), E added (+3); by |diff duration|: A, C, E, B.
 * Kernels: k1 1 -> 2 increased (10 -> 25, +15), k2 removed (-16), k3 added
 * (+4); order k2, k1, k3. */
/* clang-format off */
static const char diff_base[] = HDR
	STEP(1, 0, 100) ","
	CPU("A", 0, 10) ","
	CPU("A", 10, 20) ","
	CPU("B", 30, 5) ","
	CPU("C", 40, 7) ","
	RT("cudaLaunchKernel", 50, 1, 1) ","
	RT("cudaLaunchKernel", 55, 1, 2) ","
	RT("cudaLaunchKernel", 60, 1, 3) ","
	KERNEL("k1", 7, 52, 10, 1) ","
	KERNEL("k2", 7, 70, 8, 2) ","
	KERNEL("k2", 7, 120, 8, 3) ","
	CPU("D", 150, 10) ","
	RT("cudaLaunchKernel", 150, 1, 4) ","
	KERNEL("k1", 7, 155, 10, 4) "]}";
static const char diff_exp[] = HDR
	STEP(1, 0, 100) ","
	CPU("A", 0, 40) ","
	CPU("B", 40, 5) ","
	CPU("E", 50, 3) ","
	RT("cudaLaunchKernel", 60, 1, 1) ","
	RT("cudaLaunchKernel", 61, 1, 2) ","
	RT("cudaLaunchKernel", 62, 1, 3) ","
	KERNEL("k1", 7, 63, 10, 1) ","
	KERNEL("k1", 7, 73, 15, 2) ","
	KERNEL("k3", 7, 88, 4, 3) "]}";
/* clang-format on */

static void expect_row(const struct hcp_tdiff_table *t, size_t i, const char *name, int change,
		       int64_t bc, int64_t ec, int64_t bd, int64_t ed)
{
	const struct hcp_tdiff_row *r;

	assert_true(i < t->rows.n);
	r = &t->rows.v[i];
	assert_string_equal(r->name, name);
	assert_int_equal(r->change, change);
	assert_int_equal(r->base_count, bc);
	assert_int_equal(r->exp_count, ec);
	assert_int_equal(r->base_dur, bd * US);
	assert_int_equal(r->exp_dur, ed * US);
}

static void test_trace_diff(void **state)
{
	struct model mb, me;
	struct an_profile pb, pe;
	struct an_diff d;
	struct nns_err err;
	const struct hcp_tdiff_table *t;
	(void)state;

	load(diff_base, &mb, &pb);
	load(diff_exp, &me, &pe);
	assert_int_equal(an_diff_compute(&d, &pb, &pe, &err), NNS_OK);
	assert_non_null(d.hta);
	assert_string_equal(d.hta->base_step, "1");
	t = &d.hta->ops;
	assert_int_equal(t->rows.n, 4);
	assert_int_equal(t->changes[HCP_ADDED], 1);
	assert_int_equal(t->changes[HCP_REMOVED], 1);
	assert_int_equal(t->changes[HCP_INCREASED], 0);
	assert_int_equal(t->changes[HCP_DECREASED], 1);
	assert_int_equal(t->changes[HCP_UNCHANGED], 1);
	expect_row(t, 0, "A", HCP_DECREASED, 2, 1, 30, 40);
	expect_row(t, 1, "C", HCP_REMOVED, 1, 0, 7, 0);
	expect_row(t, 2, "E", HCP_ADDED, 0, 1, 0, 3);
	expect_row(t, 3, "B", HCP_UNCHANGED, 1, 1, 5, 5);
	t = &d.hta->kernels;
	assert_int_equal(t->rows.n, 3);
	assert_int_equal(t->changes[HCP_ADDED], 1);
	assert_int_equal(t->changes[HCP_REMOVED], 1);
	assert_int_equal(t->changes[HCP_INCREASED], 1);
	expect_row(t, 0, "k2", HCP_REMOVED, 2, 0, 16, 0);
	expect_row(t, 1, "k1", HCP_INCREASED, 1, 2, 10, 25);
	expect_row(t, 2, "k3", HCP_ADDED, 0, 1, 0, 4);
	an_diff_release(&d);
	assert_null(d.hta);
	done(&mb, &pb, NULL);
	done(&me, &pe, NULL);
}

/* The diff document carries trace_diff. */
static void test_trace_diff_json(void **state)
{
	struct model mb, me;
	struct an_profile pb, pe;
	struct an_diff d;
	struct nns_err err;
	struct jsonw w;
	json_t *root, *td, *ops, *row;
	json_error_t je;
	char *out;
	size_t len;
	(void)state;

	load(diff_base, &mb, &pb);
	load(diff_exp, &me, &pe);
	assert_int_equal(an_diff_compute(&d, &pb, &pe, &err), NNS_OK);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), 0);
	out_json_diff(&w, &d, "b", "e");
	assert_int_equal(jsonw_finish(&w, NULL), 0);
	out = jsonw_take(&w, &len);
	jsonw_release(&w);
	root = json_loads(out, 0, &je);
	assert_non_null(root);
	td = json_object_get(root, "trace_diff");
	ops = json_object_get(td, "operators");
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(ops, "summary"), "changed")), 1);
	row = json_array_get(json_object_get(ops, "rows"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "change")), "decreased");
	assert_int_equal(json_integer_value(json_object_get(row, "diff_count")), -1);
	assert_true(fabs(json_number_value(json_object_get(row, "diff_duration_us")) - 10) < 1e-9);
	assert_int_equal(json_array_size(json_object_get(json_object_get(td, "kernels"), "rows")),
			 3);
	json_decref(root);
	free(out);
	an_diff_release(&d);
	done(&mb, &pb, NULL);
	done(&me, &pe, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpu_bound),
	    cmocka_unit_test(test_gpu_bound_fallback_sync),
	    cmocka_unit_test(test_stream_sync_record),
	    cmocka_unit_test(test_event_wait),
	    cmocka_unit_test(test_steps_and_edges),
	    cmocka_unit_test(test_no_steps),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_overlay),
	    cmocka_unit_test(test_real_traces),
	    cmocka_unit_test(test_trace_diff),
	    cmocka_unit_test(test_trace_diff_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
