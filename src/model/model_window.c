/*
 * model_window.c - cuts a finalized model down to a time window: what
 * `nnscope analyse --steps A-B` (MindSpore's analyse(step_list=...)) runs
 * on. Host events are kept when they overlap the window; device events go
 * with their launch (a kernel launched in the window and run after it is
 * part of the window's work), or, without a launch, when they overlap it;
 * memory records, flows, counters and nnscope's own rows when their time
 * falls inside. The model is finalized again afterwards.
 */
#include "model/model.h"

#include <stdlib.h>

static int overlaps(int64_t ts, int64_t dur, int64_t t0, int64_t t1)
{
	if (dur <= 0)
		return ts >= t0 && ts <= t1;
	return ts < t1 && ts + dur > t0;
}

#define KEEP_ROWS(vec, t0, t1)                                                                     \
	do {                                                                                       \
		size_t i_, n_ = 0;                                                                 \
		for (i_ = 0; i_ < (vec)->n; i_++)                                                  \
			if ((vec)->v[i_].ts >= (t0) && (vec)->v[i_].ts <= (t1))                    \
				(vec)->v[n_++] = (vec)->v[i_];                                     \
		(vec)->n = n_;                                                                     \
	} while (0)

int model_keep_window(struct model *m, int64_t t0, int64_t t1, struct nns_err *err)
{
	size_t n = m->events.n, i, kept = 0;
	uint8_t *keep;

	if (!m->finalized)
		return nns_err_set(err, NNS_EINVAL,
				   "model_keep_window: the model is not finalized");
	if (t1 < t0)
		return nns_err_set(err, NNS_EINVAL, "model_keep_window: empty window");
	keep = calloc(n + 1, 1);
	if (!keep)
		return nns_err_set(err, NNS_ENOMEM, "out of memory cutting %zu events", n);
	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (!model_kind_is_device(e->kind))
			keep[i] = (uint8_t)overlaps(e->ts, e->dur, t0, t1);
	}
	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t l = model_launch_of(m, i);
		if (model_kind_is_device(e->kind))
			keep[i] =
			    (uint8_t)(l != MODEL_NOIDX ? keep[l] : overlaps(e->ts, e->dur, t0, t1));
	}
	for (i = 0; i < n; i++)
		if (keep[i])
			m->events.v[kept++] = m->events.v[i];
	m->events.n = kept;
	free(keep);
	KEEP_ROWS(&m->mems, t0, t1);
	KEEP_ROWS(&m->flows, t0, t1);
	KEEP_ROWS(&m->counters, t0, t1);
	KEEP_ROWS(&m->queues, t0, t1);
	KEEP_ROWS(&m->samples, t0, t1);
	free(m->launch_of);
	m->launch_of = NULL;
	model_index_release(m);
	m->finalized = 0;
	return model_finalize(m, err);
}
