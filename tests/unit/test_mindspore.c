/*
 * test_mindspore.c - the single-device MindSpore step-trace summary
 * (src/analysis/ms_steptrace.c):
 *   - MindInsight's conformance value st/func/profiler/test_analyse.py
 *     test_summary_for_step_trace on run_1 (../shared, skipped when absent);
 *   - hand-computed rows, an empty table, a zero total;
 *   - op statistics by type (src/importers/ms_aicore_type.c): every row of
 *     test_op_analyser.py test_query_aicore_type_1, read from
 *     expected_values.json at run time, and bad CSVs (truncated line,
 *     missing column, a huge field, a wrong header);
 *   - op statistics by op (src/importers/ms_aicore_detail.c): the module
 *     value OP_GATHER_V2_INFO of test_op_analyser.py (kernel_type in
 *     ["AssignAdd"], sorted by avg_execution_time descending; name columns,
 *     avg time, calls; not op_info / FLOPs) and bad CSVs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/ms_steptrace.h"
#include "importers/ms_aicore_detail.h"
#include "importers/ms_aicore_type.h"
#include "output/ms_ops_json.h"
#include "common/vec.h"
#include "importers/ms_cluster.h"
#include "testutil.h"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)len + 1);
		if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
			free(buf);
			buf = NULL;
		}
		*n = (size_t)len;
	}
	fclose(f);
	return buf;
}

static int parse(struct msc_rank *r, const char *text, struct nns_err *err)
{
	memset(r, 0, sizeof(*r));
	return msc_parse_step_trace(r, text, strlen(text), err);
}

/* Expected: conformance expected_values.json, test_summary_for_step_trace:
 * total 205.3809, interval 0.2038 (0.1%), fp+bp 118.054 (57.48%),
 * tail 87.1231 (42.42%), 322 steps. */
static void conformance_run1_summary(void **state)
{
	char path[1024];
	const char *sh = tu_shared_dir();
	struct msc_rank r;
	struct ms_st_summary s;
	struct nns_err err;
	size_t n = 0;
	char *buf;

	(void)state;
	if (!sh) {
		printf("SKIP: ../shared absent, MindInsight conformance not checked\n");
		skip();
	}
	snprintf(path, sizeof(path),
		 "%s/data/mindinsight/run_1/normal_run/profiler/step_trace_raw_1_detail_time.csv",
		 sh);
	buf = slurp(path, &n);
	if (!buf) {
		printf("SKIP: %s absent\n", path);
		skip();
	}
	memset(&r, 0, sizeof(r));
	assert_int_equal(msc_parse_step_trace(&r, buf, n, &err), NNS_OK);
	assert_int_equal(ms_st_summarise(&r, &s, &err), NNS_OK);
	assert_float_equal(s.total_ms, 205.3809, 1e-9);
	assert_float_equal(s.interval_ms, 0.2038, 1e-9);
	assert_float_equal(s.interval_pct, 0.1, 1e-9);
	assert_float_equal(s.fp_bp_ms, 118.054, 1e-9);
	assert_float_equal(s.fp_bp_pct, 57.48, 1e-9);
	assert_float_equal(s.tail_ms, 87.1231, 1e-9);
	assert_float_equal(s.tail_pct, 42.42, 1e-9);
	assert_int_equal(s.total_steps, 322);
	vec_free(&r.st);
	free(buf);
}

/* the header row of step_trace_raw_*_detail_time.csv */
#define ST_HEADER                                                                                  \
	"step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,"     \
	"tail\n"

/* Hand-computed: average row total 1 000 000 counts = 10 ms, interval
 * 250 000 = 2.5 ms (25%), fp+bp 500 000 = 5 ms (50%), tail 250 000 = 2.5 ms
 * (25%); two step rows -> 2 steps. */
static void hand_computed(void **state)
{
	const char *csv = ST_HEADER "1,0,1000000,1000000,0,0,250000,500000,250000\n"
				    "2,0,1000000,1000000,0,0,250000,500000,250000\n"
				    "-,0,1000000,1000000,0,0,250000,500000,250000\n";
	struct msc_rank r;
	struct ms_st_summary s;
	struct nns_err err;

	(void)state;
	assert_int_equal(parse(&r, csv, &err), NNS_OK);
	assert_int_equal(ms_st_summarise(&r, &s, &err), NNS_OK);
	assert_float_equal(s.total_ms, 10.0, 1e-12);
	assert_float_equal(s.interval_ms, 2.5, 1e-12);
	assert_float_equal(s.fp_bp_ms, 5.0, 1e-12);
	assert_float_equal(s.tail_ms, 2.5, 1e-12);
	assert_float_equal(s.interval_pct, 25.0, 1e-12);
	assert_float_equal(s.fp_bp_pct, 50.0, 1e-12);
	assert_float_equal(s.tail_pct, 25.0, 1e-12);
	assert_int_equal(s.total_steps, 2);
	vec_free(&r.st);
}

/* A zero total gives 0 % parts, not a division by zero. */
static void zero_total(void **state)
{
	const char *csv = ST_HEADER "-,0,0,0,0,0,0,0,0\n";
	struct msc_rank r;
	struct ms_st_summary s;
	struct nns_err err;

	(void)state;
	assert_int_equal(parse(&r, csv, &err), NNS_OK);
	assert_int_equal(ms_st_summarise(&r, &s, &err), NNS_OK);
	assert_float_equal(s.total_ms, 0.0, 0);
	assert_float_equal(s.fp_bp_pct, 0.0, 0);
	assert_int_equal(s.total_steps, 0);
	vec_free(&r.st);
}

/* No rows at all: a clear error, not a read past the table. */
static void empty_table(void **state)
{
	struct msc_rank r;
	struct ms_st_summary s;
	struct nns_err err;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(ms_st_summarise(&r, &s, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "no rows"));
	assert_int_equal(ms_st_summarise(NULL, &s, &err), NNS_EFORMAT);
}

static const char *jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* Every row of test_query_aicore_type_1's expect_result (sorted by
 * total_time descending) against aicore_intermediate_1_type.csv of run_1. */
static void conformance_aicore_type(void **state)
{
	char path[1024];
	const char *sh = tu_shared_dir();
	json_t *root, *entries, *e, *obj = NULL;
	json_error_t jerr;
	struct ms_at t;
	struct nns_err err;
	size_t n = 0, i;
	char *buf;

	(void)state;
	if (!sh) {
		printf("SKIP: ../shared absent, MindInsight conformance not checked\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/conformance/mindinsight/expected_values.json", sh);
	root = json_load_file(path, 0, &jerr);
	if (!root) {
		printf("SKIP: %s absent\n", path);
		skip();
	}
	entries = json_object_get(json_object_get(root, "st/func/profiler/test_op_analyser.py"),
				  "entries");
	json_array_foreach(entries, i, e)
	{
		if (!strcmp(jstr(e, "function"), "test_query_aicore_type_1") &&
		    !strcmp(jstr(e, "name"), "expect_result"))
			obj = json_object_get(json_object_get(e, "value"), "object");
	}
	assert_non_null(obj);
	snprintf(path, sizeof(path),
		 "%s/data/mindinsight/run_1/normal_run/profiler/aicore_intermediate_1_type.csv",
		 sh);
	buf = slurp(path, &n);
	assert_non_null(buf);
	assert_int_equal(ms_at_parse(&t, buf, n, &err), NNS_OK);
	assert_int_equal(t.rows.n, json_array_size(obj));
	assert_int_equal(t.rows.n, 24);
	for (i = 0; i < t.rows.n; i++) {
		json_t *row = json_array_get(obj, i);
		const struct ms_at_row *r = &t.rows.v[i];

		assert_string_equal(r->kernel_type, json_string_value(json_array_get(row, 0)));
		assert_float_equal(r->total_time_us, json_number_value(json_array_get(row, 1)),
				   1e-9);
		assert_int_equal(r->execution_frequency,
				 json_integer_value(json_array_get(row, 2)));
		assert_float_equal(r->total_percent, json_number_value(json_array_get(row, 3)),
				   1e-9);
		assert_float_equal(r->avg_time_us, json_number_value(json_array_get(row, 4)), 1e-9);
	}
	ms_at_release(&t);
	free(buf);
	json_decref(root);
}

#define AT_HDR "kernel_type,total_time,execution_frequency,percent\n"

/* Hand-computed: 0.5 ms over 3 calls -> 500 us, avg 166.667; 1 ms -> first. */
static void aicore_type_hand(void **state)
{
	const char *csv = AT_HDR "A,0.5,3,33.33\r\nB,1,4,66.67\n\n";
	struct ms_at t;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_at_parse(&t, csv, strlen(csv), &err), NNS_OK);
	assert_int_equal(t.rows.n, 2);
	assert_string_equal(t.rows.v[0].kernel_type, "B");
	assert_float_equal(t.rows.v[0].total_time_us, 1000.0, 1e-9);
	assert_float_equal(t.rows.v[0].avg_time_us, 250.0, 1e-9);
	assert_float_equal(t.rows.v[0].total_percent, 6667.0, 1e-9);
	assert_string_equal(t.rows.v[1].kernel_type, "A");
	assert_float_equal(t.rows.v[1].total_time_us, 500.0, 1e-9);
	assert_float_equal(t.rows.v[1].avg_time_us, 166.667, 1e-9);
	ms_at_release(&t);
}

static void aicore_type_bad(void **state)
{
	char huge[600];
	char *big;
	struct ms_at t;
	struct nns_err err;
	const char *trunc = AT_HDR "A,0.5,3,33.33\nB,1";
	const char *missing = AT_HDR "A,0.5,3\n";
	const char *hdr = "type,total_time,execution_frequency,percent\nA,1,1,1\n";

	(void)state;
	assert_int_equal(ms_at_parse(&t, trunc, strlen(trunc), &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "line 3"));
	assert_null(t.rows.v);
	assert_int_equal(ms_at_parse(&t, missing, strlen(missing), &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(ms_at_parse(&t, hdr, strlen(hdr), &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "header"));
	assert_int_equal(ms_at_parse(&t, "", 0, &err), NNS_EFORMAT);
	memset(huge, 'x', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = 0;
	big = malloc(strlen(AT_HDR) + sizeof(huge) + 16);
	assert_non_null(big);
	sprintf(big, AT_HDR "%s,1,1,1\n", huge);
	assert_int_equal(ms_at_parse(&t, big, strlen(big), &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "longer than"));
	free(big);
}

/* The writer: a hand-made summary and table come back through jansson. */
static void ms_ops_json_doc(void **state)
{
	const char *csv = AT_HDR "A,0.5,3,33.33\nB,1,4,66.67\n";
	struct ms_at t;
	struct ms_st_summary s = {10.0, 2.5, 5.0, 2.5, 25.0, 50.0, 25.0, 2};
	struct nns_err err;
	struct jsonw w;
	json_t *doc, *row;
	json_error_t jerr;
	size_t len;
	char *out;

	(void)state;
	assert_int_equal(ms_at_parse(&t, csv, strlen(csv), &err), NNS_OK);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	out_json_ms_ops(&w, &s, &t, NULL, NULL, 0);
	assert_int_equal(jsonw_finish(&w, &err), NNS_OK);
	out = jsonw_take(&w, &len);
	assert_non_null(out);
	doc = json_loads(out, 0, &jerr);
	assert_non_null(doc);
	assert_float_equal(json_number_value(json_object_get(json_object_get(doc, "step_summary"),
							     "fp_bp_percent")),
			   50.0, 1e-12);
	assert_int_equal(json_integer_value(
			     json_object_get(json_object_get(doc, "step_summary"), "total_steps")),
			 2);
	assert_int_equal(json_array_size(json_object_get(doc, "by_type")), 2);
	row = json_array_get(json_object_get(doc, "by_type"), 1);
	assert_string_equal(json_string_value(json_object_get(row, "kernel_type")), "A");
	assert_float_equal(json_number_value(json_object_get(row, "avg_time_us")), 166.667, 1e-9);
	json_decref(doc);
	free(out);
	jsonw_release(&w);
	ms_at_release(&t);
}

/* OP_GATHER_V2_INFO: the AssignAdd rows of aicore_intermediate_1_detail.csv
 * in avg_execution_time descending order. */
static void conformance_aicore_detail(void **state)
{
	char path[1024];
	const char *sh = tu_shared_dir();
	json_t *root, *entries, *e, *obj = NULL, *want;
	json_error_t jerr;
	struct ms_ad t;
	struct nns_err err;
	size_t n = 0, i, k = 0;
	char *buf;

	(void)state;
	if (!sh) {
		printf("SKIP: ../shared absent, MindInsight conformance not checked\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/conformance/mindinsight/expected_values.json", sh);
	root = json_load_file(path, 0, &jerr);
	if (!root) {
		printf("SKIP: %s absent\n", path);
		skip();
	}
	entries = json_object_get(json_object_get(root, "st/func/profiler/test_op_analyser.py"),
				  "entries");
	json_array_foreach(entries, i, e)
	{
		if (!strcmp(jstr(e, "name"), "OP_GATHER_V2_INFO"))
			obj = json_object_get(json_object_get(e, "value"), "object");
	}
	assert_non_null(obj);
	assert_int_equal(json_array_size(obj), 2);
	snprintf(path, sizeof(path),
		 "%s/data/mindinsight/run_1/normal_run/profiler/aicore_intermediate_1_detail.csv",
		 sh);
	buf = slurp(path, &n);
	assert_non_null(buf);
	assert_int_equal(ms_ad_parse(&t, buf, n, &err), NNS_OK);
	for (i = 0; i < t.rows.n; i++) {
		const struct ms_ad_row *r = &t.rows.v[i];

		if (strcmp(r->kernel_type, "AssignAdd"))
			continue;
		assert_true(k < json_array_size(obj));
		want = json_array_get(obj, k++);
		assert_string_equal(r->op_name, json_string_value(json_array_get(want, 0)));
		assert_string_equal(r->kernel_name, json_string_value(json_array_get(want, 1)));
		assert_string_equal(r->kernel_type, json_string_value(json_array_get(want, 2)));
		assert_float_equal(r->avg_execution_time_us,
				   json_number_value(json_array_get(want, 3)), 1e-9);
		assert_int_equal(r->execution_frequency,
				 json_integer_value(json_array_get(want, 4)));
	}
	assert_int_equal(k, 2);
	ms_ad_release(&t);
	free(buf);
	json_decref(root);
}

#define AD_HDR "full_kernel_name,execution_time,execution_frequency\n"

static void aicore_detail_hand_and_bad(void **state)
{
	const char *ok =
	    AD_HDR "Default/a/Conv2D-op1,0.002,2\nGrad/MatMul-op7,0.0125,4\nPlain,0.002,1\n";
	const char *trunc = AD_HDR "Default/Conv2D-op1,0.002,2\nX-op2,0.1";
	const char *extra = AD_HDR "X-op2,0.1,1,9\n";
	struct ms_ad t;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_ad_parse(&t, ok, strlen(ok), &err), NNS_OK);
	assert_int_equal(t.rows.n, 3);
	assert_string_equal(t.rows.v[0].kernel_name, "MatMul-op7");
	assert_string_equal(t.rows.v[0].kernel_type, "MatMul");
	assert_float_equal(t.rows.v[0].avg_execution_time_us, 12.5, 1e-9);
	assert_string_equal(t.rows.v[1].op_name,
			    "Default/a/Conv2D-op1"); /* tie at 2 us: file order */
	assert_string_equal(t.rows.v[1].kernel_type, "Conv2D");
	assert_string_equal(t.rows.v[2].kernel_type, "Plain");
	ms_ad_release(&t);
	assert_int_equal(ms_ad_parse(&t, trunc, strlen(trunc), &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "line 3"));
	assert_int_equal(ms_ad_parse(&t, extra, strlen(extra), &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_int_equal(ms_ad_parse(&t, "a,b\n", 4, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "header"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(conformance_run1_summary),
	    cmocka_unit_test(hand_computed),
	    cmocka_unit_test(zero_total),
	    cmocka_unit_test(empty_table),
	    cmocka_unit_test(conformance_aicore_type),
	    cmocka_unit_test(aicore_type_hand),
	    cmocka_unit_test(aicore_type_bad),
	    cmocka_unit_test(ms_ops_json_doc),
	    cmocka_unit_test(conformance_aicore_detail),
	    cmocka_unit_test(aicore_detail_hand_and_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
