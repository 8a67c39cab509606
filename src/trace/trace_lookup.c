/*
 * trace_lookup.c - small helpers shared by the trace_*.c files: the
 * per-query scratch hash map, track and device/stream of an event,
 * locating an event in its lane, the innermost event containing a time,
 * and validating a track filter.
 *
 * Ownership: nothing here keeps state; ti_map is caller storage.
 */
#include "trace/trace_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int ti_map_init(struct ti_map *h, size_t expect)
{
	size_t cap = 16;

	while (cap < expect * 2)
		cap <<= 1;
	h->keys = malloc(cap * sizeof(*h->keys));
	h->vals = malloc(cap * sizeof(*h->vals));
	if (!h->keys || !h->vals) {
		free(h->keys);
		free(h->vals);
		h->keys = h->vals = NULL;
		return NNS_ENOMEM;
	}
	memset(h->keys, 0xff, cap * sizeof(*h->keys));
	h->mask = cap - 1;
	h->n = 0;
	return NNS_OK;
}

void ti_map_release(struct ti_map *h)
{
	free(h->keys);
	free(h->vals);
	h->keys = h->vals = NULL;
	h->mask = h->n = 0;
}

static int map_grow(struct ti_map *h)
{
	struct ti_map g;
	size_t i;

	if (h->mask + 1 > ((size_t)1 << 30))
		return NNS_ENOMEM;
	if (ti_map_init(&g, h->mask + 1) != NNS_OK)
		return NNS_ENOMEM;
	for (i = 0; i <= h->mask; i++) {
		if (h->keys[i] != UINT32_MAX) {
			size_t j = ti_hash(h->keys[i]) & g.mask;
			while (g.keys[j] != UINT32_MAX)
				j = (j + 1) & g.mask;
			g.keys[j] = h->keys[i];
			g.vals[j] = h->vals[i];
		}
	}
	g.n = h->n;
	ti_map_release(h);
	*h = g;
	return NNS_OK;
}

uint32_t *ti_map_put(struct ti_map *h, uint32_t key, uint32_t v, int *isnew)
{
	size_t i;

	if ((h->n + 1) * 2 > h->mask + 1 && map_grow(h) != NNS_OK)
		return NULL;
	i = ti_hash(key) & h->mask;
	while (h->keys[i] != UINT32_MAX) {
		if (h->keys[i] == key) {
			*isnew = 0;
			return &h->vals[i];
		}
		i = (i + 1) & h->mask;
	}
	h->keys[i] = key;
	h->vals[i] = v;
	h->n++;
	*isnew = 1;
	return &h->vals[i];
}

/* The integer in s (decimal, optionally after a non-digit prefix such as
 * "stream 7"); *ok = 0 when there is none. */
int64_t ti_num_in(const char *s, int *ok)
{
	int64_t v = 0;
	int neg = 0, any = 0;

	*ok = 0;
	if (!s)
		return 0;
	while (*s && !(*s >= '0' && *s <= '9') && *s != '-')
		s++;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	while (*s >= '0' && *s <= '9' && v < INT64_MAX / 10 - 10) {
		v = v * 10 + (*s++ - '0');
		any = 1;
	}
	*ok = any;
	return neg ? -v : v;
}

/* Device and stream of a device event. */
void ti_dev_stream(const struct model *m, const struct model_event *e, int64_t *dev,
		   int64_t *stream)
{
	int ok;
	const struct model_thread *t = &m->threads.v[e->thread];

	*dev = e->device;
	if (*dev < 0) {
		*dev = ti_num_in(model_str(m, t->pid), &ok);
		if (!ok || *dev < 0)
			*dev = 0;
	}
	*stream = -1;
	if (e->extra != MODEL_NOIDX && e->extra < m->dev_args.n && model_kind_is_device(e->kind))
		*stream = m->dev_args.v[e->extra].stream;
	if (*stream < 0) {
		*stream = ti_num_in(model_str(m, t->tid), &ok);
		if (!ok || *stream < 0)
			*stream = 0;
	}
}

int ti_is_host(int kind)
{
	return !model_kind_is_device(kind) && kind != MK_GPU_ANNOTATION;
}

uint32_t ti_track_of(const struct trace_index *ix, uint32_t id)
{
	const struct model_event *e;
	int64_t dev, stream;
	size_t lo = 0, hi;

	if (id >= ix->m->events.n)
		return UINT32_MAX;
	e = &ix->m->events.v[id];
	if (ti_on_thread(ix, e->kind))
		return ix->thread_track[e->thread];
	ti_dev_stream(ix->m, e, &dev, &stream);
	if (e->kind == MK_GPU_ANNOTATION) {
		hi = ix->nannot;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (ix->tracks[ix->annot_tracks[mid]].dev < dev)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < ix->nannot && ix->tracks[ix->annot_tracks[lo]].dev == dev
			   ? ix->annot_tracks[lo]
			   : UINT32_MAX;
	}
	hi = ix->nstream;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct ti_track *t = &ix->tracks[ix->stream_tracks[mid]];
		if (t->dev < dev || (t->dev == dev && t->stream < stream))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->nstream) {
		const struct ti_track *t = &ix->tracks[ix->stream_tracks[lo]];
		if (t->dev == dev && t->stream == stream)
			return ix->stream_tracks[lo];
	}
	return UINT32_MAX;
}

int ti_locate(const struct trace_index *ix, uint32_t id, uint32_t *lane, size_t *pos)
{
	uint32_t tr = ti_track_of(ix, id), l;
	int64_t ts;

	if (tr == UINT32_MAX)
		return -1;
	ts = ix->m->events.v[id].ts - ix->origin;
	for (l = ix->tracks[tr].lane0; l < ix->tracks[tr].lane0 + ix->tracks[tr].nlanes; l++) {
		const struct ti_lane *ln = &ix->lanes[l];
		size_t i = ti_first_start_ge(ix->lane_s, ln->off, ln->off + ln->n, ts);
		for (; i < ln->off + ln->n && ix->lane_s[i] == ts; i++) {
			if (ix->lane_id[i] == id) {
				*lane = l;
				*pos = i;
				return 0;
			}
		}
	}
	return -1;
}

static uint32_t containing(const struct trace_index *ix, uint32_t l, int64_t t)
{
	const struct ti_lane *ln = &ix->lanes[l];
	size_t i =
	    ti_first_start_ge(ix->lane_s, ln->off, ln->off + ln->n, t == INT64_MAX ? t : t + 1);

	if (i == ln->off)
		return MODEL_NOIDX;
	i--;
	if (ti_end(ix, i) > t || ix->lane_s[i] == t)
		return ix->lane_id[i];
	return MODEL_NOIDX;
}

uint32_t ti_innermost_at(const struct trace_index *ix, uint32_t track, int64_t t,
			 uint32_t below_depth)
{
	const struct ti_track *tr;
	uint32_t d, hit;

	if (track >= ix->ntracks)
		return MODEL_NOIDX;
	tr = &ix->tracks[track];
	d = tr->nregular < below_depth ? tr->nregular : below_depth;
	while (d-- > 0) {
		hit = containing(ix, tr->lane0 + d, t);
		if (hit != MODEL_NOIDX)
			return hit;
	}
	if (below_depth == UINT32_MAX) {
		for (d = tr->nregular; d < tr->nlanes; d++) {
			hit = containing(ix, tr->lane0 + d, t);
			if (hit != MODEL_NOIDX)
				return hit;
		}
	}
	return MODEL_NOIDX;
}

int ti_select_tracks(const struct trace_index *ix, const uint32_t *tracks, size_t ntracks,
		     unsigned char **sel, struct nns_err *err)
{
	size_t i;

	*sel = malloc(ix->ntracks ? ix->ntracks : 1);
	if (!*sel)
		return nns_err_set(err, NNS_ENOMEM, "out of memory selecting tracks");
	memset(*sel, tracks && ntracks ? 0 : 1, ix->ntracks);
	if (!tracks || !ntracks)
		return NNS_OK;
	for (i = 0; i < ntracks; i++) {
		if (tracks[i] >= ix->ntracks) {
			free(*sel);
			*sel = NULL;
			return nns_err_set(err, NNS_EINVAL,
					   "unknown track id %" PRIu32
					   " (the trace has %zu tracks)",
					   tracks[i], ix->ntracks);
		}
		(*sel)[tracks[i]] = 1;
	}
	return NNS_OK;
}
