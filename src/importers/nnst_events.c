/*
 * nnst_events.c - the .nnst importer's event records (nnst.h): per-thread
 * range stacks (PUSH/POP), cross-thread ranges (BEGIN/END), instants,
 * counters, flows, memory, queues, and the steps built from STEP marks.
 */
#include "nnst_internal.h"
#include "common/le.h"
#include "common/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t clamp_i64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

enum {
	NC_ANNOT = NNST_NC_ANNOT,
	NC_OP = NNST_NC_OP,
	NC_MODULE = NNST_NC_MODULE,
	NC_STEP = NNST_NC_STEP,
	NC_DIMS = NNST_NC_DIMS,
	NC_KINDOP = NNST_NC_KINDOP,
	NC_TYPE = NNST_NC_TYPE
};

#define DIMS_PREFIX "input_dims:"
#define TYPE_PREFIX "input_type:"
#define KIND_OP "kind:cpu_op" /* a MARK: the enclosing range is an operator */

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* "ns::name": a C++-style qualified name (aten::conv2d, mlp::linear1). */
static int qualified(const char *s)
{
	const char *p = s;

	if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
		return 0;
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
	       *p == '_')
		p++;
	return p[0] == ':' && p[1] == ':' && p[2] && p[2] != ':';
}

int nnst_name_class(const char *s)
{
	if (starts(s, "nn.Module: "))
		return NC_MODULE;
	if (starts(s, "ProfilerStep#"))
		return NC_STEP;
	if (starts(s, DIMS_PREFIX))
		return NC_DIMS;
	if (starts(s, TYPE_PREFIX))
		return NC_TYPE;
	if (strcmp(s, KIND_OP) == 0)
		return NC_KINDOP;
	if (qualified(s) || starts(s, "Optimizer.") || starts(s, "enumerate(DataLoader)#") ||
	    starts(s, "enumerate(DataPipe)#"))
		return NC_OP;
	return NC_ANNOT;
}

/* Class of model string id `name`, memoised. */
static int name_class(struct ni *x, uint32_t name)
{
	if (name >= x->ncls) {
		size_t old = x->ncls;

		if (vec_reserve_raw((void **)&x->cls, &x->ncls, (size_t)name + 1, 1))
			return nnst_name_class(model_str(x->m, name));
		memset(x->cls + old, 0, x->ncls - old);
	}
	if (!x->cls[name])
		x->cls[name] = (uint8_t)nnst_name_class(model_str(x->m, name));
	return x->cls[name];
}

/* Adds a complete event for a closed range. */
static int emit_range(struct ni *x, uint32_t thread, uint32_t name, int cls, int64_t start,
		      int64_t end, uint32_t dims, uint32_t type)
{
	struct model_event e;

	model_event_init(&e);
	e.ts = start;
	e.dur = end > start ? end - start : 0;
	e.name = name;
	e.thread = thread;
	e.kind = cls == NC_OP	    ? MK_CPU_OP
		 : cls == NC_MODULE ? MK_PYTHON_FUNCTION
				    : MK_USER_ANNOTATION;
	if (cls == NC_MODULE || dims || type) {
		struct model_op_args a;
		int64_t idx;

		model_op_args_init(&a);
		/* one stable module id per module name: its string id */
		if (cls == NC_MODULE && model_id_enc(x->m, name, &a.py_module_id_enc))
			return NNS_ENOMEM;
		a.input_dims = dims;
		a.input_type = type;
		idx = model_add_op_args(x->m, &a);
		if (idx < 0)
			return NNS_ENOMEM;
		e.extra = (uint32_t)idx;
	}
	return model_add_event(x->m, &e) < 0 ? NNS_ENOMEM : 0;
}

static uint32_t async_thread(struct ni *x)
{
	if (x->async_thread == MODEL_NOIDX) {
		uint32_t tid = model_intern(x->m, "async", 5);
		uint32_t name = model_intern(x->m, "async ranges", 12);

		if (tid == STRPOOL_NONE || name == STRPOOL_NONE)
			return MODEL_NOIDX;
		x->async_thread = model_thread(x->m, x->pid, tid);
		if (x->async_thread != MODEL_NOIDX)
			x->m->threads.v[x->async_thread].name = name;
	}
	return x->async_thread;
}

static int push(struct ni *x, struct ni_thread *t, int64_t ts, uint32_t name, int warmup)
{
	struct ni_open o = {ts, name, 0, (uint8_t)name_class(x, name), (uint8_t)warmup, 0};

	if (o.kind == NC_STEP)
		x->has_step_ranges = 1;
	if (t->overflow || t->stack.n >= NI_MAX_DEPTH) {
		t->overflow++;
		x->m->diag.events_skipped++;
		ni_problem(x, "%s: ranges nested deeper than %d; inner ones skipped", x->name,
			   NI_MAX_DEPTH);
		return 0;
	}
	return vec_push(&t->stack, o) ? NNS_ENOMEM : 0;
}

static int pop(struct ni *x, struct ni_thread *t, int64_t ts)
{
	struct ni_open o;

	if (t->overflow) {
		t->overflow--;
		return 0;
	}
	if (t->stack.n == 0) {
		x->m->diag.ranges_unmatched++;
		return 0;
	}
	o = t->stack.v[--t->stack.n];
	if (o.warmup)
		return 0;
	return emit_range(x, t->mthread, o.name, o.kind, o.ts, ts, o.dims, o.type);
}

static int begin(struct ni *x, uint64_t handle, int64_t ts, uint32_t name)
{
	struct ni_begin b = {ts, name, 1, 0};
	uint32_t *slot, *e = hmap_get(&x->end_of, handle);
	int is_new = 0;

	/* its END is known from pass 1 (it may be in a chunk read before this
	 * one): the range is complete now */
	if (e && !x->ends.v[*e].used && ni_time(x, x->ends.v[*e].raw_ts) >= ts) {
		int64_t end_ts = ni_time(x, x->ends.v[*e].raw_ts);
		uint32_t at = async_thread(x);

		x->ends.v[*e].used = 1;
		b.open = 0;
		b.early = 1;
		if (at == MODEL_NOIDX || emit_range(x, at, name, NC_ANNOT, ts, end_ts, 0, 0))
			return NNS_ENOMEM;
	}
	if (x->begins.n >= UINT32_MAX - 1 || vec_push(&x->begins, b))
		return NNS_ENOMEM;
	slot = hmap_put(&x->begin_of, handle, 0, &is_new);
	if (!slot)
		return NNS_ENOMEM;
	if (!is_new && x->begins.v[*slot].open) {
		/* the handle was reused before its END: close the old one here */
		struct ni_begin *old = &x->begins.v[*slot];
		uint32_t at = async_thread(x);

		old->open = 0;
		x->m->diag.ranges_unmatched++;
		if (at == MODEL_NOIDX || emit_range(x, at, old->name, NC_ANNOT, old->ts, ts, 0, 0))
			return NNS_ENOMEM;
	}
	*slot = (uint32_t)(x->begins.n - 1);
	return 0;
}

static int end(struct ni *x, uint64_t handle, int64_t ts)
{
	uint32_t *slot = hmap_get(&x->begin_of, handle), *e, at;
	struct ni_begin *b;

	if (slot && x->begins.v[*slot].early) { /* emitted at its BEGIN */
		x->begins.v[*slot].early = 0;
		return 0;
	}
	e = hmap_get(&x->end_of, handle);
	if (!slot || !x->begins.v[*slot].open) {
		/* an END not yet used may pair with a BEGIN later in the file;
		 * those never used are counted at the end (ni_events_finish) */
		if (!e || x->ends.v[*e].used)
			x->m->diag.ranges_unmatched++;
		return 0;
	}
	if (e)
		x->ends.v[*e].used = 1;
	b = &x->begins.v[*slot];
	b->open = 0;
	at = async_thread(x);
	if (at == MODEL_NOIDX)
		return NNS_ENOMEM;
	return emit_range(x, at, b->name, NC_ANNOT, b->ts, ts, 0, 0);
}

static int mem_event(struct ni *x, struct ni_thread *t, int64_t ts, const uint8_t *q, int freed)
{
	struct model_mem r;
	int16_t dev = (int16_t)(q[14] | q[15] << 8);
	int64_t bytes = clamp_i64(le64(q + 24));

	memset(&r, 0, sizeof(r));
	r.ts = ts;
	r.addr = (int64_t)le64(q + 16);
	r.bytes = freed ? -bytes : bytes;
	r.total_allocated = r.total_reserved = 0;
	r.thread = t->mthread;
	r.device_type = dev < 0 ? 0 : 1;
	r.device_id = dev < 0 ? -1 : dev;
	r.flags = MODEL_MEM_HAS_ADDR;
	if (model_add_mem(x->m, &r))
		return NNS_ENOMEM;
	t->last_mem = (int64_t)x->m->mems.n - 1;
	return 0;
}

static void mem_total(struct ni *x, struct ni_thread *t, const uint8_t *q)
{
	struct model_mem *r;
	int64_t a = (int64_t)le64(q + 16), b = (int64_t)le64(q + 24);

	if (t->last_mem < 0 || (size_t)t->last_mem >= x->m->mems.n) {
		x->m->diag.events_skipped++;
		return;
	}
	r = &x->m->mems.v[t->last_mem];
	if (a >= 0) {
		r->total_allocated = a;
		r->flags |= MODEL_MEM_HAS_TOTAL_ALLOC;
	}
	if (b >= 0) {
		r->total_reserved = b;
		r->flags |= MODEL_MEM_HAS_TOTAL_RESERVED;
	}
}

static int flow(struct ni *x, struct ni_thread *t, int64_t ts, uint32_t name, const uint8_t *q)
{
	struct model_flow f;
	uint64_t ph = le64(q + 24);
	const char *s = model_str(x->m, name);

	if (ph != 's' && ph != 'f' && ph != 't') {
		x->m->diag.events_skipped++;
		return 0;
	}
	memset(&f, 0, sizeof(f));
	f.ts = ts;
	f.id = (int64_t)le64(q + 16);
	f.thread = t->mthread;
	f.ph = (char)ph;
	f.kind = strcmp(s, "fwdbwd") == 0 ? MF_FWDBWD : strcmp(s, "ac2g") == 0 ? MF_AC2G : MF_OTHER;
	return model_add_flow(x->m, &f) ? NNS_ENOMEM : 0;
}

static int instant(struct ni *x, struct ni_thread *t, int64_t ts, uint32_t name)
{
	struct model_instant i = {ts, name, t->mthread};

	return model_add_instant(x->m, &i) ? NNS_ENOMEM : 0;
}

/* A MARK: "input_dims:<text>" right inside a range gives that range its
 * Input Dims (nnscope.torch's record_shapes), "input_type:<text>" its Input
 * type ("['float', '']": comm.c's bytes); "kind:cpu_op" makes it an
 * operator whatever its name (autograd nodes "ConvolutionBackward0", torch's
 * unqualified "detach"); anything else is an instant. */
static int mark(struct ni *x, struct ni_thread *t, int64_t ts, uint32_t name)
{
	if (name_class(x, name) == NC_KINDOP && t->stack.n && !t->overflow) {
		struct ni_open *o = &t->stack.v[t->stack.n - 1];

		if (o->kind == NC_ANNOT)
			o->kind = NC_OP;
		return 0;
	}
	if (name_class(x, name) == NC_DIMS && t->stack.n && !t->overflow) {
		const char *s = strchr(model_str(x->m, name), ':'); /* "input_dims:" */
		uint32_t d = s ? model_intern(x->m, s + 1, strlen(s + 1)) : 0;

		if (d == STRPOOL_NONE)
			return NNS_ENOMEM;
		t->stack.v[t->stack.n - 1].dims = d;
		return 0;
	}
	if (name_class(x, name) == NC_TYPE && t->stack.n && !t->overflow) {
		const char *s = strchr(model_str(x->m, name), ':'); /* "input_type:" */
		uint32_t d = s ? model_intern(x->m, s + 1, strlen(s + 1)) : 0;

		if (d == STRPOOL_NONE)
			return NNS_ENOMEM;
		t->stack.v[t->stack.n - 1].type = d;
		return 0;
	}
	return instant(x, t, ts, name);
}

static int bound(struct ni *x, struct ni_thread *t, int64_t ts, int64_t num)
{
	struct ni_bound b = {ts, num < 0 ? -1 : num, t->mthread};

	return vec_push(&x->bounds, b) ? NNS_ENOMEM : 0;
}

/* ---- windows: ranges do not outlive a STOP -------------------------------- */

int ni_events_scan(struct ni *x, const uint8_t *p, uint32_t len)
{
	uint32_t count;

	if (len < 8)
		return 0;
	count = le32(p + 4);
	if (count > (len - 8) / 32)
		count = (len - 8) / 32;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *q = p + 8 + (size_t)i * 32;

		if (q[12] == NNST_EV_STOP && vec_push(&x->stops_raw, le64(q)))
			return NNS_ENOMEM;
		if (q[12] == NNST_EV_END && !(q[13] & NNST_EVF_WARMUP)) {
			int is_new = 0;
			uint32_t *e = hmap_put(&x->end_of, le64(q + 16), 0, &is_new);

			struct ni_end en = {le64(q), 0};

			if (!e || (is_new && (x->ends.n >= UINT32_MAX || vec_push(&x->ends, en))))
				return NNS_ENOMEM;
			if (is_new)
				*e = (uint32_t)(x->ends.n - 1);
		}
	}
	return 0;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int ni_events_prepare(struct ni *x)
{
	if (vec_reserve(&x->stops, x->stops_raw.n + 1))
		return NNS_ENOMEM;
	for (size_t i = 0; i < x->stops_raw.n; i++)
		x->stops.v[x->stops.n++] = ni_time(x, x->stops_raw.v[i]);
	qsort(x->stops.v, x->stops.n, sizeof(*x->stops.v), i64_cmp);
	return 0;
}

/* The first STOP at or after ts, INT64_MAX if none. */
static int64_t stop_after(const struct ni *x, int64_t ts)
{
	size_t lo = 0, hi = x->stops.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->stops.v[mid] < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->stops.n ? x->stops.v[lo] : INT64_MAX;
}

/* Closes what thread t still has open at time `at` (a STOP it passed). */
static int close_open(struct ni *x, struct ni_thread *t, int64_t at)
{
	while (t->stack.n) {
		struct ni_open o = t->stack.v[--t->stack.n];

		if (!o.warmup &&
		    emit_range(x, t->mthread, o.name, o.kind, o.ts, at, o.dims, o.type))
			return NNS_ENOMEM;
	}
	t->overflow = 0;
	return 0;
}

/* One 32-byte event record of thread t. */
static int event(struct ni *x, struct ni_thread *t, const uint8_t *q)
{
	uint8_t type = q[12];
	int warmup = (q[13] & NNST_EVF_WARMUP) != 0;
	int64_t ts = ni_time(x, le64(q));
	uint32_t name;

	/* collection stopped since this thread's previous event: its open
	 * ranges ended there (their POPs were not recorded) */
	while (t->next_stop < x->stops.n && x->stops.v[t->next_stop] < ts) {
		if (t->stack.n && close_open(x, t, x->stops.v[t->next_stop]))
			return NNS_ENOMEM;
		t->next_stop++;
	}

	if (type != NNST_EV_MEMTOTAL)
		t->last_mem = -1;
	if (type < NNST_EV_PUSH || type > NNST_EV_STOP) {
		x->m->diag.events_skipped++;
		ni_problem(x, "%s: unknown event type %u skipped", x->name, type);
		return 0;
	}
	name = ni_str(x, le32(q + 8));
	if (name == STRPOOL_NONE)
		return NNS_ENOMEM;
	if (ts > t->last_ts)
		t->last_ts = ts;
	if (ts > x->max_ts)
		x->max_ts = ts;
	/* a schedule's warmup: ranges still nest (their POPs come later),
	 * steps still end, everything else recorded then is dropped */
	if (warmup && type == NNST_EV_STEP)
		return bound(x, t, ts, -1);
	if (warmup && type != NNST_EV_PUSH && type != NNST_EV_POP && type != NNST_EV_STOP &&
	    type != NNST_EV_START)
		return 0;
	switch (type) {
	case NNST_EV_PUSH:
		return push(x, t, ts, name, warmup);
	case NNST_EV_POP:
		return pop(x, t, ts);
	case NNST_EV_BEGIN:
		return begin(x, le64(q + 16), ts, name);
	case NNST_EV_END:
		return end(x, le64(q + 16), ts);
	case NNST_EV_MARK:
		return mark(x, t, ts, name);
	case NNST_EV_START:
	case NNST_EV_STOP:
		if (instant(x, t, ts,
			    model_intern(x->m,
					 type == NNST_EV_START ? "nnscope start" : "nnscope stop",
					 type == NNST_EV_START ? 13 : 12)))
			return NNS_ENOMEM;
		/* START opens step a (the step collection starts in) */
		return bound(x, t, ts, type == NNST_EV_START ? clamp_i64(le64(q + 16)) : -1);
	case NNST_EV_COUNTER: {
		struct model_counter c;
		uint64_t bits = le64(q + 16);

		memcpy(&c.value, &bits, sizeof(c.value));
		c.ts = ts;
		c.name = name;
		c.thread = t->mthread;
		return model_add_counter(x->m, &c) ? NNS_ENOMEM : 0;
	}
	case NNST_EV_FLOW:
		return flow(x, t, ts, name, q);
	case NNST_EV_ALLOC:
	case NNST_EV_FREE:
		return mem_event(x, t, ts, q, type == NNST_EV_FREE);
	case NNST_EV_MEMTOTAL:
		mem_total(x, t, q);
		t->last_mem = -1;
		return 0;
	case NNST_EV_QUEUE: {
		struct model_queue qu;

		qu.ts = ts;
		qu.size = clamp_i64(le64(q + 16));
		qu.capacity = clamp_i64(le64(q + 24));
		qu.name = name;
		qu.thread = t->mthread;
		return model_add_queue(x->m, &qu) ? NNS_ENOMEM : 0;
	}
	case NNST_EV_STEP:
		return bound(x, t, ts, clamp_i64(le64(q + 16)));
	}
	return 0;
}

int ni_events_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	struct ni_thread *t;
	uint32_t count, fits;

	if (len < 8) {
		x->m->diag.events_skipped++;
		ni_problem(x, "%s: an EVENTS chunk shorter than its 8-byte head", x->name);
		return 0;
	}
	count = le32(p + 4);
	fits = (len - 8) / 32;
	if (count != fits || (len - 8) % 32) {
		ni_problem(x, "%s: an EVENTS chunk says %u events but holds %u", x->name, count,
			   fits);
		if (count > fits) {
			x->m->diag.events_skipped += count - fits;
			count = fits;
		}
	}
	t = ni_thread(x, le32(p));
	if (!t)
		return NNS_ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		int rc = event(x, t, p + 8 + (size_t)i * 32);

		if (rc)
			return rc;
		/* event() may grow x->threads (async thread is a model thread,
		 * not an ni_thread), so t stays valid */
	}
	return 0;
}

/* ---- the end -------------------------------------------------------------- */

static int bound_cmp(const void *a, const void *b)
{
	const struct ni_bound *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* a STOP before a mark at the same time */
	return (x->num >= 0) - (y->num >= 0);
}

/* 1 if thread `thread` has an event starting in [start, end). */
static int has_events(const struct ni *x, uint32_t thread, int64_t start, int64_t end)
{
	const struct model *m = x->m;

	for (size_t i = 0; i < m->events.n; i++)
		if (m->events.v[i].thread == thread && m->events.v[i].ts >= start &&
		    m->events.v[i].ts < end)
			return 1;
	return 0;
}

/* ProfilerStep#N annotations: each opening boundary (START, STEP) opens
 * step N until the next boundary or the end of the trace. The step that a
 * STOP or the end closes is dropped when its thread recorded nothing in it
 * (the moment between the last nns_step() and the stop). */
static int build_steps(struct ni *x)
{
	size_t n = x->bounds.n;

	if (x->has_step_ranges || n == 0)
		return 0;
	qsort(x->bounds.v, n, sizeof(*x->bounds.v), bound_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct ni_bound *b = &x->bounds.v[i];
		int last = i + 1 >= n || x->bounds.v[i + 1].num < 0;
		int64_t stop = i + 1 < n ? x->bounds.v[i + 1].ts : x->max_ts;
		char name[48];
		uint32_t id;
		int k;

		if (b->num < 0 || stop <= b->ts)
			continue;
		if (last && !has_events(x, b->thread, b->ts, stop))
			continue;
		k = snprintf(name, sizeof(name), "ProfilerStep#%lld", (long long)b->num);
		id = model_intern(x->m, name, (size_t)k);
		if (id == STRPOOL_NONE || emit_range(x, b->thread, id, NC_ANNOT, b->ts, stop, 0, 0))
			return NNS_ENOMEM;
	}
	return 0;
}

int ni_events_finish(struct ni *x)
{
	/* ranges left open: closed at the STOP after them (a window's end),
	 * else at the thread's last time (a crashed run: counted) */
	for (size_t i = 0; i < x->threads.n; i++) {
		struct ni_thread *t = &x->threads.v[i];

		while (t->stack.n) {
			struct ni_open o = t->stack.v[--t->stack.n];
			int64_t stop = stop_after(x, o.ts), at = t->last_ts;

			if (stop != INT64_MAX)
				at = stop;
			else
				x->m->diag.ranges_closed++;
			if (!o.warmup &&
			    emit_range(x, t->mthread, o.name, o.kind, o.ts, at, o.dims, o.type))
				return nns_err_set(x->err, NNS_ENOMEM, "%s: out of memory",
						   x->name);
		}
		if (t->overflow) {
			x->m->diag.ranges_closed += t->overflow;
			t->overflow = 0;
		}
	}
	for (size_t i = 0; i < x->begins.n; i++) {
		struct ni_begin *b = &x->begins.v[i];
		int64_t stop = stop_after(x, b->ts);
		uint32_t at;

		if (!b->open)
			continue;
		b->open = 0;
		if (stop == INT64_MAX)
			x->m->diag.ranges_closed++;
		at = async_thread(x);
		if (at == MODEL_NOIDX || emit_range(x, at, b->name, NC_ANNOT, b->ts,
						    stop != INT64_MAX ? stop : x->max_ts, 0, 0))
			return nns_err_set(x->err, NNS_ENOMEM, "%s: out of memory", x->name);
	}
	for (size_t i = 0; i < x->ends.n; i++) /* ENDs whose BEGIN never came */
		if (!x->ends.v[i].used)
			x->m->diag.ranges_unmatched++;
	if (x->m->diag.ranges_closed)
		ni_problem(x, "%s: %lld range(s) still open at the end were closed there", x->name,
			   (long long)x->m->diag.ranges_closed);
	if (build_steps(x))
		return nns_err_set(x->err, NNS_ENOMEM, "%s: out of memory", x->name);
	return 0;
}
