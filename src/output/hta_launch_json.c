/*
 * hta_launch_json.c - the per-worker documents of HTA's launch-side
 * analyses (src/analysis/hta_launch.h): launches.json, annotations.json,
 * sequences.json (rows of out_views, views.c), and distributed.json's
 * "stragglers" list. Their row tables (outlier launches, launch summaries,
 * annotations and their kernels, sequence operators and patterns,
 * stragglers) are the schema's (schema_views.c, schema_hta.c); this file
 * writes the documents around them. Keys and units: docs/HTA.md.
 *
 * Each writer needs its pass of the profile (run on first use,
 * analysis/an_hta.h); when that failed (out of memory) the document is
 * {"error": "..."}. Times are microseconds (double); ts_us are
 * absolute like overview.json's steps, with trace_start_us to make them relative.
 */
#include "analysis/an_hta.h"
#include "output/output.h"
#include "output/schema.h"

#define HTA_POINTS_MAX 2000 /* scatter points written (evenly strided) */

/* the document of an analysis that failed (out of memory) */
static void write_error(struct jsonw *w, const struct nns_err *err)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "error", err->msg[0] ? err->msg : "analysis failed");
	jsonw_obj_end(w);
}

/* ---- launches.json ------------------------------------------------------ */

static void dist_json(struct jsonw *w, const char *key, const struct hta_dist *d)
{
	jsonw_key(w, key);
	sc_json_row(w, &sc_launch_dist, d, NULL, NULL);
}

static void list_json(struct jsonw *w, const char *key, const struct an_profile *p,
		      const struct hta_launches *l, const uint32_t *idx, size_t n)
{
	struct sc_ctx x = {p->m, 0, p};
	size_t i;

	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (i = 0; i < n; i++) {
		struct hta_launch_row r;

		hta_launch_row_at(p->m, l, idx[i], &r);
		x.index = i;
		sc_json_row(w, &sc_launches, &r, &x, NULL);
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
		struct hta_launch_row row, *r = &row;

		hta_launch_row_at(p->m, l, i, &row);
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

/* CPU annotations: name, count, sum_us and mean_us */
static const char *const cpu_anno_cols[] = {"name", "count", "sum_us", "mean_us", NULL};

static void anno_rows(struct jsonw *w, const char *key, const struct an_profile *p,
		      const struct hta_annotations *a, const struct hta_anno_row *rows, size_t n,
		      int gpu)
{
	struct sc_ctx x = {p->m, 0, NULL};

	if (!gpu) {
		sc_json_rows(w, key, &sc_annotations, rows, n, &x, cpu_anno_cols);
		return;
	}
	/* GPU annotations: every column, then the kernels under each */
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		const struct hta_anno_row *r = &rows[i];

		x.index = i;
		jsonw_obj_begin(w);
		sc_json_fields(w, &sc_annotations, r, &x, NULL);
		/* no offset into an empty (NULL) list */
		sc_json_rows(w, "kernels", &sc_anno_kernels,
			     r->nkernels ? a->kernels.v + r->first_kernel : NULL, r->nkernels, &x,
			     NULL);
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

/* a pattern: its operator, its kernels' names (a list), then its figures */
static void pattern_json(struct jsonw *w, const struct an_profile *p, const struct hta_sequences *s,
			 const struct hta_seq_pattern *x)
{
	static const char *const head[] = {"op", NULL};
	static const char *const tail[] = {"count", "gpu_time_us", "cpu_time_us", NULL};
	struct sc_ctx cx = {p->m, 0, NULL};

	jsonw_obj_begin(w);
	sc_json_fields(w, &sc_seq_patterns, x, &cx, head);
	jsonw_key(w, "kernels");
	jsonw_arr_begin(w);
	for (uint32_t k = 0; k < x->len; k++)
		jsonw_str(w, out_str(p->m, s->names.v[x->first + k]));
	jsonw_arr_end(w);
	sc_json_fields(w, &sc_seq_patterns, x, &cx, tail);
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
		sc_json_fields(w, &sc_seq_ops, o, NULL, NULL);
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

void hta_dist_stragglers_json(struct jsonw *w, const struct an_dist *d)
{
	struct sc_ctx x = {NULL, 0, d};

	sc_json_rows(w, "stragglers", &sc_stragglers, d->stragglers, d->nstragglers, &x, NULL);
}
