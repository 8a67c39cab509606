/*
 * ms_steptrace.h - MindInsight's step-trace summary for one MindSpore device
 * (reference mindinsight.md, "Step trace"; upstream
 * StepTraceAnalyser._get_summary): from the rows of
 * step_trace_raw_<dev>_detail_time.csv (parsed by msc_parse_step_trace, 10 ns
 * counts, last row = average) it gives the average total, iteration interval,
 * fp+bp and tail in ms rounded to 4 decimals, each part's percent of the total
 * rounded to 2 decimals, and the number of steps (data rows less the average).
 *
 * Pure: reads the rank, writes the result struct; keeps no pointer.
 */
#ifndef NNS_ANALYSIS_MS_STEPTRACE_H
#define NNS_ANALYSIS_MS_STEPTRACE_H

#include <stddef.h>

#include "common/err.h"
#include "importers/ms_cluster.h"

struct ms_st_summary {
	double total_ms, interval_ms, fp_bp_ms, tail_ms;
	double interval_pct, fp_bp_pct, tail_pct; /* of total_ms; 0 when total is 0 */
	size_t total_steps;
};

/* NNS_OK, or NNS_EFORMAT when r holds no step-trace rows (err says so). */
int ms_st_summarise(const struct msc_rank *r, struct ms_st_summary *out, struct nns_err *err);

#endif
