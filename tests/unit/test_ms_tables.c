/*
 * test_ms_tables.c - MindSpore tables read as MindInsight reads them:
 *   - run_2's aicore_intermediate_1_type.csv with the older header
 *     (op_type,execution_time,...) is read (../shared, skipped when absent);
 *     values hand-computed from the file with upstream's AicoreTypeAnalyser
 *     definitions: MatMul 20.65774 ms -> 20657.74 us, 9 calls, 89.47 % ->
 *     8947.0, avg 20657.74 / 9 = 2295.304; AssignAdd 4.92 us, 3, 2.0, 1.64;
 *   - the GPU-mode and host CPU op tables (src/importers/ms_optab.c) on
 *     hand-written rows: by-position columns, the GPU type file's reordering,
 *     _format_float_data (round 6 below 1, else 3), the CPU files' ms -> us
 *     and fraction -> percent, quoted fields; bad rows name file:line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "importers/ms_aicore_type.h"
#include "importers/ms_optab.h"
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

static const struct ms_at_row *find(const struct ms_at *t, const char *name)
{
	for (size_t i = 0; i < t->rows.n; i++)
		if (!strcmp(t->rows.v[i].kernel_type, name))
			return &t->rows.v[i];
	return NULL;
}

static void older_header_run2(void **state)
{
	const char *sh = tu_shared_dir();
	char path[1024];
	struct ms_at t;
	struct nns_err err;
	const struct ms_at_row *r;
	size_t n = 0;
	char *buf;

	(void)state;
	if (!sh) {
		printf("SKIP: ../shared absent, run_2 not checked\n");
		skip();
	}
	snprintf(path, sizeof(path),
		 "%s/data/mindinsight/run_2/normal_run/profiler/aicore_intermediate_1_type.csv",
		 sh);
	buf = slurp(path, &n);
	if (!buf) {
		printf("SKIP: %s absent\n", path);
		skip();
	}
	assert_true(!strncmp(buf, "op_type,execution_time,", 23));
	assert_int_equal(ms_at_parse(&t, buf, n, &err), NNS_OK);
	assert_int_equal(t.rows.n, 21);
	r = &t.rows.v[0];
	assert_string_equal(r->kernel_type, "MatMul");
	assert_float_equal(r->total_time_us, 20657.74, 1e-9);
	assert_int_equal(r->execution_frequency, 9);
	assert_float_equal(r->total_percent, 8947.0, 1e-9);
	assert_float_equal(r->avg_time_us, 2295.304, 1e-9);
	assert_non_null(r = find(&t, "AssignAdd"));
	assert_float_equal(r->total_time_us, 4.92, 1e-9);
	assert_int_equal(r->execution_frequency, 3);
	assert_float_equal(r->total_percent, 2.0, 1e-9);
	assert_float_equal(r->avg_time_us, 1.64, 1e-9);
	ms_at_release(&t);
	free(buf);
}

static void older_header_hand(void **state)
{
	const char *csv = "op_type,execution_time,execution_frequency,percent\nA,0.5,2,50\n";
	const char *bad = "op_type,total_time,execution_frequency,percent\nA,0.5,2,50\n";
	struct ms_at t;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_at_parse(&t, csv, strlen(csv), &err), NNS_OK);
	assert_int_equal(t.rows.n, 1);
	assert_float_equal(t.rows.v[0].total_time_us, 500.0, 1e-9);
	assert_float_equal(t.rows.v[0].avg_time_us, 250.0, 1e-9);
	ms_at_release(&t);
	assert_int_equal(ms_at_parse(&t, bad, strlen(bad), &err), NNS_EFORMAT);
}

static void format_float(void **state)
{
	(void)state;
	assert_float_equal(ms_ot_format(0.4567891), 0.456789, 1e-12);
	assert_float_equal(ms_ot_format(799.0444), 799.044, 1e-12);
	assert_float_equal(ms_ot_format(1.00049), 1.0, 1e-12);
	assert_float_equal(ms_ot_format(0.99999951), 1.0, 1e-12);
}

static void gpu_type(void **state)
{
	const char *csv = "whatever,the,header,says,x\n"
			  "MatMul,4,1200.5,0.6,300.125\n"
			  "Add,10,0.4567891,0.0002283,0.04567891\n\n";
	struct ms_optab t;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_optab_parse(&t, MS_OT_GPU_TYPE, csv, strlen(csv), "g.csv", &err),
			 NNS_OK);
	assert_int_equal(t.rows, 2);
	assert_string_equal(ms_optab_str(&t, 0, 0), "MatMul");
	assert_float_equal(ms_optab_num(&t, 0, 1), 1200.5, 1e-12); /* total from column 2 */
	assert_float_equal(ms_optab_num(&t, 0, 2), 4, 0);	   /* calls from column 1 */
	assert_float_equal(ms_optab_num(&t, 0, 3), 60, 1e-12);	   /* 0.6 * 100 */
	assert_float_equal(ms_optab_num(&t, 0, 4), 300.125, 1e-12);
	assert_float_equal(ms_optab_num(&t, 1, 1), 0.456789, 1e-12);
	assert_float_equal(ms_optab_num(&t, 1, 3), 0.02283, 1e-12);
	assert_float_equal(ms_optab_num(&t, 1, 4), 0.045679, 1e-12);
	ms_optab_release(&t);
}

static void gpu_activity_quoted(void **state)
{
	const char *csv = "h\nk,cuLaunchKernel,Default/MatMul-op1,7,\"256,1,1\",\"64,2,1\",8,"
			  "1180.25,147.53125,200.0001,100.5\n";
	struct ms_optab t;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_optab_parse(&t, MS_OT_GPU_ACTIVITY, csv, strlen(csv), "a.csv", &err),
			 NNS_OK);
	assert_int_equal(t.rows, 1);
	assert_string_equal(ms_optab_str(&t, 0, 4), "256,1,1");
	assert_string_equal(ms_optab_str(&t, 0, 5), "64,2,1");
	assert_float_equal(ms_optab_num(&t, 0, 6), 8, 0);
	assert_float_equal(ms_optab_num(&t, 0, 8), 147.531, 1e-12);
	assert_float_equal(ms_optab_num(&t, 0, 9), 200.0, 1e-12);
	ms_optab_release(&t);
}

static void cpu_tables(void **state)
{
	const char *type = "h\nCast,3,30,1.5,0.05,0.75\nReshape,2,20,0.0004,0.00002,0.0002\n";
	const char *det = "h\nDefault,Cast,Cast-op3,Default/Cast-op3,30,1.5,0.05,75.0,Default,1\n";
	struct ms_optab t;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_optab_parse(&t, MS_OT_CPU_TYPE, type, strlen(type), "c.csv", &err),
			 NNS_OK);
	assert_float_equal(ms_optab_num(&t, 0, 1), 3, 0);
	assert_float_equal(ms_optab_num(&t, 0, 2), 30, 0);
	assert_float_equal(ms_optab_num(&t, 0, 3), 1500, 1e-9); /* ms -> us */
	assert_float_equal(ms_optab_num(&t, 0, 4), 50, 1e-9);
	assert_float_equal(ms_optab_num(&t, 0, 5), 75, 1e-9); /* fraction -> % */
	assert_float_equal(ms_optab_num(&t, 1, 3), 0.4, 1e-12);
	assert_float_equal(ms_optab_num(&t, 1, 4), 0.02, 1e-12);
	assert_float_equal(ms_optab_num(&t, 1, 5), 0.02, 1e-12);
	ms_optab_release(&t);
	assert_int_equal(ms_optab_parse(&t, MS_OT_CPU_DETAIL, det, strlen(det), "d.csv", &err),
			 NNS_OK);
	assert_string_equal(ms_optab_str(&t, 0, 3), "Default/Cast-op3");
	assert_float_equal(ms_optab_num(&t, 0, 5), 1500, 1e-9);
	assert_float_equal(ms_optab_num(&t, 0, 7), 75, 1e-9); /* kept as it is */
	assert_string_equal(ms_optab_str(&t, 0, 8), "Default");
	ms_optab_release(&t);
}

static void bad_rows(void **state)
{
	const char *few = "h\nMatMul,4,1200.5,0.6,300\nAdd,1,2\n";
	const char *nan = "h\nMatMul,x,1200.5,0.6,300\n";
	const char *frac = "h\nMatMul,1.5,1200.5,0.6,300\n";
	struct ms_optab t;
	struct nns_err err;

	(void)state;
	assert_int_equal(ms_optab_parse(&t, MS_OT_GPU_TYPE, few, strlen(few), "g.csv", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "g.csv:3"));
	assert_int_equal(t.rows, 0);
	assert_int_equal(ms_optab_parse(&t, MS_OT_GPU_TYPE, nan, strlen(nan), "g.csv", &err),
			 NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "g.csv:2: not a number"));
	assert_int_equal(ms_optab_parse(&t, MS_OT_GPU_TYPE, frac, strlen(frac), "g.csv", &err),
			 NNS_EFORMAT);
	assert_int_equal(ms_optab_parse(&t, MS_OT_GPU_TYPE, "", 0, "g.csv", &err), NNS_EFORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(older_header_run2),
	    cmocka_unit_test(older_header_hand),
	    cmocka_unit_test(format_float),
	    cmocka_unit_test(gpu_type),
	    cmocka_unit_test(gpu_activity_quoted),
	    cmocka_unit_test(cpu_tables),
	    cmocka_unit_test(bad_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
