/*
 * schema_sql.c - the result tables of schema.h into SQLite (schema_sql.h):
 * one table per result with the JSON contract's column names, created
 * and filled from the same descriptions the JSON, CSV and terminal
 * writers use. One prepared statement per table and call.
 */
#include "output/schema_sql.h"
#include "analysis/an_hta.h"
#include "analysis/an_ms.h"
#include "output/output.h"

#include <stdio.h>
#include <string.h>

/* A SQL result table: its name, its description and the columns of it
 * that the table has (NULL = all); lead is the first column: worker_id
 * (per-worker results) or span (the run's distributed view). */
struct sql_tab {
	const char *name;
	const struct sc_table *t;
	const char *const *sel;
};

static const char *sql_type(const struct sc_col *c)
{
	switch (c->type) {
	case SC_TEXT:
		return "TEXT";
	case SC_REAL:
		return "REAL";
	default:
		return "INTEGER"; /* integers and booleans (0/1) */
	}
}

static const char *unit_name(int unit)
{
	static const char *const names[] = {"", "µs", "bytes", "count", "0..1", "percent"};

	return unit >= 0 && unit <= SC_PERCENT ? names[unit] : "";
}

/* datapipe.json's queue columns and the verdict */
static const char *const dpq_sel[] = {
    "name",	   "consumer",	 "samples",	"avg_size",   "max_size", "capacity", "utilization",
    "empty_count", "full_count", "empty_ratio", "full_ratio", "verdict",  NULL,
};

/* The per-worker result tables, in creation order. */
static size_t worker_tabs(struct sql_tab *out)
{
	size_t n = 0;

	out[n++] = (struct sql_tab){"steps", &sc_steps, NULL};
	for (int g = 0; g < SC_OP_GROUPS; g++)
		out[n++] =
		    (struct sql_tab){sc_op_groups[g].table, &sc_operators, sc_op_groups[g].cols};
	for (int g = 0; g < SC_KERNEL_GROUPS; g++)
		out[n++] = (struct sql_tab){sc_kernel_groups[g].table, &sc_kernels,
					    sc_kernel_groups[g].cols};
	out[n++] = (struct sql_tab){"memory_ops", &sc_memory_ops, NULL};
	out[n++] = (struct sql_tab){"memory_allocations", &sc_memory_allocs, NULL};
	out[n++] = (struct sql_tab){"memory_curve", &sc_memory_curve, NULL};
	out[n++] = (struct sql_tab){"modules", &sc_modules, NULL};
	out[n++] = (struct sql_tab){"steptrace", &sc_steptrace, NULL};
	out[n++] = (struct sql_tab){"gpus", &sc_gpus, NULL};
	out[n++] = (struct sql_tab){"datapipe_queues", &sc_dp_queues, dpq_sel};
	out[n++] = (struct sql_tab){"datapipe_steps", &sc_dp_steps, NULL};
	out[n++] = (struct sql_tab){"cpu_threads", &sc_cpu_threads, NULL};
	out[n++] = (struct sql_tab){"cpu_stages", &sc_cpu_stages, NULL};
	out[n++] = (struct sql_tab){"cpu_series", &sc_cpu_series, NULL};
	out[n++] = (struct sql_tab){"host_events", &sc_host_events, NULL};
	out[n++] = (struct sql_tab){"temporal", &sc_temporal, NULL};
	out[n++] = (struct sql_tab){"idle", &sc_idle, NULL};
	out[n++] = (struct sql_tab){"ms_op_types", &sc_ms_op_types, NULL};
	out[n++] = (struct sql_tab){"ms_ops", &sc_ms_ops, NULL};
	return n;
}

#define MAX_TABS (15 + SC_OP_GROUPS + SC_KERNEL_GROUPS + 8)

static const struct sql_tab dist_tabs[] = {
    {"distributed", &sc_dist_workers, NULL},
    {"comm_ops", &sc_comm_ops, NULL},
};

static int sql_fail(sqlite3 *db, const char *what, struct nns_err *err)
{
	return nns_err_set(err, NNS_EIO, "sqlite: %s: %s", what, sqlite3_errmsg(db));
}

/* Appends to buf (size n) at *len; 0, or -1 when it does not fit. */
static int add(char *buf, size_t n, size_t *len, const char *s)
{
	size_t k = strlen(s);

	if (*len + k + 1 > n)
		return -1;
	memcpy(buf + *len, s, k + 1);
	*len += k;
	return 0;
}

static int create_tab(sqlite3 *db, const struct sql_tab *st, const char *lead, struct nns_err *err)
{
	struct sc_picks ps;
	char sql[4096];
	size_t len = 0;
	int bad = 0;

	bad |= add(sql, sizeof(sql), &len, "CREATE TABLE IF NOT EXISTS \"");
	bad |= add(sql, sizeof(sql), &len, st->name);
	bad |= add(sql, sizeof(sql), &len, "\" (");
	bad |= add(sql, sizeof(sql), &len, lead);
	sc_picks(&ps, st->t, st->sel);
	for (size_t i = 0; i < ps.n; i++) {
		bad |= add(sql, sizeof(sql), &len, ", \"");
		bad |= add(sql, sizeof(sql), &len, ps.shown[i]);
		bad |= add(sql, sizeof(sql), &len, "\" ");
		bad |= add(sql, sizeof(sql), &len, sql_type(ps.col[i]));
	}
	bad |= add(sql, sizeof(sql), &len, ")");
	if (bad)
		return nns_err_set(err, NNS_EINVAL, "sqlite: table %s: definition too long",
				   st->name);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, st->name, err);
	return NNS_OK;
}

int sc_sql_create_results(sqlite3 *db, struct nns_err *err)
{
	struct sql_tab tabs[MAX_TABS];
	size_t n = worker_tabs(tabs);
	int rc = NNS_OK;

	for (size_t i = 0; !rc && i < n; i++)
		rc = create_tab(db, &tabs[i], "worker_id INTEGER NOT NULL", err);
	for (size_t i = 0; !rc && i < sizeof(dist_tabs) / sizeof(dist_tabs[0]); i++)
		rc = create_tab(db, &dist_tabs[i], "span TEXT", err);
	return rc;
}

static int bind_value(sqlite3_stmt *s, int idx, const struct sc_col *c, const struct sc_val *v)
{
	if (v->null || (c->type == SC_TEXT && !v->s))
		return sqlite3_bind_null(s, idx);
	switch (c->type) {
	case SC_TEXT:
		return sqlite3_bind_text(s, idx, v->s, -1, SQLITE_TRANSIENT);
	case SC_REAL:
		return sqlite3_bind_double(s, idx, v->d);
	default:
		return sqlite3_bind_int64(s, idx, c->type == SC_BOOL ? v->i != 0 : v->i);
	}
}

/* A prepared INSERT of st's lead column and n more; NULL after setting err. */
static sqlite3_stmt *prepare_insert(sqlite3 *db, const struct sql_tab *st, size_t n,
				    struct nns_err *err)
{
	char sql[2048];
	size_t len = 0;
	sqlite3_stmt *s = NULL;
	int bad = 0;

	bad |= add(sql, sizeof(sql), &len, "INSERT INTO \"");
	bad |= add(sql, sizeof(sql), &len, st->name);
	bad |= add(sql, sizeof(sql), &len, "\" VALUES (?");
	for (size_t i = 0; i < n; i++)
		bad |= add(sql, sizeof(sql), &len, ",?");
	bad |= add(sql, sizeof(sql), &len, ")");
	if (bad) {
		nns_err_set(err, NNS_EINVAL, "sqlite: table %s: statement too long", st->name);
		return NULL;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		sql_fail(db, st->name, err);
		return NULL;
	}
	return s;
}

/* Inserts rows[0..n) of st; the lead column is worker_id, or the span
 * text when by_span. */
static int insert_rows(sqlite3 *db, const struct sql_tab *st, int64_t worker_id, const char *span,
		       int by_span, const void *rows, size_t nrows, const struct sc_ctx *x,
		       struct nns_err *err)
{
	sqlite3_stmt *s;
	struct sc_ctx rx = *x;
	struct sc_val v;
	struct sc_picks ps;
	int rc = NNS_OK;

	if (nrows == 0)
		return NNS_OK;
	sc_picks(&ps, st->t, st->sel);
	s = prepare_insert(db, st, ps.n, err);
	if (!s)
		return err ? err->code : NNS_EIO;
	for (size_t r = 0; !rc && r < nrows; r++) {
		const void *row = sc_row(st->t, rows, r);
		int b;

		rx.index = r;
		if (by_span)
			b = span && *span ? sqlite3_bind_text(s, 1, span, -1, SQLITE_TRANSIENT)
					  : sqlite3_bind_null(s, 1);
		else
			b = sqlite3_bind_int64(s, 1, worker_id);
		for (size_t i = 0; b == SQLITE_OK && i < ps.n; i++) {
			sc_get(ps.col[i], row, &rx, &v);
			b = bind_value(s, (int)i + 2, ps.col[i], &v);
		}
		if (b != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
			rc = sql_fail(db, st->name, err);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return rc;
}

static const struct sql_tab *find_tab(const struct sql_tab *tabs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tabs[i].name, name) == 0)
			return &tabs[i];
	return NULL;
}

int sc_sql_results(sqlite3 *db, int64_t worker_id, const struct an_profile *p, struct nns_err *err)
{
	struct sql_tab tabs[MAX_TABS];
	size_t nt = worker_tabs(tabs);
	struct sc_ctx x = {p->m, 0, NULL};
	int rc;

#define INS(name, rows, n, ctx)                                                                    \
	insert_rows(db, find_tab(tabs, nt, name), worker_id, NULL, 0, rows, n, ctx, err)
	rc = INS("steps", p->overview.steps.v, p->overview.steps.n, &x);
	for (int g = 0; !rc && g < SC_OP_GROUPS; g++) {
		size_t n;
		const struct an_op_row *rows = sc_op_group_rows(&p->ops, g, &n);

		rc = INS(sc_op_groups[g].table, rows, n, &x);
	}
	for (int g = 0; !rc && g < SC_KERNEL_GROUPS; g++) {
		size_t n;
		const struct an_kernel_row *rows = sc_kernel_group_rows(&p->kernels, g, &n);

		rc = INS(sc_kernel_groups[g].table, rows, n, &x);
	}
	for (size_t d = 0; !rc && d < p->memory.devices.n; d++) {
		const struct an_mem_device *dev = &p->memory.devices.v[d];
		struct sc_ctx dx = {p->m, 0, dev};

		rc = INS("memory_ops", dev->ops.v, dev->ops.n, &dx);
		if (!rc)
			rc = INS("memory_allocations", dev->events.v, dev->events.n, &dx);
		if (!rc)
			rc = INS("memory_curve", dev->curve.v, dev->curve.n, &dx);
	}
	if (!rc) {
		struct sc_ctx mx = {p->m, 0, &p->modules};

		rc = INS("modules", p->modules.rows.v, p->modules.rows.n, &mx);
	}
	if (!rc)
		rc = INS("steptrace", p->steptrace.steps.v, p->steptrace.steps.n, &x);
	if (!rc)
		rc = INS("gpus", p->gpus.v, p->gpus.n, &x);
	if (!rc) {
		struct sc_ctx dx = {p->m, 0, &p->datapipe};

		rc = INS("datapipe_queues", p->datapipe.queues.v, p->datapipe.queues.n, &dx);
	}
	if (!rc)
		rc = INS("datapipe_steps", p->datapipe.steps.v, p->datapipe.steps.n, &x);
	if (!rc)
		rc = INS("cpu_threads", p->cpu.threads.v, p->cpu.threads.n, &x);
	if (!rc)
		rc = INS("cpu_stages", p->cpu.stages.v, p->cpu.stages.n, &x);
	if (!rc) {
		struct sc_ctx mx = {p->m, 0, "machine"}, px = {p->m, 0, "process"};

		rc = INS("cpu_series", p->cpu.machine_series.v, p->cpu.machine_series.n, &mx);
		if (!rc)
			rc = INS("cpu_series", p->cpu.process_series.v, p->cpu.process_series.n,
				 &px);
	}
	if (!rc)
		rc = INS("host_events", p->hostinfo.rows.v, p->hostinfo.rows.n, &x);
	if (!rc && p->m && !(rc = an_profile_need(p, AN_PASS_TEMPORAL, err)))
		rc = INS("temporal", p->hta->temporal.devs.v, p->hta->temporal.devs.n, &x);
	if (!rc && p->m && !(rc = an_profile_need(p, AN_PASS_IDLE, err)))
		rc = INS("idle", p->hta->idle.streams.v, p->hta->idle.streams.n, &x);
	if (!rc && p->ms && p->ms->at_part.rc == NNS_OK)
		rc = INS("ms_op_types", p->ms->at.rows.v, p->ms->at.rows.n, &x);
	if (!rc && p->ms && p->ms->ad_part.rc == NNS_OK)
		rc = INS("ms_ops", p->ms->ad.rows.v, p->ms->ad.rows.n, &x);
#undef INS
	return rc;
}

int sc_sql_dist(sqlite3 *db, const char *span, const struct an_dist *d, struct nns_err *err)
{
	struct sc_ctx x = {NULL, 0, d};
	int rc;

	rc = insert_rows(db, &dist_tabs[0], 0, span, 1, d->workers.v, d->workers.n, &x, err);
	if (!rc)
		rc = insert_rows(db, &dist_tabs[1], 0, span, 1, d->comm_ops.v, d->comm_ops.n, &x,
				 err);
	return rc;
}

static void describe_tab(FILE *f, const struct sql_tab *st, const char *lead, const char *ldoc)
{
	struct sc_picks ps;

	fprintf(f, "### `%s`\n\n%s.\n\n| column | type | unit | meaning |\n|---|---|---|---|\n",
		st->name, st->t->doc);
	fprintf(f, "| `%s` | %s | | %s |\n", lead, strcmp(lead, "span") ? "INTEGER" : "TEXT", ldoc);
	sc_picks(&ps, st->t, st->sel);
	for (size_t i = 0; i < ps.n; i++) {
		const struct sc_col *c = ps.col[i];

		fprintf(f, "| `%s` | %s%s | %s | %s |\n", ps.shown[i], sql_type(c),
			c->type == SC_BOOL ? " (0/1)" : "", unit_name(c->unit),
			c->doc ? c->doc : "");
	}
	fputc('\n', f);
}

void sc_sql_describe(FILE *f)
{
	struct sql_tab tabs[MAX_TABS];
	size_t n = worker_tabs(tabs);

	for (size_t i = 0; i < n; i++)
		describe_tab(f, &tabs[i], "worker_id", "the worker (`workers.id`)");
	for (size_t i = 0; i < sizeof(dist_tabs) / sizeof(dist_tabs[0]); i++)
		describe_tab(f, &dist_tabs[i], "span",
			     "the span of the run's distributed view, NULL without spans");
}
