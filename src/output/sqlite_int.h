/*
 * sqlite_int.h - what sqlite_out.c (database lifecycle, tables, views) and
 * sqlite_rows.c (a model's rows) share. Internal to src/output.
 */
#ifndef NNS_OUTPUT_SQLITE_INT_H
#define NNS_OUTPUT_SQLITE_INT_H

#include "output/outfile.h"
#include "output/sqlite_out.h"

#include <pthread.h>
#include <sqlite3.h>

struct out_sqlite {
	sqlite3 *db;
	char path[OUT_PATH_MAX];  /* the target */
	char tmp[OUT_PATH_MAX];	  /* the temporary database beside it */
	int64_t next_worker;	  /* workers.id of the next out_sqlite_add */
	int64_t rows;		  /* raw rows inserted */
	int64_t string_base;	  /* strings.id of the next worker's string 0 */
	const struct sq_src *src; /* the rows sq_src_insert is inserting */
	/* out_sqlite_begin's thread, writing one worker's rows */
	struct sq_bg {
		pthread_t thread;
		int on;			     /* started and not yet joined */
		struct out_sqlite_item it;   /* the worker (the caller's pointers) */
		int64_t id;		     /* its workers.id */
		int64_t rows0, string_base0; /* s->rows, s->string_base before it */
		int rc;			     /* how it went, once joined */
		struct nns_err err;
	} bg;
};

/* NNS_EIO "path: what: sqlite's message". */
int sq_fail(struct out_sqlite *s, struct nns_err *err, const char *what);
/* Runs sql (no result rows). */
int sq_exec(struct out_sqlite *s, const char *sql, struct nns_err *err);
/* Prepares sql into *st. */
int sq_prepare(struct out_sqlite *s, const char *sql, sqlite3_stmt **st, struct nns_err *err);
/* Steps a bound insert and resets it for the next row. */
int sq_step(struct out_sqlite *s, sqlite3_stmt *st, const char *what, struct nns_err *err);

/* A value of a row as SQLite gets it: sq_val zeroed is NULL. */
enum { SQ_NULL = 0, SQ_INT, SQ_REAL, SQ_TEXT };
struct sq_val {
	int type; /* SQ_* */
	int len;  /* SQ_TEXT: bytes, or -1 up to the NUL */
	union {
		int64_t i;
		double d;
		const char *s; /* SQ_TEXT: outlives the insert (the model's) */
	};
};
static inline void sq_int(struct sq_val *v, int64_t i)
{
	v->type = SQ_INT;
	v->i = i;
}
static inline void sq_real(struct sq_val *v, double d)
{
	v->type = SQ_REAL;
	v->d = d;
}
static inline void sq_text(struct sq_val *v, const char *s, int len)
{
	v->type = SQ_TEXT;
	v->s = s;
	v->len = len;
}

/* The rows of a raw table (sqlite_src.c): row(ctx, i, v) sets the
 * non-NULL values of row i in v[0 .. ncol) (v comes zeroed). */
#define SQ_SRC_MAXCOL 40
struct sq_src {
	const char *table, *what; /* static strings; what names it in errors */
	int ncol;
	size_t n;
	void (*row)(const void *ctx, size_t i, struct sq_val *v);
	const void *ctx;
};
/* Registers the row source module on s->db (out_sqlite_open). */
int sq_src_register(struct out_sqlite *s, struct nns_err *err);
/* Inserts the n rows of src, in order, into src->table. */
int sq_src_insert(struct out_sqlite *s, const struct sq_src *src, struct nns_err *err);

/* The temporary database (sqlite_tmp.c): creates the empty file
 * "<path>.nnscope-tmp.<host>.<pid>.<salt>" (its name into tmp); removes the
 * temporaries in dir that killed exports of this host left (their pid is
 * gone), returning how many. */
#define SQ_TMP_TAG ".nnscope-tmp."
int sq_tmp_create(char *tmp, size_t size, const char *path, struct nns_err *err);
int sq_tmp_sweep(const char *dir);

/* Inserts the workers row of it and every row of its model under
 * worker_id (sqlite_rows.c). Of it->p it needs the operator tree only, and
 * asks for it (an_profile_need): another thread may be computing the
 * profile's other passes meanwhile. */
int sq_worker_rows(struct out_sqlite *s, int64_t worker_id, const struct out_sqlite_item *it,
		   struct nns_err *err);

#endif
