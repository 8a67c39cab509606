/*
 * ms_optab_json.c - writes MindSpore's GPU-mode and host CPU op tables as
 * MindInsight's query results (ms_optab_json.h).
 */
#include "output/ms_optab_json.h"

void out_json_ms_optab(struct jsonw *w, const struct ms_optab *t)
{
	const struct ms_ot_spec *sp = t->spec;

	jsonw_obj_begin(w);
	jsonw_key(w, "col_name");
	jsonw_arr_begin(w);
	for (int c = 0; c < sp->ncols; c++)
		jsonw_str(w, sp->cols[c].name);
	jsonw_arr_end(w);
	jsonw_key(w, "object");
	jsonw_arr_begin(w);
	for (size_t r = 0; r < t->rows; r++) {
		jsonw_arr_begin(w);
		for (int c = 0; c < sp->ncols; c++) {
			if (sp->cols[c].conv == MS_OT_STR)
				jsonw_str(w, ms_optab_str(t, r, c));
			else if (sp->cols[c].conv == MS_OT_INT)
				jsonw_int(w, (int64_t)ms_optab_num(t, r, c));
			else
				jsonw_double(w, ms_optab_num(t, r, c));
		}
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "size", (int64_t)t->rows);
	jsonw_obj_end(w);
}

void out_json_ms_optabs(struct jsonw *w, const struct ms_optabs *a, int first, int last)
{
	jsonw_obj_begin(w);
	for (int k = first; k <= last; k++) {
		jsonw_key(w, ms_ot_specs[k].name);
		if (a->rc[k] == NNS_OK)
			out_json_ms_optab(w, &a->t[k]);
		else
			jsonw_null(w);
	}
	jsonw_key(w, "errors");
	jsonw_arr_begin(w);
	for (int k = first; k <= last; k++)
		if (a->rc[k] != NNS_OK && a->rc[k] != NNS_ENOTFOUND)
			jsonw_str(w, a->err[k].msg);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}
