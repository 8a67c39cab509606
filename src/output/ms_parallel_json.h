/*
 * ms_parallel_json.h - the parallel strategy and stage timeline documents
 * (analysis/ms_parallel.h; docs/MINDSPORE.md, "Parallel strategy and the
 * stage timeline"), written for any device of a MindSpore profiler
 * directory (they describe the whole job, so every device gives the same):
 *
 * ms_parallel: MindInsight's /profile/parallel-strategy/graphs answer,
 *   {"status":"finish","metadata":{"parallel_type"},"graphs":{"<stage>":
 *   {"rank_ids":[int],"op_nodes":[N],"const_nodes":[N],"parameter_nodes":[]}},
 *   "ranks":[int] (the files read),"errors":["<file>:<line>: why"],
 *   "error":null|"why there is none"}; N = {"node_id","name","scope","type",
 *   "instance_type","attr":{name:str},"input":[str],"output_shape",
 *   "output_data_type","parallel_group":[str],"parallel_shard":[]|str,
 *   "parallel_group_rank":str, "strategy":null|str (nnscope: in_strategy,
 *   else gen_strategy)}.
 * ms_marey: MindInsight's /profile/marey-graph/timeline answer,
 *   {"step","source":"timelines"|"file","maps":{device:{op:{st,ed,dur}}},
 *   "minT","maxT","stage_data":{stage:{"data":{op:{st_max,st_min,st_avg,
 *   ed_max,ed_min,ed_avg,n}},"devices":[str]}},"scope_map":null|{op:scope},
 *   "error":null|str}; times in us as the files have them. nnscope adds
 *   (analysis/ms_marey_lines.h) "steps":[int] (the job's steps),
 *   "flops_lines" / "memory_lines":{device:[[x,y,op]]} (x us as maps, y
 *   MFLOPs / bytes), "flops_range" / "memory_range":[min,max],
 *   "blocks":[{"name","kind":"device"|"stage","stage","flops",
 *   "flops_ratio","flops_per_s","flops_per_s_ratio","peak_mem","capacity",
 *   "mem_ratio"}] (null when absent) and "lines_errors":[str].
 */
#ifndef NNS_OUTPUT_MS_PARALLEL_JSON_H
#define NNS_OUTPUT_MS_PARALLEL_JSON_H

#include "analysis/ms_marey_lines.h"
#include "analysis/ms_parallel.h"
#include "output/jsonw.h"

void out_json_ms_par(struct jsonw *w, const struct ms_par *p);
/* l may be NULL (no lines). */
void out_json_ms_marey(struct jsonw *w, const struct ms_marey *m, const struct ms_marey_lines *l,
		       int rc, const char *why);
void out_json_ms_marey_doc(struct jsonw *w, const struct ms_marey_doc *d);

#endif
