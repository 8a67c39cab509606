/*
 * ms_ops_json.h - the MindSpore single-device documents' writers (the
 * ms_ops and steptrace rows of views.c, through ms_views.c). ms_ops writes
 *   {"step_summary": {"total_ms","iteration_interval_ms","iteration_interval_percent",
 *                     "fp_bp_ms","fp_bp_percent","tail_ms","tail_percent","total_steps"} | null,
 *    "by_type": [{"kernel_type","total_time_us","execution_frequency",
 *                 "avg_time_us","total_percent"}],
 *    "by_op": [{"op_name","kernel_name","kernel_type","avg_execution_time_us",
 *               "execution_frequency"}],
 *    "errors": ["<file>:<line>: what is wrong", ...]}
 * Any input may be NULL (summary null, by_type / by_op empty). Keeps no
 * pointer.
 */
#ifndef NNS_OUTPUT_MS_OPS_JSON_H
#define NNS_OUTPUT_MS_OPS_JSON_H

#include "analysis/an_ms.h"
#include "output/jsonw.h"

void out_json_ms_ops(struct jsonw *w, const struct ms_st_summary *s, const struct ms_at *t,
		     const struct ms_ad *d, const char *const *errs, size_t nerr);

/* The step summary object alone ({"total_ms", ... "total_steps"}). */
void out_json_ms_summary(struct jsonw *w, const struct ms_st_summary *s);

/* steptrace.json of a MindSpore device (ms_steptrace_json.c), from the
 * step_trace_raw CSV and point info read into its ms_profile:
 *   {"source":"mindspore",
 *    "steps":[{"name","start_us","end_us","iteration_interval_us","fp_bp_us","tail_us","total_us"}],
 *    "average":{"iteration_interval_us","fp_bp_us","tail_us","total_us"},
 *    "summary":{...out_json_ms_summary...},
 *    "proposals":[{"id":"step_trace-iter_interval","text","iteration_interval_ms"}]
 *               (MindInsight's step_trace proposer: average interval > 0.5 ms),
 *    "point_info":{"fp_start","bp_end"}|null,
 *    "graph":[[{"name","start_ms","duration_ms"}|null ...] ...]  (the average's
 *            training-trace graph, ms_steptrace.h)}
 * steps are the data rows (times in us: 10 ns counts / 100), average the
 * average row. Returns 0 when written, -1 (nothing written) when the device
 * has no step-trace CSV; a damaged CSV is written as empty steps with
 * "error". */
int out_json_ms_steptrace(struct jsonw *w, const struct ms_profile *mp);

#endif
