/*
 * test_ms_extra.c - the MindSpore FLOPs, by-op detail (op_info / FLOPs),
 * AICPU and dynamic-shape readers and their JSON writers
 * (src/importers/ms_flops.c, ms_opdetail.c, ms_aicpu.c, ms_dynshape.c,
 * ms_json.c, src/output/ms_extra_json.c).
 *
 * Oracles:
 *   - test_op_analyser.py OP_GATHER_V2_INFO (expected_values.json, read at
 *     run time): the AssignAdd rows of run_1 with their FLOPs columns ("-")
 *     and op_info objects;
 *   - values hand-computed from the ../shared fixtures with independent
 *     python3 one-liners (each test says which); the upstream AICPU and
 *     dynamic-shape conformance classes never ran, so they are not used;
 *   - small hand-written files (temp directories) for column mapping,
 *     absent files and malformed input (file:line errors).
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

#include "importers/ms_aicpu.h"
#include "importers/ms_dynshape.h"
#include "importers/ms_flops.h"
#include "importers/ms_json.h"
#include "importers/ms_opdetail.h"
#include "output/ms_extra_json.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------ */

/* "<shared>/data/mindinsight/<rel>" if it is a directory, else skips. */
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

struct tmpdir {
	char dir[64];
	char files[16][64];
	int n;
};

static void tmp_init(struct tmpdir *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/nns_ms_extra_XXXXXX");
	assert_non_null(mkdtemp(t->dir));
}

static void tmp_file(struct tmpdir *t, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	assert_true(t->n < 16);
	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(t->files[t->n++], sizeof(t->files[0]), "%s", name);
}

static void tmp_free(struct tmpdir *t)
{
	char path[256];
	int i;

	for (i = 0; i < t->n; i++) {
		snprintf(path, sizeof(path), "%s/%s", t->dir, t->files[i]);
		unlink(path);
	}
	rmdir(t->dir);
}

typedef void (*writer_fn)(struct jsonw *, const struct ms_profile *);

/* Runs a writer and parses its output back. */
static json_t *render(writer_fn fn, const char *dir, int dev)
{
	struct ms_src s = {.dir = dir, .dev = dev};
	struct ms_profile mp;
	struct jsonw w;
	struct nns_err err;
	json_error_t jerr;
	json_t *doc;
	size_t len;
	char *out;

	assert_int_equal(ms_profile_load(&mp, &s, &err), NNS_OK);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	fn(&w, &mp);
	ms_profile_release(&mp);
	assert_int_equal(jsonw_finish(&w, &err), NNS_OK);
	out = jsonw_take(&w, &len);
	assert_non_null(out);
	doc = json_loads(out, 0, &jerr);
	if (!doc)
		printf("bad JSON: %s\n%s\n", jerr.text, out);
	assert_non_null(doc);
	free(out);
	jsonw_release(&w);
	return doc;
}

static double jnum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	assert_true(json_is_number(v));
	return json_number_value(v);
}

static const char *jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static int jerrors(const json_t *doc)
{
	return (int)json_array_size(json_object_get(doc, "errors"));
}

/* ---- ms_json ------------------------------------------------------------ */

static void json_reader(void **state)
{
	const char *ok =
	    "{\"a\": [1, -2.5e1, true, false, null],\n \"s\": \"x\\u00e9\\ud83d\\ude00\\n\"}";
	const char *bad[] = {
	    "{\"a\": 1,\n\n \"b\": }", "[1, 2", "{\"a\" 1}", "[01x]", "\"abc", "[1] 2"};
	const unsigned bad_line[] = {3, 1, 1, 1, 1, 1};
	struct msj j;
	struct nns_err err;
	const struct msj_node *a, *x;
	char deep[200];
	size_t i;

	(void)state;
	assert_int_equal(msj_parse(&j, ok, strlen(ok), "t.json", &err), NNS_OK);
	a = msj_get(&j, msj_root(&j), "a");
	assert_non_null(a);
	assert_int_equal(a->count, 5);
	x = msj_next(&j, msj_first(&j, a));
	assert_float_equal(x->num, -25.0, 0);
	assert_int_equal(msj_next(&j, x)->type, MSJ_BOOL);
	assert_float_equal(msj_next(&j, x)->num, 1.0, 0);
	/* é = c3 a9, U+1F600 = f0 9f 98 80 */
	assert_string_equal(msj_str(&j, msj_get(&j, msj_root(&j), "s")),
			    "x\xc3\xa9\xf0\x9f\x98\x80\n");
	assert_int_equal(msj_get(&j, msj_root(&j), "s")->line, 2);
	msj_release(&j);
	assert_int_equal(msj_parse(&j, "[NaN, -Infinity]", 16, "t.json", &err), NNS_OK);
	assert_true(isnan(msj_first(&j, msj_root(&j))->num));
	assert_true(isinf(msj_next(&j, msj_first(&j, msj_root(&j)))->num));
	msj_release(&j);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[32];

		assert_int_equal(msj_parse(&j, bad[i], strlen(bad[i]), "t.json", &err),
				 NNS_EFORMAT);
		snprintf(want, sizeof(want), "t.json:%u:", bad_line[i]);
		assert_non_null(strstr(err.msg, want));
		assert_null(j.n.v);
	}
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = 0;
	assert_int_equal(msj_parse(&j, deep, strlen(deep), "d", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "nested too deep"));
}

/* ---- FLOPs -------------------------------------------------------------- */

/* profiler/ device 0. Expected (python3 json.load):
 * flops_summary_0.json = {FLOPs 8167.743, FLOPS 9868.936, FLOPS_Utilization 3.765};
 * flops_scope_0.json: 33 nodes, 34 links, max_scope_num 7, links[0] Total ->
 * Default 4655.465, last node "flatten-Flatten(Default)", the links leaving
 * "Total" sum to 8167.742; flops_0.txt (legacy FLOPs, FLOPS, FLOPS
 * utilization header): 4 ops, the first "Default/Cast-op6" 333, 333, 33. */
static void flops_fixture_dev0(void **state)
{
	char dir[1024];
	struct ms_src s = {0};
	struct ms_flops f;
	struct nns_err err;
	double total = 0;
	size_t i;
	json_t *doc, *scope;

	(void)state;
	if (!fixture("profiler", dir, sizeof(dir)))
		skip();
	s.dir = dir;
	s.dev = 0;
	assert_int_equal(ms_flops_load(&f, &s, &err), NNS_OK);
	assert_true(f.has_ops && f.has_summary && f.has_scope);
	assert_float_equal(f.sum.mflops, 8167.743, 1e-9);
	assert_float_equal(f.sum.gflops, 9868.936, 1e-9);
	assert_float_equal(f.sum.util_pct, 3.765, 1e-9);
	assert_true(isnan(f.sum.mflops_cube));
	assert_int_equal(f.scope_nodes.n, 33);
	assert_int_equal(f.links.n, 34);
	assert_int_equal(f.max_scope_num, 7);
	assert_string_equal(ms_flops_str(&f, f.links.v[0].source), "Total");
	assert_string_equal(ms_flops_str(&f, f.links.v[0].target), "Default");
	assert_float_equal(f.links.v[0].mflops, 4655.465, 1e-9);
	assert_string_equal(ms_flops_str(&f, f.scope_nodes.v[32]), "flatten-Flatten(Default)");
	for (i = 0; i < f.links.n; i++)
		if (!strcmp(ms_flops_str(&f, f.links.v[i].source), "Total"))
			total += f.links.v[i].mflops;
	assert_float_equal(total, 8167.742, 1e-6);
	assert_int_equal(f.ops.n, 4);
	assert_string_equal(ms_flops_str(&f, f.ops.v[0].name), "Default/Cast-op6");
	assert_float_equal(f.ops.v[0].mflops, 333, 0);
	assert_float_equal(f.ops.v[0].gflops, 333, 0);
	assert_float_equal(f.ops.v[0].util_pct, 33, 0);
	assert_true(isnan(f.ops.v[0].mflops_cube));
	ms_flops_release(&f);

	doc = render(out_json_ms_flops, dir, 0);
	assert_int_equal(jerrors(doc), 0);
	assert_float_equal(jnum(json_object_get(doc, "summary"), "mflops"), 8167.743, 1e-9);
	assert_float_equal(jnum(json_object_get(doc, "summary"), "utilization_percent"), 3.765,
			   1e-9);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "summary"), "cube_mflops")));
	scope = json_object_get(doc, "scope");
	assert_int_equal(json_integer_value(json_object_get(scope, "max_scope_num")), 7);
	assert_int_equal(json_array_size(json_object_get(scope, "nodes")), 33);
	assert_float_equal(jnum(json_array_get(json_object_get(scope, "links"), 0), "mflops"),
			   4655.465, 1e-9);
	assert_int_equal(json_array_size(json_object_get(doc, "ops")), 4);
	json_decref(doc);
}

/* profiler/flops_1.txt (cube/vector header, 10 ops, every value 333 / 33)
 * and run_1's flops_1.txt (legacy header, 199 ops, first
 * Default/AssignAdd-op414 333, 333, 33, last .../Adam-op202). */
static void flops_fixture_variants(void **state)
{
	char dir[1024];
	struct ms_src s = {0};
	struct ms_flops f;
	struct nns_err err;
	const struct ms_flops_op *o;

	(void)state;
	if (!fixture("profiler", dir, sizeof(dir)))
		skip();
	s.dir = dir;
	s.dev = 1;
	assert_int_equal(ms_flops_load(&f, &s, &err), NNS_OK);
	assert_true(f.has_ops && !f.has_summary && !f.has_scope);
	assert_int_equal(f.ops.n, 10);
	o = ms_flops_find(&f, "Default/network-WithLossCell/_backbone-LeNet5/fc3-Dense/MatMul-op9");
	assert_non_null(o);
	assert_int_equal(o - f.ops.v, 9);
	assert_float_equal(o->mflops_cube, 333, 0);
	assert_float_equal(o->gflops_vec, 333, 0);
	assert_float_equal(o->util_vec_pct, 33, 0);
	assert_true(isnan(o->mflops));
	assert_null(ms_flops_find(&f, "Default/MatMul-op9"));
	ms_flops_release(&f);

	if (!fixture("run_1/normal_run/profiler", dir, sizeof(dir)))
		skip();
	assert_int_equal(ms_flops_load(&f, &s, &err), NNS_OK);
	assert_int_equal(f.ops.n, 199);
	assert_string_equal(ms_flops_str(&f, f.ops.v[0].name), "Default/AssignAdd-op414");
	assert_string_equal(ms_flops_str(&f, f.ops.v[198].name),
			    "Default/network-TrainStepWrap/optimizer_d-Adam/Adam-op202");
	assert_non_null(ms_flops_find(&f, "Default/AssignAdd-op414"));
	assert_float_equal(f.ops.v[0].util_pct, 33, 0);
	ms_flops_release(&f);
}

#define FL_HDR                                                                                     \
	"full_kernel_name, GFLOPS(10^9 cube), MFLOPs(10^6 cube), extra, MFLOPs(10^6 vector)\n"

/* Columns found by name (GFLOPS before MFLOPs, an unknown column), "-" as
 * absent, a line without values skipped, and the errors. */
static void flops_hand(void **state)
{
	const char *ok = FL_HDR "A/B-op1, 2.5, 10, zz, -\r\nA/C-op2,,,,\n\nA/D-op3, 1, 2, 3, 4";
	const char *bad_hdr = "name, FLOPs\nA, 1\n";
	const char *bad_num = FL_HDR "A, 1, 2, x, 3\nB, 1, x, 0, 3\n";
	const char *bad_cols = FL_HDR "A, 1, 2, x, 3\nB, 1\n";
	struct ms_flops f;
	struct nns_err err;

	(void)state;
	ms_flops_init(&f);
	assert_int_equal(ms_flops_parse_ops(&f, ok, strlen(ok), "f.txt", &err), NNS_OK);
	assert_int_equal(f.ops.n, 2);
	assert_float_equal(f.ops.v[0].gflops_cube, 2.5, 0);
	assert_float_equal(f.ops.v[0].mflops_cube, 10, 0);
	assert_true(isnan(f.ops.v[0].mflops_vec));
	assert_float_equal(f.ops.v[1].mflops_vec, 4, 0);
	assert_int_equal(f.ops.v[1].line, 5);
	assert_null(ms_flops_find(&f, "A/C-op2"));
	assert_ptr_equal(ms_flops_find(&f, "A/D-op3"), &f.ops.v[1]);
	assert_int_equal(ms_flops_parse_ops(&f, bad_hdr, strlen(bad_hdr), "f.txt", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "f.txt:1:"));
	assert_int_equal(f.ops.n, 0);
	assert_int_equal(ms_flops_parse_ops(&f, bad_num, strlen(bad_num), "f.txt", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "f.txt:3: field 3"));
	assert_int_equal(ms_flops_parse_ops(&f, bad_cols, strlen(bad_cols), "f.txt", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "f.txt:3: 2 fields"));
	assert_int_equal(ms_flops_parse_ops(&f, "", 0, "f.txt", &err), NNS_EFORMAT);
	ms_flops_release(&f);
}

/* Summary without FLOPs: cube + vector (1 + 2 = 3 MFLOPs, 0.5 + 0.25 GFLOPS);
 * a string value and broken JSON are errors naming the line. */
static void flops_summary_hand(void **state)
{
	const char *cv = "{\"cube_FLOPs\": 1, \"vec_FLOPs\": 2,\n\"cube_FLOPS\": 0.5, "
			 "\"vec_FLOPS\": 0.25, \"FLOPS_Utilization\": 1.5}";
	const char *str = "{\"FLOPs\": 1,\n \"FLOPS\": \"2\"}";
	const char *brk = "{\"FLOPs\": 1,\n \"FLOPS\": 2,";
	const char *scope = "{\"data\": {\"nodes\": [{\"name\": \"Total\"}],\n \"links\": "
			    "[{\"source\": \"Total\", \"target\": \"x\"}]}}";
	struct ms_flops f;
	struct nns_err err;

	(void)state;
	ms_flops_init(&f);
	assert_int_equal(ms_flops_parse_summary(&f, cv, strlen(cv), "s.json", &err), NNS_OK);
	assert_float_equal(f.sum.mflops, 3, 0);
	assert_float_equal(f.sum.gflops, 0.75, 0);
	assert_float_equal(f.sum.util_pct, 1.5, 0);
	assert_int_equal(ms_flops_parse_summary(&f, str, strlen(str), "s.json", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "s.json:2: \"FLOPS\" is not a number"));
	assert_true(isnan(f.sum.mflops));
	assert_int_equal(ms_flops_parse_summary(&f, brk, strlen(brk), "s.json", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "s.json:2:"));
	assert_int_equal(ms_flops_parse_scope(&f, scope, strlen(scope), "c.json", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "c.json:2: link needs"));
	ms_flops_release(&f);
}

/* ---- by-op detail: op_info and FLOPs ----------------------------------- */

/* OP_GATHER_V2_INFO of test_op_analyser.py on run_1: every column of the
 * two AssignAdd rows (the test's kernel_type filter applied here), FLOPs
 * "-" -> null, op_info compared as JSON objects. */
static void conformance_op_detail(void **state)
{
	char dir[1024], path[1200];
	json_t *root, *entries, *e, *want = NULL, *doc, *rows, *row;
	json_error_t jerr;
	size_t i, k = 0;
	static const char *cols[] = {"op_name",
				     "kernel_name",
				     "kernel_type",
				     "avg_execution_time_us",
				     "execution_frequency",
				     "cube_mflops",
				     "cube_gflops_per_s",
				     "vector_mflops",
				     "vector_gflops_per_s",
				     "op_info"};

	(void)state;
	if (!fixture("run_1/normal_run/profiler", dir, sizeof(dir)))
		skip();
	snprintf(path, sizeof(path), "%s/conformance/mindinsight/expected_values.json",
		 tu_shared_dir());
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
			want = json_object_get(e, "value");
	}
	assert_non_null(want);
	/* the column order nnscope writes is upstream's col_name order */
	for (i = 0; i < 10; i++) {
		const char *c =
		    json_string_value(json_array_get(json_object_get(want, "col_name"), i));

		assert_non_null(c);
		if (i == 3)
			assert_string_equal(c, "avg_execution_time");
		else if (i >= 5 && i <= 8)
			assert_non_null(strstr(c, i % 2 ? "MFLOPs" : "GFLOPS"));
		else
			assert_string_equal(c, cols[i]);
	}
	want = json_object_get(want, "object");
	doc = render(out_json_ms_op_detail, dir, 1);
	assert_int_equal(jerrors(doc), 0);
	rows = json_object_get(doc, "by_op");
	assert_int_equal(json_array_size(rows), 69); /* data rows of the detail csv */
	json_array_foreach(rows, i, row)
	{
		json_t *exp;
		size_t c;

		if (strcmp(jstr(row, "kernel_type"), "AssignAdd"))
			continue;
		exp = json_array_get(want, k++);
		assert_non_null(exp);
		for (c = 0; c < 10; c++) {
			json_t *x = json_array_get(exp, c), *got = json_object_get(row, cols[c]);

			if (json_is_string(x) && !strcmp(json_string_value(x), "-"))
				assert_true(json_is_null(got));
			else if (json_is_number(x))
				assert_float_equal(json_number_value(got), json_number_value(x),
						   1e-9);
			else
				assert_true(json_equal(got, x));
		}
	}
	assert_int_equal(k, json_array_size(want));
	assert_int_equal(k, 2);
	json_decref(doc);
	json_decref(root);
}

/* profiler/ device 1: aicore detail (header full_kernel_time), the newer
 * framework_raw layout and the cube/vector flops_1.txt. Python:
 * every one of the 10 ops is in flops_1.txt (333 everywhere) and in
 * framework_raw; AtomicAddrClean-op104 0.00133 ms -> 1.33 us, op_info
 * shape "" -> [], op105 shape "10" -> [10]. */
static void op_detail_fixture_dev1(void **state)
{
	char dir[1024];
	json_t *doc, *rows, *row, *in;
	size_t i, seen = 0;

	(void)state;
	if (!fixture("profiler", dir, sizeof(dir)))
		skip();
	doc = render(out_json_ms_op_detail, dir, 1);
	assert_int_equal(jerrors(doc), 0);
	rows = json_object_get(doc, "by_op");
	assert_int_equal(json_array_size(rows), 10);
	json_array_foreach(rows, i, row)
	{
		assert_float_equal(jnum(row, "cube_mflops"), 333, 0);
		assert_float_equal(jnum(row, "vector_gflops_per_s"), 333, 0);
		assert_true(json_is_object(json_object_get(row, "op_info")));
		in = json_object_get(json_object_get(row, "op_info"), "input_0");
		if (!strcmp(jstr(row, "op_name"), "Default/AtomicAddrClean-op104")) {
			assert_float_equal(jnum(row, "avg_execution_time_us"), 1.33, 1e-9);
			assert_int_equal(json_array_size(json_object_get(in, "shape")), 0);
			assert_string_equal(jstr(in, "data_type"), "NUMBER_TYPE_FLOAT32");
			seen++;
		}
		if (!strcmp(jstr(row, "op_name"), "Default/AtomicAddrClean-op105")) {
			assert_int_equal(json_array_size(json_object_get(in, "shape")), 1);
			assert_int_equal(
			    json_integer_value(json_array_get(json_object_get(in, "shape"), 0)),
			    10);
			seen++;
		}
	}
	assert_int_equal(seen, 2);
	json_decref(doc);
}

/* Hand-made: MindSpore's 5-column flops file (cube and vector MFLOPs /
 * GFLOPS, distinct values), the old 8-column framework_raw layout, an op
 * missing from both (nulls), and a legacy flops file mapped to cube. */
static void op_detail_hand(void **state)
{
	struct tmpdir t;
	json_t *doc, *rows, *r0, *r1, *shape;

	(void)state;
	tmp_init(&t);
	tmp_file(&t, "aicore_intermediate_3_detail.csv",
		 "full_kernel_name,execution_time,execution_frequency\n"
		 "Default/MatMul-op1,0.02,2\nDefault/Add-op2,0.001,5\n");
	tmp_file(
	    &t, "framework_raw_3.csv",
	    "task_id,stream_id,block_dim,full_op_name,op_name,op_type,subgraph,op_info\n"
	    "1,2,32,Default/MatMul-op1,MatMul-op1,MatMul,Default,\"{\"\"input_0\"\": "
	    "{\"\"format\"\": \"\"NC1HWC0\"\", \"\"data_type\"\": \"\"FLOAT16\"\", "
	    "\"\"shape\"\": \"\"2, 3,4\"\"}, \"\"output_0\"\": {\"\"format\"\": \"\"F\"\"}}\"\n");
	tmp_file(&t, "flops_3.txt",
		 "op_full_name, MFLOPs(10^6 cube), GFLOPS(10^9 cube), MFLOPs(10^6 vector), "
		 "GFLOPS(10^9 vector)\nDefault/MatMul-op1, 1.5, 75, 0.25, 12.5\n");
	doc = render(out_json_ms_op_detail, t.dir, 3);
	assert_int_equal(jerrors(doc), 0);
	rows = json_object_get(doc, "by_op");
	assert_int_equal(json_array_size(rows), 2);
	r0 = json_array_get(rows, 0);
	r1 = json_array_get(rows, 1);
	assert_string_equal(jstr(r0, "kernel_type"), "MatMul");
	assert_float_equal(jnum(r0, "avg_execution_time_us"), 20, 1e-9);
	assert_float_equal(jnum(r0, "cube_mflops"), 1.5, 0);
	assert_float_equal(jnum(r0, "cube_gflops_per_s"), 75, 0);
	assert_float_equal(jnum(r0, "vector_mflops"), 0.25, 0);
	assert_float_equal(jnum(r0, "vector_gflops_per_s"), 12.5, 0);
	shape =
	    json_object_get(json_object_get(json_object_get(r0, "op_info"), "input_0"), "shape");
	assert_int_equal(json_array_size(shape), 3);
	assert_int_equal(json_integer_value(json_array_get(shape, 2)), 4);
	assert_string_equal(
	    jstr(json_object_get(json_object_get(r0, "op_info"), "input_0"), "format"), "NC1HWC0");
	assert_true(json_is_null(
	    json_object_get(json_object_get(json_object_get(r0, "op_info"), "output_0"), "shape")));
	assert_true(json_is_null(json_object_get(r1, "cube_mflops")));
	assert_true(json_is_null(json_object_get(r1, "op_info")));
	json_decref(doc);
	tmp_free(&t);

	tmp_init(&t);
	tmp_file(
	    &t, "aicore_intermediate_3_detail.csv",
	    "full_kernel_name,execution_time,execution_frequency\nDefault/MatMul-op1,0.02,2\n");
	tmp_file(&t, "flops_3.txt",
		 "full_kernel_name, FLOPs, FLOPS, FLOPS utilization\n"
		 "Default/MatMul-op1, 7, 8, 9\n");
	tmp_file(&t, "framework_raw_3.csv",
		 "task_id,stream_id,block_dim,full_op_name,op_name,op_type,subgraph,op_info\n"
		 "1,2,32,Default/MatMul-op1,MatMul-op1,MatMul,Default,\"{\"\"input_0\"\": 5}\"\n");
	doc = render(out_json_ms_op_detail, t.dir, 3);
	/* op_info is not an object of tensors: an error naming the csv line */
	assert_int_equal(jerrors(doc), 1);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "errors"), 0)),
			       "framework_raw_3.csv:2"));
	assert_int_equal(json_array_size(json_object_get(doc, "by_op")), 0);
	json_decref(doc);
	tmp_file(&t, "framework_raw_3.csv",
		 "task_id,stream_id,block_dim,full_op_name,op_name,op_type,subgraph,op_info\n");
	doc = render(out_json_ms_op_detail, t.dir, 3);
	assert_int_equal(jerrors(doc), 0);
	r0 = json_array_get(json_object_get(doc, "by_op"), 0);
	assert_float_equal(jnum(r0, "cube_mflops"), 7, 0);
	assert_float_equal(jnum(r0, "cube_gflops_per_s"), 8, 0);
	assert_true(json_is_null(json_object_get(r0, "vector_mflops")));
	json_decref(doc);
	tmp_free(&t);
}

/* ---- AICPU -------------------------------------------------------------- */

/* run_2 aicpu_intermediate_1.csv, python3 with upstream's newest
 * definitions: by type InitData 7906.0 us x1 81.56 %, GetNext 1181.0 x2
 * 12.18 %, EndOfSequence 607.0 x2 6.26 %; by op InitData 7906.0 / 150.0 x1,
 * GetNext 590.5 / 102.5 x2, EndOfSequence 303.5 / 84.5 x2; total 9.694 ms.
 * The same from output_data_preprocess_aicpu_1.txt (footer 9.694). */
static void check_run2_aicpu(const struct ms_aicpu *a)
{
	static const char *tn[] = {"InitData", "GetNext", "EndOfSequence"};
	static const double tt[] = {7906.0, 1181.0, 607.0}, tp[] = {81.56, 12.18, 6.26};
	static const double oa[] = {7906.0, 590.5, 303.5}, od[] = {150.0, 102.5, 84.5};
	static const long tf[] = {1, 2, 2};
	int i;

	assert_int_equal(a->calls.n, 5);
	assert_int_equal(a->types.n, 3);
	assert_int_equal(a->ops.n, 3);
	for (i = 0; i < 3; i++) {
		assert_string_equal(ms_aicpu_str(a, a->types.v[i].type), tn[i]);
		assert_float_equal(a->types.v[i].total_time_us, tt[i], 1e-9);
		assert_int_equal(a->types.v[i].execution_frequency, tf[i]);
		assert_float_equal(a->types.v[i].percent, tp[i], 1e-9);
		assert_string_equal(ms_aicpu_str(a, a->ops.v[i].name), tn[i]);
		assert_float_equal(a->ops.v[i].avg_execution_time_us, oa[i], 1e-9);
		assert_float_equal(a->ops.v[i].avg_dispatch_time_us, od[i], 1e-9);
		assert_int_equal(a->ops.v[i].execution_frequency, tf[i]);
	}
}

static void aicpu_fixture(void **state)
{
	char dir[1024], path[1200];
	struct ms_src s = {0};
	struct ms_aicpu a;
	struct nns_err err;
	FILE *f;
	char *buf;
	long n;
	json_t *doc;

	(void)state;
	if (!fixture("run_2/normal_run/profiler", dir, sizeof(dir)))
		skip();
	s.dir = dir;
	s.dev = 1;
	assert_int_equal(ms_aicpu_load(&a, &s, &err), NNS_OK);
	assert_int_equal(a.source, MS_AICPU_CSV);
	assert_float_equal(a.calls.v[0].exec_ms, 0.22, 1e-12);
	check_run2_aicpu(&a);
	ms_aicpu_release(&a);

	snprintf(path, sizeof(path), "%s/output_data_preprocess_aicpu_1.txt", dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	assert_int_equal(ms_aicpu_parse_txt(&a, buf, (size_t)n, path, &err), NNS_OK);
	assert_int_equal(a.source, MS_AICPU_TXT);
	assert_float_equal(a.footer_ms, 9.694, 1e-12);
	assert_true(isnan(a.calls.v[0].exec_ms));
	check_run2_aicpu(&a);
	ms_aicpu_release(&a);
	free(buf);

	doc = render(out_json_ms_aicpu, dir, 1);
	assert_int_equal(jerrors(doc), 0);
	assert_string_equal(jstr(doc, "source"), "aicpu_intermediate");
	assert_true(jnum(doc, "total_time_ms") == 9.694); /* rounded, not 9.693999999999999 */
	assert_int_equal(json_integer_value(json_object_get(doc, "calls")), 5);
	assert_float_equal(jnum(json_array_get(json_object_get(doc, "by_type"), 1), "percent"),
			   12.18, 1e-9);
	assert_float_equal(
	    jnum(json_array_get(json_object_get(doc, "by_op"), 2), "avg_dispatch_time_us"), 84.5,
	    1e-9);
	json_decref(doc);
}

/* JOB_AICPU/expect/output_data_preprocess_aicpu_0.txt (with the "----"
 * rule): 1.567 / 0.989 / 1.566 ms, total 4.122 -> InitData 1567 us
 * 38.02 %, TruncatedNormal 1566 us 37.99 %, GetNext 989 us 23.99 %. */
static void aicpu_fixture_txt(void **state)
{
	char dir[1024];
	json_t *doc, *bt;

	(void)state;
	if (!fixture("JOB_AICPU/expect", dir, sizeof(dir)))
		skip();
	doc = render(out_json_ms_aicpu, dir, 0);
	assert_int_equal(jerrors(doc), 0);
	assert_string_equal(jstr(doc, "source"), "output_data_preprocess_aicpu");
	bt = json_object_get(doc, "by_type");
	assert_int_equal(json_array_size(bt), 3);
	assert_string_equal(jstr(json_array_get(bt, 0), "kernel_type"), "InitData");
	assert_float_equal(jnum(json_array_get(bt, 0), "percent"), 38.02, 1e-9);
	assert_string_equal(jstr(json_array_get(bt, 1), "kernel_type"), "TruncatedNormal");
	assert_float_equal(jnum(json_array_get(bt, 1), "total_time_us"), 1566, 1e-9);
	assert_float_equal(jnum(json_array_get(bt, 1), "percent"), 37.99, 1e-9);
	assert_float_equal(jnum(json_array_get(bt, 2), "percent"), 23.99, 1e-9);
	assert_float_equal(jnum(doc, "total_time_ms"), 4.122, 1e-9);
	json_decref(doc);
}

/* Hand-made: two Cast kernels share the type "Cast" (0.1 + 0.3 + 0.2 ms =
 * 600 us, 3 calls, 600 / 1000 = 60 %), Cast-op1 averages (0.1 + 0.3) / 2 =
 * 200 us; the old 6-column csv; malformed rows. */
static void aicpu_hand(void **state)
{
	const char *csv = "serial_number,op_type,total_time,dispatch_time,run_start,run_end\n"
			  "1,Cast-op1,0.1,0.01,10,20\n2,Cast-op1,0.3,0.03,30,40\n"
			  "3,Cast-op2,0.2,0.02,50,60\n4,Sub,0.4,0,70,80\n";
	const char *bad_num = "serial_number,kernel_type,total_time,dispatch_time,execution_time,"
			      "run_start,run_end\n1,A,0.1,0,0,1,2\n2,B,x,0,0,1,2\n";
	const char *bad_cols = "serial_number,kernel_type,total_time,dispatch_time,execution_time,"
			       "run_start,run_end\n1,A,0.1,0,0,1\n";
	const char *bad_txt = "serial_number node_type_name total_time(ms) dispatch_time(ms) "
			      "run_start run_end\n1 A 0.5 0.1 1 2\n2 B 0.5 0.1 1\n";
	const char *huge_txt =
	    "serial_number node_type_name total_time(ms) dispatch_time(ms) "
	    "run_start run_end\n7777777777777777777777777777777777 A 0.5 0.1 1 2\n";
	struct ms_aicpu a;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_aicpu_parse_csv(&a, csv, strlen(csv), "a.csv", &err), NNS_OK);
	assert_int_equal(a.types.n, 2);
	assert_string_equal(ms_aicpu_str(&a, a.types.v[0].type), "Cast");
	assert_float_equal(a.types.v[0].total_time_us, 600, 1e-9);
	assert_int_equal(a.types.v[0].execution_frequency, 3);
	assert_float_equal(a.types.v[0].percent, 60, 1e-9);
	assert_float_equal(a.types.v[1].percent, 40, 1e-9);
	assert_int_equal(a.ops.n, 3);
	assert_string_equal(ms_aicpu_str(&a, a.ops.v[0].name), "Sub");
	assert_string_equal(ms_aicpu_str(&a, a.ops.v[1].name), "Cast-op1");
	assert_string_equal(ms_aicpu_str(&a, a.ops.v[1].type), "Cast");
	assert_float_equal(a.ops.v[1].avg_execution_time_us, 200, 1e-9);
	assert_float_equal(a.ops.v[1].avg_dispatch_time_us, 20, 1e-9);
	assert_float_equal(a.ops.v[2].avg_execution_time_us, 200, 1e-9); /* tie: file order */
	ms_aicpu_release(&a);
	assert_int_equal(ms_aicpu_parse_csv(&a, bad_num, strlen(bad_num), "a.csv", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "a.csv:3:"));
	assert_null(a.calls.v);
	assert_int_equal(ms_aicpu_parse_csv(&a, bad_cols, strlen(bad_cols), "a.csv", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "a.csv:2: 6 fields"));
	assert_int_equal(ms_aicpu_parse_csv(&a, "x,y\n", 4, "a.csv", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "a.csv:1:"));
	assert_int_equal(ms_aicpu_parse_txt(&a, bad_txt, strlen(bad_txt), "a.txt", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "a.txt:3:"));
	/* a serial beyond a long (fuzz_ms_extra: UBSan on the conversion) */
	assert_int_equal(ms_aicpu_parse_txt(&a, huge_txt, strlen(huge_txt), "a.txt", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "a.txt:2:"));
	assert_int_equal(ms_aicpu_parse_txt(&a, "hello\n", 6, "a.txt", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "a.txt:1:"));
}

/* ---- dynamic shape ------------------------------------------------------ */

/* profiler/dynamic_shape_info_0.json, python3 json.load: 19 operator rows,
 * 9 kernel rows, steps 1..9, operator types InitDataSetQueue, GetNext, Add
 * (first appearance), avg series GetNext [153.52, 80.224, 50.752, 72.768,
 * 59.936, 81.344, 67.232, 52.064, 0] calls [2,1,1,1,1,1,1,1,0], Add avg at
 * step 9 20.608; row 3 Add-op6 75.616 us shapes ["[32, 1]", "[32, 1]"];
 * the operator durations sum to 1765.856 us; one kernel type. The
 * operator_type totals equal the sums of the rows (checked in python). */
static void dynshape_fixture(void **state)
{
	static const double getnext[] = {153.52, 80.224, 50.752, 72.768, 59.936,
					 81.344, 67.232, 52.064, 0};
	static const long getnext_calls[] = {2, 1, 1, 1, 1, 1, 1, 1, 0};
	char dir[1024];
	json_t *doc, *ops, *ot, *ser, *gn, *row;
	double sum = 0;
	size_t i;

	(void)state;
	if (!fixture("profiler", dir, sizeof(dir)))
		skip();
	doc = render(out_json_ms_dynshape, dir, 0);
	assert_int_equal(jerrors(doc), 0);
	ops = json_object_get(doc, "operators");
	assert_int_equal(json_array_size(ops), 19);
	assert_int_equal(json_array_size(json_object_get(doc, "kernels")), 9);
	json_array_foreach(ops, i, row) sum += jnum(row, "duration_us");
	assert_float_equal(sum, 1765.856, 1e-6);
	row = json_array_get(ops, 2);
	assert_string_equal(jstr(row, "op_name"), "Add-op6");
	assert_string_equal(jstr(row, "op_side"), "gpu");
	assert_float_equal(jnum(row, "duration_us"), 75.616, 1e-12);
	assert_int_equal(json_array_size(json_object_get(row, "shapes")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(row, "shapes"), 1)),
			    "[32, 1]");
	ot = json_object_get(doc, "operator_types");
	assert_int_equal(json_array_size(json_object_get(ot, "steps")), 9);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(ot, "steps"), 8)), 9);
	assert_int_equal(json_array_size(json_object_get(ot, "default_types")), 3);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(ot, "default_types"), 0)),
	    "InitDataSetQueue");
	ser = json_object_get(ot, "series");
	assert_int_equal(json_array_size(ser), 3);
	gn = json_array_get(ser, 1);
	assert_string_equal(jstr(gn, "name"), "GetNext");
	for (i = 0; i < 9; i++) {
		assert_float_equal(
		    json_number_value(json_array_get(json_object_get(gn, "avg_us"), i)), getnext[i],
		    1e-9);
		assert_int_equal(
		    json_integer_value(json_array_get(json_object_get(gn, "calls"), i)),
		    getnext_calls[i]);
	}
	assert_float_equal(json_number_value(json_array_get(json_object_get(gn, "total_us"), 0)),
			   307.04, 1e-9);
	assert_float_equal(
	    json_number_value(json_array_get(json_object_get(json_array_get(ser, 2), "avg_us"), 8)),
	    20.608, 1e-9);
	ser = json_object_get(json_object_get(doc, "kernel_types"), "series");
	assert_int_equal(json_array_size(ser), 1);
	assert_string_equal(jstr(json_array_get(ser, 0), "op_full_name"),
			    "Default/network-Net/Add-op6");
	json_decref(doc);
}

static void dynshape_bad(void **state)
{
	const char *key = "{\"operator\": {\"one\": []}}";
	const char *dur = "{\"operator\": {\"1\": [\n{\"op_type\": \"A\", \"op_name\": \"A-op1\", "
			  "\"dur\": \"5\"}]}}";
	const char *ser = "{\"operator_type\": {\"1\": {\n\"A\": [1, 2]}}}";
	const char *ok =
	    "{\"kernel\": {\"2\": [{\"op_type\": \"k\", \"op_name\": \"K\", \"dur\": 1.5}]}}";
	struct ms_ds d;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_ds_parse(&d, key, strlen(key), "d.json", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "d.json:1: a step key is not an integer"));
	assert_null(strstr(err.msg, "one"));
	assert_int_equal(ms_ds_parse(&d, dur, strlen(dur), "d.json", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "d.json:2: \"dur\""));
	assert_null(d.ops.v);
	assert_int_equal(ms_ds_parse(&d, ser, strlen(ser), "d.json", &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "d.json:2: \"A\" is not [total"));
	assert_int_equal(ms_ds_parse(&d, ok, strlen(ok), "d.json", &err), NNS_OK);
	assert_int_equal(d.kernels.n, 1);
	assert_int_equal(d.kernels.v[0].step, 2); /* no "step" member: the key */
	assert_string_equal(ms_ds_str(&d, d.kernels.v[0].grid_dim), "");
	assert_int_equal(d.op_types.steps.n, 0);
	ms_ds_release(&d);
}

/* ---- absent and malformed files through the writers -------------------- */

static void writers_absent_and_malformed(void **state)
{
	struct tmpdir t;
	json_t *doc;
	const char *msg;

	(void)state;
	tmp_init(&t);
	doc = render(out_json_ms_flops, t.dir, 0);
	assert_true(json_is_null(json_object_get(doc, "summary")));
	assert_true(json_is_null(json_object_get(doc, "scope")));
	assert_int_equal(json_array_size(json_object_get(doc, "ops")), 0);
	assert_int_equal(jerrors(doc), 0);
	json_decref(doc);
	doc = render(out_json_ms_aicpu, t.dir, 0);
	assert_true(json_is_null(json_object_get(doc, "source")));
	assert_true(json_is_null(json_object_get(doc, "total_time_ms")));
	assert_int_equal(json_array_size(json_object_get(doc, "by_type")), 0);
	assert_int_equal(jerrors(doc), 0);
	json_decref(doc);
	doc = render(out_json_ms_dynshape, t.dir, 0);
	assert_true(json_is_null(json_object_get(doc, "operator_types")));
	assert_int_equal(json_array_size(json_object_get(doc, "operators")), 0);
	assert_int_equal(jerrors(doc), 0);
	json_decref(doc);
	doc = render(out_json_ms_op_detail, t.dir, 0);
	assert_int_equal(json_array_size(json_object_get(doc, "by_op")), 0);
	assert_int_equal(jerrors(doc), 0);
	json_decref(doc);

	/* a good summary, then a truncated scope: the summary stays */
	tmp_file(&t, "flops_summary_0.json",
		 "{\"FLOPs\": 2, \"FLOPS\": 4, \"FLOPS_Utilization\": 1}");
	tmp_file(&t, "flops_scope_0.json", "{\"data\": {\"nodes\": [\n{\"name\": \"Total\"}");
	doc = render(out_json_ms_flops, t.dir, 0);
	assert_float_equal(jnum(json_object_get(doc, "summary"), "gflops_per_s"), 4, 0);
	assert_true(json_is_null(json_object_get(doc, "scope")));
	assert_int_equal(jerrors(doc), 1);
	msg = json_string_value(json_array_get(json_object_get(doc, "errors"), 0));
	assert_non_null(strstr(msg, "flops_scope_0.json:2: truncated"));
	json_decref(doc);
	tmp_file(
	    &t, "aicpu_intermediate_0.csv",
	    "serial_number,kernel_type,total_time,dispatch_time,execution_time,run_start,run_end\n"
	    "1,A,0.1,0,0,1,2\n2,B,0.1,0,0,1,2,3\n");
	doc = render(out_json_ms_aicpu, t.dir, 0);
	assert_int_equal(jerrors(doc), 1);
	msg = json_string_value(json_array_get(json_object_get(doc, "errors"), 0));
	assert_non_null(strstr(msg, "aicpu_intermediate_0.csv:3:"));
	assert_int_equal(json_array_size(json_object_get(doc, "by_op")), 0);
	json_decref(doc);
	tmp_file(&t, "dynamic_shape_info_0.json", "[1, 2]");
	doc = render(out_json_ms_dynshape, t.dir, 0);
	assert_int_equal(jerrors(doc), 1);
	msg = json_string_value(json_array_get(json_object_get(doc, "errors"), 0));
	assert_non_null(strstr(msg, "dynamic_shape_info_0.json:1: not a JSON object"));
	json_decref(doc);
	tmp_free(&t);
}

/* The ms_profile keeps how each file's read went: a damaged AI Core type
 * table is named with its path, absent files are NNS_ENOTFOUND, and the
 * step trace gives rows in us, the summary and the average's graph. */
static void profile_parts(void **state)
{
	struct tmpdir t;
	struct ms_src s = {0};
	struct ms_profile mp;
	struct nns_err err;
	char want[160];

	(void)state;
	tmp_init(&t);
	tmp_file(&t, "aicore_intermediate_2_type.csv", "not,the,header\n");
	tmp_file(&t, "step_trace_raw_2_detail_time.csv",
		 "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,"
		 "fp_and_bp,tail\n"
		 "1,100,1100,1000,300,900,200,600,200\n"
		 "-,-,-,1000,-,-,200,600,200\n");
	s.dir = t.dir;
	s.dev = 2;
	assert_int_equal(ms_profile_load(&mp, &s, &err), NNS_OK);
	assert_int_equal(mp.at_part.rc, NNS_EFORMAT);
	snprintf(want, sizeof(want), "%s/aicore_intermediate_2_type.csv: ", t.dir);
	assert_memory_equal(mp.at_part.named, want, strlen(want));
	assert_int_equal(mp.at.rows.n, 0);
	assert_int_equal(mp.ad_part.rc, NNS_ENOTFOUND);
	assert_int_equal(mp.st_part.rc, NNS_OK);
	assert_int_equal(mp.steps.n, 2);
	assert_string_equal(mp.steps.v[0].name, "1");
	assert_float_equal(mp.steps.v[0].start_us, 1.0, 1e-12);
	assert_float_equal(mp.steps.v[0].fp_bp_us, 6.0, 1e-12);
	assert_float_equal(mp.steps.v[1].start_us, 0.0, 1e-12); /* "-" */
	assert_int_equal(mp.sum_rc, NNS_OK);
	assert_int_equal(mp.sum.total_steps, 1);
	assert_int_equal(mp.graph_rc, NNS_OK);
	assert_int_equal(mp.point_rc, NNS_ENOTFOUND);
	assert_int_equal(mp.flops_rc, NNS_OK);
	assert_false(mp.flops.has_summary);
	ms_profile_release(&mp);
	tmp_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(json_reader),
	    cmocka_unit_test(flops_fixture_dev0),
	    cmocka_unit_test(flops_fixture_variants),
	    cmocka_unit_test(flops_hand),
	    cmocka_unit_test(flops_summary_hand),
	    cmocka_unit_test(conformance_op_detail),
	    cmocka_unit_test(op_detail_fixture_dev1),
	    cmocka_unit_test(op_detail_hand),
	    cmocka_unit_test(aicpu_fixture),
	    cmocka_unit_test(aicpu_fixture_txt),
	    cmocka_unit_test(aicpu_hand),
	    cmocka_unit_test(dynshape_fixture),
	    cmocka_unit_test(dynshape_bad),
	    cmocka_unit_test(writers_absent_and_malformed),
	    cmocka_unit_test(profile_parts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
