/*
 * trace_internal.h - the layout of struct trace_index shared by the
 * trace_*.c files (build, window query, event details and summary), and
 * small helpers: binary searches over lanes and a scratch hash map.
 *
 * Layout: tracks hold consecutive lanes (depth rows); lane L's events are
 * lane_s/lane_d/lane_id/lane_name[lanes[L].off .. off+n), sorted by start, never
 * overlapping, so ends are sorted too. Times are relative to origin.
 *
 * Ownership: everything reachable from struct trace_index is owned by it
 * (trace_index_free); the model and profile are borrowed.
 */
#ifndef NNS_TRACE_INTERNAL_H
#define NNS_TRACE_INTERNAL_H

#include "common/vec.h"
#include "trace/trace_index.h"

#include <stdint.h>
#include <stdlib.h>

enum { TI_THREAD = 0, TI_STREAM = 1, TI_ANNOT = 2 };

#define TI_GROUP_MAX 96
#define TI_NAME_MAX 192
#define TI_SERIES_NAME_MAX 160
#define TI_MAX_FLOWS 5000
#define TI_MAX_LINK_KERNELS 50
#define TI_MAX_SUMMARY_ROWS 500
#define TI_MAX_LANES_PER_TRACK 65536
#define TI_MAX_LEVELS 8 /* 16^8 > UINT32_MAX events */
#define TI_FAN_BITS 4

struct ti_track {
	char group[TI_GROUP_MAX];
	char name[TI_NAME_MAX];
	uint8_t kind;	   /* TI_* */
	uint32_t thread;   /* TI_THREAD: model thread index */
	int64_t dev;	   /* TI_STREAM / TI_ANNOT */
	int64_t stream;	   /* TI_STREAM */
	uint32_t lane0;	   /* first lane */
	uint32_t nlanes;   /* regular depths then overflow lanes */
	uint32_t nregular; /* lanes [0, nregular) nest by depth */
	uint64_t events;
};

struct ti_lane {
	uint32_t track;
	uint32_t depth; /* within the track */
	size_t off, n;	/* into lane_s/lane_d/lane_id/lane_name */
};

struct ti_point {
	int64_t ts; /* relative to origin */
	double v;
};

struct ti_series {
	char name[TI_SERIES_NAME_MAX];
	char unit[16];
	size_t off, n; /* into pts */
};

/* A step of the profile's overview, as the meta document shows it
 * (absolute ns): copied at build so that the index answers without the
 * profile (a snapshot's index has none). */
struct ti_step {
	char name[32];
	int64_t start, end;
};

struct trace_index {
	const struct model *m;
	const struct an_profile *p; /* while building only; NULL after */
	int64_t origin, end;	    /* end relative */
	/* read from a snapshot (trace_snap.c): every array lies in the
	 * model's mapping, and trace_index_free frees only the struct */
	int mapped;

	struct ti_track *tracks;
	size_t ntracks;
	struct ti_lane *lanes;
	size_t nlanes;
	/* per event in lane order, 20 bytes: start (relative ns), duration
	 * (UINT32_MAX: 4.29 s or more, read the model), event id, name id */
	int64_t *lane_s;
	uint32_t *lane_d, *lane_id, *lane_name;
	size_t nev;

	/* skip levels over key(i) = max(dur of i, gap before i in its lane):
	 * lvl[l][b] = max key over events [b * 16^(l+1), (b+1) * 16^(l+1)).
	 * A window query finds the end of a run of sub-pixel events closer
	 * than a pixel (the first key >= a pixel) in O(16 * levels). */
	int64_t *lvl[TI_MAX_LEVELS];
	size_t lvl_n[TI_MAX_LEVELS];
	int nlvl;

	uint32_t *thread_track;	 /* per model thread: host track or UINT32_MAX */
	uint32_t *stream_tracks; /* TI_STREAM tracks sorted by (dev, stream) */
	size_t nstream;
	uint32_t *annot_tracks; /* TI_ANNOT tracks sorted by dev */
	size_t nannot;

	struct ti_series *series;
	size_t nseries;
	struct ti_point *pts;
	size_t npts;

	uint32_t (*fb)[2]; /* fwdbwd (from, to) event pairs sorted by from */
	uint32_t *fb_to;   /* indices into fb sorted by fb[.][1] */
	size_t nfb;

	uint32_t *launched; /* device events with a launch, sorted by launch_of */

	struct ti_step *steps;
	size_t nsteps;

	/* every event on its thread's track, device events too (model metadata
	 * "trace_tracks" = "threads": an msprof timeline, whose planes are the
	 * file's processes and threads) */
	int all_on_threads;
	size_t nlaunched;
};

/* ---- lanes ------------------------------------------------------------- */

static inline int64_t ti_dur(const struct trace_index *ix, size_t i)
{
	uint32_t d = ix->lane_d[i];
	return d != UINT32_MAX ? (int64_t)d : ix->m->events.v[ix->lane_id[i]].dur;
}

static inline int64_t ti_end(const struct trace_index *ix, size_t i)
{
	return ix->lane_s[i] + ti_dur(ix, i);
}

/* First index in [lo, hi) of lane arrays whose event overlaps or follows t0
 * (end > t0, or start >= t0 for zero-length events). */
static inline size_t ti_first_after(const struct trace_index *ix, size_t lo, size_t hi, int64_t t0)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ti_end(ix, mid) > t0 || ix->lane_s[mid] >= t0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* First index in [lo, hi) whose start is >= t. */
static inline size_t ti_first_start_ge(const int64_t *s, size_t lo, size_t hi, int64_t t)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid] >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* First index of ix->fb whose from-event is >= id (ix->nfb if none). */
static inline size_t ti_fb_first(const struct trace_index *ix, uint32_t id)
{
	size_t lo = 0, hi = ix->nfb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->fb[mid][0] >= id)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* key(i) for i > the first index of its lane. */
static inline int64_t ti_key(const struct trace_index *ix, size_t i)
{
	int64_t d = ti_dur(ix, i), g = ix->lane_s[i] - ti_end(ix, i - 1);
	return d > g ? d : g;
}

/* First index in [from, hi) with key >= thr, or hi; from must be past
 * the first index of the lane holding [from, hi). */
static inline size_t ti_find_key_ge(const struct trace_index *ix, size_t from, size_t hi,
				    int64_t thr)
{
	size_t i = from;

	while (i < hi) {
		int l;
		for (l = ix->nlvl; l >= 1; l--) {
			size_t bs = (size_t)1 << (TI_FAN_BITS * l);
			if ((i & (bs - 1)) == 0 && i + bs <= hi &&
			    ix->lvl[l - 1][i >> (TI_FAN_BITS * l)] < thr)
				break;
		}
		if (l >= 1) {
			i += (size_t)1 << (TI_FAN_BITS * l);
			continue;
		}
		if (ti_key(ix, i) >= thr)
			return i;
		i++;
	}
	return hi;
}

/* Finds the lane and position of event id; 0 or -1 if not indexed. */
int ti_locate(const struct trace_index *ix, uint32_t id, uint32_t *lane, size_t *pos);
/* The track an event belongs on, UINT32_MAX if none. */
uint32_t ti_track_of(const struct trace_index *ix, uint32_t id);
/* Innermost event on track `track` containing relative time t, searching
 * lanes below `below_depth` (UINT32_MAX = all); MODEL_NOIDX if none. */
uint32_t ti_innermost_at(const struct trace_index *ix, uint32_t track, int64_t t,
			 uint32_t below_depth);
/* Host event kinds go on thread tracks (not device, not GPU annotation). */
int ti_is_host(int kind);
/* Whether an event of kind goes on its thread's track in ix. */
static inline int ti_on_thread(const struct trace_index *ix, int kind)
{
	return ix->all_on_threads || ti_is_host(kind);
}
/* The integer in s, after a non-digit prefix ("stream 7"); *ok = 0 if none. */
int64_t ti_num_in(const char *s, int *ok);
/* Device and stream of a device event or GPU annotation (from args, else
 * the thread's pid / tid numbers, else 0). Not model_event_device/_stream:
 * those read only plain numbers (and "stream N") below 4096 and answer -1
 * where this reads the first number in the text ("GPU 2") and answers 0,
 * so the tracks of odd pids would move. */
void ti_dev_stream(const struct model *m, const struct model_event *e, int64_t *dev,
		   int64_t *stream);
/* Gathers the counter series (trace_counters.c); NNS_OK / NNS_ENOMEM. */
int ti_build_counters(struct trace_index *ix);
/* Validates a track filter into sel (ntracks bytes, 1 = selected). */
int ti_select_tracks(const struct trace_index *ix, const uint32_t *tracks, size_t ntracks,
		     unsigned char **sel, struct nns_err *err);

/* ---- scratch hash map uint32 -> uint32 (per query, open addressing) -----
 * Not common/hmap: this one is sized for the query up front and its lookup
 * is inline with 8-byte slots; window queries over hmap were ~15 % slower
 * in bench/lod. */

static inline size_t ti_hash(uint32_t key)
{
	uint64_t x = (uint64_t)key * 0x9E3779B97F4A7C15ull;
	return (size_t)(x >> 32 ^ x);
}

struct ti_map {
	uint32_t *keys; /* UINT32_MAX = empty */
	uint32_t *vals;
	size_t mask, n;
};

int ti_map_init(struct ti_map *h, size_t expect);
void ti_map_release(struct ti_map *h);
/* Returns a pointer to key's value, inserting it with value `v` when new
 * (*isnew set); NULL on allocation failure. */
uint32_t *ti_map_put(struct ti_map *h, uint32_t key, uint32_t v, int *isnew);
/* The value of key or NULL. */
static inline const uint32_t *ti_map_get(const struct ti_map *h, uint32_t key)
{
	size_t i;
	if (!h->keys)
		return NULL;
	i = ti_hash(key) & h->mask;
	while (h->keys[i] != UINT32_MAX) {
		if (h->keys[i] == key)
			return &h->vals[i];
		i = (i + 1) & h->mask;
	}
	return NULL;
}

#endif
