/*
 * test_ms_raw.c - raw Ascend job directories (src/importers/ms_raw*.c):
 * MindInsight's parsers re-done, checked against MindInsight's own expected
 * outputs where the fixtures hold them, hand-computed values elsewhere.
 *
 * Oracles (../shared/data/mindinsight, read at run time, skipped when
 * absent):
 *   - profiler/step_trace_raw_0_detail_time.csv and _10_: the step-trace
 *     parser's output for JOB1's and ERROR_JOB's training_trace files,
 *     compared byte for byte (line ends aside: _0 is stored with "\n");
 *   - profiler/framework_raw_0.csv: the framework parser's output for JOB1
 *     and for container/0 (upstream test_framework_parser.py asserts both
 *     parsers give the same file), byte for byte;
 *   - JOB3 is run_1's raw data: its step-trace summary is
 *     st/test_analyse.py::test_summary_for_step_trace's (205.3809 ms ...,
 *     322 steps) and its point file the reference's Cast-op6 / TransData-op7;
 *   - JOB_AICPU/expect/output_data_preprocess_aicpu_0.txt (upstream
 *     test_aicpu_parser.py's expected file): read by the same reader, the
 *     same calls;
 *   - JOB3's AI Core tables: hand-computed with an independent python3
 *     mirror of hwts_log_parser + optime_parser (GatherV2-op55 42220.212 us
 *     x 14, 199 ops, UnsortedSegmentSum 624509.57 us / 28 calls, 29 types);
 *   - hand-written damaged jobs in temp directories: each warning names the
 *     file and the offset, the rest is read.
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

#include "analysis/an_ms.h"
#include "importers/ms_aicpu.h"
#include "importers/ms_load.h"
#include "importers/ms_raw.h"
#include "testutil.h"

static const char *fixture(const char *rel, char *buf, size_t n)
{
	struct stat st;

	snprintf(buf, n, "%s/data/mindinsight/%s", tu_shared_dir(), rel);
	if (stat(buf, &st) != 0) {
		printf("SKIP: %s absent, MindInsight raw jobs not checked\n", buf);
		return NULL;
	}
	return buf;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *b;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(*n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, *n, f), *n);
	b[*n] = 0;
	fclose(f);
	return b;
}

/* Drops the "\r" of "\r\n" in place (one fixture was stored with "\n"
 * line ends, its twin with Python's csv "\r\n"); returns the new length. */
static size_t unix_eol(char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '\r' && i + 1 < n && s[i + 1] == '\n'))
			s[k++] = s[i];
	s[k] = 0;
	return k;
}

static void same_as(const struct ms_raw *r, const char *name, const char *expected_rel)
{
	char path[1024], *got;
	const struct ms_raw_file *f = ms_raw_get(r, name);
	size_t n, m;
	char *want;

	snprintf(path, sizeof(path), "%s/data/mindinsight/%s", tu_shared_dir(), expected_rel);
	want = slurp(path, &n);
	assert_non_null(f);
	got = strdup(f->text);
	assert_non_null(got);
	n = unix_eol(want, n);
	m = unix_eol(got, f->len);
	if (m != n || memcmp(got, want, n) != 0)
		fail_msg("%s differs from %s:\n%.400s\n---\n%.400s", name, path, got, want);
	free(got);
	free(want);
}

static void load(struct ms_raw *r, const char *dir, int dev)
{
	struct ms_src s = {.dir = dir, .dev = dev};
	struct nns_err err;

	nns_err_clear(&err);
	assert_int_equal(ms_raw_load(r, &s, &err), NNS_OK);
}

static void test_job1_step_trace_and_framework(void **state)
{
	char d[1024];
	struct ms_raw r;

	(void)state;
	if (!fixture("JOB1", d, sizeof(d)))
		return;
	load(&r, d, 0);
	same_as(&r, "step_trace_raw_0_detail_time.csv",
		"profiler/step_trace_raw_0_detail_time.csv");
	same_as(&r, "framework_raw_0.csv", "profiler/framework_raw_0.csv");
	assert_int_equal(r.nwarn, 0);
	ms_raw_release(&r);
}

static void test_error_job_step_trace(void **state)
{
	char d[1024];
	struct ms_raw r;

	(void)state;
	if (!fixture("ERROR_JOB", d, sizeof(d)))
		return;
	load(&r, d, 10);
	same_as(&r, "step_trace_raw_10_detail_time.csv",
		"profiler/step_trace_raw_10_detail_time.csv");
	/* no framework file anywhere: one warning naming where it looked */
	assert_int_equal(r.nwarn, 1);
	assert_non_null(strstr(r.warnings.v[0], "no framework files of device 10"));
	assert_non_null(strstr(r.warnings.v[0], "ERROR_JOB/data or "));
	assert_non_null(strstr(r.warnings.v[0], "/container/10/data (those of job ERROR_JOB)"));
	ms_raw_release(&r);
}

static void test_container_framework(void **state)
{
	char d[1024];
	struct ms_raw r;

	(void)state;
	if (!fixture("container/0/data", d, sizeof(d)))
		return;
	load(&r, d, 0); /* the job directory is container/0 */
	same_as(&r, "framework_raw_0.csv", "profiler/framework_raw_0.csv");
	assert_null(ms_raw_get(&r, "step_trace_raw_0_detail_time.csv"));
	ms_raw_release(&r);
}

static void test_job3_is_run1(void **state)
{
	char d[1024];
	struct ms_src s = {0};
	struct ms_profile mp;
	struct nns_err err;

	(void)state;
	if (!fixture("JOB3", d, sizeof(d)))
		return;
	s.dir = d;
	s.dev = 1;
	nns_err_clear(&err);
	assert_int_equal(ms_profile_load(&mp, &s, &err), NNS_OK);
	assert_int_equal(mp.raw_rc, NNS_OK);
	assert_int_equal(mp.sum_rc, NNS_OK);
	assert_float_equal(mp.sum.total_ms, 205.3809, 1e-9);
	assert_float_equal(mp.sum.interval_ms, 0.2038, 1e-9);
	assert_float_equal(mp.sum.interval_pct, 0.1, 1e-9);
	assert_float_equal(mp.sum.fp_bp_ms, 118.054, 1e-9);
	assert_float_equal(mp.sum.fp_bp_pct, 57.48, 1e-9);
	assert_float_equal(mp.sum.tail_ms, 87.1231, 1e-9);
	assert_float_equal(mp.sum.tail_pct, 42.42, 1e-9);
	assert_int_equal(mp.sum.total_steps, 322);
	assert_int_equal(mp.point_rc, NNS_OK);
	assert_string_equal(mp.fp_start, "Default/Cast-op6");
	assert_string_equal(mp.bp_end, "Default/TransData-op7");
	/* AI Core by op and by type (python mirror, see the top) */
	assert_int_equal(mp.ad_part.rc, NNS_OK);
	assert_int_equal(mp.ad.rows.n, 199);
	assert_string_equal(mp.ad.rows.v[0].kernel_name, "GatherV2-op55");
	assert_float_equal(mp.ad.rows.v[0].avg_execution_time_us, 42220.212, 1e-9);
	assert_int_equal(mp.ad.rows.v[0].execution_frequency, 14);
	assert_int_equal(mp.at_part.rc, NNS_OK);
	assert_int_equal(mp.at.rows.n, 29);
	assert_string_equal(mp.at.rows.v[0].kernel_type, "UnsortedSegmentSum");
	assert_float_equal(mp.at.rows.v[0].total_time_us, 624509.57, 1e-6);
	assert_int_equal(mp.at.rows.v[0].execution_frequency, 28);
	assert_float_equal(mp.at.rows.v[0].total_percent, 3526, 1e-6); /* percent 35.26 x 100 */
	/* the by-op table's op_info comes from the framework files */
	assert_int_equal(mp.opd_rc, NNS_OK);
	ms_profile_release(&mp);
}

static void test_job_aicpu_as_expected(void **state)
{
	char d[1024], e[1024];
	struct ms_src s = {0}, x = {0};
	struct ms_raw r;
	struct ms_aicpu a, b;
	struct nns_err err;

	(void)state;
	if (!fixture("JOB_AICPU/data", d, sizeof(d)) || !fixture("JOB_AICPU/expect", e, sizeof(e)))
		return;
	load(&r, d, 0);
	s.dir = d;
	s.raw = &r;
	x.dir = e;
	nns_err_clear(&err);
	assert_int_equal(ms_aicpu_load(&a, &s, &err), NNS_OK);
	assert_int_equal(ms_aicpu_load(&b, &x, &err), NNS_OK);
	assert_int_equal(a.calls.n, 3);
	assert_int_equal(a.calls.n, b.calls.n);
	for (size_t i = 0; i < a.calls.n; i++) {
		assert_int_equal(a.calls.v[i].serial, b.calls.v[i].serial);
		assert_string_equal(ms_aicpu_str(&a, a.calls.v[i].name),
				    ms_aicpu_str(&b, b.calls.v[i].name));
		assert_float_equal(a.calls.v[i].total_ms, b.calls.v[i].total_ms, 1e-12);
		assert_float_equal(a.calls.v[i].dispatch_ms, b.calls.v[i].dispatch_ms, 1e-12);
		assert_float_equal(a.calls.v[i].run_start, b.calls.v[i].run_start, 0);
		assert_float_equal(a.calls.v[i].run_end, b.calls.v[i].run_end, 0);
	}
	assert_float_equal(a.footer_ms, 4.122, 1e-12);
	assert_float_equal(a.footer_ms, b.footer_ms, 1e-12);
	ms_aicpu_release(&a);
	ms_aicpu_release(&b);
	ms_raw_release(&r);
}

/* ---- hand-written jobs -------------------------------------------------- */

static void put_rec(FILE *f, uint64_t tag, uint16_t stream, uint64_t cnt)
{
	unsigned char b[20] = {0};

	for (int i = 0; i < 8; i++) {
		b[i] = (unsigned char)(tag >> (8 * i));
		b[12 + i] = (unsigned char)(cnt >> (8 * i));
	}
	b[10] = (unsigned char)stream;
	b[11] = (unsigned char)(stream >> 8);
	fwrite(b, 1, 20, f);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put_hwts(FILE *f, unsigned type, uint16_t task, uint32_t stream, uint64_t cnt)
{
	unsigned char b[64] = {0};

	b[0] = (unsigned char)type;
	b[6] = (unsigned char)task;
	b[7] = (unsigned char)(task >> 8);
	for (int i = 0; i < 8; i++)
		b[8 + i] = (unsigned char)(cnt >> (8 * i));
	for (int i = 0; i < 4; i++)
		b[16 + i] = (unsigned char)(stream >> (8 * i));
	fwrite(b, 1, 64, f);
}

/* Three steps: 1000..1100 (fp 1010, bp 1080), 1100..1300 (fp 1150, bp
 * 1250), 1300..1400 (fp 1320, bp 1390); step 2 has a reduce pair on
 * stream 5 (1160..1200), which the first row does not have, so it is not a
 * column. The job id changes at step 3 (a warning), 7 bytes are left at
 * the end (a warning). */
static const char *const r_want_files[] = {
    "training_trace.46.dev.profiler_default_tag.3.slice_0: offset 280",
    "training_trace.46.dev.profiler_default_tag.3.slice_0: offset 200",
    "hwts.log.data.45.dev.profiler_default_tag.3.slice_0: offset 448",
    "hwts.log.data.45.dev.profiler_default_tag.3.slice_0: offset 384"};

static void test_damaged_job(void **state)
{
	char dir[] = "/tmp/nns_msraw_XXXXXX", p[1024], data[600];
	struct ms_raw r;
	FILE *f;
	int dev = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(data, sizeof(data), "%s/data", dir);
	assert_int_equal(mkdir(data, 0700), 0);
	snprintf(p, sizeof(p), "%s/training_trace.46.dev.profiler_default_tag.3.slice_0", data);
	f = fopen(p, "wb");
	assert_non_null(f);
	put_rec(f, 300, 0, 1000);
	put_rec(f, 1, 0, 1010);
	put_rec(f, 2, 0, 1080);
	put_rec(f, 255, 0, 1100);
	put_rec(f, 300, 0, 0);
	put_rec(f, 1, 0, 1150);
	put_rec(f, 3, 5, 1160);
	put_rec(f, 4, 5, 1200);
	put_rec(f, 2, 0, 1250);
	put_rec(f, 255, 0, 1300);
	put_rec(f, 301, 0, 0); /* offset 200: another job id */
	put_rec(f, 1, 0, 1320);
	put_rec(f, 2, 0, 1390);
	put_rec(f, 255, 0, 1400);
	fwrite("garbage", 1, 7, f); /* offset 280 */
	fclose(f);
	/* framework: two ops, one graph line with a bad token */
	write_file(dir, "Framework.host.vm.task_desc_info.3.slice_0",
		   "Default/MatMul-op1 8 30001 2\nDefault/Add-op2 1 30002 2\n");
	write_file(dir, "Framework.host.vm.graph_desc_info.3.slice_0",
		   "op_name:Default/MatMul-op1 op_type:MatMul input_id:0 input_format:ND "
		   "input_data_type:40 input_shape:\"2,2\"\n"
		   "op_name:Default/Add-op2 op_type:Add oops input_id:0\n");
	write_file(dir, "Framework.host.vm.task_desc_info.3.slice_0.done", "");
	/* hwts: MatMul 100 + 300 counts (2 calls), Add 50 counts, a record of
	 * type 6 (offset 384) and 10 stray bytes (offset 448) */
	snprintf(p, sizeof(p), "%s/hwts.log.data.45.dev.profiler_default_tag.3.slice_0", dir);
	f = fopen(p, "wb");
	assert_non_null(f);
	put_hwts(f, 0, 30001, 2, 1000);
	put_hwts(f, 1, 30001, 2, 1100);
	put_hwts(f, 0, 30002, 2, 1200);
	put_hwts(f, 1, 30002, 2, 1250);
	put_hwts(f, 0, 30001, 2, 2000);
	put_hwts(f, 1, 30001, 2, 2300);
	put_hwts(f, 6, 30001, 2, 2400);
	fwrite("0123456789", 1, 10, f);
	fclose(f);

	assert_true(ms_raw_match("training_trace.46.dev.profiler_default_tag.3.slice_0", &dev));
	assert_int_equal(dev, 3);
	assert_true(ms_raw_match("Framework.host.vm.graph_desc_info.0.JOB2.slice_0", &dev));
	assert_int_equal(dev, 0);
	assert_false(ms_raw_match("Framework.host.vm.task_desc_info.3.slice_0.done", &dev));
	assert_false(ms_raw_match("DATA_PREPROCESS.dev.AICPUMI.1.slice_0", &dev));
	assert_false(ms_raw_match("step_trace_raw_0_detail_time.csv", &dev));

	load(&r, dir, 3);
	{
		const struct ms_raw_file *st = ms_raw_get(&r, "step_trace_raw_3_detail_time.csv");
		const char *want =
		    "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,"
		    "fp_and_bp,tail\r\n"
		    "1,1010,1100,90,1010,1080,0,70,20\r\n"
		    "2,1100,1300,200,1150,1250,50,100,50\r\n"
		    "3,1300,1400,100,1320,1390,20,70,10\r\n"
		    /* average of rows 2..3: 1200, 1350, 150, 1235, 1320, 35, 85, 30 */
		    "-,1200,1350,150,1235,1320,35,85,30\r\n";

		assert_non_null(st);
		assert_string_equal(st->text, want);
	}
	{
		const struct ms_raw_file *d = ms_raw_get(&r, "aicore_intermediate_3_detail.csv");
		const struct ms_raw_file *t = ms_raw_get(&r, "aicore_intermediate_3_type.csv");

		assert_non_null(d);
		assert_non_null(t);
		/* by name; MatMul avg (100 + 300) / 2 counts = 0.002 ms */
		assert_string_equal(d->text,
				    "full_kernel_name,execution_time,execution_frequency\r\n"
				    "Default/Add-op2,0.00050000000000000001,1\r\n"
				    "Default/MatMul-op1,0.002,2\r\n");
		assert_string_equal(t->text,
				    "kernel_type,total_time,execution_frequency,percent\r\n"
				    "Add,0.00050000000000000001,1,11.11\r\n"
				    "MatMul,0.0040000000000000001,2,88.89\r\n");
	}
	{
		const struct ms_raw_file *fw = ms_raw_get(&r, "framework_raw_3.csv");

		assert_non_null(fw);
		assert_non_null(strstr(
		    fw->text, "30001,2,8,Default/MatMul-op1,Default/MatMul-op1,"
			      "MatMul-op1,MatMul,Default,\"{\"\"input_0\"\": "
			      "{\"\"format\"\": \"\"ND\"\", \"\"data_type\"\": "
			      "\"\"NUMBER_TYPE_FLOAT32\"\", \"\"shape\"\": \"\"2,2\"\"}}\"\r\n"));
		assert_non_null(strstr(fw->text,
				       "30002,2,1,Default/Add-op2,Default/Add-op2,Add-op2,"
				       "Add,Default,\"{\"\"input_0\"\": {}}\"\r\n"));
	}
	/* warnings: file and offset each */
	assert_int_equal(r.nwarn, 5);
	{
		const char *want[][2] = {
		    {"graph_desc_info.3.slice_0: offset 142: ", "\"oops\" is not name:value"},
		    {"training_trace.46.dev.profiler_default_tag.3.slice_0: offset 280: ",
		     "7 trailing bytes"},
		    {"training_trace.46.dev.profiler_default_tag.3.slice_0: offset 200: ",
		     "job id 301"},
		    {"hwts.log.data.45.dev.profiler_default_tag.3.slice_0: offset 448: ",
		     "10 trailing bytes"},
		    {"hwts.log.data.45.dev.profiler_default_tag.3.slice_0: offset 384: ",
		     "record type 6"},
		};
		for (size_t i = 0; i < 5; i++) {
			if (!strstr(r.warnings.v[i], want[i][0]) ||
			    !strstr(r.warnings.v[i], want[i][1]))
				fail_msg("warning %zu: %s", i, r.warnings.v[i]);
		}
	}
	ms_raw_release(&r);

	/* the model: the first warning is the load's note (said by the CLI) */
	{
		struct model m;
		struct nns_err err;

		snprintf(p, sizeof(p), "%s/Framework.host.vm.graph_desc_info.3.slice_0", dir);
		nns_err_clear(&err);
		assert_int_equal(ms_load_device(&m, p, NULL, &err), NNS_OK);
		assert_non_null(strstr(m.diag.note, "offset 142"));
		/* every other warning as an "input_warning" (CLI, report) */
		{
			size_t nw = 0;

			for (size_t i = 0; i < m.meta.n; i++)
				if (strcmp(model_str(&m, m.meta.v[i].key), "input_warning") == 0)
					assert_non_null(strstr(model_str(&m, m.meta.v[i].value),
							       r_want_files[nw++]));
			assert_int_equal(nw, 4);
		}
		/* the hwts executions as kernels on stream 2, from min cycle
		 * 1000 (x 10 ns): MatMul 0+1000, Add 2000+500, MatMul 10000+3000;
		 * the steps from the same base: step 1 at (1010 - 1000) x 10 */
		{
			int64_t want[][2] = {{0, 1000}, {2000, 500}, {10000, 3000}};
			size_t nk = 0, ns = 0;

			for (size_t i = 0; i < m.events.n; i++) {
				const struct model_event *e = &m.events.v[i];
				const struct model_thread *t = &m.threads.v[e->thread];

				if (e->kind == MK_KERNEL) {
					assert_true(nk < 3);
					assert_int_equal(e->ts, want[nk][0]);
					assert_int_equal(e->dur, want[nk][1]);
					assert_int_equal(e->device, 3);
					assert_string_equal(model_str(&m, t->name), "Stream #2");
					assert_string_equal(model_str(&m, t->pid), "3");
					nk++;
				} else if (e->kind == MK_USER_ANNOTATION &&
					   strcmp(model_str(&m, e->name), "ProfilerStep#1") == 0) {
					assert_int_equal(e->ts, 100);
					assert_int_equal(e->dur, 900);
					ns++;
				}
			}
			assert_int_equal(nk, 3);
			assert_int_equal(ns, 1);
			assert_string_equal(model_meta_get(&m, "process_name:3"), "AI Core Op");
		}
		model_release(&m);
	}
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

static void test_no_raw_files(void **state)
{
	char dir[] = "/tmp/nns_msraw_XXXXXX";
	struct ms_src s = {0};
	struct ms_raw r;
	struct nns_err err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_file(dir, "step_trace_raw_0_detail_time.csv", "step_num\n");
	s.dir = dir;
	nns_err_clear(&err);
	assert_int_equal(ms_raw_load(&r, &s, &err), NNS_ENOTFOUND);
	assert_int_equal(r.files.n, 0);
	unlink(strcat(strcpy((char[256]){0}, dir), "/step_trace_raw_0_detail_time.csv"));
	rmdir(dir);
}

/* A parsed timeline row: name, stream, start, duration. */
struct tl_row {
	char name[400];
	long stream;
	double start, dur;
};

static int tl_cmp(const void *a, const void *b)
{
	const struct tl_row *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

static size_t tl_rows(char *text, struct tl_row **out)
{
	size_t n = 0, cap = 0;
	struct tl_row *v = NULL;

	for (char *l = strtok(text, "\r\n"); l; l = strtok(NULL, "\r\n")) {
		char *c3 = strrchr(l, ','), *c2, *c1;

		if (!c3)
			continue;
		*c3 = 0;
		c2 = strrchr(l, ',');
		assert_non_null(c2);
		*c2 = 0;
		c1 = strrchr(l, ',');
		assert_non_null(c1);
		*c1 = 0;
		if (strcmp(c1 + 1, " stream_id") == 0)
			continue; /* the header */
		if (n == cap) {
			struct tl_row *nv;

			cap = cap ? cap * 2 : 1024;
			nv = realloc(v, cap * sizeof(*v));
			assert_non_null(nv);
			v = nv;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", l);
		v[n].stream = strtol(c1 + 1, NULL, 10);
		v[n].start = strtod(c2 + 1, NULL);
		v[n].dur = strtod(c3 + 1, NULL);
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), tl_cmp);
	*out = v;
	return n;
}

/* JOB3's executions are run_1's output_timeline_data_1.txt (MindSpore made
 * it from this log: 2817 rows) and its min_cycle_counter_1.txt, value for
 * value; as the model: 2817 kernels, their durations summing to the AI
 * Core tables' total (Σ by type 1771382.85 us, python mirror), 11 streams,
 * and the 322 steps on the same clock (the first at (start - min) x 10). */
static void test_job3_timeline_is_run1(void **state)
{
	char d[1024], path[1200], *want;
	struct ms_raw r;
	struct tl_row *a, *b;
	size_t na, nb, n;
	const struct ms_raw_file *f;

	(void)state;
	if (!fixture("JOB3", d, sizeof(d)))
		return;
	load(&r, d, 1);
	assert_non_null(f = ms_raw_get(&r, "min_cycle_counter_1.txt"));
	assert_string_equal(f->text, "43806841592"); /* run_1: 43806841592.0 */
	assert_non_null(f = ms_raw_get(&r, "output_timeline_data_1.txt"));
	{
		char *got = strdup(f->text);

		assert_non_null(got);
		na = tl_rows(got, &a);
		free(got);
	}
	snprintf(path, sizeof(path),
		 "%s/data/mindinsight/run_1/normal_run/profiler/output_timeline_data_1.txt",
		 tu_shared_dir());
	want = slurp(path, &n);
	nb = tl_rows(want, &b);
	free(want);
	assert_int_equal(na, 2817);
	assert_int_equal(nb, 2817);
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i].name, b[i].name) || a[i].stream != b[i].stream ||
		    a[i].start != b[i].start || a[i].dur != b[i].dur)
			fail_msg("row %zu: %s,%ld,%.17g,%.17g != %s,%ld,%.17g,%.17g", i, a[i].name,
				 a[i].stream, a[i].start, a[i].dur, b[i].name, b[i].stream,
				 b[i].start, b[i].dur);
	free(a);
	free(b);
	ms_raw_release(&r);

	/* the model */
	{
		struct model m;
		struct nns_err err;
		int64_t sum = 0, first_step = -1;
		size_t nk = 0, nsteps = 0, nstreams = 0;

		snprintf(path, sizeof(path),
			 "%s/hwts.log.data.45.dev.profiler_default_tag.1.slice_0", d);
		nns_err_clear(&err);
		assert_int_equal(ms_load_device(&m, path, NULL, &err), NNS_OK);
		for (size_t i = 0; i < m.events.n; i++) {
			const struct model_event *e = &m.events.v[i];

			if (e->kind == MK_KERNEL) {
				nk++;
				sum += e->dur;
			} else if (e->kind == MK_USER_ANNOTATION &&
				   strncmp(model_str(&m, e->name), "ProfilerStep#", 13) == 0) {
				nsteps++;
				if (strcmp(model_str(&m, e->name), "ProfilerStep#1") == 0)
					first_step = e->ts;
			}
		}
		for (size_t i = 0; i < m.threads.n; i++)
			nstreams += m.threads.v[i].name &&
				    strncmp(model_str(&m, m.threads.v[i].name), "Stream #", 8) == 0;
		assert_int_equal(nk, 2817);
		assert_int_equal(sum, 1771382850); /* ns: 177138285 counts x 10 */
		assert_int_equal(nsteps, 322);
		assert_int_equal(nstreams, 11);
		/* step 1 starts at 89.55 us after the first op (steptrace.json) */
		assert_int_equal(first_step, 89550);
		assert_string_equal(model_meta_get(&m, "device_kind"), "NPU");
		model_release(&m);
	}
}

/* JOB2 holds no framework file: MindInsight's FrameworkParser('JOB2', '0')
 * finds them in <raw root>/container/0/data (Framework.host.vm.*.0.JOB2.*),
 * the raw root being JOB2's parent (test_framework_parser.py); the table is
 * profiler/framework_raw_0.csv, as for container/0 itself. */
static void test_job2_uses_container(void **state)
{
	char d[1024];
	struct ms_raw r;

	(void)state;
	if (!fixture("JOB2", d, sizeof(d)))
		return;
	load(&r, d, 0);
	same_as(&r, "framework_raw_0.csv", "profiler/framework_raw_0.csv");
	ms_raw_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_job1_step_trace_and_framework),
	    cmocka_unit_test(test_error_job_step_trace),
	    cmocka_unit_test(test_container_framework),
	    cmocka_unit_test(test_job3_is_run1),
	    cmocka_unit_test(test_job_aicpu_as_expected),
	    cmocka_unit_test(test_damaged_job),
	    cmocka_unit_test(test_no_raw_files),
	    cmocka_unit_test(test_job3_timeline_is_run1),
	    cmocka_unit_test(test_job2_uses_container),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
