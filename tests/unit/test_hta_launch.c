/*
 * test_hta_launch.c - HTA's launch-side analyses (src/analysis/hta_launch.h)
 * on hand-written Kineto traces: launch statistics (durations, delay,
 * percentiles, HTA's outlier classes and cutoffs, graph launches, unlinked
 * and zero-length events), the user-annotation breakdown (CPU and GPU, the
 * innermost covering GPU annotation per kernel on its own stream), frequent
 * kernel sequences (patterns, shallowest roots, min length, default
 * operators), communication/computation overlap and straggler candidates
 * (also through the distributed view and its JSON). Expected values are
 * worked out in the comment above each case. The last case checks
 * invariants on the real ResNet-50 traces of ../shared (skipped if absent).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/hta_launch.h"
#include "importers/kineto.h"
#include "output/jsonw.h"
#include "output/output.h"
#include "testutil.h"

#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The analysed trace, or fail. */
static struct tu_fx *load(const char *json)
{
	struct tu_fx *f = tu_fx_load(json);

	assert_non_null(f);
	return f;
}

/* Runs a view writer into memory and parses the result. */
static json_t *doc_of(void (*fn)(struct jsonw *, const struct an_profile *),
		      const struct an_profile *p)
{
	json_t *j = tu_view_json(fn, p);

	if (!j)
		fail_msg("the document is not valid JSON (NaN?)");
	return j;
}

static const char *S(const struct tu_fx *f, uint32_t id)
{
	return model_str(&f->m, id);
}

#define HEAD "{\"traceEvents\":["
#define TAIL "]}"
#define OP(name, tid, ts, dur)                                                                     \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid           \
	",\"ts\":" #ts ",\"dur\":" #dur "},"
#define RT(name, ts, dur, corr)                                                                    \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name                                  \
	"\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr  \
	"}},"
#define KN(cat, name, stream, ts, dur, corr)                                                       \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream       \
	",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr                        \
	",\"device\":0,\"stream\":" #stream "}},"
#define LAST "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"args\":{\"name\":\"x\"}}"

/* ---- launch statistics --------------------------------------------------- */

/* aten::mm [0,100) us on tid 1. delay = HTA's: device start - launch end;
 * start = nnscope's start delay: device start - launch start.
 *   A cudaLaunchKernel [10,30)  corr 1 -> k1     [40,45):   cpu 20 gpu 5
 *     delay 40 - 30 = 10, start 30
 *   B cudaLaunchKernel [40,100) corr 2 -> k2     [300,400): cpu 60 gpu 100
 *     delay 300 - 100 = 200, start 260
 *   C cudaMemcpyAsync  [120,130) corr 3 -> Memcpy [140,160): cpu 10 gpu 20
 *     delay 140 - 130 = 10, start 20
 *   orphan kernel corr 99 (no launch): unlinked.
 * cpu sorted [10,20,60]: sum 90, mean 30, p50 20, p90 at 1.8 = 20+.8*40 = 52,
 *   p99 at 1.98 = 20+.98*40 = 59.2.  gpu [5,20,100]: sum 125, p50 20.
 * delay [10,10,200]: sum 220, p50 10, p90 10+.8*190 = 162, max 200.
 * start delay [20,30,260]: sum 310, p50 30, p90 30+.8*230 = 214.
 * HTA defaults (50 us, 100 us): short = gpu<cpu && cpu<=50: A only;
 * runtime outliers cpu>50: B; delay outliers >100: B (by start delay A
 * would be 30, B 260: the same one). B's op is aten::mm (enclosing), C has
 * none. Histogram of delay: lo 10000 ns, width ceil(190001/40) = 4751 ns;
 * 10000 (A, C) -> bin 0, 200000 -> 190000/4751 = 39.99 -> 39. */
static const char *launch_json =
    HEAD OP("aten::mm", 1, 0, 100) RT("cudaLaunchKernel", 10, 20, 1) KN("kernel", "k1", 7, 40, 5, 1)
	RT("cudaLaunchKernel", 40, 60, 2) KN("kernel", "k2", 7, 300, 100, 2)
	    RT("cudaMemcpyAsync", 120, 10, 3) KN("gpu_memcpy", "Memcpy HtoD", 7, 140, 20, 3)
		KN("kernel", "orphan", 7, 500, 1, 99) LAST TAIL;

/* Row i of l (rows hold device event indices: hta_launch_row_at). */
static struct hta_launch_row row_of(const struct tu_fx *f, const struct hta_launches *l, size_t i)
{
	struct hta_launch_row r;

	hta_launch_row_at(&f->m, l, i, &r);
	return r;
}

static void test_launch_stats(void **st)
{
	struct tu_fx *f = load(launch_json);
	struct hta_launches l;
	struct nns_err err;
	struct hta_launch_row rv, *r = &rv;
	(void)st;

	assert_int_equal(hta_launches_compute(&f->p, NULL, &l, &err), NNS_OK);
	assert_int_equal(l.rows.n, 3);
	assert_int_equal(l.device_unlinked, 1);
	assert_int_equal(l.graph_launches_skipped, 0);
	assert_int_equal(l.cpu.sum, 90000);
	assert_true(fabs(l.cpu.mean - 30000) < 1e-6);
	assert_true(fabs(l.cpu.p50 - 20000) < 1e-6);
	assert_true(fabs(l.cpu.p90 - 52000) < 1e-6);
	assert_true(fabs(l.cpu.p99 - 59200) < 1e-6);
	assert_int_equal(l.gpu.sum, 125000);
	assert_true(fabs(l.gpu.p50 - 20000) < 1e-6);
	assert_int_equal(l.delay.min, 10000);
	assert_int_equal(l.delay.max, 200000);
	assert_int_equal(l.delay.sum, 220000);
	assert_true(fabs(l.delay.p50 - 10000) < 1e-6);
	assert_true(fabs(l.delay.p90 - 162000) < 1e-6);
	assert_int_equal(l.start_delay.min, 20000);
	assert_int_equal(l.start_delay.sum, 310000);
	assert_true(fabs(l.start_delay.p50 - 30000) < 1e-6);
	assert_true(fabs(l.start_delay.p90 - 214000) < 1e-6);
	assert_int_equal(l.n_before_return, 0);
	assert_int_equal(l.n_short, 1);
	assert_int_equal(l.n_runtime_outliers, 1);
	assert_int_equal(l.n_delay_outliers, 1);
	assert_int_equal(l.top_short.n, 1);
	rv = row_of(f, &l, l.top_short.v[0]);
	assert_string_equal(S(f, f->m.events.v[r->dev].name), "k1");
	assert_int_equal(r->delay, 10000);
	assert_int_equal(r->start_delay, 30000);
	rv = row_of(f, &l, l.top_delay.v[0]);
	assert_string_equal(S(f, f->m.events.v[r->dev].name), "k2");
	assert_string_equal(S(f, hta_launch_op_name(&f->p, r->launch)), "aten::mm");
	rv = row_of(f, &l, l.top_runtime.v[0]);
	assert_int_equal(r->cpu_dur, 60000);
	/* the memcpy's launch is outside any operator */
	for (size_t i = 0; i < l.rows.n; i++)
		if (!strcmp(S(f, f->m.events.v[row_of(f, &l, i).dev].name), "Memcpy HtoD"))
			assert_int_equal(hta_launch_op_name(&f->p, row_of(f, &l, i).launch), 0);
	assert_int_equal(l.hist_lo, 10000);
	assert_int_equal(l.hist_width, 4751);
	assert_int_equal(l.hist[0], 2);
	assert_int_equal(l.hist[39], 1);
	hta_launches_release(&l);
	tu_fx_free(f);
}

/* Cutoffs are options: runtime 15 us, delay 5 us.
 * runtime outliers cpu>15: A (20), B (60) = 2; short needs cpu<=15: only C
 * qualifies by cpu, but its gpu 20 > cpu 10: 0; delay >5: A (10), B (200),
 * C (10) = 3.
 * Lists worst first: runtime B then A; delay B then A. outliers_max 1 caps
 * the lists, not the counts. */
static void test_launch_cutoffs(void **st)
{
	struct tu_fx *f = load(launch_json);
	struct hta_launch_opts o = {15000, 5000, 1};
	struct hta_launches l;
	(void)st;

	assert_int_equal(hta_launches_compute(&f->p, &o, &l, NULL), NNS_OK);
	assert_int_equal(l.n_runtime_outliers, 2);
	assert_int_equal(l.n_short, 0);
	assert_int_equal(l.n_delay_outliers, 3);
	assert_int_equal(l.top_runtime.n, 1);
	assert_int_equal(row_of(f, &l, l.top_runtime.v[0]).cpu_dur, 60000);
	assert_int_equal(l.top_delay.n, 1);
	assert_int_equal(row_of(f, &l, l.top_delay.v[0]).delay, 200000);
	hta_launches_release(&l);
	tu_fx_free(f);
}

/* The top lists equal sorting every candidate by key (descending), then
 * row (ascending), and keeping outliers_max: 90 launches whose cpu
 * durations and delays repeat (ties across the cut), lists of 7, checked
 * against a sort of all rows done here. */
static int64_t top_key(const struct hta_launch_row *r, int which, const struct hta_launches *l,
		       int *in)
{
	if (which == 0) {
		*in = r->gpu_dur < r->cpu_dur && r->cpu_dur <= l->runtime_cutoff;
		return r->cpu_dur - r->gpu_dur;
	}
	if (which == 1) {
		*in = r->cpu_dur > l->runtime_cutoff;
		return r->cpu_dur;
	}
	*in = r->delay > l->launch_delay_cutoff;
	return r->delay;
}

static void test_launch_top_lists_many(void **st)
{
	static char json[32768];
	struct hta_launch_opts o = {25000, 30000, 7};
	struct hta_launches l;
	struct tu_fx *f;
	size_t at = 0;
	(void)st;

	at += (size_t)snprintf(json + at, sizeof(json) - at, HEAD);
	for (int i = 0; i < 90; i++) {
		int cpu = 5 + (i * 37 % 7) * 5, delay = 10 + (i * 13 % 5) * 10,
		    gpu = 1 + i % 3 * 10;
		int t0 = i * 1000;

		at += (size_t)snprintf(
		    json + at, sizeof(json) - at,
		    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":"
		    "1,"
		    "\"tid\":1,\"ts\":%d,\"dur\":%d,\"args\":{\"correlation\":%d}},"
		    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,"
		    "\"dur\":%d,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}},",
		    t0, cpu, i + 1, t0 + cpu + delay, gpu, i + 1);
	}
	snprintf(json + at, sizeof(json) - at, LAST TAIL);
	f = load(json);
	assert_int_equal(hta_launches_compute(&f->p, &o, &l, NULL), NNS_OK);
	assert_int_equal(l.rows.n, 90);
	for (int which = 0; which < 3; which++) {
		const uint32_t *got = which == 0   ? l.top_short.v
				      : which == 1 ? l.top_runtime.v
						   : l.top_delay.v;
		size_t ngot = which == 0   ? l.top_short.n
			      : which == 1 ? l.top_runtime.n
					   : l.top_delay.n;
		int64_t cand = which == 0   ? l.n_short
			       : which == 1 ? l.n_runtime_outliers
					    : l.n_delay_outliers;
		uint32_t want[90];
		int64_t key[90];
		size_t n = 0;

		for (uint32_t i = 0; i < l.rows.n; i++) {
			struct hta_launch_row r = row_of(f, &l, i);
			int in;
			int64_t k = top_key(&r, which, &l, &in);

			if (!in)
				continue;
			/* insertion: key descending, row ascending */
			size_t j = n++;
			while (j > 0 && key[j - 1] < k) {
				want[j] = want[j - 1];
				key[j] = key[j - 1];
				j--;
			}
			want[j] = i;
			key[j] = k;
		}
		assert_int_equal((int64_t)n, cand);
		assert_true(n > 7); /* more candidates than kept: the selection runs */
		assert_int_equal(ngot, 7);
		for (size_t j = 0; j < 7; j++)
			assert_int_equal(got[j], want[j]);
	}
	hta_launches_release(&l);
	tu_fx_free(f);
}

/* A cudaGraphLaunch [0,10) corr 5 runs two kernels: skipped (2), no rows.
 * A zero-length launch [20,20) corr 6 -> zero-length kernel [25,25): row 1,
 * cpu 0 gpu 0 delay 25 - 20 = 5 (= start delay); not short (0 < 0 is false).
 * A launch [50,60) corr 7 -> kernel [55,57) starts before the call returns:
 * row 2, delay 55 - 60 = -5 -> 0 (clipped, started_before_return 1), start
 * delay 5; short (gpu 2 < cpu 10 <= 50). Histogram: lo 0, width
 * ceil(5001/40) = 126; 0 -> bin 0, 5000 -> 5000/126 = 39.7 -> 39. */
static void test_launch_graph_and_zero(void **st)
{
	static const char *json = HEAD RT("cudaGraphLaunch", 0, 10, 5)
	    KN("kernel", "g1", 7, 30, 5, 5) KN("kernel", "g2", 7, 35, 5, 5)
		RT("cudaLaunchKernel", 20, 0, 6) KN("kernel", "z", 7, 25, 0, 6)
		    RT("cudaLaunchKernel", 50, 10, 7) KN("kernel", "early", 7, 55, 2, 7) LAST TAIL;
	struct tu_fx *f = load(json);
	struct hta_launches l;
	(void)st;

	assert_int_equal(hta_launches_compute(&f->p, NULL, &l, NULL), NNS_OK);
	assert_int_equal(l.graph_launches_skipped, 2);
	assert_int_equal(l.rows.n, 2);
	assert_int_equal(row_of(f, &l, 0).cpu_dur, 0);
	assert_int_equal(row_of(f, &l, 0).gpu_dur, 0);
	assert_int_equal(row_of(f, &l, 0).delay, 5000);
	assert_int_equal(row_of(f, &l, 0).start_delay, 5000);
	assert_int_equal(row_of(f, &l, 1).delay, 0);
	assert_int_equal(row_of(f, &l, 1).start_delay, 5000);
	assert_int_equal(l.n_before_return, 1);
	assert_int_equal(l.n_short, 1);
	assert_int_equal(l.hist_lo, 0);
	assert_int_equal(l.hist_width, 126);
	assert_int_equal(l.hist[0], 1);
	assert_int_equal(l.hist[39], 1);
	hta_launches_release(&l);
	tu_fx_free(f);
}

/* CPU-only trace: no rows, zero summary, and documents that say so. */
static void test_no_gpu(void **st)
{
	static const char *json = HEAD OP(
	    "aten::add", 1, 0, 10) "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"fwd\","
				   "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":20}," LAST TAIL;
	struct tu_fx *f = load(json);
	struct hta_launches l;
	json_t *j;
	(void)st;

	assert_int_equal(hta_launches_compute(&f->p, NULL, &l, NULL), NNS_OK);
	assert_int_equal(l.rows.n, 0);
	assert_int_equal(l.delay.n, 0);
	hta_launches_release(&l);
	j = doc_of(out_json_hta_launches, &f->p);
	assert_int_equal(json_integer_value(json_object_get(j, "launches")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "points")), 0);
	assert_int_equal(
	    json_array_size(json_object_get(json_object_get(j, "delay_histogram"), "counts")), 0);
	json_decref(j);
	j = doc_of(out_json_hta_annotations, &f->p);
	assert_int_equal(json_array_size(json_object_get(j, "cpu")), 1);
	assert_int_equal(json_array_size(json_object_get(j, "gpu")), 0);
	json_decref(j);
	j = doc_of(out_json_hta_sequences, &f->p);
	assert_int_equal(json_array_size(json_object_get(j, "ops")), 0);
	json_decref(j);
	tu_fx_free(f);
}

/* The launches document carries the same numbers, in microseconds. */
static void test_launch_json(void **st)
{
	struct tu_fx *f = load(launch_json);
	json_t *j = doc_of(out_json_hta_launches, &f->p), *x;
	(void)st;

	assert_int_equal(json_integer_value(json_object_get(j, "launches")), 3);
	x = json_object_get(json_object_get(j, "summary_us"), "delay");
	assert_true(fabs(json_number_value(json_object_get(x, "p90")) - 162.0) < 1e-9);
	assert_true(fabs(json_number_value(json_object_get(x, "sum")) - 220.0) < 1e-9);
	x = json_object_get(json_object_get(j, "summary_us"), "start_delay");
	assert_true(fabs(json_number_value(json_object_get(x, "p90")) - 214.0) < 1e-9);
	assert_true(fabs(json_number_value(json_object_get(x, "sum")) - 310.0) < 1e-9);
	/* both definitions are named in the document */
	x = json_object_get(j, "definitions");
	assert_non_null(strstr(json_string_value(json_object_get(x, "delay")), "HTA"));
	assert_non_null(strstr(json_string_value(json_object_get(x, "start_delay")), "nnscope"));
	assert_int_equal(json_integer_value(json_object_get(j, "started_before_return")), 0);
	x = json_array_get(json_object_get(j, "launch_delay_outliers"), 0);
	assert_string_equal(json_string_value(json_object_get(x, "kernel")), "k2");
	assert_string_equal(json_string_value(json_object_get(x, "op")), "aten::mm");
	assert_true(fabs(json_number_value(json_object_get(x, "ts_us")) - 40.0) < 1e-9);
	assert_true(fabs(json_number_value(json_object_get(x, "delay_us")) - 200.0) < 1e-9);
	assert_true(fabs(json_number_value(json_object_get(x, "start_delay_us")) - 260.0) < 1e-9);
	assert_int_equal(json_array_size(json_object_get(j, "points")), 3);
	json_decref(j);
	tu_fx_free(f);
}

/* ---- user annotations ---------------------------------------------------- */

#define UA(cat, name, pid, tid, ts, dur)                                                           \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":" #pid ",\"tid\":" #tid   \
	",\"ts\":" #ts ",\"dur\":" #dur "},"

/* CPU: fwd [0,100) and [200,250), bwd [300,340): fwd count 2 sum 150 mean
 * 75, bwd 1 / 40; by sum: fwd, bwd.
 * GPU annotations: stream 7: fwd [1000,1100), inner [1010,1050), empty
 * [1020,1020) (zero length: covers nothing); stream 8: fwd [1000,1100).
 * Kernels (start decides): stream 7: kA [1000,1005) -> fwd; kB [1020,1030)
 * -> inner; kC [1050,1060) -> fwd (inner ended at 1050); kD [1100,1110) ->
 * none (fwd ended); kA [1060,1070) -> fwd; stream 8: kE [1020,1040) -> fwd;
 * stream 9: kF [1020,1030) -> none (no annotation on its stream).
 * GPU rows: fwd count 2 sum 200, kernels kA 5+10, kC 10, kE 20: kernel_count
 * 4, kernel_sum 45, by time kE 20, kA 15 (2), kC 10; inner 1 / 40 with kB
 * 10; empty 1 / 0 with none. device_events 7, covered 5. */
static void test_annotations(void **st)
{
	static const char *json = HEAD UA("user_annotation", "fwd", 1, 1, 0, 100)
	    UA("user_annotation", "fwd", 1, 1, 200, 50) UA("user_annotation", "bwd", 1, 1, 300, 40)
		UA("gpu_user_annotation", "fwd", 0, 7, 1000, 100)
		    UA("gpu_user_annotation", "inner", 0, 7, 1010, 40)
			UA("gpu_user_annotation", "empty", 0, 7, 1020, 0)
			    UA("gpu_user_annotation", "fwd", 0, 8, 1000, 100)
				KN("kernel", "kA", 7, 1000, 5, 1) KN("kernel", "kB", 7, 1020, 10, 2)
				    KN("kernel", "kC", 7, 1050, 10, 3)
					KN("kernel", "kD", 7, 1100, 10, 4)
					    KN("kernel", "kA", 7, 1060, 10, 5)
						KN("kernel", "kE", 8, 1020, 20, 6)
						    KN("kernel", "kF", 9, 1020, 10, 7) LAST TAIL;
	struct tu_fx *f = load(json);
	struct hta_annotations a;
	const struct hta_anno_row *r;
	json_t *j, *x;
	size_t i;
	(void)st;

	assert_int_equal(hta_annotations_compute(&f->p, &a, NULL), NNS_OK);
	assert_int_equal(a.cpu.n, 2);
	assert_string_equal(S(f, a.cpu.v[0].name), "fwd");
	assert_int_equal(a.cpu.v[0].count, 2);
	assert_int_equal(a.cpu.v[0].sum, 150000);
	assert_string_equal(S(f, a.cpu.v[1].name), "bwd");
	assert_int_equal(a.cpu.v[1].sum, 40000);
	assert_int_equal(a.gpu.n, 3);
	r = &a.gpu.v[0];
	assert_string_equal(S(f, r->name), "fwd");
	assert_int_equal(r->count, 2);
	assert_int_equal(r->sum, 200000);
	assert_int_equal(r->kernel_count, 4);
	assert_int_equal(r->kernel_sum, 45000);
	assert_int_equal(r->nkernels, 3);
	assert_string_equal(S(f, a.kernels.v[r->first_kernel].name), "kE");
	assert_int_equal(a.kernels.v[r->first_kernel].sum, 20000);
	assert_string_equal(S(f, a.kernels.v[r->first_kernel + 1].name), "kA");
	assert_int_equal(a.kernels.v[r->first_kernel + 1].count, 2);
	assert_int_equal(a.kernels.v[r->first_kernel + 1].sum, 15000);
	assert_string_equal(S(f, a.kernels.v[r->first_kernel + 2].name), "kC");
	r = &a.gpu.v[1];
	assert_string_equal(S(f, r->name), "inner");
	assert_int_equal(r->kernel_count, 1);
	assert_int_equal(r->nkernels, 1);
	assert_string_equal(S(f, a.kernels.v[r->first_kernel].name), "kB");
	r = &a.gpu.v[2];
	assert_string_equal(S(f, r->name), "empty");
	assert_int_equal(r->sum, 0);
	assert_int_equal(r->kernel_count, 0);
	assert_int_equal(a.device_events, 7);
	assert_int_equal(a.device_covered, 5);
	hta_annotations_release(&a);

	j = doc_of(out_json_hta_annotations, &f->p);
	x = json_array_get(json_object_get(j, "cpu"), 0);
	assert_true(fabs(json_number_value(json_object_get(x, "mean_us")) - 75.0) < 1e-9);
	x = json_array_get(json_object_get(j, "gpu"), 0);
	assert_true(fabs(json_number_value(json_object_get(x, "kernel_sum_us")) - 45.0) < 1e-9);
	assert_int_equal(json_array_size(json_object_get(x, "kernels")), 3);
	for (i = 0; i < 3; i++)
		assert_non_null(
		    json_object_get(json_array_get(json_object_get(x, "kernels"), i), "sum_us"));
	json_decref(j);
	tu_fx_free(f);
}

/* Ties: on stream 7 kernel kT [0,10) is written before the annotation
 * "same" [0,10) that starts and ends with it: it is still covered. A
 * zero-length kernel kZ [20,20) inside "outer" [15,30) is covered too;
 * "outer" shares no start with anything. */
static void test_annotation_ties(void **st)
{
	static const char *json =
	    HEAD KN("kernel", "kT", 7, 0, 10, 1) UA("gpu_user_annotation", "same", 0, 7, 0, 10)
		UA("gpu_user_annotation", "outer", 0, 7, 15, 15) KN("kernel", "kZ", 7, 20, 0, 2)
		    LAST TAIL;
	struct tu_fx *f = load(json);
	struct hta_annotations a;
	size_t i;
	(void)st;

	assert_int_equal(hta_annotations_compute(&f->p, &a, NULL), NNS_OK);
	assert_int_equal(a.device_events, 2);
	assert_int_equal(a.device_covered, 2);
	for (i = 0; i < a.gpu.n; i++)
		assert_int_equal(a.gpu.v[i].kernel_count, 1);
	hta_annotations_release(&a);
	tu_fx_free(f);
}

/* ---- frequent kernel sequences ------------------------------------------- */

/* tid 1; each linear holds an addmm except the third.
 *   linear [0,100)   addmm [10,90):   k1 [200,210) k2 [210,215) k3 [215,230)
 *   linear [200,300) addmm [210,290): k1 [400,410) k2 [410,415) k3 [415,430)
 *   linear [400,450):                 k1 [500,505) k2 [505,506)   (2 < 3: dropped)
 *   linear [600,700):                 k1 [800,810) k3 [810,820) k2 [820,825)
 * "aten::linear" exact: 4 roots; [linear,k1,k2,k3] count 2, gpu 2*30 = 60,
 * cpu 100+100 = 200; [linear,k1,k3,k2] count 1, gpu 25, cpu 100.
 * "addmm" (substring, HTA): 2 roots at depth 2: [aten::addmm,k1,k2,k3]
 * count 2, gpu 60, cpu 80+80 = 160.
 * Default: top-level launches: aten::linear 3+3+2+3 = 11 (addmm sits under
 * linear): one operator, the linear patterns above. */
static const char *seq_json = HEAD OP("aten::linear", 1, 0, 100) OP("aten::addmm", 1, 10, 80) RT(
    "cudaLaunchKernel", 20, 2, 1) RT("cudaLaunchKernel", 30, 2, 2) RT("cudaLaunchKernel", 40, 2, 3)
    KN("kernel", "k1", 7, 200, 10, 1) KN("kernel", "k2", 7, 210, 5, 2) KN(
	"kernel", "k3", 7, 215, 15, 3) OP("aten::linear", 1, 200, 100) OP("aten::addmm", 1, 210, 80)
	RT("cudaLaunchKernel", 220, 2, 4) RT("cudaLaunchKernel", 230, 2, 5)
	    RT("cudaLaunchKernel", 240, 2, 6) KN("kernel", "k1", 7, 400, 10, 4)
		KN("kernel", "k2", 7, 410, 5, 5) KN("kernel", "k3", 7, 415, 15, 6)
		    OP("aten::linear", 1, 400, 50) RT("cudaLaunchKernel", 410, 2, 7)
			RT("cudaLaunchKernel", 420, 2, 8) KN("kernel", "k1", 7, 500, 5, 7)
			    KN("kernel", "k2", 7, 505, 1, 8) OP("aten::linear", 1, 600, 100)
				RT("cudaLaunchKernel", 610, 2, 9) RT("cudaLaunchKernel", 620, 2, 10)
				    RT("cudaLaunchKernel", 630, 2, 11)
					KN("kernel", "k1", 7, 800, 10, 9)
					    KN("kernel", "k3", 7, 810, 10, 10)
						KN("kernel", "k2", 7, 820, 5, 11) LAST TAIL;

static void check_names(const struct tu_fx *f, const struct hta_sequences *s,
			const struct hta_seq_pattern *pt, const char *const *want, size_t n)
{
	size_t i;

	assert_int_equal(pt->len, n);
	for (i = 0; i < n; i++)
		assert_string_equal(S(f, s->names.v[pt->first + i]), want[i]);
}

static void test_sequences(void **st)
{
	static const char *const p123[] = {"k1", "k2", "k3"}, *const p132[] = {"k1", "k3", "k2"};
	struct tu_fx *f = load(seq_json);
	struct hta_sequences s;
	const struct hta_seq_op *o;
	const struct hta_seq_pattern *pt;
	(void)st;

	memset(&s, 0, sizeof(s));
	assert_int_equal(hta_sequences_for(&f->p, "aten::linear", 1, 0, 0, &s, NULL), NNS_OK);
	assert_int_equal(hta_sequences_for(&f->p, "addmm", 0, 0, 0, &s, NULL), NNS_OK);
	assert_int_equal(hta_sequences_for(&f->p, "no_such_op", 0, 0, 0, &s, NULL), NNS_OK);
	assert_int_equal(s.ops.n, 3);
	o = &s.ops.v[0];
	assert_int_equal(o->roots, 4);
	assert_int_equal(o->patterns_total, 2);
	assert_int_equal(o->n, 2);
	pt = &s.patterns.v[o->first];
	assert_string_equal(S(f, pt->op), "aten::linear");
	check_names(f, &s, pt, p123, 3);
	assert_int_equal(pt->count, 2);
	assert_int_equal(pt->gpu_time, 60000);
	assert_int_equal(pt->cpu_time, 200000);
	pt++;
	check_names(f, &s, pt, p132, 3);
	assert_int_equal(pt->count, 1);
	assert_int_equal(pt->gpu_time, 25000);
	assert_int_equal(pt->cpu_time, 100000);
	o = &s.ops.v[1];
	assert_int_equal(o->roots, 2);
	assert_int_equal(o->n, 1);
	pt = &s.patterns.v[o->first];
	assert_string_equal(S(f, pt->op), "aten::addmm");
	check_names(f, &s, pt, p123, 3);
	assert_int_equal(pt->count, 2);
	assert_int_equal(pt->cpu_time, 160000);
	o = &s.ops.v[2];
	assert_int_equal(o->roots, 0);
	assert_int_equal(o->n, 0);
	hta_sequences_release(&s);

	/* min_pattern_len 2 keeps the third linear: 3 patterns; top_k 1 keeps
	 * the most frequent only */
	memset(&s, 0, sizeof(s));
	assert_int_equal(hta_sequences_for(&f->p, "aten::linear", 1, 2, 1, &s, NULL), NNS_OK);
	assert_int_equal(s.ops.v[0].patterns_total, 3);
	assert_int_equal(s.ops.v[0].n, 1);
	assert_int_equal(s.patterns.v[0].count, 2);
	hta_sequences_release(&s);

	assert_int_equal(hta_sequences_default(&f->p, 0, &s, NULL), NNS_OK);
	assert_int_equal(s.ops.n, 1);
	assert_string_equal(s.ops.v[0].query, "aten::linear");
	assert_int_equal(s.ops.v[0].launches, 11);
	assert_int_equal(s.ops.v[0].patterns_total, 2);
	hta_sequences_release(&s);
	tu_fx_free(f);
}

/* Nested instances of the same name: aten::foo [0,100) holds aten::foo
 * [10,90) which launches 3 kernels. Only the shallowest (outer) is a root:
 * one pattern, count 1, cpu 100 (not 100 + 80). */
static void test_sequences_nested(void **st)
{
	static const char *json = HEAD OP("aten::foo", 1, 0, 100) OP("aten::foo", 1, 10, 80)
	    RT("cudaLaunchKernel", 20, 2, 1) RT("cudaLaunchKernel", 30, 2, 2)
		RT("cudaLaunchKernel", 40, 2, 3) KN("kernel", "a", 7, 200, 1, 1)
		    KN("kernel", "b", 7, 201, 1, 2) KN("kernel", "c", 7, 202, 1, 3) LAST TAIL;
	struct tu_fx *f = load(json);
	struct hta_sequences s;
	(void)st;

	memset(&s, 0, sizeof(s));
	assert_int_equal(hta_sequences_for(&f->p, "aten::foo", 1, 0, 0, &s, NULL), NNS_OK);
	assert_int_equal(s.ops.v[0].roots, 1);
	assert_int_equal(s.ops.v[0].n, 1);
	assert_int_equal(s.patterns.v[0].count, 1);
	assert_int_equal(s.patterns.v[0].cpu_time, 100000);
	assert_int_equal(s.patterns.v[0].gpu_time, 3000);
	hta_sequences_release(&s);
	tu_fx_free(f);
}

/* ---- overlap and stragglers ---------------------------------------------- */

/* The model's one classifier (model_class_of), HTA's get_kernel_type plus
 * the names HTA's misses: "void ncclKernel..." (cuda demangled), NCCL 2.19+
 * ncclDevKernel, RCCL, MTIA's dma_request copy engine (issue 18: counted as
 * compute, HTA gives it non-compute). */
static void test_kernel_type(void **st)
{
	(void)st;
	assert_int_equal(model_class_of(MK_KERNEL, "ncclDevKernel_AllReduce_Sum_f32"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "ncclKernel_AllGather"), MC_COMM);
	assert_int_equal(
	    model_class_of(MK_KERNEL, "void ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"),
	    MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "gloo:all_reduce"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "rcclKernel_AllReduce"), MC_COMM);
	assert_int_equal(model_class_of(MK_KERNEL, "Memcpy HtoD (Pageable -> Device)"), MC_MEMORY);
	assert_int_equal(model_class_of(MK_KERNEL, "Memset (Device)"), MC_MEMORY);
	assert_int_equal(model_class_of(MK_KERNEL, "dma_request"), MC_MEMORY);
	assert_int_equal(model_class_of(MK_MEMCPY, "anything"), MC_MEMORY);
	assert_int_equal(model_class_of(MK_MEMSET, "x"), MC_MEMORY);
	assert_int_equal(model_class_of(MK_KERNEL, "void gemm"), MC_COMPUTE);
	assert_int_equal(model_class_of(MK_KERNEL, "my_nccl_like"), MC_COMPUTE);
	assert_int_equal(model_class_of(MK_CPU_OP, "ncclKernel_host_name"), MC_NONE);
	assert_string_equal(model_class_name(MC_COMM), "communication");
}

/* stream 7: ncclKernel_AllReduce [100,200); stream 8: gemm [150,250),
 * Memcpy DtoD [100,200) (memory: neither side); stream 9: ncclKernel_B
 * [300,400), gemm2 [350,360), gemm3 [355,370) (comp merges to [350,370)).
 * comm = 100 + 100 = 200 us; overlap = [150,200) + [350,370) = 70 us:
 * 35 %. */
static const char *overlap_json =
    HEAD KN("kernel", "ncclKernel_AllReduce", 7, 100, 100, 1) KN("kernel", "gemm", 8, 150, 100, 2)
	KN("gpu_memcpy", "Memcpy DtoD", 8, 100, 100, 3) KN("kernel", "ncclKernel_B", 9, 300, 100, 4)
	    KN("kernel", "gemm2", 9, 350, 10, 5) KN("kernel", "gemm3", 9, 355, 15, 6) LAST TAIL;

static void test_overlap(void **st)
{
	struct tu_fx *f = load(overlap_json), *g = load(launch_json);
	double pct;
	int64_t olap, comm;
	(void)st;

	assert_int_equal(hta_comm_overlap(&f->p, &pct, &olap, &comm, NULL), NNS_OK);
	assert_int_equal(comm, 200000);
	assert_int_equal(olap, 70000);
	assert_true(fabs(pct - 35.0) < 1e-9);
	/* no communication kernels: undefined */
	assert_int_equal(hta_comm_overlap(&g->p, &pct, &olap, &comm, NULL), NNS_OK);
	assert_true(pct < 0);
	assert_int_equal(comm, 0);
	tu_fx_free(f);
	tu_fx_free(g);
}

/* Steps ProfilerStep#1 [0,1000), #2 [1000,2000) us; mean 1000, significant
 * comm kernels >= 10 us. Step 1: nccl at 100 (dur 50), 600 (dur 20), 900
 * (dur 5: too short) -> last significant start 600: 0.6. Step 2: nccl at
 * 1200 (dur 100): 0.2. A nccl kernel at 2500 lies in no step. late_start =
 * (0.6 + 0.2) / 2 = 0.4; step_time 1000 us. */
static void test_worker_metrics(void **st)
{
	static const char *json = HEAD UA("user_annotation", "ProfilerStep#1", 1, 1, 0, 1000)
	    UA("user_annotation", "ProfilerStep#2", 1, 1, 1000, 1000)
		KN("kernel", "ncclKernel_A", 7, 100, 50, 1)
		    KN("kernel", "ncclKernel_A", 7, 600, 20, 2)
			KN("kernel", "ncclKernel_A", 7, 900, 5, 3)
			    KN("kernel", "ncclKernel_A", 7, 1200, 100, 4)
				KN("kernel", "ncclKernel_A", 7, 2500, 100, 5) LAST TAIL;
	struct tu_fx *f = load(json);
	struct hta_worker_metrics w;
	(void)st;

	assert_int_equal(f->p.overview.steps.n, 2);
	assert_int_equal(f->p.overview.steps.v[0].start, 0);
	assert_int_equal(f->p.overview.steps.v[1].end, 2000000);
	assert_int_equal(hta_worker_metrics(&f->p, &w, NULL), NNS_OK);
	assert_true(fabs(w.step_time - 1e6) < 1e-6);
	assert_true(fabs(w.late_start - 0.4) < 1e-9);
	tu_fx_free(f);
}

/* Step times 1000, 1000, 1200, 1050: median (1000+1050)/2 = 1025; w2 is
 * 100*175/1025 = 17.07 % above (> 10): straggler; w3 2.4 %: not. Late
 * starts 0.10, 0.12, 0.40 (w3 none): median 0.12; w2 0.28 above (> 0.05).
 * One worker: nothing. */
static void test_stragglers(void **st)
{
	struct hta_worker_metrics w[4] = {{1000, 0.10}, {1000, 0.12}, {1200, 0.40}, {1050, -1}};
	struct hta_straggler *s;
	size_t n;
	(void)st;

	assert_int_equal(hta_stragglers(w, 4, &s, &n, NULL), NNS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(s[0].worker, 2);
	assert_string_equal(s[0].metric, "step_time");
	assert_true(fabs(s[0].median - 1025) < 1e-9);
	assert_true(fabs(s[0].excess - 100.0 * 175 / 1025) < 1e-9);
	assert_int_equal(s[1].worker, 2);
	assert_string_equal(s[1].metric, "late_start");
	assert_true(fabs(s[1].median - 0.12) < 1e-12);
	assert_true(fabs(s[1].excess - 0.28) < 1e-12);
	free(s);
	assert_int_equal(hta_stragglers(w, 1, &s, &n, NULL), NNS_OK);
	assert_int_equal(n, 0);
	assert_null(s);
}

/* Through the distributed view: worker a has the overlap trace (35 %),
 * worker b the launch trace (no comm: null in JSON). Neither has steps
 * beyond the synthetic one, and no straggler is named. */
static void test_dist_fields(void **st)
{
	struct tu_fx *a = load(overlap_json), *b = load(launch_json);
	const struct an_profile *ps[2] = {&a->p, &b->p};
	const char *names[2] = {"a", "b"};
	struct an_dist d;
	struct jsonw w;
	json_t *j, *x;
	char *s;
	size_t len;
	(void)st;

	assert_int_equal(an_dist_compute(&d, ps, names, 2, NULL), NNS_OK);
	assert_true(fabs(d.workers.v[0].overlap_pct - 35.0) < 1e-9);
	assert_true(d.workers.v[1].overlap_pct < 0);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	out_json_dist(&w, &d, NULL);
	assert_int_equal(jsonw_finish(&w, NULL), NNS_OK);
	s = jsonw_take(&w, &len);
	jsonw_release(&w);
	j = json_loads(s, 0, NULL);
	assert_non_null(j);
	x = json_object_get(j, "workers");
	assert_true(fabs(json_number_value(json_object_get(json_array_get(x, 0), "overlap_pct")) -
			 35.0) < 1e-9);
	assert_true(json_is_null(json_object_get(json_array_get(x, 1), "overlap_pct")));
	assert_true(json_is_array(json_object_get(j, "stragglers")));
	json_decref(j);
	free(s);
	an_dist_release(&d);
	tu_fx_free(a);
	tu_fx_free(b);
}

/* ---- invariants on the real traces --------------------------------------- */

static void test_real_traces(void **st)
{
	char pat[1024];
	glob_t g;
	size_t i, k;
	(void)st;

	snprintf(pat, sizeof(pat), "%s/data/kineto/resnet50_num_workers_0/*.pt.trace.json.gz",
		 tu_shared_dir());
	if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		printf("SKIP: no traces at %s\n", pat);
		skip();
	}
	for (i = 0; i < g.gl_pathc && i < 1; i++) {
		struct kineto_opts o = {.threads = 1};
		struct nns_err err;
		struct tu_fx *f = calloc(1, sizeof(*f));
		struct hta_launches l;
		struct hta_annotations a;
		struct hta_sequences s;
		int64_t devs = 0, sum = 0;

		assert_non_null(f);
		assert_int_equal(model_init(&f->m), NNS_OK);
		if (kineto_load_file(g.gl_pathv[i], &f->m, &o, &err) ||
		    an_profile_compute(&f->p, &f->m, &err))
			fail_msg("%s: %s", g.gl_pathv[i], err.msg);
		assert_int_equal(hta_launches_compute(&f->p, NULL, &l, NULL), NNS_OK);
		for (k = 0; k < f->m.events.n; k++)
			devs += model_kind_is_device(f->m.events.v[k].kind);
		/* every device event is a row, unlinked or a graph launch */
		assert_int_equal((int64_t)l.rows.n + l.device_unlinked + l.graph_launches_skipped,
				 devs);
		assert_true(l.rows.n > 0);
		for (k = 0; k < l.rows.n; k++)
			sum += row_of(f, &l, k).delay;
		assert_int_equal(sum, l.delay.sum);
		assert_true(l.delay.min >= 0); /* clipped */
		assert_true(l.delay.max <= l.start_delay.max);
		assert_true(l.delay.min <= l.delay.p50 && l.delay.p50 <= l.delay.p90 &&
			    l.delay.p90 <= l.delay.p99 && l.delay.p99 <= l.delay.max);
		for (k = 0, sum = 0; k < HTA_DELAY_BINS; k++)
			sum += l.hist[k];
		assert_int_equal(sum, (int64_t)l.rows.n);
		assert_true(l.top_delay.n <= HTA_OUTLIERS_MAX);
		for (k = 1; k < l.top_delay.n; k++)
			assert_true(row_of(f, &l, l.top_delay.v[k - 1]).delay >=
				    row_of(f, &l, l.top_delay.v[k]).delay);
		hta_launches_release(&l);
		assert_int_equal(hta_annotations_compute(&f->p, &a, NULL), NNS_OK);
		assert_true(a.device_covered <= a.device_events);
		hta_annotations_release(&a);
		assert_int_equal(hta_sequences_default(&f->p, 0, &s, NULL), NNS_OK);
		assert_true(s.ops.n > 0);
		for (k = 0; k < s.ops.n; k++) {
			const struct hta_seq_op *op = &s.ops.v[k];
			int64_t c = 0;
			for (uint32_t q = op->first; q < op->first + op->n; q++) {
				assert_true(s.patterns.v[q].len >= HTA_SEQ_MIN_LEN);
				assert_true(s.patterns.v[q].count >= 1);
				if (q > op->first)
					assert_true(s.patterns.v[q - 1].count >=
						    s.patterns.v[q].count);
				c += s.patterns.v[q].count;
			}
			assert_true(c <= op->roots);
		}
		hta_sequences_release(&s);
		tu_fx_free(f);
	}
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_launch_stats),
	    cmocka_unit_test(test_launch_cutoffs),
	    cmocka_unit_test(test_launch_top_lists_many),
	    cmocka_unit_test(test_launch_graph_and_zero),
	    cmocka_unit_test(test_no_gpu),
	    cmocka_unit_test(test_launch_json),
	    cmocka_unit_test(test_annotations),
	    cmocka_unit_test(test_annotation_ties),
	    cmocka_unit_test(test_sequences),
	    cmocka_unit_test(test_sequences_nested),
	    cmocka_unit_test(test_kernel_type),
	    cmocka_unit_test(test_overlap),
	    cmocka_unit_test(test_worker_metrics),
	    cmocka_unit_test(test_stragglers),
	    cmocka_unit_test(test_dist_fields),
	    cmocka_unit_test(test_real_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
