/*
 * hta_critpath_graph.c - builds HTA's critical path DAG of one step
 * (CPGraph._construct_graph): nodes for the start and end of each host op,
 * runtime call and device event; call-stack edges on every host thread;
 * launch, kernel-kernel and synchronisation edges for device work.
 *
 * Events in the graph (HTA's clipping): host ops (cpu_op) and runtime /
 * driver calls starting inside the step's host range with dur > 0; device
 * events (kernel, memcpy, memset) launched by one of those calls; cuda_sync
 * records whose runtime call is one of those calls.
 */
#include "hta_critpath_int.h"
#include "names.h"

#include <stdlib.h>
#include <string.h>

static const char *const blocking[] = {
    "cudaDeviceSynchronize",
    "cudaStreamSynchronize",
    "cudaEventQuery",
    "cudaEventSynchronize",
    "cudaMemcpy",
    "cudaMemcpyAsync",
};

/* The calls whose blocking we link to the GPU work when the trace has no
 * cuda_sync record for them (older Kineto): the ones that always block. */
static const char *const fallback_sync[] = {
    "cudaDeviceSynchronize",
    "cudaStreamSynchronize",
    "cudaEventSynchronize",
    "cudaMemcpy",
};

int hcp_is_blocking_call(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(blocking) / sizeof(blocking[0]); i++)
		if (strcmp(name, blocking[i]) == 0)
			return 1;
	return 0;
}

static int is_fallback_sync(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(fallback_sync) / sizeof(fallback_sync[0]); i++)
		if (strcmp(name, fallback_sync[i]) == 0)
			return 1;
	return 0;
}

static int is_host_kind(int k)
{
	return k == MK_CPU_OP || model_kind_is_launch(k);
}

static const char *ev_name(const struct hcp_graph *g, uint32_t ev)
{
	return model_str(g->m, g->m->events.v[ev].name);
}

static int64_t dev_stream(const struct model *m, const struct model_event *e)
{
	if (e->extra != MODEL_NOIDX && e->extra < m->dev_args.n)
		return m->dev_args.v[e->extra].stream;
	return -1;
}

/* ---- edges ----------------------------------------------------------------- */

/* Adds u -> v. Dependency and sync edges weigh 0, as do zeroed spans;
 * others weigh ts(v) - ts(u), clamped at 0 (counted in g->clamped). */
static int add_edge(struct hcp_graph *g, uint32_t u, uint32_t v, int type, uint32_t attr, int zero)
{
	struct hcp_gedge e;
	int64_t w = 0;

	if (u == v)
		return 0;
	if (g->edges.n >= HCP_EDGE_CAP)
		return NNS_ENOMEM;
	if (type != HCP_E_DEP && type != HCP_E_SYNC && !zero) {
		w = hcp_node_ts(g, v) - hcp_node_ts(g, u);
		if (w < 0) {
			g->clamped++;
			w = 0;
		}
	}
	e.u = u;
	e.v = v;
	e.ev = attr;
	e.w = w;
	e.type = (uint8_t)type;
	e.zeroed = (uint8_t)(zero != 0);
	return vec_push(&g->edges, e) ? NNS_ENOMEM : 0;
}

static uint32_t start_node(const struct hcp_graph *g, uint32_t ev)
{
	uint32_t k = hcp_k(g, ev);
	return k == MODEL_NOIDX ? MODEL_NOIDX : 2 * k;
}

static uint32_t end_node(const struct hcp_graph *g, uint32_t ev)
{
	uint32_t k = hcp_k(g, ev);
	return k == MODEL_NOIDX ? MODEL_NOIDX : 2 * k + 1;
}

/* HTA's _attribute_edge for a span edge: (start, *) -> the source event,
 * (end, end) -> the destination event, (end, start) -> the parent. */
static uint32_t attribute(const struct hcp_graph *g, uint32_t u, uint32_t v, uint32_t parent)
{
	if (!(u & 1))
		return g->evs.v[u >> 1];
	if (v & 1)
		return g->evs.v[v >> 1];
	return parent;
}

/* ---- host threads (CPGraph._construct_graph_from_call_stack) --------------- */

struct frame {
	uint32_t ev;
	int64_t end;
};

struct host_state {
	VEC(struct frame) stack;
	uint32_t last_node, last_hl, last_parent;
};

static int host_exit(struct hcp_graph *g, struct host_state *s)
{
	struct frame f = s->stack.v[--s->stack.n];
	uint32_t en = end_node(g, f.ev);
	uint32_t parent = s->stack.n ? s->stack.v[s->stack.n - 1].ev : MODEL_NOIDX;
	int r;

	if (s->last_node != MODEL_NOIDX) {
		int zero = hcp_is_blocking_call(ev_name(g, f.ev));
		if ((r = add_edge(g, s->last_node, en, HCP_E_OP,
				  attribute(g, s->last_node, en, s->last_parent), zero)))
			return r;
	}
	if (s->stack.n == 0) {
		s->last_node = MODEL_NOIDX;
		s->last_hl = en;
	} else {
		s->last_node = en;
		s->last_parent = parent;
	}
	return 0;
}

static int host_enter(struct hcp_graph *g, struct host_state *s, uint32_t ev)
{
	const struct model_event *e = &g->m->events.v[ev];
	uint32_t sn = start_node(g, ev);
	uint32_t parent = s->stack.n ? s->stack.v[s->stack.n - 1].ev : MODEL_NOIDX;
	struct frame f = {ev, e->ts + e->dur};
	int r;

	if (s->stack.n == 0 && s->last_hl != MODEL_NOIDX &&
	    (r = add_edge(g, s->last_hl, sn, HCP_E_DEP, MODEL_NOIDX, 0)))
		return r;
	if (s->last_node != MODEL_NOIDX &&
	    (r = add_edge(g, s->last_node, sn, HCP_E_OP,
			  attribute(g, s->last_node, sn, s->last_parent), 0)))
		return r;
	s->last_node = sn;
	s->last_parent = parent;
	return vec_push(&s->stack, f) ? NNS_ENOMEM : 0;
}

/* The host events of one thread, in (ts, -dur) order. */
static int host_thread(struct hcp_graph *g, struct host_state *s, const uint32_t *evs, size_t n)
{
	size_t i;
	int r;

	s->stack.n = 0;
	s->last_node = s->last_hl = s->last_parent = MODEL_NOIDX;
	for (i = 0; i < n; i++) {
		int64_t ts = g->m->events.v[evs[i]].ts;
		while (s->stack.n && s->stack.v[s->stack.n - 1].end <= ts)
			if ((r = host_exit(g, s)))
				return r;
		if ((r = host_enter(g, s, evs[i])))
			return r;
	}
	while (s->stack.n)
		if ((r = host_exit(g, s)))
			return r;
	return 0;
}

static int build_host(struct hcp_graph *g)
{
	const struct model *m = g->m;
	size_t nt = m->threads.n, i, *first = NULL;
	uint32_t *order = NULL;
	struct host_state s;
	int r = NNS_ENOMEM;

	memset(&s, 0, sizeof(s));
	first = calloc(nt + 1, sizeof(*first));
	order = malloc((g->evs.n ? g->evs.n : 1) * sizeof(*order));
	if (!first || !order)
		goto out;
	/* counting sort of the host events by thread, stable (model order) */
	for (i = 0; i < g->evs.n; i++) {
		const struct model_event *e = &m->events.v[g->evs.v[i]];
		if (is_host_kind(e->kind))
			first[e->thread + 1]++;
	}
	for (i = 0; i < nt; i++)
		first[i + 1] += first[i];
	for (i = 0; i < g->evs.n; i++) {
		const struct model_event *e = &m->events.v[g->evs.v[i]];
		if (is_host_kind(e->kind))
			order[first[e->thread]++] = g->evs.v[i];
	}
	/* first[t] is now the end of thread t's run; its start is first[t-1] */
	r = 0;
	for (i = 0; i < nt && !r; i++) {
		size_t lo = i ? first[i - 1] : 0;
		if (first[i] > lo)
			r = host_thread(g, &s, order + lo, first[i] - lo);
	}
out:
	vec_free(&s.stack);
	free(first);
	free(order);
	return r;
}

/* ---- device work (CPGraph._construct_graph_from_kernels) ------------------- */

struct corr_ev {
	int64_t corr;
	uint32_t ev;
};

static int corr_cmp(const void *x, const void *y)
{
	const struct corr_ev *a = x, *b = y;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* A launch: runtime call -> the device event it launched. */
struct launch {
	int64_t ts; /* of the runtime call */
	uint32_t rt, dev;
};

static int launch_cmp(const void *x, const void *y)
{
	const struct launch *a = x, *b = y;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->rt < b->rt ? -1 : a->rt > b->rt;
}

struct gpu_ctx {
	struct hcp_graph *g;
	struct corr_ev *rt_by_corr; /* runtime/driver events by correlation */
	size_t nrt;
	struct launch *launches; /* every launch of the trace, by runtime ts */
	size_t nl;
	uint32_t *last; /* per thread (stream track): last device end node */
	/* per graph event k: the event it waits on (event sync), MODEL_NOIDX
	 * if none; only device events of the graph read it, so a wait on one
	 * outside the graph is dropped */
	uint32_t *ksync;
};

static uint32_t rt_of_corr(const struct gpu_ctx *c, int64_t corr)
{
	size_t lo;

	if (corr == MODEL_NONE)
		return MODEL_NOIDX;
	lo = iv_bound(c->rt_by_corr, c->nrt, sizeof(*c->rt_by_corr), offsetof(struct corr_ev, corr),
		      corr, 0);
	return lo < c->nrt && c->rt_by_corr[lo].corr == corr ? c->rt_by_corr[lo].ev : MODEL_NOIDX;
}

/* First launch with runtime ts > ts (ts inclusive when incl). */
static size_t launch_after(const struct gpu_ctx *c, int64_t ts, int incl)
{
	return iv_bound(c->launches, c->nl, sizeof(*c->launches), offsetof(struct launch, ts), ts,
			!incl);
}

static int launch_on(const struct model *m, const struct launch *l, int device, int64_t stream)
{
	const struct model_event *d = &m->events.v[l->dev];
	return d->device == device && dev_stream(m, d) == stream;
}

/* The device event of the last launch on (device, stream) made at or
 * before ts, from any thread (HTA's find_previous_launch). */
static uint32_t prev_launch(const struct gpu_ctx *c, int64_t ts, int device, int64_t stream)
{
	size_t i = launch_after(c, ts, 0);

	while (i-- > 0)
		if (launch_on(c->g->m, &c->launches[i], device, stream))
			return c->launches[i].dev;
	return MODEL_NOIDX;
}

/* The device event of the first launch on (device, stream) made by thread
 * at or after ts (HTA's find_next_launch). */
static uint32_t next_launch(const struct gpu_ctx *c, int64_t ts, uint32_t thread, int device,
			    int64_t stream)
{
	size_t i;

	for (i = launch_after(c, ts, 1); i < c->nl; i++) {
		const struct launch *l = &c->launches[i];
		if (c->g->m->events.v[l->rt].thread == thread &&
		    launch_on(c->g->m, l, device, stream))
			return l->dev;
	}
	return MODEL_NOIDX;
}

/* The kernel a "Stream Wait Event" / "Event Sync" waits on: the last launch
 * on the recorded stream before the cudaEventRecord call it names. */
static uint32_t event_source(const struct gpu_ctx *c, const struct model_event *s)
{
	const struct model *m = c->g->m;
	const struct model_dev_args *a;
	uint32_t rec;

	if (s->extra == MODEL_NOIDX || s->extra >= m->dev_args.n)
		return MODEL_NOIDX;
	a = &m->dev_args.v[s->extra];
	if (a->wait_corr == MODEL_NONE || a->wait_stream < 0)
		return MODEL_NOIDX;
	rec = rt_of_corr(c, a->wait_corr);
	if (rec == MODEL_NOIDX)
		return MODEL_NOIDX;
	return prev_launch(c, m->events.v[rec].ts, s->device, a->wait_stream);
}

static int handle_sync(struct gpu_ctx *c, uint32_t sev)
{
	struct hcp_graph *g = c->g;
	const struct model *m = g->m;
	const struct model_event *s = &m->events.v[sev];
	const char *name = model_str(m, s->name);
	uint32_t rt = rt_of_corr(c, model_corr(m, s)), src, rt_end;
	size_t t;
	int r;

	if (rt == MODEL_NOIDX)
		return 0;
	rt_end = end_node(g, rt);
	if (strcmp(name, "Stream Wait Event") == 0) {
		int64_t stream = dev_stream(m, s);
		uint32_t dest;

		src = event_source(c, s);
		if (src == MODEL_NOIDX || end_node(g, src) == MODEL_NOIDX)
			return 0;
		dest =
		    next_launch(c, m->events.v[rt].ts, m->events.v[rt].thread, s->device, stream);
		if (dest == MODEL_NOIDX)
			return 0;
		if (hcp_k(g, dest) != MODEL_NOIDX)
			c->ksync[hcp_k(g, dest)] = src;
		g->sync_events++;
		return 0;
	}
	if (strcmp(name, "Event Sync") == 0) {
		src = event_source(c, s);
		if (src == MODEL_NOIDX || end_node(g, src) == MODEL_NOIDX || rt_end == MODEL_NOIDX)
			return 0;
		g->sync_events++;
		return add_edge(g, end_node(g, src), rt_end, HCP_E_SYNC, MODEL_NOIDX, 0);
	}
	if (rt_end == MODEL_NOIDX)
		return 0;
	if (strcmp(name, "Stream Sync") == 0) {
		g->sync_events++;
		if (c->last[s->thread] == MODEL_NOIDX)
			return 0;
		return add_edge(g, c->last[s->thread], rt_end, HCP_E_SYNC, MODEL_NOIDX, 0);
	}
	if (strcmp(name, "Context Sync") == 0) {
		g->sync_events++;
		for (t = 0; t < m->threads.n; t++)
			if (c->last[t] != MODEL_NOIDX &&
			    (r = add_edge(g, c->last[t], rt_end, HCP_E_SYNC, MODEL_NOIDX, 0)))
				return r;
	}
	return 0;
}

static int handle_device(struct gpu_ctx *c, uint32_t ev)
{
	struct hcp_graph *g = c->g;
	const struct model *m = g->m;
	const struct model_event *e = &m->events.v[ev];
	uint32_t sn = start_node(g, ev), en = end_node(g, ev);
	uint32_t rt = model_launch_of(m, ev), last = c->last[e->thread];
	uint32_t ks = c->ksync[hcp_k(g, ev)], ks_end = MODEL_NOIDX;
	int64_t rt_ts = m->events.v[rt].ts;
	int r;

	if ((r = add_edge(g, sn, en, HCP_E_OP, ev, 0)))
		return r;
	if (ks != MODEL_NOIDX)
		ks_end = end_node(g, ks);
	if (ks_end != MODEL_NOIDX && (r = add_edge(g, ks_end, sn, HCP_E_SYNC, MODEL_NOIDX, 0)))
		return r;
	if ((last == MODEL_NOIDX || hcp_node_ts(g, last) < rt_ts) &&
	    (ks_end == MODEL_NOIDX || hcp_node_ts(g, ks_end) < rt_ts)) {
		if ((r = add_edge(g, start_node(g, rt), sn, HCP_E_LAUNCH, MODEL_NOIDX, 0)))
			return r;
	} else if (last != MODEL_NOIDX &&
		   (ks_end == MODEL_NOIDX || hcp_node_ts(g, ks_end) < hcp_node_ts(g, last))) {
		if ((r = add_edge(g, last, sn, HCP_E_KK, g->evs.v[last >> 1], 0)))
			return r;
	}
	c->last[e->thread] = en;
	return 0;
}

/* Sort key of device work: start for device events, end for sync records
 * (a stream sync overlaps the copy it waits for). */
struct gpu_item {
	int64_t key;
	uint32_t ev;
};

static int item_cmp(const void *x, const void *y)
{
	const struct gpu_item *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* Blocking calls with no cuda_sync record: the last device event of each
 * stream that ended while the call blocked -> the call's end. */
static int sync_fallback(struct gpu_ctx *c, const struct gpu_item *items, size_t n,
			 const uint8_t *has_rec, uint32_t *best)
{
	struct hcp_graph *g = c->g;
	const struct model *m = g->m;
	size_t k, i, t;
	int r;

	for (k = 0; k < g->evs.n; k++) {
		uint32_t rt = g->evs.v[k];
		const struct model_event *e = &m->events.v[rt];
		int64_t lo = e->ts, hi = e->ts + e->dur;
		int linked = 0;

		if (!model_kind_is_launch(e->kind) || has_rec[k] ||
		    !is_fallback_sync(model_str(m, e->name)))
			continue;
		for (t = 0; t < m->threads.n; t++)
			best[t] = MODEL_NOIDX;
		for (i = 0; i < n; i++) {
			const struct model_event *d = &m->events.v[items[i].ev];
			if (!model_kind_is_device(d->kind) || d->ts + d->dur < lo ||
			    d->ts + d->dur > hi)
				continue;
			best[d->thread] = items[i].ev; /* items are by start */
		}
		for (t = 0; t < m->threads.n; t++) {
			if (best[t] == MODEL_NOIDX)
				continue;
			if ((r = add_edge(g, end_node(g, best[t]), 2 * (uint32_t)k + 1, HCP_E_SYNC,
					  MODEL_NOIDX, 0)))
				return r;
			linked = 1;
		}
		g->sync_fallbacks += linked;
	}
	return 0;
}

static int build_gpu(struct hcp_graph *g)
{
	const struct model *m = g->m;
	struct gpu_ctx c;
	struct gpu_item *items = NULL;
	uint8_t *has_rec = NULL;
	size_t i, n = 0, nsync = 0, nt = m->threads.n ? m->threads.n : 1;
	int r = NNS_ENOMEM;

	memset(&c, 0, sizeof(c));
	c.g = g;
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (model_kind_is_launch(e->kind) && e->corr_enc != MODEL_ID_NONE)
			c.nrt++;
		if (model_kind_is_device(e->kind) && model_launch_of(m, i) != MODEL_NOIDX)
			c.nl++;
		nsync += e->kind == MK_SYNC;
	}
	c.rt_by_corr = malloc((c.nrt ? c.nrt : 1) * sizeof(*c.rt_by_corr));
	c.launches = malloc((c.nl ? c.nl : 1) * sizeof(*c.launches));
	c.last = malloc(nt * sizeof(*c.last));
	c.ksync = malloc((g->evs.n + 1) * sizeof(*c.ksync));
	items = malloc((g->evs.n + nsync + 1) * sizeof(*items));
	has_rec = calloc(g->evs.n ? g->evs.n : 1, 1);
	if (!c.rt_by_corr || !c.launches || !c.last || !c.ksync || !items || !has_rec)
		goto out;
	c.nrt = c.nl = 0;
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (model_kind_is_launch(e->kind) && e->corr_enc != MODEL_ID_NONE)
			c.rt_by_corr[c.nrt++] = (struct corr_ev){model_corr(m, e), (uint32_t)i};
		if (model_kind_is_device(e->kind) && model_launch_of(m, i) != MODEL_NOIDX)
			c.launches[c.nl++] = (struct launch){m->events.v[model_launch_of(m, i)].ts,
							     model_launch_of(m, i), (uint32_t)i};
	}
	qsort(c.rt_by_corr, c.nrt, sizeof(*c.rt_by_corr), corr_cmp);
	qsort(c.launches, c.nl, sizeof(*c.launches), launch_cmp);
	for (i = 0; i < nt; i++)
		c.last[i] = MODEL_NOIDX;
	for (i = 0; i < g->evs.n; i++)
		c.ksync[i] = MODEL_NOIDX;
	for (i = 0; i < g->evs.n; i++) {
		const struct model_event *e = &m->events.v[g->evs.v[i]];
		if (model_kind_is_device(e->kind))
			items[n++] = (struct gpu_item){e->ts, g->evs.v[i]};
	}
	for (i = 0; i < m->events.n && nsync; i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t rt;
		if (e->kind != MK_SYNC)
			continue;
		rt = rt_of_corr(&c, model_corr(m, e));
		if (rt == MODEL_NOIDX || hcp_k(g, rt) == MODEL_NOIDX)
			continue;
		items[n++] = (struct gpu_item){e->ts + e->dur, (uint32_t)i};
		has_rec[hcp_k(g, rt)] = 1;
	}
	qsort(items, n, sizeof(*items), item_cmp);
	r = 0;
	for (i = 0; i < n && !r; i++)
		r = m->events.v[items[i].ev].kind == MK_SYNC ? handle_sync(&c, items[i].ev)
							     : handle_device(&c, items[i].ev);
	/* the fallback wants device events by start: drop the sync records */
	if (!r) {
		size_t j = 0;
		for (i = 0; i < n; i++)
			if (m->events.v[items[i].ev].kind != MK_SYNC)
				items[j++] = items[i];
		r = sync_fallback(&c, items, j, has_rec, c.last);
	}
out:
	free(c.rt_by_corr);
	free(c.launches);
	free(c.last);
	free(c.ksync);
	free(items);
	free(has_rec);
	return r;
}

/* ---- selection --------------------------------------------------------------- */

/* [ws, we): an op starting exactly at the step's end belongs to the next
 * step (HTA's window is closed at both ends). */
static int in_window(const struct model_event *e, int64_t ws, int64_t we)
{
	return e->ts >= ws && e->ts < we && e->dur > 0;
}

int hcp_graph_build(struct hcp_graph *g, const struct model *m, int64_t ws, int64_t we,
		    struct nns_err *err)
{
	size_t i;
	int r;

	memset(g, 0, sizeof(*g));
	g->m = m;
	if (m->events.n >= MODEL_NOIDX / 2)
		return nns_err_set(err, NNS_ENOMEM, "critical path: too many events");
	g->k_of = calloc(m->events.n ? m->events.n : 1, sizeof(*g->k_of));
	if (!g->k_of)
		goto nomem;
	/* no operator nor launch: no node, the graph stays empty */
	if (!(m->kinds & (MODEL_KB(MK_CPU_OP) | MODEL_KB_LAUNCH)))
		return 0;
	/* host events first, so that launches and syncs can look them up */
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (!is_host_kind(e->kind) || !in_window(e, ws, we))
			continue;
		g->k_of[i] = ~(uint32_t)g->evs.n;
		if (vec_push(&g->evs, (uint32_t)i))
			goto nomem;
	}
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t rt = model_launch_of(m, i);
		if (!model_kind_is_device(e->kind) || rt == MODEL_NOIDX ||
		    hcp_k(g, rt) == MODEL_NOIDX)
			continue;
		g->k_of[i] = ~(uint32_t)g->evs.n;
		if (vec_push(&g->evs, (uint32_t)i))
			goto nomem;
	}
	/* cuda_sync records get no nodes: build_gpu uses those whose runtime
	 * call is in the graph */
	if ((r = build_host(g)) || (r = build_gpu(g)))
		goto fail;
	return 0;
nomem:
	r = NNS_ENOMEM;
fail:
	hcp_graph_release(g);
	return nns_err_set(err, r, "out of memory building the critical path graph");
}

void hcp_graph_release(struct hcp_graph *g)
{
	vec_free(&g->evs);
	vec_free(&g->edges);
	free(g->k_of);
	g->k_of = NULL;
}
