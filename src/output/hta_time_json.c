/*
 * hta_time_json.c - temporal.json, idle.json, queue.json and membw.json:
 * the writers of nnscope's HTA time analyses (analysis/hta_time.h). Each
 * needs its pass of the profile (run on first use, analysis/an_hta.h) and
 * writes one complete object, or {"error": "..."} when the pass failed; the
 * row tables and statistics objects are the schema's (schema_views.c,
 * schema_hta.c), the series are written here. Times in microseconds,
 * series times relative to the trace start (trace_start_us), bandwidths in GB/s; docs/HTA.md
 * describes every key.
 */
#include "analysis/an_hta.h"
#include "output/output.h"
#include "output/schema.h"

#include <stdio.h>

static void write_error(struct jsonw *w, const struct nns_err *err)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "error", err->msg[0] ? err->msg : "analysis failed");
	jsonw_obj_end(w);
}

/* [[t_us, value], ...], t relative to the trace start t0 */
static void write_series(struct jsonw *w, const char *key, const hta_series *s, int64_t t0)
{
	size_t i;

	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (i = 0; i < s->n; i++) {
		jsonw_arr_begin(w);
		jsonw_double(w, out_us(s->v[i].ts - t0));
		jsonw_double(w, s->v[i].value);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
}

void out_json_temporal(struct jsonw *w, const struct an_profile *p)
{
	struct nns_err err = {0};
	const struct an_hta *h = an_profile_hta(p, AN_PASS_TEMPORAL, &err);

	if (!h) {
		write_error(w, &err);
		return;
	}
	jsonw_obj_begin(w);
	sc_json_rows(w, "devices", &sc_temporal, h->temporal.devs.v, h->temporal.devs.n, NULL,
		     NULL);
	jsonw_obj_end(w);
}

void out_json_idle(struct jsonw *w, const struct an_profile *p)
{
	struct nns_err err = {0};
	const struct an_hta *h = an_profile_hta(p, AN_PASS_IDLE, &err);
	const struct hta_idle *t;
	size_t i;
	int k;

	if (!h) {
		write_error(w, &err);
		return;
	}
	t = &h->idle;
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "consecutive_kernel_delay_us", out_us(t->consecutive_kernel_delay));
	jsonw_key(w, "streams");
	jsonw_arr_begin(w);
	for (i = 0; i < t->streams.n; i++) {
		const struct hta_idle_stream *s = &t->streams.v[i];

		jsonw_obj_begin(w);
		sc_json_fields(w, &sc_idle, s, NULL, NULL);
		/* one row of gap statistics per kind, keyed by the kind */
		jsonw_key(w, "intervals");
		jsonw_obj_begin(w);
		for (k = 0; k < HTA_IDLE_N; k++) {
			jsonw_key(w, hta_idle_names[k]);
			sc_json_row(w, &sc_idle_gaps, &s->st[k], NULL, NULL);
		}
		jsonw_obj_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void out_json_queue(struct jsonw *w, const struct an_profile *p)
{
	struct nns_err err = {0};
	const struct an_hta *h = an_profile_hta(p, AN_PASS_QUEUE, &err);
	const struct hta_queue *t;
	struct sc_ctx x = {0};
	size_t i;

	if (!h) {
		write_error(w, &err);
		return;
	}
	t = &h->queue;
	x.m = p->m;
	x.aux = t;
	jsonw_obj_begin(w);
	jsonw_kint(w, "max_queue_length", t->max_queue_length);
	jsonw_kdouble(w, "trace_start_us", out_us(p->m->min_ts));
	jsonw_kdouble(w, "trace_us", out_us(t->trace_dur));
	jsonw_key(w, "streams");
	jsonw_arr_begin(w);
	for (i = 0; i < t->streams.n; i++) {
		const struct hta_queue_stream *s = &t->streams.v[i];

		jsonw_obj_begin(w);
		x.index = i;
		sc_json_fields(w, &sc_queue, s, &x, NULL);
		write_series(w, "series", &s->series, p->m->min_ts);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void out_json_membw(struct jsonw *w, const struct an_profile *p)
{
	struct nns_err err = {0};
	const struct an_hta *h = an_profile_hta(p, AN_PASS_MEMBW, &err);
	const struct hta_membw *t;
	size_t i;

	if (!h) {
		write_error(w, &err);
		return;
	}
	t = &h->membw;
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "trace_start_us", out_us(p->m->min_ts));
	jsonw_key(w, "kinds");
	jsonw_arr_begin(w);
	for (i = 0; i < t->kinds.n; i++) {
		const struct hta_membw_kind *k = &t->kinds.v[i];

		jsonw_obj_begin(w);
		sc_json_fields(w, &sc_membw, k, NULL, NULL);
		jsonw_key(w, "summary");
		sc_json_row(w, &sc_describe, &k->summary, NULL, NULL);
		write_series(w, "series", &k->series, p->m->min_ts);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}
