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

/* The same summary from a device's whole step-trace table (ms_st_table.h).
 * NNS_OK or NNS_EFORMAT when it has no average row. */
struct ms_st_table;
int ms_st_summarise_table(const struct ms_st_table *t, struct ms_st_summary *out,
			  struct nns_err *err);

/* MindInsight's training-trace graph of one step (upstream
 * StepTraceAnalyser._get_step_details): step_id 0 is the average row (the
 * last), k the k-th data row. Every value is first turned into ms
 * (round(count * 1e-5, 4)); a point is (name, start, duration) rounded to 4
 * decimals relative to the step's start_point, and invalid (written as
 * null) when either is negative. Lines:
 *   0: ("", 0, total);
 *   1: ("iteration_interval", 0, iteration_interval),
 *      ("fp_and_bp", fp_point - start, fp_and_bp),
 *      ("tail", bp_point - start, tail);
 *   then one line per reduce stream (fields stream_<id>_..., grouped by id
 *   in column order, each stream's reduces sorted by end; fields with a 0
 *   or missing start, end or duration skipped): from fp_point, a gap ("",
 *   previous end - start, reduce start - previous end) before each reduce
 *   (name, start - step start, duration), and a last gap to end_point. */
struct ms_st_point {
	char name[96];
	double start_ms, dur_ms;
	int valid;
};
struct ms_st_graph {
	struct ms_st_point *pts; /* npts points */
	size_t npts;
	size_t *line_end; /* nlines: index one past each line's last point */
	size_t nlines;
};
/* NNS_OK; NNS_EINVAL "The step num must be in [0, n]" for a step_id out
 * of range; NNS_ENOMEM. g is caller storage, released by ms_st_graph_release. */
int ms_st_graph_build(const struct ms_st_table *t, size_t step_id, struct ms_st_graph *g,
		      struct nns_err *err);
void ms_st_graph_release(struct ms_st_graph *g);

#endif
