/*
 * hostinfo.c - the host-info analysis (SPEC §3; reference mindinsight.md
 * "host_info CSV"): per (module, event, stage) execution times and the
 * host memory curve from the host_info CSV rows in model.host.
 *
 * Times, as MindSpore's _calculate_dataset_item / _extract_timeline_item:
 * rows with time_stamp > 0 are paired per (event, stage, tid, pid) in file
 * order; a start (start_end 0) opens the pair (a second start replaces the
 * first, as MindSpore's dict does), an end (1) closes an open pair and adds
 * end - start to its (module, event, stage) row; an end with nothing open
 * is counted in unmatched_ends, starts never closed in unmatched_starts,
 * instants (2) in instants. MindSpore only averaged module "Dataset" and
 * grouped by custom_info too; here every module is kept and custom_info is
 * not part of the key (it varies per call).
 *
 * Memory: rows with memory_usage > 0, in time order, down-sampled to at
 * most 2000 points keeping each bucket's maximum (so the peak survives).
 */
#include "an_hostinfo.h"
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

#define HOST_MEM_POINTS 2000

void an_hostinfo_release(struct an_hostinfo *h)
{
	vec_free(&h->rows);
	vec_free(&h->memory);
	memset(h, 0, sizeof(*h));
}

struct pair_key {
	uint32_t event, stage;
	int64_t tid, pid;
	uint32_t idx; /* row index (file order) */
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair_key *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int same_group(const struct pair_key *a, const struct pair_key *b)
{
	return a->event == b->event && a->stage == b->stage && a->tid == b->tid && a->pid == b->pid;
}

static int row_cmp(const void *a, const void *b)
{
	const struct an_host_row *x = a, *y = b;

	if (x->total_us != y->total_us)
		return x->total_us > y->total_us ? -1 : 1;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return (x->stage > y->stage) - (x->stage < y->stage);
}

/* The row of (module, event, stage), added if new; NULL when out of memory. */
static struct an_host_row *row_of(struct an_hostinfo *h, const struct model_host *r, size_t *hint)
{
	struct an_host_row nr;

	if (*hint < h->rows.n) {
		struct an_host_row *x = &h->rows.v[*hint];

		if (x->module == r->module && x->event == r->event && x->stage == r->stage)
			return x;
	}
	for (size_t i = h->rows.n; i-- > 0;) {
		struct an_host_row *x = &h->rows.v[i];

		if (x->module == r->module && x->event == r->event && x->stage == r->stage) {
			*hint = i;
			return x;
		}
	}
	memset(&nr, 0, sizeof(nr));
	nr.module = r->module;
	nr.event = r->event;
	nr.stage = r->stage;
	nr.level = r->level;
	nr.min_us = INT64_MAX;
	if (vec_push(&h->rows, nr))
		return NULL;
	*hint = h->rows.n - 1;
	return &h->rows.v[h->rows.n - 1];
}

static int durations(const struct model *m, struct an_hostinfo *h)
{
	size_t n = 0, hint = 0;
	struct pair_key *k = malloc((m->host.n + 1) * sizeof(*k));

	if (!k)
		return NNS_ENOMEM;
	for (size_t i = 0; i < m->host.n; i++) {
		const struct model_host *r = &m->host.v[i];

		if (r->ts_us <= 0)
			continue;
		h->records++;
		if (r->start_end == 2) {
			h->instants++;
			continue;
		}
		k[n].event = r->event;
		k[n].stage = r->stage;
		k[n].tid = r->tid;
		k[n].pid = r->pid;
		k[n].idx = (uint32_t)i;
		n++;
	}
	qsort(k, n, sizeof(*k), pair_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t open = -1; /* row index of the open start */

		while (j < n && same_group(&k[i], &k[j])) {
			const struct model_host *r = &m->host.v[k[j].idx];

			if (r->start_end == 0) {
				if (open >= 0)
					h->unmatched_starts++;
				open = k[j].idx;
			} else if (open < 0) {
				h->unmatched_ends++;
			} else {
				const struct model_host *s = &m->host.v[open];
				struct an_host_row *row = row_of(h, s, &hint);
				int64_t d = r->ts_us - s->ts_us;

				if (!row) {
					free(k);
					return NNS_ENOMEM;
				}
				if (d < 0)
					d = 0;
				row->count++;
				row->total_us += d;
				if (d < row->min_us)
					row->min_us = d;
				if (d > row->max_us)
					row->max_us = d;
				open = -1;
			}
			j++;
		}
		if (open >= 0)
			h->unmatched_starts++;
		i = j;
	}
	free(k);
	for (size_t i = 0; i < h->rows.n; i++) {
		struct an_host_row *x = &h->rows.v[i];

		x->avg_us = x->count ? (double)x->total_us / (double)x->count : 0;
		if (!x->count)
			x->min_us = 0;
	}
	if (h->rows.n > 1)
		qsort(h->rows.v, h->rows.n, sizeof(*h->rows.v), row_cmp);
	return 0;
}

struct mem_pt {
	int64_t ts, kb;
};

static int mem_cmp(const void *a, const void *b)
{
	const struct mem_pt *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int memory(const struct model *m, struct an_hostinfo *h)
{
	struct mem_pt *pts = malloc((m->host.n + 1) * sizeof(*pts));
	size_t n = 0, per;
	int64_t off = m->mono_offset_ns;

	if (!pts)
		return NNS_ENOMEM;
	h->aligned = off != MODEL_NONE;
	for (size_t i = 0; i < m->host.n; i++) {
		const struct model_host *r = &m->host.v[i];
		int64_t ns;

		if (r->memory_kb <= 0)
			continue;
		ns = r->ts_us > INT64_MAX / 1000 ? INT64_MAX : r->ts_us < 0 ? 0 : r->ts_us * 1000;
		if (h->aligned && ns < INT64_MAX - (off > 0 ? off : 0))
			ns += off;
		pts[n].ts = ns;
		pts[n].kb = r->memory_kb;
		if (r->memory_kb > h->peak_kb)
			h->peak_kb = r->memory_kb;
		n++;
	}
	qsort(pts, n, sizeof(*pts), mem_cmp);
	per = (n + HOST_MEM_POINTS - 1) / HOST_MEM_POINTS;
	for (size_t i = 0; i < n; i += per) {
		struct an_host_mem pt = {pts[i].ts, pts[i].kb};

		for (size_t j = i + 1; j < i + per && j < n; j++)
			if (pts[j].kb > pt.memory_kb)
				pt.memory_kb = pts[j].kb;
		if (vec_push(&h->memory, pt)) {
			free(pts);
			return NNS_ENOMEM;
		}
	}
	free(pts);
	return 0;
}

int an_hostinfo_compute(struct an_profile *p, struct nns_err *err)
{
	struct an_hostinfo *h = &p->hostinfo;

	memset(h, 0, sizeof(*h));
	if (durations(p->m, h) || memory(p->m, h))
		return nns_err_set(err, NNS_ENOMEM, "out of memory in the host-info analysis");
	return NNS_OK;
}
