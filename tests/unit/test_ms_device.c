/*
 * test_ms_device.c - one MindSpore device as nnscope reads it:
 *   - the training-trace graph (src/analysis/ms_stgraph.c) of run_1's
 *     average step against st/func/profiler/test_analyse.py test_graph_api
 *     (13 lines, the last one asserted point by point, parsed at run time
 *     from the upstream assert text in expected_values.json), and its
 *     point info (test_step_trace_point_info);
 *   - run_2 against ut/.../test_training_trace_analyse.py: point info,
 *     summary (a zero total: every percent 0), fp_and_bp of step 1, and the
 *     "The step num must be in [0, 1]" error;
 *   - a hand-made table with two reduces on one stream (hand-computed
 *     points), a short row and a bad header;
 *   - file-name matching and run discovery of a MindSpore directory (one
 *     worker per device, the timeline as its anchor);
 *   - ms_load_device on run_1's timeline: AI Core ops become kernels.
 * Parts that need ../shared skip with a message when it is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/an_ms.h"
#include "analysis/analysis.h"
#include "analysis/ms_steptrace.h"
#include "importers/ms_load.h"
#include "importers/ms_st_table.h"
#include "importers/run.h"
#include "testutil.h"

/* The upstream assert text "assert X == <python literal>" of a test
 * function whose text contains `marker`, as JSON (quotes swapped). */
static json_t *expected_from_assert(const char *key, const char *func, const char *marker)
{
	json_t *all = tu_load_shared_json("conformance/mindinsight/expected_values.json"),
	       *res = NULL;
	json_t *entries, *e;
	size_t i;

	if (!all)
		return NULL;
	entries = json_object_get(json_object_get(all, key), "entries");
	json_array_foreach(entries, i, e)
	{
		const char *f = json_string_value(json_object_get(e, "function"));
		const char *a = json_string_value(json_object_get(e, "assert"));
		const char *eq;
		char *txt;

		if (!f || !a || strcmp(f, func) != 0 || !strstr(a, marker) ||
		    !(eq = strstr(a, "== ")))
			continue;
		txt = strdup(eq + 3);
		for (char *c = txt; *c; c++)
			if (*c == '\'')
				*c = '"';
		res = json_loads(txt, 0, NULL);
		free(txt);
		break;
	}
	json_decref(all);
	return res;
}

static int shared_dir(char *buf, size_t n, const char *rel)
{
	struct stat st;

	snprintf(buf, n, "%s/data/mindinsight/%s", tu_shared_dir(), rel);
	if (stat(buf, &st) != 0) {
		fprintf(stderr, "SKIP: %s absent; set NNS_SHARED to the shared folder\n", buf);
		return -1;
	}
	return 0;
}

static void test_graph_run1(void **state)
{
	char dir[4096], fp[256], bp[256];
	struct ms_src s = {0};
	struct ms_st_table t;
	struct ms_st_graph g;
	struct nns_err err;
	json_t *want, *pi;
	size_t first;

	(void)state;
	if (shared_dir(dir, sizeof(dir), "run_1/normal_run/profiler"))
		skip();
	want = expected_from_assert("st/func/profiler/test_analyse.py", "test_graph_api",
				    "training_trace_graph'][-1]");
	pi = expected_from_assert("st/func/profiler/test_analyse.py", "test_step_trace_point_info",
				  "point_info");
	assert_non_null(want);
	assert_non_null(pi);
	s.dir = dir;
	s.dev = 1;
	assert_int_equal(ms_st_table_load(&t, &s, &err), NNS_OK);
	assert_int_equal(t.nrows - 1, 322); /* test_graph_api: res['size'] == 322 */
	assert_int_equal(ms_st_graph_build(&t, 0, &g, &err), NNS_OK);
	assert_int_equal(g.nlines, 13); /* len(res['training_trace_graph']) == 13 */
	first = g.line_end[g.nlines - 2];
	assert_int_equal(g.line_end[g.nlines - 1] - first, json_array_size(want));
	for (size_t i = 0; i < json_array_size(want); i++) {
		json_t *p = json_array_get(want, i);
		const struct ms_st_point *q = &g.pts[first + i];

		assert_true(q->valid);
		assert_string_equal(q->name, json_string_value(json_object_get(p, "name")));
		assert_true(fabs(q->start_ms - json_number_value(json_object_get(p, "start"))) <
			    1e-9);
		assert_true(fabs(q->dur_ms - json_number_value(json_object_get(p, "duration"))) <
			    1e-9);
	}
	assert_int_equal(ms_point_info_load(&s, fp, bp, sizeof(fp), &err), NNS_OK);
	assert_string_equal(fp, json_string_value(json_object_get(pi, "fp_start")));
	assert_string_equal(bp, json_string_value(json_object_get(pi, "bp_end")));
	ms_st_graph_release(&g);
	ms_st_table_release(&t);
	json_decref(want);
	json_decref(pi);
}

static void test_training_trace_run2(void **state)
{
	char dir[4096], fp[256], bp[256];
	struct ms_src s = {0};
	struct ms_st_table t;
	struct ms_st_summary sum;
	struct ms_st_graph g;
	struct nns_err err;
	json_t *all, *want = NULL, *e;
	size_t i;

	(void)state;
	if (shared_dir(dir, sizeof(dir), "run_2/normal_run/profiler"))
		skip();
	all = tu_load_shared_json("conformance/mindinsight/expected_values.json");
	assert_non_null(all);
	json_array_foreach(json_object_get(json_object_get(all, "ut/profiler/analyser/"
								"test_training_trace_analyse.py"),
					   "entries"),
			   i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "function")),
			   "test_analyse_get_training_trace_graph") == 0 &&
		    json_object_get(e, "value"))
			want = json_object_get(e, "value");
	}
	assert_non_null(want);
	s.dir = dir;
	s.dev = 1;
	assert_int_equal(ms_st_table_load(&t, &s, &err), NNS_OK);
	assert_int_equal(ms_st_summarise_table(&t, &sum, &err), NNS_OK);
	{
		json_t *ws = json_object_get(want, "summary"),
		       *wp = json_object_get(want, "point_info");

		assert_int_equal(t.nrows - 1, json_integer_value(json_object_get(want, "size")));
		assert_true(fabs(sum.interval_ms - json_number_value(json_object_get(
						       ws, "iteration_interval"))) < 1e-9);
		assert_true(fabs(sum.fp_bp_ms -
				 json_number_value(json_object_get(ws, "fp_and_bp"))) < 1e-9);
		assert_true(fabs(sum.tail_ms - json_number_value(json_object_get(ws, "tail"))) <
			    1e-9);
		assert_true(fabs(sum.total_ms -
				 json_number_value(json_object_get(ws, "total_time"))) < 1e-9);
		/* "0%": a zero total gives zero percents */
		assert_true(sum.interval_pct == 0 && sum.fp_bp_pct == 0 && sum.tail_pct == 0);
		assert_int_equal(sum.total_steps,
				 json_integer_value(json_object_get(ws, "total_steps")));
		assert_int_equal(ms_point_info_load(&s, fp, bp, sizeof(fp), &err), NNS_OK);
		assert_string_equal(fp, json_string_value(json_object_get(wp, "fp_start")));
		assert_string_equal(bp, json_string_value(json_object_get(wp, "bp_end")));
	}
	/* test_analyse_get_training_trace_time_info: fp_and_bp of step 1 = 23.6681 ms */
	assert_true(fabs(round(ms_st_cell(&t, 0, "fp_and_bp") * 1e-5 * 1e4) / 1e4 - 23.6681) <
		    1e-9);
	/* ..._with_wrong_id */
	assert_int_equal(ms_st_graph_build(&t, 2, &g, &err), NNS_EINVAL);
	assert_string_equal(err.msg, "The step num must be in [0, 1]");
	assert_int_equal(ms_st_graph_build(&t, 1, &g, &err), NNS_OK);
	ms_st_graph_release(&g);
	ms_st_table_release(&t);
	json_decref(all);
}

/* One data row and the average row; times in 10 ns counts. Step 1 starts
 * at 100000 (1 ms), fp at 1.2 ms, bp at 5 ms, ends at 6 ms. Stream 7 has
 * two reduces listed out of end order: b at 3.0-3.5 ms and a at 2-2.5 ms. */
static const char HAND[] =
    "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail,"
    "stream_7_b_start_point,stream_7_b_end_point,stream_7_b,"
    "stream_7_a_start_point,stream_7_a_end_point,stream_7_a,"
    "stream_9_c_start_point,stream_9_c_end_point,stream_9_c\n"
    "1,100000,600000,500000,120000,500000,20000,380000,100000,300000,350000,50000,200000,250000,"
    "50000,0,0,0\n"
    "-,100000,600000,500000,120000,500000,20000,380000,100000,300000,350000,50000,200000,250000,"
    "50000,0,0,0\n";

static void test_graph_hand(void **state)
{
	struct ms_st_table t;
	struct ms_st_graph g;
	struct nns_err err;
	/* line 2 (stream 7): gap from fp (0.2 ms) to a (1.0), a, gap to b (2.0),
	 * b, gap to the end (5.0); stream 9 has zeros and no line */
	static const struct {
		const char *name;
		double start, dur;
	} want[] = {{"", 0.2, 0.8},
		    {"stream_7_a", 1.0, 0.5},
		    {"", 1.5, 0.5},
		    {"stream_7_b", 2.0, 0.5},
		    {"", 2.5, 2.5}};

	(void)state;
	assert_int_equal(ms_st_table_parse(&t, HAND, strlen(HAND), "hand.csv", &err), NNS_OK);
	assert_int_equal(ms_st_graph_build(&t, 1, &g, &err), NNS_OK);
	assert_int_equal(g.nlines, 3);
	assert_int_equal(g.line_end[0], 1);
	assert_true(fabs(g.pts[0].dur_ms - 5.0) < 1e-12);
	assert_string_equal(g.pts[2].name, "fp_and_bp");
	assert_true(fabs(g.pts[2].start_ms - 0.2) < 1e-12 && fabs(g.pts[2].dur_ms - 3.8) < 1e-12);
	assert_true(fabs(g.pts[3].start_ms - 4.0) < 1e-12 && fabs(g.pts[3].dur_ms - 1.0) < 1e-12);
	assert_int_equal(g.line_end[2] - g.line_end[1], 5);
	for (size_t i = 0; i < 5; i++) {
		const struct ms_st_point *p = &g.pts[g.line_end[1] + i];

		assert_string_equal(p->name, want[i].name);
		assert_true(fabs(p->start_ms - want[i].start) < 1e-12);
		assert_true(fabs(p->dur_ms - want[i].dur) < 1e-12);
	}
	ms_st_graph_release(&g);
	ms_st_table_release(&t);
}

static void test_table_bad(void **state)
{
	struct ms_st_table t;
	struct nns_err err;
	const char *short_row = "step_num,start_point,end_point,total,fp_point,bp_point,"
				"iteration_interval,fp_and_bp,tail\n1,2,3,4,5,6,7,8,9\n2,3,4\n";
	const char *not_st = "a,b,c\n1,2,3\n";

	(void)state;
	assert_int_equal(ms_st_table_parse(&t, short_row, strlen(short_row), "s.csv", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "s.csv:3"));
	assert_int_equal(t.nrows, 0);
	assert_int_equal(ms_st_table_parse(&t, not_st, strlen(not_st), "n.csv", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "n.csv:1"));
	assert_int_equal(ms_st_table_parse(&t, "", 0, "e.csv", &err), NNS_EFORMAT);
}

static void test_match(void **state)
{
	int dev = -1, prio = -1;

	(void)state;
	assert_true(ms_match_file("ascend_timeline_display_3.json", &dev, &prio));
	assert_int_equal(dev, 3);
	assert_int_equal(prio, 0);
	assert_true(ms_match_file("step_trace_raw_12_detail_time.csv", &dev, &prio));
	assert_int_equal(dev, 12);
	assert_int_equal(prio, 1);
	assert_true(ms_match_file("flops_0.txt", &dev, &prio));
	assert_false(ms_match_file("flops_summary_x.json", &dev, &prio));
	assert_false(ms_match_file("flops_.txt", &dev, &prio));
	assert_false(ms_match_file("timeline_display_1.json.bak", &dev, &prio));
	assert_false(ms_match_file("worker0.pt.trace.json", &dev, &prio));
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_discover(void **state)
{
	char tmpl[] = "/tmp/nns_msdev_XXXXXX", *dir = mkdtemp(tmpl);
	struct run_set rs;
	struct nns_err err;
	const struct run *r;

	(void)state;
	assert_non_null(dir);
	put(dir, "step_trace_raw_0_detail_time.csv", HAND);
	put(dir, "flops_0.txt", "x\n");
	put(dir, "timeline_display_0.json", "[]");
	put(dir, "flops_2.txt", "x\n");
	put(dir, "step_trace_point_info.json", "{}");
	assert_int_equal(run_discover(&rs, dir, NULL, &err), NNS_OK);
	assert_int_equal(rs.runs.n, 1);
	r = &rs.runs.v[0];
	assert_true(run_is_mindspore(r));
	assert_int_equal(r->workers.n, 2);
	assert_string_equal(r->workers.v[0].name, "device_0");
	assert_int_equal(r->workers.v[0].spans.n, 1);
	assert_non_null(strstr(r->workers.v[0].spans.v[0].path, "timeline_display_0.json"));
	assert_string_equal(r->workers.v[1].name, "device_2");
	assert_non_null(strstr(r->workers.v[1].spans.v[0].path, "flops_2.txt"));
	run_set_release(&rs);
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

static void test_load_timeline(void **state)
{
	char dir[4096], path[4200];
	struct model m;
	struct nns_err err;
	struct ms_src s = {0};
	size_t kernels = 0, comm = 0, steps = 0;

	(void)state;
	if (shared_dir(dir, sizeof(dir), "run_1/normal_run/profiler"))
		skip();
	snprintf(path, sizeof(path), "%s/step_trace_raw_1_detail_time.csv", dir);
	assert_int_equal(ms_load_device(&m, path, NULL, &err), NNS_OK);
	assert_true(ms_model_src(&m, &s));
	assert_int_equal(s.dev, 1);
	assert_string_equal(s.dir, dir);
	/* timeline_display_1.json: 2817 events on pid 1 (AI Core streams) and
	 * 3542 on pid 10000 (all-reduce streams), all "X" (counted with
	 * python3 -c 'import json,collections; ...Counter(e["pid"] ...)') */
	for (size_t i = 0; i < m.events.n; i++) {
		const struct model_event *e = &m.events.v[i];
		const char *pid = model_str(&m, m.threads.v[e->thread].pid);

		if (strcmp(pid, "Step Trace") == 0) { /* the step trace's steps (ms_steps.c) */
			assert_int_equal(e->kind, MK_USER_ANNOTATION);
			steps++;
			continue;
		}
		assert_int_equal(e->kind, MK_KERNEL);
		assert_int_equal(e->device, 1);
		if (strcmp(pid, "1") == 0) {
			kernels++;
			assert_int_equal(model_event_class(&m, (uint32_t)i), MC_COMPUTE);
		} else {
			assert_string_equal(pid, "10000");
			assert_int_equal(model_event_class(&m, (uint32_t)i), MC_COMM);
			comm++;
		}
	}
	assert_int_equal(kernels, 2817);
	assert_int_equal(comm, 3542);
	assert_int_equal(steps, 322); /* the step trace's data rows */
	/* the profile of a MindSpore device carries its results (p->ms) */
	{
		struct an_profile p;

		assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
		assert_null(p.ms);
		assert_int_equal(an_ms_attach(&p, &err), NNS_OK);
		assert_non_null(p.ms);
		assert_int_equal(p.ms->src.dev, 1);
		assert_int_equal(p.ms->st_part.rc, NNS_OK);
		assert_int_equal(p.ms->sum.total_steps, p.ms->steps.n - 1);
		an_profile_release(&p);
	}
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_graph_run1),	  cmocka_unit_test(test_training_trace_run2),
	    cmocka_unit_test(test_graph_hand),	  cmocka_unit_test(test_table_bad),
	    cmocka_unit_test(test_match),	  cmocka_unit_test(test_discover),
	    cmocka_unit_test(test_load_timeline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
