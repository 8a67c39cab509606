/*
 * sqlite_rows.c - a model's rows into the SQLite export's raw tables
 * (sqlite_int.h): threads, events (with the operator each launch and
 * device event is attributed to, from the analysis' operator tree),
 * counters, memory records, flows, devices, instants, queues, samples and
 * the worker's metadata. One multi-row insert per table (sqlite_ins.c),
 * bound row by row and stepped every SQ_INS_ROWS rows; strings are bound
 * SQLITE_STATIC from the model's pool, which outlives the statement.
 *
 * Event names, shapes, types, call stacks, grids and blocks are stored
 * once per worker in `strings` (id = the worker's base + the model's
 * string id) and referenced by *_id columns of events_raw; the `events`
 * view looks them up as text: on bench/ingest's trace, whose call stacks
 * are half of its bytes, ids make the database about 4x smaller and the
 * export more than twice as fast as text in every row.
 */
#include "output/sqlite_int.h"

#include <string.h>

static void bind_sid(sqlite3_stmt *st, int i, const struct model *m, uint32_t sid)
{
	if (sid)
		sqlite3_bind_text(st, i, model_str(m, sid), -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* A string column stored as an id into strings. */
static void bind_str_id(sqlite3_stmt *st, int i, int64_t base, uint32_t sid)
{
	if (sid)
		sqlite3_bind_int64(st, i, base + sid);
	else
		sqlite3_bind_null(st, i);
}

static void bind_opt(sqlite3_stmt *st, int i, int64_t v, int present)
{
	if (present)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static void bind_thread(sqlite3_stmt *st, int i, uint32_t thread)
{
	bind_opt(st, i, thread, thread != MODEL_NOIDX);
}

static int put_threads(struct out_sqlite *s, int64_t wid, const struct model *m,
		       struct nns_err *err)
{
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "threads", 5, m->threads.n, "inserting threads");
	for (size_t i = 0; i < m->threads.n && !rc; i++) {
		const struct model_thread *t = &m->threads.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		sqlite3_bind_int64(st, o + 2, (int64_t)i);
		bind_sid(st, o + 3, m, t->pid);
		bind_sid(st, o + 4, m, t->tid);
		bind_sid(st, o + 5, m, t->name);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

/* The event index of the nearest ancestor of node n that is an event. */
static int64_t parent_event(const struct an_optree *t, uint32_t n)
{
	for (uint32_t q = t->nodes.v[n].parent; q != MODEL_NOIDX; q = t->nodes.v[q].parent)
		if (t->nodes.v[q].ev != MODEL_NOIDX)
			return t->nodes.v[q].ev;
	return -1;
}

enum {
	C_WID = 1,
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

static void bind_dev_args(sqlite3_stmt *st, int o, const struct model *m, int64_t base,
			  const struct model_event *e)
{
	const struct model_dev_args *a = &m->dev_args.v[e->extra];

	/* (the stream itself is bound from the model's index, put_events) */
	if (e->kind == MK_SYNC) {
		bind_opt(st, o + C_WSTREAM, a->wait_stream, a->wait_stream >= 0);
		bind_opt(st, o + C_WCORR, a->wait_corr, a->wait_corr != MODEL_NONE);
		return;
	}
	bind_str_id(st, o + C_GRID, base, a->grid);
	bind_str_id(st, o + C_BLOCK, base, a->block);
	bind_opt(st, o + C_REGS, a->regs, a->regs >= 0);
	bind_opt(st, o + C_SMEM, a->shared_mem, a->shared_mem >= 0);
	if (a->blocks_per_sm >= 0)
		sqlite3_bind_double(st, o + C_BPSM, a->blocks_per_sm);
	if (a->occupancy >= 0)
		sqlite3_bind_double(st, o + C_OCC, a->occupancy);
	bind_opt(st, o + C_BYTES, a->bytes, a->bytes >= 0);
}

static void bind_op_args(sqlite3_stmt *st, int o, const struct model *m, int64_t base,
			 const struct model_event *e)
{
	const struct model_op_args *a = &m->op_args.v[e->extra];

	bind_str_id(st, o + C_DIMS, base, a->input_dims);
	bind_str_id(st, o + C_TYPE, base, a->input_type);
	bind_str_id(st, o + C_STACK, base, a->call_stack);
	bind_opt(st, o + C_SEQ, a->seq, a->seq != MODEL_NONE);
	bind_opt(st, o + C_PYID, a->py_id, a->py_id != MODEL_NONE);
	bind_opt(st, o + C_PYPARENT, a->py_parent_id, a->py_parent_id != MODEL_NONE);
	bind_opt(st, o + C_PYMOD, a->py_module_id, a->py_module_id != MODEL_NONE);
	bind_opt(st, o + C_FWDTID, a->fwd_tid, a->fwd_tid != MODEL_NONE);
}

/* op_id/op_name: the operator node owning a launch or device event;
 * parent_id: for an event that is a tree node, its nearest ancestor. */
static void bind_tree(sqlite3_stmt *st, int o, const struct an_profile *p, int64_t base, uint32_t i)
{
	const struct an_optree *t = &p->tree;
	uint32_t n = t->owner ? t->owner[i] : MODEL_NOIDX;
	const struct an_node *node;

	if (n == MODEL_NOIDX || n >= t->nodes.n)
		return;
	node = &t->nodes.v[n];
	if (node->ev == i) {
		int64_t q = parent_event(t, n);

		if (q >= 0)
			sqlite3_bind_int64(st, o + C_PARENT, q);
	} else if (node->type == AN_NODE_OP && node->ev != MODEL_NOIDX) {
		sqlite3_bind_int64(st, o + C_OP, node->ev);
		bind_str_id(st, o + C_OPNAME, base, node->name);
	}
}

static int put_strings(struct out_sqlite *s, const struct model *m, struct nns_err *err)
{
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "strings", 2, m->strings.count, "inserting strings");
	for (size_t i = 0; i < m->strings.count && !rc; i++) {
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, s->string_base + (int64_t)i);
		sqlite3_bind_text(st, o + 2, strpool_get(&m->strings, (uint32_t)i),
				  (int)strpool_len(&m->strings, (uint32_t)i), SQLITE_STATIC);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_events(struct out_sqlite *s, int64_t wid, const struct an_profile *p,
		      struct nns_err *err)
{
	const int64_t base = s->string_base;
	const struct model *m = p->m;
	const char *kinds[MK__COUNT + 1];
	struct sq_ins b;
	int rc = NNS_OK;

	for (int i = 0; i <= MK__COUNT; i++)
		kinds[i] = model_kind_name(i);
	sq_ins_open(&b, s, "events_raw", C__N - 1, m->events.n, "inserting events");
	for (size_t i = 0; i < m->events.n && !rc; i++) {
		const struct model_event *e = &m->events.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + C_WID, wid);
		sqlite3_bind_int64(st, o + C_ID, (int64_t)i);
		sqlite3_bind_int64(st, o + C_TS, e->ts);
		sqlite3_bind_int64(st, o + C_DUR, e->dur);
		sqlite3_bind_int64(st, o + C_NAME, base + e->name);
		sqlite3_bind_text(st, o + C_KIND, kinds[e->kind < MK__COUNT ? e->kind : MK__COUNT],
				  -1, SQLITE_STATIC);
		if (e->thread < m->threads.n)
			sqlite3_bind_int64(st, o + C_THREAD, e->thread);
		{
			/* the model's index: args.device / args.stream, else
			 * the pid and tid Kineto files device events under */
			int dv = model_event_device(m, (uint32_t)i);
			int64_t sm = model_event_stream(m, (uint32_t)i);
			if (dv >= 0)
				sqlite3_bind_int(st, o + C_DEVICE, dv);
			if (sm >= 0)
				sqlite3_bind_int64(st, o + C_STREAM, sm);
		}
		/* only where it is not the kind's name: the view gives
		 * coalesce(category, kind), the table stays small */
		if (e->flags & MODEL_EF_SRCCAT)
			sqlite3_bind_text(st, o + C_CAT, model_event_cat(m, (uint32_t)i), -1,
					  SQLITE_STATIC);
		if (model_event_class(m, (uint32_t)i) != MC_NONE)
			sqlite3_bind_text(st, o + C_CLASS,
					  model_class_name(model_event_class(m, (uint32_t)i)), -1,
					  SQLITE_STATIC);
		if (e->corr != MODEL_NONE)
			sqlite3_bind_int64(st, o + C_CORR, e->corr);
		if (e->ext_id != MODEL_NONE)
			sqlite3_bind_int64(st, o + C_EXT, e->ext_id);
		if (m->launch_of && m->launch_of[i] != MODEL_NOIDX)
			sqlite3_bind_int64(st, o + C_LAUNCH, m->launch_of[i]);
		bind_tree(st, o, p, base, (uint32_t)i);
		if (e->extra != MODEL_NOIDX) {
			if (model_kind_has_dev_args(e->kind)) {
				if (e->extra < m->dev_args.n)
					bind_dev_args(st, o, m, base, e);
			} else if (e->extra < m->op_args.n) {
				bind_op_args(st, o, m, base, e);
			}
		}
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_counters(struct out_sqlite *s, int64_t wid, const struct model *m,
			struct nns_err *err)
{
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "counters", 5, m->counters.n, "inserting counters");
	for (size_t i = 0; i < m->counters.n && !rc; i++) {
		const struct model_counter *c = &m->counters.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		sqlite3_bind_int64(st, o + 2, c->ts);
		bind_sid(st, o + 3, m, c->name);
		sqlite3_bind_double(st, o + 4, c->value);
		bind_thread(st, o + 5, c->thread);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_mems(struct out_sqlite *s, int64_t wid, const struct model *m, struct nns_err *err)
{
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "memory_events", 9, m->mems.n, "inserting memory events");
	for (size_t i = 0; i < m->mems.n && !rc; i++) {
		const struct model_mem *r = &m->mems.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		sqlite3_bind_int64(st, o + 2, r->ts);
		bind_opt(st, o + 3, r->addr, r->flags & MODEL_MEM_HAS_ADDR);
		sqlite3_bind_int64(st, o + 4, r->bytes);
		bind_opt(st, o + 5, r->total_allocated, r->flags & MODEL_MEM_HAS_TOTAL_ALLOC);
		bind_opt(st, o + 6, r->total_reserved, r->flags & MODEL_MEM_HAS_TOTAL_RESERVED);
		sqlite3_bind_int(st, o + 7, r->device_type);
		sqlite3_bind_int(st, o + 8, r->device_id);
		bind_thread(st, o + 9, r->thread);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_flows(struct out_sqlite *s, int64_t wid, const struct model *m, struct nns_err *err)
{
	static const char *const kinds[] = {"fwdbwd", "ac2g", "other"};
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "flows", 6, m->flows.n, "inserting flows");
	for (size_t i = 0; i < m->flows.n && !rc; i++) {
		const struct model_flow *f = &m->flows.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		sqlite3_bind_int64(st, o + 2, f->ts);
		sqlite3_bind_int64(st, o + 3, f->id);
		sqlite3_bind_text(st, o + 4, kinds[f->kind <= MF_OTHER ? f->kind : MF_OTHER], -1,
				  SQLITE_STATIC);
		/* the model's byte: it outlives the step, the local would not */
		sqlite3_bind_text(st, o + 5, &f->ph, 1, SQLITE_STATIC);
		bind_thread(st, o + 6, f->thread);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_devices(struct out_sqlite *s, int64_t wid, const struct model *m,
		       struct nns_err *err)
{
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "devices", 12, m->devices.n, "inserting devices");
	for (size_t i = 0; i < m->devices.n && !rc; i++) {
		const struct model_device *d = &m->devices.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		sqlite3_bind_int(st, o + 2, d->id);
		bind_sid(st, o + 3, m, d->name);
		sqlite3_bind_int64(st, o + 4, d->total_mem);
		sqlite3_bind_int(st, o + 5, d->major);
		sqlite3_bind_int(st, o + 6, d->minor);
		sqlite3_bind_int(st, o + 7, d->num_sms);
		sqlite3_bind_int(st, o + 8, d->max_threads_per_sm);
		sqlite3_bind_int(st, o + 9, d->max_threads_per_block);
		sqlite3_bind_int(st, o + 10, d->regs_per_sm);
		sqlite3_bind_int64(st, o + 11, d->shared_mem_per_sm);
		sqlite3_bind_int(st, o + 12, d->warp_size);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_instants(struct out_sqlite *s, int64_t wid, const struct model *m,
			struct nns_err *err)
{
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "instants", 4, m->instants.n, "inserting instants");
	for (size_t i = 0; i < m->instants.n && !rc; i++) {
		const struct model_instant *x = &m->instants.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		sqlite3_bind_int64(st, o + 2, x->ts);
		bind_sid(st, o + 3, m, x->name);
		bind_thread(st, o + 4, x->thread);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_queues(struct out_sqlite *s, int64_t wid, const struct model *m, struct nns_err *err)
{
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "queues", 6, m->queues.n, "inserting queues");
	for (size_t i = 0; i < m->queues.n && !rc; i++) {
		const struct model_queue *q = &m->queues.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		sqlite3_bind_int64(st, o + 2, q->ts);
		bind_sid(st, o + 3, m, q->name);
		sqlite3_bind_int64(st, o + 4, q->size);
		bind_opt(st, o + 5, q->capacity, q->capacity > 0);
		bind_thread(st, o + 6, q->thread);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_samples(struct out_sqlite *s, int64_t wid, const struct model *m,
		       struct nns_err *err)
{
	static const char *const kinds[] = {"other", "machine", "process", "thread"};
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "samples", 12, m->samples.n, "inserting samples");
	for (size_t i = 0; i < m->samples.n && !rc; i++) {
		const struct model_sample *x = &m->samples.v[i];
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		sqlite3_bind_int64(st, o + 2, x->ts);
		sqlite3_bind_text(st, o + 3, kinds[x->kind <= MS_THREAD ? x->kind : 0], -1,
				  SQLITE_STATIC);
		if (x->kind == MS_THREAD)
			sqlite3_bind_int64(st, o + 4, x->tid);
		bind_thread(st, o + 5, x->thread);
		sqlite3_bind_double(st, o + 6, x->user);
		sqlite3_bind_double(st, o + 7, x->sys);
		sqlite3_bind_double(st, o + 8, x->idle);
		sqlite3_bind_double(st, o + 9, x->iowait);
		if (x->kind == MS_MACHINE) {
			sqlite3_bind_int64(st, o + 10, x->running);
			sqlite3_bind_int64(st, o + 11, (int64_t)x->ctx_switches);
		}
		if (x->kind == MS_PROCESS)
			sqlite3_bind_int64(st, o + 12, (int64_t)x->rss_kb);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

static int put_meta(struct out_sqlite *s, int64_t wid, const struct model *m, struct nns_err *err)
{
	struct sq_ins b;
	int rc = NNS_OK;

	sq_ins_open(&b, s, "worker_meta", 3, m->meta.n, "inserting worker metadata");
	for (size_t i = 0; i < m->meta.n && !rc; i++) {
		sqlite3_stmt *st;
		int o;

		if ((rc = sq_ins_row(&b, err)))
			break;
		st = b.st;
		o = b.o;
		sqlite3_bind_int64(st, o + 1, wid);
		bind_sid(st, o + 2, m, m->meta.v[i].key);
		bind_sid(st, o + 3, m, m->meta.v[i].value);
		rc = sq_ins_done(&b, err);
	}
	sq_ins_close(&b);
	return rc;
}

int sq_model_rows(struct out_sqlite *s, int64_t wid, const struct an_profile *p,
		  struct nns_err *err)
{
	const struct model *m = p->m;

	if (put_strings(s, m, err) || put_threads(s, wid, m, err) || put_events(s, wid, p, err) ||
	    put_counters(s, wid, m, err) || put_mems(s, wid, m, err) || put_flows(s, wid, m, err) ||
	    put_devices(s, wid, m, err) || put_instants(s, wid, m, err) ||
	    put_queues(s, wid, m, err) || put_samples(s, wid, m, err) || put_meta(s, wid, m, err))
		return NNS_EIO;
	s->string_base += (int64_t)m->strings.count;
	return NNS_OK;
}
