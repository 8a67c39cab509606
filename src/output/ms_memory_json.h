/*
 * ms_memory_json.h - the device memory document of a MindSpore device
 * (views.c row "ms_memory": ms_memory.json, /api/view?view=ms_memory), from
 * memory_usage_<dev>.pb read into its ms_profile (analysis/ms_memory.h has
 * the definitions). One JSON object; sizes in bytes (MindInsight shows GB =
 * bytes / 2^30, given as *_gb in the summary):
 *
 * {"source": "memory_usage_<dev>.pb" | null (absent),
 *  "summary": {"capacity_bytes","capacity_gb","peak_mem_bytes","peak_mem_gb",
 *              "static_mem_bytes","static_mem_gb","allocations","deallocations",
 *              "skipped_graphs"} | null,
 *  "graphs": [{"graph_id","static_mem_bytes","node_count","tensor_count",
 *              "fp_start","bp_end" (node ids | null),"peak_bytes","peak_node" (index | null),
 *              "lines_bytes": [usage at each node index],
 *              "nodes": [{"index","node_id","name","fullname","allocations","size_bytes",
 *                         "allocated_bytes"}],
 *              "tensors": [{"tensor_id","name","source_node","size_bytes","type","proto_type",
 *                           "life_long","life_start","life_end","live_from","live_to" (null
 *                           when not counted),"shape","format","data_type"}],
 *              "peak_breakdown": [indices into tensors]}],
 *  "errors": ["memory_usage_<dev>.pb: byte N: why"]}
 *
 * The breakdown at node i (MindInsight's) is the tensors with a source_node
 * and live_from <= i < live_to, in this order; the page computes it for the
 * node it is asked for.
 *
 * ms_memory_nodes.csv (out_write_ms_memory_csv, with `analyse --csv` like the
 * other MindSpore tables): one row per node of every graph, in execution
 * order: graph_id,index,node_id,name,fullname,allocations,size_bytes,
 * allocated_bytes,usage_bytes (usage_bytes = lines_bytes[index], the curve).
 */
#ifndef NNS_OUTPUT_MS_MEMORY_JSON_H
#define NNS_OUTPUT_MS_MEMORY_JSON_H

#include "output/jsonw.h"

struct an_profile;
struct ms_mem;
struct ms_fw;

void out_json_ms_memory(struct jsonw *w, const struct ms_mem *m, const struct ms_fw *fw, int dev);
/* The views.c row: the document of p->ms, or {"error": ...} when p is not a
 * MindSpore device. */
void out_json_ms_memory_view(struct jsonw *w, const struct an_profile *p);
/* Writes dir/ms_memory_nodes.csv when p is a MindSpore device whose
 * memory_usage_<dev>.pb was read; else writes nothing. */
struct nns_err;
int out_write_ms_memory_csv(const char *dir, const struct an_profile *p, struct nns_err *err);

#endif
