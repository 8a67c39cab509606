/*
 * test_no_echo.c - no importer message quotes the input (issue 20: an
 * error shown for a file outside the logdir, /etc/passwd say, must not
 * show its content). Every reader (Kineto JSON and .gz, host_info CSV,
 * every MindSpore reader, the cluster readers, run discovery, .nnst) gets
 * seed inputs in which a canary replaces each word or number in turn, is
 * put at line starts, replaces punctuation, and cuts the input short; no
 * error message, skipped-event reason or note may contain any part of it.
 * The MindSpore seeds are the MindInsight fixtures (skipped when absent).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/buf.h"
#include "format/nnst.h"
#include "importers/hostinfo.h"
#include "importers/kineto.h"
#include "importers/ms_aicore_detail.h"
#include "importers/ms_aicore_type.h"
#include "importers/ms_aicpu.h"
#include "importers/ms_cluster.h"
#include "importers/ms_dynshape.h"
#include "importers/ms_flops.h"
#include "importers/ms_json.h"
#include "importers/ms_minddata.h"
#include "importers/ms_opdetail.h"
#include "importers/ms_st_table.h"
#include "importers/nnst.h"
#include "importers/run.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CANARY "QZXVJ"
#define NCANARY "7319853"

/* Parts of the canaries a message could show: 3-letter pieces, the first
 * letter quoted, the digits (also as %g would print them). */
static const char *const pieces[] = {"QZX",    "ZXV",	 "XVJ",	   "'Q'",  "\"Q\"", "(Q)",
				     "731985", "319853", "7.3198", "0x51", "31985", NULL};

static size_t checked; /* messages looked at */

static void check(const char *what, const char *msg, const char *in, size_t n)
{
	checked++;
	for (int i = 0; pieces[i]; i++)
		if (msg && strstr(msg, pieces[i]))
			fail_msg("%s: the message quotes the input (\"%s\"):\n  %s\ninput: %.*s",
				 what, pieces[i], msg, (int)(n > 300 ? 300 : n), in);
}

/* ---- the readers ------------------------------------------------------------- */

enum {
	P_KINETO,
	P_KINETO_GZ,
	P_HOSTINFO,
	P_MSJ,
	P_FLOPS_OPS,
	P_FLOPS_SUM,
	P_FLOPS_SCOPE,
	P_FW,
	P_AICPU_CSV,
	P_AICPU_TXT,
	P_DS,
	P_MD_DQ,
	P_MD_GN,
	P_MD_PL,
	P_MD_CPU,
	P_MD_WORKERS,
	P_AD,
	P_AT,
	P_ST,
	P_MSC_ST,
	P_MSC_CL,
	P_MSC_HCCL,
	P_MSC_FLOPS,
};

static const char *const pname[] = {
    "kineto",		"kineto .gz",	 "host_info",	  "ms json",	"flops ops",
    "flops summary",	"flops scope",	 "framework",	  "aicpu csv",	"aicpu txt",
    "dynamic shape",	"device queue",	 "get next",	  "pipeline",	"minddata cpu",
    "pipeline workers", "aicore detail", "aicore type",	  "step trace", "cluster step trace",
    "cluster csv",	"hccl",		 "cluster flops",
};

static void check_model(const char *what, const struct model *m, const char *in, size_t n)
{
	check(what, m->diag.first_problem, in, n);
	check(what, m->diag.first_note, in, n);
}

static void run_kineto(int gz, const char *buf, size_t n)
{
	struct kineto_opts o = {.threads = 1};
	struct nns_err err;
	struct model m;
	uLongf zn = compressBound((uLong)n) + 64;
	unsigned char *z = NULL;
	int rc;

	if (gz) { /* a gzip stream of buf, cut in the middle every other time */
		z_stream s;

		z = malloc(zn);
		assert_non_null(z);
		memset(&s, 0, sizeof(s));
		assert_int_equal(deflateInit2(&s, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY),
				 Z_OK);
		s.next_in = (Bytef *)buf;
		s.avail_in = (uInt)n;
		s.next_out = z;
		s.avail_out = (uInt)zn;
		assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
		zn = s.total_out;
		deflateEnd(&s);
		if (n & 1)
			zn = zn / 2 + 1;
		buf = (const char *)z;
		n = zn;
	}
	assert_int_equal(model_init(&m), NNS_OK);
	nns_err_clear(&err);
	rc = kineto_load_buffer(buf, n, "t.json", &m, &o, &err);
	if (rc)
		check(pname[gz ? P_KINETO_GZ : P_KINETO], err.msg, buf, n);
	check_model(pname[P_KINETO], &m, buf, n);
	model_release(&m);
	free(z);
}

static const char cpu_ok[] = "{\"time_stamp\": [5, 10, 15, 25], \"device_info\": "
			     "{\"idle_utilization\": [1, 2, 3, 4]}, \"op_info\": [{\"op_id\": 1, "
			     "\"metrics\": {\"user_utilization\": [1, 2]}}]}";

static void run_ms(int id, const char *buf, size_t n, struct nns_err *err)
{
	switch (id) {
	case P_MSJ: {
		struct msj j;

		if (msj_parse(&j, buf, n, "f", err) == NNS_OK)
			msj_release(&j);
		break;
	}
	case P_FLOPS_OPS:
	case P_FLOPS_SUM:
	case P_FLOPS_SCOPE: {
		struct ms_flops f;

		ms_flops_init(&f);
		if (id == P_FLOPS_OPS)
			ms_flops_parse_ops(&f, buf, n, "f", err);
		else if (id == P_FLOPS_SUM)
			ms_flops_parse_summary(&f, buf, n, "f", err);
		else
			ms_flops_parse_scope(&f, buf, n, "f", err);
		ms_flops_release(&f);
		break;
	}
	case P_FW: {
		struct ms_fw fw;

		if (ms_fw_parse(&fw, buf, n, "f", err) == NNS_OK)
			ms_fw_release(&fw);
		break;
	}
	case P_AICPU_CSV:
	case P_AICPU_TXT: {
		struct ms_aicpu a;

		if (id == P_AICPU_CSV)
			ms_aicpu_parse_csv(&a, buf, n, "f", err);
		else
			ms_aicpu_parse_txt(&a, buf, n, "f", err);
		ms_aicpu_release(&a);
		break;
	}
	case P_DS: {
		struct ms_ds d;

		if (ms_ds_parse(&d, buf, n, "f", err) == NNS_OK)
			ms_ds_release(&d);
		break;
	}
	case P_MD_DQ: {
		struct ms_md_dq q;

		memset(&q, 0, sizeof(q));
		ms_md_parse_device_queue(buf, n, "f", &q, err);
		ms_md_dq_release(&q);
		break;
	}
	case P_MD_GN: {
		struct ms_md_gn g;

		memset(&g, 0, sizeof(g));
		ms_md_parse_get_next(buf, n, "f", 0, &g, err);
		ms_md_gn_release(&g);
		break;
	}
	case P_MD_PL: {
		struct ms_md_pipeline p;

		memset(&p, 0, sizeof(p));
		ms_md_parse_pipeline(buf, n, "f", &p, err);
		ms_md_pipeline_release(&p);
		break;
	}
	case P_MD_CPU:
	case P_MD_WORKERS: {
		struct ms_md_cpu c;

		memset(&c, 0, sizeof(c));
		if (id == P_MD_CPU) {
			ms_md_parse_cpu(buf, n, "f", &c, err);
		} else if (ms_md_parse_cpu(cpu_ok, strlen(cpu_ok), "f", &c, err) == NNS_OK) {
			c.present = 1;
			ms_md_parse_pipeline_workers(buf, n, "f", &c, err);
		}
		ms_md_cpu_release(&c);
		break;
	}
	case P_AD: {
		struct ms_ad t;

		memset(&t, 0, sizeof(t));
		ms_ad_parse(&t, buf, n, err);
		ms_ad_release(&t);
		break;
	}
	case P_AT: {
		struct ms_at t;

		memset(&t, 0, sizeof(t));
		ms_at_parse(&t, buf, n, err);
		ms_at_release(&t);
		break;
	}
	case P_ST: {
		struct ms_st_table t;

		memset(&t, 0, sizeof(t));
		ms_st_table_parse(&t, buf, n, "f", err);
		ms_st_table_release(&t);
		break;
	}
	default: {
		struct msc_rank r;

		memset(&r, 0, sizeof(r));
		if (id == P_MSC_ST)
			msc_parse_step_trace(&r, buf, n, err);
		else if (id == P_MSC_CL)
			msc_parse_cluster_csv(&r, buf, n, err);
		else if (id == P_MSC_HCCL)
			msc_parse_hccl(&r, buf, n, err);
		else
			msc_parse_flops(&r, buf, n, err);
		check(pname[id], r.problem, buf, n);
		vec_free(&r.st);
		vec_free(&r.cl);
		vec_free(&r.links);
		vec_free(&r.ops);
		break;
	}
	}
}

static void run_one(int id, const char *buf, size_t n)
{
	struct nns_err err;

	if (id == P_KINETO || id == P_KINETO_GZ) {
		run_kineto(id == P_KINETO_GZ, buf, n);
		return;
	}
	nns_err_clear(&err);
	if (id == P_HOSTINFO) {
		struct model m;

		assert_int_equal(model_init(&m), NNS_OK);
		hostinfo_load_buffer(buf, n, "h.csv", &m, -1, &err);
		check_model(pname[id], &m, buf, n);
		model_release(&m);
	} else {
		run_ms(id, buf, n, &err);
	}
	check(pname[id], err.msg, buf, n);
}

/* ---- the mutations ------------------------------------------------------------ */

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-' || c == '#';
}

/* seed[0..at) + ins + seed[at + del..n), cut to `keep` bytes when > 0. */
static void run_spliced(int id, const char *seed, size_t n, size_t at, size_t del, const char *ins,
			size_t keep)
{
	struct buf b = {0};

	assert_int_equal(buf_append(&b, seed, at), 0);
	assert_int_equal(buf_append(&b, ins, strlen(ins)), 0);
	assert_int_equal(buf_append(&b, seed + at + del, n - at - del), 0);
	run_one(id, b.p, keep && keep < b.len ? keep : b.len);
	buf_free(&b);
}

/* Every word (the first 150, then every 7th) replaced by each canary, the
 * input cut right after some of them, the canary at line starts, and the
 * first 100 punctuation marks replaced by its first letter. */
static void mutate(int id, const char *seed, size_t n)
{
	size_t i = 0, words = 0, lines = 0, punct = 0;

	run_one(id, seed, n);
	while (i < n) {
		size_t s = i;

		if (!is_word(seed[i])) {
			if (strchr("{}[],:\"", seed[i]) && punct++ < 100)
				run_spliced(id, seed, n, i, 1, "Q", 0);
			if (seed[i] == '\n' && lines++ < 40)
				run_spliced(id, seed, n, i + 1, 0, CANARY ",", 0);
			i++;
			continue;
		}
		while (i < n && is_word(seed[i]))
			i++;
		if (words < 150 || words % 7 == 0) {
			run_spliced(id, seed, n, s, i - s, CANARY, 0);
			run_spliced(id, seed, n, s, i - s, NCANARY, 0);
			if (words % 5 == 0)
				run_spliced(id, seed, n, s, i - s, CANARY, s + strlen(CANARY));
		}
		words++;
	}
}

/* ---- seeds ------------------------------------------------------------------- */

static const char kineto_seed[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU0\", "
    "\"numSms\": 80}],\n"
    " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 10.5, \"dur\": 4, \"args\": {\"External id\": 3, \"Input Dims\": [[2, 3]], "
    "\"Call stack\": \"a.py(1): f\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 12, \"dur\": 2, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9, "
    "\"grid\": [1, 1, 1]}},\n"
    "  {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, \"ts\": 13, "
    "\"args\": {\"Bytes\": 512, \"Total Allocated\": 1024}},\n"
    "  {\"ph\": \"s\", \"id\": 9, \"pid\": 1, \"tid\": 2, \"ts\": 11, \"cat\": \"ac2g\", "
    "\"name\": \"f\"},\n"
    "  {\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"tid\": 2, \"ts\": 14, \"args\": "
    "{\"v\": 1}},\n"
    "  {\"ph\": \"B\", \"name\": \"r\", \"pid\": 1, \"tid\": 2, \"ts\": 15},\n"
    "  {\"ph\": \"E\", \"name\": \"r\", \"pid\": 1, \"tid\": 2, \"ts\": 16},\n"
    "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 2, \"args\": "
    "{\"name\": \"main\"}}\n"
    " ],\n"
    " \"traceName\": \"t\", \"baseTimeNanoseconds\": 100}\n";

static const char host_seed[] =
    "tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,memory_usage(kB),"
    "time_stamp(us)\n"
    "11,100,1,Dataset,GetNext,Batch,1,0,\"{a:1}\",1000,5000\n"
    "11,100,1,Dataset,GetNext,Batch,1,1,,1500,5030\n"
    "12,100,1,Graph,Step,Run,0,2,,0,7100\n";

/* The MindInsight fixtures and the reader of each. */
static const struct {
	const char *rel;
	int id;
} ms_seeds[] = {
    {"profiler/flops_0.txt", P_FLOPS_OPS},
    {"profiler/flops_summary_0.json", P_FLOPS_SUM},
    {"profiler/flops_scope_0.json", P_FLOPS_SCOPE},
    {"profiler/flops_summary_0.json", P_MSJ},
    {"profiler/framework_raw_0.csv", P_FW},
    {"run_2/normal_run/profiler/aicpu_intermediate_1.csv", P_AICPU_CSV},
    {"run_2/normal_run/profiler/output_data_preprocess_aicpu_1.txt", P_AICPU_TXT},
    {"profiler/dynamic_shape_info_0.json", P_DS},
    {"profiler/device_queue_profiling_0.txt", P_MD_DQ},
    {"run_2/normal_run/profiler/minddata_aicpu_1.txt", P_MD_GN},
    {"profiler/minddata_pipeline_raw_0.csv", P_MD_PL},
    {"profiler/minddata_cpu_utilization_0.json", P_MD_CPU},
    {"profiler/pipeline_profiling_0.json", P_MD_WORKERS},
    {"profiler/aicore_intermediate_1_detail.csv", P_AD},
    {"profiler/aicore_intermediate_1_type.csv", P_AT},
    {"profiler/step_trace_raw_0_detail_time.csv", P_ST},
    {"cluster_propose/step_trace_raw_0_detail_time.csv", P_MSC_ST},
    {"cluster_propose/ascend_cluster_analyse_pipeline-parallel_2_4_0.csv", P_MSC_CL},
    {"cluster_propose/hccl_raw_0.csv", P_MSC_HCCL},
    {"cluster_propose/flops_summary_0.json", P_MSC_FLOPS},
    {"profiler/ascend_timeline_display_0.json", P_KINETO},
};

/* The first `max` bytes of a shared fixture, cut at a line end; NULL if
 * it is absent. */
static char *slurp(const char *rel, size_t max, size_t *n)
{
	char path[1024];
	char *b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/data/mindinsight/%s", tu_shared_dir(), rel);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	b = malloc(max + 1);
	assert_non_null(b);
	*n = fread(b, 1, max, f);
	fclose(f);
	if (*n == max)
		while (*n > 0 && b[*n - 1] != '\n')
			(*n)--;
	b[*n] = '\0';
	return b;
}

/* ---- tests --------------------------------------------------------------------- */

static void test_kineto_no_echo(void **state)
{
	(void)state;
	mutate(P_KINETO, kineto_seed, strlen(kineto_seed));
	mutate(P_KINETO_GZ, kineto_seed, strlen(kineto_seed));
	/* a whole file that is not a trace */
	run_one(P_KINETO, CANARY "\n" CANARY ":x:0:0\n", 18);
	run_one(P_KINETO, "[\"" CANARY "\"]", 9);
	run_one(P_KINETO, "{\"" CANARY "\": 1}", 12);
	run_one(P_KINETO, "\x1f\x8b" CANARY, 7);
	assert_true(checked > 1000);
}

static void test_hostinfo_no_echo(void **state)
{
	(void)state;
	mutate(P_HOSTINFO, host_seed, strlen(host_seed));
	run_one(P_HOSTINFO, CANARY "\n", 6);
}

static void test_mindspore_no_echo(void **state)
{
	size_t i, n, found = 0;

	(void)state;
	for (i = 0; i < sizeof(ms_seeds) / sizeof(ms_seeds[0]); i++) {
		char *b = slurp(ms_seeds[i].rel, 16000, &n);

		if (!b)
			continue;
		found++;
		mutate(ms_seeds[i].id, b, n);
		free(b);
	}
	if (!found)
		printf("SKIP: %s/data/mindinsight absent, MindSpore readers not checked\n",
		       tu_shared_dir());
	for (i = P_MSJ; i <= P_MSC_FLOPS; i++) /* a file that is none of theirs */
		run_one((int)i, CANARY "\n" CANARY "," NCANARY "\n", 20);
}

static void write_file(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Discovery's reasons for skipping a file, and the .nnst reader's errors. */
static void test_discovery_and_nnst_no_echo(void **state)
{
	static const char *const bodies[] = {CANARY ":x:0:0\n", "[\"" CANARY "\"]",
					     "{\"" CANARY "\": 1}", "\x01" CANARY};
	char dir[] = "/tmp/nns_no_echo_XXXXXX", path[256];
	struct run_set rs;
	struct nns_err err;
	struct model m;
	size_t i;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		snprintf(path, sizeof(path), "%s/w%zu.pt.trace.json", dir, i);
		write_file(path, bodies[i], strlen(bodies[i]));
		snprintf(path, sizeof(path), "%s/x%zu.json", dir, i); /* probed by content */
		write_file(path, bodies[i], strlen(bodies[i]));
	}
	memset(&rs, 0, sizeof(rs));
	nns_err_clear(&err);
	rc = run_discover(&rs, dir, NULL, &err);
	check("discovery", err.msg, "", 0);
	if (rc == NNS_OK) {
		for (i = 0; i < rs.skipped.n; i++)
			check("discovery", rs.skipped.v[i].reason, "", 0);
		run_set_release(&rs);
	}

	/* the nnst magic, then anything: a header of version and min_version
	 * 31985 (0x7cf1), or of version 1 and header_size 31985, or cut short */
	for (i = 0; i < 3; i++) {
		char h[80];

		memset(h, 'Q', sizeof(h));
		memcpy(h, NNST_MAGIC, 8);
		if (i == 1) {
			memcpy(h + 8, "\x01\x00\x01\x00\xf1\x7c\x00\x00", 8);
		} else {
			memcpy(h + 8, "\xf1\x7c\xf1\x7c", 4);
		}
		snprintf(path, sizeof(path), "%s/w%zu.nnst", dir, i);
		write_file(path, h, i == 2 ? 40 : sizeof(h));
		assert_int_equal(model_init(&m), NNS_OK);
		nns_err_clear(&err);
		if (nnst_load_file(path, &m, &err))
			check("nnst", err.msg, "", 0);
		check_model("nnst", &m, "", 0);
		model_release(&m);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kineto_no_echo),
	    cmocka_unit_test(test_hostinfo_no_echo),
	    cmocka_unit_test(test_mindspore_no_echo),
	    cmocka_unit_test(test_discovery_and_nnst_no_echo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
