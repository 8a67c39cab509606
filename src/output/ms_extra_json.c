/*
 * ms_extra_json.c - writes the MindSpore FLOPs, by-op detail, AICPU and
 * dynamic-shape documents (shapes in ms_extra_json.h) from a device's
 * ms_profile.
 */
#include "output/ms_extra_json.h"
#include "output/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void errors(struct jsonw *w, int rc, const struct nns_err *err)
{
	jsonw_key(w, "errors");
	jsonw_arr_begin(w);
	if (rc)
		jsonw_str(w, err->msg);
	jsonw_arr_end(w);
}

/* ---- FLOPs ------------------------------------------------------------- */

void out_json_ms_flops(struct jsonw *w, const struct ms_profile *mp)
{
	const struct ms_flops *f = &mp->flops;
	size_t i;

	jsonw_obj_begin(w);
	if (f->has_summary) {
		jsonw_key(w, "summary");
		sc_json_row(w, &sc_ms_flops_summary, &f->sum, NULL, NULL);
	} else {
		jsonw_knull(w, "summary");
	}
	sc_json_rows(w, "ops", &sc_ms_flops_ops, f->ops.v, f->ops.n, &(struct sc_ctx){.aux = f},
		     NULL);
	if (f->has_scope) {
		jsonw_key(w, "scope");
		jsonw_obj_begin(w);
		if (f->max_scope_num >= 0)
			jsonw_kint(w, "max_scope_num", f->max_scope_num);
		else
			jsonw_knull(w, "max_scope_num");
		jsonw_key(w, "nodes");
		jsonw_arr_begin(w);
		for (i = 0; i < f->scope_nodes.n; i++)
			jsonw_str(w, ms_flops_str(f, f->scope_nodes.v[i]));
		jsonw_arr_end(w);
		jsonw_key(w, "links");
		jsonw_arr_begin(w);
		for (i = 0; i < f->links.n; i++) {
			jsonw_obj_begin(w);
			jsonw_kstr(w, "source", ms_flops_str(f, f->links.v[i].source));
			jsonw_kstr(w, "target", ms_flops_str(f, f->links.v[i].target));
			jsonw_kdouble(w, "mflops", f->links.v[i].mflops);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	} else {
		jsonw_knull(w, "scope");
	}
	errors(w, mp->flops_rc, &mp->flops_err);
	jsonw_obj_end(w);
}

/* ---- by-op detail ------------------------------------------------------ */

static void op_info(struct jsonw *w, const struct ms_fw *fw, int64_t idx)
{
	const struct ms_opinfo *o;
	uint32_t t;

	if (idx < 0 || !fw->ops.v[idx].has) {
		jsonw_knull(w, "op_info");
		return;
	}
	o = &fw->ops.v[idx];
	jsonw_key(w, "op_info");
	jsonw_obj_begin(w);
	for (t = o->t0; t < o->t0 + o->nt; t++) {
		const struct ms_tensor *x = &fw->t.v[t];
		uint32_t k;

		jsonw_key(w, ms_fw_str(fw, x->key));
		jsonw_obj_begin(w);
		jsonw_kstr(w, "format", ms_fw_str(fw, x->format));
		jsonw_kstr(w, "data_type", ms_fw_str(fw, x->dtype));
		if (x->shape_null) {
			jsonw_knull(w, "shape");
		} else {
			jsonw_key(w, "shape");
			jsonw_arr_begin(w);
			for (k = 0; k < x->ndim; k++)
				jsonw_int(w, fw->dims.v[x->dim0 + k]);
			jsonw_arr_end(w);
		}
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}

void out_json_ms_op_detail(struct jsonw *w, const struct ms_profile *mp)
{
	const struct ms_opd *d = &mp->opd;
	size_t i;

	jsonw_obj_begin(w);
	jsonw_key(w, "by_op");
	jsonw_arr_begin(w);
	for (i = 0; d->has && i < d->rows.n; i++) {
		const struct ms_opd_row *r = &d->rows.v[i];
		const struct ms_ad_row *a = &d->ad.rows.v[r->ad];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "op_name", a->op_name);
		jsonw_kstr(w, "kernel_name", a->kernel_name);
		jsonw_kstr(w, "kernel_type", a->kernel_type);
		jsonw_kdouble(w, "avg_execution_time_us", a->avg_execution_time_us);
		jsonw_kint(w, "execution_frequency", a->execution_frequency);
		jsonw_kdouble(w, "cube_mflops", r->mflops_cube);
		jsonw_kdouble(w, "cube_gflops_per_s", r->gflops_cube);
		jsonw_kdouble(w, "vector_mflops", r->mflops_vec);
		jsonw_kdouble(w, "vector_gflops_per_s", r->gflops_vec);
		op_info(w, &d->fw, r->info);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	errors(w, mp->opd_rc, &mp->opd_err);
	jsonw_obj_end(w);
}

/* ---- AICPU ------------------------------------------------------------- */

void out_json_ms_aicpu(struct jsonw *w, const struct ms_profile *mp)
{
	const struct ms_aicpu *a = &mp->aicpu;
	struct sc_ctx x = {.aux = a};
	double total = 0;
	size_t i;

	jsonw_obj_begin(w);
	if (a->source == MS_AICPU_CSV)
		jsonw_kstr(w, "source", "aicpu_intermediate");
	else if (a->source == MS_AICPU_TXT)
		jsonw_kstr(w, "source", "output_data_preprocess_aicpu");
	else
		jsonw_knull(w, "source");
	for (i = 0; i < a->calls.n; i++)
		total += a->calls.v[i].total_ms;
	/* a float sum: rounded to the ns the file can hold (9.694, not 9.693999999999999) */
	jsonw_kdouble(w, "total_time_ms", a->source ? round(total * 1e6) / 1e6 : NAN);
	jsonw_kint(w, "calls", (int64_t)a->calls.n);
	sc_json_rows(w, "by_type", &sc_ms_aicpu_types, a->types.v, a->types.n, &x, NULL);
	sc_json_rows(w, "by_op", &sc_ms_aicpu_ops, a->ops.v, a->ops.n, &x, NULL);
	errors(w, mp->aicpu_rc, &mp->aicpu_err);
	jsonw_obj_end(w);
}

/* ---- dynamic shape ------------------------------------------------------ */

static void series(struct jsonw *w, const char *key, const struct ms_ds *d,
		   const struct ms_ds_series *x, int kernel)
{
	size_t ns = x->steps.n, nt = x->types.n, i, t, k;
	size_t *start = NULL, *order = NULL;
	double *tot = NULL, *avg = NULL;
	long *calls = NULL;

	if (!ns) {
		jsonw_knull(w, key);
		return;
	}
	/* cells grouped by type (counting sort), then one dense row per type */
	start = calloc(nt + 1, sizeof(*start));
	order = malloc((x->cells.n + 1) * sizeof(*order));
	tot = malloc(ns * sizeof(*tot));
	avg = malloc(ns * sizeof(*avg));
	calls = malloc(ns * sizeof(*calls));
	if (!start || !order || !tot || !avg || !calls) {
		jsonw_knull(w, key); /* out of memory: no chart */
		goto out;
	}
	for (i = 0; i < x->cells.n; i++)
		start[x->cells.v[i].type + 1]++;
	for (t = 0; t < nt; t++)
		start[t + 1] += start[t];
	{
		size_t *fill = calloc(nt + 1, sizeof(*fill));

		if (!fill) {
			jsonw_knull(w, key);
			goto out;
		}
		for (i = 0; i < x->cells.n; i++) {
			uint32_t ty = x->cells.v[i].type;

			order[start[ty] + fill[ty]++] = i;
		}
		free(fill);
	}
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (i = 0; i < ns; i++)
		jsonw_int(w, x->steps.v[i]);
	jsonw_arr_end(w);
	jsonw_key(w, "default_types");
	jsonw_arr_begin(w);
	for (i = 0, k = 0; i < x->cells.n && k < 3 && x->cells.v[i].step == 0; i++, k++)
		jsonw_str(w, ms_ds_str(d, x->types.v[x->cells.v[i].type]));
	jsonw_arr_end(w);
	jsonw_key(w, "series");
	jsonw_arr_begin(w);
	for (t = 0; t < nt; t++) {
		for (i = 0; i < ns; i++) {
			tot[i] = avg[i] = 0;
			calls[i] = 0;
		}
		for (i = start[t]; i < start[t + 1]; i++) {
			const struct ms_ds_cell *c = &x->cells.v[order[i]];

			tot[c->step] += c->total_us;
			calls[c->step] += c->calls;
			avg[c->step] = c->avg_us;
		}
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", ms_ds_str(d, x->types.v[t]));
		if (kernel)
			jsonw_kstr(w, "op_full_name", ms_ds_str(d, x->full_names.v[t]));
		jsonw_key(w, "total_us");
		jsonw_arr_begin(w);
		for (i = 0; i < ns; i++)
			jsonw_double(w, tot[i]);
		jsonw_arr_end(w);
		jsonw_key(w, "calls");
		jsonw_arr_begin(w);
		for (i = 0; i < ns; i++)
			jsonw_int(w, calls[i]);
		jsonw_arr_end(w);
		jsonw_key(w, "avg_us");
		jsonw_arr_begin(w);
		for (i = 0; i < ns; i++)
			jsonw_double(w, avg[i]);
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
out:
	free(start);
	free(order);
	free(tot);
	free(avg);
	free(calls);
}

void out_json_ms_dynshape(struct jsonw *w, const struct ms_profile *mp)
{
	const struct ms_ds *d = &mp->ds;
	const struct sc_ctx x = {.aux = d};
	size_t i;
	uint32_t k;

	jsonw_obj_begin(w);
	jsonw_key(w, "operators");
	jsonw_arr_begin(w);
	for (i = 0; i < d->ops.n; i++) {
		const struct ms_ds_op *o = &d->ops.v[i];

		jsonw_obj_begin(w);
		sc_json_fields(w, &sc_ms_ds_ops, o, &x, NULL);
		jsonw_key(w, "shapes");
		jsonw_arr_begin(w);
		for (k = 0; k < o->nshape; k++)
			jsonw_str(w, ms_ds_str(d, d->shapes.v[o->shape0 + k]));
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	sc_json_rows(w, "kernels", &sc_ms_ds_kernels, d->kernels.v, d->kernels.n, &x, NULL);
	series(w, "operator_types", d, &d->op_types, 0);
	series(w, "kernel_types", d, &d->kernel_types, 1);
	errors(w, mp->ds_rc, &mp->ds_err);
	jsonw_obj_end(w);
}
