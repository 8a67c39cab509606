/*
 * ms_ops_json.c - writes the MindSpore step summary and op-by-type table
 * (document shape in ms_ops_json.h).
 */
#include "output/ms_ops_json.h"

void out_json_ms_summary(struct jsonw *w, const struct ms_st_summary *s)
{
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "total_ms", s->total_ms);
	jsonw_kdouble(w, "iteration_interval_ms", s->interval_ms);
	jsonw_kdouble(w, "iteration_interval_percent", s->interval_pct);
	jsonw_kdouble(w, "fp_bp_ms", s->fp_bp_ms);
	jsonw_kdouble(w, "fp_bp_percent", s->fp_bp_pct);
	jsonw_kdouble(w, "tail_ms", s->tail_ms);
	jsonw_kdouble(w, "tail_percent", s->tail_pct);
	jsonw_kint(w, "total_steps", (int64_t)s->total_steps);
	jsonw_obj_end(w);
}

void out_json_ms_ops(struct jsonw *w, const struct ms_st_summary *s, const struct ms_at *t,
		     const struct ms_ad *d, const char *const *errs, size_t nerr)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key(w, "step_summary");
	if (s)
		out_json_ms_summary(w, s);
	else
		jsonw_null(w);
	jsonw_key(w, "by_type");
	jsonw_arr_begin(w);
	for (i = 0; t && i < t->rows.n; i++) {
		const struct ms_at_row *r = &t->rows.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "kernel_type", r->kernel_type);
		jsonw_kdouble(w, "total_time_us", r->total_time_us);
		jsonw_kint(w, "execution_frequency", r->execution_frequency);
		jsonw_kdouble(w, "avg_time_us", r->avg_time_us);
		jsonw_kdouble(w, "total_percent", r->total_percent);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "by_op");
	jsonw_arr_begin(w);
	for (i = 0; d && i < d->rows.n; i++) {
		const struct ms_ad_row *r = &d->rows.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "op_name", r->op_name);
		jsonw_kstr(w, "kernel_name", r->kernel_name);
		jsonw_kstr(w, "kernel_type", r->kernel_type);
		jsonw_kdouble(w, "avg_execution_time_us", r->avg_execution_time_us);
		jsonw_kint(w, "execution_frequency", r->execution_frequency);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "errors");
	jsonw_arr_begin(w);
	for (i = 0; i < nerr; i++)
		jsonw_str(w, errs[i]);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}
