/*
 * test_trace_index.c - the Trace view's level-of-detail index
 * (src/trace/trace_index.h): track layout and nesting depths computed by
 * hand on a small Kineto trace, zoomed-in and zoomed-out windows (exact
 * items, merged sub-pixel runs), flows only between drawn items, counters
 * down-sampled to the max per pixel, event details and links, clipped
 * summaries, argument errors, and a brute-force property check on a
 * random model: every event overlapping the window is in exactly one
 * item and items of one lane never overlap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "importers/kineto.h"
#include "trace/trace_index.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Times in us below; the index answers in ns relative to the first event.
 *
 * Thread 100 (python):      Thread 200:          GPU 0, stream 7:
 *  A step  [0,100)   d0      H bwd [50,70) d0     K1 gemm [25,35) lane 0
 *  B linear[10,50)   d1                           K2 k2   [30,40) lane 1
 *  C addmm [12,42)   d2      GPU 0 annotations:   K3 k3   [40,45) lane 0
 *  D launch[15,20)   d3       annot [24,54) d0   stream 20:
 *  E relu  [60,70)   d1                           M1 memcpy [50,52)
 *  F bad   [65,85)   overflow lane 4 (partially overlaps E)
 *  G mul   [72,75)   d1
 * Event ids (sorted by ts, -dur): A0 B1 C2 D3 annot4 K1=5 K2=6 K3=7 H8 M1=9
 * E10 F11 G12. fwdbwd flow 5: C (innermost at 12us on thread 100) -> H. */
static const char *main_json =
    "{\"traceEvents\":["
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,\"args\":{\"name\":\"python\"}}"
    ","
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,\"tid\":100,"
    "\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":100,\"tid\":100,\"ts\":10,"
    "\"dur\":40,\"args\":{\"External id\":1,\"Input Dims\":[[2,3],[4,3]],\"Sequence number\":7}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":100,\"tid\":100,\"ts\":12,"
    "\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":100,"
    "\"ts\":15,\"dur\":5,\"args\":{\"correlation\":11,\"External id\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":100,\"tid\":100,\"ts\":60,"
    "\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad\",\"pid\":100,\"tid\":100,\"ts\":65,\"dur\":"
    "20},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":100,\"tid\":100,\"ts\":72,"
    "\"dur\":3},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"AddmmBackward0\",\"pid\":100,\"tid\":200,\"ts\":"
    "50,"
    "\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":25,"
    "\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":11,\"grid\":[1,2,1],"
    "\"block\":[128,1,1],\"registers per thread\":32,\"shared memory\":0}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":30,"
    "\"dur\":10,\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":40,"
    "\"dur\":5,\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":\"stream 20\","
    "\"ts\":50,\"dur\":2,\"args\":{\"device\":0,\"stream\":20,\"bytes\":4096}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"annot\",\"pid\":0,\"tid\":\"stream "
    "7\","
    "\"ts\":24,\"dur\":30},"
    "{\"ph\":\"s\",\"id\":5,\"pid\":100,\"tid\":100,\"ts\":12,\"cat\":\"fwdbwd\",\"name\":"
    "\"fwdbwd\"},"
    "{\"ph\":\"f\",\"id\":5,\"pid\":100,\"tid\":200,\"ts\":50,\"cat\":\"fwdbwd\",\"name\":"
    "\"fwdbwd\","
    "\"bp\":\"e\"},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,\"ts\":0,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":1000,\"Total Allocated\":1000}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,\"ts\":10,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":2000,\"Total Allocated\":3000}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,\"ts\":11,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":-1000,\"Total Allocated\":2000}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,\"ts\":50,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":-1500,\"Total Allocated\":500}}"
    "]}";

enum { A, B, C, D, ANNOT, K1, K2, K3, H, M1, E, F, G, NEV };

struct fx {
	struct model m;
	struct trace_index *ix;
};

static void fx_load(struct fx *f, const char *json)
{
	struct kineto_opts o = {.threads = 1};
	struct nns_err err;

	assert_int_equal(model_init(&f->m), NNS_OK);
	assert_int_equal(kineto_load_buffer(json, strlen(json), "t.json", &f->m, &o, &err), NNS_OK);
	assert_int_equal(trace_index_build(&f->ix, &f->m, NULL, &err), NNS_OK);
}

static void fx_free(struct fx *f)
{
	trace_index_free(f->ix);
	model_release(&f->m);
}

/* Runs a writer and parses its output; rc must match. */
static json_t *parse_w(struct jsonw *w)
{
	char *s;
	size_t n;
	json_t *j;
	json_error_t je;

	assert_int_equal(jsonw_finish(w, NULL), NNS_OK);
	s = jsonw_take(w, &n);
	assert_non_null(s);
	j = json_loads(s, 0, &je);
	if (!j)
		fail_msg("bad JSON: %s: %s", je.text, s);
	free(s);
	jsonw_release(w);
	return j;
}

static json_t *window(const struct trace_index *ix, int64_t t0, int64_t t1, int px,
		      const uint32_t *tracks, size_t ntracks)
{
	struct jsonw w;
	struct nns_err err;
	struct trace_window_q q = {t0, t1, px, tracks, ntracks};

	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	assert_int_equal(trace_window_json(ix, &q, &w, &err), NNS_OK);
	return parse_w(&w);
}

static json_t *event(const struct trace_index *ix, int64_t id)
{
	struct jsonw w;
	struct nns_err err;

	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	assert_int_equal(trace_event_json(ix, id, &w, &err), NNS_OK);
	return parse_w(&w);
}

static int64_t geti(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_integer(v))
		fail_msg("no integer %s", k);
	return json_integer_value(v);
}

static const char *gets(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_string(v))
		fail_msg("no string %s", k);
	return json_string_value(v);
}

/* Items of track `id` in a window answer (NULL if the track is absent). */
static json_t *items_of(json_t *win, int64_t id)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(win, "tracks"), i, t)
	{
		if (geti(t, "id") == id)
			return json_object_get(t, "items");
	}
	return NULL;
}

static int64_t it(json_t *items, size_t k, size_t field)
{
	return json_integer_value(json_array_get(json_array_get(items, k), field));
}

static const char *item_name(json_t *win, json_t *items, size_t k)
{
	return json_string_value(
	    json_array_get(json_object_get(win, "names"), (size_t)it(items, k, 3)));
}

/* Asserts item k of items is [s, d, depth, name, id]. */
static void expect_item(json_t *win, json_t *items, size_t k, int64_t s, int64_t d, int64_t depth,
			const char *name, int64_t id)
{
	assert_true(k < json_array_size(items));
	assert_int_equal(it(items, k, 0), s);
	assert_int_equal(it(items, k, 1), d);
	assert_int_equal(it(items, k, 2), depth);
	assert_string_equal(item_name(win, items, k), name);
	assert_int_equal(it(items, k, 4), id);
}

static int has_flow(json_t *win, int64_t from, int64_t to, int64_t kind)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(win, "flows"), i, f)
	{
		if (json_integer_value(json_array_get(f, 0)) == from &&
		    json_integer_value(json_array_get(f, 1)) == to &&
		    json_integer_value(json_array_get(f, 2)) == kind)
			return 1;
	}
	return 0;
}

/* ---- layout -------------------------------------------------------------- */

static void test_meta(void **st)
{
	struct fx f;
	struct jsonw w;
	json_t *j, *tr, *t;
	static const struct {
		const char *group, *name, *kind;
		int depth, events;
	} want[] = {
	    {"Process 100", "Thread 100 (python)", "thread", 5, 7},
	    {"Process 100", "Thread 200", "thread", 1, 1},
	    {"GPU 0", "Annotations", "annotation", 1, 1},
	    {"GPU 0", "Stream 7", "stream", 2, 3},
	    {"GPU 0", "Stream 20", "stream", 1, 1},
	};
	size_t i;

	(void)st;
	fx_load(&f, main_json);
	assert_int_equal(f.m.events.n, NEV);
	assert_string_equal(model_str(&f.m, f.m.events.v[F].name), "bad");
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	trace_meta_json(f.ix, &w);
	j = parse_w(&w);
	assert_int_equal(geti(j, "start"), 0);
	assert_int_equal(geti(j, "end"), 100000);
	assert_int_equal(geti(j, "events"), NEV);
	assert_int_equal(geti(j, "origin_ns"), f.m.min_ts);
	tr = json_object_get(j, "tracks");
	assert_int_equal(json_array_size(tr), 5);
	for (i = 0; i < 5; i++) {
		t = json_array_get(tr, i);
		assert_int_equal(geti(t, "id"), i);
		assert_string_equal(gets(t, "group"), want[i].group);
		assert_string_equal(gets(t, "name"), want[i].name);
		assert_string_equal(gets(t, "kind"), want[i].kind);
		assert_int_equal(geti(t, "depth"), want[i].depth);
		assert_int_equal(geti(t, "events"), want[i].events);
	}
	t = json_array_get(json_object_get(j, "counters"), 0);
	assert_string_equal(gets(t, "name"), "GPU0 memory allocated");
	assert_string_equal(gets(t, "unit"), "bytes");
	assert_true(trace_index_bytes(f.ix) >= NEV * 20);
	json_decref(j);
	fx_free(&f);
}

static void test_depths(void **st)
{
	struct fx f;
	static const int64_t want[NEV][2] = {
	    [A] = {0, 0},  [B] = {0, 1},  [C] = {0, 2},	 [D] = {0, 3}, [ANNOT] = {2, 0},
	    [K1] = {3, 0}, [K2] = {3, 1}, [K3] = {3, 0}, [H] = {1, 0}, [M1] = {4, 0},
	    [E] = {0, 1},  [F] = {0, 4},  [G] = {0, 1},
	};
	size_t i;

	(void)st;
	fx_load(&f, main_json);
	for (i = 0; i < NEV; i++) {
		json_t *e = event(f.ix, (int64_t)i);
		assert_int_equal(geti(e, "track"), want[i][0]);
		assert_int_equal(geti(e, "depth"), want[i][1]);
		json_decref(e);
	}
	fx_free(&f);
}

/* ---- windows ------------------------------------------------------------- */

static void test_zoom_in(void **st)
{
	struct fx f;
	json_t *j, *items;

	(void)st;
	fx_load(&f, main_json);
	/* 100 ns per pixel: every event is an item, exact */
	j = window(f.ix, 0, 100000, 1000, NULL, 0);
	assert_int_equal(geti(j, "px"), 1000);
	items = items_of(j, 0);
	assert_int_equal(json_array_size(items), 7);
	/* lane by lane: depth 0, 1, 2, 3, overflow */
	expect_item(j, items, 0, 0, 100000, 0, "ProfilerStep#1", A);
	expect_item(j, items, 1, 10000, 40000, 1, "aten::linear", B);
	expect_item(j, items, 2, 60000, 10000, 1, "aten::relu", E);
	expect_item(j, items, 3, 72000, 3000, 1, "aten::mul", G);
	expect_item(j, items, 4, 12000, 30000, 2, "aten::addmm", C);
	expect_item(j, items, 5, 15000, 5000, 3, "cudaLaunchKernel", D);
	expect_item(j, items, 6, 65000, 20000, 4, "bad", F);
	items = items_of(j, 3);
	assert_int_equal(json_array_size(items), 3);
	expect_item(j, items, 0, 25000, 10000, 0, "gemm", K1);
	expect_item(j, items, 1, 40000, 5000, 0, "k3", K3);
	expect_item(j, items, 2, 30000, 10000, 1, "k2", K2);
	expect_item(j, items_of(j, 4), 0, 50000, 2000, 0, "Memcpy HtoD", M1);
	assert_int_equal(geti(json_object_get(j, "stats"), "items"), 13);
	assert_int_equal(geti(json_object_get(j, "stats"), "merged_events"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "flows")), 2);
	assert_true(has_flow(j, D, K1, 0));
	assert_true(has_flow(j, C, H, 1));
	json_decref(j);

	/* a window in the middle: only overlapping events; [39,45) excludes K1 (ends 35) */
	j = window(f.ix, 39000, 45000, 100, NULL, 0);
	items = items_of(j, 3);
	assert_int_equal(json_array_size(items), 2);
	expect_item(j, items, 0, 40000, 5000, 0, "k3", K3);
	expect_item(j, items, 1, 30000, 10000, 1, "k2", K2);
	assert_int_equal(json_array_size(items_of(j, 4)), 0);
	assert_int_equal(json_array_size(json_object_get(j, "flows")), 0);
	json_decref(j);
	fx_free(&f);
}

static void test_zoom_out_flows(void **st)
{
	struct fx f;
	json_t *j, *items;

	(void)st;
	fx_load(&f, main_json);
	/* 25 us per pixel: K1 [25,35) and K3 [40,45) are sub-pixel, 5 us apart: merged */
	j = window(f.ix, 0, 100000, 4, NULL, 0);
	items = items_of(j, 3);
	assert_int_equal(json_array_size(items), 2);
	expect_item(j, items, 0, 25000, 20000, 0, "gemm", -2);
	expect_item(j, items, 1, 30000, 10000, 1, "k2", K2); /* alone: itself */
	/* thread 100: A, B wide; E [60,70) and G [72,75) merge; C wide; D and F alone */
	items = items_of(j, 0);
	assert_int_equal(json_array_size(items), 6);
	expect_item(j, items, 0, 0, 100000, 0, "ProfilerStep#1", A);
	expect_item(j, items, 1, 10000, 40000, 1, "aten::linear", B);
	expect_item(j, items, 2, 60000, 15000, 1, "aten::relu", -2);
	expect_item(j, items, 3, 12000, 30000, 2, "aten::addmm", C);
	expect_item(j, items, 4, 15000, 5000, 3, "cudaLaunchKernel", D);
	expect_item(j, items, 5, 65000, 20000, 4, "bad", F);
	expect_item(j, items_of(j, 1), 0, 50000, 20000, 0, "AddmmBackward0", H);
	assert_int_equal(geti(json_object_get(j, "stats"), "merged_events"), 4);
	/* the launch's kernel is inside a summary: no op->kernel flow */
	assert_false(has_flow(j, D, K1, 0));
	assert_true(has_flow(j, C, H, 1));
	assert_int_equal(json_array_size(json_object_get(j, "flows")), 1);
	json_decref(j);
	fx_free(&f);
}

/* One thread: ten 1 us events every 2 us from 0, one at 30, 60 (1 us),
 * one at 100 (50 us) and one at 190 (1 us). */
static void test_merge_runs(void **st)
{
	char json[4096];
	size_t n = 0;
	int i;
	struct fx f;
	json_t *j, *items;

	(void)st;
	n += (size_t)snprintf(json + n, sizeof(json) - n, "{\"traceEvents\":[");
	for (i = 0; i < 10; i++)
		n += (size_t)snprintf(
		    json + n, sizeof(json) - n,
		    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,"
		    "\"ts\":%d,\"dur\":1},",
		    i, 2 * i);
	n += (size_t)snprintf(json + n, sizeof(json) - n,
			      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x30\",\"pid\":1,\"tid\":"
			      "1,\"ts\":30,\"dur\":1},"
			      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x60\",\"pid\":1,\"tid\":"
			      "1,\"ts\":60,\"dur\":1},"
			      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"big\",\"pid\":1,\"tid\":"
			      "1,\"ts\":100,\"dur\":50},"
			      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x190\",\"pid\":1,"
			      "\"tid\":1,\"ts\":190,\"dur\":1}]}");
	fx_load(&f, json);
	/* 20 us per pixel: gaps of 1 us and 11 us merge, 29 us does not */
	j = window(f.ix, 0, 200000, 10, NULL, 0);
	items = items_of(j, 0);
	assert_int_equal(json_array_size(items), 4);
	expect_item(j, items, 0, 0, 31000, 0, "op0", -11);
	expect_item(j, items, 1, 60000, 1000, 0, "x60", 11);
	expect_item(j, items, 2, 100000, 50000, 0, "big", 12);
	expect_item(j, items, 3, 190000, 1000, 0, "x190", 13);
	assert_int_equal(geti(json_object_get(j, "stats"), "merged_events"), 11);
	json_decref(j);
	/* 2 us per pixel over [0, 40): 1 us events 1 us apart merge as one run */
	j = window(f.ix, 0, 40000, 20, NULL, 0);
	items = items_of(j, 0);
	assert_int_equal(json_array_size(items), 2);
	expect_item(j, items, 0, 0, 19000, 0, "op0", -10);
	expect_item(j, items, 1, 30000, 1000, 0, "x30", 10);
	json_decref(j);
	/* 1 us per pixel: everything is an item */
	j = window(f.ix, 0, 40000, 40, NULL, 0);
	assert_int_equal(json_array_size(items_of(j, 0)), 11);
	json_decref(j);
	fx_free(&f);
}

static void test_tracks_filter_and_errors(void **st)
{
	struct fx f;
	json_t *j;
	const uint32_t sel[] = {3, 1}, bad[] = {1, 5};
	struct jsonw w;
	struct nns_err err;
	struct trace_window_q q = {0, 100000, 100, NULL, 0};

	(void)st;
	fx_load(&f, main_json);
	j = window(f.ix, 0, 100000, 1000, sel, 2);
	assert_int_equal(json_array_size(json_object_get(j, "tracks")), 2);
	assert_null(items_of(j, 0));
	assert_int_equal(json_array_size(items_of(j, 3)), 3);
	assert_int_equal(json_array_size(items_of(j, 1)), 1);
	/* both ends of C -> H are not drawn: no flows */
	assert_int_equal(json_array_size(json_object_get(j, "flows")), 0);
	json_decref(j);

	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	q.t1 = 0;
	assert_int_equal(trace_window_json(f.ix, &q, &w, &err), NNS_EINVAL);
	assert_non_null(strstr(err.msg, "t1"));
	q.t1 = 100000;
	q.px = 0;
	assert_int_equal(trace_window_json(f.ix, &q, &w, &err), NNS_EINVAL);
	q.px = 8193;
	assert_int_equal(trace_window_json(f.ix, &q, &w, &err), NNS_EINVAL);
	assert_non_null(strstr(err.msg, "px"));
	q.px = 8192;
	q.tracks = bad;
	q.ntracks = 2;
	assert_int_equal(trace_window_json(f.ix, &q, &w, &err), NNS_EINVAL);
	assert_non_null(strstr(err.msg, "track"));
	/* the widest window the HTTP route lets through: t1 - t0 = 2^63 would
	 * overflow (found by fuzz_trace) */
	q.tracks = NULL;
	q.ntracks = 0;
	q.t0 = -((int64_t)1 << 62);
	q.t1 = (int64_t)1 << 62;
	assert_int_equal(trace_window_json(f.ix, &q, &w, &err), NNS_EINVAL);
	assert_non_null(strstr(err.msg, "wider"));
	q.t0 = -((int64_t)1 << 61);
	q.t1 = (int64_t)1 << 61; /* 2^62 wide: answered */
	jsonw_release(&w);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	assert_int_equal(trace_window_json(f.ix, &q, &w, &err), NNS_OK);
	jsonw_release(&w);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	assert_int_equal(trace_event_json(f.ix, -1, &w, &err), NNS_ENOTFOUND);
	assert_int_equal(trace_event_json(f.ix, NEV, &w, &err), NNS_ENOTFOUND);
	assert_int_equal(trace_summary_json(f.ix, 5, 5, NULL, 0, &w, &err), NNS_EINVAL);
	assert_int_equal(trace_summary_json(f.ix, 0, 5, bad, 2, &w, &err), NNS_EINVAL);
	/* nothing was written by the failed calls */
	assert_int_equal(w.len, 0);
	jsonw_release(&w);
	fx_free(&f);
}

static void test_counters(void **st)
{
	struct fx f;
	json_t *j, *pts;

	(void)st;
	fx_load(&f, main_json);
	/* memory: 1000@0, 3000@10, 2000@11, 500@50 (us); 25 us per pixel */
	j = window(f.ix, 0, 100000, 4, NULL, 0);
	pts = json_object_get(json_array_get(json_object_get(j, "counters"), 0), "points");
	assert_int_equal(json_array_size(pts), 2);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(pts, 0), 0)), 0);
	assert_true(json_number_value(json_array_get(json_array_get(pts, 0), 1)) == 3000);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(pts, 1), 0)), 50000);
	assert_true(json_number_value(json_array_get(json_array_get(pts, 1), 1)) == 500);
	json_decref(j);
	/* from 20 us: the value in effect (2000) starts the line at t0 */
	j = window(f.ix, 20000, 100000, 4, NULL, 0);
	pts = json_object_get(json_array_get(json_object_get(j, "counters"), 0), "points");
	assert_int_equal(json_array_size(pts), 2);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(pts, 0), 0)), 20000);
	assert_true(json_number_value(json_array_get(json_array_get(pts, 0), 1)) == 2000);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(pts, 1), 0)), 50000);
	json_decref(j);
	/* 1 us per pixel: every point its own */
	j = window(f.ix, 0, 100000, 100, NULL, 0);
	pts = json_object_get(json_array_get(json_object_get(j, "counters"), 0), "points");
	assert_int_equal(json_array_size(pts), 4);
	assert_true(json_number_value(json_array_get(json_array_get(pts, 2), 1)) == 2000);
	json_decref(j);
	fx_free(&f);
}

/* ---- details and summary ------------------------------------------------- */

static int has_link(json_t *e, const char *rel, int64_t id)
{
	size_t i;
	json_t *l;

	json_array_foreach(json_object_get(e, "links"), i, l)
	{
		if (!strcmp(gets(l, "rel"), rel) && geti(l, "id") == id)
			return 1;
	}
	return 0;
}

static void test_event_details(void **st)
{
	struct fx f;
	json_t *e, *args;

	(void)st;
	fx_load(&f, main_json);
	e = event(f.ix, K1);
	assert_string_equal(gets(e, "name"), "gemm");
	assert_string_equal(gets(e, "cat"), "kernel");
	assert_int_equal(geti(e, "start"), 25000);
	assert_int_equal(geti(e, "dur"), 10000);
	args = json_object_get(e, "args");
	assert_string_equal(gets(args, "grid"), "[1, 2, 1]");
	assert_string_equal(gets(args, "block"), "[128, 1, 1]");
	assert_int_equal(geti(args, "stream"), 7);
	assert_int_equal(geti(args, "registers per thread"), 32);
	assert_int_equal(geti(args, "correlation"), 11);
	assert_true(has_link(e, "launch", D));
	assert_true(has_link(e, "launcher", C));
	assert_int_equal(json_array_size(json_object_get(e, "links")), 2);
	json_decref(e);

	e = event(f.ix, D);
	assert_string_equal(gets(e, "cat"), "cuda_runtime");
	assert_true(has_link(e, "kernel", K1));
	assert_true(has_link(e, "parent", C));
	assert_int_equal(json_array_size(json_object_get(e, "links")), 2);
	json_decref(e);

	e = event(f.ix, B);
	args = json_object_get(e, "args");
	assert_string_equal(gets(args, "Input Dims"), "[[2, 3], [4, 3]]");
	assert_int_equal(geti(args, "Sequence number"), 7);
	assert_int_equal(geti(args, "External id"), 1);
	assert_true(has_link(e, "parent", A));
	assert_true(has_link(e, "kernel", K1));
	assert_int_equal(json_array_size(json_object_get(e, "links")), 2);
	json_decref(e);

	e = event(f.ix, C);
	assert_true(has_link(e, "backward", H));
	assert_true(has_link(e, "parent", B));
	assert_true(has_link(e, "kernel", K1));
	json_decref(e);
	e = event(f.ix, H);
	assert_true(has_link(e, "forward", C));
	assert_int_equal(json_array_size(json_object_get(e, "links")), 1);
	json_decref(e);
	/* the malformed event: its parent is the innermost regular event at its start */
	e = event(f.ix, F);
	assert_true(has_link(e, "parent", E));
	json_decref(e);
	e = event(f.ix, M1);
	assert_int_equal(geti(json_object_get(e, "args"), "bytes"), 4096);
	assert_string_equal(gets(e, "cat"), "gpu_memcpy");
	json_decref(e);
	fx_free(&f);
}

static void test_summary(void **st)
{
	struct fx f;
	struct jsonw w;
	struct nns_err err;
	json_t *j, *r;
	const uint32_t t0[] = {0};

	(void)st;
	fx_load(&f, main_json);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	assert_int_equal(trace_summary_json(f.ix, 0, 20000, t0, 1, &w, &err), NNS_OK);
	j = parse_w(&w);
	assert_int_equal(geti(j, "events"), 4);
	r = json_object_get(j, "rows");
	assert_int_equal(json_array_size(r), 4);
	assert_string_equal(gets(json_array_get(r, 0), "name"), "ProfilerStep#1");
	assert_int_equal(geti(json_array_get(r, 0), "total"), 20000);
	assert_int_equal(geti(json_array_get(r, 0), "max"), 100000);
	assert_string_equal(gets(json_array_get(r, 0), "cat"), "user_annotation");
	assert_string_equal(gets(json_array_get(r, 1), "name"), "aten::linear");
	assert_int_equal(geti(json_array_get(r, 1), "total"), 10000);
	assert_string_equal(gets(json_array_get(r, 2), "name"), "aten::addmm");
	assert_int_equal(geti(json_array_get(r, 2), "total"), 8000);
	assert_string_equal(gets(json_array_get(r, 3), "name"), "cudaLaunchKernel");
	assert_int_equal(geti(json_array_get(r, 3), "total"), 5000);
	json_decref(j);

	/* all tracks, [28,45): kernels gemm 7 + k2 10 + k3 5 clipped */
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	assert_int_equal(trace_summary_json(f.ix, 28000, 45000, NULL, 0, &w, &err), NNS_OK);
	j = parse_w(&w);
	/* A B C annot K1 K2 K3 */
	assert_int_equal(geti(j, "events"), 7);
	r = json_object_get(j, "rows");
	/* A, B and annot tie at 17 us, first */
	assert_int_equal(geti(json_array_get(r, 0), "total"), 17000);
	assert_int_equal(geti(json_array_get(r, 2), "total"), 17000);
	assert_int_equal(geti(json_array_get(r, 3), "total"), 14000);
	{
		size_t i;
		json_t *row;
		int seen = 0;
		json_array_foreach(r, i, row)
		{
			if (!strcmp(gets(row, "name"), "gemm")) {
				assert_int_equal(geti(row, "total"), 7000);
				assert_int_equal(geti(row, "count"), 1);
				assert_int_equal(geti(row, "min"), 10000);
				seen++;
			}
			if (!strcmp(gets(row, "name"), "aten::addmm")) {
				assert_int_equal(geti(row, "total"), 14000);
				seen++;
			}
		}
		assert_int_equal(seen, 2);
	}
	json_decref(j);
	fx_free(&f);
}

/* A 6 s event: its duration does not fit the index's 32-bit lane field. */
static void test_long_event(void **st)
{
	struct fx f;
	json_t *j, *items, *e;
	struct jsonw w;
	struct nns_err err;

	(void)st;
	fx_load(&f, "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"long\",\"pid\":1,"
		    "\"tid\":1,\"ts\":0,\"dur\":6000000},"
		    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,"
		    "\"ts\":1000,\"dur\":10}]");
	j = window(f.ix, 5000000000LL, 7000000000LL, 100, NULL, 0);
	items = items_of(j, 0);
	assert_int_equal(json_array_size(items), 1);
	expect_item(j, items, 0, 0, 6000000000LL, 0, "long", 0);
	json_decref(j);
	/* 10 us per pixel over [0, 20 ms): the child is 1 pixel wide */
	j = window(f.ix, 0, 20000000, 2000, NULL, 0);
	items = items_of(j, 0);
	assert_int_equal(json_array_size(items), 2);
	expect_item(j, items, 1, 1000000, 10000, 1, "c", 1);
	json_decref(j);
	e = event(f.ix, 1);
	assert_int_equal(geti(e, "depth"), 1);
	assert_true(has_link(e, "parent", 0));
	json_decref(e);
	e = event(f.ix, 0);
	assert_int_equal(geti(e, "dur"), 6000000000LL);
	json_decref(e);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	assert_int_equal(trace_summary_json(f.ix, 5000000000LL, 7000000000LL, NULL, 0, &w, &err),
			 NNS_OK);
	j = parse_w(&w);
	assert_int_equal(geti(j, "events"), 1);
	assert_int_equal(geti(json_array_get(json_object_get(j, "rows"), 0), "total"),
			 1000000000LL);
	assert_int_equal(geti(json_array_get(json_object_get(j, "rows"), 0), "max"), 6000000000LL);
	json_decref(j);
	fx_free(&f);
}

/* An empty trace: no tracks, empty answers, every id unknown. */
static void test_empty(void **st)
{
	struct fx f;
	json_t *j;
	struct jsonw w;
	struct nns_err err;

	(void)st;
	/* an empty traceEvents is refused by the importer: metadata only */
	fx_load(&f, "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,"
		    "\"args\":{\"name\":\"p\"}}]}");
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	trace_meta_json(f.ix, &w);
	j = parse_w(&w);
	assert_int_equal(json_array_size(json_object_get(j, "tracks")), 0);
	assert_int_equal(geti(j, "events"), 0);
	json_decref(j);
	j = window(f.ix, 0, 1000, 10, NULL, 0);
	assert_int_equal(json_array_size(json_object_get(j, "tracks")), 0);
	json_decref(j);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	assert_int_equal(trace_event_json(f.ix, 0, &w, &err), NNS_ENOTFOUND);
	jsonw_release(&w);
	fx_free(&f);
}

/* ---- property check on a random model ------------------------------------ */

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void add_ev(struct model *m, uint32_t th, int kind, int64_t ts, int64_t dur, uint32_t name,
		   int64_t stream)
{
	struct model_event e;

	model_event_init(&e);
	e.ts = ts;
	e.dur = dur;
	e.thread = th;
	e.kind = (uint8_t)kind;
	e.name = name;
	if (model_kind_is_device(kind)) {
		struct model_dev_args a;
		model_dev_args_init(&a);
		a.stream = stream;
		e.device = 0;
		e.extra = (uint32_t)model_add_dev_args(m, &a);
	}
	assert_true(model_add_event(m, &e) >= 0);
}

/* Nested ops with random children, some zero-length and some malformed. */
static void gen_tree(struct model *m, uint32_t th, int64_t s, int64_t e, int depth, uint32_t *names)
{
	int64_t t = s;

	while (t < e && depth < 6) {
		int64_t gap = (int64_t)(rnd() % 2000), d = (int64_t)(rnd() % 30000);
		if (rnd() % 8 == 0)
			d = rnd() % 50;
		if (rnd() % 16 == 0)
			d = 0;
		t += gap;
		if (t >= e)
			break;
		if (t + d > e)
			d = e - t;
		add_ev(m, th, rnd() % 5 == 0 ? MK_RUNTIME : MK_CPU_OP, t, d, names[rnd() % 4], -1);
		if (rnd() % 40 == 0) /* malformed: crosses the end of this op */
			add_ev(m, th, MK_CPU_OP, t + d / 2, d + 100, names[0], -1);
		if (d > 200 && rnd() % 2)
			gen_tree(m, th, t + 1, t + d, depth + 1, names);
		t += d;
	}
}

struct ev_info {
	int64_t track, depth;
	int hits;
};

static int64_t check_window(const struct model *m, const struct trace_index *ix,
			    struct ev_info *info, int64_t t0, int64_t t1, int px)
{
	json_t *j = window(ix, t0, t1, px, NULL, 0), *tr;
	int64_t W = t1 - t0, origin = m->min_ts;
	size_t ti, k, i;
	int64_t merged = 0, nitems = 0;

	for (i = 0; i < m->events.n; i++)
		info[i].hits = 0;
	json_array_foreach(json_object_get(j, "tracks"), ti, tr)
	{
		json_t *items = json_object_get(tr, "items");
		int64_t tid = geti(tr, "id");
		/* lanes: last end seen per depth */
		int64_t last_end[64];
		for (k = 0; k < 64; k++)
			last_end[k] = INT64_MIN;
		for (k = 0; k < json_array_size(items); k++) {
			int64_t s = it(items, k, 0), d = it(items, k, 1), dep = it(items, k, 2),
				id = it(items, k, 4);
			nitems++;
			assert_true(dep < 64);
			/* items of one lane come in time order and do not overlap */
			assert_true(s >= last_end[dep]);
			last_end[dep] = s + d;
			if (id >= 0) {
				assert_int_equal(info[id].track, tid);
				assert_int_equal(info[id].depth, dep);
				assert_int_equal(m->events.v[id].ts - origin, s);
				assert_int_equal(m->events.v[id].dur, d);
				info[id].hits++;
			} else {
				/* the summarised events: this lane's events inside the span */
				int64_t cnt = 0;
				assert_true(-id >= 2);
				for (i = 0; i < m->events.n; i++) {
					int64_t es = m->events.v[i].ts - origin,
						ee = es + m->events.v[i].dur;
					if (info[i].track != tid || info[i].depth != dep ||
					    es < s || ee > s + d)
						continue;
					/* each narrower than a pixel */
					assert_true((ee - es) * px < W);
					info[i].hits++;
					cnt++;
				}
				assert_int_equal(cnt, -id);
				merged += cnt;
			}
		}
	}
	for (i = 0; i < m->events.n; i++) {
		int64_t es = m->events.v[i].ts - origin, ee = es + m->events.v[i].dur;
		int over = es < t1 && (ee > t0 || es >= t0);
		if (info[i].hits != over)
			fail_msg("event %zu [%lld,%lld) window [%lld,%lld) px %d: in %d items", i,
				 (long long)es, (long long)ee, (long long)t0, (long long)t1, px,
				 info[i].hits);
	}
	assert_int_equal(geti(json_object_get(j, "stats"), "merged_events"), merged);
	assert_int_equal(geti(json_object_get(j, "stats"), "items"), nitems);
	json_decref(j);
	return merged;
}

static void test_random_property(void **st)
{
	struct model m;
	struct trace_index *ix;
	struct nns_err err;
	struct ev_info *info;
	uint32_t names[4], th[3];
	size_t i, k;
	int r;
	int64_t merged = 0, overflow = 0;

	(void)st;
	assert_int_equal(model_init(&m), NNS_OK);
	names[0] = model_intern(&m, "op_a", 4);
	names[1] = model_intern(&m, "op_b", 4);
	names[2] = model_intern(&m, "op_c", 4);
	names[3] = model_intern(&m, "op_d", 4);
	for (i = 0; i < 3; i++) {
		char b[8];
		int n = snprintf(b, sizeof(b), "%zu", i + 1);
		th[i] = model_thread(&m, model_intern(&m, "1", 1), model_intern(&m, b, (size_t)n));
	}
	for (i = 0; i < 2; i++)
		gen_tree(&m, th[i], 0, 3000000, 0, names);
	/* device events on two streams of thread 3, overlapping now and then */
	for (k = 0; k < 2; k++) {
		int64_t t = 0;
		for (i = 0; i < 1500; i++) {
			int64_t d = (int64_t)(rnd() % 4000);
			t += (int64_t)(rnd() % 3000);
			add_ev(&m, th[2], MK_KERNEL, t, d, names[rnd() % 4], (int64_t)k + 7);
			if (rnd() % 10 != 0)
				t += d;
		}
	}
	assert_int_equal(model_finalize(&m, &err), NNS_OK);
	assert_true(m.events.n > 3000);
	assert_int_equal(trace_index_build(&ix, &m, NULL, &err), NNS_OK);
	info = calloc(m.events.n, sizeof(*info));
	assert_non_null(info);
	for (i = 0; i < m.events.n; i++) {
		json_t *e = event(ix, (int64_t)i);
		info[i].track = geti(e, "track");
		info[i].depth = geti(e, "depth");
		json_decref(e);
	}
	/* within a lane, events never overlap; regular depth d > 0 nests in d - 1 */
	for (i = 0; i + 1 < m.events.n; i++) {
		for (k = i + 1;
		     k < m.events.n && m.events.v[k].ts < m.events.v[i].ts + m.events.v[i].dur;
		     k++) {
			if (info[k].track == info[i].track && info[k].depth == info[i].depth)
				fail_msg("events %zu and %zu overlap in one lane", i, k);
		}
	}
	for (r = 0; r < 60; r++) {
		int64_t span = m.max_end - m.min_ts;
		int64_t w =
		    r < 5 ? span + 1 : 1 + (int64_t)(rnd() % (uint64_t)(span / (1 + r % 7 * 10)));
		int64_t t0 = r < 5 ? 0 : (int64_t)(rnd() % (uint64_t)span) - w / 2;
		int px = 1 + (int)(rnd() % (r % 2 ? 2000 : 50));
		merged += check_window(&m, ix, info, t0, t0 + w, px);
	}
	/* the windows did merge runs, and malformed events got overflow lanes (> 6) */
	assert_true(merged > 1000);
	for (i = 0; i < m.events.n; i++)
		overflow += info[i].track < 2 && info[i].depth > 6;
	assert_true(overflow > 0);
	free(info);
	trace_index_free(ix);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_meta),       cmocka_unit_test(test_depths),
	    cmocka_unit_test(test_zoom_in),    cmocka_unit_test(test_zoom_out_flows),
	    cmocka_unit_test(test_merge_runs), cmocka_unit_test(test_tracks_filter_and_errors),
	    cmocka_unit_test(test_counters),   cmocka_unit_test(test_event_details),
	    cmocka_unit_test(test_summary),    cmocka_unit_test(test_long_event),
	    cmocka_unit_test(test_empty),      cmocka_unit_test(test_random_property),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
