/*
 * test_sqlite_src.c - the SQLite export's row source
 * (src/output/sqlite_src.c): the raw tables get every row once, in the
 * model's order, with each row's own values, whatever the row count:
 * none, one, a few and many.
 *
 * The model: n user_annotation events on one thread, event i at ts
 * 1000 * i + 7 ns, 10 ns long, with correlation 100 + i on every third
 * event only (i % 3 == 0: a value of an earlier row would leak into a
 * later row's NULL if the source did not clear each row's values); n
 * flows, flow i at ts 1000 * i, id i, ph 's' for even i and 'f' for odd.
 * Expected, by hand: count n;
 * sum(ts_ns) = 1000 * n(n-1)/2 + 7n; t = ceil(n/3) correlations summing
 * to 100 t + 3 (0 + 1 + ... + t-1) = 100 t + 3 t(t-1)/2;
 * flows in rowid order spell "sfsf..."; rows counted = events + flows +
 * 1 thread + the model's strings + 2 meta rows + 1 worker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "output/sqlite_int.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Exports the model of n events and n flows; checks the tables. */
static void check_rows(int n)
{
	char dir[] = "/tmp/nns-sqlite-src.XXXXXX", path[64];
	struct model m;
	struct an_profile p;
	struct nns_err err;
	struct out_sqlite_item it = {"run", "w0", NULL, NULL, &p};
	struct out_sqlite *s;
	int64_t rows, t = (n + 2) / 3;
	char *want = calloc((size_t)n + 1, 1);
	uint32_t th;
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_non_null(want);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/b.db", dir);
	assert_int_equal(model_init(&m), 0);
	th = model_thread(&m, model_intern(&m, "1", 1), model_intern(&m, "2", 1));
	for (int i = 0; i < n; i++) {
		struct model_event e;
		struct model_flow fl = {1000 * (int64_t)i, i, th, MF_FWDBWD, i % 2 ? 'f' : 's'};

		model_event_init(&e);
		e.ts = 1000 * (int64_t)i + 7;
		e.dur = 10;
		e.thread = th;
		e.kind = MK_USER_ANNOTATION;
		e.name = model_intern(&m, "step", 4);
		if (i % 3 == 0)
			assert_int_equal(model_id_enc(&m, 100 + i, &e.corr_enc), 0);
		assert_true(model_add_event(&m, &e) >= 0);
		assert_int_equal(model_add_flow(&m, &fl), 0);
		want[i] = fl.ph;
	}
	nns_err_clear(&err);
	assert_int_equal(model_finalize(&m, &err), 0);
	memset(&p, 0, sizeof(p));
	assert_int_equal(an_profile_compute(&p, &m, &err), 0);
	if (out_sqlite_open(&s, path, &err) || out_sqlite_add(s, &it, NULL, &err))
		fail_msg("n=%d: %s", n, err.msg);
	rows = out_sqlite_rows(s);
	if (out_sqlite_commit(s, &err))
		fail_msg("n=%d: %s", n, err.msg);
	/* + the two meta rows and the worker row */
	assert_int_equal(rows, 2 * (int64_t)n + 1 + (int64_t)m.strings.count + 2 + 1);

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(qi(db, "SELECT count(*) FROM events_raw"), n);
	assert_int_equal(qi(db, "SELECT count(DISTINCT id) FROM events_raw"), n);
	assert_int_equal(qi(db, "SELECT coalesce(sum(ts_ns), 0) FROM events_raw"),
			 1000 * (int64_t)n * (n - 1) / 2 + 7 * (int64_t)n);
	assert_int_equal(qi(db, "SELECT count(*) FROM events_raw WHERE ts_ns = 1000 * id + 7"), n);
	assert_int_equal(qi(db, "SELECT count(correlation) FROM events_raw"), t);
	assert_int_equal(qi(db, "SELECT count(*) FROM events_raw WHERE id % 3 = 0 AND"
				" correlation = 100 + id"),
			 t);
	assert_int_equal(qi(db, "SELECT coalesce(sum(correlation), 0) FROM events_raw"),
			 100 * t + 3 * t * (t - 1) / 2);
	assert_int_equal(qi(db, "SELECT count(*) FROM events WHERE name = 'step'"), n);
	assert_int_equal(qi(db, "SELECT count(*) FROM flows"), n);
	assert_int_equal(qi(db, "SELECT count(*) FROM flows WHERE flow_id * 1000 = ts_ns"), n);
	assert_int_equal(
	    sqlite3_prepare_v2(db, "SELECT ph FROM flows ORDER BY rowid", -1, &st, NULL),
	    SQLITE_OK);
	for (int i = 0; i < n; i++) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(((const char *)sqlite3_column_text(st, 0))[0], want[i]);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
	unlink(path);
	rmdir(dir);
	free(want);
	an_profile_release(&p);
	model_release(&m);
}

static void test_row_counts(void **state)
{
	(void)state;
	check_rows(0);
	check_rows(1);
	check_rows(2);
	check_rows(3);
	check_rows(4);
	check_rows(101);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_row_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
