/*
 * sqlite_out.c - the SQLite export's database (sqlite_out.h): the
 * temporary file's rename into place (the file itself: sqlite_tmp.c), the
 * raw tables' and indexes' definitions, the meta rows, the thread
 * out_sqlite_begin writes a worker's rows on, and the views created once
 * every row is in. A worker's row and its model's rows are inserted by
 * sqlite_rows.c, the result tables by schema_sql.c.
 *
 * The thread: on bench/ingest's trace the raw rows and their indexes take
 * about three times as long as the profile's passes (2.2 s against
 * 0.7 s), so writing them while the passes run takes the passes off the
 * export's wall time when the machine has a core to spare. The connection
 * is used by one thread at a time: the writer until out_sqlite_add joins
 * it, then the caller. The caller, once its passes are done, does not
 * wait idle: it takes the back half of the events the thread has not
 * reached and writes them into a database of its own on a second
 * connection, copied in after the join (sqlite_part.c).
 */
#include "output/schema_sql.h"
#include "output/sqlite_int.h"

#include "nnscope.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The raw tables: one row per model row; docs/SQL.md documents them. */
static const char DDL[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE workers(id INTEGER PRIMARY KEY, run TEXT, worker TEXT, span TEXT,"
    " source TEXT, rank INTEGER, world_size INTEGER, events INTEGER, truncated INTEGER,"
    " events_skipped INTEGER, first_problem TEXT, bytes_read INTEGER, events_lost INTEGER,"
    " base_time_ns INTEGER);"
    "CREATE TABLE worker_meta(worker_id INTEGER NOT NULL, key TEXT, value TEXT);"
    "CREATE TABLE threads(worker_id INTEGER NOT NULL, id INTEGER NOT NULL, pid TEXT,"
    " tid TEXT, name TEXT, PRIMARY KEY(worker_id, id)) WITHOUT ROWID;"
    /* names, shapes and call stacks once per worker (sqlite_rows.c says
     * why); events is a view over events_raw with them as text */
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT);"
    "CREATE TABLE counters(worker_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, name TEXT,"
    " value REAL, thread_id INTEGER);"
    "CREATE TABLE memory_events(worker_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL,"
    " addr INTEGER, bytes INTEGER, total_allocated INTEGER, total_reserved INTEGER,"
    " device_type INTEGER, device_id INTEGER, thread_id INTEGER);"
    "CREATE TABLE flows(worker_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, flow_id INTEGER,"
    " kind TEXT, ph TEXT, thread_id INTEGER);"
    "CREATE TABLE devices(worker_id INTEGER NOT NULL, id INTEGER, name TEXT,"
    " total_memory INTEGER, compute_major INTEGER, compute_minor INTEGER, num_sms INTEGER,"
    " max_threads_per_sm INTEGER, max_threads_per_block INTEGER, regs_per_sm INTEGER,"
    " shared_memory_per_sm INTEGER, warp_size INTEGER);"
    "CREATE TABLE instants(worker_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, name TEXT,"
    " thread_id INTEGER);"
    "CREATE TABLE queues(worker_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, name TEXT,"
    " size INTEGER, capacity INTEGER, thread_id INTEGER);"
    "CREATE TABLE samples(worker_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, kind TEXT,"
    " tid INTEGER, thread_id INTEGER, user_pct REAL, sys_pct REAL, idle_pct REAL,"
    " iowait_pct REAL, running INTEGER, ctx_switches INTEGER, rss_kb INTEGER);";

/* The events, with indexes created before the first row and kept up to
 * date by the inserts: the events come in events_by_kind's order
 * (sqlite_rows.c), so both the table and that index grow by appends. On
 * bench/ingest's trace, CREATE INDEX's sort after the load took 0.85-1.0 s;
 * kept by the inserts, the index costs about 0.2 s (in the sqlite3 shell,
 * 1.46-1.51 s for the events with it, 1.26-1.40 s without). id is the rowid: ids are unique in
 * the database, so the part databases' rows can be copied in after the
 * target's (SQLite's transfer needs an INTEGER PRIMARY KEY to append to a
 * table that is not empty and has indexes; sqlite_part.c). */
const char sq_events_ddl[] =
    "CREATE TABLE events_raw(worker_id INTEGER NOT NULL, id INTEGER PRIMARY KEY,"
    " ts_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, name_id INTEGER, kind TEXT,"
    " thread_id INTEGER, device INTEGER, stream INTEGER, correlation INTEGER,"
    " external_id INTEGER, launch_id INTEGER, op_id INTEGER, op_name_id INTEGER,"
    " parent_id INTEGER, grid_id INTEGER, block_id INTEGER, registers_per_thread INTEGER,"
    " shared_memory INTEGER, blocks_per_sm REAL, occupancy REAL, bytes INTEGER,"
    " wait_on_stream INTEGER, wait_on_correlation INTEGER, input_dims_id INTEGER,"
    " input_type_id INTEGER, call_stack_id INTEGER, sequence_number INTEGER,"
    " python_id INTEGER, python_parent_id INTEGER, python_module_id INTEGER,"
    " fwd_thread_id INTEGER, category TEXT, class TEXT);"
    "CREATE INDEX events_by_kind ON events_raw(kind, worker_id, ts_ns);"
    "CREATE INDEX events_by_launch ON events_raw(worker_id, launch_id)"
    " WHERE launch_id IS NOT NULL;";

/* Kept up to date by the inserts too: the records come in time order. */
static const char INDEXES[] =
    "CREATE INDEX memory_events_by_ts ON memory_events(worker_id, ts_ns);";

/* Views over the raw tables (docs/SQL.md). */
#define S(col) "(SELECT value FROM strings WHERE id = e." col "_id) AS " col
static const char VIEWS[] =
    /* strings and threads by scalar subqueries, not joins: once the view
     * is flattened into a query, the columns it does not use cost nothing
     * (SQLite 3.40 keeps unused LEFT JOINs in aggregate queries) */
    "CREATE VIEW events AS SELECT e.worker_id AS worker_id, e.id AS id, e.ts_ns AS ts_ns,"
    " e.dur_ns AS dur_ns, " S(
	"name") ", e.kind AS kind, e.thread_id AS thread_id,"
		" (SELECT pid FROM threads t WHERE t.worker_id = e.worker_id AND t.id = "
		"e.thread_id)"
		" AS pid,"
		" (SELECT tid FROM threads t WHERE t.worker_id = e.worker_id AND t.id = "
		"e.thread_id)"
		" AS tid, e.device AS device, e.stream AS stream, e.correlation AS correlation,"
		" e.external_id AS external_id, e.launch_id AS launch_id, e.op_id AS op_id,"
		" " S("op_name") ", e.parent_id AS parent_id, " S("grid") ", " S(
		    "block") ","
			     " e.registers_per_thread AS registers_per_thread, e.shared_memory AS "
			     "shared_memory,"
			     " e.blocks_per_sm AS blocks_per_sm, e.occupancy AS occupancy, e.bytes "
			     "AS bytes,"
			     " e.wait_on_stream AS wait_on_stream, e.wait_on_correlation AS "
			     "wait_on_correlation,"
			     " " S("input_dims") ", " S("input_type") ", " S(
				 "call_stack") ","
					       " e.sequence_number AS sequence_number, e.python_id "
					       "AS python_id,"
					       " e.python_parent_id AS python_parent_id, "
					       "e.python_module_id AS python_module_id,"
					       " e.fwd_thread_id AS fwd_thread_id,"
					       " coalesce(e.category, e.kind) AS category,"
					       " e.class AS class"
					       " FROM events_raw e;"
					       /* device time of the kernels each operator launched,
						* as the kernel view's by_properties groups it (the
						* innermost operator) */
					       "CREATE VIEW kernel_time_per_operator AS"
					       " SELECT worker_id, op_name, count(*) AS kernels, "
					       "sum(dur_ns) / 1000.0 AS kernel_us"
					       " FROM events WHERE kind = 'kernel' AND op_id IS "
					       "NOT NULL"
					       " GROUP BY worker_id, op_name;"
					       /* each ProfilerStep#N host range and the device work
						  launched in it */
					       "CREATE VIEW step_time AS"
					       " SELECT s.worker_id AS worker_id, s.id AS event_id,"
					       " (SELECT value FROM strings WHERE id = s.name_id) "
					       "AS step,"
					       " s.ts_ns / 1000.0 AS host_start_us, s.dur_ns / "
					       "1000.0 AS host_us,"
					       " count(d.id) AS device_events,"
					       " coalesce(sum(CASE WHEN d.kind = 'kernel' THEN "
					       "d.dur_ns END), 0) / 1000.0 AS kernel_us,"
					       " (max(s.ts_ns + s.dur_ns, coalesce(max(d.ts_ns + "
					       "d.dur_ns), 0)) - s.ts_ns) / 1000.0"
					       " AS duration_us"
					       " FROM events_raw s"
					       " LEFT JOIN events_raw l ON l.kind IN "
					       "('cuda_runtime', 'cuda_driver')"
					       "  AND l.worker_id = s.worker_id AND l.ts_ns >= "
					       "s.ts_ns AND l.ts_ns < s.ts_ns + s.dur_ns"
					       " LEFT JOIN events_raw d INDEXED BY events_by_launch"
					       "  ON d.worker_id = l.worker_id AND d.launch_id = "
					       "l.id"
					       "  AND d.launch_id IS NOT NULL"
					       " WHERE s.kind IN ('cpu_op', 'user_annotation')"
					       "  AND s.name_id IN (SELECT id FROM strings WHERE "
					       "value LIKE 'ProfilerStep#%')"
					       " GROUP BY s.worker_id, s.id;"
					       /* kernels by total time, as kernels.json's by_name
						*/
					       "CREATE VIEW top_kernels AS"
					       " SELECT worker_id, name, count(*) AS calls, "
					       "sum(dur_ns) / 1000.0 AS total_us,"
					       " avg(dur_ns) / 1000.0 AS mean_us, min(dur_ns) / "
					       "1000.0 AS min_us,"
					       " max(dur_ns) / 1000.0 AS max_us"
					       " FROM events WHERE kind = 'kernel' GROUP BY "
					       "worker_id, name;"
					       /* the gaps between consecutive device events of each
						  stream */
					       "CREATE VIEW stream_gaps AS"
					       " SELECT worker_id, device, stream, prev_end_ns AS "
					       "start_ns, ts_ns AS end_ns,"
					       " (ts_ns - prev_end_ns) / 1000.0 AS gap_us FROM ("
					       "  SELECT worker_id, device, stream, ts_ns,"
					       "  max(ts_ns + dur_ns) OVER (PARTITION BY "
					       "worker_id, device, stream ORDER BY ts_ns"
					       "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 "
					       "PRECEDING) AS prev_end_ns"
					       "  FROM events WHERE kind IN ('kernel', "
					       "'gpu_memcpy', 'gpu_memset'))"
					       " WHERE prev_end_ns IS NOT NULL AND ts_ns > "
					       "prev_end_ns;"
					       /* the peak of the allocator's total per device, from
						  the raw records */
					       "CREATE VIEW memory_peak AS"
					       " SELECT worker_id, device_type, device_id, "
					       "max(total_allocated) AS peak_allocated_bytes,"
					       " max(total_reserved) AS peak_reserved_bytes, "
					       "count(*) AS records"
					       " FROM memory_events GROUP BY worker_id, "
					       "device_type, device_id;";

int sq_fail(struct out_sqlite *s, struct nns_err *err, const char *what)
{
	return nns_err_set(err, NNS_EIO, "%s: %s: %s", s->path, what,
			   s->db ? sqlite3_errmsg(s->db) : "no database");
}

int sq_exec(struct out_sqlite *s, const char *sql, struct nns_err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		nns_err_set(err, NNS_EIO, "%s: %s", s->path, msg ? msg : "SQLite error");
		sqlite3_free(msg);
		return NNS_EIO;
	}
	return NNS_OK;
}

int sq_prepare(struct out_sqlite *s, const char *sql, sqlite3_stmt **st, struct nns_err *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return sq_fail(s, err, "preparing a statement");
	}
	return NNS_OK;
}

int sq_step(struct out_sqlite *s, sqlite3_stmt *st, const char *what, struct nns_err *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sq_fail(s, err, what);
	s->rows++;
	return NNS_OK;
}

static int put_meta(struct out_sqlite *s, const char *key, const char *value, struct nns_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sq_prepare(s, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", &st, err))
		return NNS_EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sq_step(s, st, "inserting meta", err);
	sqlite3_finalize(st);
	return rc;
}

/* A worker's rows: the tables, then the events a chunk at a time for as
 * long as the caller leaves them to the thread. */
static void *bg_main(void *arg)
{
	struct out_sqlite *s = arg;
	size_t lo, hi;
	int rc = sq_rows_tables(s, s->bg.rows, &s->bg.err);

	while (!rc && sq_split_claim(&s->bg.split, &lo, &hi))
		rc = sq_rows_events(s, s->bg.rows, lo, hi, &s->bg.err);
	s->bg.rc = rc;
	return NULL;
}

/* Frees what out_sqlite_begin gave its thread (the thread is joined or
 * never started). */
static void bg_free(struct out_sqlite *s)
{
	sq_split_fini(&s->bg.split);
	sq_rows_close(s->bg.rows);
	s->bg.rows = NULL;
}

/* Waits for out_sqlite_begin's thread (if any) and frees what it had;
 * its status, its message into err. */
static int bg_join(struct out_sqlite *s, struct nns_err *err)
{
	if (!s->bg.on)
		return NNS_OK;
	pthread_join(s->bg.thread, NULL);
	s->bg.on = 0;
	bg_free(s);
	if (s->bg.rc && err)
		*err = s->bg.err;
	return s->bg.rc;
}

/* Stops the thread (if any) at its next row, its rows not wanted, and
 * joins it. */
static void bg_stop(struct out_sqlite *s)
{
	if (!s->bg.on)
		return;
	sq_split_stop(&s->bg.split);
	sqlite3_interrupt(s->db);
	bg_join(s, NULL);
}

void out_sqlite_abort(struct out_sqlite *s)
{
	if (!s)
		return;
	bg_stop(s);
	if (s->db)
		sqlite3_close(s->db);
	if (s->tmp[0])
		unlink(s->tmp);
	free(s);
}

int sq_connect(struct out_sqlite *s, struct nns_err *err)
{
	if (sqlite3_open_v2(s->tmp, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK)
		return sq_fail(s, err, "cannot open the database");
	/* nothing to recover: a failed export is removed, so no journal; the
	 * rename is what makes the file appear. 64 KiB pages (set before the
	 * first table): on bench/ingest's trace 0.25 s less CPU than 4 KiB
	 * (fewer pages to split and balance while inserting and indexing),
	 * 4.2-5.4 s against 4.7-6.9 s wall in 7 alternated runs, a 1% larger
	 * file; 32 KiB measured the same. An 8 MB cache: the rows come in
	 * the order of the table and of its indexes, so few pages are hot;
	 * against 64 MB, 80 MB less RSS with the part database's connection,
	 * and the part's copy took 0.27-0.31 s instead of 0.34-0.46 s. */
	if (sq_exec(s,
		    "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		    " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-8192;"
		    " PRAGMA temp_store=MEMORY; BEGIN;",
		    err))
		return NNS_EIO;
	return sq_src_register(s, err);
}

int out_sqlite_open(struct out_sqlite **out, const char *path, struct nns_err *err)
{
	struct out_sqlite *s;
	int n;

	*out = NULL;
	if (!path || !*path)
		return nns_err_set(err, NNS_EINVAL, "no output file name");
	{
		struct stat sb;

		/* found now rather than by the rename after every trace is read */
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
			return nns_err_set(err, NNS_EIO, "%s: is a directory, not a database file",
					   path);
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
	/* the temporary beside the target (sqlite_tmp.c), after removing
	 * those killed exports left there */
	{
		const char *slash = strrchr(path, '/');
		char dir[OUT_PATH_MAX];
		int rc;

		n = slash ? snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path)
			  : snprintf(dir, sizeof(dir), ".");
		if (n < 0 || (size_t)n >= sizeof(dir) || (slash && !slash[1]) ||
		    strlen(path) >= sizeof(s->path)) {
			free(s);
			return nns_err_set(err, NNS_EINVAL, "%s: not a file name", path);
		}
		if (n == 0)
			strcpy(dir, "/");
		sq_tmp_sweep(dir);
		snprintf(s->path, sizeof(s->path), "%s", path);
		rc = sq_tmp_create(s->tmp, sizeof(s->tmp), path, err);
		if (rc) {
			free(s);
			return rc;
		}
	}
	s->next_worker = 1;
	if (sq_connect(s, err) || sq_exec(s, DDL, err) || sc_sql_create_results(s->db, err) ||
	    sq_exec(s, INDEXES, err) || sq_exec(s, sq_events_ddl, err))
		goto fail;
	if (put_meta(s, "nnscope_version", NNS_VERSION_STRING, err))
		goto fail;
	{
		char v[16];

		snprintf(v, sizeof(v), "%d", OUT_SQLITE_FORMAT);
		if (put_meta(s, "format_version", v, err))
			goto fail;
	}
	*out = s;
	return NNS_OK;
fail:
	out_sqlite_abort(s);
	return err && err->code ? err->code : NNS_EIO;
}

int out_sqlite_begin(struct out_sqlite *s, const struct out_sqlite_item *it, struct nns_err *err)
{
	int64_t rows0 = s->rows, string_base0 = s->string_base, event_base0 = s->event_base;

	if (s->bg.on)
		return nns_err_set(err, NNS_EINVAL, "%s: internal: a worker is being written",
				   s->path);
	if (!it->p || !it->p->m)
		return nns_err_set(err, NNS_EINVAL, "%s: a worker without a model", s->path);
	if (sq_rows_open(s, s->next_worker, it, &s->bg.rows, err))
		return err && err->code ? err->code : NNS_ENOMEM;
	s->bg.it = *it;
	s->bg.id = s->next_worker;
	s->bg.rows0 = rows0;
	s->bg.string_base0 = string_base0;
	s->bg.event_base0 = event_base0;
	s->bg.rc = NNS_OK;
	nns_err_clear(&s->bg.err);
	sq_split_init(&s->bg.split, sq_rows_events_n(s->bg.rows));
	/* without a thread, out_sqlite_add writes the rows itself */
	s->bg.on = pthread_create(&s->bg.thread, NULL, bg_main, s) == 0;
	if (!s->bg.on) {
		bg_free(s);
		s->string_base = string_base0;
		s->event_base = event_base0;
	}
	return NNS_OK;
}

int out_sqlite_cancel(struct out_sqlite *s, const struct out_sqlite_item *it, struct nns_err *err)
{
	static const char *const tables[] = {"workers",	 "worker_meta",	  "threads", "events_raw",
					     "counters", "memory_events", "flows",   "devices",
					     "instants", "queues",	  "samples"};
	char sql[96];
	int rc = NNS_OK;

	if (!s->bg.on || it->p != s->bg.it.p)
		return NNS_OK; /* nothing of it was written */
	bg_join(s, NULL);
	/* its rows go, whatever part of them the thread wrote; the ids it
	 * took are the next worker's again */
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !rc; i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE %s = %lld", tables[i],
			 i ? "worker_id" : "id", (long long)s->bg.id);
		rc = sq_exec(s, sql, err);
	}
	snprintf(sql, sizeof(sql), "DELETE FROM strings WHERE id >= %lld",
		 (long long)s->bg.string_base0);
	if (!rc)
		rc = sq_exec(s, sql, err);
	s->rows = s->bg.rows0;
	s->string_base = s->bg.string_base0;
	s->event_base = s->bg.event_base0;
	return rc;
}

/* A worker's rows on the caller's thread alone. */
static int worker_rows(struct out_sqlite *s, int64_t id, const struct out_sqlite_item *it,
		       struct nns_err *err)
{
	struct sq_rows *x;
	int rc = sq_rows_open(s, id, it, &x, err);

	if (rc)
		return rc;
	rc = sq_rows_tables(s, x, err);
	if (!rc)
		rc = sq_rows_events(s, x, 0, sq_rows_events_n(x), err);
	sq_rows_close(x);
	return rc;
}

int out_sqlite_add(struct out_sqlite *s, const struct out_sqlite_item *it, int64_t *worker_id,
		   struct nns_err *err)
{
	struct out_sqlite *part = NULL;
	int64_t id = s->next_worker;
	int rc;

	if (!it->p || !it->p->m)
		return nns_err_set(err, NNS_EINVAL, "%s: a worker without a model", s->path);
	if (s->bg.on && it->p != s->bg.it.p)
		return nns_err_set(err, NNS_EINVAL, "%s: internal: another worker is being written",
				   s->path);
	if (s->bg.on) {
		/* the back of the events on this thread meanwhile */
		rc = sq_part_write(s, &s->bg.split, s->bg.rows, &part, err);
		if (rc)
			bg_stop(s);
		else
			rc = bg_join(s, err);
	} else {
		rc = worker_rows(s, id, it, err);
	}
	if (!rc && part) {
		rc = sq_part_merge(s, part, err);
		part = NULL;
	}
	sq_part_drop(part);
	if (rc || sc_sql_results(s->db, id, it->p, err))
		return err && err->code ? err->code : NNS_EIO;
	s->next_worker++;
	if (worker_id)
		*worker_id = id;
	return NNS_OK;
}

int out_sqlite_add_dist(struct out_sqlite *s, const char *span, const struct an_dist *d,
			struct nns_err *err)
{
	return sc_sql_dist(s->db, span, d, err);
}

int64_t out_sqlite_rows(const struct out_sqlite *s)
{
	return s ? s->rows : 0;
}

int64_t out_sqlite_part_rows(const struct out_sqlite *s)
{
	return s ? s->part_rows : 0;
}

int out_sqlite_commit(struct out_sqlite *s, struct nns_err *err)
{
	if (s->bg.on) {
		nns_err_set(err, NNS_EINVAL, "%s: internal: a worker begun was not added", s->path);
		goto fail;
	}
	if (sq_exec(s, VIEWS, err) || sq_exec(s, "COMMIT;", err))
		goto fail;
	if (sqlite3_close(s->db) != SQLITE_OK) {
		sq_fail(s, err, "closing the database");
		goto fail;
	}
	s->db = NULL;
	if (rename(s->tmp, s->path) != 0) {
		nns_err_set(err, NNS_EIO, "%s: cannot rename into place: %s", s->path,
			    strerror(errno));
		goto fail;
	}
	s->tmp[0] = '\0';
	out_sqlite_abort(s);
	return NNS_OK;
fail:
	out_sqlite_abort(s);
	return NNS_EIO;
}

int out_sqlite_write(const char *path, const struct out_sqlite_item *items, size_t n,
		     const struct an_dist *dist, const char *dist_span, struct nns_err *err)
{
	struct out_sqlite *s;
	int rc = out_sqlite_open(&s, path, err);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		rc = out_sqlite_add(s, &items[i], NULL, err);
		if (rc) {
			out_sqlite_abort(s);
			return rc;
		}
	}
	if (dist && (rc = out_sqlite_add_dist(s, dist_span, dist, err))) {
		out_sqlite_abort(s);
		return rc;
	}
	return out_sqlite_commit(s, err);
}
