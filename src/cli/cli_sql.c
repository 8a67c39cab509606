/*
 * cli_sql.c - the SQLite database that `analyse --sqlite` and `export
 * --format sqlite` fill from the visited spans (cli.h, output/sqlite_out.h):
 * one error line per failed add, later adds skipped, and at the end
 * either a committed database or none at all.
 */
#include "cli/cli.h"
#include "output/sqlite_out.h"

#include <string.h>

int cli_sql_open(struct cli_sql *s, const char *path)
{
	struct nns_err err;

	memset(s, 0, sizeof(*s));
	nns_err_clear(&err);
	if (out_sqlite_open(&s->db, path, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	return CLI_OK;
}

/* The export's item of a visited span. */
static struct out_sqlite_item sql_item(const struct cli_item *it)
{
	struct out_sqlite_item item = {it->run->name, it->worker->name, it->span->name,
				       it->span->path, &it->p};

	return item;
}

int cli_sql_begin(struct cli_sql *s, const struct cli_item *it)
{
	struct out_sqlite_item item = sql_item(it);
	struct nns_err err;

	if (!s->db || s->failed)
		return CLI_OK;
	nns_err_clear(&err);
	if (out_sqlite_begin(s->db, &item, &err)) {
		cli_error(NULL, err.msg);
		s->failed = 1;
		return CLI_EINPUT;
	}
	return CLI_OK;
}

void cli_sql_drop(struct cli_sql *s, const struct cli_item *it)
{
	struct out_sqlite_item item = sql_item(it);
	struct nns_err err;

	if (!s->db)
		return;
	nns_err_clear(&err);
	if (out_sqlite_cancel(s->db, &item, &err) && !s->failed) {
		cli_error(NULL, err.msg);
		s->failed = 1;
	}
}

int cli_sql_add(struct cli_sql *s, const struct cli_item *it)
{
	struct out_sqlite_item item = sql_item(it);
	struct nns_err err;

	if (!s->db || s->failed)
		return CLI_OK;
	nns_err_clear(&err);
	if (out_sqlite_add(s->db, &item, NULL, &err)) {
		cli_error(NULL, err.msg);
		s->failed = 1;
		return CLI_EINPUT;
	}
	s->workers++;
	return CLI_OK;
}

int cli_sql_add_dist(struct cli_sql *s, const char *span_name, const struct an_dist *d)
{
	struct nns_err err;

	if (!s->db || s->failed)
		return CLI_OK;
	nns_err_clear(&err);
	if (out_sqlite_add_dist(s->db, span_name, d, &err)) {
		cli_error(NULL, err.msg);
		s->failed = 1;
		return CLI_EINPUT;
	}
	return CLI_OK;
}

int cli_sql_finish(struct cli_sql *s, const char *path, int status, int64_t *rows)
{
	struct out_sqlite *db = s->db;
	struct nns_err err;

	s->db = NULL;
	if (status != CLI_OK || s->failed) {
		out_sqlite_abort(db);
		fprintf(stderr, "nnscope: %s: not written (see the errors above)\n", path);
		return CLI_EINPUT;
	}
	if (rows)
		*rows = out_sqlite_rows(db);
	nns_err_clear(&err);
	if (out_sqlite_commit(db, &err)) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	return CLI_OK;
}
