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

/* Longest path; fills r->path. Returns 0, NNS_ENOMEM, or 1 for a cycle. */
static int longest_path(struct hcp_result *r, const struct hcp_graph *g)
{
	size_t nn = g->evs.n * 2, ne = g->edges.n, i, head = 0, tail = 0;
	uint32_t *first = NULL, *adj = NULL, *indeg = NULL, *queue = NULL, *pred = NULL;
	int64_t *dist = NULL, best = -1;
	uint32_t end = MODEL_NOIDX, v;
	size_t plen = 0;
	int rc = NNS_ENOMEM;

	first = calloc(nn + 1, sizeof(*first));
	adj = malloc((ne ? ne : 1) * sizeof(*adj));
	indeg = calloc(nn ? nn : 1, sizeof(*indeg));
	queue = malloc((nn ? nn : 1) * sizeof(*queue));
	pred = malloc((nn ? nn : 1) * sizeof(*pred)); /* edge index into v */
	dist = malloc((nn ? nn : 1) * sizeof(*dist));
	if (!first || !adj || !indeg || !queue || !pred || !dist)
		goto out;
	/* successor lists (CSR), edges of a node in insertion order */
	for (i = 0; i < ne; i++) {
		first[g->edges.v[i].u + 1]++;
		indeg[g->edges.v[i].v]++;
	}
	for (i = 0; i < nn; i++)
		first[i + 1] += first[i];
	for (i = 0; i < ne; i++)
		adj[first[g->edges.v[i].u]++] = (uint32_t)i;
	for (i = nn; i > 0; i--)
		first[i] = first[i - 1];
	first[0] = 0;
	for (i = 0; i < nn; i++) {
		pred[i] = MODEL_NOIDX;
		dist[i] = -1;
		if (indeg[i] == 0)
			queue[tail++] = (uint32_t)i;
	}
	/* Kahn's order; dist relaxed along it */
	while (head < tail) {
		uint32_t u = queue[head++];
		int64_t du = dist[u] < 0 ? 0 : dist[u];

		dist[u] = du;
		if (du > best) {
			best = du;
			end = u;
		}
		for (i = first[u]; i < first[u + 1]; i++) {
			const struct hcp_gedge *e = &g->edges.v[adj[i]];
			if (du + e->w > dist[e->v]) {
				dist[e->v] = du + e->w;
				pred[e->v] = adj[i];
			}
			if (--indeg[e->v] == 0)
				queue[tail++] = e->v;
		}
	}
	if (tail < nn) {
		rc = 1;
		goto out;
	}
	rc = 0;
	if (end == MODEL_NOIDX)
		goto out;
	/* walk back, then reverse into r->path */
	for (v = end; pred[v] != MODEL_NOIDX; v = g->edges.v[pred[v]].u)
		plen++;
	r->path_end = hcp_node_ts(g, end);
	r->path_start = hcp_node_ts(g, v);
	r->total = dist[end];
	{
		size_t keep = plen < HCP_PATH_CAP ? plen : HCP_PATH_CAP, k = plen;

		r->path_dropped = (int64_t)(plen - keep);
		if (keep && vec_reserve(&r->path, keep)) {
			rc = NNS_ENOMEM;
			goto out;
		}
		r->path.n = keep;
		for (v = end; pred[v] != MODEL_NOIDX; v = g->edges.v[pred[v]].u) {
			const struct hcp_gedge *e = &g->edges.v[pred[v]];
			int64_t gap = hcp_node_ts(g, e->v) - hcp_node_ts(g, e->u);
			int cls = edge_class(g, e);

			k--;
			if (cls == HCP_C_SYNC || cls == HCP_C_IDLE)
				r->by_class[cls] += gap > 0 ? gap : 0;
			else
				r->by_class[cls] += e->w;
			if (k < keep) {
				struct hcp_seg *s = &r->path.v[k];
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
		}
	}
	r->span = r->total + r->by_class[HCP_C_SYNC] + r->by_class[HCP_C_IDLE];
out:
	free(first);
	free(adj);
	free(indeg);
	free(queue);
	free(pred);
	free(dist);
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
