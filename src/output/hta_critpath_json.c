/*
 * hta_critpath_json.c - critical_path.json (the critical path of one step,
 * src/analysis/hta_critpath.h) and the overlaid Chrome trace of that step
 * (HTA's overlay_critical_path_analysis: events on the path carry
 * args "critical": 1, path edges are flow arrows).
 *
 * The row tables (segments, arrows, top events, the trace diff's rows) are
 * the schema's (schema_hta.c); this file writes the document around them,
 * the graph's summary objects and the overlay, which is a Chrome trace.
 * Keys and units: docs/HTA.md. Times are absolute microseconds
 * (model ns / 1000) like overview.json's steps; the trace view subtracts
 * /api/trace/meta's origin_ns.
 */
#include "analysis/an_hta.h"
#include "output/outfile.h"
#include "output/output.h"
#include "output/schema.h"

#include <stdlib.h>
#include <string.h>

#define SEG_CAP 2000	/* segments written; the rest counted */
#define IDS_CAP 50000	/* critical event ids written */
#define TOP_N 25	/* top events by time on the path */
#define ARROW_CAP 20000 /* delay / wait edges written for the trace overlay */

/* ---- top events: path weight summed by (name, class) ------------------------- */

static int top_name_cmp(const void *x, const void *y)
{
	const struct sc_critpath_top *a = x, *b = y;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return (a->cls > b->cls) - (a->cls < b->cls);
}

static int top_w_cmp(const void *x, const void *y)
{
	const struct sc_critpath_top *a = x, *b = y;
	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return top_name_cmp(x, y);
}

/* "top_events": at most TOP_N rows of sc_critpath_top, heaviest first */
static void write_top(struct jsonw *w, const struct model *m, const struct hcp_result *r)
{
	struct sc_critpath_top *t = NULL;
	struct sc_ctx x = {m, 0, r};
	size_t i, n = 0;

	if (r->path.n)
		t = malloc(r->path.n * sizeof(*t));
	for (i = 0; t && i < r->path.n; i++) {
		const struct hcp_seg *s = &r->path.v[i];
		if (s->weight <= 0 || s->ev >= m->events.n)
			continue;
		t[n++] = (struct sc_critpath_top){m->events.v[s->ev].name, s->cls,
						  m->events.v[s->ev].kind, s->weight, 1};
	}
	if (n) {
		size_t j = 0;
		qsort(t, n, sizeof(*t), top_name_cmp);
		for (i = 1; i < n; i++) {
			if (t[i].name == t[j].name && t[i].cls == t[j].cls) {
				t[j].w += t[i].w;
				t[j].n++;
			} else {
				t[++j] = t[i];
			}
		}
		n = j + 1;
		qsort(t, n, sizeof(*t), top_w_cmp);
	}
	sc_json_rows(w, "top_events", &sc_critpath_top, t, n < TOP_N ? n : TOP_N, &x, NULL);
	free(t);
}

/* ---- the document ------------------------------------------------------------ */

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* Distinct events on the path (attributed, source and destination). Owned
 * by the caller (free); *n 0 and NULL when none or out of memory. */
static uint32_t *path_ids(const struct hcp_result *r, size_t *n)
{
	uint32_t *v = NULL;
	size_t i, k = 0;

	*n = 0;
	if (!r->path.n || !(v = malloc(r->path.n * 3 * sizeof(*v))))
		return NULL;
	for (i = 0; i < r->path.n; i++) {
		const struct hcp_seg *s = &r->path.v[i];
		v[k++] = s->ev;
		/* span edges belong to their event; delays and waits to both ends */
		if (s->type != HCP_E_OP) {
			v[k++] = s->src_ev;
			v[k++] = s->dst_ev;
		}
	}
	qsort(v, k, sizeof(*v), u32_cmp);
	for (i = 0; i < k; i++)
		if (*n == 0 || v[*n - 1] != v[i])
			v[(*n)++] = v[i];
	return v;
}

/* "breakdown" (path time by class) and "graph" (its size, edges by type) */
static void write_graph(struct jsonw *w, const struct hcp_result *r)
{
	size_t i;

	jsonw_key(w, "breakdown");
	jsonw_obj_begin(w);
	for (i = 0; i < HCP_C__N; i++)
		jsonw_kdouble(w, hcp_class_keys[i], out_us(r->by_class[i]));
	jsonw_obj_end(w);
	jsonw_key(w, "graph");
	jsonw_obj_begin(w);
	jsonw_kint(w, "nodes", r->nodes);
	jsonw_kint(w, "edges", r->edges);
	jsonw_key(w, "edges_by_type");
	jsonw_obj_begin(w);
	for (i = 0; i < HCP_E__N; i++)
		jsonw_kint(w, hcp_edge_names[i], r->edges_by_type[i]);
	jsonw_obj_end(w);
	jsonw_kint(w, "clamped_edges", r->clamped);
	jsonw_kint(w, "sync_records", r->sync_events);
	jsonw_kint(w, "sync_fallbacks", r->sync_fallbacks);
	jsonw_obj_end(w);
}

/* "segments": the path's edges, at most SEG_CAP */
static void write_segments(struct jsonw *w, const struct model *m, const struct hcp_result *r)
{
	struct sc_ctx x = {m, 0, NULL};

	jsonw_kint(w, "segments_total", (int64_t)r->path.n + r->path_dropped);
	jsonw_kbool(w, "segments_truncated", r->path.n + (size_t)r->path_dropped > SEG_CAP);
	sc_json_rows(w, "segments", &sc_critpath_segments, r->path.v,
		     r->path.n < SEG_CAP ? r->path.n : SEG_CAP, &x, NULL);
}

/* "arrows": every edge between two events (delays, waits, dependencies),
 * for the trace view's arrows (the segments are capped); then the
 * "critical_ids" of the events on the path */
static void write_arrows_ids(struct jsonw *w, const struct hcp_result *r)
{
	static const char *const arrow_cols[] = {"edge",    "src_id", "dst_id",
						 "from_us", "to_us",  NULL};
	size_t i, nid = 0;
	uint32_t *ids;

	jsonw_key(w, "arrows");
	jsonw_arr_begin(w);
	for (i = 0; i < r->path.n && nid < ARROW_CAP; i++) {
		const struct hcp_seg *s = &r->path.v[i];

		if (s->type == HCP_E_OP || s->src_ev == s->dst_ev)
			continue;
		nid++;
		sc_json_row(w, &sc_critpath_segments, s, NULL, arrow_cols);
	}
	jsonw_arr_end(w);
	ids = path_ids(r, &nid);
	jsonw_kbool(w, "critical_ids_truncated", nid > IDS_CAP);
	jsonw_key(w, "critical_ids");
	jsonw_arr_begin(w);
	for (i = 0; i < nid && i < IDS_CAP; i++)
		jsonw_int(w, ids[i]);
	jsonw_arr_end(w);
	free(ids);
}

static void write_result(struct jsonw *w, const struct an_profile *p, const struct hcp_result *r)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_kbool(w, "ok", r->ok);
	if (r->ok)
		jsonw_knull(w, "reason");
	else
		jsonw_kstr(w, "reason", r->reason);
	jsonw_kstr(w, "step", r->step);
	jsonw_kint(w, "step_index", (int64_t)r->step_index);
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (i = 0; i < p->overview.steps.n; i++)
		jsonw_str(w, p->overview.steps.v[i].name);
	jsonw_arr_end(w);
	jsonw_kdouble(w, "step_start_us", out_us(r->step_start));
	jsonw_kdouble(w, "step_end_us", out_us(r->step_end));
	jsonw_kdouble(w, "step_us", out_us(r->step_end - r->step_start));
	jsonw_kdouble(w, "total_us", out_us(r->total));
	jsonw_kdouble(w, "span_us", out_us(r->span));
	jsonw_kdouble(w, "path_start_us", out_us(r->path_start));
	jsonw_kdouble(w, "path_end_us", out_us(r->path_end));
	write_graph(w, r);
	write_top(w, p->m, r);
	write_segments(w, p->m, r);
	write_arrows_ids(w, r);
	jsonw_obj_end(w);
}

/* The path of the step p->opts.critpath_step names when the trace has it,
 * else of the first step; NULL (err set) when its pass failed. */
static const struct hcp_result *critpath(const struct an_profile *p, struct nns_err *err)
{
	const char *step = p->opts.critpath_step;
	const struct an_hta *h;

	if (step && *step) {
		if (!(h = an_profile_hta(p, AN_PASS_CRITPATH_STEP, err)))
			return NULL;
		if (h->critpath_step.step[0])
			return &h->critpath_step;
	}
	h = an_profile_hta(p, AN_PASS_CRITPATH, err);
	return h ? &h->critpath : NULL;
}

void out_json_critical_path(struct jsonw *w, const struct an_profile *p)
{
	const struct hcp_result *r;
	struct nns_err err;

	nns_err_clear(&err);
	if (!(r = critpath(p, &err))) {
		jsonw_obj_begin(w);
		jsonw_kbool(w, "ok", 0);
		jsonw_kstr(w, "reason", err.msg);
		jsonw_obj_end(w);
		return;
	}
	write_result(w, p, r);
}

/* ---- the overlaid Chrome trace ------------------------------------------------ */

/* A pid/tid text as a number when it is one (Chrome wants numbers), else
 * the text. */
static void id_member(struct jsonw *w, const char *key, const char *s)
{
	char *end;
	long long v;

	if (*s && ((*s >= '0' && *s <= '9') || *s == '-')) {
		v = strtoll(s, &end, 10);
		if (*end == '\0') {
			jsonw_kint(w, key, v);
			return;
		}
	}
	jsonw_kstr(w, key, s);
}

static void thread_members(struct jsonw *w, const struct model *m, uint32_t thread)
{
	const struct model_thread *t = &m->threads.v[thread];

	id_member(w, "pid", out_str(m, t->pid));
	id_member(w, "tid", out_str(m, t->tid));
}

/* One flow endpoint at node (ev, is_start); an end is drawn 1 us (at most
 * the event's duration) inside the event so that the arrow binds to it. */
static void flow_point(struct jsonw *w, const struct model *m, const struct hcp_seg *s, int dst,
		       int64_t id)
{
	uint32_t ev = dst ? s->dst_ev : s->src_ev;
	const struct model_event *e = &m->events.v[ev];
	int is_start = dst ? s->dst_is_start : s->src_is_start;
	int64_t ts = is_start ? e->ts : e->ts + e->dur - (e->dur < 1000 ? e->dur : 1000);

	jsonw_obj_begin(w);
	jsonw_kstr(w, "ph", dst ? "f" : "s");
	if (dst)
		jsonw_kstr(w, "bp", "e");
	jsonw_kint(w, "id", id);
	jsonw_kstr(w, "name", "critical_path");
	jsonw_kstr(w, "cat", hcp_edge_names[s->type]);
	thread_members(w, m, e->thread);
	jsonw_kdouble(w, "ts", out_us(ts));
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "weight", out_us(s->weight));
	jsonw_kint(w, "critical", 1);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

/* The overlay holds the events that meet [step start, max(step end, path
 * end)). */
static int in_overlay(const struct hcp_result *r, const struct model_event *e)
{
	int64_t lo = r->step_start, hi = r->path_end > r->step_end ? r->path_end : r->step_end;

	return e->ts < hi && e->ts + e->dur >= lo;
}

static void write_overlay(struct jsonw *w, const struct an_profile *p, const struct hcp_result *r,
			  const uint8_t *critical, const uint8_t *used)
{
	const struct model *m = p->m;
	int64_t flow = 0;
	size_t i;

	jsonw_obj_begin(w);
	jsonw_kstr(w, "displayTimeUnit", "ms");
	jsonw_key(w, "nnscopeCriticalPath");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "step", r->step);
	jsonw_kdouble(w, "total_us", out_us(r->total));
	jsonw_kbool(w, "ok", r->ok);
	jsonw_obj_end(w);
	jsonw_key(w, "traceEvents");
	jsonw_arr_begin(w);
	for (i = 0; i < m->threads.n; i++) {
		if (!used[i] || m->threads.v[i].name == 0)
			continue;
		jsonw_obj_begin(w);
		jsonw_kstr(w, "ph", "M");
		jsonw_kstr(w, "name", "thread_name");
		thread_members(w, m, (uint32_t)i);
		jsonw_key(w, "args");
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", out_str(m, m->threads.v[i].name));
		jsonw_obj_end(w);
		jsonw_obj_end(w);
	}
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (!in_overlay(r, e))
			continue;
		jsonw_obj_begin(w);
		jsonw_kstr(w, "ph", "X");
		jsonw_kstr(w, "cat", model_kind_name(e->kind));
		jsonw_kstr(w, "name", out_str(m, e->name));
		thread_members(w, m, e->thread);
		jsonw_kdouble(w, "ts", out_us(e->ts));
		jsonw_kdouble(w, "dur", out_us(e->dur));
		jsonw_key(w, "args");
		jsonw_obj_begin(w);
		out_json_event_args(w, m, e);
		if (critical[i])
			jsonw_kint(w, "critical", 1);
		jsonw_obj_end(w);
		jsonw_obj_end(w);
	}
	/* HTA's default: launch, dependency and sync edges as arrows */
	for (i = 0; i < r->path.n; i++) {
		const struct hcp_seg *s = &r->path.v[i];
		if (s->type != HCP_E_LAUNCH && s->type != HCP_E_DEP && s->type != HCP_E_SYNC)
			continue;
		flow_point(w, m, s, 0, flow);
		flow_point(w, m, s, 1, flow);
		flow++;
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

struct doc_arg {
	const struct an_profile *p;
	const struct hcp_result *r;
	const uint8_t *critical, *used; /* overlay only */
};

static void result_fn(struct jsonw *w, const void *arg)
{
	const struct doc_arg *a = arg;

	write_result(w, a->p, a->r);
}

static void overlay_fn(struct jsonw *w, const void *arg)
{
	const struct doc_arg *a = arg;

	write_overlay(w, a->p, a->r, a->critical, a->used);
}

static int write_doc(const char *dir, const char *name, const struct an_profile *p,
		     const struct hcp_result *r, int overlay, struct nns_err *err)
{
	const struct model *m = p->m;
	struct doc_arg a = {p, r, NULL, NULL};
	uint8_t *critical = NULL, *used = NULL;
	uint32_t *ids = NULL;
	size_t nid = 0, i;
	int rc;

	if (!overlay)
		return out_json_file(dir, name, 3, result_fn, &a, err);
	critical = calloc(m->events.n + 1, 1);
	used = calloc(m->threads.n + 1, 1);
	if (!critical || !used) {
		rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
		goto out;
	}
	ids = path_ids(r, &nid);
	for (i = 0; i < nid; i++)
		critical[ids[i]] = 1;
	for (i = 0; i < m->events.n; i++)
		if (in_overlay(r, &m->events.v[i]))
			used[m->events.v[i].thread] = 1;
	a.critical = critical;
	a.used = used;
	rc = out_json_file(dir, name, 2, overlay_fn, &a, err);
out:
	free(critical);
	free(used);
	free(ids);
	return rc;
}

int out_write_critical_path(const char *dir, const char *trace_dir, const char *trace_name,
			    const struct an_profile *p, struct nns_err *err)
{
	const char *step = p->opts.critpath_step;
	const struct hcp_result *r;
	const struct an_hta *h;
	int rc;

	if (step && *step) {
		if (!(h = an_profile_hta(p, AN_PASS_CRITPATH_STEP, err)))
			return err->code;
		r = &h->critpath_step;
		if (!r->step[0]) /* the step asked for is not there */
			return nns_err_set(err, NNS_EINVAL, "--critical-path: %s", r->reason);
	} else {
		if (!(h = an_profile_hta(p, AN_PASS_CRITPATH, err)))
			return err->code;
		r = &h->critpath;
	}
	rc = write_doc(dir, "critical_path.json", p, r, 0, err);
	if (!rc && trace_dir)
		rc = write_doc(trace_dir, trace_name, p, r, 1, err);
	return rc;
}

/* ---- trace_diff members of the diff document ---------------------------------- */

#define TDIFF_CAP 5000 /* rows per table written; the rest counted */

static void tdiff_table(struct jsonw *w, const char *key, const struct hcp_tdiff_table *t)
{
	size_t i;

	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_key(w, "summary");
	jsonw_obj_begin(w);
	for (i = 0; i < HCP_CH__N; i++)
		jsonw_kint(w, hcp_change_names[i], t->changes[i]);
	jsonw_kint(w, "changed", t->changes[HCP_INCREASED] + t->changes[HCP_DECREASED]);
	jsonw_obj_end(w);
	jsonw_kint(w, "rows_total", (int64_t)t->rows.n);
	sc_json_rows(w, "rows", &sc_trace_diff, t->rows.v,
		     t->rows.n < TDIFF_CAP ? t->rows.n : TDIFF_CAP, NULL, NULL);
	jsonw_obj_end(w);
}

void out_json_trace_diff(struct jsonw *w, const struct an_diff *d)
{
	if (!d->hta)
		return;
	jsonw_key(w, "trace_diff");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "base_step", d->hta->base_step);
	jsonw_kstr(w, "exp_step", d->hta->exp_step);
	tdiff_table(w, "operators", &d->hta->ops);
	tdiff_table(w, "kernels", &d->hta->kernels);
	jsonw_obj_end(w);
}
