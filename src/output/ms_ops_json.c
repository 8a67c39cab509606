/*
 * ms_ops_json.c - writes the MindSpore step summary and op-by-type table
 * (document shape in ms_ops_json.h).
 */
#include "output/ms_ops_json.h"
#include "output/schema.h"

void out_json_ms_summary(struct jsonw *w, const struct ms_st_summary *s)
{
	sc_json_row(w, &sc_ms_step_summary, s, NULL, NULL);
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
	sc_json_rows(w, "by_type", &sc_ms_op_types, t ? t->rows.v : NULL, t ? t->rows.n : 0, NULL,
		     NULL);
	sc_json_rows(w, "by_op", &sc_ms_ops, d ? d->rows.v : NULL, d ? d->rows.n : 0, NULL, NULL);
	jsonw_key(w, "errors");
	jsonw_arr_begin(w);
	for (i = 0; i < nerr; i++)
		jsonw_str(w, errs[i]);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}
