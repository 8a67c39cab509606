/*
 * trace_snap.c - the trace index in a snapshot file, after its model's
 * sections (trace_index.h, "snapshots").
 *
 * Sections, in this order: the scalars (struct tsnap_head), tracks, lanes,
 * the four per-event lane arrays, each skip level, the thread, stream and
 * annotation track maps, counter series and their points, the fwd/bwd
 * pairs, the launched events and the steps. Read back, the index's arrays
 * point into the model's mapping; the counts are checked against the head
 * and the model, and the small arrays that place everything else (tracks,
 * lanes, track maps, series) against each other, so that a damaged file
 * cannot send a query outside the arrays; the per-event contents are the
 * cache's own (checking them would read the whole file).
 */
#include "common/snapfile.h"
#include "common/strhash.h"
#include "trace/trace_internal.h"

#include <stdlib.h>
#include <string.h>

#define TRACE_SNAP_VERSION 1u

enum {
	TS_HEAD = 0x200,
	TS_TRACKS,
	TS_LANES,
	TS_LANE_S,
	TS_LANE_D,
	TS_LANE_ID,
	TS_LANE_NAME,
	TS_LEVEL,
	TS_THREAD_TRACK,
	TS_STREAM_TRACKS,
	TS_ANNOT_TRACKS,
	TS_SERIES,
	TS_PTS,
	TS_FB,
	TS_FB_TO,
	TS_LAUNCHED,
	TS_STEPS,
};

struct tsnap_head {
	int64_t origin, end;
	uint64_t ntracks, nlanes, nev, nstream, nannot, nseries, npts, nfb, nlaunched, nsteps;
	uint64_t nthreads, lvl_n[TI_MAX_LEVELS];
	int32_t nlvl, all_on_threads;
};

uint64_t trace_index_snap_sig(void)
{
	const uint64_t sizes[] = {TRACE_SNAP_VERSION,
				  sizeof(struct tsnap_head),
				  sizeof(struct ti_track),
				  sizeof(struct ti_lane),
				  sizeof(struct ti_series),
				  sizeof(struct ti_point),
				  sizeof(struct ti_step),
				  TI_MAX_LEVELS,
				  TI_FAN_BITS,
				  model_snap_sig()};

	return strhash_add(STRHASH_INIT, sizes, sizeof(sizes));
}

void trace_index_snap_write(const struct trace_index *ix, struct snapw *w)
{
	struct tsnap_head h;

	memset(&h, 0, sizeof(h));
	h.origin = ix->origin;
	h.end = ix->end;
	h.ntracks = ix->ntracks;
	h.nlanes = ix->nlanes;
	h.nev = ix->nev;
	h.nstream = ix->nstream;
	h.nannot = ix->nannot;
	h.nseries = ix->nseries;
	h.npts = ix->npts;
	h.nfb = ix->nfb;
	h.nlaunched = ix->nlaunched;
	h.nsteps = ix->nsteps;
	h.nthreads = ix->m->threads.n;
	h.nlvl = ix->nlvl;
	h.all_on_threads = ix->all_on_threads;
	for (int l = 0; l < ix->nlvl; l++)
		h.lvl_n[l] = ix->lvl_n[l];
	snapw_add(w, TS_HEAD, &h, sizeof(h));
	snapw_add(w, TS_TRACKS, ix->tracks, ix->ntracks * sizeof(*ix->tracks));
	snapw_add(w, TS_LANES, ix->lanes, ix->nlanes * sizeof(*ix->lanes));
	snapw_add(w, TS_LANE_S, ix->lane_s, ix->nev * sizeof(*ix->lane_s));
	snapw_add(w, TS_LANE_D, ix->lane_d, ix->nev * sizeof(*ix->lane_d));
	snapw_add(w, TS_LANE_ID, ix->lane_id, ix->nev * sizeof(*ix->lane_id));
	snapw_add(w, TS_LANE_NAME, ix->lane_name, ix->nev * sizeof(*ix->lane_name));
	for (int l = 0; l < ix->nlvl; l++)
		snapw_add(w, TS_LEVEL, ix->lvl[l], ix->lvl_n[l] * sizeof(*ix->lvl[l]));
	snapw_add(w, TS_THREAD_TRACK, ix->thread_track,
		  ix->m->threads.n * sizeof(*ix->thread_track));
	snapw_add(w, TS_STREAM_TRACKS, ix->stream_tracks, ix->nstream * sizeof(*ix->stream_tracks));
	snapw_add(w, TS_ANNOT_TRACKS, ix->annot_tracks, ix->nannot * sizeof(*ix->annot_tracks));
	snapw_add(w, TS_SERIES, ix->series, ix->nseries * sizeof(*ix->series));
	snapw_add(w, TS_PTS, ix->pts, ix->npts * sizeof(*ix->pts));
	snapw_add(w, TS_FB, ix->fb, ix->nfb * sizeof(*ix->fb));
	snapw_add(w, TS_FB_TO, ix->fb_to, ix->nfb * sizeof(*ix->fb_to));
	snapw_add(w, TS_LAUNCHED, ix->launched, ix->nlaunched * sizeof(*ix->launched));
	snapw_add(w, TS_STEPS, ix->steps, ix->nsteps * sizeof(*ix->steps));
}

/* Points arr at the next section, which must hold exactly want rows. */
#define MAP(tag, arr, want)                                                                        \
	do {                                                                                       \
		size_t n_;                                                                         \
		const void *p_ = snapr_next(r, tag, sizeof(*(arr)), &n_, err);                     \
		if (!p_)                                                                           \
			goto bad;                                                                  \
		if (n_ != (size_t)(want)) {                                                        \
			nns_err_set(err, NNS_EFORMAT,                                              \
				    "snapshot: trace section %d has %zu rows, not %zu", tag, n_,   \
				    (size_t)(want));                                               \
			goto bad;                                                                  \
		}                                                                                  \
		(arr) = (void *)p_;                                                                \
	} while (0)

/* 1 when tracks, lanes, track maps and series place only what exists. */
static int layout_ok(const struct trace_index *ix, size_t nthreads)
{
	size_t i;

	for (i = 0; i < ix->ntracks; i++) {
		const struct ti_track *t = &ix->tracks[i];

		if (t->lane0 > ix->nlanes || t->nlanes > ix->nlanes - t->lane0 ||
		    t->nregular > t->nlanes || t->kind > TI_ANNOT ||
		    (t->kind == TI_THREAD && t->thread >= nthreads) ||
		    memchr(t->group, 0, sizeof(t->group)) == NULL ||
		    memchr(t->name, 0, sizeof(t->name)) == NULL)
			return 0;
	}
	for (i = 0; i < ix->nlanes; i++)
		if (ix->lanes[i].track >= ix->ntracks || ix->lanes[i].off > ix->nev ||
		    ix->lanes[i].n > ix->nev - ix->lanes[i].off)
			return 0;
	for (i = 0; i < nthreads; i++)
		if (ix->thread_track[i] != UINT32_MAX && ix->thread_track[i] >= ix->ntracks)
			return 0;
	for (i = 0; i < ix->nstream; i++)
		if (ix->stream_tracks[i] >= ix->ntracks)
			return 0;
	for (i = 0; i < ix->nannot; i++)
		if (ix->annot_tracks[i] >= ix->ntracks)
			return 0;
	for (i = 0; i < ix->nseries; i++)
		if (ix->series[i].off > ix->npts ||
		    ix->series[i].n > ix->npts - ix->series[i].off ||
		    memchr(ix->series[i].name, 0, sizeof(ix->series[i].name)) == NULL ||
		    memchr(ix->series[i].unit, 0, sizeof(ix->series[i].unit)) == NULL)
			return 0;
	for (i = 0; i < ix->nsteps; i++)
		if (memchr(ix->steps[i].name, 0, sizeof(ix->steps[i].name)) == NULL)
			return 0;
	return 1;
}

int trace_index_snap_read(struct trace_index **out, const struct model *m, struct snapr *r,
			  struct nns_err *err)
{
	const struct tsnap_head *hp;
	struct trace_index *ix;
	size_t nh;

	*out = NULL;
	if (!(hp = snapr_next(r, TS_HEAD, sizeof(*hp), &nh, err)))
		return NNS_EFORMAT;
	if (nh != 1 || hp->nev != m->events.n || hp->nthreads != m->threads.n || hp->nlvl < 0 ||
	    hp->nlvl > TI_MAX_LEVELS)
		return nns_err_set(err, NNS_EFORMAT,
				   "snapshot: the trace index is not its model's");
	if (!(ix = calloc(1, sizeof(*ix))))
		return nns_err_set(err, NNS_ENOMEM, "snapshot: out of memory");
	ix->m = m;
	ix->mapped = 1;
	ix->origin = hp->origin;
	ix->end = hp->end;
	ix->ntracks = hp->ntracks;
	ix->nlanes = hp->nlanes;
	ix->nev = hp->nev;
	ix->nstream = hp->nstream;
	ix->nannot = hp->nannot;
	ix->nseries = hp->nseries;
	ix->npts = hp->npts;
	ix->nfb = hp->nfb;
	ix->nlaunched = hp->nlaunched;
	ix->nsteps = hp->nsteps;
	ix->nlvl = hp->nlvl;
	ix->all_on_threads = hp->all_on_threads;
	MAP(TS_TRACKS, ix->tracks, ix->ntracks);
	MAP(TS_LANES, ix->lanes, ix->nlanes);
	MAP(TS_LANE_S, ix->lane_s, ix->nev);
	MAP(TS_LANE_D, ix->lane_d, ix->nev);
	MAP(TS_LANE_ID, ix->lane_id, ix->nev);
	MAP(TS_LANE_NAME, ix->lane_name, ix->nev);
	for (int l = 0; l < ix->nlvl; l++) {
		ix->lvl_n[l] = hp->lvl_n[l];
		MAP(TS_LEVEL, ix->lvl[l], ix->lvl_n[l]);
	}
	MAP(TS_THREAD_TRACK, ix->thread_track, m->threads.n);
	MAP(TS_STREAM_TRACKS, ix->stream_tracks, ix->nstream);
	MAP(TS_ANNOT_TRACKS, ix->annot_tracks, ix->nannot);
	MAP(TS_SERIES, ix->series, ix->nseries);
	MAP(TS_PTS, ix->pts, ix->npts);
	MAP(TS_FB, ix->fb, ix->nfb);
	MAP(TS_FB_TO, ix->fb_to, ix->nfb);
	MAP(TS_LAUNCHED, ix->launched, ix->nlaunched);
	MAP(TS_STEPS, ix->steps, ix->nsteps);
	if (!layout_ok(ix, m->threads.n)) {
		nns_err_set(err, NNS_EFORMAT, "snapshot: the trace index's layout is damaged");
		goto bad;
	}
	*out = ix;
	return NNS_OK;
bad:
	free(ix);
	return err && err->code ? err->code : NNS_EFORMAT;
}
