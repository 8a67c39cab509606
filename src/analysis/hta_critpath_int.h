/*
 * hta_critpath_int.h - the critical path graph shared by its builder
 * (hta_critpath_graph.c) and the longest-path search (hta_critpath.c).
 * Not part of the analysis API.
 *
 * Every event in the graph has two nodes: 2k (start) and 2k+1 (end), k its
 * position in the graph's event list. Ownership: struct hcp_graph owns its
 * arrays; hcp_graph_release() frees them.
 */
#ifndef NNS_ANALYSIS_HTA_CRITPATH_INT_H
#define NNS_ANALYSIS_HTA_CRITPATH_INT_H

#include "analysis/hta_critpath.h"

struct hcp_gedge {
	uint32_t u, v;	/* node ids */
	uint32_t ev;	/* attributed event (model index), MODEL_NOIDX if none */
	int64_t w;	/* weight, ns, >= 0 */
	uint8_t type;	/* enum hcp_edge */
	uint8_t zeroed; /* a blocking call's span given weight 0 */
};

struct hcp_graph {
	const struct model *m;
	VEC(uint32_t) evs; /* model event of graph event k */
	VEC(struct hcp_gedge) edges;
	/* per model event: ~k, 0 if absent (hcp_k): a zeroed array whose
	 * pages are touched only where graph events lie */
	uint32_t *k_of;
	int64_t clamped, sync_events, sync_fallbacks;
};

/* Graph event k of model event ev, MODEL_NOIDX if none. */
static inline uint32_t hcp_k(const struct hcp_graph *g, uint32_t ev)
{
	return ~g->k_of[ev];
}

/* Edges at most (a hostile trace cannot make the graph unbounded). */
#define HCP_EDGE_CAP ((size_t)64 << 20)

static inline int64_t hcp_node_ts(const struct hcp_graph *g, uint32_t node)
{
	const struct model_event *e = &g->m->events.v[g->evs.v[node >> 1]];
	return (node & 1) ? e->ts + e->dur : e->ts;
}

/* Builds the graph of the events of m in the host window [ws, we]. */
int hcp_graph_build(struct hcp_graph *g, const struct model *m, int64_t ws, int64_t we,
		    struct nns_err *err);
void hcp_graph_release(struct hcp_graph *g);

#endif
