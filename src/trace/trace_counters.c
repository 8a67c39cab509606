/*
 * trace_counters.c - gathers the counter series of the Trace view at index
 * build: GPU utilization per GPU (from the profile), memory allocated per
 * device ([memory] records with a total), model counters by name, queue
 * sizes by queue name and machine CPU utilization (user + sys), each a
 * time-sorted array of points relative to origin in ix->pts.
 *
 * Ownership: the series and points belong to the index (trace_index_free).
 */
#include "trace/trace_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- build: counters ----------------------------------------------------- */

struct cpt {
	int64_t ikey;
	const char *skey;
	int64_t ts;
	double v;
	size_t idx;
};

static int cmp_cpt(const void *a, const void *b)
{
	const struct cpt *x = a, *y = b;
	int c;

	if (x->ikey != y->ikey)
		return x->ikey < y->ikey ? -1 : 1;
	if (x->skey != y->skey && (c = strcmp(x->skey ? x->skey : "", y->skey ? y->skey : "")) != 0)
		return c;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int add_series(struct trace_index *ix, const char *name, const char *unit, size_t npts,
		      size_t *cap_series)
{
	struct ti_series *s;

	if (vec_reserve_raw((void **)&ix->series, cap_series, ix->nseries + 1, sizeof(*s)) != 0)
		return NNS_ENOMEM;
	s = &ix->series[ix->nseries++];
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->unit, sizeof(s->unit), "%s", unit);
	s->off = ix->npts;
	s->n = npts;
	return NNS_OK;
}

/* Appends the sorted points c[0..n) as series, one per (ikey, skey) run. */
static int add_runs(struct trace_index *ix, struct cpt *c, size_t n, const char *kind,
		    const char *unit, size_t *cap_series, size_t *cap_pts)
{
	size_t i, j, k;
	char name[TI_SERIES_NAME_MAX];

	qsort(c, n, sizeof(*c), cmp_cpt);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && c[j].ikey == c[i].ikey &&
			    (c[j].skey == c[i].skey ||
			     !strcmp(c[j].skey ? c[j].skey : "", c[i].skey ? c[i].skey : ""));
		     j++)
			;
		if (!strcmp(kind, "mem"))
			snprintf(name, sizeof(name),
				 c[i].ikey >> 16 == 1 ? "GPU%d memory allocated"
						      : "CPU memory allocated",
				 (int)(c[i].ikey & 0xffff));
		else if (!strcmp(kind, "queue"))
			snprintf(name, sizeof(name), "%s queue size", c[i].skey ? c[i].skey : "");
		else
			snprintf(name, sizeof(name), "%s", c[i].skey ? c[i].skey : "");
		if (vec_reserve_raw((void **)&ix->pts, cap_pts, ix->npts + (j - i),
				    sizeof(*ix->pts)) != 0)
			return NNS_ENOMEM;
		if (add_series(ix, name, unit, j - i, cap_series) != NNS_OK)
			return NNS_ENOMEM;
		for (k = i; k < j; k++) {
			ix->pts[ix->npts].ts = c[k].ts - ix->origin;
			ix->pts[ix->npts].v = c[k].v;
			ix->npts++;
		}
	}
	return NNS_OK;
}

int ti_build_counters(struct trace_index *ix)
{
	const struct model *m = ix->m;
	size_t cap_series = 0, cap_pts = 0, i, n, mx;
	struct cpt *c;
	int rc = NNS_OK;

	mx = m->mems.n;
	if (m->counters.n > mx)
		mx = m->counters.n;
	if (m->queues.n > mx)
		mx = m->queues.n;
	if (m->samples.n > mx)
		mx = m->samples.n;
	c = malloc((mx + 1) * sizeof(*c));
	if (!c)
		return NNS_ENOMEM;
	/* GPU utilization, one series per GPU, as the analysis bucketed it */
	if (ix->p) {
		for (i = 0; i < ix->p->gpus.n && rc == NNS_OK; i++) {
			const struct an_gpu *g = &ix->p->gpus.v[i];
			char name[64];
			size_t k;
			snprintf(name, sizeof(name), "GPU %d utilization", g->id);
			if (vec_reserve_raw((void **)&ix->pts, &cap_pts,
					    ix->npts + g->util_buckets.n, sizeof(*ix->pts)) != 0) {
				rc = NNS_ENOMEM;
				break;
			}
			rc = add_series(ix, name, "ratio", g->util_buckets.n, &cap_series);
			for (k = 0; rc == NNS_OK && k < g->util_buckets.n; k++) {
				ix->pts[ix->npts].ts = g->util_buckets.v[k].ts - ix->origin;
				ix->pts[ix->npts].v = g->util_buckets.v[k].value;
				ix->npts++;
			}
		}
	}
	for (i = 0, n = 0; i < m->mems.n; i++) {
		const struct model_mem *r = &m->mems.v[i];
		if (!(r->flags & MODEL_MEM_HAS_TOTAL_ALLOC) ||
		    (r->device_type != 0 && r->device_type != 1))
			continue;
		c[n] = (struct cpt){(int64_t)r->device_type << 16 | (uint16_t)r->device_id, NULL,
				    r->ts, (double)r->total_allocated, i};
		n++;
	}
	if (rc == NNS_OK)
		rc = add_runs(ix, c, n, "mem", "bytes", &cap_series, &cap_pts);
	for (i = 0; i < m->counters.n; i++) {
		const struct model_counter *r = &m->counters.v[i];
		c[i] = (struct cpt){0, model_str(m, r->name), r->ts, r->value, i};
	}
	if (rc == NNS_OK)
		rc = add_runs(ix, c, m->counters.n, "counter", "value", &cap_series, &cap_pts);
	for (i = 0; i < m->queues.n; i++) {
		const struct model_queue *r = &m->queues.v[i];
		c[i] = (struct cpt){0, model_str(m, r->name), r->ts, (double)r->size, i};
	}
	if (rc == NNS_OK)
		rc = add_runs(ix, c, m->queues.n, "queue", "items", &cap_series, &cap_pts);
	for (i = 0, n = 0; i < m->samples.n; i++) {
		const struct model_sample *r = &m->samples.v[i];
		if (r->kind == MS_MACHINE)
			c[n++] = (struct cpt){0, "CPU utilization", r->ts,
					      (double)r->user + (double)r->sys, i};
	}
	if (rc == NNS_OK)
		rc = add_runs(ix, c, n, "cpu", "percent", &cap_series, &cap_pts);
	free(c);
	return rc;
}
