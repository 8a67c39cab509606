/*
 * sqlite_src.c - the rows of the SQLite export's raw tables, served to
 * SQLite as a virtual table (sqlite_int.h: struct sq_src).
 *
 * sq_src_insert runs "INSERT INTO table SELECT c0, .. FROM nns_rows" once
 * per table: nns_rows is an eponymous virtual table of this connection
 * (sqlite3_create_module_v2 in sq_src_register; nothing of it goes into
 * the database's schema) whose cursor asks the source's row function for
 * row 0, 1, ... n - 1 and hands SQLite the values as they are, integers,
 * doubles and the model's strings (SQLITE_STATIC: the model outlives the
 * statement). Columns the source says its rows leave NULL go in the
 * SELECT as NULL literals, which cost SQLite nothing per row. Bound parameters cost a bind per
 * column, a clear per column and a statement start per batch of rows; on bench/ingest's trace this
 * inserts the raw rows about three times as fast as multi-row INSERTs of bound rows, with the same
 * rows in the same order.
 */
#include "output/sqlite_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cursor: the source being inserted and its current row. */
struct src_cur {
	sqlite3_vtab_cursor base; /* first: SQLite's part */
	const struct sq_src *src;
	size_t i;
	struct sq_val v[SQ_SRC_MAXCOL];
};

/* The table: the connection's export, whose s->src is the source. */
struct src_tab {
	sqlite3_vtab base;
	struct out_sqlite *s;
};

static int src_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		       sqlite3_vtab **out, char **msg)
{
	char decl[32 + SQ_SRC_MAXCOL * 5];
	struct src_tab *t;
	size_t k;
	int rc;

	(void)argc;
	(void)argv;
	(void)msg;
	k = (size_t)snprintf(decl, sizeof(decl), "CREATE TABLE x(c0");
	for (int c = 1; c < SQ_SRC_MAXCOL; c++)
		k += (size_t)snprintf(decl + k, sizeof(decl) - k, ",c%d", c);
	snprintf(decl + k, sizeof(decl) - k, ")");
	if ((rc = sqlite3_declare_vtab(db, decl)) != SQLITE_OK)
		return rc;
	if (!(t = sqlite3_malloc(sizeof(*t))))
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->s = aux;
	*out = &t->base;
	return SQLITE_OK;
}

static int src_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int src_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	(void)vt;
	info->estimatedCost = 1e6; /* a full scan, the one plan */
	return SQLITE_OK;
}

static int src_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct src_cur *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->src = ((struct src_tab *)vt)->s->src;
	*out = &c->base;
	return SQLITE_OK;
}

static int src_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* Loads row c->i (every column NULL unless the source sets it). */
static void load_row(struct src_cur *c)
{
	if (c->src && c->i < c->src->n) {
		memset(c->v, 0, sizeof(c->v[0]) * (size_t)c->src->ncol);
		c->src->row(c->src->ctx, c->i, c->v);
	}
}

static int src_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
		      sqlite3_value **argv)
{
	struct src_cur *c = (struct src_cur *)cur;

	(void)idx;
	(void)idx_str;
	(void)argc;
	(void)argv;
	c->i = 0;
	load_row(c);
	return SQLITE_OK;
}

static int src_next(sqlite3_vtab_cursor *cur)
{
	struct src_cur *c = (struct src_cur *)cur;

	c->i++;
	load_row(c);
	return SQLITE_OK;
}

static int src_eof(sqlite3_vtab_cursor *cur)
{
	const struct src_cur *c = (const struct src_cur *)cur;

	return !c->src || c->i >= c->src->n;
}

static int src_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct src_cur *c = (const struct src_cur *)cur;
	const struct sq_val *v;

	if (!c->src || col < 0 || col >= c->src->ncol)
		return SQLITE_OK; /* NULL */
	v = &c->v[col];
	switch (v->type) {
	case SQ_INT:
		sqlite3_result_int64(ctx, v->i);
		break;
	case SQ_REAL:
		sqlite3_result_double(ctx, v->d);
		break;
	case SQ_TEXT:
		sqlite3_result_text(ctx, v->s, v->len, SQLITE_STATIC);
		break;
	default:
		break; /* NULL */
	}
	return SQLITE_OK;
}

static int src_rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *rowid)
{
	*rowid = (sqlite_int64)((const struct src_cur *)cur)->i;
	return SQLITE_OK;
}

/* Eponymous-only (no xCreate): usable by name, never in the schema. */
static const sqlite3_module src_module = {
    .iVersion = 0,
    .xConnect = src_connect,
    .xBestIndex = src_best_index,
    .xDisconnect = src_disconnect,
    .xOpen = src_open,
    .xClose = src_close,
    .xFilter = src_filter,
    .xNext = src_next,
    .xEof = src_eof,
    .xColumn = src_column,
    .xRowid = src_rowid,
};

int sq_src_register(struct out_sqlite *s, struct nns_err *err)
{
	if (sqlite3_create_module_v2(s->db, "nns_rows", &src_module, s, NULL) != SQLITE_OK)
		return sq_fail(s, err, "registering the row source");
	return NNS_OK;
}

int sq_src_insert(struct out_sqlite *s, const struct sq_src *src, struct nns_err *err)
{
	char sql[64 + SQ_SRC_MAXCOL * 6];
	sqlite3_stmt *st;
	size_t k;
	int rc;

	if (src->n == 0)
		return NNS_OK;
	if (src->ncol < 1 || src->ncol > SQ_SRC_MAXCOL)
		return nns_err_set(err, NNS_EINVAL, "%s: %s: %d columns", s->path, src->what,
				   src->ncol);
	k = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s SELECT", src->table);
	for (int c = 0; c < src->ncol && k < sizeof(sql); c++)
		k += (size_t)snprintf(sql + k, sizeof(sql) - k,
				      !src->cols || (src->cols >> c & 1) ? "%sc%d" : "%sNULL",
				      c ? "," : " ", c);
	if (k >= sizeof(sql) ||
	    (size_t)snprintf(sql + k, sizeof(sql) - k, " FROM nns_rows") >= sizeof(sql) - k)
		return nns_err_set(err, NNS_EINVAL, "%s: %s: table name too long", s->path,
				   src->what);
	if (sq_prepare(s, sql, &st, err))
		return NNS_EIO;
	s->src = src;
	rc = sqlite3_step(st);
	s->src = NULL;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sq_fail(s, err, src->what);
	s->rows += (int64_t)src->n;
	return NNS_OK;
}
