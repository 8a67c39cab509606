/*
 * trace_index.c - builds the Trace view's level-of-detail index
 * (trace_index.h) and writes the `meta` answer.
 *
 * Build, all O(n) or O(n log tracks) except small sorts:
 *  1. every event gets a track: host events the thread's track, device
 *     events the (device, stream) track, GPU annotations their device's
 *     annotation track;
 *  2. one sweep over the (ts,-dur)-sorted events gives each event a lane:
 *     on host and annotation tracks the depth of a nesting stack (an event
 *     that only partially overlaps its would-be parent goes to an overflow
 *     lane below the regular depths instead), on stream tracks the first
 *     lane whose last event has ended;
 *  3. a stable counting sort by lane lays start, duration, id and name out
 *     in lane order (20 bytes per event, so a query touches no model row
 *     per item), and skip levels of max(duration, gap) per 16^k events
 *     (~0.5 bytes per event) let a query jump over runs of sub-pixel
 *     events; the device events with a launch are listed in launch order
 *     (4 bytes each) for the event links;
 *  4. counter series (trace_counters.c) and forward->backward pairs are
 *     gathered.
 * Lanes are not the model's depth (model_index.c): annotation tracks nest
 * a device's annotations across its streams (the model nests per thread),
 * host tracks leave device events of the same thread out, and a partial
 * overlap goes to an overflow lane where the model hangs it under the
 * range that holds it.
 *
 * Ownership: the index owns its arrays; model and profile are borrowed.
 */
#include "trace/trace_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- build: tracks ------------------------------------------------------- */

struct hkey {
	int64_t pnum, tnum;
	int pok, tok;
	const char *pid, *tid;
	uint32_t thread;
};

static int cmp_hkey(const void *a, const void *b)
{
	const struct hkey *x = a, *y = b;
	int c;

	if (x->pok != y->pok)
		return x->pok ? -1 : 1;
	if (x->pok && x->pnum != y->pnum)
		return x->pnum < y->pnum ? -1 : 1;
	if ((c = strcmp(x->pid, y->pid)) != 0)
		return c;
	if (x->tok != y->tok)
		return x->tok ? -1 : 1;
	if (x->tok && x->tnum != y->tnum)
		return x->tnum < y->tnum ? -1 : 1;
	if ((c = strcmp(x->tid, y->tid)) != 0)
		return c;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

struct dkey {
	int64_t dev, stream; /* stream -1: the annotation track */
};

static int cmp_dkey(const void *a, const void *b)
{
	const struct dkey *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* Unique (dev, stream) keys while building: open addressing over keys. */
struct dset {
	VEC(struct dkey) keys;
	uint32_t *slot; /* index+1 into keys.v, 0 empty */
	size_t mask;
};

static size_t dhash(int64_t dev, int64_t stream)
{
	uint64_t x =
	    (uint64_t)dev * 0x9E3779B97F4A7C15ull ^ (uint64_t)stream * 0xC2B2AE3D27D4EB4Full;
	return (size_t)(x ^ x >> 29);
}

static int dset_rehash(struct dset *s)
{
	size_t cap = s->mask ? (s->mask + 1) * 2 : 64, k;
	uint32_t *slot;

	if (s->keys.n >= ((size_t)1 << 24) || !(slot = calloc(cap, sizeof(*slot))))
		return NNS_ENOMEM;
	for (k = 0; k < s->keys.n; k++) {
		size_t j = dhash(s->keys.v[k].dev, s->keys.v[k].stream) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = (uint32_t)k + 1;
	}
	free(s->slot);
	s->slot = slot;
	s->mask = cap - 1;
	return NNS_OK;
}

static int dset_add(struct dset *s, int64_t dev, int64_t stream)
{
	struct dkey key = {dev, stream};
	size_t i;

	if ((s->keys.n + 1) * 2 > s->mask + 1 && dset_rehash(s) != NNS_OK)
		return NNS_ENOMEM;
	i = dhash(dev, stream) & s->mask;
	while (s->slot[i]) {
		const struct dkey *k = &s->keys.v[s->slot[i] - 1];
		if (k->dev == dev && k->stream == stream)
			return NNS_OK;
		i = (i + 1) & s->mask;
	}
	if (vec_push(&s->keys, key) != 0)
		return NNS_ENOMEM;
	s->slot[i] = (uint32_t)s->keys.n;
	return NNS_OK;
}

/* Marks the threads that carry host events (used[], *nhost of them) and
 * gathers the (device, stream) keys of device events and GPU annotations
 * (stream -1: the device's annotation track). */
static int find_tracks(const struct trace_index *ix, unsigned char *used, size_t *nhost,
		       struct dset *ds)
{
	const struct model *m = ix->m;
	size_t n = m->events.n, nth = m->threads.n, i, nh = 0;

	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (ti_on_thread(ix, e->kind)) {
			if (e->thread < nth && !used[e->thread]) {
				used[e->thread] = 1;
				nh++;
			}
		} else {
			int64_t dev, stream;
			ti_dev_stream(m, e, &dev, &stream);
			if (dset_add(ds, dev, e->kind == MK_GPU_ANNOTATION ? -1 : stream) != NNS_OK)
				return NNS_ENOMEM;
		}
	}
	*nhost = nh;
	return NNS_OK;
}

/* The sort keys of the used threads into hk; returns how many. */
static size_t host_keys(const struct model *m, const unsigned char *used, struct hkey *hk)
{
	size_t i, nh = 0;

	for (i = 0; i < m->threads.n; i++) {
		if (used[i]) {
			const struct model_thread *t = &m->threads.v[i];
			hk[nh].pid = model_str(m, t->pid);
			hk[nh].tid = model_str(m, t->tid);
			hk[nh].pnum = ti_num_in(hk[nh].pid, &hk[nh].pok);
			hk[nh].tnum = ti_num_in(hk[nh].tid, &hk[nh].tok);
			/* only plain numbers sort as numbers */
			if (hk[nh].pok && hk[nh].pid[strspn(hk[nh].pid, "-0123456789")])
				hk[nh].pok = 0;
			if (hk[nh].tok && hk[nh].tid[strspn(hk[nh].tid, "-0123456789")])
				hk[nh].tok = 0;
			hk[nh].thread = (uint32_t)i;
			nh++;
		}
	}
	return nh;
}

/* Fills the group and name of thread track t for the thread of key k. */
static void name_thread_track(const struct model *m, const struct hkey *k, struct ti_track *t)
{
	const struct model_thread *th = &m->threads.v[k->thread];
	const char *tn = th->name ? model_str(m, th->name) : NULL;

	char key[240];
	const char *pn;

	/* the trace's own process name ("M" process_name), else its pid */
	snprintf(key, sizeof(key), "process_name:%s", k->pid);
	pn = model_meta_get(m, key);
	if (pn && *pn)
		snprintf(t->group, sizeof(t->group), "%s", pn);
	else
		snprintf(t->group, sizeof(t->group), "Process %s", k->pid);
	if (tn && *tn) {
		/* Kineto names threads "thread 25738 (python)": keep "python" */
		char pre[80];
		int np = snprintf(pre, sizeof(pre), "thread %s (", k->tid);
		size_t tl = strlen(tn);
		if (np > 0 && (size_t)np < sizeof(pre) && tl > (size_t)np &&
		    !strncasecmp(tn, pre, (size_t)np) && tn[tl - 1] == ')')
			snprintf(t->name, sizeof(t->name), "Thread %s (%.*s)", k->tid,
				 (int)(tl - (size_t)np - 1), tn + np);
		else
			snprintf(t->name, sizeof(t->name), "Thread %s (%s)", k->tid, tn);
	} else
		snprintf(t->name, sizeof(t->name), "Thread %s", k->tid);
}

/* Appends the device tracks of ds (sorted by device, then stream, each
 * device's annotation track first) from ix->tracks[ix->ntracks]. */
static void add_device_tracks(struct trace_index *ix, struct dset *ds)
{
	size_t i;

	if (ds->keys.n)
		qsort(ds->keys.v, ds->keys.n, sizeof(*ds->keys.v), cmp_dkey);
	for (i = 0; i < ds->keys.n; i++) {
		uint32_t nt = (uint32_t)ix->ntracks++;
		struct ti_track *t = &ix->tracks[nt];
		t->dev = ds->keys.v[i].dev;
		t->stream = ds->keys.v[i].stream;
		snprintf(t->group, sizeof(t->group), "GPU %" PRId64, t->dev);
		if (t->stream < 0) {
			t->kind = TI_ANNOT;
			snprintf(t->name, sizeof(t->name), "Annotations");
			ix->annot_tracks[ix->nannot++] = nt;
		} else {
			t->kind = TI_STREAM;
			snprintf(t->name, sizeof(t->name), "Stream %" PRId64, t->stream);
			ix->stream_tracks[ix->nstream++] = nt;
		}
	}
}

/* The tracks: host threads sorted by (pid, tid), numbers as numbers, then
 * the device tracks; ev_track[i] is event i's track. */
static int make_tracks(struct trace_index *ix, uint32_t *ev_track)
{
	const struct model *m = ix->m;
	size_t nth = m->threads.n, i, nh = 0;
	unsigned char *used = calloc(nth ? nth : 1, 1);
	struct hkey *hk = NULL;
	struct dset ds = {0};
	int rc = NNS_ENOMEM;

	ix->thread_track = malloc((nth ? nth : 1) * sizeof(*ix->thread_track));
	if (!used || !ix->thread_track || find_tracks(ix, used, &nh, &ds) != NNS_OK)
		goto out;
	for (i = 0; i < nth; i++)
		ix->thread_track[i] = UINT32_MAX;
	hk = malloc((nh ? nh : 1) * sizeof(*hk));
	ix->tracks = calloc(nh + ds.keys.n + 1, sizeof(*ix->tracks));
	ix->stream_tracks = malloc((ds.keys.n + 1) * sizeof(*ix->stream_tracks));
	ix->annot_tracks = malloc((ds.keys.n + 1) * sizeof(*ix->annot_tracks));
	if (!hk || !ix->tracks || !ix->stream_tracks || !ix->annot_tracks)
		goto out;
	nh = host_keys(m, used, hk);
	if (nh)
		qsort(hk, nh, sizeof(*hk), cmp_hkey);
	for (i = 0; i < nh; i++) {
		struct ti_track *t = &ix->tracks[i];
		t->kind = TI_THREAD;
		t->thread = hk[i].thread;
		name_thread_track(m, &hk[i], t);
		ix->thread_track[hk[i].thread] = (uint32_t)i;
	}
	ix->ntracks = nh;
	add_device_tracks(ix, &ds);
	for (i = 0; i < m->events.n; i++)
		ev_track[i] = ti_track_of(ix, (uint32_t)i);
	rc = NNS_OK;
out:
	free(used);
	free(hk);
	vec_free(&ds.keys);
	free(ds.slot);
	return rc;
}

/* ---- build: lanes -------------------------------------------------------- */

#define OVERFLOW_BIT 0x80000000u

struct sweep {
	int64_t *stk; /* ends of the open nesting stack */
	uint32_t nstk, capstk;
	int64_t *ov; /* last end of each overflow / stream lane */
	uint32_t nov, capov;
	uint32_t maxdepth;
};

/* Room for one more end in v (n used, capacity *cap), at most
 * TI_MAX_LANES_PER_TRACK (the 32-bit fields keep the sweep's rows small). */
static int grow64(int64_t **v, uint32_t n, uint32_t *cap)
{
	size_t c = *cap;

	if (n >= TI_MAX_LANES_PER_TRACK ||
	    vec_reserve_raw((void **)v, &c, (size_t)n + 1, sizeof(**v)) != 0)
		return NNS_ENOMEM;
	*cap = (uint32_t)c;
	return NNS_OK;
}

/* First-fit lane among s->ov for [ts, end); adds one when none is free. */
static int first_fit(struct sweep *s, int64_t ts, int64_t end, uint32_t *lane)
{
	uint32_t k;

	for (k = 0; k < s->nov; k++) {
		if (s->ov[k] <= ts) {
			s->ov[k] = end;
			*lane = k;
			return NNS_OK;
		}
	}
	if (s->nov == s->capov && grow64(&s->ov, s->nov, &s->capov) != NNS_OK)
		return NNS_ENOMEM;
	s->ov[s->nov] = end;
	*lane = s->nov++;
	return NNS_OK;
}

/* One sweep in event order: ev_lane[i] is event i's depth on its track,
 * or OVERFLOW_BIT | its overflow lane; stream tracks use first-fit lanes.
 * NNS_OK or NNS_ENOMEM (also past TI_MAX_LANES_PER_TRACK). */
static int sweep_lanes(const struct trace_index *ix, const uint32_t *ev_track, uint32_t *ev_lane,
		       struct sweep *sw)
{
	const struct model *m = ix->m;
	size_t i;
	int rc = NNS_OK;

	for (i = 0; i < m->events.n && rc == NNS_OK; i++) {
		const struct model_event *e = &m->events.v[i];
		struct sweep *s = &sw[ev_track[i]];
		int64_t end = e->ts + e->dur;
		uint32_t lane;

		if (ix->tracks[ev_track[i]].kind == TI_STREAM) {
			rc = first_fit(s, e->ts, end, &lane);
			ev_lane[i] = lane;
			continue;
		}
		while (s->nstk && s->stk[s->nstk - 1] <= e->ts)
			s->nstk--;
		if (s->nstk && end > s->stk[s->nstk - 1]) {
			/* partial overlap with the would-be parent: own lane */
			rc = first_fit(s, e->ts, end, &lane);
			ev_lane[i] = lane | OVERFLOW_BIT;
			continue;
		}
		if (s->nstk == s->capstk && (rc = grow64(&s->stk, s->nstk, &s->capstk)) != NNS_OK)
			break;
		ev_lane[i] = s->nstk;
		s->stk[s->nstk++] = end;
		if (s->nstk > s->maxdepth)
			s->maxdepth = s->nstk;
	}
	return rc;
}

/* Lays the swept events out in lane order (struct trace_index, lane_*). */
static int layout_lanes(struct trace_index *ix, const uint32_t *ev_track, uint32_t *ev_lane,
			const struct sweep *sw)
{
	const struct model *m = ix->m;
	size_t i, t;

	/* lanes of each track: regular depths, then overflow lanes */
	ix->nlanes = 0;
	for (t = 0; t < ix->ntracks; t++) {
		struct ti_track *tr = &ix->tracks[t];
		tr->lane0 = (uint32_t)ix->nlanes;
		tr->nregular = tr->kind == TI_STREAM ? 0 : sw[t].maxdepth;
		tr->nlanes = tr->nregular + sw[t].nov;
		ix->nlanes += tr->nlanes;
	}
	ix->lanes = calloc(ix->nlanes + 1, sizeof(*ix->lanes));
	if (!ix->lanes)
		return NNS_ENOMEM;
	for (t = 0; t < ix->ntracks; t++) {
		const struct ti_track *tr = &ix->tracks[t];
		uint32_t d;
		for (d = 0; d < tr->nlanes; d++) {
			ix->lanes[tr->lane0 + d].track = (uint32_t)t;
			ix->lanes[tr->lane0 + d].depth = d;
		}
	}
	for (i = 0; i < m->events.n; i++) {
		const struct ti_track *tr = &ix->tracks[ev_track[i]];
		uint32_t l = ev_lane[i];
		if (l & OVERFLOW_BIT)
			l = tr->nregular + (l & ~OVERFLOW_BIT);
		ev_lane[i] = tr->lane0 + l;
		ix->lanes[ev_lane[i]].n++;
	}
	{
		size_t off = 0;
		for (i = 0; i < ix->nlanes; i++) {
			ix->lanes[i].off = off;
			off += ix->lanes[i].n;
			ix->lanes[i].n = 0;
		}
	}
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		struct ti_lane *ln = &ix->lanes[ev_lane[i]];
		size_t k = ln->off + ln->n++;
		ix->lane_s[k] = e->ts - ix->origin;
		ix->lane_d[k] = e->dur < UINT32_MAX ? (uint32_t)e->dur : UINT32_MAX;
		ix->lane_name[k] = e->name;
		ix->lane_id[k] = (uint32_t)i;
		ix->tracks[ln->track].events++;
	}
	return NNS_OK;
}

static int assign_lanes(struct trace_index *ix, const uint32_t *ev_track, uint32_t *ev_lane,
			struct nns_err *err)
{
	struct sweep *sw = calloc(ix->ntracks + 1, sizeof(*sw));
	size_t t;
	int rc;

	if (!sw)
		return nns_err_set(err, NNS_ENOMEM, "out of memory building the trace index");
	if ((rc = sweep_lanes(ix, ev_track, ev_lane, sw)) != NNS_OK)
		nns_err_set(err, NNS_ENOMEM,
			    "trace index: out of memory or more than %d lanes on one track",
			    TI_MAX_LANES_PER_TRACK);
	else if ((rc = layout_lanes(ix, ev_track, ev_lane, sw)) != NNS_OK)
		nns_err_set(err, rc, "out of memory building the trace index");
	for (t = 0; t < ix->ntracks; t++) {
		free(sw[t].stk);
		free(sw[t].ov);
	}
	free(sw);
	return rc;
}

/* ---- build: skip levels ------------------------------------------------ */

static int build_levels(struct trace_index *ix)
{
	size_t n = ix->nev, l, b, i;

	for (l = 0; l < TI_MAX_LEVELS; l++) {
		size_t fan = (size_t)1 << TI_FAN_BITS, below = l ? ix->lvl_n[l - 1] : n;
		size_t m = (below + fan - 1) / fan;
		if (below <= 1)
			break;
		ix->lvl[l] = malloc(m * sizeof(int64_t));
		if (!ix->lvl[l])
			return NNS_ENOMEM;
		ix->lvl_n[l] = m;
		ix->nlvl = (int)l + 1;
		for (b = 0; b < m; b++)
			ix->lvl[l][b] = INT64_MIN;
		if (l == 0) {
			size_t ln;
			for (ln = 0; ln < ix->nlanes; ln++) {
				const struct ti_lane *la = &ix->lanes[ln];
				for (i = la->off; i < la->off + la->n; i++) {
					int64_t k = i == la->off ? ti_dur(ix, i) : ti_key(ix, i);
					if (k > ix->lvl[0][i >> TI_FAN_BITS])
						ix->lvl[0][i >> TI_FAN_BITS] = k;
				}
			}
		} else {
			for (i = 0; i < below; i++)
				if (ix->lvl[l - 1][i] > ix->lvl[l][i >> TI_FAN_BITS])
					ix->lvl[l][i >> TI_FAN_BITS] = ix->lvl[l - 1][i];
		}
	}
	return NNS_OK;
}

/* ---- build: links -------------------------------------------------------- */

static int build_launched(struct trace_index *ix)
{
	const struct model *m = ix->m;
	size_t n = m->events.n, i, k = 0;
	uint32_t *cnt;

	if (!m->launch_of)
		return NNS_OK;
	for (i = 0; i < n; i++)
		if (model_launch_of(m, i) != MODEL_NOIDX && model_launch_of(m, i) < n)
			k++;
	if (!k)
		return NNS_OK;
	ix->launched = malloc(k * sizeof(*ix->launched));
	cnt = calloc(n + 1, sizeof(*cnt));
	if (!ix->launched || !cnt) {
		free(cnt);
		return NNS_ENOMEM;
	}
	/* counting sort by launch: stable, so device events stay in order */
	for (i = 0; i < n; i++)
		if (model_launch_of(m, i) != MODEL_NOIDX && model_launch_of(m, i) < n)
			cnt[model_launch_of(m, i) + 1]++;
	for (i = 0; i < n; i++)
		cnt[i + 1] += cnt[i];
	for (i = 0; i < n; i++)
		if (model_launch_of(m, i) != MODEL_NOIDX && model_launch_of(m, i) < n)
			ix->launched[cnt[model_launch_of(m, i)]++] = (uint32_t)i;
	ix->nlaunched = k;
	free(cnt);
	return NNS_OK;
}

struct fend {
	int64_t id, ts;
	char ph;
	uint32_t thread;
	size_t idx;
};

static int cmp_fend(const void *a, const void *b)
{
	const struct fend *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->ph != y->ph)
		return x->ph == 's' ? -1 : y->ph == 's' ? 1 : x->ph < y->ph ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static int build_fwdbwd(struct trace_index *ix)
{
	const struct model *m = ix->m;
	struct fend *f;
	size_t i, n = 0, k;

	for (i = 0; i < m->flows.n; i++)
		if (m->flows.v[i].kind == MF_FWDBWD &&
		    (m->flows.v[i].ph == 's' || m->flows.v[i].ph == 'f'))
			n++;
	if (!n)
		return NNS_OK;
	f = malloc(n * sizeof(*f));
	ix->fb = malloc(n * sizeof(*ix->fb));
	ix->fb_to = malloc(n * sizeof(*ix->fb_to));
	if (!f || !ix->fb || !ix->fb_to) {
		free(f);
		return NNS_ENOMEM;
	}
	for (i = 0, n = 0; i < m->flows.n; i++) {
		const struct model_flow *fl = &m->flows.v[i];
		if (fl->kind == MF_FWDBWD && (fl->ph == 's' || fl->ph == 'f')) {
			f[n].id = fl->id;
			f[n].ts = fl->ts;
			f[n].ph = fl->ph;
			f[n].thread = fl->thread;
			f[n].idx = i;
			n++;
		}
	}
	qsort(f, n, sizeof(*f), cmp_fend);
	for (i = 0; i < n;) {
		size_t j = i, s = SIZE_MAX, e = SIZE_MAX;
		while (j < n && f[j].id == f[i].id) {
			if (f[j].ph == 's' && s == SIZE_MAX)
				s = j;
			if (f[j].ph == 'f' && e == SIZE_MAX)
				e = j;
			j++;
		}
		if (s != SIZE_MAX && e != SIZE_MAX && f[s].thread < m->threads.n &&
		    f[e].thread < m->threads.n) {
			uint32_t a = ti_innermost_at(ix, ix->thread_track[f[s].thread],
						     f[s].ts - ix->origin, UINT32_MAX);
			uint32_t b = ti_innermost_at(ix, ix->thread_track[f[e].thread],
						     f[e].ts - ix->origin, UINT32_MAX);
			if (a != MODEL_NOIDX && b != MODEL_NOIDX && a != b) {
				ix->fb[ix->nfb][0] = a;
				ix->fb[ix->nfb][1] = b;
				ix->nfb++;
			}
		}
		i = j;
	}
	free(f);
	qsort(ix->fb, ix->nfb, sizeof(*ix->fb), cmp_pair);
	/* fb_to: indices into fb sorted by the backward end */
	{
		uint32_t(*tmp)[2] = malloc((ix->nfb + 1) * sizeof(*tmp));
		if (!tmp)
			return NNS_ENOMEM;
		for (k = 0; k < ix->nfb; k++) {
			tmp[k][0] = ix->fb[k][1];
			tmp[k][1] = (uint32_t)k;
		}
		qsort(tmp, ix->nfb, sizeof(*tmp), cmp_pair);
		for (k = 0; k < ix->nfb; k++)
			ix->fb_to[k] = tmp[k][1];
		free(tmp);
	}
	return NNS_OK;
}

/* The profile's steps, for the meta document. */
static int copy_steps(struct trace_index *ix)
{
	size_t n = ix->p ? ix->p->overview.steps.n : 0;

	if (!(ix->steps = calloc(n + 1, sizeof(*ix->steps))))
		return NNS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct an_step *s = &ix->p->overview.steps.v[i];

		snprintf(ix->steps[i].name, sizeof(ix->steps[i].name), "%s", s->name);
		ix->steps[i].start = s->start;
		ix->steps[i].end = s->end;
	}
	ix->nsteps = n;
	return NNS_OK;
}

/* ---- build --------------------------------------------------------------- */

int trace_index_build(struct trace_index **out, const struct model *m, const struct an_profile *p,
		      struct nns_err *err)
{
	struct trace_index *ix;
	uint32_t *ev_track = NULL, *ev_lane = NULL;
	size_t n = m->events.n;
	int rc;

	*out = NULL;
	if (!m->finalized)
		return nns_err_set(err, NNS_EINVAL, "trace index: the model is not finalized");
	if (n >= UINT32_MAX)
		return nns_err_set(err, NNS_ENOMEM, "trace index: too many events (%zu)", n);
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return nns_err_set(err, NNS_ENOMEM, "out of memory building the trace index");
	ix->m = m;
	ix->p = p;
	ix->all_on_threads = model_meta_get(m, "trace_tracks") &&
			     strcmp(model_meta_get(m, "trace_tracks"), "threads") == 0;
	ix->origin = m->min_ts <= m->max_end ? m->min_ts : 0;
	ix->end = m->min_ts <= m->max_end ? m->max_end - m->min_ts : 0;
	ix->nev = n;
	ev_track = malloc((n + 1) * sizeof(*ev_track));
	ev_lane = malloc((n + 1) * sizeof(*ev_lane));
	ix->lane_s = malloc((n + 1) * sizeof(*ix->lane_s));
	ix->lane_d = malloc((n + 1) * sizeof(*ix->lane_d));
	ix->lane_name = malloc((n + 1) * sizeof(*ix->lane_name));
	ix->lane_id = malloc((n + 1) * sizeof(*ix->lane_id));
	if (!ev_track || !ev_lane || !ix->lane_s || !ix->lane_d || !ix->lane_name || !ix->lane_id) {
		rc = nns_err_set(err, NNS_ENOMEM,
				 "out of memory building the trace index (%zu events)", n);
		goto out;
	}
	if ((rc = make_tracks(ix, ev_track)) != NNS_OK) {
		nns_err_set(err, rc, "out of memory building the trace tracks");
		goto out;
	}
	if ((rc = assign_lanes(ix, ev_track, ev_lane, err)) != NNS_OK)
		goto out;
	if ((rc = build_levels(ix)) != NNS_OK || (rc = build_launched(ix)) != NNS_OK ||
	    (rc = build_fwdbwd(ix)) != NNS_OK || (rc = ti_build_counters(ix)) != NNS_OK ||
	    (rc = copy_steps(ix)) != NNS_OK) {
		nns_err_set(err, rc, "out of memory building the trace index");
		goto out;
	}
out:
	free(ev_track);
	free(ev_lane);
	ix->p = NULL;
	if (rc != NNS_OK) {
		trace_index_free(ix);
		return rc;
	}
	*out = ix;
	return NNS_OK;
}

void trace_index_free(struct trace_index *ix)
{
	if (!ix)
		return;
	if (ix->mapped) {
		free(ix);
		return;
	}
	free(ix->steps);
	free(ix->tracks);
	free(ix->lanes);
	free(ix->lane_s);
	free(ix->lane_d);
	free(ix->lane_name);
	free(ix->lane_id);
	free(ix->thread_track);
	free(ix->stream_tracks);
	free(ix->annot_tracks);
	free(ix->series);
	free(ix->pts);
	free(ix->fb);
	free(ix->fb_to);
	free(ix->launched);
	for (int l = 0; l < ix->nlvl; l++)
		free(ix->lvl[l]);
	free(ix);
}

static size_t levels_bytes(const struct trace_index *ix)
{
	size_t b = 0;
	for (int l = 0; l < ix->nlvl; l++)
		b += ix->lvl_n[l] * sizeof(int64_t);
	return b;
}

size_t trace_index_bytes(const struct trace_index *ix)
{
	if (!ix)
		return 0;
	return sizeof(*ix) + ix->ntracks * sizeof(*ix->tracks) + ix->nlanes * sizeof(*ix->lanes) +
	       ix->nev * (sizeof(*ix->lane_s) + sizeof(*ix->lane_d) + sizeof(*ix->lane_name) +
			  sizeof(*ix->lane_id)) +
	       ix->m->threads.n * sizeof(*ix->thread_track) +
	       (ix->nstream + ix->nannot) * sizeof(uint32_t) + ix->nseries * sizeof(*ix->series) +
	       ix->npts * sizeof(*ix->pts) + ix->nfb * (sizeof(*ix->fb) + sizeof(*ix->fb_to)) +
	       ix->nlaunched * sizeof(*ix->launched) + ix->nsteps * sizeof(*ix->steps) +
	       levels_bytes(ix);
}

/* ---- meta ---------------------------------------------------------------- */

void trace_meta_json(const struct trace_index *ix, struct jsonw *w)
{
	size_t i;

	jsonw_obj_begin(w);
	jsonw_kint(w, "origin_ns", ix->origin);
	jsonw_kint(w, "start", 0);
	jsonw_kint(w, "end", ix->end);
	jsonw_key(w, "tracks");
	jsonw_arr_begin(w);
	for (i = 0; i < ix->ntracks; i++) {
		const struct ti_track *t = &ix->tracks[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "id", (int64_t)i);
		jsonw_kstr(w, "group", t->group);
		jsonw_kstr(w, "name", t->name);
		jsonw_kstr(w, "kind",
			   t->kind == TI_THREAD	  ? "thread"
			   : t->kind == TI_STREAM ? "stream"
						  : "annotation");
		jsonw_kint(w, "depth", t->nlanes);
		jsonw_kint(w, "events", (int64_t)t->events);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "counters");
	jsonw_arr_begin(w);
	for (i = 0; i < ix->nseries; i++) {
		jsonw_obj_begin(w);
		jsonw_kint(w, "id", (int64_t)i);
		jsonw_kstr(w, "name", ix->series[i].name);
		jsonw_kstr(w, "unit", ix->series[i].unit);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (i = 0; i < ix->nsteps; i++) {
		const struct ti_step *s = &ix->steps[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", s->name);
		jsonw_kint(w, "start", s->start - ix->origin);
		jsonw_kint(w, "end", s->end - ix->origin);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "events", (int64_t)ix->nev);
	if (model_meta_get(ix->m, "msprof_rank")) {
		/* an msprof timeline rank: what the Trace view may choose
		 * (importers/ms_timeline.h, the trace API's `timeline`) */
		const char *ms = model_meta_get(ix->m, "msprof_models"), *v;

		jsonw_key(w, "msprof");
		jsonw_obj_begin(w);
		jsonw_kint(w, "rank", strtoll(model_meta_get(ix->m, "msprof_rank"), NULL, 10));
		jsonw_key(w, "models");
		jsonw_arr_begin(w);
		for (const char *p = ms ? ms : ""; *p; p += *p == ',') {
			char *end;
			long long x = strtoll(p, &end, 10);

			if (end == p)
				break;
			jsonw_int(w, x);
			p = end;
		}
		jsonw_arr_end(w);
		v = model_meta_get(ix->m, "msprof_view");
		jsonw_kstr(w, "view", v ? v : "detail/merged/all");
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}
