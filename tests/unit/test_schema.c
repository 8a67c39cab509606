/*
 * test_schema.c - the result-table descriptions (schema.h) and the writers
 * they drive: the descriptions are consistent (unique names, fields inside
 * their rows, every grouping's columns exist), and one hand-built trace
 * comes out with the hand-computed values through the JSON, CSV, terminal
 * and SQLite writers alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/schema.h"
#include "output/schema_sql.h"
#include "output/table.h"
#include "testutil.h"

/* every table (clang-format would put one a line) */
/* clang-format off */
static const struct sc_table *const all_tables[] = {
    /* the per-worker views */
    &sc_steps, &sc_operators, &sc_kernels, &sc_memory_ops, &sc_memory_allocs, &sc_memory_curve,
    &sc_modules, &sc_steptrace, &sc_gpus, &sc_dist_workers, &sc_comm_ops, &sc_diff_ops,
    &sc_dp_queues, &sc_dp_steps, &sc_cpu_threads, &sc_cpu_stages, &sc_cpu_series, &sc_host_events,
    /* HTA's (schema_views.c, schema_hta.c) */
    &sc_temporal, &sc_idle, &sc_queue, &sc_membw, &sc_launches, &sc_critpath_segments,
    &sc_critpath_top, &sc_trace_diff, &sc_launch_dist, &sc_annotations, &sc_anno_kernels,
    &sc_seq_ops, &sc_seq_patterns, &sc_stragglers, &sc_idle_gaps, &sc_describe,
    /* MindSpore's and the cluster's (schema_ms.c) */
    &sc_ms_op_types, &sc_ms_ops, &sc_ms_steps, &sc_ms_step_summary, &sc_ms_flops_summary,
    &sc_ms_flops_ops, &sc_ms_aicpu_types, &sc_ms_aicpu_ops, &sc_ms_ds_ops, &sc_ms_ds_kernels,
    &sc_cluster_ranks, &sc_cluster_steps, &sc_cluster_proposals, &sc_cluster_links,
    &sc_cluster_stages,
    /* the live documents' (schema_live.c) */
    &sc_live_ranks,
};
/* clang-format on */

static size_t field_size(int src)
{
	switch (src) {
	case SC_F_I32:
	case SC_F_STRID:
	case SC_F_FLT:
		return 4;
	case SC_F_CHARS:
		return 1;
	case SC_F_FN:
		return 0;
	default:
		return 8;
	}
}

static void test_descriptions(void **st)
{
	(void)st;
	for (size_t t = 0; t < sizeof(all_tables) / sizeof(all_tables[0]); t++) {
		const struct sc_table *tb = all_tables[t];

		assert_true(tb->ncols > 0);
		for (size_t i = 0; i < tb->ncols; i++) {
			const struct sc_col *c = &tb->cols[i];

			if (c->src == SC_F_FN)
				assert_non_null(c->fn);
			else
				assert_true(c->off + field_size(c->src) <= tb->row_size);
			assert_non_null(c->doc);
			for (size_t j = 0; j < i; j++)
				if (strcmp(tb->cols[j].name, c->name) == 0)
					fail_msg("%s: column %s twice", tb->name, c->name);
		}
	}
	for (int g = 0; g < SC_OP_GROUPS; g++)
		for (size_t i = 0; sc_op_groups[g].cols[i]; i++)
			assert_non_null(sc_pick(&sc_operators, sc_op_groups[g].cols[i], NULL));
	for (int g = 0; g < SC_KERNEL_GROUPS; g++)
		for (size_t i = 0; sc_kernel_groups[g].cols[i]; i++)
			assert_non_null(sc_pick(&sc_kernels, sc_kernel_groups[g].cols[i], NULL));
}

static void test_pick(void **st)
{
	const char *shown = NULL;
	const struct sc_col *c;

	(void)st;
	c = sc_pick(&sc_steps, "name:step", &shown);
	assert_non_null(c);
	assert_string_equal(c->name, "name");
	assert_string_equal(shown, "step");
	c = sc_pick(&sc_steps, "total_us", &shown);
	assert_non_null(c);
	assert_string_equal(shown, "total_us");
	/* a prefix of a column is not that column */
	assert_null(sc_pick(&sc_steps, "total", &shown));
	assert_null(sc_pick(&sc_steps, "nope:x", &shown));
}

/* One step [50, 550) us; aten::mm [100, 200) launches gemm [300, 330) on
 * stream 7 (correlation 42, External id 7) and allocates 4096 bytes on
 * GPU 0 at 120 us, never freed. */
static const char *trace =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
    "\"ts\":50,\"dur\":500},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,"
    "\"dur\":100,\"args\":{\"External id\":7}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":110,\"dur\":5,\"args\":{\"External id\":7,\"correlation\":42}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,"
    "\"tid\":1,\"ts\":120,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":1000,"
    "\"Bytes\":4096,\"Total Allocated\":4096,\"Total Reserved\":8192}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":30,"
    "\"args\":{\"External id\":7,\"correlation\":42,\"device\":0,\"stream\":7}}"
    "]}";

static int setup(void **st)
{
	*st = tu_fx_load(trace);
	return *st ? 0 : -1;
}

static int teardown(void **st)
{
	tu_fx_free(*st);
	return 0;
}

static char *json_row(const struct sc_table *t, const void *row, const struct sc_ctx *x,
		      const char *const *sel)
{
	struct jsonw w;
	size_t len;
	char *out;

	jsonw_init_mem(&w, 0, 0);
	sc_json_row(&w, t, row, x, sel);
	assert_int_equal(jsonw_finish(&w, NULL), NNS_OK);
	out = jsonw_take(&w, &len);
	jsonw_release(&w);
	assert_non_null(out);
	out[len - 1] = '\0'; /* the trailing newline */
	return out;
}

static void test_json_csv(void **st)
{
	struct tu_fx *f = *st;
	const struct sc_ctx x = {&f->m, 0, NULL};
	char *s, *buf = NULL;
	size_t len = 0;
	FILE *mf;

	assert_int_equal(f->p.kernels.by_name.n, 1);
	/* gemm carries no "blocks per SM" / "est. achieved occupancy %" (as
	 * AMD and MTIA kernels): unknown, null, not a measured 0 */
	s = json_row(&sc_kernels, &f->p.kernels.by_name.v[0], &x, sc_kernel_groups[0].cols);
	assert_string_equal(s, "{\"name\":\"gemm\",\"calls\":1,\"total_us\":30,\"mean_us\":30,"
			       "\"min_us\":30,\"max_us\":30,\"mean_blocks_per_sm\":null,"
			       "\"mean_occupancy\":null,\"tensor_core\":false}");
	free(s);
	assert_int_equal(f->p.kernels.by_properties.n, 1);
	s = json_row(&sc_kernels, &f->p.kernels.by_properties.v[0], &x,
		     (const char *const[]){"name", "op_name", NULL});
	assert_string_equal(s, "{\"name\":\"gemm\",\"op_name\":\"aten::mm\"}");
	free(s);

	/* the unpaired allocation: free and duration are null */
	assert_int_equal(f->p.memory.devices.n, 1);
	{
		const struct an_mem_device *d = &f->p.memory.devices.v[0];
		const struct sc_ctx dx = {&f->m, 0, d};

		assert_int_equal(d->events.n, 1);
		s = json_row(&sc_memory_allocs, &d->events.v[0], &dx, NULL);
		assert_string_equal(s, "{\"device\":\"GPU0\",\"op\":\"aten::mm\",\"op_name\":"
				       "\"aten::mm\",\"parent_op\":null,\"size\":4096,"
				       "\"alloc_us\":70,\"free_us\":null,\"duration_us\":null}");
		free(s);
	}

	mf = open_memstream(&buf, &len);
	assert_non_null(mf);
	sc_csv_header(mf, &sc_kernels, sc_kernel_groups[0].cols);
	sc_csv_row(mf, &sc_kernels, &f->p.kernels.by_name.v[0], &x, sc_kernel_groups[0].cols);
	sc_csv_header(mf, &sc_steps, (const char *const[]){"name:step", "total_us", NULL});
	fclose(mf);
	assert_string_equal(buf, "name,calls,total_us,mean_us,min_us,max_us,mean_blocks_per_sm,"
				 "mean_occupancy,tensor_core\n"
				 "gemm,1,30,30,30,30,,,false\n"
				 "step,total_us\n");
	free(buf);
}

static void test_terminal(void **st)
{
	struct tu_fx *f = *st;
	const struct sc_ctx x = {&f->m, 0, &f->p.memory.devices.v[0]};
	static const char *const sel[] = {"name:Op", "size", "alloc_us", "free_us", NULL};
	struct tb_col cols[4];
	struct table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	assert_non_null(mf);
	assert_int_equal(sc_term_cols(cols, 4, &sc_memory_allocs, sel, TB_TRUNC_END), 3);
	/* "name" is not a column of memory_allocations: only three remain */
	tb_init(&t, cols, 3);
	sc_term_row(&t, &sc_memory_allocs, &f->p.memory.devices.v[0].events.v[0], &x, sel);
	tb_print(&t, mf, 0, 0, 0);
	tb_release(&t);
	fclose(mf);
	/* 4096 bytes as KiB, 70 µs, and "-" for the missing free */
	assert_non_null(strstr(buf, "Size"));
	assert_non_null(strstr(buf, "Alloc µs"));
	assert_non_null(strstr(buf, "4.00 KiB"));
	assert_non_null(strstr(buf, "70"));
	assert_non_null(strstr(buf, "-"));
	free(buf);

	/* the kernel's unknown blocks/SM and occupancy print as "-" */
	{
		static const char *const ks[] = {"name", "mean_blocks_per_sm", "mean_occupancy",
						 NULL};
		const struct sc_ctx kx = {&f->m, 0, NULL};

		buf = NULL;
		len = 0;
		assert_non_null(mf = open_memstream(&buf, &len));
		assert_int_equal(sc_term_cols(cols, 4, &sc_kernels, ks, TB_TRUNC_END), 3);
		tb_init(&t, cols, 3);
		sc_term_row(&t, &sc_kernels, &f->p.kernels.by_name.v[0], &kx, ks);
		tb_print(&t, mf, 0, 0, 0);
		tb_release(&t);
		fclose(mf);
		assert_non_null(strstr(buf, "gemm"));
		assert_null(strstr(buf, " 0"));
		assert_non_null(strstr(strstr(buf, "gemm"), "-"));
		free(buf);
	}
}

static double q_double(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	double v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -1.0 : sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	return v;
}

static void test_sqlite(void **st)
{
	struct tu_fx *f = *st;
	struct nns_err err = {0};
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sc_sql_create_results(db, &err), NNS_OK);
	assert_int_equal(sc_sql_results(db, 3, &f->p, &err), NNS_OK);
	/* hand-computed: the kernel is 30 µs, launched by aten::mm */
	assert_true(q_double(db, "SELECT total_us FROM kernels WHERE worker_id = 3") == 30.0);
	assert_true(q_double(db, "SELECT count(*) FROM kernels_by_properties WHERE op_name = "
				 "'aten::mm' AND grid IS NOT NULL") == 1.0);
	assert_true(q_double(db, "SELECT device_total_us FROM operators WHERE name = "
				 "'aten::mm'") == 30.0);
	assert_true(q_double(db, "SELECT host_total_us FROM operators WHERE name = "
				 "'aten::mm'") == 100.0);
	assert_true(q_double(db, "SELECT calls FROM operators WHERE name = 'aten::mm'") == 1.0);
	/* booleans are 0/1 integers, absent values NULL */
	assert_true(q_double(db, "SELECT typeof(tensor_core) = 'integer' AND tensor_core = 0 "
				 "FROM kernels") == 1.0);
	assert_true(q_double(db, "SELECT alloc_us FROM memory_allocations WHERE device = "
				 "'GPU0' AND size = 4096") == 70.0);
	assert_true(q_double(db, "SELECT free_us IS NULL AND duration_us IS NULL FROM "
				 "memory_allocations") == 1.0);
	assert_true(q_double(db, "SELECT count(*) FROM steps") == 1.0);
	/* HTA: the one kernel (30 µs) is all the device's time: 100 % compute */
	assert_true(q_double(db, "SELECT total_us FROM temporal WHERE device = 0") == 30.0);
	assert_true(q_double(db, "SELECT compute_pct FROM temporal") == 100.0);
	assert_true(q_double(db, "SELECT events FROM idle WHERE stream = 7") == 1.0);
	/* the operator tables show the columns of their grouping only */
	assert_int_equal(sqlite3_exec(db, "SELECT input_shape FROM operators", NULL, NULL, NULL),
			 SQLITE_ERROR);
	assert_int_equal(
	    sqlite3_exec(db, "SELECT input_shape FROM operators_by_name_shape", NULL, NULL, NULL),
	    SQLITE_OK);
	/* a second worker goes beside the first */
	assert_int_equal(sc_sql_results(db, 4, &f->p, &err), NNS_OK);
	assert_true(q_double(db, "SELECT count(DISTINCT worker_id) FROM kernels") == 2.0);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_descriptions),
	    cmocka_unit_test(test_pick),
	    cmocka_unit_test_setup_teardown(test_json_csv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_terminal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sqlite, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
