/*
 * hta_annotations.c - user-annotation breakdown of one worker (HTA
 * get_gpu_user_annotation_breakdown with use_gpu_annotation false/true, and
 * get_gpu_kernels_with_user_annotations).
 *
 * CPU side: user_annotation events (record_function ranges, ProfilerStep#N
 * included) grouped by name: count, summed dur. GPU side: the same for
 * gpu_user_annotation events, and each device event (kernel, memcpy,
 * memset) attributed to the innermost GPU annotation of its own track (pid,
 * tid: the stream) that covers its start (a.ts <= k.ts < a.ts + a.dur;
 * innermost = the latest-starting of the covering ones, as a stack over
 * events sorted by (ts, -dur) gives; of annotations starting together the
 * shorter, and an annotation starting with a kernel covers it). Per GPU annotation name the covered
 * kernels are grouped by name and the top HTA_ANNO_KERNELS_MAX by time kept.
 */
#include "analysis/hta_launch.h"

#include <stdlib.h>
#include <string.h>

struct agg {
	uint32_t key;  /* annotation name */
	uint32_t sub;  /* kernel name (kernel aggregation) */
	int64_t count; /* 1 per input event until merged */
	int64_t sum;
};

static int agg_key_cmp(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->sub > y->sub) - (x->sub < y->sub);
}

/* sum desc, then key/sub asc (deterministic) */
static int agg_sum_cmp(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return agg_key_cmp(a, b);
}

/* Sorts v[0..n) by (key, sub) and merges equal pairs; returns the new n. */
static size_t agg_merge(struct agg *v, size_t n)
{
	size_t i, o = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), agg_key_cmp);
	for (i = 0; i < n; i++) {
		if (o && v[o - 1].key == v[i].key && v[o - 1].sub == v[i].sub) {
			v[o - 1].count += v[i].count;
			v[o - 1].sum += v[i].sum;
		} else {
			v[o++] = v[i];
		}
	}
	return o;
}

typedef VEC(struct agg) agg_vec;

/* Rows from the merged aggregates of one side, by sum, capped. */
static int rows_of(agg_vec *a, hta_anno_vec *rows, int64_t *more)
{
	size_t i, n = agg_merge(a->v, a->n);

	a->n = n;
	if (n > 1)
		qsort(a->v, n, sizeof(*a->v), agg_sum_cmp);
	for (i = 0; i < n; i++) {
		struct hta_anno_row r;

		if (i >= HTA_ANNO_ROWS_MAX) {
			(*more)++;
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.name = a->v[i].key;
		r.count = a->v[i].count;
		r.sum = a->v[i].sum;
		if (vec_push(rows, r))
			return NNS_ENOMEM;
	}
	return 0;
}

/* Kernels under GPU annotations: per device event the innermost covering
 * annotation of its thread, aggregated into ka (key: annotation name). */
static int cover(const struct model *m, agg_vec *ka, int64_t *devs, int64_t *covered)
{
	uint32_t *top = NULL, *up = NULL;
	size_t i, nt = m->threads.n;
	int rc = NNS_ENOMEM;

	top = malloc((nt + 1) * sizeof(*top));
	up = malloc((m->events.n + 1) * sizeof(*up));
	if (!top || !up)
		goto out;
	for (i = 0; i < nt; i++)
		top[i] = MODEL_NOIDX;
	rc = 0;
	/* nothing to place nor to cover with: the walk would find nothing */
	if (!(m->kinds & (MODEL_KB(MK_GPU_ANNOTATION) | MODEL_KB_DEVICE)))
		goto out;
	rc = NNS_ENOMEM;
	/* events sorted by (ts, -dur): per group of equal starts, annotations
	 * are pushed before the group's device events are placed, so an
	 * annotation and a kernel starting together (equal dur too) nest */
	for (i = 0; i < m->events.n;) {
		size_t j = i, pass;

		while (j < m->events.n && m->events.v[j].ts == m->events.v[i].ts)
			j++;
		for (pass = 0; pass < 2; pass++) {
			size_t q;
			for (q = i; q < j; q++) {
				const struct model_event *e = &m->events.v[q];
				uint32_t t = e->thread, a;
				int dev = model_kind_is_device(e->kind);

				if (t >= nt || (pass == 0 ? e->kind != MK_GPU_ANNOTATION : !dev))
					continue;
				/* pop the annotations that ended at or before this start */
				while ((a = top[t]) != MODEL_NOIDX &&
				       m->events.v[a].ts + m->events.v[a].dur <= e->ts)
					top[t] = up[a];
				if (pass == 0) {
					if (e->dur > 0) { /* zero length covers nothing */
						up[q] = top[t];
						top[t] = (uint32_t)q;
					}
					continue;
				}
				(*devs)++;
				if ((a = top[t]) == MODEL_NOIDX)
					continue;
				(*covered)++;
				{
					struct agg g = {m->events.v[a].name, e->name, 1, e->dur};
					if (vec_push(ka, g))
						goto out;
				}
			}
		}
		i = j;
	}
	rc = 0;
out:
	free(top);
	free(up);
	return rc;
}

/* Fills each GPU row's kernel_count/kernel_sum and its top kernels. */
static int gpu_kernels(struct hta_annotations *out, agg_vec *ka)
{
	size_t n = agg_merge(ka->v, ka->n), i = 0, r;

	ka->n = n;
	/* ka is sorted by (annotation, kernel); rows are few: scan per row */
	for (r = 0; r < out->gpu.n; r++) {
		struct hta_anno_row *row = &out->gpu.v[r];
		size_t lo = 0, hi = n, k, cnt;

		/* lower bound of row->name */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (ka->v[mid].key < row->name)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (i = lo; i < n && ka->v[i].key == row->name; i++) {
			row->kernel_count += ka->v[i].count;
			row->kernel_sum += ka->v[i].sum;
		}
		cnt = i - lo;
		if (cnt > 1)
			qsort(ka->v + lo, cnt, sizeof(*ka->v), agg_sum_cmp);
		row->first_kernel = (uint32_t)out->kernels.n;
		for (k = 0; k < cnt && k < HTA_ANNO_KERNELS_MAX; k++) {
			struct hta_anno_kernel x = {ka->v[lo + k].sub, ka->v[lo + k].count,
						    ka->v[lo + k].sum};
			if (vec_push(&out->kernels, x))
				return NNS_ENOMEM;
		}
		row->nkernels = (uint32_t)(out->kernels.n - row->first_kernel);
		/* restore (key, sub) order for the next binary search */
		if (cnt > 1)
			qsort(ka->v + lo, cnt, sizeof(*ka->v), agg_key_cmp);
	}
	return 0;
}

int hta_annotations_compute(const struct an_profile *p, struct hta_annotations *out,
			    struct nns_err *err)
{
	const struct model *m = p->m;
	agg_vec ca = {0}, ga = {0}, ka = {0};
	size_t i;
	int rc = NNS_ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!m)
		return NNS_OK;
	for (i = 0; i < m->events.n &&
		    (m->kinds & (MODEL_KB(MK_USER_ANNOTATION) | MODEL_KB(MK_GPU_ANNOTATION)));
	     i++) {
		const struct model_event *e = &m->events.v[i];
		struct agg g = {e->name, 0, 1, e->dur};

		if (e->kind == MK_USER_ANNOTATION && vec_push(&ca, g))
			goto out;
		if (e->kind == MK_GPU_ANNOTATION && vec_push(&ga, g))
			goto out;
	}
	if (rows_of(&ca, &out->cpu, &out->cpu_more) || rows_of(&ga, &out->gpu, &out->gpu_more))
		goto out;
	if (cover(m, &ka, &out->device_events, &out->device_covered) || gpu_kernels(out, &ka))
		goto out;
	rc = NNS_OK;
out:
	vec_free(&ca);
	vec_free(&ga);
	vec_free(&ka);
	if (rc) {
		hta_annotations_release(out);
		nns_err_set(err, rc, "out of memory in the annotation breakdown");
	}
	return rc;
}

void hta_annotations_release(struct hta_annotations *a)
{
	vec_free(&a->cpu);
	vec_free(&a->gpu);
	vec_free(&a->kernels);
	memset(a, 0, sizeof(*a));
}
