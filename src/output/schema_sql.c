/*
 * schema_sql.c - result tables of schema.h into SQLite (schema_sql.h).
 * Placeholder until the schema writers land: creates and inserts nothing.
 */
#include "output/schema_sql.h"

int sc_sql_create_results(sqlite3 *db, struct nns_err *err)
{
	(void)db;
	(void)err;
	return NNS_OK;
}

int sc_sql_results(sqlite3 *db, int64_t worker_id, const struct an_profile *p, struct nns_err *err)
{
	(void)db;
	(void)worker_id;
	(void)p;
	(void)err;
	return NNS_OK;
}

int sc_sql_dist(sqlite3 *db, const char *span, const struct an_dist *d, struct nns_err *err)
{
	(void)db;
	(void)span;
	(void)d;
	(void)err;
	return NNS_OK;
}
