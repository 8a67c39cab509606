/*
 * ms_extra_json.h - JSON documents for more of a MindSpore device's profiler
 * files, read once into its ms_profile (an_ms.h; the importers' readers
 * ms_flops.h, ms_opdetail.h, ms_aicpu.h, ms_dynshape.h hold the
 * definitions, as docs/MINDSPORE.md does). Each function writes ONE
 * JSON object and keeps no pointer. Absent files give null / empty arrays;
 * a malformed file gives its message ("path:line: why") in "errors" and no
 * data for it. Absent numbers (a "-" in the file, a missing column) are
 * null. *
 * out_json_ms_flops:
 *   {"summary": {"mflops", "gflops_per_s", "utilization_percent",
 *                "cube_mflops", "vector_mflops", "cube_gflops_per_s",
 *                "vector_gflops_per_s"} | null,            flops_summary_<dev>.json
 *    "ops": [{"op_full_name", "mflops", "gflops_per_s", "utilization_percent",
 *             "cube_mflops", "cube_gflops_per_s", "cube_utilization_percent",
 *             "vector_mflops", "vector_gflops_per_s",
 *             "vector_utilization_percent"}],               flops_<dev>.txt, file order
 *    "scope": {"max_scope_num": n | null, "nodes": ["Total", ...],
 *              "links": [{"source", "target", "mflops"}]} | null,  flops_scope_<dev>.json
 *    "errors": ["..."]}
 *
 * out_json_ms_op_detail (the by-op table with upstream's FLOPs and op_info columns):
 *   {"by_op": [{"op_name", "kernel_name", "kernel_type", "avg_execution_time_us",
 *               "execution_frequency", "cube_mflops", "cube_gflops_per_s",
 *               "vector_mflops", "vector_gflops_per_s",
 *               "op_info": {"input_0": {"format", "data_type", "shape": [int...] | null},
 *                           ...} | null}],     avg_execution_time_us descending
 *    "errors": [...]}
 *
 * out_json_ms_aicpu:
 *   {"source": "aicpu_intermediate" | "output_data_preprocess_aicpu" | null,
 *    "total_time_ms": sum of the calls' total_time, rounded to 6 decimals | null,
 *    "calls": n,
 *    "by_type": [{"kernel_type", "total_time_us", "execution_frequency", "percent"}],
 *    "by_op": [{"kernel_name", "kernel_type", "avg_execution_time_us",
 *               "avg_dispatch_time_us", "execution_frequency"}],
 *    "errors": [...]}
 *
 * out_json_ms_dynshape:
 *   {"operators": [{"step", "op_side", "op_type", "op_name", "duration_us",
 *                   "shapes": ["[32, 1]", ...]}],
 *    "kernels": [{"step", "op_type", "op_name", "op_full_name", "duration_us",
 *                 "block_dim", "grid_dim"}],
 *    "operator_types": SERIES | null, "kernel_types": SERIES | null,
 *    "errors": [...]}
 *   SERIES = {"steps": [step...], "default_types": [first 3 types of the first step],
 *             "series": [{"name", "op_full_name" (kernel_types only),
 *                         "total_us": [per step], "calls": [per step],
 *                         "avg_us": [per step]}]}   (0 where the type did not run)
 */
#ifndef NNS_OUTPUT_MS_EXTRA_JSON_H
#define NNS_OUTPUT_MS_EXTRA_JSON_H

#include "analysis/an_ms.h"
#include "output/jsonw.h"

void out_json_ms_flops(struct jsonw *w, const struct ms_profile *mp);
void out_json_ms_op_detail(struct jsonw *w, const struct ms_profile *mp);
void out_json_ms_aicpu(struct jsonw *w, const struct ms_profile *mp);
void out_json_ms_dynshape(struct jsonw *w, const struct ms_profile *mp);

#endif
