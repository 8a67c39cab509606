/*
 * test_sqlite_begin.c - the SQLite export's rows written on a thread
 * while the profile is computed (out_sqlite_begin / out_sqlite_add /
 * out_sqlite_cancel, src/output/sqlite_out.c): the database is the one
 * out_sqlite_add alone writes, value for value; a cancelled worker leaves
 * nothing (the next worker gets the ids it would have had); an abort while
 * the thread runs leaves no file; a commit with a worker begun and not
 * added fails and leaves no file. A worker with more events than the
 * thread keeps (sqlite_part.c) has part of them written on the caller's
 * thread into a part database and copied in: the same database again.
 *
 * Databases are compared by a digest of every row of every table (names
 * in order; rows in rowid or primary key order; each value's type and
 * text), so any value, row or table that differs changes it.
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
#include <unistd.h>

/* A step, an operator launching a kernel, a memory record and a flow. */
/* clang-format off */
static const char JSON[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,\"args\":{}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":40,\"args\":{\"External id\":5,\"Input Dims\":[[2,3]]}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"args\":{\"External id\":5,\"correlation\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":20,\"args\":{\"correlation\":7,\"device\":0,\"stream\":7,\"grid\":[2,1,1],\"block\":[32,1,1],\"registers per thread\":16,\"shared memory\":0,\"blocks per SM\":0.5,\"est. achieved occupancy %\":25}},"
    "{\"ph\":\"s\",\"id\":3,\"pid\":1,\"tid\":1,\"ts\":20,\"cat\":\"ac2g\",\"name\":\"ac2g\"},"
    "{\"ph\":\"f\",\"id\":3,\"pid\":0,\"tid\":7,\"ts\":30,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":15,\"args\":{\"Addr\":100,\"Bytes\":512,\"Total Allocated\":512,\"Total Reserved\":2048,\"Device Type\":1,\"Device Id\":0}}"
    "]}";
/* clang-format on */

struct fx {
	struct model m;
	char dir[64];
	char a[128], b[128];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(tu_kineto_profile(JSON, &f->m, NULL), 0);
	snprintf(f->dir, sizeof(f->dir), "/tmp/nns-sqlite-begin.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->a, sizeof(f->a), "%s/a.db", f->dir);
	snprintf(f->b, sizeof(f->b), "%s/b.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	unlink(f->a);
	unlink(f->b);
	rmdir(f->dir);
	model_release(&f->m);
	free(f);
	return 0;
}

static void hash_bytes(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 1099511628211ull;
}

/* The digest of every row of every table of the database at path; *rows
 * receives the number of rows. */
static uint64_t digest(const char *path, int64_t *rows)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *tabs, *st;
	uint64_t h = 14695981039346656037ull;

	*rows = 0;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT name FROM sqlite_master WHERE type = 'table'"
					    " ORDER BY name",
					    -1, &tabs, NULL),
			 SQLITE_OK);
	while (sqlite3_step(tabs) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(tabs, 0);
		char sql[256];

		hash_bytes(&h, name, strlen(name) + 1);
		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\"", name);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			(*rows)++;
			for (int c = 0; c < sqlite3_column_count(st); c++) {
				int type = sqlite3_column_type(st, c);
				const unsigned char *t = sqlite3_column_text(st, c);

				hash_bytes(&h, &type, sizeof(type));
				if (t)
					hash_bytes(&h, t, strlen((const char *)t) + 1);
			}
		}
		sqlite3_finalize(st);
	}
	sqlite3_finalize(tabs);
	sqlite3_close(db);
	return h;
}

static void fail_on(int rc, const struct nns_err *err)
{
	if (rc)
		fail_msg("%s", err->msg);
}

/* Adds worker it (profile p over m) to s: begun on the thread while the
 * passes run, or (begin 0) the passes first and out_sqlite_add alone. */
static void add_model(struct model *m, struct out_sqlite *s, struct out_sqlite_item *it,
		      struct an_profile *p, int begin)
{
	struct nns_err err;

	nns_err_clear(&err);
	an_profile_init(p, m);
	it->p = p;
	if (begin)
		fail_on(out_sqlite_begin(s, it, &err), &err);
	fail_on(an_profile_run_base(p, &err), &err);
	fail_on(out_sqlite_add(s, it, NULL, &err), &err);
}

static void add(struct fx *f, struct out_sqlite *s, struct out_sqlite_item *it,
		struct an_profile *p, int begin)
{
	add_model(&f->m, s, it, p, begin);
}

/* Writes two workers over m into path, begun on the thread or not; the
 * rows written and, of them, those copied in from part databases. */
static void write_two(struct model *m, const char *path, int begin, int64_t *rows, int64_t *parts)
{
	struct out_sqlite_item it[2] = {{"run", "w0", NULL, "a.json", NULL},
					{"run", "w1", "2", "b.json", NULL}};
	struct an_profile p[2];
	struct out_sqlite *s;
	struct nns_err err;

	nns_err_clear(&err);
	fail_on(out_sqlite_open(&s, path, &err), &err);
	for (int w = 0; w < 2; w++)
		add_model(m, s, &it[w], &p[w], begin);
	*rows = out_sqlite_rows(s);
	*parts = out_sqlite_part_rows(s);
	fail_on(out_sqlite_commit(s, &err), &err);
	for (int w = 0; w < 2; w++)
		an_profile_release(&p[w]);
}

/* Two workers begun on the thread: the database out_sqlite_add writes. */
static void test_begin_same_rows(void **state)
{
	struct fx *f = *state;
	int64_t ra, rb, wa, wb, pa, pb;

	write_two(&f->m, f->a, 0, &wa, &pa);
	write_two(&f->m, f->b, 1, &wb, &pb);
	assert_int_equal(wa, wb);
	assert_int_equal(pa + pb, 0); /* too few events to split */
	assert_true(digest(f->a, &ra) == digest(f->b, &rb));
	assert_int_equal(ra, rb);
	assert_true(ra > 20);
}

/* A worker begun then cancelled between two others leaves no row: the
 * database of the other two alone. */
static void test_cancel(void **state)
{
	struct fx *f = *state;
	struct out_sqlite_item w0 = {"run", "w0", NULL, "a.json", NULL},
			       w1 = {"run", "w1", NULL, "b.json", NULL},
			       w2 = {"run", "w2", NULL, "c.json", NULL};
	struct an_profile p0, p1, p2;
	struct out_sqlite *s;
	struct nns_err err;
	int64_t ra, rb, wa, wb;

	nns_err_clear(&err);
	fail_on(out_sqlite_open(&s, f->a, &err), &err);
	add(f, s, &w0, &p0, 0);
	add(f, s, &w2, &p2, 0);
	wa = out_sqlite_rows(s);
	fail_on(out_sqlite_commit(s, &err), &err);
	an_profile_release(&p0);
	an_profile_release(&p2);

	fail_on(out_sqlite_open(&s, f->b, &err), &err);
	add(f, s, &w0, &p0, 1);
	an_profile_init(&p1, &f->m);
	w1.p = &p1;
	fail_on(out_sqlite_begin(s, &w1, &err), &err);
	fail_on(an_profile_run_base(&p1, &err), &err);
	fail_on(out_sqlite_cancel(s, &w1, &err), &err);
	/* a second cancel, or one of a worker never begun: nothing */
	fail_on(out_sqlite_cancel(s, &w1, &err), &err);
	fail_on(out_sqlite_cancel(s, &w0, &err), &err);
	add(f, s, &w2, &p2, 1);
	wb = out_sqlite_rows(s);
	fail_on(out_sqlite_commit(s, &err), &err);
	an_profile_release(&p0);
	an_profile_release(&p1);
	an_profile_release(&p2);

	assert_int_equal(wa, wb);
	assert_true(digest(f->a, &ra) == digest(f->b, &rb));
	assert_int_equal(ra, rb);
}

/* Number of entries in f->dir besides . and .. */
static int entries(const struct fx *f)
{
	DIR *d = opendir(f->dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* n operators, each launching a kernel: 3n events, the kernels' ids after
 * every operator's and launch's (kinds by name), their op_id and
 * launch_id pointing back across the split. */
static char *big_json(int n)
{
	size_t size = (size_t)n * 600 + 64, k;
	char *j = malloc(size);

	assert_non_null(j);
	k = (size_t)snprintf(j, size, "{\"traceEvents\":[");
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(
		    j + k, size - k,
		    "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,"
		    "\"ts\":%d,\"dur\":8,\"args\":{\"External id\":%d}},"
		    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":"
		    "1,"
		    "\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},"
		    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,"
		    "\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
		    i ? "," : "", i % 50, i * 10, i + 1, i * 10 + 1, i + 1, i % 90, i * 10 + 4,
		    i + 1);
	snprintf(j + k, size - k, "]}");
	return j;
}

/* Two workers of 150k events, begun on the thread: part of the events go
 * through a part database, and the database is the one out_sqlite_add
 * alone writes, row for row. */
static void test_split_same_rows(void **state)
{
	struct fx *f = *state;
	char *json = big_json(50000);
	struct model big;
	int64_t ra, rb, wa, wb, pa, pb;

	assert_int_equal(tu_kineto_profile(json, &big, NULL), 0);
	free(json);
	assert_int_equal(big.events.n, 150000);
	write_two(&big, f->a, 0, &wa, &pa);
	write_two(&big, f->b, 1, &wb, &pb);
	model_release(&big);
	assert_int_equal(pa, 0);
	assert_true(pb > 0);
	assert_int_equal(wa, wb);
	assert_true(digest(f->a, &ra) == digest(f->b, &rb));
	assert_int_equal(ra, rb);
	assert_true(ra > 300000);
	assert_int_equal(entries(f), 2); /* no part database left */
}

/* An abort while the thread runs, and a commit of a worker begun and not
 * added, leave no file. */
static void test_abort_while_begun(void **state)
{
	struct fx *f = *state;
	struct out_sqlite_item it = {"run", "w0", NULL, "a.json", NULL};
	struct an_profile p;
	struct out_sqlite *s;
	struct nns_err err;

	for (int commit = 0; commit < 2; commit++) {
		nns_err_clear(&err);
		fail_on(out_sqlite_open(&s, f->a, &err), &err);
		an_profile_init(&p, &f->m);
		it.p = &p;
		fail_on(out_sqlite_begin(s, &it, &err), &err);
		/* one worker at a time */
		assert_int_equal(out_sqlite_begin(s, &it, &err), NNS_EINVAL);
		if (commit) {
			nns_err_clear(&err);
			assert_int_equal(out_sqlite_commit(s, &err), NNS_EIO);
			assert_non_null(strstr(err.msg, "not added"));
		} else {
			out_sqlite_abort(s);
		}
		an_profile_release(&p);
		assert_int_equal(entries(f), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_begin_same_rows, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_abort_while_begun, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_split_same_rows, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
