/*
 * ms_minddata_json.h - the MindData (data preparation) document of one
 * MindSpore device: from the files read into its ms_profile (an_ms.h;
 * read by the importers' ms_minddata.h) and their analyses computed there
 * (analysis/ms_minddata.h, ms_md_compute), writes ONE JSON object:
 *
 * {"device_queue": null | {            host queue, device_queue_profiling_<dev>.txt
 *      "file": "device_queue_profiling_0.txt",   (or dataset_iterator_profiling_<dev>.txt)
 *      "queue": {"size", "empty_batches", "full_batches",
 *                "queue_size": [..], "capacity": [..]},          by step
 *      "time":  {"size",                                         total-cost records
 *                "avg_cost_ms", "avg_get_cost_ms", "avg_push_cost_ms",  null when size 0
 *                "total_cost_ms": [..], "push_cost_ms": [..], "get_cost_ms": [..]}},  by step
 *  "get_next": null | {                chip queue, minddata_aicpu_<dev>.txt
 *      "file", "time_unit_in_file": "us" | "ns",   (ns: minddata_getnext_profiling_<dev>.txt)
 *      "queue": {"size", "empty_batches", "queue_size": [..]},
 *      "time":  {"size", "avg_cost_ms" (null when size 0), "cost_ms": [..]}},
 *  "queue_summary": null | {           null without the device queue
 *      "device_queue": {"empty_batch_count", "full_batch_count", "total_batch"},
 *      "get_next_queue": null | {"empty_batch_count", "total_batch"},
 *      "data_process": "normal"|"warning", "data_transmission": ..|null,
 *      "device_queue_warning": "normal"|"warning", "get_next": ..|null},
 *  "pipeline": null | {                minddata_pipeline_raw_<dev>.csv
 *      "file",
 *      "ops": [{"op_id", "op_type", "num_workers",
 *               "output_queue_size": [..]|null, "output_queue_average_size": x|null,
 *               "output_queue_length": n|null, "output_queue_usage_rate": x|null,
 *               "sample_interval_ms", "parent_id": n|null, "children_id": [..]|null}],  file order
 *      "threshold": [0.8, 0.6],
 *      "bottleneck_op_ids": [..]},     the threshold filter's ops
 *  "cpu_utilization": null | {         minddata_cpu_utilization_<dev>.json
 *      "file", "sampling_interval_ms": x|null, "cpu_processor_num": n|null,
 *      "samples", "step_total_num",
 *      "sample_steps": [..]|null,      step per sample (0 = before step 1), null unmapped
 *      "first_sample", "end_sample",   the averaged samples [first, end)
 *      "time_stamp_ms": [..],
 *      "device":  [{"metric", "avg", "values": [..]}],   utilizations in %, counts as is
 *      "process": [{"metric", "avg", "values": [..]}],
 *      "ops": [{"op_id", "num_workers": n|null, "metrics": [{"metric", "avg", "values"}]}],
 *      "total_op_avg": {"user_utilization", "sys_utilization", ...},
 *      "active_percent": x|null},      100 - idle average
 *  "proposals": [{"id", "args": [..] | {"empty_rate", "empty_warning_threshold"},
 *                 "cause": "data_process"|"data_transmission" (rate only), "text"}],
 *  "errors": ["path:line: why", ..]}   files that could not be read (their part is null)
 *
 * Averages: see src/analysis/ms_minddata.h. Keeps no pointer.
 */
#ifndef NNS_OUTPUT_MS_MINDDATA_JSON_H
#define NNS_OUTPUT_MS_MINDDATA_JSON_H

#include "analysis/an_ms.h"
#include "output/jsonw.h"

/* Writes the document of the MindData files read into mp. */
void out_json_ms_minddata(struct jsonw *w, const struct ms_profile *mp);
/* Writes the document of the files read into m and their analyses r
 * (ms_md_compute). */
void out_json_ms_minddata_data(struct jsonw *w, const struct ms_md *m,
			       const struct ms_md_result *r);

#endif
