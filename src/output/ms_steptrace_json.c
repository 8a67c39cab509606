/*
 * ms_steptrace_json.c - steptrace.json of a MindSpore device (shape in
 * ms_ops_json.h), from the step trace read into its ms_profile (an_ms.h).
 */
#include "analysis/an_ms.h"
#include "output/ms_ops_json.h"
#include "output/schema.h"

#include <stdio.h>

static const char *const times[] = {"iteration_interval_us", "fp_bp_us", "tail_us", "total_us",
				    NULL};

static void graph(struct jsonw *w, const struct ms_profile *mp)
{
	const struct ms_st_graph *g = &mp->graph;
	size_t p = 0;

	jsonw_key(w, "graph");
	if (mp->graph_rc) {
		jsonw_null(w);
		return;
	}
	jsonw_arr_begin(w);
	for (size_t l = 0; l < g->nlines; l++) {
		jsonw_arr_begin(w);
		for (; p < g->line_end[l]; p++) {
			if (!g->pts[p].valid) {
				jsonw_null(w);
				continue;
			}
			jsonw_obj_begin(w);
			jsonw_kstr(w, "name", g->pts[p].name);
			jsonw_kdouble(w, "start_ms", g->pts[p].start_ms);
			jsonw_kdouble(w, "duration_ms", g->pts[p].dur_ms);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
}

/* MindInsight's step_trace proposer: the average step's iteration interval
 * above 0.5 ms. */
static void proposals(struct jsonw *w, const struct ms_st_summary *sum, int have_sum)
{
	jsonw_key(w, "proposals");
	jsonw_arr_begin(w);
	if (have_sum && sum->interval_ms > 0.5) {
		char text[512];

		snprintf(
		    text, sizeof(text),
		    "The average iteration interval is %.4f ms (%.2f%% of the step), above 0.5 "
		    "ms: the path from data processing to the computational graph can be "
		    "optimized (graph mode and dataset sink mode; see the data pipeline).",
		    sum->interval_ms, sum->interval_pct);
		jsonw_obj_begin(w);
		jsonw_kstr(w, "id", "step_trace-iter_interval");
		jsonw_kstr(w, "text", text);
		jsonw_kdouble(w, "iteration_interval_ms", sum->interval_ms);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

int out_json_ms_steptrace(struct jsonw *w, const struct ms_profile *mp)
{
	int rc = mp->st_part.rc, have_sum;

	if (rc == NNS_ENOTFOUND)
		return -1;
	jsonw_obj_begin(w);
	jsonw_kstr(w, "source", "mindspore");
	/* the data rows, then MindSpore's average row as "average" */
	sc_json_rows(w, "steps", &sc_ms_steps, mp->steps.v, rc ? 0 : mp->steps.n - 1, NULL, NULL);
	jsonw_key(w, "average");
	jsonw_obj_begin(w);
	if (!rc)
		sc_json_fields(w, &sc_ms_steps, &mp->steps.v[mp->steps.n - 1], NULL, times);
	jsonw_obj_end(w);
	if (rc) {
		jsonw_kstr(w, "error", mp->st_part.err.msg);
		jsonw_obj_end(w);
		return 0;
	}
	have_sum = mp->sum_rc == NNS_OK;
	proposals(w, &mp->sum, have_sum);
	if (have_sum) {
		jsonw_key(w, "summary");
		out_json_ms_summary(w, &mp->sum);
	}
	jsonw_key(w, "point_info");
	if (mp->point_rc == NNS_OK) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "fp_start", mp->fp_start);
		jsonw_kstr(w, "bp_end", mp->bp_end);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	graph(w, mp);
	jsonw_obj_end(w);
	return 0;
}
