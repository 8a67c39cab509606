/*
 * test_sqlite_out.c - unit tests of the SQLite export (src/output/
 * sqlite_out.c, sqlite_rows.c) on a hand-written Kineto trace whose
 * answers are worked out below: events and their attribution (op_id,
 * parent_id, launch_id), launch parameters, memory records, the views
 * kernel_time_per_operator and step_time, two workers in one database with
 * their own strings, and the atomic file handling (an unwritable path, an
 * aborted export and a replaced file leave no debris).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "output/sqlite_out.h"
#include "testutil.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One step on thread (1,1), two operators each launching one device
 * event, a memcpy launched from aten::add, a [memory] record. In µs:
 *   ProfilerStep#1  user_annotation [0,100)
 *   aten::conv      cpu_op [10,50)  ext 5
 *     cudaLaunchKernel [20,25) corr 7  -> kernel k1 [30,50)  = 20 us, stream 7
 *   aten::add       cpu_op [60,80)  ext 6
 *     cudaLaunchKernel [65,68) corr 8  -> kernel k2 [70,80)  = 10 us
 *     cudaMemcpyAsync  [75,77) corr 9  -> gpu_memcpy [85,90) 1024 bytes
 *   [memory] at 15: addr 100, +512 bytes, totals 512 / 2048, CUDA device 0
 * Ids go by kind name, then start (sqlite_rows.c): cpu_op conv 0, add 1;
 * cuda_runtime launch 2, launch 3, memcpy launch 4; gpu_memcpy memcpy 5;
 * kernel k1 6, k2 7; user_annotation step 8.
 * Expected: 9 events; k1 -> aten::conv (op_id 0), k2 and the copy ->
 * aten::add (op_id 1); kernel time per operator conv 20, add 10; the step
 * launched 3 device events, 30 us of kernels, and lasts 100 us (its host
 * end is after the last device end at 90). */
/* clang-format off */
static const char JSON[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,\"args\":{}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":40,\"args\":{\"External id\":5}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"args\":{\"External id\":5,\"correlation\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":20,\"args\":{\"correlation\":7,\"device\":0,\"stream\":7,\"grid\":[2,1,1],\"block\":[32,1,1],\"registers per thread\":16,\"shared memory\":0,\"blocks per SM\":0.5,\"est. achieved occupancy %\":25}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":20,\"args\":{\"External id\":6,\"Input Dims\":[[2,3],[2,3]]}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":65,\"dur\":3,\"args\":{\"External id\":6,\"correlation\":8}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":10,\"args\":{\"correlation\":8,\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":75,\"dur\":2,\"args\":{\"External id\":6,\"correlation\":9}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,\"ts\":85,\"dur\":5,\"args\":{\"correlation\":9,\"device\":0,\"stream\":7,\"bytes\":1024}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":15,\"args\":{\"Addr\":100,\"Bytes\":512,\"Total Allocated\":512,\"Total Reserved\":2048,\"Device Type\":1,\"Device Id\":0}}"
    "]}";
/* clang-format on */

struct fx {
	struct model m;
	struct an_profile p;
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(tu_kineto_profile(JSON, &f->m, &f->p), 0);
	snprintf(f->dir, sizeof(f->dir), "/tmp/nns-sqlite-unit.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/t.db", f->dir);
	*state = f;
	return 0;
}

/* Number of entries in dir besides . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	unlink(f->path);
	rmdir(f->dir);
	an_profile_release(&f->p);
	model_release(&f->m);
	free(f);
	return 0;
}

static sqlite3 *open_db(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

/* The first column of the first row of sql as an integer (-999 when NULL
 * or no row) or as text into buf. */
static int64_t qi(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -999;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static double qd(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	double v = -999;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

static const char *qs(sqlite3 *db, const char *sql, char *buf, size_t size)
{
	sqlite3_stmt *st;

	buf[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

static void write_one(struct fx *f)
{
	struct out_sqlite_item it = {"run", "w0", NULL, "t.json", &f->p};
	struct nns_err err;

	nns_err_clear(&err);
	if (out_sqlite_write(f->path, &it, 1, NULL, NULL, &err))
		fail_msg("%s", err.msg);
}

static void test_events(void **state)
{
	struct fx *f = *state;
	char buf[256];
	sqlite3 *db;

	write_one(f);
	assert_int_equal(entries(f->dir), 1); /* the database, no temporary */
	db = open_db(f->path);
	assert_int_equal(qi(db, "SELECT count(*) FROM events"), 9);
	assert_int_equal(qi(db, "SELECT count(*) FROM events WHERE kind = 'kernel'"), 2);
	assert_int_equal(qi(db, "SELECT count(*) FROM events WHERE kind = 'cuda_runtime'"), 3);
	assert_int_equal(qi(db, "SELECT id FROM events WHERE name = 'aten::conv'"), 0);
	assert_int_equal(qi(db, "SELECT id FROM events WHERE name = 'aten::add'"), 1);
	assert_int_equal(qi(db, "SELECT id FROM events WHERE name = 'k1'"), 6);
	assert_int_equal(qi(db, "SELECT id FROM events WHERE name = 'ProfilerStep#1'"), 8);
	/* attribution */
	assert_int_equal(qi(db, "SELECT op_id FROM events WHERE name = 'k1'"), 0);
	assert_int_equal(qi(db, "SELECT op_id FROM events WHERE name = 'k2'"), 1);
	assert_int_equal(qi(db, "SELECT op_id FROM events WHERE kind = 'gpu_memcpy'"), 1);
	assert_int_equal(qi(db, "SELECT op_id FROM events WHERE name = 'cudaMemcpyAsync'"), 1);
	assert_string_equal(
	    qs(db, "SELECT op_name FROM events WHERE name = 'k1'", buf, sizeof(buf)), "aten::conv");
	assert_int_equal(qi(db, "SELECT op_id FROM events WHERE name = 'aten::conv'"), -999);
	assert_int_equal(qi(db, "SELECT parent_id FROM events WHERE name = 'aten::conv'"), 8);
	assert_int_equal(qi(db, "SELECT parent_id FROM events WHERE name = 'ProfilerStep#1'"),
			 -999);
	assert_int_equal(qi(db, "SELECT launch_id FROM events WHERE name = 'k1'"), 2);
	assert_int_equal(qi(db, "SELECT launch_id FROM events WHERE kind = 'gpu_memcpy'"), 4);
	/* times, threads, launch parameters, operator args */
	assert_int_equal(qi(db, "SELECT ts_ns FROM events WHERE name = 'k1'"), 30000);
	assert_int_equal(qi(db, "SELECT dur_ns FROM events WHERE name = 'k1'"), 20000);
	assert_string_equal(qs(db, "SELECT tid FROM events WHERE name = 'k1'", buf, sizeof(buf)),
			    "7");
	assert_int_equal(qi(db, "SELECT stream FROM events WHERE name = 'k1'"), 7);
	assert_int_equal(qi(db, "SELECT device FROM events WHERE name = 'k1'"), 0);
	assert_int_equal(qi(db, "SELECT correlation FROM events WHERE name = 'k1'"), 7);
	assert_int_equal(qi(db, "SELECT external_id FROM events WHERE name = 'aten::add'"), 6);
	assert_string_equal(qs(db, "SELECT grid FROM events WHERE name = 'k1'", buf, sizeof(buf)),
			    "[2, 1, 1]");
	assert_int_equal(qi(db, "SELECT registers_per_thread FROM events WHERE name = 'k1'"), 16);
	assert_true(qd(db, "SELECT occupancy FROM events WHERE name = 'k1'") == 25.0);
	assert_true(qd(db, "SELECT blocks_per_sm FROM events WHERE name = 'k1'") == 0.5);
	assert_int_equal(qi(db, "SELECT grid IS NULL FROM events WHERE name = 'k2'"), 1);
	assert_int_equal(qi(db, "SELECT bytes FROM events WHERE kind = 'gpu_memcpy'"), 1024);
	assert_string_equal(
	    qs(db, "SELECT input_dims FROM events WHERE name = 'aten::add'", buf, sizeof(buf)),
	    "[[2, 3], [2, 3]]");
	/* memory record */
	assert_int_equal(qi(db, "SELECT count(*) FROM memory_events"), 1);
	assert_int_equal(qi(db, "SELECT bytes FROM memory_events"), 512);
	assert_int_equal(qi(db, "SELECT total_reserved FROM memory_events"), 2048);
	assert_int_equal(qi(db, "SELECT device_type FROM memory_events"), 1);
	assert_int_equal(qi(db, "SELECT ts_ns FROM memory_events"), 15000);
	assert_int_equal(qi(db, "SELECT peak_reserved_bytes FROM memory_peak"), 2048);
	/* workers and meta */
	assert_int_equal(qi(db, "SELECT count(*) FROM workers"), 1);
	assert_string_equal(qs(db, "SELECT worker FROM workers", buf, sizeof(buf)), "w0");
	assert_int_equal(qi(db, "SELECT span IS NULL FROM workers"), 1);
	assert_int_equal(qi(db, "SELECT events FROM workers"), 9);
	assert_int_equal(qi(db, "SELECT truncated FROM workers"), 0);
	assert_int_equal(qi(db, "SELECT value FROM meta WHERE key = 'format_version'"),
			 OUT_SQLITE_FORMAT);
	sqlite3_close(db);
}

static void test_views(void **state)
{
	struct fx *f = *state;
	sqlite3 *db;

	write_one(f);
	db = open_db(f->path);
	assert_true(qd(db, "SELECT kernel_us FROM kernel_time_per_operator"
			   " WHERE op_name = 'aten::conv'") == 20.0);
	assert_true(qd(db, "SELECT kernel_us FROM kernel_time_per_operator"
			   " WHERE op_name = 'aten::add'") == 10.0);
	assert_int_equal(qi(db, "SELECT count(*) FROM kernel_time_per_operator"), 2);
	assert_int_equal(qi(db, "SELECT device_events FROM step_time"), 3);
	assert_true(qd(db, "SELECT kernel_us FROM step_time") == 30.0);
	assert_true(qd(db, "SELECT duration_us FROM step_time") == 100.0);
	assert_true(qd(db, "SELECT total_us FROM top_kernels WHERE name = 'k1'") == 20.0);
	/* stream 7: k1 [30,50), k2 [70,80), copy [85,90): gaps 20 and 5 us */
	assert_int_equal(qi(db, "SELECT count(*) FROM stream_gaps"), 2);
	assert_true(qd(db, "SELECT sum(gap_us) FROM stream_gaps") == 25.0);
	sqlite3_close(db);
}

/* Two workers: ids 1 and 2, each with its own strings; the second's
 * events numbered after the first's 9 (k2: 9 + 7, its operator 9 + 1). */
static void test_two_workers(void **state)
{
	struct fx *f = *state;
	struct out_sqlite_item it[2] = {{"run", "w0", NULL, "a.json", &f->p},
					{"run", "w1", "2", "b.json", &f->p}};
	struct nns_err err;
	char buf[64];
	sqlite3 *db;

	nns_err_clear(&err);
	if (out_sqlite_write(f->path, it, 2, NULL, NULL, &err))
		fail_msg("%s", err.msg);
	db = open_db(f->path);
	assert_int_equal(qi(db, "SELECT count(*) FROM events"), 18);
	assert_int_equal(qi(db, "SELECT count(*) FROM events WHERE name = 'k1'"), 2);
	assert_int_equal(qi(db, "SELECT count(DISTINCT worker_id) FROM events WHERE name = 'k1'"),
			 2);
	assert_string_equal(qs(db, "SELECT op_name FROM events WHERE worker_id = 2 AND name = 'k2'",
			       buf, sizeof(buf)),
			    "aten::add");
	assert_int_equal(qi(db, "SELECT id FROM events WHERE worker_id = 2 AND name = 'k2'"), 16);
	assert_int_equal(qi(db, "SELECT op_id FROM events WHERE worker_id = 2 AND name = 'k2'"),
			 10);
	assert_int_equal(qi(db, "SELECT op_id FROM events WHERE worker_id = 1 AND name = 'k2'"), 1);
	assert_string_equal(qs(db, "SELECT span FROM workers WHERE id = 2", buf, sizeof(buf)), "2");
	assert_int_equal(qi(db, "SELECT count(*) FROM kernel_time_per_operator"), 4);
	sqlite3_close(db);
}

static void test_atomic(void **state)
{
	struct fx *f = *state;
	struct out_sqlite_item it = {"run", "w0", NULL, "t.json", &f->p};
	struct out_sqlite *s;
	struct nns_err err;
	char bad[160];
	FILE *fp;

	/* a directory that does not exist: NNS_EIO naming the path */
	snprintf(bad, sizeof(bad), "%s/no/such/dir.db", f->dir);
	nns_err_clear(&err);
	assert_int_equal(out_sqlite_write(bad, &it, 1, NULL, NULL, &err), NNS_EIO);
	assert_non_null(strstr(err.msg, bad));
	assert_int_equal(entries(f->dir), 0);
	/* an aborted export leaves nothing, an existing file untouched */
	fp = fopen(f->path, "w");
	assert_non_null(fp);
	fputs("old", fp);
	fclose(fp);
	nns_err_clear(&err);
	assert_int_equal(out_sqlite_open(&s, f->path, &err), NNS_OK);
	assert_int_equal(out_sqlite_add(s, &it, NULL, &err), NNS_OK);
	assert_true(out_sqlite_rows(s) >= 9);
	assert_int_equal(entries(f->dir), 2); /* the old file and the temporary */
	out_sqlite_abort(s);
	assert_int_equal(entries(f->dir), 1);
	{
		struct stat sb;
		assert_int_equal(stat(f->path, &sb), 0);
		assert_int_equal(sb.st_size, 3);
	}
	/* a complete export replaces it */
	write_one(f);
	assert_int_equal(entries(f->dir), 1);
	{
		sqlite3 *db = open_db(f->path);
		assert_int_equal(qi(db, "SELECT count(*) FROM events"), 9);
		sqlite3_close(db);
	}
}

/* The rows only nnscope traces and counters/flows carry, on a model built
 * by hand: one thread, an event, a queue sample, one CPU sample of each
 * kind, an instant, a counter, a flow pair, a metadata pair. */
static void test_other_rows(void **state)
{
	struct fx *f = *state;
	struct model m;
	struct an_profile p;
	struct nns_err err;
	struct model_event e;
	struct model_queue qu = {1000, 3, 8, 0, 0};
	struct model_instant in = {2000, 0, 0};
	struct model_counter co = {3000, 42.5, 0, 0};
	struct model_flow fs = {1500, 77, 0, MF_FWDBWD, 's'}, ff = {2500, 77, 0, MF_FWDBWD, 'f'};
	struct model_sample sm[3];
	struct out_sqlite_item it = {NULL, "nnst", NULL, NULL, &p};
	uint32_t th;
	char buf[64];
	sqlite3 *db;

	assert_int_equal(model_init(&m), 0);
	th = model_thread(&m, model_intern(&m, "4242", 4), model_intern(&m, "4243", 4));
	model_event_init(&e);
	e.ts = 0;
	e.dur = 5000;
	e.thread = th;
	e.kind = MK_USER_ANNOTATION;
	e.name = model_intern(&m, "train", 5);
	assert_true(model_add_event(&m, &e) >= 0);
	qu.name = model_intern(&m, "loader", 6);
	qu.thread = th;
	assert_int_equal(model_add_queue(&m, &qu), 0);
	in.name = model_intern(&m, "epoch 1", 7);
	in.thread = th;
	assert_int_equal(model_add_instant(&m, &in), 0);
	co.name = model_intern(&m, "power.watts", 11);
	co.thread = th;
	assert_int_equal(model_add_counter(&m, &co), 0);
	fs.thread = ff.thread = th;
	assert_int_equal(model_add_flow(&m, &fs), 0);
	assert_int_equal(model_add_flow(&m, &ff), 0);
	memset(sm, 0, sizeof(sm));
	sm[0] = (struct model_sample){.ts = 1000,
				      .kind = MS_MACHINE,
				      .user = 50,
				      .idle = 40,
				      .running = 3,
				      .ctx_switches = 900,
				      .thread = MODEL_NOIDX};
	sm[1] = (struct model_sample){
	    .ts = 1000, .kind = MS_PROCESS, .user = 20, .rss_kb = 2048, .thread = MODEL_NOIDX};
	sm[2] = (struct model_sample){
	    .ts = 1000, .kind = MS_THREAD, .tid = 4243, .sys = 7, .thread = th};
	for (int i = 0; i < 3; i++)
		assert_int_equal(model_add_sample(&m, &sm[i]), 0);
	assert_int_equal(model_add_meta(&m, "host", "node1"), 0);
	nns_err_clear(&err);
	assert_int_equal(model_finalize(&m, &err), 0);
	memset(&p, 0, sizeof(p));
	assert_int_equal(an_profile_compute(&p, &m, &err), 0);
	if (out_sqlite_write(f->path, &it, 1, NULL, NULL, &err))
		fail_msg("%s", err.msg);
	db = open_db(f->path);
	assert_int_equal(qi(db, "SELECT count(*) FROM events"), 1);
	assert_string_equal(qs(db, "SELECT kind FROM events", buf, sizeof(buf)), "user_annotation");
	assert_string_equal(qs(db, "SELECT pid FROM events", buf, sizeof(buf)), "4242");
	assert_int_equal(qi(db, "SELECT size FROM queues WHERE name = 'loader'"), 3);
	assert_int_equal(qi(db, "SELECT capacity FROM queues"), 8);
	assert_int_equal(qi(db, "SELECT ts_ns FROM instants WHERE name = 'epoch 1'"), 2000);
	assert_true(qd(db, "SELECT value FROM counters WHERE name = 'power.watts'") == 42.5);
	assert_int_equal(
	    qi(db, "SELECT count(*) FROM flows WHERE flow_id = 77 AND kind = 'fwdbwd'"), 2);
	assert_string_equal(qs(db, "SELECT ph FROM flows ORDER BY ts_ns LIMIT 1", buf, sizeof(buf)),
			    "s");
	assert_int_equal(qi(db, "SELECT ctx_switches FROM samples WHERE kind = 'machine'"), 900);
	assert_int_equal(qi(db, "SELECT running FROM samples WHERE kind = 'machine'"), 3);
	assert_int_equal(qi(db, "SELECT rss_kb FROM samples WHERE kind = 'process'"), 2048);
	assert_int_equal(qi(db, "SELECT rss_kb FROM samples WHERE kind = 'thread'"), -999);
	assert_int_equal(qi(db, "SELECT tid FROM samples WHERE kind = 'thread'"), 4243);
	assert_true(qd(db, "SELECT sys_pct FROM samples WHERE kind = 'thread'") == 7.0);
	assert_string_equal(
	    qs(db, "SELECT value FROM worker_meta WHERE key = 'host'", buf, sizeof(buf)), "node1");
	assert_string_equal(qs(db, "SELECT tid FROM threads", buf, sizeof(buf)), "4243");
	sqlite3_close(db);
	an_profile_release(&p);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_events, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_views, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_workers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_atomic, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_other_rows, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
