/*
 * sqlite_rows.c - a worker's rows into the SQLite export's raw tables
 * (sqlite_int.h: struct sq_rows): its workers row, then its model's
 * threads, counters, memory records, flows, devices, instants, queues,
 * samples and metadata (sq_rows_tables), and the events, a range of ids
 * at a time and on any of the export's connections (sq_rows_events; they
 * need the analysis' operator tree for the operator each launch and
 * device event is attributed to). One row function per table, read by
 * the row source of sqlite_src.c straight from the model's arrays;
 * strings go as the model's own bytes (they outlive the insert).
 *
 * Event ids: a worker's events are numbered from the export's next free
 * id in (kind, start) order, the order of the index events_by_kind, so
 * that the table (id is its rowid) and that index are both filled by
 * appends. Inserted in the model's (start) order instead, every index
 * entry went through a search from the index's root: on bench/ingest's
 * trace, 0.66 s of the 1.9 s that the events took.
 *
 * Event names, shapes, types, call stacks, grids and blocks are stored
 * once per worker in `strings` (id = the worker's base + the model's
 * string id) and referenced by *_id columns of events_raw; the `events`
 * view looks them up as text: on bench/ingest's trace, whose call stacks
 * are half of its bytes, ids make the database about 4x smaller and the
 * export more than twice as fast as text in every row.
 */
#include "output/sqlite_int.h"

#include <stdlib.h>
#include <string.h>

/* What the row functions read: the worker's model and profile, and the
 * events' ids. */
struct sq_rows {
	const struct model *m;
	const struct an_profile *p;
	struct out_sqlite_item it;
	int64_t wid;	 /* workers.id */
	int64_t base;	 /* strings.id of the model's string 0 */
	int64_t ebase;	 /* events_raw.id of the worker's first event */
	uint32_t *order; /* order[k]: the model index of event ebase + k */
	uint32_t *id_of; /* id_of[model index] = k */
	const char *kinds[MK__COUNT + 1];
};

static void v_sid(struct sq_val *v, const struct model *m, uint32_t sid)
{
	if (sid)
		sq_text(v, model_str(m, sid), -1);
}

/* A string column stored as an id into strings. */
static void v_str_id(struct sq_val *v, int64_t base, uint32_t sid)
{
	if (sid)
		sq_int(v, base + sid);
}

static void v_opt(struct sq_val *v, int64_t x, int present)
{
	if (present)
		sq_int(v, x);
}

static void v_thread(struct sq_val *v, uint32_t thread)
{
	v_opt(v, thread, thread != MODEL_NOIDX);
}

static void thread_row(const void *ctx, size_t i, struct sq_val *v)
{
	const struct sq_rows *x = ctx;
	const struct model_thread *t = &x->m->threads.v[i];

	sq_int(&v[0], x->wid);
	sq_int(&v[1], (int64_t)i);
	v_sid(&v[2], x->m, t->pid);
	v_sid(&v[3], x->m, t->tid);
	v_sid(&v[4], x->m, t->name);
}

static void string_row(const void *ctx, size_t i, struct sq_val *v)
{
	const struct sq_rows *x = ctx;

	sq_int(&v[0], x->base + (int64_t)i);
	sq_text(&v[1], strpool_get(&x->m->strings, (uint32_t)i),
		(int)strpool_len(&x->m->strings, (uint32_t)i));
}

/* The event index of the nearest ancestor of node n that is an event. */
static int64_t parent_event(const struct an_optree *t, uint32_t n)
{
	for (uint32_t q = t->nodes.v[n].parent; q != MODEL_NOIDX; q = t->nodes.v[q].parent)
		if (t->nodes.v[q].ev != MODEL_NOIDX)
			return t->nodes.v[q].ev;
	return -1;
}

/* events_raw's columns, from 0 */
enum {
	C_WID,
	C_ID,
	C_TS,
	C_DUR,
	C_NAME,
	C_KIND,
	C_THREAD,
	C_DEVICE,
	C_STREAM,
	C_CORR,
	C_EXT,
	C_LAUNCH,
	C_OP,
	C_OPNAME,
	C_PARENT,
	C_GRID,
	C_BLOCK,
	C_REGS,
	C_SMEM,
	C_BPSM,
	C_OCC,
	C_BYTES,
	C_WSTREAM,
	C_WCORR,
	C_DIMS,
	C_TYPE,
	C_STACK,
	C_SEQ,
	C_PYID,
	C_PYPARENT,
	C_PYMOD,
	C_FWDTID,
	C_CAT,
	C_CLASS,
	C__N
};
_Static_assert(C__N <= SQ_SRC_MAXCOL, "events_raw has more columns than a row source");

static void dev_args(struct sq_val *v, const struct model *m, int64_t base,
		     const struct model_event *e)
{
	const struct model_dev_args *a = &m->dev_args.v[e->extra];

	/* (the stream itself is the model's index, event_row) */
	if (e->kind == MK_SYNC) {
		v_opt(&v[C_WSTREAM], a->wait_stream, a->wait_stream >= 0);
		v_opt(&v[C_WCORR], a->wait_corr, a->wait_corr != MODEL_NONE);
		return;
	}
	v_str_id(&v[C_GRID], base, a->grid);
	v_str_id(&v[C_BLOCK], base, a->block);
	v_opt(&v[C_REGS], a->regs, a->regs >= 0);
	v_opt(&v[C_SMEM], a->shared_mem, a->shared_mem >= 0);
	if (a->blocks_per_sm >= 0)
		sq_real(&v[C_BPSM], a->blocks_per_sm);
	if (a->occupancy >= 0)
		sq_real(&v[C_OCC], a->occupancy);
	v_opt(&v[C_BYTES], a->bytes, a->bytes >= 0);
}

static void op_args(struct sq_val *v, const struct model *m, int64_t base,
		    const struct model_event *e)
{
	const struct model_op_args *a = &m->op_args.v[e->extra];

	v_str_id(&v[C_DIMS], base, a->input_dims);
	v_str_id(&v[C_TYPE], base, a->input_type);
	v_str_id(&v[C_STACK], base, a->call_stack);
	v_opt(&v[C_SEQ], model_id_dec(m, a->seq_enc), a->seq_enc != MODEL_ID_NONE);
	v_opt(&v[C_PYID], model_id_dec(m, a->py_id_enc), a->py_id_enc != MODEL_ID_NONE);
	v_opt(&v[C_PYPARENT], model_id_dec(m, a->py_parent_id_enc),
	      a->py_parent_id_enc != MODEL_ID_NONE);
	v_opt(&v[C_PYMOD], model_id_dec(m, a->py_module_id_enc),
	      a->py_module_id_enc != MODEL_ID_NONE);
	v_opt(&v[C_FWDTID], model_id_dec(m, a->fwd_tid_enc), a->fwd_tid_enc != MODEL_ID_NONE);
}

/* The slot of kind k in sq_rows.kinds (an unknown kind: the last). */
static int kind_slot(uint8_t k)
{
	return k < MK__COUNT ? k : MK__COUNT;
}

/* events_raw.id of the event at model index i */
static int64_t event_id(const struct sq_rows *x, uint32_t i)
{
	return x->ebase + x->id_of[i];
}

/* op_id/op_name: the operator node owning a launch or device event;
 * parent_id: for an event that is a tree node, its nearest ancestor. */
static void tree_cols(struct sq_val *v, const struct sq_rows *x, uint32_t i)
{
	const struct an_optree *t = &x->p->tree;
	uint32_t n = t->owner ? an_owner(t, i) : MODEL_NOIDX;
	const struct an_node *node;

	if (n == MODEL_NOIDX || n >= t->nodes.n)
		return;
	node = &t->nodes.v[n];
	if (node->ev == i) {
		int64_t q = parent_event(t, n);

		if (q >= 0)
			sq_int(&v[C_PARENT], event_id(x, (uint32_t)q));
	} else if (node->type == AN_NODE_OP && node->ev != MODEL_NOIDX) {
		sq_int(&v[C_OP], event_id(x, node->ev));
		v_str_id(&v[C_OPNAME], x->base, node->name);
	}
}

/* The events of ids ebase + lo, ...: sq_rows_events' row source. */
struct ev_range {
	const struct sq_rows *x;
	size_t lo;
};

static void event_row(const void *ctx, size_t k, struct sq_val *v)
{
	const struct ev_range *r = ctx;
	const struct sq_rows *x = r->x;
	const struct model *m = x->m;
	uint32_t i = x->order[r->lo + k];
	const struct model_event *e = &m->events.v[i];
	int cls = model_event_class(m, i);
	int dv = model_event_device(m, i);
	int64_t sm = model_event_stream(m, i);

	sq_int(&v[C_WID], x->wid);
	sq_int(&v[C_ID], x->ebase + (int64_t)(r->lo + k));
	sq_int(&v[C_TS], e->ts);
	sq_int(&v[C_DUR], e->dur);
	sq_int(&v[C_NAME], x->base + e->name);
	sq_text(&v[C_KIND], x->kinds[kind_slot(e->kind)], -1);
	if (e->thread < m->threads.n)
		sq_int(&v[C_THREAD], e->thread);
	/* the model's index: args.device / args.stream, else the pid and
	 * tid Kineto files device events under */
	if (dv >= 0)
		sq_int(&v[C_DEVICE], dv);
	if (sm >= 0)
		sq_int(&v[C_STREAM], sm);
	/* only where it is not the kind's name: the view gives
	 * coalesce(category, kind), the table stays small */
	if (e->flags & MODEL_EF_SRCCAT)
		sq_text(&v[C_CAT], model_event_cat(m, i), -1);
	if (cls != MC_NONE)
		sq_text(&v[C_CLASS], model_class_name(cls), -1);
	if (e->corr_enc != MODEL_ID_NONE)
		sq_int(&v[C_CORR], model_corr(m, e));
	if (e->ext_id_enc != MODEL_ID_NONE)
		sq_int(&v[C_EXT], model_ext_id(m, e));
	if (m->launch_of && model_launch_of(m, i) != MODEL_NOIDX)
		sq_int(&v[C_LAUNCH], event_id(x, model_launch_of(m, i)));
	tree_cols(v, x, i);
	if (e->extra != MODEL_NOIDX) {
		if (model_kind_has_dev_args(e->kind)) {
			if (e->extra < m->dev_args.n)
				dev_args(v, m, x->base, e);
		} else if (e->extra < m->op_args.n) {
			op_args(v, m, x->base, e);
		}
	}
}

static void counter_row(const void *ctx, size_t i, struct sq_val *v)
{
	const struct sq_rows *x = ctx;
	const struct model_counter *c = &x->m->counters.v[i];

	sq_int(&v[0], x->wid);
	sq_int(&v[1], c->ts);
	v_sid(&v[2], x->m, c->name);
	sq_real(&v[3], c->value);
	v_thread(&v[4], c->thread);
}

static void mem_row(const void *ctx, size_t i, struct sq_val *v)
{
	const struct sq_rows *x = ctx;
	const struct model_mem *r = &x->m->mems.v[i];

	sq_int(&v[0], x->wid);
	sq_int(&v[1], r->ts);
	v_opt(&v[2], r->addr, r->flags & MODEL_MEM_HAS_ADDR);
	sq_int(&v[3], r->bytes);
	v_opt(&v[4], r->total_allocated, r->flags & MODEL_MEM_HAS_TOTAL_ALLOC);
	v_opt(&v[5], r->total_reserved, r->flags & MODEL_MEM_HAS_TOTAL_RESERVED);
	sq_int(&v[6], r->device_type);
	sq_int(&v[7], r->device_id);
	v_thread(&v[8], r->thread);
}

static void flow_row(const void *ctx, size_t i, struct sq_val *v)
{
	static const char *const kinds[] = {"fwdbwd", "ac2g", "other"};
	const struct sq_rows *x = ctx;
	const struct model_flow *f = &x->m->flows.v[i];

	sq_int(&v[0], x->wid);
	sq_int(&v[1], f->ts);
	sq_int(&v[2], f->id);
	sq_text(&v[3], kinds[f->kind <= MF_OTHER ? f->kind : MF_OTHER], -1);
	sq_text(&v[4], &f->ph, 1); /* the model's byte */
	v_thread(&v[5], f->thread);
}

static void device_row(const void *ctx, size_t i, struct sq_val *v)
{
	const struct sq_rows *x = ctx;
	const struct model_device *d = &x->m->devices.v[i];

	sq_int(&v[0], x->wid);
	sq_int(&v[1], d->id);
	v_sid(&v[2], x->m, d->name);
	sq_int(&v[3], d->total_mem);
	sq_int(&v[4], d->major);
	sq_int(&v[5], d->minor);
	sq_int(&v[6], d->num_sms);
	sq_int(&v[7], d->max_threads_per_sm);
	sq_int(&v[8], d->max_threads_per_block);
	sq_int(&v[9], d->regs_per_sm);
	sq_int(&v[10], d->shared_mem_per_sm);
	sq_int(&v[11], d->warp_size);
}

static void instant_row(const void *ctx, size_t i, struct sq_val *v)
{
	const struct sq_rows *x = ctx;
	const struct model_instant *r = &x->m->instants.v[i];

	sq_int(&v[0], x->wid);
	sq_int(&v[1], r->ts);
	v_sid(&v[2], x->m, r->name);
	v_thread(&v[3], r->thread);
}

static void queue_row(const void *ctx, size_t i, struct sq_val *v)
{
	const struct sq_rows *x = ctx;
	const struct model_queue *q = &x->m->queues.v[i];

	sq_int(&v[0], x->wid);
	sq_int(&v[1], q->ts);
	v_sid(&v[2], x->m, q->name);
	sq_int(&v[3], q->size);
	v_opt(&v[4], q->capacity, q->capacity > 0);
	v_thread(&v[5], q->thread);
}

static void sample_row(const void *ctx, size_t i, struct sq_val *v)
{
	static const char *const kinds[] = {"other", "machine", "process", "thread"};
	const struct sq_rows *x = ctx;
	const struct model_sample *r = &x->m->samples.v[i];

	sq_int(&v[0], x->wid);
	sq_int(&v[1], r->ts);
	sq_text(&v[2], kinds[r->kind <= MS_THREAD ? r->kind : 0], -1);
	if (r->kind == MS_THREAD)
		sq_int(&v[3], r->tid);
	v_thread(&v[4], r->thread);
	sq_real(&v[5], r->user);
	sq_real(&v[6], r->sys);
	sq_real(&v[7], r->idle);
	sq_real(&v[8], r->iowait);
	if (r->kind == MS_MACHINE) {
		sq_int(&v[9], r->running);
		sq_int(&v[10], (int64_t)r->ctx_switches);
	}
	if (r->kind == MS_PROCESS)
		sq_int(&v[11], (int64_t)r->rss_kb);
}

static void meta_row(const void *ctx, size_t i, struct sq_val *v)
{
	const struct sq_rows *x = ctx;

	sq_int(&v[0], x->wid);
	v_sid(&v[1], x->m, x->m->meta.v[i].key);
	v_sid(&v[2], x->m, x->m->meta.v[i].value);
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static int add_worker(struct out_sqlite *s, int64_t id, const struct out_sqlite_item *it,
		      struct nns_err *err)
{
	const struct model *m = it->p->m;
	sqlite3_stmt *st;
	int rc;

	if (sq_prepare(
		s,
		"INSERT INTO workers(id, run, worker, span, source, rank, world_size, events,"
		" truncated, events_skipped, first_problem, bytes_read, events_lost,"
		" base_time_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		&st, err))
		return NNS_EIO;
	sqlite3_bind_int64(st, 1, id);
	bind_text_or_null(st, 2, it->run);
	bind_text_or_null(st, 3, it->worker);
	bind_text_or_null(st, 4, it->span);
	bind_text_or_null(st, 5, it->source);
	if (m->dist_rank >= 0)
		sqlite3_bind_int64(st, 6, m->dist_rank);
	if (m->dist_world_size >= 0)
		sqlite3_bind_int64(st, 7, m->dist_world_size);
	sqlite3_bind_int64(st, 8, (int64_t)m->events.n);
	sqlite3_bind_int(st, 9, m->diag.truncated ? 1 : 0);
	sqlite3_bind_int64(st, 10, m->diag.events_skipped);
	bind_text_or_null(st, 11, m->diag.first_problem);
	sqlite3_bind_int64(st, 12, m->diag.bytes_read);
	sqlite3_bind_int64(st, 13, m->diag.events_lost);
	if (m->base_time_ns)
		sqlite3_bind_int64(st, 14, m->base_time_ns);
	rc = sq_step(s, st, "inserting a worker", err);
	sqlite3_finalize(st);
	return rc;
}

/* The rank of each kind's name in byte order, as SQLite's BINARY
 * collation orders events_by_kind (equal names, equal ranks). */
static void kind_ranks(const struct sq_rows *x, int rank[MK__COUNT + 1])
{
	for (int a = 0; a <= MK__COUNT; a++) {
		rank[a] = 0;
		for (int b = 0; b <= MK__COUNT; b++)
			rank[a] += strcmp(x->kinds[b], x->kinds[a]) < 0;
	}
}

int sq_rows_open(struct out_sqlite *s, int64_t wid, const struct out_sqlite_item *it,
		 struct sq_rows **out, struct nns_err *err)
{
	const struct model *m = it->p->m;
	size_t n = m->events.n, start[MK__COUNT + 2] = {0};
	int rank[MK__COUNT + 1];
	struct sq_rows *x;

	*out = NULL;
	if (n >= MODEL_NOIDX)
		return nns_err_set(err, NNS_EINVAL, "%s: %zu events in one worker", s->path, n);
	if (!(x = calloc(1, sizeof(*x))) || !(x->order = malloc((n ? n : 1) * sizeof(uint32_t))) ||
	    !(x->id_of = malloc((n ? n : 1) * sizeof(uint32_t)))) {
		sq_rows_close(x);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", s->path);
	}
	x->m = m;
	x->p = it->p;
	x->it = *it;
	x->wid = wid;
	x->base = s->string_base;
	x->ebase = s->event_base;
	s->string_base += (int64_t)m->strings.count;
	s->event_base += (int64_t)n;
	for (int k = 0; k <= MK__COUNT; k++)
		x->kinds[k] = model_kind_name(k);
	/* a counting sort by kind: stable, so each kind keeps the model's
	 * (start, longer first) order */
	kind_ranks(x, rank);
	for (size_t i = 0; i < n; i++)
		start[rank[kind_slot(m->events.v[i].kind)] + 1]++;
	for (int r = 1; r <= MK__COUNT + 1; r++)
		start[r] += start[r - 1];
	for (size_t i = 0; i < n; i++) {
		size_t pos = start[rank[kind_slot(m->events.v[i].kind)]]++;

		x->order[pos] = (uint32_t)i;
		x->id_of[i] = (uint32_t)pos;
	}
	*out = x;
	return NNS_OK;
}

void sq_rows_close(struct sq_rows *x)
{
	if (!x)
		return;
	free(x->order);
	free(x->id_of);
	free(x);
}

size_t sq_rows_events_n(const struct sq_rows *x)
{
	return x->m->events.n;
}

int sq_rows_tables(struct out_sqlite *s, struct sq_rows *x, struct nns_err *err)
{
	const struct model *m = x->m;
	const struct sq_src srcs[] = {
	    {"strings", "inserting strings", 2, m->strings.count, string_row, x, 0},
	    {"threads", "inserting threads", 5, m->threads.n, thread_row, x, 0},
	    {"counters", "inserting counters", 5, m->counters.n, counter_row, x, 0},
	    {"memory_events", "inserting memory events", 9, m->mems.n, mem_row, x, 0},
	    {"flows", "inserting flows", 6, m->flows.n, flow_row, x, 0},
	    {"devices", "inserting devices", 12, m->devices.n, device_row, x, 0},
	    {"instants", "inserting instants", 4, m->instants.n, instant_row, x, 0},
	    {"queues", "inserting queues", 6, m->queues.n, queue_row, x, 0},
	    {"samples", "inserting samples", 12, m->samples.n, sample_row, x, 0},
	    {"worker_meta", "inserting worker metadata", 3, m->meta.n, meta_row, x, 0},
	};

	if (add_worker(s, x->wid, &x->it, err))
		return NNS_EIO;
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++)
		if (sq_src_insert(s, &srcs[i], err))
			return NNS_EIO;
	return NNS_OK;
}

/* The events go in statements of this many rows at most, each naming
 * only the columns its rows set: a column a kind never sets (an
 * operator's grid, a kernel's call stack) is then a NULL literal, not a
 * call into the row source per row. On bench/ingest's trace the events
 * set 7 to 21 of the 34 columns, by kind. */
#define EV_CHUNK 16384

int sq_rows_events(struct out_sqlite *s, const struct sq_rows *x, size_t lo, size_t hi,
		   struct nns_err *err)
{
	struct sq_val v[C__N];

	if (an_profile_need(x->p, AN_PASS_OPTREE, err))
		return err && err->code ? err->code : NNS_EIO;
	for (size_t a = lo, b; a < hi; a = b) {
		const struct ev_range r = {x, a};
		struct sq_src events = {
		    "events_raw", "inserting events", C__N, 0, event_row, &r, 0};

		b = hi - a > EV_CHUNK ? a + EV_CHUNK : hi;
		events.n = b - a;
		for (size_t k = 0; k < events.n; k++) {
			memset(v, 0, sizeof(v));
			event_row(&r, k, v);
			for (int c = 0; c < C__N; c++)
				events.cols |= (uint64_t)(v[c].type != SQ_NULL) << c;
		}
		if (sq_src_insert(s, &events, err))
			return err && err->code ? err->code : NNS_EIO;
	}
	return NNS_OK;
}
