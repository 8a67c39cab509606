/*
 * test_ms_parallel.c - MindSpore's parallel strategy and stage timeline
 * (Marey) readers, analyses and documents (src/importers/ms_parallel*.c,
 * src/analysis/ms_parallel*.c, src/output/ms_parallel_json.c).
 *
 * Oracles:
 *   - MindInsight's tests/st/func/profiler/parallel_strategy_result/
 *     parallel_strategy.json (the answer of test_parallel_strategy.py for
 *     ../shared/data/mindinsight/parallel_strategy): every field of its op
 *     nodes, rank_ids, metadata and the const node cst1, written here;
 *   - ascend_marey_timeline_1.json of ../shared/data/mindinsight/marey_graph
 *     (MindInsight's saved TimelineService answer): its stage_data recomputed
 *     from its maps and devices must equal the saved one;
 *   - hand-written files (temp directories) with hand-computed merges,
 *     Python str() values, alignment by the shortest AllReduce and stage
 *     aggregates (each test says how).
 * Fixture tests skip with a message when ../shared is absent.
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

#include "analysis/ms_parallel.h"
#include "importers/ms_load.h"
#include "importers/ms_parallel.h"
#include "output/ms_parallel_json.h"
#include "testutil.h"

static const char *fixture(const char *rel, char *buf, size_t n)
{
	struct stat st;

	snprintf(buf, n, "%s/data/mindinsight/%s", tu_shared_dir(), rel);
	if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
		printf("SKIP: %s absent, MindInsight fixtures not checked\n", buf);
		return NULL;
	}
	return buf;
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static json_t *par_doc(const struct ms_par *p)
{
	struct jsonw w;
	struct nns_err err;
	json_error_t jerr;
	json_t *doc;
	size_t len;
	char *out;

	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	out_json_ms_par(&w, p);
	assert_int_equal(jsonw_finish(&w, &err), NNS_OK);
	out = jsonw_take(&w, &len);
	doc = json_loads(out, 0, &jerr);
	if (!doc)
		printf("bad JSON: %s\n%s\n", jerr.text, out);
	assert_non_null(doc);
	free(out);
	jsonw_release(&w);
	return doc;
}

/* MindInsight's parallel_strategy.json (tests/st/func/profiler/
 * parallel_strategy_result), the graph of stage 0. */
static const char *const UPSTREAM =
    "{\"status\": \"finish\", \"metadata\": {\"parallel_type\": \"auto_parallel\"}, \"graphs\": "
    "{\"0\": {\"rank_ids\": [0, 1], \"op_nodes\": [{\"node_id\": \"1\", \"name\": "
    "\"Default/GetNext-op767\", \"scope\": \"Default\", \"type\": \"GetNext\", \"instance_type\": "
    "\"\", \"attr\": {\"shapes\": \"[[32, 3, 224, 224], [32]]\", \"output_num\": \"2\", "
    "\"shared_name\": \"a76a3f30-3303-11ec-8a8a-78b46a368c18\", \"types\": \"['DT_BASE_FLOAT', "
    "'DT_BASE_INT']\"}, \"input\": [], \"output_shape\": \"[[32, 3, 224, 224], [32]]\", "
    "\"output_data_type\": \"DT_TUPLE['DT_TENSOR[DT_FLOAT32]', 'DT_TENSOR[DT_INT32]']\", "
    "\"parallel_group\": [], \"parallel_shard\": [], \"parallel_group_rank\": \"\"}, {\"node_id\": "
    "\"2\", \"name\": \"Default/conv1-Conv2d/Conv2D-op2\", \"scope\": \"Default/conv1-Conv2d\", "
    "\"type\": \"Conv2D\", \"instance_type\": \"\", \"attr\": {\"pad_list\": \"[2, 3, 2, 3]\", "
    "\"group\": \"0\", \"stride\": \"[1, 1, 2, 2]\"}, \"input\": [\"1\"], \"output_shape\": [], "
    "\"output_data_type\": \"\", \"parallel_group\": [\"0\", \"1\"], \"parallel_shard\": [], "
    "\"parallel_group_rank\": \"\"}], \"const_nodes\": [{\"node_id\": \"cst1\", \"name\": "
    "\"cst1\", "
    "\"scope\": \"\", \"type\": \"Const\", \"instance_type\": \"\", \"attr\": {}, \"input\": [], "
    "\"output_shape\": [], \"output_data_type\": \"\", \"parallel_group\": [], \"parallel_shard\": "
    "[], \"parallel_group_rank\": \"\"}], \"parameter_nodes\": []}}}";

/* Every key of the upstream object equal in ours (ours may add keys). */
static void assert_covers(json_t *ours, json_t *up, const char *where)
{
	const char *k;
	json_t *v;

	json_object_foreach(up, k, v)
	{
		json_t *o = json_object_get(ours, k);

		if (!o || !json_equal(o, v)) {
			char *a = o ? json_dumps(o, JSON_COMPACT) : NULL,
			     *b = json_dumps(v, JSON_COMPACT);

			printf("%s.%s: ours %s, MindInsight %s\n", where, k, a ? a : "(none)", b);
			free(a);
			free(b);
			fail();
		}
	}
}

static void upstream_parallel_strategy(void **state)
{
	char dir[512];
	struct ms_src src = {0};
	struct ms_par p;
	json_t *doc, *up, *g, *ug;

	(void)state;
	if (!fixture("parallel_strategy", dir, sizeof(dir))) {
		skip();
		return;
	}
	src.dir = dir;
	src.dev = 0;
	src.root = NULL;
	ms_par_load(&p, &src);
	assert_int_equal(p.rc, NNS_OK);
	doc = par_doc(&p);
	ms_par_release(&p);
	up = json_loads(UPSTREAM, 0, NULL);
	assert_non_null(up);
	assert_string_equal(json_string_value(json_object_get(doc, "status")), "finish");
	assert_true(json_equal(json_object_get(doc, "metadata"), json_object_get(up, "metadata")));
	g = json_object_get(json_object_get(doc, "graphs"), "0");
	ug = json_object_get(json_object_get(up, "graphs"), "0");
	assert_non_null(g);
	assert_int_equal(json_object_size(json_object_get(doc, "graphs")), 1);
	assert_true(json_equal(json_object_get(g, "rank_ids"), json_object_get(ug, "rank_ids")));
	assert_int_equal(json_array_size(json_object_get(g, "op_nodes")), 2);
	for (size_t i = 0; i < 2; i++)
		assert_covers(json_array_get(json_object_get(g, "op_nodes"), i),
			      json_array_get(json_object_get(ug, "op_nodes"), i), "op_nodes");
	/* cst1 as upstream; then conv1.weight, which graph.py shows as a
	 * Const (the saved answer predates that: docs/MINDSPORE.md) */
	assert_covers(json_array_get(json_object_get(g, "const_nodes"), 0),
		      json_array_get(json_object_get(ug, "const_nodes"), 0), "const_nodes");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(g, "const_nodes"), 1), "name")),
			    "conv1.weight");
	assert_int_equal(json_array_size(json_object_get(g, "parameter_nodes")), 0);
	/* nnscope's strategy: gen_strategy of Conv2D-op2 */
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(g, "op_nodes"), 1), "strategy")),
			    "[[2, 1, 1, 1], [1, 1, 1, 1]]");
	json_decref(up);
	json_decref(doc);
}

#define V_INT(x) "{\"dtype\":\"DT_INT64\",\"intVal\":\"" x "\"}"
#define V_STR(x) "{\"dtype\":\"DT_STRING\",\"strVal\":\"" x "\"}"

static const char *hand_rank(char *buf, size_t n, int rank, const char *group)
{
	snprintf(
	    buf, n,
	    "{\"config\":{\"rankId\":%d,\"stageId\":0,\"parallelType\":\"data_parallel\"},"
	    "\"graph\":{\"node\":["
	    "{\"name\":\"1\",\"opType\":\"Load\",\"scope\":\"Default\",\"fullName\":"
	    "\"Default/Load-op9\",\"instanceName\":\"grad_mirror_x\",\"attribute\":["
	    "{\"name\":\"in_strategy\",\"value\":{\"dtype\":\"DT_TUPLE\",\"values\":[{\"dtype\":"
	    "\"DT_TUPLE\",\"values\":[" V_INT("4") "," V_INT(
		"1") "]}]}},"
		     "{\"name\":\"group\",\"value\":" V_STR(
			 "%s") "},"
			       "{\"name\":\"group_ranks\",\"value\":" V_STR(
				   "0-1") "}]},"
					  "{\"name\":\"2\",\"opType\":\"MatMul\",\"scope\":"
					  "\"Default/net\",\"fullName\":"
					  "\"Default/net/"
					  "MatMul-op2\",\"instanceName\":\"redistribution_op\","
					  "\"input\":[{\"name\":\"1\"},{\"name\":\"cstA\"},{"
					  "\"name\":\"w\"},{\"name\":\"9\"}],"
					  "\"outputType\":{\"dataType\":\"DT_TENSOR\","
					  "\"tensorType\":{\"elemType\":\"DT_FLOAT16\","
					  "\"shape\":{\"dim\":[{\"size\":\"8\"},{\"size\":\"4\"}]}}"
					  "},"
					  "\"attribute\":[{\"name\":\"transpose_a\",\"value\":{"
					  "\"dtype\":\"DT_BOOL\",\"boolVal\":"
					  "\"0\"}},{\"name\":\"alpha\",\"value\":{\"dtype\":\"DT_"
					  "FLOAT32\",\"floatVal\":0.5}},"
					  "{\"name\":\"pads\",\"value\":{\"dtype\":\"DT_LIST\","
					  "\"values\":[" V_STR("a") "," V_INT(
					      "2") "]}}]},"
						   "{\"name\":\"4\",\"opType\":\"Mul\",\"scope\":"
						   "\"Default\"},"
						   "{\"name\":\"3\",\"opType\":\"Add\",\"scope\":"
						   "\"Default\",\"fullName\":"
						   "\"Default/Add-op3[:scalar]\"}],"
						   "\"parameters\":[{\"name\":\"w\"}],"
						   "\"constVals\":[{\"key\":\"cstA\"}]}}",
	    rank, group);
	return buf;
}

/* Hand-computed: data_parallel without stageDevices puts every rank in
 * stage 0; Load named "<scope>/Load-op<name>", a summary node likewise, a
 * node without fullName skipped (Add is topo 3); inputs: op 1 -> "1",
 * cstA and the parameter w kept, 9 dropped; parallel_group the sorted union
 * of the ranks' groups; Python str() of bool / float / list values. */
static void hand_parallel_strategy(void **state)
{
	char tmpl[] = "/tmp/nns_mspar_XXXXXX", buf[4096];
	char *dir = mkdtemp(tmpl);
	struct ms_src src = {0};
	struct ms_par p;
	json_t *doc, *g, *ops, *load, *mm, *add;

	(void)state;
	assert_non_null(dir);
	put_file(dir, "parallel_strategy_1.json", hand_rank(buf, sizeof(buf), 1, "g1"));
	put_file(dir, "parallel_strategy_0.json", hand_rank(buf, sizeof(buf), 0, "g0"));
	put_file(dir, "parallel_strategy_2.json", "{\"config\":\n[");
	src.dir = dir;
	src.dev = 0;
	src.root = NULL;
	ms_par_load(&p, &src);
	assert_int_equal(p.rc, NNS_OK);
	doc = par_doc(&p);
	ms_par_release(&p);
	/* the damaged rank is named, the others kept */
	assert_int_equal(json_array_size(json_object_get(doc, "errors")), 1);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "errors"), 0)),
			       "parallel_strategy_2.json:"));
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(doc, "metadata"), "parallel_type")),
	    "data_parallel");
	g = json_object_get(json_object_get(doc, "graphs"), "0");
	assert_non_null(g);
	assert_int_equal(json_array_size(json_object_get(g, "rank_ids")), 2);
	ops = json_object_get(g, "op_nodes");
	assert_int_equal(json_array_size(ops), 3);
	load = json_array_get(ops, 0);
	mm = json_array_get(ops, 1);
	add = json_array_get(ops, 2);
	assert_string_equal(json_string_value(json_object_get(load, "name")), "Default/Load-op1");
	assert_string_equal(json_string_value(json_object_get(load, "instance_type")),
			    "GradientAggregation");
	assert_string_equal(json_string_value(json_object_get(load, "parallel_shard")), "[[4, 1]]");
	assert_string_equal(json_string_value(json_object_get(load, "strategy")), "[[4, 1]]");
	assert_string_equal(json_string_value(json_object_get(load, "parallel_group_rank")), "0-1");
	assert_int_equal(json_array_size(json_object_get(load, "parallel_group")), 2);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(load, "parallel_group"), 0)), "g0");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(load, "parallel_group"), 1)), "g1");
	assert_string_equal(json_string_value(json_object_get(mm, "instance_type")),
			    "Redistribution");
	assert_int_equal(json_array_size(json_object_get(mm, "input")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(mm, "input"), 0)),
			    "1");
	assert_string_equal(json_string_value(json_array_get(json_object_get(mm, "input"), 1)),
			    "cstA");
	assert_string_equal(json_string_value(json_array_get(json_object_get(mm, "input"), 2)),
			    "w");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(mm, "attr"), "transpose_a")),
	    "False");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(mm, "attr"), "alpha")), "0.5");
	assert_string_equal(json_string_value(json_object_get(json_object_get(mm, "attr"), "pads")),
			    "['a', 2]");
	assert_string_equal(json_string_value(json_object_get(mm, "output_data_type")),
			    "DT_TENSOR[DT_FLOAT16]");
	assert_int_equal(json_array_size(json_object_get(mm, "output_shape")), 2);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(mm, "output_shape"), 0)), "8");
	assert_int_equal(json_array_size(json_object_get(mm, "parallel_group")), 0);
	assert_true(json_is_null(json_object_get(mm, "strategy")));
	assert_string_equal(json_string_value(json_object_get(add, "node_id")), "3");
	assert_string_equal(json_string_value(json_object_get(add, "name")), "Default/Add-op3");
	assert_int_equal(json_array_size(json_object_get(g, "const_nodes")), 2);
	json_decref(doc);
	rm_dir(dir);
}

static void discovery_names(void **state)
{
	int dev = -1, prio = -1;

	(void)state;
	assert_true(ms_match_file("parallel_strategy_3.json", &dev, &prio));
	assert_int_equal(dev, 3);
	assert_int_equal(prio, 2);
	assert_true(ms_match_file("ascend_marey_timeline_7.json", &dev, &prio));
	assert_int_equal(dev, 0); /* a step, not a device */
	assert_true(ms_match_file("scope_map_1.json", &dev, &prio));
	assert_true(ms_match_file("profiler_info_1.json", &dev, &prio));
	assert_int_equal(dev, 1);
	assert_false(ms_match_file("parallel_strategy.json", &dev, &prio));
	assert_false(ms_match_file("parallel_strategy_x.json", &dev, &prio));
}

/* The saved answer's stage_data is the aggregate of its own maps. */
static void marey_fixture(void **state)
{
	char dir[512];
	struct ms_src src = {0};
	struct ms_marey m;
	struct nns_err err;
	size_t total = 0;

	(void)state;
	if (!fixture("marey_graph", dir, sizeof(dir))) {
		skip();
		return;
	}
	src.dir = dir;
	src.dev = 0;
	src.root = NULL;
	nns_err_clear(&err);
	assert_int_equal(ms_marey_load(&src, NULL, &m, &err), NNS_OK);
	assert_string_equal(m.source, "file");
	assert_int_equal(m.step, 1);
	assert_int_equal(m.maps.n, 4);
	assert_int_equal(m.maps.v[0].ops.n, 2934); /* python: len(maps['device0']) */
	assert_int_equal(m.stages.n, 2);
	assert_int_equal(m.scopes.n, 6571);
	assert_true(m.has_min);
	assert_true(fabs(m.min_t - 174248391.0599351) < 1e-6);
	assert_true(fabs(m.max_t - 183950097.4199388) < 1e-6);
	{
		struct ms_marey_agg *saved[2];
		size_t n[2];

		for (int s = 0; s < 2; s++) {
			n[s] = m.stages.v[s].data.n;
			saved[s] = malloc(n[s] * sizeof(**saved));
			memcpy(saved[s], m.stages.v[s].data.v, n[s] * sizeof(**saved));
			for (size_t k = 0; k < n[s]; k++)
				saved[s][k].name = strdup(saved[s][k].name);
		}
		assert_int_equal(n[0], 2937);
		assert_int_equal(n[1], 3760);
		assert_int_equal(ms_marey_aggregate(&m, &err), NNS_OK);
		for (int s = 0; s < 2; s++) {
			assert_int_equal(m.stages.v[s].data.n, n[s]);
			for (size_t k = 0; k < n[s]; k++) {
				const struct ms_marey_agg *a = &m.stages.v[s].data.v[k],
							  *b = &saved[s][k];

				assert_string_equal(a->name, b->name);
				assert_int_equal(a->n, b->n);
				assert_true(fabs(a->st_max - b->st_max) < 1e-6);
				assert_true(fabs(a->st_min - b->st_min) < 1e-6);
				assert_true(fabs(a->st_avg - b->st_avg) < 1e-6);
				assert_true(fabs(a->ed_max - b->ed_max) < 1e-6);
				assert_true(fabs(a->ed_min - b->ed_min) < 1e-6);
				assert_true(fabs(a->ed_avg - b->ed_avg) < 1e-6);
				total++;
				free(saved[s][k].name);
			}
			free(saved[s]);
		}
	}
	assert_int_equal(total, 2937 + 3760);
	ms_marey_release(&m);
}

static const struct ms_marey_agg *agg(const struct ms_marey_stage *s, const char *name)
{
	for (size_t i = 0; i < s->data.n; i++)
		if (!strcmp(s->data.v[i].name, name))
			return &s->data.v[i];
	return NULL;
}

/* Hand-computed: device 1 shares device 0's shortest AllReduce of step 1
 * (AllReduce-op5, 5 us; AllReduce-op6 is 20 us) and is shifted by
 * 130 - 1128 = -998 us; device 2 has none and is a stage alone. Step 1 of
 * device 0 is [100, 200): MatMul 110-120, AllReduce-op5 130-135,
 * AllReduce-op6 150-170, AtomicAddrClean filtered out, and Add-op2 at
 * 210-215 kept by upstream's second condition as written ("dur <
 * step_start < ts + dur": 5 < 100 < 215); device 1 (step [102, 202) after
 * the shift): MatMul 114-126, AllReduce-op5 130-135; device 2: Conv 50-60.
 * minT 50, maxT 215; stage0 MatMul st max/min/avg 114/110/112, ed
 * 126/120/123, n 2. */
static void marey_hand(void **state)
{
	char tmpl[] = "/tmp/nns_msmarey_XXXXXX";
	char *dir = mkdtemp(tmpl);
	struct ms_src src = {0};
	struct ms_marey m;
	struct nns_err err;
	const struct ms_marey_agg *a;

	(void)state;
	assert_non_null(dir);
	put_file(
	    dir, "ascend_timeline_display_0.json",
	    "[{\"name\":\"1\",\"ph\":\"X\",\"pid\":3,\"tid\":\"Steps\",\"ts\":100,\"dur\":100},"
	    "{\"name\":\"MatMul-op1\",\"ph\":\"X\",\"pid\":1,\"tid\":\"5\",\"ts\":110,\"dur\":10},"
	    "{\"name\":\"AtomicAddrClean-op9\",\"pid\":1,\"tid\":\"5\",\"ts\":120,\"dur\":1},"
	    "{\"name\":\"AllReduce-op5\",\"pid\":10000,\"tid\":\"7\",\"ts\":130,\"dur\":5},"
	    "{\"name\":\"AllReduce-op6\",\"pid\":10000,\"tid\":\"7\",\"ts\":150,\"dur\":20},"
	    "{\"name\":\"Add-op2\",\"pid\":1,\"tid\":\"5\",\"ts\":210,\"dur\":5}]");
	put_file(
	    dir, "ascend_timeline_display_1.json",
	    "[{\"name\":\"1\",\"ph\":\"X\",\"pid\":3,\"tid\":\"Steps\",\"ts\":1100,\"dur\":100},"
	    "{\"name\":\"MatMul-op1\",\"pid\":1,\"tid\":\"5\",\"ts\":1112,\"dur\":12},"
	    "{\"name\":\"AllReduce-op5\",\"pid\":10000,\"tid\":\"7\",\"ts\":1128,\"dur\":5}]");
	put_file(dir, "ascend_timeline_display_2.json",
		 "[{\"name\":\"1\",\"ph\":\"X\",\"pid\":3,\"tid\":\"Steps\",\"ts\":40,\"dur\":100},"
		 "{\"name\":\"Conv-op3\",\"pid\":1,\"tid\":\"5\",\"ts\":50,\"dur\":10}]");
	src.dir = dir;
	src.dev = 0;
	src.root = NULL;
	nns_err_clear(&err);
	assert_int_equal(ms_marey_load(&src, NULL, &m, &err), NNS_OK);
	assert_string_equal(m.source, "timelines");
	assert_int_equal(m.maps.n, 3);
	assert_int_equal(m.maps.v[0].ops.n, 4);
	assert_int_equal(m.maps.v[1].ops.n, 2);
	assert_true(fabs(m.maps.v[1].ops.v[0].st - 114) < 1e-9);
	assert_true(fabs(m.maps.v[1].ops.v[0].ed - 126) < 1e-9);
	assert_true(fabs(m.min_t - 50) < 1e-9);
	assert_true(fabs(m.max_t - 215) < 1e-9);
	assert_int_equal(m.stages.n, 2);
	assert_string_equal(m.stages.v[0].name, "stage0");
	assert_int_equal(m.stages.v[0].devices.n, 2);
	assert_string_equal(m.stages.v[0].devices.v[1], "device1");
	assert_int_equal(m.stages.v[1].devices.n, 1);
	assert_string_equal(m.stages.v[1].devices.v[0], "device2");
	a = agg(&m.stages.v[0], "MatMul-op1");
	assert_non_null(a);
	assert_int_equal(a->n, 2);
	assert_true(fabs(a->st_max - 114) < 1e-9 && fabs(a->st_min - 110) < 1e-9 &&
		    fabs(a->st_avg - 112) < 1e-9);
	assert_true(fabs(a->ed_max - 126) < 1e-9 && fabs(a->ed_min - 120) < 1e-9 &&
		    fabs(a->ed_avg - 123) < 1e-9);
	a = agg(&m.stages.v[0], "AllReduce-op6");
	assert_non_null(a);
	assert_int_equal(a->n, 1);
	assert_null(agg(&m.stages.v[0], "AtomicAddrClean-op9"));
	assert_int_equal(agg(&m.stages.v[0], "Add-op2")->n, 1);
	assert_non_null(agg(&m.stages.v[1], "Conv-op3"));
	ms_marey_release(&m);
	/* neither timelines nor a saved answer */
	rm_dir(dir);
	assert_non_null(mkdtemp(strcpy(tmpl, "/tmp/nns_msmarey_XXXXXX")));
	src.dir = tmpl;
	assert_int_equal(ms_marey_load(&src, NULL, &m, &err), NNS_ENOTFOUND);
	put_file(tmpl, "ascend_marey_timeline_2.json", "{\"maps\": [1, 2]}");
	assert_int_equal(ms_marey_load(&src, NULL, &m, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "ascend_marey_timeline_2.json:1:"));
	rm_dir(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(upstream_parallel_strategy),
	    cmocka_unit_test(hand_parallel_strategy),
	    cmocka_unit_test(discovery_names),
	    cmocka_unit_test(marey_fixture),
	    cmocka_unit_test(marey_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
