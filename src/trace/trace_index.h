/*
 * trace_index.h - the Trace view's level-of-detail index (docs/SERVER.md,
 * "Trace API").
 *
 * trace_index_build() lays the events of a finalized model out once into
 * tracks (one per host thread, one per GPU (device, stream), one per
 * device for GPU annotations) and non-overlapping depth lanes, with the
 * start and end of every event in lane order, so that a window query at
 * px pixels costs O(px * lanes * log n) whatever the number of events in
 * the window: events at least one pixel wide become items and runs of
 * narrower events are merged into summary items by binary searching pixel
 * boundaries. It also prepares the counter series (GPU utilization, memory
 * allocated, model counters, queue sizes, machine CPU utilization) and the
 * forward->backward flow pairs.
 *
 * All times in and out are integer nanoseconds relative to origin_ns
 * (= model.min_ts); an event id is an index into model.events.
 *
 * Threads: the index is read-only after build; every query function may
 * run concurrently on the same index (queries allocate their own scratch).
 *
 * Ownership: trace_index_build() allocates *out, freed by
 * trace_index_free(). The index keeps a pointer to the model, which must
 * outlive it; the profile is read while building only. The query functions append one JSON value to
 * the caller's jsonw (which the caller inits, finishes and releases).
 */
#ifndef NNS_TRACE_INDEX_H
#define NNS_TRACE_INDEX_H

#include "analysis/analysis.h"
#include "common/err.h"
#include "model/model.h"
#include "output/jsonw.h"

#include <stddef.h>
#include <stdint.h>

struct trace_index;

/* Builds the index once; m must outlive it (p, may be NULL, is read now
 * only: GPU utilization and the steps). Allocates *out. NNS_OK /
 * NNS_ENOMEM. */
int trace_index_build(struct trace_index **out, const struct model *m, const struct an_profile *p,
		      struct nns_err *err);
/* Frees everything the index owns (ix may be NULL); not the model or profile. */
void trace_index_free(struct trace_index *ix);
size_t trace_index_bytes(const struct trace_index *ix); /* memory the index holds */

/* Writes the `/api/trace/meta` object. */
void trace_meta_json(const struct trace_index *ix, struct jsonw *w);

struct trace_window_q {
	int64_t t0, t1;
	int px;
	const uint32_t *tracks; /* borrowed, read during the call only */
	size_t ntracks;		/* NULL/0 = all tracks */
};
/* Writes the `/api/trace/window` object.
 * NNS_EINVAL (message says why) for t1 <= t0 or px outside 1..8192 or an unknown track id. */
int trace_window_json(const struct trace_index *ix, const struct trace_window_q *q, struct jsonw *w,
		      struct nns_err *err);
/* Writes the `/api/trace/event` object.
 * NNS_ENOTFOUND for an id that is not an event. */
int trace_event_json(const struct trace_index *ix, int64_t id, struct jsonw *w,
		     struct nns_err *err);
/* Writes the `/api/trace/summary` object (tracks NULL/0 = all tracks).
 * NNS_EINVAL for t1 <= t0 or an unknown track id; NNS_ENOMEM. */
int trace_summary_json(const struct trace_index *ix, int64_t t0, int64_t t1, const uint32_t *tracks,
		       size_t ntracks, struct jsonw *w, struct nns_err *err);

/* ---- snapshots (trace_snap.c) ----
 * The index written after its model's sections in a snapshot file
 * (model.h, common/snapfile.h), and mapped back with it: a restarted
 * server answers the trace API without parsing or indexing again. */

struct snapw;
struct snapr;
/* The layout signature of a snapshot of a model and its index. */
uint64_t trace_index_snap_sig(void);
/* Adds ix's sections to w (failures are kept in w). */
void trace_index_snap_write(const struct trace_index *ix, struct snapw *w);
/* Reads the index of m, a model model_snap_read just read from r, from
 * r's next sections; its arrays stay in m's mapping. Allocates *out, freed
 * by trace_index_free before m is released. NNS_OK, NNS_EFORMAT or
 * NNS_ENOMEM. */
int trace_index_snap_read(struct trace_index **out, const struct model *m, struct snapr *r,
			  struct nns_err *err);

#endif
