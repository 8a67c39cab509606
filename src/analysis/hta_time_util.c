/*
 * hta_time_util.c - helpers shared by nnscope's HTA time analyses
 * (hta_time.h): device events grouped by stream, order statistics with
 * pandas' percentile rule, and a streaming down-sampler for step series.
 */
#include "analysis/hta_time.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t hta_event_stream(const struct model *m, const struct model_event *e)
{
	return model_event_stream(m, (uint32_t)(e - m->events.v));
}

struct key {
	int64_t stream;
	uint32_t idx;
	int32_t device;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

int hta_stream_order(const struct model *m, uint32_t **idx, size_t *n)
{
	struct key *k = NULL;
	size_t i, cnt = 0;

	*idx = NULL;
	*n = 0;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_DEVICE); i++)
		if (model_kind_is_device(m->events.v[i].kind) &&
		    hta_event_stream(m, &m->events.v[i]) >= 0)
			cnt++;
	if (cnt == 0)
		return NNS_OK;
	k = malloc(cnt * sizeof(*k));
	*idx = malloc(cnt * sizeof(**idx));
	if (!k || !*idx) {
		free(k);
		free(*idx);
		*idx = NULL;
		return NNS_ENOMEM;
	}
	cnt = 0;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_DEVICE); i++) {
		const struct model_event *e = &m->events.v[i];
		int64_t s;

		if (!model_kind_is_device(e->kind) || (s = hta_event_stream(m, e)) < 0)
			continue;
		k[cnt].stream = s;
		k[cnt].idx = (uint32_t)i;
		k[cnt].device = hta_event_device(m, e);
		cnt++;
	}
	qsort(k, cnt, sizeof(*k), cmp_key);
	for (i = 0; i < cnt; i++)
		(*idx)[i] = k[i].idx;
	free(k);
	*n = cnt;
	return NNS_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void swap_d(double *v, size_t a, size_t b)
{
	double t = v[a];

	v[a] = v[b];
	v[b] = t;
}

/* Puts the k-th smallest of v[0..n) at v[k], smaller ones before it and
 * larger ones after (Hoare partitions around a median of three). Past
 * 2 log2(n) + 8 rounds (hostile input) the range left is sorted instead,
 * so it is never worse than O(n log n). */
static void select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1, rounds = 8;

	for (size_t m = n; m > 1; m >>= 1)
		rounds += 2;
	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double piv;

		if (rounds-- == 0) {
			qsort(v + lo, hi - lo + 1, sizeof(*v), cmp_double);
			return;
		}
		if (v[mid] < v[lo])
			swap_d(v, lo, mid);
		if (v[hi] < v[lo])
			swap_d(v, lo, hi);
		if (v[hi] < v[mid])
			swap_d(v, mid, hi);
		piv = v[mid];
		while (i <= j) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i <= j) {
				swap_d(v, i, j);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		/* [lo, j] <= piv <= [i, hi]; between them all equal piv */
		if (k <= j && j < hi)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

double hta_quantile(double *v, size_t n, double p)
{
	double pos, frac, next;
	size_t lo, i;

	if (n == 0)
		return 0;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	pos = p * (double)(n - 1);
	lo = (size_t)pos;
	if (lo >= n)
		lo = n - 1;
	frac = pos - (double)lo;
	select_k(v, n, lo);
	if (lo + 1 >= n || frac == 0)
		return v[lo];
	/* the next order statistic: the smallest of what lies above v[lo] */
	next = v[lo + 1];
	for (i = lo + 2; i < n; i++)
		if (v[i] < next)
			next = v[i];
	return v[lo] + frac * (next - v[lo]);
}

/* min and max of v[0..n) (n > 0); returns the sum, added in order. */
static double min_max_sum(const double *v, size_t n, double *min, double *max)
{
	double sum = 0;

	*min = *max = v[0];
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < *min)
			*min = v[i];
		if (v[i] > *max)
			*max = v[i];
	}
	return sum;
}

void hta_stats_of(double *v, size_t n, struct hta_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (n == 0)
		return;
	s->count = (int64_t)n;
	s->mean = min_max_sum(v, n, &s->min, &s->max) / (double)n;
	s->p50 = hta_quantile(v, n, 0.5);
	s->p95 = hta_quantile(v, n, 0.95);
}

void hta_describe_of(double *v, size_t n, struct hta_describe *d)
{
	double sq = 0;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (n == 0)
		return;
	d->count = (int64_t)n;
	d->mean = min_max_sum(v, n, &d->min, &d->max) / (double)n;
	for (i = 0; i < n; i++)
		sq += (v[i] - d->mean) * (v[i] - d->mean);
	d->std = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	d->p25 = hta_quantile(v, n, 0.25);
	d->p50 = hta_quantile(v, n, 0.50);
	d->p75 = hta_quantile(v, n, 0.75);
}

/* ---- down-sampler ---------------------------------------------------------- */

void hta_ds_init(struct hta_ds *d, hta_series *out, int64_t t0, int64_t t1, size_t npoints,
		 size_t max_points)
{
	memset(d, 0, sizeof(*d));
	d->out = out;
	d->t0 = t0;
	if (max_points < 4)
		max_points = 4;
	d->keep_all = npoints <= max_points;
	d->nbuckets = max_points / 4;
	/* ceil((t1 - t0 + 1) / nbuckets) so that t1 falls in the last bucket */
	d->width = (t1 > t0 ? (uint64_t)t1 - (uint64_t)t0 : 0) / d->nbuckets + 1;
}

static void ds_push(struct hta_ds *d, struct hta_point p)
{
	if (d->rc == 0 && vec_push(d->out, p) != 0)
		d->rc = NNS_ENOMEM;
}

static void ds_flush(struct hta_ds *d)
{
	struct hta_point k[4] = {d->first, d->lo, d->hi, d->last}, t;
	size_t q[4] = {d->first_seq, d->lo_seq, d->hi_seq, d->last_seq}, u;
	int i, j;

	if (!d->have)
		return;
	for (i = 1; i < 4; i++) /* order the four by arrival (time, then input order) */
		for (j = i; j > 0 && q[j - 1] > q[j]; j--) {
			t = k[j], k[j] = k[j - 1], k[j - 1] = t;
			u = q[j], q[j] = q[j - 1], q[j - 1] = u;
		}
	for (i = 0; i < 4; i++)
		if (i == 0 || q[i] != q[i - 1])
			ds_push(d, k[i]);
	d->have = 0;
}

void hta_ds_add(struct hta_ds *d, int64_t ts, double value)
{
	struct hta_point p = {ts, value};
	size_t b, seq = d->seq++;

	if (d->keep_all) {
		ds_push(d, p);
		return;
	}
	b = ts <= d->t0 ? 0 : (size_t)(((uint64_t)ts - (uint64_t)d->t0) / d->width);
	if (b >= d->nbuckets)
		b = d->nbuckets - 1;
	if (d->have && b != d->bucket)
		ds_flush(d);
	if (!d->have) {
		d->bucket = b;
		d->first = d->lo = d->hi = d->last = p;
		d->first_seq = d->lo_seq = d->hi_seq = d->last_seq = seq;
		d->have = 1;
		return;
	}
	/* strict comparisons keep the first point of a level (where it starts) */
	if (value < d->lo.value)
		d->lo = p, d->lo_seq = seq;
	if (value > d->hi.value)
		d->hi = p, d->hi_seq = seq;
	d->last = p, d->last_seq = seq;
}

int hta_ds_finish(struct hta_ds *d)
{
	ds_flush(d);
	return d->rc;
}
