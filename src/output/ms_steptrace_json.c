/*
 * ms_steptrace_json.c - steptrace.json of a MindSpore device (shape in
 * ms_ops_json.h).
 */
#include "analysis/ms_steptrace.h"
#include "importers/ms_st_table.h"
#include "output/ms_ops_json.h"

#include <math.h>
#include <stdio.h>

static double us(double counts)
{
	return isnan(counts) ? 0 : counts / 100.0;
}

static void times(struct jsonw *w, const struct ms_st_table *t, size_t row)
{
	jsonw_kdouble(w, "iteration_interval_us", us(ms_st_cell(t, row, "iteration_interval")));
	jsonw_kdouble(w, "fp_bp_us", us(ms_st_cell(t, row, "fp_and_bp")));
	jsonw_kdouble(w, "tail_us", us(ms_st_cell(t, row, "tail")));
	jsonw_kdouble(w, "total_us", us(ms_st_cell(t, row, "total")));
}

static void graph(struct jsonw *w, const struct ms_st_table *t)
{
	struct ms_st_graph g;
	struct nns_err err;
	size_t p = 0;

	jsonw_key(w, "graph");
	if (ms_st_graph_build(t, 0, &g, &err)) {
		jsonw_null(w);
		return;
	}
	jsonw_arr_begin(w);
	for (size_t l = 0; l < g.nlines; l++) {
		jsonw_arr_begin(w);
		for (; p < g.line_end[l]; p++) {
			if (!g.pts[p].valid) {
				jsonw_null(w);
				continue;
			}
			jsonw_obj_begin(w);
			jsonw_kstr(w, "name", g.pts[p].name);
			jsonw_kdouble(w, "start_ms", g.pts[p].start_ms);
			jsonw_kdouble(w, "duration_ms", g.pts[p].dur_ms);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	ms_st_graph_release(&g);
}

int out_json_ms_steptrace(struct jsonw *w, const struct ms_src *s)
{
	struct ms_st_table t;
	struct ms_st_summary sum;
	struct nns_err err;
	char fp[512], bp[512];
	int rc, have_sum;

	nns_err_clear(&err);
	rc = ms_st_table_load(&t, s, &err);
	if (rc == NNS_ENOTFOUND)
		return -1;
	jsonw_obj_begin(w);
	jsonw_kstr(w, "source", "mindspore");
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; !rc && i + 1 < t.nrows; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", t.step[i]);
		jsonw_kdouble(w, "start_us", us(ms_st_cell(&t, i, "start_point")));
		jsonw_kdouble(w, "end_us", us(ms_st_cell(&t, i, "end_point")));
		times(w, &t, i);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "average");
	jsonw_obj_begin(w);
	if (!rc)
		times(w, &t, t.nrows - 1);
	jsonw_obj_end(w);
	if (rc) {
		jsonw_kstr(w, "error", err.msg);
		jsonw_obj_end(w);
		return 0;
	}
	have_sum = ms_st_summarise_table(&t, &sum, &err) == NNS_OK;
	jsonw_key(w, "proposals");
	jsonw_arr_begin(w);
	if (have_sum && sum.interval_ms > 0.5) {
		/* MindInsight's step_trace proposer: the average step's iteration
		 * interval above 0.5 ms */
		char text[512];

		snprintf(
		    text, sizeof(text),
		    "The average iteration interval is %.4f ms (%.2f%% of the step), above 0.5 "
		    "ms: the path from data processing to the computational graph can be "
		    "optimized (graph mode and dataset sink mode; see the data pipeline).",
		    sum.interval_ms, sum.interval_pct);
		jsonw_obj_begin(w);
		jsonw_kstr(w, "id", "step_trace-iter_interval");
		jsonw_kstr(w, "text", text);
		jsonw_kdouble(w, "iteration_interval_ms", sum.interval_ms);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	if (have_sum) {
		jsonw_key(w, "summary");
		out_json_ms_summary(w, &sum);
	}
	jsonw_key(w, "point_info");
	if (ms_point_info_load(s, fp, bp, sizeof(fp), &err) == NNS_OK) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "fp_start", fp);
		jsonw_kstr(w, "bp_end", bp);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	graph(w, &t);
	jsonw_obj_end(w);
	ms_st_table_release(&t);
	return 0;
}
