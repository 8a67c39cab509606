/*
 * sqlite_ins.c - multi-row inserts for the SQLite export's raw tables
 * (sqlite_int.h: struct sq_ins).
 *
 * One row per sqlite3_step costs a statement start and stop per row: the
 * table's cursor is opened, the b-tree descended from its root, and
 * closed again. "INSERT INTO t VALUES (?..),(?..),..." of SQ_INS_ROWS rows
 * keeps the cursor on the last leaf across the rows of a step; on
 * bench/ingest's trace it inserts events_raw's rows about twice as fast.
 * The rows go in the order they are bound, so the table holds exactly what
 * a row-at-a-time insert writes.
 *
 * Usage: sq_ins_open(n rows), then per row sq_ins_row (b->st and b->o:
 * bind column c of the row at parameter b->o + c), bind, sq_ins_done;
 * finally sq_ins_close. A row's parameters start out NULL: bind only the
 * columns that have a value.
 */
#include "output/sqlite_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "INSERT INTO table VALUES (?,..),.." of rows rows of ncol columns. */
static int prepare_rows(struct sq_ins *b, int rows, sqlite3_stmt **st, struct nns_err *err)
{
	size_t size = 32 + strlen(b->table) + (size_t)rows * ((size_t)b->ncol * 2 + 3), k;
	char *sql = malloc(size);
	int rc;

	if (!sql)
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", b->s->path);
	k = (size_t)snprintf(sql, size, "INSERT INTO %s VALUES ", b->table);
	for (int r = 0; r < rows; r++) {
		sql[k++] = r ? ',' : ' ';
		sql[k++] = '(';
		for (int c = 0; c < b->ncol; c++) {
			if (c)
				sql[k++] = ',';
			sql[k++] = '?';
		}
		sql[k++] = ')';
	}
	sql[k] = '\0';
	rc = sq_prepare(b->s, sql, st, err);
	free(sql);
	return rc;
}

void sq_ins_open(struct sq_ins *b, struct out_sqlite *s, const char *table, int ncol, size_t n,
		 const char *what)
{
	int limit = sqlite3_limit(s->db, SQLITE_LIMIT_VARIABLE_NUMBER, -1);

	memset(b, 0, sizeof(*b));
	b->s = s;
	b->table = table;
	b->what = what;
	b->ncol = ncol;
	b->left = n;
	b->batch = SQ_INS_ROWS;
	if (limit > 0 && b->batch > limit / ncol)
		b->batch = limit / ncol > 0 ? limit / ncol : 1;
}

int sq_ins_row(struct sq_ins *b, struct nns_err *err)
{
	if (b->r == 0) {
		/* a new statement: the full batch, or the tail's (once) */
		int rows = b->left < (size_t)b->batch ? (int)b->left : b->batch;

		if (rows <= 0)
			return nns_err_set(err, NNS_EINVAL, "%s: %s: more rows than counted",
					   b->s->path, b->what);
		if (rows == b->batch) {
			if (!b->full && prepare_rows(b, rows, &b->full, err))
				return NNS_EIO;
			b->st = b->full;
		} else {
			sqlite3_finalize(b->tail); /* (there is one tail) */
			b->tail = NULL;
			if (prepare_rows(b, rows, &b->tail, err))
				return NNS_EIO;
			b->st = b->tail;
		}
		b->rows = rows;
	}
	b->o = b->r * b->ncol;
	return NNS_OK;
}

int sq_ins_done(struct sq_ins *b, struct nns_err *err)
{
	int rc;

	b->left--;
	if (++b->r < b->rows)
		return NNS_OK;
	rc = sqlite3_step(b->st);
	sqlite3_reset(b->st);
	sqlite3_clear_bindings(b->st);
	b->r = 0;
	if (rc != SQLITE_DONE)
		return sq_fail(b->s, err, b->what);
	b->s->rows += b->rows;
	return NNS_OK;
}

void sq_ins_close(struct sq_ins *b)
{
	sqlite3_finalize(b->full);
	sqlite3_finalize(b->tail);
	b->full = b->tail = b->st = NULL;
}
