/*
 * trace_window.c - the level-of-detail window query (`/api/trace/window`).
 *
 * Per lane: binary search the first event ending after t0 and the first
 * starting at or after t1, and walk between them. An event at least one
 * pixel wide (dur >= thr = ceil(W / px), W = t1 - t0) is an item. A
 * sub-pixel event starts a run that goes on while the events stay
 * sub-pixel and less than a pixel apart: its end is the first event whose
 * key = max(dur, gap before it) is >= thr, found through the index's skip
 * levels (ti_find_key_ge, O(16 * levels)). A run of one event is emitted
 * as that event, longer runs as a summary [start, dur, depth, name,
 * -count]. Every run but the last ends at a gap >= 1 pixel or a wide
 * item, so a lane yields at most ~2 * px items and costs O(items * log n)
 * whatever the number of events in the window.
 *
 * Counters are down-sampled per pixel: pixel(t) = floor((t - t0) * px / W),
 * estimated in double and made exact with 128-bit products.
 *
 * Ownership: all scratch is allocated per call and freed before return.
 */
#include "trace/trace_internal.h"

#include <string.h>

#define MAX_ITEMS ((size_t)1 << 24)

typedef __int128 i128;

struct item {
	int64_t s, d;
	int64_t id; /* event id, or -count for a summary */
	uint32_t depth, name;
};

struct win {
	const struct trace_index *ix;
	int64_t t0, t1, W;
	int px;
	double nspp, inv; /* W / px and px / W */
	int64_t thr;	  /* ceil(W / px): a duration or gap this long is >= 1 pixel */
	struct item *v;
	size_t n, cap;
	int64_t merged;
};

/* Pixel of t: floor((t - t0) * px / W), estimated in double and made
 * exact with 128-bit products (no 128-bit division in the hot loop). */
static int64_t pixel_of(const struct win *w, int64_t t)
{
	i128 x = (i128)(t - w->t0) * w->px;
	int64_t p = (int64_t)__builtin_floor((double)(t - w->t0) * w->inv);

	while ((i128)p * w->W > x)
		p--;
	while ((i128)(p + 1) * w->W <= x)
		p++;
	return p;
}

/* Smallest time whose pixel is >= p: t0 + ceil(p * W / px). */
static int64_t pixel_start(const struct win *w, int64_t p)
{
	i128 need = (i128)p * w->W; /* (t - t0) * px >= need */
	double est = __builtin_ceil((double)p * w->nspp);
	int64_t d;

	if (est > 9.0e18)
		return INT64_MAX;
	if (est < -9.0e18)
		return INT64_MIN;
	d = (int64_t)est;
	while ((i128)(d - 1) * w->px >= need)
		d--;
	while ((i128)d * w->px < need)
		d++;
	if ((i128)w->t0 + d > INT64_MAX)
		return INT64_MAX;
	return w->t0 + d;
}

static int push(struct win *w, int64_t s, int64_t d, int64_t id, uint32_t depth, uint32_t name)
{
	if (w->n == w->cap && (w->n >= MAX_ITEMS || vec_reserve_raw((void **)&w->v, &w->cap,
								    w->n + 1, sizeof(*w->v)) != 0))
		return NNS_ENOMEM;
	w->v[w->n++] = (struct item){s, d, id, depth, name};
	return NNS_OK;
}

static int do_lane(struct win *w, const struct ti_lane *ln)
{
	const struct trace_index *ix = w->ix;
	const int64_t *S = ix->lane_s;
	const uint32_t *N = ix->lane_name;
	size_t lo = ti_first_after(ix, ln->off, ln->off + ln->n, w->t0);
	size_t hi = ti_first_start_ge(S, lo, ln->off + ln->n, w->t1);
	size_t i = lo;

	while (i < hi) {
		size_t k;
		int64_t d = ti_dur(ix, i);
		if (d >= w->thr) {
			if (push(w, S[i], d, ix->lane_id[i], ln->depth, N[i]))
				return NNS_ENOMEM;
			i++;
			continue;
		}
		/* run [i, k): sub-pixel events less than a pixel apart */
		k = ti_find_key_ge(ix, i + 1, hi, w->thr);
		if (k - i == 1) {
			if (push(w, S[i], d, ix->lane_id[i], ln->depth, N[i]))
				return NNS_ENOMEM;
		} else {
			if (push(w, S[i], ti_end(ix, k - 1) - S[i], -(int64_t)(k - i), ln->depth,
				 N[i]))
				return NNS_ENOMEM;
			w->merged += (int64_t)(k - i);
		}
		i = k;
	}
	return NNS_OK;
}

/* Writes v[0..n) as one JSON array of integers. */
static void int_row(struct jsonw *j, const int64_t *v, size_t n)
{
	jsonw_arr_begin(j);
	for (size_t k = 0; k < n; k++)
		jsonw_int(j, v[k]);
	jsonw_arr_end(j);
}

/* One item [start, dur, depth, name, id]: the hot path of a window answer,
 * written field by field (an int_row of a copied array costs ~2 % more). */
static void write_item(struct jsonw *j, const struct item *it)
{
	jsonw_arr_begin(j);
	jsonw_int(j, it->s);
	jsonw_int(j, it->d);
	jsonw_int(j, it->depth);
	jsonw_int(j, it->name);
	jsonw_int(j, it->id);
	jsonw_arr_end(j);
}

/* Down-sampled points of one series: the value in effect at t0, then per
 * pixel the first point's time and the max of the pixel's values. */
static void write_series(const struct win *w, const struct ti_series *sr, struct jsonw *j)
{
	const struct ti_point *p = sr->n ? w->ix->pts + sr->off : NULL;
	size_t lo = 0, hi = sr->n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[mid].ts >= w->t0)
			hi = mid;
		else
			lo = mid + 1;
	}
	jsonw_arr_begin(j);
	if (lo > 0) {
		jsonw_arr_begin(j);
		jsonw_int(j, w->t0);
		jsonw_double(j, p[lo - 1].v);
		jsonw_arr_end(j);
	}
	for (i = lo; i < sr->n && p[i].ts < w->t1;) {
		int64_t b = pixel_start(w, pixel_of(w, p[i].ts) + 1);
		int64_t t = p[i].ts;
		double mx = p[i].v;
		for (i++; i < sr->n && p[i].ts < b && p[i].ts < w->t1; i++)
			if (p[i].v > mx || mx != mx)
				mx = p[i].v;
		jsonw_arr_begin(j);
		jsonw_int(j, t);
		jsonw_double(j, mx);
		jsonw_arr_end(j);
	}
	jsonw_arr_end(j);
}

static int write_flows(const struct win *w, struct jsonw *j)
{
	const struct trace_index *ix = w->ix;
	const struct model *m = ix->m;
	struct ti_map set;
	size_t i, nflows = 0;
	int isnew;

	jsonw_key(j, "flows");
	jsonw_arr_begin(j);
	if (ti_map_init(&set, w->n) != NNS_OK)
		return NNS_ENOMEM;
	for (i = 0; i < w->n; i++)
		if (w->v[i].id >= 0 && !ti_map_put(&set, (uint32_t)w->v[i].id, 1, &isnew)) {
			ti_map_release(&set);
			return NNS_ENOMEM;
		}
	for (i = 0; i < w->n && nflows < TI_MAX_FLOWS; i++) {
		uint32_t id;
		size_t lo;
		if (w->v[i].id < 0)
			continue;
		id = (uint32_t)w->v[i].id;
		if (m->launch_of && model_kind_is_device(m->events.v[id].kind) &&
		    model_launch_of(m, id) != MODEL_NOIDX &&
		    ti_map_get(&set, model_launch_of(m, id))) {
			const int64_t row[3] = {model_launch_of(m, id), id, 0};
			int_row(j, row, 3);
			nflows++;
		}
		if (!ix->nfb)
			continue;
		for (lo = ti_fb_first(ix, id);
		     lo < ix->nfb && ix->fb[lo][0] == id && nflows < TI_MAX_FLOWS; lo++) {
			if (!ti_map_get(&set, ix->fb[lo][1]))
				continue;
			const int64_t row[3] = {id, ix->fb[lo][1], 1};
			int_row(j, row, 3);
			nflows++;
		}
	}
	jsonw_arr_end(j);
	ti_map_release(&set);
	return NNS_OK;
}

/* Checks the query and sets up w for it. NNS_OK or NNS_EINVAL. */
static int win_init(struct win *w, const struct trace_index *ix, const struct trace_window_q *q,
		    struct nns_err *err)
{
	int64_t W;

	if (q->t1 <= q->t0)
		return nns_err_set(err, NNS_EINVAL,
				   "bad window: t1 (%lld) must be greater than t0 (%lld)",
				   (long long)q->t1, (long long)q->t0);
	if (q->px < 1 || q->px > 8192)
		return nns_err_set(err, NNS_EINVAL, "bad px %d: must be 1..8192", q->px);
	/* the route allows |t| <= 2^62, so t1 - t0 can pass INT64_MAX */
	if (__builtin_sub_overflow(q->t1, q->t0, &W) || W > ((int64_t)1 << 62))
		return nns_err_set(err, NNS_EINVAL, "bad window: t1 - t0 is wider than 2^62 ns");
	w->ix = ix;
	w->t0 = q->t0;
	w->t1 = q->t1;
	w->W = W;
	w->px = q->px;
	w->nspp = (double)w->W / w->px;
	w->thr = w->W / w->px + (w->W % w->px != 0);
	w->inv = (double)w->px / (double)w->W;
	return NNS_OK;
}

/* Gathers the items of the selected tracks; track t's are
 * w->v[tstart[t] .. tstart[t + 1]). NNS_OK or NNS_ENOMEM. */
static int collect(struct win *w, const unsigned char *sel, size_t *tstart)
{
	const struct trace_index *ix = w->ix;
	size_t t, i;
	int rc;

	for (t = 0; t < ix->ntracks; t++) {
		tstart[t] = w->n;
		if (!sel[t])
			continue;
		for (i = 0; i < ix->tracks[t].nlanes; i++)
			if ((rc = do_lane(w, &ix->lanes[ix->tracks[t].lane0 + i])) != NNS_OK)
				return rc;
	}
	tstart[ix->ntracks] = w->n;
	return NNS_OK;
}

/* Replaces the items' name ids by local indices in order of first use;
 * the model's ids of those go to name_list (w->n + 1 entries, caller
 * storage), *nnames of them. NNS_OK or NNS_ENOMEM. */
static int local_names(struct win *w, uint32_t *name_list, size_t *nnames)
{
	struct ti_map names;
	size_t i;

	*nnames = 0;
	if (ti_map_init(&names, 256) != NNS_OK)
		return NNS_ENOMEM;
	for (i = 0; i < w->n; i++) {
		int isnew;
		uint32_t *v = ti_map_put(&names, w->v[i].name, (uint32_t)*nnames, &isnew);
		if (!v) {
			ti_map_release(&names);
			return NNS_ENOMEM;
		}
		if (isnew)
			name_list[(*nnames)++] = w->v[i].name;
		w->v[i].name = *v;
	}
	ti_map_release(&names);
	return NNS_OK;
}

static void write_names(const struct trace_index *ix, const uint32_t *name_list, size_t nnames,
			struct jsonw *j)
{
	jsonw_key(j, "names");
	jsonw_arr_begin(j);
	for (size_t i = 0; i < nnames; i++)
		jsonw_strn(j, model_str(ix->m, name_list[i]),
			   strpool_len(&ix->m->strings, name_list[i]));
	jsonw_arr_end(j);
}

static void write_tracks(const struct win *w, const unsigned char *sel, const size_t *tstart,
			 struct jsonw *j)
{
	size_t t, i;

	jsonw_key(j, "tracks");
	jsonw_arr_begin(j);
	for (t = 0; t < w->ix->ntracks; t++) {
		if (!sel[t])
			continue;
		jsonw_obj_begin(j);
		jsonw_kint(j, "id", (int64_t)t);
		jsonw_key(j, "items");
		jsonw_arr_begin(j);
		for (i = tstart[t]; i < tstart[t + 1]; i++)
			write_item(j, &w->v[i]);
		jsonw_arr_end(j);
		jsonw_obj_end(j);
	}
	jsonw_arr_end(j);
}

static void write_counters(const struct win *w, struct jsonw *j)
{
	jsonw_key(j, "counters");
	jsonw_arr_begin(j);
	for (size_t i = 0; i < w->ix->nseries; i++) {
		jsonw_obj_begin(j);
		jsonw_kint(j, "id", (int64_t)i);
		jsonw_key(j, "points");
		write_series(w, &w->ix->series[i], j);
		jsonw_obj_end(j);
	}
	jsonw_arr_end(j);
}

int trace_window_json(const struct trace_index *ix, const struct trace_window_q *q, struct jsonw *j,
		      struct nns_err *err)
{
	struct win w = {0};
	unsigned char *sel = NULL;
	size_t *tstart = NULL, nnames = 0;
	uint32_t *name_list = NULL;
	int rc;

	if ((rc = win_init(&w, ix, q, err)) != NNS_OK ||
	    (rc = ti_select_tracks(ix, q->tracks, q->ntracks, &sel, err)) != NNS_OK)
		return rc;
	tstart = malloc((ix->ntracks + 1) * sizeof(*tstart));
	if (!tstart) {
		rc = NNS_ENOMEM;
		goto out;
	}
	if ((rc = collect(&w, sel, tstart)) != NNS_OK)
		goto out;
	name_list = malloc((w.n + 1) * sizeof(*name_list));
	if (!name_list || (rc = local_names(&w, name_list, &nnames)) != NNS_OK) {
		rc = NNS_ENOMEM;
		goto out;
	}
	jsonw_obj_begin(j);
	jsonw_kint(j, "t0", w.t0);
	jsonw_kint(j, "t1", w.t1);
	jsonw_kint(j, "px", w.px);
	write_names(ix, name_list, nnames, j);
	write_tracks(&w, sel, tstart, j);
	if ((rc = write_flows(&w, j)) != NNS_OK)
		goto out;
	write_counters(&w, j);
	jsonw_key(j, "stats");
	jsonw_obj_begin(j);
	jsonw_kint(j, "items", (int64_t)w.n);
	jsonw_kint(j, "merged_events", w.merged);
	jsonw_obj_end(j);
	jsonw_obj_end(j);
out:
	if (rc == NNS_ENOMEM)
		nns_err_set(err, NNS_ENOMEM, "out of memory answering a trace window (%zu items)",
			    w.n);
	free(name_list);
	free(w.v);
	free(tstart);
	free(sel);
	return rc;
}
