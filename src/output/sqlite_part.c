/*
 * sqlite_part.c - a worker's events split between two connections
 * (sqlite_int.h: struct sq_split, sq_part_*).
 *
 * SQLite writes a database on one connection at a time, and inserting the
 * events is most of an export (on bench/ingest's trace, 1.4 M events of the
 * 2.4 M rows). out_sqlite_begin's thread inserts them in id order, a chunk
 * at a time; the caller of out_sqlite_add, which would otherwise wait for
 * it, takes the back half of the events the thread has not claimed and
 * inserts them into a part database of its own (a temporary file beside
 * the target, sqlite_tmp.c) on a second connection. Once the thread is
 * joined, one INSERT ... SELECT * copies the part's table and indexes into
 * the target: SQLite's transfer optimization, which moves whole records
 * without decoding them, and since the part's ids and index keys all come
 * after the thread's, appends them. The transfer runs outside the target's
 * transaction (ATTACH cannot run inside one); the export's file is still
 * the temporary one, removed if anything fails.
 */
#include "output/sqlite_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The thread claims this many events at a time, a statement each. */
#define SPLIT_CHUNK 16384
/* Fewer events left than this are not worth a second database. */
#define SPLIT_MIN (4 * SPLIT_CHUNK)

void sq_split_init(struct sq_split *sp, size_t n)
{
	pthread_mutex_init(&sp->mu, NULL);
	sp->next = 0;
	sp->limit = n;
}

void sq_split_fini(struct sq_split *sp)
{
	pthread_mutex_destroy(&sp->mu);
}

int sq_split_claim(struct sq_split *sp, size_t *lo, size_t *hi)
{
	int got;

	pthread_mutex_lock(&sp->mu);
	got = sp->next < sp->limit;
	if (got) {
		*lo = sp->next;
		*hi = sp->limit - sp->next > SPLIT_CHUNK ? sp->next + SPLIT_CHUNK : sp->limit;
		sp->next = *hi;
	}
	pthread_mutex_unlock(&sp->mu);
	return got;
}

void sq_split_stop(struct sq_split *sp)
{
	pthread_mutex_lock(&sp->mu);
	sp->limit = sp->next;
	pthread_mutex_unlock(&sp->mu);
}

/* The caller's share of n events: from the returned index to n (none
 * when it is n). Half of what is left: the thread inserts its half while
 * the caller inserts the other, and the caller's is copied in after. */
static size_t split_take(struct sq_split *sp, size_t n)
{
	size_t lo;

	pthread_mutex_lock(&sp->mu);
	lo = n;
	if (sp->limit == n && n - sp->next >= SPLIT_MIN) {
		lo = sp->next + (n - sp->next) / 2;
		sp->limit = lo;
	}
	pthread_mutex_unlock(&sp->mu);
	return lo;
}

void sq_part_drop(struct out_sqlite *part)
{
	if (!part)
		return;
	if (part->db)
		sqlite3_close(part->db);
	if (part->tmp[0])
		unlink(part->tmp);
	free(part);
}

int sq_part_write(struct out_sqlite *s, struct sq_split *sp, const struct sq_rows *x,
		  struct out_sqlite **part, struct nns_err *err)
{
	size_t n = sq_rows_events_n(x), lo = split_take(sp, n);
	struct out_sqlite *p;
	int rc;

	*part = NULL;
	if (lo >= n)
		return NNS_OK;
	/* on failure the thread has stopped at lo: the caller fails the worker */
	if (!(p = calloc(1, sizeof(*p))))
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", s->path);
	snprintf(p->path, sizeof(p->path), "%s", s->path);
	rc = sq_tmp_create(p->tmp, sizeof(p->tmp), s->path, err);
	if (!rc)
		rc = sq_connect(p, err);
	if (!rc)
		rc = sq_exec(p, sq_events_ddl, err);
	if (!rc)
		rc = sq_rows_events(p, x, lo, n, err);
	if (!rc)
		rc = sq_exec(p, "COMMIT;", err);
	if (!rc) {
		if (sqlite3_close(p->db) == SQLITE_OK)
			p->db = NULL;
		else
			rc = sq_fail(p, err, "closing a part of the database");
	}
	if (rc) {
		sq_part_drop(p);
		return rc;
	}
	*part = p;
	return NNS_OK;
}

int sq_part_merge(struct out_sqlite *s, struct out_sqlite *part, struct nns_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sq_exec(s, "COMMIT;", err);

	if (!rc && !(rc = sq_prepare(s, "ATTACH ?1 AS nns_part", &st, err))) {
		sqlite3_bind_text(st, 1, part->tmp, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = sq_fail(s, err, "attaching a part of the database");
		sqlite3_finalize(st);
		if (!rc) {
			rc = sq_exec(
			    s, "INSERT INTO main.events_raw SELECT * FROM nns_part.events_raw;",
			    err);
			if (sq_exec(s, "DETACH nns_part;", rc ? NULL : err) && !rc)
				rc = NNS_EIO;
		}
	}
	if (!rc)
		rc = sq_exec(s, "BEGIN;", err);
	if (!rc) {
		s->rows += part->rows;
		s->part_rows += part->rows;
	}
	sq_part_drop(part);
	return rc;
}
