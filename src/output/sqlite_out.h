/*
 * sqlite_out.h - the SQLite export (`nnscope export --format sqlite`,
 * `nnscope analyse --sqlite`): every event of one or more workers/spans
 * and every analysis result in one database, for SQL questions as
 * `nsys export --type sqlite` users ask them. docs/SQL.md lists the tables
 * and views.
 *
 * Raw tables (meta, workers, worker_meta, threads, events, counters,
 * memory_events, flows, devices, instants, queues, samples) and the views
 * are written here (sqlite_out.c, sqlite_rows.c); the result tables
 * (steps, operators, kernels, ...) by schema_sql.c from the schema of
 * schema.h.
 *
 * The database is written atomically: into a temporary file in the same
 * directory, renamed over the target only when complete (an existing file
 * is replaced); any failure removes the temporary file, so no half-written
 * database is ever left. One transaction, prepared statements,
 * journal_mode=OFF and synchronous=OFF while writing; the indexes are
 * created before the inserts (sqlite_out.c says why), the views after.
 */
#ifndef NNS_OUTPUT_SQLITE_OUT_H
#define NNS_OUTPUT_SQLITE_OUT_H

#include "analysis/analysis.h"
#include "common/err.h"

#include <stddef.h>
#include <stdint.h>

/* Format version of the database (meta.format_version); bumped when a
 * table or column changes meaning. */
#define OUT_SQLITE_FORMAT 2

/* One worker/span to export. Strings may be NULL; p->m is the model. */
struct out_sqlite_item {
	const char *run;
	const char *worker;
	const char *span;
	const char *source; /* the trace file */
	const struct an_profile *p;
};

struct out_sqlite; /* an open export: a temporary database in a transaction */

/* Creates the temporary database beside path, the raw tables, the
 * result tables (sc_sql_create_results) and the indexes, and begins the
 * transaction.
 * On success *out owns it: finish with out_sqlite_commit or
 * out_sqlite_abort. NNS_EIO naming path when it cannot be written. */
int out_sqlite_open(struct out_sqlite **out, const char *path, struct nns_err *err);

/* Inserts a worker row, all of its model's rows and its result tables;
 * *worker_id (may be NULL) receives workers.id (1, 2, ... in call order). */
int out_sqlite_add(struct out_sqlite *s, const struct out_sqlite_item *it, int64_t *worker_id,
		   struct nns_err *err);

/* out_sqlite_add in two halves, so that a worker's rows are written while
 * its profile is computed: out_sqlite_begin starts a thread of s's own
 * that inserts the worker row and the model's rows (of it->p it reads the
 * operator tree, asking for it with an_profile_need); the caller computes
 * the profile's other passes meanwhile (an_profile_run_base: it->p must
 * be an_profile_init'ed over the finalized model before this call), then
 * calls out_sqlite_add with the same it->p, which waits for the thread
 * and adds the result tables. Until then the caller uses nothing of s,
 * and it, its strings, its model and its profile stay alive (the passes
 * may add to the profile). When the profile cannot be completed,
 * out_sqlite_cancel(s, it) waits for the thread and removes what it
 * wrote: the database is as if the worker had never been begun.
 * out_sqlite_begin fails only on misuse; without a thread, out_sqlite_add
 * writes the rows itself. */
int out_sqlite_begin(struct out_sqlite *s, const struct out_sqlite_item *it, struct nns_err *err);
int out_sqlite_cancel(struct out_sqlite *s, const struct out_sqlite_item *it, struct nns_err *err);

/* Inserts the distributed view of a span group (span NULL or ""). */
int out_sqlite_add_dist(struct out_sqlite *s, const char *span, const struct an_dist *d,
			struct nns_err *err);

/* Creates the views, commits, closes and renames the database
 * into place. Always frees s; on failure the temporary file is removed. */
int out_sqlite_commit(struct out_sqlite *s, struct nns_err *err);

/* Closes and removes the temporary database; frees s (may be NULL). */
void out_sqlite_abort(struct out_sqlite *s);

/* Rows written so far (all raw tables; for progress and benchmarks). */
int64_t out_sqlite_rows(const struct out_sqlite *s);
/* Of those, the events written on the caller's thread into a part
 * database and copied in (sqlite_part.c), while out_sqlite_begin's
 * thread wrote the others. */
int64_t out_sqlite_part_rows(const struct out_sqlite *s);

/* All of the above for n items and an optional distributed view. */
int out_sqlite_write(const char *path, const struct out_sqlite_item *items, size_t n,
		     const struct an_dist *dist, const char *dist_span, struct nns_err *err);

#endif
