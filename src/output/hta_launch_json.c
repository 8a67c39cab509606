/*
 * hta_launch_json.c - the per-worker documents of HTA's launch-side
 * analyses (src/analysis/hta_launch.h): launches.json, annotations.json,
 * sequences.json (rows of out_views, views.c), and the HTA fields of
 * distributed.json (overlap_pct, step_time_us, late_start per worker; the
 * "stragglers" list). Keys and units: docs/HTA.md.
 *
 * Each writer needs its pass of the profile (run on first use,
 * analysis/an_hta.h); when that failed (out of memory) the document is
 * {"error": "..."}. Times are microseconds (double); ts_us are
 * absolute like overview.json's steps, with trace_start_us to make them relative.
 */
#include "analysis/an_hta.h"
#include "output/output.h"
#include "output/schema.h"

#include <string.h>

#define HTA_POINTS_MAX 2000 /* scatter points written (evenly strided) */

/* the document of an analysis that failed (out of memory) */
static void write_error(struct jsonw *w, const struct nns_err *err)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "error", err->msg[0] ? err->msg : "analysis failed");
	jsonw_obj_end(w);
}

static void knum_or_null(struct jsonw *w, const char *key, double v, double scale)
{
	if (v < 0)
		jsonw_knull(w, key);
	else
		jsonw_kdouble(w, key, v * scale);
}

/* ---- launches.json ------------------------------------------------------ */

static void dist_json(struct jsonw *w, const char *key, const struct hta_dist *d)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_kint(w, "count", d->n);
	jsonw_kdouble(w, "sum", out_us(d->sum));
	jsonw_kdouble(w, "mean", d->mean / 1000.0);
	jsonw_kdouble(w, "min", out_us(d->min));
	jsonw_kdouble(w, "p50", d->p50 / 1000.0);
	jsonw_kdouble(w, "p90", d->p90 / 1000.0);
	jsonw_kdouble(w, "p99", d->p99 / 1000.0);
	jsonw_kdouble(w, "max", out_us(d->max));
	jsonw_obj_end(w);
}

static void list_json(struct jsonw *w, const char *key, const struct an_profile *p,
		      const struct hta_launches *l, const uint32_t *idx, size_t n)
{
	struct sc_ctx x = {p->m, 0, p};
	size_t i;

	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (i = 0; i < n; i++) {
		x.index = i;
		sc_json_row(w, &sc_launches, &l->rows.v[idx[i]], &x, NULL);
	}
	jsonw_arr_end(w);
}

void out_json_hta_launches(struct jsonw *w, const struct an_profile *p)
{
	const struct hta_launches *l;
	const struct an_hta *h;
	size_t i, stride;
	struct nns_err err;

	nns_err_clear(&err);
	if (!(h = an_profile_hta(p, AN_PASS_LAUNCHES, &err))) {
		write_error(w, &err);
		return;
	}
	l = &h->launches;
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "trace_start_us", out_us(p->m ? p->m->min_ts : 0));
	jsonw_key(w, "cutoffs");
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "runtime_us", out_us(l->runtime_cutoff));
	jsonw_kdouble(w, "launch_delay_us", out_us(l->launch_delay_cutoff));
	jsonw_obj_end(w);
	/* the two delays, named (docs/HTA.md) */
	jsonw_key(w, "definitions");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "delay",
		   "HTA launch delay: device start - (launch ts + launch dur), "
		   "clipped at 0");
	jsonw_kstr(w, "start_delay", "nnscope: device start - launch ts");
	jsonw_obj_end(w);
	jsonw_kint(w, "launches", (int64_t)l->rows.n);
	jsonw_kint(w, "started_before_return", l->n_before_return);
	jsonw_kint(w, "device_unlinked", l->device_unlinked);
	jsonw_kint(w, "graph_launches_skipped", l->graph_launches_skipped);
	jsonw_key(w, "counts");
	jsonw_obj_begin(w);
	jsonw_kint(w, "short_kernels", l->n_short);
	jsonw_kint(w, "runtime_outliers", l->n_runtime_outliers);
	jsonw_kint(w, "launch_delay_outliers", l->n_delay_outliers);
	jsonw_obj_end(w);
	jsonw_key(w, "summary_us");
	jsonw_obj_begin(w);
	dist_json(w, "cpu", &l->cpu);
	dist_json(w, "gpu", &l->gpu);
	dist_json(w, "delay", &l->delay);
	dist_json(w, "start_delay", &l->start_delay);
	jsonw_obj_end(w);
	jsonw_key(w, "delay_histogram");
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "lo_us", out_us(l->hist_lo));
	jsonw_kdouble(w, "width_us", out_us(l->hist_width));
	jsonw_key(w, "counts");
	jsonw_arr_begin(w);
	for (i = 0; l->rows.n && i < HTA_DELAY_BINS; i++)
		jsonw_int(w, l->hist[i]);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	/* [launch ts_us, delay_us, cpu_us, gpu_us], evenly strided */
	jsonw_key(w, "points");
	jsonw_arr_begin(w);
	stride = l->rows.n > HTA_POINTS_MAX ? (l->rows.n + HTA_POINTS_MAX - 1) / HTA_POINTS_MAX : 1;
	for (i = 0; i < l->rows.n; i += stride) {
		const struct hta_launch_row *r = &l->rows.v[i];
		jsonw_arr_begin(w);
		jsonw_double(w, out_us(p->m->events.v[r->launch].ts));
		jsonw_double(w, out_us(r->delay));
		jsonw_double(w, out_us(r->cpu_dur));
		jsonw_double(w, out_us(r->gpu_dur));
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	list_json(w, "short_kernels", p, l, l->top_short.v, l->top_short.n);
	list_json(w, "runtime_outliers", p, l, l->top_runtime.v, l->top_runtime.n);
	list_json(w, "launch_delay_outliers", p, l, l->top_delay.v, l->top_delay.n);
	jsonw_obj_end(w);
}

/* ---- annotations.json --------------------------------------------------- */

static void anno_rows(struct jsonw *w, const char *key, const struct an_profile *p,
		      const struct hta_annotations *a, const struct hta_anno_row *rows, size_t n,
		      int gpu)
{
	size_t i, k;

	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (i = 0; i < n; i++) {
		const struct hta_anno_row *r = &rows[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", out_str(p->m, r->name));
		jsonw_kint(w, "count", r->count);
		jsonw_kdouble(w, "sum_us", out_us(r->sum));
		jsonw_kdouble(w, "mean_us", r->count ? out_us(r->sum) / (double)r->count : 0.0);
		if (gpu) {
			jsonw_kint(w, "kernel_count", r->kernel_count);
			jsonw_kdouble(w, "kernel_sum_us", out_us(r->kernel_sum));
			jsonw_key(w, "kernels");
			jsonw_arr_begin(w);
			for (k = r->first_kernel; k < r->first_kernel + r->nkernels; k++) {
				const struct hta_anno_kernel *x = &a->kernels.v[k];
				jsonw_obj_begin(w);
				jsonw_kstr(w, "name", out_str(p->m, x->name));
				jsonw_kint(w, "count", x->count);
				jsonw_kdouble(w, "sum_us", out_us(x->sum));
				jsonw_obj_end(w);
			}
			jsonw_arr_end(w);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void out_json_hta_annotations(struct jsonw *w, const struct an_profile *p)
{
	const struct hta_annotations *a;
	const struct an_hta *h;
	struct nns_err err;

	nns_err_clear(&err);
	if (!(h = an_profile_hta(p, AN_PASS_ANNOTATIONS, &err))) {
		write_error(w, &err);
		return;
	}
	a = &h->annotations;
	jsonw_obj_begin(w);
	anno_rows(w, "cpu", p, a, a->cpu.v, a->cpu.n, 0);
	jsonw_kint(w, "cpu_more", a->cpu_more);
	anno_rows(w, "gpu", p, a, a->gpu.v, a->gpu.n, 1);
	jsonw_kint(w, "gpu_more", a->gpu_more);
	jsonw_kint(w, "device_events", a->device_events);
	jsonw_kint(w, "device_covered", a->device_covered);
	jsonw_obj_end(w);
}

/* ---- sequences.json ----------------------------------------------------- */

static void pattern_json(struct jsonw *w, const struct an_profile *p, const struct hta_sequences *s,
			 const struct hta_seq_pattern *x)
{
	const struct model *m = p->m;
	uint32_t k;

	jsonw_obj_begin(w);
	jsonw_kstr(w, "op", out_str(m, x->op));
	jsonw_key(w, "kernels");
	jsonw_arr_begin(w);
	for (k = 0; k < x->len; k++)
		jsonw_str(w, out_str(m, s->names.v[x->first + k]));
	jsonw_arr_end(w);
	jsonw_kint(w, "count", x->count);
	jsonw_kdouble(w, "gpu_time_us", out_us(x->gpu_time));
	jsonw_kdouble(w, "cpu_time_us", out_us(x->cpu_time));
	jsonw_obj_end(w);
}

void out_json_hta_sequences(struct jsonw *w, const struct an_profile *p)
{
	const struct hta_sequences *s;
	const struct an_hta *h;
	size_t i, k;
	struct nns_err err;

	nns_err_clear(&err);
	if (!(h = an_profile_hta(p, AN_PASS_SEQUENCES, &err))) {
		write_error(w, &err);
		return;
	}
	s = &h->sequences;
	jsonw_obj_begin(w);
	jsonw_kint(w, "min_pattern_len", (int64_t)s->min_len);
	jsonw_kint(w, "top_k", (int64_t)s->top_k);
	jsonw_key(w, "ops");
	jsonw_arr_begin(w);
	for (i = 0; i < s->ops.n; i++) {
		const struct hta_seq_op *o = &s->ops.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "operator", o->query);
		jsonw_kbool(w, "exact", o->exact);
		jsonw_kint(w, "launches", o->launches);
		jsonw_kint(w, "roots", o->roots);
		jsonw_kint(w, "patterns_total", o->patterns_total);
		jsonw_key(w, "patterns");
		jsonw_arr_begin(w);
		for (k = o->first; k < o->first + o->n; k++)
			pattern_json(w, p, s, &s->patterns.v[k]);
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

/* ---- distributed.json fields -------------------------------------------- */

void hta_dist_worker_json(struct jsonw *w, const struct an_dist_worker *x)
{
	knum_or_null(w, "overlap_pct", x->overlap_pct, 1.0);
	knum_or_null(w, "step_time_us", x->step_time, 1e-3);
	knum_or_null(w, "late_start", x->late_start, 1.0);
}

void hta_dist_stragglers_json(struct jsonw *w, const struct an_dist *d)
{
	size_t i;

	jsonw_key(w, "stragglers");
	jsonw_arr_begin(w);
	for (i = 0; i < d->nstragglers; i++) {
		const struct hta_straggler *s = &d->stragglers[i];
		int step = !strcmp(s->metric, "step_time");
		double scale = step ? 1e-3 : 1.0;

		jsonw_obj_begin(w);
		jsonw_kstr(w, "worker",
			   s->worker < d->workers.n ? d->workers.v[s->worker].name : "");
		jsonw_kstr(w, "metric", s->metric);
		jsonw_kstr(w, "unit", step ? "us" : "step_fraction");
		jsonw_kdouble(w, "value", s->value * scale);
		jsonw_kdouble(w, "median", s->median * scale);
		jsonw_kdouble(w, "excess", s->excess);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}
