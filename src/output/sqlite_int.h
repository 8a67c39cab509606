/*
 * sqlite_int.h - what sqlite_out.c (database lifecycle, tables, views) and
 * sqlite_rows.c (a model's rows) share. Internal to src/output.
 */
#ifndef NNS_OUTPUT_SQLITE_INT_H
#define NNS_OUTPUT_SQLITE_INT_H

#include "output/outfile.h"
#include "output/sqlite_out.h"

#include <sqlite3.h>

struct out_sqlite {
	sqlite3 *db;
	char path[OUT_PATH_MAX]; /* the target */
	char tmp[OUT_PATH_MAX];	 /* the temporary database beside it */
	int64_t next_worker;	 /* workers.id of the next out_sqlite_add */
	int64_t rows;		 /* raw rows inserted */
	int64_t string_base;	 /* strings.id of the next worker's string 0 */
};

/* NNS_EIO "path: what: sqlite's message". */
int sq_fail(struct out_sqlite *s, struct nns_err *err, const char *what);
/* Runs sql (no result rows). */
int sq_exec(struct out_sqlite *s, const char *sql, struct nns_err *err);
/* Prepares sql into *st. */
int sq_prepare(struct out_sqlite *s, const char *sql, sqlite3_stmt **st, struct nns_err *err);
/* Steps a bound insert and resets it for the next row. */
int sq_step(struct out_sqlite *s, sqlite3_stmt *st, const char *what, struct nns_err *err);

/* A multi-row insert of n rows into a raw table (sqlite_ins.c says how to
 * use it): up to SQ_INS_ROWS rows per sqlite3_step. */
#define SQ_INS_ROWS 32
struct sq_ins {
	struct out_sqlite *s;
	const char *table, *what;  /* static strings */
	int ncol, batch;	   /* columns; rows per full statement */
	sqlite3_stmt *full, *tail; /* batch rows; the last, shorter, step's */
	sqlite3_stmt *st;	   /* the statement to bind the row into */
	int o;			   /* ... at parameters o + 1 .. o + ncol */
	int rows, r;		   /* rows of st; rows bound in it so far */
	size_t left;		   /* rows not yet done */
};
/* Starts n rows of ncol columns into table; what names the step in errors. */
void sq_ins_open(struct sq_ins *b, struct out_sqlite *s, const char *table, int ncol, size_t n,
		 const char *what);
/* Points b->st / b->o at the next row's parameters. */
int sq_ins_row(struct sq_ins *b, struct nns_err *err);
/* The row is bound: steps the statement once its rows are all bound. */
int sq_ins_done(struct sq_ins *b, struct nns_err *err);
/* Finalizes the statements (rows not done are not written). */
void sq_ins_close(struct sq_ins *b);

/* The temporary database (sqlite_tmp.c): creates the empty file
 * "<path>.nnscope-tmp.<host>.<pid>.<salt>" (its name into tmp); removes the
 * temporaries in dir that killed exports of this host left (their pid is
 * gone), returning how many. */
#define SQ_TMP_TAG ".nnscope-tmp."
int sq_tmp_create(char *tmp, size_t size, const char *path, struct nns_err *err);
int sq_tmp_sweep(const char *dir);

/* Inserts every row of p's model under worker_id (sqlite_rows.c). */
int sq_model_rows(struct out_sqlite *s, int64_t worker_id, const struct an_profile *p,
		  struct nns_err *err);

#endif
