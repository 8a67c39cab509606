/*
 * schema_sql.h - the result tables of schema.h in a SQLite database: one
 * table per result (named as in schema.h, the JSON contract's column
 * names), each row led by the worker it belongs to.
 *
 * The caller owns the connection and the transaction (sqlite_out.c opens
 * both); these functions prepare, bind and finalize their own statements.
 */
#ifndef NNS_OUTPUT_SCHEMA_SQL_H
#define NNS_OUTPUT_SCHEMA_SQL_H

#include "output/schema.h"

#include <sqlite3.h>

/* CREATE TABLE IF NOT EXISTS for every result table: "worker_id INTEGER
 * NOT NULL" (workers.id of sqlite_out.c), then the schema's columns
 * (TEXT / INTEGER / REAL; booleans INTEGER 0/1), plus the table-specific
 * leading columns (memory tables: device; operator/kernel tables:
 * grouping). NNS_OK or NNS_EIO naming the statement. */
int sc_sql_create_results(sqlite3 *db, struct nns_err *err);

/* Inserts every result table of p under worker_id. */
int sc_sql_results(sqlite3 *db, int64_t worker_id, const struct an_profile *p, struct nns_err *err);

/* Inserts the distributed view of a run (tables distributed, comm_ops;
 * span NULL or "" when workers have no spans). */
int sc_sql_dist(sqlite3 *db, const char *span, const struct an_dist *d, struct nns_err *err);

/* The result tables as Markdown (docs/SQL.md "Result tables"): per table
 * a heading and | column | type | unit | meaning | rows. */
void sc_sql_describe(FILE *f);

#endif
