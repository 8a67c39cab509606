/*
 * ms_ops_json.h - the MindSpore single-device documents' writer (not yet a
 * row of views.c: MindSpore directories are not discovered as workers yet,
 * see docs/MINDSPORE.md). Writes
 *   {"step_summary": {"total_ms","iteration_interval_ms","iteration_interval_percent",
 *                     "fp_bp_ms","fp_bp_percent","tail_ms","tail_percent","total_steps"} | null,
 *    "by_type": [{"kernel_type","total_time_us","execution_frequency",
 *                 "avg_time_us","total_percent"}]}
 * Either input may be NULL (summary null, by_type empty). Keeps no pointer.
 */
#ifndef NNS_OUTPUT_MS_OPS_JSON_H
#define NNS_OUTPUT_MS_OPS_JSON_H

#include "analysis/ms_steptrace.h"
#include "importers/ms_aicore_type.h"
#include "output/jsonw.h"

void out_json_ms_ops(struct jsonw *w, const struct ms_st_summary *s, const struct ms_at *t);

#endif
