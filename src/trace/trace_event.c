/*
 * trace_event.c - one event in full (`/api/trace/event`) and the summary
 * of a box selection (`/api/trace/summary`).
 *
 * Event links: a runtime/driver launch links to its device events
 * ("kernel"); a device event to its launch ("launch") and the operator
 * enclosing the launch ("launcher"); a host event to the kernels launched
 * by launches nested inside it when it is an operator (at most 50,
 * "kernel"); any event on a
 * nesting track to its enclosing event ("parent"); fwdbwd flow partners
 * ("backward" from a forward op, "forward" from a backward op).
 *
 * Ownership: scratch is per call; nothing is kept.
 */
#include "output/output.h"
#include "trace/trace_internal.h"

#include <string.h>

/* ---- event --------------------------------------------------------------- */

static void link(const struct trace_index *ix, struct jsonw *w, const char *rel, uint32_t id)
{
	const struct model_event *e = &ix->m->events.v[id];
	uint32_t tr = ti_track_of(ix, id);

	jsonw_obj_begin(w);
	jsonw_kstr(w, "rel", rel);
	jsonw_kint(w, "id", id);
	jsonw_kstr(w, "name", model_str(ix->m, e->name));
	jsonw_kint(w, "track", tr == UINT32_MAX ? -1 : (int64_t)tr);
	jsonw_kint(w, "start", e->ts - ix->origin);
	jsonw_kint(w, "dur", e->dur);
	jsonw_obj_end(w);
}

/* Range [*lo, *hi) of ix->launched whose launch is `launch`. */
static void launched_by(const struct trace_index *ix, uint32_t launch, size_t *lo, size_t *hi)
{
	const struct model *m = ix->m;
	size_t a = 0, b = ix->nlaunched;

	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (model_launch_of(m, ix->launched[mid]) >= launch)
			b = mid;
		else
			a = mid + 1;
	}
	*lo = a;
	b = ix->nlaunched;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (model_launch_of(m, ix->launched[mid]) > launch)
			b = mid;
		else
			a = mid + 1;
	}
	*hi = a;
}

/* The enclosing event on the same track: the innermost event containing
 * id's start in the lanes above id's depth (for an overflow event, in any
 * regular lane). None on stream tracks. */
static uint32_t enclosing(const struct trace_index *ix, uint32_t id, uint32_t lane)
{
	const struct ti_lane *ln = &ix->lanes[lane];
	const struct ti_track *tr = &ix->tracks[ln->track];
	int64_t ts = ix->m->events.v[id].ts - ix->origin;

	if (tr->kind == TI_STREAM)
		return MODEL_NOIDX;
	return ti_innermost_at(ix, ln->track, ts,
			       ln->depth < tr->nregular ? ln->depth : tr->nregular);
}

static void write_args(const struct trace_index *ix, const struct model_event *e, struct jsonw *w)
{
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	out_json_event_args(w, ix->m, e);
	jsonw_obj_end(w);
}

/* Kernels launched by launches nested in host event id (on its track). */
static void nested_kernels(const struct trace_index *ix, uint32_t id, uint32_t lane,
			   struct jsonw *w)
{
	const struct ti_lane *ln = &ix->lanes[lane];
	const struct ti_track *tr = &ix->tracks[ln->track];
	const struct model_event *e = &ix->m->events.v[id];
	int64_t s = e->ts - ix->origin, end = s + e->dur;
	uint32_t d;
	int shown = 0;

	if (!ix->nlaunched)
		return;
	for (d = ln->depth + 1; d < tr->nregular && shown < TI_MAX_LINK_KERNELS; d++) {
		const struct ti_lane *l = &ix->lanes[tr->lane0 + d];
		size_t i = ti_first_start_ge(ix->lane_s, l->off, l->off + l->n, s);
		for (; i < l->off + l->n && ix->lane_s[i] < end && shown < TI_MAX_LINK_KERNELS;
		     i++) {
			size_t a, b;
			if (ti_end(ix, i) > end ||
			    !model_kind_is_launch(ix->m->events.v[ix->lane_id[i]].kind))
				continue;
			launched_by(ix, ix->lane_id[i], &a, &b);
			for (; a < b && shown < TI_MAX_LINK_KERNELS; a++, shown++)
				link(ix, w, "kernel", ix->launched[a]);
		}
	}
}

/* The operator of launch l on its track: the innermost enclosing cpu_op,
 * else the innermost enclosing event; MODEL_NOIDX if none. */
static uint32_t launcher_of(const struct trace_index *ix, uint32_t l)
{
	const struct model *m = ix->m;
	uint32_t t = ti_track_of(ix, l), ll, d, first = MODEL_NOIDX;
	size_t lp;
	int64_t ts;

	if (ti_locate(ix, l, &ll, &lp) != 0)
		return MODEL_NOIDX;
	d = ix->lanes[ll].depth < ix->tracks[t].nregular ? ix->lanes[ll].depth
							 : ix->tracks[t].nregular;
	ts = m->events.v[l].ts - ix->origin;
	while (d > 0) {
		uint32_t c = ti_innermost_at(ix, t, ts, d);
		if (c == MODEL_NOIDX)
			break;
		if (first == MODEL_NOIDX)
			first = c;
		if (m->events.v[c].kind == MK_CPU_OP)
			return c;
		ti_locate(ix, c, &ll, &lp);
		d = ix->lanes[ll].depth;
	}
	return first;
}

/* The fwdbwd partners of id: "backward" from a forward op, "forward" from
 * a backward op. */
static void fb_links(const struct trace_index *ix, uint32_t id, struct jsonw *w)
{
	size_t lo, hi;

	for (lo = ti_fb_first(ix, id); lo < ix->nfb && ix->fb[lo][0] == id; lo++)
		link(ix, w, "backward", ix->fb[lo][1]);
	lo = 0;
	hi = ix->nfb;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->fb[ix->fb_to[mid]][1] >= id)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (; lo < ix->nfb && ix->fb[ix->fb_to[lo]][1] == id; lo++)
		link(ix, w, "forward", ix->fb[ix->fb_to[lo]][0]);
}

int trace_event_json(const struct trace_index *ix, int64_t id, struct jsonw *w, struct nns_err *err)
{
	const struct model *m = ix->m;
	const struct model_event *e;
	uint32_t lane, par;
	size_t pos, a, b;

	if (id < 0 || (uint64_t)id >= m->events.n || ti_locate(ix, (uint32_t)id, &lane, &pos) != 0)
		return nns_err_set(err, NNS_ENOTFOUND,
				   "no event with id %lld (the trace has %zu events)",
				   (long long)id, m->events.n);
	e = &m->events.v[id];
	jsonw_obj_begin(w);
	jsonw_kint(w, "id", id);
	jsonw_kstr(w, "name", model_str(m, e->name));
	jsonw_kstr(w, "cat", model_kind_name(e->kind));
	jsonw_kint(w, "track", ix->lanes[lane].track);
	jsonw_kint(w, "depth", ix->lanes[lane].depth);
	jsonw_kint(w, "start", e->ts - ix->origin);
	jsonw_kint(w, "dur", e->dur);
	write_args(ix, e, w);
	jsonw_key(w, "links");
	jsonw_arr_begin(w);
	par = enclosing(ix, (uint32_t)id, lane);
	if (par != MODEL_NOIDX)
		link(ix, w, "parent", par);
	if (model_kind_is_launch(e->kind)) {
		launched_by(ix, (uint32_t)id, &a, &b);
		for (; a < b; a++)
			link(ix, w, "kernel", ix->launched[a]);
	} else if (model_kind_is_device(e->kind)) {
		uint32_t l = model_launch_of(m, id), op;
		if (l != MODEL_NOIDX && l < m->events.n) {
			link(ix, w, "launch", l);
			if ((op = launcher_of(ix, l)) != MODEL_NOIDX)
				link(ix, w, "launcher", op);
		}
	} else if (e->kind == MK_CPU_OP &&
		   ix->lanes[lane].depth < ix->tracks[ix->lanes[lane].track].nregular) {
		/* operators only: a ProfilerStep or module range would link every
		 * kernel of the step */
		nested_kernels(ix, (uint32_t)id, lane, w);
	}
	fb_links(ix, (uint32_t)id, w);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	return NNS_OK;
}

/* ---- summary ------------------------------------------------------------- */

struct row {
	uint32_t name;
	uint8_t kind;
	int64_t count, total, min, max;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

int trace_summary_json(const struct trace_index *ix, int64_t t0, int64_t t1, const uint32_t *tracks,
		       size_t ntracks, struct jsonw *w, struct nns_err *err)
{
	const struct model *m = ix->m;
	unsigned char *sel = NULL;
	struct ti_map map = {0};
	struct row *rows = NULL;
	size_t nrows = 0, caprows = 0, t, d, i;
	int64_t events = 0;
	int rc;

	if (t1 <= t0)
		return nns_err_set(err, NNS_EINVAL,
				   "bad window: t1 (%lld) must be greater than t0 (%lld)",
				   (long long)t1, (long long)t0);
	if ((rc = ti_select_tracks(ix, tracks, ntracks, &sel, err)) != NNS_OK)
		return rc;
	if ((rc = ti_map_init(&map, 256)) != NNS_OK)
		goto out;
	for (t = 0; t < ix->ntracks; t++) {
		if (!sel[t])
			continue;
		for (d = 0; d < ix->tracks[t].nlanes; d++) {
			const struct ti_lane *ln = &ix->lanes[ix->tracks[t].lane0 + d];
			size_t end = ln->off + ln->n;
			for (i = ti_first_after(ix, ln->off, end, t0);
			     i < end && ix->lane_s[i] < t1; i++) {
				const struct model_event *e = &m->events.v[ix->lane_id[i]];
				int64_t s = ix->lane_s[i] > t0 ? ix->lane_s[i] : t0;
				int64_t f = ti_end(ix, i) < t1 ? ti_end(ix, i) : t1;
				int isnew;
				uint32_t *r = ti_map_put(&map, e->name, (uint32_t)nrows, &isnew);
				struct row *rw;
				if (!r) {
					rc = NNS_ENOMEM;
					goto out;
				}
				if (isnew) {
					if (nrows == caprows &&
					    vec_reserve_raw((void **)&rows, &caprows, nrows + 1,
							    sizeof(*rows)) != 0) {
						rc = NNS_ENOMEM;
						goto out;
					}
					rows[nrows++] =
					    (struct row){e->name, e->kind, 0, 0, e->dur, e->dur};
				}
				rw = &rows[*r];
				rw->count++;
				rw->total += f > s ? f - s : 0;
				if (e->dur < rw->min)
					rw->min = e->dur;
				if (e->dur > rw->max)
					rw->max = e->dur;
				events++;
			}
		}
	}
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_row);
	jsonw_obj_begin(w);
	jsonw_kint(w, "t0", t0);
	jsonw_kint(w, "t1", t1);
	jsonw_kint(w, "events", events);
	jsonw_key(w, "rows");
	jsonw_arr_begin(w);
	for (i = 0; i < nrows && i < TI_MAX_SUMMARY_ROWS; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", model_str(m, rows[i].name));
		jsonw_kstr(w, "cat", model_kind_name(rows[i].kind));
		jsonw_kint(w, "count", rows[i].count);
		jsonw_kint(w, "total", rows[i].total);
		jsonw_kint(w, "min", rows[i].min);
		jsonw_kint(w, "max", rows[i].max);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
out:
	if (rc == NNS_ENOMEM)
		nns_err_set(err, NNS_ENOMEM, "out of memory summarising a trace window");
	ti_map_release(&map);
	free(rows);
	free(sel);
	return rc;
}
