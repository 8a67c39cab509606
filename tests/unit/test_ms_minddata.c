/*
 * test_ms_minddata.c - MindData (data preparation) readers, analyses,
 * proposals and JSON writer (src/importers/ms_minddata*.c,
 * src/analysis/ms_minddata*.c, src/output/ms_minddata_json.c):
 *   - MindInsight conformance, every value of expected_values.json (read at
 *     run time) for st/func/profiler/test_minddata_analyse.py,
 *     ut/profiler/analyser/test_minddata_analyse.py (run_2/normal_run/profiler,
 *     device 1), st/func/profiler/test_minddata_pipeline_analyser.py
 *     (profiler/, device 0) and st/func/profiler/test_proposer_analyser.py
 *     (run_2, device 1); the threshold-filter verdicts of the upstream ut
 *     pipeline test on ut_analyser/minddata_pipeline_raw_{0..3}.csv;
 *     skipped with a message when ../shared is absent;
 *   - hand-computed cases on tiny files written to a mkdtemp directory;
 *   - malformed files: NNS_EFORMAT naming file:line;
 *   - the JSON writer's document parsed back with jansson.
 */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/ms_minddata.h"
#include "importers/ms_minddata.h"
#include "output/ms_minddata_json.h"
#include "testutil.h"

#define EXPECTED "conformance/mindinsight/expected_values.json"

/* ---- helpers ---------------------------------------------------------- */

/* The value named name of function func under key, or NULL. */
static json_t *expect(json_t *root, const char *key, const char *func, const char *name)
{
	json_t *ents = json_object_get(json_object_get(root, key), "entries"), *e;
	size_t i;

	json_array_foreach(ents, i, e)
	{
		const char *f = json_string_value(json_object_get(e, "function"));
		const char *n = json_string_value(json_object_get(e, "name"));

		if (f && n && strcmp(f, func) == 0 && strcmp(n, name) == 0)
			return json_object_get(e, "value");
	}
	return NULL;
}

/* Loads expected_values.json, or skips. */
static json_t *load_expected(void)
{
	json_t *j = tu_load_shared_json(EXPECTED);

	if (!j) {
		printf("SKIP: %s/%s absent, MindInsight conformance not checked\n", tu_shared_dir(),
		       EXPECTED);
		skip();
	}
	return j;
}

/* A shared fixture directory, or skips. */
static void fixture(char *dir, size_t n, const char *rel, const char *probe)
{
	char p[4096];

	snprintf(dir, n, "%s/data/mindinsight/%s", tu_shared_dir(), rel);
	snprintf(p, sizeof(p), "%s/%s", dir, probe);
	if (access(p, R_OK) != 0) {
		printf("SKIP: %s absent\n", p);
		skip();
	}
}

static double num(json_t *x)
{
	assert_true(json_is_number(x));
	return json_number_value(x);
}

static void assert_dlist(json_t *arr, const double *v, size_t n)
{
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), n);
	for (size_t i = 0; i < n; i++)
		assert_true(num(json_array_get(arr, i)) == v[i]);
}

static void assert_ilist(json_t *arr, const int64_t *v, size_t n)
{
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), n);
	for (size_t i = 0; i < n; i++)
		assert_true(num(json_array_get(arr, i)) == (double)v[i]);
}

static char tmpdir[256];

static int setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/nns_md_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	(void)state;
	return tu_rmtree(tmpdir);
}

static void put(const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	fclose(f);
}

static void del(const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	unlink(p);
}

/* Writes the document of s and parses it back. */
static json_t *doc_of(const struct ms_src *s)
{
	struct ms_profile mp;
	struct jsonw w;
	struct nns_err err;
	json_error_t je;
	json_t *j;
	char *text;
	size_t len;

	assert_int_equal(ms_profile_load(&mp, s, &err), NNS_OK);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	out_json_ms_minddata(&w, &mp);
	ms_profile_release(&mp);
	assert_int_equal(jsonw_finish(&w, &err), NNS_OK);
	text = jsonw_take(&w, &len);
	assert_non_null(text);
	j = json_loadb(text, len, 0, &je);
	if (!j)
		fprintf(stderr, "bad JSON: %s\n%s\n", je.text, text);
	assert_non_null(j);
	free(text);
	jsonw_release(&w);
	return j;
}

/* ---- conformance: queues (run_2, device 1) ---------------------------- */

static void check_get_next_time(json_t *e, const struct ms_md_gn_info *g)
{
	json_t *gl = json_object_get(json_object_get(e, "info"), "get_next");
	const char *avg = json_string_value(json_object_get(
	    json_object_get(json_object_get(e, "summary"), "time_summary"), "avg_cost"));

	assert_non_null(avg);
	assert_int_equal(g->time_n, (size_t)num(json_object_get(e, "size")));
	assert_dlist(gl, g->cost_ms.v, g->cost_ms.n);
	/* upstream writes str(total / n): the double must read back the same */
	assert_true(g->avg_cost_ms == strtod(avg, NULL));
}

static void check_dq_time(json_t *e, const struct ms_md_dq_info *x)
{
	json_t *info = json_object_get(e, "info");
	json_t *ts = json_object_get(json_object_get(e, "summary"), "time_summary");

	assert_int_equal(x->time_n, (size_t)num(json_object_get(e, "size")));
	assert_dlist(json_object_get(info, "total_cost"), x->total_cost_ms.v, x->total_cost_ms.n);
	assert_dlist(json_object_get(info, "push_cost"), x->push_cost_ms_v.v, x->push_cost_ms_v.n);
	assert_dlist(json_object_get(info, "get_cost"), x->get_cost_ms_v.v, x->get_cost_ms_v.n);
	assert_true(num(json_object_get(ts, "avg_cost")) == x->avg_cost_ms);
	assert_true(num(json_object_get(ts, "get_cost")) == x->get_cost_ms);
	assert_true(num(json_object_get(ts, "push_cost")) == x->push_cost_ms);
}

static const char *status_of(json_t *e, const char *key)
{
	return json_string_value(json_object_get(json_object_get(e, key), "status"));
}

static void conformance_queues(void **state)
{
	const char *st = "st/func/profiler/test_minddata_analyse.py";
	const char *ut = "ut/profiler/analyser/test_minddata_analyse.py";
	json_t *root = load_expected(), *e, *sum;
	char dir[4096];
	struct ms_src s = {0};
	struct ms_md_dq dq;
	struct ms_md_gn gn;
	struct ms_md_dq_info dqi;
	struct ms_md_gn_info gni;
	struct ms_md_queue_summary qs;
	struct nns_err err;

	(void)state;
	fixture(dir, sizeof(dir), "run_2/normal_run/profiler", "minddata_aicpu_1.txt");
	s.dir = dir;
	s.dev = 1;
	memset(&dq, 0, sizeof(dq));
	memset(&gn, 0, sizeof(gn));
	assert_int_equal(ms_md_read_device_queue(&s, &dq, &err), NNS_OK);
	assert_int_equal(ms_md_read_get_next(&s, &gn, &err), NNS_OK);
	assert_true(dq.present && !dq.from_dataset_iterator && gn.present && !gn.gpu);
	assert_int_equal(ms_md_dq_analyse(&dq, &dqi), NNS_OK);
	assert_int_equal(ms_md_gn_analyse(&gn, &gni), NNS_OK);

	/* st test_analyse_queue_summary */
	e = expect(root, st, "test_analyse_queue_summary", "expect_result");
	assert_non_null(e);
	ms_md_queue_summary(&dq, &gn, &qs);
	assert_true(qs.present && qs.has_get_next);
	assert_string_equal(ms_md_status_name(qs.data_process), status_of(e, "data_process"));
	assert_string_equal(ms_md_status_name(qs.device_queue_warning),
			    status_of(e, "device_queue_warning"));
	assert_string_equal(ms_md_status_name(qs.get_next), status_of(e, "get_next"));
	assert_string_equal(ms_md_status_name(qs.data_transmission),
			    status_of(e, "data_transmission"));
	assert_string_equal(ms_md_status_name(qs.data_process), "warning");
	sum = json_object_get(json_object_get(e, "device_queue_info"), "summary");
	assert_int_equal(qs.dq_empty, (size_t)num(json_object_get(sum, "empty_batch_count")));
	assert_int_equal(qs.dq_full, (size_t)num(json_object_get(sum, "full_batch_count")));
	assert_int_equal(qs.dq_total, (size_t)num(json_object_get(sum, "total_batch")));
	sum = json_object_get(json_object_get(e, "get_next_queue_info"), "summary");
	assert_int_equal(qs.gn_empty, (size_t)num(json_object_get(sum, "empty_batch_count")));
	assert_int_equal(qs.gn_total, (size_t)num(json_object_get(sum, "total_batch")));

	/* st test_analyse_get_next_info, ut test_analyse_get_next_info_all */
	e = expect(root, st, "test_analyse_get_next_info", "expect_result");
	assert_non_null(e);
	check_get_next_time(e, &gni);
	e = expect(root, ut, "test_analyse_get_next_info_all", "expect_time_result");
	assert_non_null(e);
	check_get_next_time(e, &gni);
	e = expect(root, ut, "test_analyse_get_next_info_all", "expect_queue_result");
	assert_non_null(e);
	assert_int_equal(gni.queue_n, (size_t)num(json_object_get(e, "size")));
	assert_ilist(json_object_get(json_object_get(e, "info"), "queue"), gni.queue.v,
		     gni.queue.n);
	assert_int_equal(
	    gni.empty,
	    (size_t)num(json_object_get(
		json_object_get(json_object_get(e, "summary"), "queue_summary"), "empty_queue")));

	/* st test_analyse_device_queue_info, ut test_analyse_device_queue_info_all */
	e = expect(root, st, "test_analyse_device_queue_info", "expect_result");
	assert_non_null(e);
	check_dq_time(e, &dqi);
	e = expect(root, ut, "test_analyse_device_queue_info_all", "expect_time_result");
	assert_non_null(e);
	check_dq_time(e, &dqi);
	e = expect(root, ut, "test_analyse_device_queue_info_all", "expect_queue_result");
	assert_non_null(e);
	assert_int_equal(dqi.queue_n, (size_t)num(json_object_get(e, "size")));
	assert_ilist(json_object_get(json_object_get(e, "info"), "queue"), dqi.queue_size.v,
		     dqi.queue_size.n);
	sum = json_object_get(json_object_get(e, "summary"), "queue_summary");
	assert_int_equal(dqi.empty, (size_t)num(json_object_get(sum, "empty_queue")));
	assert_int_equal(dqi.full, (size_t)num(json_object_get(sum, "full_queue")));

	ms_md_dq_info_release(&dqi);
	ms_md_gn_info_release(&gni);
	ms_md_dq_release(&dq);
	ms_md_gn_release(&gn);
	json_decref(root);
}

/* ---- conformance: pipeline (profiler/, device 0) ---------------------- */

/* Checks op o's value of column name against the expected JSON value x. */
static void check_cell(const struct ms_md_op *o, const char *name, json_t *x)
{
	int col = ms_md_col_from_name(name);

	assert_true(col >= 0);
	switch (col) {
	case MS_MD_COL_OP_ID:
		assert_true(num(x) == (double)o->op_id);
		break;
	case MS_MD_COL_OP_TYPE:
		assert_string_equal(json_string_value(x), o->op_type);
		break;
	case MS_MD_COL_NUM_WORKERS:
		assert_true(num(x) == (double)o->num_workers);
		break;
	case MS_MD_COL_QUEUE_SIZE:
		if (json_is_null(x))
			assert_false(o->has_queue_size);
		else
			assert_dlist(x, o->queue_size.v, o->queue_size.n);
		break;
	case MS_MD_COL_QUEUE_AVG:
		assert_int_equal(o->has_avg, !json_is_null(x));
		if (o->has_avg)
			assert_true(num(x) == o->avg);
		break;
	case MS_MD_COL_QUEUE_LENGTH:
		assert_int_equal(o->has_length, !json_is_null(x));
		if (o->has_length)
			assert_true(num(x) == (double)o->length);
		break;
	case MS_MD_COL_QUEUE_USAGE:
		assert_int_equal(o->has_usage, !json_is_null(x));
		if (o->has_usage)
			assert_true(num(x) == o->usage);
		break;
	case MS_MD_COL_SAMPLE_INTERVAL:
		assert_true(num(x) == (double)o->sample_interval);
		break;
	case MS_MD_COL_PARENT_ID:
		assert_int_equal(o->has_parent, !json_is_null(x));
		if (o->has_parent)
			assert_true(num(x) == (double)o->parent_id);
		break;
	case MS_MD_COL_CHILDREN_ID:
		if (json_is_null(x))
			assert_false(o->has_children);
		else
			assert_ilist(x, o->children.v, o->children.n);
		break;
	}
}

static void check_op_brief(const struct ms_md_op *o, json_t *x)
{
	assert_true(num(json_object_get(x, "op_id")) == (double)o->op_id);
	assert_string_equal(json_string_value(json_object_get(x, "op_type")), o->op_type);
	assert_true(num(json_object_get(x, "num_workers")) == (double)o->num_workers);
}

static void conformance_pipeline(void **state)
{
	const char *key = "st/func/profiler/test_minddata_pipeline_analyser.py";
	json_t *root = load_expected(), *e, *cond, *cols, *rows, *row, *qi;
	char dir[4096];
	struct ms_src s = {0};
	struct ms_md_pipeline p;
	struct nns_err err;
	size_t order[16], i;
	long cur, parent;
	const struct ms_md_op *o;

	(void)state;
	fixture(dir, sizeof(dir), "profiler", "minddata_pipeline_raw_0.csv");
	s.dir = dir;
	s.dev = 0;
	memset(&p, 0, sizeof(p));
	assert_int_equal(ms_md_read_pipeline(&s, &p, &err), NNS_OK);
	assert_true(p.present && p.ops.n <= 16);

	/* test_query: sorted by the condition's column and direction */
	e = expect(root, key, "test_query", "expect_result");
	cond = json_object_get(expect(root, key, "test_query", "condition"), "sort_condition");
	assert_non_null(e);
	assert_non_null(cond);
	assert_int_equal(
	    ms_md_pipeline_sort(
		&p, ms_md_col_from_name(json_string_value(json_object_get(cond, "name"))),
		strcmp(json_string_value(json_object_get(cond, "type")), "descending") == 0, order),
	    NNS_OK);
	assert_int_equal(p.ops.n, (size_t)num(json_object_get(e, "size")));
	cols = json_object_get(e, "col_name");
	rows = json_object_get(e, "object");
	assert_int_equal(json_array_size(rows), p.ops.n);
	json_array_foreach(rows, i, row)
	{
		size_t c;
		json_t *cn;

		assert_int_equal(json_array_size(row), json_array_size(cols));
		json_array_foreach(cols, c, cn)
		    check_cell(&p.ops.v[order[i]], json_string_value(cn), json_array_get(row, c));
	}

	/* test_get_op_and_parent_op_info(1) */
	e = expect(root, key, "test_get_op_and_parent_op_info", "expect_result");
	assert_non_null(e);
	assert_int_equal(ms_md_op_and_parent(&p, 1, &cur, &parent), NNS_OK);
	assert_true(cur >= 0 && parent >= 0);
	check_op_brief(&p.ops.v[cur], json_object_get(e, "current_op"));
	check_op_brief(&p.ops.v[parent], json_object_get(e, "parent_op"));
	qi = json_object_get(e, "queue_info");
	o = &p.ops.v[cur];
	check_cell(o, "output_queue_size", json_object_get(qi, "output_queue_size"));
	check_cell(o, "output_queue_average_size",
		   json_object_get(qi, "output_queue_average_size"));
	check_cell(o, "output_queue_length", json_object_get(qi, "output_queue_length"));
	check_cell(o, "output_queue_usage_rate", json_object_get(qi, "output_queue_usage_rate"));
	check_cell(o, "sample_interval", json_object_get(qi, "sample_interval"));
	/* upstream ut: op 0 has no parent (and no queue info), op 5 does not exist */
	assert_int_equal(ms_md_op_and_parent(&p, 0, &cur, &parent), NNS_OK);
	assert_int_equal(parent, -1);
	assert_int_equal(ms_md_op_and_parent(&p, 5, &cur, &parent), NNS_ENOTFOUND);

	ms_md_pipeline_release(&p);
	json_decref(root);
}

/* The upstream ut pipeline test's threshold cases (test_query_success_5..8
 * on tests/ut/profiler/analyser/resource/minddata_pipeline_raw_{0..3}.csv):
 * the flagged rows are indexes [1], [2], [0] and [3, 4] of each file, that is
 * op ids [4], [1], [0] (the root: every queue high) and [2, 3] (every queue
 * low: the leaves). */
static void conformance_threshold(void **state)
{
	static const struct {
		int dev;
		double high, low;
		size_t n;
		int64_t ids[2];
	} cases[] = {{0, 0.8, 0.2, 1, {4}},
		     {1, 0.8, 0.6, 1, {1}},
		     {2, 0.8, 0.6, 1, {0}},
		     {3, 0.8, 0.2, 2, {2, 3}}};
	char dir[4096];

	(void)state;
	fixture(dir, sizeof(dir), "ut_analyser", "minddata_pipeline_raw_3.csv");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ms_src s = {.dir = dir, .dev = cases[k].dev};
		struct ms_md_pipeline p;
		struct nns_err err;
		size_t idx[16], n;

		memset(&p, 0, sizeof(p));
		assert_int_equal(ms_md_read_pipeline(&s, &p, &err), NNS_OK);
		assert_true(p.ops.n <= 16);
		ms_md_pipeline_outside_threshold(&p, cases[k].high, cases[k].low, idx, &n);
		assert_int_equal(n, cases[k].n);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(p.ops.v[idx[i]].op_id, cases[k].ids[i]);
		ms_md_pipeline_release(&p);
	}
}

/* ---- conformance: proposals (run_2, device 1) ------------------------- */

static void conformance_proposals(void **state)
{
	const char *key = "st/func/profiler/test_proposer_analyser.py";
	json_t *root = load_expected(), *e, *v, *doc, *props, *pr;
	static const char *const num_ids[] = {"minddata_device_queue", "minddata_get_next_queue",
					      "minddata_cpu_utilization"};
	static const char *const str_ids[] = {"minddata_pipeline-dataset_op",
					      "minddata_pipeline-general"};
	char dir[4096];
	struct ms_src s = {0};
	struct ms_md m;
	struct ms_md_proposals ps;
	size_t i, seen = 0;

	(void)state;
	fixture(dir, sizeof(dir), "run_2/normal_run/profiler", "minddata_cpu_utilization_1.json");
	s.dir = dir;
	s.dev = 1;
	e = expect(root, key, "test_analyser_proposal", "expect_result");
	assert_non_null(e);
	assert_int_equal(ms_md_load(&m, &s), 0);
	assert_int_equal(ms_md_propose(&m.dq, &m.gn, &m.pl, &m.cpu, &ps), NNS_OK);
	for (i = 0; i < 3; i++) {
		const struct ms_md_proposal *p = ms_md_proposal_find(&ps, num_ids[i]);

		v = json_object_get(e, num_ids[i]);
		assert_non_null(v);
		assert_non_null(p);
		assert_dlist(v, p->nums, (size_t)p->nnums);
		assert_null(p->str);
	}
	for (i = 0; i < 2; i++) {
		const struct ms_md_proposal *p = ms_md_proposal_find(&ps, str_ids[i]);

		v = json_object_get(e, str_ids[i]);
		assert_non_null(p);
		assert_int_equal(json_array_size(v), 1);
		assert_int_equal(p->nnums, 0);
		assert_string_equal(json_string_value(json_array_get(v, 0)), p->str);
	}
	/* the same through the JSON document */
	doc = doc_of(&s);
	props = json_object_get(doc, "proposals");
	json_array_foreach(props, i, pr)
	{
		const char *id = json_string_value(json_object_get(pr, "id"));

		v = json_object_get(e, id);
		if (v) {
			assert_true(json_equal(v, json_object_get(pr, "args")));
			seen++;
		}
		assert_true(strlen(json_string_value(json_object_get(pr, "text"))) > 20);
	}
	assert_int_equal(seen, json_object_size(e));
	json_decref(doc);
	ms_md_proposals_release(&ps);
	ms_md_release(&m);
	json_decref(root);
}

/* ---- hand-computed ------------------------------------------------------ */

/* Steps out of order: queue by step [0, 4, 2], one empty (step 1), one full
 * (step 2: 4 of 4); totals by step [3, 5] -> avg 4, gets [0.5, 1.5] -> 1,
 * pushes [2, 3] -> 2.5; an unknown record type (7) is ignored. Without
 * GetNext: 1 empty of 3 > 0.3 x 3 -> data_process, empty rate ceil(33.3) = 34. */
static void hand_device_queue(void **state)
{
	const char *txt = "0 0 2 1.5 100\n"
			  "0 1 2 3.0 100\n"
			  "0 2 2 5.0 100\n"
			  "\n"
			  "0 0 1 0.5 50\n"
			  "0 1 1 2.0 50\n"
			  "0 2 1 3.0 50\n"
			  "1 4 2 4 100\n"
			  "1 4 1 0 50\n"
			  "1 4 3 2 150\n"
			  "7 9 9 9\n";
	static const int64_t qs[] = {0, 4, 2};
	static const double tot[] = {3, 5}, get[] = {0.5, 1.5}, push[] = {2, 3};
	struct ms_md_dq q;
	struct ms_md_dq_info x;
	struct ms_md_queue_summary s;
	struct ms_md_proposals ps;
	const struct ms_md_proposal *p;
	struct nns_err err;

	(void)state;
	memset(&q, 0, sizeof(q));
	assert_int_equal(ms_md_parse_device_queue(txt, strlen(txt), "dq", &q, &err), NNS_OK);
	assert_int_equal(ms_md_dq_analyse(&q, &x), NNS_OK);
	assert_int_equal(x.queue_n, 3);
	assert_memory_equal(x.queue_size.v, qs, sizeof(qs));
	assert_int_equal(x.empty, 1);
	assert_int_equal(x.full, 1);
	assert_int_equal(x.time_n, 2);
	assert_memory_equal(x.total_cost_ms.v, tot, sizeof(tot));
	assert_memory_equal(x.get_cost_ms_v.v, get, sizeof(get));
	assert_memory_equal(x.push_cost_ms_v.v, push, sizeof(push));
	assert_true(x.avg_cost_ms == 4.0 && x.get_cost_ms == 1.0 && x.push_cost_ms == 2.5);
	ms_md_queue_summary(&q, NULL, &s);
	assert_int_equal(s.data_process, MS_MD_WARNING);
	assert_int_equal(s.device_queue_warning, MS_MD_NORMAL);
	assert_int_equal(s.data_transmission, MS_MD_ABSENT);
	assert_int_equal(s.get_next, MS_MD_ABSENT);
	assert_int_equal(ms_md_propose(&q, NULL, NULL, NULL, &ps), NNS_OK);
	assert_int_equal(ps.v.n, 2);
	assert_string_equal(ps.v.v[0].id, "minddata_device_queue");
	assert_true(ps.v.v[0].nums[0] == 1 && ps.v.v[0].nums[1] == 3 && ps.v.v[0].nums[2] == 1 &&
		    ps.v.v[0].nums[3] == 3);
	p = ms_md_proposal_find(&ps, "minddata_device_queue_rate");
	assert_non_null(p);
	assert_true(p->nums[0] == 34 && p->nums[1] == 30);
	assert_string_equal(p->cause, "data_process");
	assert_non_null(strstr(p->text, "34%"));
	ms_md_proposals_release(&ps);
	ms_md_dq_info_release(&x);
	ms_md_dq_release(&q);
}

/* GPU GetNext (ns): costs (3e6 - 1e6) / 1e6 = 2 ms, 0.5, 1 -> avg 3.5 / 3;
 * queue sizes [2, 0] (the third line has none), one empty. With a device
 * queue never empty: data_transmission; with neither empty:
 * device_queue_warning. */
static void hand_get_next_verdicts(void **state)
{
	const char *gtxt = "GetNext 1000000 3000000 2\n"
			   "GetNext 5000000 5500000 0\n"
			   "something else 1 2\n"
			   "GetNext 6000000 7000000\n";
	const char *full = "1 4 1 3\n1 4 2 4\n1 4 3 2\n";
	const char *gok = "GetNext_dequeue_wait 10 11 3\n";
	struct ms_md_gn g, g2;
	struct ms_md_dq q;
	struct ms_md_gn_info gi;
	struct ms_md_queue_summary s;
	struct ms_md_proposals ps;
	const struct ms_md_proposal *p;
	struct nns_err err;
	static const double cost[] = {2.0, 0.5, 1.0};

	(void)state;
	memset(&g, 0, sizeof(g));
	memset(&g2, 0, sizeof(g2));
	memset(&q, 0, sizeof(q));
	assert_int_equal(ms_md_parse_get_next(gtxt, strlen(gtxt), "gn", 1, &g, &err), NNS_OK);
	assert_int_equal(ms_md_gn_analyse(&g, &gi), NNS_OK);
	assert_int_equal(gi.time_n, 3);
	assert_memory_equal(gi.cost_ms.v, cost, sizeof(cost));
	assert_true(gi.avg_cost_ms == 3.5 / 3);
	assert_int_equal(gi.queue_n, 2);
	assert_int_equal(gi.empty, 1);
	ms_md_gn_info_release(&gi);

	assert_int_equal(ms_md_parse_device_queue(full, strlen(full), "dq", &q, &err), NNS_OK);
	ms_md_queue_summary(&q, &g, &s);
	assert_int_equal(s.data_process, MS_MD_NORMAL);
	assert_int_equal(s.data_transmission, MS_MD_WARNING);
	assert_int_equal(s.device_queue_warning, MS_MD_NORMAL);
	assert_int_equal(s.get_next, MS_MD_NORMAL);
	assert_int_equal(s.gn_total, 2);
	assert_int_equal(ms_md_propose(&q, &g, NULL, NULL, &ps), NNS_OK);
	assert_string_equal(ps.v.v[0].id, "minddata_get_next_queue");
	assert_true(ps.v.v[0].nums[0] == 1 && ps.v.v[0].nums[1] == 2);
	p = ms_md_proposal_find(&ps, "minddata_device_queue_rate");
	assert_non_null(p);
	assert_string_equal(p->cause, "data_transmission");
	assert_true(p->nums[0] == 0);
	assert_null(ms_md_proposal_find(&ps, "device_queue_warning"));
	ms_md_proposals_release(&ps);

	assert_int_equal(ms_md_parse_get_next(gok, strlen(gok), "gn2", 0, &g2, &err), NNS_OK);
	assert_true(g2.rec.v[0].cost_ms == 1.0 / 1e3);
	ms_md_queue_summary(&q, &g2, &s);
	assert_int_equal(s.data_transmission, MS_MD_NORMAL);
	assert_int_equal(s.device_queue_warning, MS_MD_WARNING);
	assert_int_equal(ms_md_propose(&q, &g2, NULL, NULL, &ps), NNS_OK);
	p = ms_md_proposal_find(&ps, "device_queue_warning");
	assert_non_null(p);
	assert_string_equal(p->str, "warning");
	assert_null(ms_md_proposal_find(&ps, "minddata_device_queue_rate"));
	ms_md_proposals_release(&ps);
	ms_md_gn_release(&g);
	ms_md_gn_release(&g2);
	ms_md_dq_release(&q);
}

#define PIPE_HDR                                                                                   \
	"op_id,op_type,num_workers,output_queue_size,output_queue_average_size,output_queue_"      \
	"length,output_queue_usage_rate,sample_interval,parent_id,children_id\n"

/* MapOp_1's queue is low (0.078 < 0.6) below a high one (GeneratorOp_2,
 * 0.9375 >= 0.8): flagged alone -> general and map_op "MapOp_1". Sorting,
 * ties kept in file order, and None smallest. */
static void hand_pipeline(void **state)
{
	const char *csv = PIPE_HDR "0,BatchOp,4,\"[1, 2]\",1.5,64,0.0234375,10,,[1]\r\n"
				   "1,MapOp,8,\"[10, 10]\",10.0,128,0.078125,10,0,[2]\r\n"
				   "2,GeneratorOp,2,\"[120, 120]\",120.0,128,0.9375,10,1,\r\n";
	const char *leaves = PIPE_HDR "0,Batch,4,,,,,10,,[1]\n"
				      "1,Shuffle,1,[1],1.0,64,0.015625,10,0,\"[2, 3]\"\n"
				      "2,TFReader,4,[1],1.0,64,0.015625,10,1,\n"
				      "3,GeneratorOp,4,[1],1.0,64,0.015625,10,1,\n";
	const char *high = PIPE_HDR "0,Batch,4,,,,,10,,[1]\n"
				    "1,Shuffle,1,[60],60.0,64,0.9375,10,0,[2]\n"
				    "2,TFReader,4,[60],60.0,64,0.9375,10,1,\n";
	struct ms_md_pipeline p;
	struct ms_md_proposals ps;
	struct nns_err err;
	size_t order[4], idx[4], n;
	long cur, parent;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(ms_md_parse_pipeline(csv, strlen(csv), "pl", &p, &err), NNS_OK);
	assert_int_equal(p.ops.n, 3);
	assert_true(p.ops.v[0].queue_size.n == 2 && p.ops.v[0].queue_size.v[1] == 2);
	assert_false(p.ops.v[0].has_parent);
	assert_false(p.ops.v[2].has_children);
	assert_int_equal(ms_md_pipeline_sort(&p, MS_MD_COL_OP_TYPE, 0, order), NNS_OK);
	assert_true(order[0] == 0 && order[1] == 2 && order[2] == 1);
	assert_int_equal(ms_md_pipeline_sort(&p, MS_MD_COL_CHILDREN_ID, 1, order), NNS_OK);
	assert_true(order[0] == 1 && order[1] == 0 && order[2] == 2);
	assert_int_equal(ms_md_pipeline_sort(&p, MS_MD_COL_SAMPLE_INTERVAL, 1, order), NNS_OK);
	assert_true(order[0] == 0 && order[1] == 1 && order[2] == 2); /* all equal */
	assert_int_equal(ms_md_pipeline_sort(&p, MS_MD_COL_PARENT_ID, 0, order), NNS_OK);
	assert_true(order[0] == 0 && order[1] == 1 && order[2] == 2); /* None first */
	assert_int_equal(ms_md_pipeline_sort(&p, MS_MD_NCOLS, 0, order), NNS_EINVAL);
	assert_int_equal(ms_md_op_and_parent(&p, 2, &cur, &parent), NNS_OK);
	assert_true(cur == 2 && parent == 1);
	ms_md_pipeline_outside_threshold(&p, 0.8, 0.6, idx, &n);
	assert_true(n == 1 && idx[0] == 1);
	assert_int_equal(ms_md_propose(NULL, NULL, &p, NULL, &ps), NNS_OK);
	assert_int_equal(ps.v.n, 2);
	assert_string_equal(ps.v.v[0].id, "minddata_pipeline-general");
	assert_string_equal(ps.v.v[0].str, "MapOp_1");
	assert_string_equal(ps.v.v[1].id, "minddata_pipeline-map_op");
	assert_string_equal(ps.v.v[1].str, "MapOp_1");
	ms_md_proposals_release(&ps);

	/* every non-root queue low: the leaves, reversed and joined */
	assert_int_equal(ms_md_parse_pipeline(leaves, strlen(leaves), "pl2", &p, &err), NNS_OK);
	assert_int_equal(ms_md_propose(NULL, NULL, &p, NULL, &ps), NNS_OK);
	assert_int_equal(ps.v.n, 2);
	assert_string_equal(ps.v.v[0].str, "GeneratorOp_3/TFReader_2");
	assert_string_equal(ps.v.v[1].id, "minddata_pipeline-dataset_op");
	assert_string_equal(ps.v.v[1].str, "GeneratorOp_3/TFReader_2");
	ms_md_proposals_release(&ps);

	/* every non-root queue high: the root, and then no proposal */
	assert_int_equal(ms_md_parse_pipeline(high, strlen(high), "pl3", &p, &err), NNS_OK);
	ms_md_pipeline_outside_threshold(&p, 0.8, 0.6, idx, &n);
	assert_true(n == 1 && idx[0] == 0);
	assert_int_equal(ms_md_propose(NULL, NULL, &p, NULL, &ps), NNS_OK);
	assert_int_equal(ps.v.n, 0);
	ms_md_proposals_release(&ps);
	ms_md_pipeline_release(&p);
}

/* The tiny CPU case of the directory test: time stamps 5..30 against queue
 * records at 10 (step 1), 20 (step 2), 30 (step 3): steps [0,1,1,2,2,3];
 * samples 1..5 are averaged (5 is before step 1). */
#define CPU_JSON                                                                                   \
	"{\"sampling_interval\": 10, \"cpu_processor_num\": 8,\n"                                  \
	" \"time_stamp\": [5, 10, 15, 20, 25, 30],\n"                                              \
	" \"device_info\": {\"idle_utilization\": [0, 10, 15, 20, 5, 10],\n"                       \
	"                 \"user_utilization\": [1, 2, 3, 4, 5, 6]},\n"                            \
	" \"process_info\": {\"user_utilization\": [1, 1, 2, 2, 1, 2]},\n"                         \
	" \"op_info\": [{\"op_id\": -1, \"metrics\": {\"user_utilization\": [9, 9, 9, 9, 9, "      \
	"9]}},\n"                                                                                  \
	"             {\"op_id\": 2, \"metrics\": {\"user_utilization\": [2, 2, 2, 3, 3, 3],\n"    \
	"                                        \"sys_utilization\": [0, 2.5, 2.5, 2.5, 2.5, "    \
	"2.5]}}]}\n"
#define DQ_TXT "1 64 1 5 10\n1 64 2 0 20\n1 64 3 64 30\n0 1 1 4 10\n"

/* The whole document of a tiny directory:
 *   idle over samples 1..5 = (10 + 15 + 20 + 5 + 10) / 5 = 12 -> active 88 > 80;
 *   user (2+3+4+5+6)/5 = 4; process (1+2+2+1+2)/5 = 1.6 -> 2;
 *   op 2 user (2+2+3+3+3)/5 = 2.6 -> 3, sys 12.5/5 = 2.5 -> 2 (half to even);
 *   op -1 skipped; num_workers 4 from pipeline_profiling_0.json;
 *   queue [5, 0, 64]: 1 empty > 0.9 -> data_process, 1 full. */
static void hand_document(void **state)
{
	struct ms_src s = {.dir = tmpdir, .dev = 0};
	json_t *doc, *x, *dev, *op;
	static const double steps[] = {0, 1, 1, 2, 2, 3};
	const char *ids[] = {"minddata_device_queue", "minddata_device_queue_rate",
			     "minddata_cpu_utilization", "minddata_pipeline-general",
			     "minddata_pipeline-map_op"};
	size_t i;

	(void)state;
	/* nothing yet: every part null, no proposal, no error */
	assert_int_equal(ms_md_any(&s), 0);
	doc = doc_of(&s);
	assert_true(json_is_null(json_object_get(doc, "device_queue")));
	assert_true(json_is_null(json_object_get(doc, "get_next")));
	assert_true(json_is_null(json_object_get(doc, "queue_summary")));
	assert_true(json_is_null(json_object_get(doc, "pipeline")));
	assert_true(json_is_null(json_object_get(doc, "cpu_utilization")));
	assert_int_equal(json_array_size(json_object_get(doc, "proposals")), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "errors")), 0);
	json_decref(doc);

	put("minddata_cpu_utilization_0.json", CPU_JSON);
	put("pipeline_profiling_0.json",
	    "{\"sampling_interval\": 10, \"op_info\": [{\"op_id\": 2, \"num_workers\": 4, "
	    "\"op_type\": \"MapOp\"}]}");
	put("device_queue_profiling_0.txt", DQ_TXT);
	put("minddata_pipeline_raw_0.csv",
	    PIPE_HDR "0,BatchOp,4,\"[1, 2]\",1.5,64,0.0234375,10,,[1]\n"
		     "1,MapOp,8,\"[10, 10]\",10.0,128,0.078125,10,0,[2]\n"
		     "2,GeneratorOp,2,\"[120, 120]\",120.0,128,0.9375,10,1,\n");
	assert_int_equal(ms_md_any(&s), 1);
	doc = doc_of(&s);
	assert_int_equal(json_array_size(json_object_get(doc, "errors")), 0);
	x = json_object_get(doc, "device_queue");
	assert_string_equal(json_string_value(json_object_get(x, "file")),
			    "device_queue_profiling_0.txt");
	assert_dlist(json_object_get(json_object_get(x, "queue"), "queue_size"),
		     (const double[]){5, 0, 64}, 3);
	assert_true(num(json_object_get(json_object_get(x, "queue"), "full_batches")) == 1);
	assert_true(num(json_object_get(json_object_get(x, "time"), "size")) == 0);
	assert_true(json_is_null(json_object_get(json_object_get(x, "time"), "avg_cost_ms")));
	assert_dlist(json_object_get(json_object_get(x, "time"), "push_cost_ms"),
		     (const double[]){4}, 1);
	x = json_object_get(doc, "queue_summary");
	assert_string_equal(json_string_value(json_object_get(x, "data_process")), "warning");
	assert_string_equal(json_string_value(json_object_get(x, "device_queue_warning")),
			    "normal");
	assert_true(json_is_null(json_object_get(x, "data_transmission")));
	assert_true(json_is_null(json_object_get(x, "get_next_queue")));
	assert_true(json_is_null(json_object_get(doc, "get_next")));

	x = json_object_get(doc, "pipeline");
	assert_int_equal(json_array_size(json_object_get(x, "ops")), 3);
	op = json_array_get(json_object_get(x, "ops"), 0);
	assert_true(json_is_null(json_object_get(op, "parent_id")));
	assert_true(num(json_object_get(op, "output_queue_usage_rate")) == 0.0234375);
	assert_true(json_is_null(
	    json_object_get(json_array_get(json_object_get(x, "ops"), 2), "children_id")));
	assert_dlist(json_object_get(x, "bottleneck_op_ids"), (const double[]){1}, 1);

	x = json_object_get(doc, "cpu_utilization");
	assert_dlist(json_object_get(x, "sample_steps"), steps, 6);
	assert_true(num(json_object_get(x, "step_total_num")) == 3);
	assert_true(num(json_object_get(x, "first_sample")) == 1);
	assert_true(num(json_object_get(x, "end_sample")) == 6);
	assert_true(num(json_object_get(x, "cpu_processor_num")) == 8);
	dev = json_object_get(x, "device");
	assert_string_equal(json_string_value(json_object_get(json_array_get(dev, 0), "metric")),
			    "idle_utilization");
	assert_true(num(json_object_get(json_array_get(dev, 0), "avg")) == 12);
	assert_true(num(json_object_get(json_array_get(dev, 1), "avg")) == 4);
	assert_true(num(json_object_get(json_array_get(json_object_get(x, "process"), 0), "avg")) ==
		    2);
	assert_int_equal(json_array_size(json_object_get(x, "ops")), 1);
	op = json_array_get(json_object_get(x, "ops"), 0);
	assert_true(num(json_object_get(op, "op_id")) == 2);
	assert_true(num(json_object_get(op, "num_workers")) == 4);
	assert_true(
	    num(json_object_get(json_array_get(json_object_get(op, "metrics"), 0), "avg")) == 3);
	assert_true(
	    num(json_object_get(json_array_get(json_object_get(op, "metrics"), 1), "avg")) == 2);
	assert_true(num(json_object_get(json_object_get(x, "total_op_avg"), "user_utilization")) ==
		    3);
	assert_true(num(json_object_get(json_object_get(x, "total_op_avg"), "sys_utilization")) ==
		    2);
	assert_true(num(json_object_get(x, "active_percent")) == 88);

	x = json_object_get(doc, "proposals");
	assert_int_equal(json_array_size(x), 5);
	for (i = 0; i < 5; i++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(x, i), "id")),
				    ids[i]);
	op = json_array_get(x, 1);
	assert_true(num(json_object_get(json_object_get(op, "args"), "empty_rate")) == 34);
	assert_true(num(json_object_get(json_object_get(op, "args"), "empty_warning_threshold")) ==
		    30);
	assert_string_equal(json_string_value(json_object_get(op, "cause")), "data_process");
	assert_dlist(json_object_get(json_array_get(x, 2), "args"), (const double[]){88}, 1);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(json_array_get(x, 3), "args"), 0)),
	    "MapOp_1");
	json_decref(doc);

	/* a malformed file: its part is null, its error listed, the rest stays */
	put("minddata_pipeline_raw_0.csv",
	    PIPE_HDR "0,BatchOp,4,,,,,10,,[1]\n1,MapOp,x,,,,,10,0,\n");
	doc = doc_of(&s);
	assert_true(json_is_null(json_object_get(doc, "pipeline")));
	assert_false(json_is_null(json_object_get(doc, "device_queue")));
	x = json_object_get(doc, "errors");
	assert_int_equal(json_array_size(x), 1);
	assert_non_null(strstr(json_string_value(json_array_get(x, 0)),
			       "minddata_pipeline_raw_0.csv:3: num_workers"));
	json_decref(doc);

	/* without device queue records the CPU samples are not mapped: all kept
	 * (idle (0+10+15+20+5+10)/6 = 10 -> active 90) */
	del("device_queue_profiling_0.txt");
	del("minddata_pipeline_raw_0.csv");
	doc = doc_of(&s);
	x = json_object_get(doc, "cpu_utilization");
	assert_true(json_is_null(json_object_get(x, "sample_steps")));
	assert_true(num(json_object_get(x, "active_percent")) == 90);
	json_decref(doc);
	del("minddata_cpu_utilization_0.json");
	del("pipeline_profiling_0.json");
}

/* ---- malformed files ---------------------------------------------------- */

static void expect_format(int rc, const struct nns_err *err, const char *where)
{
	assert_int_equal(rc, NNS_EFORMAT);
	if (!strstr(err->msg, where))
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err->msg, where);
	assert_non_null(strstr(err->msg, where));
}

static void malformed(void **state)
{
	struct ms_md_dq q;
	struct ms_md_gn g;
	struct ms_md_pipeline p;
	struct ms_md_cpu c;
	struct nns_err err;
	struct ms_src s = {.dir = tmpdir, .dev = 3};
	const char *t;

	(void)state;
	memset(&q, 0, sizeof(q));
	memset(&g, 0, sizeof(g));
	memset(&p, 0, sizeof(p));
	memset(&c, 0, sizeof(c));
	/* through the file readers: the message names the file and the line */
	put("device_queue_profiling_3.txt", "0 1 1 4 10\n1 64 x 0 10\n");
	expect_format(ms_md_read_device_queue(&s, &q, &err), &err,
		      "device_queue_profiling_3.txt:2:");
	assert_false(q.present);
	assert_int_equal(q.queue.n + q.get.n + q.push.n + q.total.n, 0);
	del("device_queue_profiling_3.txt");
	put("dataset_iterator_profiling_3.txt", "1 64 1 3\n0 1\n");
	expect_format(ms_md_read_device_queue(&s, &q, &err), &err,
		      "dataset_iterator_profiling_3.txt:2: fewer than 4");
	del("dataset_iterator_profiling_3.txt");
	put("minddata_aicpu_3.txt", "GetNext_dequeue_wait 1 2 3\nGetNext_dequeue_wait 1 abc 3\n");
	expect_format(ms_md_read_get_next(&s, &g, &err), &err, "minddata_aicpu_3.txt:2:");
	del("minddata_aicpu_3.txt");
	put("minddata_cpu_utilization_3.json", "{\n \"time_stamp\": [1,\n x]\n}\n");
	expect_format(ms_md_read_cpu(&s, &c, &err), &err, "minddata_cpu_utilization_3.json:3:");
	assert_false(c.present);
	del("minddata_cpu_utilization_3.json");
	put("minddata_pipeline_raw_3.csv", "op_id,op_type\n");
	expect_format(ms_md_read_pipeline(&s, &p, &err), &err, "minddata_pipeline_raw_3.csv:1:");
	del("minddata_pipeline_raw_3.csv");

	/* buffers */
	t = "1 64 1 3\nabc 1 2 3\n";
	expect_format(ms_md_parse_device_queue(t, strlen(t), "f", &q, &err), &err,
		      "f:2: the record");
	t = "1 64 1 3 1e999\n";
	expect_format(ms_md_parse_device_queue(t, strlen(t), "f", &q, &err), &err, "f:1:");
	t = "GetNext 1\n";
	expect_format(ms_md_parse_get_next(t, strlen(t), "g", 0, &g, &err), &err, "g:1:");
	t = "GetNext 1 2 1.5\n";
	expect_format(ms_md_parse_get_next(t, strlen(t), "g", 0, &g, &err), &err, "g:1:");
	t = "";
	expect_format(ms_md_parse_pipeline(t, 0, "p", &p, &err), &err, "p:1: empty");
	t = PIPE_HDR "0,Batch,4,,,,,10,,[1]\n1,Shuffle,1,[1],1.0,64,0.5,10,0\n";
	expect_format(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), &err, "p:3: fewer");
	assert_int_equal(p.ops.n, 0);
	t = PIPE_HDR "\n0,Batch,4,,,,,10,,[1,\n";
	expect_format(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), &err, "p:3: children_id");
	t = PIPE_HDR "0,Batch,4,\"[1, 2],,,,,10,,[1]\n";
	expect_format(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), &err, "p:2: a malformed");
	t = PIPE_HDR "0,Batch,4,,,,,10,,,extra\n";
	expect_format(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), &err, "p:2: more than");
	t = PIPE_HDR "1.5,Batch,4,,,,,10,,\n";
	expect_format(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), &err, "p:2: op_id");
	t = PIPE_HDR "0,Batch,4,,,,,10,,[1e300]\n";
	expect_format(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), &err, "p:2: children_id");
	t = PIPE_HDR "0,Batch,4,\"[1, inf]\",,,,10,,\n";
	expect_format(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), &err,
		      "p:2: output_queue_size");
	t = PIPE_HDR "0x10,Batch,4,,,,,10,,\n";
	expect_format(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), &err, "p:2: op_id");
	t = PIPE_HDR " 0 ,Batch,4,,,,, 10,,\n";
	assert_int_equal(ms_md_parse_pipeline(t, strlen(t), "p", &p, &err), NNS_OK);
	assert_true(p.ops.n == 1 && p.ops.v[0].sample_interval == 10);
	t = "{\"device_info\": {\"idle_utilization\": \"a\"}}";
	expect_format(ms_md_parse_cpu(t, strlen(t), "c", &c, &err), &err, "c:1: a metric");
	t = "{\"op_info\": [{\"metrics\": {}}]}";
	expect_format(ms_md_parse_cpu(t, strlen(t), "c", &c, &err), &err, "c:1: an op_info");
	t = "[1, 2]";
	expect_format(ms_md_parse_cpu(t, strlen(t), "c", &c, &err), &err, "c:1: not a JSON object");
	t = "{\"a\": 1} x";
	expect_format(ms_md_parse_cpu(t, strlen(t), "c", &c, &err), &err, "c:1: text after");
	t = "{\"a\": \"unterminated}";
	expect_format(ms_md_parse_cpu(t, strlen(t), "c", &c, &err), &err, "c:1:");
	t = "{\"op_info\": 3}";
	expect_format(ms_md_parse_pipeline_workers(t, strlen(t), "w", &c, &err), &err,
		      "w:1: no op_info");
	{ /* nesting beyond the cap is an error, not a stack overflow */
		char deep[200];

		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = '\0';
		expect_format(ms_md_parse_cpu(deep, strlen(deep), "d", &c, &err), &err,
			      "d:1: nested");
	}
	ms_md_dq_release(&q);
	ms_md_gn_release(&g);
	ms_md_pipeline_release(&p);
	ms_md_cpu_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(conformance_queues),
	    cmocka_unit_test(conformance_pipeline),
	    cmocka_unit_test(conformance_threshold),
	    cmocka_unit_test(conformance_proposals),
	    cmocka_unit_test(hand_device_queue),
	    cmocka_unit_test(hand_get_next_verdicts),
	    cmocka_unit_test(hand_pipeline),
	    cmocka_unit_test_setup_teardown(hand_document, setup_dir, teardown_dir),
	    cmocka_unit_test_setup_teardown(malformed, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
