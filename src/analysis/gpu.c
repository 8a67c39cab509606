/*
 * gpu.c - GPU summary per device (tb_plugin GPUMetricsParser,
 * TensorCoresParser): utilization, estimated SM efficiency, estimated
 * achieved occupancy, tensor-core ratio, and the utilization timeline.
 *
 * Window = [first step start, last step end]. Only kernels count.
 * Deliberate fixes: a trace shorter than a microsecond gets buckets in
 * nanoseconds instead of crashing; an elementary interval where no kernel
 * runs has SM efficiency exactly 0 (tb_plugin's float sums left 1e-16).
 */
#include "an_gpu.h"
#include "an_tensorcore.h"
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

#define AN_MAX_GPUS 64

const char *an_device_kind(const struct model *m)
{
	const char *k = m ? model_meta_get(m, "device_kind") : NULL;

	return k && *k ? k : "GPU";
}

int an_device_is_npu(const struct model *m)
{
	return strcmp(an_device_kind(m), "NPU") == 0;
}

/* The model's device of e (args.device, else Kineto's pid); 0 if unknown. */
static int device_of(const struct model *m, const struct model_event *e)
{
	int d = model_event_device(m, (uint32_t)(e - m->events.v));

	return d >= 0 ? d : 0;
}

/* ---- the edges of the kernels' blocks per SM, in time order ----------------
 *
 * Each kernel with blocks per SM starts (+bps, +1 active) and ends (-bps,
 * -1), and the edges are swept in the order of a stable sort by time of
 * the list start(k0), end(k0), start(k1), end(k1) ... (kernels in event
 * order): the floating sums depend on it. The starts come with the events,
 * in that order already; the ends wait in a min-heap by (time, kernel),
 * which holds only the kernels that run at once, where a list of all the
 * edges and the sort's copy of it took 32 bytes per kernel. */

/* An end not yet swept. */
struct pend {
	int64_t ts;
	uint32_t k; /* the kernel's rank: on a tie the earlier kernel's end first */
	float bps;
};

struct edges {
	const struct model *m;
	int id;
	size_t i;   /* the event of the next start, when has_start */
	uint32_t k; /* starts swept so far */
	int has_start;
	VEC(struct pend) heap; /* min-heap by (ts, k) */
};

static int pend_less(const struct pend *a, const struct pend *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->k < b->k;
}

static const struct model_dev_args *kernel_bps(const struct model *m, const struct model_event *e,
					       int id)
{
	const struct model_dev_args *a;

	if (e->kind != MK_KERNEL || e->extra == MODEL_NOIDX || device_of(m, e) != id)
		return NULL;
	a = &m->dev_args.v[e->extra];
	return a->blocks_per_sm > 0 ? a : NULL;
}

/* s->i at the next kernel with blocks per SM at or after `from`. */
static void edges_seek(struct edges *s, size_t from)
{
	for (s->i = from; s->i < s->m->events.n; s->i++)
		if (kernel_bps(s->m, &s->m->events.v[s->i], s->id))
			break;
	s->has_start = s->i < s->m->events.n;
}

static int heap_push(struct edges *s, struct pend x)
{
	size_t c;

	if (vec_push(&s->heap, x))
		return NNS_ENOMEM;
	for (c = s->heap.n - 1; c > 0 && pend_less(&x, &s->heap.v[(c - 1) / 2]); c = (c - 1) / 2)
		s->heap.v[c] = s->heap.v[(c - 1) / 2];
	s->heap.v[c] = x;
	return NNS_OK;
}

static struct pend heap_pop(struct edges *s)
{
	struct pend top = s->heap.v[0], last = s->heap.v[--s->heap.n];
	size_t c = 0, n = s->heap.n;

	for (;;) {
		size_t l = 2 * c + 1, min = l;
		if (l >= n)
			break;
		if (l + 1 < n && pend_less(&s->heap.v[l + 1], &s->heap.v[l]))
			min = l + 1;
		if (!pend_less(&s->heap.v[min], &last))
			break;
		s->heap.v[c] = s->heap.v[min];
		c = min;
	}
	if (n)
		s->heap.v[c] = last;
	return top;
}

/* The next edge: 1 with its time, blocks per SM and change of the active
 * count; 0 when none is left; NNS_ENOMEM (< 0). */
static int edges_next(struct edges *s, int64_t *ts, float *bps, int *delta)
{
	const struct model_event *e;
	const struct model_dev_args *a;

	if (s->heap.n && (!s->has_start || s->heap.v[0].ts <= s->m->events.v[s->i].ts)) {
		struct pend end = heap_pop(s);
		*ts = end.ts;
		*bps = -end.bps;
		*delta = -1;
		return 1;
	}
	if (!s->has_start)
		return 0;
	e = &s->m->events.v[s->i];
	a = kernel_bps(s->m, e, s->id);
	if (heap_push(s, (struct pend){e->ts + e->dur, s->k++, a->blocks_per_sm}))
		return NNS_ENOMEM;
	*ts = e->ts;
	*bps = a->blocks_per_sm;
	*delta = 1;
	edges_seek(s, s->i + 1);
	return 1;
}

/* Utilization timeline: the smallest power-of-10 bucket giving <= 100. */
static int util_buckets(struct an_gpu *g, const struct iv_set *busy, int64_t t0, int64_t t1)
{
	int64_t range = t1 - t0, bs = 1, nb, i;

	if (range <= 0)
		return 0;
	while (bs <= (range - 1) / 100) /* range > 100 * bs, without overflow */
		bs *= 10;
	nb = range / bs;
	if (nb == 0)
		nb = 1;
	for (i = 0; i < nb; i++) {
		int64_t s = t0 + i * bs, e = i == nb - 1 ? t1 : s + bs;
		struct an_point pt = {s, (double)iv_total_in(busy, s, e) / (double)(e - s)};
		if (vec_push(&g->util_buckets, pt))
			return NNS_ENOMEM;
	}
	{
		struct an_point end = {t1, 0};
		if (vec_push(&g->util_buckets, end))
			return NNS_ENOMEM;
	}
	return 0;
}

/* SM efficiency per utilization bucket: the time-weighted mean of the
 * elementary ranges, so the timeline stays <= 101 points on any trace. */
static int sm_buckets(struct an_gpu *g)
{
	size_t b, r = 0;

	for (b = 0; b + 1 < g->util_buckets.n; b++) {
		int64_t s = g->util_buckets.v[b].ts, e = g->util_buckets.v[b + 1].ts;
		double acc = 0;
		size_t k;
		while (r < g->sm_ranges.n && g->sm_ranges.v[r].end <= s)
			r++;
		for (k = r; k < g->sm_ranges.n && g->sm_ranges.v[k].start < e; k++) {
			int64_t a = g->sm_ranges.v[k].start > s ? g->sm_ranges.v[k].start : s;
			int64_t z = g->sm_ranges.v[k].end < e ? g->sm_ranges.v[k].end : e;
			if (z > a)
				acc += g->sm_ranges.v[k].value * (double)(z - a);
		}
		struct an_point pt = {s, e > s ? acc / (double)(e - s) : 0};
		if (vec_push(&g->sm_buckets, pt))
			return NNS_ENOMEM;
	}
	if (g->util_buckets.n) {
		struct an_point end = {g->util_buckets.v[g->util_buckets.n - 1].ts, 0};
		if (vec_push(&g->sm_buckets, end))
			return NNS_ENOMEM;
	}
	return 0;
}

/* Device id's SM efficiency ranges and their average over [w0, w1). */
static int sm_efficiency(const struct model *m, int id, struct an_gpu *g, int64_t w0, int64_t w1)
{
	struct edges s = {m, id, 0, 0, 0, {0}};
	double sum = 0, acc = 0;
	int active = 0, delta, r;
	int64_t ts;
	float bps;

	edges_seek(&s, 0);
	r = edges_next(&s, &ts, &bps, &delta);
	while (r == 1) {
		int64_t at = ts, next;
		do {
			sum += bps;
			active += delta;
			r = edges_next(&s, &ts, &bps, &delta);
		} while (r == 1 && ts == at);
		if (r != 1)
			break;
		next = ts;
		if (active > 0 && sum > 0) {
			double v = sum < 1.0 ? sum : 1.0;
			struct an_range_value x = {at, next, v};
			int64_t a = at > w0 ? at : w0, e = next < w1 ? next : w1;
			if (vec_push(&g->sm_ranges, x)) {
				r = NNS_ENOMEM;
				break;
			}
			if (a < e)
				acc += v * (double)(e - a);
		}
		if (active == 0)
			sum = 0; /* no float residue between kernels */
	}
	vec_free(&s.heap);
	if (r < 0)
		return NNS_ENOMEM;
	g->sm_efficiency = w1 > w0 ? acc / (double)(w1 - w0) : 0;
	return 0;
}

/* The counter timeline's span: the "PyTorch Profiler (0)" trace event if
 * any, else the whole trace. */
static void counter_span(const struct model *m, int64_t *t0, int64_t *t1)
{
	size_t i;

	*t0 = m->min_ts;
	*t1 = m->max_end;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB(MK_TRACE)); i++)
		if (m->events.v[i].kind == MK_TRACE &&
		    strncmp(model_str(m, m->events.v[i].name), "PyTorch Profiler", 16) == 0) {
			*t0 = m->events.v[i].ts;
			*t1 = m->events.v[i].ts + m->events.v[i].dur;
			return;
		}
}

/* The devices that ran kernels, ascending, at most AN_MAX_GPUS; returns
 * how many. */
static int kernel_devices(const struct model *m, int ids[AN_MAX_GPUS])
{
	int nids = 0;
	size_t i;

	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB(MK_KERNEL)); i++) {
		const struct model_event *e = &m->events.v[i];
		int k, d, found = 0;
		if (e->kind != MK_KERNEL)
			continue;
		d = device_of(m, e);
		for (k = 0; k < nids && !found; k++)
			found = ids[k] == d;
		if (!found && nids < AN_MAX_GPUS)
			ids[nids++] = d;
	}
	for (int a = 1; a < nids; a++)
		for (int b = a; b > 0 && ids[b - 1] > ids[b]; b--) {
			int t = ids[b];
			ids[b] = ids[b - 1];
			ids[b - 1] = t;
		}
	return nids;
}

/* What one device's kernels add up to over the window [w0, w1). */
struct gpu_sums {
	struct iv_set busy;  /* kernel time, merged */
	size_t ne;	     /* kernels with blocks per SM */
	double occ_w, occ_d; /* occupancy x time, and the time, in the window */
};

/* Sums device id's kernels into x (x->busy reused). */
static int sum_kernels(const struct an_profile *p, int id, int64_t w0, int64_t w1,
		       struct gpu_sums *x)
{
	const struct model *m = p->m;
	size_t i;

	x->busy.r.n = 0;
	x->ne = 0;
	x->occ_w = x->occ_d = 0;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB(MK_KERNEL)); i++) {
		const struct model_event *e = &m->events.v[i];
		const struct model_dev_args *a;
		if (e->kind != MK_KERNEL || device_of(m, e) != id)
			continue;
		if (iv_add_union(&x->busy, e->ts, e->ts + e->dur)) /* in start order */
			return NNS_ENOMEM;
		a = e->extra != MODEL_NOIDX ? &m->dev_args.v[e->extra] : NULL;
		if (a && a->blocks_per_sm > 0)
			x->ne++;
		if (a && a->occupancy >= 0) {
			int64_t s = e->ts > w0 ? e->ts : w0;
			int64_t en = e->ts + e->dur < w1 ? e->ts + e->dur : w1;
			if (en > s) {
				x->occ_w += a->occupancy * (double)(en - s);
				x->occ_d += (double)(en - s);
			}
		}
	}
	iv_merge(&x->busy);
	return 0;
}

/* Device id's summary from its sums, appended to p->gpus. */
static int add_gpu(struct an_profile *p, int id, struct gpu_sums *x, int64_t w0, int64_t w1,
		   int64_t t0, int64_t t1)
{
	struct an_gpu g;
	int has_bps = x->ne > 0;

	memset(&g, 0, sizeof(g));
	g.id = id;
	g.kernel_time = iv_total_in(&x->busy, w0, w1);
	g.utilization = w1 > w0 ? (double)g.kernel_time / (double)(w1 - w0) : 0;
	g.achieved_occupancy = x->occ_d > 0 ? x->occ_w / x->occ_d : -1;
	g.tensor_core_ratio = an_tc_device_ratio(p, g.id);
	if (has_bps) {
		if (sm_efficiency(p->m, id, &g, w0, w1))
			goto fail;
	} else {
		g.sm_efficiency = -1;
	}
	if (util_buckets(&g, &x->busy, t0, t1) || (has_bps && sm_buckets(&g)))
		goto fail;
	vec_free(&g.sm_ranges); /* the buckets are what is read */
	if (vec_push(&p->gpus, g))
		goto fail;
	return 0;
fail:
	vec_free(&g.util_buckets);
	vec_free(&g.sm_ranges);
	vec_free(&g.sm_buckets);
	return NNS_ENOMEM;
}

/* The window the SM efficiency is averaged over: the steps, else none. */
static void step_window(const struct an_profile *p, int64_t *w0, int64_t *w1)
{
	const struct an_overview *o = &p->overview;

	*w0 = *w1 = 0;
	if (o->steps.n) {
		*w0 = o->steps.v[0].start;
		*w1 = o->steps.v[o->steps.n - 1].end;
	}
}

int an_gpu_sm_ranges(const struct an_profile *p, int id, struct an_gpu *out, struct nns_err *err)
{
	int64_t w0, w1;
	struct gpu_sums x;
	int rc = NNS_ENOMEM;

	memset(out, 0, sizeof(*out));
	memset(&x, 0, sizeof(x));
	out->id = id;
	out->sm_efficiency = -1;
	step_window(p, &w0, &w1);
	if (sum_kernels(p, id, w0, w1, &x) || (x.ne && sm_efficiency(p->m, id, out, w0, w1)))
		goto out;
	rc = NNS_OK;
out:
	iv_set_release(&x.busy);
	if (rc) {
		vec_free(&out->sm_ranges);
		nns_err_set(err, rc, "out of memory in the SM efficiency ranges");
	}
	return rc;
}

int an_gpu_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	int64_t w0, w1, t0, t1;
	int ids[AN_MAX_GPUS], nids;
	int rc = NNS_ENOMEM;
	struct gpu_sums x;

	memset(&x, 0, sizeof(x));
	step_window(p, &w0, &w1);
	counter_span(m, &t0, &t1);
	nids = kernel_devices(m, ids);
	for (int k = 0; k < nids; k++)
		if (sum_kernels(p, ids[k], w0, w1, &x) || add_gpu(p, ids[k], &x, w0, w1, t0, t1))
			goto out;
	rc = NNS_OK;
out:
	iv_set_release(&x.busy);
	if (rc)
		nns_err_set(err, rc, "out of memory in the GPU summary");
	return rc;
}
