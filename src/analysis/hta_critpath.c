/*
 * hta_critpath.c - the critical path of one step: picks the step, builds
 * the graph (hta_critpath_graph.c), finds its longest path (networkx
 * dag_longest_path semantics: a node extends the heaviest path of its
 * predecessors, zero-weight ones included; ties keep the first found in
 * topological order) and breaks the path down by edge class.
 */
#include "hta_critpath_int.h"
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const hcp_edge_names[HCP_E__N] = {
    "critical_path_operator",
    "critical_path_dependency",
    "critical_path_kernel_launch_delay",
    "critical_path_kernel_kernel_delay",
    "critical_path_sync_dependency",
};

const char *const hcp_class_keys[HCP_C__N] = {
    "cpu_op_us",    "kernel_us", "communication_us", "launch_delay_us", "kernel_kernel_delay_us",
    "sync_wait_us", "idle_us",
};

void hcp_release(struct hcp_result *r)
{
	vec_free(&r->path);
}

/* The step named name ("5" or "ProfilerStep#5"), or the first one. */
static int pick_step(struct hcp_result *r, const struct an_profile *p, const char *name)
{
	size_t i, n = p->overview.steps.n;

	r->nsteps = n;
	if (n == 0) {
		snprintf(r->reason, sizeof(r->reason), "the trace has no steps");
		return -1;
	}
	if (!name || !*name) {
		r->step_index = 0;
		return 0;
	}
	if (strncmp(name, "ProfilerStep#", 13) == 0)
		name += 13;
	for (i = 0; i < n; i++)
		if (strcmp(p->overview.steps.v[i].name, name) == 0) {
			r->step_index = i;
			return 0;
		}
	snprintf(r->reason, sizeof(r->reason), "no step named '%.60s' (the trace has %zu)", name,
		 n);
	return -1;
}

/* Breakdown class of a path edge. */
static int edge_class(const struct hcp_graph *g, const struct hcp_gedge *e)
{
	const struct model_event *ev;

	switch (e->type) {
	case HCP_E_DEP:
		return HCP_C_IDLE;
	case HCP_E_SYNC:
		return HCP_C_SYNC;
	case HCP_E_LAUNCH:
		return HCP_C_LAUNCH;
	case HCP_E_KK:
		return HCP_C_KK;
	}
	if (e->zeroed)
		return HCP_C_SYNC;
	if (e->ev == MODEL_NOIDX)
		return HCP_C_CPU;
	ev = &g->m->events.v[e->ev];
	if (!model_kind_is_device(ev->kind))
		return HCP_C_CPU;
	return model_event_class(g->m, e->ev) == MC_COMM ? HCP_C_COMM : HCP_C_KERNEL;
}

/* The graph's successor lists (CSR) and the longest-path state over its
 * nn = 2 x events nodes; every array owned, freed by lp_release. */
struct lp_work {
	size_t nn;
	uint32_t *first; /* nn + 1: node u's edges are adj[first[u] .. first[u + 1]) */
	uint32_t *adj;	 /* edge indices, a node's in insertion order */
	uint32_t *indeg, *queue;
	uint32_t *pred; /* per node: the edge into it on its longest path */
	int64_t *dist;	/* per node: length of its longest path */
};

static void lp_release(struct lp_work *w)
{
	free(w->first);
	free(w->adj);
	free(w->indeg);
	free(w->queue);
	free(w->pred);
	free(w->dist);
}

/* Allocates w and fills the successor lists and in-degrees. */
static int lp_build(struct lp_work *w, const struct hcp_graph *g)
{
	size_t nn = g->evs.n * 2, ne = g->edges.n, i;

	w->nn = nn;
	w->first = calloc(nn + 1, sizeof(*w->first));
	w->adj = malloc((ne ? ne : 1) * sizeof(*w->adj));
	w->indeg = calloc(nn ? nn : 1, sizeof(*w->indeg));
	w->queue = malloc((nn ? nn : 1) * sizeof(*w->queue));
	w->pred = malloc((nn ? nn : 1) * sizeof(*w->pred)); /* edge index into v */
	w->dist = malloc((nn ? nn : 1) * sizeof(*w->dist));
	if (!w->first || !w->adj || !w->indeg || !w->queue || !w->pred || !w->dist)
		return NNS_ENOMEM;
	for (i = 0; i < ne; i++) {
		w->first[g->edges.v[i].u + 1]++;
		w->indeg[g->edges.v[i].v]++;
	}
	for (i = 0; i < nn; i++)
		w->first[i + 1] += w->first[i];
	for (i = 0; i < ne; i++)
		w->adj[w->first[g->edges.v[i].u]++] = (uint32_t)i;
	for (i = nn; i > 0; i--)
		w->first[i] = w->first[i - 1];
	w->first[0] = 0;
	return 0;
}

/* Kahn's order, dist relaxed along it. *end: the node with the longest
 * path (the first reached with it), MODEL_NOIDX without nodes. Returns
 * the number of nodes ordered: fewer than nn when there is a cycle. */
static size_t lp_relax(struct lp_work *w, const struct hcp_graph *g, uint32_t *end)
{
	size_t head = 0, tail = 0, i;
	int64_t best = -1;

	*end = MODEL_NOIDX;
	for (i = 0; i < w->nn; i++) {
		w->pred[i] = MODEL_NOIDX;
		w->dist[i] = -1;
		if (w->indeg[i] == 0)
			w->queue[tail++] = (uint32_t)i;
	}
	while (head < tail) {
		uint32_t u = w->queue[head++];
		int64_t du = w->dist[u] < 0 ? 0 : w->dist[u];

		w->dist[u] = du;
		if (du > best) {
			best = du;
			*end = u;
		}
		for (i = w->first[u]; i < w->first[u + 1]; i++) {
			const struct hcp_gedge *e = &g->edges.v[w->adj[i]];
			if (du + e->w > w->dist[e->v]) {
				w->dist[e->v] = du + e->w;
				w->pred[e->v] = w->adj[i];
			}
			if (--w->indeg[e->v] == 0)
				w->queue[tail++] = e->v;
		}
	}
	return tail;
}

/* Path segment s from edge e of class cls. */
static void fill_seg(struct hcp_seg *s, const struct hcp_graph *g, const struct hcp_gedge *e,
		     int cls)
{
	s->src_ev = g->evs.v[e->u >> 1];
	s->dst_ev = g->evs.v[e->v >> 1];
	s->ev = e->ev != MODEL_NOIDX ? e->ev : s->src_ev;
	s->from = hcp_node_ts(g, e->u);
	s->to = hcp_node_ts(g, e->v);
	s->weight = e->w;
	s->type = e->type;
	s->cls = (uint8_t)cls;
	s->src_is_start = !(e->u & 1);
	s->dst_is_start = !(e->v & 1);
}

/* The path ending at `end`, walked back along pred: its span and time by
 * class into r, and its first HCP_PATH_CAP segments into r->path. */
static int lp_write_path(struct hcp_result *r, const struct hcp_graph *g, const struct lp_work *w,
			 uint32_t end)
{
	size_t plen = 0, keep, k;
	uint32_t v;

	for (v = end; w->pred[v] != MODEL_NOIDX; v = g->edges.v[w->pred[v]].u)
		plen++;
	r->path_end = hcp_node_ts(g, end);
	r->path_start = hcp_node_ts(g, v);
	r->total = w->dist[end];
	keep = plen < HCP_PATH_CAP ? plen : HCP_PATH_CAP;
	k = plen;
	r->path_dropped = (int64_t)(plen - keep);
	if (keep && vec_reserve(&r->path, keep))
		return NNS_ENOMEM;
	r->path.n = keep;
	for (v = end; w->pred[v] != MODEL_NOIDX; v = g->edges.v[w->pred[v]].u) {
		const struct hcp_gedge *e = &g->edges.v[w->pred[v]];
		int64_t gap = hcp_node_ts(g, e->v) - hcp_node_ts(g, e->u);
		int cls = edge_class(g, e);

		k--;
		if (cls == HCP_C_SYNC || cls == HCP_C_IDLE)
			r->by_class[cls] += gap > 0 ? gap : 0;
		else
			r->by_class[cls] += e->w;
		if (k < keep)
			fill_seg(&r->path.v[k], g, e, cls);
	}
	r->span = r->total + r->by_class[HCP_C_SYNC] + r->by_class[HCP_C_IDLE];
	return 0;
}

/* Longest path; fills r->path. Returns 0, NNS_ENOMEM, or 1 for a cycle. */
static int longest_path(struct hcp_result *r, const struct hcp_graph *g)
{
	struct lp_work w;
	uint32_t end;
	int rc = NNS_ENOMEM;

	memset(&w, 0, sizeof(w));
	if (lp_build(&w, g))
		goto out;
	if (lp_relax(&w, g, &end) < w.nn)
		rc = 1;
	else if (end == MODEL_NOIDX)
		rc = 0;
	else
		rc = lp_write_path(r, g, &w, end);
out:
	lp_release(&w);
	return rc;
}

int hcp_compute(struct hcp_result *r, const struct an_profile *p, const struct hcp_opts *o,
		struct nns_err *err)
{
	struct hcp_graph g;
	const struct an_step *st;
	int rc, i;

	memset(r, 0, sizeof(*r));
	if (pick_step(r, p, o ? o->step : NULL))
		return NNS_OK;
	st = &p->overview.steps.v[r->step_index];
	snprintf(r->step, sizeof(r->step), "%s", st->name);
	r->step_start = st->host_start;
	r->step_end = st->host_end;
	if ((rc = hcp_graph_build(&g, p->m, st->host_start, st->host_end, err)))
		return rc;
	r->nodes = (int64_t)g.evs.n * 2;
	r->edges = (int64_t)g.edges.n;
	for (size_t k = 0; k < g.edges.n; k++)
		r->edges_by_type[g.edges.v[k].type]++;
	r->clamped = g.clamped;
	r->sync_events = g.sync_events;
	r->sync_fallbacks = g.sync_fallbacks;
	if (g.evs.n == 0) {
		snprintf(r->reason, sizeof(r->reason),
			 "step %s has no host operators or runtime calls", r->step);
		hcp_graph_release(&g);
		return NNS_OK;
	}
	rc = longest_path(r, &g);
	hcp_graph_release(&g);
	if (rc == 1) {
		snprintf(r->reason, sizeof(r->reason), "the dependency graph has a cycle");
		vec_free(&r->path);
		r->total = r->span = 0;
		for (i = 0; i < HCP_C__N; i++)
			r->by_class[i] = 0;
		return NNS_OK;
	}
	if (rc) {
		hcp_release(r);
		return nns_err_set(err, rc, "out of memory finding the critical path");
	}
	r->ok = 1;
	return NNS_OK;
}
