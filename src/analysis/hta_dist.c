/*
 * hta_dist.c - HTA's cross-rank figures used by the distributed view
 * (distributed.c): communication/computation overlap of each worker (HTA
 * CommunicationAnalysis.get_comm_comp_overlap) and straggler candidates
 * (after HTA straggler.py's late-start metric, plus a step-time check).
 *
 * Kernel types by name, as HTA's get_kernel_type: a name starting with
 * "nccl" or containing "gloo:" is communication, one containing "Memcpy" or
 * "Memset" is memory, anything else computation. Every device event
 * (kernel, memcpy, memset) is classified.
 *
 * Overlap: comm = union of the communication events' ranges, comp = union
 * of the computation events' ranges, over the whole trace; overlap % =
 * 100 * |comm & comp| / |comm|; undefined (-1, JSON null) without
 * communication events.
 *
 * Stragglers (defined here; HTA's detector needs aligned iterations across
 * ranks and always names its top k): with the median over the workers that
 * have the metric (at least two),
 *   step_time:  the worker's mean step time exceeds the median by more than
 *               HTA_STRAGGLER_STEP_PCT percent (it computes longest);
 *   late_start: the worker's late start (HTA's metric: when, within a step,
 *               the last significant communication kernel starts, as a
 *               fraction of the mean step time; significant = dur >= 1% of
 *               the mean step time) exceeds the median by more than
 *               HTA_STRAGGLER_LATE: it reaches the collective last, so
 *               the others wait for it.
 */
#include "analysis/hta_launch.h"

#include <stdlib.h>
#include <string.h>

int hta_comm_overlap(const struct an_profile *p, double *pct, int64_t *overlap_ns, int64_t *comm_ns,
		     struct nns_err *err)
{
	const struct model *m = p->m;
	struct iv_set comm = {0}, comp = {0}, both = {0};
	size_t i;
	int rc = NNS_ENOMEM;

	*pct = -1;
	*overlap_ns = *comm_ns = 0;
	if (!m)
		return NNS_OK;
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		int t;

		if (!model_kind_is_device(e->kind) || e->dur <= 0)
			continue;
		t = model_event_class(m, (uint32_t)i);
		if (t == MC_COMM && iv_add(&comm, e->ts, e->ts + e->dur))
			goto out;
		if (t == MC_COMPUTE && iv_add(&comp, e->ts, e->ts + e->dur))
			goto out;
	}
	if (iv_merge(&comm) || iv_merge(&comp) || iv_intersect(&comm, &comp, &both))
		goto out;
	*comm_ns = iv_total(&comm);
	*overlap_ns = iv_total(&both);
	if (*comm_ns > 0)
		*pct = 100.0 * (double)*overlap_ns / (double)*comm_ns;
	rc = NNS_OK;
out:
	iv_set_release(&comm);
	iv_set_release(&comp);
	iv_set_release(&both);
	if (rc)
		nns_err_set(err, rc, "out of memory in the overlap analysis");
	return rc;
}

int hta_worker_metrics(const struct an_profile *p, struct hta_worker_metrics *out,
		       struct nns_err *err)
{
	const struct model *m = p->m;
	const struct an_overview *o = &p->overview;
	double mean = 0, late = 0;
	size_t s, i, nlate = 0;
	int64_t *last;

	out->step_time = out->late_start = -1;
	if (!m || !o->steps.n)
		return NNS_OK;
	for (s = 0; s < o->steps.n; s++)
		mean += (double)(o->steps.v[s].end - o->steps.v[s].start);
	mean /= (double)o->steps.n;
	if (mean <= 0)
		return NNS_OK;
	out->step_time = mean;
	if (!(last = malloc(o->steps.n * sizeof(*last)))) {
		nns_err_set(err, NNS_ENOMEM, "out of memory in the straggler analysis");
		return NNS_ENOMEM;
	}
	for (s = 0; s < o->steps.n; s++)
		last[s] = INT64_MIN;
	/* events sorted by start: the last qualifying one of each step wins */
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		size_t lo;

		if (!model_kind_is_device(e->kind) ||
		    (double)e->dur < HTA_STRAGGLER_MIN_NORM * mean ||
		    model_event_class(m, (uint32_t)i) != MC_COMM)
			continue;
		/* the last step starting at or before e->ts (steps sorted, disjoint) */
		lo = iv_bound(o->steps.v, o->steps.n, sizeof(*o->steps.v),
			      offsetof(struct an_step, start), e->ts, 1);
		if (lo && e->ts < o->steps.v[lo - 1].end)
			last[lo - 1] = e->ts;
	}
	for (s = 0; s < o->steps.n; s++)
		if (last[s] != INT64_MIN) {
			late += (double)(last[s] - o->steps.v[s].start) / mean;
			nlate++;
		}
	free(last);
	if (nlate)
		out->late_start = late / (double)nlate;
	return NNS_OK;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median of the values >= 0 of column `late`; -1 with fewer than two */
static double median_of(const struct hta_worker_metrics *w, size_t n, int late, double *tmp)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		double v = late ? w[i].late_start : w[i].step_time;
		if (v >= 0)
			tmp[k++] = v;
	}
	if (k < 2)
		return -1;
	qsort(tmp, k, sizeof(*tmp), dbl_cmp); /* k >= 2 */
	return k % 2 ? tmp[k / 2] : (tmp[k / 2 - 1] + tmp[k / 2]) / 2.0;
}

int hta_stragglers(const struct hta_worker_metrics *w, size_t n, struct hta_straggler **out,
		   size_t *nout, struct nns_err *err)
{
	double *tmp;
	int late;

	*out = NULL;
	*nout = 0;
	if (n < 2)
		return NNS_OK;
	if (!(tmp = malloc(n * sizeof(*tmp))) || !(*out = calloc(2 * n, sizeof(**out)))) {
		free(tmp);
		nns_err_set(err, NNS_ENOMEM, "out of memory in the straggler analysis");
		return NNS_ENOMEM;
	}
	for (late = 0; late < 2; late++) {
		double med = median_of(w, n, late, tmp);
		size_t i;

		if (med < 0)
			continue;
		for (i = 0; i < n; i++) {
			double v = late ? w[i].late_start : w[i].step_time;
			struct hta_straggler *s = &(*out)[*nout];

			if (v < 0)
				continue;
			if (late ? v - med <= HTA_STRAGGLER_LATE
				 : med <= 0 || 100.0 * (v - med) / med <= HTA_STRAGGLER_STEP_PCT)
				continue;
			s->worker = (uint32_t)i;
			strcpy(s->metric, late ? "late_start" : "step_time");
			s->value = v;
			s->median = med;
			s->excess = late ? v - med : 100.0 * (v - med) / med;
			(*nout)++;
		}
	}
	free(tmp);
	return NNS_OK;
}
