/*
 * ms_memory.h - MindInsight's device memory views of one MindSpore device,
 * computed from its memory_usage_<dev>.pb (importers/ms_memory.h) as
 * MindSpore's MemoryUsageParser / GraphMemoryParser compute the
 * memory_usage_summary_<dev>.json and memory_usage_details_<dev>.json that
 * MindInsight's MemoryUsageAnalyser shows. nnscope keeps bytes (exact);
 * upstream divides every size by 2^30 (GB) first.
 *
 * Per graph with at least one tensor (a graph without tensors is skipped,
 * as upstream), N = its node count, in execution order (node index i):
 *   lines[i] = static_mem + Σ size of the tensors live at i (the usage curve);
 *   a tensor is live on [from, to) by its life_long:
 *     LifeLongGraphAll    [0, N)            (its life_start/_end reported 0, N)
 *     LifeLongGraphStart  [0, life_end+1)   (life_start reported 0)
 *     LifeLongGraphEnd    [life_start, N)   when life_start <= N (life_end reported N)
 *     LifeLongNone        [life_start, life_end+1) when life_start <= life_end
 *     anything else, or a lifetime that cannot be located: not counted
 *   a range past the last node is cut at N (upstream raises IndexError there).
 *   Tensors with a repeated id: the last one, at the first one's place.
 * Per node (the per-op breakdown): size = Σ size of its distinct output and
 *   workspace tensors, allocations = their number, allocated = lines[i] −
 *   lines[i−1] (lines[0] − static_mem for i = 0).
 * A tensor's source node: the last node listing it as an output; its name
 *   "<node>:<k>" (k = its last position among that node's outputs), its
 *   shape / format / data type the k-th non-input entry of the node's
 *   op_info in framework_raw (found by the name after the last '/'), type
 *   "output". Breakdown at node i: the live tensors that have a source
 *   node, in tensor order.
 * fp_start / bp_end: the node_id of the node (the last of that name) named
 *   by the last '/' part of step_trace_point_info's fp_start / bp_end; when
 *   the device has no point info, the graph's own fp_start / bp_end fields
 *   (nnscope's fallback; upstream ignores them). -1 when not found.
 * Summary: capacity = total_mem; peak = max over graphs of max(lines);
 *   static = Σ graphs' static_mem; allocations = deallocations = Σ graphs'
 *   distinct tensors (skipped graphs count nothing).
 * Graphs with a repeated graph_id: the last replaces the first in the list
 *   (upstream's dict); the summary counts both.
 * Newer MindSpore samples lines/nodes every N/2000 when N > 2000 and keeps
 * the breakdown of node 0 only; nnscope keeps them all.
 *
 * Errors: NNS_EFORMAT "graph G: node i (<name>): output tensor T is not in
 * tensor_mems" (upstream fails too), "graph G: memory total overflows".
 * Ownership: struct ms_mem_result owns its arrays (ms_mem_result_release);
 * it points into nothing, but indexes the ms_mem_file it was computed from,
 * which must be kept beside it.
 */
#ifndef NNS_ANALYSIS_MS_MEMORY_H
#define NNS_ANALYSIS_MS_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_memory.h"
#include "importers/ms_opdetail.h"

struct ms_mem_trow {
	uint32_t t;	  /* index in ms_mem_file.tensors */
	int64_t from, to; /* live on [from, to) of lines; from = to = -1: not counted */
	uint64_t life_start, life_end; /* as upstream reports them (see above) */
	int64_t source;		       /* node index in the graph, -1 = none */
	int64_t out_idx;	       /* k of "<node>:<k>", -1 = none */
	int64_t fw_tensor;	       /* index in ms_fw.t of its shape etc., -1 = none */
};

struct ms_mem_nrow {
	uint32_t n; /* index in ms_mem_file.nodes */
	int64_t size, allocated;
	uint32_t allocations;
	int64_t fw_op; /* index in ms_fw.ops, -1 = none */
};

struct ms_mem_gres {
	uint32_t g;	/* index in ms_mem_file.graphs */
	int64_t *lines; /* nnode values (NULL when no node) */
	struct ms_mem_nrow *nodes;
	struct ms_mem_trow *tensors; /* distinct tensors, tensor order */
	size_t nnode, ntensor;
	int64_t peak;		  /* max(lines), static_mem when no node */
	int64_t peak_node;	  /* first index of the peak, -1 when no node */
	int64_t fp_start, bp_end; /* node ids, -1 = null */
};

struct ms_mem_result {
	uint64_t capacity;
	int64_t peak, static_mem;
	uint64_t allocations, deallocations;
	size_t skipped; /* graphs without tensors */
	VEC(struct ms_mem_gres) graphs;
};

/* Computes r from f. fw (framework_raw, may be NULL) gives full names and
 * tensor shapes; fp / bp (may be NULL or "") are step_trace_point_info's
 * points. */
int ms_mem_compute(struct ms_mem_result *r, const struct ms_mem_file *f, const struct ms_fw *fw,
		   const char *fp, const char *bp, struct nns_err *err);
void ms_mem_result_release(struct ms_mem_result *r);

/* The breakdown at node index i of graph gr: indices into gr->tensors
 * written to out (up to max); returns how many there are. */
size_t ms_mem_breakdown(const struct ms_mem_gres *gr, size_t i, size_t *out, size_t max);

/* The part of an ms_profile (an_ms.h): the file and its views. rc NNS_OK,
 * NNS_ENOTFOUND (no memory_usage_<dev>.pb) or the error, named in err. */
struct ms_mem {
	int rc;
	struct nns_err err;
	struct ms_mem_file file;
	struct ms_mem_result res;
};

/* Reads memory_usage_<dev>.pb of s and computes its views into *m (always
 * initialised; m->rc says how it went). Returns NNS_ENOMEM only. */
struct ms_src;
int ms_mem_load_all(struct ms_mem *m, const struct ms_src *s, const struct ms_fw *fw,
		    const char *fp, const char *bp);
void ms_mem_release(struct ms_mem *m);

#endif
