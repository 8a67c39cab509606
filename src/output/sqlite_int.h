/*
 * sqlite_int.h - what sqlite_out.c (database lifecycle, tables, views),
 * sqlite_rows.c (a model's rows), sqlite_src.c (the row source),
 * sqlite_part.c (a worker's events split between two connections) and
 * sqlite_tmp.c (temporary files) share. Internal to src/output.
 */
#ifndef NNS_OUTPUT_SQLITE_INT_H
#define NNS_OUTPUT_SQLITE_INT_H

#include "output/outfile.h"
#include "output/sqlite_out.h"

#include <pthread.h>
#include <sqlite3.h>

struct sq_rows;

/* A worker's events split between out_sqlite_begin's thread, which
 * claims ids from the front a chunk at a time, and the caller of
 * out_sqlite_add, which takes the back half of what is left when it
 * gets there (sqlite_part.c). Indices are the worker's event ids less
 * its first. */
struct sq_split {
	pthread_mutex_t mu;
	size_t next;  /* the thread's next claim */
	size_t limit; /* where the thread stops */
};

struct out_sqlite {
	sqlite3 *db;
	char path[OUT_PATH_MAX];  /* the target */
	char tmp[OUT_PATH_MAX];	  /* the temporary database beside it */
	int64_t next_worker;	  /* workers.id of the next out_sqlite_add */
	int64_t rows;		  /* raw rows inserted */
	int64_t part_rows;	  /* of them, copied in from part databases */
	int64_t string_base;	  /* strings.id of the next worker's string 0 */
	int64_t event_base;	  /* events_raw.id of the next worker's first event */
	const struct sq_src *src; /* the rows sq_src_insert is inserting */
	/* out_sqlite_begin's thread, writing one worker's rows */
	struct sq_bg {
		pthread_t thread;
		int on;			     /* started and not yet joined */
		struct out_sqlite_item it;   /* the worker (the caller's pointers) */
		int64_t id;		     /* its workers.id */
		int64_t rows0, string_base0; /* s->rows, s->string_base before it */
		int64_t event_base0;	     /* s->event_base before it */
		struct sq_rows *rows;	     /* its rows */
		struct sq_split split;	     /* its events */
		int rc;			     /* how it went, once joined */
		struct nns_err err;
	} bg;
};

/* The events table and its indexes: the same in the target and in a part
 * database (sqlite_part.c copies one into the other). */
extern const char sq_events_ddl[];

/* Opens s->tmp (created) as a database being written: pragmas, a
 * transaction begun, the row source registered. */
int sq_connect(struct out_sqlite *s, struct nns_err *err);
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
 * non-NULL values of row i in v[0 .. ncol) (v comes zeroed). cols, when
 * not 0, has bit c set for each column c that a row may set: the others
 * are inserted as NULL without asking the source. */
#define SQ_SRC_MAXCOL 40
struct sq_src {
	const char *table, *what; /* static strings; what names it in errors */
	int ncol;
	size_t n;
	void (*row)(const void *ctx, size_t i, struct sq_val *v);
	const void *ctx;
	uint64_t cols;
};
_Static_assert(SQ_SRC_MAXCOL <= 64, "sq_src.cols has a bit per column");
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

/* A worker's rows (sqlite_rows.c). sq_rows_open orders its events and
 * takes the strings and event ids they get (s->string_base, s->event_base
 * move past them); sq_rows_tables inserts the workers row and every table
 * but the events; sq_rows_events inserts the events of ids [lo, hi) (less
 * the worker's first id), on s or on a part database (s is the connection
 * written to; x is read only, so two threads may insert ranges at once).
 * Of the profile, the events need the operator tree only, and ask for it
 * (an_profile_need): another thread may compute its other passes. */
int sq_rows_open(struct out_sqlite *s, int64_t worker_id, const struct out_sqlite_item *it,
		 struct sq_rows **x, struct nns_err *err);
void sq_rows_close(struct sq_rows *x);
size_t sq_rows_events_n(const struct sq_rows *x);
int sq_rows_tables(struct out_sqlite *s, struct sq_rows *x, struct nns_err *err);
int sq_rows_events(struct out_sqlite *s, const struct sq_rows *x, size_t lo, size_t hi,
		   struct nns_err *err);

/* The split (sqlite_part.c). sq_split_init: n events, all the thread's;
 * sq_split_claim: the thread's next chunk [*lo, *hi), 0 when there is
 * none; sq_split_stop: no more claims. */
void sq_split_init(struct sq_split *sp, size_t n);
void sq_split_fini(struct sq_split *sp);
int sq_split_claim(struct sq_split *sp, size_t *lo, size_t *hi);
void sq_split_stop(struct sq_split *sp);
/* The caller's part: takes the back half of the events the thread has
 * not claimed yet (none when too few are left for a second connection
 * to pay) and inserts them into a part database of their own, returned
 * in *part (NULL: nothing taken). */
int sq_part_write(struct out_sqlite *s, struct sq_split *sp, const struct sq_rows *x,
		  struct out_sqlite **part, struct nns_err *err);
/* Copies the part's events into s once the thread's are in (SQLite's
 * transfer of whole records, appended after the thread's ids), and
 * removes the part database, whatever happens. */
int sq_part_merge(struct out_sqlite *s, struct out_sqlite *part, struct nns_err *err);
/* Removes a part database that is not merged. */
void sq_part_drop(struct out_sqlite *part);

#endif
